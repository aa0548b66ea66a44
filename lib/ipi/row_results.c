// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * row_results.c - what matching found for each counted row, as convert
 * and the Python module read it row by row (ipt_report_row_match)
 */
#include "ipi/report_views.h"

#include <string.h>

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

/* row_match_at - result i (in range) for row, into m (zeroed) when it is
 * that row's; false when the row is not the one the report counted there */
static bool row_match_at(const struct ipt_report *rep, size_t i, const struct ipt_ipi_row *row,
			 struct ipt_row_match *m)
{
	const struct rpt *r = &rep->r;
	const struct rpt_result *res = &r->res[i];

	if (res->id_lo != (uint32_t)row->id || res->target != row->target_cpu)
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
		uint64_t hts = res->hdelta == RPT_HDELTA_WIDE ? wide_find(&r->hwide, i)
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
			m->handler_ns = wide_find(&r->hlong, i);
	}
	if (r->res_stack && r->res_stack[i] && rep->tmap)
		m->stack = &rep->tstk[rep->tmap[r->res_stack[i]]];
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
	if (rep->rcur < rep->r.nres && row_match_at(rep, rep->rcur, row, m))
		rep->rcur++;
	return 0;
}

int ipt_report_row_match_nth(const struct ipt_report *rep, size_t i, const struct ipt_ipi_row *row,
			     struct ipt_row_match *m)
{
	memset(m, 0, sizeof(*m));
	if (need_row_results(rep))
		return -1;
	if (i < rep->r.nres)
		row_match_at(rep, i, row, m);
	return 0;
}

void ipt_report_row_results_drop(struct ipt_report *rep, size_t lo, size_t hi)
{
	struct rpt *r = &rep->r;

	if (hi > r->nres)
		hi = r->nres;
	if (lo < hi)
		ipt_soon_discard(r->res, r->capres * sizeof(*r->res), lo * sizeof(*r->res), hi * sizeof(*r->res));
}
