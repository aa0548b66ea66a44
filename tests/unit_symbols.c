/*
 * unit_symbols.c - deferred kallsyms (ipt_symtab_defer_kallsyms) against a
 * second, naive reading of the same text written here: every line parsed on
 * its own, a lookup the largest address <= the one asked (the first line of
 * several at that address), a name the lowest address of its lines.  Texts:
 * sorted and shuffled, duplicates, modules, malformed lines, upper-case and
 * 0x addresses, no final newline; lookups from several threads at once;
 * names of every length from 1 to 140 (the reader finds and copies them 16
 * and 32 bytes at a time), names that end the one before (kept once), cut
 * anywhere at the text's end.
 */
#include "core/core.h"
#include "testlib.h"

#include <pthread.h>
#include <stdint.h>

struct nsym {
	uint64_t addr;
	char name[200];
	int line;
};

static struct nsym *nv;
static int nn, ncap;

/*
 * The oracle's own loops are quadratic (a lookup reads every line): under
 * ASan+UBSan they are left uninstrumented, which takes the ASan pass of this
 * test from about 70 s to a few; the library functions they check are
 * instrumented as before, and every check runs in both passes.
 */
#if defined(__SANITIZE_ADDRESS__)
#define NAIVE __attribute__((no_sanitize("address", "undefined")))
#else
#define NAIVE
#endif

/* naive_parse - the oracle's table: one entry per line that has a symbol */
NAIVE static void naive_parse(const char *text)
{
	int line = 0;

	nn = 0;
	for (const char *p = text; *p; line++) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char buf[320];
		size_t i = 0, digits = 0;
		uint64_t a = 0;

		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, p, len);
		buf[len] = 0;
		p = e ? e + 1 : p + strlen(p);
		if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
			i = 2;
		while (ipt_hex_digit(buf[i]) >= 0) {
			a = a << 4 | (uint64_t)ipt_hex_digit(buf[i]);
			i++;
			digits++;
		}
		if (!digits || digits > 16 || buf[i] != ' ' || !buf[i + 1] || buf[i + 2] != ' ')
			continue;
		i += 3;
		size_t k = i;

		while (buf[k] && buf[k] != '\t' && buf[k] != ' ')
			k++;
		if (k == i || k - i >= sizeof(nv[0].name))
			continue;
		if (nn == ncap) {	/* doubling: ASan's realloc always moves */
			ncap = ncap ? 2 * ncap : 1024;
			nv = realloc(nv, (size_t)ncap * sizeof(*nv));
		}
		nv[nn].addr = a;
		memcpy(nv[nn].name, buf + i, k - i);
		nv[nn].name[k - i] = 0;
		nv[nn].line = line;
		nn++;
	}
}

NAIVE static const struct nsym *naive_lookup(uint64_t q)
{
	const struct nsym *best = NULL;

	for (int i = 0; i < nn; i++)
		if (nv[i].addr <= q && (!best || nv[i].addr > best->addr))
			best = &nv[i];	/* strictly larger: the first line at an address stays */
	return best;
}

NAIVE static uint64_t naive_addr_of(const char *name)
{
	uint64_t best = 0;
	bool found = false;

	for (int i = 0; i < nn; i++)
		if (!strcmp(nv[i].name, name) && (!found || nv[i].addr < best)) {
			best = nv[i].addr;
			found = true;
		}
	return best;
}

static unsigned long long rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	return t_xorshift64(&rng);
}

/* check_text - every way of asking, deferred and eager, against the oracle */
static void check_text(const char *tag, const char *text)
{
	struct ipt_symtab d = { 0 }, e = { 0 };
	int bad = 0, badname = 0;

	naive_parse(text);
	CHECK(ipt_symtab_defer_kallsyms(&d, text, strlen(text)) == 0, "%s: defer", tag);
	CHECK(ipt_symtab_load_kallsyms(&e, text, strlen(text)) == 0 && ipt_symtab_sort(&e) == 0,
	      "%s: eager load", tag);
	CHECK(d.n == 0, "%s: nothing parsed before a lookup", tag);
	for (int i = 0; i < 4 * nn + 64; i++) {
		uint64_t q = i < nn ? nv[i].addr : i < 2 * nn ? nv[i - nn].addr + rnd() % 64 :
			     i < 3 * nn ? nv[i - 2 * nn].addr - 1 : rnd();
		const struct nsym *w = naive_lookup(q);
		const struct ipt_sym *g = ipt_symtab_lookup(&d, q), *h = ipt_symtab_lookup(&e, q);

		if (!w ? (g || h) : (!g || !h || g->addr != w->addr || strcmp(g->name, w->name) ||
				     h->addr != w->addr || strcmp(h->name, w->name))) {
			if (bad++ < 3)
				CHECK(0, "%s: lookup %#llx: want %s, deferred %s, eager %s", tag,
				      (unsigned long long)q, w ? w->name : "-", g ? g->name : "-",
				      h ? h->name : "-");
		}
	}
	for (int i = 0; i < nn; i++) {
		uint64_t w = naive_addr_of(nv[i].name);

		if (ipt_symtab_addr_of(&d, nv[i].name) != w || ipt_symtab_addr_of(&e, nv[i].name) != w)
			if (badname++ < 3)
				CHECK(0, "%s: addr_of %s", tag, nv[i].name);
	}
	CHECK(ipt_symtab_addr_of(&d, "no_such_symbol_here") == 0, "%s: unknown name", tag);
	CHECK(ipt_symtab_addr_of(&d, "") == 0, "%s: empty name", tag);
	CHECK(!bad && !badname, "%s: %d symbols, every lookup as the oracle", tag, nn);
	CHECK(d.n == e.n && d.n == (size_t)nn, "%s: as many symbols deferred (%zu) as eager (%zu) as the oracle (%d)",
	      tag, d.n, e.n, nn);
	ipt_symtab_free(&d);
	ipt_symtab_free(&e);
}

enum order { SORTED, SHUFFLED, NEARLY };	/* NEARLY: sorted but every 97th line */

/* a kallsyms-like text of n lines */
static char *make_text(int n, enum order order, bool dups)
{
	bool shuffled = order == SHUFFLED;
	size_t cap = (size_t)n * 80 + 1024, len = 0;
	char *s = malloc(cap);
	uint64_t a = 0xffffffff81000000ull;

	for (int i = 0; i < n; i++) {
		uint64_t x = shuffled ? 0xffffffff81000000ull + rnd() % 0x1000000 : (a += 1 + rnd() % 300);

		if (order == NEARLY && i % 97 == 50)	/* anywhere: below or above its place */
			x = 0xffffffff81000000ull + rnd() % ((uint64_t)n * 300);
		const char *mod = i % 7 == 0 ? "\t[kvm]" : "";

		if (dups && i % 5 == 0 && i)
			x = shuffled ? x : a;	/* same address as the previous line */
		char name[32];

		if (i % 11 == 0)	/* a name on several lines: the lowest address counts */
			snprintf(name, sizeof(name), "common_%d", i % 3);
		else
			snprintf(name, sizeof(name), "sym_%d", i);
		len += (size_t)snprintf(s + len, cap - len, "%016llx %c %s%s\n", (unsigned long long)x,
					"TtDdbr"[i % 6], name, mod);
	}
	s[len] = 0;
	return s;
}

/*
 * a text of n lines with names of random lengths, modules, trailing words;
 * some come in pairs, the first ending with the second ("__pfx_foo" then
 * "foo", as kernels built with function padding have them, or any other
 * end); addresses rising, or anywhere (shuffled)
 */
static char *make_names_text(int n, bool shuffled)
{
	size_t cap = (size_t)n * 400 + 64, len = 0;
	char *s = malloc(cap);
	uint64_t a = 0xffffffffc0000000ull;

	for (int i = 0; i < n; i++) {
		int nl = 1 + (int)(rnd() % 140), tail = (int)(rnd() % 4), pair = (int)(rnd() % 3);
		char name[160];

		for (int k = 0; k < nl; k++)
			name[k] = "abcdefghijklmnopqrstuvwxyz_0123456789.$"[rnd() % 39];
		name[nl] = 0;
		a = shuffled ? 0xffffffffc0000000ull + rnd() % 0x100000 : a + 1 + rnd() % 64;
		if (pair == 1)
			len += (size_t)snprintf(s + len, cap - len, "%016llx t __pfx_%s\n",
						(unsigned long long)(a - 16), name);
		else if (pair == 2 && nl > 3)
			len += (size_t)snprintf(s + len, cap - len, "%016llx T %.*s%s\n",
						(unsigned long long)(a - 8), (int)(rnd() % 20 + 1), name, name);
		len += (size_t)snprintf(s + len, cap - len, "%016llx %c %s%s\n", (unsigned long long)a,
					"tTdD"[i % 4], name,
					tail == 1 ? "\t[some_module]" : tail == 2 ? " word" : "");
	}
	s[len] = 0;
	return s;
}

struct thr {
	struct ipt_symtab *st;
	int bad;
};

static void *thr_main(void *arg)
{
	struct thr *t = arg;

	for (int i = 0; i < nn; i++) {
		const struct nsym *w = naive_lookup(nv[i].addr + 3);
		const struct ipt_sym *g = ipt_symtab_lookup(t->st, nv[i].addr + 3);

		if (!g || g->addr != w->addr || strcmp(g->name, w->name))
			t->bad++;
	}
	return NULL;
}

int main(void)
{
	char *s;

	check_text("hand", "ffffffff81000000 T _stext\n"
		   "ffffffff81000010 t b_first\n"
		   "ffffffff81000010 T b_second\n"
		   "FFFFFFFF81000020 T upper\n"
		   "0xffffffff81000030 T prefixed\n"
		   "ffffffff81000040 T\n"			/* no name */
		   "ffffffff81000050 T  two_spaces\n"		/* empty name */
		   "1ffffffff81000060 T too_long\n"		/* 17 digits */
		   "ffffffff81000070 Tnospace\n"
		   "\n"
		   "garbage line\n"
		   "ffffffff81000080 d data_sym\t[mod]\n"
		   "ffffffff81000090 t tab_end\textra\n"
		   "81000100 T short_addr\n"
		   "ffffffff8100g0b0 T bad_digit\n"
		   "ffffffff810\xc1" "00c0 T high_byte\n"
		   "ffffffff:10000d0 T colon\n"
		   "FfFfFfFf810000e0 T mixed_case\n"
		   "ffffffff810000a0 T last_no_newline");
	check_text("empty", "");
	/* a last line of 64 bytes or more, no newline, something after its name */
	check_text("long last line", "ffffffff81000000 T _stext\n"
		   "ffffffff8396f378 D __stop_some_long_symbol_name_here\t[a_module_name]");
	check_text("long last line, a word", "ffffffff81000000 T _stext\n"
		   "ffffffff8396f378 D __stop_some_long_symbol_name_here and_more_words_after_it");
	s = make_text(5000, SORTED, true);
	check_text("sorted", s);
	free(s);
	s = make_text(5000, NEARLY, true);
	check_text("nearly sorted", s);
	free(s);
	for (int k = 0; k < 40; k++) {	/* cut at k of the last 40 bytes */
		char tag[32];

		s = make_names_text(300, k % 4 == 3);
		s[strlen(s) - (size_t)k] = 0;
		snprintf(tag, sizeof(tag), "names%s, cut %d", k % 4 == 3 ? " shuffled" : "", k);
		check_text(tag, s);
		free(s);
	}
	s = make_text(5000, SHUFFLED, true);
	check_text("shuffled", s);

	/* several threads asking a fresh deferred table at once */
	{
		struct ipt_symtab d = { 0 };
		struct thr t[4];
		pthread_t th[4];
		int bad = 0;

		naive_parse(s);
		ipt_symtab_defer_kallsyms(&d, s, strlen(s));
		for (int i = 0; i < 4; i++) {
			t[i] = (struct thr){ &d, 0 };
			pthread_create(&th[i], NULL, thr_main, &t[i]);
		}
		for (int i = 0; i < 4; i++) {
			pthread_join(th[i], NULL);
			bad += t[i].bad;
		}
		CHECK(bad == 0, "4 threads: %d wrong lookups", bad);
		ipt_symtab_free(&d);
	}

	/* a second text: what was deferred is made, the second loaded at once */
	{
		struct ipt_symtab d = { 0 };
		const char *a = "ffffffff81000000 T one\nffffffff81000100 T two\n";
		const char *b = "ffffffff81000080 T between\n";
		const struct ipt_sym *g;

		CHECK(ipt_symtab_defer_kallsyms(&d, a, strlen(a)) == 0, "first text");
		CHECK(ipt_symtab_defer_kallsyms(&d, b, strlen(b)) == 0, "second text");
		g = ipt_symtab_lookup(&d, 0xffffffff81000090ull);
		CHECK(g && !strcmp(g->name, "between"), "second text's symbol found");
		g = ipt_symtab_lookup(&d, 0xffffffff81000100ull);
		CHECK(g && !strcmp(g->name, "two"), "first text's symbol kept");
		ipt_symtab_free(&d);
	}
	free(s);
	free(nv);
	TEST_MAIN_END();
}
