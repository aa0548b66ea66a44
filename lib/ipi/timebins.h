/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * timebins.h - IPIs per target CPU over time (report option time_bins)
 *
 * The span of the bins is known only at the end: the time stamps of the
 * first RPT_EXACT_MAX counted rows are kept as they are (bins exact); past
 * that, they go into RPT_FINE_BINS bins of 2^shift ns from origin (the
 * first row), halved in resolution whenever time runs past them, and each
 * fine bin goes to the bin of its middle at the end.
 */
#ifndef IPT_IPI_TIMEBINS_H
#define IPT_IPI_TIMEBINS_H

#include "core/core.h"

#ifndef RPT_EXACT_MAX		/* (tests may build with a small one) */
#define RPT_EXACT_MAX (1u << 22)
#endif
#define RPT_FINE_BINS 4096
struct rpt_fine_cpu {
	uint64_t *ts;			/* exact stamps (until coarse) */
	size_t n, cap;
	uint64_t *bins;			/* RPT_FINE_BINS counts (coarse), or NULL */
};
struct rpt_fine {
	struct rpt_fine_cpu *cpu;
	int ncpu;
	size_t nexact;			/* stamps kept */
	bool coarse;			/* past RPT_EXACT_MAX: fine bins */
	bool started;
	uint64_t origin;
	unsigned int shift;
};

/* One IPI counted to cpu at ts.  0, or -1 without memory. */
int ipt_fine_add(struct rpt_fine *f, int cpu, uint64_t ts);
/* The counts on nbins bins over [first_ts, last_ts], ncpus x nbins (the
 * caller frees); NULL without memory. */
uint64_t *ipt_fine_bins(const struct rpt_fine *f, int ncpus, int nbins, uint64_t first_ts, uint64_t last_ts);
void ipt_fine_free(struct rpt_fine *f);

#endif
