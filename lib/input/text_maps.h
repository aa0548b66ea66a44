/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * input/text_maps.h - the text reader's small hash tables (not installed):
 * string -> int (event names, symbol names, printk strings to their
 * index) and a set of addresses (those given a real symbol)
 *
 * Open addressing, linear probing, at most half full.  Static inline: the
 * lookups run for every line.
 */
#ifndef IPT_INPUT_TEXT_MAPS_H
#define IPT_INPUT_TEXT_MAPS_H

#include "core/core.h"
#include "core/hash.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* hash_bytes - never 0 (0 marks an empty slot) */
static inline uint32_t hash_bytes(const char *s, size_t n)
{
	uint32_t h = (uint32_t)ipt_hash_bytes(s, n);

	return h ? h : 1;
}

/* string -> int; keys point at storage that outlives the map */
struct smap_ent {
	const char *key;
	uint32_t len;
	uint32_t hash;		/* 0: empty */
	int val;
};
struct smap {
	struct smap_ent *e;
	size_t n, cap;
};

static inline struct smap_ent *smap_find(const struct smap *m, const char *k, size_t n, uint32_t h)
{
	if (!m->cap)
		return NULL;
	for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct smap_ent *e = &m->e[i];

		if (!e->hash)
			return NULL;
		if (e->hash == h && e->len == n && !memcmp(e->key, k, n))
			return e;
	}
}

static inline int smap_get(const struct smap *m, const char *k, size_t n, int *val)
{
	struct smap_ent *e = smap_find(m, k, n, hash_bytes(k, n));

	if (!e)
		return 0;
	*val = e->val;
	return 1;
}

static inline int smap_put(struct smap *m, const char *k, size_t n, int val)
{
	uint32_t h = hash_bytes(k, n);
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct smap_ent *ne = ipt_calloc(cap, sizeof(*ne));

		if (!ne)
			return -1;
		for (size_t j = 0; j < m->cap; j++) {
			if (!m->e[j].hash)
				continue;
			for (i = m->e[j].hash & (cap - 1); ne[i].hash; i = (i + 1) & (cap - 1))
				;
			ne[i] = m->e[j];
		}
		free(m->e);
		m->e = ne;
		m->cap = cap;
	}
	for (i = h & (m->cap - 1); m->e[i].hash; i = (i + 1) & (m->cap - 1))
		;
	m->e[i] = (struct smap_ent){ k, (uint32_t)n, h, val };
	m->n++;
	return 0;
}

/* set of addresses (0 is never stored) */
struct aset {
	uint64_t *a;
	size_t n, cap;
};

static inline size_t aslot(uint64_t v, size_t cap)
{
	return ipt_hash_slot(ipt_hash64(v), cap);
}

static inline bool aset_has(const struct aset *s, uint64_t v)
{
	if (!s->cap)
		return false;
	for (size_t i = aslot(v, s->cap);; i = (i + 1) & (s->cap - 1)) {
		if (s->a[i] == v)
			return true;
		if (!s->a[i])
			return false;
	}
}

static inline int aset_add(struct aset *s, uint64_t v)
{
	size_t i;

	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		uint64_t *na = ipt_calloc(cap, sizeof(*na));

		if (!na)
			return -1;
		for (size_t j = 0; j < s->cap; j++) {
			if (!s->a[j])
				continue;
			for (i = aslot(s->a[j], cap); na[i]; i = (i + 1) & (cap - 1))
				;
			na[i] = s->a[j];
		}
		free(s->a);
		s->a = na;
		s->cap = cap;
	}
	for (i = aslot(v, s->cap); s->a[i]; i = (i + 1) & (s->cap - 1))
		if (s->a[i] == v)
			return 0;
	s->a[i] = v;
	s->n++;
	return 0;
}

#endif /* IPT_INPUT_TEXT_MAPS_H */
