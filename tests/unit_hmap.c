/*
 * unit_hmap.c - the one hash map (ipt_hmap_*) and the one growth helper
 * (ipt_grow, IPT_GROW, IPT_GROW_ZERO) against a plain second
 * implementation: a flat array of the keys present, searched linearly.
 *
 * Random inserts, finds and removes (a fixed seed), with a hash function
 * that puts many keys on few home slots so that runs wrap around the end
 * of the table and every deletion shifts entries back; after each step
 * the map and the reference must agree on every key ever used.
 */
#include "ipitrace-private.h"
#include "testlib.h"

#include <stdint.h>

struct ent {
	uint64_t tag;
	uint32_t key;
	uint32_t val;
};

static bool ent_eq(const void *entry, const void *key)
{
	return ((const struct ent *)entry)->key == *(const uint32_t *)key;
}

/* few home slots: keys collide, runs are long and wrap */
static uint64_t tag_of(uint32_t key, int spread)
{
	return ipt_hmap_tag(spread ? ipt_hash64(key) : (uint64_t)(key % 5) * 0x1111111111111111ULL + 13);
}

static unsigned long long rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	return t_xorshift64(&rnd_state);
}

/* the reference: val + 1 per key (0: absent) */
#define NKEYS 600
static uint32_t ref[NKEYS];

static int agree(const struct ipt_hmap *m, int spread)
{
	size_t n = 0;

	for (uint32_t k = 0; k < NKEYS; k++) {
		const struct ent *e = ipt_hmap_find(m, sizeof(*e), tag_of(k, spread), ent_eq, &k);
		bool in = e && ipt_hmap_used(e);

		if (in != (ref[k] != 0) || (in && e->val + 1 != ref[k]))
			return 0;
		n += in;
	}
	return n == m->n;
}

static void random_ops(int spread)
{
	struct ipt_hmap m = { 0 };
	int bad = 0, removes = 0;

	memset(ref, 0, sizeof(ref));
	for (int step = 0; step < 20000 && !bad; step++) {
		uint32_t k = (uint32_t)(rnd() % NKEYS);
		uint64_t tag = tag_of(k, spread);
		struct ent *e;

		switch (rnd() % 4) {
		case 0:
		case 1:	/* insert or update */
			if (ipt_hmap_reserve(&m, sizeof(*e), 1)) {
				bad = 1;
				break;
			}
			e = ipt_hmap_find(&m, sizeof(*e), tag, ent_eq, &k);
			if (!ipt_hmap_used(e)) {
				ipt_hmap_take(&m, e, tag);
				e->key = k;
			}
			e->val = (uint32_t)step;
			ref[k] = (uint32_t)step + 1;
			break;
		case 2:	/* remove */
			e = ipt_hmap_find(&m, sizeof(*e), tag, ent_eq, &k);
			if (e && ipt_hmap_used(e)) {
				ipt_hmap_remove(&m, sizeof(*e), e);
				removes++;
			}
			ref[k] = 0;
			break;
		default:
			break;
		}
		if (step % 97 == 0 || step < 300)
			bad |= !agree(&m, spread);
	}
	CHECK(!bad && agree(&m, spread), "map and reference disagree (spread %d)", spread);
	CHECK(removes > 1000, "removes exercised: %d", removes);
	CHECK(m.cap && m.n * 2 <= m.cap, "at most half full: %zu of %zu", m.n, m.cap);
	ipt_hmap_clear(&m, sizeof(struct ent));
	memset(ref, 0, sizeof(ref));
	CHECK(m.n == 0 && agree(&m, spread), "cleared");
	ipt_hmap_free(&m);
	CHECK(!m.slot && !m.cap && !m.n, "freed");
}

static void empty_map(void)
{
	struct ipt_hmap m = { 0 };
	uint32_t k = 7;

	CHECK(!ipt_hmap_find(&m, sizeof(struct ent), tag_of(k, 1), ent_eq, &k), "an empty map finds nothing");
	CHECK(ipt_hmap_tag(0) != 0, "a tag is never 0");
	ipt_hmap_free(&m);
}

static void growth(void)
{
	int *v = NULL;
	size_t cap = 0;
	uint8_t *z = NULL;
	uint8_t small_cap = 0;
	int16_t *w = NULL;
	int wcap = 0;
	bool zeroed = true;
	volatile size_t none = 0;

	CHECK(IPT_GROW(v, cap, none) == 0 && !v && cap == 0, "no room asked: nothing allocated");
	for (size_t n = 1; n <= 5000; n++) {
		if (IPT_GROW(v, cap, n))
			break;
		v[n - 1] = (int)n;
	}
	CHECK(cap >= 5000 && cap < 10000, "room for 5000: %zu", cap);
	CHECK(v[0] == 1 && v[4999] == 5000, "kept while growing");
	/* the bound of the capacity's type: an uint8_t holds at most 255 */
	CHECK(IPT_GROW(z, small_cap, 200) == 0 && small_cap >= 200, "200 in a uint8_t: %u", small_cap);
	CHECK(IPT_GROW(z, small_cap, 255) == 0 && small_cap == 255, "255 in a uint8_t: %u", small_cap);
	CHECK(IPT_GROW(z, small_cap, 256) == -1 && small_cap == 255, "256 in a uint8_t refused");
	CHECK(ipt_errcode() == IPT_ERR_NOMEM, "refused as out of memory");
	/* zeroed growth, an int capacity */
	for (int i = 0; i < 100; i += 7) {
		if (IPT_GROW_ZERO(w, wcap, i + 1))
			break;
		for (int j = 0; j <= i; j++)
			zeroed &= w[j] == 0 || w[j] == (int16_t)(j + 1);
		w[i] = (int16_t)(i + 1);
	}
	CHECK(zeroed && wcap >= 99, "new room zeroed (cap %d)", wcap);
	/* the functions behind the macros, called as they are */
	{
		char *b = NULL;
		size_t bc = 0;

		CHECK(ipt_grow(&b, &bc, 1, 40, 64) == 0 && bc >= 40 && bc <= 64, "ipt_grow: %zu", bc);
		CHECK(ipt_grow(&b, &bc, 1, 65, 64) == -1, "ipt_grow past max refused");
		free(b);
		b = NULL;
		bc = 0;
		CHECK(ipt_grow_zero(&b, &bc, 1, 64, 64) == 0 && bc == 64 && !b[0] && !b[63], "ipt_grow_zero: %zu", bc);
		free(b);
	}
	free(v);
	free(z);
	free(w);
}

/* ipt_hmap_grow: room for many at once, then no growth while they go in */
static void reserve_many(void)
{
	struct ipt_hmap m = { 0 };
	size_t cap;
	bool same = true;

	CHECK(ipt_hmap_grow(&m, sizeof(struct ent), 1000) == 0 && m.cap >= 2000, "room for 1000: %zu", m.cap);
	cap = m.cap;
	for (uint32_t k = 0; k < 1000; k++) {
		uint64_t tag = tag_of(k, 1);
		struct ent *e;

		same &= ipt_hmap_reserve(&m, sizeof(*e), 1) == 0 && m.cap == cap;
		e = ipt_hmap_find(&m, sizeof(*e), tag, ent_eq, &k);
		ipt_hmap_take(&m, e, tag);
		e->key = k;
	}
	CHECK(same && m.n == 1000, "1000 in without growing (%zu)", m.n);
	ipt_hmap_free(&m);
}

int main(void)
{
	random_ops(1);
	random_ops(0);
	empty_map();
	growth();
	reserve_many();
	TEST_MAIN_END();
}
