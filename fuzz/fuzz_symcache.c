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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct ipt_symcache_key k = { { 0x1234, 0x5678 }, 4096 };
	struct ipt_symtab st = { 0 };
	char path[128];
	uint8_t *buf;
	size_t n;
	FILE *f;

	if (!dir[0]) {	/* a directory of its own, removed at exit */
		char tmpl[] = "/tmp/fuzz_symcache.XXXXXX";

		if (!mkdtemp(tmpl))
			abort();
		snprintf(dir, sizeof(dir), "%s", tmpl);
		atexit(rm_dir);
	}
	if (!(buf = malloc(size + 1)))
		abort();
	memcpy(buf, data, size);
	n = ipt_symcache_seal(buf, size, &k);
	snprintf(path, sizeof(path), "%s/kallsyms-%016llx%016llx.idx", dir, 0x1234ull, 0x5678ull);
	f = fopen(path, "wb");
	CHECK(f != NULL, "%s", path);
	if (n)
		fwrite(buf, 1, n, f);
	fclose(f);
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
	free(buf);
	return 0;
}
