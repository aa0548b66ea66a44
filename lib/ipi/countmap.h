/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * countmap.h - counts by a key of three numbers, and their sorted views
 *
 * The report's tables (senders, call site pairs, the matrix, stacks) are
 * counting maps: a key (a, b, c) to the number of rows that had it, in
 * open addressing.  The meaning of a, b and c is the table's (report.h).
 */
#ifndef IPT_IPI_COUNTMAP_H
#define IPT_IPI_COUNTMAP_H

#include "core/core.h"

struct rpt_key {
	uint64_t a, b;
	uint32_t c;
};

struct rpt_slot {
	struct rpt_key key;
	bool used;
	uint64_t val;
};

struct rpt_map {			/* rpt_key -> count (open addressing) */
	struct rpt_slot *slot;		/* key, flag and count share a cache line */
	size_t n, cap;
};

/* Count n more for key (a, b, c).  0, or -1 without memory. */
int ipt_cmap_add_n(struct rpt_map *m, uint64_t a, uint64_t b, uint32_t c, uint64_t n);
static inline int ipt_cmap_add(struct rpt_map *m, uint64_t a, uint64_t b, uint32_t c)
{
	return ipt_cmap_add_n(m, a, b, c, 1);
}
/* dst += src */
int ipt_cmap_merge(struct rpt_map *dst, const struct rpt_map *src);
void ipt_cmap_free(struct rpt_map *m);

/* A sorted view: the entries of m, largest count first, ties by key
 * (c, then a, then b); *n set, the caller frees. */
struct rpt_entry {
	struct rpt_key key;
	uint64_t count;
};
struct rpt_entry *ipt_cmap_sorted(const struct rpt_map *m, size_t *n);

#endif
