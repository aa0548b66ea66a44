// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * join.c - the join of rows() in one pass: the report's row results into
 * the matching columns, row k from counted row k, by up to 4 threads
 * with shares of their own, each faulting in its window of those columns
 * and giving the results of the window back after; the stacks, whose
 * category grows as it goes, by the calling thread after.
 */
#include "ext.h"

#include <unistd.h>

/* the row of index k into row, as the join needs it (the columns it
 * reads; the other fields stay as they are: zeroed once, not a whole
 * 136-byte row zeroed for each of millions) */
static void join_row(const struct rows *r, size_t k, struct ipt_ipi_row *row)
{
	row->ts = (uint64_t)((int64_t *)r->c[C_TS].data)[k];
	row->id = (uint64_t)((int64_t *)r->c[C_ID].data)[k];
	row->src_cpu = ((int32_t *)r->c[C_SRC].data)[k];
	row->target_cpu = ((int32_t *)r->c[C_TGT].data)[k];
}

/* one thread's share of the join: rows [lo, hi), all but the stacks */
struct join_part {
	struct rows *r;
	struct ipt_report *rep;
	size_t lo, hi;
	bool stacks, failed;
	pthread_t th;
};

/*
 * The join goes JOIN_DROP rows at a time: the matching columns' pages for
 * them asked for at once (the pass's thread ahead left them: the results
 * and those columns were never held together), then the results of those
 * rows given back, the columns being twice their size: the peak memory
 * stays near the frame's size.  Not the results of rows with a stack,
 * which the stack pass after reads again.  128k rows is 2 MiB of results,
 * a huge page, and the threads' shares start at a multiple of it: each
 * window given back is whole huge pages, which the kernel hands straight
 * to the next window's columns, instead of split pages while the columns
 * take fresh ones (on a VM the host zeroes memory given back to it again,
 * at a cost by the byte).
 */
#define JOIN_DROP (1u << 17)

static void *join_part_run(void *arg)
{
	struct join_part *jp = arg;
	struct rows *r = jp->r;
	size_t from = jp->lo;		/* rows since the last drop */
	bool stack_since = false;	/* ... one of which has a stack */
	struct ipt_ipi_row row = { 0 };

	for (size_t k = jp->lo; k < jp->hi; k++) {
		struct ipt_row_match m;

		join_row(r, k, &row);
		if (k == from)
			ahead_populate(r, from, k + JOIN_DROP < jp->hi ? k + JOIN_DROP : jp->hi, true);
		if (ipt_report_row_match_nth(jp->rep, k, &row, &m)) {
			jp->failed = true;
			break;
		}
		put_match_values(r, k, m.known ? &m : NULL);
		if (m.stack)
			jp->stacks = stack_since = true;
		else if (r->c[C_STACK].on)
			((int8_t *)r->c[C_STACK].data)[k] = -1;	/* 1-byte codes until a stack */
		if (k + 1 - from >= JOIN_DROP || k + 1 == jp->hi) {
			if (!stack_since)
				ipt_report_row_results_drop(jp->rep, from, k + 1);
			from = k + 1;
			stack_since = false;
		}
	}
	return NULL;
}

/* join_threads - how many threads share the join of n rows */
static int join_threads(const struct rows *r)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = r->n / (1u << 18);	/* a thread for each 256k rows */

	if (r->threads == 1 || cpus < 2 || n < 2)
		return 1;
	if (n > (size_t)cpus)
		n = (size_t)cpus;
	return n > 4 ? 4 : (int)n;
}

/*
 * join_matches - the report's row results into the matching columns, row
 * k from counted row k (the rows came from the report's own pass), in
 * parallel: the results are only read, and each thread writes its own
 * rows.  The stacks' category grows as it goes, so it is filled after, by
 * this thread, if there are any.  -1 library error (r->err), -2 out of
 * memory.
 */
int join_matches(struct rows *r, struct ipt_report *rep)
{
	struct join_part parts[4];
	struct ipt_ipi_row row = { 0 };
	int nt = join_threads(r), started = 0;
	bool stacks = false, failed = false;

	for (int i = 0; i < nt; i++) {
		/* shares from a multiple of JOIN_DROP rows (see there) */
		parts[i] = (struct join_part){
			.r = r, .rep = rep,
			.lo = r->n * (size_t)i / (size_t)nt / JOIN_DROP * JOIN_DROP,
			.hi = r->n * (size_t)(i + 1) / (size_t)nt / JOIN_DROP * JOIN_DROP,
		};
		if (i == nt - 1 || pthread_create(&parts[i].th, NULL, join_part_run, &parts[i]))
			break;
		started++;
	}
	/* this thread takes what no thread was started for */
	parts[started].hi = r->n;
	join_part_run(&parts[started]);
	for (int i = 0; i <= started; i++) {
		if (i < started)
			pthread_join(parts[i].th, NULL);
		stacks |= parts[i].stacks;
		failed |= parts[i].failed;
	}
	if (failed) {
		rows_set_err(r);
		return -1;
	}
	for (size_t k = 0; stacks && r->c[C_STACK].on && k < r->n; k++) {
		struct ipt_row_match m;

		join_row(r, k, &row);
		if (ipt_report_row_match_nth(rep, k, &row, &m)) {
			rows_set_err(r);
			return -1;
		}
		if (put_stack(r, k, m.stack))
			return -2;
	}
	return 0;
}
