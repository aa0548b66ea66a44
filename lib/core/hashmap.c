// SPDX-License-Identifier: LGPL-2.1-or-later
/* hashmap.c - the one hash map (ipt_hmap_*, ipitrace-private.h) */
#include "core/core.h"

#include <stdlib.h>

/* first number of slots of a map */
#define HMAP_MIN 16

/* put - entry e (its tag set) into the empty slot for it in m */
static void put(struct ipt_hmap *m, size_t esz, const void *e)
{
	size_t mask = m->cap - 1, i = (size_t)ipt_hmap_tag_of(e) & mask;

	while (ipt_hmap_used(ipt_hmap_at(m, esz, i)))
		i = (i + 1) & mask;
	memcpy(ipt_hmap_at(m, esz, i), e, esz);
}

int ipt_hmap_grow(struct ipt_hmap *m, size_t esz, size_t more)
{
	struct ipt_hmap old = *m;
	size_t cap = m->cap ? m->cap : HMAP_MIN;

	if (more > SIZE_MAX / 2 - m->n)
		return ipt_err_code(IPT_ERR_NOMEM, "out of memory (a table of %zu entries)", m->n);
	while ((m->n + more) * 2 > cap) {
		if (cap > SIZE_MAX / 2 / esz)
			return ipt_err_code(IPT_ERR_NOMEM, "out of memory (a table of %zu entries)", m->n);
		cap *= 2;
	}
	if (cap == m->cap)
		return 0;
	/* written now rather than calloc'd: a fresh mapping read first (the
	 * probes) maps the zero page, and the first write to each page then
	 * costs a fault and a TLB shootdown of the other threads' CPUs */
	m->slot = ipt_malloc_table(cap * esz);
	if (m->slot)
		memset(m->slot, 0, cap * esz);
	if (!m->slot) {
		*m = old;
		return -1;
	}
	m->cap = cap;
	m->moves = old.moves + 1;
	for (size_t i = 0; i < old.cap; i++) {
		const void *e = ipt_hmap_at(&old, esz, i);

		if (ipt_hmap_used(e))
			put(m, esz, e);
	}
	free(old.slot);
	return 0;
}

void ipt_hmap_remove(struct ipt_hmap *m, size_t esz, void *e)
{
	size_t mask = m->cap - 1, i = (size_t)((char *)e - (char *)m->slot) / esz, j = i;

	memset(e, 0, esz);
	m->n--;
	/* backward shift: an entry after the hole moves into it unless its
	 * home lies cyclically in (hole, entry] */
	for (;;) {
		void *ej;
		size_t home;

		j = (j + 1) & mask;
		ej = ipt_hmap_at(m, esz, j);
		if (!ipt_hmap_used(ej))
			break;
		home = (size_t)ipt_hmap_tag_of(ej) & mask;
		if (((j - home) & mask) >= ((j - i) & mask)) {
			memcpy(ipt_hmap_at(m, esz, i), ej, esz);
			memset(ej, 0, esz);
			i = j;
		}
	}
}

void ipt_hmap_clear(struct ipt_hmap *m, size_t esz)
{
	if (m->cap)
		memset(m->slot, 0, m->cap * esz);
	m->n = 0;
}

void ipt_hmap_free(struct ipt_hmap *m)
{
	free(m->slot);
	*m = (struct ipt_hmap){ 0 };
}
