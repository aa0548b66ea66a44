// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parquet_dict.c - the dictionaries of the Parquet writer's string
 * columns (PLAIN_DICTIONARY): each row group's distinct strings, in the
 * dictionary page's PLAIN encoding as they are added, found again by
 * hash, and the cache of (address, symbol) to index of the address and
 * symbol columns.
 */
#include "output/parquet.h"

struct dkey {
	const struct dict *d;
	const char *s;
	size_t len;
};

static bool dslot_eq(const void *entry, const void *key)
{
	const struct dkey *k = key;
	const struct dent *e = &k->d->ents[((const struct dslot *)entry)->idx];

	return e->len == k->len && !memcmp(k->d->data.p + e->off, k->s, k->len);
}

/* pq_dict_index - index of string s (added if new), -1 on OOM */
int64_t pq_dict_index(struct dict *d, const char *s, size_t len)
{
	uint64_t tag = ipt_hmap_tag(ipt_hash_bytes(s, len));
	struct dkey k = { d, s, len };
	struct dslot *e;

	if (ipt_hmap_reserve(&d->slots, sizeof(*e), 1))
		return -1;
	e = ipt_hmap_find(&d->slots, sizeof(*e), tag, dslot_eq, &k);
	if (ipt_hmap_used(e))
		return e->idx;
	if (d->n >= UINT32_MAX || IPT_GROW(d->ents, d->capents, d->n + 1))
		return -1;
	if (bb_le32(&d->data, (uint32_t)len))
		return -1;
	d->ents[d->n].off = (uint32_t)d->data.n;
	d->ents[d->n].len = (uint32_t)len;
	if (bb_put(&d->data, s, len))
		return -1;
	ipt_hmap_take(&d->slots, e, tag);
	e->idx = (uint32_t)d->n;
	return (int64_t)d->n++;
}

/* pq_dict_reset - empty for the next row group (the memory kept) */
void pq_dict_reset(struct dict *d)
{
	ipt_hmap_clear(&d->slots, sizeof(struct dslot));
	ipt_hmap_clear(&d->ac, sizeof(struct acache));
	d->n = 0;
	d->data.n = 0;
	d->last_ok = false;
}

void pq_dict_free(struct dict *d)
{
	ipt_hmap_free(&d->slots);
	free(d->ents);
	ipt_hmap_free(&d->ac);
	bb_free(&d->data);
	memset(d, 0, sizeof(*d));
}
