// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dump.c - a trace's records as text, in time order, rendered by threads
 * that each take a slice of time (ipt_dump_new in ipitrace.h)
 *
 * Rendering is most of what a dump costs, and it is order-free but for
 * one thing (below).  Handing rendered lines from thread to thread costs
 * as much as rendering them on two cores (tried: every line crossed
 * cores), so each thread renders whole slices of time into a buffer of its
 * own, and the caller gets the slices' text in order.
 *
 * A slice s is [T_s, T_s+1): each stream from its first record at or after
 * T_s (found by bisecting the page headers, then reading on) up to its
 * first record at or after T_s+1.  If every stream's slice s starts where
 * its slice s-1 stopped, the records of slices 0..s are exactly the first
 * ones one iterator over all CPUs hands out, in the same order: each is
 * before T_s+1 and each stream's next record is not (the merge takes the
 * smallest (time, CPU) of the streams' next records; with one stream per
 * CPU no two are equal).  A stream whose times go back can make the two
 * places differ; then, as after a slice with a bad record, one thread
 * renders the rest from where the last good slice stopped (and meets the
 * bad record, or not, exactly as one iterator does).
 *
 * The one thing not order-free: a sched_switch or sched_wakeup line names
 * tasks for the lines after it (as trace-cmd's sched plugin does), so from
 * the slice holding the first one kept, one thread renders the rest too.
 */
#include "render/render.h"
#include "input/input.h"
#include "input/lanes.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLICE_BYTES (1u << 20)	/* of CPU data, about: a slice's text is about 5 MiB */
#define SLICES_MAX 65536
#define SLICE_BLOCK (64u << 10)	/* a slice reads its streams this much at a time */
#define BLOCK_BYTES (1u << 16)	/* one thread: the text handed out at a time */

enum slice_state { SL_WAITING, SL_RUNNING, SL_DONE, SL_GIVE_UP };

struct slot {			/* the slice s with s % window == this slot */
	enum slice_state state;
	uint64_t slice;
	struct ipt_stream_pos *from, *to;	/* per stream */
	struct ipt_strbuf text;
};

struct ipt_dump {
	struct ipt_trace *t;
	struct ipt_cpuset cpus;
	bool all_cpus;
	struct ipt_dump_opts o;
	char *filter;
	struct ipt_event_filter *ef;	/* this thread's */
	uint64_t rendered;		/* kept records rendered (max_records) */
	const struct ipt_event *teach[3];	/* events that name tasks (teaches_name) */
	/* one thread */
	struct ipt_iter *it;
	struct ipt_strbuf out;
	bool serial, ended;
	char err[512];			/* an error to say after the text before it */
	bool err_pending;
	/* slices */
	int threads;
	uint64_t *cut;			/* nslices + 1 times: cut[0] = 0, last UINT64_MAX */
	uint64_t nslices;
	struct slot *slot;
	int window;
	uint64_t claim;			/* next slice a worker takes */
	uint64_t next;			/* next slice handed out */
	struct ipt_stream_pos *at;	/* where the slices handed out stopped */
	bool held;			/* slice next - 1's text is out with the caller */
	bool stop;
	pthread_mutex_t lock;
	pthread_cond_t room, done;
	pthread_t th[IPT_LANES_MAX];
	int started;
};

/* teaches_name - rendering rec adds task names to the trace's table
 * (render_sched_switch and render_sched_wakeup in render/render.c) */
static bool teaches_name(const struct ipt_dump *d, const struct ipt_record *rec)
{
	return rec->event && (rec->event == d->teach[0] || rec->event == d->teach[1] ||
			      rec->event == d->teach[2]);
}

/* find_teachers - the events of t that teaches_name answers for */
static void find_teachers(struct ipt_dump *d)
{
	static const char *const names[] = { "sched_switch", "sched_wakeup", "sched_wakeup_new" };

	if (d->o.flags & IPT_RENDER_RAW)
		return;		/* name=value: no plugin, no names learnt */
	for (int i = 0; i < 3; i++)
		d->teach[i] = ipt_trace_find_event(d->t, "sched", names[i]);
}

static bool kept(const struct ipt_dump *d, struct ipt_event_filter *ef, const struct ipt_record *rec)
{
	return (!d->o.keep || d->o.keep(d->o.keep_ctx, rec)) && (!ef || ipt_event_filter_match(ef, rec));
}

/* render_one - rec's text, each line ended by '\n', appended to out */
static int render_one(const struct ipt_dump *d, const struct ipt_record *rec, struct ipt_strbuf *out)
{
	if (d->o.drop_lines && rec->missed == UINT64_MAX) {
		if (ipt_strbuf_addf(out, "CPU:%d [EVENTS DROPPED]\n", rec->cpu))
			return -1;
	} else if (d->o.drop_lines && rec->missed) {
		if (ipt_strbuf_addf(out, "CPU:%d [%llu EVENTS DROPPED]\n", rec->cpu,
				    (unsigned long long)rec->missed))
			return -1;
	}
	return ipt_render_record(d->t, rec, d->o.flags, out) || ipt_strbuf_addc(out, '\n') ? -1 : 0;
}

static const struct ipt_cpuset *cpus_of(const struct ipt_dump *d)
{
	return d->all_cpus ? NULL : &d->cpus;
}

static bool selected(const struct ipt_dump *d, int si)
{
	return d->all_cpus || ipt_cpuset_has(&d->cpus, (unsigned int)d->t->streams[si].cpu);
}

/* ---- slices ---- */

/*
 * slice_run - render slice s into its slot (a worker).  SL_GIVE_UP when
 * it cannot stand for what one iterator gives: a bad record, a place not
 * found, a record that names tasks.
 */
static enum slice_state slice_run(struct ipt_dump *d, struct slot *sl, uint64_t s,
				   struct ipt_event_filter *ef, struct ipt_iter **itp)
{
	const struct ipt_record *rec;
	int k = -1;

	ipt_strbuf_reset(&sl->text);
	*itp = ipt_iter_slice(*itp, d->t, cpus_of(d), NULL, d->cut[s], d->cut[s + 1], SLICE_BLOCK);
	if (!*itp)
		return SL_GIVE_UP;
	while ((k = ipt_iter_step(*itp, &rec)) > 0) {
		if (!kept(d, ef, rec))
			continue;
		if (teaches_name(d, rec) || render_one(d, rec, &sl->text))
			break;
	}
	if (k) {
		ipt_strbuf_reset(&sl->text);
		return SL_GIVE_UP;
	}
	ipt_iter_slice_places(*itp, sl->from, sl->to);
	return SL_DONE;
}

static void *worker(void *arg)
{
	struct ipt_dump *d = arg;
	struct ipt_event_filter *ef = d->filter ? ipt_event_filter_new(d->t, d->filter) : NULL;
	struct ipt_iter *it = NULL;	/* the worker's, its buffers used again */

	pthread_mutex_lock(&d->lock);
	for (;;) {
		uint64_t s;
		struct slot *sl;
		enum slice_state st;

		/* a slot is free once the slice before it in the ring was handed
		 * out and given back */
		while (!d->stop && d->claim < d->nslices &&
		       d->claim >= d->next - (d->held ? 1 : 0) + (uint64_t)d->window)
			pthread_cond_wait(&d->room, &d->lock);
		if (d->stop || d->claim >= d->nslices)
			break;
		s = d->claim++;
		sl = &d->slot[s % (uint64_t)d->window];
		sl->slice = s;
		sl->state = SL_RUNNING;
		pthread_mutex_unlock(&d->lock);
		/* no filter of its own (out of memory): one thread says so */
		st = d->filter && !ef ? SL_GIVE_UP : slice_run(d, sl, s, ef, &it);
		pthread_mutex_lock(&d->lock);
		sl->state = st;
		pthread_cond_broadcast(&d->done);
	}
	pthread_mutex_unlock(&d->lock);
	ipt_iter_free(it);
	ipt_event_filter_free(ef);
	return NULL;
}

static void workers_stop(struct ipt_dump *d)
{
	pthread_mutex_lock(&d->lock);
	d->stop = true;
	pthread_cond_broadcast(&d->room);
	pthread_mutex_unlock(&d->lock);
	for (int i = 0; i < d->started; i++)
		pthread_join(d->th[i], NULL);
	d->started = 0;
}

/*
 * can_slice - the slices stand for one iterator: flat streams, one per
 * CPU, no record limit
 */
static bool can_slice(const struct ipt_dump *d)
{
	const struct ipt_trace *t = d->t;
	struct ipt_cpuset seen = IPT_CPUSET_INIT;
	bool ok = d->threads > 1 && !d->o.max_records && t->layout.page_size > 0;

	ipt_cpuset_init(&seen);
	for (int i = 0; ok && i < t->nstreams; i++) {
		const struct ipt_cpu_stream *s = &t->streams[i];

		if (!selected(d, i))
			continue;
		if (s->chunked || (!s->data && s->size) || s->cpu < 0 || s->cpu >= IPT_CPUSET_MAX ||
		    ipt_cpuset_has(&seen, (unsigned int)s->cpu) || ipt_cpuset_add(&seen, (unsigned int)s->cpu))
			ok = false;
	}
	ipt_cpuset_free(&seen);
	return ok;
}

/*
 * plan_slices - the times the slices start at, from the page headers of
 * the largest stream; false for fewer than two slices
 */
static bool plan_slices(struct ipt_dump *d)
{
	const struct ipt_trace *t = d->t;
	uint64_t bytes = 0, ps = t->layout.page_size, pages, n, ts;
	int big = -1;

	for (int i = 0; i < t->nstreams; i++) {
		if (!selected(d, i))
			continue;
		bytes += t->streams[i].size;
		if (big < 0 || t->streams[i].size > t->streams[big].size)
			big = i;
	}
	if (big < 0)
		return false;
	pages = t->streams[big].size / ps;
	n = bytes / SLICE_BYTES;
	if (n < (uint64_t)d->threads * 2)
		n = (uint64_t)d->threads * 2;
	if (n > SLICES_MAX)
		n = SLICES_MAX;
	if (n > pages)
		n = pages;
	if (n < 2)
		return false;
	d->cut = ipt_calloc(n + 1, sizeof(*d->cut));
	if (!d->cut)
		return false;
	d->nslices = 0;
	for (uint64_t s = 1; s < n; s++) {
		/* times that do not grow make no slice: the slices just get fewer */
		if (!ipt_stream_page_ts(t, &t->streams[big], s * pages / n * ps, &ts) &&
		    ts > d->cut[d->nslices] && ts != UINT64_MAX)
			d->cut[++d->nslices] = ts;
	}
	d->cut[++d->nslices] = UINT64_MAX;
	return d->nslices >= 2;
}

static int slices_start(struct ipt_dump *d)
{
	int n = d->t->nstreams;

	d->window = d->threads + 2;
	d->slot = ipt_calloc((size_t)d->window, sizeof(*d->slot));
	d->at = ipt_calloc((size_t)n + 1, sizeof(*d->at));
	if (!d->slot || !d->at)
		return -1;
	for (int i = 0; i < d->window; i++) {
		d->slot[i].from = ipt_calloc((size_t)n + 1, sizeof(*d->slot[i].from));
		d->slot[i].to = ipt_calloc((size_t)n + 1, sizeof(*d->slot[i].to));
		if (!d->slot[i].from || !d->slot[i].to)
			return -1;
	}
	for (int i = 0; i < d->threads; i++) {
		if (pthread_create(&d->th[i], NULL, worker, d))
			break;
		d->started++;
	}
	return d->started ? 0 : ipt_err("cannot start a thread");
}

static void slot_free(struct slot *sl)
{
	free(sl->from);
	free(sl->to);
	ipt_strbuf_free(&sl->text);
}

/* ---- one thread ---- */

/* go_serial - one thread from here on: from where the slices handed out
 * stopped (at: NULL, from the start) */
static int go_serial(struct ipt_dump *d, const struct ipt_stream_pos *at)
{
	workers_stop(d);
	d->serial = true;
	if (at)
		d->it = ipt_iter_slice(NULL, d->t, cpus_of(d), at, 0, UINT64_MAX, 0);
	else
		d->it = ipt_iter_new(d->t, cpus_of(d));
	return d->it ? 0 : -1;
}

/* serial_next - the next block of text of one thread */
static int serial_next(struct ipt_dump *d, const char **text, size_t *len)
{
	struct ipt_record rec;
	int k = 1;

	if (d->err_pending) {
		d->err_pending = false;
		return ipt_err("%s", d->err);
	}
	if (d->ended)
		return 0;
	ipt_strbuf_reset(&d->out);
	while (d->out.len < BLOCK_BYTES) {
		if (d->o.max_records && d->rendered >= d->o.max_records) {
			k = 0;
			break;
		}
		if ((k = ipt_iter_next(d->it, &rec)) <= 0)
			break;
		if (!kept(d, d->ef, &rec))
			continue;
		if (render_one(d, &rec, &d->out)) {
			k = -1;
			break;
		}
		d->rendered++;
	}
	if (k <= 0)
		d->ended = true;
	if (k < 0) {
		if (!d->out.len)
			return -1;
		/* the text before the error first */
		snprintf(d->err, sizeof(d->err), "%s", ipt_errmsg());
		d->err_pending = true;
	}
	if (!d->out.len)
		return 0;
	*text = d->out.buf;
	*len = d->out.len;
	return 1;
}

static bool same_places(const struct ipt_dump *d, const struct ipt_stream_pos *a, const struct ipt_stream_pos *b)
{
	for (int i = 0; i < d->t->nstreams; i++)
		if (selected(d, i) && (a[i].page != b[i].page || a[i].rec != b[i].rec))
			return false;
	return true;
}

/* slices_next - the next slice's text, in order; slices that kept nothing
 * are passed over (a loop: a sparse selection may skip thousands) */
static int slices_next(struct ipt_dump *d, const char **text, size_t *len)
{
	struct slot *sl;
	bool ok;

	for (;;) {
		pthread_mutex_lock(&d->lock);
		if (d->held) {
			d->held = false;
			pthread_cond_broadcast(&d->room);
		}
		if (d->next >= d->nslices) {
			pthread_mutex_unlock(&d->lock);
			return 0;
		}
		sl = &d->slot[d->next % (uint64_t)d->window];
		while (sl->slice != d->next || sl->state == SL_RUNNING ||
		       sl->state == SL_WAITING)
			pthread_cond_wait(&d->done, &d->lock);
		ok = sl->state == SL_DONE &&
		     (!d->next || same_places(d, sl->from, d->at));
		if (ok) {
			memcpy(d->at, sl->to, (size_t)d->t->nstreams * sizeof(*d->at));
			d->next++;
			d->held = true;
		}
		pthread_mutex_unlock(&d->lock);
		if (!ok) {
			if (go_serial(d, d->next ? d->at : NULL))
				return -1;
			return serial_next(d, text, len);
		}
		if (sl->text.len) {
			*text = sl->text.buf;
			*len = sl->text.len;
			return 1;
		}
	}
}

/* ---- the caller's side ---- */

struct ipt_dump *ipt_dump_new(struct ipt_trace *t, const struct ipt_dump_opts *o)
{
	struct ipt_dump_opts known;
	struct ipt_dump *d;

	if (IPT_OPTS_COPY(known, o, "dump"))
		return NULL;
	d = ipt_calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->t = t;
	d->o = known;
	d->o.filter = NULL;
	d->o.cpus = NULL;
	ipt_cpuset_init(&d->cpus);
	d->all_cpus = !known.cpus;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->room, NULL);
	pthread_cond_init(&d->done, NULL);
	if ((known.cpus && ipt_cpuset_copy(&d->cpus, known.cpus)) ||
	    (known.filter && *known.filter && !(d->filter = ipt_strdup(known.filter))) ||
	    (d->filter && !(d->ef = ipt_event_filter_new(t, d->filter)))) {
		ipt_dump_free(d);
		return NULL;
	}
	find_teachers(d);
	d->threads = ipt_lanes_auto(t, known.threads, IPT_LANES_MIN_BYTES_DUMP);
	if (d->threads > IPT_LANES_MAX)
		d->threads = IPT_LANES_MAX;
	return d;
}

int ipt_dump_next(struct ipt_dump *d, const char **text, size_t *len)
{
	if (!d->serial && !d->slot) {
		if (can_slice(d) && plan_slices(d)) {
			if (slices_start(d))
				return -1;
		} else if (go_serial(d, NULL)) {
			return -1;
		}
	}
	if (d->serial)
		return serial_next(d, text, len);
	return slices_next(d, text, len);
}

void ipt_dump_free(struct ipt_dump *d)
{
	if (!d)
		return;
	workers_stop(d);
	for (int i = 0; d->slot && i < d->window; i++)
		slot_free(&d->slot[i]);
	free(d->slot);
	free(d->at);
	free(d->cut);
	ipt_iter_free(d->it);
	ipt_event_filter_free(d->ef);
	ipt_strbuf_free(&d->out);
	ipt_cpuset_free(&d->cpus);
	free(d->filter);
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->room);
	pthread_cond_destroy(&d->done);
	free(d);
}
