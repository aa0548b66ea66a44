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
#include <stdlib.h>

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

static int hexdig(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* parse_hex - hex number at s[*i] (optional 0x); false if none */
static bool parse_hex(const char *s, size_t n, size_t *i, uint64_t *v)
{
	size_t start;

	*v = 0;
	if (*i + 1 < n && s[*i] == '0' && (s[*i + 1] == 'x' || s[*i + 1] == 'X'))
		*i += 2;
	start = *i;
	while (*i < n && hexdig((unsigned char)s[*i]) >= 0) {
		*v = (*v << 4) | (uint64_t)hexdig((unsigned char)s[*i]);
		(*i)++;
	}
	return *i > start && *i - start <= 16;
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
	if (st->n > 1)
		qsort(st->syms, st->n, sizeof(*st->syms), cmp_sym);
	return 0;
}

/* ipt_symtab_lookup - the last symbol with address <= addr */
const struct ipt_sym *ipt_symtab_lookup(const struct ipt_symtab *st, uint64_t addr)
{
	size_t lo = 0, hi = st->n;

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
