// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rows_iter.c - the public iterator over IPI rows (ipt_ipi_iter_*): the
 * decoder's rows (ipi.c) in time order, through the row filter (which may
 * name what matching found: ipi/matchfilter.h), decoded in one thread or
 * in lanes of CPUs merged in time order (input/lanes.h), or given back
 * by a report that kept them (ipi/keptrows.h)
 */
#include "ipi/ipi.h"
#include "ipi/keptrows.h"
#include "ipi/matchfilter.h"
#include "ipi/report_views.h"
#include "input/lanes.h"

#include <stdlib.h>

/* ---- the public iterator ---- */

/* an item of a lane (ipt_ipi_iter_set_threads): a row, or a send event
 * that gave no row (it still takes a number) */
struct lane_row {
	struct ipt_lane_key k;
	bool marker;
	uint64_t seq;			/* the lane decoder's send number */
	struct ipt_ipi_row row;
};

struct ipt_ipi_iter {
	struct ipt_trace *t;
	struct ipt_iter *it;
	struct ipt_ipi_decoder *d;
	struct ipt_mfilter *filter;
	struct ipt_mtable *mtab;	/* the filter's first pass, when made here */
	bool filter_uses_id;		/* ids are the merged order's: no lanes */
	struct ipt_ipi_row *rows;	/* rows of the current send event */
	size_t nrows, caprows, next;
	bool done;
	/* lanes */
	int threads;			/* asked for */
	struct ipt_lanes *lanes;
	int nlanes;
	struct ipt_ipi_decoder *ld[IPT_LANES_MAX];	/* ld[0] = d */
	uint64_t lseq[IPT_LANES_MAX], sends;
	bool lanes_done;
	/* a report's kept rows, read instead of decoding */
	const struct ipt_kept_rows *kept;
	struct ipt_kept_cursor cur;
	struct ipt_ipi_stats kept_stats;
};

/* collect - keep a row of the current event (the row's pointers stay valid
 * until the next record is read) */
static int collect(void *ctx, const struct ipt_ipi_row *row)
{
	struct ipt_ipi_iter *it = ctx;

	if (it->filter && !ipt_mfilter_eval(it->filter, row))
		return 0;
	if (IPT_GROW(it->rows, it->caprows, it->nrows + 1))
		return -1;
	it->rows[it->nrows++] = *row;
	ipt_ipi_decoder_stats(it->d)->rows_out++;
	return 0;
}

struct ipt_ipi_iter *ipt_ipi_iter_new_with(struct ipt_trace *t, const char *filter, const struct ipt_report *rep)
{
	struct ipt_ipi_iter *it = ipt_calloc(1, sizeof(*it));

	if (!it)
		return NULL;
	it->t = t;
	if (rep && ipt_kept_for(rep->r.kept, filter)) {
		/* the report's rows, counted with this filter: read back */
		it->kept = rep->r.kept;
		it->kept_stats = *ipt_ipi_decoder_stats(rep->r.dec);
		it->kept_stats.rows_out = ipt_kept_count(it->kept);
		return it;
	}
	if (filter && *filter) {
		const struct ipt_mtable *table = rep ? rep->mtab : NULL;	/* its first pass */
		int m = ipt_mfilter_names_matching(filter);

		if (m < 0)
			goto fail;
		if (m && !table && !(table = it->mtab = ipt_rpt_match_table(t, false, 0)))
			goto fail;
		it->filter = ipt_mfilter_new(filter, table, &it->filter_uses_id);
		if (!it->filter)
			goto fail;
	}
	it->d = ipt_ipi_decoder_new(t);
	it->it = ipt_iter_new(t, NULL);
	if (!it->d || !it->it)
		goto fail;
	return it;
fail:
	ipt_ipi_iter_free(it);
	return NULL;
}

struct ipt_ipi_iter *ipt_ipi_iter_new(struct ipt_trace *t, const char *filter)
{
	return ipt_ipi_iter_new_with(t, filter, NULL);
}

/* ---- rows decoded by lanes (lanes.h) ---- */

struct lane_ctx {
	/* the producer's own copies: the iterator's lines are the consumer's */
	struct lane_own {
		struct ipt_mfilter *filter;
		struct ipt_ipi_decoder *d;
	} own;
	struct ipt_lanes *l;
	int lane;
	uint64_t rows;
};

static int lane_collect(void *ctx, const struct ipt_ipi_row *row)
{
	struct lane_ctx *c = ctx;
	struct lane_row *lr;

	if (c->own.filter && !ipt_mfilter_eval(c->own.filter, row))
		return 0;
	lr = ipt_lanes_emit(c->l, c->lane);
	if (!lr)
		return -1;
	lr->k.ts = row->ts;
	lr->k.cpu = row->src_cpu;
	lr->marker = false;
	lr->seq = row->id;
	lr->row = *row;
	lr->row.targets = NULL;		/* the decoder's, gone by then */
	ipt_ipi_decoder_stats(c->own.d)->rows_out++;
	c->rows++;
	return 0;
}

/* lane_main - decode the CPUs of one lane into rows and markers */
static int lane_main(struct ipt_lanes *l, int lane, void *arg)
{
	struct ipt_ipi_iter *it = arg;
	struct ipt_ipi_decoder *d = it->ld[lane];
	struct lane_ctx c = { { it->filter, d }, l, lane, 0 };
	struct ipt_iter *ri = ipt_iter_new(it->t, ipt_lanes_cpus(l, lane));
	const struct ipt_record *rec;
	int k = -1, ret = -1;

	if (!ri)
		return -1;
	while ((k = ipt_iter_step(ri, &rec)) > 0) {
		uint64_t sends = ipt_ipi_decoder_stats(d)->send_events, rows = c.rows;

		if (ipt_ipi_decoder_feed(d, rec, lane_collect, &c) < 0) {
			k = -1;
			break;
		}
		if (ipt_ipi_decoder_stats(d)->send_events != sends && c.rows == rows) {
			struct lane_row *lr = ipt_lanes_emit(l, lane);

			if (!lr) {
				k = -1;
				break;
			}
			lr->k.ts = rec->ts;
			lr->k.cpu = rec->cpu;
			lr->marker = true;
			lr->seq = ipt_ipi_decoder_stats(d)->send_events;
		}
	}
	if (k == 0) {
		ipt_ipi_decoder_finish(d);
		ret = 0;
	}
	ipt_iter_free(ri);
	return ret;
}

int ipt_ipi_iter_set_threads(struct ipt_ipi_iter *it, int threads)
{
	it->threads = it->kept ? 1 : ipt_lanes_auto(it->t, threads, IPT_LANES_MIN_BYTES);
	return 0;
}

const struct ipt_kept_rows *ipt_ipi_iter_kept(struct ipt_ipi_iter *it, struct ipt_kept_cursor **cur)
{
	*cur = &it->cur;
	return it->kept;
}

bool ipt_ipi_iter_can_thread(const struct ipt_ipi_iter *it)
{
	return !it->kept && !it->filter_uses_id && !ipt_ipi_decoder_learns_comms(it->d);
}

/* lanes_start - on the first next(): lanes if asked for and possible */
static int lanes_start(struct ipt_ipi_iter *it)
{
	if (it->threads < 2 || !ipt_ipi_iter_can_thread(it))
		return 0;
	it->lanes = ipt_lanes_new(it->t, it->threads, sizeof(struct lane_row), &it->nlanes);
	if (!it->lanes)
		return -1;
	it->ld[0] = it->d;
	for (int i = 1; i < it->nlanes; i++)
		if (!(it->ld[i] = ipt_ipi_decoder_new(it->t)))
			return -1;
	return ipt_lanes_start(it->lanes, lane_main, it);
}

/* lanes_next - the next row in merged order, numbered as one decoder would */
static int lanes_next(struct ipt_ipi_iter *it, struct ipt_ipi_row *row)
{
	struct lane_row *lr;
	int lane;

	while ((lr = ipt_lanes_next(it->lanes, &lane))) {
		if (lr->seq != it->lseq[lane]) {
			it->lseq[lane] = lr->seq;
			it->sends++;
		}
		if (lr->marker)
			continue;
		*row = lr->row;
		row->id = it->sends;
		return 1;
	}
	if (!it->lanes_done) {
		struct ipt_ipi_stats *st = ipt_ipi_decoder_stats(it->d);

		it->lanes_done = true;
		if (ipt_lanes_join(it->lanes))
			return -1;
		for (int i = 1; i < it->nlanes; i++)
			ipt_ipi_stats_add(st, ipt_ipi_decoder_stats(it->ld[i]));
	}
	return 0;
}

int ipt_ipi_next(struct ipt_ipi_iter *it, struct ipt_ipi_row *row)
{
	struct ipt_record rec;
	int r;

	if (it->kept)
		return ipt_kept_next(it->kept, &it->cur, row);
	if (it->threads > 1 && !it->lanes) {
		if (lanes_start(it))
			return -1;
		if (!it->lanes)
			it->threads = 1;	/* not possible here: one thread */
	}
	if (it->lanes)
		return lanes_next(it, row);

	while (it->next >= it->nrows) {
		if (it->done)
			return 0;
		it->nrows = it->next = 0;
		r = ipt_iter_next(it->it, &rec);
		if (r < 0)
			return -1;
		if (r == 0) {
			ipt_ipi_decoder_finish(it->d);
			it->done = true;
			return 0;
		}
		if (ipt_ipi_decoder_feed(it->d, &rec, collect, it) < 0)
			return -1;
	}
	*row = it->rows[it->next++];
	return 1;
}

const struct ipt_ipi_stats *ipt_ipi_iter_stats(const struct ipt_ipi_iter *it)
{
	if (it->kept)
		return &it->kept_stats;
	return ipt_ipi_decoder_stats(it->d);
}

void ipt_ipi_iter_free(struct ipt_ipi_iter *it)
{
	if (!it)
		return;
	ipt_lanes_free(it->lanes, NULL);
	for (int i = 1; i < IPT_LANES_MAX; i++)
		ipt_ipi_decoder_free(it->ld[i]);
	ipt_iter_free(it->it);
	ipt_ipi_decoder_free(it->d);
	ipt_mfilter_free(it->filter);
	ipt_rpt_match_table_free(it->mtab);
	ipt_kept_cursor_free(&it->cur);
	free(it->rows);
	free(it);
}
