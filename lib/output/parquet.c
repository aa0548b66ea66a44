// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parquet.c - IPI rows as Apache Parquet files (declared in ipitrace.h)
 *
 * Written from the Parquet format specification (parquet.thrift,
 * Encodings.md): file = "PAR1", column chunks, FileMetaData in the Thrift
 * compact protocol, its length (4 bytes LE), "PAR1".
 *
 * Each column keeps the page being filled (plain values or dictionary
 * indices, plus repetition/definition levels) and the encoded pages of the
 * current row group.  All columns cut their pages at the same row, so
 * every page starts at a row boundary.  At the end of a row group each
 * column chunk is written as [dictionary page] data pages..., and its
 * metadata is kept for the footer (a few hundred bytes per row group).
 * Strings are dictionary encoded (PLAIN_DICTIONARY), integers PLAIN, levels
 * RLE; data pages are v1; every column chunk has min/max/null_count.
 */
#include "core/core.h"
#include "core/hash.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

/* ---- Parquet enums (parquet.thrift) ---- */
enum { PT_BOOLEAN = 0, PT_INT32 = 1, PT_INT64 = 2, PT_BYTE_ARRAY = 6 };
enum { REP_REQUIRED = 0, REP_OPTIONAL = 1, REP_REPEATED = 2 };
enum { CT_UTF8 = 0, CT_LIST = 3 };
enum { ENC_PLAIN = 0, ENC_PLAIN_DICTIONARY = 2, ENC_RLE = 3 };
enum { PAGE_DATA = 0, PAGE_DICTIONARY = 2 };

/* ---- growable byte buffers ---- */

struct bb {
	uint8_t *p;
	size_t n, cap;
};

static int bb_grow(struct bb *b, size_t extra)
{
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *p;

	if (b->n + extra <= b->cap)
		return 0;
	while (cap < b->n + extra)
		cap *= 2;
	p = ipt_realloc(b->p, cap);
	if (!p)
		return -1;
	b->p = p;
	b->cap = cap;
	return 0;
}

static inline int bb_put(struct bb *b, const void *d, size_t n)
{
	if (b->n + n > b->cap && bb_grow(b, n))
		return -1;
	if (n)
		memcpy(b->p + b->n, d, n);
	b->n += n;
	return 0;
}

static inline int bb_u8(struct bb *b, uint8_t v)
{
	return bb_put(b, &v, 1);
}

static int bb_le32(struct bb *b, uint32_t v)
{
	uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	return bb_put(b, x, 4);
}

static int bb_varint(struct bb *b, uint64_t v)
{
	uint8_t x[10];
	size_t n = 0;

	while (v >= 0x80) {
		x[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	x[n++] = (uint8_t)v;
	return bb_put(b, x, n);
}

static void bb_free(struct bb *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ---- Thrift compact protocol (just what the footer and page headers use) ---- */

enum { TT_TRUE = 1, TT_FALSE = 2, TT_BYTE = 3, TT_I16 = 4, TT_I32 = 5, TT_I64 = 6,
       TT_BINARY = 8, TT_LIST = 9, TT_STRUCT = 12 };

struct tw {
	struct bb *b;
	int16_t last[32];	/* last field id per open struct */
	int depth;
	int err;
};

static void tw_init(struct tw *w, struct bb *b)
{
	memset(w, 0, sizeof(*w));
	w->b = b;
}

static void tw_field(struct tw *w, int16_t id, uint8_t type)
{
	int delta = id - w->last[w->depth];

	if (delta > 0 && delta <= 15) {
		w->err |= bb_u8(w->b, (uint8_t)(delta << 4 | type));
	} else {
		w->err |= bb_u8(w->b, type);
		w->err |= bb_varint(w->b, (uint64_t)(uint16_t)((id << 1) ^ (id >> 15)));
	}
	w->last[w->depth] = id;
}

static uint64_t zz64(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static void tw_i32(struct tw *w, int16_t id, int32_t v)
{
	tw_field(w, id, TT_I32);
	w->err |= bb_varint(w->b, zz64(v));
}

static void tw_i64(struct tw *w, int16_t id, int64_t v)
{
	tw_field(w, id, TT_I64);
	w->err |= bb_varint(w->b, zz64(v));
}

static void tw_i16(struct tw *w, int16_t id, int16_t v)
{
	tw_field(w, id, TT_I16);
	w->err |= bb_varint(w->b, zz64(v));
}

static void tw_bool(struct tw *w, int16_t id, bool v)
{
	tw_field(w, id, v ? TT_TRUE : TT_FALSE);
}

static void tw_bin(struct tw *w, int16_t id, const void *p, size_t n)
{
	tw_field(w, id, TT_BINARY);
	w->err |= bb_varint(w->b, n) | bb_put(w->b, p, n);
}

static void tw_str(struct tw *w, int16_t id, const char *s)
{
	tw_bin(w, id, s, strlen(s));
}

static void tw_push(struct tw *w)
{
	if (w->depth + 1 >= (int)ARRAY_SIZE(w->last)) {
		w->err = -1;
		return;
	}
	w->last[++w->depth] = 0;
}

/* a struct-valued field; close with tw_end */
static void tw_struct(struct tw *w, int16_t id)
{
	tw_field(w, id, TT_STRUCT);
	tw_push(w);
}

static void tw_end(struct tw *w)
{
	w->err |= bb_u8(w->b, 0);
	if (w->depth > 0)
		w->depth--;
}

static void tw_list(struct tw *w, int16_t id, uint8_t elem, size_t n)
{
	tw_field(w, id, TT_LIST);
	if (n < 15) {
		w->err |= bb_u8(w->b, (uint8_t)(n << 4 | elem));
	} else {
		w->err |= bb_u8(w->b, (uint8_t)(0xf0 | elem));
		w->err |= bb_varint(w->b, n);
	}
}

/* elements of lists */
static void tw_elem_i32(struct tw *w, int32_t v)
{
	w->err |= bb_varint(w->b, zz64(v));
}

static void tw_elem_bin(struct tw *w, const char *s)
{
	size_t n = strlen(s);

	w->err |= bb_varint(w->b, n) | bb_put(w->b, s, n);
}

/* ---- RLE / bit-packing hybrid ---- */

static unsigned int bit_width(uint32_t max)
{
	unsigned int w = 0;

	while (max) {
		w++;
		max >>= 1;
	}
	return w;
}

/*
 * rle_encode - n values of bw bits (from v8 or v32) as runs: a repeated
 * value of 8 or more becomes an RLE run, everything else bit-packed runs
 * of whole groups of 8 (the last group padded with zeros).
 */
static int rle_encode(struct bb *o, const uint8_t *v8, const uint32_t *v32, size_t n,
		      unsigned int bw)
{
#define VAL(k) (v8 ? (uint32_t)v8[k] : v32[k])
	unsigned int vbytes = (bw + 7) / 8;
	size_t i = 0;

	while (i < n) {
		uint32_t x = VAL(i);
		size_t r = 1, start, end, groups;
		uint64_t acc = 0;
		unsigned int nb = 0;

		while (i + r < n && VAL(i + r) == x)
			r++;
		if (r >= 8) {
			uint8_t val[4] = { (uint8_t)x, (uint8_t)(x >> 8), (uint8_t)(x >> 16),
					   (uint8_t)(x >> 24) };

			if (bb_varint(o, (uint64_t)r << 1) || bb_put(o, val, vbytes))
				return -1;
			i += r;
			continue;
		}
		start = i;
		for (;;) {
			size_t k = 1;

			i += 8;
			if (i >= n)
				break;
			x = VAL(i);
			while (k < 8 && i + k < n && VAL(i + k) == x)
				k++;
			if (k >= 8)
				break;
		}
		end = i < n ? i : n;
		groups = (end - start + 7) / 8;
		if (bb_varint(o, (uint64_t)groups << 1 | 1) || bb_grow(o, groups * bw))
			return -1;
		for (size_t j = start; j < start + groups * 8; j++) {
			acc |= (uint64_t)(j < end ? VAL(j) : 0) << nb;
			nb += bw;
			while (nb >= 8) {
				o->p[o->n++] = (uint8_t)acc;
				acc >>= 8;
				nb -= 8;
			}
		}
		i = end;
	}
	return 0;
#undef VAL
}

/* ---- dictionaries ---- */

struct dent {
	uint64_t hash;
	uint32_t off, len;	/* the bytes in data (after the 4-byte length) */
};

struct acache {			/* (address, symbol pointer) -> dictionary index */
	uint64_t addr;
	const char *sym;
	uint32_t val;		/* 0 empty, 1 NULL, k + 2 index k */
};

struct dict {
	uint32_t *slots;	/* entry index + 1; 0 empty */
	uint32_t cap;
	struct dent *ents;
	uint32_t n, capents;
	struct bb data;		/* PLAIN BYTE_ARRAY: 4-byte length, bytes, ... */
	struct acache *ac;
	uint32_t accap, acn;
	/* the previous value: rows in a row often repeat it (a multicast's
	 * rows, one task's sends) */
	bool last_ok;
	struct acache last_addr;
	uint32_t last_len, last_idx;
	char last_str[64];
};

static int dict_rehash(struct dict *d)
{
	uint32_t cap = d->cap ? d->cap * 2 : 256;
	uint32_t *s = ipt_calloc(cap, sizeof(*s));

	if (!s)
		return -1;
	for (uint32_t i = 0; i < d->n; i++) {
		uint32_t j = (uint32_t)d->ents[i].hash & (cap - 1);

		while (s[j])
			j = (j + 1) & (cap - 1);
		s[j] = i + 1;
	}
	free(d->slots);
	d->slots = s;
	d->cap = cap;
	return 0;
}

/* dict_index - index of string s (added if new), -1 on OOM */
static int64_t dict_index(struct dict *d, const char *s, size_t len)
{
	uint64_t h = ipt_hash_bytes(s, len);
	uint32_t j;

	if ((d->n + 1) * 2 > d->cap && dict_rehash(d))
		return -1;
	j = (uint32_t)h & (d->cap - 1);
	while (d->slots[j]) {
		const struct dent *e = &d->ents[d->slots[j] - 1];

		if (e->hash == h && e->len == len && !memcmp(d->data.p + e->off, s, len))
			return d->slots[j] - 1;
		j = (j + 1) & (d->cap - 1);
	}
	if (d->n == d->capents) {
		uint32_t c = d->capents ? d->capents * 2 : 64;
		struct dent *e = ipt_realloc(d->ents, c * sizeof(*e));

		if (!e)
			return -1;
		d->ents = e;
		d->capents = c;
	}
	if (bb_le32(&d->data, (uint32_t)len))
		return -1;
	d->ents[d->n].hash = h;
	d->ents[d->n].off = (uint32_t)d->data.n;
	d->ents[d->n].len = (uint32_t)len;
	if (bb_put(&d->data, s, len))
		return -1;
	d->slots[j] = d->n + 1;
	return d->n++;
}

static uint32_t ac_slot(const struct dict *d, uint64_t addr, const char *sym)
{
	uint64_t h = (addr ^ (uint64_t)(uintptr_t)sym * 0x9e3779b97f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL;
	uint32_t j = (uint32_t)(h >> 32) & (d->accap - 1);

	while (d->ac[j].val && (d->ac[j].addr != addr || d->ac[j].sym != sym))
		j = (j + 1) & (d->accap - 1);
	return j;
}

static int ac_grow(struct dict *d)
{
	struct acache *old = d->ac;
	uint32_t oldcap = d->accap;

	d->accap = oldcap ? oldcap * 2 : 256;
	d->ac = ipt_calloc(d->accap, sizeof(*d->ac));
	if (!d->ac) {
		d->ac = old;
		d->accap = oldcap;
		return -1;
	}
	for (uint32_t i = 0; i < oldcap; i++)
		if (old[i].val)
			d->ac[ac_slot(d, old[i].addr, old[i].sym)] = old[i];
	free(old);
	return 0;
}

static void dict_reset(struct dict *d)
{
	if (d->slots)
		memset(d->slots, 0, d->cap * sizeof(*d->slots));
	if (d->ac)
		memset(d->ac, 0, d->accap * sizeof(*d->ac));
	d->n = 0;
	d->acn = 0;
	d->data.n = 0;
	d->last_ok = false;
}

static void dict_free(struct dict *d)
{
	free(d->slots);
	free(d->ents);
	free(d->ac);
	bb_free(&d->data);
	memset(d, 0, sizeof(*d));
}

/* ---- columns ---- */

enum {
	C_TS, C_ID, C_SRC, C_TARGET, C_NTARGETS, C_PID, C_COMM, C_EVENT, C_KIND,
	C_CALLSITE, C_CALLSITE_SYM, C_CALLBACK, C_CALLBACK_SYM, C_FUNC, C_FUNC_SYM, C_REASON,
	/* the matching columns (opts.match_columns) */
	C_LAT, C_HANDLER, C_HANDLER_TS, C_MATCHED, C_COALESCED, C_UNMATCHED, C_CALLSITE_FUNC,
	C_FUNC_NAME, C_STACK,
	NCOLS,
	NCOLS_BASE = C_LAT
};

static const struct {
	const char *name;
	uint8_t ptype;
	bool optional;
} colspec[NCOLS] = {
	[C_TS] = { "ts_ns", PT_INT64, false },
	[C_ID] = { "id", PT_INT64, false },
	[C_SRC] = { "src_cpu", PT_INT32, false },
	[C_TARGET] = { "target_cpu", PT_INT32, false },
	[C_NTARGETS] = { "ntargets", PT_INT32, false },
	[C_PID] = { "pid", PT_INT32, false },
	[C_COMM] = { "comm", PT_BYTE_ARRAY, false },
	[C_EVENT] = { "event", PT_BYTE_ARRAY, false },
	[C_KIND] = { "kind", PT_BYTE_ARRAY, false },
	[C_CALLSITE] = { "callsite", PT_BYTE_ARRAY, false },
	[C_CALLSITE_SYM] = { "callsite_sym", PT_BYTE_ARRAY, true },
	[C_CALLBACK] = { "callback", PT_BYTE_ARRAY, false },
	[C_CALLBACK_SYM] = { "callback_sym", PT_BYTE_ARRAY, true },
	[C_FUNC] = { "func", PT_BYTE_ARRAY, false },
	[C_FUNC_SYM] = { "func_sym", PT_BYTE_ARRAY, true },
	[C_REASON] = { "reason", PT_BYTE_ARRAY, true },
	[C_LAT] = { "lat_ns", PT_INT64, true },
	[C_HANDLER] = { "handler_ns", PT_INT64, true },
	[C_HANDLER_TS] = { "handler_ts_ns", PT_INT64, true },
	[C_MATCHED] = { "matched", PT_BOOLEAN, true },
	[C_COALESCED] = { "coalesced", PT_BOOLEAN, true },
	[C_UNMATCHED] = { "unmatched_reason", PT_BYTE_ARRAY, true },
	[C_CALLSITE_FUNC] = { "callsite_func", PT_BYTE_ARRAY, true },
	[C_FUNC_NAME] = { "func_name", PT_BYTE_ARRAY, true },
	[C_STACK] = { "stack", PT_BYTE_ARRAY, true },	/* LIST<STRING> */
};

/* the metadata of one written column chunk */
struct chunk_meta {
	int64_t data_off, dict_off;	/* dict_off -1: none */
	int64_t nvals, usize, csize;
	int64_t nulls;
	uint32_t npages;
	bool has_minmax;
	uint8_t *min, *max;		/* PLAIN bytes (no length prefix) */
	uint32_t minlen, maxlen;
};

struct rg_meta {
	struct chunk_meta cols[NCOLS];
	int64_t rows, file_off, usize, csize;
};

struct col {
	uint8_t ptype;
	bool dict;
	unsigned int max_def, max_rep;
	/* the page being filled */
	struct bb vals;			/* plain LE values, or uint32 dictionary indices */
	struct bb def, rep;		/* one byte per level */
	uint32_t page_maxidx;
	/* the row group's chunk: encoded data pages */
	struct bb chunk;
	int64_t nvals, usize, csize, nulls;
	uint32_t npages;
	bool has_minmax;
	int64_t min, max;		/* integer columns */
	struct dict d;
};

struct ipt_parquet_writer {
	struct ipt_parquet_opts o;
	char *path;			/* final path (or directory when numbered) */
	struct ipt_afile af;		/* the file until complete (not for stdout) */
	bool has_af;
	FILE *f;
	uint64_t off;			/* bytes written */
	struct col cols[NCOLS];
	int ncols;			/* NCOLS_BASE, or NCOLS with match_columns */
	const struct ipt_report_stack *last_stack;	/* the stack column's previous row */
	uint32_t *last_frames, nlast, caplast;	/* ... its frames' dictionary indices */
	uint32_t page_rows;
	uint64_t rg_rows, rows;
	struct rg_meta *rgs;
	size_t nrg, caprg;
	ZSTD_CCtx *cctx;
	struct bb page, comp, hdr;	/* scratch */
	int err;
};

/* ---- output ---- */

static int out_write(struct ipt_parquet_writer *w, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, w->f) != n)
		return ipt_err("%s: write error: %s", w->path, strerror(errno ? errno : EIO));
	w->off += n;
	return 0;
}

/* ---- pages ---- */

static void page_header(struct bb *b, int type, size_t usize, size_t csize, int32_t nvals,
			int enc, int nvals_dict)
{
	struct tw t;

	tw_init(&t, b);
	tw_i32(&t, 1, type);
	tw_i32(&t, 2, (int32_t)usize);
	tw_i32(&t, 3, (int32_t)csize);
	if (type == PAGE_DATA) {
		tw_struct(&t, 5);
		tw_i32(&t, 1, nvals);
		tw_i32(&t, 2, enc);
		tw_i32(&t, 3, ENC_RLE);
		tw_i32(&t, 4, ENC_RLE);
		tw_end(&t);
	} else {
		tw_struct(&t, 7);
		tw_i32(&t, 1, nvals_dict);
		tw_i32(&t, 2, enc);
		tw_bool(&t, 3, false);
		tw_end(&t);
	}
	tw_end(&t);
	if (t.err)
		b->n = 0;
}

/* compress - w->page into w->comp (or use it as is); returns the bytes to write */
static const struct bb *compress_page(struct ipt_parquet_writer *w)
{
	size_t bound, n;

	if (w->o.codec != IPT_PQ_ZSTD)
		return &w->page;
	bound = ZSTD_compressBound(w->page.n);
	w->comp.n = 0;
	if (bb_grow(&w->comp, bound))
		return NULL;
	n = ZSTD_compressCCtx(w->cctx, w->comp.p, bound, w->page.p, w->page.n, w->o.zstd_level);
	if (ZSTD_isError(n)) {
		ipt_err("%s: zstd: %s", w->path, ZSTD_getErrorName(n));
		return NULL;
	}
	w->comp.n = n;
	return &w->comp;
}

static int levels(struct ipt_parquet_writer *w, const struct bb *lv, unsigned int max)
{
	size_t at = w->page.n;

	if (bb_le32(&w->page, 0) || rle_encode(&w->page, lv->p, NULL, lv->n, bit_width(max)))
		return -1;
	ipt_put_uint(w->page.p + at, 4, false, w->page.n - at - 4);
	return 0;
}

/* flush_page - encode the page being filled into the column's chunk */
static int flush_page(struct ipt_parquet_writer *w, struct col *c, size_t nlev)
{
	const struct bb *body;
	size_t usize;

	w->page.n = 0;
	if (c->max_rep && levels(w, &c->rep, c->max_rep))
		return -1;
	if (c->max_def && levels(w, &c->def, c->max_def))
		return -1;
	if (c->dict) {
		unsigned int bw = bit_width(c->page_maxidx);

		if (!bw)
			bw = 1;
		if (bb_u8(&w->page, (uint8_t)bw) ||
		    rle_encode(&w->page, NULL, (const uint32_t *)(void *)c->vals.p, c->vals.n / 4, bw))
			return -1;
	} else if (c->ptype == PT_BOOLEAN) {	/* PLAIN: bit-packed, LSB first */
		size_t at = w->page.n, nb = (c->vals.n + 7) / 8;

		if (bb_grow(&w->page, nb))
			return -1;
		memset(w->page.p + at, 0, nb);
		for (size_t k = 0; k < c->vals.n; k++)
			w->page.p[at + k / 8] |= (uint8_t)((c->vals.p[k] & 1) << (k % 8));
		w->page.n += nb;
	} else if (bb_put(&w->page, c->vals.p, c->vals.n)) {
		return -1;
	}
	usize = w->page.n;
	if (usize > INT32_MAX)
		return ipt_err("%s: page too large", w->path);
	body = compress_page(w);
	if (!body)
		return -1;
	w->hdr.n = 0;
	page_header(&w->hdr, PAGE_DATA, usize, body->n, (int32_t)nlev,
		    c->dict ? ENC_PLAIN_DICTIONARY : ENC_PLAIN, 0);
	if (!w->hdr.n || bb_put(&c->chunk, w->hdr.p, w->hdr.n) || bb_put(&c->chunk, body->p, body->n))
		return -1;
	c->nvals += (int64_t)nlev;
	c->usize += (int64_t)(w->hdr.n + usize);
	c->csize += (int64_t)(w->hdr.n + body->n);
	c->npages++;
	c->vals.n = c->def.n = c->rep.n = 0;
	c->page_maxidx = 0;
	return 0;
}

static int flush_pages(struct ipt_parquet_writer *w)
{
	for (int i = 0; i < w->ncols; i++) {
		struct col *c = &w->cols[i];
		size_t nlev = c->max_rep ? c->rep.n : c->max_def ? c->def.n : w->page_rows;

		if (nlev && flush_page(w, c, nlev))
			return -1;
	}
	w->page_rows = 0;
	return 0;
}

/* ---- statistics ---- */

static void put_minmax_int(struct chunk_meta *m, const struct col *c)
{
	unsigned int n = c->ptype == PT_BOOLEAN ? 1 : c->ptype == PT_INT32 ? 4 : 8;

	m->min = ipt_malloc(n);
	m->max = ipt_malloc(n);
	if (!m->min || !m->max)
		return;
	ipt_put_uint(m->min, n, false, (uint64_t)c->min);
	ipt_put_uint(m->max, n, false, (uint64_t)c->max);
	m->minlen = m->maxlen = n;
	m->has_minmax = true;
}

/* byte-wise unsigned order, as for UTF-8 strings */
static int bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	int r = memcmp(a, b, an < bn ? an : bn);

	return r ? r : (an > bn) - (an < bn);
}

static void put_minmax_dict(struct chunk_meta *m, const struct col *c)
{
	const struct dict *d = &c->d;
	const struct dent *mn, *mx;

	if (!d->n)
		return;
	mn = mx = &d->ents[0];
	for (uint32_t i = 1; i < d->n; i++) {
		const struct dent *e = &d->ents[i];

		if (bytes_cmp(d->data.p + e->off, e->len, d->data.p + mn->off, mn->len) < 0)
			mn = e;
		if (bytes_cmp(d->data.p + e->off, e->len, d->data.p + mx->off, mx->len) > 0)
			mx = e;
	}
	m->min = ipt_malloc(mn->len + 1);
	m->max = ipt_malloc(mx->len + 1);
	if (!m->min || !m->max)
		return;
	memcpy(m->min, d->data.p + mn->off, mn->len);
	memcpy(m->max, d->data.p + mx->off, mx->len);
	m->minlen = mn->len;
	m->maxlen = mx->len;
	m->has_minmax = true;
}

/* ---- row groups ---- */

static int flush_row_group(struct ipt_parquet_writer *w)
{
	struct rg_meta *rg;

	if (w->page_rows && flush_pages(w))
		return -1;
	if (!w->rg_rows)
		return 0;
	if (w->nrg == w->caprg) {
		size_t cap = w->caprg ? w->caprg * 2 : 8;
		struct rg_meta *n = ipt_realloc(w->rgs, cap * sizeof(*n));

		if (!n)
			return -1;
		w->rgs = n;
		w->caprg = cap;
	}
	rg = &w->rgs[w->nrg++];
	memset(rg, 0, sizeof(*rg));
	rg->rows = (int64_t)w->rg_rows;
	rg->file_off = (int64_t)w->off;
	for (int i = 0; i < w->ncols; i++) {
		struct col *c = &w->cols[i];
		struct chunk_meta *m = &rg->cols[i];

		m->dict_off = -1;
		if (c->dict) {
			const struct bb *body;
			size_t usize = c->d.data.n;

			w->page.n = 0;
			if (bb_put(&w->page, c->d.data.p, c->d.data.n))
				return -1;
			body = compress_page(w);
			if (!body)
				return -1;
			w->hdr.n = 0;
			page_header(&w->hdr, PAGE_DICTIONARY, usize, body->n, 0, ENC_PLAIN_DICTIONARY,
				    (int)c->d.n);
			m->dict_off = (int64_t)w->off;
			if (!w->hdr.n || out_write(w, w->hdr.p, w->hdr.n) || out_write(w, body->p, body->n))
				return -1;
			c->usize += (int64_t)(w->hdr.n + usize);
			c->csize += (int64_t)(w->hdr.n + body->n);
			put_minmax_dict(m, c);
		} else if (c->has_minmax) {
			put_minmax_int(m, c);
		}
		m->data_off = (int64_t)w->off;
		if (out_write(w, c->chunk.p, c->chunk.n))
			return -1;
		m->nvals = c->nvals;
		m->usize = c->usize;
		m->csize = c->csize;
		m->nulls = c->nulls;
		m->npages = c->npages;
		rg->usize += c->usize;
		rg->csize += c->csize;
		c->chunk.n = 0;
		c->nvals = c->usize = c->csize = c->nulls = 0;
		c->npages = 0;
		c->has_minmax = false;
		dict_reset(&c->d);
	}
	w->last_stack = NULL;	/* its indices were the dictionary's */
	w->rg_rows = 0;
	return 0;
}

/* ---- adding values ---- */

static inline int put_int(struct col *c, int64_t v)
{
	if (!c->has_minmax) {
		c->min = c->max = v;
		c->has_minmax = true;
	} else if (v < c->min) {
		c->min = v;
	} else if (v > c->max) {
		c->max = v;
	}
	if (c->ptype == PT_INT32) {
		int32_t x = (int32_t)v;

		return bb_put(&c->vals, &x, 4);	/* x86/arm64 little endian */
	}
	return bb_put(&c->vals, &v, 8);
}

static inline int put_idx(struct col *c, int64_t idx)
{
	uint32_t x = (uint32_t)idx;

	if (idx < 0)
		return -1;
	if (x > c->page_maxidx)
		c->page_maxidx = x;
	if (c->max_def && bb_u8(&c->def, 1))
		return -1;
	return bb_put(&c->vals, &x, 4);
}

static inline int put_null(struct col *c)
{
	c->nulls++;
	return bb_u8(&c->def, 0);
}

static int put_str(struct col *c, const char *s)
{
	struct dict *d = &c->d;
	size_t n;
	int64_t idx;

	if (!s)
		return c->max_def ? put_null(c) : put_idx(c, dict_index(d, "", 0));
	n = strlen(s);
	if (d->last_ok && n == d->last_len && !memcmp(s, d->last_str, n))
		return put_idx(c, d->last_idx);
	idx = dict_index(d, s, n);
	if (idx >= 0 && n <= sizeof(d->last_str)) {
		memcpy(d->last_str, s, n);
		d->last_len = (uint32_t)n;
		d->last_idx = (uint32_t)idx;
		d->last_ok = true;
	}
	return put_idx(c, idx);
}

/* put_addr - an address column ("0x...") or its symbol ("sym", "sym+0xoff",
 * NULL), cached by (address, symbol) */
static int put_addr(struct col *c, uint64_t addr, const char *sym, bool with_off, uint64_t off,
		    bool as_sym)
{
	struct dict *d = &c->d;
	uint32_t j;
	int64_t idx;
	char buf[512];

	if (!as_sym)
		sym = NULL;
	if (d->last_ok && d->last_addr.addr == addr && d->last_addr.sym == sym)
		return d->last_addr.val == 1 ? put_null(c) : put_idx(c, d->last_addr.val - 2);
	if ((d->acn + 1) * 2 > d->accap && ac_grow(d))
		return -1;
	j = ac_slot(d, addr, sym);
	d->last_addr.addr = addr;
	d->last_addr.sym = sym;
	d->last_ok = false;
	if (d->ac[j].val) {
		d->last_addr.val = d->ac[j].val;
		d->last_ok = true;
		return d->ac[j].val == 1 ? put_null(c) : put_idx(c, d->ac[j].val - 2);
	}
	if (as_sym && !sym) {
		idx = -1;
	} else {
		int n;

		if (!as_sym)
			n = snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
		else if (with_off)
			n = snprintf(buf, sizeof(buf), "%s+0x%llx", sym, (unsigned long long)off);
		else
			n = snprintf(buf, sizeof(buf), "%s", sym);
		if (n < 0)
			return -1;
		if ((size_t)n >= sizeof(buf)) {
			char *big = ipt_malloc((size_t)n + 1);

			if (!big)
				return -1;
			snprintf(big, (size_t)n + 1, with_off ? "%s+0x%llx" : "%s", sym,
				 (unsigned long long)off);
			idx = dict_index(d, big, (size_t)n);
			free(big);
		} else {
			idx = dict_index(d, buf, (size_t)n);
		}
		if (idx < 0)
			return -1;
	}
	d->ac[j].addr = addr;
	d->ac[j].sym = sym;
	d->ac[j].val = idx < 0 ? 1 : (uint32_t)idx + 2;
	d->acn++;
	d->last_addr.val = d->ac[j].val;
	d->last_ok = true;
	return idx < 0 ? put_null(c) : put_idx(c, idx);
}

static int put_targets(struct col *c, const struct ipt_cpuset *set)
{
	bool first = true;

	for (int cpu = set ? ipt_cpuset_next(set, 0) : -1; cpu >= 0;
	     cpu = ipt_cpuset_next(set, (unsigned int)cpu + 1)) {
		if (bb_u8(&c->rep, first ? 0 : 1) || bb_u8(&c->def, 2) || put_int(c, cpu))
			return -1;
		first = false;
	}
	if (first) {	/* an empty list */
		c->nulls++;
		return bb_u8(&c->rep, 0) || bb_u8(&c->def, 1) ? -1 : 0;
	}
	return 0;
}

/* an optional integer or boolean: v, or null when !has */
static int put_opt(struct col *c, bool has, int64_t v)
{
	if (!has)
		return put_null(c);
	if (bb_u8(&c->def, 1))
		return -1;
	if (c->ptype != PT_BOOLEAN)
		return put_int(c, v);
	v = v ? 1 : 0;
	if (!c->has_minmax) {
		c->min = c->max = v;
		c->has_minmax = true;
	} else if (v < c->min) {
		c->min = v;
	} else if (v > c->max) {
		c->max = v;
	}
	return bb_u8(&c->vals, (uint8_t)v);
}

/* a frame of the stack list: "sym+0xoff" (or "0x...") by address, cached */
static int64_t frame_idx(struct ipt_parquet_writer *w, struct dict *d, uint64_t addr)
{
	static const char marker[1];
	char buf[512];
	uint32_t j;
	int64_t idx;

	if ((d->acn + 1) * 2 > d->accap && ac_grow(d))
		return -1;
	j = ac_slot(d, addr, marker);
	if (d->ac[j].val)
		return d->ac[j].val - 2;
	ipt_trace_format_symbol(w->o.trace, addr, true, buf, sizeof(buf));
	idx = dict_index(d, buf, strlen(buf));
	if (idx < 0)
		return -1;
	d->ac[j].addr = addr;
	d->ac[j].sym = marker;
	d->ac[j].val = (uint32_t)idx + 2;
	d->acn++;
	return idx;
}

/* put_stack - the stack column: a list of strings, null without a stack */
static int put_stack(struct ipt_parquet_writer *w, struct col *c, const struct ipt_report_stack *st)
{
	if (!st || !w->o.trace) {
		c->nulls++;
		return bb_u8(&c->rep, 0) || bb_u8(&c->def, 0) ? -1 : 0;
	}
	if (!st->nframes)	/* a stack of tracing frames only: an empty list */
		return bb_u8(&c->rep, 0) || bb_u8(&c->def, 1) ? -1 : 0;
	if (st != w->last_stack) {	/* the rows of a multicast share it */
		w->last_stack = NULL;
		if (st->nframes > w->caplast) {
			uint32_t *n = ipt_realloc(w->last_frames, st->nframes * sizeof(*n));

			if (!n)
				return -1;
			w->last_frames = n;
			w->caplast = st->nframes;
		}
		for (uint32_t i = 0; i < st->nframes; i++) {
			int64_t idx = frame_idx(w, &c->d, st->frames[i]);

			if (idx < 0)
				return -1;
			w->last_frames[i] = (uint32_t)idx;
		}
		w->nlast = st->nframes;
		w->last_stack = st;
	}
	for (uint32_t i = 0; i < w->nlast; i++) {
		uint32_t x = w->last_frames[i];

		if (x > c->page_maxidx)
			c->page_maxidx = x;
		if (bb_u8(&c->rep, i ? 1 : 0) || bb_u8(&c->def, 2) || bb_put(&c->vals, &x, 4))
			return -1;
	}
	return 0;
}

/* the matching columns (see ipt_rows_format_match) */
static int put_match(struct ipt_parquet_writer *w, const struct ipt_ipi_row *r,
		     const struct ipt_row_match *m)
{
	const struct ipt_row_match *pt = m && m->known && (w->o.explode || r->ntargets == 1) ? m : NULL;
	struct col *c = w->cols;
	int e = 0;

	e |= put_opt(&c[C_LAT], pt && pt->has_latency, pt ? (int64_t)pt->latency_ns : 0);
	e |= put_opt(&c[C_HANDLER], pt && pt->has_handler, pt ? (int64_t)pt->handler_ns : 0);
	e |= put_opt(&c[C_HANDLER_TS], pt && pt->has_handler_ts, pt ? (int64_t)pt->handler_ts_ns : 0);
	e |= put_opt(&c[C_MATCHED], pt, pt && pt->matched);
	e |= put_opt(&c[C_COALESCED], pt && pt->matched, pt && pt->coalesced);	/* of a served send only */
	e |= put_str(&c[C_UNMATCHED], pt && !pt->matched ? ipt_unmatched_reason_name(pt->unmatched) : NULL);
	e |= put_addr(&c[C_CALLSITE_FUNC], r->callsite, r->callsite_sym, false, 0, true);
	if (r->func)
		e |= put_addr(&c[C_FUNC_NAME], r->func, r->func_sym, false, 0, true);
	else
		e |= put_addr(&c[C_FUNC_NAME], r->callback, r->callback_sym, false, 0, true);
	e |= put_stack(w, &c[C_STACK], m ? m->stack : NULL);
	return e ? -1 : 0;
}

enum { PAGE_BYTES = 1 << 20, DICT_MAX_BYTES = 16 << 20, DICT_MAX_ENTRIES = 1 << 20 };

int ipt_parquet_add(struct ipt_parquet_writer *w, const struct ipt_ipi_row *r)
{
	return ipt_parquet_add_match(w, r, NULL);
}

int ipt_parquet_add_match(struct ipt_parquet_writer *w, const struct ipt_ipi_row *r,
			  const struct ipt_row_match *m)
{
	struct col *c = w->cols;
	int e = 0;

	if (w->err)
		return -1;
	e |= put_int(&c[C_TS], (int64_t)r->ts);
	e |= put_int(&c[C_ID], (int64_t)r->id);
	e |= put_int(&c[C_SRC], r->src_cpu);
	if (w->o.explode)
		e |= put_int(&c[C_TARGET], r->target_cpu);
	else
		e |= put_targets(&c[C_TARGET], r->targets);
	e |= put_int(&c[C_NTARGETS], (int32_t)r->ntargets);
	e |= put_int(&c[C_PID], r->pid);
	e |= put_str(&c[C_COMM], r->comm ? r->comm : "");
	e |= put_str(&c[C_EVENT], r->event ? r->event : "");
	e |= put_str(&c[C_KIND], ipt_kind_name(r->kind));
	e |= put_addr(&c[C_CALLSITE], r->callsite, NULL, false, 0, false);
	e |= put_addr(&c[C_CALLSITE_SYM], r->callsite, r->callsite_sym, true, r->callsite_off, true);
	e |= put_addr(&c[C_CALLBACK], r->callback, NULL, false, 0, false);
	e |= put_addr(&c[C_CALLBACK_SYM], r->callback, r->callback_sym, false, 0, true);
	e |= put_addr(&c[C_FUNC], r->func, NULL, false, 0, false);
	e |= put_addr(&c[C_FUNC_SYM], r->func, r->func_sym, false, 0, true);
	e |= put_str(&c[C_REASON], r->reason);
	if (w->ncols > NCOLS_BASE)
		e |= put_match(w, r, m);
	if (e)
		goto fail;
	w->rows++;
	w->rg_rows++;
	if (++w->page_rows >= w->o.page_rows || c[C_TARGET].vals.n >= PAGE_BYTES ||
	    c[C_STACK].vals.n >= PAGE_BYTES) {
		size_t bytes = 0;
		bool full = w->rg_rows >= w->o.row_group_rows;

		if (flush_pages(w))
			goto fail;
		for (int i = 0; i < w->ncols; i++) {
			bytes += w->cols[i].chunk.n + w->cols[i].d.data.n;
			if (w->cols[i].d.data.n > DICT_MAX_BYTES || w->cols[i].d.n > DICT_MAX_ENTRIES)
				full = true;
		}
		if ((full || bytes >= w->o.row_group_bytes) && flush_row_group(w))
			goto fail;
	} else if (w->rg_rows >= w->o.row_group_rows && flush_row_group(w)) {
		goto fail;
	}
	return 0;
fail:
	w->err = -1;
	return -1;
}

uint64_t ipt_parquet_rows(const struct ipt_parquet_writer *w)
{
	return w->rows;
}

/* ---- the footer ---- */

/* whether column i is a list (targets without explode, stack) */
static bool is_list(const struct ipt_parquet_writer *w, int i)
{
	return (i == C_TARGET && !w->o.explode) || i == C_STACK;
}

/* a schema element: a group when nchildren (ptype unused), else a leaf */
static void schema_elem(struct tw *t, int ptype, int rep, const char *name, int nchildren,
			int converted)
{
	tw_push(t);
	if (!nchildren)
		tw_i32(t, 1, ptype);
	tw_i32(t, 3, rep);
	tw_str(t, 4, name);
	if (nchildren)
		tw_i32(t, 5, nchildren);
	if (converted >= 0)
		tw_i32(t, 6, converted);
}

static void footer_schema(struct ipt_parquet_writer *w, struct tw *t)
{
	int nlists = 0;

	for (int i = 0; i < w->ncols; i++)
		nlists += is_list(w, i);
	tw_list(t, 2, TT_STRUCT, (size_t)(w->ncols + 1 + 2 * nlists));
	tw_push(t);				/* the root */
	tw_str(t, 4, "schema");
	tw_i32(t, 5, w->ncols);
	tw_end(t);
	for (int i = 0; i < w->ncols; i++) {
		if (is_list(w, i)) {
			bool str = colspec[i].ptype == PT_BYTE_ARRAY;

			schema_elem(t, 0, REP_OPTIONAL, i == C_TARGET ? "targets" : colspec[i].name,
				    1, CT_LIST);
			tw_struct(t, 10);		/* LogicalType */
			tw_struct(t, 3);		/* LIST */
			tw_end(t);
			tw_end(t);
			tw_end(t);
			schema_elem(t, 0, REP_REPEATED, "list", 1, -1);
			tw_end(t);
			schema_elem(t, colspec[i].ptype, REP_REQUIRED, "element", 0,
				    str ? CT_UTF8 : -1);
			if (str) {
				tw_struct(t, 10);
				tw_struct(t, 1);	/* STRING */
				tw_end(t);
				tw_end(t);
			}
			tw_end(t);
			continue;
		}
		schema_elem(t, colspec[i].ptype, colspec[i].optional ? REP_OPTIONAL : REP_REQUIRED,
			    colspec[i].name, 0, colspec[i].ptype == PT_BYTE_ARRAY ? CT_UTF8 : -1);
		if (colspec[i].ptype == PT_BYTE_ARRAY) {
			tw_struct(t, 10);
			tw_struct(t, 1);		/* STRING */
			tw_end(t);
			tw_end(t);
		} else if (i == C_TS && w->o.ts_is_ns) {
			tw_struct(t, 10);
			tw_struct(t, 8);		/* TIMESTAMP */
			tw_bool(t, 1, false);		/* isAdjustedToUTC */
			tw_struct(t, 2);		/* unit */
			tw_struct(t, 3);		/* NANOS */
			tw_end(t);
			tw_end(t);
			tw_end(t);
			tw_end(t);
		}
		tw_end(t);
	}
}

static void footer_chunk(struct ipt_parquet_writer *w, struct tw *t, int i,
			 const struct chunk_meta *m)
{
	const struct col *c = &w->cols[i];
	bool levels = c->max_def || c->max_rep;

	tw_push(t);				/* ColumnChunk */
	tw_i64(t, 2, 0);			/* file_offset (deprecated) */
	tw_struct(t, 3);			/* ColumnMetaData */
	tw_i32(t, 1, c->ptype);
	if (c->dict) {
		tw_list(t, 2, TT_I32, 2);
		tw_elem_i32(t, ENC_PLAIN_DICTIONARY);
		tw_elem_i32(t, ENC_RLE);
	} else {
		tw_list(t, 2, TT_I32, levels ? 2 : 1);
		tw_elem_i32(t, ENC_PLAIN);
		if (levels)
			tw_elem_i32(t, ENC_RLE);
	}
	if (is_list(w, i)) {
		tw_list(t, 3, TT_BINARY, 3);
		tw_elem_bin(t, i == C_TARGET ? "targets" : colspec[i].name);
		tw_elem_bin(t, "list");
		tw_elem_bin(t, "element");
	} else {
		tw_list(t, 3, TT_BINARY, 1);
		tw_elem_bin(t, colspec[i].name);
	}
	tw_i32(t, 4, w->o.codec);
	tw_i64(t, 5, m->nvals);
	tw_i64(t, 6, m->usize);
	tw_i64(t, 7, m->csize);
	tw_i64(t, 9, m->data_off);
	if (m->dict_off >= 0)
		tw_i64(t, 11, m->dict_off);
	tw_struct(t, 12);			/* Statistics */
	if (m->has_minmax && !c->dict) {	/* deprecated signed min/max: integers only */
		tw_bin(t, 1, m->max, m->maxlen);
		tw_bin(t, 2, m->min, m->minlen);
	}
	tw_i64(t, 3, m->nulls);
	if (m->has_minmax) {
		tw_bin(t, 5, m->max, m->maxlen);
		tw_bin(t, 6, m->min, m->minlen);
	}
	tw_end(t);
	tw_list(t, 13, TT_STRUCT, c->dict ? 2 : 1);	/* encoding_stats */
	if (c->dict) {
		tw_push(t);
		tw_i32(t, 1, PAGE_DICTIONARY);
		tw_i32(t, 2, ENC_PLAIN_DICTIONARY);
		tw_i32(t, 3, 1);
		tw_end(t);
	}
	tw_push(t);
	tw_i32(t, 1, PAGE_DATA);
	tw_i32(t, 2, c->dict ? ENC_PLAIN_DICTIONARY : ENC_PLAIN);
	tw_i32(t, 3, (int32_t)m->npages);
	tw_end(t);
	tw_end(t);				/* ColumnMetaData */
	tw_end(t);				/* ColumnChunk */
}

static void kv(struct tw *t, const char *k, const char *v)
{
	tw_push(t);
	tw_str(t, 1, k);
	tw_str(t, 2, v);
	tw_end(t);
}

static int write_footer(struct ipt_parquet_writer *w)
{
	struct bb b = { 0 };
	struct tw t;
	const char *keys[4], *vals[4];
	char tsdesc[256];
	size_t nkv = 0;
	int ret = -1;

	snprintf(tsdesc, sizeof(tsdesc),
		 "trace clock time (clock %s)%s: not wall-clock time",
		 w->o.clock && *w->o.clock ? w->o.clock : "unknown",
		 w->o.ts_is_ns ? ", nanoseconds from the clock's origin (boot for most clocks)" :
				 ", in the clock's own units");
	keys[nkv] = "ipitrace.ts_ns";
	vals[nkv++] = tsdesc;
	if (w->o.source) {
		keys[nkv] = "ipitrace.source";
		vals[nkv++] = w->o.source;
	}
	if (w->o.clock) {
		keys[nkv] = "ipitrace.clock";
		vals[nkv++] = w->o.clock;
	}
	if (w->o.kernel) {
		keys[nkv] = "ipitrace.kernel";
		vals[nkv++] = w->o.kernel;
	}
	tw_init(&t, &b);
	tw_i32(&t, 1, 1);			/* version */
	footer_schema(w, &t);
	tw_i64(&t, 3, (int64_t)w->rows);
	tw_list(&t, 4, TT_STRUCT, w->nrg);
	for (size_t g = 0; g < w->nrg; g++) {
		const struct rg_meta *rg = &w->rgs[g];

		tw_push(&t);
		tw_list(&t, 1, TT_STRUCT, (size_t)w->ncols);
		for (int i = 0; i < w->ncols; i++)
			footer_chunk(w, &t, i, &rg->cols[i]);
		tw_i64(&t, 2, rg->usize);
		tw_i64(&t, 3, rg->rows);
		tw_i64(&t, 5, rg->file_off);
		tw_i64(&t, 6, rg->csize);
		tw_i16(&t, 7, (int16_t)g);
		tw_end(&t);
	}
	tw_list(&t, 5, TT_STRUCT, nkv);
	for (size_t i = 0; i < nkv; i++)
		kv(&t, keys[i], vals[i]);
	tw_str(&t, 6, "ipitrace version " IPT_VERSION);
	tw_list(&t, 7, TT_STRUCT, (size_t)w->ncols);	/* column_orders: TYPE_ORDER for each */
	for (int i = 0; i < w->ncols; i++) {
		tw_push(&t);
		tw_struct(&t, 1);
		tw_end(&t);
		tw_end(&t);
	}
	tw_end(&t);
	if (t.err || b.n > UINT32_MAX)
		goto out;
	if (out_write(w, b.p, b.n) || bb_le32(&b, (uint32_t)b.n) ||
	    out_write(w, b.p + b.n - 4, 4) || out_write(w, "PAR1", 4))
		goto out;
	ret = 0;
out:
	bb_free(&b);
	return ret;
}

/* ---- open, close ---- */

static int mkdir_p(const char *dir)
{
	char *p = ipt_strdup(dir), *s;
	int ret = 0;

	if (!p)
		return -1;
	for (s = p + 1; ; s++) {
		if (*s && *s != '/')
			continue;
		{
			char ch = *s;

			*s = 0;
			if (mkdir(p, 0777) && errno != EEXIST)
				ret = ipt_err("%s: cannot create directory: %s", p, strerror(errno));
			*s = ch;
		}
		if (ret || !*s)
			break;
	}
	free(p);
	return ret;
}

static void writer_free(struct ipt_parquet_writer *w)
{
	for (int i = 0; i < NCOLS; i++) {
		struct col *c = &w->cols[i];

		bb_free(&c->vals);
		bb_free(&c->def);
		bb_free(&c->rep);
		bb_free(&c->chunk);
		dict_free(&c->d);
	}
	for (size_t g = 0; g < w->nrg; g++)
		for (int i = 0; i < NCOLS; i++) {
			free(w->rgs[g].cols[i].min);
			free(w->rgs[g].cols[i].max);
		}
	free(w->rgs);
	free(w->last_frames);
	bb_free(&w->page);
	bb_free(&w->comp);
	bb_free(&w->hdr);
	ZSTD_freeCCtx(w->cctx);
	free(w->path);
	free(w);
}

struct ipt_parquet_writer *ipt_parquet_open(const char *path, const struct ipt_parquet_opts *opts)
{
	struct ipt_parquet_writer *w = ipt_calloc(1, sizeof(*w));
	int fd;

	if (!w)
		return NULL;
	/* the fields the caller's struct has (opts->sz); the others stay 0 */
	if (opts)
		memcpy(&w->o, opts, opts->sz < sizeof(w->o) ? opts->sz : sizeof(w->o));
	w->o.sz = sizeof(w->o);
	if (!w->o.row_group_rows)
		w->o.row_group_rows = 1 << 20;
	if (!w->o.row_group_bytes)
		w->o.row_group_bytes = 64 << 20;
	if (!w->o.page_rows)
		w->o.page_rows = 32768;
	if (!w->o.zstd_level)
		w->o.zstd_level = 3;
	if (w->o.codec != IPT_PQ_ZSTD)
		w->o.codec = IPT_PQ_UNCOMPRESSED;
	for (int i = 0; i < NCOLS; i++) {
		struct col *c = &w->cols[i];

		c->ptype = colspec[i].ptype;
		c->dict = c->ptype == PT_BYTE_ARRAY;
		c->max_def = colspec[i].optional ? 1 : 0;
		if (is_list(w, i)) {
			c->max_def = 2;
			c->max_rep = 1;
		}
	}
	w->ncols = w->o.match_columns ? NCOLS : NCOLS_BASE;
	if (w->o.codec == IPT_PQ_ZSTD && !(w->cctx = ZSTD_createCCtx())) {
		ipt_err("out of memory");
		goto fail;
	}
	w->path = ipt_strdup(path);
	if (!w->path)
		goto fail;
	if (!strcmp(path, "-") && !w->o.numbered) {
		w->f = stdout;
	} else {
		char *where = NULL;

		if (w->o.numbered && mkdir_p(path))
			goto fail;
		if (w->o.numbered && asprintf(&where, "%s/part.parquet", path) < 0) {
			ipt_err("out of memory");
			goto fail;
		}
		fd = ipt_afile_open(&w->af, where ? where : path, 0600);
		free(where);
		if (fd)
			goto fail;
		w->has_af = true;
		w->f = fdopen(w->af.fd, "wb");
		if (!w->f) {
			ipt_err("%s: %s", path, strerror(errno));
			close(w->af.fd);
			goto fail;
		}
		setvbuf(w->f, NULL, _IOFBF, 1 << 20);
	}
	if (out_write(w, "PAR1", 4))
		goto fail;
	return w;
fail:
	ipt_parquet_abort(w);
	return NULL;
}

void ipt_parquet_abort(struct ipt_parquet_writer *w)
{
	if (!w)
		return;
	if (w->f && w->f != stdout)
		fclose(w->f);
	if (w->has_af)
		ipt_afile_discard(&w->af);
	writer_free(w);
}

/* next_part - the lowest n with no part-<n>.parquet in dir yet */
static unsigned long next_part(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned long n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char *end;
		unsigned long k;

		if (strncmp(e->d_name, "part-", 5))
			continue;
		k = strtoul(e->d_name + 5, &end, 10);
		if (end != e->d_name + 5 && !strcmp(end, ".parquet") && k + 1 > n)
			n = k + 1;
	}
	closedir(d);
	return n;
}

/* place_numbered - link the finished file as dir/part-<n>.parquet, never
 * replacing another one (several converts may fill one directory) */
static int place_numbered(struct ipt_parquet_writer *w)
{
	unsigned long n = next_part(w->path);

	for (int tries = 0; tries < 100000; tries++, n++) {
		char *final;
		int r;

		if (asprintf(&final, "%s/part-%lu.parquet", w->path, n) < 0)
			return ipt_err("out of memory");
		r = ipt_afile_publish(&w->af, final, false);
		free(final);
		if (r <= 0)
			return r;
	}
	return ipt_err("%s: no free part-<n>.parquet name", w->path);
}

int ipt_parquet_close(struct ipt_parquet_writer *w)
{
	if (w->err || flush_row_group(w) || write_footer(w))
		goto fail;
	if (fflush(w->f) || ferror(w->f)) {
		ipt_err("%s: write error: %s", w->path, strerror(errno ? errno : EIO));
		goto fail;
	}
	if (w->f == stdout) {
		writer_free(w);
		return 0;
	}
	if (w->o.numbered ? place_numbered(w) : ipt_afile_publish(&w->af, NULL, true))
		goto fail;
	ipt_afile_discard(&w->af);
	w->has_af = false;
	if (fclose(w->f)) {
		w->f = NULL;
		ipt_err("%s: %s", w->path, strerror(errno));
		goto fail;
	}
	w->f = NULL;
	writer_free(w);
	return 0;
fail:
	ipt_parquet_abort(w);
	return -1;
}

/* ---- convert ---- */

/* ipt_parquet_check_partition - partition keys: host and/or date, once each */
int ipt_parquet_check_partition(const char *by)
{
	const char *p = by;
	bool host = false, date = false;

	if (!by || !*by)
		return ipt_err_code(IPT_ERR_INVALID, "expected host, date or host,date");
	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == 4 && !strncmp(p, "host", 4) && !host)
			host = true;
		else if (n == 4 && !strncmp(p, "date", 4) && !date)
			date = true;
		else
			return ipt_err_code(IPT_ERR_INVALID,
					    "unknown or repeated key '%.*s' (keys: host, date)",
					    (int)n, p);
		p += n;
		if (*p == ',' && *++p == 0)
			return ipt_err_code(IPT_ERR_INVALID, "empty key");
	}
	return 0;
}

/* hive_escape - a partition value as Hive writes it: %XX for unsafe bytes */
static int hive_escape(struct ipt_strbuf *sb, const char *s, size_t n)
{
	static const char hx[] = "0123456789ABCDEF";

	if (!n)
		return sb_adds(sb, "__HIVE_DEFAULT_PARTITION__");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || (c == '.' && i)) {
			if (sb_addc(sb, (char)c))
				return -1;
		} else if (sb_addc(sb, '%') || sb_addc(sb, hx[c >> 4]) || sb_addc(sb, hx[c & 15])) {
			return -1;
		}
	}
	return 0;
}

char *ipt_parquet_partition_dir(struct ipt_trace *t, const char *base, const char *by)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	size_t blen = strlen(base);
	const char *p = by;

	if (ipt_parquet_check_partition(by)) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", ipt_errmsg());
		ipt_err_code(IPT_ERR_INVALID, "partition keys '%s': %s", by, msg);
		return NULL;
	}
	while (blen > 1 && base[blen - 1] == '/')
		blen--;
	if (sb_add(&sb, base, blen))
		goto fail;
	while (*p) {
		size_t n = strcspn(p, ",");

		if (!strncmp(p, "host", 4)) {
			const char *u = ipt_trace_uname(t), *h = u;
			size_t hl;

			h += strcspn(h, " \t");		/* sysname */
			h += strspn(h, " \t");
			hl = strcspn(h, " \t\n");	/* nodename */
			if (!hl) {
				h = "unknown";
				hl = 7;
			}
			if (sb_adds(&sb, "/host=") || hive_escape(&sb, h, hl))
				goto fail;
		} else {
			struct stat st;
			struct tm tm;
			char d[32], start[32];

			/* the recording's own start (provenance), else the file's time */
			if (ipt_trace_provenance(t, "start_utc", start, sizeof(start)) && strlen(start) >= 10 &&
			    start[4] == '-' && start[7] == '-') {
				memcpy(d, start, 10);
				d[10] = 0;
			} else if (stat(ipt_trace_path(t), &st)) {
				ipt_err("%s: %s", ipt_trace_path(t), strerror(errno));
				goto fail;
			} else if (!gmtime_r(&st.st_mtime, &tm) || !strftime(d, sizeof(d), "%Y-%m-%d", &tm)) {
				ipt_err("%s: bad modification time", ipt_trace_path(t));
				goto fail;
			}
			if (sb_adds(&sb, "/date=") || hive_escape(&sb, d, strlen(d)))
				goto fail;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return sb.buf;
fail:
	ipt_strbuf_free(&sb);
	return NULL;
}

/* ipt_parquet_convert - the rows of it into one Parquet file (or dataset part) */
int ipt_parquet_convert(struct ipt_trace *t, struct ipt_ipi_iter *it, const char *out,
			const struct ipt_parquet_opts *opts)
{
	struct ipt_parquet_opts o = { 0 };
	struct ipt_parquet_writer *w;
	struct ipt_ipi_row row;
	char *dir = NULL;
	uint64_t last_id = 0;
	bool have_last = false;
	int r;

	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	o.sz = sizeof(o);
	o.ts_is_ns = ipt_trace_ts_in_ns(t);
	o.source = ipt_trace_path(t);
	o.clock = ipt_trace_clock(t);
	o.kernel = ipt_trace_uname(t);
	o.trace = t;
	o.numbered = false;
	if (o.partition_by) {
		dir = ipt_parquet_partition_dir(t, out, o.partition_by);
		if (!dir)
			return -1;
		o.numbered = true;
		out = dir;
	}
	w = ipt_parquet_open(out, &o);
	free(dir);
	if (!w)
		return -1;
	while ((r = ipt_ipi_next(it, &row)) > 0) {
		struct ipt_row_match m;

		/* every row, the skipped ones too: the report's cursor moves on */
		if (o.match_columns && o.report && ipt_report_row_match(o.report, &row, &m)) {
			r = -1;
			break;
		}
		if (!o.explode) {
			if (have_last && row.id == last_id)
				continue;
			last_id = row.id;
			have_last = true;
		}
		if (ipt_parquet_add_match(w, &row, o.match_columns && o.report ? &m : NULL)) {
			r = -1;
			break;
		}
	}
	if (r < 0) {
		ipt_parquet_abort(w);
		return -1;
	}
	return ipt_parquet_close(w);
}
