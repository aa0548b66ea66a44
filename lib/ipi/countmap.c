// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * countmap.c - counts by a key of three numbers, and their sorted views
 * (countmap.h)
 */
#include "ipi/countmap.h"

#include <stdlib.h>
#include <string.h>

static inline uint64_t key_hash(const struct rpt_key *k)
{
	return ipt_hash_combine(ipt_hash_combine(ipt_hash64(k->a), k->b), k->c);
}

static bool key_eq(const void *entry, const void *key)
{
	const struct rpt_key *x = &((const struct rpt_slot *)entry)->key, *y = key;

	return x->a == y->a && x->b == y->b && x->c == y->c;
}

/* ipt_cmap_add_n - count n more for key (a, b, c) */
int ipt_cmap_add_n(struct rpt_map *m, uint64_t a, uint64_t b, uint32_t c, uint64_t n)
{
	struct rpt_key k = { a, b, c };
	uint64_t tag = ipt_hmap_tag(key_hash(&k));
	bool added;
	struct rpt_slot *sl = ipt_hmap_add(&m->h, sizeof(*sl), tag, key_eq, &k, &added);

	if (!sl)
		return -1;
	if (added) {
		sl->key = k;
		sl->val = 0;
	}
	sl->val += n;
	return 0;
}

void ipt_cmap_free(struct rpt_map *m)
{
	ipt_hmap_free(&m->h);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct rpt_entry *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->key.c != y->key.c)
		return x->key.c < y->key.c ? -1 : 1;
	if (x->key.a != y->key.a)
		return x->key.a < y->key.a ? -1 : 1;
	return x->key.b < y->key.b ? -1 : x->key.b > y->key.b;
}

static inline bool before(const struct rpt_entry *x, const struct rpt_entry *y)
{
	if (x->count != y->count)
		return x->count > y->count;
	if (x->key.c != y->key.c)
		return x->key.c < y->key.c;
	if (x->key.a != y->key.a)
		return x->key.a < y->key.a;
	return x->key.b < y->key.b;
}

static inline void swap_entries(struct rpt_entry *x, struct rpt_entry *y)
{
	struct rpt_entry t = *x;

	*x = *y;
	*y = t;
}

/*
 * sort_entries - e in cmp_entry's order: qsort's, with the comparison
 * inline (the tables of many CPUs have hundreds of thousands of entries,
 * every key distinct).  Quicksort on the median of three, the smaller
 * side first, insertion sort for short runs; past a depth of twice the
 * bits of n, qsort takes the rest (no quadratic time, whatever the counts).
 */
static void sort_entries(struct rpt_entry *e, size_t n, int depth)
{
	while (n > 16) {
		size_t i = 0, j = n - 1, mid = n / 2;

		if (depth-- <= 0) {
			qsort(e, n, sizeof(*e), cmp_entry);
			return;
		}
		if (before(&e[mid], &e[0]))
			swap_entries(&e[mid], &e[0]);
		if (before(&e[n - 1], &e[0]))
			swap_entries(&e[n - 1], &e[0]);
		if (before(&e[n - 1], &e[mid]))
			swap_entries(&e[n - 1], &e[mid]);
		swap_entries(&e[mid], &e[n - 2]);	/* the pivot, out of the way */
		j = n - 2;
		for (;;) {
			while (before(&e[++i], &e[n - 2]))
				;
			while (before(&e[n - 2], &e[--j]))
				;
			if (i >= j)
				break;
			swap_entries(&e[i], &e[j]);
		}
		swap_entries(&e[i], &e[n - 2]);
		/* e[0..i) before e[i], e(i..n) after it */
		if (i < n - i - 1) {
			sort_entries(e, i, depth);
			e += i + 1;
			n -= i + 1;
		} else {
			sort_entries(e + i + 1, n - i - 1, depth);
			n = i;
		}
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && before(&e[j], &e[j - 1]); j--)
			swap_entries(&e[j], &e[j - 1]);
}

static void sort_all(struct rpt_entry *e, size_t n)
{
	int bits = 0;

	for (size_t m = n; m; m >>= 1)
		bits++;
	sort_entries(e, n, 2 * bits);
}

/* ipt_cmap_sorted - the entries of m, largest count first (ties: by key) */
struct rpt_entry *ipt_cmap_sorted(const struct rpt_map *m, size_t *n)
{
	struct rpt_entry *e = ipt_malloc((m->h.n ? m->h.n : 1) * sizeof(*e));
	size_t k = 0;

	if (!e)
		return NULL;
	for (size_t i = 0; i < m->h.cap; i++) {
		const struct rpt_slot *sl = ipt_cmap_at(m, i);

		if (sl) {
			e[k].key = sl->key;
			e[k++].count = sl->val;
		}
	}
	sort_all(e, k);
	*n = k;
	return e;
}

/* ipt_cmap_merge - dst += src */
int ipt_cmap_merge(struct rpt_map *dst, const struct rpt_map *src)
{
	for (size_t i = 0; i < src->h.cap; i++) {
		const struct rpt_slot *sl = ipt_cmap_at(src, i);

		if (sl && ipt_cmap_add_n(dst, sl->key.a, sl->key.b, sl->key.c, sl->val))
			return -1;
	}
	return 0;
}

static bool cslot_eq(const void *entry, const void *key)
{
	const struct rpt_cslot *x = entry, *y = key;

	return x->a == y->a && x->b == y->b && x->block == y->block;
}

static bool row_eq(const void *entry, const void *key)
{
	const struct rpt_cpurow *x = entry, *y = key;

	return x->a == y->a && x->b == y->b;
}

/* ipt_cpumap_find_row - ipt_cpumap_row's looking up in the rows map */
struct rpt_cpurow *ipt_cpumap_find_row(struct rpt_cpumap *m, uint64_t a, uint64_t b)
{
	struct rpt_cpurow k = { .a = a, .b = b }, *rw;
	uint64_t tag = ipt_hmap_tag(ipt_hash_combine(ipt_hash64(a), b));
	bool added;

	if (m->rows.n >= RPT_MAXROWS) {
		ipt_hmap_clear(&m->rows, sizeof(*rw));
		m->last = NULL;
	}
	if (!(rw = ipt_hmap_add(&m->rows, sizeof(*rw), tag, row_eq, &k, &added)))
		return m->last = NULL;
	if (added) {		/* zero but for the tag: no block known */
		rw->a = a;
		rw->b = b;
	}
	return m->last = rw;
}

/* ipt_cpumap_find_block - ipt_cpumap_block's looking up in the map, kept
 * in the key's row */
struct rpt_cslot *ipt_cpumap_find_block(struct rpt_cpumap *m, struct rpt_cpurow *rw, uint32_t block)
{
	struct rpt_cslot k = { .a = rw->a, .b = rw->b, .block = block };
	uint64_t tag = ipt_hmap_tag(ipt_hash_combine(ipt_hash_combine(ipt_hash64(k.a), k.b), block));
	bool added;
	struct rpt_cslot *sl = ipt_hmap_add(&m->h, sizeof(*sl), tag, cslot_eq, &k, &added);

	if (!sl)
		return NULL;
	if (added) {		/* zero but for the tag */
		sl->a = k.a;
		sl->b = k.b;
		sl->block = block;
	}
	if (rw->moves != m->h.moves) {
		rw->moves = m->h.moves;
		rw->have = 0;
	}
	if (block < RPT_ROWBLOCKS) {
		rw->blk[block] = sl;
		rw->have |= (uint16_t)(1u << block);
	}
	return sl;
}

/* ipt_cpumap_fold - dst += m, one entry per CPU with a count */
int ipt_cpumap_fold(struct rpt_map *dst, const struct rpt_cpumap *m, bool sum_a)
{
	for (size_t i = 0; i < m->h.cap; i++) {
		const struct rpt_cslot *sl = ipt_hmap_at(&m->h, sizeof(*sl), i);

		if (!ipt_hmap_used(sl))
			continue;
		for (uint32_t j = 0; j < RPT_CBLOCK; j++) {
			uint32_t cpu = sl->block * RPT_CBLOCK + j;

			if (sl->n[j] && ipt_cmap_add_n(dst, sum_a ? sl->b : sl->a, sum_a ? cpu : sl->b,
						       sum_a ? 0 : cpu, sl->n[j]))
				return -1;
		}
	}
	for (size_t i = 0; i < m->over.h.cap; i++) {
		const struct rpt_slot *sl = ipt_cmap_at(&m->over, i);

		if (sl && ipt_cmap_add_n(dst, sum_a ? sl->key.b : sl->key.a, sum_a ? sl->key.c : sl->key.b,
					 sum_a ? 0 : sl->key.c, sl->val))
			return -1;
	}
	return 0;
}

void ipt_cpumap_free(struct rpt_cpumap *m)
{
	ipt_hmap_free(&m->h);
	ipt_cmap_free(&m->over);
	ipt_hmap_free(&m->rows);
	m->last = NULL;
}

/* ipt_cpumap_merge - dst += src */
int ipt_cpumap_merge(struct rpt_cpumap *dst, const struct rpt_cpumap *src)
{
	for (size_t i = 0; i < src->h.cap; i++) {
		const struct rpt_cslot *sl = ipt_hmap_at(&src->h, sizeof(*sl), i);
		struct rpt_cpurow *rw;
		struct rpt_cslot *d;

		if (!ipt_hmap_used(sl))
			continue;
		if (!(rw = ipt_cpumap_row(dst, sl->a, sl->b)) || !(d = ipt_cpumap_block(dst, rw, sl->block)))
			return -1;
		for (uint32_t j = 0; j < RPT_CBLOCK; j++) {
			uint32_t was = d->n[j];

			d->n[j] += sl->n[j];
			d->total += sl->n[j];
			if (d->n[j] < was &&	/* wrapped */
			    ipt_cmap_add_n(&dst->over, sl->a, sl->b, sl->block * RPT_CBLOCK + j, (uint64_t)1 << 32))
				return -1;
		}
	}
	return ipt_cmap_merge(&dst->over, &src->over);
}

/* ipt_cpumap_absorb - dst += src, src emptied: taken whole when dst is empty */
int ipt_cpumap_absorb(struct rpt_cpumap *dst, struct rpt_cpumap *src)
{
	int ret = 0;

	if (!dst->h.n && !dst->over.h.n) {
		ipt_cpumap_free(dst);
		*dst = *src;		/* the rows and last move with their map */
		*src = (struct rpt_cpumap){ 0 };
		return 0;
	}
	ret = ipt_cpumap_merge(dst, src);
	ipt_cpumap_free(src);
	return ret;
}

static int cmp_abc(const void *a, const void *b)
{
	const struct rpt_entry *x = a, *y = b;

	if (x->key.a != y->key.a)
		return x->key.a < y->key.a ? -1 : 1;
	if (x->key.b != y->key.b)
		return x->key.b < y->key.b ? -1 : 1;
	return x->key.c < y->key.c ? -1 : x->key.c > y->key.c;
}

/* ipt_cpumap_entries - the entries with a count (those of on), in no order */
struct rpt_entry *ipt_cpumap_entries(const struct rpt_cpumap *m, bool (*on)(int cpu, const void *ctx),
				     const void *ctx, size_t *n)
{
	size_t k = 0, cap = 64;
	struct rpt_entry *e = ipt_malloc(cap * sizeof(*e));

	if (!e)
		return NULL;
	for (size_t i = 0; i < m->h.cap; i++) {
		const struct rpt_cslot *sl = ipt_hmap_at(&m->h, sizeof(*sl), i);

		if (!ipt_hmap_used(sl))
			continue;
		for (uint32_t j = 0; j < RPT_CBLOCK; j++) {
			int cpu = (int)(sl->block * RPT_CBLOCK + j);

			if (!sl->n[j] || (on && !on(cpu, ctx)))
				continue;
			if (IPT_GROW(e, cap, k + 1)) {
				free(e);
				return NULL;
			}
			e[k].key = (struct rpt_key){ sl->a, sl->b, (uint32_t)cpu };
			e[k++].count = sl->n[j];
		}
	}
	if (m->over.h.n) {
		/* wrapped counts (2^32 rows to one CPU from one key): added to
		 * their entries, which sorting brings next to them */
		for (size_t i = 0; i < m->over.h.cap; i++) {
			const struct rpt_slot *sl = ipt_cmap_at(&m->over, i);

			if (!sl || (on && !on((int)sl->key.c, ctx)))
				continue;
			if (IPT_GROW(e, cap, k + 1)) {
				free(e);
				return NULL;
			}
			e[k].key = sl->key;
			e[k++].count = sl->val;
		}
		qsort(e, k, sizeof(*e), cmp_abc);
		size_t o = 0;

		for (size_t i = 0; i < k; i++) {
			if (o && !cmp_abc(&e[o - 1], &e[i]))
				e[o - 1].count += e[i].count;
			else
				e[o++] = e[i];
		}
		k = o;
	}
	*n = k;
	return e;
}

/* ipt_cpumap_sorted - as ipt_cmap_sorted */
struct rpt_entry *ipt_cpumap_sorted(const struct rpt_cpumap *m, size_t *n)
{
	struct rpt_entry *e = ipt_cpumap_entries(m, NULL, NULL, n);

	if (e)
		sort_all(e, *n);
	return e;
}

/* four counts at once (GCC's vector extension: SSE2 on x86_64, NEON on arm64) */
typedef uint32_t v4u __attribute__((vector_size(16)));

/* nibble_ones[x]: 1 in the counts whose bit is set in x */
static const v4u nibble_ones[16] = {
	{ 0, 0, 0, 0 }, { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 1, 1, 0, 0 },
	{ 0, 0, 1, 0 }, { 1, 0, 1, 0 }, { 0, 1, 1, 0 }, { 1, 1, 1, 0 },
	{ 0, 0, 0, 1 }, { 1, 0, 0, 1 }, { 0, 1, 0, 1 }, { 1, 1, 0, 1 },
	{ 0, 0, 1, 1 }, { 1, 0, 1, 1 }, { 0, 1, 1, 1 }, { 1, 1, 1, 1 },
};

/* ipt_cpumap_add_bits - one more for row rw's key on every CPU of bits (k of them) */
int ipt_cpumap_add_bits(struct rpt_cpumap *m, struct rpt_cpurow *rw, uint32_t block, uint64_t bits,
			unsigned int k)
{
	struct rpt_cslot *sl = ipt_cpumap_block(m, rw, block);

	if (!sl)
		return -1;
	if (sl->total + RPT_CBLOCK < UINT32_MAX) {
		/* no count can wrap: wide masks add to four counts at a time,
		 * without a branch */
		if (k > 16) {
			for (unsigned int i = 0; i < RPT_CBLOCK; i += 4) {
				v4u v;

				memcpy(&v, &sl->n[i], sizeof(v));
				v += nibble_ones[bits >> i & 15];
				memcpy(&sl->n[i], &v, sizeof(v));
			}
		} else {
			for (; bits; bits &= bits - 1)
				sl->n[__builtin_ctzll(bits)]++;
		}
	} else {
		for (; bits; bits &= bits - 1) {
			unsigned int i = (unsigned int)__builtin_ctzll(bits);

			if (!++sl->n[i] && ipt_cmap_add_n(&m->over, rw->a, rw->b, block * RPT_CBLOCK + i, (uint64_t)1 << 32))
				return -1;
		}
	}
	sl->total += k;
	return 0;
}
