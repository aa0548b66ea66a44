/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * row_results.h - what matching found for each counted row (report option
 * row_results), in the order of the rows
 *
 * The engine adds a pending result per counted row as it counts it; the
 * matching stage settles it (matched, coalesced, the entry and duration of
 * the interrupt that served it, or why it stayed unmatched) and the sender
 * stacks give it its stack.  16 bytes a row: values that do not fit go to
 * a side table (hlong, hwide).  ipt_report_row_match and its kin read them
 * (row_results.c).
 */
#ifndef IPT_IPI_ROW_RESULTS_H
#define IPT_IPI_ROW_RESULTS_H

#include "core/core.h"

enum rpt_res_state {
	RES_PENDING,			/* (only while running) */
	RES_MATCHED,
	RES_TRACE_ENDED, RES_NO_RECEIVE_EVENTS, RES_LOST_EVENTS, RES_NO_HANDLER,
};
#define RPT_HDUR_UNKNOWN UINT32_MAX	/* hdur: entry -> exit not seen */
#define RPT_HDUR_LONG (UINT32_MAX - 1)	/* hdur: in hlong (4.29 s or more) */
#define RPT_HDELTA_WIDE INT32_MIN	/* hdelta: in hwide (2.1 s or more away) */
struct rpt_result {			/* 16 bytes a counted row */
	uint32_t id_lo;			/* the row's send id (low 32 bits) and target: */
	uint16_t target;		/* the join key, rows coming in order */
	uint8_t state;			/* enum rpt_res_state */
	bool coalesced;
	uint32_t hdur;			/* its entry -> exit in ns, or RPT_HDUR_* */
	int32_t hdelta;			/* entry of the interrupt that served it, in
					 * ns from the send, or RPT_HDELTA_WIDE */
};
_Static_assert(sizeof(struct rpt_result) == 16, "the row results' size, as the docs say");
struct rpt_wide {			/* a result's value that does not fit it */
	uint64_t res, v;		/* index in res[], the value */
	uint64_t seq;			/* the order they were set in */
};
struct rpt_wides {			/* sorted by res (the last set wins) once the run ends */
	struct rpt_wide *v;
	size_t n, cap;
};


struct ipt_rowres {
	struct rpt_result *v;		/* mem's bytes: in huge pages, never
					 * copied, past IPT_SPILL_FILE_FROM in a
					 * file (ipt_spill) whose pages behind the
					 * rows written and read leave memory */
	size_t n, cap;
	struct ipt_spill mem;
	/* per counted row (in order), whether it has a result in v; one that
	 * has none went to a CPU that recorded nothing, with no row filter and
	 * no stacks (ipt_rowres_implicit): unmatched, no_receive_events, no
	 * stack.  On wide machines most rows are such: 16 bytes each saved. */
	uint64_t *kept;			/* keptm's bytes (a spill, as mem) */
	size_t nrows, capkept;
	struct ipt_spill keptm;
	uint64_t *rank;			/* results before each RANK_WORDS words of
					 * kept (ipt_rowres_end) */
	uint64_t *nostream;		/* CPUs that recorded nothing, a bit each */
	size_t nnostream;		/* ... words */
	uint32_t *stack;		/* per result its stack's id in the report's
					 * stacks (0 none), up to the last set */
	size_t capstack;		/* ... set up to here (the rest: 0) */
	struct ipt_spill stackm;	/* stack's bytes (a spill, as mem) */
	struct rpt_wides hlong;		/* v[i].hdur == RPT_HDUR_LONG: entry -> exit */
	struct rpt_wides hwide;		/* v[i].hdelta == RPT_HDELTA_WIDE: entry (ns) */
};

/* A counted row's result, pending until matching decides: index rs->n - 1.
 * 0, or -1 without memory (so for every setter). */
int ipt_rowres_add(struct ipt_rowres *rs, uint64_t id, int target);
/* A counted row without a result of its own: sent to a CPU that recorded
 * nothing (set in nostream), so unmatched, no_receive_events. */
int ipt_rowres_implicit(struct ipt_rowres *rs, int target);
/* The counted row ord's result: its index in v (true), or false when it
 * has none (implicit) or ord is past the rows. */
bool ipt_rowres_index(const struct ipt_rowres *rs, size_t ord, size_t *idx);
/* Result i's stack id. */
int ipt_rowres_set_stack(struct ipt_rowres *rs, int64_t i, uint32_t sid);
static inline uint32_t ipt_rowres_stack(const struct ipt_rowres *rs, size_t i)
{
	return i < rs->capstack ? rs->stack[i] : 0;
}
/* Result i stays unmatched: why (RES_TRACE_ENDED ...). */
void ipt_rowres_unmatched(struct ipt_rowres *rs, int64_t i, enum rpt_res_state why);
/* Result i (a send at ts) was served by the interrupt that entered at hts. */
int ipt_rowres_matched(struct ipt_rowres *rs, int64_t i, bool coalesced, uint64_t ts, uint64_t hts);
/* Result i's interrupt ran ns from entry to exit. */
int ipt_rowres_set_hdur(struct ipt_rowres *rs, int64_t i, uint64_t ns);
/* The run ended: the side tables sorted for reading, the index of the
 * counted rows' results made; 0, or -1 without memory. */
int ipt_rowres_end(struct ipt_rowres *rs);
void ipt_rowres_free(struct ipt_rowres *rs);

#endif
