// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * recrows.c - the IPI rows of each record, for a caller that walks the
 * records itself
 *
 * `report --format uniq` counts `trace-cmd report` lines, one per record,
 * and with a row filter keeps a line when the filter keeps a row of its
 * record.  The rows are the IPI iterator's (the same decoder, fed every
 * record in the same order, so that a send's func and kind come from the
 * csd_queue_cpu before it); a csd_queue_cpu record, which makes no row of
 * its own, is given one here: to its cpu, from the CPU that recorded it.
 */
#include "ipi/ipi.h"
#include "ipi/catalogue.h"
#include "ipi/matchfilter.h"
#include "ipi/report_views.h"
#include "filter/filter.h"

#include <stdlib.h>

/* per event id: a csd queue event's fields */
struct queue_event {
	const struct ipt_field *cpu, *callsite, *func;
	bool is_queue;
};

struct ipt_rec_rows {
	struct ipt_trace *t;
	struct ipt_ipi_decoder *d;
	struct ipt_mfilter *filter;	/* may name columns from matching: */
	struct ipt_mtable *mtab;	/* ... its first pass */
	struct queue_event *by_id;
	int nids;
	struct ipt_cpuset one;		/* a queued call's target */
	uint32_t rows, kept;		/* of the record being fed */
};

void ipt_rec_rows_free(struct ipt_rec_rows *rr)
{
	if (!rr)
		return;
	ipt_ipi_decoder_free(rr->d);
	ipt_mfilter_free(rr->filter);
	ipt_rpt_match_table_free(rr->mtab);
	ipt_cpuset_free(&rr->one);
	free(rr->by_id);
	free(rr);
}

struct ipt_rec_rows *ipt_rec_rows_new(struct ipt_trace *t, const char *filter)
{
	struct ipt_rec_rows *rr = ipt_calloc(1, sizeof(*rr));

	if (!rr)
		return NULL;
	rr->t = t;
	ipt_cpuset_init(&rr->one);
	if (filter && *filter) {
		int m = ipt_mfilter_names_matching(filter);

		if (m < 0 || (m && !(rr->mtab = ipt_rpt_match_table(t, false, 0))) ||
		    !(rr->filter = ipt_mfilter_new(filter, rr->mtab, NULL)))
			goto fail;
	}
	rr->d = ipt_ipi_decoder_new(t);
	if (!rr->d)
		goto fail;
	for (int i = 0; i < ipt_trace_nevents(t); i++)
		if (ipt_event_id(ipt_trace_event_at(t, i)) >= rr->nids)
			rr->nids = ipt_event_id(ipt_trace_event_at(t, i)) + 1;
	rr->by_id = ipt_calloc((size_t)rr->nids + 1, sizeof(*rr->by_id));
	if (!rr->by_id)
		goto fail;
	for (int i = 0; i < ipt_trace_nevents(t); i++) {
		const struct ipt_event *ev = ipt_trace_event_at(t, i);
		const struct ipt_ipi_event_info *info = ipt_ipi_event_info_of(ev);
		struct queue_event *q;

		if (!info || info->role != IPT_ROLE_QUEUE || ipt_event_id(ev) < 0 || !info->target)
			continue;
		q = &rr->by_id[ipt_event_id(ev)];
		q->cpu = ipt_event_field(ev, info->target);
		q->callsite = ipt_event_field(ev, "callsite");
		q->func = ipt_event_field(ev, "func");
		q->is_queue = q->cpu != NULL;
	}
	return rr;
fail:
	ipt_rec_rows_free(rr);
	return NULL;
}

/* count_row - a row of the send being fed: counted, and kept if the filter says so */
static int count_row(void *ctx, const struct ipt_ipi_row *row)
{
	struct ipt_rec_rows *rr = ctx;

	rr->rows++;
	if (!rr->filter || ipt_mfilter_eval(rr->filter, row))
		rr->kept++;
	return 0;
}

static uint64_t field_or_0(const struct ipt_trace *t, const struct ipt_record *rec, const struct ipt_field *f)
{
	uint64_t v = 0;

	if (!f || ipt_field_u64(t, rec, f, &v))
		return 0;
	return v;
}

/* queue_row - the row a queued csd call stands for, through the filter */
static void queue_row(struct ipt_rec_rows *rr, const struct queue_event *q, const struct ipt_record *rec)
{
	struct ipt_ipi_row row;
	uint64_t cpu = field_or_0(rr->t, rec, q->cpu);

	memset(&row, 0, sizeof(row));
	row.ts = rec->ts;
	row.src_cpu = rec->cpu;
	row.target_cpu = cpu < IPT_CPUSET_MAX ? (int32_t)cpu : -1;
	row.pid = ipt_record_pid(rr->t, rec);
	row.comm = ipt_trace_comm(rr->t, row.pid);
	row.event = ipt_event_name(rec->event);
	row.callsite = field_or_0(rr->t, rec, q->callsite);
	row.callsite_sym = row.callsite ? ipt_trace_symbol(rr->t, row.callsite, &row.callsite_off) : NULL;
	row.func = field_or_0(rr->t, rec, q->func);
	row.func_sym = row.func ? ipt_trace_symbol(rr->t, row.func, NULL) : NULL;
	ipt_cpuset_clear(&rr->one);
	if (row.target_cpu >= 0)
		ipt_cpuset_add(&rr->one, (unsigned int)row.target_cpu);
	row.targets = &rr->one;
	row.ntargets = row.target_cpu >= 0;
	row.kind = ipt_ipi_classify(&row);
	rr->rows = 1;
	rr->kept = !rr->filter || ipt_mfilter_eval_unplaced(rr->filter, &row);
}

int ipt_rec_rows_feed(struct ipt_rec_rows *rr, const struct ipt_record *rec, struct ipt_rec_rows_out *out)
{
	uint64_t sends = ipt_ipi_decoder_stats(rr->d)->send_events;
	int id = rec->event ? ipt_event_id(rec->event) : -1;

	rr->rows = rr->kept = 0;
	if (ipt_ipi_decoder_feed(rr->d, rec, count_row, rr))
		return -1;
	out->role = IPT_REC_OTHER;
	if (ipt_ipi_decoder_stats(rr->d)->send_events != sends) {
		out->role = IPT_REC_SEND;
	} else if (id >= 0 && id < rr->nids && rr->by_id[id].is_queue) {
		out->role = IPT_REC_QUEUE;
		queue_row(rr, &rr->by_id[id], rec);
	}
	out->rows = rr->rows;
	out->kept = rr->kept;
	return 0;
}
