// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * countmap.c - counts by a key of three numbers, and their sorted views
 * (countmap.h)
 */
#include "ipi/countmap.h"
#include "core/hash.h"

#include <stdlib.h>
#include <string.h>

static inline uint64_t key_hash(const struct rpt_key *k)
{
	return ipt_hash_combine(ipt_hash_combine(ipt_hash64(k->a), k->b), k->c);
}

static bool key_eq(const struct rpt_key *x, const struct rpt_key *y)
{
	return x->a == y->a && x->b == y->b && x->c == y->c;
}

static int map_grow(struct rpt_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	struct rpt_slot *ns = ipt_calloc(cap, sizeof(*ns));

	if (!ns)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->slot[i].used)
			continue;
		j = ipt_hash_slot(key_hash(&m->slot[i].key), cap);
		while (ns[j].used)
			j = (j + 1) & (cap - 1);
		ns[j] = m->slot[i];
	}
	free(m->slot);
	m->slot = ns;
	m->cap = cap;
	return 0;
}

/* ipt_cmap_add_n - count n more for key (a, b, c) */
int ipt_cmap_add_n(struct rpt_map *m, uint64_t a, uint64_t b, uint32_t c, uint64_t n)
{
	struct rpt_key k = { a, b, c };
	struct rpt_slot *sl;
	size_t j;

	if ((m->n + 1) * 4 > m->cap * 3 && map_grow(m))
		return -1;
	j = ipt_hash_slot(key_hash(&k), m->cap);
	while (m->slot[j].used && !key_eq(&m->slot[j].key, &k))
		j = (j + 1) & (m->cap - 1);
	sl = &m->slot[j];
	if (!sl->used) {
		sl->used = true;
		sl->key = k;
		sl->val = 0;
		m->n++;
	}
	sl->val += n;
	return 0;
}

void ipt_cmap_free(struct rpt_map *m)
{
	free(m->slot);
	memset(m, 0, sizeof(*m));
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

/* ipt_cmap_sorted - the entries of m, largest count first (ties: by key) */
struct rpt_entry *ipt_cmap_sorted(const struct rpt_map *m, size_t *n)
{
	struct rpt_entry *e = ipt_malloc((m->n ? m->n : 1) * sizeof(*e));
	size_t k = 0;

	if (!e)
		return NULL;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slot[i].used) {
			e[k].key = m->slot[i].key;
			e[k++].count = m->slot[i].val;
		}
	qsort(e, k, sizeof(*e), cmp_entry);
	*n = k;
	return e;
}

/* ipt_cmap_merge - dst += src */
int ipt_cmap_merge(struct rpt_map *dst, const struct rpt_map *src)
{
	for (size_t i = 0; i < src->cap; i++) {
		const struct rpt_slot *sl = &src->slot[i];

		if (sl->used && ipt_cmap_add_n(dst, sl->key.a, sl->key.b, sl->key.c, sl->val))
			return -1;
	}
	return 0;
}
