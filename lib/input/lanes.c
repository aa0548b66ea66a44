// SPDX-License-Identifier: LGPL-2.1-or-later
/* lanes.c - per-CPU streams decoded in parallel, merged in time order (lanes.h) */
#include "input/lanes.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LANE_BATCH 2048		/* items per batch */
/*
 * The rings of all lanes share RINGS_BYTES (8 MiB): a ring absorbs the
 * time its producer or the consumer is scheduled out, which matters most
 * where the threads outnumber the CPUs (two lanes and the consumer on two
 * vCPUs).  There, against 1 MiB rings: 2 MiB cut the context switches of
 * report on the 256-CPU trace by half (177 -> 155 ms), 4 MiB a little
 * more (160.7 -> 157.0 ms; synth-10M 598 -> 561 ms), 8 MiB no more on
 * synth-10M.  Between LANE_NBATCH_MIN and LANE_NBATCH batches a lane.
 */
#define RINGS_BYTES (8u << 20)
#define LANE_NBATCH_MIN 8
#define LANE_NBATCH 32		/* at most: 4 MiB of 64-byte items */
/*
 * A producer that found its ring full is woken once the consumer has given
 * this many batches back, not at each one: a wake-up is a futex call and an
 * IPI (on a VM, an exit), and with the consumer the slower side the
 * producers would otherwise sleep and wake once a batch.
 */
#define LANE_REFILL(l) ((l)->nbatch / 2)

struct lbatch {
	size_t n;		/* items: set when handed over */
	unsigned char *v;	/* LANE_BATCH items */
};

/*
 * The producer's and the consumer's hot fields sit on cache lines of their
 * own: an item written on one CPU and read on another must not drag a
 * shared line back and forth per item (it cost as much as the decoding).
 */
struct lane {
	/* consumer only */
	_Alignas(64) size_t pos;	/* next item of b[head] */
	bool taken;		/* the consumer holds b[head] */
	/* producer only */
	_Alignas(64) size_t wn;	/* items in b[fill] */
	/* under the lock */
	_Alignas(64) size_t head, count;	/* full batches: b[head..head+count) */
	size_t fill;		/* batch being filled */
	bool done;		/* producer finished */
	bool full_wait;		/* the producer waits on room */
	pthread_cond_t room;	/* ... for LANE_REFILL batches given back */
	struct lbatch b[LANE_NBATCH];	/* nbatch of them, in ring */
	unsigned char *ring;
	struct ipt_cpuset cpus;
	pthread_t th;
	bool started;
	struct ipt_lanes *l;
	int index;
};

struct ipt_lanes {
	struct lane lane[IPT_LANES_MAX];
	int n;
	size_t size;		/* item size */
	int nbatch;		/* batches per ring */
	ipt_lane_fn fn;
	void *ctx;
	bool failed;
	char err[512];
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* the consumer waits on it, for a batch or an end */
	bool empty_wait;	/* ... and does */
	int last;		/* lane of the item handed out last, or -1 */
	/* consumer: each lane's next item (NULL: the lane is over), valid
	 * once primed; only the lane handed out last moves */
	const struct ipt_lane_key *head[IPT_LANES_MAX];
	bool primed;
	/* the smallest head of the other lanes when `last` was chosen (NULL:
	 * none left): while last's next item comes before it, last goes on
	 * without a look at the others, whose heads have not moved */
	const struct ipt_lane_key *bound;
	int bound_lane;
};

struct ipt_lanes *ipt_lanes_new(struct ipt_trace *t, int want, size_t item_size, int *n)
{
	uint64_t load[IPT_LANES_MAX] = { 0 };
	bool *taken = NULL;
	struct ipt_lanes *l;
	int with_data = 0;

	*n = -1;
	for (int i = 0; i < t->nstreams; i++)
		with_data += t->streams[i].size > 0;
	if (want > IPT_LANES_MAX)
		want = IPT_LANES_MAX;
	if (want > with_data)
		want = with_data;
	if (want < 1)
		want = 1;
	l = ipt_calloc_lines(1, sizeof(*l));	/* its lanes are cache lines */
	taken = ipt_calloc((size_t)t->nstreams + 1, sizeof(*taken));
	if (!l || !taken) {
		free(l);
		free(taken);
		return NULL;
	}
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->cond, NULL);
	l->n = want;
	l->size = item_size;
	{
		size_t per = RINGS_BYTES / (size_t)want / ((size_t)LANE_BATCH * (item_size ? item_size : 1));

		l->nbatch = per < LANE_NBATCH_MIN ? LANE_NBATCH_MIN : per > LANE_NBATCH ? LANE_NBATCH : (int)per;
	}
	l->last = -1;
	for (int i = 0; i < IPT_LANES_MAX; i++) {
		l->lane[i].l = l;
		l->lane[i].index = i;
		pthread_cond_init(&l->lane[i].room, NULL);
		ipt_cpuset_init(&l->lane[i].cpus);
	}
	for (int i = 0; i < want; i++) {
		struct lane *ln = &l->lane[i];

		/* not cleared: an item is written before it is handed over
		 * (clearing 1.3 MiB a lane, at each pass, was 5% of a short
		 * convert).  One block, in a huge page where it can be (one
		 * page fault instead of 512, the first time round the ring) */
		ln->ring = ipt_malloc_big((size_t)l->nbatch * LANE_BATCH * item_size);
		if (ln->ring && (uintptr_t)ln->ring % IPT_LINE) {
			free(ln->ring);
			ln->ring = ipt_malloc_lines((size_t)l->nbatch * LANE_BATCH, item_size);
		}
		if (!ln->ring)
			goto fail;
		for (int k = 0; k < l->nbatch; k++)
			ln->b[k].v = ln->ring + (size_t)k * LANE_BATCH * item_size;
	}
	for (;;) {
		int big = -1, low = 0;

		/* every stream, even one whose stored size is 0: a bad one must
		 * fail as it does for a single iterator */
		for (int i = 0; i < t->nstreams; i++)
			if (!taken[i] && (big < 0 || t->streams[i].size > t->streams[big].size))
				big = i;
		if (big < 0)
			break;
		for (int i = 1; i < want; i++)
			if (load[i] < load[low])
				low = i;
		/* a lane reads CPUs: the streams of one CPU in every buffer go
		 * to the same lane, or two lanes would read them both */
		for (int i = 0; i < t->nstreams; i++)
			if (!taken[i] && t->streams[i].cpu == t->streams[big].cpu) {
				taken[i] = true;
				load[low] += t->streams[i].size;
			}
		if (ipt_cpuset_add(&l->lane[low].cpus, (unsigned int)t->streams[big].cpu))
			goto fail;
	}
	free(taken);
	*n = want;
	return l;
fail:
	free(taken);
	ipt_lanes_free(l, NULL);
	return NULL;
}

uint64_t ipt_trace_cpu_bytes(const struct ipt_trace *t)
{
	uint64_t bytes = 0;

	for (int i = 0; i < t->nstreams; i++)
		bytes += t->streams[i].size;
	return bytes;
}

int ipt_lanes_auto(const struct ipt_trace *t, int want, uint64_t min_bytes)
{
	long online;

	if (want)
		return want > 0 ? want : 1;
	if (ipt_trace_cpu_bytes(t) < min_bytes)
		return 1;
	online = sysconf(_SC_NPROCESSORS_ONLN);
	return online < 1 ? 1 : online > IPT_LANES_MAX ? IPT_LANES_MAX : (int)online;
}

const struct ipt_cpuset *ipt_lanes_cpus(const struct ipt_lanes *l, int i)
{
	return &l->lane[i].cpus;
}

int ipt_lanes_count(const struct ipt_lanes *l)
{
	return l->n;
}

void ipt_lanes_fail(struct ipt_lanes *l, const char *msg)
{
	pthread_mutex_lock(&l->lock);
	if (!l->failed)
		snprintf(l->err, sizeof(l->err), "%s", msg);
	l->failed = true;
	pthread_cond_broadcast(&l->cond);
	for (int i = 0; i < IPT_LANES_MAX; i++)
		pthread_cond_broadcast(&l->lane[i].room);
	pthread_mutex_unlock(&l->lock);
}

/* wake_consumer - under the lock: a batch or an end the consumer may wait for */
static void wake_consumer(struct ipt_lanes *l)
{
	if (l->empty_wait)
		pthread_cond_signal(&l->cond);
}

/* hand_over - lane's batch being filled goes to the consumer; -1 if the run failed */
static int hand_over(struct ipt_lanes *l, struct lane *ln)
{
	pthread_mutex_lock(&l->lock);
	while (ln->count == (size_t)l->nbatch - 1 && !l->failed) {
		ln->full_wait = true;
		pthread_cond_wait(&ln->room, &l->lock);
	}
	ln->full_wait = false;
	if (l->failed) {
		pthread_mutex_unlock(&l->lock);
		return -1;
	}
	ln->b[ln->fill].n = ln->wn;
	ln->count++;
	ln->fill = (ln->fill + 1) % (size_t)l->nbatch;
	ln->wn = 0;
	wake_consumer(l);
	pthread_mutex_unlock(&l->lock);
	return 0;
}

void *ipt_lanes_emit(struct ipt_lanes *l, int lane)
{
	struct lane *ln = &l->lane[lane];

	if (ln->wn == LANE_BATCH && hand_over(l, ln))
		return NULL;
	return ln->b[ln->fill].v + l->size * ln->wn++;
}

static void *lane_main(void *arg)
{
	struct lane *ln = arg;
	struct ipt_lanes *l = ln->l;
	int ret = l->fn(l, ln->index, l->ctx);

	if (ret)
		ipt_lanes_fail(l, ipt_errmsg());
	else if (ln->wn)
		ret = hand_over(l, ln);
	pthread_mutex_lock(&l->lock);
	ln->done = true;
	wake_consumer(l);
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

int ipt_lanes_start(struct ipt_lanes *l, ipt_lane_fn fn, void *ctx)
{
	int i;

	l->fn = fn;
	l->ctx = ctx;
	for (i = 0; i < l->n; i++) {
		if (pthread_create(&l->lane[i].th, NULL, lane_main, &l->lane[i]))
			break;
		l->lane[i].started = true;
	}
	if (i < l->n)
		ipt_lanes_fail(l, "cannot start a thread");
	return i ? 0 : -1;
}

/* head_item - the lane's next item (waiting for a batch); NULL: lane over */
static unsigned char *head_item(struct ipt_lanes *l, struct lane *ln)
{
	for (;;) {
		if (ln->taken) {
			struct lbatch *b = &ln->b[ln->head];

			if (ln->pos < b->n)
				return b->v + l->size * ln->pos;
			/* the batch is used up: back to the producer */
			pthread_mutex_lock(&l->lock);
			ln->head = (ln->head + 1) % (size_t)l->nbatch;
			ln->count--;
			ln->taken = false;
			if (ln->full_wait && ln->count <= (size_t)(l->nbatch - 1 - LANE_REFILL(l)))
				pthread_cond_signal(&ln->room);
			pthread_mutex_unlock(&l->lock);
		}
		pthread_mutex_lock(&l->lock);
		while (!ln->count && !ln->done && !l->failed) {
			l->empty_wait = true;
			pthread_cond_wait(&l->cond, &l->lock);
		}
		l->empty_wait = false;
		if (l->failed || !ln->count) {
			pthread_mutex_unlock(&l->lock);
			return NULL;
		}
		ln->taken = true;
		ln->pos = 0;
		pthread_mutex_unlock(&l->lock);
	}
}

/* before - key a comes first in (timestamp, CPU) order */
static inline bool before(const struct ipt_lane_key *a, const struct ipt_lane_key *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->cpu < b->cpu);
}

void *ipt_lanes_next(struct ipt_lanes *l, int *lane)
{
	const struct ipt_lane_key *best = NULL, *second = NULL;
	int bl = -1, sl = -1;

	if (!l->primed) {
		for (int i = 0; i < l->n; i++)
			l->head[i] = (const void *)head_item(l, &l->lane[i]);
		l->primed = true;
	} else if (l->last >= 0) {
		struct lane *ln = &l->lane[l->last];

		ln->pos++;
		if (ln->pos < ln->b[ln->head].n) {	/* in the batch it holds */
			const struct ipt_lane_key *k = (const void *)(ln->b[ln->head].v + l->size * ln->pos);

			l->head[l->last] = k;
			if (!l->bound || before(k, l->bound)) {
				if (lane)
					*lane = l->last;
				return (void *)k;
			}
			if (l->n == 2 && before(l->bound, k)) {
				/* two lanes: the other one's head comes first, and
				 * this one's bounds it (equal keys, never seen: a
				 * CPU is in one lane, go the long way) */
				const struct ipt_lane_key *b = l->bound;

				l->bound = k;
				l->bound_lane = l->last;
				l->last = 1 - l->last;
				if (lane)
					*lane = l->last;
				return (void *)b;
			}
		} else {
			l->head[l->last] = (const void *)head_item(l, ln);
		}
	}
	l->last = -1;
	for (int i = 0; i < l->n; i++) {
		const struct ipt_lane_key *k = l->head[i];

		if (!k)
			continue;
		if (!best || before(k, best)) {
			second = best;
			sl = bl;
			best = k;
			bl = i;
		} else if (!second || before(k, second)) {
			second = k;
			sl = i;
		}
	}
	if (!best)
		return NULL;
	l->last = bl;
	l->bound = second;
	l->bound_lane = sl;
	if (lane)
		*lane = bl;
	return (void *)best;
}

int ipt_lanes_join(struct ipt_lanes *l)
{
	for (int i = 0; i < l->n; i++)
		if (l->lane[i].started) {
			pthread_join(l->lane[i].th, NULL);
			l->lane[i].started = false;
		}
	if (l->failed)
		return ipt_err("%s", l->err);
	return 0;
}

void ipt_lanes_free(struct ipt_lanes *l, void (*item_free)(void *item))
{
	if (!l)
		return;
	ipt_lanes_fail(l, "stopped");	/* producers still running give up */
	ipt_lanes_join(l);
	for (int i = 0; i < IPT_LANES_MAX; i++) {
		struct lane *ln = &l->lane[i];

		for (int k = 0; k < l->nbatch; k++) {
			/* unconsumed: the waiting batches from pos on, the batch being filled */
			bool waiting = (size_t)((k - (int)ln->head + l->nbatch) % l->nbatch) < ln->count;
			size_t from = ln->taken && (size_t)k == ln->head ? ln->pos + (l->last == i) : 0;

			size_t n = (size_t)k == ln->fill ? ln->wn : ln->b[k].n;

			if (item_free && ln->b[k].v && (waiting || (size_t)k == ln->fill))
				for (size_t j = from; j < n; j++)
					item_free(ln->b[k].v + l->size * j);
		}
		free(ln->ring);
		ipt_cpuset_free(&ln->cpus);
		pthread_cond_destroy(&ln->room);
	}
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->cond);
	free(l);
}
