/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lanes.h - per-CPU streams decoded in parallel, merged in time order
 * (not installed)
 *
 * N producer threads ("lanes") each turn the records of some CPUs into
 * fixed-size items, in (timestamp, CPU) order, into a ring of batches; the
 * consumer (the calling thread) takes the items of every lane merged by
 * (timestamp, CPU): the order one iterator over all CPUs gives, ties
 * included.  Memory is bounded by the rings.
 */
#ifndef IPT_LANES_H
#define IPT_LANES_H

#include "core/core.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IPT_LANES_MAX 8

/* Every item starts with its key. */
struct ipt_lane_key {
	uint64_t ts;
	int32_t cpu;
	int32_t aux;	/* not the key's: room the item may use */
};

struct ipt_lanes;

/* A producer: emits the items of lane (ipt_lanes_emit) and returns 0, or -1
 * with ipt_errmsg() set. */
typedef int (*ipt_lane_fn)(struct ipt_lanes *l, int lane, void *ctx);

/*
 * Split t's CPU streams among want lanes (by size: the largest to the lane
 * with the fewest bytes); fewer when fewer streams have data, at least one.
 * *n: the number of lanes.  NULL on error.
 */
struct ipt_lanes *ipt_lanes_new(struct ipt_trace *t, int want, size_t item_size, int *n);
/*
 * The lanes to ask for when the caller leaves it to us (want 0): the
 * online CPUs, at most IPT_LANES_MAX, but one for a trace with less than
 * min_bytes of CPU data, where starting threads and filling their rings
 * costs more than they give.  want > 0 is returned as it is.
 */
int ipt_lanes_auto(const struct ipt_trace *t, int want, uint64_t min_bytes);
/* The bytes of t's CPU data (its streams, uncompressed). */
uint64_t ipt_trace_cpu_bytes(const struct ipt_trace *t);
/* min_bytes of report and rows (measured on 2 vCPUs: a 9 MB TLB storm
 * recording 26.5 -> 24.4 ms with two, a 3 MB compile one 14.9 -> 15.8) */
#define IPT_LANES_MIN_BYTES (8u << 20)
/* ... of dump, whose lanes render text merged in order (the TLB storm
 * recording 38 -> 75 ms with two) */
#define IPT_LANES_MIN_BYTES_DUMP (16u << 20)
/* The CPUs of lane i. */
const struct ipt_cpuset *ipt_lanes_cpus(const struct ipt_lanes *l, int i);
int ipt_lanes_count(const struct ipt_lanes *l);
/* Start one thread per lane running fn(l, lane, ctx).  -1 if none started. */
int ipt_lanes_start(struct ipt_lanes *l, ipt_lane_fn fn, void *ctx);
/* Producer side: a slot for the next item of lane (waits while the ring
 * is full); NULL once the run failed. */
void *ipt_lanes_emit(struct ipt_lanes *l, int lane);
/* Consumer side: the next item in (timestamp, CPU) order and its lane;
 * valid until the next call.  NULL at the end or once the run failed. */
void *ipt_lanes_next(struct ipt_lanes *l, int *lane);
/* Consumer side: stop everything with this message. */
void ipt_lanes_fail(struct ipt_lanes *l, const char *msg);
/* Wait for the producers.  0, or -1 with the first failure's message. */
int ipt_lanes_join(struct ipt_lanes *l);
/* Free; items never consumed are passed to item_free (may be NULL). */
void ipt_lanes_free(struct ipt_lanes *l, void (*item_free)(void *item));

#endif
