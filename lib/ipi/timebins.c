// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * timebins.c - IPIs per target CPU over time: the stamps and fine bins
 * kept during the pass, the bins asked for at the end (timebins.h)
 */
#include "ipi/timebins.h"

#include <stdlib.h>
#include <string.h>

/* fine_coarsen - half the resolution of the fine bins: pairs become one */
static void fine_coarsen(struct rpt_fine *f)
{
	f->shift++;
	for (int c = 0; c < f->ncpu; c++) {
		uint64_t *b = f->cpu[c].bins;

		if (!b)
			continue;
		for (int i = 0; i < RPT_FINE_BINS / 2; i++)
			b[i] = b[2 * i] + b[2 * i + 1];
		memset(b + RPT_FINE_BINS / 2, 0, RPT_FINE_BINS / 2 * sizeof(*b));
	}
}

/* fine_put - one IPI at ts in cpu's fine bins */
static int fine_put(struct rpt_fine *f, int cpu, uint64_t ts)
{
	struct rpt_fine_cpu *fc = &f->cpu[cpu];
	uint64_t j;

	if (!fc->bins && !(fc->bins = ipt_calloc(RPT_FINE_BINS, sizeof(*fc->bins))))
		return -1;
	/* time runs forward; a stamp from before the first falls in bin 0 */
	j = ts > f->origin ? (ts - f->origin) >> f->shift : 0;
	while (j >= RPT_FINE_BINS) {
		fine_coarsen(f);
		j >>= 1;
	}
	fc->bins[j]++;
	return 0;
}

/* fine_go_coarse - too many stamps kept: into fine bins with them */
static int fine_go_coarse(struct rpt_fine *f)
{
	f->coarse = true;
	for (int c = 0; c < f->ncpu; c++) {
		struct rpt_fine_cpu *fc = &f->cpu[c];

		for (size_t i = 0; i < fc->n; i++)
			if (fine_put(f, c, fc->ts[i]))
				return -1;
		free(fc->ts);
		fc->ts = NULL;
		fc->n = fc->cap = 0;
	}
	return 0;
}

/* ipt_fine_add - one IPI counted to cpu at ts, for the time bins */
int ipt_fine_add(struct rpt_fine *f, int cpu, uint64_t ts)
{
	struct rpt_fine_cpu *fc;

	if (IPT_GROW_ZERO(f->cpu, f->ncpu, cpu + 1))
		return -1;
	if (!f->started) {
		f->origin = ts;
		f->started = true;
	}
	if (f->coarse)
		return fine_put(f, cpu, ts);
	fc = &f->cpu[cpu];
	if (IPT_GROW(fc->ts, fc->cap, fc->n + 1))
		return -1;
	fc->ts[fc->n++] = ts;
	if (++f->nexact > RPT_EXACT_MAX)
		return fine_go_coarse(f);
	return 0;
}

/* time_bin - the bin of ts among nb over [t0, t0 + span) */
static size_t time_bin(uint64_t ts, uint64_t t0, uint64_t span, uint64_t nb)
{
	uint64_t d = ts > t0 ? ts - t0 : 0;
	uint64_t b = (uint64_t)((double)d / (double)span * (double)nb);

	return (size_t)(b >= nb ? nb - 1 : b);
}

/* ipt_fine_bins - the IPIs per target CPU on nbins bins over the time
 * span: exact from the stamps kept; from fine bins, each goes whole to the
 * bin of its middle */
uint64_t *ipt_fine_bins(const struct rpt_fine *f, int ncpus, int nbins, uint64_t first_ts, uint64_t last_ts)
{
	uint64_t nb = (uint64_t)nbins, t0 = first_ts;
	uint64_t span = last_ts > first_ts ? last_ts - first_ts + 1 : 1;
	uint64_t half = f->shift ? 1ULL << (f->shift - 1) : 0;
	uint64_t *bins = ipt_calloc((size_t)(ncpus ? ncpus : 1) * nb, sizeof(*bins));

	if (!bins)
		return NULL;
	for (int c = 0; c < f->ncpu && c < ncpus; c++) {
		const struct rpt_fine_cpu *fc = &f->cpu[c];
		uint64_t *out = bins + (size_t)c * nb;

		for (size_t i = 0; i < fc->n; i++)
			out[time_bin(fc->ts[i], t0, span, nb)]++;
		for (uint64_t j = 0; fc->bins && j < RPT_FINE_BINS; j++) {
			uint64_t mid;

			if (!fc->bins[j])
				continue;
			mid = f->origin + (j << f->shift) + half;
			if (mid < f->origin || mid > last_ts)	/* wrapped, or past the end */
				mid = last_ts;
			out[time_bin(mid, t0, span, nb)] += fc->bins[j];
		}
	}
	return bins;
}

void ipt_fine_free(struct rpt_fine *f)
{
	for (int c = 0; c < f->ncpu; c++) {
		free(f->cpu[c].ts);
		free(f->cpu[c].bins);
	}
	free(f->cpu);
	memset(f, 0, sizeof(*f));
}

