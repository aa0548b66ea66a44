// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parquet.c - IPI rows as Apache Parquet files (declared in ipitrace.h):
 * the writer, which opens the file, takes rows and puts their values into
 * the columns' pages being filled, cuts pages and row groups, and closes
 * the file with its footer; and ipt_parquet_convert, a trace's rows into
 * one file or dataset part.  parquet.h says what the other parquet_*.c
 * files hold.
 *
 * Each column keeps the page being filled (plain values or dictionary
 * indices, plus repetition/definition levels) and the encoded pages of the
 * current row group.  All columns cut their pages at the same row, so
 * every page starts at a row boundary.  Strings are dictionary encoded
 * (PLAIN_DICTIONARY), integers PLAIN, levels RLE; data pages are v1;
 * every column chunk has min/max/null_count.
 */
#include "output/parquet.h"

#include <errno.h>
#include <unistd.h>

/* ---- adding values ---- */

/* minmax - v into the column chunk's statistics */
static inline void minmax(struct col *c, int64_t v)
{
	if (!c->has_minmax) {
		c->min = c->max = v;
		c->has_minmax = true;
	} else if (v < c->min) {
		c->min = v;
	} else if (v > c->max) {
		c->max = v;
	}
}

static inline int put_int(struct col *c, int64_t v)
{
	minmax(c, v);
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
		return c->max_def ? put_null(c) : put_idx(c, pq_dict_index(d, "", 0));
	n = strlen(s);
	if (d->last_ok && n == d->last_len && !memcmp(s, d->last_str, n))
		return put_idx(c, d->last_idx);
	idx = pq_dict_index(d, s, n);
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
	struct acache *e;
	bool added;
	int64_t idx;
	char buf[512];

	if (!as_sym)
		sym = NULL;
	if (d->last_ok && d->last_addr.addr == addr && d->last_addr.sym == sym)
		return d->last_addr.val == 1 ? put_null(c) : put_idx(c, d->last_addr.val - 2);
	e = pq_ac_find(d, addr, sym, &added);
	if (!e)
		return -1;
	d->last_addr.addr = addr;
	d->last_addr.sym = sym;
	d->last_ok = false;
	if (!added) {
		d->last_addr.val = e->val;
		d->last_ok = true;
		return e->val == 1 ? put_null(c) : put_idx(c, e->val - 2);
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
			idx = pq_dict_index(d, big, (size_t)n);
			free(big);
		} else {
			idx = pq_dict_index(d, buf, (size_t)n);
		}
		if (idx < 0)
			return -1;
	}
	e->val = idx < 0 ? 1 : (uint32_t)idx + 2;
	d->last_addr.val = e->val;
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
	minmax(c, v);
	return bb_u8(&c->vals, (uint8_t)v);
}

/* a frame of the stack list: "sym+0xoff" (or "0x...") by address, cached */
static int64_t frame_idx(struct ipt_parquet_writer *w, struct dict *d, uint64_t addr)
{
	static const char marker[1];
	char buf[512];
	bool added;
	struct acache *e = pq_ac_find(d, addr, marker, &added);
	int64_t idx;

	if (!e)
		return -1;
	if (!added)
		return e->val - 2;
	ipt_trace_format_symbol(w->o.trace, addr, true, buf, sizeof(buf));
	idx = pq_dict_index(d, buf, strlen(buf));
	if (idx < 0)
		return -1;
	e->val = (uint32_t)idx + 2;
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
		if (IPT_GROW(w->last_frames, w->caplast, st->nframes))
			return -1;
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

		if (pq_flush_pages(w))
			goto fail;
		for (int i = 0; i < w->ncols; i++) {
			bytes += w->cols[i].chunk.n + w->cols[i].d.data.n;
			if (w->cols[i].d.data.n > DICT_MAX_BYTES || w->cols[i].d.n > DICT_MAX_ENTRIES)
				full = true;
		}
		if ((full || bytes >= w->o.row_group_bytes) && pq_flush_row_group(w))
			goto fail;
	} else if (w->rg_rows >= w->o.row_group_rows && pq_flush_row_group(w)) {
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

/* ---- open, close ---- */

static void writer_free(struct ipt_parquet_writer *w)
{
	for (int i = 0; i < NCOLS; i++) {
		struct col *c = &w->cols[i];

		bb_free(&c->vals);
		bb_free(&c->def);
		bb_free(&c->rep);
		bb_free(&c->chunk);
		pq_dict_free(&c->d);
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
	if (IPT_OPTS_COPY(w->o, opts, "parquet")) {
		free(w);
		return NULL;
	}
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

		c->ptype = pq_colspec(i).ptype;
		c->dict = c->ptype == PT_BYTE_ARRAY;
		c->max_def = pq_colspec(i).optional ? 1 : 0;
		if (pq_is_list(w, i)) {
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

		if (w->o.numbered && pq_mkdir_p(path))
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
	if (pq_out_write(w, "PAR1", 4))
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

/* write_footer - the FileMetaData, its length (4 bytes LE), "PAR1" */
static int write_footer(struct ipt_parquet_writer *w)
{
	struct bb b = { 0 };
	int ret = -1;

	if (pq_footer(w, &b) || b.n > UINT32_MAX)
		goto out;
	if (pq_out_write(w, b.p, b.n) || bb_le32(&b, (uint32_t)b.n) ||
	    pq_out_write(w, b.p + b.n - 4, 4) || pq_out_write(w, "PAR1", 4))
		goto out;
	ret = 0;
out:
	bb_free(&b);
	return ret;
}

int ipt_parquet_close(struct ipt_parquet_writer *w)
{
	if (w->err || pq_flush_row_group(w) || write_footer(w))
		goto fail;
	if (fflush(w->f) || ferror(w->f)) {
		ipt_err("%s: write error: %s", w->path, strerror(errno ? errno : EIO));
		goto fail;
	}
	if (w->f == stdout) {
		writer_free(w);
		return 0;
	}
	if (w->o.numbered ? pq_place_numbered(&w->af, w->path) : ipt_afile_place(&w->af, !w->o.no_replace))
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

/* ipt_parquet_convert - the rows of it into one Parquet file (or dataset part) */
int ipt_parquet_convert(struct ipt_trace *t, struct ipt_ipi_iter *it, const char *out,
			const struct ipt_parquet_opts *opts)
{
	struct ipt_parquet_opts o;
	struct ipt_parquet_writer *w;
	struct ipt_ipi_row row;
	char *dir = NULL;
	uint64_t last_id = 0;
	bool have_last = false;
	int r;

	if (IPT_OPTS_COPY(o, opts, "parquet"))
		return -1;
	o.ts_is_ns = ipt_trace_ts_in_ns(t);
	o.source = ipt_trace_path(t);
	o.clock = ipt_trace_clock(t);
	o.kernel = ipt_trace_uname(t);
	o.trace = t;
	o.numbered = false;
	if (o.partition_by) {
		dir = pq_partition_dir(t, out, o.partition_by);
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
