// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * columns.c - the columns of rows() and their memory: the table of
 * columns, the column buffers (mappings of their own, grown by mremap,
 * in huge pages for a large frame), the frame's growth, and the thread
 * that faults the columns' pages in ahead of the filling.
 */
#include "ext.h"

#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>

struct col_spec cols[C__COUNT];

/* cols_init - each column's name, its buffer's type (strings as
 * categories, addresses as uint64, a nullable integer or bool with a mask)
 * and whether it needs the report's row results: from ipt_row_column */
void cols_init(void)
{
	for (int i = 0; i < C__COUNT; i++) {
		const struct ipt_row_column_info *c = ipt_row_column((enum ipt_row_column)i);
		enum col_type t;

		switch (c->type) {
		case IPT_COLTYPE_INT64: t = c->nullable ? T_NI64 : T_I64; break;
		case IPT_COLTYPE_INT32: t = T_I32; break;
		case IPT_COLTYPE_ADDRESS: t = T_U64; break;
		case IPT_COLTYPE_BOOL: t = T_NBOOL; break;
		default: t = T_CAT; break;	/* strings; a stack as its text */
		}
		cols[i] = (struct col_spec){ c->name, t, c->from_report };
	}
}
/*
 * Column buffers: from 256 KiB each is a mapping of its own, grown and
 * shrunk by mremap, so never copied and never on malloc's heap, whatever
 * thresholds the rest of the process has moved malloc to (glibc raises
 * them each time a mapped chunk is freed, and heap blocks then grow by
 * copying: for a moment twice the column).  Room asked for but not
 * written costs nothing.  A header before the data (struct cb_head) says
 * which it is.
 */
#define CB_MAP (256u << 10)

#define CB_HUGE (2u << 20)
#define CB_HUGE_FRAME (64u << 20)

/*
 * The columns of a frame from 64 MiB (all its columns together) are whole
 * huge pages from 2 MiB each, asked for with MADV_HUGEPAGE: a fault per
 * 2 MiB instead of per 4 KiB.  On a VM, where a fault is dear, a large
 * frame's faults cost more than filling it.  Room not written costs
 * nothing, but a column's last huge page is whole once touched: up to
 * 2 MiB of some thirty columns, which a small frame cannot carry.
 */
static size_t cb_maplen(size_t n, bool huge)
{
	size_t len = (n + CB_HEAD + 4095) & ~(size_t)4095;

	if (huge && len >= CB_HUGE)
		len = (len + CB_HUGE - 1) & ~(size_t)(CB_HUGE - 1);
	return len;
}

static void cb_huge(void *m, size_t len, bool huge)
{
#ifdef MADV_HUGEPAGE
	if (huge && len >= CB_HUGE)
		(void)madvise(m, len, MADV_HUGEPAGE);	/* a hint: refused where THP is off */
#else
	(void)m;
	(void)len;
	(void)huge;
#endif
}

void cb_free(void *p)
{
	struct cb_head *h;

	if (!p)
		return;
	h = (struct cb_head *)(void *)((char *)p - CB_HEAD);
	if (h->maplen)
		munmap(h, h->maplen);
	else
		free(h);
}

/* cb_realloc_in - realloc for column buffers (p NULL: new), in huge pages
 * if huge (see cb_maplen); NULL if out of memory */
void *cb_realloc_in(void *p, size_t n, bool huge)
{
	struct cb_head *h = p ? (struct cb_head *)(void *)((char *)p - CB_HEAD) : NULL;
	size_t old = h ? h->maplen : 0;

	if (n + CB_HEAD < n)
		return NULL;
	if (n < CB_MAP && !old) {	/* small: malloc's */
		h = realloc(h, n + CB_HEAD);
		if (!h)
			return NULL;
		h->maplen = 0;
		h->size = n;
		return (char *)h + CB_HEAD;
	}
	if (old) {
		void *m = mremap(h, old, cb_maplen(n, huge), MREMAP_MAYMOVE);

		if (m == MAP_FAILED)
			return NULL;
		h = m;
		cb_huge(m, cb_maplen(n, huge), huge);
	} else {
		void *m = mmap(NULL, cb_maplen(n, huge), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			return NULL;
		cb_huge(m, cb_maplen(n, huge), huge);
		if (p) {	/* from malloc's: what it held (less than n) */
			memcpy((char *)m + CB_HEAD, p, h->size);
			free(h);
		}
		h = m;
	}
	h->maplen = cb_maplen(n, huge);
	h->size = n;
	return (char *)h + CB_HEAD;
}

void *cb_realloc(void *p, size_t n)
{
	return cb_realloc_in(p, n, false);
}

void rows_free_bufs(struct rows *r)
{
	for (int i = 0; i < C__COUNT; i++) {
		cb_free(r->c[i].data);
		cb_free(r->c[i].mask);
		r->c[i].data = NULL;
		r->c[i].mask = NULL;
	}
	cb_free(r->cpus);
	r->cpus = NULL;
	r->n = r->cap = r->ncpus = r->capcpus = 0;
	r->huge = false;
}

static int rows_grow_locked(struct rows *r)
{
	/* the first time, room for the rows the report counted (or the chunk):
	 * one allocation; then 1.5x (large blocks grow by mremap, no copy) */
	size_t nc = r->cap ? r->cap + r->cap / 2 : 4096;

	if (!r->cap && r->hint) {
		nc = r->hint + 1;
		if (r->chunk && r->chunk < nc)
			nc = r->chunk;
	} else if (!r->cap && r->chunk && r->chunk < nc) {
		nc = r->chunk;
	}
	if (nc < 16)
		nc = 16;
	if (!r->huge) {	/* the frame's size at this room: huge pages from CB_HUGE_FRAME */
		size_t row = 0;

		for (int i = 0; i < C__COUNT; i++)
			if (r->c[i].on)
				row += col_elsize(&r->c[i], i) + col_nullable(i);	/* the mask */
		r->huge = nc >= CB_HUGE_FRAME / (row ? row : 1);
	}
	for (int i = 0; i < C__COUNT; i++) {
		struct col *c = &r->c[i];
		void *p;

		if (!c->on)
			continue;
		if (i == C_TGT && !r->explode)	/* offsets into r->cpus, n + 1 of them */
			p = cb_realloc_in(c->data, (nc + 1) * row_elsize(r, i), r->huge);
		else
			p = cb_realloc_in(c->data, nc * row_elsize(r, i), r->huge);
		if (!p)
			return -1;
		c->data = p;
		if (col_nullable(i)) {
			p = cb_realloc_in(c->mask, nc, r->huge);
			if (!p)
				return -1;
			c->mask = p;
		}
	}
	r->cap = nc;
	return 0;
}

/* rows_grow - more room for rows in every column on; -1 out of memory */
int rows_grow(struct rows *r)
{
	int ret;

	bufs_lock(r);
	ret = rows_grow_locked(r);
	bufs_unlock(r);
	return ret;
}

/* add_cpu - one more CPU to the flat list of targets (!explode) */
int add_cpu(struct rows *r, int32_t cpu)
{
	if (r->ncpus == r->capcpus) {
		size_t nc = r->capcpus ? r->capcpus * 2 : 4096;
		int32_t *p = cb_realloc_in(r->cpus, nc * sizeof(*p), r->huge);

		if (!p)
			return -1;
		r->cpus = p;
		r->capcpus = nc;
	}
	r->cpus[r->ncpus++] = cpu;
	return 0;
}

/*
 * Faulting ahead.  On a VM a page fault is dear (zeroing a 2 MiB huge
 * page most of all), and the thread that fills the columns is the one the
 * report's pass waits on: a good part of its time went to faulting the
 * columns in.  A thread beside it asks the kernel for their pages
 * (MADV_POPULATE_WRITE: the fault without the write) a window of rows
 * ahead of the filling, on the core the report's lanes leave idle.  It
 * holds ah.bufs while it populates, and the buffers move (rows_grow,
 * cat_widen) only under it.  Pages it populates hold zeros, as a fault
 * would give them, so a row filled before it gets there loses nothing.
 * The window is a 32nd of the rows so far, up to 256k rows (25 MB of a
 * full frame): at most that is populated past the last row, in vain (a
 * larger share took a small frame's peak memory too far past its size).
 * It runs as SCHED_IDLE: on a machine with as many busy threads as CPUs
 * it took the filling thread's CPU now and then.
 */
#define AHEAD_WINDOW (1u << 18)	/* rows populated ahead of the filling, at most */
#define AHEAD_STEP (1u << 16)	/* rows populated at once, at most */

/* ahead_window - rows populated ahead of row n: a 32nd of n (so that at
 * most that is populated in vain), up to AHEAD_WINDOW */
static size_t ahead_window(size_t n)
{
	return n / 32 < AHEAD_WINDOW ? n / 32 : AHEAD_WINDOW;
}

/* ahead_populate - the pages of rows [from, to) of the columns the pass
 * fills (match false), or of those the join fills after (true) */
void ahead_populate(struct rows *r, size_t from, size_t to, bool match)
{
#ifdef MADV_POPULATE_WRITE
	for (int i = 0; i < C__COUNT; i++) {
		const struct col *c = &r->c[i];
		size_t es = row_elsize(r, i);

		if (cols[i].match != match)
			continue;
		for (int m = 0; m < 2; m++) {
			char *d = m ? c->mask : c->data;
			struct cb_head *h;
			uintptr_t a, e;

			if (!c->on || !d)
				continue;
			if (m)
				es = 1;
			h = (struct cb_head *)(void *)(d - CB_HEAD);
			if (!h->maplen)
				continue;
			a = (uintptr_t)(d + from * es) & ~(uintptr_t)4095;
			e = ((uintptr_t)(d + to * es) + 4095) & ~(uintptr_t)4095;
			if (e > (uintptr_t)h + h->maplen)
				e = (uintptr_t)h + h->maplen;
			if (e > a)
				(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);	/* a hint */
		}
	}
#else
	(void)r;
	(void)from;
	(void)to;
	(void)match;
#endif
}

static void *ahead_run(void *arg)
{
	struct rows *r = arg;
	struct ahead *ah = &r->ah;

#ifdef SCHED_IDLE
	{
		/* only what the decoding and the filling leave: a hint to
		 * the kernel, the filling faults its own pages if this
		 * thread falls behind */
		struct sched_param sp = { 0 };

		(void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	}
#endif
	for (;;) {
		size_t to;

		pthread_mutex_lock(&ah->mu);
		while (!ah->stop && ah->want <= ah->done)
			pthread_cond_wait(&ah->cv, &ah->mu);
		to = ah->want;
		pthread_mutex_unlock(&ah->mu);
		if (ah->stop)
			break;
		while (ah->done < to && !ah->stop) {
			size_t end = to - ah->done > AHEAD_STEP ? ah->done + AHEAD_STEP : to;

			pthread_mutex_lock(&ah->bufs);
			ahead_populate(r, ah->done, end, false);
			pthread_mutex_unlock(&ah->bufs);
			ah->done = end;
		}
	}
	return NULL;
}

/* ahead_ask - the filling is at row r->n: the window ahead of it asked for
 * (the thread started the first time) */
void ahead_ask(struct rows *r)
{
	struct ahead *ah = &r->ah;
	size_t want = r->n + ahead_window(r->n) < r->cap ? r->n + ahead_window(r->n) : r->cap;

	/* asked again a quarter window on (at least 4096 rows: a wake-up each) */
	ah->next = r->n + (ahead_window(r->n) / 4 > 4096 ? ahead_window(r->n) / 4 : 4096);
	if (!ah->on) {
		ah->want = ah->done = r->n;
		ah->stop = false;
		if (pthread_mutex_init(&ah->mu, NULL) || pthread_mutex_init(&ah->bufs, NULL) ||
		    pthread_cond_init(&ah->cv, NULL)) {
			ah->next = SIZE_MAX;	/* not to be had: the filling faults its own */
			return;
		}
		ah->on = true;
		if (pthread_create(&ah->th, NULL, ahead_run, r)) {
			ah->on = false;
			ah->next = SIZE_MAX;
			return;
		}
	}
	pthread_mutex_lock(&ah->mu);
	if (want > ah->want) {
		ah->want = want;
		pthread_cond_signal(&ah->cv);
	}
	pthread_mutex_unlock(&ah->mu);
}

/* ahead_stop - the thread stopped and gone (if it was started) */
void ahead_stop(struct rows *r)
{
	struct ahead *ah = &r->ah;

	if (ah->on) {
		pthread_mutex_lock(&ah->mu);
		ah->stop = true;
		pthread_cond_signal(&ah->cv);
		pthread_mutex_unlock(&ah->mu);
		pthread_join(ah->th, NULL);
		pthread_mutex_destroy(&ah->mu);
		pthread_mutex_destroy(&ah->bufs);
		pthread_cond_destroy(&ah->cv);
		ah->on = false;
	}
	ah->next = 0;
}
