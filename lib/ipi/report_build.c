// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * report_build.c - ipt_report_run: the engine's pass over the trace
 * (report.c), then the public views of the finished report (the summary,
 * the rows per CPU and per kind, the events lost, the interrupts with no
 * send, the kernel's own counters beside the trace's, the stacks trimmed
 * of their tracing frames); ipt_report_free
 */
#include "ipi/report_views.h"

#include <stdlib.h>
#include <string.h>

/* stat_value - "key: N" of a per-CPU stats text; false if absent */
static bool stat_value(const char *st, const char *key, unsigned long long *v)
{
	const char *p = strstr(st, key);

	if (!p)
		return false;
	*v = strtoull(p + strlen(key), NULL, 10);
	return true;
}

/*
 * cpu_lost - events lost on cpu, counted once: the kernel's per-CPU
 * stats in the file (overrun, commit overrun, dropped) where it has them,
 * else the ring buffer's drop marks.  *unknown when the number cannot be
 * known: a mark of unknown size, or a file with neither stats nor marks
 * (tracefs text: unless its header says every entry written is there).
 */
static unsigned long long cpu_lost(struct ipt_trace *t, const struct rpt_cpu *c, int cpu,
				    bool file_has_marks, bool *unknown)
{
	const char *st = ipt_trace_cpustat(t, cpu);
	unsigned long long n = 0, v;
	bool stats = false;

	*unknown = c->lost_unknown;
	if (stat_value(st, "\noverrun: ", &v)) {	/* not "commit overrun: " */
		n += v;
		stats = true;
	}
	if (stat_value(st, "commit overrun: ", &v)) {
		n += v;
		stats = true;
	}
	if (stat_value(st, "dropped events: ", &v)) {
		n += v;
		stats = true;
	}
	if (stats) {
		*unknown = false;
		return n;
	}
	if (!file_has_marks) {
		if (t->entries_written >= 0)
			*unknown = t->entries_written > t->entries_in_buffer;
		else
			*unknown = true;
	}
	return c->lost;
}

/*
 * The kernel's counters of IPI interrupts, beside what the trace holds.
 * x86: RES is the reschedule vector, CAL both function-call vectors, TLB
 * the flushes among CAL's interrupts (never to be added to it), IWI the
 * irq_work vector.  arm64: each IPIn row is the reason its description
 * names (ipi_entry carries the same strings).
 */
static const struct {
	const char *row;
	int cls[2];
	bool within;
} x86_rows[] = {
	{ "RES", { CLS_RESCHED, -1 }, false },
	{ "CAL", { CLS_CALL, CLS_CALL_SINGLE }, false },
	{ "TLB", { -1, -1 }, true },
	{ "IWI", { CLS_IRQ_WORK, -1 }, false },
};

static int64_t irq_delta(const struct ipt_trace *t, enum ipt_irq_point a, enum ipt_irq_point b,
			 const char *row, int cpu)
{
	int64_t x = ipt_trace_irq_count(t, a, row, cpu), y = ipt_trace_irq_count(t, b, row, cpu);

	return x < 0 || y < 0 || y < x ? -1 : y - x;
}

static int kirq_add(struct ipt_report *rep, size_t *cap, const struct ipt_report_kernel_irq *k)
{
	if (IPT_GROW(rep->kirq, *cap, rep->nkirq + 1))
		return -1;
	rep->kirq[rep->nkirq++] = *k;
	return 0;
}

/* kernel_row - the row of cpu, its classes (cls, -1 ended), its deltas and
 * what explains them (recorded: the CPUs the recording kept, NULL: all) */
static int kernel_row(struct ipt_report *rep, size_t *cap, int cpu, const char *row, const int *cls,
		      int ncls, bool within, const struct ipt_cpuset *recorded)
{
	const struct ipt_trace *t = rep->r.t;
	struct ipt_report_kernel_irq k = {
		.cpu = cpu, .row = row, .desc = ipt_trace_irq_desc(t, row), .traced = -1, .sends = -1,
		.within = within,
		.kernel = irq_delta(t, IPT_IRQ_TRACING_ON, IPT_IRQ_TRACING_OFF, row, cpu),
		.setup = irq_delta(t, IPT_IRQ_BEFORE_SETUP, IPT_IRQ_TRACING_ON, row, cpu),
		.teardown = irq_delta(t, IPT_IRQ_TRACING_OFF, IPT_IRQ_AFTER_TEARDOWN, row, cpu),
	};
	const struct ipt_match_cpu *c = cpu < rep->r.ncpus ? &rep->mres->cpu[cpu] : NULL;

	if (k.kernel < 0 && k.setup < 0 && k.teardown < 0)
		return 0;
	for (int i = 0; i < ncls; i++) {
		if (cls[i] < 0)
			continue;
		if (k.traced < 0)
			k.traced = k.sends = 0;
		if (c) {
			k.traced += (int64_t)c->entries[cls[i]];
			k.sends += (int64_t)c->sends[cls[i]];
		}
	}
	/* a function-call send with no vector of its own counts with CAL */
	if (c && cls[0] == CLS_CALL)
		k.sends += (int64_t)c->sends[CLS_CALL_ANY];
	if (k.within)
		k.note = IPT_KIRQ_WITHIN;
	else if (k.kernel < 0)
		k.note = IPT_KIRQ_UNKNOWN;
	else if (recorded && !ipt_cpuset_has(recorded, (unsigned int)cpu))
		k.note = IPT_KIRQ_NOT_RECORDED;
	else if (k.traced < 0) {
		k.note = IPT_KIRQ_NOT_COVERED;
		k.unexplained = k.kernel;	/* no event explains any of them */
	} else {
		k.unexplained = k.kernel - k.traced;
		k.note = k.unexplained > 0 ? IPT_KIRQ_MORE_COUNTED :
			 k.unexplained < 0 ? IPT_KIRQ_MORE_TRACED : IPT_KIRQ_EXPLAINED;
	}
	return kirq_add(rep, cap, &k);
}

/* kernel_irqs - the reconciliation table (when the trace holds the counters) */
static int kernel_irqs(struct ipt_report *rep)
{
	const struct ipt_trace *t = rep->r.t;
	struct ipt_cpuset recorded = IPT_CPUSET_INIT;
	char list[4096];
	size_t cap = 0;
	bool some = false;
	int ret = -1;

	if (!ipt_trace_has_irq_counts(t))
		return 0;
	/* the CPUs a recording with --cpus kept (its receive events only there) */
	ipt_cpuset_init(&recorded);
	if (ipt_trace_provenance(t, "cpus", list, sizeof(list)) &&
	    !ipt_cpuset_parse_list(&recorded, list, strlen(list)))
		some = true;
	for (int cpu = 0; cpu < rep->sum.ncpus; cpu++) {
		bool arm = false;

		/* static names: the table keeps the pointer */
		static const char *const ipi_rows[16] = {
			"IPI0", "IPI1", "IPI2", "IPI3", "IPI4", "IPI5", "IPI6", "IPI7",
			"IPI8", "IPI9", "IPI10", "IPI11", "IPI12", "IPI13", "IPI14", "IPI15",
		};

		for (int n = 0; n < 16; n++) {
			const char *row = ipi_rows[n];
			const char *desc;
			int cls;

			if (!(desc = ipt_trace_irq_desc(t, row)))
				continue;
			arm = true;
			cls = ipt_class_find(&rep->r.classes, desc);
			/* a reason never raised in the trace: its sends would show it */
			if (cls < 0 && rep->r.have_receive)
				cls = -2;
			if (kernel_row(rep, &cap, cpu, row, (int[]){ cls == -2 ? -1 : cls }, 1, false,
				       some ? &recorded : NULL))
				goto out;
			if (cls == -2 && rep->nkirq) {	/* covered by the events, none traced */
				struct ipt_report_kernel_irq *k = &rep->kirq[rep->nkirq - 1];

				k->traced = k->sends = 0;
				if (k->note == IPT_KIRQ_NOT_COVERED) {
					k->unexplained = k->kernel;
					k->note = k->kernel ? IPT_KIRQ_MORE_COUNTED : IPT_KIRQ_EXPLAINED;
				}
			}
		}
		for (size_t i = 0; !arm && i < sizeof(x86_rows) / sizeof(x86_rows[0]); i++)
			if (kernel_row(rep, &cap, cpu, x86_rows[i].row, x86_rows[i].cls, 2, x86_rows[i].within,
				       some ? &recorded : NULL))
				goto out;
	}
	ret = 0;
out:
	ipt_cpuset_free(&recorded);
	return ret;
}

const char *ipt_kirq_note_name(enum ipt_kirq_note note)
{
	static const char *const names[IPT_KIRQ__COUNT] = {
		"explained", "more_counted", "more_traced", "not_recorded", "not_covered", "within", "unknown",
	};

	return (unsigned int)note < IPT_KIRQ__COUNT ? names[note] : "unknown";
}

/* unsent_table - the interrupts with no send, per CPU and vector */
static int unsent_table(struct ipt_report *rep)
{
	struct rpt *r = &rep->r;
	size_t n = 0;

	for (int pass = 0; pass < 2; pass++) {
		n = 0;
		for (int c = 0; c < r->ncpus; c++)
			for (int k = 0; k < RPT_NCLASS; k++) {
				uint64_t sum = 0;

				for (int w = 0; w < RPT_NCAUSE; w++)
					sum += rep->mres->cpu[c].unsent[k][w];
				if (!sum)
					continue;
				if (pass) {
					struct ipt_report_unsent *u = &rep->unsent[n];

					u->cpu = c;
					u->vector = ipt_class_name(&r->classes, k);
					u->count = sum;
					for (int w = 0; w < RPT_NCAUSE; w++)
						u->by_cause[w] = rep->mres->cpu[c].unsent[k][w];
				}
				n++;
			}
		if (!pass && !(rep->unsent = ipt_calloc(n ? n : 1, sizeof(*rep->unsent))))
			return -1;
	}
	rep->nunsent = n;
	return 0;
}

/* canonical_frame - the first address of the symbol naming addr (text
 * traces), addr itself when it has no name */
static uint64_t canonical_frame(struct ipt_report *rep, uint64_t addr)
{
	uint64_t off;
	const char *name = ipt_trace_symbol(rep->r.t, addr, &off);
	uint64_t a;

	if (!name)
		return addr;
	if (rep->canon_name == name)	/* the same frame as the last one asked */
		return rep->canon_addr;
	a = ipt_trace_symbol_addr(rep->r.t, name);
	rep->canon_name = name;
	rep->canon_addr = a ? a : addr;
	return rep->canon_addr;
}

/* trim_stacks - every recorded stack without its tracing frames, interned again */
static int trim_stacks(struct ipt_report *rep)
{
	struct rpt *r = &rep->r;
	size_t n = r->stacks.nent;
	uint32_t *cut;

	if (!n)
		return 0;
	rep->tmap = ipt_calloc(n + 1, sizeof(*rep->tmap));
	cut = ipt_calloc(n + 1, sizeof(*cut));
	if (!rep->tmap || !cut)
		goto fail;
	for (uint32_t id = 1; id <= n; id++) {
		uint32_t k;
		const uint64_t *a = stk_get(&r->stacks, id, &k);

		cut[id] = stk_trim_count(r->t, a, k);
		if (ipt_trace_kind(r->t) != IPT_INPUT_TRACEDAT && !r->t->text_stack_offsets) {
			/* text: the printed names are all there is (trace-cmd shows no
			 * offset), so frames are told apart by name */
			uint64_t *v = ipt_malloc((k - cut[id] + 1) * sizeof(*v));

			if (!v)
				goto fail;
			for (uint32_t f = cut[id]; f < k; f++)
				v[f - cut[id]] = canonical_frame(rep, a[f]);
			rep->tmap[id] = stk_intern(&rep->trimmed, v, k - cut[id]);
			free(v);
		} else if (ipt_trace_has_user_symbols(r->t)) {
			/* user frames by place, not by process: the same path in
			 * two processes is one stack */
			uint64_t *v = ipt_malloc((k - cut[id] + 1) * sizeof(*v));

			if (!v)
				goto fail;
			for (uint32_t f = cut[id]; f < k; f++)
				v[f - cut[id]] = ipt_usym_canonical(r->t, a[f]);
			rep->tmap[id] = stk_intern(&rep->trimmed, v, k - cut[id]);
			free(v);
		} else {
			rep->tmap[id] = stk_intern(&rep->trimmed, a + cut[id], k - cut[id]);
		}
		if (!rep->tmap[id])
			goto fail;
	}
	/* the views, once the table stopped growing */
	rep->tstk = ipt_calloc(rep->trimmed.nent + 1, sizeof(*rep->tstk));
	if (!rep->tstk)
		goto fail;
	for (uint32_t id = n; id >= 1; id--) {
		struct ipt_report_stack *v = &rep->tstk[rep->tmap[id]];

		v->frames = stk_get(&rep->trimmed, rep->tmap[id], &v->nframes);
		v->trimmed = cut[id];	/* the first recorded stack's, in the end */
	}
	free(cut);
	return 0;
fail:
	free(cut);
	return -1;
}

/* finish - the public views once the pass is done */
static int finish(struct ipt_report *rep)
{
	struct rpt *r = &rep->r;
	struct ipt_report_summary *s = &rep->sum;
	const struct ipt_ipi_stats *st = ipt_ipi_decoder_stats(r->dec);
	/* room for every CPU of the report (the engine grows both together) */
	const struct ipt_match_results *mr = rep->mres = ipt_match_results(r->match);
	bool file_has_marks = false;

	s->ncpus = r->ncpus;
	s->first_ts = r->first_ts;
	s->last_ts = r->last_ts;
	s->duration_s = r->last_ts > r->first_ts ? (double)(r->last_ts - r->first_ts) / 1e9 : 0.0;
	s->events = r->events;
	s->send_events = st->send_events;
	s->ipis = r->rows;
	s->ipis_counted = r->rows_counted;
	s->filtered = r->filter != NULL;
	memcpy(s->kinds, r->kinds, sizeof(s->kinds));
	s->csd_queued = st->csd_queued;
	s->csd_with_ipi = st->csd_joined;
	s->csd_without_ipi = st->csd_no_ipi;
	s->cross_cpu_latency = r->cross_ok;
	s->cross_cpu_missing_because = r->cross_ok ? NULL : r->cross_why;
	s->receive_events = r->have_receive;
	s->senders_unknown = !r->have_send;
	s->probes_missed = r->t->probes_missed;
	s->header_in_buffer = r->t->entries_in_buffer;
	s->header_written = r->t->entries_written;
	s->lost_by_header = r->t->entries_written > r->t->entries_in_buffer && r->t->entries_in_buffer >= 0 ?
			    r->t->entries_written - r->t->entries_in_buffer : -1;
	s->remote = r->remote_total;
	s->remote_matched = mr->remote_matched;
	s->unmatched_trace_ended = mr->unmatched.trace_ended;
	s->unmatched_no_receive_events = mr->unmatched.no_receive_events;
	s->unmatched_lost_events = mr->unmatched.lost_events;
	s->csd_set_aside = mr->csd_set_aside;
	s->csd_given_up = mr->csd_given_up;
	s->unmatched_no_handler = mr->unmatched.no_handler;
	rep->cpus = ipt_calloc((size_t)(r->ncpus ? r->ncpus : 1), sizeof(*rep->cpus));
	if (!rep->cpus)
		return -1;
	for (int c = 0; c < r->ncpus; c++)
		file_has_marks = file_has_marks || r->cpus[c].lost || r->cpus[c].lost_unknown;
	for (int c = 0; c < r->ncpus; c++) {
		const struct rpt_cpu *rc = &r->cpus[c];
		const struct ipt_match_cpu *mc = &mr->cpu[c];
		struct ipt_report_cpu *pc = &rep->cpus[c];

		pc->ipis = rc->ipis;
		memcpy(pc->by_kind, rc->by_kind, sizeof(pc->by_kind));
		pc->sent = rc->sent;
		pc->remote = rc->remote;
		pc->matched = mc->matched;
		pc->remote_matched = mc->remote_matched;
		pc->coalesced = mc->coalesced;
		pc->handlers = mc->handlers;
		pc->handlers_unattributed = mc->handlers_unattributed;
		pc->csd_runs = mc->csd_runs;
		pc->lost = cpu_lost(r->t, rc, c, file_has_marks, &pc->lost_unknown);
		pc->latency = &mc->lat;
		pc->handler = &mc->handler;
		pc->csd_queue_to_run = &mc->csd_q2r;
		pc->csd_run = &mc->csd_run;
		s->handlers += mc->handlers;
		s->handlers_unattributed += mc->handlers_unattributed;
		s->coalesced += mc->coalesced;
		s->csd_runs += mc->csd_runs;
	}
	for (int k = 0; k < IPT_KIND__COUNT; k++) {
		rep->kinds[k].ipis = r->kinds[k];
		rep->kinds[k].latency = &mr->kind_lat[k];
		rep->kinds[k].handler = &mr->kind_hdl[k];
	}
	for (int c = 0; c < r->ncpus; c++) {
		rep->cpus[c].with_stack = r->cpus[c].with_stack;
		rep->cpus[c].with_user_stack = r->cpus[c].with_user_stack;
		rep->cpus[c].user_in_irq = r->cpus[c].user_in_irq;
		rep->cpus[c].user_cut = r->cpus[c].user_cut;
	}
	rep->ns = !strcmp(ipt_trace_time_unit(r->t), "ns");
	if (ipt_rpt_tables(rep) || trim_stacks(rep) || unsent_table(rep) || ipt_rpt_recorder_share(rep) ||
	    kernel_irqs(rep))
		return -1;
	if (r->opts.time_bins > 0 &&
	    !(rep->tbins = ipt_fine_bins(&r->fine, r->ncpus, r->opts.time_bins, r->first_ts, r->last_ts)))
		return -1;
	return 0;
}

struct ipt_mtable *ipt_rpt_match_table(struct ipt_trace *t, bool assume_synced_clock, int threads)
{
	struct ipt_mtable *mt = ipt_mtable_new();
	struct ipt_report_opts ro = {
		.sz = sizeof(ro), .row_results = true, .no_tables = true,
		.assume_synced_clock = assume_synced_clock, .threads = threads,
		.on_row = ipt_mtable_on_row, .on_row_ctx = mt,
	};
	struct ipt_report *rep;

	if (!mt)
		return NULL;
	if (!(rep = ipt_report_run(t, &ro)) || ipt_mtable_finish(mt, rep, t)) {
		ipt_report_free(rep);
		ipt_mtable_release(mt);
		return NULL;
	}
	return mt;
}

void ipt_rpt_match_table_free(struct ipt_mtable *mt)
{
	ipt_report_free(ipt_mtable_release(mt));
}

/* ipt_report_run - run the report engine over t, with the options that fit in opts->sz */
struct ipt_report *ipt_report_run(struct ipt_trace *t, const struct ipt_report_opts *opts)
{
	struct ipt_report_opts o;
	struct rpt_opts ro = { 0 };
	struct ipt_report *rep;

	if (!t) {
		ipt_err_code(IPT_ERR_INVALID, "report: no trace");
		return NULL;
	}
	if (IPT_OPTS_COPY(o, opts, "report"))
		return NULL;
	if (o.time_bins < 0 || o.time_bins > 1000000) {
		ipt_err_code(IPT_ERR_INVALID, "report: %d time bins (0 to 1000000)", o.time_bins);
		return NULL;
	}
	ro.filter = o.filter;
	ro.isolated = o.isolated;
	ro.assume_synced_clock = o.assume_synced_clock;
	ro.threads = o.threads;
	ro.time_bins = o.time_bins;
	ro.kind_distributions = o.kind_distributions;
	ro.row_results = o.row_results;
	ro.with_recorder = o.with_recorder;
	ro.no_tables = o.no_tables;
	ro.on_row = o.on_row;
	ro.on_row_ctx = o.on_row_ctx;
	ro.keep_rows = o.keep_rows;
	rep = ipt_calloc(1, sizeof(*rep));
	if (!rep)
		return NULL;
	if (o.filter && *o.filter) {	/* naming columns from matching: a first pass */
		int m = ipt_mfilter_names_matching(o.filter);

		if (m < 0 || (m && !(rep->mtab = ipt_rpt_match_table(t, o.assume_synced_clock, o.threads)))) {
			ipt_report_free(rep);
			return NULL;
		}
		ro.mtable = rep->mtab;
	}
	if (ipt_rpt_run(&rep->r, t, &ro) || finish(rep)) {
		ipt_report_free(rep);
		return NULL;
	}
	rep->r.opts.isolated = NULL;	/* the caller's: not kept */
	return rep;
}

void ipt_report_free(struct ipt_report *rep)
{
	if (!rep)
		return;
	ipt_rpt_free(&rep->r);
	ipt_rpt_tables_free(rep);
	free(rep->cpus);
	free(rep->tbins);
	free(rep->unsent);
	free(rep->kirq);
	stk_free(&rep->trimmed);
	free(rep->tmap);
	free(rep->tstk);
	ipt_rpt_match_table_free(rep->mtab);
	free(rep);
}
