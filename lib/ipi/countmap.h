/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * countmap.h - counts by a key of three numbers, and their sorted views
 *
 * The report's tables (senders, call site pairs, the matrix, stacks) are
 * counting maps: a key (a, b, c) to the number of rows that had it, in
 * the library's hash map.  The meaning of a, b and c is the table's (report.h).
 */
#ifndef IPT_IPI_COUNTMAP_H
#define IPT_IPI_COUNTMAP_H

#include "core/core.h"

struct rpt_key {
	uint64_t a, b;
	uint32_t c;
};

struct rpt_slot {			/* an entry of the map (ipt_hmap) */
	uint64_t tag;
	struct rpt_key key;
	uint64_t val;			/* key, tag and count share a cache line */
};

struct rpt_map {			/* rpt_key -> count */
	struct ipt_hmap h;		/* of struct rpt_slot */
};

/* Slot i (0 .. m->h.cap - 1) of m, or NULL when it is empty. */
static inline const struct rpt_slot *ipt_cmap_at(const struct rpt_map *m, size_t i)
{
	const struct rpt_slot *sl = ipt_hmap_at(&m->h, sizeof(*sl), i);

	return ipt_hmap_used(sl) ? sl : NULL;
}

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
