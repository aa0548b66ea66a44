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

/* refill - read the next record of reader k into the heap; -1 on error */
static int refill(struct ipt_iter *it, int k)
{
	int r = ipt_page_reader_next(&it->readers[k], &it->recs[k]);

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
	if (it->failed)
		return -1;
	if (it->pending >= 0) {
		/*
		 * The record handed out last is the root's (its reader was left
		 * alone so that the record stayed valid): the reader moves on
		 * and its next record replaces the root, one sift down.
		 */
		int k = it->heap[0].reader;
		int r = ipt_page_reader_next(&it->readers[k], &it->recs[k]);

		it->pending = -1;
		if (r < 0) {
			it->failed = true;
			return -1;
		}
		if (r == 0) {
			it->heap[0] = it->heap[--it->nheap];
		} else {
			it->heap[0].ts = it->recs[k].ts;
			it->heap[0].cpu = it->recs[k].cpu;
		}
		if (it->nheap > 1)
			sift_down(it, 0);
	}
	if (!it->nheap)
		return 0;
	*rec = it->recs[it->heap[0].reader];
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
	free(it);
}
