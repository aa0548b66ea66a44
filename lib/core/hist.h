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

#include <stdbool.h>
#include <stdint.h>

#define HIST_EXACT 4096
#define HIST_SUB 128

#include "ipitrace.h"

/* struct ipt_dist of the public API (accessors ipt_dist_* in hist.c) */
struct ipt_dist {
	uint64_t count, sum, min, max;
	uint64_t *exact;	/* first HIST_EXACT values (NULL until used) */
	uint32_t *buckets;	/* 64 * HIST_SUB, once past HIST_EXACT */
	uint64_t *logbins;	/* IPT_DIST_LOG_NBINS counts (hist_add_log), or NULL */
	bool sorted;		/* exact[] is in order */
};

int hist_add(struct ipt_dist *h, uint64_t v);
/* hist_add, and count v in its log-scale bin too (ipt_dist_log_bin) */
int hist_add_log(struct ipt_dist *h, uint64_t v);
/* The value at quantile q (0..1): nearest-rank on exact samples. */
uint64_t hist_quantile(struct ipt_dist *h, double q);
/* Sort the exact samples now, so that later quantiles only read. */
void hist_finish(struct ipt_dist *h);
void hist_free(struct ipt_dist *h);

#endif
