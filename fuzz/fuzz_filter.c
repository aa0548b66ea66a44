// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_filter.c - the filter language: the input (up to its first NUL) as an
 * expression for ipt_filter_parse, with a resolver that knows integer,
 * signed, string, CPU set, address and value-less names (two of them
 * aliases of one id, and x0..x999 for many distinct names), then
 * ipt_filter_eval on four fixed rows.
 *
 * Checks, each an abort() (a finding) when it fails:
 *  - a parse error reads "filter: column N: ..." with N within the input;
 *  - when both parse, "!(E)" matches exactly the rows E does not match and
 *    "(E)" the rows E matches.
 * String values (IPT_VAL_STR) are heap copies without a NUL, so reading
 * past slen is an ASan report; symbol names (IPT_VAL_ADDR sym) are C strings.
 *
 * The same expression then goes to ipt_event_filter_new (the filter over
 * event fields, `dump --filter`) on the fixed trace of fuzz_pages, and is
 * matched against hand-made records of the IPI, csd and sched events (and
 * an unknown and a truncated one), with the same !(E) check.
 */
#include "fuzz_common.h"

#include "pages_formats.h"

enum { ID_CPU, ID_PID, ID_COMM, ID_EVENT, ID_MASK, ID_CALLSITE, ID_CALLBACK, ID_NONE,
       ID_TS, ID_SRC, ID_REASON, ID_TARGETS, ID_FUNC, ID_X = 100 };

static const struct { const char *name; int id; } names[] = {
	{ "cpu", ID_CPU }, { "target_cpu", ID_CPU }, { "pid", ID_PID }, { "comm", ID_COMM },
	{ "event", ID_EVENT }, { "cpumask", ID_MASK }, { "callsite", ID_CALLSITE },
	{ "callback", ID_CALLBACK }, { "none", ID_NONE }, { "ts", ID_TS },
	{ "src_cpu", ID_SRC }, { "reason", ID_REASON }, { "targets", ID_TARGETS },
	{ "func", ID_FUNC }, { "common_pid", ID_PID }, { "kind", ID_EVENT },
};

struct row {
	uint64_t cpu, ts, src;
	int64_t pid;
	const char *comm, *event, *reason;
	struct ipt_cpuset mask, targets;
	uint64_t callsite, callback, func;
	const char *callsite_sym, *func_sym;
};

static struct row rows[4];
static char *heap_strs[32];
static int nheap;
static size_t lookups;

/* a copy without a terminating NUL, so that reads past its length show */
static const char *exact(const char *s)
{
	size_t n = strlen(s);
	char *p = malloc(n ? n : 1);

	memcpy(p, s, n);
	heap_strs[nheap++] = p;
	return p;
}

static void init_rows(void)
{
	static const char *const comms[4] = { "fx-storm", "", "git", "memfd:sealed-91" };
	static const char *const events[4] = { "ipi_send_cpu", "ipi_send_cpumask", "ipi_raise", "x" };
	static const char *const reasons[4] = { "", "Rescheduling interrupts", "*", "Function call interrupts" };

	for (int i = 0; i < 4; i++) {
		struct row *r = &rows[i];

		ipt_cpuset_init(&r->mask);
		ipt_cpuset_init(&r->targets);
		r->comm = exact(comms[i]);
		r->event = exact(events[i]);
		r->reason = exact(reasons[i]);
	}
	rows[0].cpu = 1; rows[0].ts = 462974920000ULL; rows[0].src = 0; rows[0].pid = 26181;
	ipt_cpuset_add(&rows[0].mask, 1);
	ipt_cpuset_add(&rows[0].targets, 1);
	rows[0].callsite = 0xffffffff813af9a2ULL; rows[0].callsite_sym = "wakeup_preempt";
	rows[0].func = 0xffffffff813b4440ULL; rows[0].func_sym = "sched_ttwu_pending";

	rows[1].cpu = 0; rows[1].ts = 0; rows[1].src = 3; rows[1].pid = -1;
	rows[1].callsite = 0; rows[1].callback = 0;

	rows[2].cpu = 8191; rows[2].ts = UINT64_MAX; rows[2].src = 8191; rows[2].pid = INT32_MIN;
	for (unsigned int c = 0; c < IPT_CPUSET_MAX; c += 1)
		ipt_cpuset_add(&rows[2].mask, c);
	ipt_cpuset_add(&rows[2].targets, 8191);
	rows[2].callsite = UINT64_MAX; rows[2].callsite_sym = "";
	rows[2].callback = 0x8000000000000000ULL;
	rows[2].func = 1; rows[2].func_sym = "*";

	rows[3].cpu = 5; rows[3].ts = 1000; rows[3].src = 5; rows[3].pid = 0;
	for (unsigned int c = 4; c < 8; c++)
		ipt_cpuset_add(&rows[3].mask, c);
	ipt_cpuset_add(&rows[3].mask, 100);
	ipt_cpuset_copy(&rows[3].targets, &rows[3].mask);
	rows[3].callsite = 0xffffffff8134ae80ULL; rows[3].callsite_sym = "flush_tlb_func";
	rows[3].callback = 0xffffffff8134ae80ULL;
}

static int resolve(void *ctx, const char *name)
{
	(void)ctx;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(names[i].name, name))
			return names[i].id;
	if (name[0] == 'x' && name[1] >= '0' && name[1] <= '9') {
		char *end;
		long v = strtol(name + 1, &end, 10);

		if (!*end && v >= 0 && v < 1000)
			return ID_X + (int)v;
	}
	return -1;
}

static void set_addr(struct ipt_value *v, uint64_t a, const char *sym)
{
	v->kind = IPT_VAL_ADDR;
	v->i = a;
	v->sym = sym;
	v->symoff = sym ? (a & 0xff) : 0;
}

static void set_str(struct ipt_value *v, const char *s, size_t n)
{
	v->kind = IPT_VAL_STR;
	v->s = s;
	v->slen = n;
}

static void lookup(void *ctx, int id, struct ipt_value *v)
{
	const struct row *r = ctx;
	size_t ri = (size_t)(r - rows);
	static const size_t comm_len[4] = { 8, 0, 3, 15 };
	static const size_t ev_len[4] = { 12, 16, 9, 1 };
	static const size_t reason_len[4] = { 0, 23, 1, 24 };

	lookups++;
	switch (id) {
	case ID_CPU: v->kind = IPT_VAL_INT; v->i = r->cpu; break;
	case ID_SRC: v->kind = IPT_VAL_INT; v->i = r->src; break;
	case ID_TS: v->kind = IPT_VAL_INT; v->i = r->ts; break;
	case ID_PID: v->kind = IPT_VAL_INT; v->is_signed = true; v->i = (uint64_t)r->pid; break;
	case ID_COMM: set_str(v, r->comm, comm_len[ri]); break;
	case ID_EVENT: set_str(v, r->event, ev_len[ri]); break;
	case ID_REASON: set_str(v, r->reason, reason_len[ri]); break;
	case ID_MASK: v->kind = IPT_VAL_CPUSET; v->set = &r->mask; break;
	case ID_TARGETS: v->kind = IPT_VAL_CPUSET; v->set = &r->targets; break;
	case ID_CALLSITE: set_addr(v, r->callsite, r->callsite_sym); break;
	case ID_CALLBACK: set_addr(v, r->callback, NULL); break;
	case ID_FUNC: set_addr(v, r->func, r->func_sym); break;
	case ID_NONE: break;
	default:
		if (id >= ID_X) {	/* x0..x999: alternate kinds by number */
			switch ((id - ID_X) % 4) {
			case 0: v->kind = IPT_VAL_INT; v->i = (uint64_t)(id - ID_X); break;
			case 1: set_str(v, r->comm, comm_len[ri]); break;
			case 2: v->kind = IPT_VAL_CPUSET; v->set = &r->mask; break;
			default: set_addr(v, r->func, r->func_sym); break;
			}
		}
		break;
	}
}

static void check_error(const char *expr, size_t len)
{
	const char *m = ipt_errmsg();
	char *end;
	unsigned long col;

	if (strncmp(m, "filter: column ", 15)) {
		fprintf(stderr, "filter error without a column: '%s'\n", m);
		abort();
	}
	col = strtoul(m + 15, &end, 10);
	if (end == m + 15 || strncmp(end, ": ", 2) || col < 1 || col > len + 1) {
		fprintf(stderr, "filter error column out of range (len %zu): '%s'\n", len, m);
		abort();
	}
	(void)expr;
}

/* ---- the event filter ---- */

static struct ipt_trace *ev_trace;
static struct ipt_record ev_recs[8];
static int nev_recs;
static uint8_t ev_bytes[8][72];

static void put(uint8_t *p, unsigned int size, uint64_t v)
{
	ipt_put_uint(p, size, false, v);
}

static void add_rec(int id, uint32_t size, int cpu)
{
	struct ipt_record *r = &ev_recs[nev_recs];

	r->data = ev_bytes[nev_recs];
	r->size = size;
	r->cpu = cpu;
	r->ts = 1000u * (unsigned int)nev_recs;
	r->event = ipt_trace_event_by_id(ev_trace, id);
	nev_recs++;
}

static void init_events(void)
{
	struct ipt_trace *t = ipt_trace_alloc("fuzz-evfilter");
	uint8_t *b;

	if (!t)
		abort();
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		struct ipt_event ev;

		memset(&ev, 0, sizeof(ev));
		if (ipt_format_parse(&ev, formats[i].system, formats[i].text,
				     strlen(formats[i].text), 8, "fuzz-evfilter", 0) ||
		    ipt_trace_add_event(t, &ev))
			abort();
	}
	if (ipt_trace_finish_events(t) ||
	    ipt_symtab_load_kallsyms(&t->ksyms, kallsyms, strlen(kallsyms)) ||
	    ipt_symtab_sort(&t->ksyms) ||
	    ipt_comms_load_cmdlines(&t->comms, cmdlines, strlen(cmdlines)))
		abort();
	ev_trace = t;
	/* ipi_send_cpumask: mask {0-3} at 32, callsite wakeup_preempt+0x92 */
	b = ev_bytes[0];
	put(b, 2, 353); put(b + 4, 4, 26181);
	put(b + 8, 4, (8u << 16) | 32); put(b + 16, 8, 0xffffffff813af9a2ULL);
	put(b + 24, 8, 0); put(b + 32, 8, 0xf);
	add_rec(353, 40, 0);
	/* ipi_send_cpu: cpu 5, callsite ttwu_queue_wakelist+0x40 */
	b = ev_bytes[1];
	put(b, 2, 354); put(b + 4, 4, 1531); put(b + 8, 4, 5);
	put(b + 16, 8, 0xffffffff813ac950ULL); put(b + 24, 8, 0xffffffff81450a50ULL);
	add_rec(354, 32, 1);
	/* ipi_raise: target_cpus {1,2}, reason a printk string */
	b = ev_bytes[2];
	put(b, 2, 350); put(b + 4, 4, 0); put(b + 8, 4, (8u << 16) | 24);
	put(b + 16, 8, 0xffffffff82000000ULL); put(b + 24, 8, 0x6);
	add_rec(350, 32, 3);
	/* csd_queue_cpu */
	b = ev_bytes[3];
	put(b, 2, 529); put(b + 4, 4, 26182); put(b + 8, 4, 1);
	put(b + 16, 8, 0xffffffff813ac910ULL); put(b + 24, 8, 0xffffffff813b4440ULL);
	put(b + 32, 8, 0xffff888106b72db8ULL);
	add_rec(529, 40, 0);
	/* sched_switch bash:26136 -> git:26181 */
	b = ev_bytes[4];
	put(b, 2, 372); put(b + 4, 4, 26136); memcpy(b + 8, "bash", 4);
	put(b + 24, 4, 26136); put(b + 28, 4, 120); put(b + 32, 8, 1);
	memcpy(b + 40, "git-with-a-long-name", 16); put(b + 56, 4, 26181); put(b + 60, 4, (uint32_t)-5);
	add_rec(372, 64, 1);
	/* fuzz_all: strings, rel_loc, bitmask, mask, buf */
	b = ev_bytes[5];
	put(b, 2, 7); put(b + 4, 4, (uint32_t)-1);
	put(b + 8, 4, (4u << 16) | 56); put(b + 12, 4, (4u << 16) | 44);
	put(b + 16, 4, (8u << 16) | 64); put(b + 20, 4, (2u << 16) | 60);
	put(b + 24, 2, 0x8000); put(b + 32, 8, 0x100); memcpy(b + 48, "bufstr\0", 8);
	memcpy(b + 56, "abc\0", 4); memcpy(b + 60, "xy\0\0", 4); put(b + 64, 8, 0x3);
	add_rec(7, 72, 2);
	/* an unknown event, and a record too short for its fields */
	b = ev_bytes[6];
	put(b, 2, 999);
	add_rec(999, 16, 0);
	b = ev_bytes[7];
	put(b, 2, 353);
	add_rec(353, 4, 1);
}

static void check_events(const char *e, const char *w)
{
	struct ipt_event_filter *ef, *neg;

	ef = ipt_event_filter_new(ev_trace, e);
	if (!ef) {
		fz_touch(ipt_errmsg());
		return;
	}
	neg = ipt_event_filter_new(ev_trace, w);
	for (int i = 0; i < nev_recs; i++) {
		int m = ipt_event_filter_match(ef, &ev_recs[i]);

		if (m != 0 && m != 1) {
			fprintf(stderr, "event filter returned %d\n", m);
			abort();
		}
		if (neg && ipt_event_filter_match(neg, &ev_recs[i]) != !m) {
			fprintf(stderr, "record %d: E gives %d and !(E) the same for E='%s'\n", i, m, e);
			abort();
		}
	}
	ipt_event_filter_free(ef);
	ipt_event_filter_free(neg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool init;
	size_t len = strnlen((const char *)data, size);
	struct ipt_filter *f, *neg, *par;
	char *e, *w;

	if (!init) {
		init_rows();
		init_events();
		init = true;
	}
	e = malloc(len + 1);
	memcpy(e, data, len);
	e[len] = 0;
	w = malloc(len + 4);
	w[0] = '!';
	w[1] = '(';
	memcpy(w + 2, e, len);
	w[len + 2] = ')';
	w[len + 3] = 0;
	check_events(e, w);
	f = ipt_filter_parse(e, resolve, NULL);
	if (!f) {
		check_error(e, len);
		free(e);
		free(w);
		return 0;
	}
	neg = ipt_filter_parse(w, resolve, NULL);
	par = ipt_filter_parse(w + 1, resolve, NULL);
	for (int i = 0; i < 4; i++) {
		int m = ipt_filter_eval(f, lookup, &rows[i]);

		if (m != 0 && m != 1) {
			fprintf(stderr, "eval returned %d\n", m);
			abort();
		}
		if (neg && ipt_filter_eval(neg, lookup, &rows[i]) != !m) {
			fprintf(stderr, "row %d: E gives %d and !(E) gives the same for E='%s'\n",
				i, m, e);
			abort();
		}
		if (par && ipt_filter_eval(par, lookup, &rows[i]) != m) {
			fprintf(stderr, "row %d: E gives %d and (E) does not for E='%s'\n", i, m, e);
			abort();
		}
	}
	/* no lookup function: every name has no value */
	fz_sink += (size_t)ipt_filter_eval(f, NULL, NULL);
	ipt_filter_free(f);
	ipt_filter_free(neg);
	ipt_filter_free(par);
	free(w);
	free(e);
	return 0;
}
