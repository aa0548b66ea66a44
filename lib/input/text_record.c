// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * text_record.c - the records of a text trace into ring-buffer pages:
 * __data_loc data appended to the record being built, and each finished
 * record written by its CPU's page writer (one per buffer and CPU)
 */
#include "input/text.h"

#include <stdio.h>
#include <stdlib.h>

/* ipt_text_put_dyn - append data for a __data_loc field (cut to fit a page) */
int ipt_text_put_dyn(struct tx *x, const struct ipt_field *f, const void *d, uint32_t n, bool str)
{
	uint32_t room = MAX_PAYLOAD > x->rlen ? MAX_PAYLOAD - x->rlen : 0;
	uint32_t off = x->rlen;

	if (str) {
		if (room == 0)
			return 0;
		if (n + 1 > room)
			n = room - 1;
	} else if (n > room) {
		n = room & ~7u;
	}
	if (rec_reserve(x, x->rlen + n + 1))
		return -1;
	if (n)
		memcpy(x->rec + off, d, n);
	if (str)
		x->rec[off + n++] = 0;
	x->rlen += n;
	ipt_put_uint(x->rec + f->offset, 4, false, (uint64_t)n << 16 | off);
	return 0;
}

struct cpuw *ipt_text_cpu_writer(struct tx *x, int cpu)
{
	if (IPT_GROW_ZERO(x->cw, x->ncw, (size_t)cpu + 1))
		return NULL;
	if (!x->cw[cpu]) {
		struct cpuw *w = ipt_calloc(1, sizeof(*w));

		if (!w)
			return NULL;
		if (ipt_page_writer_init(&w->pw, &x->t->layout, false)) {
			free(w);
			return NULL;
		}
		x->cw[cpu] = w;
		/* a tracefs text whose header says fewer entries are in the
		 * buffer than were written: the oldest were overwritten, on CPUs
		 * it does not say; each CPU's first record may follow a loss */
		if (x->t->entries_written > x->t->entries_in_buffer && x->t->entries_in_buffer >= 0 &&
		    ipt_page_writer_mark_missed(&w->pw, 0))
			return NULL;
	}
	return x->cw[cpu];
}

/* ipt_text_emit - the record in x->rec goes to its CPU's pages */
int ipt_text_emit(struct tx *x, int cpu, uint64_t ts)
{
	struct cpuw *w = ipt_text_cpu_writer(x, cpu);

	if (!w)
		return -1;
	if (w->used && ts < w->last_ts) {
		ts = w->last_ts;	/* pasted text out of order: keep the page valid */
		x->raised++;
	}
	if (ipt_page_writer_add(&w->pw, ts, x->rec, x->rlen)) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", ipt_errmsg());
		return ipt_err_at(x->t->path, x->line_off, "%s", msg);
	}
	w->last_ts = ts;
	w->used = true;
	x->nevents++;
	return 0;
}
