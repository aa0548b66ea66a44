/* unit_text.c - text traces (trace-cmd report, tracefs trace) become records */
#include "input/input.h"
#include "render/render.h"
#include "testlib.h"

#include <unistd.h>

static char tmpl[] = "/tmp/unit_text_XXXXXX";
static char path[64];

/* open_text - write s to a temporary file and open it as a trace */
static struct ipt_trace *open_text(const char *s)
{
	FILE *f;

	snprintf(path, sizeof(path), "%s", tmpl);
	{
		int fd = mkstemp(path);

		if (fd < 0)
			return NULL;
		f = fdopen(fd, "w");
	}
	if (!f)
		return NULL;
	fputs(s, f);
	fclose(f);
	{
		struct ipt_trace *t = ipt_trace_open(path);

		unlink(path);
		return t;
	}
}

#define MAXR 64
struct recs {
	struct ipt_record r[MAXR];
	int n;
	struct ipt_iter *it;
};

/* all_records - every record in merged order (data stays valid: flat pages) */
static void all_records(struct ipt_trace *t, struct recs *rs)
{
	rs->n = 0;
	rs->it = ipt_iter_new(t, NULL);
	while (rs->n < MAXR && ipt_iter_next(rs->it, &rs->r[rs->n]) > 0)
		rs->n++;
}

static uint64_t u(struct ipt_trace *t, const struct ipt_record *r, const char *name)
{
	const struct ipt_field *f = r->event ? ipt_event_field(r->event, name) : NULL;
	uint64_t v = 0xdeadbeef;

	if (!f || ipt_field_u64(t, r, f, &v))
		return 0xdeadbeef;
	return v;
}

/* mask - the cpulist of a mask field ("<err>" on failure) */
static const char *mask(struct ipt_trace *t, const struct ipt_record *r, const char *name)
{
	static char buf[256];
	struct ipt_cpuset s = IPT_CPUSET_INIT;
	const struct ipt_field *f = r->event ? ipt_event_field(r->event, name) : NULL;

	ipt_cpuset_init(&s);
	if (!f || ipt_field_cpuset(t, r, f, &s)) {
		ipt_cpuset_free(&s);
		return "<err>";
	}
	ipt_cpuset_format_list(&s, buf, sizeof(buf));
	ipt_cpuset_free(&s);
	return buf;
}

static uint32_t dyn_len(struct ipt_trace *t, const struct ipt_record *r, const char *name)
{
	const struct ipt_field *f = ipt_event_field(r->event, name);
	const uint8_t *d;
	uint32_t n = 0;

	if (!f || ipt_field_bytes(t, r, f, &d, &n))
		return 0xffffffff;
	return n;
}

static const char *str(struct ipt_trace *t, const struct ipt_record *r, const char *name)
{
	static char buf[512];
	const struct ipt_field *f = ipt_event_field(r->event, name);
	const uint8_t *d;
	uint32_t n = 0;

	if (!f || ipt_field_bytes(t, r, f, &d, &n))
		return "<err>";
	snprintf(buf, sizeof(buf), "%.*s", (int)strnlen((const char *)d, n), (const char *)d);
	return buf;
}

/* sym - "name+0xoff" of an address, via ipt_trace_symbol */
static const char *sym(struct ipt_trace *t, uint64_t addr)
{
	static char buf[256];
	uint64_t off = 0;
	const char *s = ipt_trace_symbol(t, addr, &off);

	if (!s)
		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
	else
		snprintf(buf, sizeof(buf), "%s+0x%llx", s, (unsigned long long)off);
	return buf;
}

static void done(struct ipt_trace *t, struct recs *rs)
{
	ipt_iter_free(rs->it);
	ipt_trace_close(t);
}

static const char *evname(const struct ipt_record *r)
{
	return r->event ? ipt_event_name(r->event) : "(none)";
}

/* ---- trace-cmd report text ---- */

static void test_report_ipi(void)
{
	static const char in[] =
		"cpus=4\n"
		"            bash-26136 [001]   464.318277: ipi_send_cpu:         cpu=2 callsite=wakeup_preempt+0x92 callback=0x0\n"
		"        fx-storm-26182 [000]   462.986314: csd_queue_cpu:        cpu=1 callsite=ttwu_queue_wakelist+0x11d func=sched_ttwu_pending csd=0xffff888106b72db8\n"
		"        fx-storm-26182 [000]   462.986316: ipi_send_cpu:         cpu=1 callsite=ttwu_queue_wakelist+0x11d callback=generic_smp_call_function_single_interrupt+0x0\n"
		"            bash-26136 [003]   464.318278: csd_function_entry:   func=flush_tlb_func, csd=(nil)\n"
		" memfd:sealed-91-1531  [001]   464.974991: reschedule_entry:     vector=253\n"
		"          <idle>-0     [002]   465.000000: call_function_single_exit: vector=251\n"
		"           <...>-3322  [002]   465.000001: ipi_send_cpumask:     cpumask=1,3-5 callsite=on_each_cpu_cond_mask+0x40 callback=flush_tlb_func+0x0\n";
	struct ipt_trace *t = open_text(in);
	struct recs rs;
	const struct ipt_record *r;
	uint64_t a, b;

	CHECK(t != NULL, "open: %s", ipt_errmsg());
	if (!t)
		return;
	CHECK(ipt_trace_kind(t) == IPT_INPUT_REPORT_TEXT, "kind %d", ipt_trace_kind(t));
	CHECK(ipt_trace_ncpus(t) == 4, "ncpus %d", ipt_trace_ncpus(t));
	CHECK_STR(ipt_trace_clock(t), "");
	CHECK(ipt_trace_ts_in_ns(t), "ns timestamps");
	all_records(t, &rs);
	CHECK(rs.n == 7, "%d records", rs.n);
	if (rs.n != 7)
		goto out;
	/* merged in time order: the two csd/ipi lines of CPU 0 come first */
	r = &rs.r[0];
	CHECK_STR(evname(r), "csd_queue_cpu");
	CHECK_STR(ipt_event_system(r->event), "csd");
	CHECK(r->cpu == 0 && r->ts == 462986314000ULL, "cpu %d ts %llu", r->cpu, (unsigned long long)r->ts);
	CHECK(u(t, r, "cpu") == 1, "cpu field");
	CHECK_STR(sym(t, u(t, r, "callsite")), "ttwu_queue_wakelist+0x11d");
	CHECK_STR(sym(t, u(t, r, "func")), "sched_ttwu_pending+0x0");
	CHECK(u(t, r, "csd") == 0xffff888106b72db8ULL, "csd %llx", (unsigned long long)u(t, r, "csd"));
	CHECK(ipt_record_pid(t, r) == 26182, "pid %d", ipt_record_pid(t, r));
	CHECK_STR(ipt_trace_comm(t, 26182), "fx-storm");
	r = &rs.r[1];
	CHECK_STR(evname(r), "ipi_send_cpu");
	a = u(t, r, "callsite");
	b = u(t, &rs.r[0], "callsite");
	CHECK(a == b, "same text, same address: %llx %llx", (unsigned long long)a, (unsigned long long)b);
	a = u(t, r, "callback");
	CHECK_STR(sym(t, a), "generic_smp_call_function_single_interrupt+0x0");
	CHECK(ipt_trace_symbol_addr(t, "generic_smp_call_function_single_interrupt") == a,
	      "symbol address of the callback");
	r = &rs.r[2];
	CHECK(r->cpu == 1 && r->ts == 464318277000ULL, "ts %llu", (unsigned long long)r->ts);
	CHECK(u(t, r, "cpu") == 2, "cpu 2");
	CHECK_STR(sym(t, u(t, r, "callsite")), "wakeup_preempt+0x92");
	CHECK(u(t, r, "callback") == 0, "callback 0x0 is 0");
	CHECK(ipt_trace_symbol(t, 0, NULL) == NULL, "no symbol at 0");
	CHECK_STR(ipt_trace_comm(t, 26136), "bash");
	r = &rs.r[3];
	CHECK_STR(evname(r), "csd_function_entry");
	CHECK_STR(sym(t, u(t, r, "func")), "flush_tlb_func+0x0");
	CHECK(u(t, r, "csd") == 0, "(nil) is 0");
	r = &rs.r[4];
	CHECK_STR(evname(r), "reschedule_entry");
	CHECK_STR(ipt_event_system(r->event), "irq_vectors");
	CHECK(u(t, r, "vector") == 253, "vector");
	CHECK_STR(ipt_trace_comm(t, 1531), "memfd:sealed-91");
	r = &rs.r[5];
	CHECK_STR(evname(r), "call_function_single_exit");
	CHECK(u(t, r, "vector") == 251, "vector");
	CHECK(ipt_record_pid(t, r) == 0, "idle pid");
	CHECK_STR(ipt_trace_comm(t, 0), "<idle>");
	r = &rs.r[6];
	CHECK_STR(evname(r), "ipi_send_cpumask");
	CHECK_STR(mask(t, r, "cpumask"), "1,3-5");
	CHECK(dyn_len(t, r, "cpumask") == 8, "4 CPUs: one long, got %u", dyn_len(t, r, "cpumask"));
	CHECK_STR(ipt_trace_comm(t, 3322), "<...>");
	CHECK_STR(sym(t, u(t, r, "callback")), "flush_tlb_func+0x0");
	CHECK(u(t, r, "callback") == u(t, &rs.r[3], "func"), "one address per name");
	/* the model: formats registered for the events seen, with their real ids */
	CHECK(ipt_trace_find_event(t, "ipi", "ipi_send_cpu") != NULL, "ipi_send_cpu format");
	CHECK(ipt_event_id(ipt_trace_find_event(t, "ipi", "ipi_send_cpu")) == 354, "id");
	CHECK(ipt_trace_find_event(t, NULL, "sched_switch") == NULL, "no unused formats");
	CHECK(ipt_trace_find_event(t, "ipi", "ipi_send_cpumask") != NULL &&
	      (ipt_field_flags(ipt_event_field(ipt_trace_find_event(t, "ipi", "ipi_send_cpumask"),
					      "cpumask")) & IPT_FIELD_CPUMASK), "cpumask field");
out:
	done(t, &rs);
}

static void test_masks(void)
{
	static const char in[] =
		"  a-1 [000] 1.000001: ipi_send_cpumask: cpumask=00000000,00000005 callsite=f+0x1 callback=0x0\n"
		"  a-1 [000] 1.000002: ipi_send_cpumask: cpumask= callsite=f+0x1 callback=0x0\n"
		"  a-1 [000] 1.000003: ipi_send_cpumask: [FAILED TO PARSE] cpumask=ARRAY[02, 00, 00, 00, 00, 00, 00, 00] callsite=0xffffffff81121013\n"
		"  a-1 [000] 1.000004: ipi_send_cpumask: cpumask=0-1,3-79 callsite=f+0x2 callback=g+0x0\n"
		"  a-1 [000] 1.000005: ipi_send_cpumask: cpumask=2 callsite=f+0x2 callback=g+0x0\n"
		"  a-1 [000] 1.000006: ipi_send_cpumask: cpumask=0000ffff callsite=f+0x2 callback=g+0x0\n";
	struct ipt_trace *t = open_text(in);
	struct recs rs;

	CHECK(t != NULL, "open: %s", ipt_errmsg());
	if (!t)
		return;
	all_records(t, &rs);
	CHECK(rs.n == 6, "%d records", rs.n);
	if (rs.n == 6) {
		CHECK_STR(mask(t, &rs.r[0], "cpumask"), "0,2");
		CHECK_STR(mask(t, &rs.r[1], "cpumask"), "");
		CHECK_STR(mask(t, &rs.r[2], "cpumask"), "1");
		/* a raw address stays a number, missing fields are 0 */
		CHECK(u(t, &rs.r[2], "callsite") == 0xffffffff81121013ULL, "raw callsite");
		CHECK_STR(sym(t, u(t, &rs.r[2], "callsite")), "0xffffffff81121013");
		CHECK(u(t, &rs.r[2], "callback") == 0, "missing callback");
		CHECK_STR(mask(t, &rs.r[3], "cpumask"), "0-1,3-79");
		CHECK(dyn_len(t, &rs.r[3], "cpumask") == 16, "80 CPUs: two longs, got %u",
		      dyn_len(t, &rs.r[3], "cpumask"));
		/* "2" is a CPU list in trace-cmd report (libtraceevent 1.7+) */
		CHECK_STR(mask(t, &rs.r[4], "cpumask"), "2");
		/* 8 hex digits: the kernel's %*pb words */
		CHECK_STR(mask(t, &rs.r[5], "cpumask"), "0-15");
		CHECK(u(t, &rs.r[3], "callsite") == u(t, &rs.r[0], "callsite") + 1, "f+0x2 = f+0x1 + 1");
	}
	done(t, &rs);
}

static void test_report_sched_stack(void)
{
	static const char in[] =
		"cpus=2\n"
		"             git-26298 [001]   464.318705: sched_wakeup:         scan.sh:15071 [120] CPU:001\n"
		"             git-26298 [001]   464.318711: sched_switch:         git:26298 [120] X ==> scan.sh:15071 [100]\n"
		"    ksoftirqd/13-117   [001]   464.318712: sched_wakeup:         ksoftirqd/13:117 [120] success=1 CPU:013\n"
		"     rcu_preempt-15    [001]   464.320772: sched_switch:         rcu_preempt:15 [120] D|W ==> git:26298 [120]\n"
		"            bash-26136 [000]   466.848005: kernel_stack:         <stack trace >\n"
		"=> trace_event_raw_event_csd_function (ffffffff8144fb7c)\n"
		"=> smp_call_function_many_cond (ffffffff81450417)\n"
		"=> ffffffffc0a1b2c3\n"
		"            bash-26136 [000]   466.848107: csd_function_exit:    func=flush_tlb_func, csd=(nil)\n"
		"            bash-26136 [000]   466.848108: softirq_entry:        vec=1 [action=TIMER]\n";
	struct ipt_trace *t = open_text(in);
	struct recs rs;
	const struct ipt_record *r;

	CHECK(t != NULL, "open: %s", ipt_errmsg());
	if (!t)
		return;
	all_records(t, &rs);
	CHECK(rs.n == 7, "%d records", rs.n);
	if (rs.n != 7)
		goto out;
	/* CPU 1's lines (464.3) come before CPU 0's (466.8) */
	r = &rs.r[0];
	CHECK_STR(evname(r), "sched_wakeup");
	CHECK_STR(str(t, r, "comm"), "scan.sh");
	CHECK(u(t, r, "pid") == 15071 && u(t, r, "prio") == 120 && u(t, r, "target_cpu") == 1,
	      "wakeup fields");
	r = &rs.r[1];
	CHECK_STR(evname(r), "sched_switch");
	CHECK_STR(str(t, r, "prev_comm"), "git");
	CHECK(u(t, r, "prev_pid") == 26298 && u(t, r, "prev_prio") == 120, "prev");
	/* trace-cmd's plugin letters "SDTtZXxW": X is bit 5 */
	CHECK(u(t, r, "prev_state") == 0x20, "X state: %llx", (unsigned long long)u(t, r, "prev_state"));
	CHECK_STR(str(t, r, "next_comm"), "scan.sh");
	CHECK(u(t, r, "next_pid") == 15071 && u(t, r, "next_prio") == 100, "next");
	r = &rs.r[2];
	CHECK_STR(str(t, r, "comm"), "ksoftirqd/13");
	CHECK(u(t, r, "target_cpu") == 13 && u(t, r, "pid") == 117, "success=1 form");
	r = &rs.r[3];
	CHECK(u(t, r, "prev_state") == 0x82, "D|W: %llx", (unsigned long long)u(t, r, "prev_state"));
	r = &rs.r[4];
	CHECK_STR(evname(r), "kernel_stack");
	CHECK_STR(ipt_event_system(r->event), "ftrace");
	CHECK(u(t, r, "size") == 3, "3 callers, got %llu", (unsigned long long)u(t, r, "size"));
	CHECK(r->size == 16 + 3 * 8, "record of %u bytes", r->size);
	if (r->size >= 40) {
		uint64_t c0 = ipt_get_uint(r->data + 16, 8, false);
		uint64_t c1 = ipt_get_uint(r->data + 24, 8, false);
		uint64_t c2 = ipt_get_uint(r->data + 32, 8, false);

		CHECK(c0 == 0xffffffff8144fb7cULL, "real address kept");
		CHECK_STR(sym(t, c0), "trace_event_raw_event_csd_function+0x0");
		CHECK_STR(sym(t, c1), "smp_call_function_many_cond+0x0");
		CHECK(c2 == 0xffffffffc0a1b2c3ULL, "raw stack address");
	}
	r = &rs.r[5];
	CHECK_STR(evname(r), "csd_function_exit");
	r = &rs.r[6];
	CHECK_STR(evname(r), "softirq_entry");
	CHECK_STR(ipt_event_system(r->event), "text");
	CHECK_STR(str(t, r, "text"), "vec=1 [action=TIMER]");
	CHECK_STR(ipt_event_print_fmt(r->event), "\"%s\", __get_str(text)");
out:
	done(t, &rs);
}

/* ---- tracefs text ---- */

static void test_tracefs(void)
{
	static const char in[] =
		"# tracer: nop\n"
		"#\n"
		"# entries-in-buffer/entries-written: 5/5   #P:8\n"
		"#\n"
		"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		"#              | |         |   |||||     |         |\n"
		"            bash-26136   [000] d..2.   471.820989: csd_function_entry: func=flush_tlb_func, csd=0000000000000000\n"
		"        fx-storm-27222   [001] dnh31   471.831247: csd_queue_cpu: cpu=0 callsite=ttwu_queue_wakelist+0x11d/0x150 func=sched_ttwu_pending csd=00000000b7c6531b\n"
		"           ACCS0-2716  ( 2519) [002] ...1 471.900000: sched_switch: prev_comm=ACCS0 prev_pid=2716 prev_prio=120 prev_state=R+ ==> next_comm=Heap Task next_pid=2532 next_prio=124\n"
		"          <idle>-0     (-----) [003] d..3 471.900001: sched_waking: comm=Binder:924_3 pid=1200 prio=120 target_cpu=001\n"
		"          <idle>-0       [004] d.h2.   471.900002: <stack trace>\n"
		" => __sysvec_call_function_single\n"
		" => sysvec_call_function_single+0x80/0xa0\n"
		"          <idle>-0       [004] d.h2.   471.900003: call_function_single_entry: vector=251\n";
	struct ipt_trace *t = open_text(in);
	struct recs rs;
	const struct ipt_record *r;

	CHECK(t != NULL, "open: %s", ipt_errmsg());
	if (!t)
		return;
	CHECK(ipt_trace_kind(t) == IPT_INPUT_TRACEFS_TEXT, "kind %d", ipt_trace_kind(t));
	CHECK(ipt_trace_ncpus(t) == 8, "#P:8 -> %d", ipt_trace_ncpus(t));
	all_records(t, &rs);
	CHECK(rs.n == 6, "%d records", rs.n);
	if (rs.n != 6)
		goto out;
	r = &rs.r[0];
	CHECK(r->data[2] == 0x01 && r->data[3] == 2, "flags d..2.: %x %x", r->data[2], r->data[3]);
	CHECK(u(t, r, "csd") == 0, "zero-padded csd");
	r = &rs.r[1];
	/* d: irqs off 0x01, n: need resched 0x04, h: hardirq 0x08; depth 3, migrate-disable 1 */
	CHECK(r->data[2] == 0x0d && r->data[3] == 0x13, "flags dnh31: %x %x", r->data[2], r->data[3]);
	CHECK_STR(sym(t, u(t, r, "callsite")), "ttwu_queue_wakelist+0x11d");
	CHECK(u(t, r, "csd") == 0xb7c6531bULL, "hashed %%p kept as a number");
	r = &rs.r[2];
	CHECK_STR(evname(r), "sched_switch");
	CHECK(r->cpu == 2 && ipt_record_pid(t, r) == 2716, "tgid column");
	CHECK_STR(ipt_trace_comm(t, 2716), "ACCS0");
	CHECK(u(t, r, "prev_state") == 0x100, "R+: %llx", (unsigned long long)u(t, r, "prev_state"));
	CHECK_STR(str(t, r, "next_comm"), "Heap Task");
	CHECK(u(t, r, "next_pid") == 2532 && u(t, r, "next_prio") == 124, "next");
	r = &rs.r[3];
	CHECK(r->cpu == 3 && ipt_record_pid(t, r) == 0, "(-----) tgid");
	CHECK_STR(str(t, r, "comm"), "Binder:924_3");
	CHECK(u(t, r, "target_cpu") == 1, "target_cpu=001");
	r = &rs.r[4];
	CHECK_STR(evname(r), "kernel_stack");
	CHECK(u(t, r, "size") == 2, "2 callers");
	if (r->size >= 32) {
		uint64_t c0 = ipt_get_uint(r->data + 16, 8, false);
		uint64_t c1 = ipt_get_uint(r->data + 24, 8, false);

		CHECK_STR(sym(t, c0), "__sysvec_call_function_single+0x0");
		CHECK_STR(sym(t, c1), "sysvec_call_function_single+0x80");
	}
	CHECK_STR(evname(&rs.r[5]), "call_function_single_entry");
out:
	done(t, &rs);
}

static void test_arm64(void)
{
	static const char in[] =
		"# tracer: nop\n"
		"# entries-in-buffer/entries-written: 28/28   #P:12\n"
		"          <idle>-0       [009] dn.h2..   555.400822: ipi_raise: target_mask=00000000,00000002 (Function call interrupts)\n"
		"          insmod-1644    [000] ....1..   555.401628: ipi_raise: target_mask=00000000,00000ffe (Function call interrupts)\n"
		"          <idle>-0       [001] d..h1..   555.401630: ipi_entry: (Rescheduling interrupts)\n"
		"          <idle>-0       [001] d..h1..   555.401631: ipi_exit: (Rescheduling interrupts)\n"
		"    <...>-234   [001]    555.401632: ipi_raise:            target_mask=00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000004 (Function call interrupts)\n";
	struct ipt_trace *t = open_text(in);
	struct recs rs;
	const struct ipt_record *r;

	CHECK(t != NULL, "open: %s", ipt_errmsg());
	if (!t)
		return;
	all_records(t, &rs);
	CHECK(rs.n == 5, "%d records", rs.n);
	if (rs.n != 5)
		goto out;
	r = &rs.r[0];
	CHECK_STR(evname(r), "ipi_raise");
	CHECK(r->cpu == 9, "cpu 9");
	CHECK_STR(mask(t, r, "target_cpus"), "1");
	CHECK_STR(ipt_trace_printk_string(t, u(t, r, "reason")), "Function call interrupts");
	r = &rs.r[1];
	CHECK_STR(mask(t, r, "target_cpus"), "1-11");
	CHECK(u(t, r, "reason") == u(t, &rs.r[0], "reason"), "one address per reason");
	CHECK(dyn_len(t, r, "target_cpus") == 8, "64-bit mask");
	r = &rs.r[2];
	CHECK_STR(evname(r), "ipi_entry");
	CHECK_STR(ipt_trace_printk_string(t, u(t, r, "reason")), "Rescheduling interrupts");
	CHECK(u(t, r, "reason") != u(t, &rs.r[0], "reason"), "distinct reasons");
	CHECK_STR(ipt_trace_printk_string(t, u(t, &rs.r[3], "reason")), "Rescheduling interrupts");
	r = &rs.r[4];
	CHECK_STR(mask(t, r, "target_cpus"), "2");
	CHECK(dyn_len(t, r, "target_cpus") == 32, "256-bit mask kept: %u", dyn_len(t, r, "target_cpus"));
out:
	done(t, &rs);
}

/* ---- odd inputs ---- */

static void test_mail_and_drops(void)
{
	static const char in[] =
		"Hi,\n"
		"\n"
		"with the patch I see [1] this:\n"
		"> hackbench-157   [001]    10.894320: ipi_send_cpu:         cpu=3 callsite=check_preempt_curr+0x37 callback=0x0\n"
		">> hackbench-157   [001]    10.895068: ipi_send_cpu:         cpu=3 callsite=try_to_wake_up+0x29e callback=sched_ttwu_pending+0x0\n"
		"  ipi_send_cpumask:     cpumask= callsite=on_each_cpu_cond_mask+0x3c callback=flush_tlb_func+0x0\n"
		"CPU:1 [EVENTS DROPPED]\n"
		"       hackbench-157   [001]    10.895070: ipi_send_cpu:         cpu=2 callsite=try_to_wake_up+0x29e callback=0x0\n"
		"CPU:1 [LOST 17 EVENTS]\n"
		"       hackbench-157   [001]    10.895071: ipi_send_cpu:         cpu=2 callsite=try_to_wake_up+0x29e callback=0x0\n"
		"       hackbench-157   [001]    10.895069: ipi_send_cpu:         cpu=2 callsite=try_to_wake_up+0x29e callback=0x0\n"
		"-- \n"
		"Thanks, foo-1 [2] 3 apples\n";
	struct ipt_trace *t = open_text(in);
	struct recs rs;

	CHECK(t != NULL, "open: %s", ipt_errmsg());
	if (!t)
		return;
	all_records(t, &rs);
	CHECK(rs.n == 5, "%d records", rs.n);
	if (rs.n == 5) {
		CHECK_STR(sym(t, u(t, &rs.r[0], "callsite")), "check_preempt_curr+0x37");
		CHECK_STR(sym(t, u(t, &rs.r[1], "callback")), "sched_ttwu_pending+0x0");
		CHECK(rs.r[1].missed == 0, "no loss");
		CHECK(rs.r[2].missed == UINT64_MAX, "unknown count: %llu", (unsigned long long)rs.r[2].missed);
		CHECK(rs.r[3].missed == 17, "17 lost: %llu", (unsigned long long)rs.r[3].missed);
		/* a pasted line out of order is raised to the one before it */
		CHECK(rs.r[4].ts == 10895071000ULL, "ts %llu", (unsigned long long)rs.r[4].ts);
	}
	/* skipped lines are counted: "Hi,", the prose, the fragment, "-- ", "Thanks"
	 * (blank lines are not) */
	CHECK(t->scratch && strstr(t->scratch, "5 lines skipped"), "%s", t->scratch ? t->scratch : "(null)");
	CHECK(t->scratch && strstr(t->scratch, "1 timestamps raised"), "%s", t->scratch ? t->scratch : "(null)");
	done(t, &rs);
}

static void test_latency_form(void)
{
	static const char in[] =
		"cpus=2\n"
		"     git-26181   0d.h3.   462.974920: ipi_send_cpu:         cpu=1 callsite=wakeup_preempt+0x92 callback=0x0\n"
		"memfd:se-1531    1d.h1.   462.974991: reschedule_entry:     vector=253\n";
	struct ipt_trace *t = open_text(in);
	struct recs rs;

	CHECK(t != NULL, "open: %s", ipt_errmsg());
	if (!t)
		return;
	CHECK(ipt_trace_kind(t) == IPT_INPUT_REPORT_TEXT, "kind %d", ipt_trace_kind(t));
	all_records(t, &rs);
	CHECK(rs.n == 2, "%d records", rs.n);
	if (rs.n == 2) {
		CHECK(rs.r[0].cpu == 0 && ipt_record_pid(t, &rs.r[0]) == 26181, "first");
		CHECK(rs.r[0].data[2] == 0x09 && rs.r[0].data[3] == 3, "flags d.h3.");
		CHECK(rs.r[1].cpu == 1 && ipt_record_pid(t, &rs.r[1]) == 1531, "second");
		CHECK_STR(ipt_trace_comm(t, 1531), "memfd:se");
	}
	done(t, &rs);
}

static void test_big_offsets(void)
{
	static const char in[] =
		"  a-1 [000] 1.000001: ipi_send_cpu: cpu=1 callsite=big_func+0x10 callback=0x0\n"
		"  a-1 [000] 1.000002: ipi_send_cpu: cpu=1 callsite=big_func+0x5000 callback=other+0x0\n"
		"  a-1 [000] 1.000003: ipi_send_cpu: cpu=1 callsite=big_func+0x0 callback=0x0\n"
		"  a-1 [000] 1.000004: ipi_send_cpu: cpu=1 callsite=0xffffffff81234567 callback=0x0\n";
	struct ipt_trace *t = open_text(in);
	struct recs rs;

	CHECK(t != NULL, "open: %s", ipt_errmsg());
	if (!t)
		return;
	all_records(t, &rs);
	CHECK(rs.n == 4, "%d records", rs.n);
	if (rs.n == 4) {
		CHECK_STR(sym(t, u(t, &rs.r[0], "callsite")), "big_func+0x10");
		CHECK_STR(sym(t, u(t, &rs.r[1], "callsite")), "big_func+0x5000");
		CHECK_STR(sym(t, u(t, &rs.r[1], "callback")), "other+0x0");
		CHECK(u(t, &rs.r[2], "callsite") + 0x10 == u(t, &rs.r[0], "callsite"), "same slot for +0x0");
		CHECK(ipt_trace_symbol_addr(t, "other") == u(t, &rs.r[1], "callback"), "other");
		/* synthetic symbols lie above real addresses: raw ones stay unnamed */
		CHECK_STR(sym(t, u(t, &rs.r[3], "callsite")), "0xffffffff81234567");
	}
	done(t, &rs);
}

/* ---- errors ---- */

static void expect_error(const char *in, const char *want)
{
	struct ipt_trace *t = open_text(in);

	CHECK(t == NULL, "malformed input accepted: %.40s", in);
	if (t) {
		ipt_trace_close(t);
		return;
	}
	CHECK(strstr(ipt_errmsg(), want) != NULL, "error '%s', want '%s'", ipt_errmsg(), want);
	CHECK(strchr(ipt_errmsg(), '\n') == NULL, "one line");
}

static void test_errors(void)
{
	/* line 3 starts at byte 7 + 70 = 77 */
	expect_error("cpus=2\n"
		     "  a-1 [000] 1.000001: ipi_send_cpu: cpu=1 callsite=f+0x1 callback=0x0\n"
		     "  a-1 [000] 1.00000x: ipi_send_cpu: cpu=1 callsite=f+0x1 callback=0x0\n",
		     "offset 77: bad timestamp");
	expect_error("  a-1 [000] 1.000001: ipi_send_cpu: cpu=one callsite=f+0x1 callback=0x0\n",
		     "offset 0: ipi_send_cpu: bad cpu 'one'");
	expect_error("# tracer: nop\n"
		     "  a-1 [000] d..1. 1.000001: csd_queue_cpu: cpu=1 callsite=f+0x1 func=g csd=zz\n",
		     "offset 14: csd_queue_cpu: bad csd");
	expect_error("x\n  a-1 [000] 1.000001: ipi_send_cpumask: cpumask=3-1 callsite=f callback=0x0\n",
		     "offset 2: ipi_send_cpumask: bad cpumask");
	expect_error("  a-1 [000] 1.000001: ipi_send_cpu: hello world\n",
		     "offset 0: ipi_send_cpu: no field");
	expect_error("  a-1 [000] 1.000001: reschedule_entry: vector=25x\n",
		     "offset 0: reschedule_entry: bad vector");
	expect_error("  a-1 [99999] 1.000001: reschedule_entry: vector=253\n",
		     "offset 0: CPU number out of range");
	expect_error("\n\n  a-1 [000] 1.000001:\n", "offset 2: no event after the timestamp");
	expect_error("  a-1 [000] 1.000001: sched_switch: nonsense\n", "offset 0: sched_switch: bad");
	expect_error("  a-1 [000] 1.000001: ipi_raise: (Function call interrupts)\n",
		     "offset 0: ipi_raise: bad");
	expect_error("  a-1 [000] 1.000001: kernel_stack: <stack trace >\n=> f+0xzz\n",
		     "offset 51: bad offset in stack line");
}

/* ---- the latency tracers: timerlat samples, osnoise events (issue 39) ---- */

static void test_spikes(void)
{
	/* tracefs's forms (the timerlat line has no event name) and trace-cmd's */
	static const char in[] =
		"# tracer: timerlat\n"
		"          <idle>-0       [002] d..h1..     6.880400: #1     context    irq timer_latency    123680 ns\n"
		"      timerlat/2-168     [002] .......     6.881019: #1     context thread timer_latency   2277370 ns\n"
		"        cc1-87882 [005] dNLh1.. 548.771082: irq_noise: local_timer:236 start 548.771077442 duration 7597 ns\n"
		"        cc1-87882 [005] dNLh1.. 548.771083: irq_noise: call_function_single:251 start 548.771080000 duration 1200 ns\n"
		"   osnoise/8-961 [008] .... 5789.858413: sample_threshold: start 5789.858404555 duration 8812 ns interferences 2\n"
		"   osnoise/8-961 [008] .... 5789.858414: sample_threshold: start 5789.858404556 duration 8813 ns interference 3\n"
		"   osnoise/8-961 [008] .... 5789.858415: thread_noise:      cc1:87882 start 5789.858000001 duration 400 ns\n"
		"   osnoise/8-961 [008] .... 5789.858416: softirq_noise:    TIMER:1 start 5789.858000002 duration 500 ns\n"
		"   osnoise/8-961 [008] .... 5789.858417: nmi_noise: start 5789.858000003 duration 600 ns\n"
		"   timerlat/3-192 [003] .... 5789.858418: timerlat: seq:7\tcontext:1\ttimer_latency:8534240\n"
		"   kworker/3:1-50 [003] .... 5789.858419: thread_noise: kworker/3:1:50 start 1.000000000 duration 7 ns\n";
	struct ipt_trace *t = open_text(in);
	struct recs rs;
	const struct ipt_record *r;

	CHECK(t != NULL, "open: %s", ipt_errmsg());
	if (!t)
		return;
	all_records(t, &rs);
	CHECK(rs.n == 11, "%d records", rs.n);
	if (rs.n != 11)
		goto out;
	r = &rs.r[0];
	CHECK_STR(evname(r), "timerlat");
	CHECK(u(t, r, "seqnum") == 1 && u(t, r, "context") == 0 && u(t, r, "timer_latency") == 123680,
	      "irq sample");
	r = &rs.r[1];
	CHECK(u(t, r, "context") == 1 && u(t, r, "timer_latency") == 2277370, "thread sample");
	r = &rs.r[2];
	CHECK_STR(evname(r), "irq_noise");
	CHECK_STR(str(t, r, "desc"), "local_timer");
	CHECK(u(t, r, "vector") == 236 && u(t, r, "start") == 548771077442ULL && u(t, r, "duration") == 7597,
	      "irq_noise fields");
	CHECK_STR(str(t, &rs.r[3], "desc"), "call_function_single");
	CHECK(u(t, &rs.r[3], "vector") == 251, "vector 251");
	/* ordered by time: the osnoise/8 lines, then CPU 3's */
	for (int i = 4; i < 11; i++) {
		r = &rs.r[i];
		if (!strcmp(evname(r), "sample_threshold") && u(t, r, "duration") == 8812)
			CHECK(u(t, r, "interference") == 2 && u(t, r, "start") == 5789858404555ULL, "threshold 2");
		else if (!strcmp(evname(r), "sample_threshold"))
			CHECK(u(t, r, "interference") == 3, "threshold 3");
		else if (!strcmp(evname(r), "thread_noise") && r->cpu == 8)
			CHECK(!strcmp(str(t, r, "comm"), "cc1") && u(t, r, "pid") == 87882 &&
			      u(t, r, "duration") == 400, "thread_noise cc1: %s", str(t, r, "comm"));
		else if (!strcmp(evname(r), "thread_noise"))
			CHECK(!strcmp(str(t, r, "comm"), "kworker/3:1") && u(t, r, "pid") == 50 &&
			      u(t, r, "start") == 1000000000ULL, "comm with a colon: %s", str(t, r, "comm"));
		else if (!strcmp(evname(r), "softirq_noise"))
			CHECK(u(t, r, "vector") == 1 && u(t, r, "duration") == 500, "softirq_noise");
		else if (!strcmp(evname(r), "nmi_noise"))
			CHECK(u(t, r, "duration") == 600 && u(t, r, "start") == 5789858000003ULL, "nmi_noise");
		else if (!strcmp(evname(r), "timerlat"))
			CHECK(u(t, r, "seqnum") == 7 && u(t, r, "context") == 1 &&
			      u(t, r, "timer_latency") == 8534240, "trace-cmd's timerlat");
		else
			CHECK(0, "unexpected %s", evname(r));
	}
out:
	done(t, &rs);
	expect_error("  a-1 [000] 1.000001: #1 context irq timer_latency 12x ns\n",
		     "offset 0: timerlat: cannot read");
	expect_error("  a-1 [000] 1.000001: irq_noise: local_timer:236 start 1.5 duration 7 ns\n",
		     "offset 0: irq_noise: cannot read");
	expect_error("  a-1 [000] 1.000001: irq_noise: start 1.000000000 duration 7 ns extra\n",
		     "offset 0: irq_noise: cannot read");
	expect_error("  a-1 [000] 1.000001: timerlat: seq:1 context:0\n", "offset 0: timerlat: cannot read");
	/* the osnoise tracer's summaries: tracefs's nine columns, trace-cmd's print fmt */
	t = open_text("  osnoise/3-299 [003] ....... 23.084779: 100000      53150  46.85000    9350    282      0      1      0      0\n"
		      "  osnoise/2-298 [002] ....... 23.087371: osnoise: noise:105428\tmax_sample:54926\thw:8\tnmi:1\tirq:3\tsoftirq:4\tthread:5\n");
	CHECK(t != NULL, "open: %s", ipt_errmsg());
	if (!t)
		return;
	all_records(t, &rs);
	CHECK(rs.n == 2, "%d records", rs.n);
	if (rs.n == 2) {
		r = &rs.r[0];
		CHECK_STR(evname(r), "osnoise");
		CHECK(u(t, r, "runtime") == 100000 && u(t, r, "noise") == 53150 && u(t, r, "max_sample") == 9350 &&
		      u(t, r, "hw_count") == 282 && u(t, r, "irq_count") == 1 && u(t, r, "thread_count") == 0,
		      "tracefs columns");
		r = &rs.r[1];
		CHECK(u(t, r, "runtime") == 0 && u(t, r, "noise") == 105428 && u(t, r, "max_sample") == 54926 &&
		      u(t, r, "hw_count") == 8 && u(t, r, "nmi_count") == 1 && u(t, r, "irq_count") == 3 &&
		      u(t, r, "softirq_count") == 4 && u(t, r, "thread_count") == 5, "trace-cmd's form");
	}
	done(t, &rs);
	expect_error("  a-1 [000] 1.000001: osnoise: noise:1 max_sample:2\n", "offset 0: osnoise: cannot read");
}

static void test_probe(void)
{
	static const char report[] = "  a-1 [000] 1.000001: ipi_send_cpu: cpu=1\n";
	static const char tracer[] = "# tracer: nop\n";
	static const char cpus[] = "cpus=4\n";
	static const char prose[] = "Dear all,\nthis is not a trace.\n";
	static const uint8_t bin[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g', 0, '6', 0 };

	CHECK(ipt_text_probe((const uint8_t *)report, sizeof(report) - 1), "report line");
	CHECK(ipt_text_probe((const uint8_t *)tracer, sizeof(tracer) - 1), "# tracer:");
	CHECK(ipt_text_probe((const uint8_t *)cpus, sizeof(cpus) - 1), "cpus=");
	CHECK(!ipt_text_probe((const uint8_t *)prose, sizeof(prose) - 1), "prose");
	CHECK(!ipt_text_probe(bin, sizeof(bin)), "binary");
	{
		struct ipt_trace *t = open_text(prose);

		CHECK(t == NULL && strstr(ipt_errmsg(), "not a trace.dat"), "prose: %s", ipt_errmsg());
		ipt_trace_close(t);
	}
}

static void test_empty_trace(void)
{
	struct ipt_trace *t = open_text("# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0   #P:2\n");
	struct recs rs;

	CHECK(t != NULL, "open: %s", ipt_errmsg());
	if (!t)
		return;
	all_records(t, &rs);
	CHECK(rs.n == 0, "no records");
	CHECK(ipt_trace_ncpus(t) == 2, "ncpus");
	CHECK(ipt_trace_nevents(t) == 0, "no formats");
	done(t, &rs);
}

int main(void)
{
	test_report_ipi();
	test_masks();
	test_report_sched_stack();
	test_tracefs();
	test_arm64();
	test_mail_and_drops();
	test_latency_form();
	test_big_offsets();
	test_errors();
	test_spikes();
	test_probe();
	test_empty_trace();
	TEST_MAIN_END();
}
