// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parquet_meta.c - the Parquet writer's metadata, in the Thrift compact
 * protocol (just what it uses of it): the schema of the columns, the page
 * headers, and the footer (FileMetaData: the schema, each row group's
 * column chunks with their statistics, key/value metadata).
 */
#include "output/parquet.h"

/* ---- Thrift compact protocol ---- */

/* pq_bb_varint - v as a ULEB128 varint (Thrift's integers, the RLE runs'
 * headers) */
int pq_bb_varint(struct bb *b, uint64_t v)
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
		w->err |= pq_bb_varint(w->b, (uint64_t)(uint16_t)((id << 1) ^ (id >> 15)));
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
	w->err |= pq_bb_varint(w->b, zz64(v));
}

static void tw_i64(struct tw *w, int16_t id, int64_t v)
{
	tw_field(w, id, TT_I64);
	w->err |= pq_bb_varint(w->b, zz64(v));
}

static void tw_i16(struct tw *w, int16_t id, int16_t v)
{
	tw_field(w, id, TT_I16);
	w->err |= pq_bb_varint(w->b, zz64(v));
}

static void tw_bool(struct tw *w, int16_t id, bool v)
{
	tw_field(w, id, v ? TT_TRUE : TT_FALSE);
}

static void tw_bin(struct tw *w, int16_t id, const void *p, size_t n)
{
	tw_field(w, id, TT_BINARY);
	w->err |= pq_bb_varint(w->b, n) | bb_put(w->b, p, n);
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
		w->err |= pq_bb_varint(w->b, n);
	}
}

/* elements of lists */
static void tw_elem_i32(struct tw *w, int32_t v)
{
	w->err |= pq_bb_varint(w->b, zz64(v));
}

static void tw_elem_bin(struct tw *w, const char *s)
{
	size_t n = strlen(s);

	w->err |= pq_bb_varint(w->b, n) | bb_put(w->b, s, n);
}

/* ---- the schema ---- */

/* pq_colspec - column i as Parquet stores it: the rows' name, the physical
 * type of its kind of value (addresses as "0x..." strings, a list of
 * strings as the strings of a LIST), nullable as the rows say */
struct pq_colspec pq_colspec(int i)
{
	static const uint8_t ptype[] = {
		[IPT_COLTYPE_INT64] = PT_INT64, [IPT_COLTYPE_INT32] = PT_INT32,
		[IPT_COLTYPE_STRING] = PT_BYTE_ARRAY, [IPT_COLTYPE_ADDRESS] = PT_BYTE_ARRAY,
		[IPT_COLTYPE_BOOL] = PT_BOOLEAN, [IPT_COLTYPE_STRINGS] = PT_BYTE_ARRAY,
	};
	const struct ipt_row_column_info *c = ipt_row_column((enum ipt_row_column)i);

	return (struct pq_colspec){ c->name, ptype[c->type], c->nullable };
}
/* ---- page headers ---- */

/* pq_page_header - a PageHeader: a data page (v1) or the dictionary page;
 * b->n 0 on error */
void pq_page_header(struct bb *b, int type, size_t usize, size_t csize, int32_t nvals, int enc,
		    int nvals_dict)
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

/* ---- the footer ---- */

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

static void footer_schema(const struct ipt_parquet_writer *w, struct tw *t)
{
	int nlists = 0;

	for (int i = 0; i < w->ncols; i++)
		nlists += pq_is_list(w, i);
	tw_list(t, 2, TT_STRUCT, (size_t)(w->ncols + 1 + 2 * nlists));
	tw_push(t);				/* the root */
	tw_str(t, 4, "schema");
	tw_i32(t, 5, w->ncols);
	tw_end(t);
	for (int i = 0; i < w->ncols; i++) {
		if (pq_is_list(w, i)) {
			bool str = pq_colspec(i).ptype == PT_BYTE_ARRAY;

			schema_elem(t, 0, REP_OPTIONAL, i == C_TARGET ? "targets" : pq_colspec(i).name,
				    1, CT_LIST);
			tw_struct(t, 10);		/* LogicalType */
			tw_struct(t, 3);		/* LIST */
			tw_end(t);
			tw_end(t);
			tw_end(t);
			schema_elem(t, 0, REP_REPEATED, "list", 1, -1);
			tw_end(t);
			schema_elem(t, pq_colspec(i).ptype, REP_REQUIRED, "element", 0,
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
		schema_elem(t, pq_colspec(i).ptype, pq_colspec(i).optional ? REP_OPTIONAL : REP_REQUIRED,
			    pq_colspec(i).name, 0, pq_colspec(i).ptype == PT_BYTE_ARRAY ? CT_UTF8 : -1);
		if (pq_colspec(i).ptype == PT_BYTE_ARRAY) {
			tw_struct(t, 10);
			tw_struct(t, 1);		/* STRING */
			tw_end(t);
			tw_end(t);
		} else if ((i == C_TS || i == C_HANDLER_TS) && w->o.ts_is_ns) {
			/* the same clock and unit: the same type */
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

static void footer_chunk(const struct ipt_parquet_writer *w, struct tw *t, int i,
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
	if (pq_is_list(w, i)) {
		tw_list(t, 3, TT_BINARY, 3);
		tw_elem_bin(t, i == C_TARGET ? "targets" : pq_colspec(i).name);
		tw_elem_bin(t, "list");
		tw_elem_bin(t, "element");
	} else {
		tw_list(t, 3, TT_BINARY, 1);
		tw_elem_bin(t, pq_colspec(i).name);
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

/* pq_footer - the FileMetaData of the file written, appended to b; -1 on
 * error */
int pq_footer(const struct ipt_parquet_writer *w, struct bb *b)
{
	struct tw t;
	const char *keys[4], *vals[4];
	char tsdesc[256];
	size_t nkv = 0;

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
	tw_init(&t, b);
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
	return t.err ? -1 : 0;
}

