// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * symbols.c - kernel symbols (kallsyms), printk strings, saved cmdlines
 *
 * A symtab is a sorted array of (address, name).  kallsyms lookups find
 * the closest symbol at or below an address; printk lookups are exact.
 */
#include "core/core.h"

#include <ctype.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

/* reading a deferred text, and the answers by name (rare; any thread) */
static pthread_mutex_t lazy_lock = PTHREAD_MUTEX_INITIALIZER;

/* changed - a table's symbols changed: what lookups remembered is forgotten */
static void changed(struct ipt_symtab *st)
{
	static uint64_t gens;

	__atomic_store_n(&st->gen, __atomic_add_fetch(&gens, 1, __ATOMIC_RELAXED), __ATOMIC_RELEASE);
}

struct ipt_sym_byname {
	char *name;
	uint64_t addr;
};

/* keep - remember an owned string in the table */
static int keep(struct ipt_symtab *st, char *s)
{
	if (IPT_GROW(st->extra, st->extracap, st->nextra + 1))
		return -1;
	st->extra[st->nextra++] = s;
	return 0;
}

/* push - append a symbol whose name is already owned by the table */
static int push(struct ipt_symtab *st, uint64_t addr, const char *name)
{
	if (IPT_GROW(st->syms, st->cap, st->n + 1))
		return -1;
	st->syms[st->n].addr = addr;
	st->syms[st->n].name = name;
	st->n++;
	changed(st);
	return 0;
}

int ipt_symtab_add(struct ipt_symtab *st, uint64_t addr, const char *name, size_t len)
{
	char *s = ipt_strndup(name, len);

	if (!s || keep(st, s)) {
		free(s);
		return -1;
	}
	return push(st, addr, s);
}

/* hex1[c]: 1 + the value of hex digit c, 0 for any other byte */
static const uint8_t hex1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
	['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/*
 * hex8 - the 8 hex digits at p (most significant first) in *v; false if one
 * of them is not a hex digit.  Eight bytes at a time: a word's bytes are
 * range-checked and turned into their values together (SWAR).
 */
static inline bool hex8(const char *p, uint32_t *v)
{
	const uint64_t ones = 0x0101010101010101ull, high = ones * 0x80;
	uint64_t x, lo, dig, alp, val;

	memcpy(&x, p, 8);	/* byte 0 lowest */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	if (x & high)
		return false;
	/* per byte, with every byte < 0x80: b >= k iff (b + 0x80 - k) has bit 7 */
	dig = (x + ones * (0x80 - '0')) & ~(x + ones * (0x80 - '9' - 1)) & high;
	lo = x | ones * 0x20;
	alp = (lo + ones * (0x80 - 'a')) & ~(lo + ones * (0x80 - 'f' - 1)) & high;
	if ((dig | alp) != high)
		return false;
	/* '0'-'9': low nibble; 'a'-'f', 'A'-'F': low nibble + 9 (bit 6 set) */
	val = (x & ones * 0x0f) + ((x >> 6) & ones) * 9;
	/* pack: digit pairs into bytes, byte pairs into halves, halves */
	val = ((val << 4) | (val >> 8)) & 0x00ff00ff00ff00ffull;
	val = ((val << 8) | (val >> 16)) & 0x0000ffff0000ffffull;
	*v = (uint32_t)((val << 16) | (val >> 32));
	return true;
}

/*
 * hex16 - the 16 hex digits at p (most significant first) in *v; false if
 * one of them is not a hex digit.  With SSE2 all 16 at once; else two hex8.
 */
static inline bool hex16(const char *p, uint64_t *v)
{
#ifdef __SSE2__
	const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	/* b - '0' <= 9 (unsigned) for a digit; (b | 0x20) - 'a' <= 5 for a letter */
	const __m128i d = _mm_sub_epi8(x, _mm_set1_epi8('0'));
	const __m128i l = _mm_sub_epi8(_mm_or_si128(x, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
	const __m128i isd = _mm_cmpeq_epi8(_mm_max_epu8(d, _mm_set1_epi8(9)), _mm_set1_epi8(9));
	const __m128i isl = _mm_cmpeq_epi8(_mm_max_epu8(l, _mm_set1_epi8(5)), _mm_set1_epi8(5));
	__m128i val, pairs;

	if (_mm_movemask_epi8(_mm_or_si128(isd, isl)) != 0xffff)
		return false;
	val = _mm_or_si128(_mm_and_si128(isd, d), _mm_andnot_si128(isd, _mm_add_epi8(l, _mm_set1_epi8(10))));
	/* each 16-bit lane holds digits 2k (low byte) and 2k+1: one byte of value */
	pairs = _mm_and_si128(_mm_or_si128(_mm_slli_epi16(val, 4), _mm_srli_epi16(val, 8)), _mm_set1_epi16(0xff));
	*v = __builtin_bswap64((uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(pairs, pairs)));
	return true;
#else
	uint32_t a, b;

	if (!hex8(p, &a) || !hex8(p + 8, &b))
		return false;
	*v = (uint64_t)a << 32 | b;
	return true;
#endif
}

/* line_end - the offset of the newline that ends the line at i, or len */
static inline size_t line_end(const char *s, size_t i, size_t len)
{
	const char *nl;

#ifdef __SSE2__
	for (; i + 16 <= len; i += 16) {
		int m = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + i)),
							 _mm_set1_epi8('\n')));

		if (m)
			return i + (size_t)__builtin_ctz((unsigned int)m);
	}
#endif
	nl = memchr(s + i, '\n', len - i);
	return nl ? (size_t)(nl - s) : len;
}

/* parse_hex - hex number at s[*i] (optional 0x); false if none */
static bool parse_hex(const char *s, size_t n, size_t *i, uint64_t *v)
{
	size_t start, k;
	uint64_t x = 0;

	if (*i + 1 < n && s[*i] == '0' && (s[*i + 1] == 'x' || s[*i + 1] == 'X'))
		*i += 2;
	start = k = *i;
	/* the usual kallsyms address: 16 digits and a space */
	if (k + 16 < n && s[k + 16] == ' ' && hex16(s + k, v)) {
		*i = k + 16;
		return true;
	}
	for (unsigned int d; k < n && (d = hex1[(unsigned char)s[k]]); k++)
		x = (x << 4) | (d - 1);
	*i = k;
	*v = x;
	return k > start && k - start <= 16;
}

/* unescape - C escapes of printk_formats strings, in place; new length */
static size_t unescape(char *s, size_t n)
{
	size_t r = 0, w = 0;

	while (r < n) {
		char c = s[r++];

		if (c == '\\' && r < n) {
			char e = s[r++];

			switch (e) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case '\\': c = '\\'; break;
			case '"': c = '"'; break;
			default: s[w++] = '\\'; c = e; break;
			}
		}
		s[w++] = c;
	}
	return w;
}

/* ipt_symtab_load_printk - `0xffffffff8281a98f : "thaw_processes"` lines */
int ipt_symtab_load_printk(struct ipt_symtab *st, const char *text, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t eol = i, start, end;
		uint64_t addr;

		while (eol < len && text[eol] != '\n')
			eol++;
		if (!parse_hex(text, eol, &i, &addr))
			goto next;
		while (i < eol && (text[i] == ' ' || text[i] == ':'))
			i++;
		if (i >= eol || text[i] != '"')
			goto next;
		start = i + 1;
		end = eol;
		while (end > start && text[end - 1] != '"')
			end--;
		if (end <= start)
			goto next;
		end--;	/* the closing quote */
		{
			char *s = ipt_strndup(text + start, end - start);

			if (!s || keep(st, s)) {
				free(s);
				return -1;
			}
			s[unescape(s, end - start)] = 0;
			if (push(st, addr, s))
				return -1;
		}
next:
		i = eol + 1;
	}
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct ipt_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* stable order for equal addresses: keep the file order */
	return x < y ? -1 : (x > y);
}

/* ---- kallsyms text ---- */

static void made(const struct ipt_symtab *cst);

/*
 * kline - the line of text at [i, eol): true with its address and name
 * (offset, length) if it has a symbol.  Like trace-cmd, data, absolute
 * and local-abs symbols are kept too (the type is not looked at).
 */
static bool kline(const char *s, size_t i, size_t eol, uint64_t *addr, size_t *name, size_t *nlen)
{
	size_t k;

	if (!parse_hex(s, eol, &i, addr) || i >= eol || s[i] != ' ')
		return false;
	i++;
	if (i >= eol)
		return false;
	i++;	/* the type */
	if (i >= eol || s[i] != ' ')
		return false;
	*name = ++i;
	for (k = i; k < eol && s[k] != '\t' && s[k] != ' '; k++)
		;
	*nlen = k - i;
	return k > i;
}

/*
 * usual_line - the common kallsyms line at [i, eol): 16 hex digits, a
 * space, the type, a space and a name; what kline says of such a line, at
 * a fraction of the cost (any other line: false, and kline reads it)
 */
static inline bool usual_line(const char *s, size_t i, size_t eol, uint64_t *addr, size_t *name)
{
	if (eol - i < 20 || s[i + 16] != ' ' || s[i + 18] != ' ' || s[i + 19] == ' ' || s[i + 19] == '\t')
		return false;
	if (!hex16(s + i, addr))
		return false;
	*name = i + 19;
	return true;
}

/*
 * A table being filled from kallsyms text: each symbol's name is copied
 * into one block of names, NUL-terminated, so that the text need not be
 * kept (5 MB of it, where the names are 3).  The symbols come after those
 * the table had; until the end, a new one's name is its offset in names
 * (in the order of the lines: a name that ends the one before is kept
 * once, and points into it).
 */
struct kbuild {
	struct ipt_symtab *st;
	size_t n0;		/* the symbols the table had before */
	char *names;		/* the names, each NUL-terminated */
	size_t nnames, capnames;
	size_t poff, plen;	/* the last symbol's name */
	bool sorted;		/* the new symbols came in address order */
	bool failed;		/* out of memory */
	uint64_t last;
};

/* more - room for one more symbol, and names of up to need more bytes */
static bool more(struct kbuild *b, size_t need)
{
	struct ipt_symtab *st = b->st;

	if (IPT_GROW(b->names, b->capnames, b->nnames + need) ||
	    IPT_GROW(st->syms, st->cap, st->n + 1)) {
		b->failed = true;
		return false;
	}
	return true;
}

/* room - whether one more symbol fits, with need bytes of names */
static inline bool room(struct kbuild *b, size_t need)
{
	return (b->st->n < b->st->cap && b->nnames + need <= b->capnames) || more(b, need);
}

/* add - the symbol at addr whose name (nlen bytes) was just put in names */
static inline void add(struct kbuild *b, uint64_t addr, size_t nlen)
{
	struct ipt_symtab *st = b->st;
	size_t off = b->nnames;

	b->names[off + nlen] = 0;
	/* the end of the name before ("__pfx_foo", then "foo": half the
	 * symbols of a kernel built with function padding): kept once */
	if (b->plen > nlen && !memcmp(b->names + b->poff + b->plen - nlen, b->names + off, nlen))
		off = b->poff + b->plen - nlen;
	else
		b->nnames += nlen + 1;
	b->poff = off;
	b->plen = nlen;
	if (st->n > b->n0 && addr < b->last)
		b->sorted = false;
	b->last = addr;
	st->syms[st->n].addr = addr;
	st->syms[st->n].name = (const char *)(uintptr_t)off;	/* names may still move */
	st->n++;
}

/* build_line - the symbol of the line at [i, eol), if it has one */
static void build_line(struct kbuild *b, const char *s, size_t i, size_t eol)
{
	size_t name, nlen;
	uint64_t addr;

	if (!kline(s, i, eol, &addr, &name, &nlen) || !room(b, nlen + 1))
		return;
	memcpy(b->names + b->nnames, s + name, nlen);
	add(b, addr, nlen);
}

#ifdef __SSE2__
/* ends16 - the bytes of x that end a name: a tab (a module follows), a space, a newline */
static inline unsigned int ends16(__m128i x)
{
	return (unsigned int)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\t')),
									  _mm_cmpeq_epi8(x, _mm_set1_epi8(' '))),
							     _mm_cmpeq_epi8(x, _mm_set1_epi8('\n'))));
}
#endif

/*
 * usual_lines - the usual lines from s[i] on (see usual_line), in one pass:
 * the name is found, and copied, 32 bytes at a time, and where it ends
 * with the newline, the line ends there.  Stops where a line is not usual,
 * within 64 bytes of n, or at the first line from stop on; returns where
 * it stopped (a line's start).
 */
static size_t usual_lines(struct kbuild *b, const char *s, size_t i, size_t n, size_t stop)
{
#ifdef __SSE2__
	while (n - i >= 64 && i < stop) {
		const char *l = s + i;
		uint64_t addr;
		__m128i x, y;
		unsigned int m;
		size_t nlen, eol;
		char *to;

		/* 16 digits, a space, the type, a space, a name: no newline before it */
		if (l[16] != ' ' || l[18] != ' ' || l[17] == '\n' || l[19] == ' ' || l[19] == '\t' ||
		    l[19] == '\n' || !hex16(l, &addr))
			break;
		x = _mm_loadu_si128((const __m128i *)(const void *)(l + 19));
		y = _mm_loadu_si128((const __m128i *)(const void *)(l + 35));
		m = ends16(x) | ends16(y) << 16;
		if (m) {
			nlen = (size_t)__builtin_ctz(m);
			if (!room(b, 32))
				break;
			to = b->names + b->nnames;
			_mm_storeu_si128((__m128i *)(void *)to, x);
			_mm_storeu_si128((__m128i *)(void *)(to + 16), y);
		} else {
			/* a long name: on 16 bytes at a time, then copied */
			for (nlen = 32; !m && n - (i + 19 + nlen) >= 16; nlen += 16)
				if ((m = ends16(_mm_loadu_si128((const __m128i *)(const void *)(l + 19 + nlen)))))
					nlen += (size_t)__builtin_ctz(m) - 16;
			if (!m || !room(b, nlen + 1))
				break;	/* near the end: the general way */
			memcpy(b->names + b->nnames, l + 19, nlen);
		}
		eol = i + 19 + nlen;
		if (s[eol] != '\n') {
			eol = line_end(s, eol, n);
			if (eol == n)
				return i;	/* the last line: the general way */
		}
		add(b, addr, nlen);
		i = eol + 1;
	}
#else
	(void)b;
	(void)s;
	(void)n;
	(void)stop;
#endif
	return i;
}

/* one_line - the line at [i, eol) with names the usual way or kline's */
static void one_line(struct kbuild *b, const char *s, size_t i, size_t eol)
{
	uint64_t addr;
	size_t name, nlen;

	if (!usual_line(s, i, eol, &addr, &name)) {
		build_line(b, s, i, eol);
		return;
	}
	for (nlen = 0; name + nlen < eol && s[name + nlen] != '\t' && s[name + nlen] != ' '; nlen++)
		;
	if (!room(b, nlen + 1))
		return;
	memcpy(b->names + b->nnames, s + name, nlen);
	add(b, addr, nlen);
}

static int sort_index(struct ipt_sym *sy, size_t n);
static size_t count_lines(const char *s, size_t len);

/*
 * drop_read - the whole huge pages of s in [*from, to): their memory given
 * back (the text is the caller's, its pages never read again)
 */
static void drop_read(const char *s, size_t *from, size_t to)
{
	const uintptr_t huge = 2u << 20;
	uintptr_t a = ((uintptr_t)s + *from + huge - 1) & ~(huge - 1), e = ((uintptr_t)s + to) & ~(huge - 1);

	if (e > a) {
		(void)madvise((void *)a, e - a, MADV_DONTNEED);
		*from = e - (uintptr_t)s;
	}
}

/* upto_nul - the text ends at its first NUL byte, if any */
static size_t upto_nul(const char *s, size_t len)
{
	const char *nul = memchr(s, 0, len);

	return nul ? (size_t)(nul - s) : len;
}

/*
 * read_text - the symbols of kallsyms text (up to a NUL), after those st has.  Names and
 * symbols get room for what the text can hold at most (the lines counted,
 * less their addresses), in huge pages where they fill them.  drop: the
 * text's pages may be given back as it is read (see drop_read).
 */
static int read_text(struct ipt_symtab *st, const char *s, size_t len, bool drop)
{
	size_t dropped = 0;
	struct kbuild b = { .st = st, .n0 = st->n, .sorted = true };
	size_t lines, n, i = 0;
	struct ipt_sym *sy;

	len = upto_nul(s, len);
	lines = count_lines(s, len) + 1;

	b.capnames = (len > 19 * lines ? len - 19 * lines : len) + 64;
	if (b.capnames >= (1u << 20))	/* whole huge pages: 4 KiB faults cost more */
		b.capnames = (b.capnames + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
	b.names = ipt_malloc_big(b.capnames);
	if (!b.names)
		return -1;
	if (!st->n) {
		free(st->syms);
		st->syms = ipt_malloc_big(lines * sizeof(*st->syms));
		st->cap = st->syms ? lines : 0;
	} else {
		b.failed = IPT_GROW(st->syms, st->cap, st->n + lines) != 0;
	}
	while (!b.failed && st->syms && i < len) {
		size_t eol;

		i = usual_lines(&b, s, i, len, i + (1u << 20));
		if (i >= len)
			break;
		eol = line_end(s, i, len);
		one_line(&b, s, i, eol);
		i = eol + 1;
		if (drop && i - dropped >= (2u << 20))
			drop_read(s, &dropped, i);
	}
	n = st->n - b.n0;
	if (b.failed || !st->syms || (b.nnames && keep(st, b.names))) {
		st->n = b.n0;
		free(b.names);
		return -1;
	}
	if (!b.nnames)
		free(b.names);
	/* the new ones in order (then file order, as their names), then named */
	if (!b.sorted && !b.n0 && sort_index(st->syms, n)) {
		st->n = 0;	/* the names are the table's now, freed with it */
		return -1;
	}
	for (size_t k = b.n0; k < st->n; k++)
		st->syms[k].name = b.names + (uintptr_t)st->syms[k].name;
	if (b.n0 && st->n > 1)
		qsort(st->syms, st->n, sizeof(*st->syms), cmp_sym);
	/* not ipt_grow: the room left over given back */
	if (st->cap > st->n + 1024 && (sy = ipt_realloc(st->syms, st->n * sizeof(*sy)))) {
		st->syms = sy;
		st->cap = st->n;
	}
	changed(st);
	return 0;
}

int ipt_symtab_load_kallsyms(struct ipt_symtab *st, const char *text, size_t len)
{
	made(st);	/* a deferred text first: its symbols come before */
	return read_text(st, text, len, false);
}

int ipt_symtab_take_kallsyms(struct ipt_symtab *st, char *text, size_t len)
{
	made(st);
	return read_text(st, text, len, true);
}

int ipt_symtab_defer_kallsyms(struct ipt_symtab *st, const char *text, size_t len)
{
	if (st->n || st->ltext || len > UINT32_MAX)
		return ipt_symtab_load_kallsyms(st, text, len);
	st->ltext = text;
	st->llen = len;
	changed(st);
	__atomic_store_n(&st->lstate, 1, __ATOMIC_RELEASE);
	return 0;
}

void ipt_symtab_defer_cache(struct ipt_symtab *st, const char *dir, const struct ipt_symcache_ref *ref)
{
	if (!st->ltext || st->lcache || !dir || !*dir)
		return;
	st->lcache = ipt_strdup(dir);	/* none if out of memory: no index */
	st->lref_ok = ref != NULL;
	if (ref)
		memcpy(st->lref, ref->h, sizeof(st->lref));
}

int ipt_symtab_defer_fill(struct ipt_symtab *st, const char *dir, const struct ipt_symcache_key *k,
			  int (*fill)(void *arg, struct ipt_symtab *st), void *arg)
{
	if (st->n || __atomic_load_n(&st->lstate, __ATOMIC_RELAXED) || !dir || !*dir ||
	    !(st->lcache = ipt_strdup(dir)))
		return -1;
	st->lfill = fill;
	st->lfill_arg = arg;
	st->hkey = *k;
	st->hkey_ok = true;
	changed(st);
	__atomic_store_n(&st->lstate, 1, __ATOMIC_RELEASE);
	return 0;
}

void ipt_symtab_keep_answers(struct ipt_symtab *st, const char *dir, const struct ipt_symcache_key *k)
{
	if (!dir || !*dir || !st->n || st->hdir || __atomic_load_n(&st->lstate, __ATOMIC_RELAXED) ||
	    !(st->hdir = ipt_strdup(dir)))
		return;
	st->hkey = *k;
	st->hkey_ok = true;
	/* none read: a table read whole asks its own */
	__atomic_store_n(&st->hstate, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&st->hot_gen, __atomic_load_n(&st->gen, __ATOMIC_RELAXED), __ATOMIC_RELEASE);
}

/* while a table is read, a new symbol's name is its offset: the file order */
static inline bool sym_after(const struct ipt_sym *a, const struct ipt_sym *b)
{
	return a->addr != b->addr ? a->addr > b->addr : (uintptr_t)a->name > (uintptr_t)b->name;
}

static int cmp_new_sym(const void *a, const void *b)
{
	const struct ipt_sym *x = a, *y = b;

	return sym_after(x, y) ? 1 : sym_after(y, x) ? -1 : 0;
}

/*
 * aside - whether symbol k breaks the order of the run kept so far (last:
 * its highest address; none kept yet: kept false): below it, or a lone
 * one above its neighbours, the next symbol being in order without it
 */
static inline bool aside(const struct ipt_sym *sy, size_t n, size_t k, bool kept, uint64_t last)
{
	if (kept && sy[k].addr < last)
		return true;
	return k + 1 < n && sy[k + 1].addr < sy[k].addr && (!kept || sy[k + 1].addr >= last);
}

/*
 * sort_index - the n new symbols sy in address order, then file order.  A
 * kallsyms is sorted but for a few symbols: those are taken out, sorted
 * and merged back, in time linear in n.  Many: one sort of all.
 */
static int sort_index(struct ipt_sym *sy, size_t n)
{
	size_t nside = 0, m = 0, k;
	uint64_t last = 0;
	struct ipt_sym *v;

	for (k = 0; k < n; k++) {
		if (aside(sy, n, k, m > 0, last)) {
			nside++;
		} else {
			last = sy[k].addr;
			m++;
		}
	}
	if (nside > n / 8) {
		qsort(sy, n, sizeof(*sy), cmp_new_sym);
		return 0;
	}
	if (!(v = ipt_malloc((nside ? nside : 1) * sizeof(*v))))
		return -1;
	nside = m = 0;
	for (k = 0; k < n; k++) {
		/* the kept run moves down in place: m <= k, and aside() looks
		 * at k + 1, not yet moved, and at the last kept address */
		if (aside(sy, n, k, m > 0, m ? sy[m - 1].addr : 0))
			v[nside++] = sy[k];
		else
			sy[m++] = sy[k];
	}
	qsort(v, nside, sizeof(*v), cmp_new_sym);
	/* from the back: the kept run is [0, m), the result [0, n) */
	for (size_t i = m, j = nside, w = n; j > 0;) {
		w--;
		if (i > 0 && sym_after(&sy[i - 1], &v[j - 1]))
			sy[w] = sy[--i];
		else
			sy[w] = v[--j];
	}
	free(v);
	return 0;
}

/*
 * count_lines - the newlines in s: the index's size exactly, so that it
 * fills its huge pages rather than leave one mostly unused
 */
static size_t count_lines(const char *s, size_t len)
{
	size_t n = 0, i = 0;

#ifdef __SSE2__
	/* per byte lane, a count of up to 255 matches (a match is -1: subtract
	 * it), then the lanes summed; no popcount, which this build may lack */
	while (i + 16 <= len) {
		__m128i acc = _mm_setzero_si128(), sums;

		for (int k = 0; k < 255 && i + 16 <= len; k++, i += 16)
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + i)),
							       _mm_set1_epi8('\n')));
		sums = _mm_sad_epu8(acc, _mm_setzero_si128());
		n += (size_t)_mm_cvtsi128_si64(sums) + (size_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums));
	}
#endif
	for (; i < len; i++)
		n += s[i] == '\n';
	return n;
}

/* the whole table's answers kept for a key, at most (symcache.c keeps
 * 64 k ranges) */
#define HOT_KEEP_MAX (1u << 17)

/* the deferred table being filled (lfill) in this thread: its own calls
 * of made then are not waited for */
static __thread const struct ipt_symtab *filling;

/* made - the symbols of a deferred text, read once (any thread may ask) */
static void made(const struct ipt_symtab *cst)
{
	struct ipt_symtab *st = (struct ipt_symtab *)cst;

	if (!__atomic_load_n(&st->lstate, __ATOMIC_ACQUIRE) || filling == st)
		return;
	pthread_mutex_lock(&lazy_lock);
	if (__atomic_load_n(&st->lstate, __ATOMIC_RELAXED)) {
		const char *text = st->ltext;
		size_t len = st->llen, n0 = st->n;
		struct ipt_symcache_key k;
		struct ipt_symcache_ref ref;
		const struct ipt_symcache_ref *rp = st->lref_ok ? &ref : NULL;
		bool cache = st->lcache && !n0, known = false, loaded = false;

		st->ltext = NULL;
		st->llen = 0;
		memcpy(ref.h, st->lref, sizeof(ref.h));
		if (cache) {
			/* where the text lies first: then it is not read at all */
			if (st->hkey_ok) {
				k = st->hkey;
				known = true;
			} else {
				known = ipt_symcache_ref_get(st->lcache, rp, &k);
				if (!known)
					ipt_symcache_key_text(&k, text, upto_nul(text, len));
			}
			loaded = ipt_symtab_load_index(st, st->lcache, &k);
		}
		if (!loaded && st->lfill) {
			filling = st;
			if (st->lfill(st->lfill_arg, st))
				st->n = 0;	/* the section unreadable, or out of memory */
			filling = NULL;
		} else if (!loaded && read_text(st, text, len, false)) {
			st->n = 0;	/* out of memory: no symbols */
		}
		st->lfill = NULL;
		if (cache) {
			ipt_symcache_keep(st, st->lcache, rp, &k, known, !loaded && st->n);
			/* the table is the key's: its answers are kept for it */
			st->hkey = k;
			st->hkey_ok = true;
			if (!st->hdir)
				st->hdir = st->lcache;
			else
				free(st->lcache);
			__atomic_store_n(&st->hot_gen, st->n ? __atomic_load_n(&st->gen, __ATOMIC_RELAXED) : 0,
					 __ATOMIC_RELEASE);
		} else {
			free(st->lcache);
		}
		st->lcache = NULL;
		__atomic_store_n(&st->lstate, 0, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lazy_lock);
}

/*
 * hot_look - the answers kept for a deferred table's key, read at its
 * first lookup (by the ref of its text; a compressed section's key is
 * known): asked first while the table is the key's alone
 */
static void hot_look(struct ipt_symtab *st)
{
	pthread_mutex_lock(&lazy_lock);
	if (!__atomic_load_n(&st->hstate, __ATOMIC_RELAXED)) {
		if (__atomic_load_n(&st->lstate, __ATOMIC_RELAXED) && st->lcache && !st->n) {
			if (!st->hkey_ok && st->lref_ok) {
				struct ipt_symcache_ref ref;

				memcpy(ref.h, st->lref, sizeof(ref.h));
				st->hkey_ok = ipt_symcache_ref_get(st->lcache, &ref, &st->hkey);
			}
			if (st->hkey_ok && ipt_symhot_read(st->lcache, &st->hkey, &st->hot))
				__atomic_store_n(&st->hot_gen, __atomic_load_n(&st->gen, __ATOMIC_RELAXED),
						 __ATOMIC_RELEASE);
		}
		__atomic_store_n(&st->hstate, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lazy_lock);
}

/* hot_on - st's kept answers hold for it now (the table is the key's alone) */
static bool hot_on(const struct ipt_symtab *st)
{
	uint64_t g = __atomic_load_n(&st->hot_gen, __ATOMIC_ACQUIRE);

	return g && g == __atomic_load_n(&st->gen, __ATOMIC_ACQUIRE);
}

/* hot_answer - true with the kept answer for addr (*s; NULL: none) */
static bool hot_answer(const struct ipt_symtab *cst, uint64_t addr, const struct ipt_sym **s)
{
	struct ipt_symtab *st = (struct ipt_symtab *)cst;
	size_t lo = 0, hi;

	if (!__atomic_load_n(&st->hstate, __ATOMIC_ACQUIRE))
		hot_look(st);
	hi = st->hot.n;
	if (!hi || !hot_on(st) || addr < st->hot.syms[0].addr)
		return false;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->hot.syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (addr > st->hot.last[lo])
		return false;
	*s = st->hot.syms[lo].name ? &st->hot.syms[lo] : NULL;
	return true;
}

/* hot_keep - the whole table's answer for addr (the symbol at index i, or
 * none: n), kept while the table is the key's alone */
static void hot_keep(struct ipt_symtab *st, size_t i)
{
	struct ipt_symhot_rec r;
	size_t j;

	if (!st->hdir || !st->n || !hot_on(st))
		return;
	if (i == st->n) {
		r = (struct ipt_symhot_rec){ 0, st->syms[0].addr - 1, NULL };
	} else {
		for (j = i + 1; j < st->n && st->syms[j].addr == st->syms[i].addr; j++)
			;
		if (!st->syms[i].name || !*st->syms[i].name)
			return;
		r = (struct ipt_symhot_rec){ st->syms[i].addr, j < st->n ? st->syms[j].addr - 1 : UINT64_MAX,
					     st->syms[i].name };
	}
	pthread_mutex_lock(&lazy_lock);
	if (st->nhrec < HOT_KEEP_MAX && !IPT_GROW(st->hrec, st->caphrec, st->nhrec + 1))
		st->hrec[st->nhrec++] = r;
	pthread_mutex_unlock(&lazy_lock);
}

const char *ipt_symtab_name(const struct ipt_symtab *st, const struct ipt_sym *s)
{
	(void)st;
	return s->name;
}

int ipt_symtab_materialize(struct ipt_symtab *st)
{
	made(st);
	return 0;
}

uint64_t ipt_symtab_addr_of(const struct ipt_symtab *cst, const char *name)
{
	struct ipt_symtab *st = (struct ipt_symtab *)cst;
	uint64_t a = 0;

	if (!__atomic_load_n(&st->hstate, __ATOMIC_ACQUIRE))
		hot_look(st);
	if (hot_on(st))	/* kept: read-only once read */
		for (size_t i = 0; i < st->hot.nnames; i++)
			if (!strcmp(st->hot.names[i].name, name))
				return st->hot.names[i].addr;
	made(st);
	pthread_mutex_lock(&lazy_lock);
	if (st->byname_gen != st->gen) {	/* symbols added since: forgotten */
		for (size_t i = 0; i < st->nbyname; i++)
			free(st->byname[i].name);
		st->nbyname = 0;
		st->byname_gen = st->gen;
	}
	for (size_t i = 0; i < st->nbyname; i++)
		if (!strcmp(st->byname[i].name, name)) {
			a = st->byname[i].addr;
			goto out;
		}
	/* sorted: the first of several is the lowest */
	for (size_t i = 0; i < st->n; i++)
		if (st->syms[i].name && !strcmp(st->syms[i].name, name)) {
			a = st->syms[i].addr;
			break;
		}
	{
		bool room = !IPT_GROW(st->byname, st->capbyname, st->nbyname + 1);
		char *c = ipt_strdup(name);

		if (room && c)
			st->byname[st->nbyname++] = (struct ipt_sym_byname){ c, a };
		else
			free(c);
	}
	/* kept for the key while the table is its alone */
	if (st->hdir && st->n && hot_on(st) && st->nhbyname < HOT_KEEP_MAX &&
	    !IPT_GROW(st->hbyname, st->caphbyname, st->nhbyname + 1)) {
		char *c = ipt_strdup(name);

		if (c)
			st->hbyname[st->nhbyname++] = (struct ipt_symhot_name){ c, a };
	}
out:
	pthread_mutex_unlock(&lazy_lock);
	return a;
}

int ipt_symtab_sort(struct ipt_symtab *st)
{
	if (__atomic_load_n(&st->lstate, __ATOMIC_ACQUIRE))
		return 0;	/* deferred: the index comes out sorted */
	if (st->n > 1)
		qsort(st->syms, st->n, sizeof(*st->syms), cmp_sym);
	changed(st);
	return 0;
}

/*
 * The last lookups of each thread, by (table generation, address): output
 * asks for the same few call sites and callbacks again and again, and a
 * binary search over 100k symbols costs more than the rest of a row.
 */
#define LOOKUP_MEMO 64
struct lookup_memo {
	uint64_t gen, addr;
	const struct ipt_sym *sym;
};
static __thread struct lookup_memo lookup_memo[LOOKUP_MEMO];

static const struct ipt_sym *search(const struct ipt_symtab *st, uint64_t addr);

/* ipt_symtab_lookup - the last symbol with address <= addr */
const struct ipt_sym *ipt_symtab_lookup(const struct ipt_symtab *st, uint64_t addr)
{
	struct lookup_memo *m = &lookup_memo[(addr ^ (addr >> 6) ^ (addr >> 16)) & (LOOKUP_MEMO - 1)];
	uint64_t gen = __atomic_load_n(&st->gen, __ATOMIC_ACQUIRE);
	const struct ipt_sym *s;

	if (gen && m->gen == gen && m->addr == addr)
		return m->sym;
	s = search(st, addr);
	if (gen) {
		m->gen = gen;
		m->addr = addr;
		m->sym = s;
	}
	return s;
}

static const struct ipt_sym *search(const struct ipt_symtab *cst, uint64_t addr)
{
	struct ipt_symtab *st = (struct ipt_symtab *)cst;
	const struct ipt_sym *kept;
	size_t lo = 0, hi;

	if (hot_answer(st, addr, &kept))
		return kept;
	made(st);
	hi = st->n;
	if (!st->n || addr < st->syms[0].addr) {
		hot_keep(st, st->n);
		return NULL;
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* the first of several symbols at the same address */
	while (lo > 0 && st->syms[lo - 1].addr == st->syms[lo].addr)
		lo--;
	hot_keep(st, lo);
	return &st->syms[lo];
}

const struct ipt_sym *ipt_symtab_exact(const struct ipt_symtab *st, uint64_t addr)
{
	const struct ipt_sym *s = ipt_symtab_lookup(st, addr);

	return s && s->addr == addr ? s : NULL;
}

void ipt_symtab_adopt(struct ipt_symtab *st, struct ipt_sym *syms, size_t n, void *block)
{
	free(st->syms);
	st->syms = syms;
	st->n = st->cap = n;
	st->cache_block = block;
	changed(st);
}

int ipt_symtab_load_index(struct ipt_symtab *st, const char *dir, const struct ipt_symcache_key *k)
{
	struct ipt_symcache_found f;

	if (st->n || st->ltext || !ipt_symcache_read(dir, k, &f))
		return 0;
	ipt_symtab_adopt(st, f.syms, f.n, f.block);
	return 1;
}

void ipt_symtab_free(struct ipt_symtab *st)
{
	if (st->hdir && st->hkey_ok && (st->nhrec || st->nhbyname)) {
		if (!st->hot.block)	/* not read (no ref): those kept for others stay */
			(void)ipt_symhot_read(st->hdir, &st->hkey, &st->hot);
		ipt_symhot_store(st->hdir, &st->hkey, &st->hot, st->hrec, st->nhrec, st->hbyname, st->nhbyname);
	}
	ipt_symhot_free(&st->hot);
	free(st->hrec);
	for (size_t i = 0; i < st->nhbyname; i++)
		free((char *)(uintptr_t)st->hbyname[i].name);
	free(st->hbyname);
	free(st->hdir);
	free(st->cache_block);
	for (size_t i = 0; i < st->nextra; i++)
		free(st->extra[i]);
	free(st->extra);
	free(st->syms);
	free(st->strings);
	for (size_t i = 0; i < st->nbyname; i++)
		free(st->byname[i].name);
	free(st->byname);
	free(st->lcache);
	memset(st, 0, sizeof(*st));
}

/* ---- pid -> comm ---- */

struct ipt_comm {
	uint64_t tag;
	int pid;
	bool loaded;		/* name is in ipt_comms.loaded, not its own */
	char *name;
};

static bool comm_eq(const void *entry, const void *key)
{
	return ((const struct ipt_comm *)entry)->pid == *(const int *)key;
}

static uint64_t comm_tag(int pid)
{
	return ipt_hmap_tag(ipt_hash64((uint32_t)pid));
}

/* ipt_comms_set - remember the task name of pid (the last one given wins) */
/* set - pid's name is name (copy: its own, else in c->loaded) */
static int set(struct ipt_comms *c, int pid, char *name, bool loaded)
{
	bool added;
	struct ipt_comm *e;

	/* room for the name it replaces first: then nothing can fail after
	 * the entry is made */
	if (IPT_GROW(c->old, c->capold, c->nold + 1) ||
	    !(e = ipt_hmap_add(&c->map, sizeof(*e), comm_tag(pid), comm_eq, &pid, &added)))
		return -1;
	if (added)
		e->pid = pid;
	else if (!e->loaded)
		c->old[c->nold++] = e->name;
	e->name = name;
	e->loaded = loaded;
	return 0;
}

int ipt_comms_set(struct ipt_comms *c, int pid, const char *name, size_t len)
{
	char *copy = ipt_strndup(name, len);

	if (!copy)
		return -1;
	if (set(c, pid, copy, false)) {
		free(copy);
		return -1;
	}
	return 0;
}

const char *ipt_comms_get(const struct ipt_comms *c, int pid)
{
	const struct ipt_comm *e = ipt_hmap_find(&c->map, sizeof(*e), comm_tag(pid), comm_eq, &pid);

	return e && ipt_hmap_used(e) ? e->name : NULL;
}

/* the most tasks a kernel's saved_cmdlines holds (PID_MAX_DEFAULT) */
#define CMDLINES_MAX 32768

/* ipt_comms_load_cmdlines - saved_cmdlines text: "PID COMM" lines */
int ipt_comms_load_cmdlines(struct ipt_comms *c, const char *text, size_t len)
{
	size_t i = 0, lines = 1;

	/* the table made once at its size (a line a task), not grown and
	 * rehashed on the way: thousands of tasks on a busy machine.  At
	 * most the kernel's largest saved_cmdlines_size (PID_MAX_DEFAULT):
	 * a text of empty lines reserves no more than that. */
	for (const char *nl = text; lines < CMDLINES_MAX &&
	     (nl = memchr(nl, '\n', (size_t)(text + len - nl))); nl++)
		lines++;
	if (ipt_hmap_reserve(&c->map, sizeof(struct ipt_comm), lines))
		return -1;
	/* the names in one block, not an allocation each (thousands); a
	 * second text (none has two) would take one each */
	char *names = c->loaded ? NULL : ipt_malloc(len + 1), *put = names;

	if (!c->loaded && !names)
		return -1;
	if (names)
		c->loaded = names;
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t eol = nl ? (size_t)(nl - text) : len;
		long pid = 0;
		bool digits = false;

		while (i < eol && isdigit((unsigned char)text[i]) && pid < 100000000) {
			pid = pid * 10 + (text[i] - '0');
			i++;
			digits = true;
		}
		if (digits && i < eol && text[i] == ' ') {
			size_t n = eol - i - 1;

			if (!names) {
				if (ipt_comms_set(c, (int)pid, text + i + 1, n))
					return -1;
			} else {
				memcpy(put, text + i + 1, n);
				put[n] = 0;
				if (set(c, (int)pid, put, true))
					return -1;
				put += n + 1;
			}
		}
		i = eol + 1;
	}
	return 0;
}

void ipt_comms_free(struct ipt_comms *c)
{
	for (size_t i = 0; i < c->map.cap; i++) {
		struct ipt_comm *e = ipt_hmap_at(&c->map, sizeof(*e), i);

		if (ipt_hmap_used(e) && !e->loaded)
			free(e->name);
	}
	for (size_t i = 0; i < c->nold; i++)
		free(c->old[i]);
	free(c->old);
	free(c->loaded);
	ipt_hmap_free(&c->map);
	memset(c, 0, sizeof(*c));
}
