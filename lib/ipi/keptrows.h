/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * keptrows.h - the counted rows a report keeps (report option keep_rows),
 * for an iterator to give back without decoding the trace again
 *
 * The report's consumer adds each counted row as opts.on_row would get it
 * (targets NULL); ipt_ipi_iter_new_with() with that report and its filter
 * reads them back in the same order, and ipt_rows_write() by ranges in
 * several threads.  32 bytes a row: what the sends of one place share
 * (event, kind, addresses, symbols, reason: the trace's own strings,
 * valid until it is closed) and the task (pid, name) by number in tables
 * of their own; past one chunk (1 MiB, in a huge page) the rows go to an
 * unnamed temporary file, written and read a chunk at a time (pwrite and
 * pread: no mapping, no page of it held), up to 4 Mi rows (128 MiB),
 * unless half of the first 4096 or more are of multicasts, or there are
 * more than 64 Ki places or 256 Ki tasks.  Past that, or on an error while keeping (no temporary
 * file, a full disk: not the report's), the rows are dropped
 * (ipt_kept_end false) and the iterator decodes the trace as it would
 * without them.
 */
#ifndef IPT_IPI_KEPTROWS_H
#define IPT_IPI_KEPTROWS_H

#include "core/core.h"

struct ipt_kept_rows;

/* An empty store for the rows of t counted with filter (NULL or "": all);
 * NULL without memory. */
struct ipt_kept_rows *ipt_kept_new(struct ipt_trace *t, const char *filter);
/* One more counted row (its targets are not kept); what cannot be kept
 * (past the most, no file, no memory, a full disk) drops them all.  true
 * while they are kept. */
bool ipt_kept_add(struct ipt_kept_rows *k, const struct ipt_ipi_row *row);
/* The pass ended: the rows can be read.  false when they were dropped. */
bool ipt_kept_end(struct ipt_kept_rows *k);
/* Whether these are the rows of an iterator with this filter. */
bool ipt_kept_for(const struct ipt_kept_rows *k, const char *filter);
/* A reader's place (all zero: at the first row), and its chunk. */
struct ipt_kept_cursor {
	size_t next, from, rows;	/* the next row; the chunk's first, and rows */
	size_t until;			/* not 0: read no row from this one on */
	void *buf;
};
/* The next row into row (targets NULL): 1, 0 after the last, -1 on a
 * read error (the message set).  Readers of their own cursors may read at
 * once. */
int ipt_kept_next(const struct ipt_kept_rows *k, struct ipt_kept_cursor *c, struct ipt_ipi_row *row);
void ipt_kept_cursor_free(struct ipt_kept_cursor *c);
/* The kept rows an iterator reads (NULL: it decodes the trace), and its
 * cursor in *cur: readers of their own may start at its row
 * (ipt_rows_write); moving it on is the caller's. */
struct ipt_ipi_iter;
const struct ipt_kept_rows *ipt_ipi_iter_kept(struct ipt_ipi_iter *it, struct ipt_kept_cursor **cur);
/* Rows kept. */
size_t ipt_kept_count(const struct ipt_kept_rows *k);
void ipt_kept_free(struct ipt_kept_rows *k);

#endif
