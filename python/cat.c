// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cat.c - the categoricals of rows(): each category column's distinct
 * strings, interned once (by pointer, by text, by address), the codes'
 * width (as narrow as pandas keeps them, widened in place as they grow),
 * the codes of the symbol and stack columns, and the categories as a
 * list for pandas.Categorical.
 */
#include "ext.h"

#include <stdlib.h>

static uint64_t hash_bytes(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* ---- struct codemap: 64-bit keys to codes, open addressing ---- */

static uint32_t cm_first(const struct codemap *m, uint64_t key)
{
	return (uint32_t)hash_u64(key) & (m->nslots - 1);
}

static uint32_t cm_next(const struct codemap *m, uint32_t h)
{
	return (h + 1) & (m->nslots - 1);
}

/* cm_room - room for one more key (at most half the slots taken); -1 out
 * of memory */
static int cm_room(struct codemap *m)
{
	uint32_t ns = m->nslots ? m->nslots * 2 : 64;
	uint64_t *k;
	int32_t *v;

	if (m->n * 2 < m->nslots)
		return 0;
	k = calloc(ns, sizeof(*k));
	v = calloc(ns, sizeof(*v));
	if (!k || !v) {
		free(k);
		free(v);
		return -1;
	}
	for (uint32_t i = 0; i < m->nslots; i++) {
		uint32_t h;

		if (!m->vals[i])
			continue;
		h = (uint32_t)hash_u64(m->keys[i]) & (ns - 1);
		while (v[h])
			h = (h + 1) & (ns - 1);
		k[h] = m->keys[i];
		v[h] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = k;
	m->vals = v;
	m->nslots = ns;
	return 0;
}

/* cm_set - key -> code in the empty slot h (found by probing from cm_first) */
static void cm_set(struct codemap *m, uint32_t h, uint64_t key, int32_t code)
{
	m->keys[h] = key;
	m->vals[h] = code + 2;
	m->n++;
}

static void cm_free(struct codemap *m)
{
	free(m->keys);
	free(m->vals);
}

/* ---- strings and addresses to codes ---- */

void cat_free(struct cat *c)
{
	for (int32_t i = 0; i < c->n; i++)
		free(c->strs[i]);
	free(c->strs);
	cm_free(&c->bytext);
	cm_free(&c->byaddr);
	memset(c, 0, sizeof(*c));
}

/* cat_str_slow - cat_str_in past the pointer cache (its slot pi) */
int32_t cat_str_slow(struct cat *c, const char *s, unsigned int pi)
{
	struct codemap *m = &c->bytext;
	uint64_t hk = hash_bytes(s);
	uint32_t h;

	if (cm_room(m))
		return -2;
	for (h = cm_first(m, hk); m->vals[h]; h = cm_next(m, h)) {
		int32_t code = m->vals[h] - 2;

		if (m->keys[h] == hk && !strcmp(c->strs[code], s)) {
			c->pc_ptr[pi] = s;
			c->pc_code[pi] = code;
			return code;
		}
	}
	if (c->n == c->cap) {
		int32_t nc = c->cap ? c->cap * 2 : 32;
		char **ns = realloc(c->strs, (size_t)nc * sizeof(*ns));

		if (!ns)
			return -2;
		c->strs = ns;
		c->cap = nc;
	}
	c->strs[c->n] = strdup(s);
	if (!c->strs[c->n])
		return -2;
	cm_set(m, h, hk, c->n);
	c->pc_ptr[pi] = s;
	c->pc_code[pi] = c->n;
	return c->n++;
}

/* the code cached for addr: >= -1, or -3 when not cached yet */
static int32_t cat_addr_get(const struct cat *c, uint64_t addr)
{
	const struct codemap *m = &c->byaddr;

	if (!m->nslots)
		return -3;
	for (uint32_t h = cm_first(m, addr); m->vals[h]; h = cm_next(m, h))
		if (m->keys[h] == addr)
			return m->vals[h] - 2;
	return -3;
}

/* cat_addr_put - addr -> code (not cached yet); -1 out of memory */
static int cat_addr_put(struct cat *c, uint64_t addr, int32_t code)
{
	struct codemap *m = &c->byaddr;
	uint32_t h;

	if (cm_room(m))
		return -1;
	for (h = cm_first(m, addr); m->vals[h]; h = cm_next(m, h))
		;
	cm_set(m, h, addr, code);
	return 0;
}

/* the categories so far as a list of str (new reference) */
PyObject *cat_list(const struct cat *c)
{
	PyObject *l = PyList_New(c->n);

	if (!l)
		return NULL;
	for (int32_t i = 0; i < c->n; i++) {
		PyObject *s = PyUnicode_DecodeUTF8(c->strs[i], (Py_ssize_t)strlen(c->strs[i]),
						   "surrogateescape");

		if (!s) {
			Py_DECREF(l);
			return NULL;
		}
		PyList_SET_ITEM(l, i, s);
	}
	return l;
}

/* ---- the codes' width ---- */

/* cat_widen - codes of rows [0, r->n) of c to nw bytes each, in place
 * (back to front: a wider code never overwrites one not yet moved) */
static int cat_widen(struct rows *r, struct col *c, uint8_t nw)
{
	uint8_t ow = c->cw ? c->cw : 1;
	void *p;

	bufs_lock(r);
	p = cb_realloc_in(c->data, (r->cap ? r->cap : 1) * nw, r->huge);
	bufs_unlock(r);

	if (!p)
		return -1;
	for (size_t i = r->n; i-- > 0;) {
		int32_t v = ow == 1 ? ((int8_t *)p)[i] : ow == 2 ? ((int16_t *)p)[i] : ((int32_t *)p)[i];

		if (nw == 2)
			((int16_t *)p)[i] = (int16_t)v;
		else
			((int32_t *)p)[i] = v;
	}
	c->data = p;
	c->cw = nw;
	return 0;
}

/* cat_put_wide - cat_put for a code that may need wider codes first */
__attribute__((noinline)) int cat_put_wide(struct rows *r, struct col *c, size_t k, int32_t code)
{
	uint8_t w = c->cw ? c->cw : 1;

	/* as pandas chooses: int8 below 127 categories, int16 below 32767 */
	if ((w == 1 && code >= INT8_MAX - 1) || (w == 2 && code >= INT16_MAX - 1)) {
		if (cat_widen(r, c, code >= INT16_MAX - 1 ? 4 : 2))
			return -1;
		w = c->cw;
	}
	if (w == 2)
		((int16_t *)c->data)[k] = (int16_t)code;
	else
		((int32_t *)c->data)[k] = code;
	return 0;
}

/* ---- symbol and stack columns: codes by address ---- */

/* sym_code - "sym+0xoff" / "sym" of an address for a symbol column, by
 * address; -1 none, -2 out of memory */
int32_t sym_code(struct cat *c, uint64_t addr, const char *sym, uint64_t off, bool with_off)
{
	int32_t code = addr ? cat_addr_get(c, addr) : -1;
	char buf[512];

	if (code != -3)
		return code;
	code = sym ? cat_str(c, sym_text(buf, sizeof(buf), sym, off, with_off)) : -1;
	if (code == -2 || cat_addr_put(c, addr, code))
		return -2;
	return code;
}

/* the stack as convert writes it (stack_text), by the stack's address */
static int32_t stack_code(struct rows *r, struct cat *c, const struct ipt_report_stack *st)
{
	int32_t code;
	struct ipt_strbuf sb = IPT_STRBUF_INIT;

	if (!st)
		return -1;
	code = cat_addr_get(c, (uint64_t)(uintptr_t)st);
	if (code != -3)
		return code;
	code = stack_text(r->t, st, &sb) ? -2 : (sb.len ? cat_str(c, sb.buf) : -1);
	ipt_strbuf_free(&sb);
	if (code == -2 || cat_addr_put(c, (uint64_t)(uintptr_t)st, code))
		return -2;
	return code;
}

/* put_stack - the stack column of row k; -1 out of memory */
int put_stack(struct rows *r, size_t k, const struct ipt_report_stack *st)
{
	struct col *c = &r->c[C_STACK];
	int32_t code;

	if (!c->on)
		return 0;
	code = stack_code(r, &c->cat, st);
	return code == -2 || cat_put(r, c, k, code) ? -1 : 0;
}
