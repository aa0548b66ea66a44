/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report.h - who interrupts my CPUs: aggregation and send -> handler matching
 *
 * One pass over a trace's records in time order.  Every IPI row is counted
 * (per target CPU and kind, per sender, per call site and function, in a
 * sender x target matrix) and queued on its target CPU until the interrupt
 * that serves it: x86 irq_vectors:<vector>_entry, arm64 ipi:ipi_entry with
 * the same reason.  One interrupt may serve several queued sends (they were
 * coalesced).  csd calls are matched by csd pointer from csd_queue_cpu to
 * csd_function_entry/exit.  Cross-CPU latencies are only computed when the
 * trace clock is comparable across CPUs.
 */
#ifndef IPT_REPORT_H
#define IPT_REPORT_H

#include "core/hist.h"
#include "ipi/ipi.h"
#include "ipi/classes.h"
#include "ipi/countmap.h"
#include "ipi/match.h"
#include "ipi/matchfilter.h"
#include "ipi/row_results.h"
#include "ipi/stacks.h"
#include "ipi/timebins.h"

struct rpt_cpu {			/* per target CPU */
	uint64_t ipis;			/* rows that target this CPU */
	uint64_t by_kind[IPT_KIND__COUNT];
	uint64_t sent;			/* rows this CPU sent */
	uint64_t remote;		/* rows from another CPU */
	uint64_t lost;			/* events lost on this CPU (known) */
	bool lost_unknown;
	uint64_t with_stack;		/* counted rows with a sender stack */
	uint64_t with_user_stack, user_in_irq, user_cut;	/* see struct ipt_report_cpu */
};

struct rpt_opts {
	const char *filter;		/* row filter for the counts (NULL: all) */
	const struct ipt_cpuset *isolated;	/* list IPIs to these CPUs */
	bool assume_synced_clock;	/* compute cross-CPU latencies anyway */
	int threads;			/* > 1: that many decoding threads (lanes.h) */
	int time_bins;			/* > 0: IPIs per target CPU over time (fine[]) */
	bool kind_distributions;	/* kind_lat[], kind_hdl[] */
	bool row_results;		/* res[]: what matching found per counted row */
	bool with_recorder;		/* groups keep the recorder's own sends */
	bool no_tables;			/* no senders, pairs, matrix (count_row) */
	const struct ipt_mtable *mtable;	/* a filter naming columns from matching:
						 * its first pass (ipt_rpt_match_table) */
	int (*on_row)(void *ctx, const struct ipt_ipi_row *row);	/* counted rows, in order */
	void *on_row_ctx;
	bool keep_rows;			/* kept: the counted rows (keptrows.h) */
};

struct rpt {
	struct ipt_trace *t;
	struct rpt_opts opts;
	struct ipt_ipi_decoder *dec;
	struct ipt_mfilter *filter;	/* opts.filter (ipi/matchfilter.h) */
	int ncpus;
	struct rpt_cpu *cpus;
	struct rpt_cpumap senders;	/* (pid, src_cpu, target) */
	struct rpt_cpumap pairs;	/* (callsite, func or callback, target) */
	struct rpt_map matrix;		/* (src, target) */
	uint64_t kinds[IPT_KIND__COUNT];
	uint64_t rows, rows_counted, events;
	uint64_t first_ts, last_ts;
	bool cross_ok;			/* clock comparable across CPUs */
	const char *cross_why;		/* why not */
	bool have_receive;		/* receive events exist in the trace */
	bool have_send;			/* send events (or probes standing for them) exist */
	bool sends_filtered;		/* the recording filtered send events (its provenance) */
	uint64_t remote_total;		/* counted rows from another CPU */
	struct ipt_report_isolated *iso;	/* IPIs to isolated CPUs (stacks owned) */
	size_t niso, capiso;
	struct rpt_fine fine;		/* opts.time_bins */
	struct stk_table stacks;	/* sender stacks, as recorded */
	struct rpt_map stackmap;	/* (stack id, pid, target) of counted rows */
	struct ipt_rowres res;		/* opts.row_results */
	struct ipt_kept_rows *kept;	/* opts.keep_rows (NULL if they were dropped) */
	bool kept_off;			/* ... dropped while running (__atomic) */
	struct ipt_match *match;	/* the matching stage, and its results (match.h) */
	struct ipt_classes classes;	/* receive classes (arm64 reasons as seen) */
	void *priv;			/* the pass's event ids and last row (report.c) */
};

/* One pass over the trace t: counts, matching, what opts asks for.  0, or
 * -1 with the message set; ipt_rpt_free either way. */
int ipt_rpt_run(struct rpt *r, struct ipt_trace *t, const struct rpt_opts *opts);
void ipt_rpt_free(struct rpt *r);

#endif
