/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ipi.h - the IPI decoder: records in, IPI rows out (internal)
 *
 * The decoder is fed records in time order (of one CPU or merged); it
 * recognises the send events, ties csd_queue_cpu to the IPI that follows
 * it from the same CPU to the same target, and emits one row per target.
 * report.c feeds it directly so that it sees the receive side too.
 */
#ifndef IPT_IPI_H
#define IPT_IPI_H

#include "input/input.h"
#include "render/render.h"

struct ipt_ipi_decoder;

typedef int (*ipt_row_fn)(void *ctx, const struct ipt_ipi_row *row);

struct ipt_ipi_decoder *ipt_ipi_decoder_new(struct ipt_trace *t);
/* Process one record; fn is called for each row (a non-zero return stops
 * and is returned).  Returns 0, or fn's value, or -1 on error. */
int ipt_ipi_decoder_feed(struct ipt_ipi_decoder *d, const struct ipt_record *rec,
			 ipt_row_fn fn, void *ctx);
/*
 * The rows of one send in one call, where they differ only by target CPU
 * (no queued csd call is waiting to name a target's function): row, whose
 * target_cpu is -1 (the rest is every target's), and its targets.  The
 * callee counts what it can, puts in *rest (empty on entry) the targets
 * whose rows fn must still get one by one, and returns 0, or non-zero to
 * stop (returned by ipt_ipi_decoder_feed).
 */
typedef int (*ipt_rows_fn)(void *ctx, const struct ipt_ipi_row *row, const struct ipt_cpuset *targets,
			   struct ipt_cpuset *rest);
/* Sends go to bulk (NULL: none) before fn, where they can. */
void ipt_ipi_decoder_set_bulk(struct ipt_ipi_decoder *d, ipt_rows_fn bulk);
/* At the end of the records: settle pending csd calls. */
void ipt_ipi_decoder_finish(struct ipt_ipi_decoder *d);
/* The decoder's counters (they come first in it: read per record) */
static inline struct ipt_ipi_stats *ipt_ipi_decoder_stats(struct ipt_ipi_decoder *d)
{
	return (struct ipt_ipi_stats *)(void *)d;
}
/* The decoder writes task names learnt from sched events into the trace:
 * decoders of one trace then cannot run in parallel threads, unless each
 * keeps what it learns (ipt_ipi_decoder_learn_aside). */
bool ipt_ipi_decoder_learns_comms(const struct ipt_ipi_decoder *d);
/* Names learnt are kept in the decoder, each pid's first (by time, then
 * CPU), not written into the trace: a row's comm is then only the
 * trace's own (cmdlines).  For decoders in parallel threads. */
void ipt_ipi_decoder_learn_aside(struct ipt_ipi_decoder *d);
/* The names the n decoders kept aside written into their trace, as one
 * decoder over all the records would have: the first sighting of each pid
 * by (time, CPU) wins, and a name the trace has stays.  -1 without memory. */
int ipt_ipi_decoders_learnt(struct ipt_ipi_decoder *const *d, int n);
/* dst += src, every counter */
void ipt_ipi_stats_add(struct ipt_ipi_stats *dst, const struct ipt_ipi_stats *src);
void ipt_ipi_decoder_free(struct ipt_ipi_decoder *d);


/* Row columns for filters: a row's own (up to COL__COUNT), then what
 * matching found (COL_LAT_NS .. COL_STACK: see ipi/matchfilter.h). */
enum ipt_row_col {
	COL_TS, COL_ID, COL_SRC_CPU, COL_TARGET_CPU, COL_PID, COL_COMM, COL_NTARGETS,
	COL_EVENT, COL_CALLSITE, COL_CALLBACK, COL_FUNC, COL_KIND, COL_REASON,
	COL_CPUMASK, COL_CALLSITE_FUNC, COL_FUNC_NAME, COL__COUNT,
	COL_LAT_NS = COL__COUNT, COL_HANDLER_NS, COL_HANDLER_TS_NS, COL_MATCHED,
	COL_COALESCED, COL_UNMATCHED_REASON, COL_STACK, COL__ALL
};
/* filter resolve/lookup over rows (ctx: unused / the row): a row's own
 * columns, under their filter names and the names of the rows' columns
 * (ts_ns, callsite_sym, ...: ipt_row_column); -1 for the others */
int ipt_row_resolve(void *ctx, const char *name);
/* the same, with the columns from matching too (COL_LAT_NS ..) */
int ipt_row_resolve_all(void *ctx, const char *name);
/* A filter over rows (ipt_filter_parse), with kind and event names checked. */
struct ipt_filter *ipt_row_filter_parse(const char *expr, ipt_filter_resolve_fn resolve, void *ctx);
void ipt_row_lookup(void *ctx, int id, struct ipt_value *v);

#endif
