// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * format.c - tracefs event format files -> struct ipt_event
 *
 *   name: ipi_send_cpumask
 *   ID: 353
 *   format:
 *   	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
 *   	...
 *   	field:__data_loc cpumask_t cpumask;	offset:8;	size:4;	signed:0;
 *
 *   print fmt: "cpumask=%s ...", __get_cpumask(cpumask), ...
 *
 * Also events/header_page, which describes the ring-buffer sub-buffer header.
 */
#include "input/input.h"

#include <ctype.h>
#include <stdlib.h>

struct cursor {
	const char *s;
	size_t len;
	size_t pos;
};

/*
 * The fields' names and types of one event, NUL-terminated one after the
 * other in one allocation (struct ipt_event's field_text), not two
 * allocations a field: a kernel's formats have some 20k fields, and their
 * mallocs and frees were a tenth of opening such a trace.  Sized to the
 * format's text, which bounds them: a field line holds its name and type,
 * and "field:" besides, longer than their two NULs.
 */
struct strpool {
	char *buf;
	size_t len, cap;
};

/* pool_add - a NUL-terminated copy of s[0..n) in the pool; NULL if full */
static char *pool_add(struct strpool *sp, const char *s, size_t n)
{
	char *p;

	if (n >= sp->cap - sp->len)
		return NULL;	/* cannot happen (see above); the line is refused */
	p = sp->buf + sp->len;
	memcpy(p, s, n);
	p[n] = 0;
	sp->len += n + 1;
	return p;
}

/* next_line - the next line of text (without its newline) */
static bool next_line(struct cursor *c, const char **line, size_t *n)
{
	size_t start = c->pos;
	const char *nl;

	if (c->pos >= c->len)
		return false;
	nl = memchr(c->s + start, '\n', c->len - start);
	c->pos = nl ? (size_t)(nl - c->s) : c->len;
	*line = c->s + start;
	*n = c->pos - start;
	if (c->pos < c->len)
		c->pos++;
	return true;
}

/*
 * find_in - pointer to the first occurrence of key in s[0..n), or NULL.
 * memchr finds the candidates: a kernel's formats are thousands of lines,
 * read at every open, and a byte loop here was most of their cost.
 */
static const char *find_in(const char *s, size_t n, const char *key)
{
	size_t k = strlen(key);
	const char *end = s + n, *p = s;

	if (k > n)
		return NULL;
	while ((size_t)(end - p) >= k && (p = memchr(p, key[0], (size_t)(end - p) - k + 1))) {
		if (!memcmp(p, key, k))
			return p;
		p++;
	}
	return NULL;
}

/* KEY_LEN - the length of a string literal */
#define KEY_LEN(lit) (sizeof(lit) - 1)

/* num_at - the decimal number at p (a '-' allowed) up to end; -1 if none
 * or over 2^31-1.  *found: a digit was read; *after: the first byte past it */
static long long num_at(const char *p, const char *end, bool *found, const char **after)
{
	long long v = 0;
	bool neg = false;

	*found = false;
	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	while (p < end && *p >= '0' && *p <= '9') {
		v = v * 10 + (*p - '0');
		if (v > 0x7fffffff) {
			*after = p;
			return -1;
		}
		p++;
		*found = true;
	}
	*after = p;
	return neg ? -v : v;
}

/* attr_num - value of "key:NUMBER;" in a field line; -1 if missing */
static long long attr_num(const char *s, size_t n, const char *key, bool *found)
{
	const char *p = find_in(s, n, key), *after;

	*found = false;
	if (!p)
		return -1;
	return num_at(p + strlen(key), s + n, found, &after);
}

/*
 * ordered_attr - the value of key where the usual layout puts it: at *q
 * after blanks, followed by ';' (";\toffset:N;\tsize:N;\tsigned:N;"), read
 * in one pass instead of searching the line once per key.  The text before
 * *q is then ';', blanks and the keys before it with their numbers, in
 * which none of the three keys can begin: so the key at *q is also the
 * first one in the line, the one attr_num finds.  Off that layout (*q
 * NULL, then for every later key too): attr_num over [s, s + n).  k: the
 * length of key, a constant (KEY_LEN) that lets the compare be inlined.
 */
static inline long long ordered_attr(const char **q, const char *s, size_t n, const char *key,
				     size_t k, bool *found)
{
	const char *end = s + n, *p = *q, *after;
	long long v;

	if (p) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(end - p) >= k && !memcmp(p, key, k)) {
			v = num_at(p + k, end, found, &after);
			if (after < end && *after == ';' && v >= 0)
				*q = after + 1;
			else
				*q = NULL;
			return v;
		}
		*q = NULL;
	}
	return attr_num(s, n, key, found);
}

/*
 * is_blank, is_ident: isspace and "isalnum or '_'" of the C locale (the
 * only one ipitrace runs in), without a call per byte to find the
 * locale's table
 */
static inline bool is_blank(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static inline bool is_ident(char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_';
}

/* base_elem_size - byte size of one element of a C type, 0 if unknown */
static unsigned int base_elem_size(const char *type, int long_size)
{
	static const struct { const char *name; unsigned int size; } tab[] = {
		{ "char", 1 }, { "unsigned char", 1 }, { "signed char", 1 },
		{ "u8", 1 }, { "s8", 1 }, { "__u8", 1 }, { "bool", 1 }, { "_Bool", 1 },
		{ "short", 2 }, { "unsigned short", 2 }, { "u16", 2 }, { "s16", 2 },
		{ "__u16", 2 }, { "__be16", 2 }, { "__le16", 2 },
		{ "int", 4 }, { "unsigned int", 4 }, { "u32", 4 }, { "s32", 4 },
		{ "__u32", 4 }, { "__be32", 4 }, { "__le32", 4 }, { "pid_t", 4 },
		{ "u64", 8 }, { "s64", 8 }, { "__u64", 8 }, { "long long", 8 },
		{ "unsigned long long", 8 },
	};
	const char *t = type;

	if (!strncmp(t, "__data_loc ", 11))
		t += 11;
	else if (!strncmp(t, "__rel_loc ", 10))
		t += 10;
	if (!strncmp(t, "const ", 6))
		t += 6;
	if (strchr(t, '*'))
		return (unsigned int)long_size;
	if (!strncmp(t, "cpumask_t", 9) || !strncmp(t, "unsigned long", 13) ||
	    !strncmp(t, "long", 4) || !strncmp(t, "size_t", 6))
		return strncmp(t, "unsigned long long", 18) && strncmp(t, "long long", 9) ?
			(unsigned int)long_size : 8;
	for (size_t i = 0; i < ARRAY_SIZE(tab); i++) {
		size_t k = strlen(tab[i].name);

		if (!strncmp(t, tab[i].name, k) && (t[k] == 0 || t[k] == '[' || t[k] == ' '))
			return tab[i].size;
	}
	return 0;
}

/*
 * parse_decl - split "TYPE NAME[N]" into type text and name, and classify
 * the field.  decl has no trailing ';'.
 */
static int parse_decl(struct ipt_field *f, const char *decl, size_t n, int long_size,
		      struct strpool *sp)
{
	size_t end = n, name_end, name_start;
	long nelem = -1;
	unsigned int esize;
	bool star;	/* a pointer type */

	while (end && is_blank(decl[end - 1]))
		end--;
	/* fixed array suffix on the name: name[N] */
	if (end && decl[end - 1] == ']') {
		size_t lb = end - 1;

		while (lb && decl[lb] != '[')
			lb--;
		if (decl[lb] != '[')
			return -1;
		nelem = 0;
		for (size_t i = lb + 1; i < end - 1; i++) {
			if (!isdigit((unsigned char)decl[i])) {
				nelem = -2;	/* symbolic size: size comes from size: */
				break;
			}
			nelem = nelem * 10 + (decl[i] - '0');
			if (nelem > 1 << 24)
				return -1;
		}
		name_end = lb;
	} else {
		name_end = end;
	}
	name_start = name_end;
	while (name_start && is_ident(decl[name_start - 1]))
		name_start--;
	if (name_start == name_end)
		return -1;
	f->name = pool_add(sp, decl + name_start, name_end - name_start);
	{
		size_t ts = 0, te = name_start;

		while (ts < te && is_blank(decl[ts]))
			ts++;
		while (te > ts && is_blank(decl[te - 1]))
			te--;
		f->type = pool_add(sp, decl + ts, te - ts);
	}
	if (!f->name || !f->type)
		return -1;

	star = strchr(f->type, '*') != NULL;
	if (f->type[0] == '_' && !strncmp(f->type, "__data_loc", 10))
		f->flags |= IPT_FIELD_DYNAMIC;
	else if (f->type[0] == '_' && !strncmp(f->type, "__rel_loc", 9))
		f->flags |= IPT_FIELD_DYNAMIC | IPT_FIELD_RELATIVE;
	if (nelem != -1 && !(f->flags & IPT_FIELD_DYNAMIC))
		f->flags |= IPT_FIELD_ARRAY;
	if (strstr(f->type, "cpumask_t"))
		f->flags |= IPT_FIELD_CPUMASK;
	/* "char buf; size:0" (ftrace print): a string running to the record's end */
	if (f->size == 0 && !(f->flags & IPT_FIELD_DYNAMIC))
		f->flags |= IPT_FIELD_ARRAY;
	if ((f->flags & (IPT_FIELD_ARRAY | IPT_FIELD_DYNAMIC)) && !star && strstr(f->type, "char"))
		f->flags |= IPT_FIELD_STRING;
	if (star && !(f->flags & IPT_FIELD_DYNAMIC) && !(f->flags & IPT_FIELD_CPUMASK))
		f->flags |= IPT_FIELD_POINTER;
	if (f->name[0] == 'c' && !strncmp(f->name, "common_", 7))
		f->flags |= IPT_FIELD_COMMON;

	/* the element size of a type name matters only for arrays and
	 * dynamic fields; a plain field's is its size */
	esize = f->flags & (IPT_FIELD_ARRAY | IPT_FIELD_DYNAMIC) ?
		base_elem_size(f->type, long_size) : 0;
	if (f->flags & IPT_FIELD_ARRAY) {
		if (nelem > 0)
			f->nelem = (unsigned int)nelem;
		if (!esize && f->nelem)
			esize = f->size / f->nelem;
		if (!f->nelem && esize)
			f->nelem = f->size / esize;
	} else if (!(f->flags & IPT_FIELD_DYNAMIC)) {
		esize = f->size;
		f->nelem = 1;
	}
	f->elem_size = esize ? esize : 1;
	{
		const char *t = f->type;

		if (!strncmp(t, "const ", 6))
			t += 6;
		if (f->size == (unsigned int)long_size && (!strcmp(t, "long") || !strcmp(t, "unsigned long")))
			f->flags |= IPT_FIELD_LONG;
	}
	return 0;
}

/*
 * parse_field_line - "	field:TYPE NAME;	offset:N;	size:N;	signed:N;";
 * p: where the line's first "field:" is (the caller found it)
 */
static int parse_field_line(struct ipt_field *f, const char *line, size_t n, const char *p,
			    int long_size, struct strpool *sp)
{
	const char *semi, *q;
	long long off, size, sgn;
	bool found;

	memset(f, 0, sizeof(*f));
	if (!p)
		return -1;
	p += 6;
	semi = memchr(p, ';', (size_t)(line + n - p));
	if (!semi)
		return -1;
	q = semi + 1;
	off = ordered_attr(&q, semi, (size_t)(line + n - semi), "offset:", KEY_LEN("offset:"), &found);
	if (!found || off < 0)
		return -1;
	size = ordered_attr(&q, semi, (size_t)(line + n - semi), "size:", KEY_LEN("size:"), &found);
	if (!found || size < 0)
		return -1;
	sgn = ordered_attr(&q, semi, (size_t)(line + n - semi), "signed:", KEY_LEN("signed:"), &found);
	f->offset = (unsigned int)off;
	f->size = (unsigned int)size;
	if (found && sgn == 1)
		f->flags |= IPT_FIELD_SIGNED;
	if (parse_decl(f, p, (size_t)(semi - p), long_size, sp))
		return -1;
	if (f->offset > 0xffff || f->size > 0xffff)
		return -1;
	return 0;
}

/* mark_bitmasks - fields printed with __get_bitmask()/__get_cpumask() are CPU sets */
static void mark_bitmasks(struct ipt_event *ev)
{
	static const char *const fns[] = { "__get_bitmask(", "__get_cpumask(",
					   "__get_rel_bitmask(", "__get_rel_cpumask(" };

	const char *p;

	if (!ev->print_fmt)
		return;
	/* one scan for the prefix the four share, not one per function: no
	 * call can begin inside another's name or argument */
	for (p = ev->print_fmt; (p = strstr(p, "__get_")); ) {
		const char *a, *b;
		size_t k, len = 0;

		for (k = 0; k < ARRAY_SIZE(fns); k++) {
			len = strlen(fns[k]);
			if (!strncmp(p, fns[k], len))
				break;
		}
		if (k == ARRAY_SIZE(fns)) {
			p++;
			continue;
		}
		a = p + len;
		while (*a == ' ')
			a++;
		b = a;
		while (is_ident(*b))
			b++;
		for (int i = 0; i < ev->nfields; i++) {
			struct ipt_field *f = &ev->fields[i];

			if (strlen(f->name) == (size_t)(b - a) && !memcmp(f->name, a, (size_t)(b - a)) &&
			    (f->flags & IPT_FIELD_DYNAMIC))
				f->flags |= IPT_FIELD_CPUMASK;
		}
		p = b;
	}
}

/* trim - strip blanks at both ends */
static void trim(const char **s, size_t *n)
{
	while (*n && isspace((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

/*
 * pool_shrink - give back the part of ev's field text buffer its names and
 * types left unused (about half of the format's text).  realloc may move
 * the block: the fields then point into the new one at the same offsets.
 */
static void pool_shrink(struct ipt_event *ev, struct strpool *sp)
{
	uintptr_t old = (uintptr_t)sp->buf;
	/* not ipt_grow: a shrink to the length used, not a growth */
	char *moved = realloc(sp->buf, sp->len ? sp->len : 1);

	if (!moved || (uintptr_t)moved == old)
		return;		/* failed: the larger block stays, as good */
	sp->buf = moved;
	ev->field_text = moved;
	for (int i = 0; i < ev->nfields; i++) {
		ev->fields[i].name = moved + ((uintptr_t)ev->fields[i].name - old);
		ev->fields[i].type = moved + ((uintptr_t)ev->fields[i].type - old);
	}
}

/* ipt_format_parse - parse one event format file into ev */
int ipt_format_parse(struct ipt_event *ev, const char *system, const char *text,
		     size_t len, int long_size, const char *path, long long base)
{
	struct cursor c = { text, len, 0 };
	const char *line;
	size_t n;
	int cap = 0;
	bool have_id = false;
	struct strpool pool = { NULL, 0, 0 };

	memset(ev, 0, sizeof(*ev));
	ev->id = -1;
	ev->system = ipt_strdup(system ? system : "");
	if (!ev->system)
		goto fail;
	while (next_line(&c, &line, &n)) {
		long long at = base + (long long)(line - text);
		const char *field;

		if (n >= 5 && !memcmp(line, "name:", 5)) {
			const char *v = line + 5;
			size_t vn = n - 5;

			trim(&v, &vn);
			free(ev->name);
			ev->name = ipt_strndup(v, vn);
			if (!ev->name)
				goto fail;
		} else if (n >= 3 && !memcmp(line, "ID:", 3)) {
			const char *v = line + 3;
			size_t vn = n - 3;
			long long id = 0;

			trim(&v, &vn);
			if (!vn || vn > 9) {
				ipt_err_at(path, at, "bad event ID '%.*s'", (int)(n > 40 ? 40 : n), line);
				goto fail;
			}
			for (size_t i = 0; i < vn; i++) {
				if (!isdigit((unsigned char)v[i])) {
					ipt_err_at(path, at, "bad event ID '%.*s'", (int)(n > 40 ? 40 : n), line);
					goto fail;
				}
				id = id * 10 + (v[i] - '0');
			}
			ev->id = (int)id;
			have_id = true;
		} else if ((field = find_in(line, n, "field:")) && !find_in(line, n, "print fmt:")) {
			if (ev->nfields >= 4096) {
				ipt_err_at(path, at, "too many fields in event format");
				goto fail;
			}
			if (IPT_GROW(ev->fields, cap, ev->nfields + 1))
				goto fail;
			if (!pool.buf) {
				if (!(pool.buf = ipt_malloc(len + 1)))
					goto fail;
				pool.cap = len + 1;
				ev->field_text = pool.buf;
			}
			if (parse_field_line(&ev->fields[ev->nfields], line, n, field, long_size, &pool)) {
				ipt_err_at(path, at, "bad field line '%.*s'", (int)(n > 60 ? 60 : n), line);
				goto fail;
			}
			ev->nfields++;
		} else if (n >= 10 && !memcmp(line, "print fmt:", 10)) {
			const char *v = line + 10;
			size_t vn = (size_t)(text + len - v);

			trim(&v, &vn);
			ev->print_fmt = ipt_strndup(v, vn);
			if (!ev->print_fmt)
				goto fail;
			break;
		}
	}
	if (!ev->name || !*ev->name) {
		ipt_err_at(path, base, "event format without a name");
		goto fail;
	}
	if (!have_id) {
		ipt_err_at(path, base, "event format '%s' without an ID", ev->name);
		goto fail;
	}
	if (!ev->print_fmt && !(ev->print_fmt = ipt_strdup("")))
		goto fail;
	if (pool.buf)
		pool_shrink(ev, &pool);
	mark_bitmasks(ev);
	ev->f_pid = ipt_event_field(ev, "common_pid");
	return 0;
fail:
	ipt_event_release(ev);
	return -1;
}

/* ipt_header_page_parse - read the sub-buffer header layout from header_page */
int ipt_header_page_parse(struct ipt_page_layout *pl, const char *text, size_t len,
			  unsigned int page_size, int long_size)
{
	struct cursor c = { text, len, 0 };
	const char *line;
	size_t n;
	bool ts = false, commit = false, data = false;
	struct strpool pool = { NULL, 0, 0 };

	ipt_page_layout_default(pl, page_size, long_size);
	if (!(pool.buf = ipt_malloc(len + 1)))
		return -1;
	pool.cap = len + 1;
	while (next_line(&c, &line, &n)) {
		struct ipt_field f;
		const char *field = find_in(line, n, "field:");

		if (!field)
			continue;
		pool.len = 0;	/* one field at a time */
		if (parse_field_line(&f, line, n, field, long_size, &pool))
			continue;
		if (!strcmp(f.name, "timestamp")) {
			pl->ts_off = f.offset;
			pl->ts_size = f.size;
			ts = true;
		} else if (!strcmp(f.name, "commit")) {
			pl->commit_off = f.offset;
			pl->commit_size = f.size;
			commit = true;
		} else if (!strcmp(f.name, "data")) {
			pl->data_off = f.offset;
			data = true;
		}
	}
	free(pool.buf);
	if (!ts || !commit || !data)
		return ipt_err("header_page lacks timestamp, commit or data field");
	if ((pl->ts_size != 8) || (pl->commit_size != 4 && pl->commit_size != 8) ||
	    pl->ts_off + 8 > pl->data_off || pl->commit_off + pl->commit_size > pl->data_off ||
	    pl->data_off >= page_size)
		return ipt_err("header_page layout not understood (ts %u/%u commit %u/%u data %u)",
			       pl->ts_off, pl->ts_size, pl->commit_off, pl->commit_size, pl->data_off);
	return 0;
}
