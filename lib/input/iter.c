// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * iter.c - records of several CPUs merged in timestamp order
 *
 * One page reader per CPU and a binary heap of their next records, keyed
 * by (timestamp, CPU): equal timestamps come out lowest CPU first, as in
 * trace-cmd.
 */
#include "input/input.h"

#include <stdlib.h>

/* a heap entry: the key of a reader's next record (the record is in recs[]);
 * small, so that sifting moves 16 bytes, not records */
struct head {
	uint64_t ts;
	int32_t cpu;
	int reader;
};

struct ipt_iter {
	struct ipt_trace *t;
	struct ipt_page_reader *readers;
	struct ipt_record *recs;	/* each reader's next record */
	int nreaders;
	struct head *heap;
	int nheap;
	int pending;		/* reader whose record was handed out, or -1 */
	bool failed;
	/* a time slice (ipt_iter_slice): readers stop at the first record
	 * at or after stop_ts, and say where */
	uint64_t stop_ts;
	int *stream;		/* reader -> its stream's index */
	struct ipt_stream_pos *start, *stop;	/* per reader */
};

static bool before(const struct head *a, const struct head *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts;
	return a->cpu < b->cpu;
}

static void sift_down(struct ipt_iter *it, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;

		if (l < it->nheap && before(&it->heap[l], &it->heap[m]))
			m = l;
		if (r < it->nheap && before(&it->heap[r], &it->heap[m]))
			m = r;
		if (m == i)
			return;
		struct head tmp = it->heap[i];

		it->heap[i] = it->heap[m];
		it->heap[m] = tmp;
		i = m;
	}
}

static void sift_up(struct ipt_iter *it, int i)
{
	while (i > 0) {
		int p = (i - 1) / 2;

		if (!before(&it->heap[i], &it->heap[p]))
			return;
		struct head tmp = it->heap[i];

		it->heap[i] = it->heap[p];
		it->heap[p] = tmp;
		i = p;
	}
}

/* read_next - reader k's next record into recs[k]: 1, 0 at the end (of
 * a slice: its first record at or after stop_ts, whose place is kept),
 * -1 on error */
static inline __attribute__((always_inline)) int read_next(struct ipt_iter *it, int k)
{
	int r = ipt_page_reader_next(&it->readers[k], &it->recs[k]);

	if (__builtin_expect(!it->stop, 1))
		return r;
	if (r == 0)
		it->stop[k] = (struct ipt_stream_pos){ it->readers[k].s->size, 0 };
	if (r > 0 && it->stop_ts != UINT64_MAX && it->recs[k].ts >= it->stop_ts) {
		ipt_page_reader_pos(&it->readers[k], &it->stop[k]);
		return 0;
	}
	return r;
}

/* refill - read the next record of reader k into the heap; -1 on error */
static int refill(struct ipt_iter *it, int k)
{
	int r = read_next(it, k);

	if (r <= 0)
		return r;
	it->heap[it->nheap] = (struct head){ it->recs[k].ts, it->recs[k].cpu, k };
	sift_up(it, it->nheap++);
	return 0;
}

struct ipt_iter *ipt_iter_new(struct ipt_trace *t, const struct ipt_cpuset *cpus)
{
	struct ipt_iter *it = ipt_calloc(1, sizeof(*it));

	if (!it)
		return NULL;
	it->t = t;
	it->pending = -1;
	it->readers = ipt_calloc((size_t)t->nstreams, sizeof(*it->readers));
	it->recs = ipt_calloc((size_t)t->nstreams + 1, sizeof(*it->recs));
	it->heap = ipt_calloc((size_t)t->nstreams, sizeof(*it->heap));
	if (!it->readers || !it->recs || !it->heap) {
		ipt_iter_free(it);
		return NULL;
	}
	for (int i = 0; i < t->nstreams; i++) {
		if (cpus && !ipt_cpuset_has(cpus, (unsigned int)t->streams[i].cpu))
			continue;
		ipt_page_reader_init(&it->readers[it->nreaders++], t, &t->streams[i]);
	}
	for (int k = 0; k < it->nreaders; k++)
		if (refill(it, k) < 0) {
			it->failed = true;
			break;
		}
	return it;
}

int ipt_iter_next(struct ipt_iter *it, struct ipt_record *rec)
{
	const struct ipt_record *r;
	int k = ipt_iter_step(it, &r);

	if (k > 0)
		*rec = *r;
	return k;
}

int ipt_iter_step(struct ipt_iter *it, const struct ipt_record **rec)
{
	if (it->failed)
		return -1;
	if (it->pending >= 0) {
		/*
		 * The record handed out last is the root's (its reader was left
		 * alone so that the record stayed valid): the reader moves on
		 * and its next record replaces the root, one sift down.
		 */
		int k = it->heap[0].reader;
		int r = read_next(it, k);

		it->pending = -1;
		if (r < 0) {
			it->failed = true;
			return -1;
		}
		if (r == 0) {
			it->heap[0] = it->heap[--it->nheap];
			if (it->nheap > 1)
				sift_down(it, 0);
		} else {
			struct head *h = it->heap;

			h[0].ts = it->recs[k].ts;
			h[0].cpu = it->recs[k].cpu;
			/* the reader stays at the root while its record comes
			 * before both children's (runs of one CPU): no sifting */
			if (it->nheap > 1 && (before(&h[1], &h[0]) ||
					      (it->nheap > 2 && before(&h[2], &h[0]))))
				sift_down(it, 0);
		}
	}
	if (!it->nheap)
		return 0;
	*rec = &it->recs[it->heap[0].reader];
	it->pending = it->heap[0].reader;
	return 1;
}

void ipt_iter_free(struct ipt_iter *it)
{
	if (!it)
		return;
	for (int i = 0; i < it->nreaders; i++)
		ipt_page_reader_release(&it->readers[i]);
	free(it->readers);
	free(it->recs);
	free(it->heap);
	free(it->stream);
	free(it->start);
	free(it->stop);
	free(it);
}

/* first_page - by bisection, the page before the first page of flat
 * stream s whose header is at or after ts (0 if none is before) */
static int first_page(const struct ipt_trace *t, const struct ipt_cpu_stream *s, uint64_t ts, uint64_t *page)
{
	uint64_t ps = t->layout.page_size, lo = 0, hi = (s->size + ps - 1) / ps, pts;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (ipt_stream_page_ts(t, s, mid * ps, &pts))
			return ipt_err_at(t->path, (long long)(s->file_offset + mid * ps),
					  "CPU %d: cannot read the time of a page", s->cpu);
		if (pts >= ts)
			hi = mid;
		else
			lo = mid + 1;
	}
	*page = lo ? (lo - 1) * ps : 0;
	return 0;
}

/* slice_start - reader k to its first record at or after ts (from a place
 * found by bisection), or to the place from; the place into start */
static int slice_start(struct ipt_iter *it, int k, const struct ipt_stream_pos *from, uint64_t ts,
		       uint32_t block, struct ipt_stream_pos *start)
{
	struct ipt_page_reader *pr = &it->readers[k];
	struct ipt_stream_pos at;
	int r;

	if (from) {
		*start = *from;
		if (ipt_page_reader_seek_block(pr, from, block))
			return -1;
		return refill(it, k);
	}
	at = (struct ipt_stream_pos){ 0, 0 };
	if (ts && first_page(it->t, pr->s, ts, &at.page))
		return -1;
	if (ipt_page_reader_seek_block(pr, &at, block))
		return -1;
	while ((r = ipt_page_reader_next(pr, &it->recs[k])) > 0 && it->recs[k].ts < ts)
		;
	if (r < 0)
		return -1;
	if (r == 0) {
		*start = (struct ipt_stream_pos){ pr->s->size, 0 };
		it->stop[k] = *start;
		return 0;
	}
	ipt_page_reader_pos(pr, start);
	if (it->stop_ts != UINT64_MAX && it->recs[k].ts >= it->stop_ts) {
		it->stop[k] = *start;		/* an empty slice of this stream */
		return 0;
	}
	it->heap[it->nheap] = (struct head){ it->recs[k].ts, it->recs[k].cpu, k };
	sift_up(it, it->nheap++);
	return 0;
}

/*
 * ipt_iter_slice - a time slice of the records of the given CPUs, of flat
 * streams only: each stream from its first record at or after start_ts
 * (found by bisecting its page headers, then reading on; a stream whose
 * times go back may start elsewhere than a slice before it stopped: the
 * caller compares the places), or from its place in from (indexed as
 * t->streams) when from is not NULL, up to (not including) its first
 * record at or after stop_ts (UINT64_MAX: its end), merged as
 * ipt_iter_new merges; reading block bytes at a time (0: the usual).
 * it (may be NULL) is a slice iterator of t and cpus made before, whose
 * buffers are used again.  NULL on error, or a slice iterator whose first
 * ipt_iter_next fails (a bad record where it starts).
 */
struct ipt_iter *ipt_iter_slice(struct ipt_iter *it, struct ipt_trace *t, const struct ipt_cpuset *cpus,
				const struct ipt_stream_pos *from, uint64_t start_ts, uint64_t stop_ts,
				uint32_t block)
{
	if (!it) {
		it = ipt_calloc(1, sizeof(*it));
		if (!it)
			return NULL;
		it->t = t;
		it->readers = ipt_calloc((size_t)t->nstreams, sizeof(*it->readers));
		it->recs = ipt_calloc((size_t)t->nstreams + 1, sizeof(*it->recs));
		it->heap = ipt_calloc((size_t)t->nstreams, sizeof(*it->heap));
		it->stream = ipt_calloc((size_t)t->nstreams + 1, sizeof(*it->stream));
		it->stop = ipt_calloc((size_t)t->nstreams + 1, sizeof(*it->stop));
		it->start = ipt_calloc((size_t)t->nstreams + 1, sizeof(*it->start));
		if (!it->readers || !it->recs || !it->heap || !it->stream || !it->stop || !it->start) {
			ipt_iter_free(it);
			return NULL;
		}
		for (int i = 0; i < t->nstreams; i++) {
			if (cpus && !ipt_cpuset_has(cpus, (unsigned int)t->streams[i].cpu))
				continue;
			it->stream[it->nreaders] = i;
			ipt_page_reader_init(&it->readers[it->nreaders++], t, &t->streams[i]);
		}
	}
	it->pending = -1;
	it->failed = false;
	it->nheap = 0;
	it->stop_ts = stop_ts;
	for (int k = 0; k < it->nreaders; k++) {
		ipt_page_reader_restart(&it->readers[k]);
		it->stop[k] = (struct ipt_stream_pos){ it->readers[k].s->size, 0 };
	}
	for (int k = 0; k < it->nreaders; k++)
		if (slice_start(it, k, from ? &from[it->stream[k]] : NULL, start_ts, block, &it->start[k])) {
			it->failed = true;
			break;
		}
	return it;
}

/* Where each stream of a slice started and stopped (stop: valid once
 * ipt_iter_next gave 0), indexed as t->streams (the others left alone). */
void ipt_iter_slice_places(const struct ipt_iter *it, struct ipt_stream_pos *start, struct ipt_stream_pos *stop)
{
	for (int k = 0; it->stop && k < it->nreaders; k++) {
		if (start)
			start[it->stream[k]] = it->start[k];
		if (stop)
			stop[it->stream[k]] = it->stop[k];
	}
}
