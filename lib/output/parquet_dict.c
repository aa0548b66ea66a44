// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parquet_dict.c - the dictionaries of the Parquet writer's string
 * columns (PLAIN_DICTIONARY): each row group's distinct strings, in the
 * dictionary page's PLAIN encoding as they are added, found again by
 * hash, and the cache of (address, symbol) to index of the address and
 * symbol columns.
 */
#include "output/parquet.h"
#include "core/hash.h"

static int dict_rehash(struct dict *d)
{
	uint32_t cap = d->cap ? d->cap * 2 : 256;
	uint32_t *s = ipt_calloc(cap, sizeof(*s));

	if (!s)
		return -1;
	for (uint32_t i = 0; i < d->n; i++) {
		uint32_t j = (uint32_t)d->ents[i].hash & (cap - 1);

		while (s[j])
			j = (j + 1) & (cap - 1);
		s[j] = i + 1;
	}
	free(d->slots);
	d->slots = s;
	d->cap = cap;
	return 0;
}

/* pq_dict_index - index of string s (added if new), -1 on OOM */
int64_t pq_dict_index(struct dict *d, const char *s, size_t len)
{
	uint64_t h = ipt_hash_bytes(s, len);
	uint32_t j;

	if ((d->n + 1) * 2 > d->cap && dict_rehash(d))
		return -1;
	j = (uint32_t)h & (d->cap - 1);
	while (d->slots[j]) {
		const struct dent *e = &d->ents[d->slots[j] - 1];

		if (e->hash == h && e->len == len && !memcmp(d->data.p + e->off, s, len))
			return d->slots[j] - 1;
		j = (j + 1) & (d->cap - 1);
	}
	if (d->n == d->capents) {
		uint32_t c = d->capents ? d->capents * 2 : 64;
		struct dent *e = ipt_realloc(d->ents, c * sizeof(*e));

		if (!e)
			return -1;
		d->ents = e;
		d->capents = c;
	}
	if (bb_le32(&d->data, (uint32_t)len))
		return -1;
	d->ents[d->n].hash = h;
	d->ents[d->n].off = (uint32_t)d->data.n;
	d->ents[d->n].len = (uint32_t)len;
	if (bb_put(&d->data, s, len))
		return -1;
	d->slots[j] = d->n + 1;
	return d->n++;
}

/* pq_ac_grow - the address cache twice as large (256 slots the first
 * time), its entries moved over; -1 on OOM */
int pq_ac_grow(struct dict *d)
{
	struct acache *old = d->ac;
	uint32_t oldcap = d->accap;

	d->accap = oldcap ? oldcap * 2 : 256;
	d->ac = ipt_calloc(d->accap, sizeof(*d->ac));
	if (!d->ac) {
		d->ac = old;
		d->accap = oldcap;
		return -1;
	}
	for (uint32_t i = 0; i < oldcap; i++)
		if (old[i].val)
			d->ac[pq_ac_slot(d, old[i].addr, old[i].sym)] = old[i];
	free(old);
	return 0;
}

/* pq_dict_reset - empty for the next row group (the memory kept) */
void pq_dict_reset(struct dict *d)
{
	if (d->slots)
		memset(d->slots, 0, d->cap * sizeof(*d->slots));
	if (d->ac)
		memset(d->ac, 0, d->accap * sizeof(*d->ac));
	d->n = 0;
	d->acn = 0;
	d->data.n = 0;
	d->last_ok = false;
}

void pq_dict_free(struct dict *d)
{
	free(d->slots);
	free(d->ents);
	free(d->ac);
	bb_free(&d->data);
	memset(d, 0, sizeof(*d));
}
