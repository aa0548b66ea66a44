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
static int spill(struct hist *h)
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

int hist_add(struct hist *h, uint64_t v)
{
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

uint64_t hist_quantile(struct hist *h, double q)
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
		qsort(h->exact, h->count, sizeof(*h->exact), cmp_u64);
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

void hist_free(struct hist *h)
{
	free(h->exact);
	free(h->buckets);
	h->exact = NULL;
	h->buckets = NULL;
}
