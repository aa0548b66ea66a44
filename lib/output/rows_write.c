// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rows_write.c - every row of an iterator as CSV or JSON lines, formatted
 * by the calling thread and helpers beside it (ipt_rows_write, ipitrace.h)
 *
 * With the report's kept rows (ipi/keptrows.h), a block is a range of row
 * numbers, which the thread that takes it reads with a cursor of its own,
 * matches by number (ipt_report_row_match_nth) and formats: the helpers
 * take the oldest blocks not yet taken, the calling thread too while it
 * waits for the oldest, and it hands the blocks' text to the writer in
 * their order, the same bytes for any number of helpers.  Each thread
 * keeps the text of the stacks it formatted (output/rows.h); their frames'
 * symbols are looked up as the decoding lanes do, from any thread.
 *
 * Else the calling thread reads, matches (the report's cursor moves in the
 * rows' order) and formats every row as it comes: formatting the rows of
 * an iterator beside it (copies, then, since a row is the iterator's only
 * until the next) was measured no faster on 2 CPUs, which the iterator's
 * decoding lanes and the calling thread already share.
 */
#include "core/core.h"
#include "ipi/keptrows.h"
#include "output/rows.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* a block's rows: about 75 KiB of CSV, 8 KiB of kept rows.  Its text is
 * memory touched once and reused: on a VM that shadows page tables a
 * fresh page costs microseconds (2048 rows a block made a small trace's
 * convert 15% slower) */
#define BLOCK_ROWS 256u
#define BLOCK_BYTES (64u << 10)	/* the iterator's rows: text written from this size */
/* helpers from this many kept rows: a thread's start, its stack and its
 * malloc arena are 190 first touches of a page here (busy-stacks.dat's
 * 1,501 rows: 3.3 -> 7.1 ms with one) */
#define HELPED_FROM (32u << 10)
#define MAX_HELPERS 3
/* the results of kept rows written are given back this many rows at a
 * time (2 MiB of results) */
#define DROP_ROWS (1u << 17)

enum block_state { B_FREE, B_FILLED, B_BUSY, B_DONE };

struct block {
	size_t lo, n;			/* its rows: kept rows lo.., or n formatted */
	bool failed;			/* formatting failed: err says why */
	char err[256];
	enum block_state state;
	struct ipt_strbuf text;
};

struct writer {
	const struct ipt_trace *t;
	struct ipt_report *rep;
	enum ipt_row_format fmt;
	bool explode;
	const struct ipt_kept_rows *kept;	/* the rows come from there (NULL: the iterator) */
	size_t dropped, kept_end;	/* kept rows whose results were given back; the last */
	struct block *b;
	unsigned int nb;
	uint64_t first, next;		/* the blocks in use, by number: [first, next) */
	bool quit;
	pthread_mutex_t mu;
	pthread_cond_t work, done;	/* a block to format; a block formatted */
	pthread_t th[MAX_HELPERS];
	int nth;
};

/* format_kept - the text of kept rows lo..lo+n, read with cursor c */
static bool format_kept(const struct writer *w, struct block *b, struct ipt_kept_cursor *c,
			struct ipt_stack_memo *memo)
{
	struct ipt_ipi_row row;
	struct ipt_row_match m;

	c->next = b->lo;
	c->until = b->lo + b->n;
	for (size_t k = b->lo; k < b->lo + b->n; k++) {
		int r = ipt_kept_next(w->kept, c, &row);

		if (r <= 0) {
			if (!r)
				ipt_err("report: its kept rows end before row %zu", k);
			return false;
		}
		if (w->rep && ipt_report_row_match_nth(w->rep, k, &row, &m))
			return false;
		if (ipt_rows_format_match_memo(w->fmt, w->explode, w->t, &row, w->rep ? &m : NULL, memo,
					       &b->text))
			return false;
	}
	return true;
}

/* take - the oldest block filled and not taken, marked busy; NULL for
 * none.  The lock held. */
static struct block *take(struct writer *w)
{
	for (uint64_t s = w->first; s < w->next; s++) {
		struct block *b = &w->b[s % w->nb];

		if (b->state == B_FILLED) {
			b->state = B_BUSY;
			return b;
		}
	}
	return NULL;
}

/* format_taken - format b (taken) without the lock, then mark it done.
 * The lock held on entry and on return. */
static void format_taken(struct writer *w, struct block *b, struct ipt_kept_cursor *c,
			 struct ipt_stack_memo *memo)
{
	bool ok;

	pthread_mutex_unlock(&w->mu);
	ipt_strbuf_reset(&b->text);
	ok = format_kept(w, b, c, memo);
	if (!ok)
		snprintf(b->err, sizeof(b->err), "%s", ipt_errmsg());
	pthread_mutex_lock(&w->mu);
	b->failed = !ok;
	b->state = B_DONE;
	pthread_cond_broadcast(&w->done);
}

static void *helper(void *arg)
{
	struct writer *w = arg;
	struct ipt_kept_cursor c = { 0 };
	struct ipt_stack_memo *memo = ipt_stack_memo_new();	/* (NULL: none) */

	pthread_mutex_lock(&w->mu);
	while (!w->quit) {
		struct block *b = take(w);

		if (b)
			format_taken(w, b, &c, memo);
		else
			pthread_cond_wait(&w->work, &w->mu);
	}
	pthread_mutex_unlock(&w->mu);
	ipt_kept_cursor_free(&c);
	ipt_stack_memo_free(memo);
	return NULL;
}

/* front_done - whether the oldest block in use is formatted */
static bool front_done(struct writer *w)
{
	bool done;

	pthread_mutex_lock(&w->mu);
	done = w->first < w->next && w->b[w->first % w->nb].state == B_DONE;
	pthread_mutex_unlock(&w->mu);
	return done;
}

/* write_oldest - the oldest block's text to the writer, once formatted
 * (formatting what it can meanwhile, with cursor c); the block is free
 * again.  0, -1 (a formatting error), or the writer's nonzero answer. */
static int write_oldest(struct writer *w, const struct ipt_rows_write_opts *o, struct ipt_kept_cursor *c,
			struct ipt_stack_memo *memo)
{
	struct block *b = &w->b[w->first % w->nb];
	int ret = 0;

	pthread_mutex_lock(&w->mu);
	while (b->state != B_DONE) {
		struct block *f = take(w);

		if (f)
			format_taken(w, f, c, memo);
		else
			pthread_cond_wait(&w->done, &w->mu);
	}
	pthread_mutex_unlock(&w->mu);
	if (b->failed)
		ret = ipt_err("%s", b->err);
	else if (b->text.len)
		ret = o->write(o->arg, b->text.buf, b->text.len);
	if (w->kept && w->rep && (b->lo + b->n - w->dropped >= DROP_ROWS || b->lo + b->n == w->kept_end)) {
		/* read once: their memory or file pages back, a few times a run
		 * (each is a TLB flush on every CPU of the process) */
		ipt_report_row_results_drop(w->rep, w->dropped, b->lo + b->n);
		w->dropped = b->lo + b->n;
	}
	pthread_mutex_lock(&w->mu);
	b->state = B_FREE;
	b->n = 0;
	b->failed = false;
	w->first++;
	pthread_mutex_unlock(&w->mu);
	return ret;
}

/* helpers - how many threads format beside the calling one */
static int helpers(int threads)
{
	long online;

	if (threads == 1)
		return 0;
	if (threads > 1)
		return threads - 1 < MAX_HELPERS ? threads - 1 : MAX_HELPERS;
	online = sysconf(_SC_NPROCESSORS_ONLN);
	if (online <= 1)
		return 0;
	return online - 1 < MAX_HELPERS ? (int)online - 1 : MAX_HELPERS;
}

/* fill_rows - the next rows of the iterator, formatted into b.  1 more
 * rows may follow, 0 at the end, -1 on error. */
static int fill_rows(struct writer *w, struct block *b, struct ipt_ipi_iter *it, uint64_t *last_id,
		     struct ipt_stack_memo *memo)
{
	struct ipt_ipi_row row;
	struct ipt_row_match m;
	int r;

	ipt_strbuf_reset(&b->text);
	while (b->text.len < BLOCK_BYTES) {
		if ((r = ipt_ipi_next(it, &row)) <= 0)
			return r;
		/* every row, the skipped ones too: the report's cursor moves on */
		if (w->rep && ipt_report_row_match(w->rep, &row, &m))
			return -1;
		if (!w->explode) {
			if (row.id == *last_id)
				continue;
			*last_id = row.id;
		}
		if (ipt_rows_format_match_memo(w->fmt, w->explode, w->t, &row, w->rep ? &m : NULL, memo,
					       &b->text))
			return -1;
		b->n++;
	}
	return 1;
}

/* fill_kept - the next range of kept rows into b (from *row, moved on) */
static int fill_kept(const struct writer *w, struct block *b, size_t *row)
{
	size_t left = ipt_kept_count(w->kept) - *row;

	b->lo = *row;
	b->n = left < BLOCK_ROWS ? left : BLOCK_ROWS;
	*row += b->n;
	return *row < ipt_kept_count(w->kept);
}

int ipt_rows_write(const struct ipt_trace *t, struct ipt_ipi_iter *it, struct ipt_report *rep,
		   const struct ipt_rows_write_opts *opts)
{
	struct ipt_rows_write_opts o;
	struct writer w = { .t = t, .rep = rep };
	struct ipt_kept_cursor *itc, c = { 0 };
	struct ipt_stack_memo *memo;
	uint64_t last_id = 0;
	size_t kept_row = 0;
	int more = 1, ret = 0, nh, e;

	if (ipt_opts_copy(&o, sizeof(o), opts, "ipt_rows_write_opts"))
		return -1;
	if (!o.write)
		return ipt_err_code(IPT_ERR_INVALID, "ipt_rows_write: no writer");
	w.fmt = o.fmt;
	w.explode = o.explode;
	nh = helpers(o.threads);
	if (nh && o.explode && (w.kept = ipt_ipi_iter_kept(it, &itc)) &&
	    ipt_kept_count(w.kept) - itc->next >= HELPED_FROM) {
		kept_row = w.dropped = itc->next;
		w.kept_end = ipt_kept_count(w.kept);
	} else {
		w.kept = NULL;	/* the calling thread alone, through the iterator */
	}
	w.nb = w.kept ? 2u * (unsigned int)(nh + 1) + 2 : 1;
	memo = ipt_stack_memo_new();	/* (NULL: none) */
	if (!(w.b = ipt_calloc(w.nb, sizeof(*w.b)))) {
		ipt_stack_memo_free(memo);
		return -1;
	}
	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.work, NULL);
	pthread_cond_init(&w.done, NULL);
	for (int i = 0; w.kept && i < nh; i++)
		if (!pthread_create(&w.th[w.nth], NULL, helper, &w))
			w.nth++;	/* (fewer helpers: the calling thread formats the rest) */
	while (more > 0 && !ret) {
		struct block *b;

		if (w.next - w.first == w.nb && (ret = write_oldest(&w, &o, &c, memo)))
			break;
		b = &w.b[w.next % w.nb];
		more = w.kept ? fill_kept(&w, b, &kept_row) : fill_rows(&w, b, it, &last_id, memo);
		if (more < 0) {
			ret = -1;
			break;
		}
		if (!b->n)
			break;
		pthread_mutex_lock(&w.mu);
		b->state = w.kept ? B_FILLED : B_DONE;
		w.next++;
		pthread_cond_signal(&w.work);
		pthread_mutex_unlock(&w.mu);
		/* the blocks formatted at the front, without waiting */
		while (!ret && front_done(&w))
			ret = write_oldest(&w, &o, &c, memo);
	}
	while (!ret && w.first < w.next)
		ret = write_oldest(&w, &o, &c, memo);
	if (w.kept && !ret)
		itc->next = kept_row;	/* the iterator's rows are read */
	e = errno;	/* the writer's, for its caller */
	pthread_mutex_lock(&w.mu);
	w.quit = true;
	pthread_cond_broadcast(&w.work);
	pthread_mutex_unlock(&w.mu);
	for (int i = 0; i < w.nth; i++)
		pthread_join(w.th[i], NULL);
	for (unsigned int i = 0; i < w.nb; i++)
		ipt_strbuf_free(&w.b[i].text);
	free(w.b);
	ipt_kept_cursor_free(&c);
	ipt_stack_memo_free(memo);
	pthread_cond_destroy(&w.done);
	pthread_cond_destroy(&w.work);
	pthread_mutex_destroy(&w.mu);
	errno = e;
	return ret;
}
