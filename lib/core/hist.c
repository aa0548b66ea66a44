// SPDX-License-Identifier: LGPL-2.1-or-later
/* hist.c - latency distributions in bounded memory (see hist.h) */
#include "core/hist.h"
#include "core/core.h"

#include <math.h>
#include <stdlib.h>

static unsigned int bucket_of(uint64_t v)
{
	unsigned int e, sub;

	if (v < HIST_SUB)
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);		/* 7 .. 63 */
	sub = (unsigned int)(v >> (e - 7)) & (HIST_SUB - 1);	/* 7 bits under the top bit */
	return (e - 6) * HIST_SUB + sub;
}

static uint64_t bucket_value(unsigned int b)
{
	unsigned int e, sub;

	if (b < HIST_SUB)
		return b;
	e = b / HIST_SUB + 6;
	sub = b % HIST_SUB;
	return ((uint64_t)(HIST_SUB + sub) << (e - 7)) + ((1ULL << (e - 7)) >> 1);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* spill - move the exact samples into buckets */
static int spill(struct ipt_dist *h)
{
	h->buckets = ipt_calloc(58 * HIST_SUB, sizeof(*h->buckets));
	if (!h->buckets)
		return -1;
	for (uint64_t i = 0; i < h->count; i++)
		h->buckets[bucket_of(h->exact[i])]++;
	free(h->exact);
	h->exact = NULL;
	return 0;
}

/* hist_add - one more value */
int hist_add(struct ipt_dist *h, uint64_t v)
{
	h->sorted = false;
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	if (!h->buckets) {
		if (!h->exact) {
			h->exact = ipt_malloc(HIST_EXACT * sizeof(*h->exact));
			if (!h->exact)
				return -1;
		}
		if (h->count < HIST_EXACT) {
			h->exact[h->count++] = v;
			h->sum += v;
			return 0;
		}
		if (spill(h))
			return -1;
	}
	h->buckets[bucket_of(v)]++;
	h->count++;
	h->sum += v;
	return 0;
}

/* log_bin - the log-scale bin of a value: IPT_DIST_LOG_PER_DECADE per decade */
static int log_bin(uint64_t v)
{
	int b;

	if (v < 10)
		return 0;
	b = (int)floor(log10((double)v) * IPT_DIST_LOG_PER_DECADE) - IPT_DIST_LOG_PER_DECADE + 1;
	return b < 1 ? 1 : b > IPT_DIST_LOG_NBINS - 1 ? IPT_DIST_LOG_NBINS - 1 : b;
}

/* hist_add_log - one more value, also counted in its log-scale bin */
int hist_add_log(struct ipt_dist *h, uint64_t v)
{
	if (!h->logbins && !(h->logbins = ipt_calloc(IPT_DIST_LOG_NBINS, sizeof(*h->logbins))))
		return -1;
	if (hist_add(h, v))
		return -1;
	h->logbins[log_bin(v)]++;
	return 0;
}

/* hist_finish - sort the exact samples once */
void hist_finish(struct ipt_dist *h)
{
	if (h->sorted)
		return;		/* read only from here on */
	if (h->exact)
		qsort(h->exact, h->count, sizeof(*h->exact), cmp_u64);
	h->sorted = true;
}

/* hist_quantile - nearest-rank quantile (sorts the exact samples if needed) */
uint64_t hist_quantile(struct ipt_dist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	/* nearest rank: the smallest value with at least q * n values <= it */
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	if (h->exact) {
		hist_finish(h);
		return h->exact[rank - 1];
	}
	for (unsigned int b = 0; b < 58 * HIST_SUB; b++) {
		seen += h->buckets[b];
		if (seen >= rank) {
			uint64_t v = bucket_value(b);

			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}

/* hist_free - the memory of h (h itself is the caller's) */
void hist_free(struct ipt_dist *h)
{
	free(h->exact);
	free(h->buckets);
	free(h->logbins);
	h->exact = NULL;
	h->buckets = NULL;
	h->logbins = NULL;
}

/* ---- the public accessors ---- */

uint64_t ipt_dist_count(const struct ipt_dist *d)
{
	return d ? d->count : 0;
}

uint64_t ipt_dist_min(const struct ipt_dist *d)
{
	return d && d->count ? d->min : 0;
}

uint64_t ipt_dist_max(const struct ipt_dist *d)
{
	return d && d->count ? d->max : 0;
}

uint64_t ipt_dist_sum(const struct ipt_dist *d)
{
	return d ? d->sum : 0;
}

/* ipt_dist_quantile - read only once hist_finish() ran (the report does) */
uint64_t ipt_dist_quantile(const struct ipt_dist *d, double q)
{
	if (!d || !d->count)
		return 0;
	return hist_quantile((struct ipt_dist *)d, q);
}

uint64_t ipt_dist_log_bin(const struct ipt_dist *d, int i)
{
	if (!d || !d->logbins || i < 0 || i >= IPT_DIST_LOG_NBINS)
		return 0;
	return d->logbins[i];
}

double ipt_dist_log_bin_low(int i)
{
	if (i <= 0)
		return 0;
	return pow(10.0, 1.0 + (double)(i - 1) / IPT_DIST_LOG_PER_DECADE);
}
