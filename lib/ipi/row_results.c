// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * row_results.c - what matching found for each counted row: the results
 * as the pass writes them, and as convert and the Python module read them
 * row by row (ipt_report_row_match, row_results.h)
 */
#include "ipi/report_views.h"

#include <stdlib.h>
#include <string.h>

/* ---- written while the pass runs ---- */

/* results in memory behind the last written or read, in a file (1 MiB) */
#define RES_REST_EVERY ((1u << 20) / sizeof(struct rpt_result))

/* row_bit - one more counted row, with a result in v or not */
static int row_bit(struct ipt_rowres *rs, bool has)
{
	size_t w = rs->nrows / 64;

	if (w >= rs->capkept) {
		/* a bit a row: in a file past IPT_SPILL_FILE_FROM (8 M rows) */
		rs->keptm.what = "row results";
		if (ipt_spill_reserve(&rs->keptm, (w + 1) * sizeof(*rs->kept)))
			return -1;
		rs->kept = (uint64_t *)rs->keptm.p;
		rs->capkept = w + 1;
		rs->kept[w] = 0;
		if (w % RES_REST_EVERY == 0)
			ipt_spill_rest(&rs->keptm, 0, w * sizeof(*rs->kept));
	}
	if (has)
		rs->kept[w] |= 1ull << (rs->nrows % 64);
	rs->nrows++;
	return 0;
}

int ipt_rowres_implicit(struct ipt_rowres *rs, int target)
{
	(void)target;	/* the reader checks it against nostream */
	return row_bit(rs, false);
}

/* a rank per this many words of kept (512 rows): 1/8 bit a row, not 1 */
#define RANK_WORDS 8

/* kept_before - the results before counted row ord (< nrows; ranked) */
static size_t kept_before(const struct ipt_rowres *rs, size_t ord)
{
	size_t w = ord / 64, n = rs->rank[w / RANK_WORDS];

	for (size_t k = w - w % RANK_WORDS; k < w; k++)
		n += (size_t)ipt_popcount64(rs->kept[k]);
	return n + (size_t)ipt_popcount64(rs->kept[w] & ((1ull << (ord % 64)) - 1));
}

bool ipt_rowres_index(const struct ipt_rowres *rs, size_t ord, size_t *idx)
{
	if (ord >= rs->nrows || !(rs->kept[ord / 64] & (1ull << (ord % 64))) || !rs->rank)
		return false;
	*idx = kept_before(rs, ord);
	return true;
}

/* ipt_rowres_add - a counted row's result, pending until matching decides */
int ipt_rowres_add(struct ipt_rowres *rs, uint64_t id, int target)
{
	if (row_bit(rs, true))
		return -1;
	if (rs->n == rs->cap) {
		/* not ipt_grow: 16 bytes a row, 50 MB for 3 M rows, grown in
		 * huge pages by mremap, never copied, and from
		 * IPT_SPILL_FILE_FROM in a file (ipt_spill) */
		rs->mem.what = "row results";
		if (ipt_spill_reserve(&rs->mem, (rs->n + 1) * sizeof(*rs->v)))
			return -1;
		rs->v = (struct rpt_result *)rs->mem.p;
		rs->cap = rs->mem.cap / sizeof(*rs->v);
	}
	/* the results settled long ago leave memory (a late one comes back) */
	if (rs->n % RES_REST_EVERY == 0) {
		if (rs->n > RES_REST_EVERY)
			ipt_spill_rest(&rs->mem, 0, (rs->n - RES_REST_EVERY) * sizeof(*rs->v));
		ipt_spill_ahead(&rs->mem, rs->n * sizeof(*rs->v), (rs->n + RES_REST_EVERY) * sizeof(*rs->v), true);
	}
	rs->v[rs->n++] = (struct rpt_result){ .id_lo = (uint32_t)id, .hdur = RPT_HDUR_UNKNOWN,
					      .target = (uint16_t)target };
	return 0;
}

/* ipt_rowres_set_stack - result i's stack (the ids kept beside the results from the first one) */
int ipt_rowres_set_stack(struct ipt_rowres *rs, int64_t i, uint32_t sid)
{
	size_t n = (size_t)i + 1;

	if (n > rs->capstack) {
		/* 4 bytes a result up to the last with a stack: a file past
		 * IPT_SPILL_FILE_FROM; those behind the writer leave memory */
		rs->stackm.what = "row results";
		if (ipt_spill_reserve(&rs->stackm, n * sizeof(*rs->stack)))
			return -1;
		rs->stack = (uint32_t *)rs->stackm.p;
		memset(rs->stack + rs->capstack, 0, (n - rs->capstack) * sizeof(*rs->stack));
		if (rs->capstack / RES_REST_EVERY != n / RES_REST_EVERY && n > RES_REST_EVERY)
			ipt_spill_rest(&rs->stackm, 0, (n - RES_REST_EVERY) * sizeof(*rs->stack));
		rs->capstack = n;
	}
	rs->stack[i] = sid;
	return 0;
}

void ipt_rowres_unmatched(struct ipt_rowres *rs, int64_t i, enum rpt_res_state why)
{
	rs->v[i].state = (uint8_t)why;
}

/* wide_add - result i's value v that does not fit it */
static int wide_add(struct rpt_wides *w, int64_t i, uint64_t v)
{
	if (IPT_GROW(w->v, w->cap, w->n + 1))
		return -1;
	w->v[w->n] = (struct rpt_wide){ (uint64_t)i, v, w->n };
	w->n++;
	return 0;
}

/* ipt_rowres_set_hdur - result i's handler time (ns); one of 4.29 s or more goes to hlong */
int ipt_rowres_set_hdur(struct ipt_rowres *rs, int64_t i, uint64_t ns)
{
	if (ns < RPT_HDUR_LONG) {
		rs->v[i].hdur = (uint32_t)ns;
		return 0;
	}
	rs->v[i].hdur = RPT_HDUR_LONG;
	return wide_add(&rs->hlong, i, ns);
}

/* ipt_rowres_matched - result i matched; its handler entry hts, of the send
 * at ts: beside it in ns, or in hwide */
int ipt_rowres_matched(struct ipt_rowres *rs, int64_t i, bool coalesced, uint64_t ts, uint64_t hts)
{
	int64_t d = (int64_t)(hts - ts);

	rs->v[i].state = RES_MATCHED;
	rs->v[i].coalesced = coalesced;
	if (d > RPT_HDELTA_WIDE && d <= INT32_MAX) {
		rs->v[i].hdelta = (int32_t)d;
		return 0;
	}
	rs->v[i].hdelta = RPT_HDELTA_WIDE;
	return wide_add(&rs->hwide, i, hts);
}

/* wide_cmp - by result, then in the order they were set */
static int wide_cmp(const void *pa, const void *pb)
{
	const struct rpt_wide *a = pa, *b = pb;

	if (a->res != b->res)
		return a->res < b->res ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int ipt_rowres_end(struct ipt_rowres *rs)
{
	size_t nw = (rs->nrows + 63) / 64, sum = 0;

	rs->rank = ipt_malloc((nw / RANK_WORDS + 1) * sizeof(*rs->rank));
	if (!rs->rank)
		return -1;
	for (size_t w = 0; w < nw; w++) {
		if (w % RANK_WORDS == 0)
			rs->rank[w / RANK_WORDS] = sum;
		sum += (size_t)ipt_popcount64(rs->kept[w]);
		if ((w + 1) % RES_REST_EVERY == 0)	/* read once here: out of memory after */
			ipt_spill_rest(&rs->keptm, 0, (w + 1) * sizeof(*rs->kept));
	}
	if (rs->hlong.n > 1)
		qsort(rs->hlong.v, rs->hlong.n, sizeof(*rs->hlong.v), wide_cmp);
	if (rs->hwide.n > 1)
		qsort(rs->hwide.v, rs->hwide.n, sizeof(*rs->hwide.v), wide_cmp);
	return 0;
}

void ipt_rowres_free(struct ipt_rowres *rs)
{
	ipt_spill_free(&rs->mem);
	ipt_spill_free(&rs->stackm);
	free(rs->hlong.v);
	free(rs->hwide.v);
	ipt_spill_free(&rs->keptm);
	free(rs->rank);
	free(rs->nostream);
	memset(rs, 0, sizeof(*rs));
}

/* ---- read row by row, once the report is finished ---- */

const char *ipt_unmatched_reason_name(enum ipt_unmatched_reason why)
{
	static const char *const names[] = {
		[IPT_UNMATCHED_TRACE_ENDED] = "trace_ended",
		[IPT_UNMATCHED_NO_RECEIVE_EVENTS] = "no_receive_events",
		[IPT_UNMATCHED_LOST_EVENTS] = "lost_events",
		[IPT_UNMATCHED_NO_HANDLER] = "no_handler",
	};

	return why > IPT_UNMATCHED_NONE && why <= IPT_UNMATCHED_NO_HANDLER ? names[why] : NULL;
}

/* wide_find - the value of result i kept in w (sorted: the last set) */
static uint64_t wide_find(const struct rpt_wides *w, size_t i)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->v[mid].res <= i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && w->v[lo - 1].res == i ? w->v[lo - 1].v : 0;
}

/* nostream_has - whether cpu recorded nothing (its rows' results are implicit) */
static bool nostream_has(const struct ipt_rowres *rs, int cpu)
{
	return cpu >= 0 && (size_t)cpu / 64 < rs->nnostream && (rs->nostream[cpu / 64] >> (cpu % 64) & 1);
}

/* results_before - how many of the counted rows before ord have a result in v */
static size_t results_before(const struct ipt_rowres *rs, size_t ord)
{
	if (ord >= rs->nrows || !rs->rank)
		return rs->n;
	return kept_before(rs, ord);
}

/* ipt_rpt_result_at - the result of counted row ord for row, into m
 * (zeroed) when it is that row's; false when the row is not the one the
 * report counted there (its id, if check_id, or its target CPU differ;
 * a row without a result of its own: its target must have recorded
 * nothing) */
bool ipt_rpt_result_at(const struct ipt_report *rep, size_t ord, const struct ipt_ipi_row *row, bool check_id,
		       struct ipt_row_match *m)
{
	const struct rpt *r = &rep->r;
	const struct rpt_result *res;
	size_t i;

	if (!ipt_rowres_index(&r->res, ord, &i)) {
		if (ord >= r->res.nrows || !nostream_has(&r->res, row->target_cpu))
			return false;
		m->known = true;	/* implicit: no handler could be seen there */
		m->unmatched = IPT_UNMATCHED_NO_RECEIVE_EVENTS;
		return true;
	}
	res = &r->res.v[i];
	if ((check_id && res->id_lo != (uint32_t)row->id) || res->target != row->target_cpu)
		return false;	/* a row the report did not count */
	if (res->state == RES_PENDING)
		return true;	/* not known (or given back: zeros) */
	m->known = true;
	m->matched = res->state == RES_MATCHED;
	m->coalesced = m->matched && res->coalesced;
	switch (res->state) {
	case RES_TRACE_ENDED: m->unmatched = IPT_UNMATCHED_TRACE_ENDED; break;
	case RES_NO_RECEIVE_EVENTS: m->unmatched = IPT_UNMATCHED_NO_RECEIVE_EVENTS; break;
	case RES_LOST_EVENTS: m->unmatched = IPT_UNMATCHED_LOST_EVENTS; break;
	case RES_NO_HANDLER: m->unmatched = IPT_UNMATCHED_NO_HANDLER; break;
	default: break;
	}
	if (m->matched && rep->ns) {
		uint64_t hts = res->hdelta == RPT_HDELTA_WIDE ? wide_find(&r->res.hwide, i)
							      : row->ts + (uint64_t)(int64_t)res->hdelta;

		m->has_handler_ts = true;
		m->handler_ts_ns = hts;
		if (row->src_cpu == row->target_cpu || r->cross_ok) {
			m->has_latency = true;
			m->latency_ns = hts >= row->ts ? hts - row->ts : 0;
		}
	}
	if (m->matched && rep->ns && res->hdur != RPT_HDUR_UNKNOWN) {
		m->has_handler = true;
		m->handler_ns = res->hdur;
		if (res->hdur == RPT_HDUR_LONG)
			m->handler_ns = wide_find(&r->res.hlong, i);
	}
	if (ipt_rowres_stack(&r->res, i) && rep->tmap)
		m->stack = &rep->tstk[rep->tmap[ipt_rowres_stack(&r->res, i)]];
	return true;
}

static int need_row_results(const struct ipt_report *rep)
{
	if (rep->r.opts.row_results)
		return 0;
	ipt_err_code(IPT_ERR_INVALID, "report: row results were not kept (row_results)");
	return -1;
}

int ipt_report_row_match(struct ipt_report *rep, const struct ipt_ipi_row *row, struct ipt_row_match *m)
{
	memset(m, 0, sizeof(*m));
	if (need_row_results(rep))
		return -1;
	if (rep->rcur < rep->r.res.nrows && ipt_rpt_result_at(rep, rep->rcur, row, true, m) &&
	    ++rep->rcur % RES_REST_EVERY == 0) {
		struct ipt_rowres *rs = &rep->r.res;

		size_t at = results_before(rs, rep->rcur);

		/* read in order: those before leave memory (kept in a file) */
		ipt_spill_rest(&rs->mem, 0, at * sizeof(*rs->v));
		ipt_spill_ahead(&rs->mem, at * sizeof(*rs->v), (at + RES_REST_EVERY) * sizeof(*rs->v), false);
		ipt_spill_rest(&rs->stackm, 0, (at < rs->capstack ? at : rs->capstack) * sizeof(*rs->stack));
		ipt_spill_rest(&rs->keptm, 0, (rep->rcur / 64 / RANK_WORDS * RANK_WORDS) * sizeof(*rs->kept));
	}
	return 0;
}

int ipt_report_row_match_nth(const struct ipt_report *rep, size_t i, const struct ipt_ipi_row *row,
			     struct ipt_row_match *m)
{
	memset(m, 0, sizeof(*m));
	if (need_row_results(rep))
		return -1;
	if (i < rep->r.res.nrows)
		ipt_rpt_result_at(rep, i, row, true, m);
	return 0;
}

void ipt_report_row_results_drop(struct ipt_report *rep, size_t lo, size_t hi)
{
	struct ipt_rowres *rs = &rep->r.res;

	lo = results_before(rs, lo);	/* counted rows -> their results */
	hi = results_before(rs, hi);
	if (lo < hi && rs->mem.in_file)
		ipt_spill_rest(&rs->mem, lo * sizeof(*rs->v), hi * sizeof(*rs->v));
	else if (lo < hi)
		ipt_soon_discard(rs->v, rs->cap * sizeof(*rs->v), lo * sizeof(*rs->v), hi * sizeof(*rs->v));
}
