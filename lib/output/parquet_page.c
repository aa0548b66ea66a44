// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parquet_page.c - the Parquet writer's pages and column chunks: a
 * column's page being filled encoded as a v1 data page (RLE/bit-packed
 * repetition and definition levels, then PLAIN values, bit-packed
 * booleans or RLE dictionary indices), compressed (zstd) behind its
 * header into the row group's chunk; at the end of a row group each
 * chunk written out after its dictionary page, with min/max/null_count
 * statistics kept for the footer.
 */
#include "output/parquet.h"

#include <errno.h>

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

			if (pq_bb_varint(o, (uint64_t)r << 1) || bb_put(o, val, vbytes))
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
		if (pq_bb_varint(o, (uint64_t)groups << 1 | 1) || bb_grow(o, groups * bw))
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

/* ---- output ---- */

/* pq_out_write - n bytes to the file, counted in w->off */
int pq_out_write(struct ipt_parquet_writer *w, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, w->f) != n)
		return ipt_err("%s: write error: %s", w->path, strerror(errno ? errno : EIO));
	w->off += n;
	return 0;
}

/* ---- pages ---- */

/* compress_page - w->page into w->comp (or use it as is); returns the bytes to write */
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
	pq_page_header(&w->hdr, PAGE_DATA, usize, body->n, (int32_t)nlev,
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

/* pq_flush_pages - the page being filled of every column into its chunk:
 * all cut at the same row */
int pq_flush_pages(struct ipt_parquet_writer *w)
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

/*
 * pq_flush_row_group - the row group out: each column chunk as
 * [dictionary page] data pages..., its metadata kept for the footer (a
 * few hundred bytes per row group), the columns emptied for the next
 */
int pq_flush_row_group(struct ipt_parquet_writer *w)
{
	struct rg_meta *rg;

	if (w->page_rows && pq_flush_pages(w))
		return -1;
	if (!w->rg_rows)
		return 0;
	if (IPT_GROW(w->rgs, w->caprg, w->nrg + 1))
		return -1;
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
			pq_page_header(&w->hdr, PAGE_DICTIONARY, usize, body->n, 0, ENC_PLAIN_DICTIONARY,
				    (int)c->d.n);
			m->dict_off = (int64_t)w->off;
			if (!w->hdr.n || pq_out_write(w, w->hdr.p, w->hdr.n) || pq_out_write(w, body->p, body->n))
				return -1;
			c->usize += (int64_t)(w->hdr.n + usize);
			c->csize += (int64_t)(w->hdr.n + body->n);
			put_minmax_dict(m, c);
		} else if (c->has_minmax) {
			put_minmax_int(m, c);
		}
		m->data_off = (int64_t)w->off;
		if (pq_out_write(w, c->chunk.p, c->chunk.n))
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
		pq_dict_reset(&c->d);
	}
	w->last_stack = NULL;	/* its indices were the dictionary's */
	w->rg_rows = 0;
	return 0;
}
