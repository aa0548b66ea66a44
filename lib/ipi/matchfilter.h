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

/*
 * The match table is made by the report engine (ipt_rpt_match_table in
 * report_build.c, so that this file calls nothing of the report): a report
 * of every row with row results, whose on_row is ipt_mtable_on_row, then
 * ipt_mtable_finish, which takes the report.
 */
struct ipt_mtable *ipt_mtable_new(void);
int ipt_mtable_on_row(void *mt, const struct ipt_ipi_row *row);
/* 0, or -1 (then the caller frees rep and mt) */
int ipt_mtable_finish(struct ipt_mtable *mt, struct ipt_report *rep, const struct ipt_trace *t);
/* Free mt, but for its report, which it returns (ipt_rpt_match_table_free
 * frees both). */
struct ipt_report *ipt_mtable_release(struct ipt_mtable *mt);

/* 1 if expr names a column from matching, 0 if not, -1 for a bad filter
 * (ipt_errmsg). */
int ipt_mfilter_names_matching(const char *expr);
/*
 * Parse expr over rows; table: the first pass, needed (not NULL) when the
 * filter names a column from matching, and kept by the caller while the
 * filter lives.  *uses_id is set if it reads the column id (may be NULL).
 * NULL on error (ipt_errmsg).
 */
struct ipt_mfilter *ipt_mfilter_new(const char *expr, const struct ipt_mtable *table, bool *uses_id);
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
void ipt_mfilter_free(struct ipt_mfilter *f);

#endif
