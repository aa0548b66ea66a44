/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * matchfilter.h - row filters that may name what matching found
 *
 * A filter over IPI rows can name the columns that matching gives a row
 * (lat_ns, handler_ns, handler_ts_ns, matched, coalesced,
 * unmatched_reason, stack).  Those are only known once the interrupt that
 * serves the send has been seen, while rows are filtered as they are
 * decoded, so such a filter takes a first pass: a report over every row
 * with its row results (the "match table").  The filter then looks a
 * row's results up there by the row's place among the rows its sending
 * CPU gave (the same in both passes, and within a lane of decoding
 * threads: each CPU's stream is decoded by one).  Matching itself never
 * depends on a filter, so the results are those of any report of the trace.
 * A filter on a row's own columns costs nothing more.
 */
#ifndef IPT_IPI_MATCHFILTER_H
#define IPT_IPI_MATCHFILTER_H

#include "ipi/ipi.h"

struct ipt_mtable;		/* the first pass's results, by sending CPU */
struct ipt_mfilter;

struct ipt_mfilter_opts {
	bool assume_synced_clock;	/* as the report's (latencies across CPUs) */
	int threads;			/* of the first pass (0: its default) */
	const struct ipt_mtable *table;	/* a table to use (NULL: made if needed) */
};

/*
 * Parse expr over t's rows.  *uses_id is set if it reads the column id
 * (may be NULL).  NULL on error (ipt_errmsg: a bad filter, or the first
 * pass's error).
 */
struct ipt_mfilter *ipt_mfilter_new(struct ipt_trace *t, const char *expr, const struct ipt_mfilter_opts *o,
				    bool *uses_id);
/*
 * 1 if row passes, else 0.  Every row of the trace's decoding in range
 * (target CPU 0 .. IPT_CPUSET_MAX-1) must be given, in each CPU's order,
 * once: the row's place is counted here.  Threads may evaluate rows of
 * different sending CPUs at once.
 */
int ipt_mfilter_eval(struct ipt_mfilter *f, const struct ipt_ipi_row *row);
/* The same for a row that is none of the decoding's (a queued csd call
 * standing for its IPI): the columns from matching are unknown for it. */
int ipt_mfilter_eval_unplaced(struct ipt_mfilter *f, const struct ipt_ipi_row *row);
/* Whether the filter names a column from matching. */
bool ipt_mfilter_matched(const struct ipt_mfilter *f);
/* Its table (NULL when it needs none), valid while f lives. */
const struct ipt_mtable *ipt_mfilter_table(const struct ipt_mfilter *f);
void ipt_mfilter_free(struct ipt_mfilter *f);

#endif
