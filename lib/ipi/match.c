// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * match.c - the matching stage: sends queued on their target until the
 * interrupt that serves them, csd calls paired by pointer, the causes of
 * interrupts that served no send (match.h)
 */
#include "ipi/match.h"
#include "ipi/csdq.h"

#include <stdlib.h>
#include <string.h>

#define QUEUE_MAX 1024		/* sends waiting on one CPU for one vector */
/* interrupts with no send, their cause decided at the end: 24 bytes each,
 * in a file past IPT_SPILL_FILE_FROM (ipt_spill), else in memory */
#define UNDECIDED_MAX_FILE (256u << 20)
#define UNDECIDED_MAX_MEMORY (2u << 20)
#define UNDECIDED_REST_EVERY ((1u << 20) / sizeof(struct undecided))

struct queue {			/* a ring, cap a power of two */
	struct ipt_match_send *v;
	size_t head, n, cap;
};

struct csd_open {
	uint64_t ts;
	bool matched;
};

/*
 * Sends whose interrupt is a guess (ipt_match_entry): link 0 is the newest
 * of several sends an interrupt found waiting (its write may have come just
 * after that interrupt was taken); each later link is the only send the
 * next interrupt of the vector found.  Either
 * every send stays with its interrupt (link 0 coalesced into the first,
 * each other raised its own: "left"), or every send raised the interrupt
 * after its own ("right", the last one the interrupt that ends the
 * chain).  Meanwhile the interrupts' handler times wait in the links, so
 * that the handler distributions count each send where it lands.
 */
#define CHAIN_MAX 16

struct link {
	struct ipt_match_send e;
	uint64_t entry_ts;		/* the interrupt it is with for now */
	uint64_t dur;			/* that interrupt's entry -> exit (UINT64_MAX: no exit yet) */
	bool exited;			/* its handler time is waiting here */
	bool others_counted;		/* that interrupt served counted sends besides it */
	uint32_t other_kinds;		/* ... of these kinds */
};

struct chain {
	struct link l[CHAIN_MAX];
	int n;
};

struct cpu_state {
	struct queue q[RPT_NCLASS];
	int open_class;			/* -1: no IPI handler running */
	uint64_t open_ts;
	bool open_counted;
	uint32_t open_kinds;		/* kinds of the counted sends it served */
	struct open_ref {		/* the sends the running handler serves */
		int64_t iso, res;
	} *open;
	size_t nopen, capopen;
	int64_t open_isu;		/* the running handler's entry in isu, or -1 */
	struct csd_open csd[8];		/* nested csd function runs */
	int ncsd;
	uint32_t drops;			/* losses seen on this CPU so far */
	uint64_t last_entry_ts[RPT_NCLASS];	/* the last interrupt of each vector */
	uint64_t last_dur[RPT_NCLASS];	/* ... its entry -> exit (UINT64_MAX: no exit yet) */
	uint64_t last_late[RPT_NCLASS];	/* ... the too-late bound at its entry (late_bound) */
	bool had_entry[RPT_NCLASS];
	struct chain *chain;		/* per vector: the sends whose interrupt is a
					 * guess; RPT_NCLASS of them, made at the
					 * CPU's first guess (NULL: none yet) */
};

/* the chain of a CPU that never guessed: empty, never written */
static const struct chain no_chain;

/* chain_at - s's chain of class cls (no_chain before its first guess) */
static struct chain *chain_at(struct cpu_state *s, int cls)
{
	return s->chain ? &s->chain[cls] : (struct chain *)&no_chain;
}

struct ipt_match {
	struct ipt_match_config cfg;
	struct cpu_state **cpu;		/* made at a CPU's first send or interrupt
					 * (state_of): most CPUs of a wide machine
					 * may have none */
	int ncpu;
	size_t capcpu, capres;
	struct ipt_csdq csd;		/* csd calls queued, not yet run (epoch: drops) */
	bool class_seen[RPT_NCLASS];	/* receive events of that class exist */
	bool has_stream[IPT_CPUSET_MAX];	/* the trace has data for that CPU */
	uint64_t *first_ts;		/* per CPU (ncpu_first): its first record, 0 none */
	int ncpu_first;
	struct lossw {			/* events were lost on a CPU between two records */
		uint64_t from, to;	/* from 0: before the CPU's first record */
	} *loss;
	size_t nloss, caploss;
	/* interrupts with no send: why is decided at the end, when every loss
	 * window and the largest latency are known */
	struct undecided {
		uint64_t ts;
		int64_t isu;		/* its entry in res.isu, or -1 */
		int32_t cpu;
		int16_t cls;
	} *und;				/* undm's bytes */
	size_t nund;
	struct ipt_spill undm;
	uint64_t max_lat;		/* the largest send -> entry latency matched */
	uint64_t min_sole;		/* the smallest latency of a send that alone
					 * raised an interrupt (UINT64_MAX: none yet) */
	uint64_t nsole;			/* ... of so many */
	struct ipt_match_results res;
};

/* state_of - the matching state of cpu (< ncpu), made the first time
 * (NULL without memory) */
static struct cpu_state *state_of(struct ipt_match *m, int cpu)
{
	struct cpu_state *s = m->cpu[cpu];

	if (s)
		return s;
	s = ipt_calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->open_class = -1;
	s->open_isu = -1;
	return m->cpu[cpu] = s;
}

/* ---- the queues of sends ---- */

static int q_push(struct queue *q, const struct ipt_match_send *e)
{
	if (q->n == q->cap) {
		size_t old = q->cap;

		/* doubled (a power of two still); the wrapped part [0, head)
		 * goes after the old end, so that the ring reads on in order */
		if (IPT_GROW(q->v, q->cap, q->n + 1))
			return -1;
		memcpy(q->v + old, q->v, q->head * sizeof(*q->v));
	}
	q->v[(q->head + q->n++) & (q->cap - 1)] = *e;	/* cap: a power of two */
	return 0;
}

static struct ipt_match_send *q_pop(struct queue *q)
{
	struct ipt_match_send *e;

	if (!q->n)
		return NULL;
	e = &q->v[q->head];
	q->head = (q->head + 1) & (q->cap - 1);
	q->n--;
	return e;
}

/* unmatched - send e will not be matched, for this reason */
static void unmatched(struct ipt_match *m, const struct ipt_match_send *e, enum rpt_res_state why)
{
	struct rpt_unmatched *u = &m->res.unmatched;

	if (!e->counted)
		return;
	if (e->res >= 0)
		ipt_rowres_unmatched(m->cfg.rows, e->res, why);
	switch (why) {
	case RES_TRACE_ENDED: u->trace_ended++; break;
	case RES_NO_RECEIVE_EVENTS: u->no_receive_events++; break;
	case RES_LOST_EVENTS: u->lost_events++; break;
	case RES_NO_HANDLER: u->no_handler++; break;
	default: break;
	}
}

/* ipt_match_send - a send to target, queued until an interrupt of class cls */
int ipt_match_send(struct ipt_match *m, int target, int cls, const struct ipt_match_send *e)
{
	struct cpu_state *s;
	struct queue *q;

	if (cls < 0 || cls >= RPT_NCLASS)
		return 0;	/* no vector to match on (too many arm64 reasons): unknown */
	m->res.cpu[target].sends[cls]++;
	if (!m->has_stream[target]) {
		/* nothing was recorded on the target CPU: no handler can show up */
		unmatched(m, e, RES_NO_RECEIVE_EVENTS);
		return 0;
	}
	s = state_of(m, target);
	if (!s)
		return -1;
	q = &s->q[cls];
	/* memory stays bounded: the oldest of too many waiting sends are
	 * given up on (a real handler serves them within microseconds) */
	if (q->n >= QUEUE_MAX)
		unmatched(m, q_pop(q), RES_NO_HANDLER);
	return q_push(q, e);
}

bool ipt_match_has_stream(const struct ipt_match *m, int cpu)
{
	return cpu >= 0 && cpu < IPT_CPUSET_MAX && m->has_stream[cpu];
}

int ipt_match_send_unreceived(struct ipt_match *m, int target, const uint64_t sends[RPT_NCLASS],
			      uint64_t counted)
{
	if (target < 0 || target >= m->res.ncpu || m->has_stream[target])
		return ipt_err_code(IPT_ERR_INVALID, "match: unreceived sends to CPU %d", target);
	for (int k = 0; k < RPT_NCLASS; k++)
		m->res.cpu[target].sends[k] += sends[k];
	m->res.unmatched.no_receive_events += counted;
	return 0;
}

/* ---- interrupts ---- */

static bool cross(const struct ipt_match *m, int a, int b)
{
	return a == b || m->cfg.cross_ok;
}

/* open_add - the running handler on s serves this send too */
static int open_add(struct cpu_state *s, const struct ipt_match_send *e)
{
	if (IPT_GROW(s->open, s->capopen, s->nopen + 1))
		return -1;
	s->open[s->nopen++] = (struct open_ref){ e->iso, e->res };
	return 0;
}

/* serve - the interrupt at ts on cpu serves send e (open: it is the running
 * one; coalesced: it served an earlier send) */
static int serve(struct ipt_match *m, int cpu, const struct ipt_match_send *e, uint64_t ts, bool open,
		 bool coalesced)
{
	struct cpu_state *s = state_of(m, cpu);
	struct ipt_match_cpu *c = &m->res.cpu[cpu];
	uint64_t lat = ts >= e->ts ? ts - e->ts : 0;

	if (!s)
		return -1;
	if (lat > m->max_lat)
		m->max_lat = lat;
	c->matched++;
	if (e->src != cpu) {
		c->remote_matched++;
		m->res.remote_matched++;
	}
	if (open) {
		s->open_counted = true;
		s->open_kinds |= 1u << e->kind;
	}
	if (cross(m, e->src, cpu) && hist_add(&c->lat, lat))
		return -1;
	if (m->cfg.kind_distributions && cross(m, e->src, cpu) &&
	    hist_add_log(&m->res.kind_lat[e->kind], lat))
		return -1;
	if (coalesced)
		c->coalesced++;
	if (e->iso >= 0) {
		struct ipt_report_isolated *iso = &(*m->cfg.iso)[e->iso];

		iso->matched = true;
		if (cross(m, e->src, cpu))
			iso->latency = (int64_t)lat;
	}
	if (e->res >= 0 && ipt_rowres_matched(m->cfg.rows, e->res, coalesced, e->ts, ts))
		return -1;
	return open && (e->iso >= 0 || e->res >= 0) ? open_add(s, e) : 0;
}

/* unsent - interrupt (cpu, cls) at ts served no send: its cause is decided
 * at the end (decide_unsent), and it is listed when cpu is isolated */
static int unsent(struct ipt_match *m, int cpu, int cls, uint64_t ts, int32_t pid)
{
	struct ipt_match_results *r = &m->res;
	int64_t isu = -1;

	if (m->cfg.isolated && ipt_cpuset_has(m->cfg.isolated, (unsigned int)cpu)) {
		if (IPT_GROW(r->isu, r->capisu, r->nisu + 1))
			return -1;
		r->isu[r->nisu] = (struct ipt_report_isolated_unsent){ ts, cpu, pid,
			ipt_class_name(m->cfg.classes, cls), IPT_UNSENT_UNKNOWN, -1 };
		isu = (int64_t)r->nisu++;
		m->cpu[cpu]->open_isu = isu;
	}
	if (m->cfg.sends_filtered || m->nund >= (m->undm.in_file ? UNDECIDED_MAX_FILE : UNDECIDED_MAX_MEMORY)) {
		/* filtered: the recording left sends out; past the bound: no
		 * memory kept to decide it */
		enum ipt_unsent_cause why = m->cfg.sends_filtered ? IPT_UNSENT_FILTERED : IPT_UNSENT_UNKNOWN;

		r->cpu[cpu].unsent[cls][why]++;
		if (isu >= 0)
			r->isu[isu].cause = why;
		return 0;
	}
	m->undm.what = "interrupts with no send";
	if (ipt_spill_reserve(&m->undm, (m->nund + 1) * sizeof(*m->und)))
		return -1;
	m->und = (struct undecided *)m->undm.p;
	m->und[m->nund++] = (struct undecided){ ts, isu, cpu, (int16_t)cls };
	/* read again only at the end (decide_unsent): out of memory till then */
	if (m->nund % UNDECIDED_REST_EVERY == 0)
		ipt_spill_rest(&m->undm, 0, m->nund * sizeof(*m->und));
	return 0;
}

static int cmp_loss(const void *a, const void *b)
{
	const struct lossw *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

/* loss_covers - whether a loss window (merged, sorted, disjoint) meets [lo, hi] */
static bool loss_covers(const struct lossw *w, size_t n, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = n;

	/* the first window that ends after lo */
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (w[mid].to <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a < n && w[a].from < hi;
}

/*
 * decide_unsent - why each interrupt with no send served none: a loss
 * window of any CPU meets [entry - the largest latency matched, entry]
 * (the send may be among the events lost: lost_events); else a CPU whose
 * first record, not after a drop mark, comes after the entry was not
 * recording yet (before_trace_start); else the send events do not cover
 * the kernel path that sent it (untraced_path)
 */
static int decide_unsent(struct ipt_match *m)
{
	struct undecided chunk[2048];
	uint64_t not_recording = 0;	/* the last first record not after a loss */
	size_t n = 0;

	for (int c = 0; c < m->ncpu_first; c++) {
		bool lost_first = false;

		for (size_t i = 0; i < m->nloss && !lost_first; i++)
			lost_first = !m->loss[i].from && m->loss[i].to == m->first_ts[c];
		if (!lost_first && m->first_ts[c] > not_recording)
			not_recording = m->first_ts[c];
	}
	/* the windows of all CPUs, merged: only whether any meets matters */
	if (m->nloss)
		qsort(m->loss, m->nloss, sizeof(*m->loss), cmp_loss);
	for (size_t i = 0; i < m->nloss; i++) {
		if (n && m->loss[i].from <= m->loss[n - 1].to) {
			if (m->loss[i].to > m->loss[n - 1].to)
				m->loss[n - 1].to = m->loss[i].to;
		} else {
			m->loss[n++] = m->loss[i];
		}
	}
	m->nloss = n;
	for (size_t i = 0; i < m->nund; i++) {
		const struct undecided *u = &chunk[i % ARRAY_SIZE(chunk)];
		uint64_t lo;
		enum ipt_unsent_cause why;

		/* read in chunks, not through the mapping (ipt_spill_read) */
		if (i % ARRAY_SIZE(chunk) == 0 &&
		    ipt_spill_read(&m->undm, i * sizeof(*u), chunk,
				   (m->nund - i < ARRAY_SIZE(chunk) ? m->nund - i : ARRAY_SIZE(chunk)) * sizeof(*u)))
			return -1;
		lo = u->ts > m->max_lat ? u->ts - m->max_lat : 0;

		if (loss_covers(m->loss, m->nloss, lo, u->ts))
			why = IPT_UNSENT_LOST_EVENTS;
		else if (u->ts < not_recording)
			why = IPT_UNSENT_BEFORE_START;
		else
			why = IPT_UNSENT_UNTRACED;
		m->res.cpu[u->cpu].unsent[u->cls][why]++;
		if (u->isu >= 0)
			m->res.isu[u->isu].cause = why;
	}
	m->nund = 0;
	return 0;
}

/* handler_dist - the handler time dur of an interrupt that served counted
 * sends of these kinds (none: not counted) */
static int handler_dist(struct ipt_match *m, int cpu, uint64_t dur, bool counted, uint32_t kinds)
{
	if (!counted)
		return 0;
	for (int k = 0; m->cfg.kind_distributions && k < IPT_KIND__COUNT; k++)
		if ((kinds & (1u << k)) && hist_add_log(&m->res.kind_hdl[k], dur))
			return -1;
	return hist_add(&m->res.cpu[cpu].handler, dur);
}

/* link_served - the send of link k was served by interrupt (ts, dur) */
static int link_served(struct ipt_match *m, int cpu, const struct ipt_match_send *e, uint64_t ts, uint64_t dur,
		       bool coalesced)
{
	if (!e->counted)
		return 0;
	if (serve(m, cpu, e, ts, false, coalesced))
		return -1;
	if (dur != UINT64_MAX) {
		if (e->res >= 0 && ipt_rowres_set_hdur(m->cfg.rows, e->res, dur))
			return -1;
		if (e->iso >= 0)
			(*m->cfg.iso)[e->iso].handler = (int64_t)dur;
	}
	return 0;
}

/* link_handler - interrupt k of the chain served these counted sends: its
 * handler time, and whether it served any */
static int link_handler(struct ipt_match *m, int cpu, const struct link *l, bool counted, uint32_t kinds)
{
	if (!counted)
		m->res.cpu[cpu].handlers_unattributed++;
	return l->exited ? handler_dist(m, cpu, l->dur, counted, kinds) : 0;
}

static uint32_t kind_bit(const struct ipt_match_send *e)
{
	return e->counted ? 1u << e->kind : 0;
}

/* chain_left - every send of the chain stays with its interrupt */
static int chain_left(struct ipt_match *m, int cpu, struct chain *ch)
{
	for (int k = 0; k < ch->n; k++) {
		const struct link *l = &ch->l[k];

		if (link_served(m, cpu, &l->e, l->entry_ts, l->dur, k == 0) ||
		    link_handler(m, cpu, l, l->others_counted || l->e.counted, l->other_kinds | kind_bit(&l->e)))
			return -1;
	}
	ch->n = 0;
	return 0;
}

/* chain_right - every send of the chain raised the interrupt after its own;
 * the last one the interrupt at ts, running now */
static int chain_right(struct ipt_match *m, int cpu, struct chain *ch, uint64_t ts)
{
	const struct link *l = &ch->l[0];
	const struct ipt_match_send *last = &ch->l[ch->n - 1].e;

	if (link_handler(m, cpu, l, l->others_counted, l->other_kinds))
		return -1;
	for (int k = 1; k < ch->n; k++) {
		const struct ipt_match_send *e = &ch->l[k - 1].e;

		l = &ch->l[k];
		if (link_served(m, cpu, e, l->entry_ts, l->dur, false) ||
		    link_handler(m, cpu, l, e->counted, kind_bit(e)))
			return -1;
	}
	ch->n = 0;
	return last->counted ? serve(m, cpu, last, ts, true, false) : 0;
}

/* the sends that alone raised an interrupt before their quickest delivery
 * is taken as known (a minimum of a few is too high) */
#define SOLE_MIN 64

/* late_bound - a send traced less than this before an entry now was written
 * after that interrupt was taken: half the quickest delivery seen so far (a
 * send that alone raised an interrupt), 0 before SOLE_MIN were seen */
static uint64_t late_bound(const struct ipt_match *m)
{
	return m->nsole >= SOLE_MIN ? m->min_sole / 2 : 0;
}

/* too_late - send e was traced so shortly before the entry at ts that its
 * write cannot have come before that interrupt was taken (bound: late_bound
 * at that entry) */
static bool too_late(const struct ipt_match_send *e, uint64_t ts, uint64_t bound)
{
	return ts - e->ts < bound;
}

/*
 * ipt_match_entry - an IPI interrupt starts on cpu.  The send tracepoint
 * fires before the write to the interrupt controller, and a vector is
 * pending at most once per CPU: every send traced before this entry whose
 * write was done when the interrupt was taken is served by it, the oldest
 * having raised it and the others coalesced into it.  What is decided at
 * each interrupt, from the sends waiting (rules named in docs/matching.md):
 *  - a send traced less than half the quickest delivery seen before the
 *    entry was written after the interrupt was taken: it waits for the
 *    next interrupt of the vector (too_late);
 *  - of several sends, the newest may also have been written just after
 *    (a guess; on a virtual machine tens of us were seen between a send's
 *    tracepoint and its delivery): it is held, and the next interrupt of
 *    the vector takes it if nothing else was sent in between; if that one
 *    found a single send, the guess goes on (struct chain); else it
 *    coalesced here.
 * A wrong guess moves that one send by one interrupt: the sends after it
 * are matched afresh at each interrupt.
 */
static int entry_on(struct ipt_match *m, struct cpu_state *s, int cpu, int cls, uint64_t ts, int32_t pid)
{
	struct ipt_match_cpu *c = &m->res.cpu[cpu];
	bool call = cls == CLS_CALL || cls == CLS_CALL_SINGLE;
	/* a function-call vector serves its own sends, else those of either */
	int qc = call && !s->q[cls].n && s->q[CLS_CALL_ANY].n ? CLS_CALL_ANY : cls;
	struct queue *q = &s->q[qc];
	struct chain *ch = chain_at(s, cls);
	bool any = false, counted = false;
	uint64_t bound = late_bound(m);
	size_t n = 0;

	m->class_seen[cls] = true;
	c->entries[cls]++;
	if (call) {
		m->class_seen[CLS_CALL_ANY] = true;
		s->had_entry[CLS_CALL_ANY] = true;
		s->last_entry_ts[CLS_CALL_ANY] = ts;
		s->last_dur[CLS_CALL_ANY] = UINT64_MAX;
		s->last_late[CLS_CALL_ANY] = bound;
	}
	c->handlers++;
	s->open_class = cls;
	s->open_ts = ts;
	s->open_counted = false;
	s->open_kinds = 0;
	s->nopen = 0;
	s->open_isu = -1;
	s->had_entry[cls] = true;
	s->last_entry_ts[cls] = ts;
	s->last_dur[cls] = UINT64_MAX;
	s->last_late[cls] = bound;
	/* the sends this interrupt can serve: those not too late for it */
	while (n < q->n && !too_late(&q->v[(q->head + n) & (q->cap - 1)], ts, bound))
		n++;
	/* nothing else can have raised it (no send in time, no guess held):
	 * the sends found too late did, quicker than the quickest seen */
	if (!n && !ch->n)
		n = q->n;
	if (ch->n) {
		if (!n) {		/* nothing else sent since: it raised this one */
			counted = ch->l[ch->n - 1].e.counted;
			any = true;
			if (chain_right(m, cpu, ch, ts))
				return -1;
		} else if (n == 1 && ch->n < CHAIN_MAX) {
			/* the only send since, itself just before: the chain goes on */
			ch->l[ch->n++] = (struct link){ .e = *q_pop(q), .entry_ts = ts, .dur = UINT64_MAX };
			return 0;
		} else if (chain_left(m, cpu, ch)) {
			return -1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct ipt_match_send *e = q_pop(q);

		if (i == n - 1 && n > 1) {
			/* the newest of several, just before: a guess (struct chain) */
			if (!s->chain && !(s->chain = ipt_calloc(RPT_NCLASS, sizeof(*s->chain))))
				return -1;
			ch = &s->chain[cls];
			ch->l[0] = (struct link){ .e = *e, .entry_ts = ts, .dur = UINT64_MAX,
						  .others_counted = counted };
			ch->n = 1;
			return 0;
		}
		/* the quickest delivery: a send alone in raising it */
		if (n == 1 && !any && cross(m, e->src, cpu)) {
			m->nsole++;
			if (ts - e->ts < m->min_sole)
				m->min_sole = ts - e->ts;
		}
		if (e->counted) {
			if (serve(m, cpu, e, ts, true, any))
				return -1;
			counted = true;
		}
		any = true;
	}
	if (!counted)
		c->handlers_unattributed++;
	return any ? 0 : unsent(m, cpu, cls, ts, pid);
}

/* ipt_match_exit - the IPI interrupt running on cpu ends: its time to the
 * sends it served (and to the one it holds, when that is decided) */
static int exit_on(struct ipt_match *m, struct cpu_state *s, int cpu, int cls, uint64_t ts)
{
	struct chain *ch = chain_at(s, cls);
	struct link *l = ch->n ? &ch->l[ch->n - 1] : NULL;
	uint64_t dur;

	if (s->open_class != cls)
		return 0;
	s->open_class = -1;
	dur = ts >= s->open_ts ? ts - s->open_ts : 0;
	/* for sends found coalesced into this interrupt at the end */
	s->last_dur[cls] = dur;
	if (cls == CLS_CALL || cls == CLS_CALL_SINGLE)
		s->last_dur[CLS_CALL_ANY] = dur;
	if (s->open_isu >= 0)
		m->res.isu[s->open_isu].handler = (int64_t)dur;
	s->open_isu = -1;
	for (size_t i = 0; i < s->nopen; i++) {
		if (s->open[i].iso >= 0)
			(*m->cfg.iso)[s->open[i].iso].handler = (int64_t)dur;
		if (s->open[i].res >= 0 && ipt_rowres_set_hdur(m->cfg.rows, s->open[i].res, dur))
			return -1;
	}
	s->nopen = 0;
	if (l && l->entry_ts == s->open_ts && !l->exited) {
		/* counted where the chain's sends land (chain_left, chain_right) */
		l->dur = dur;
		l->exited = true;
		l->other_kinds = s->open_kinds;
		return 0;
	}
	return handler_dist(m, cpu, dur, s->open_counted, s->open_kinds);
}

int ipt_match_entry(struct ipt_match *m, int cpu, int cls, uint64_t ts, int32_t pid)
{
	struct cpu_state *s = state_of(m, cpu);

	return s ? entry_on(m, s, cpu, cls, ts, pid) : -1;
}

int ipt_match_exit(struct ipt_match *m, int cpu, int cls, uint64_t ts)
{
	struct cpu_state *s = m->cpu[cpu];	/* none yet: no interrupt is running there */

	return s ? exit_on(m, s, cpu, cls, ts) : 0;
}

/*
 * ipt_match_drop - events were lost on cpu just before its next record: a
 * send waiting there may have had its interrupt in the gap, so it is not
 * matched to a later one (unmatched: lost events); a handler or csd run
 * open there may have ended in the gap; csd calls queued for it before
 * are not paired with runs after (their drop epoch differs)
 */
int ipt_match_drop(struct ipt_match *m, int cpu, uint64_t from, uint64_t ts)
{
	struct cpu_state *s = state_of(m, cpu);

	if (!s || IPT_GROW(m->loss, m->caploss, m->nloss + 1))
		return -1;
	m->loss[m->nloss++] = (struct lossw){ from, ts };
	s->open_isu = -1;
	s->drops++;
	for (int k = 0; k < RPT_NCLASS; k++) {
		struct ipt_match_send *e;

		/* the next interrupt after the gap cannot tell: they stay */
		if (chain_at(s, k)->n && chain_left(m, cpu, chain_at(s, k)))
			return -1;
		while ((e = q_pop(&s->q[k])))
			unmatched(m, e, RES_LOST_EVENTS);
		s->had_entry[k] = false;
	}
	s->open_class = -1;
	s->nopen = 0;
	s->ncsd = 0;
	return 0;
}

/* ---- csd calls by pointer (csdq.h) ---- */

/* ipt_match_csd_queue - a csd call queued from src for target */
int ipt_match_csd_queue(struct ipt_match *m, uint64_t csd, uint64_t ts, int src, int target)
{
	struct ipt_csd_call c = { .csd = csd, .ts = ts, .src = src, .target = target,
				  /* no state yet: nothing lost there */
				  .epoch = m->cpu[target] ? m->cpu[target]->drops : 0 };

	return ipt_csdq_put(&m->csd, &c);
}

/* ipt_match_csd_entry - a csd function starts on cpu: the call queued for it */
int ipt_match_csd_entry(struct ipt_match *m, int cpu, uint64_t csd, uint64_t ts)
{
	struct cpu_state *s = state_of(m, cpu);
	struct ipt_match_cpu *c = &m->res.cpu[cpu];
	struct ipt_csd_call q;
	bool paired;

	if (!s)
		return -1;
	paired = csd && ipt_csdq_take(&m->csd, csd, cpu, &q);
	if (paired && q.epoch != s->drops) {
		paired = false;	/* queued before events were lost here: not paired */
		m->res.csd_set_aside++;
	}
	if (paired) {
		c->csd_runs++;
		if (cross(m, q.src, cpu) && hist_add(&c->csd_q2r, ts >= q.ts ? ts - q.ts : 0))
			return -1;
	}
	if (s->ncsd < (int)ARRAY_SIZE(s->csd)) {
		s->csd[s->ncsd].ts = ts;
		s->csd[s->ncsd].matched = paired;
	}
	s->ncsd++;
	return 0;
}

/* ipt_match_csd_exit - the innermost csd function running on cpu ends */
int ipt_match_csd_exit(struct ipt_match *m, int cpu, uint64_t ts)
{
	struct cpu_state *s = m->cpu[cpu];	/* none yet: no csd function ran */

	if (s && s->ncsd > 0 && --s->ncsd < (int)ARRAY_SIZE(s->csd) && s->csd[s->ncsd].matched)
		return hist_add(&m->res.cpu[cpu].csd_run, ts - s->csd[s->ncsd].ts);
	return 0;
}

/* ---- the end ---- */

/* ipt_match_end - sends left in the queues: coalesced into the last
 * interrupt, or why they were not matched */
int ipt_match_end(struct ipt_match *m, int ncpu, const struct ipt_match_end *cpu)
{
	for (int c = 0; c < m->ncpu_first; c++)
		m->first_ts[c] = c < ncpu && m->has_stream[c] ? cpu[c].first_ts : 0;
	for (int c = 0; c < ncpu; c++) {
		struct cpu_state *s = m->cpu[c];

		if (!s)
			continue;	/* no send to it was queued, no interrupt ran there */
		for (int k = 0; k < RPT_NCLASS; k++) {
			struct ipt_match_send *e;

			/* no interrupt of the vector came after: they stay */
			if (chain_at(s, k)->n && chain_left(m, c, chain_at(s, k)))
				return -1;
			while ((e = q_pop(&s->q[k]))) {
				if (!e->counted)
					continue;
				/* too late for the last interrupt by the bound at its
				 * entry: that interrupt found it too late (it may have
				 * counted as one with no send), and none came after */
				if (s->had_entry[k] && e->ts <= s->last_entry_ts[k] &&
				    !too_late(e, s->last_entry_ts[k], s->last_late[k])) {
					/* coalesced into the last interrupt of the vector */
					if (serve(m, c, e, s->last_entry_ts[k], false, true))
						return -1;
					/* that interrupt's time, for the rows and the list */
					if (s->last_dur[k] != UINT64_MAX && e->res >= 0 &&
					    ipt_rowres_set_hdur(m->cfg.rows, e->res, s->last_dur[k]))
						return -1;
					if (s->last_dur[k] != UINT64_MAX && e->iso >= 0)
						(*m->cfg.iso)[e->iso].handler = (int64_t)s->last_dur[k];
					continue;
				}
				if (!m->cfg.have_receive || !m->class_seen[k])
					unmatched(m, e, RES_NO_RECEIVE_EVENTS);
				else if (cpu[c].lost)
					unmatched(m, e, RES_LOST_EVENTS);
				else if (e->ts >= cpu[c].last_ts)
					unmatched(m, e, RES_TRACE_ENDED);
				else
					unmatched(m, e, RES_NO_HANDLER);
			}
		}
	}
	if (decide_unsent(m))
		return -1;
	m->res.csd_given_up = m->csd.given_up;
	/* read only from here on */
	for (int c = 0; c < m->res.ncpu; c++) {
		hist_finish(&m->res.cpu[c].lat);
		hist_finish(&m->res.cpu[c].handler);
		hist_finish(&m->res.cpu[c].csd_q2r);
		hist_finish(&m->res.cpu[c].csd_run);
	}
	for (int k = 0; k < IPT_KIND__COUNT; k++) {
		hist_finish(&m->res.kind_lat[k]);
		hist_finish(&m->res.kind_hdl[k]);
	}
	m->cfg.isolated = NULL;		/* the caller's: not kept */
	return 0;
}

const struct ipt_match_results *ipt_match_results(const struct ipt_match *m)
{
	return &m->res;
}

/* ---- the stage itself ---- */

/* first_stamps - room for the first record's time of each CPU with data
 * (before it, that CPU was not recording: a send from it could not be
 * traced), given at the end of the feed (ipt_match_end) by the producers,
 * which see every record: reading each CPU's first block here, before the
 * pass, cost 2 ms of a 150 ms report at 256 CPUs, more with more CPUs */
static int first_stamps(struct ipt_match *m)
{
	int n = 0;

	for (int c = 0; c < IPT_CPUSET_MAX; c++)
		if (m->has_stream[c])
			n = c + 1;
	if (!n)
		return 0;
	m->first_ts = ipt_calloc((size_t)n, sizeof(*m->first_ts));
	if (!m->first_ts)
		return -1;
	m->ncpu_first = n;
	return 0;
}

struct ipt_match *ipt_match_new(struct ipt_trace *t, const struct ipt_match_config *cfg)
{
	struct ipt_match *m = ipt_calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->cfg = *cfg;
	m->min_sole = UINT64_MAX;
	for (int i = 0; i < t->nstreams; i++)
		if (t->streams[i].size)
			m->has_stream[t->streams[i].cpu] = true;
	if (first_stamps(m)) {
		ipt_match_free(m);
		return NULL;
	}
	return m;
}

int ipt_match_cpus(struct ipt_match *m, int n)
{
	if (n <= m->ncpu)
		return 0;
	if (IPT_GROW_ZERO(m->cpu, m->capcpu, n))
		return -1;
	m->ncpu = n;	/* the states are ready: freed whatever follows */
	if (IPT_GROW_ZERO(m->res.cpu, m->capres, n))
		return -1;
	m->res.ncpu = n;
	return 0;
}

void ipt_match_free(struct ipt_match *m)
{
	if (!m)
		return;
	for (int c = 0; c < m->ncpu; c++) {
		if (!m->cpu[c])
			continue;
		for (int k = 0; k < RPT_NCLASS; k++)
			free(m->cpu[c]->q[k].v);
		free(m->cpu[c]->open);
		free(m->cpu[c]->chain);
		free(m->cpu[c]);
	}
	free(m->cpu);
	for (int c = 0; c < m->res.ncpu; c++) {
		hist_free(&m->res.cpu[c].lat);
		hist_free(&m->res.cpu[c].handler);
		hist_free(&m->res.cpu[c].csd_q2r);
		hist_free(&m->res.cpu[c].csd_run);
	}
	free(m->res.cpu);
	for (int k = 0; k < IPT_KIND__COUNT; k++) {
		hist_free(&m->res.kind_lat[k]);
		hist_free(&m->res.kind_hdl[k]);
	}
	free(m->res.isu);
	ipt_csdq_free(&m->csd);
	free(m->loss);
	ipt_spill_free(&m->undm);
	free(m->first_ts);
	free(m);
}
