// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_kallsyms.c - kallsyms text (cut at its first NUL, as the trace.dat
 * reader cuts it).  The text is read three ways by the library: at once
 * (ipt_symtab_load_kallsyms), deferred (read at the first lookup) and
 * taken (ipt_symtab_take_kallsyms, from a copy it may give back as it
 * reads), and once more by a naive reader written here: every line on its
 * own, byte by byte.  Each violated property is an abort() (a finding):
 *  - each table has as many symbols as the naive reader found;
 *  - at each symbol's address, one below it and one above, each table's
 *    lookup is the naive one: the largest address at or below, the first
 *    line of several at that address, with the same name;
 *  - addr_of(name) is the lowest address of that name, 0 for none.
 */
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "kallsyms check failed: %s: ", #cond); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); abort(); } } while (0)

struct nsym {
	uint64_t addr;
	const char *name;	/* into the text */
	size_t len;
};

/* naive_line - "[0x]ADDR T NAME[\t or space, anything]": 1 to 16 digits */
static bool naive_line(const char *l, size_t n, struct nsym *out)
{
	size_t i = 0, d = 0, k;
	uint64_t a = 0;

	if (n >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X'))
		i = 2;
	for (; i < n && ipt_hex_digit(l[i]) >= 0; i++, d++)
		a = a << 4 | (uint64_t)ipt_hex_digit(l[i]);
	if (!d || d > 16 || i >= n || l[i] != ' ')
		return false;
	i += 2;	/* the space, the type */
	if (i >= n || l[i] != ' ')
		return false;
	i++;
	for (k = i; k < n && l[k] != '\t' && l[k] != ' '; k++)
		;
	if (k == i)
		return false;
	*out = (struct nsym){ a, l + i, k - i };
	return true;
}

static const struct nsym *naive_lookup(const struct nsym *v, size_t n, uint64_t q)
{
	const struct nsym *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (v[i].addr <= q && (!best || v[i].addr > best->addr))
			best = &v[i];
	return best;
}

static void check_table(const char *how, const struct ipt_symtab *st, const struct nsym *v, size_t n)
{
	(void)ipt_symtab_lookup(st, 0);	/* a deferred text is read now */
	CHECK(st->n == n, "%s: %zu symbols, the naive reader %zu", how, st->n, n);
	for (size_t i = 0; i < n; i++) {
		for (int d = -1; d <= 1; d++) {
			uint64_t q = v[i].addr + (uint64_t)(int64_t)d;
			const struct nsym *w = naive_lookup(v, n, q);
			const struct ipt_sym *g = ipt_symtab_lookup(st, q);

			if (!w) {
				CHECK(!g, "%s: lookup %#llx: none expected, got %s", how, (unsigned long long)q, g->name);
				continue;
			}
			CHECK(g && g->addr == w->addr && strlen(g->name) == w->len && !memcmp(g->name, w->name, w->len),
			      "%s: lookup %#llx: want %.*s at %#llx, got %s at %#llx", how, (unsigned long long)q,
			      (int)w->len, w->name, (unsigned long long)w->addr, g ? g->name : "-",
			      (unsigned long long)(g ? g->addr : 0));
		}
	}
	/* by name: the lowest address (a few of them: each costs a pass) */
	for (size_t i = 0; i < n && i < 8; i++) {
		char name[256];
		uint64_t want = UINT64_MAX;

		if (v[i].len >= sizeof(name))
			continue;
		memcpy(name, v[i].name, v[i].len);
		name[v[i].len] = 0;
		for (size_t j = 0; j < n; j++)
			if (v[j].len == v[i].len && !memcmp(v[j].name, name, v[i].len) && v[j].addr < want)
				want = v[j].addr;
		CHECK(ipt_symtab_addr_of(st, name) == want, "%s: addr_of %s", how, name);
	}
	CHECK(ipt_symtab_addr_of(st, "no such symbol anywhere") == 0, "%s: addr_of of no symbol", how);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t len = nul ? (size_t)(nul - data) : size, n = 0;
	char *text = malloc(len + 1), *copy = malloc(len + 1);
	struct nsym *v = malloc((len / 2 + 1) * sizeof(*v));
	struct ipt_symtab eager = { 0 }, deferred = { 0 }, taken = { 0 };

	if (!text || !copy || !v)
		abort();
	memcpy(text, data, len);
	memcpy(copy, data, len);
	for (size_t i = 0; i < len;) {
		const char *e = memchr(text + i, '\n', len - i);
		size_t eol = e ? (size_t)(e - text) : len;

		if (naive_line(text + i, eol - i, &v[n]))
			n++;
		i = eol + 1;
	}
	CHECK(ipt_symtab_load_kallsyms(&eager, text, len) == 0, "load");
	CHECK(ipt_symtab_defer_kallsyms(&deferred, text, len) == 0, "defer");
	CHECK(ipt_symtab_take_kallsyms(&taken, copy, len) == 0, "take");
	check_table("at once", &eager, v, n);
	check_table("deferred", &deferred, v, n);
	check_table("taken", &taken, v, n);
	ipt_symtab_free(&eager);
	ipt_symtab_free(&deferred);
	ipt_symtab_free(&taken);
	free(text);
	free(copy);
	free(v);
	return 0;
}
