/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_views.h - the finished report (struct ipt_report of ipitrace.h)
 *
 * The engine's data (struct rpt, report.h) and the public views built
 * from it once the pass is done (report_build.c): the summary, the rows
 * per CPU and per kind, the sorted tables and groups (report_tables.c),
 * the stacks with their tracing frames trimmed.  The accessors
 * (report_api.c), the per-row results (row_results.c) and the folded
 * stacks (folded.c) read it.
 */
#ifndef IPT_IPI_REPORT_VIEWS_H
#define IPT_IPI_REPORT_VIEWS_H

#include "ipi/report.h"

struct ipt_report {
	struct rpt r;
	const struct ipt_match_results *mres;	/* the matching stage's (r.match) */
	struct ipt_report_summary sum;
	struct ipt_report_cpu *cpus;		/* sum.ncpus */
	struct ipt_report_kind kinds[IPT_KIND__COUNT];
	struct ipt_report_sender *senders, *tasks;
	struct ipt_report_pair *pairs, *pairs_all;
	struct ipt_report_cell *matrix;
	size_t nsenders, ntasks, npairs, npairs_all, nmatrix;
	uint64_t *tbins;			/* sum.ncpus x opts.time_bins */
	/* stacks with the tracing frames trimmed: trimmed id of each recorded
	 * stack (tmap[id]), and their public views (tstk[trimmed id]) */
	struct stk_table trimmed;
	uint32_t *tmap;
	struct ipt_report_stack *tstk;
	struct group_cache {			/* tables made by ipt_report_groups */
		struct group_cache *next;
		enum ipt_group_by by;
		int cpu;
		enum ipt_group_sort sort;
		struct ipt_report_group *g;
		size_t n;
	} *groups;
	size_t rcur;				/* ipt_report_row_match's next result */
	const char *canon_name;			/* canonical_frame's last answer */
	uint64_t canon_addr;
	struct ipt_report_unsent *unsent;
	size_t nunsent;
	int32_t *rec_pids;			/* the recorder's own, sorted */
	size_t nrec_pids;
	struct ipt_report_kernel_irq *kirq;	/* the kernel's counters beside the trace's */
	size_t nkirq;
	bool ns;				/* time stamps are ns */
	struct ipt_mtable *mtab;		/* the filter's first pass, if it names
						 * columns from matching */
};

/* The sorted tables (senders, tasks, pairs, matrix), the recorder's own
 * pids and their share of each CPU's rows (report_tables.c). */
int ipt_rpt_tables(struct ipt_report *rep);
/* "comm;root;...;leaf" of stack st sent by pid, as ipt_report_folded
 * writes its lines (folded.c); the caller frees; NULL without memory */
char *ipt_rpt_folded_line(struct ipt_report *rep, int32_t pid, const struct ipt_report_stack *st);
int ipt_rpt_recorder_share(struct ipt_report *rep);
/* What matching found for the report's i-th counted row (i < r.res.n), if
 * row is that one (its target, and its id if check_id: ids of rows decoded
 * in lanes are the lane's own) (row_results.c). */
bool ipt_rpt_result_at(const struct ipt_report *rep, size_t i, const struct ipt_ipi_row *row, bool check_id,
		       struct ipt_row_match *m);
/*
 * The first pass of a filter that names columns from matching
 * (ipi/matchfilter.h): a report of every row of t with its row results.
 * NULL on error (ipt_errmsg).
 */
struct ipt_mtable *ipt_rpt_match_table(struct ipt_trace *t, bool assume_synced_clock, int threads);
void ipt_rpt_match_table_free(struct ipt_mtable *mt);
/* What ipt_rpt_tables, ipt_rpt_recorder_share and ipt_report_groups made. */
void ipt_rpt_tables_free(struct ipt_report *rep);

#endif
