// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gen-synth - write synthetic trace.dat files full of IPI events
 *
 *   gen-synth [--version 6|7] [--compression none|zstd|zlib] [--big-endian]
 *             [--long-size 4|8] [--page-size N] [--arch x86_64|arm64]
 *             [--nr-cpus N] [--events N] [--seed S] [--missed] [-v] -o FILE
 *
 * The event formats are those of Linux 6.18 (x86_64: ipi_send_cpu,
 * ipi_send_cpumask, csd_*, irq_vectors call_function_* / reschedule_*;
 * arm64: ipi_raise / ipi_entry / ipi_exit with `reason` strings taken from
 * the printk section, plus ipi_send_* and csd_*).  With --long-size 4 the
 * same formats are laid out as a 32-bit kernel does.  cpumask fields are
 * nr_cpu_ids bits wide, stored as longs.  CPUs 0, 1, 2 and nr_cpus-1 record
 * events (those that exist).  Events are produced in time order
 * by a seeded generator and streamed page by page to per-CPU temporary
 * files, so memory use does not depend on --events.  The events depend only
 * on --seed, --events, --nr-cpus and --arch: files that differ in version,
 * compression, byte order or long size hold the same events.
 */
#include "input/input.h"
#include "render/render.h"
#include "output/tracedat_write.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* event formats                                                       */
/* ------------------------------------------------------------------ */

enum ftype { F_INT, F_UINT, F_PTR, F_LOC };

struct fdef {
	const char *type;	/* as printed before the name */
	const char *name;
	enum ftype kind;
};

enum ev_id_index {
	EV_SEND_CPU, EV_SEND_MASK, EV_CSD_QUEUE, EV_CSD_ENTRY, EV_CSD_EXIT,
	EV_RESCHED_ENTRY, EV_RESCHED_EXIT, EV_CALLFN_ENTRY, EV_CALLFN_EXIT,
	EV_IPI_RAISE, EV_IPI_ENTRY, EV_IPI_EXIT,
	EV_COUNT
};

struct evdef {
	const char *system, *name;
	int id;
	bool x86, arm64;
	struct fdef f[5];
	const char *print_fmt;
	/* computed for the chosen long size */
	unsigned int off[5];
	unsigned int size;	/* fixed part of the record */
};

static struct evdef evs[EV_COUNT] = {
	[EV_SEND_CPU] = { "ipi", "ipi_send_cpu", 354, true, true,
		{ { "unsigned int", "cpu", F_UINT }, { "void *", "callsite", F_PTR },
		  { "void *", "callback", F_PTR } },
		"\"cpu=%u callsite=%pS callback=%pS\", REC->cpu, REC->callsite, REC->callback" },
	[EV_SEND_MASK] = { "ipi", "ipi_send_cpumask", 353, true, true,
		{ { "__data_loc cpumask_t", "cpumask", F_LOC }, { "void *", "callsite", F_PTR },
		  { "void *", "callback", F_PTR } },
		"\"cpumask=%s callsite=%pS callback=%pS\", __get_cpumask(cpumask), "
		"REC->callsite, REC->callback" },
	[EV_CSD_QUEUE] = { "csd", "csd_queue_cpu", 529, true, true,
		{ { "unsigned int", "cpu", F_UINT }, { "void *", "callsite", F_PTR },
		  { "void *", "func", F_PTR }, { "void *", "csd", F_PTR } },
		"\"cpu=%u callsite=%pS func=%ps csd=%p\", REC->cpu, REC->callsite, REC->func, REC->csd" },
	[EV_CSD_ENTRY] = { "csd", "csd_function_entry", 528, true, true,
		{ { "void *", "func", F_PTR }, { "void *", "csd", F_PTR } },
		"\"func=%ps, csd=%p\", REC->func, REC->csd" },
	[EV_CSD_EXIT] = { "csd", "csd_function_exit", 527, true, true,
		{ { "void *", "func", F_PTR }, { "void *", "csd", F_PTR } },
		"\"func=%ps, csd=%p\", REC->func, REC->csd" },
	[EV_RESCHED_ENTRY] = { "irq_vectors", "reschedule_entry", 155, true, false,
		{ { "int", "vector", F_INT } }, "\"vector=%d\", REC->vector" },
	[EV_RESCHED_EXIT] = { "irq_vectors", "reschedule_exit", 154, true, false,
		{ { "int", "vector", F_INT } }, "\"vector=%d\", REC->vector" },
	[EV_CALLFN_ENTRY] = { "irq_vectors", "call_function_entry", 153, true, false,
		{ { "int", "vector", F_INT } }, "\"vector=%d\", REC->vector" },
	[EV_CALLFN_EXIT] = { "irq_vectors", "call_function_exit", 152, true, false,
		{ { "int", "vector", F_INT } }, "\"vector=%d\", REC->vector" },
	[EV_IPI_RAISE] = { "ipi", "ipi_raise", 350, false, true,
		{ { "__data_loc unsigned long[]", "target_cpus", F_LOC },
		  { "const char *", "reason", F_PTR } },
		"\"target_mask=%s (%s)\", __get_bitmask(target_cpus), REC->reason" },
	[EV_IPI_ENTRY] = { "ipi", "ipi_entry", 351, false, true,
		{ { "const char *", "reason", F_PTR } }, "\"(%s)\", REC->reason" },
	[EV_IPI_EXIT] = { "ipi", "ipi_exit", 352, false, true,
		{ { "const char *", "reason", F_PTR } }, "\"(%s)\", REC->reason" },
};

static const char *const common_fields =
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n";

static unsigned int fsize(enum ftype k, unsigned int ls)
{
	return k == F_PTR ? ls : 4;
}

/* Lay the fields out as the C compiler does for the kernel's entry struct. */
static void layout_event(struct evdef *e, unsigned int ls)
{
	unsigned int off = 8, maxalign = 4, i;

	for (i = 0; i < 5 && e->f[i].name; i++) {
		unsigned int sz = fsize(e->f[i].kind, ls);

		off = (off + sz - 1) / sz * sz;
		e->off[i] = off;
		off += sz;
		if (sz > maxalign)
			maxalign = sz;
	}
	e->size = (off + maxalign - 1) / maxalign * maxalign;
}

static int format_text(const struct evdef *e, unsigned int ls, struct ipt_strbuf *sb)
{
	unsigned int i;

	ipt_strbuf_reset(sb);
	if (ipt_strbuf_addf(sb, "name: %s\nID: %d\nformat:\n%s\n", e->name, e->id, common_fields))
		return -1;
	for (i = 0; i < 5 && e->f[i].name; i++)
		if (ipt_strbuf_addf(sb, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
			    e->f[i].type, e->f[i].name, e->off[i], fsize(e->f[i].kind, ls),
			    e->f[i].kind == F_INT))
			return -1;
	return ipt_strbuf_addf(sb, "\nprint fmt: %s\n", e->print_fmt);
}

/* ------------------------------------------------------------------ */
/* symbols, strings, tasks                                             */
/* ------------------------------------------------------------------ */

struct sym {
	uint64_t addr;
	char type;
	const char *name;
};

/* x86_64 addresses as on a 6.18 kernel; arm64 ones in its kernel range */
static const struct sym x86_syms[] = {
	{ 0xffffffff81000000ull, 'T', "_stext" },
	{ 0xffffffff8130d4f0ull, 't', "do_sync_core" },
	{ 0xffffffff8132cfb0ull, 't', "__sysvec_call_function" },
	{ 0xffffffff8132d080ull, 't', "__sysvec_call_function_single" },
	{ 0xffffffff813311f0ull, 'T', "native_smp_send_reschedule" },
	{ 0xffffffff81331240ull, 'T', "native_send_call_func_single_ipi" },
	{ 0xffffffff81331260ull, 'T', "native_send_call_func_ipi" },
	{ 0xffffffff8134ae80ull, 't', "flush_tlb_func" },
	{ 0xffffffff813a9e10ull, 't', "nohz_csd_func" },
	{ 0xffffffff813ac910ull, 't', "ttwu_queue_wakelist" },
	{ 0xffffffff813af910ull, 'T', "wakeup_preempt" },
	{ 0xffffffff813b4440ull, 'T', "sched_ttwu_pending" },
	{ 0xffffffff8144ff60ull, 't', "smp_call_function_many_cond" },
	{ 0xffffffff81450530ull, 'T', "on_each_cpu_cond_mask" },
	{ 0xffffffff81450a50ull, 'T', "generic_smp_call_function_single_interrupt" },
	{ 0xffffffff81450b80ull, 'T', "__smp_call_single_queue" },
	{ 0xffffffff81450cf0ull, 't', "generic_exec_single" },
	{ 0xffffffff81450e50ull, 'T', "smp_call_function_single" },
	{ 0xffffffff814dcae0ull, 'T', "irq_work_queue_on" },
	{ 0xffffffff8225f510ull, 'T', "sysvec_reschedule_ipi" },
	{ 0xffffffff82400000ull, 'T', "_etext" },
};

static const struct sym arm64_syms[] = {
	{ 0xffff800080010000ull, 'T', "_stext" },
	{ 0xffff80008002a1c0ull, 't', "do_handle_IPI" },
	{ 0xffff80008002a6e0ull, 'T', "arch_smp_send_reschedule" },
	{ 0xffff80008002a740ull, 'T', "arch_send_call_function_ipi_mask" },
	{ 0xffff80008002a7a0ull, 'T', "arch_send_call_function_single_ipi" },
	{ 0xffff8000800b3120ull, 't', "ttwu_queue_wakelist" },
	{ 0xffff8000800b5a40ull, 'T', "wakeup_preempt" },
	{ 0xffff8000800b9e80ull, 'T', "sched_ttwu_pending" },
	{ 0xffff8000800d0b00ull, 't', "nohz_csd_func" },
	{ 0xffff80008014e2c0ull, 't', "smp_call_function_many_cond" },
	{ 0xffff80008014e880ull, 'T', "on_each_cpu_cond_mask" },
	{ 0xffff80008014ed40ull, 'T', "generic_smp_call_function_single_interrupt" },
	{ 0xffff80008014ee60ull, 'T', "__smp_call_single_queue" },
	{ 0xffff80008014efc0ull, 't', "generic_exec_single" },
	{ 0xffff80008014f120ull, 'T', "smp_call_function_single" },
	{ 0xffff80008021a3c0ull, 't', "flush_tlb_func" },
	{ 0xffff80008021b000ull, 't', "do_sync_core" },
	{ 0xffff800080e00000ull, 'T', "_etext" },
};

/* 32-bit kernels: the same names, lower addresses */
static uint64_t sym_addr_for(uint64_t a, unsigned int ls)
{
	return ls == 4 ? 0xc0000000ull + (a & 0x0fffffffull) : a;
}

struct printk_str {
	uint64_t addr;
	const char *s;
};

/* arm64 ipi_types[] strings, as printk_formats lists const strings */
static const struct printk_str arm64_reasons[] = {
	{ 0xffff800081a4c028ull, "Rescheduling interrupts" },
	{ 0xffff800081a4c040ull, "Function call interrupts" },
	{ 0xffff800081a4c060ull, "CPU stop interrupts" },
	{ 0xffff800081a4c078ull, "CPU stop NMIs" },
	{ 0xffff800081a4c088ull, "Timer broadcast interrupts" },
	{ 0xffff800081a4c0a8ull, "IRQ work interrupts" },
};
enum { R_RESCHED, R_CALLFN, R_STOP, R_STOPNMI, R_TIMER, R_IRQWORK };

static const struct {
	int pid;
	const char *comm;
} tasks[] = {
	{ 1, "systemd" }, { 173, "echo" }, { 1531, "memfd:sealed-91" },
	{ 26136, "bash" }, { 26181, "git" }, { 26182, "fx-storm" },
	{ 4242, "kworker/u8:1" }, { 31337, "hackbench" }, { 777, "tokio-rt-worker" },
};

/* ------------------------------------------------------------------ */
/* generator state                                                     */
/* ------------------------------------------------------------------ */

struct cpu_out {
	int cpu;
	struct ipt_page_writer pw;
	int fd;
	uint64_t pages;		/* pages already written to fd */
	uint64_t events;
	uint64_t first_ts, last_ts;
	bool missed_done, missed_unknown_done;
};

struct gen {
	/* options */
	int version;
	const char *compression;
	bool be;
	unsigned int ls;
	uint32_t page_size;
	bool arm64;
	unsigned int nr_cpus;
	uint64_t nevents;
	uint64_t seed;
	bool missed;
	bool verbose;
	const char *out;

	/* state */
	uint64_t rng;
	uint64_t now;
	uint64_t emitted;
	struct cpu_out *cpus;
	int ncpus;		/* CPUs with streams */
	unsigned int mask_bytes;
	uint8_t *rec;		/* record being built */
	uint8_t *mask;		/* mask bits (mask_bytes) */
	struct ipt_cpuset set;
	char tmpdir[4096];
};

static uint64_t rnd(struct gen *g)
{
	/* splitmix64 */
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rnd_below(struct gen *g, uint64_t n)
{
	return n ? rnd(g) % n : 0;
}

static uint64_t sym(const struct gen *g, const char *name, unsigned int off)
{
	const struct sym *t = g->arm64 ? arm64_syms : x86_syms;
	size_t n = g->arm64 ? ARRAY_SIZE(arm64_syms) : ARRAY_SIZE(x86_syms), i;

	for (i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return sym_addr_for(t[i].addr, g->ls) + off;
	fprintf(stderr, "gen-synth: internal error: no symbol %s\n", name);
	exit(1);
}

static uint64_t reason_addr(const struct gen *g, int r)
{
	return sym_addr_for(arm64_reasons[r].addr, g->ls);
}

static int flush_cpu(struct gen *g, struct cpu_out *c)
{
	struct ipt_strbuf *o = &c->pw.out;
	size_t done = 0;

	if (g->missed && c == &g->cpus[0]) {
		/*
		 * Pages after the first of the first CPU: the first one with
		 * room for the count says "42 events lost before this page"
		 * (RB_MISSED_EVENTS | RB_MISSED_STORED, count after the data),
		 * the first full one says "events lost, count unknown".
		 */
		const struct ipt_page_layout *l = &c->pw.layout;
		uint64_t k;

		for (k = 0; k < o->len / g->page_size; k++) {
			uint8_t *pg = (uint8_t *)o->buf + k * g->page_size;
			uint64_t commit = ipt_get_uint(pg + l->commit_off, l->commit_size, g->be);
			bool room = l->data_off + commit + g->ls <= g->page_size;

			if (c->pages + k < 1)
				continue;
			if (room && !c->missed_done) {
				ipt_put_uint(pg + l->data_off + commit, g->ls, g->be, 42);
				commit |= (UINT64_C(1) << 31) | (UINT64_C(1) << 30);
				c->missed_done = true;
			} else if (!room && !c->missed_unknown_done) {
				commit |= UINT64_C(1) << 31;
				c->missed_unknown_done = true;
			} else {
				continue;
			}
			ipt_put_uint(pg + l->commit_off, l->commit_size, g->be, commit);
		}
	}
	while (done < o->len) {
		ssize_t r = write(c->fd, o->buf + done, o->len - done);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "gen-synth: %s: writing temporary data: %s\n", g->tmpdir,
				strerror(errno));
			return -1;
		}
		done += (size_t)r;
	}
	c->pages += o->len / g->page_size;
	ipt_strbuf_reset(o);
	return 0;
}

static struct cpu_out *cpu_out(struct gen *g, unsigned int cpu)
{
	int i;

	for (i = 0; i < g->ncpus; i++)
		if (g->cpus[i].cpu == (int)cpu)
			return &g->cpus[i];
	return NULL;
}

/* Emit the record in g->rec (len bytes) on cpu at time g->now. */
static int emit(struct gen *g, unsigned int cpu, enum ev_id_index ev, int pid, uint8_t flags,
		uint32_t len)
{
	struct cpu_out *c = cpu_out(g, cpu);

	if (!c || g->emitted >= g->nevents)
		return 0;
	ipt_put_uint(g->rec + 0, 2, g->be, (uint64_t)evs[ev].id);
	g->rec[2] = flags;
	g->rec[3] = (uint8_t)(flags & 0x08 ? 1 : rnd_below(g, 3));
	ipt_put_uint(g->rec + 4, 4, g->be, (uint64_t)(int64_t)pid);
	if (ipt_page_writer_add(&c->pw, g->now, g->rec, len)) {
		fprintf(stderr, "gen-synth: %s\n", ipt_errmsg());
		return -1;
	}
	if (!c->events)
		c->first_ts = g->now;
	c->last_ts = g->now;
	c->events++;
	g->emitted++;
	if (c->pw.out.len >= (1u << 20) && flush_cpu(g, c))
		return -1;
	/* the next event is a little later */
	g->now += 50 + rnd_below(g, 2000);
	return 0;
}

static void put_field(struct gen *g, enum ev_id_index ev, int i, uint64_t v)
{
	ipt_put_uint(g->rec + evs[ev].off[i], fsize(evs[ev].f[i].kind, g->ls), g->be, v);
}

/* Store g->set as the dynamic array of ev's field i; returns the record length. */
static uint32_t put_mask(struct gen *g, enum ev_id_index ev, int i)
{
	unsigned int nw = g->mask_bytes / g->ls, w, b;
	uint32_t off = evs[ev].size;

	memset(g->rec + off, 0, g->mask_bytes);
	for (w = 0; w < nw; w++) {
		uint64_t word = 0;

		for (b = 0; b < g->ls * 8; b++)
			if (ipt_cpuset_has(&g->set, w * g->ls * 8 + b))
				word |= UINT64_C(1) << b;
		ipt_put_uint(g->rec + off + w * g->ls, g->ls, g->be, word);
	}
	ipt_put_uint(g->rec + evs[ev].off[i], 4, g->be, ((uint64_t)g->mask_bytes << 16) | off);
	return off + g->mask_bytes;
}

static int task_pid(struct gen *g)
{
	return tasks[rnd_below(g, ARRAY_SIZE(tasks))].pid;
}

/* The pid running on a target CPU when the IPI lands: often idle. */
static int target_pid(struct gen *g)
{
	return rnd_below(g, 3) ? 0 : task_pid(g);
}

static unsigned int other_cpu(struct gen *g, unsigned int self)
{
	unsigned int t;

	if (g->nr_cpus < 2)
		return self;
	/* usually a CPU with a stream, sometimes any CPU */
	if (rnd_below(g, 4)) {
		t = (unsigned int)g->cpus[rnd_below(g, (uint64_t)g->ncpus)].cpu;
		if (t != self)
			return t;
	}
	do
		t = (unsigned int)rnd_below(g, g->nr_cpus);
	while (t == self);
	return t;
}

/* A target set: all, one, a range, random sparse, the stream CPUs, ... */
static void pick_mask(struct gen *g, unsigned int self)
{
	unsigned int n = g->nr_cpus, i, k, a, b;

	ipt_cpuset_clear(&g->set);
	switch (rnd_below(g, 7)) {
	case 0:	/* everybody else */
		for (i = 0; i < n; i++)
			if (i != self)
				ipt_cpuset_add(&g->set, i);
		break;
	case 1:	/* one */
		ipt_cpuset_add(&g->set, other_cpu(g, self));
		break;
	case 2:	/* a range */
		a = (unsigned int)rnd_below(g, n);
		b = a + (unsigned int)rnd_below(g, n - a);
		for (i = a; i <= b; i++)
			ipt_cpuset_add(&g->set, i);
		break;
	case 3:	/* sparse */
		k = 1 + (unsigned int)rnd_below(g, 12);
		for (i = 0; i < k; i++)
			ipt_cpuset_add(&g->set, (unsigned int)rnd_below(g, n));
		break;
	case 4:	/* the highest CPU and the first */
		ipt_cpuset_add(&g->set, n - 1);
		ipt_cpuset_add(&g->set, 0);
		break;
	case 5:	/* every other CPU */
		for (i = self & 1; i < n; i += 2)
			ipt_cpuset_add(&g->set, i);
		break;
	default: /* the traced CPUs but self */
		for (i = 0; i < (unsigned int)g->ncpus; i++)
			if ((unsigned int)g->cpus[i].cpu != self)
				ipt_cpuset_add(&g->set, (unsigned int)g->cpus[i].cpu);
		break;
	}
	if (ipt_cpuset_empty(&g->set))
		ipt_cpuset_add(&g->set, other_cpu(g, self));
}

/* x86: reschedule IPI to one CPU */
static int sc_resched(struct gen *g, unsigned int s)
{
	unsigned int t = other_cpu(g, s);
	int tp = target_pid(g);

	memset(g->rec, 0, evs[EV_SEND_CPU].size);
	put_field(g, EV_SEND_CPU, 0, t);
	put_field(g, EV_SEND_CPU, 1, sym(g, "wakeup_preempt", 0x92));
	put_field(g, EV_SEND_CPU, 2, 0);
	if (emit(g, s, EV_SEND_CPU, task_pid(g), 0x01, evs[EV_SEND_CPU].size))
		return -1;
	if (g->arm64) {
		memset(g->rec, 0, evs[EV_IPI_ENTRY].size);
		put_field(g, EV_IPI_ENTRY, 0, reason_addr(g, R_RESCHED));
		return emit(g, t, EV_IPI_ENTRY, tp, 0x09, evs[EV_IPI_ENTRY].size) ||
		       emit(g, t, EV_IPI_EXIT, tp, 0x09, evs[EV_IPI_EXIT].size);
	}
	memset(g->rec, 0, evs[EV_RESCHED_ENTRY].size);
	put_field(g, EV_RESCHED_ENTRY, 0, 253);
	return emit(g, t, EV_RESCHED_ENTRY, tp, 0x09, evs[EV_RESCHED_ENTRY].size) ||
	       emit(g, t, EV_RESCHED_EXIT, tp, 0x09, evs[EV_RESCHED_EXIT].size);
}

/* one CPU function call through a csd */
static int sc_single(struct gen *g, unsigned int s)
{
	unsigned int t = other_cpu(g, s);
	bool ttwu = rnd_below(g, 2);
	uint64_t func = ttwu ? sym(g, "sched_ttwu_pending", 0) : sym(g, "nohz_csd_func", 0);
	uint64_t csd = (g->ls == 8 ? 0xffff888106b72db8ull : 0xf6b72db8ull) + 64 * rnd_below(g, 8);
	int pid = task_pid(g), tp = target_pid(g);

	memset(g->rec, 0, evs[EV_CSD_QUEUE].size);
	put_field(g, EV_CSD_QUEUE, 0, t);
	put_field(g, EV_CSD_QUEUE, 1, ttwu ? sym(g, "ttwu_queue_wakelist", 0x11d)
					   : sym(g, "smp_call_function_single", 0x7b));
	put_field(g, EV_CSD_QUEUE, 2, func);
	put_field(g, EV_CSD_QUEUE, 3, csd);
	if (emit(g, s, EV_CSD_QUEUE, pid, 0x01, evs[EV_CSD_QUEUE].size))
		return -1;
	memset(g->rec, 0, evs[EV_SEND_CPU].size);
	put_field(g, EV_SEND_CPU, 0, t);
	put_field(g, EV_SEND_CPU, 1, sym(g, "__smp_call_single_queue", 0x3c));
	put_field(g, EV_SEND_CPU, 2, sym(g, "generic_smp_call_function_single_interrupt", 0));
	if (emit(g, s, EV_SEND_CPU, pid, 0x01, evs[EV_SEND_CPU].size))
		return -1;
	if (g->arm64) {
		memset(g->rec, 0, evs[EV_IPI_ENTRY].size);
		put_field(g, EV_IPI_ENTRY, 0, reason_addr(g, R_CALLFN));
		if (emit(g, t, EV_IPI_ENTRY, tp, 0x09, evs[EV_IPI_ENTRY].size))
			return -1;
	} else {
		memset(g->rec, 0, evs[EV_CALLFN_ENTRY].size);
		put_field(g, EV_CALLFN_ENTRY, 0, 251);
		if (emit(g, t, EV_CALLFN_ENTRY, tp, 0x09, evs[EV_CALLFN_ENTRY].size))
			return -1;
	}
	memset(g->rec, 0, evs[EV_CSD_ENTRY].size);
	put_field(g, EV_CSD_ENTRY, 0, func);
	put_field(g, EV_CSD_ENTRY, 1, csd);
	if (emit(g, t, EV_CSD_ENTRY, tp, 0x09, evs[EV_CSD_ENTRY].size) ||
	    emit(g, t, EV_CSD_EXIT, tp, 0x09, evs[EV_CSD_EXIT].size))
		return -1;
	if (g->arm64) {
		memset(g->rec, 0, evs[EV_IPI_EXIT].size);
		put_field(g, EV_IPI_EXIT, 0, reason_addr(g, R_CALLFN));
		return emit(g, t, EV_IPI_EXIT, tp, 0x09, evs[EV_IPI_EXIT].size);
	}
	memset(g->rec, 0, evs[EV_CALLFN_EXIT].size);
	put_field(g, EV_CALLFN_EXIT, 0, 251);
	return emit(g, t, EV_CALLFN_EXIT, tp, 0x09, evs[EV_CALLFN_EXIT].size);
}

/* a function call on many CPUs (TLB flush, sync_core, ...) */
static int sc_many(struct gen *g, unsigned int s)
{
	static const char *const funcs[] = { "flush_tlb_func", "do_sync_core", "nohz_csd_func" };
	uint64_t func = sym(g, funcs[rnd_below(g, ARRAY_SIZE(funcs))], 0);
	int pid = task_pid(g), i;
	uint32_t len;

	pick_mask(g, s);
	memset(g->rec, 0, evs[EV_SEND_MASK].size);
	put_field(g, EV_SEND_MASK, 1, rnd_below(g, 2) ? sym(g, "smp_call_function_many_cond", 0x2a5)
						      : sym(g, "on_each_cpu_cond_mask", 0x3c));
	put_field(g, EV_SEND_MASK, 2, func);
	len = put_mask(g, EV_SEND_MASK, 0);
	if (emit(g, s, EV_SEND_MASK, pid, 0x01, len))
		return -1;
	if (g->arm64) {
		memset(g->rec, 0, evs[EV_IPI_RAISE].size);
		put_field(g, EV_IPI_RAISE, 1, reason_addr(g, R_CALLFN));
		len = put_mask(g, EV_IPI_RAISE, 0);
		if (emit(g, s, EV_IPI_RAISE, pid, 0x01, len))
			return -1;
	}
	for (i = 0; i < g->ncpus; i++) {
		unsigned int t = (unsigned int)g->cpus[i].cpu;
		int tp = target_pid(g);

		if (!ipt_cpuset_has(&g->set, t))
			continue;
		if (g->arm64) {
			memset(g->rec, 0, evs[EV_IPI_ENTRY].size);
			put_field(g, EV_IPI_ENTRY, 0, reason_addr(g, R_CALLFN));
			if (emit(g, t, EV_IPI_ENTRY, tp, 0x09, evs[EV_IPI_ENTRY].size))
				return -1;
		} else {
			memset(g->rec, 0, evs[EV_CALLFN_ENTRY].size);
			put_field(g, EV_CALLFN_ENTRY, 0, 252);
			if (emit(g, t, EV_CALLFN_ENTRY, tp, 0x09, evs[EV_CALLFN_ENTRY].size))
				return -1;
		}
		memset(g->rec, 0, evs[EV_CSD_ENTRY].size);
		put_field(g, EV_CSD_ENTRY, 0, func);
		put_field(g, EV_CSD_ENTRY, 1, 0);
		if (emit(g, t, EV_CSD_ENTRY, tp, 0x09, evs[EV_CSD_ENTRY].size) ||
		    emit(g, t, EV_CSD_EXIT, tp, 0x09, evs[EV_CSD_EXIT].size))
			return -1;
		if (!g->arm64) {
			memset(g->rec, 0, evs[EV_CALLFN_EXIT].size);
			put_field(g, EV_CALLFN_EXIT, 0, 252);
			if (emit(g, t, EV_CALLFN_EXIT, tp, 0x09, evs[EV_CALLFN_EXIT].size))
				return -1;
		} else {
			memset(g->rec, 0, evs[EV_IPI_EXIT].size);
			put_field(g, EV_IPI_EXIT, 0, reason_addr(g, R_CALLFN));
			if (emit(g, t, EV_IPI_EXIT, tp, 0x09, evs[EV_IPI_EXIT].size))
				return -1;
		}
	}
	return 0;
}

/* arm64: a bare ipi_raise (resched, timer broadcast, irq work, stop) */
static int sc_raise(struct gen *g, unsigned int s)
{
	static const int reasons[] = { R_RESCHED, R_TIMER, R_IRQWORK, R_STOP, R_STOPNMI };
	int r = reasons[rnd_below(g, ARRAY_SIZE(reasons))], i;
	uint32_t len;

	if (r == R_RESCHED || r == R_IRQWORK) {
		ipt_cpuset_clear(&g->set);
		ipt_cpuset_add(&g->set, other_cpu(g, s));
	} else {
		pick_mask(g, s);
	}
	memset(g->rec, 0, evs[EV_IPI_RAISE].size);
	put_field(g, EV_IPI_RAISE, 1, reason_addr(g, r));
	len = put_mask(g, EV_IPI_RAISE, 0);
	if (emit(g, s, EV_IPI_RAISE, task_pid(g), 0x01, len))
		return -1;
	for (i = 0; i < g->ncpus; i++) {
		unsigned int t = (unsigned int)g->cpus[i].cpu;
		int tp = target_pid(g);

		if (!ipt_cpuset_has(&g->set, t))
			continue;
		memset(g->rec, 0, evs[EV_IPI_ENTRY].size);
		put_field(g, EV_IPI_ENTRY, 0, reason_addr(g, r));
		if (emit(g, t, EV_IPI_ENTRY, tp, 0x09, evs[EV_IPI_ENTRY].size) ||
		    emit(g, t, EV_IPI_EXIT, tp, 0x09, evs[EV_IPI_EXIT].size))
			return -1;
	}
	return 0;
}

static int generate(struct gen *g)
{
	while (g->emitted < g->nevents) {
		unsigned int s = (unsigned int)g->cpus[rnd_below(g, (uint64_t)g->ncpus)].cpu;
		uint64_t k = rnd_below(g, 1000);
		int r;

		if (k < 2)		/* a long pause: several time extends */
			g->now += 2000000000ull + rnd_below(g, 20000000000ull);
		else if (k < 30)	/* over 2^27 ns: one time extend */
			g->now += 140000000ull + rnd_below(g, 400000000ull);
		else
			g->now += 100 + rnd_below(g, 60000);

		switch (rnd_below(g, g->arm64 ? 4 : 3)) {
		case 0: r = sc_resched(g, s); break;
		case 1: r = sc_single(g, s); break;
		case 2: r = sc_many(g, s); break;
		default: r = sc_raise(g, s); break;
		}
		if (r)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* metadata                                                            */
/* ------------------------------------------------------------------ */

static const char header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

static int add_metadata(struct gen *g, struct ipt_tdw *w)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	const struct sym *st = g->arm64 ? arm64_syms : x86_syms;
	size_t nst = g->arm64 ? ARRAY_SIZE(arm64_syms) : ARRAY_SIZE(x86_syms), i;
	static const char *const sys_order[] = { "irq_vectors", "ipi", "csd" };
	int ret = -1, e;

	/* header_page for this page and kernel long size */
	if (ipt_strbuf_addf(&sb,
		    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		    "\tfield: local_t commit;\toffset:8;\tsize:%u;\tsigned:1;\n"
		    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		    "\tfield: char data;\toffset:%u;\tsize:%u;\tsigned:0;\n",
		    g->ls, 8 + g->ls, g->page_size - 8 - g->ls) ||
	    ipt_tdw_set_headers(w, sb.buf, sb.len, header_event, strlen(header_event)))
		goto out;

	for (i = 0; i < ARRAY_SIZE(sys_order); i++)
		for (e = 0; e < EV_COUNT; e++) {
			if (strcmp(evs[e].system, sys_order[i]) ||
			    !(g->arm64 ? evs[e].arm64 : evs[e].x86))
				continue;
			if (format_text(&evs[e], g->ls, &sb) ||
			    ipt_tdw_add_event_format(w, evs[e].system, sb.buf, sb.len))
				goto out;
		}

	ipt_strbuf_reset(&sb);
	for (i = 0; i < nst; i++)
		if (ipt_strbuf_addf(&sb, "%0*llx %c %s\n", g->ls * 2,
			    (unsigned long long)sym_addr_for(st[i].addr, g->ls), st[i].type,
			    st[i].name))
			goto out;
	if (ipt_tdw_set_kallsyms(w, sb.buf, sb.len))
		goto out;

	ipt_strbuf_reset(&sb);
	if (g->arm64)
		for (i = 0; i < ARRAY_SIZE(arm64_reasons); i++)
			if (ipt_strbuf_addf(&sb, "0x%llx : \"%s\"\n",
				    (unsigned long long)reason_addr(g, (int)i), arm64_reasons[i].s))
				goto out;
	if (ipt_strbuf_addf(&sb, "0x%llx : \"%s\"\n",
		    (unsigned long long)sym_addr_for(g->arm64 ? 0xffff800081a50000ull
							      : 0xffffffff8281a98full, g->ls),
		    "thaw_processes"))
		goto out;
	if (ipt_tdw_set_printk(w, sb.buf, sb.len))
		goto out;

	ipt_strbuf_reset(&sb);
	for (i = 0; i < ARRAY_SIZE(tasks); i++)
		if (ipt_strbuf_addf(&sb, "%d %s\n", tasks[i].pid, tasks[i].comm))
			goto out;
	if (ipt_tdw_set_cmdlines(w, sb.buf, sb.len))
		goto out;

	if (ipt_tdw_set_clock(w, "[local] global counter uptime perf mono mono_raw boot tai x86-tsc\n") ||
	    ipt_tdw_set_uname(w, g->arm64 ? "Linux synth 6.18.0-synth aarch64"
					 : "Linux synth 6.18.0-synth x86_64") ||
	    ipt_tdw_set_version(w, "gen-synth " IPT_VERSION))
		goto out;
	for (e = 0; e < g->ncpus; e++) {
		const struct cpu_out *c = &g->cpus[e];

		ipt_strbuf_reset(&sb);
		if (ipt_strbuf_addf(&sb, "CPU: %d\nentries: 0\noverrun: 0\ncommit overrun: 0\nbytes: 0\n"
			    "oldest event ts: %5llu.%06llu\nnow ts: %5llu.%06llu\n"
			    "dropped events: 0\nread events: %llu\n", c->cpu,
			    (unsigned long long)(c->first_ts / 1000000000),
			    (unsigned long long)(c->first_ts % 1000000000 / 1000),
			    (unsigned long long)(c->last_ts / 1000000000),
			    (unsigned long long)(c->last_ts % 1000000000 / 1000),
			    (unsigned long long)c->events) ||
		    ipt_tdw_add_cpustat(w, c->cpu, sb.buf))
			goto out;
	}
	if (ipt_tdw_set_cpucount(w, (int)g->nr_cpus))
		goto out;
	ret = 0;
out:
	if (ret)
		fprintf(stderr, "gen-synth: %s\n", ipt_errmsg());
	ipt_strbuf_free(&sb);
	return ret;
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gen-synth [options] -o FILE\n"
		"  -o, --output FILE        trace.dat to write (\"-\": stdout)\n"
		"  -V, --version 6|7        file version (default 7)\n"
		"  -c, --compression ALGO   v7: none (default), zstd or zlib\n"
		"  -B, --big-endian         big-endian trace\n"
		"  -L, --long-size 4|8      long size of the file and the kernel (default 8)\n"
		"  -P, --page-size N        ring-buffer page size (default 4096)\n"
		"  -a, --arch x86_64|arm64  event set (default x86_64)\n"
		"  -n, --nr-cpus N          nr_cpu_ids: cpumask width (default 8, max %d)\n"
		"  -e, --events N           number of events (default 2000)\n"
		"  -s, --seed S             random seed (default 1)\n"
		"  -m, --missed             mark pages of the first CPU as following lost events\n"
		"                           (one with a count of 42, one full page without count)\n"
		"  -v, --verbose            print a summary on stderr\n"
		"      --print-formats      print the event formats and exit\n",
		IPT_CPUSET_MAX);
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end || *s == '-' ? -1 : 0;
}

static int make_tmp(struct gen *g)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/.gen-synth.XXXXXX", g->tmpdir);
	fd = mkstemp(path);
	if (fd < 0) {
		fprintf(stderr, "gen-synth: %s: cannot create a temporary file: %s\n", g->tmpdir,
			strerror(errno));
		return -1;
	}
	unlink(path);
	return fd;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "version", required_argument, NULL, 'V' },
		{ "compression", required_argument, NULL, 'c' },
		{ "big-endian", no_argument, NULL, 'B' },
		{ "long-size", required_argument, NULL, 'L' },
		{ "page-size", required_argument, NULL, 'P' },
		{ "arch", required_argument, NULL, 'a' },
		{ "nr-cpus", required_argument, NULL, 'n' },
		{ "events", required_argument, NULL, 'e' },
		{ "seed", required_argument, NULL, 's' },
		{ "missed", no_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "print-formats", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gen g;
	struct ipt_tdw_opts wo;
	struct ipt_page_layout pl;
	struct ipt_tdw *w = NULL;
	bool print_formats = false;
	uint64_t v;
	int opt, i, e;
	unsigned int cand[4], nc = 0;

	memset(&g, 0, sizeof(g));
	g.version = 7;
	g.compression = "none";
	g.ls = 8;
	g.page_size = 4096;
	g.nr_cpus = 8;
	g.nevents = 2000;
	g.seed = 1;
	while ((opt = getopt_long(argc, argv, "o:V:c:BL:P:a:n:e:s:mvh", lopts, NULL)) != -1) {
		switch (opt) {
		case 'o': g.out = optarg; break;
		case 'V':
			if (parse_u64(optarg, &v) || (v != 6 && v != 7))
				goto bad;
			g.version = (int)v;
			break;
		case 'c':
			if (strcmp(optarg, "none") && strcmp(optarg, "zstd") && strcmp(optarg, "zlib"))
				goto bad;
			g.compression = optarg;
			break;
		case 'B': g.be = true; break;
		case 'L':
			if (parse_u64(optarg, &v) || (v != 4 && v != 8))
				goto bad;
			g.ls = (unsigned int)v;
			break;
		case 'P':
			if (parse_u64(optarg, &v) || v < 256 || v > (1u << 20) || (v & (v - 1)))
				goto bad;
			g.page_size = (uint32_t)v;
			break;
		case 'a':
			if (!strcmp(optarg, "arm64") || !strcmp(optarg, "aarch64"))
				g.arm64 = true;
			else if (!strcmp(optarg, "x86_64") || !strcmp(optarg, "x86"))
				g.arm64 = false;
			else
				goto bad;
			break;
		case 'n':
			if (parse_u64(optarg, &v) || v < 1 || v > IPT_CPUSET_MAX)
				goto bad;
			g.nr_cpus = (unsigned int)v;
			break;
		case 'e':
			if (parse_u64(optarg, &v))
				goto bad;
			g.nevents = v;
			break;
		case 's':
			if (parse_u64(optarg, &v))
				goto bad;
			g.seed = v;
			break;
		case 'm': g.missed = true; break;
		case 'v': g.verbose = true; break;
		case 'F': print_formats = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	for (e = 0; e < EV_COUNT; e++)
		layout_event(&evs[e], g.ls);
	if (print_formats) {
		struct ipt_strbuf sb = IPT_STRBUF_INIT;

		for (e = 0; e < EV_COUNT; e++) {
			if (!(g.arm64 ? evs[e].arm64 : evs[e].x86))
				continue;
			if (format_text(&evs[e], g.ls, &sb))
				return 1;
			printf("system: %s\n%s\n", evs[e].system, sb.buf);
		}
		ipt_strbuf_free(&sb);
		return 0;
	}
	if (!g.out || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (g.version == 6 && strcmp(g.compression, "none")) {
		fprintf(stderr, "gen-synth: version 6 files cannot be compressed\n");
		return 2;
	}

	/* the traced CPUs: 0, 1, 2 and the last one */
	cand[nc++] = 0;
	if (g.nr_cpus > 1)
		cand[nc++] = 1;
	if (g.nr_cpus > 3)
		cand[nc++] = 2;
	if (g.nr_cpus > 2)
		cand[nc++] = g.nr_cpus - 1;
	g.rng = g.seed * 0x2545f4914f6cdd1dull + 0x1234567;
	g.now = 463000000000ull + rnd_below(&g, 1000000000ull);
	g.mask_bytes = (g.nr_cpus + g.ls * 8 - 1) / (g.ls * 8) * g.ls;
	g.rec = calloc(1, 64 + g.mask_bytes);
	g.cpus = calloc(nc, sizeof(*g.cpus));
	ipt_cpuset_init(&g.set);
	if (!g.rec || !g.cpus) {
		fprintf(stderr, "gen-synth: out of memory\n");
		return 1;
	}
	{
		const char *slash = strrchr(g.out, '/');

		if (!strcmp(g.out, "-"))
			snprintf(g.tmpdir, sizeof(g.tmpdir), "%s",
				 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		else if (slash)
			snprintf(g.tmpdir, sizeof(g.tmpdir), "%.*s",
				 slash == g.out ? 1 : (int)(slash - g.out), g.out);
		else
			snprintf(g.tmpdir, sizeof(g.tmpdir), ".");
	}

	memset(&wo, 0, sizeof(wo));
	wo.version = g.version;
	wo.compression = g.compression;
	wo.big_endian = g.be;
	wo.long_size = (int)g.ls;
	wo.page_size = g.page_size;
	w = ipt_tdw_open(g.out, &wo);
	if (!w) {
		fprintf(stderr, "gen-synth: %s\n", ipt_errmsg());
		return 1;
	}

	ipt_page_layout_default(&pl, g.page_size, (int)g.ls);
	for (i = 0; i < (int)nc; i++) {
		g.cpus[i].cpu = (int)cand[i];
		g.cpus[i].fd = make_tmp(&g);
		if (g.cpus[i].fd < 0)
			goto fail;
		g.ncpus++;
		if (ipt_page_writer_init(&g.cpus[i].pw, &pl, g.be)) {
			fprintf(stderr, "gen-synth: %s\n", ipt_errmsg());
			goto fail;
		}
	}
	if (generate(&g))
		goto fail;
	for (i = 0; i < g.ncpus; i++) {
		if (ipt_page_writer_finish(&g.cpus[i].pw)) {
			fprintf(stderr, "gen-synth: %s\n", ipt_errmsg());
			goto fail;
		}
		if (flush_cpu(&g, &g.cpus[i]))
			goto fail;
		if (ipt_tdw_set_cpu_fd(w, g.cpus[i].cpu, g.cpus[i].fd)) {
			fprintf(stderr, "gen-synth: %s\n", ipt_errmsg());
			goto fail;
		}
	}
	if (add_metadata(&g, w))
		goto fail;
	if (ipt_tdw_commit(w)) {
		w = NULL;
		fprintf(stderr, "gen-synth: %s\n", ipt_errmsg());
		goto fail;
	}
	w = NULL;
	if (g.verbose) {
		fprintf(stderr, "gen-synth: %s: %llu events, v%d %s%s long %u, nr_cpus %u, CPUs",
			g.out, (unsigned long long)g.emitted, g.version, g.compression,
			g.be ? " big-endian" : "", g.ls, g.nr_cpus);
		for (i = 0; i < g.ncpus; i++)
			fprintf(stderr, " %d:%llu", g.cpus[i].cpu,
				(unsigned long long)g.cpus[i].events);
		fprintf(stderr, "\n");
	}
	for (i = 0; i < g.ncpus; i++) {
		close(g.cpus[i].fd);
		ipt_page_writer_free(&g.cpus[i].pw);
	}
	free(g.cpus);
	free(g.rec);
	ipt_cpuset_free(&g.set);
	return 0;

bad:
	fprintf(stderr, "gen-synth: bad value for option: %s\n", optarg);
	usage(stderr);
	return 2;
fail:
	ipt_tdw_abort(w);
	for (i = 0; i < g.ncpus; i++) {
		close(g.cpus[i].fd);
		ipt_page_writer_free(&g.cpus[i].pw);
	}
	free(g.cpus);
	free(g.rec);
	ipt_cpuset_free(&g.set);
	return 1;
}
