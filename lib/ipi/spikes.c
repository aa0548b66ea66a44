// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * spikes.c - latency spikes and the IPIs inside them (ipitrace explain,
 * first cut; issue 39 item 3)
 *
 * A spike is a timerlat sample of the thread context: on its CPU, the
 * thread woke timer_latency ns after its timer was due, so it covers
 * [ts - timer_latency, ts].  Or an osnoise:sample_threshold: a gap of
 * duration ns in the osnoise tracer's loop, written as the loop sees the
 * gap's end; its start field is in the kernel's local clock, not the
 * trace's, so it covers [ts - duration, ts] (as the noise events are
 * placed by their ends).  Chosen: every sample over opts.threshold_ns,
 * else the worst opts.worst per CPU.  Then one report run with its row
 * results (matching: which interrupt on the target served each send) and
 * the rows again: every served send whose interrupt entered on a spike's
 * CPU inside its window is listed under it, with its handler time once
 * per interrupt (coalesced sends share one) and its sender.  Then the
 * trace once more for the osnoise:* noise events: each under the spikes of
 * its CPU whose window holds its end (see ipitrace-private.h), the IPI
 * interrupts tied to their irq_noise, and the sums.
 */
#include "core/core.h"
#include "ipi/csdq.h"

#include <stdlib.h>
#include <string.h>

struct ipt_spikes {
	struct ipt_spike *s;
	size_t n, cap;
	uint64_t csd_given_up;		/* csd calls queued, forgotten unpaired (csdq.h) */
};

/* field - an unsigned field of a record, or def */
static uint64_t field(const struct ipt_trace *t, const struct ipt_record *r, const struct ipt_field *f,
		      uint64_t def)
{
	uint64_t v;

	return f && !ipt_field_u64(t, r, f, &v) ? v : def;
}

static int by_latency_desc(const void *a, const void *b)
{
	const struct ipt_spike *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->latency_ns != y->latency_ns)
		return x->latency_ns > y->latency_ns ? -1 : 1;
	return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

static int by_start(const void *a, const void *b)
{
	const struct ipt_spike *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* samples - the thread samples and osnoise samples chosen, sorted by (CPU, start) */
static int samples(struct ipt_trace *t, const struct ipt_spikes_opts *o, struct ipt_spikes *sp)
{
	const struct ipt_event *ev = ipt_trace_find_event(t, "ftrace", "timerlat");
	const struct ipt_event *st = ipt_trace_find_event(t, "osnoise", "sample_threshold");
	const struct ipt_field *fseq = NULL, *fctx = NULL, *flat = NULL, *fdur = NULL, *fint = NULL;
	static const char none[] = "the trace has no timerlat samples and no osnoise sample_threshold events "
				   "(record --timerlat, --osnoise)";
	struct ipt_iter *it;
	struct ipt_record r;
	uint64_t seen = 0;
	int rc;

	if (ev) {
		fseq = ipt_event_field(ev, "seqnum");
		fctx = ipt_event_field(ev, "context");
		flat = ipt_event_field(ev, "timer_latency");
		if (!fctx || !flat)
			return ipt_err_code(IPT_ERR_INVALID, "timerlat: a format without context and timer_latency");
	}
	if (st) {
		fdur = ipt_event_field(st, "duration");
		fint = ipt_event_field(st, "interference");
		if (!fdur)
			st = NULL;
	}
	if (!ev && !st)
		return ipt_err_code(IPT_ERR_INVALID, none);
	it = ipt_iter_new(t, NULL);
	if (!it)
		return -1;
	while ((rc = ipt_iter_next(it, &r)) > 0) {
		struct ipt_spike *s;
		uint64_t lat;
		bool osn = st && r.event == st;

		if (!osn && (!ev || r.event != ev))
			continue;
		seen++;
		if (!osn && field(t, &r, fctx, 0) != 1)
			continue;
		lat = field(t, &r, osn ? fdur : flat, 0);
		if (o->threshold_ns && lat <= o->threshold_ns)
			continue;
		if (IPT_GROW_ZERO(sp->s, sp->cap, sp->n + 1)) {
			rc = -1;
			break;
		}
		s = &sp->s[sp->n++];
		s->cpu = r.cpu;
		s->ts_ns = r.ts;
		s->latency_ns = lat;
		s->start_ns = r.ts > lat ? r.ts - lat : 0;
		s->osnoise = osn;
		if (osn)
			s->interference = (uint32_t)field(t, &r, fint, 0);
		else
			s->seq = (uint32_t)field(t, &r, fseq, 0);
	}
	ipt_iter_free(it);
	if (rc < 0)
		return -1;
	if (!seen)
		return ipt_err_code(IPT_ERR_INVALID, none);
	if (!sp->n)
		return 0;
	if (!o->threshold_ns && o->worst > 0) {	/* the worst per CPU */
		size_t k = 0;

		qsort(sp->s, sp->n, sizeof(*sp->s), by_latency_desc);
		for (size_t i = 0, rank = 0; i < sp->n; i++) {
			rank = i && sp->s[i].cpu == sp->s[i - 1].cpu ? rank + 1 : 0;
			if (rank < (size_t)o->worst)
				sp->s[k++] = sp->s[i];
		}
		sp->n = k;
	}
	qsort(sp->s, sp->n, sizeof(*sp->s), by_start);
	return 0;
}

/* add_ipi - one served send under spike s (strings copied) */
static int add_ipi(const struct ipt_trace *t, struct ipt_spike *s, const struct ipt_ipi_row *row,
		   const struct ipt_row_match *m)
{
	struct ipt_spike_ipi *ip;
	size_t cap = s->nipis;	/* grown one at a time: few per spike */
	bool seen = false;
	char fn[256];

	for (size_t i = 0; i < s->nipis; i++)
		seen |= s->ipis[i].entry_ns == m->handler_ts_ns;
	if (IPT_GROW_ZERO(s->ipis, cap, s->nipis + 1))
		return -1;
	ip = &s->ipis[s->nipis];
	ip->send_ns = row->ts;
	ip->entry_ns = m->handler_ts_ns;
	ip->has_handler = m->has_handler;
	ip->handler_ns = m->has_handler ? m->handler_ns : 0;
	ip->coalesced = seen;
	ip->src_cpu = row->src_cpu;
	ip->pid = row->pid;
	ip->kind = row->kind;
	ip->callsite_off = row->callsite_off;
	ip->comm = strdup(row->comm ? row->comm : "");
	ip->callsite = row->callsite_sym ? strdup(row->callsite_sym) : NULL;
	ipt_trace_format_function(t, row->func ? row->func : row->callback, fn, sizeof(fn));
	ip->func = strdup(fn);
	if (m->stack && m->stack->nframes) {
		ip->stack = malloc(m->stack->nframes * sizeof(*ip->stack));
		if (ip->stack) {
			memcpy(ip->stack, m->stack->frames, m->stack->nframes * sizeof(*ip->stack));
			ip->nstack = m->stack->nframes;
		}
	}
	if (!ip->comm || (row->callsite_sym && !ip->callsite) || !ip->func || (m->stack && m->stack->nframes && !ip->stack)) {
		free(ip->comm);
		free(ip->callsite);
		free(ip->func);
		free(ip->stack);
		return ipt_err_code(IPT_ERR_NOMEM, "out of memory");
	}
	ip->noise = -1;
	s->nipis++;
	if (!seen)
		s->ipi_ns += ip->handler_ns;
	return 0;
}

/* place - the row under every spike whose window holds its interrupt */
static int place(const struct ipt_trace *t, struct ipt_spikes *sp, const struct ipt_ipi_row *row,
		 const struct ipt_row_match *m)
{
	size_t lo = 0, hi = sp->n;
	uint64_t at = m->handler_ts_ns;

	/* the first spike of the row's CPU starting after the entry */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ipt_spike *s = &sp->s[mid];

		if (s->cpu < row->target_cpu || (s->cpu == row->target_cpu && s->start_ns <= at))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* windows of one CPU rarely overlap: look back a few */
	for (size_t k = lo, n = 0; k-- > 0 && n < 8; n++) {
		struct ipt_spike *s = &sp->s[k];

		if (s->cpu != row->target_cpu)
			break;
		if (at >= s->start_ns && at <= s->ts_ns && add_ipi(t, s, row, m))
			return -1;
	}
	return 0;
}

const char *ipt_spike_noise_kind_name(enum ipt_spike_noise_kind k)
{
	static const char *const names[] = { "irq", "softirq", "nmi", "thread" };

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

/* the softirq names of include/linux/interrupt.h, by vector */
static const char *softirq_name(uint64_t v)
{
	static const char *const names[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL",
					     "TASKLET", "SCHED", "HRTIMER", "RCU" };

	return v < sizeof(names) / sizeof(names[0]) ? names[v] : NULL;
}

/* one kind of noise event and its fields */
struct noise_ev {
	const struct ipt_event *ev;
	enum ipt_spike_noise_kind kind;
	const struct ipt_field *dur, *name, *num;
};

/* text_field - a char[] or __string field as text (NUL-ended, cut to n - 1) */
static void text_field(const struct ipt_trace *t, const struct ipt_record *r, const struct ipt_field *f,
		       char *buf, size_t n)
{
	const uint8_t *d;
	uint32_t len, k = 0;

	buf[0] = 0;
	if (!f || ipt_field_bytes(t, r, f, &d, &len))
		return;
	for (; k < len && k + 1 < n && d[k]; k++)
		buf[k] = (char)(d[k] >= 0x20 && d[k] < 0x7f ? d[k] : '?');
	buf[k] = 0;
}

/* add_noise - one noise event under spike s */
static int add_noise(struct ipt_spike *s, const struct ipt_spike_noise *nz)
{
	size_t cap = s->nnoise;

	if (IPT_GROW_ZERO(s->noise, cap, s->nnoise + 1))
		return -1;
	s->noise[s->nnoise] = *nz;
	if (nz->end_ns - s->start_ns < nz->duration_ns) {
		s->noise[s->nnoise].before_window = true;
		s->noise[s->nnoise].counted_ns = nz->end_ns - s->start_ns;
	} else {
		s->noise[s->nnoise].counted_ns = nz->duration_ns;
	}
	s->nnoise++;
	return 0;
}

/* starting_after - the index of the first spike after those of cpu that
 * start at or before at (spikes are sorted by CPU and start); the spikes
 * whose window may hold at are the (at most 8) just before it */
static size_t starting_after(const struct ipt_spikes *sp, int cpu, uint64_t at)
{
	size_t lo = 0, hi = sp->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ipt_spike *s = &sp->s[mid];

		if (s->cpu < cpu || (s->cpu == cpu && s->start_ns <= at))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* place_noise - nz under every spike of cpu whose window holds its end */
static int place_noise(struct ipt_spikes *sp, int cpu, const struct ipt_spike_noise *nz)
{
	for (size_t k = starting_after(sp, cpu, nz->end_ns), n = 0; k-- > 0 && n < 8; n++) {
		struct ipt_spike *s = &sp->s[k];

		if (s->cpu != cpu)
			break;
		if (nz->end_ns >= s->start_ns && nz->end_ns <= s->ts_ns && add_noise(s, nz))
			return -1;
	}
	return 0;
}

/* ---- csd function runs (csd:* events) ---- */

#define CSD_NESTED_MAX 8	/* csd runs open at once on one CPU */

/* a run begun and not yet ended on a CPU */
struct csd_run {
	uint64_t csd, func, entry_ns;
	bool queued;
	struct ipt_csd_call q;		/* its queueing (epoch: the target's losses) */
};
struct csd_scan {
	const struct ipt_event *queue, *entry, *exit;
	const struct ipt_field *q_cpu, *q_callsite, *q_csd, *e_func, *e_csd, *x_csd;
	struct ipt_csdq pending;		/* calls queued to spike CPUs */
	struct csd_run (*open)[CSD_NESTED_MAX];	/* per CPU */
	int *nopen;
	uint64_t *losses;			/* per CPU: records after lost events */
};

/* add_csd - one csd run under spike s (strings made here) */
static int add_csd(const struct ipt_trace *t, struct ipt_spike *s, const struct csd_run *run, bool has_exit,
		   uint64_t exit_ns)
{
	struct ipt_spike_csd *c;
	size_t cap = s->ncsd;
	char buf[256];

	if (IPT_GROW_ZERO(s->csd, cap, s->ncsd + 1))
		return -1;
	c = &s->csd[s->ncsd];
	c->entry_ns = run->entry_ns;
	c->has_exit = has_exit && exit_ns >= run->entry_ns;
	c->run_ns = c->has_exit ? exit_ns - run->entry_ns : 0;
	c->ipi = -1;
	ipt_trace_format_function(t, run->func, buf, sizeof(buf));
	c->func = strdup(buf);
	if (run->queued) {
		const char *comm = ipt_trace_comm(t, run->q.pid);

		c->queued = true;
		c->queue_ns = run->q.ts;
		c->src_cpu = run->q.src;
		c->pid = run->q.pid;
		c->comm = strdup(comm ? comm : "<...>");
		if (run->q.callsite) {
			ipt_trace_format_symbol(t, run->q.callsite, true, buf, sizeof(buf));
			c->callsite = strdup(buf);
		}
	}
	if (!c->func || (run->queued && !c->comm) || (run->queued && run->q.callsite && !c->callsite)) {
		free(c->func);
		free(c->comm);
		free(c->callsite);
		return ipt_err_code(IPT_ERR_NOMEM, "out of memory");
	}
	s->ncsd++;
	return 0;
}

/* place_csd - a run of cpu under every spike whose window holds its entry */
static int place_csd(const struct ipt_trace *t, struct ipt_spikes *sp, int cpu, const struct csd_run *run,
		     bool has_exit, uint64_t exit_ns)
{
	for (size_t k = starting_after(sp, cpu, run->entry_ns), n = 0; k-- > 0 && n < 8; n++) {
		struct ipt_spike *s = &sp->s[k];

		if (s->cpu != cpu)
			break;
		if (run->entry_ns >= s->start_ns && run->entry_ns <= s->ts_ns &&
		    add_csd(t, s, run, has_exit, exit_ns))
			return -1;
	}
	return 0;
}

/* csd_setup - the csd events of t, and room for the n CPUs; 1 when the
 * trace has the runs, 0 when not, -1 out of memory */
static int csd_setup(struct ipt_trace *t, struct csd_scan *cs, size_t n)
{
	memset(cs, 0, sizeof(*cs));
	cs->entry = ipt_trace_find_event(t, "csd", "csd_function_entry");
	cs->exit = ipt_trace_find_event(t, "csd", "csd_function_exit");
	cs->queue = ipt_trace_find_event(t, "csd", "csd_queue_cpu");
	cs->e_func = cs->entry ? ipt_event_field(cs->entry, "func") : NULL;
	cs->e_csd = cs->entry ? ipt_event_field(cs->entry, "csd") : NULL;
	cs->x_csd = cs->exit ? ipt_event_field(cs->exit, "csd") : NULL;
	if (!cs->e_func || !cs->e_csd || !cs->x_csd || !n)
		return 0;
	cs->q_cpu = cs->queue ? ipt_event_field(cs->queue, "cpu") : NULL;
	cs->q_callsite = cs->queue ? ipt_event_field(cs->queue, "callsite") : NULL;
	cs->q_csd = cs->queue ? ipt_event_field(cs->queue, "csd") : NULL;
	if (!cs->q_cpu || !cs->q_csd)
		cs->queue = NULL;
	cs->open = calloc(n, sizeof(*cs->open));
	cs->nopen = calloc(n, sizeof(*cs->nopen));
	cs->losses = calloc(n, sizeof(*cs->losses));
	if (!cs->open || !cs->nopen || !cs->losses)
		return ipt_err_code(IPT_ERR_NOMEM, "out of memory");
	return 1;
}

static void csd_free(struct csd_scan *cs)
{
	free(cs->open);
	free(cs->nopen);
	free(cs->losses);
	ipt_csdq_free(&cs->pending);
}

/* csd_record - one record r of the scan: a queueing to, or a run on, a
 * CPU below n with spikes (spike_cpu) */
static int csd_record(const struct ipt_trace *t, struct ipt_spikes *sp, struct csd_scan *cs,
		      const bool *spike_cpu, size_t n, const struct ipt_record *r)
{
	int cpu = r->cpu;

	if (r->event == cs->queue) {
		uint64_t target = field(t, r, cs->q_cpu, UINT64_MAX);
		struct ipt_csd_call c = { .csd = field(t, r, cs->q_csd, 0), .ts = r->ts,
					  .callsite = cs->q_callsite ? field(t, r, cs->q_callsite, 0) : 0,
					  .src = cpu, .target = (int32_t)target,
					  .pid = (int32_t)ipt_record_pid(t, r) };

		if (target >= n || !spike_cpu[target] || !c.csd)
			return 0;
		c.epoch = (uint32_t)cs->losses[target];
		return ipt_csdq_put(&cs->pending, &c) ? ipt_err_code(IPT_ERR_NOMEM, "out of memory") : 0;
	}
	if (cpu < 0 || (size_t)cpu >= n || !spike_cpu[cpu])
		return 0;
	if (r->event == cs->entry) {
		struct csd_run run = { .csd = field(t, r, cs->e_csd, 0), .func = field(t, r, cs->e_func, 0),
				       .entry_ns = r->ts };
		if (run.csd && ipt_csdq_take(&cs->pending, run.csd, cpu, &run.q))
			run.queued = run.q.epoch == (uint32_t)cs->losses[cpu];
		if (cs->nopen[cpu] == CSD_NESTED_MAX) {	/* deeper than any kernel nests: the oldest ends unseen */
			if (place_csd(t, sp, cpu, &cs->open[cpu][0], false, 0))
				return -1;
			memmove(&cs->open[cpu][0], &cs->open[cpu][1], (CSD_NESTED_MAX - 1) * sizeof(run));
			cs->nopen[cpu]--;
		}
		cs->open[cpu][cs->nopen[cpu]++] = run;
	} else if (r->event == cs->exit) {
		uint64_t csd = field(t, r, cs->x_csd, 0);

		for (int i = cs->nopen[cpu]; i-- > 0;) {
			if (cs->open[cpu][i].csd != csd)
				continue;
			/* the runs opened after it ended unseen */
			for (int j = cs->nopen[cpu]; j-- > i;)
				if (place_csd(t, sp, cpu, &cs->open[cpu][j], j == i, r->ts))
					return -1;
			cs->nopen[cpu] = i;
			break;
		}
	}
	return 0;
}

/* csd_end - the runs still open (no exit seen), and each run's IPI */
static int csd_end(const struct ipt_trace *t, struct ipt_spikes *sp, struct csd_scan *cs, size_t n)
{
	for (size_t cpu = 0; cs->nopen && cpu < n; cpu++)
		for (int j = 0; j < cs->nopen[cpu]; j++)
			if (place_csd(t, sp, (int)cpu, &cs->open[cpu][j], false, 0))
				return -1;
	for (size_t i = 0; i < sp->n; i++) {
		struct ipt_spike *s = &sp->s[i];

		for (size_t k = 0; k < s->ncsd; k++)
			for (size_t j = 0; j < s->nipis && j < INT32_MAX; j++) {
				const struct ipt_spike_ipi *ip = &s->ipis[j];

				if (!ip->coalesced && ip->has_handler && s->csd[k].entry_ns >= ip->entry_ns &&
				    s->csd[k].entry_ns - ip->entry_ns <= ip->handler_ns) {
					s->csd[k].ipi = (int32_t)j;
					break;
				}
			}
	}
	return 0;
}

/* ipi_vector - an irq_noise desc of an IPI's vector */
static bool ipi_vector(const char *desc)
{
	return !strncmp(desc, "call_function", 13) || !strcmp(desc, "reschedule") ||
	       !strcmp(desc, "irq_work") || !strncmp(desc, "IPI", 3);
}

/* tie - the IPI interrupts of s to their irq_noise; the sums */
static void tie(struct ipt_spike *s)
{
	for (size_t k = 0; k < s->nipis; k++) {
		struct ipt_spike_ipi *ip = &s->ipis[k];
		uint64_t exit = ip->entry_ns + ip->handler_ns;
		int32_t best = -1;

		if (ip->coalesced) {	/* the earlier send's interrupt (sends in time order) */
			for (size_t j = k; j-- > 0;)
				if (!s->ipis[j].coalesced && s->ipis[j].entry_ns == ip->entry_ns) {
					ip->noise = s->ipis[j].noise;
					break;
				}
			continue;
		}
		/* noise[] is in the order of the ends: the first ending at or
		 * after the entry (osnoise may write it just before the exit
		 * event), then on while within IPT_SPIKE_TIE_NS of the exit */
		size_t lo = 0, hi = s->nnoise;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (s->noise[mid].end_ns < ip->entry_ns)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t j = lo; j < s->nnoise && j < INT32_MAX && (s->noise[j].end_ns <= exit || s->noise[j].end_ns - exit <= IPT_SPIKE_TIE_NS); j++) {
			const struct ipt_spike_noise *nz = &s->noise[j];

			if (nz->kind != IPT_SPIKE_NOISE_IRQ || nz->ipi >= 0 || !ipi_vector(nz->name))
				continue;
			best = (int32_t)j;	/* the nearest */
			break;
		}
		ip->noise = best;
		if (best >= 0)
			s->noise[best].ipi = (int32_t)k;
	}
	s->listed_ns = 0;
	if (s->noise_known)	/* each at most the window: saturate on a made-up trace */
		for (size_t j = 0; j < s->nnoise; j++)
			s->listed_ns = s->listed_ns > UINT64_MAX - s->noise[j].counted_ns ? UINT64_MAX :
				       s->listed_ns + s->noise[j].counted_ns;
	else
		s->listed_ns = s->ipi_ns;
	s->over = s->listed_ns > s->latency_ns;
	s->unaccounted_ns = s->over ? 0 : s->latency_ns - s->listed_ns;
	s->excess_ns = s->over ? s->listed_ns - s->latency_ns : 0;
}

/* noise_record - one record r: an osnoise noise event of a CPU below n */
static int noise_record(struct ipt_trace *t, struct ipt_spikes *sp, const struct noise_ev *ne, size_t nev,
			bool *seen, size_t n, const struct ipt_record *r)
{
	struct ipt_spike_noise nz = { .ipi = -1, .num = -1 };
	const struct noise_ev *e = NULL;
	uint64_t v;

	for (size_t i = 0; i < nev && !e; i++)
		if (r->event == ne[i].ev)
			e = &ne[i];
	if (!e || r->cpu < 0 || (size_t)r->cpu >= n)
		return 0;
	seen[r->cpu] = true;
	nz.kind = e->kind;
	nz.end_ns = r->ts;
	nz.duration_ns = field(t, r, e->dur, 0);
	if (e->num && !ipt_field_u64(t, r, e->num, &v))
		nz.num = (int32_t)v;
	if (e->kind == IPT_SPIKE_NOISE_SOFTIRQ && softirq_name((uint64_t)(uint32_t)nz.num))
		snprintf(nz.name, sizeof(nz.name), "%s", softirq_name((uint64_t)(uint32_t)nz.num));
	else if (e->kind == IPT_SPIKE_NOISE_NMI)
		snprintf(nz.name, sizeof(nz.name), "nmi");
	else
		text_field(t, r, e->name, nz.name, sizeof(nz.name));
	return place_noise(sp, r->cpu, &nz);
}

/* noise - the osnoise:* noise events and the csd runs of t under the
 * spikes (one more pass over the trace); the ties */
static int noise(struct ipt_trace *t, struct ipt_spikes *sp)
{
	static const char *const names[] = { "irq_noise", "softirq_noise", "nmi_noise", "thread_noise" };
	struct noise_ev ne[4];
	size_t nev = 0, ncpu = 0;
	bool *seen = NULL, *spike_cpu = NULL;
	struct csd_scan cs;
	int has_csd = 0;
	struct ipt_iter *it;
	struct ipt_record r;
	int rc = 0;

	for (size_t i = 0; i < 4; i++) {
		const struct ipt_event *ev = ipt_trace_find_event(t, "osnoise", names[i]);

		if (!ev || !ipt_event_field(ev, "duration"))
			continue;
		ne[nev].ev = ev;
		ne[nev].kind = (enum ipt_spike_noise_kind)i;
		ne[nev].dur = ipt_event_field(ev, "duration");
		ne[nev].name = ipt_event_field(ev, i == 0 ? "desc" : "comm");
		ne[nev].num = ipt_event_field(ev, i == 3 ? "pid" : "vector");
		nev++;
	}
	for (size_t i = 0; i < sp->n; i++)
		if (sp->s[i].cpu >= 0 && (size_t)sp->s[i].cpu >= ncpu)
			ncpu = (size_t)sp->s[i].cpu + 1;
	has_csd = csd_setup(t, &cs, ncpu);
	if (has_csd < 0)
		goto out;
	if ((nev || has_csd) && ncpu) {
		seen = calloc(ncpu, sizeof(*seen));
		spike_cpu = calloc(ncpu, sizeof(*spike_cpu));
		if (!seen || !spike_cpu) {
			rc = ipt_err_code(IPT_ERR_NOMEM, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < sp->n; i++)
			if (sp->s[i].cpu >= 0)
				spike_cpu[sp->s[i].cpu] = true;
		it = ipt_iter_new(t, NULL);
		if (!it) {
			rc = -1;
			goto out;
		}
		while ((rc = ipt_iter_next(it, &r)) > 0) {
			if (has_csd && r.missed && r.cpu >= 0 && (size_t)r.cpu < ncpu)
				cs.losses[r.cpu]++;
			if (noise_record(t, sp, ne, nev, seen, ncpu, &r) ||
			    (has_csd && csd_record(t, sp, &cs, spike_cpu, ncpu, &r))) {
				rc = -1;
				break;
			}
		}
		ipt_iter_free(it);
		if (rc >= 0 && has_csd && csd_end(t, sp, &cs, ncpu))
			rc = -1;
	}
	for (size_t i = 0; i < sp->n; i++) {
		struct ipt_spike *s = &sp->s[i];

		s->noise_known = seen && s->cpu >= 0 && (size_t)s->cpu < ncpu && seen[s->cpu];
		s->csd_known = has_csd > 0;
		tie(s);
	}
out:
	sp->csd_given_up = cs.pending.given_up;
	csd_free(&cs);
	free(seen);
	free(spike_cpu);
	return rc < 0 || has_csd < 0 ? -1 : 0;
}

/* ipt_spikes_explain - the spikes of t and the IPIs inside them */
struct ipt_spikes *ipt_spikes_explain(struct ipt_trace *t, const struct ipt_spikes_opts *opts)
{
	struct ipt_spikes_opts o;
	struct ipt_report_opts ro = { .sz = sizeof(ro), .row_results = true, .no_tables = true, .threads = 1 };
	struct ipt_report *rep = NULL;
	struct ipt_ipi_iter *it = NULL;
	struct ipt_spikes *sp;
	struct ipt_ipi_row row;
	struct ipt_row_match m;
	int rc = -1;

	if (IPT_OPTS_COPY(o, opts, "spikes"))
		return NULL;
	if (!o.threshold_ns && !o.worst)
		o.worst = 10;
	if (!ipt_trace_ts_in_ns(t)) {
		ipt_err_code(IPT_ERR_INVALID, "explain: the trace's clock is not in nanoseconds");
		return NULL;
	}
	sp = calloc(1, sizeof(*sp));
	if (!sp) {
		ipt_err_code(IPT_ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (samples(t, &o, sp))
		goto out;
	if (!sp->n) {
		rc = 0;
		goto out;
	}
	rep = ipt_report_run(t, &ro);
	if (!rep)
		goto out;
	it = ipt_ipi_iter_new_with(t, NULL, rep);
	if (!it)
		goto out;
	while ((rc = ipt_ipi_next(it, &row)) > 0) {
		if (ipt_report_row_match(rep, &row, &m)) {
			rc = -1;
			break;
		}
		if (m.known && m.matched && m.has_handler_ts && place(t, sp, &row, &m)) {
			rc = -1;
			break;
		}
	}
	if (rc >= 0)
		rc = noise(t, sp);
out:
	ipt_ipi_iter_free(it);
	ipt_report_free(rep);
	if (rc < 0) {
		ipt_spikes_free(sp);
		return NULL;
	}
	return sp;
}

uint64_t ipt_spikes_csd_given_up(const struct ipt_spikes *sp)
{
	return sp ? sp->csd_given_up : 0;
}

size_t ipt_spikes_count(const struct ipt_spikes *sp)
{
	return sp ? sp->n : 0;
}

const struct ipt_spike *ipt_spikes_get(const struct ipt_spikes *sp, size_t i)
{
	return sp && i < sp->n ? &sp->s[i] : NULL;
}

void ipt_spikes_free(struct ipt_spikes *sp)
{
	if (!sp)
		return;
	for (size_t i = 0; i < sp->n; i++) {
		for (size_t k = 0; k < sp->s[i].nipis; k++) {
			free(sp->s[i].ipis[k].comm);
			free(sp->s[i].ipis[k].callsite);
			free(sp->s[i].ipis[k].func);
			free(sp->s[i].ipis[k].stack);
		}
		for (size_t k = 0; k < sp->s[i].ncsd; k++) {
			free(sp->s[i].csd[k].func);
			free(sp->s[i].csd[k].comm);
			free(sp->s[i].csd[k].callsite);
		}
		free(sp->s[i].ipis);
		free(sp->s[i].noise);
		free(sp->s[i].csd);
	}
	free(sp->s);
	free(sp);
}

const struct ipt_spike_ipi *ipt_spike_ipi_get(const struct ipt_spike *s, size_t k)
{
	return s && k < s->nipis ? &s->ipis[k] : NULL;
}

const struct ipt_spike_noise *ipt_spike_noise_get(const struct ipt_spike *s, size_t k)
{
	return s && k < s->nnoise ? &s->noise[k] : NULL;
}

const struct ipt_spike_csd *ipt_spike_csd_get(const struct ipt_spike *s, size_t k)
{
	return s && k < s->ncsd ? &s->csd[k] : NULL;
}
