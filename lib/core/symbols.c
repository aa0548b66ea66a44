// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * symbols.c - kernel symbols (kallsyms), printk strings, saved cmdlines
 *
 * A symtab is a sorted array of (address, name).  kallsyms lookups find
 * the closest symbol at or below an address; printk lookups are exact.
 */
#include "core/core.h"
#include "core/hash.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>

/* deferred tables: making the index and the names (rare; any thread) */
static pthread_mutex_t lazy_lock = PTHREAD_MUTEX_INITIALIZER;

struct ipt_sym_byname {
	char *name;
	uint64_t addr;
};

/* keep - remember an owned string in the table */
static int keep(struct ipt_symtab *st, char *s)
{
	if (st->nextra == st->extracap) {
		size_t cap = st->extracap ? st->extracap * 2 : 16;
		char **n = ipt_realloc(st->extra, cap * sizeof(*n));

		if (!n)
			return -1;
		st->extra = n;
		st->extracap = cap;
	}
	st->extra[st->nextra++] = s;
	return 0;
}

/* push - append a symbol whose name is already owned by the table */
static int push(struct ipt_symtab *st, uint64_t addr, const char *name)
{
	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 1024;
		struct ipt_sym *n = ipt_realloc(st->syms, cap * sizeof(*n));

		if (!n)
			return -1;
		st->syms = n;
		st->cap = cap;
	}
	st->syms[st->n].addr = addr;
	st->syms[st->n].name = name;
	st->n++;
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

/* parse_hex - hex number at s[*i] (optional 0x); false if none */
static bool parse_hex(const char *s, size_t n, size_t *i, uint64_t *v)
{
	size_t start, k;
	uint64_t x = 0;

	if (*i + 1 < n && s[*i] == '0' && (s[*i + 1] == 'x' || s[*i + 1] == 'X'))
		*i += 2;
	start = k = *i;
	/* the usual kallsyms address: 16 digits and a space */
	if (k + 16 < n && s[k + 16] == ' ') {
		uint32_t a, b;

		if (hex8(s + k, &a) && hex8(s + k + 8, &b)) {
			*i = k + 16;
			*v = (uint64_t)a << 32 | b;
			return true;
		}
	}
	for (unsigned int d; k < n && (d = hex1[(unsigned char)s[k]]); k++)
		x = (x << 4) | (d - 1);
	*i = k;
	*v = x;
	return k > start && k - start <= 16;
}

/*
 * ipt_symtab_load_kallsyms - "ffffffff81000000 T _stext [module]" lines.
 * The text is copied once; names point into the copy.
 */
int ipt_symtab_load_kallsyms(struct ipt_symtab *st, const char *text, size_t len)
{
	char *copy = ipt_strndup(text, len);
	size_t i = 0;

	if (!copy || keep(st, copy)) {
		free(copy);
		return -1;
	}
	while (i < len) {
		size_t eol = i, name;
		uint64_t addr;
		char type;

		while (eol < len && copy[eol] != '\n')
			eol++;
		if (!parse_hex(copy, eol, &i, &addr) || i >= eol || copy[i] != ' ')
			goto next;
		i++;
		if (i >= eol)
			goto next;
		type = copy[i++];
		if (i >= eol || copy[i] != ' ')
			goto next;
		i++;
		name = i;
		while (i < eol && copy[i] != '\t' && copy[i] != ' ')
			i++;
		if (i == name)
			goto next;
		copy[i] = 0;
		/* like trace-cmd: data, absolute and local-abs symbols are kept too */
		(void)type;
		if (push(st, addr, copy + name))
			return -1;
next:
		i = eol + 1;
	}
	return 0;
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

/* ---- deferred kallsyms ---- */

static void made(const struct ipt_symtab *cst);

/*
 * kline - the line of text at [i, eol) as ipt_symtab_load_kallsyms reads it:
 * true with its address and name (offset, length) if it has a symbol
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
	if (!nlen)	/* the index needs only to know there is a name */
		return i < eol && s[i] != '\t' && s[i] != ' ';
	for (k = i; k < eol && s[k] != '\t' && s[k] != ' '; k++)
		;
	*nlen = k - i;
	return k > i;
}

int ipt_symtab_defer_kallsyms(struct ipt_symtab *st, const char *text, size_t len)
{
	if (st->n || st->ltext || len > UINT32_MAX)
		return ipt_symtab_materialize(st) || ipt_symtab_load_kallsyms(st, text, len) ?
		       -1 : ipt_symtab_sort(st);
	st->ltext = text;
	st->llen = len;
	__atomic_store_n(&st->lstate, 1, __ATOMIC_RELEASE);
	return 0;
}

struct koff {
	uint64_t addr;
	uint32_t off;
};

static int cmp_koff(const void *a, const void *b)
{
	const struct koff *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->off < y->off ? -1 : (x->off > y->off);	/* file order */
}

/* make_index - one pass over the deferred text: addresses and where names are */
static int make_index(struct ipt_symtab *st)
{
	const char *s = st->ltext;
	size_t len = st->llen, i = 0, n = 0, cap = len / 40 + 16;
	bool sorted = true;

	st->syms = ipt_malloc(cap * sizeof(*st->syms));
	st->noff = ipt_malloc(cap * sizeof(*st->noff));
	if (!st->syms || !st->noff)
		goto fail;
	while (i < len) {
		const char *nl;
		size_t eol, name;
		uint64_t addr;

		nl = memchr(s + i, '\n', len - i);
		eol = nl ? (size_t)(nl - s) : len;
		if (kline(s, i, eol, &addr, &name, NULL)) {
			if (n == cap) {
				struct ipt_sym *w = ipt_realloc(st->syms, cap * 2 * sizeof(*w));
				uint32_t *o = w ? ipt_realloc(st->noff, cap * 2 * sizeof(*o)) : NULL;

				if (w)
					st->syms = w;
				if (!o)
					goto fail;
				st->noff = o;
				cap *= 2;
			}
			if (n && addr < st->syms[n - 1].addr)
				sorted = false;
			st->syms[n].addr = addr;
			st->syms[n].name = NULL;
			st->noff[n] = (uint32_t)name;
			n++;
		}
		i = eol + 1;
	}
	if (!sorted) {
		struct koff *v = ipt_malloc((n ? n : 1) * sizeof(*v));

		if (!v)
			goto fail;
		for (size_t k = 0; k < n; k++)
			v[k] = (struct koff){ st->syms[k].addr, st->noff[k] };
		qsort(v, n, sizeof(*v), cmp_koff);
		for (size_t k = 0; k < n; k++) {
			st->syms[k].addr = v[k].addr;
			st->noff[k] = v[k].off;
		}
		free(v);
	}
	st->n = st->cap = n;
	return 0;
fail:
	free(st->syms);
	free(st->noff);
	st->syms = NULL;
	st->noff = NULL;
	st->n = st->cap = 0;
	return -1;
}

/* made - the index of a deferred table, made once (any thread may ask) */
static void made(const struct ipt_symtab *cst)
{
	struct ipt_symtab *st = (struct ipt_symtab *)cst;

	if (!__atomic_load_n(&st->lstate, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&lazy_lock);
	if (__atomic_load_n(&st->lstate, __ATOMIC_RELAXED)) {
		if (make_index(st))
			st->n = 0;	/* out of memory: no symbols */
		__atomic_store_n(&st->lstate, 0, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lazy_lock);
}

const char *ipt_symtab_name(const struct ipt_symtab *cst, const struct ipt_sym *s)
{
	struct ipt_symtab *st = (struct ipt_symtab *)cst;
	struct ipt_sym *w = (struct ipt_sym *)s;
	const char *name = __atomic_load_n(&s->name, __ATOMIC_ACQUIRE);

	if (name || !st->noff)
		return name;
	pthread_mutex_lock(&lazy_lock);
	if (!(name = w->name)) {
		size_t off = st->noff[s - st->syms], k = off;
		char *c;

		while (k < st->llen && st->ltext[k] != '\n' && st->ltext[k] != '\t' && st->ltext[k] != ' ')
			k++;
		c = ipt_strndup(st->ltext + off, k - off);
		if (c && keep(st, c)) {
			free(c);
			c = NULL;
		}
		if (c)
			__atomic_store_n(&w->name, c, __ATOMIC_RELEASE);
		name = c;
	}
	pthread_mutex_unlock(&lazy_lock);
	return name;
}

int ipt_symtab_materialize(struct ipt_symtab *st)
{
	if (!st->ltext)
		return 0;
	made(st);
	for (size_t i = 0; i < st->n; i++)
		if (!ipt_symtab_name(st, &st->syms[i]))
			return -1;
	free(st->noff);
	st->noff = NULL;
	st->ltext = NULL;
	st->llen = 0;
	return 0;
}

/* defer_addr_of - ipt_symtab_addr_of in the deferred text (under the lock) */
static uint64_t defer_addr_of(const struct ipt_symtab *st, const char *name)
{
	size_t nl = strlen(name);
	const char *s = st->ltext, *q = s;
	uint64_t best = 0;
	bool found = false;

	while (nl && (q = memmem(q, st->llen - (size_t)(q - s), name, nl))) {
		size_t at = (size_t)(q - s), bol = at, eol, nm, len;
		uint64_t addr;

		while (bol > 0 && s[bol - 1] != '\n')
			bol--;
		eol = at + nl;
		while (eol < st->llen && s[eol] != '\n')
			eol++;
		if (kline(s, bol, eol, &addr, &nm, &len) && nm == at && len == nl &&
		    (!found || addr < best)) {
			best = addr;
			found = true;
		}
		q = s + eol;	/* one symbol per line */
		if (eol >= st->llen)
			break;
	}
	return best;
}

uint64_t ipt_symtab_addr_of(const struct ipt_symtab *cst, const char *name)
{
	struct ipt_symtab *st = (struct ipt_symtab *)cst;
	uint64_t a = 0;

	if (!st->ltext) {
		for (size_t i = 0; i < st->n; i++)
			if (!strcmp(ipt_symtab_name(st, &st->syms[i]), name))
				return st->syms[i].addr;
		return 0;
	}
	pthread_mutex_lock(&lazy_lock);
	for (size_t i = 0; i < st->nbyname; i++)
		if (!strcmp(st->byname[i].name, name)) {
			a = st->byname[i].addr;
			goto out;
		}
	a = defer_addr_of(st, name);
	{
		struct ipt_sym_byname *v = ipt_realloc(st->byname, (st->nbyname + 1) * sizeof(*v));
		char *c = ipt_strdup(name);

		if (v)
			st->byname = v;
		if (v && c)
			st->byname[st->nbyname++] = (struct ipt_sym_byname){ c, a };
		else
			free(c);
	}
out:
	pthread_mutex_unlock(&lazy_lock);
	return a;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct ipt_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* stable order for equal addresses: keep the file order */
	return x < y ? -1 : (x > y);
}

int ipt_symtab_sort(struct ipt_symtab *st)
{
	if (st->ltext)
		return 0;	/* deferred: the index comes out sorted */
	if (st->n > 1)
		qsort(st->syms, st->n, sizeof(*st->syms), cmp_sym);
	return 0;
}

/* ipt_symtab_lookup - the last symbol with address <= addr */
const struct ipt_sym *ipt_symtab_lookup(const struct ipt_symtab *st, uint64_t addr)
{
	size_t lo = 0, hi;

	made(st);
	hi = st->n;
	if (!st->n || addr < st->syms[0].addr)
		return NULL;
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
	if (st->noff && !ipt_symtab_name(st, &st->syms[lo]))
		return NULL;	/* out of memory */
	return &st->syms[lo];
}

const struct ipt_sym *ipt_symtab_exact(const struct ipt_symtab *st, uint64_t addr)
{
	const struct ipt_sym *s = ipt_symtab_lookup(st, addr);

	return s && s->addr == addr ? s : NULL;
}

void ipt_symtab_free(struct ipt_symtab *st)
{
	for (size_t i = 0; i < st->nextra; i++)
		free(st->extra[i]);
	free(st->extra);
	free(st->syms);
	free(st->strings);
	free(st->noff);
	for (size_t i = 0; i < st->nbyname; i++)
		free(st->byname[i].name);
	free(st->byname);
	memset(st, 0, sizeof(*st));
}

/* ---- pid -> comm: open addressing on pid ---- */

static size_t slot_of(const struct ipt_comms *c, int pid)
{
	size_t h = (size_t)ipt_hash64((uint32_t)pid);

	return h & (c->cap - 1);
}

static int comms_grow(struct ipt_comms *c)
{
	struct ipt_comms n = { 0 };
	size_t cap = c->cap ? c->cap * 2 : 256;

	n.pids = ipt_malloc(cap * sizeof(*n.pids));
	n.names = ipt_calloc(cap, sizeof(*n.names));
	if (!n.pids || !n.names) {
		free(n.pids);
		free(n.names);
		return -1;
	}
	n.cap = cap;
	for (size_t i = 0; i < c->cap; i++) {
		size_t s;

		if (!c->names[i])
			continue;
		s = slot_of(&n, c->pids[i]);
		while (n.names[s])
			s = (s + 1) & (cap - 1);
		n.pids[s] = c->pids[i];
		n.names[s] = c->names[i];
		n.n++;
	}
	free(c->pids);
	free(c->names);
	*c = n;
	return 0;
}

/* ipt_comms_set - remember the task name of pid (the last one given wins) */
int ipt_comms_set(struct ipt_comms *c, int pid, const char *name, size_t len)
{
	size_t s;
	char *copy;

	if ((c->n + 1) * 2 > c->cap && comms_grow(c))
		return -1;
	s = slot_of(c, pid);
	while (c->names[s] && c->pids[s] != pid)
		s = (s + 1) & (c->cap - 1);
	copy = ipt_strndup(name, len);
	if (!copy)
		return -1;
	if (c->names[s])
		free(c->names[s]);
	else
		c->n++;
	c->pids[s] = pid;
	c->names[s] = copy;
	return 0;
}

const char *ipt_comms_get(const struct ipt_comms *c, int pid)
{
	size_t s;

	if (!c->cap)
		return NULL;
	s = slot_of(c, pid);
	while (c->names[s]) {
		if (c->pids[s] == pid)
			return c->names[s];
		s = (s + 1) & (c->cap - 1);
	}
	return NULL;
}

/* ipt_comms_load_cmdlines - saved_cmdlines text: "PID COMM" lines */
int ipt_comms_load_cmdlines(struct ipt_comms *c, const char *text, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t eol = i;
		long pid = 0;
		bool digits = false;

		while (eol < len && text[eol] != '\n')
			eol++;
		while (i < eol && isdigit((unsigned char)text[i]) && pid < 100000000) {
			pid = pid * 10 + (text[i] - '0');
			i++;
			digits = true;
		}
		if (digits && i < eol && text[i] == ' ') {
			if (ipt_comms_set(c, (int)pid, text + i + 1, eol - i - 1))
				return -1;
		}
		i = eol + 1;
	}
	return 0;
}

void ipt_comms_free(struct ipt_comms *c)
{
	for (size_t i = 0; i < c->cap; i++)
		free(c->names[i]);
	free(c->names);
	free(c->pids);
	memset(c, 0, sizeof(*c));
}
