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

struct head {
	struct ipt_record rec;
	int reader;
};

struct ipt_iter {
	struct ipt_trace *t;
	struct ipt_page_reader *readers;
	int nreaders;
	struct head *heap;
	int nheap;
	int pending;		/* reader whose record was handed out, or -1 */
	bool failed;
};

static bool before(const struct head *a, const struct head *b)
{
	if (a->rec.ts != b->rec.ts)
		return a->rec.ts < b->rec.ts;
	return a->rec.cpu < b->rec.cpu;
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
	struct head h;
	int r = ipt_page_reader_next(&it->readers[k], &h.rec);

	if (r <= 0)
		return r;
	h.reader = k;
	it->heap[it->nheap] = h;
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
	it->heap = ipt_calloc((size_t)t->nstreams, sizeof(*it->heap));
	if (!it->readers || !it->heap) {
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
		int r = ipt_page_reader_next(&it->readers[it->heap[0].reader], &it->heap[0].rec);

		it->pending = -1;
		if (r < 0) {
			it->failed = true;
			return -1;
		}
		if (r == 0)
			it->heap[0] = it->heap[--it->nheap];
		if (it->nheap > 1)
			sift_down(it, 0);
	}
	if (!it->nheap)
		return 0;
	*rec = it->heap[0].rec;
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
	free(it->heap);
	free(it);
}
