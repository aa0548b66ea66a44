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

/*
 * Counts by (a, b, CPU), kept as (a, b, a block of 64 CPUs) -> 64 counts: the
 * rows of one send share a and b and differ by target CPU, in order, so
 * one lookup per block of CPUs serves them all, and the counts of
 * neighbouring CPUs share lines.  Folded into a struct rpt_map (key c: the
 * CPU) at the end.
 */
#define RPT_CBLOCK 64
struct rpt_cslot {
	uint64_t tag;
	uint64_t a, b;
	uint32_t block;			/* CPUs block * 64 ... block * 64 + 63 */
	uint64_t total;			/* of n[]: while below 2^32 - 64, no n[i] can wrap */
	uint32_t n[RPT_CBLOCK];		/* a count that wraps adds 2^32 to over */
};

/*
 * The blocks of a key (a, b), by block number: a wide mask touches every
 * block of its key in turn, and a trace's keys are few and come again, so
 * that a send looks its key up once (ipt_cpumap_row) and finds each block
 * there.  A cache: the rows map is emptied when it holds RPT_MAXROWS
 * keys, and a row's pointers are valid while the slots of h stay where
 * they were (an add that grows h moves them, counted in h.moves; nothing
 * is removed from h).
 */
#define RPT_ROWBLOCKS 16		/* blocks 0 .. 15: CPUs 0 .. 1023 */
#define RPT_MAXROWS 1024		/* 168 KiB of rows */
struct rpt_cpurow {
	uint64_t tag;			/* ipt_hmap's */
	uint64_t a, b;
	uint64_t moves;			/* h.moves when the pointers were taken */
	uint16_t have;			/* bit i: blk[i] is (a, b)'s block i */
	struct rpt_cslot *blk[RPT_ROWBLOCKS];
};

struct rpt_cpumap {
	struct ipt_hmap h;		/* of struct rpt_cslot */
	struct rpt_map over;		/* (a, b, cpu) -> the 2^32s of wrapped counts */
	struct ipt_hmap rows;		/* of struct rpt_cpurow */
	struct rpt_cpurow *last;	/* the last row looked up (NULL after the
					 * rows map changed its slots) */
};

/* ipt_cpumap_row - the row of key (a, b), NULL without memory; valid
 * until the next ipt_cpumap_row of m */
struct rpt_cpurow *ipt_cpumap_find_row(struct rpt_cpumap *m, uint64_t a, uint64_t b);
static inline struct rpt_cpurow *ipt_cpumap_row(struct rpt_cpumap *m, uint64_t a, uint64_t b)
{
	struct rpt_cpurow *rw = m->last;

	if (rw && rw->a == a && rw->b == b)
		return rw;
	return ipt_cpumap_find_row(m, a, b);
}

/* ipt_cpumap_block - the counts of row rw's key on one block of CPUs (zero
 * when new), or NULL without memory; ipt_cpumap_find_block is the looking
 * up behind it */
struct rpt_cslot *ipt_cpumap_find_block(struct rpt_cpumap *m, struct rpt_cpurow *rw, uint32_t block);
static inline struct rpt_cslot *ipt_cpumap_block(struct rpt_cpumap *m, struct rpt_cpurow *rw, uint32_t block)
{
	if (rw->moves == m->h.moves && block < RPT_ROWBLOCKS && (rw->have >> block & 1))
		return rw->blk[block];
	return ipt_cpumap_find_block(m, rw, block);
}

/* Count one more for (a, b, cpu).  0, or -1 without memory. */
static inline int ipt_cpumap_add(struct rpt_cpumap *m, uint64_t a, uint64_t b, uint32_t cpu)
{
	struct rpt_cpurow *rw = ipt_cpumap_row(m, a, b);
	struct rpt_cslot *sl = rw ? ipt_cpumap_block(m, rw, cpu / RPT_CBLOCK) : NULL;

	if (!sl)
		return -1;
	sl->total++;
	if (!++sl->n[cpu % RPT_CBLOCK])
		return ipt_cmap_add_n(&m->over, a, b, cpu, (uint64_t)1 << 32);
	return 0;
}
/* One more for row rw's key on every CPU of bits (bit i: CPU block * 64 +
 * i), k the number of bits set.  0, or -1 without memory. */
int ipt_cpumap_add_bits(struct rpt_cpumap *m, struct rpt_cpurow *rw, uint32_t block, uint64_t bits,
			unsigned int k);
/* dst += m: (a, b, cpu) to key (a, b, cpu), or with sum_a to (b, cpu, 0),
 * summed over a (the sender x target matrix from the senders' counts) */
int ipt_cpumap_fold(struct rpt_map *dst, const struct rpt_cpumap *m, bool sum_a);
/* dst += src, block by block */
int ipt_cpumap_merge(struct rpt_cpumap *dst, const struct rpt_cpumap *src);
/* dst += src, and src emptied (taken whole into an empty dst: no copy) */
int ipt_cpumap_absorb(struct rpt_cpumap *dst, struct rpt_cpumap *src);
/* The entries (a, b, cpu) of m with a count, in no order; *n set, the
 * caller frees; on (NULL: all) keeps only the CPUs on(cpu, ctx) says. */
struct rpt_entry;
struct rpt_entry *ipt_cpumap_entries(const struct rpt_cpumap *m, bool (*on)(int cpu, const void *ctx),
				     const void *ctx, size_t *n);
void ipt_cpumap_free(struct rpt_cpumap *m);

/* A sorted view: the entries of m, largest count first, ties by key
 * (c, then a, then b); *n set, the caller frees. */
struct rpt_entry {
	struct rpt_key key;
	uint64_t count;
};
struct rpt_entry *ipt_cmap_sorted(const struct rpt_map *m, size_t *n);
/* The same of a struct rpt_cpumap (c: the CPU) */
struct rpt_entry *ipt_cpumap_sorted(const struct rpt_cpumap *m, size_t *n);

#endif
