/*
 * unit_countmap.c - the counts by (a, b, CPU) of the report's tables
 * (struct rpt_cpumap, lib/ipi/countmap.c) against a plain second
 * implementation: a dense array of counts per (key, CPU), added to one by
 * one.
 *
 * The map keeps a row per key of the blocks it found (a cache): the keys
 * here are more than that cache holds (so that it is emptied and filled
 * again), come in random order (rows made and looked up again), reach
 * CPUs past the blocks a row keeps, and grow the map (moving the blocks
 * the rows point to).  Adds of single CPUs and of whole words of CPUs are
 * mixed; then merging one map into another must give the sum.
 */
#include "ipi/countmap.h"
#include "testlib.h"

#include <stdint.h>
#include <stdlib.h>

#define NKEYS (RPT_MAXROWS + 300)
#define NCPUS (RPT_ROWBLOCKS * RPT_CBLOCK + 130)	/* past a row's blocks */
#define NWORDS ((NCPUS + 63) / 64)

static unsigned long long rnd_state = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	return t_xorshift64(&rnd_state);
}

/* key i's (a, b): b repeats across keys, a pointer-sized a */
static uint64_t key_a(size_t i)
{
	return 0xffffffff81000000ULL + i * 0x40;
}

static uint64_t key_b(size_t i)
{
	return i % 7;
}

/* add - n random adds to m and to ref[key][cpu] */
static int add(struct rpt_cpumap *m, uint32_t *ref, size_t n)
{
	for (size_t j = 0; j < n; j++) {
		/* a key often the one before, else any */
		static size_t k;
		uint64_t r = rnd();

		if (r % 4)
			k = (size_t)(rnd() % NKEYS);
		if (r % 3) {
			uint32_t cpu = (uint32_t)(rnd() % NCPUS);

			if (ipt_cpumap_add(m, key_a(k), key_b(k), cpu))
				return -1;
			ref[k * NCPUS + cpu]++;
		} else {
			/* a mask over every word, as a send's targets */
			struct rpt_cpurow *rw = ipt_cpumap_row(m, key_a(k), key_b(k));

			if (!rw)
				return -1;
			for (uint32_t w = 0; w < NWORDS; w++) {
				uint64_t bits = rnd() & rnd();

				if (w == NWORDS - 1 && NCPUS % 64)
					bits &= ((uint64_t)1 << (NCPUS % 64)) - 1;
				if (w % 2 && r % 5 == 0)
					bits = ~(uint64_t)0 >> (w == NWORDS - 1 ? 64 - NCPUS % 64 : 0);
				if (!bits)
					continue;
				if (ipt_cpumap_add_bits(m, rw, w, bits, (unsigned int)__builtin_popcountll(bits)))
					return -1;
				for (uint64_t x = bits; x; x &= x - 1)
					ref[k * NCPUS + w * 64 + (unsigned int)__builtin_ctzll(x)]++;
			}
		}
	}
	return 0;
}

/* agree - every entry of m is ref's, and m has as many entries as ref has
 * counts above zero */
static void agree(const struct rpt_cpumap *m, const uint32_t *ref, const char *what)
{
	size_t n = 0, want = 0, bad = 0;
	struct rpt_entry *e = ipt_cpumap_entries(m, NULL, NULL, &n);

	CHECK(e != NULL, "%s: entries", what);
	if (!e)
		return;
	for (size_t i = 0; i < (size_t)NKEYS * NCPUS; i++)
		want += ref[i] != 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = (size_t)((e[i].key.a - 0xffffffff81000000ULL) / 0x40);

		if (k >= NKEYS || e[i].key.b != key_b(k) || e[i].key.c >= NCPUS ||
		    ref[k * NCPUS + e[i].key.c] != e[i].count)
			bad++;
	}
	CHECK(n == want, "%s: %zu entries, the reference has %zu", what, n, want);
	CHECK(bad == 0, "%s: %zu entries differ from the reference", what, bad);
	free(e);
}

int main(void)
{
	struct rpt_cpumap m = { 0 }, m2 = { 0 };
	uint32_t *ref = calloc((size_t)NKEYS * NCPUS, sizeof(*ref));
	uint32_t *ref2 = calloc((size_t)NKEYS * NCPUS, sizeof(*ref2));

	if (!ref || !ref2)
		return 2;
	CHECK(add(&m, ref, 40000) == 0, "adds");
	CHECK(m.rows.n <= RPT_MAXROWS, "the rows kept: %zu, at most %d", m.rows.n, RPT_MAXROWS);
	agree(&m, ref, "one map");
	CHECK(add(&m2, ref2, 20000) == 0, "adds to the second map");
	CHECK(ipt_cpumap_merge(&m, &m2) == 0, "merge");
	for (size_t i = 0; i < (size_t)NKEYS * NCPUS; i++)
		ref[i] += ref2[i];
	agree(&m, ref, "merged");
	/* and more adds after the merge (its rows, the map grown) */
	CHECK(add(&m, ref, 20000) == 0, "adds after the merge");
	agree(&m, ref, "after the merge");
	ipt_cpumap_free(&m);
	ipt_cpumap_free(&m2);
	free(ref);
	free(ref2);
	TEST_MAIN_END();
}
