// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ipi.c - the IPI view: one row per (IPI send, target CPU)
 *
 * Sources: ipi:ipi_send_cpu (one target), ipi:ipi_send_cpumask (a mask),
 * arm/arm64 ipi:ipi_raise (a bitmask and a reason string).  On 6.5+ the
 * callback of a function-call IPI is only the generic handler; the function
 * really run comes from csd:csd_queue_cpu, emitted just before on the same
 * CPU for the same target.  A csd_queue_cpu that no IPI follows (the
 * target polls in idle, or its queue already had work) is counted as a
 * call that needed no IPI, never as an IPI.
 */
#include "ipi/ipi.h"
#include "ipi/catalogue.h"
#include "filter/filter.h"

#include <stddef.h>
#include <stdlib.h>

enum src_kind {
	SRC_NONE, SRC_SEND_CPU, SRC_SEND_MASK, SRC_RAISE, SRC_CSD_QUEUE, SRC_SCHED_SWITCH,
	SRC_KP_CALLER,		/* a dynamic probe on a caller of the send hooks */
};

/* per event id: what it is and its fields */
struct src_event {
	enum src_kind kind;
	enum ipt_probe_role probe;	/* a dynamic probe's role (IPT_OPTION_PROBES) */
	const struct ipt_field *cpu, *mask, *callsite, *callback, *func, *reason, *flags;
	const struct ipt_field *probe_ip;	/* a kprobe's __probe_ip */
	const struct ipt_field *prev_comm, *prev_pid, *next_comm, *next_pid;
};

/*
 * The last caller probe seen on a CPU (kernels without the send events):
 * __smp_call_single_queue(cpu, node) or smp_call_function_many_cond(mask,
 * func), whose call site and function the next function-call send hook on
 * that CPU takes (the hooks themselves know only their targets).
 */
struct caller {
	uint64_t callsite, func;
	int target;		/* the queued call's CPU; -1: a mask (many_cond) */
	bool valid;
};

/* csd types in the flags of a queued node (include/linux/smp_types.h) */
#define CSD_FLAG_TYPE_MASK	0xf0
#define CSD_TYPE_TTWU		0x30

/* a csd call queued from src to target, waiting for its IPI */
struct pending {
	uint64_t tag;		/* the hash map's (ipt_hmap) */
	uint32_t key;		/* src * IPT_CPUSET_MAX + target + 1 */
	uint64_t func;
};

/* memo of symbol lookups: direct-mapped on the address */
struct sym_memo {
	uint64_t addr;
	const char *sym;
	uint64_t off;
	bool valid;
	bool generic;		/* generic_smp_call_function_single_interrupt */
};

/* memo of kinds: direct-mapped on what the rules look at */
struct kind_memo {
	uint64_t callsite, callback, func;
	const char *reason, *event;
	enum ipt_ipi_kind kind;
	bool valid;
};

#define MEMO_SIZE 1024
#define NAMED_MEMO 256

struct ipt_ipi_decoder {
	struct ipt_ipi_stats stats;	/* first: ipt_ipi_decoder_stats (ipi.h) */
	struct sym_memo syms[MEMO_SIZE];
	struct kind_memo kinds[MEMO_SIZE];
	struct ipt_trace *t;
	struct src_event *by_id;	/* indexed by event id */
	int nids;
	struct ipt_hmap pend;		/* of struct pending */
	struct ipt_cpuset targets;
	struct ipt_cpuset rest;		/* of a send's targets, those bulk left to fn */
	ipt_rows_fn bulk;
	/* looked up by name on first use (a search of all of kallsyms' text) */
	uint64_t generic_handler;	/* address of generic_smp_call_function_single_interrupt */
	uint64_t ttwu_func;		/* address of sched_ttwu_pending (a queued wakeup's work) */
	bool have_generic_handler, have_ttwu_func;
	struct caller *callers;		/* per CPU (dynamic probes) */
	int ncallers;
	bool learn_aside;		/* names learnt go to learnt, not the trace */
	struct ipt_hmap learnt;		/* of struct learnt: pid -> its first name */
	/* pids whose name is known or learnt already (direct-mapped; 0: none):
	 * a sched_switch names the same few tasks again and again */
	int named[NAMED_MEMO];
};

/* a task name seen in a sched event, first of its pid in this decoder */
struct learnt {
	uint64_t tag;
	int pid;
	int cpu;
	uint64_t ts;
	int slot;			/* 0: prev, 1: next of the same record */
	char *name;
};

static const struct ipt_field *fld(const struct ipt_event *ev, const char *name)
{
	return ipt_event_field(ev, name);
}

/* classify_events - find the source events of this trace and their fields */
static int classify_events(struct ipt_ipi_decoder *d)
{
	struct ipt_trace *t = d->t;

	d->nids = t->max_id + 1;
	d->by_id = ipt_calloc((size_t)d->nids + 1, sizeof(*d->by_id));
	if (!d->by_id)
		return -1;
	for (int i = 0; i < t->nevents; i++) {
		const struct ipt_event *ev = &t->events[i];
		const struct ipt_ipi_event_info *info;
		struct src_event *s;

		if (ev->id < 0 || ev->id >= d->nids)
			continue;
		s = &d->by_id[ev->id];
		info = ipt_ipi_event_info_of(ev);
		s->probe = ev->probe;
		if (ev->probe == IPT_PROBE_QUEUE || ev->probe == IPT_PROBE_MANY) {
			s->cpu = fld(ev, "cpu");
			s->callsite = fld(ev, "callsite");
			s->func = fld(ev, "func");
			s->flags = fld(ev, "flags");
			s->kind = s->func && (ev->probe == IPT_PROBE_MANY || s->cpu) ? SRC_KP_CALLER : SRC_NONE;
			continue;
		}
		if (info && info->role == IPT_ROLE_SEND && !strcmp(info->target, "cpu")) {
			s->cpu = fld(ev, info->target);
			s->kind = s->cpu ? SRC_SEND_CPU : SRC_NONE;
		} else if (info && info->role == IPT_ROLE_SEND) {
			/* a mask of targets: ipi_send_cpumask, arm64 ipi_raise with its reason */
			s->mask = fld(ev, info->target);
			s->reason = info->arch == IPT_ARCH_ARM ? fld(ev, "reason") : NULL;
			s->kind = !s->mask || !(s->mask->flags & IPT_FIELD_CPUMASK) ? SRC_NONE :
				  info->arch == IPT_ARCH_ARM ? SRC_RAISE : SRC_SEND_MASK;
		} else if (info && info->role == IPT_ROLE_QUEUE) {
			s->cpu = fld(ev, info->target);
			s->func = fld(ev, "func");
			s->kind = s->cpu && s->func ? SRC_CSD_QUEUE : SRC_NONE;
		} else if (!strcmp(ev->name, "sched_switch")) {
			s->prev_comm = fld(ev, "prev_comm");
			s->prev_pid = fld(ev, "prev_pid");
			s->next_comm = fld(ev, "next_comm");
			s->next_pid = fld(ev, "next_pid");
			s->kind = s->prev_comm && s->prev_pid && s->next_comm && s->next_pid ?
				SRC_SCHED_SWITCH : SRC_NONE;
		}
		if (s->kind == SRC_SEND_CPU || s->kind == SRC_SEND_MASK || s->kind == SRC_RAISE) {
			s->callsite = fld(ev, "callsite");
			s->callback = fld(ev, "callback");
			s->probe_ip = ev->probe ? fld(ev, "__probe_ip") : NULL;
		}
	}
	return 0;
}

struct ipt_ipi_decoder *ipt_ipi_decoder_new(struct ipt_trace *t)
{
	struct ipt_ipi_decoder *d = ipt_calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->t = t;
	ipt_cpuset_init(&d->targets);
	ipt_cpuset_init(&d->rest);
	if (classify_events(d)) {
		ipt_ipi_decoder_free(d);
		return NULL;
	}
	return d;
}

void ipt_ipi_decoder_free(struct ipt_ipi_decoder *d)
{
	if (!d)
		return;
	free(d->by_id);
	ipt_hmap_free(&d->pend);
	for (size_t i = 0; i < d->learnt.cap; i++) {
		struct learnt *l = ipt_hmap_at(&d->learnt, sizeof(*l), i);

		if (ipt_hmap_used(l))
			free(l->name);
	}
	ipt_hmap_free(&d->learnt);
	free(d->callers);
	ipt_cpuset_free(&d->targets);
	ipt_cpuset_free(&d->rest);
	free(d);
}

/* ipt_ipi_stats_add - dst += src, field by field (lanes' decoders) */
void ipt_ipi_stats_add(struct ipt_ipi_stats *st, const struct ipt_ipi_stats *o)
{
	st->records += o->records;
	st->send_events += o->send_events;
	st->rows += o->rows;
	st->rows_out += o->rows_out;
	st->csd_queued += o->csd_queued;
	st->csd_joined += o->csd_joined;
	st->csd_no_ipi += o->csd_no_ipi;
	st->lost_events += o->lost_events;
	st->lost_unknown += o->lost_unknown;
}

/* ipt_ipi_decoder_learns_comms - the trace has sched events whose task
 * names the decoder adds to the trace's (shared) table */
bool ipt_ipi_decoder_learns_comms(const struct ipt_ipi_decoder *d)
{
	for (int i = 0; i < d->nids; i++)
		if (d->by_id[i].kind == SRC_SCHED_SWITCH)
			return true;
	return false;
}

_Static_assert(offsetof(struct ipt_ipi_decoder, stats) == 0, "ipi.h reads the stats at the start");

/* ---- pending csd calls: (src, target) -> func ---- */

static uint32_t pkey(int src, int target)
{
	return (uint32_t)src * IPT_CPUSET_MAX + (uint32_t)target + 1;
}

static bool pend_eq(const void *entry, const void *key)
{
	return ((const struct pending *)entry)->key == *(const uint32_t *)key;
}

/* pslot - the entry of key, or the empty slot where it goes (NULL: none yet) */
static struct pending *pslot(struct ipt_ipi_decoder *d, uint32_t key)
{
	return ipt_hmap_find(&d->pend, sizeof(struct pending), ipt_hmap_tag(ipt_hash64(key)), pend_eq, &key);
}

/* pend_put - remember a queued call; an older one left there had no IPI */
static int pend_put(struct ipt_ipi_decoder *d, int src, int target, uint64_t func)
{
	uint32_t key = pkey(src, target);
	bool added;
	struct pending *p = ipt_hmap_add(&d->pend, sizeof(*p), ipt_hmap_tag(ipt_hash64(key)), pend_eq, &key, &added);

	if (!p)
		return -1;
	if (!added)
		d->stats.csd_no_ipi++;
	p->key = key;
	p->func = func;
	return 0;
}

/*
 * pend_forget_src - events were lost on src: its queued calls are
 * forgotten (the send or the queueing that went with each may be among
 * the lost), so that no send after the gap takes a function from before
 * it; like calls left at the end, they count as having had no IPI seen
 */
static void pend_forget_src(struct ipt_ipi_decoder *d, int src)
{
	for (size_t i = 0; i < d->pend.cap && d->pend.n;) {
		struct pending *p = ipt_hmap_at(&d->pend, sizeof(*p), i);

		if (ipt_hmap_used(p) && (p->key - 1) / IPT_CPUSET_MAX == (uint32_t)src) {
			d->stats.csd_no_ipi++;	/* as a call left at the end: no IPI seen */
			ipt_hmap_remove(&d->pend, sizeof(*p), p);	/* slot i holds the next */
		} else {
			i++;
		}
	}
}

/* pend_take - the queued call for (src, target), removed; false if none */
static bool pend_take(struct ipt_ipi_decoder *d, int src, int target, uint64_t *func)
{
	struct pending *p;

	if (!d->pend.n)
		return false;
	p = pslot(d, pkey(src, target));
	if (!ipt_hmap_used(p))
		return false;
	*func = p->func;
	ipt_hmap_remove(&d->pend, sizeof(*p), p);
	return true;
}

void ipt_ipi_decoder_finish(struct ipt_ipi_decoder *d)
{
	for (int i = 0; i < d->ncallers; i++)
		if (d->callers[i].valid && d->callers[i].target >= 0) {
			d->stats.csd_no_ipi++;
			d->callers[i].valid = false;
		}
	d->stats.csd_no_ipi += d->pend.n;
	ipt_hmap_clear(&d->pend, sizeof(struct pending));
}

static bool learnt_eq(const void *entry, const void *key)
{
	return ((const struct learnt *)entry)->pid == *(const int *)key;
}

/* learn_aside - pid's name kept in d, unless d has one for it already;
 * false where memory ran out (the name stays unknown, as in the trace) */
static bool learn_aside(struct ipt_ipi_decoder *d, const struct ipt_record *r, int slot, int pid,
			const uint8_t *p, uint32_t n)
{
	bool added;
	struct learnt *l = ipt_hmap_add(&d->learnt, sizeof(*l), ipt_hmap_tag(ipt_hash64((uint64_t)pid)),
					learnt_eq, &pid, &added);

	if (!l)
		return false;
	if (!added)
		return true;
	l->pid = pid;
	l->cpu = r->cpu;
	l->ts = r->ts;
	l->slot = slot;
	l->name = ipt_strndup((const char *)p, strnlen((const char *)p, n));
	return l->name != NULL;
}

/* learn_comms - names from sched_switch for pids the cmdlines lack */
static void learn_comms(struct ipt_ipi_decoder *d, const struct src_event *s,
			const struct ipt_record *r)
{
	const struct ipt_field *names[2] = { s->prev_comm, s->next_comm };
	const struct ipt_field *pids[2] = { s->prev_pid, s->next_pid };

	for (int i = 0; i < 2; i++) {
		int pid = (int)(int32_t)ipt_field_val(d->t, r, pids[i]);
		const uint8_t *p;
		uint32_t n;

		int *named = &d->named[(unsigned int)pid % NAMED_MEMO];

		if (pid <= 0 || *named == pid)
			continue;
		if (ipt_comms_get(&d->t->comms, pid)) {
			*named = pid;
			continue;
		}
		if (ipt_field_bytes(d->t, r, names[i], &p, &n))
			continue;
		if (d->learn_aside ? learn_aside(d, r, i, pid, p, n) :
		    !ipt_comms_set(&d->t->comms, pid, (const char *)p, strnlen((const char *)p, n)))
			*named = pid;
	}
}

void ipt_ipi_decoder_learn_aside(struct ipt_ipi_decoder *d)
{
	d->learn_aside = true;
}

static int learnt_order(const void *a, const void *b)
{
	const struct learnt *x = *(const struct learnt *const *)a, *y = *(const struct learnt *const *)b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->slot - y->slot;
}

int ipt_ipi_decoders_learnt(struct ipt_ipi_decoder *const *d, int n)
{
	const struct learnt **all = NULL;
	size_t cnt = 0, cap = 0;
	int ret = 0;

	for (int k = 0; k < n; k++)
		for (size_t i = 0; i < d[k]->learnt.cap; i++) {
			const struct learnt *l = ipt_hmap_at(&d[k]->learnt, sizeof(*l), i);

			if (!ipt_hmap_used(l) || !l->name)
				continue;
			if (IPT_GROW(all, cap, cnt + 1)) {
				free(all);
				return -1;
			}
			all[cnt++] = l;
		}
	if (cnt > 1)
		qsort(all, cnt, sizeof(*all), learnt_order);
	for (size_t i = 0; i < cnt && !ret; i++) {
		struct ipt_trace *t = d[0]->t;

		if (!ipt_comms_get(&t->comms, all[i]->pid))
			ret = ipt_comms_set(&t->comms, all[i]->pid, all[i]->name, strlen(all[i]->name));
	}
	free(all);
	return ret;
}

/* set_sym - the symbol of addr, remembered */
/*
 * set_sym - the symbol of addr (memoized); true if it is the generic csd
 * handler, whose callback says nothing of the function run
 */
static bool set_sym(struct ipt_ipi_decoder *d, uint64_t addr, const char **sym, uint64_t *off)
{
	struct sym_memo *m = &d->syms[(addr ^ (addr >> 12)) & (MEMO_SIZE - 1)];

	if (!addr) {
		*sym = NULL;
		if (off)
			*off = 0;
		return false;
	}
	if (!m->valid || m->addr != addr) {
		m->addr = addr;
		m->off = 0;
		m->sym = ipt_trace_symbol(d->t, addr, &m->off);
		m->generic = m->sym && !strcmp(m->sym, "generic_smp_call_function_single_interrupt");
		m->valid = true;
	}
	*sym = m->sym;
	if (off)
		*off = m->off;
	return m->generic;
}

/* classify - the kind of a row, remembered for identical senders */
static enum ipt_ipi_kind classify(struct ipt_ipi_decoder *d, const struct ipt_ipi_row *row)
{
	uint64_t h = row->callsite * 31 + row->callback * 17 + row->func * 7 + (uintptr_t)row->reason;
	struct kind_memo *m = &d->kinds[(h ^ (h >> 15) ^ (h >> 31)) & (MEMO_SIZE - 1)];

	if (!m->valid || m->callsite != row->callsite || m->callback != row->callback ||
	    m->func != row->func || m->reason != row->reason || m->event != row->event) {
		m->callsite = row->callsite;
		m->callback = row->callback;
		m->func = row->func;
		m->reason = row->reason;
		m->event = row->event;
		m->kind = ipt_ipi_classify(row);
		m->valid = true;
	}
	return m->kind;
}

/* caller_of - the caller slot of CPU cpu (grown on demand); NULL if out of memory */
static struct caller *caller_of(struct ipt_ipi_decoder *d, int cpu)
{
	if (cpu < 0 || cpu >= IPT_CPUSET_MAX)
		return NULL;
	if (IPT_GROW_ZERO(d->callers, d->ncallers, cpu + 1))
		return NULL;
	return &d->callers[cpu];
}

static uint64_t generic_handler(struct ipt_ipi_decoder *d)
{
	if (!d->have_generic_handler) {
		d->generic_handler = ipt_trace_symbol_addr(d->t, "generic_smp_call_function_single_interrupt");
		d->have_generic_handler = true;
	}
	return d->generic_handler;
}

static uint64_t ttwu_func(struct ipt_ipi_decoder *d)
{
	if (!d->have_ttwu_func) {
		d->ttwu_func = ipt_trace_symbol_addr(d->t, "sched_ttwu_pending");
		d->have_ttwu_func = true;
	}
	return d->ttwu_func;
}

/* put_caller - a caller probe: its call site and function wait for the send */
static int put_caller(struct ipt_ipi_decoder *d, const struct src_event *s, const struct ipt_record *rec)
{
	struct caller *c = caller_of(d, rec->cpu);

	uint64_t func = ipt_field_val(d->t, rec, s->func);
	int target = -1;

	if (!c)
		return rec->cpu < 0 || rec->cpu >= IPT_CPUSET_MAX ? 0 : -1;
	if (s->probe == IPT_PROBE_QUEUE) {
		target = (int)ipt_field_val(d->t, rec, s->cpu);
		/* a queued wakeup's node is a task's wake_entry, not a csd: no func */
		if (s->flags && (ipt_field_val(d->t, rec, s->flags) & CSD_FLAG_TYPE_MASK) == CSD_TYPE_TTWU)
			func = ttwu_func(d);
		/* generic_exec_single, then the __smp_call_single_queue it
		 * calls: one call, the outer call site */
		if (c->valid && c->target == target && c->func == func)
			return 0;
		d->stats.csd_queued++;
	}
	if (c->valid && c->target >= 0)
		d->stats.csd_no_ipi++;	/* a queued call no IPI followed */
	c->callsite = ipt_field_val(d->t, rec, s->callsite);
	c->func = func;
	c->target = target;
	c->valid = true;
	return 0;
}

/* take_caller - for a function-call send hook to target (-1: a mask): the
 * waiting caller's call site and function; false if none */
static bool take_caller(struct ipt_ipi_decoder *d, int src, int target, uint64_t *callsite,
			uint64_t *func)
{
	struct caller *c = src >= 0 && src < d->ncallers ? &d->callers[src] : NULL;

	if (!c || !c->valid || (c->target >= 0 && c->target != target))
		return false;
	*callsite = c->callsite;
	*func = c->func;
	/* a queued call rides one IPI; a many_cond call stays for the sends
	 * after it (an exploded mask is several), until the next caller */
	if (c->target >= 0) {
		d->stats.csd_joined++;
		c->valid = false;
	}
	return true;
}

void ipt_ipi_decoder_set_bulk(struct ipt_ipi_decoder *d, ipt_rows_fn bulk)
{
	d->bulk = bulk;
}

/* missed - events were lost just before rec: what waited on its CPU is forgotten */
static void missed(struct ipt_ipi_decoder *d, const struct ipt_record *rec)
{
	if (rec->missed == UINT64_MAX)
		d->stats.lost_unknown++;
	else
		d->stats.lost_events += rec->missed;
	pend_forget_src(d, rec->cpu);
	if (rec->cpu >= 0 && rec->cpu < d->ncallers && d->callers[rec->cpu].valid) {
		/* as the csd calls: the caller probe may belong to a lost send */
		if (d->callers[rec->cpu].target >= 0)
			d->stats.csd_no_ipi++;
		d->callers[rec->cpu].valid = false;
	}
}

static int feed_send(struct ipt_ipi_decoder *d, const struct src_event *s, const struct ipt_record *rec,
		     ipt_row_fn fn, void *ctx);

/* ipt_ipi_decoder_feed - one record in, rows out (most records are of no
 * send: this part stays small, the sends go to feed_send) */
int ipt_ipi_decoder_feed(struct ipt_ipi_decoder *d, const struct ipt_record *rec,
			 ipt_row_fn fn, void *ctx)
{
	const struct src_event *s;
	int id;

	d->stats.records++;
	if (__builtin_expect(rec->missed != 0, 0))
		missed(d, rec);
	if (!rec->event)
		return 0;
	id = rec->event->id;
	if (id < 0 || id >= d->nids)
		return 0;
	s = &d->by_id[id];
	switch (s->kind) {
	case SRC_NONE:
		return 0;
	case SRC_SCHED_SWITCH:
		learn_comms(d, s, rec);
		return 0;
	case SRC_CSD_QUEUE:
		d->stats.csd_queued++;
		return pend_put(d, rec->cpu, (int)ipt_field_val(d->t, rec, s->cpu), ipt_field_val(d->t, rec, s->func));
	case SRC_KP_CALLER:
		return put_caller(d, s, rec);
	default:
		return feed_send(d, s, rec, fn, ctx);
	}
}

/* feed_send - a send event's rows */
static int __attribute__((noinline)) feed_send(struct ipt_ipi_decoder *d, const struct src_event *s,
					       const struct ipt_record *rec, ipt_row_fn fn, void *ctx)
{
	struct ipt_ipi_row row;
	const struct ipt_cpuset *each;	/* the targets whose rows go to fn */
	bool callback_generic;
	uint64_t probe_func = 0;
	int ret;

	d->stats.send_events++;
	memset(&row, 0, sizeof(row));
	row.ts = rec->ts;
	row.id = d->stats.send_events;
	row.src_cpu = rec->cpu;
	row.pid = ipt_record_pid(d->t, rec);
	row.comm = ipt_trace_comm(d->t, row.pid);
	row.event = rec->event->as_name ? rec->event->as_name : rec->event->name;
	row.callsite = ipt_field_val(d->t, rec, s->callsite);
	row.callback = ipt_field_val(d->t, rec, s->callback);
	if (s->probe == IPT_PROBE_SEND_CALL) {
		/* a send hook: the caller's call site and function, and the
		 * generic handler as callback (as ipi_send_cpu says since 6.5) */
		int one = s->kind == SRC_SEND_CPU ? (int)ipt_field_val(d->t, rec, s->cpu) : -1;

		take_caller(d, rec->cpu, one, &row.callsite, &probe_func);
		row.callback = generic_handler(d) ? generic_handler(d) : probe_func;
		/* a probe record with no probed address was written by explode
		 * for one CPU of a mask: its rows are the mask's */
		if (s->kind == SRC_SEND_CPU && s->probe_ip && !ipt_field_val(d->t, rec, s->probe_ip))
			row.event = "ipi_send_cpumask";
	}
	set_sym(d, row.callsite, &row.callsite_sym, &row.callsite_off);
	callback_generic = set_sym(d, row.callback, &row.callback_sym, NULL);
	if (s->reason) {
		uint64_t p = ipt_field_val(d->t, rec, s->reason);

		row.reason = p ? ipt_trace_printk_string(d->t, p) : NULL;
		if (!row.reason)
			row.reason = "?";
	}
	ipt_cpuset_clear(&d->targets);
	if (s->kind == SRC_SEND_CPU) {
		uint64_t cpu = ipt_field_val(d->t, rec, s->cpu);

		/* one target: the set's weight known */
		row.ntargets = cpu < IPT_CPUSET_MAX && !ipt_cpuset_add(&d->targets, (unsigned int)cpu);
	} else if (ipt_field_cpuset(d->t, rec, s->mask, &d->targets)) {
		return ipt_err_at(d->t->path, -1, "CPU %d, ts %llu: %s: %s", rec->cpu,
				  (unsigned long long)rec->ts, rec->event->name, ipt_errmsg());
	} else {
		row.ntargets = ipt_cpuset_weight(&d->targets);
	}
	row.targets = &d->targets;
	each = &d->targets;
	if (d->bulk && (probe_func || !row.callback || !d->pend.n)) {
		/* every target's row is the same but for the CPU (pend_take
		 * cannot name a function) */
		row.target_cpu = -1;
		row.func = probe_func ? probe_func :
			   row.callback && !callback_generic && row.callback != generic_handler(d) ? row.callback : 0;
		set_sym(d, row.func, &row.func_sym, NULL);
		row.kind = classify(d, &row);
		ipt_cpuset_clear(&d->rest);
		ret = d->bulk(ctx, &row, &d->targets, &d->rest);
		if (ret)
			return ret;
		d->stats.rows += row.ntargets - ipt_cpuset_weight(&d->rest);
		each = &d->rest;
		row.func = 0;
	}
	for (int c = ipt_cpuset_next(each, 0), first = 1; c >= 0;
	     c = ipt_cpuset_next(each, (unsigned int)c + 1), first = 0) {
		uint64_t func = 0, prev = row.func;

		row.target_cpu = c;
		row.func = 0;
		if (probe_func) {
			row.func = probe_func;
		} else if (row.callback && pend_take(d, rec->cpu, c, &func)) {
			d->stats.csd_joined++;
			row.func = func;
		} else if (row.callback && !callback_generic && row.callback != generic_handler(d)) {
			row.func = row.callback;	/* 6.4, irq_work: the callback is the function */
		}
		/* the targets of a send differ at most by function */
		if (first || row.func != prev) {
			set_sym(d, row.func, &row.func_sym, NULL);
			row.kind = classify(d, &row);
		}
		d->stats.rows++;
		ret = fn(ctx, &row);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- row columns for filters ---- */

static const char *const col_names[COL__ALL] = {
	[COL_TS] = "ts", [COL_ID] = "id", [COL_SRC_CPU] = "src_cpu",
	[COL_TARGET_CPU] = "target_cpu", [COL_PID] = "pid", [COL_COMM] = "comm",
	[COL_NTARGETS] = "ntargets", [COL_EVENT] = "event", [COL_CALLSITE] = "callsite",
	[COL_CALLBACK] = "callback", [COL_FUNC] = "func", [COL_KIND] = "kind",
	[COL_REASON] = "reason", [COL_CPUMASK] = "cpumask",
	[COL_CALLSITE_FUNC] = "callsite_func", [COL_FUNC_NAME] = "func_name",
	[COL_LAT_NS] = "lat_ns", [COL_HANDLER_NS] = "handler_ns",
	[COL_HANDLER_TS_NS] = "handler_ts_ns", [COL_MATCHED] = "matched",
	[COL_COALESCED] = "coalesced", [COL_UNMATCHED_REASON] = "unmatched_reason",
	[COL_STACK] = "stack",
};

int ipt_row_resolve_all(void *ctx, const char *name)
{
	/* other spellings: the kernel's field names, the rows' column names */
	static const struct { const char *name; int col; } alias[] = {
		{ "cpu", COL_TARGET_CPU }, { "target_cpus", COL_CPUMASK }, { "targets", COL_CPUMASK },
		{ "common_pid", COL_PID }, { "ts_ns", COL_TS }, { "callsite_sym", COL_CALLSITE },
		{ "callback_sym", COL_CALLBACK }, { "func_sym", COL_FUNC },
	};

	(void)ctx;
	for (size_t i = 0; i < ARRAY_SIZE(alias); i++)
		if (!strcmp(alias[i].name, name))
			return alias[i].col;
	for (int i = 0; i < COL__ALL; i++)
		if (!strcmp(col_names[i], name))
			return i;
	return -1;
}

int ipt_row_resolve(void *ctx, const char *name)
{
	int col = ipt_row_resolve_all(ctx, name);

	return col < COL__COUNT ? col : -1;
}

/*
 * ipt_row_filter_parse - a filter over row columns; a kind or event name
 * that names no kind or IPI event is a usage error naming the valid ones
 */
struct ipt_filter *ipt_row_filter_parse(const char *expr, ipt_filter_resolve_fn resolve, void *ctx)
{
	static const char *const events[] = { "ipi_send_cpu", "ipi_send_cpumask", "ipi_raise" };
	const char *kinds[IPT_KIND__COUNT], *reasons[IPT_UNMATCHED_NO_HANDLER], *bad;
	const struct {
		int col;
		const char *const *vals;
		size_t n;
		const char *what, *noun;
	} named[] = {
		{ COL_KIND, kinds, IPT_KIND__COUNT, "kind", "kind" },
		{ COL_EVENT, events, ARRAY_SIZE(events), "event", "IPI send event" },
		{ COL_UNMATCHED_REASON, reasons, ARRAY_SIZE(reasons), "unmatched_reason", "reason" },
	};
	struct ipt_filter *f = ipt_filter_parse(expr, resolve, ctx);

	if (!f)
		return NULL;
	for (int k = 0; k < IPT_KIND__COUNT; k++)
		kinds[k] = ipt_kind_name((enum ipt_ipi_kind)k);
	for (int k = 0; k < IPT_UNMATCHED_NO_HANDLER; k++)
		reasons[k] = ipt_unmatched_reason_name((enum ipt_unmatched_reason)(k + 1));
	for (size_t c = 0; c < ARRAY_SIZE(named); c++) {
		struct ipt_strbuf list = IPT_STRBUF_INIT;

		if (!(bad = ipt_filter_unmatched_literal(f, named[c].col, named[c].vals, named[c].n)))
			continue;
		for (size_t k = 0; k < named[c].n; k++)
			ipt_strbuf_addf(&list, "%s%s", k ? ", " : "", named[c].vals[k]);
		ipt_err_code(IPT_ERR_INVALID, "filter: %s '%s' matches no %s (%s)", named[c].what, bad,
			     named[c].noun, ipt_strbuf_str(&list));
		ipt_strbuf_free(&list);
		ipt_filter_free(f);
		return NULL;
	}
	return f;
}

static void str_val(struct ipt_value *v, const char *s)
{
	if (!s) {
		v->kind = IPT_VAL_NONE;
		return;
	}
	v->kind = IPT_VAL_STR;
	v->s = s;
	v->slen = strlen(s);
}

static void addr_val(struct ipt_value *v, uint64_t addr, const char *sym, uint64_t off)
{
	v->kind = IPT_VAL_ADDR;
	v->i = addr;
	v->sym = sym;
	v->symoff = off;
}

void ipt_row_lookup(void *ctx, int id, struct ipt_value *v)
{
	const struct ipt_ipi_row *r = ctx;

	memset(v, 0, sizeof(*v));
	v->kind = IPT_VAL_INT;
	switch (id) {
	case COL_TS: v->i = r->ts; break;
	case COL_ID: v->i = r->id; break;
	case COL_SRC_CPU: v->i = (uint64_t)r->src_cpu; break;
	case COL_TARGET_CPU: v->i = (uint64_t)r->target_cpu; break;
	case COL_PID: v->i = (uint64_t)(int64_t)r->pid; v->is_signed = true; break;
	case COL_NTARGETS: v->i = r->ntargets; break;
	case COL_COMM: str_val(v, r->comm); break;
	case COL_EVENT: str_val(v, r->event); break;
	case COL_KIND: str_val(v, ipt_kind_name(r->kind)); break;
	case COL_REASON: str_val(v, r->reason); break;
	case COL_CALLSITE: addr_val(v, r->callsite, r->callsite_sym, r->callsite_off); break;
	case COL_CALLBACK: addr_val(v, r->callback, r->callback_sym, 0); break;
	case COL_FUNC: addr_val(v, r->func, r->func_sym, 0); break;
	case COL_CPUMASK: v->kind = IPT_VAL_CPUSET; v->set = r->targets; break;
	case COL_CALLSITE_FUNC: str_val(v, r->callsite ? r->callsite_sym : NULL); break;
	case COL_FUNC_NAME: str_val(v, r->func ? r->func_sym : r->callback_sym); break;
	default: v->kind = IPT_VAL_NONE; break;
	}
}
