// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_symcache.c - a kallsyms index file (core/symcache.c) whose header
 * key and body hash are right (ipt_symcache_seal), so that the checks
 * after them are what is fuzzed: the counts against the size, the names'
 * final NUL, every offset and the address order.  The input's first 64
 * bytes are the header (its counts as given), the rest the body, cut at
 * the length the counts give.  Each violated property is an abort():
 *  - a table read has the header's count, addresses in order, every name
 *    within the file (ASan sees a read past it) and NUL-terminated;
 *  - a lookup of each address finds a symbol at that address;
 *  - an index that does not fit its counts is not read.
 * The same bytes, sealed as a file of kept answers (kallsyms-KEY.hot,
 * ipt_symhot_seal), read by ipt_symhot_read: its ranges in order and
 * apart, every name within the file and NUL-terminated; one that does not
 * fit its counts is not read.
 */
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "symcache check failed: %s: ", #cond); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); abort(); } } while (0)

static char dir[64];

static void rm_dir(void)
{
	rmdir(dir);
}

/* sealed - the input sealed by seal (its length then, 0: not whole) and
 * written to the key's file of that suffix (path) */
static size_t sealed(char *path, size_t psize, const char *suffix, uint8_t *buf, const uint8_t *data,
		     size_t size, size_t (*seal)(uint8_t *, size_t, const struct ipt_symcache_key *),
		     const struct ipt_symcache_key *k)
{
	size_t n;
	FILE *f;

	memcpy(buf, data, size);
	n = seal(buf, size, k);
	snprintf(path, psize, "%s/kallsyms-%016llx%016llx.%s", dir, (unsigned long long)k->h[0],
		 (unsigned long long)k->h[1], suffix);
	f = fopen(path, "wb");
	CHECK(f != NULL, "%s", path);
	if (n)
		fwrite(buf, 1, n, f);
	fclose(f);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct ipt_symcache_key k = { { 0x1234, 0x5678 }, 4096 };
	struct ipt_symtab st = { 0 };
	char path[128];
	uint8_t *buf;
	size_t n;

	if (!dir[0]) {	/* a directory of its own, removed at exit */
		char tmpl[] = "/tmp/fuzz_symcache.XXXXXX";

		if (!mkdtemp(tmpl))
			abort();
		snprintf(dir, sizeof(dir), "%s", tmpl);
		atexit(rm_dir);
	}
	if (!(buf = malloc(size + 1)))
		abort();
	n = sealed(path, sizeof(path), "idx", buf, data, size, ipt_symcache_seal, &k);
	if (ipt_symtab_load_index(&st, dir, &k)) {
		CHECK(n > 0, "an index that does not fit its counts was read");
		CHECK(st.n > 0, "an empty table read");
		for (size_t i = 0; i < st.n; i++) {
			const struct ipt_sym *s;

			CHECK(i == 0 || st.syms[i].addr >= st.syms[i - 1].addr, "symbol %zu out of order", i);
			CHECK(strlen(st.syms[i].name) < n, "name %zu", i);
			s = ipt_symtab_lookup(&st, st.syms[i].addr);
			CHECK(s && s->addr == st.syms[i].addr, "lookup of symbol %zu", i);
		}
	}
	ipt_symtab_free(&st);
	unlink(path);

	n = sealed(path, sizeof(path), "hot", buf, data, size, ipt_symhot_seal, &k);
	{
		struct ipt_symhot h;

		if (ipt_symhot_read(dir, &k, &h)) {
			CHECK(n > 0, "a kept file that does not fit its counts was read");
			for (size_t i = 0; i < h.n; i++) {
				CHECK(h.syms[i].addr <= h.last[i], "range %zu backwards", i);
				CHECK(i == 0 || (h.last[i - 1] < h.syms[i].addr), "range %zu overlaps", i);
				CHECK(!h.syms[i].name || (*h.syms[i].name && strlen(h.syms[i].name) < n), "name %zu", i);
			}
			for (size_t i = 0; i < h.nnames; i++)
				CHECK(*h.names[i].name && strlen(h.names[i].name) < n, "by-name %zu", i);
		}
		ipt_symhot_free(&h);
	}
	unlink(path);
	free(buf);
	return 0;
}
