// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_cpuset.c - CPU lists and hex masks.  The input is split in two
 * halves: the first for ipt_cpuset_parse_list, the second for
 * ipt_cpuset_parse_hex.  Every set that parses is printed back and parsed
 * again, and the set operations are checked against each other.  Each
 * violated property is an abort() (a finding):
 *  - format_list then parse_list gives the same set; format_hex (for the
 *    width the set needs, and 64 bits wider) then parse_hex too;
 *  - format_list(NULL, 0) returns the length that the full print has, and a
 *    print into a short buffer is a NUL-terminated prefix of it;
 *  - the printed list is canonical: parsing it and printing again gives the
 *    same text;
 *  - weight = number of members met by next(); last() = the largest;
 *  - |a|+|b| = |a|b| + |a&b|; intersects(a,b) == !empty(a&b); copy equal.
 */
#include "fuzz_common.h"

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "cpuset check failed: %s: ", #cond); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); abort(); } } while (0)

static char *list_of(const struct ipt_cpuset *s, size_t *lenp)
{
	size_t n = ipt_cpuset_format_list(s, NULL, 0);
	char *b = malloc(n + 1);
	size_t m = ipt_cpuset_format_list(s, b, n + 1);

	CHECK(m == n, "size query %zu, print %zu", n, m);
	CHECK(strlen(b) == n, "strlen %zu, returned %zu", strlen(b), n);
	/* a short buffer: NUL-terminated prefix */
	if (n > 2) {
		char small[8];
		size_t k = ipt_cpuset_format_list(s, small, n / 2 < sizeof(small) ? n / 2 : sizeof(small));
		size_t sl = strlen(small);

		CHECK(k == n, "short print returned %zu, not %zu", k, n);
		CHECK(sl < sizeof(small) && !memcmp(small, b, sl), "short print not a prefix");
	}
	*lenp = n;
	return b;
}

static void check_set(const struct ipt_cpuset *s, const char *what)
{
	struct ipt_cpuset t = IPT_CPUSET_INIT;
	unsigned int w = ipt_cpuset_weight(s), count = 0;
	int c, last = -1, prev = -1;
	size_t n, n2, hn;
	char *l, *l2, *h;

	ipt_cpuset_init(&t);
	for (c = ipt_cpuset_next(s, 0); c >= 0; c = ipt_cpuset_next(s, (unsigned int)c + 1)) {
		CHECK(c > prev && c < IPT_CPUSET_MAX, "%s: next() gave %d after %d", what, c, prev);
		CHECK(ipt_cpuset_has(s, (unsigned int)c), "%s: next() gave non-member %d", what, c);
		prev = last = c;
		count++;
	}
	CHECK(count == w, "%s: weight %u, iterated %u", what, w, count);
	CHECK(ipt_cpuset_last(s) == last, "%s: last %d, iterated %d", what, ipt_cpuset_last(s), last);
	CHECK(ipt_cpuset_empty(s) == (w == 0), "%s: empty() wrong", what);

	/* list round trip, and the list is canonical */
	l = list_of(s, &n);
	CHECK(!ipt_cpuset_parse_list(&t, l, n), "%s: own list '%s' does not parse: %s", what, l, ipt_errmsg());
	CHECK(ipt_cpuset_equal(&t, s), "%s: list '%s' parses to another set", what, l);
	l2 = list_of(&t, &n2);
	CHECK(n2 == n && !strcmp(l, l2), "%s: list not canonical: '%s' then '%s'", what, l, l2);
	free(l2);
	free(l);

	/* hex round trip: the width the set needs, and 2 words wider */
	for (int k = 0; k < 2; k++) {
		unsigned int nbits = (unsigned int)(last + 1) + (k ? 64 : 0);

		hn = ipt_cpuset_format_hex(s, nbits, NULL, 0);
		h = malloc(hn + 1);
		CHECK(ipt_cpuset_format_hex(s, nbits, h, hn + 1) == hn, "%s: hex size differs", what);
		CHECK(strlen(h) == hn, "%s: hex strlen", what);
		CHECK(!ipt_cpuset_parse_hex(&t, h, hn), "%s: own hex '%s' does not parse: %s", what, h, ipt_errmsg());
		CHECK(ipt_cpuset_equal(&t, s), "%s: hex '%s' (%u bits) parses to another set", what, h, nbits);
		free(h);
	}
	ipt_cpuset_free(&t);
}

static void check_pair(const struct ipt_cpuset *a, const struct ipt_cpuset *b)
{
	struct ipt_cpuset u = IPT_CPUSET_INIT, i = IPT_CPUSET_INIT, c = IPT_CPUSET_INIT;

	ipt_cpuset_init(&u);
	ipt_cpuset_init(&i);
	ipt_cpuset_init(&c);
	CHECK(!ipt_cpuset_copy(&u, a) && !ipt_cpuset_or(&u, b), "or failed");
	CHECK(!ipt_cpuset_copy(&i, a), "copy failed");
	CHECK(ipt_cpuset_equal(&i, a) && ipt_cpuset_equal(a, &i), "copy not equal");
	ipt_cpuset_and(&i, b);
	CHECK(ipt_cpuset_weight(a) + ipt_cpuset_weight(b) == ipt_cpuset_weight(&u) + ipt_cpuset_weight(&i),
	      "|a|+|b| != |a|b|+|a&b|");
	CHECK(ipt_cpuset_intersects(a, b) == !ipt_cpuset_empty(&i), "intersects wrong");
	CHECK(ipt_cpuset_intersects(b, a) == ipt_cpuset_intersects(a, b), "intersects not symmetric");
	CHECK(ipt_cpuset_equal(a, b) == ipt_cpuset_equal(b, a), "equal not symmetric");
	CHECK(ipt_cpuset_equal(a, b) == (ipt_cpuset_equal(&u, &i)), "equal vs a|b == a&b");
	/* the and/or results are sets like any other (small ones: speed) */
	if (ipt_cpuset_weight(&u) < 512) {
		check_set(&u, "a|b");
		check_set(&i, "a&b");
	}
	/* delete every member of b from a copy of a: that is a minus b */
	CHECK(!ipt_cpuset_copy(&c, a), "copy failed");
	for (int x = ipt_cpuset_next(b, 0); x >= 0; x = ipt_cpuset_next(b, (unsigned int)x + 1))
		ipt_cpuset_del(&c, (unsigned int)x);
	CHECK(ipt_cpuset_weight(&c) + ipt_cpuset_weight(&i) == ipt_cpuset_weight(a), "a-b wrong");
	ipt_cpuset_free(&u);
	ipt_cpuset_free(&i);
	ipt_cpuset_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipt_cpuset a = IPT_CPUSET_INIT, b = IPT_CPUSET_INIT;
	size_t half = size / 2;
	/* copies of exactly the bytes, so that over-reads show */
	char *s1 = malloc(half ? half : 1), *s2 = malloc(size - half ? size - half : 1);
	bool oka, okb;

	memcpy(s1, data, half);
	memcpy(s2, data + half, size - half);
	ipt_cpuset_init(&a);
	ipt_cpuset_init(&b);
	oka = !ipt_cpuset_parse_list(&a, s1, half);
	okb = !ipt_cpuset_parse_hex(&b, s2, size - half);
	if (oka)
		check_set(&a, "list");
	if (okb)
		check_set(&b, "hex");
	if (oka && okb)
		check_pair(&a, &b);
	/* the bitmap reader on the raw bytes, both word sizes and byte orders */
	for (unsigned int ws = 4; ws <= 8; ws += 4)
		for (int be = 0; be < 2; be++)
			if (!ipt_cpuset_from_bitmap(&a, data, size < 160 ? size : 160, ws, be))
				check_set(&a, "bitmap");
	ipt_cpuset_free(&a);
	ipt_cpuset_free(&b);
	free(s1);
	free(s2);
	return 0;
}
