// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fill.c - the rows of a trace into the columns of rows(), with the GIL
 * released: opening the trace and its iterator, one row into the
 * buffers (put_row, the per-row loop), and the two ways rows come: in
 * chunks from the iterator (the report, if any, run first), or all at
 * once from the report's own pass (its on_row callback), whose row
 * results the join (join.c) then puts in the matching columns.
 */
#include "ext.h"

#include <stdio.h>

/* iter_threads - the iterator decodes in threads where it may (explode) */
static int iter_threads(struct rows *r)
{
	return r->explode && r->threads != 1 && ipt_ipi_iter_set_threads(r->it, r->threads) ? -1 : 0;
}

/* run_report - the report whose row results fill the matching columns:
 * the counts and the row results, not the report's tables; the counted
 * rows handed to on_row too if given */
static struct ipt_report *run_report(struct rows *r, int (*on_row)(void *, const struct ipt_ipi_row *))
{
	struct ipt_report_opts ro = { .sz = sizeof(ro), .filter = r->filter, .row_results = true,
				      .threads = r->threads, .no_tables = true,
				      .on_row = on_row, .on_row_ctx = on_row ? r : NULL };

	return ipt_report_run(r->t, &ro);
}

/* report_first - the report before the rows (the row count known): for
 * chunks, one thread, or where decoders may not run side by side */
int report_first(struct rows *r)
{
	r->deferred = false;
	r->rep = run_report(r, NULL);
	if (!r->rep)
		return -1;
	/* every counted row comes once (one per send with !explode) */
	r->hint = (size_t)ipt_report_summary(r->rep)->ipis_counted;
	if (!r->explode && !r->filter)
		r->hint = (size_t)ipt_report_summary(r->rep)->send_events;
	return iter_threads(r);
}

/* open the trace and make the iterator; the report (match) now, or with
 * the rows when one next() takes them all (rows_fill_one_pass); GIL released */
int rows_open(struct rows *r, const char *path, int threads, bool match)
{
	r->t = ipt_trace_open(path);
	if (!r->t)
		return -1;
	r->it = ipt_ipi_iter_new(r->t, r->filter);
	if (!r->it)
		return -1;
	r->threads = threads;
	if (match && r->explode) {
		r->deferred = true;	/* one pass for all rows, else report_first */
		return 0;
	}
	if (match)
		return report_first(r);
	return iter_threads(r);
}

/* the matching columns of row k: what pt says (NULL: not known); the
 * stack from m; -1 out of memory */
static int put_match(struct rows *r, size_t k, const struct ipt_row_match *pt, const struct ipt_row_match *m)
{
	put_match_values(r, k, pt);
	return put_stack(r, k, m ? m->stack : NULL);
}

#define SET(i, T, v) do { if (r->c[i].on) ((T *)r->c[i].data)[k] = (v); } while (0)

/* one row into the buffers at index r->n; -1 out of memory */
static int put_row(struct rows *r, const struct ipt_ipi_row *row, const struct ipt_row_match *m)
{
	size_t k = r->n;
	const struct ipt_row_match *pt = m && m->known && (r->explode || row->ntargets == 1) ? m : NULL;
	struct sym_memo *mo = &r->memo;
	int32_t code;

	if (k == r->cap && rows_grow(r))
		return -1;
	SET(C_TS, int64_t, (int64_t)row->ts);
	SET(C_ID, int64_t, (int64_t)row->id);
	SET(C_SRC, int32_t, row->src_cpu);
	if (r->explode) {
		SET(C_TGT, int32_t, row->target_cpu);
	} else if (r->c[C_TGT].on) {
		int64_t *off = r->c[C_TGT].data;

		off[k] = (int64_t)r->ncpus;
		if (row->targets) {
			for (int cpu = ipt_cpuset_next(row->targets, 0); cpu >= 0;
			     cpu = ipt_cpuset_next(row->targets, (unsigned int)cpu + 1))
				if (add_cpu(r, cpu))
					return -1;
		} else if (add_cpu(r, row->target_cpu)) {
			return -1;
		}
		off[k + 1] = (int64_t)r->ncpus;
	}
	SET(C_NT, int32_t, (int32_t)row->ntargets);
	SET(C_PID, int32_t, row->pid);
#define CAT(i, expr) do { if (r->c[i].on) { code = (expr); if (code == -2 || \
		cat_put(r, &r->c[i], k, code)) return -1; } } while (0)
	CAT(C_COMM, cat_str_fixed(&r->c[C_COMM].cat, row->comm));
	CAT(C_EVENT, cat_str_fixed(&r->c[C_EVENT].cat, row->event));
	CAT(C_KIND, (int32_t)row->kind < IPT_KIND__COUNT ? (int32_t)row->kind : -1);
	SET(C_CS, uint64_t, row->callsite);
	SET(C_CB, uint64_t, row->callback);
	SET(C_FUNC, uint64_t, row->func);
	CAT(C_REASON, cat_str_fixed(&r->c[C_REASON].cat, row->reason));
	/* a symbol column's code follows from the address alone */
	if (!mo->ok || mo->callsite != row->callsite || mo->callback != row->callback ||
	    mo->func != row->func) {
		struct sym_memo nm = { row->callsite, row->callback, row->func, -1, -1, -1, -1, -1, true };

#define SYM(i, f, expr) do { if (r->c[i].on && (nm.f = (expr)) == -2) return -1; } while (0)
		SYM(C_CSSYM, cssym, sym_code(&r->c[C_CSSYM].cat, row->callsite, row->callsite_sym,
					     row->callsite_off, true));
		SYM(C_CBSYM, cbsym, sym_code(&r->c[C_CBSYM].cat, row->callback, row->callback_sym, 0,
					     false));
		SYM(C_FUNCSYM, funcsym, sym_code(&r->c[C_FUNCSYM].cat, row->func, row->func_sym, 0,
						 false));
		SYM(C_CSFUNC, csfunc, sym_code(&r->c[C_CSFUNC].cat, row->callsite, row->callsite_sym,
					       0, false));
		SYM(C_FNAME, fname, row->func ? sym_code(&r->c[C_FNAME].cat, row->func, row->func_sym,
							 0, false)
					      : sym_code(&r->c[C_FNAME].cat, row->callback,
							 row->callback_sym, 0, false));
#undef SYM
		*mo = nm;
	}
	CAT(C_CSSYM, mo->cssym);
	CAT(C_CBSYM, mo->cbsym);
	CAT(C_FUNCSYM, mo->funcsym);
	CAT(C_CSFUNC, mo->csfunc);
	CAT(C_FNAME, mo->fname);
#undef CAT
	if (!r->match_later && put_match(r, k, pt, m))
		return -1;
	r->n++;
	return 0;
}

#undef SET

/* decode up to max rows (0: all) into the buffers; GIL released.  0 done or
 * chunk full, -1 library error (r->err), -2 out of memory */
int rows_fill(struct rows *r, size_t max)
{
	struct ipt_ipi_row row;
	struct ipt_row_match m;
	int rc;

	while (!max || r->n < max) {
		rc = ipt_ipi_next(r->it, &row);
		if (rc == 0) {
			/* the row results are no longer needed: memory back now */
			ipt_report_free(r->rep);
			r->rep = NULL;
			r->done = true;
			return 0;
		}
		if (rc < 0)
			goto err;
		/* the report is asked for every row, in the iterator's order */
		if (r->rep && ipt_report_row_match(r->rep, &row, &m))
			goto err;
		if (!r->explode) {
			if (r->have_last && row.id == r->last_id)
				continue;
			r->last_id = row.id;
			r->have_last = true;
		}
		if (put_row(r, &row, r->rep ? &m : NULL))
			return -2;
	}
	return 0;
err:
	rows_set_err(r);
	if (!r->err[0])
		snprintf(r->err, sizeof(r->err), "ipitrace: decode error");
	r->done = true;
	return -1;
}

/* a counted row from the report's pass (rows_fill_one_pass) */
static int take_row(void *ctx, const struct ipt_ipi_row *row)
{
	struct rows *r = ctx;

	if (put_row(r, row, NULL)) {
		r->nomem = true;
		return -1;
	}
	if (r->n >= r->ah.next)
		ahead_ask(r);
	return 0;
}

/*
 * The count is not known before the pass: room for 64k rows to start
 * with, so that the wide columns are mappings of their own from the
 * first row (room not written costs nothing) instead of malloc blocks
 * copied into one at 256 KiB, the copy faulting its pages on this thread.
 */
#define ONE_PASS_ROOM (1u << 16)	/* rows_fill_one_pass's first room, in rows */

/*
 * rows_fill_one_pass - every row at once, from one decoding pass: the
 * report (its threads decoding the CPUs' streams) hands each counted row
 * to take_row in order, and its row results then fill the matching
 * columns.  The join needs ts, id, src_cpu and target_cpu: kept for it
 * if not asked for.  GIL released; as rows_fill returns.
 */
int rows_fill_one_pass(struct rows *r)
{
	static const int join[] = { C_TS, C_ID, C_SRC, C_TGT };
	struct ipt_report *rep;
	int rc;

	r->deferred = false;
	r->done = true;
	for (size_t j = 0; j < sizeof(join) / sizeof(join[0]); j++)
		if (!r->c[join[j]].on)
			r->c[join[j]].on = r->forced[join[j]] = true;
	r->match_later = true;
	r->ah.next = AHEAD_START;
	if (!r->hint)
		r->hint = ONE_PASS_ROOM - 1;
	rep = run_report(r, take_row);
	ahead_stop(r);
	r->match_later = false;
	if (!rep) {
		if (r->nomem)
			return -2;
		rows_set_err(r);
		return -1;
	}
	rc = join_matches(r, rep);
	ipt_report_free(rep);
	return rc;
}
