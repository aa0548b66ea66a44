/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * parquet.h - what the files of the Parquet writer share (not installed):
 * the format's enums, the columns and their schema, the writer's state,
 * the byte buffers everything is encoded into, and the dictionaries'
 * address cache, inline for the per-row code.
 *
 * Written from the Parquet format specification (parquet.thrift,
 * Encodings.md): file = "PAR1", column chunks, FileMetaData in the Thrift
 * compact protocol, its length (4 bytes LE), "PAR1".
 *
 *   parquet.c          the writer: open, rows into the columns, close, convert
 *   parquet_page.c     pages and column chunks: RLE levels, PLAIN values,
 *                      dictionary indices, compression, row groups written out
 *   parquet_dict.c     the dictionaries of the string columns
 *   parquet_meta.c     the Thrift compact protocol, page headers, the footer
 *   parquet_dataset.c  Hive-partitioned datasets: keys, directories, part files
 *
 * Calls go down this list only (parquet.c -> the others, parquet_page.c ->
 * parquet_dict.c and parquet_meta.c), never back up.
 */
#ifndef IPT_OUTPUT_PARQUET_H
#define IPT_OUTPUT_PARQUET_H

#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
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

static inline int bb_grow(struct bb *b, size_t extra)
{
	return IPT_GROW(b->p, b->cap, b->n + extra);
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

static inline int bb_le32(struct bb *b, uint32_t v)
{
	uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	return bb_put(b, x, 4);
}

int pq_bb_varint(struct bb *b, uint64_t v);

static inline void bb_free(struct bb *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ---- dictionaries (parquet_dict.c) ---- */

struct dent {
	uint32_t off, len;	/* the bytes in data (after the 4-byte length) */
};

struct dslot {			/* a string's slot in the dictionary's hash map */
	uint64_t tag;
	uint32_t idx;		/* its entry */
};

struct acache {			/* (address, symbol pointer) -> dictionary index */
	uint64_t tag;		/* the hash map's (ipt_hmap) */
	uint64_t addr;
	const char *sym;
	uint32_t val;		/* 1 NULL, k + 2 index k */
};

struct dict {
	struct ipt_hmap slots;	/* of struct dslot */
	struct dent *ents;
	size_t n, capents;
	struct bb data;		/* PLAIN BYTE_ARRAY: 4-byte length, bytes, ... */
	struct ipt_hmap ac;	/* of struct acache */
	/* the previous value: rows in a row often repeat it (a multicast's
	 * rows, one task's sends) */
	bool last_ok;
	struct acache last_addr;
	uint32_t last_len, last_idx;
	char last_str[64];
};

int64_t pq_dict_index(struct dict *d, const char *s, size_t len);
void pq_dict_reset(struct dict *d);
void pq_dict_free(struct dict *d);

struct akey {
	uint64_t addr;
	const char *sym;
};

static inline bool pq_ac_eq(const void *entry, const void *key)
{
	const struct acache *e = entry;
	const struct akey *k = key;

	return e->addr == k->addr && e->sym == k->sym;
}

/* pq_ac_find - the entry of (addr, sym) in the address cache; a new one
 * (*added) has its val set by the caller.  NULL without memory.  Inline:
 * it runs for every address of every row. */
static inline struct acache *pq_ac_find(struct dict *d, uint64_t addr, const char *sym, bool *added)
{
	struct akey k = { addr, sym };
	uint64_t tag = ipt_hmap_tag(ipt_hash64(addr ^ (uint64_t)(uintptr_t)sym * 0x9e3779b97f4a7c15ULL));
	struct acache *e = ipt_hmap_add(&d->ac, sizeof(*e), tag, pq_ac_eq, &k, added);

	if (e && *added) {
		e->addr = addr;
		e->sym = sym;
	}
	return e;
}

/* ---- columns ---- */

/* the columns: the rows' (ipt_row_column), in their order */
enum {
	C_TS = IPT_COL_TS_NS, C_ID = IPT_COL_ID, C_SRC = IPT_COL_SRC_CPU, C_TARGET = IPT_COL_TARGET_CPU,
	C_NTARGETS = IPT_COL_NTARGETS, C_PID = IPT_COL_PID, C_COMM = IPT_COL_COMM, C_EVENT = IPT_COL_EVENT,
	C_KIND = IPT_COL_KIND, C_CALLSITE = IPT_COL_CALLSITE, C_CALLSITE_SYM = IPT_COL_CALLSITE_SYM,
	C_CALLBACK = IPT_COL_CALLBACK, C_CALLBACK_SYM = IPT_COL_CALLBACK_SYM, C_FUNC = IPT_COL_FUNC,
	C_FUNC_SYM = IPT_COL_FUNC_SYM, C_REASON = IPT_COL_REASON,
	/* the matching columns (opts.match_columns) */
	C_LAT = IPT_COL_LAT_NS, C_HANDLER = IPT_COL_HANDLER_NS, C_HANDLER_TS = IPT_COL_HANDLER_TS_NS,
	C_MATCHED = IPT_COL_MATCHED, C_COALESCED = IPT_COL_COALESCED,
	C_UNMATCHED = IPT_COL_UNMATCHED_REASON, C_CALLSITE_FUNC = IPT_COL_CALLSITE_FUNC,
	C_FUNC_NAME = IPT_COL_FUNC_NAME, C_STACK = IPT_COL_STACK,
	NCOLS = IPT_COL__COUNT,
	NCOLS_BASE = IPT_COL__MATCH
};

/* the schema of column i (parquet_meta.c), from the rows' description */
struct pq_colspec {
	const char *name;
	uint8_t ptype;
	bool optional;
};
struct pq_colspec pq_colspec(int i);

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

/* whether column i is a list (targets without explode, stack) */
static inline bool pq_is_list(const struct ipt_parquet_writer *w, int i)
{
	return (i == C_TARGET && !w->o.explode) || i == C_STACK;
}

/* ---- pages and column chunks (parquet_page.c) ---- */

int pq_out_write(struct ipt_parquet_writer *w, const void *p, size_t n);
int pq_flush_pages(struct ipt_parquet_writer *w);
int pq_flush_row_group(struct ipt_parquet_writer *w);

/* ---- Thrift: page headers and the footer (parquet_meta.c) ---- */

void pq_page_header(struct bb *b, int type, size_t usize, size_t csize, int32_t nvals, int enc,
		    int nvals_dict);
int pq_footer(const struct ipt_parquet_writer *w, struct bb *b);

/* ---- datasets (parquet_dataset.c) ---- */

int pq_mkdir_p(const char *dir);
int pq_place_numbered(struct ipt_afile *af, const char *dir);

/*
 * The partition directory of trace t under base for keys by ("host",
 * "host,date", ...): base/host=<uname nodename>/date=<YYYY-MM-DD>.  host is
 * the second word of the trace's uname ("unknown" if none); date is the
 * recording's start in UTC when `ipitrace record` stored it (provenance
 * start_utc), else the trace file's modification time in UTC (trace.dat
 * files hold no wall-clock date).  Values are escaped as Hive does (%XX).
 * Caller frees.
 */
char *pq_partition_dir(struct ipt_trace *t, const char *base, const char *by);

#endif
