// SPDX-License-Identifier: LGPL-2.1-or-later
/* csdq.c - csd calls queued and not yet run, by pointer and target (csdq.h) */
#include "ipi/csdq.h"

struct csd_key {
	uint64_t csd;
	int32_t target;
};

static bool call_eq(const void *entry, const void *key)
{
	const struct ipt_csd_call *e = entry;
	const struct csd_key *k = key;

	return e->csd == k->csd && e->target == k->target;
}

static uint64_t call_tag(uint64_t csd, int32_t target)
{
	return ipt_hmap_tag(ipt_hash_combine(ipt_hash64(csd), (uint64_t)(uint32_t)target));
}

int ipt_csdq_put(struct ipt_csdq *q, const struct ipt_csd_call *c)
{
	struct csd_key k = { c->csd, c->target };
	struct ipt_csd_call *e;
	uint64_t tag = call_tag(c->csd, c->target);
	bool added;

	if (q->h.n >= IPT_CSDQ_MAX) {
		q->given_up += q->h.n;
		ipt_hmap_clear(&q->h, sizeof(*e));
	}
	e = ipt_hmap_add(&q->h, sizeof(*e), tag, call_eq, &k, &added);
	if (!e)
		return -1;
	*e = *c;
	e->tag = tag;
	return 0;
}

bool ipt_csdq_take(struct ipt_csdq *q, uint64_t csd, int32_t target, struct ipt_csd_call *out)
{
	struct csd_key k = { csd, target };
	struct ipt_csd_call *e;

	if (!q->h.n)
		return false;
	e = ipt_hmap_find(&q->h, sizeof(*e), call_tag(csd, target), call_eq, &k);
	if (!ipt_hmap_used(e))
		return false;
	*out = *e;
	ipt_hmap_remove(&q->h, sizeof(*e), e);
	return true;
}

void ipt_csdq_free(struct ipt_csdq *q)
{
	ipt_hmap_free(&q->h);
	q->given_up = 0;
}
