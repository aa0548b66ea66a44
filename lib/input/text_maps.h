/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * input/text_maps.h - the text reader's small hash tables (not installed):
 * string -> int (event names, symbol names, printk strings to their
 * index) and a set of addresses (those given a real symbol)
 *
 * On the one hash map (ipt_hmap, ipitrace-private.h).  Static inline: the
 * lookups run for every line.
 */
#ifndef IPT_INPUT_TEXT_MAPS_H
#define IPT_INPUT_TEXT_MAPS_H

#include "core/core.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* string -> int; keys point at storage that outlives the map */
struct smap_ent {
	uint64_t tag;		/* the hash map's */
	const char *key;
	size_t len;
	int val;
};
struct smap {
	struct ipt_hmap h;	/* of struct smap_ent */
};

struct smap_key {
	const char *s;
	size_t n;
};

static inline bool smap_eq(const void *entry, const void *key)
{
	const struct smap_ent *e = entry;
	const struct smap_key *k = key;

	return e->len == k->n && !memcmp(e->key, k->s, k->n);
}

static inline int smap_get(const struct smap *m, const char *k, size_t n, int *val)
{
	struct smap_key key = { k, n };
	const struct smap_ent *e = ipt_hmap_find(&m->h, sizeof(*e), ipt_hmap_tag(ipt_hash_bytes(k, n)),
						 smap_eq, &key);

	if (!e || !ipt_hmap_used(e))
		return 0;
	*val = e->val;
	return 1;
}

/* smap_put - k -> val (an existing k keeps its value) */
static inline int smap_put(struct smap *m, const char *k, size_t n, int val)
{
	struct smap_key key = { k, n };
	uint64_t tag = ipt_hmap_tag(ipt_hash_bytes(k, n));
	bool added;
	struct smap_ent *e = ipt_hmap_add(&m->h, sizeof(*e), tag, smap_eq, &key, &added);

	if (!e)
		return -1;
	if (added)
		*e = (struct smap_ent){ tag, k, n, val };
	return 0;
}

/* set of addresses */
struct aset_ent {
	uint64_t tag;
	uint64_t addr;
};
struct aset {
	struct ipt_hmap h;	/* of struct aset_ent */
};

static inline bool aset_eq(const void *entry, const void *key)
{
	return ((const struct aset_ent *)entry)->addr == *(const uint64_t *)key;
}

static inline bool aset_has(const struct aset *s, uint64_t v)
{
	const struct aset_ent *e = ipt_hmap_find(&s->h, sizeof(*e), ipt_hmap_tag(ipt_hash64(v)), aset_eq, &v);

	return e && ipt_hmap_used(e);
}

static inline int aset_add(struct aset *s, uint64_t v)
{
	uint64_t tag = ipt_hmap_tag(ipt_hash64(v));
	bool added;
	struct aset_ent *e = ipt_hmap_add(&s->h, sizeof(*e), tag, aset_eq, &v, &added);

	if (!e)
		return -1;
	e->addr = v;
	return 0;
}

#endif /* IPT_INPUT_TEXT_MAPS_H */
