// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * count.c - decode every record and count them per CPU and per event type,
 * one thread per group of CPU streams (declared in ipitrace.h): the
 * decode-only path, what reading a trace costs before any analysis
 */
#include "input/input.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct count_worker {
	struct ipt_trace *t;
	int first, step;		/* streams first, first+step, ... */
	uint64_t *per_id;		/* records per event id (max_id + 2; last: unknown) */
	struct ipt_count_cpu *per_stream;
	int failed;
	char err[512];
};

/* count_streams - a worker's streams, read to their end */
static void *count_streams(void *arg)
{
	struct count_worker *w = arg;
	struct ipt_trace *t = w->t;

	for (int i = w->first; i < t->nstreams; i += w->step) {
		struct ipt_page_reader pr;
		struct ipt_record r;
		int k;

		ipt_page_reader_init(&pr, t, &t->streams[i]);
		while ((k = ipt_page_reader_next(&pr, &r)) > 0) {
			w->per_stream[i].records++;
			if (r.missed == UINT64_MAX)
				w->per_stream[i].lost_unknown++;
			else
				w->per_stream[i].lost_events += r.missed;
			w->per_id[r.event ? r.event->id : t->max_id + 1]++;
		}
		ipt_page_reader_release(&pr);
		if (k < 0) {
			w->failed = 1;
			snprintf(w->err, sizeof(w->err), "%s", ipt_errmsg());
			break;
		}
	}
	return NULL;
}

/* workers_free - the workers' counters */
static void workers_free(struct count_worker *w, long n)
{
	for (long i = 0; w && i < n; i++) {
		free(w[i].per_id);
		free(w[i].per_stream);
	}
	free(w);
}

/* counts_build - the result from the summed counters of worker 0 */
static struct ipt_counts *counts_build(struct ipt_trace *t, struct count_worker *w0, int nid)
{
	struct ipt_counts *c = ipt_calloc(1, sizeof(*c));
	int nev = 0;

	if (!c)
		return NULL;
	for (int k = 0; k < nid - 1; k++)
		if (w0->per_id[k] && ipt_trace_event_by_id(t, k))
			nev++;
	c->cpus = ipt_calloc((size_t)t->nstreams + 1, sizeof(*c->cpus));
	c->events = ipt_calloc((size_t)nev + 1, sizeof(*c->events));
	if (!c->cpus || !c->events) {
		ipt_counts_free(c);
		return NULL;
	}
	c->ncpus = t->nstreams;
	for (int k = 0; k < t->nstreams; k++) {
		c->cpus[k] = w0->per_stream[k];
		c->cpus[k].cpu = t->streams[k].cpu;
		c->records += c->cpus[k].records;
		c->lost_events += c->cpus[k].lost_events;
		c->lost_unknown += c->cpus[k].lost_unknown;
	}
	for (int k = 0; k < nid; k++) {
		const struct ipt_event *ev = k < nid - 1 ? ipt_trace_event_by_id(t, k) : NULL;

		if (!w0->per_id[k])
			continue;
		if (ev) {
			c->events[c->nevents].event = ev;
			c->events[c->nevents++].records = w0->per_id[k];
		} else {
			c->unknown += w0->per_id[k];
		}
	}
	return c;
}

struct ipt_counts *ipt_trace_count(struct ipt_trace *t, const struct ipt_count_opts *opts)
{
	struct ipt_count_opts o = { 0 };
	struct ipt_counts *c = NULL;
	struct count_worker *w = NULL;
	pthread_t *th = NULL;
	long nthreads, started;
	int nid;

	if (IPT_OPTS_COPY(o, opts, "count"))
		return NULL;
	if (!t) {
		ipt_err_code(IPT_ERR_INVALID, "count: no trace");
		return NULL;
	}
	if (o.threads < 0) {
		ipt_err_code(IPT_ERR_INVALID, "count: %d threads", o.threads);
		return NULL;
	}
	nthreads = o.threads ? o.threads : sysconf(_SC_NPROCESSORS_ONLN);
	if (nthreads < 1)
		nthreads = 1;
	if (nthreads > t->nstreams)
		nthreads = t->nstreams > 0 ? t->nstreams : 1;
	nid = t->max_id + 2;
	w = ipt_calloc((size_t)nthreads, sizeof(*w));
	th = ipt_calloc((size_t)nthreads, sizeof(*th));
	if (!w || !th)
		goto out;
	for (long i = 0; i < nthreads; i++) {
		w[i].t = t;
		w[i].first = (int)i;
		w[i].step = (int)nthreads;
		w[i].per_id = ipt_calloc((size_t)nid, sizeof(uint64_t));
		w[i].per_stream = ipt_calloc((size_t)t->nstreams + 1, sizeof(*w[i].per_stream));
		if (!w[i].per_id || !w[i].per_stream) {
			workers_free(w, i + 1);
			w = NULL;
			goto out;
		}
	}
	/* the streams of a thread that cannot start are read by this one */
	started = 1;
	while (started < nthreads && !pthread_create(&th[started], NULL, count_streams, &w[started]))
		started++;
	for (long i = started; i < nthreads; i++)
		count_streams(&w[i]);
	count_streams(&w[0]);
	for (long i = 1; i < started; i++)
		pthread_join(th[i], NULL);
	for (long i = 0; i < nthreads; i++)
		if (w[i].failed) {
			ipt_err("%s", w[i].err);
			goto out;
		}
	for (long i = 1; i < nthreads; i++) {
		for (int k = 0; k < nid; k++)
			w[0].per_id[k] += w[i].per_id[k];
		for (int k = 0; k < t->nstreams; k++) {
			w[0].per_stream[k].records += w[i].per_stream[k].records;
			w[0].per_stream[k].lost_events += w[i].per_stream[k].lost_events;
			w[0].per_stream[k].lost_unknown += w[i].per_stream[k].lost_unknown;
		}
	}
	c = counts_build(t, &w[0], nid);
out:
	workers_free(w, w ? nthreads : 0);
	free(th);
	return c;
}

void ipt_counts_free(struct ipt_counts *c)
{
	if (!c)
		return;
	free(c->cpus);
	free(c->events);
	free(c);
}
