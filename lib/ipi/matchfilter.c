// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * matchfilter.c - row filters that may name what matching found: the
 * first pass (the match table) and the evaluation (see matchfilter.h)
 */
#include "ipi/matchfilter.h"
#include "ipi/report_views.h"

#include <stdlib.h>
#include <string.h>

struct ipt_mtable {
	struct ipt_report *rep;		/* the first pass: every row, row results */
	struct mt_cpu {			/* per sending CPU: the report's index of */
		uint32_t *v;		/* each of its rows, in order */
		size_t n, cap;
	} *cpu;
	int ncpu;
	size_t rows;			/* on_row calls so far */
	char **stack;			/* per stack of the report (rep->tstk[k]):
					 * its frames as "leaf;...;root" */
	size_t nstack;
};

struct ipt_mfilter {
	struct ipt_filter *f;
	bool matched;			/* names a column from matching */
	const struct ipt_mtable *table;	/* the caller's */
	uint64_t *ord;			/* per sending CPU: rows evaluated */
};

struct ipt_report *ipt_mtable_release(struct ipt_mtable *mt)
{
	struct ipt_report *rep;

	if (!mt)
		return NULL;
	rep = mt->rep;
	for (int c = 0; c < mt->ncpu; c++)
		free(mt->cpu[c].v);
	free(mt->cpu);
	for (size_t k = 0; k < mt->nstack; k++)
		free(mt->stack[k]);
	free(mt->stack);
	free(mt);
	return rep;
}

struct ipt_mtable *ipt_mtable_new(void)
{
	return ipt_calloc(1, sizeof(struct ipt_mtable));
}

/* ipt_mtable_on_row - the first pass's on_row: the row's index, under its CPU */
int ipt_mtable_on_row(void *ctx, const struct ipt_ipi_row *row)
{
	struct ipt_mtable *mt = ctx;
	struct mt_cpu *c;

	if (row->src_cpu < 0 || row->src_cpu >= IPT_CPUSET_MAX)
		return ipt_err("filter: a row sent by CPU %d, out of range", row->src_cpu);
	if (mt->rows >= UINT32_MAX)
		return ipt_err("filter: more than %u rows: matching columns cannot be filtered on", UINT32_MAX - 1);
	if (row->src_cpu >= mt->ncpu) {
		if (IPT_GROW_ZERO(mt->cpu, mt->ncpu, (size_t)row->src_cpu + 1))
			return -1;
	}
	c = &mt->cpu[row->src_cpu];
	if (IPT_GROW(c->v, c->cap, c->n + 1))
		return -1;
	c->v[c->n++] = (uint32_t)mt->rows++;
	return 0;
}

/* mt_stacks - every stack of the report, as its frames joined by ';' (as
 * the rows' CSV column has them) */
static int mt_stacks(struct ipt_mtable *mt, const struct ipt_trace *t)
{
	const struct ipt_report *rep = mt->rep;
	char buf[512];

	mt->nstack = rep->tstk ? rep->trimmed.nent + 1 : 0;
	if (mt->nstack && !(mt->stack = ipt_calloc(mt->nstack, sizeof(*mt->stack)))) {
		mt->nstack = 0;
		return -1;
	}
	for (size_t k = 0; k < mt->nstack; k++) {
		const struct ipt_report_stack *st = &rep->tstk[k];
		struct ipt_strbuf sb = IPT_STRBUF_INIT;
		int ret = ipt_strbuf_adds(&sb, "");

		for (uint32_t i = 0; i < st->nframes; i++) {
			ipt_trace_format_symbol(t, st->frames[i], true, buf, sizeof(buf));
			ret |= (i ? ipt_strbuf_addc(&sb, ';') : 0) | ipt_strbuf_adds(&sb, buf);
		}
		if (ret) {
			ipt_strbuf_free(&sb);
			return -1;
		}
		mt->stack[k] = sb.buf;
	}
	return 0;
}

int ipt_mtable_finish(struct ipt_mtable *mt, struct ipt_report *rep, const struct ipt_trace *t)
{
	mt->rep = rep;
	if (mt_stacks(mt, t)) {
		mt->rep = NULL;
		return -1;
	}
	return 0;
}

/* ---- evaluation ---- */

struct mrow {
	const struct ipt_mfilter *f;
	const struct ipt_ipi_row *row;
	uint64_t ord;			/* the row's place among its CPU's */
	bool fetched;
	struct ipt_row_match m;
};

static void fetch(struct mrow *x)
{
	const struct ipt_mtable *mt = x->f->table;
	int src = x->row->src_cpu;

	x->fetched = true;
	memset(&x->m, 0, sizeof(x->m));
	if (!mt || src < 0 || src >= mt->ncpu || x->ord >= mt->cpu[src].n)
		return;		/* not a row the first pass counted: unknown */
	ipt_rpt_result_at(mt->rep, mt->cpu[src].v[x->ord], x->row, false, &x->m);
}

static void int_or_none(struct ipt_value *v, bool has, uint64_t i)
{
	v->kind = has ? IPT_VAL_INT : IPT_VAL_NONE;
	v->i = i;
}

static void mrow_lookup(void *ctx, int id, struct ipt_value *v)
{
	struct mrow *x = ctx;
	const struct ipt_row_match *m = &x->m;

	if (id < COL__COUNT) {
		ipt_row_lookup((void *)x->row, id, v);
		return;
	}
	memset(v, 0, sizeof(*v));
	if (!x->fetched)
		fetch(x);
	switch (id) {
	case COL_LAT_NS: int_or_none(v, m->has_latency, m->latency_ns); break;
	case COL_HANDLER_NS: int_or_none(v, m->has_handler, m->handler_ns); break;
	case COL_HANDLER_TS_NS: int_or_none(v, m->has_handler_ts, m->handler_ts_ns); break;
	case COL_MATCHED: int_or_none(v, m->known, m->matched); break;
	case COL_COALESCED: int_or_none(v, m->known && m->matched, m->coalesced); break;
	case COL_UNMATCHED_REASON:
		v->s = m->known && !m->matched ? ipt_unmatched_reason_name(m->unmatched) : NULL;
		if (v->s) {
			v->kind = IPT_VAL_STR;
			v->slen = strlen(v->s);
		}
		break;
	case COL_STACK: {
		const struct ipt_mtable *mt = x->f->table;
		size_t k = m->stack ? (size_t)(m->stack - mt->rep->tstk) : 0;

		if (m->stack && k < mt->nstack && mt->stack[k]) {
			v->kind = IPT_VAL_STR;
			v->s = mt->stack[k];
			v->slen = strlen(v->s);
		}
		break;
	}
	default: break;
	}
}

struct resolve_ctx {
	bool *uses_id;
	bool matched;
};

static int resolve(void *ctx, const char *name)
{
	struct resolve_ctx *rc = ctx;
	int col = ipt_row_resolve_all(NULL, name);

	if (col == COL_ID && rc->uses_id)
		*rc->uses_id = true;
	if (col >= COL__COUNT)
		rc->matched = true;
	return col;
}

int ipt_mfilter_names_matching(const char *expr)
{
	struct resolve_ctx rc = { NULL, false };
	struct ipt_filter *f = ipt_row_filter_parse(expr, resolve, &rc);

	if (!f)
		return -1;
	ipt_filter_free(f);
	return rc.matched;
}

struct ipt_mfilter *ipt_mfilter_new(const char *expr, const struct ipt_mtable *table, bool *uses_id)
{
	struct ipt_mfilter *f = ipt_calloc(1, sizeof(*f));
	struct resolve_ctx rc = { uses_id, false };

	if (!f)
		return NULL;
	if (!(f->f = ipt_row_filter_parse(expr, resolve, &rc)))
		goto fail;
	f->matched = rc.matched;
	if (!f->matched)
		return f;
	if (!table) {
		ipt_err("filter: the columns from matching need a first pass (internal)");
		goto fail;
	}
	f->table = table;
	if (!(f->ord = ipt_calloc(IPT_CPUSET_MAX, sizeof(*f->ord))))
		goto fail;
	return f;
fail:
	ipt_mfilter_free(f);
	return NULL;
}

int ipt_mfilter_eval(struct ipt_mfilter *f, const struct ipt_ipi_row *row)
{
	struct mrow x = { f, row, 0, false, { 0 } };

	if (!f->matched)
		return ipt_filter_eval(f->f, ipt_row_lookup, (void *)row);
	if (row->src_cpu >= 0 && row->src_cpu < IPT_CPUSET_MAX)
		x.ord = f->ord[row->src_cpu]++;
	else
		x.fetched = true;	/* no place: the columns from matching are unknown */
	return ipt_filter_eval(f->f, mrow_lookup, &x);
}

int ipt_mfilter_eval_unplaced(struct ipt_mfilter *f, const struct ipt_ipi_row *row)
{
	struct mrow x = { f, row, 0, true, { 0 } };	/* fetched: nothing */

	return ipt_filter_eval(f->f, f->matched ? mrow_lookup : ipt_row_lookup,
			       f->matched ? (void *)&x : (void *)row);
}

void ipt_mfilter_free(struct ipt_mfilter *f)
{
	if (!f)
		return;
	ipt_filter_free(f->f);
	free(f->ord);
	free(f);
}
