// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * report.c - who interrupts my CPUs: counts, matching, latencies (report.h)
 */
#include "ipi/report.h"
#include "ipi/keptrows.h"
#include "ipi/catalogue.h"
#include "ipi/match.h"
#include "input/lanes.h"

#include <pthread.h>
#include <stdlib.h>

/* ---- clocks ---- */

/* clock_cross_cpu - whether a clock's timestamps compare across CPUs, and if not why */
static bool clock_cross_cpu(const char *clock, const char **why)
{
	static const char *const ok[] = { "global", "mono", "mono_raw", "boot", "tai", "counter",
					  "x86-tsc" };

	for (size_t i = 0; i < ARRAY_SIZE(ok); i++)
		if (!strcmp(clock, ok[i]))
			return true;
	if (!*clock)
		*why = "the trace does not say which clock stamped it";
	else if (!strcmp(clock, "local") || !strcmp(clock, "perf"))
		*why = "its clock is per-CPU ('local'): times of different CPUs are not comparable";
	else
		*why = "its clock is not known to be comparable across CPUs";
	return false;
}

/* ---- the engine's state ---- */

#define NLEVEL 4			/* context levels: task, softirq, hardirq, NMI */

struct cpu_state {
	/* per context level (task, softirq, hardirq, NMI: a send's stacks are
	 * the next records of its own level; a nested one's come in between) */
	struct cur_set {
		struct cur_row {	/* the counted rows of the level's last send */
			int32_t target, pid;
			int64_t iso, res;
		} *cur;
		size_t ncur, capcur;
		uint64_t cur_id;	/* ... and its send id */
		uint64_t last_gid;	/* id of the level's last send event */
		struct stack_rec *ustack;	/* the user stack recorded after send ustack_id */
		uint64_t ustack_id;
	} lv[NLEVEL];
};

enum rk { RK_NONE, RK_ENTRY, RK_EXIT, RK_ARM_ENTRY, RK_ARM_EXIT, RK_CSD_QUEUE, RK_CSD_ENTRY,
	  RK_CSD_EXIT, RK_STACK, RK_USTACK };

struct recv_ev {
	enum rk kind;
	int cls;
	const struct ipt_field *f1, *f2;	/* reason | cpu,csd | csd | caller | caller,tgid */
	const struct ipt_field *f3;		/* user stack: common_flags */
	const struct ipt_field *flags;		/* every event: common_flags (context level) */
};

struct priv {
	struct cpu_state *cpu;
	int ncpu;
	size_t capcpu, caprcpus;	/* room in cpu and in rpt.cpus */
	struct recv_ev *ev;
	int nev;
	uint64_t sends;			/* send events numbered so far */
	struct item *last_row;		/* opts.on_row: the counted IT_ROW before IT_ROW_REST */
	struct pipe *pipe;
	bool has_stacks;		/* the trace has kernel or user stack events */
	bool implicit_results;		/* rows to CPUs that recorded nothing keep no
					 * result of their own (no row filter, no
					 * stacks: see struct ipt_rowres) */
	/* rows to CPUs without data need no item (p_unreceived, p_rows):
	 * nothing wants them in order */
	bool lean;
	struct ipt_cpuset itemized;	/* the CPUs whose rows are items even so:
					 * those with data, the listed (opts.isolated) */
};

static int setup_events(struct rpt *r, struct priv *p)
{
	struct ipt_trace *t = r->t;

	p->nev = t->max_id + 1;
	p->ev = ipt_calloc((size_t)p->nev + 1, sizeof(*p->ev));
	if (!p->ev)
		return -1;
	for (int i = 0; i < t->nevents; i++) {
		const struct ipt_event *ev = &t->events[i];
		const struct ipt_ipi_event_info *info;
		struct recv_ev *e;

		if (ev->id < 0 || ev->id >= p->nev)
			continue;
		e = &p->ev[ev->id];
		e->flags = ipt_event_field(ev, "common_flags");
		if (e->flags && (e->flags->size != 1 || e->flags->offset < 2))
			e->flags = NULL;
		info = ipt_ipi_event_info_of(ev);
		if (info && info->role == IPT_ROLE_SEND)
			r->have_send = true;
		if (info && info->arch == IPT_ARCH_X86 && info->vector != IPT_VEC_NONE) {
			e->kind = info->role == IPT_ROLE_VEC_ENTRY ? RK_ENTRY : RK_EXIT;
			e->cls = info->vector;
			r->have_receive = true;
		} else if (!strcmp(ev->system, "ipi") &&
			   (!strcmp(ev->name, "ipi_entry") || !strcmp(ev->name, "ipi_exit"))) {
			e->f1 = ipt_event_field(ev, "reason");
			if (e->f1) {
				e->kind = ev->name[4] == 'e' && ev->name[5] == 'n' ? RK_ARM_ENTRY : RK_ARM_EXIT;
				r->have_receive = true;
			}
		} else if (!strcmp(ev->system, "csd")) {
			if (!strcmp(ev->name, "csd_queue_cpu")) {
				e->f1 = ipt_event_field(ev, "cpu");
				e->f2 = ipt_event_field(ev, "csd");
				e->kind = e->f1 && e->f2 ? RK_CSD_QUEUE : RK_NONE;
			} else if (!strcmp(ev->name, "csd_function_entry") ||
				   !strcmp(ev->name, "csd_function_exit")) {
				e->f2 = ipt_event_field(ev, "csd");
				e->kind = !e->f2 ? RK_NONE :
					  !strcmp(ev->name, "csd_function_entry") ? RK_CSD_ENTRY : RK_CSD_EXIT;
			}
		} else if (!strcmp(ev->system, "ftrace") && !strcmp(ev->name, "kernel_stack")) {
			e->f1 = ipt_event_field(ev, "caller");
			e->kind = e->f1 ? RK_STACK : RK_NONE;
			p->has_stacks |= e->f1 != NULL;
		} else if (!strcmp(ev->system, "ftrace") && !strcmp(ev->name, "user_stack")) {
			e->f1 = ipt_event_field(ev, "caller");
			e->f2 = ipt_event_field(ev, "tgid");
			e->f3 = ipt_event_field(ev, "common_flags");
			e->kind = e->f1 && e->f2 ? RK_USTACK : RK_NONE;
			p->has_stacks |= e->kind == RK_USTACK;
		}
	}
	return 0;
}

/* ensure_cpu - grow the per-CPU arrays to hold cpu */
static int ensure_cpu(struct rpt *r, int cpu)
{
	struct priv *p = r->priv;

	if (cpu < r->ncpus)
		return 0;
	if (cpu >= IPT_CPUSET_MAX)
		return ipt_err("CPU %d out of range", cpu);
	if (IPT_GROW_ZERO(r->cpus, p->caprcpus, cpu + 1) || IPT_GROW_ZERO(p->cpu, p->capcpu, cpu + 1))
		return -1;
	p->ncpu = r->ncpus = cpu + 1;
	return ipt_match_cpus(r->match, cpu + 1);
}

/*
 * The work is split in two stages joined by batches of compact items:
 * the producer decodes records in time order and turns them into items
 * (IPI rows with their filter verdict and receive class, interrupt
 * entries and exits, csd calls, kernel stacks); the consumer counts and
 * matches them.  Items go through lanes (rings of batches).
 *
 * --threads 1: one lane, both stages in this thread.  --threads N > 1:
 * the CPUs' streams are split among N lanes, each decoded by its own
 * producer thread (its own iterator and decoder: the decoder's state is
 * per sending CPU), and this thread merges the lanes' items by
 * (timestamp, CPU), the order of one iterator over every CPU, and
 * consumes them.  Send events are numbered by the consumer, in that
 * order, so ids are the same however many lanes.  A trace whose decoder
 * learns task names from sched events (shared state) runs one producer
 * and the consumer in a second thread instead.
 */
enum item_type { IT_ROW, IT_SEND, IT_ENTRY, IT_EXIT, IT_CSD_QUEUE, IT_CSD_ENTRY, IT_CSD_EXIT,
		 IT_STACK, IT_USTACK, IT_DROP, IT_ROW_REST };

#define STACK_MAX 64

/* One cache line: every item is written on one core and read on another. */
struct item {
	struct ipt_lane_key k;		/* ts, and the record's CPU (rows: the sender);
					 * k.aux: a row's pid */
	uint8_t type;
	uint8_t lvl;			/* the record's context level (0..NLEVEL-1) */
	bool counted;
	uint8_t kind;			/* a row's enum ipt_ipi_kind */
	int16_t cls;
	int16_t target;			/* a row's target CPU (< IPT_CPUSET_MAX) */
	union {
		struct {
			uint64_t id;		/* send number (lane's, then global) */
			uint64_t callsite, callback, func;
			const char *reason;
		} row;				/* IT_ROW; IT_SEND: only id */
		struct {			/* IT_ROW_REST: the rest of the counted
						 * IT_ROW just before it, for opts.on_row
						 * (target: ntargets; k.aux: callsite_off,
						 * kind 1 if it did not fit) */
			const char *comm, *event, *callsite_sym, *callback_sym, *func_sym;
		} rest;
		uint64_t csd;
		struct stack_rec {
			uint32_t n;
			int32_t tgid;		/* user stacks */
			bool in_irq;		/* ... recorded in interrupt context */
			uint32_t bytes;		/* what it took of its pool */
			struct stack_pool *pool;	/* its pool (NULL: calloc'd) */
			uint64_t addr[STACK_MAX];	/* (in a pool: room for n only) */
		} *stack;
	} u;
};
_Static_assert(sizeof(struct item) == IPT_LINE, "an item is one cache line");
_Static_assert(IPT_CPUSET_MAX <= INT16_MAX, "a target CPU fits struct item");

/* items between producing and consuming with one thread: 32 KiB, in the
 * caches, and on a small trace 56 fewer page faults than 4,096 items */
#define BATCH 512

struct batch {
	struct item v[BATCH];
	size_t n;
};

/* producer-side state per CPU */
struct pcpu {
	/* a line of its own: CPUs of two lanes are written by two threads */
	_Alignas(IPT_LINE) uint64_t first_ts, last_ts, lost;
	bool any;			/* a record was seen: first_ts is its */
	bool lost_unknown;
	bool send_at[NLEVEL];		/* the level's last record was a send */
};

/* per-lane producer state (and the consumer's last send number of it) */
#define NCOMBO 8
struct lcount {			/* per CPU, as in struct rpt_cpu */
	uint64_t ipis, by_kind[IPT_KIND__COUNT], sent, remote;
	/* sends to it that never became items (p_row: it has no data) per
	 * receive class, and of all of them those counted */
	uint64_t unreceived[RPT_NCLASS], unreceived_counted;
	bool unreceived_any;
};

/*
 * A lane's stack records, in a ring of bytes, each as long as its frames
 * need, given back in the order they were taken: the consumer adds each
 * record's bytes once consumed (a lane's items are consumed in their
 * order) to an atomic count.  A record that does not fit in what is free
 * is calloc'd.  Not a calloc and free per record: with lanes those ran in
 * two threads, and glibc's arenas then took a lock and fresh pages for most
 * (a report of a 558 k-event recording with stacks took 57 ms in one
 * thread, 125 ms in two).
 */
#define POOL_BYTES (2u << 20)		/* a huge page: some 8,000 stacks of 30 frames */
struct stack_pool {
	unsigned char *v;		/* POOL_BYTES, made at the first stack */
	uint64_t taken;			/* bytes, by the producer */
	_Alignas(IPT_LINE) uint64_t given_back;	/* ... by the consumer (atomic) */
};

struct lstate {
	/* the producer's, on lines of their own (it writes them per record) */
	_Alignas(IPT_LINE) struct ipt_ipi_decoder *dec;	/* lane 0: r->dec */
	uint64_t events, first_ts, last_ts;
	/* the order-free counts of the lane's rows, added up at the end */
	uint64_t rows, rows_counted, remote_total, kinds[IPT_KIND__COUNT];
	struct lcount *cnt;
	int ncnt;
	/* the tables, by target CPU in blocks (the rows of a send come
	 * together and differ only by target) */
	struct rpt_cpumap senders, pairs;	/* the matrix: senders summed over pid */
	/* p_rows' rows to CPUs without data, (combination, 0, CPU): one
	 * add per row, added into cnt at the end */
	struct rpt_cpumap combos;
	struct {				/* a combination: rows of this kind and class */
		uint8_t kind;
		int16_t cls;
	} combo[NCOMBO];
	int ncombo;
	/* the consumer's: the lane's last send number */
	_Alignas(IPT_LINE) uint64_t seq;
	struct stack_pool spool;	/* the lane's stack records */
};

struct pipe {
	struct ipt_lanes *lanes;	/* --threads > 1 */
	struct batch *inline_batch;	/* --threads 1 */
	struct lstate ls[IPT_LANES_MAX];
	int nlanes;
	struct pcpu *pc;		/* sized before the producers start */
	int npc;
	struct rpt *r;
};

static int add_iso(struct rpt *r, const struct item *it)
{
	struct ipt_report_isolated *e;

	if (IPT_GROW(r->iso, r->capiso, r->niso + 1))
		return -1;
	e = &r->iso[r->niso++];
	memset(e, 0, sizeof(*e));
	e->ts = it->k.ts;
	e->id = it->u.row.id;
	e->src_cpu = it->k.cpu;
	e->target_cpu = it->target;
	e->pid = it->k.aux;
	e->callsite = it->u.row.callsite;
	e->callback = it->u.row.callback;
	e->func = it->u.row.func;
	e->kind = it->kind;
	e->reason = it->u.row.reason;
	e->latency = -1;
	e->handler = -1;
	return 0;
}

/* cur_add - a counted row of the CPU's last send (its stack comes next) */
static int cur_add(struct cpu_state *cs, const struct item *it, const struct ipt_match_send *e)
{
	struct cur_set *s = &cs->lv[it->lvl];

	if (s->cur_id != it->u.row.id) {
		s->cur_id = it->u.row.id;
		s->ncur = 0;
	}
	if (IPT_GROW(s->cur, s->capcur, s->ncur + 1))
		return -1;
	s->cur[s->ncur++] = (struct cur_row){ it->target, it->k.aux, e->iso, e->res };
	return 0;
}

/* c_row - count one IPI row and queue it on its target (consumer) */
static int c_row(struct rpt *r, const struct item *it)
{
	struct priv *p = r->priv;
	int src = it->k.cpu, target = it->target;
	struct ipt_match_send e = { it->k.ts, -1, -1, src, it->counted, (uint8_t)it->kind };

	/* the counts are the producers' (p_row); here: isolation, stacks, matching */
	if (ensure_cpu(r, target) || ensure_cpu(r, src))
		return -1;
	if (e.counted) {
		struct cpu_state *s = &p->cpu[src];

		if (r->opts.isolated && ipt_cpuset_has(r->opts.isolated, (unsigned int)target)) {
			if (add_iso(r, it))
				return -1;
			e.iso = (int64_t)r->niso - 1;
		}
		if (r->opts.row_results && p->implicit_results && it->cls >= 0 && it->cls < RPT_NCLASS &&
		    !ipt_match_has_stream(r->match, target)) {
			if (ipt_rowres_implicit(&r->res, target))	/* known: no_receive_events */
				return -1;
		} else if (r->opts.row_results) {
			if (ipt_rowres_add(&r->res, it->u.row.id, it->target))
				return -1;
			e.res = (int64_t)r->res.n - 1;
		}
		if (cur_add(s, it, &e))
			return -1;
		if (r->opts.time_bins > 0 && ipt_fine_add(&r->fine, target, it->k.ts))
			return -1;
	}
	return ipt_match_send(r->match, target, it->cls, &e);
}

/* c_ustack - the user stack recorded right after a send: kept for its kernel stack */
static int c_ustack(struct rpt *r, const struct item *it)
{
	struct priv *p = r->priv;
	struct cur_set *s;

	if (ensure_cpu(r, it->k.cpu))
		return -1;
	s = &p->cpu[it->k.cpu].lv[it->lvl];
	if (s->cur_id != s->last_gid || !s->ncur)
		return 0;
	if (!s->ustack && !(s->ustack = ipt_malloc(sizeof(*s->ustack))))
		return -1;
	/* (a pooled record has room for its frames only) */
	memcpy(s->ustack, it->u.stack, offsetof(struct stack_rec, addr) + it->u.stack->n * sizeof(uint64_t));
	s->ustack->pool = NULL;
	s->ustack_id = s->cur_id;
	return 0;
}

/* user_entry - whether a user stack's root frame is where a program or thread starts */
static bool user_entry(const struct ipt_trace *t, uint64_t frame)
{
	static const char *const roots[] = { "_start", "__libc_start_main", "__libc_start_call_main",
					     "__libc_start_main_impl", "start_thread", "clone",
					     "clone3", "__clone", "__clone3", "__clone_internal" };
	const char *name = ipt_trace_symbol(t, frame, NULL);

	for (size_t i = 0; name && i < ARRAY_SIZE(roots); i++)
		if (!strcmp(name, roots[i]))
			return true;
	return false;
}

/*
 * with_user - the kernel stack at k (n frames) followed by the user stack u
 * as frame tokens, and IPT_UFRAME_CUT when it does not reach an entry (told
 * only for a process whose maps were read), each frame whose function keeps no
 * frame pointer followed by IPT_UFRAME_SKIP; into v (STACK_MAX * 3 + 1), its length
 * returned, *cut set
 */
static uint32_t with_user(const struct rpt *r, const uint64_t *k, uint32_t n, const struct stack_rec *u,
			  uint64_t *v, bool *cut)
{
	uint32_t m = n;
	bool known;

	memcpy(v, k, n * sizeof(*v));
	for (uint32_t i = 0; i < u->n; i++) {
		v[m++] = ipt_usym_token(r->t, u->tgid, u->addr[i]);
		/* its function keeps no frame pointer there: the frame-pointer
		 * walk lost its caller (not after the outermost frame) */
		if (i + 1 < u->n && ipt_usym_nofp(r->t, v[m - 1]))
			v[m++] = IPT_UFRAME_SKIP;
	}

	*cut = ipt_trace_user_process(r->t, u->tgid, &known) == IPT_UPROC_MAPS && known &&
	       !user_entry(r->t, v[m - 1]);
	if (*cut)
		v[m++] = IPT_UFRAME_CUT;
	return m;
}

/* c_stack - the kernel stack recorded right after a send: give it to its IPIs */
static int c_stack(struct rpt *r, const struct item *it)
{
	struct priv *p = r->priv;
	struct cur_set *s;
	uint64_t both[STACK_MAX * 3 + 1];
	const uint64_t *addr = it->u.stack->addr;
	const struct stack_rec *u = NULL;
	bool cut = false;
	uint32_t sid, n;

	if (ensure_cpu(r, it->k.cpu))
		return -1;
	s = &p->cpu[it->k.cpu].lv[it->lvl];
	n = it->u.stack->n;
	if (s->cur_id != s->last_gid || !s->ncur || !n)
		return 0;	/* not right after a counted send, or no frames (raw text) */
	if (s->ustack && s->ustack_id == s->cur_id && s->ustack->n) {
		u = s->ustack;
		if (!u->in_irq) {
			n = with_user(r, addr, n, u, both, &cut);
			addr = both;
		}
	}
	if (!(sid = stk_intern(&r->stacks, addr, n)))
		return -1;
	for (size_t i = 0; i < s->ncur; i++) {
		const struct cur_row *cr = &s->cur[i];

		if (ipt_cmap_add(&r->stackmap, sid, (uint64_t)(uint32_t)cr->pid, (uint32_t)cr->target))
			return -1;
		r->cpus[cr->target].with_stack++;
		if (u) {
			r->cpus[cr->target].with_user_stack += !u->in_irq;
			r->cpus[cr->target].user_in_irq += u->in_irq;
			r->cpus[cr->target].user_cut += cut;
		}
		if (cr->res >= 0 && ipt_rowres_set_stack(&r->res, cr->res, sid))
			return -1;
		if (cr->iso >= 0 && !r->iso[cr->iso].stack) {
			/* trimmed of the tracing frames on top, as in the
			 * groups and the rows */
			uint32_t trim = stk_trim_count(r->t, addr, n);
			uint64_t *stack = ipt_malloc((n - trim ? n - trim : 1) * sizeof(*stack));

			if (!stack)
				return -1;
			memcpy(stack, addr + trim, (n - trim) * sizeof(*stack));
			r->iso[cr->iso].stack = stack;
			r->iso[cr->iso].nstack = n - trim;
		}
	}
	s->ncur = 0;	/* one stack per send */
	return 0;
}

/* number_send - send events are numbered in the consumer's order */
static int number_send(struct rpt *r, struct lstate *ln, struct item *it)
{
	struct priv *p = r->priv;

	if (it->u.row.id != ln->seq) {
		ln->seq = it->u.row.id;
		p->sends++;
		if (ensure_cpu(r, it->k.cpu))
			return -1;
		p->cpu[it->k.cpu].lv[it->lvl].last_gid = p->sends;
	}
	it->u.row.id = p->sends;
	return 0;
}

/* gives_rows - whether counted rows are made whole in the consumer, in
 * order: for opts.on_row, or kept (opts.keep_rows) */
static bool gives_rows(const struct rpt *r)
{
	return r->opts.on_row || r->kept;
}

/* rests_wanted - whether a producer sends a counted row's rest: the
 * consumer sets kept_off when the kept rows are dropped, and the rests
 * after are not needed (it takes those that come still) */
static bool rests_wanted(const struct rpt *r)
{
	return r->opts.on_row || (r->kept && !__atomic_load_n(&r->kept_off, __ATOMIC_RELAXED));
}

/* keep_row - a counted row whose rest comes next, for gives_rows */
static int keep_row(struct rpt *r, const struct item *it)
{
	struct priv *p = r->priv;

	if (!p->last_row && !(p->last_row = ipt_malloc(sizeof(*p->last_row))))
		return -1;
	*p->last_row = *it;
	return 0;
}

/* give_row - the counted row before x, completed by x, to opts.on_row
 * and the kept rows */
static int give_row(struct rpt *r, const struct item *x)
{
	const struct item *it = r->priv ? ((struct priv *)r->priv)->last_row : NULL;
	struct ipt_ipi_row row;

	if (!it || it->k.ts != x->k.ts || it->k.cpu != x->k.cpu)
		return ipt_err("report: a row's rest came without its row");
	/* every field named (targets NULL): no memset of the whole row first */
	row = (struct ipt_ipi_row){
		.ts = it->k.ts,
		.id = it->u.row.id,
		.src_cpu = it->k.cpu,
		.target_cpu = it->target,
		.pid = it->k.aux,
		.ntargets = (uint32_t)(uint16_t)x->target,
		.comm = x->u.rest.comm,
		.event = x->u.rest.event,
		.callsite = it->u.row.callsite,
		.callsite_sym = x->u.rest.callsite_sym,
		.callsite_off = (uint32_t)x->k.aux,
		.callback = it->u.row.callback,
		.callback_sym = x->u.rest.callback_sym,
		.func = it->u.row.func,
		.func_sym = x->u.rest.func_sym,
		.reason = it->u.row.reason,
		.kind = (enum ipt_ipi_kind)it->kind,
	};
	if (x->kind && row.callsite_sym)	/* an offset past 32 bits */
		(void)ipt_trace_symbol(r->t, row.callsite, &row.callsite_off);
	if (r->kept && !ipt_kept_add(r->kept, &row))
		__atomic_store_n(&r->kept_off, true, __ATOMIC_RELAXED);
	if (r->opts.on_row && r->opts.on_row(r->opts.on_row_ctx, &row))
		return ipt_err_code(IPT_ERR_FAILED, "report: stopped by on_row");
	return 0;
}

/* consume - one item of lane ln: count and match (the consumer stage) */
static int consume(struct rpt *r, struct lstate *ln, struct item *it)
{
	switch (it->type) {
	case IT_SEND:
		return number_send(r, ln, it);
	case IT_ROW:
		if (number_send(r, ln, it) || c_row(r, it))
			return -1;
		return gives_rows(r) && it->counted ? keep_row(r, it) : 0;
	case IT_ROW_REST:
		return give_row(r, it);
	case IT_ENTRY:	/* u.csd: the interrupted task */
		return ensure_cpu(r, it->k.cpu) ? -1 :
		       ipt_match_entry(r->match, it->k.cpu, it->cls, it->k.ts, (int32_t)it->u.csd);
	case IT_EXIT:
		return ensure_cpu(r, it->k.cpu) ? -1 : ipt_match_exit(r->match, it->k.cpu, it->cls, it->k.ts);
	case IT_CSD_QUEUE:	/* cls carries the target CPU */
		return ensure_cpu(r, it->cls) ? -1 :
		       ipt_match_csd_queue(r->match, it->u.csd, it->k.ts, it->k.cpu, it->cls);
	case IT_CSD_ENTRY:
		return ensure_cpu(r, it->k.cpu) ? -1 : ipt_match_csd_entry(r->match, it->k.cpu, it->u.csd, it->k.ts);
	case IT_CSD_EXIT:
		return ensure_cpu(r, it->k.cpu) ? -1 : ipt_match_csd_exit(r->match, it->k.cpu, it->k.ts);
	case IT_STACK:
		return c_stack(r, it);
	case IT_USTACK:
		return c_ustack(r, it);
	case IT_DROP:
		return ensure_cpu(r, it->k.cpu) ? -1 : ipt_match_drop(r->match, it->k.cpu, it->u.csd, it->k.ts);
	}
	return 0;
}

/* ---- the producer stage ---- */

struct prod {
	struct rpt *r;
	struct pipe *pp;
	int lane;
	struct lstate *ln;		/* &pp->ls[lane] */
	uint64_t rows;			/* row items emitted */
	struct ipt_cb_memo cb;
	uint8_t lvl;			/* of the record being produced */
	bool lean;			/* rows to CPUs without data need no item (p_row) */
	/* what the producer reads of struct priv and the matching, here:
	 * the consumer writes beside them (priv.sends at each send, the
	 * matching's csd table at each csd event), and a line written on one
	 * CPU and read on another at each record costs a transfer each time */
	const struct recv_ev *ev;
	int nev;
	const struct ipt_cpuset *itemized;	/* priv.itemized */
};

/* item_free - what an item owns (once: the item becomes a plain marker) */
static void item_free(struct item *it)
{
	if (it->type == IT_STACK || it->type == IT_USTACK) {
		if (it->u.stack->pool)
			__atomic_add_fetch(&it->u.stack->pool->given_back, it->u.stack->bytes, __ATOMIC_RELEASE);
		else
			free(it->u.stack);
	}
	it->type = IT_SEND;
}

/* stack_take - a stack record with room for nmax frames, its fields zero:
 * from the pool, else calloc'd; NULL without memory */
static struct stack_rec *stack_take(struct stack_pool *sp, size_t nmax)
{
	size_t need = (offsetof(struct stack_rec, addr) + nmax * sizeof(uint64_t) + 15) & ~(size_t)15;
	size_t at, gap;
	struct stack_rec *sr;

	if (!sp->v)
		sp->v = ipt_malloc_table(POOL_BYTES);	/* (NULL: calloc each) */
	at = sp->taken % POOL_BYTES;
	gap = at + need > POOL_BYTES ? POOL_BYTES - at : 0;	/* the end skipped: from the start */
	if (!sp->v || sp->taken + gap + need - __atomic_load_n(&sp->given_back, __ATOMIC_ACQUIRE) > POOL_BYTES)
		return ipt_calloc(1, sizeof(*sr));	/* (pool NULL) */
	sr = (struct stack_rec *)(void *)(sp->v + (gap ? 0 : at));
	sp->taken += gap + need;
	memset(sr, 0, offsetof(struct stack_rec, addr));
	sr->bytes = (uint32_t)(gap + need);
	sr->pool = sp;
	return sr;
}

static void item_free_cb(void *it)
{
	item_free(it);
}

/* consume_inline - one thread: consume the batch and empty it */
static int consume_inline(struct rpt *r, struct pipe *pp)
{
	struct batch *b = pp->inline_batch;
	int ret = 0;

	for (size_t i = 0; i < b->n; i++) {
		if (!ret && consume(r, &pp->ls[0], &b->v[i]))
			ret = -1;
		item_free(&b->v[i]);
	}
	b->n = 0;
	return ret;
}

static struct item *emit(struct prod *pd)
{
	struct pipe *pp = pd->pp;

	struct item *it;

	if (pp->lanes) {
		it = ipt_lanes_emit(pp->lanes, pd->lane);
	} else {
		if (pp->inline_batch->n == BATCH && consume_inline(pd->r, pp))
			return NULL;
		it = &pp->inline_batch->v[pp->inline_batch->n++];
	}
	if (it)
		it->lvl = pd->lvl;
	return it;
}

/* pcpu_grow - producer state for CPUs 0..cpu (not ipt_grow: a cache line
 * each, aligned as realloc does not keep it) */
static int pcpu_grow(struct pipe *pp, int cpu)
{
	int n = pp->npc ? pp->npc : 8;
	struct pcpu *c;

	if (cpu < pp->npc)
		return 0;
	while (n <= cpu)
		n *= 2;
	c = ipt_calloc_lines((size_t)n, sizeof(*c));	/* a line each */
	if (!c)
		return -1;
	if (pp->npc)
		memcpy(c, pp->pc, (size_t)pp->npc * sizeof(*c));
	free(pp->pc);
	pp->pc = c;
	pp->npc = n;
	return 0;
}

/* count_row - the order-free counts of a row, in its lane */
static int count_row(struct lstate *ln, const struct ipt_ipi_row *row, bool counted, bool tables)
{
	int src = row->src_cpu, target = row->target_cpu, top = src > target ? src : target;
	uint64_t fn = row->func ? row->func : row->callback;
	struct lcount *c;

	ln->rows++;
	if (!counted)
		return 0;
	if (src < 0 || top >= IPT_CPUSET_MAX)
		return ipt_err("CPU %d out of range", top);
	if (IPT_GROW_ZERO(ln->cnt, ln->ncnt, top + 1))
		return -1;
	c = &ln->cnt[target];
	ln->rows_counted++;
	c->ipis++;
	c->by_kind[row->kind]++;
	ln->kinds[row->kind]++;
	ln->cnt[src].sent++;
	if (src != target) {
		c->remote++;
		ln->remote_total++;
	}
	if (!tables)
		return 0;
	if (ipt_cpumap_add(&ln->senders, (uint64_t)(uint32_t)row->pid, (uint64_t)src, (uint32_t)target) ||
	    ipt_cpumap_add(&ln->pairs, row->callsite, fn, (uint32_t)target))
		return -1;
	return 0;
}

/*
 * p_unreceived - a row to a CPU without data, counted here, in its lane,
 * with no item: nothing on that CPU can match it, so its place in time
 * does not matter.  Only where nothing else wants the row in order
 * (prod.lean) and it is not listed (opts.isolated).  1 if it was taken.
 */
static int p_unreceived(struct prod *pd, const struct ipt_ipi_row *row)
{
	struct rpt *r = pd->r;
	struct lstate *ln = pd->ln;
	int target = row->target_cpu, cls;
	bool counted;
	struct lcount *c;

	if (ipt_cpuset_has(pd->itemized, (unsigned int)target))	/* data there, or listed */
		return 0;
	counted = !r->filter || ipt_mfilter_eval(r->filter, row);
	if (count_row(ln, row, counted, !r->opts.no_tables))
		return -1;
	cls = ipt_class_of_send(&r->classes, row, &pd->cb);
	if (cls < 0 || cls >= RPT_NCLASS)
		return 1;	/* not matched: as ipt_match_send */
	if (IPT_GROW_ZERO(ln->cnt, ln->ncnt, target + 1))
		return -1;
	c = &ln->cnt[target];
	c->unreceived[cls]++;
	c->unreceived_counted += counted;
	c->unreceived_any = true;
	return 1;
}

/* lane_unreceived - n rows of a kind and class to CPU c (no data), counted */
static void lane_unreceived(struct lcount *c, int kind, int cls, uint64_t n)
{
	c->ipis += n;
	c->by_kind[kind] += n;
	c->remote += n;
	if (cls >= 0 && cls < RPT_NCLASS) {
		c->unreceived[cls] += n;
		c->unreceived_counted += n;
		c->unreceived_any = true;
	}
}

/* combo_of - the lane's index of (kind, cls) for lcount.combo, made on
 * first use; -1 when the lane has NCOMBO already */
static int combo_of(struct lstate *ln, int kind, int cls)
{
	for (int i = 0; i < ln->ncombo; i++)
		if (ln->combo[i].kind == kind && ln->combo[i].cls == cls)
			return i;
	if (ln->ncombo == NCOMBO)
		return -1;
	ln->combo[ln->ncombo].kind = (uint8_t)kind;
	ln->combo[ln->ncombo].cls = (int16_t)cls;
	return ln->ncombo++;
}

/*
 * p_rows - the rows of a send that differ only by target, at once: those
 * to CPUs without data counted here as p_unreceived does one by one (the
 * decoder has them only when no filter looks at each row), the others left
 * in rest for p_row
 */
static int p_rows(void *ctx, const struct ipt_ipi_row *row, const struct ipt_cpuset *targets,
		  struct ipt_cpuset *rest)
{
	_Static_assert(RPT_CBLOCK == 64, "a block of the count maps is a word of a CPU set");
	struct prod *pd = ctx;
	struct rpt *r = pd->r;
	struct lstate *ln = pd->ln;
	int src = row->src_cpu, last = ipt_cpuset_last(targets), cls;
	uint64_t fn = row->func ? row->func : row->callback, n = 0, remote = 0;
	int ix;

	if (last < 0)
		return 0;
	if (src < 0 || last >= IPT_CPUSET_MAX || src >= IPT_CPUSET_MAX)
		return ipt_err("CPU %d out of range", src > last ? src : last);
	if (IPT_GROW_ZERO(ln->cnt, ln->ncnt, (src > last ? src : last) + 1))
		return -1;
	uint32_t nw, nkeep;
	const uint64_t *tw = ipt_cpuset_words(targets, &nw), *kw = ipt_cpuset_words(pd->itemized, &nkeep);

	struct rpt_cpurow *by_combo = NULL, *by_sender = NULL, *by_pair = NULL;

	cls = ipt_class_of_send(&r->classes, row, &pd->cb);
	ix = combo_of(ln, row->kind, cls);
	/* each key looked up once for all its blocks */
	if ((ix >= 0 && !(by_combo = ipt_cpumap_row(&ln->combos, (uint64_t)ix, 0))) ||
	    (!r->opts.no_tables &&
	     (!(by_sender = ipt_cpumap_row(&ln->senders, (uint64_t)(uint32_t)row->pid, (uint64_t)src)) ||
	      !(by_pair = ipt_cpumap_row(&ln->pairs, row->callsite, fn)))))
		return -1;
	for (uint32_t w = 0; w < nw; w++) {
		uint64_t want = w < nkeep ? kw[w] : 0, all = tw[w];
		uint64_t bits = all & ~want;

		if (all & want)
			for (uint64_t k = all & want; k; k &= k - 1)
				if (ipt_cpuset_add(rest, w * 64 + (unsigned int)__builtin_ctzll(k)))
					return -1;
		if (!bits)
			continue;
		unsigned int nbits = ipt_popcount64(bits);

		n += nbits;
		if (src / 64 == (int)w && (bits >> (src % 64) & 1))
			remote--;	/* (the sender has data: it is not here) */
		remote += nbits;
		if (by_combo) {
			if (ipt_cpumap_add_bits(&ln->combos, by_combo, w, bits, nbits))
				return -1;
		} else {
			for (uint64_t k = bits; k; k &= k - 1)
				lane_unreceived(&ln->cnt[w * 64 + (unsigned int)__builtin_ctzll(k)], row->kind, cls, 1);
		}
		if (src / 64 == (int)w && (bits >> (src % 64) & 1))
			ln->cnt[src].remote--;	/* added for every CPU at the end */
		if (by_sender && (ipt_cpumap_add_bits(&ln->senders, by_sender, w, bits, nbits) ||
				  ipt_cpumap_add_bits(&ln->pairs, by_pair, w, bits, nbits)))
			return -1;
	}
	ln->rows += n;
	ln->rows_counted += n;
	ln->kinds[row->kind] += n;
	ln->cnt[src].sent += n;
	ln->remote_total += remote;
	return 0;
}

/* p_row - a row from the decoder becomes an item */
static int p_row(void *ctx, const struct ipt_ipi_row *row)
{
	struct prod *pd = ctx;
	struct rpt *r = pd->r;
	struct item *it;
	int taken;

	if (row->target_cpu < 0 || row->target_cpu >= IPT_CPUSET_MAX)
		return 0;
	if (pd->lean && (taken = p_unreceived(pd, row)))
		return taken < 0 ? -1 : 0;
	it = emit(pd);
	if (!it)
		return -1;
	pd->rows++;
	it->counted = !r->filter || ipt_mfilter_eval(r->filter, row);
	if (count_row(pd->ln, row, it->counted, !r->opts.no_tables))
		return -1;
	it->type = IT_ROW;
	it->k.ts = row->ts;
	it->k.cpu = row->src_cpu;
	it->cls = (int16_t)ipt_class_of_send(&r->classes, row, &pd->cb);
	it->u.row.id = row->id;
	it->u.row.callsite = row->callsite;
	it->u.row.callback = row->callback;
	it->u.row.func = row->func;
	it->u.row.reason = row->reason;
	it->target = (int16_t)row->target_cpu;
	it->k.aux = row->pid;
	it->kind = (uint8_t)row->kind;
	if (rests_wanted(r) && it->counted) {
		/* the rest of the row, right behind it (same key: nothing of
		 * another lane comes between) */
		struct item *x = emit(pd);

		if (!x)
			return -1;
		x->type = IT_ROW_REST;
		x->k.ts = row->ts;
		x->k.cpu = row->src_cpu;
		x->k.aux = (int32_t)(uint32_t)row->callsite_off;
		x->kind = row->callsite_off > UINT32_MAX;
		x->target = (int16_t)row->ntargets;
		x->u.rest.comm = row->comm;
		x->u.rest.event = row->event;
		x->u.rest.callsite_sym = row->callsite_sym;
		x->u.rest.callback_sym = row->callback_sym;
		x->u.rest.func_sym = row->func_sym;
	}
	return 0;
}


static int p_simple(struct prod *pd, int type, const struct ipt_record *rec, int cls, uint64_t csd)
{
	struct item *it = emit(pd);

	if (!it)
		return -1;
	it->type = (uint8_t)type;
	it->k.ts = rec->ts;
	it->k.cpu = rec->cpu;
	it->cls = (int16_t)cls;
	it->u.csd = csd;
	return 0;
}

/* p_stack - copy a kernel_stack or user_stack record's addresses into an item */
static int p_stack(struct prod *pd, const struct recv_ev *e, const struct ipt_record *rec)
{
	struct rpt *r = pd->r;
	unsigned int ls = (unsigned int)r->t->kernel_long_size;
	struct item *it = emit(pd);
	bool user = e->kind == RK_USTACK;
	uint64_t nmax;

	if (!it)
		return -1;
	it->type = user ? IT_USTACK : IT_STACK;
	it->k.ts = rec->ts;
	it->k.cpu = rec->cpu;
	/* room for the frames the loop below can read */
	nmax = ls && rec->size > e->f1->offset ? (rec->size - e->f1->offset) / ls : 0;
	it->u.stack = stack_take(&pd->ln->spool, nmax < STACK_MAX ? nmax : STACK_MAX);
	if (!it->u.stack) {
		it->type = IT_CSD_QUEUE;	/* harmless placeholder */
		it->u.csd = 0;
		return -1;
	}
	for (uint64_t off = e->f1->offset; off + ls <= rec->size && it->u.stack->n < STACK_MAX; off += ls) {
		uint64_t a = ipt_get_uint(rec->data + off, ls, r->t->big_endian);

		if ((ls == 8 && a == UINT64_MAX) || (uint32_t)a == UINT32_MAX || (user && !a))
			break;
		it->u.stack->addr[it->u.stack->n++] = a;
	}
	if (user) {
		uint64_t v;

		if (!ipt_field_u64(r->t, rec, e->f2, &v))
			it->u.stack->tgid = (int32_t)v;
		/* hardirq, softirq or NMI (trace flags 0x08, 0x10, 0x40) */
		if (e->f3 && !ipt_field_u64(r->t, rec, e->f3, &v))
			it->u.stack->in_irq = (v & 0x58) != 0;
	}
	return 0;
}

/* rec_level - the context a record was written in: 0 task, 1 softirq,
 * 2 hardirq, 3 NMI (trace flags 0x10, 0x08, 0x40); 0 without the field */
static uint8_t rec_level(const struct recv_ev *e, const struct ipt_record *rec)
{
	uint8_t f;

	if (!e->flags || e->flags->offset >= rec->size)
		return 0;
	f = rec->data[e->flags->offset];
	return f & 0x40 ? 3 : f & 0x08 ? 2 : f & 0x10 ? 1 : 0;
}

/* produce - one record in time order (the producer stage) */
static int produce(struct prod *pd, const struct ipt_record *rec)
{
	struct rpt *r = pd->r;
	struct lstate *ln = pd->ln;
	struct pcpu *pc;
	const struct recv_ev *e;
	uint64_t sends, rows;
	bool was_send;
	int id;

	if (rec->cpu < 0 || (rec->cpu >= pd->pp->npc && pcpu_grow(pd->pp, rec->cpu)))
		return -1;
	pc = &pd->pp->pc[rec->cpu];
	if (!pc->any) {
		pc->any = true;
		pc->first_ts = rec->ts;
	}
	if (rec->missed == UINT64_MAX)
		pc->lost_unknown = true;
	else
		pc->lost += rec->missed;
	/* the loss window: from this CPU's record before (0: none) */
	if (rec->missed && p_simple(pd, IT_DROP, rec, 0, pc->last_ts))
		return -1;
	if (!ln->events++)
		ln->first_ts = rec->ts;
	if (rec->ts > ln->last_ts)
		ln->last_ts = rec->ts;
	pc->last_ts = rec->ts;
	id = rec->event ? rec->event->id : -1;
	e = id >= 0 && id < pd->nev ? &pd->ev[id] : NULL;
	pd->lvl = e ? rec_level(e, rec) : 0;
	was_send = pc->send_at[pd->lvl];
	pc->send_at[pd->lvl] = false;
	if (e && e->kind == RK_STACK)
		return was_send ? p_stack(pd, e, rec) : 0;
	if (e && e->kind == RK_USTACK) {
		/* between a send and its kernel stack (the trigger's comes last) */
		pc->send_at[pd->lvl] = was_send;
		return was_send ? p_stack(pd, e, rec) : 0;
	}
	sends = ipt_ipi_decoder_stats(ln->dec)->send_events;
	rows = pd->rows;
	if (ipt_ipi_decoder_feed(ln->dec, rec, p_row, pd) < 0)
		return -1;
	if (ipt_ipi_decoder_stats(ln->dec)->send_events != sends) {
		pc->send_at[pd->lvl] = true;
		if (pd->rows == rows) {
			/* a send with no row still takes a number */
			struct item *it = emit(pd);

			if (!it)
				return -1;
			it->type = IT_SEND;
			it->k.ts = rec->ts;
			it->k.cpu = rec->cpu;
			it->u.row.id = ipt_ipi_decoder_stats(ln->dec)->send_events;
		}
	}
	if (!e)
		return 0;
	switch (e->kind) {
	case RK_ENTRY:	/* with the interrupted task */
		return p_simple(pd, IT_ENTRY, rec, e->cls, (uint64_t)(uint32_t)ipt_record_pid(r->t, rec));
	case RK_EXIT:
		return p_simple(pd, IT_EXIT, rec, e->cls, 0);
	case RK_ARM_ENTRY:
	case RK_ARM_EXIT: {
		uint64_t a = ipt_field_val(r->t, rec, e->f1);
		int cls = ipt_class_of_reason(&r->classes, a ? ipt_trace_printk_string(r->t, a) : NULL);

		if (cls < 0)
			return 0;
		return p_simple(pd, e->kind == RK_ARM_ENTRY ? IT_ENTRY : IT_EXIT, rec, cls,
				e->kind == RK_ARM_ENTRY ? (uint64_t)(uint32_t)ipt_record_pid(r->t, rec) : 0);
	}
	case RK_CSD_QUEUE: {
		uint64_t csd = ipt_field_val(r->t, rec, e->f2), target = ipt_field_val(r->t, rec, e->f1);

		if (!csd || target >= IPT_CPUSET_MAX)
			return 0;
		return p_simple(pd, IT_CSD_QUEUE, rec, (int)target, csd);
	}
	case RK_CSD_ENTRY:
		return p_simple(pd, IT_CSD_ENTRY, rec, 0, ipt_field_val(r->t, rec, e->f2));
	case RK_CSD_EXIT:
		return p_simple(pd, IT_CSD_EXIT, rec, 0, 0);
	default:
		return 0;
	}
}

/* produce_lane - decode the lane's CPUs (all CPUs: cpus NULL) into items */
static int produce_lane(struct rpt *r, int lane, const struct ipt_cpuset *cpus)
{
	struct priv *p = r->priv;
	struct pipe *pp = p->pipe;
	struct prod pd = { r, pp, lane, &pp->ls[lane], 0, { 0 }, 0, p->lean, p->ev, p->nev, &p->itemized };
	struct ipt_iter *it = ipt_iter_new(r->t, cpus);
	const struct ipt_record *rec;
	int k = -1, ret = -1;

	if (!it)
		return -1;
	while ((k = ipt_iter_step(it, &rec)) > 0)
		if (produce(&pd, rec))
			break;
	if (k == 0) {
		ipt_ipi_decoder_finish(pp->ls[lane].dec);
		ret = pp->lanes ? 0 : consume_inline(r, pp);
	}
	ipt_iter_free(it);
	return ret;
}

/* lane_main - a producer thread */
static int lane_main(struct ipt_lanes *l, int lane, void *ctx)
{
	return produce_lane(ctx, lane, ipt_lanes_cpus(l, lane));
}

/* consume_lanes - this thread consumes what the lanes' threads produce */
static int consume_lanes(struct rpt *r, struct pipe *pp)
{
	struct item *it;
	int lane, ret = 0;

	if (ipt_lanes_start(pp->lanes, lane_main, r)) {
		ipt_lanes_join(pp->lanes);	/* sets the message */
		return -1;
	}
	while ((it = ipt_lanes_next(pp->lanes, &lane))) {
		if (consume(r, &pp->ls[lane], it)) {
			ipt_lanes_fail(pp->lanes, ipt_errmsg());
			ret = -1;
		}
		item_free(it);
		if (ret)
			break;
	}
	if (ipt_lanes_join(pp->lanes))
		ret = -1;
	return ret;
}

/* end_match - the end of the matching stage's feed: what each CPU's
 * producer saw last */
static int end_match(struct rpt *r)
{
	struct pipe *pp = ((struct priv *)r->priv)->pipe;
	struct ipt_match_end *end = ipt_calloc((size_t)r->ncpus, sizeof(*end));
	int ret;

	if (!end)
		return -1;
	for (int c = 0; c < r->ncpus; c++) {
		end[c].first_ts = c < pp->npc ? pp->pc[c].first_ts : 0;
		end[c].last_ts = c < pp->npc ? pp->pc[c].last_ts : 0;
		end[c].lost = r->cpus[c].lost || r->cpus[c].lost_unknown;
	}
	ret = ipt_match_end(r->match, r->ncpus, end);
	free(end);
	return ret;
}

/* run_stages - one thread, or producer threads and this thread consuming */
static int run_stages(struct rpt *r, struct pipe *pp)
{
	if (pp->lanes)
		return consume_lanes(r, pp);
	return produce_lane(r, 0, NULL);
}

/* setup_pipe - the lanes (--threads > 1) and their decoders */
static int setup_pipe(struct rpt *r, struct pipe *pp)
{
	struct priv *p = r->priv;
	struct ipt_trace *t = r->t;
	int threads = ipt_lanes_auto(t, r->opts.threads, IPT_LANES_MIN_BYTES), maxcpu = 0;
	int producers = threads;
	bool learns, aside;

	pp->r = r;
	pp->nlanes = 1;
	/* threads chosen here, with on_row: this thread also does the
	 * caller's work for every row, so one CPU is left to it (the
	 * README's Python section has the measurement) */
	if (!r->opts.threads && r->opts.on_row && threads > 1)
		producers = threads - 1;
	/* learnt task names are shared state: each lane keeps its own, merged
	 * at the end, unless a row's comm is asked for while the rows come
	 * (on_row, kept, a filter): then one producer thread */
	learns = ipt_ipi_decoder_learns_comms(r->dec);
	aside = learns && !gives_rows(r) && !r->filter;
	if (threads > 1) {
		pp->lanes = ipt_lanes_new(t, learns && !aside ? 1 : producers, sizeof(struct item), &pp->nlanes);
		if (!pp->lanes)
			return -1;
	} else if ((pp->inline_batch = ipt_malloc_lines(1, sizeof(*pp->inline_batch)))) {
		pp->inline_batch->n = 0;	/* items are written before they are read */
	} else {
		return -1;
	}
	/* a row to a CPU without data becomes an item for its stack (the
	 * trace has stacks), its row result, its time bin or on_row only */
	p->lean = !p->has_stacks && !r->opts.row_results && r->opts.time_bins <= 0 && !gives_rows(r);
	for (int i = 0; i < t->nstreams; i++) {
		if (t->streams[i].cpu > maxcpu)
			maxcpu = t->streams[i].cpu;
		if (ipt_match_has_stream(r->match, t->streams[i].cpu) &&
		    ipt_cpuset_add(&p->itemized, (unsigned int)t->streams[i].cpu))
			return -1;
	}
	if (r->opts.isolated && ipt_cpuset_or(&p->itemized, r->opts.isolated))
		return -1;
	for (int i = 0; i < pp->nlanes; i++) {
		if (!(pp->ls[i].dec = i ? ipt_ipi_decoder_new(t) : r->dec))
			return -1;
		/* a filter looks at each row */
		ipt_ipi_decoder_set_bulk(pp->ls[i].dec, p->lean && !r->filter ? p_rows : NULL);
		if (aside && pp->nlanes > 1)
			ipt_ipi_decoder_learn_aside(pp->ls[i].dec);
	}
	return pcpu_grow(pp, maxcpu);
}

/* fold_combos - the lane's bulk rows (p_rows) into its per-CPU counts */
static int fold_combos(struct lstate *ln)
{
	size_t n;
	struct rpt_entry *e = ipt_cpumap_entries(&ln->combos, NULL, NULL, &n);

	if (!e)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int ix = (int)e[i].key.a, cpu = (int)e[i].key.c;

		if (ix < ln->ncombo && cpu < ln->ncnt)	/* (p_rows grew cnt for it) */
			lane_unreceived(&ln->cnt[cpu], ln->combo[ix].kind, ln->combo[ix].cls, e[i].count);
	}
	free(e);
	return 0;
}

/* gather_lanes - events, time span, counts and decoder counts of every lane */
static int gather_lanes(struct rpt *r, struct pipe *pp)
{
	struct ipt_ipi_stats *st = ipt_ipi_decoder_stats(r->dec);

	if (pp->nlanes > 1) {	/* the task names the lanes kept aside */
		struct ipt_ipi_decoder *decs[IPT_LANES_MAX];
		int n = 0;

		for (int i = 0; i < pp->nlanes && n < IPT_LANES_MAX; i++)
			decs[n++] = pp->ls[i].dec;
		if (ipt_ipi_decoders_learnt(decs, n))
			return -1;
	}

	for (int i = 0; i < pp->nlanes; i++) {
		struct lstate *ln = &pp->ls[i];

		if (ln->events && (!r->events || ln->first_ts < r->first_ts))
			r->first_ts = ln->first_ts;
		if (ln->last_ts > r->last_ts)
			r->last_ts = ln->last_ts;
		r->events += ln->events;
		if (i)
			ipt_ipi_stats_add(st, ipt_ipi_decoder_stats(ln->dec));
		r->rows += ln->rows;
		r->rows_counted += ln->rows_counted;
		r->remote_total += ln->remote_total;
		for (int k = 0; k < IPT_KIND__COUNT; k++)
			r->kinds[k] += ln->kinds[k];
		if (fold_combos(ln))
			return -1;
		for (int c = 0; c < ln->ncnt; c++) {
			struct lcount *lc = &ln->cnt[c];
			struct rpt_cpu *rc;

			if (!lc->ipis && !lc->sent && !lc->unreceived_any)
				continue;
			if (ensure_cpu(r, c))
				return -1;
			rc = &r->cpus[c];
			if (lc->unreceived_any &&
			    ipt_match_send_unreceived(r->match, c, lc->unreceived, lc->unreceived_counted))
				return -1;
			rc->ipis += lc->ipis;
			rc->sent += lc->sent;
			rc->remote += lc->remote;
			for (int k = 0; k < IPT_KIND__COUNT; k++)
				rc->by_kind[k] += lc->by_kind[k];
		}
		if (ipt_cpumap_fold(&r->matrix, &ln->senders, true) ||
		    ipt_cpumap_absorb(&r->senders, &ln->senders) || ipt_cpumap_absorb(&r->pairs, &ln->pairs))
			return -1;
	}
	return 0;
}

/* implicit_setup - with row results, the CPUs that recorded nothing (the
 * rows to them need no result of their own when nothing else asks for
 * one: no row filter, no stacks) */
static int implicit_setup(struct rpt *r)
{
	struct priv *p = r->priv;
	struct ipt_rowres *rs = &r->res;

	rs->nnostream = (IPT_CPUSET_MAX + 63) / 64;
	if (!(rs->nostream = ipt_calloc(rs->nnostream, sizeof(*rs->nostream))))
		return -1;
	for (int c = 0; c < IPT_CPUSET_MAX; c++)
		if (!ipt_match_has_stream(r->match, c))
			rs->nostream[c / 64] |= 1ull << (c % 64);
	p->implicit_results = !r->filter && !p->has_stacks;
	return 0;
}

/* ipt_rpt_run - one pass over the trace */
int ipt_rpt_run(struct rpt *r, struct ipt_trace *t, const struct rpt_opts *opts)
{
	struct ipt_match_config mc;
	struct pipe *pp;
	struct priv *p;
	bool id_seen = false;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	ipt_classes_init(&r->classes);
	r->t = t;
	if (opts)
		r->opts = *opts;
	r->priv = p = ipt_calloc(1, sizeof(*p));
	if (!p)
		return -1;
	p->pipe = pp = ipt_calloc_lines(1, sizeof(*pp));
	if (!pp)
		return -1;
	r->cross_ok = clock_cross_cpu(t->clock, &r->cross_why) || r->opts.assume_synced_clock;
	{
		/* the recording filtered its sends: interrupts may lack theirs */
		char v[8];

		r->sends_filtered = ipt_trace_provenance(t, "filter", v, sizeof(v)) ||
				    ipt_trace_provenance(t, "cpus", v, sizeof(v));
	}
	if (r->opts.filter && *r->opts.filter) {
		/* a filter on what matching found: its first pass is opts.mtable */
		if (!(r->filter = ipt_mfilter_new(r->opts.filter, r->opts.mtable, &id_seen)))
			return -1;
	}
	/* ids are numbered in the merged order: lanes would filter on their own */
	if (id_seen)
		r->opts.threads = 1;
	if (setup_events(r, p))
		return -1;
	mc = (struct ipt_match_config){
		.cross_ok = r->cross_ok,
		.kind_distributions = r->opts.kind_distributions,
		.have_receive = r->have_receive,
		.sends_filtered = r->sends_filtered,
		.isolated = r->opts.isolated,
		.classes = &r->classes,
		.rows = &r->res,
		.iso = &r->iso,
	};
	if (!(r->match = ipt_match_new(t, &mc)) ||
	    ensure_cpu(r, ipt_trace_ncpus(t) > 0 ? ipt_trace_ncpus(t) - 1 : 0))
		return -1;
	if (r->opts.row_results && implicit_setup(r))
		return -1;
	if (r->opts.keep_rows && !(r->kept = ipt_kept_new(t, r->opts.filter)))
		return -1;
	r->ncpus = ipt_trace_ncpus(t) > 0 ? ipt_trace_ncpus(t) : 1;
	r->dec = ipt_ipi_decoder_new(t);
	if (!r->dec || setup_pipe(r, pp) || run_stages(r, pp) || gather_lanes(r, pp))
		goto out;
	/* what the producer saw per CPU */
	for (int c = 0; c < pp->npc; c++) {
		if (!pp->pc[c].last_ts && !pp->pc[c].lost && !pp->pc[c].lost_unknown)
			continue;
		if (ensure_cpu(r, c))
			goto out;
		r->cpus[c].lost = pp->pc[c].lost;
		r->cpus[c].lost_unknown = pp->pc[c].lost_unknown;
	}
	if (end_match(r) || ipt_rowres_end(&r->res))
		goto out;
	if (r->kept && !ipt_kept_end(r->kept)) {	/* dropped: the iterator decodes */
		ipt_kept_free(r->kept);
		r->kept = NULL;
	}
	/* CPUs with events but beyond the trace's own count */
	for (int c = r->ncpus; c < p->ncpu; c++)
		if (r->cpus[c].ipis || r->cpus[c].sent)
			r->ncpus = c + 1;
	ret = 0;
out:
	return ret;
}

void ipt_rpt_free(struct rpt *r)
{
	struct priv *p = r->priv;

	ipt_kept_free(r->kept);
	r->kept = NULL;
	if (p && p->pipe) {
		ipt_lanes_free(p->pipe->lanes, item_free_cb);
		for (int l = 0; l < IPT_LANES_MAX; l++) {
			struct lstate *ln = &p->pipe->ls[l];

			if (l && ln->dec)
				ipt_ipi_decoder_free(ln->dec);
			free(ln->cnt);
			ipt_cpumap_free(&ln->senders);
			ipt_cpumap_free(&ln->pairs);
			ipt_cpumap_free(&ln->combos);
		}
		/* items never consumed (a failed run) still own memory */
		for (size_t i = 0; p->pipe->inline_batch && i < p->pipe->inline_batch->n; i++)
			item_free(&p->pipe->inline_batch->v[i]);
		free(p->pipe->inline_batch);
		for (int l = 0; l < IPT_LANES_MAX; l++)
			free(p->pipe->ls[l].spool.v);	/* (after the items that hold them) */
		free(p->pipe->pc);
		free(p->pipe);
	}
	if (p) {
		for (int c = 0; c < p->ncpu; c++) {
			for (int l = 0; l < NLEVEL; l++) {
				free(p->cpu[c].lv[l].cur);
				free(p->cpu[c].lv[l].ustack);
			}
		}
		free(p->cpu);
		free(p->ev);
		free(p->last_row);
		ipt_cpuset_free(&p->itemized);
		free(p);
	}
	ipt_match_free(r->match);
	free(r->cpus);
	ipt_cpumap_free(&r->senders);
	ipt_cpumap_free(&r->pairs);
	ipt_cmap_free(&r->matrix);
	for (size_t i = 0; i < r->niso; i++)
		free((void *)r->iso[i].stack);
	ipt_fine_free(&r->fine);
	free(r->iso);
	stk_free(&r->stacks);
	ipt_cmap_free(&r->stackmap);
	ipt_rowres_free(&r->res);
	ipt_ipi_decoder_free(r->dec);
	ipt_mfilter_free(r->filter);
	ipt_classes_destroy(&r->classes);
	memset(r, 0, sizeof(*r));
}

