/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hist.h - latency distributions in bounded memory
 *
 * The first HIST_EXACT values are kept as they are, so small samples give
 * exact percentiles; past that, values go into log-linear buckets (128 per
 * power of two: under 1% relative error) and memory stays constant.
 */
#ifndef IPT_HIST_H
#define IPT_HIST_H

#include <stdint.h>

#define HIST_EXACT 4096
#define HIST_SUB 128

struct hist {
	uint64_t count, sum, min, max;
	uint64_t *exact;	/* first HIST_EXACT values (NULL until used) */
	uint32_t *buckets;	/* 64 * HIST_SUB, once past HIST_EXACT */
};

int hist_add(struct hist *h, uint64_t v);
/* The value at quantile q (0..1): nearest-rank on exact samples. */
uint64_t hist_quantile(struct hist *h, double q);
void hist_free(struct hist *h);

#endif
