// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_count.c - `ipitrace count`: decode every record and count events per
 * CPU and per event type, with one thread per group of CPU streams.  The
 * decode-only path: what reading a trace costs before any analysis.
 */
#include "commands.h"
#include "input/input.h"
#include "render/render.h"

#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

struct worker {
	struct ipt_trace *t;
	int first, step;		/* streams first, first+step, ... */
	uint64_t *per_id;		/* records per event id (max_id + 2; last: unknown) */
	uint64_t *per_stream;
	int failed;
	char err[512];
};

static void *count_streams(void *arg)
{
	struct worker *w = arg;
	struct ipt_trace *t = w->t;

	for (int i = w->first; i < t->nstreams; i += w->step) {
		struct ipt_page_reader pr;
		struct ipt_record r;
		int k;

		ipt_page_reader_init(&pr, t, &t->streams[i]);
		while ((k = ipt_page_reader_next(&pr, &r)) > 0) {
			w->per_stream[i]++;
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

static void count_usage(FILE *f)
{
	fprintf(f,
		"usage: ipitrace count [OPTIONS] FILE\n"
		"\n"
		"Decode every record of FILE and print the number of events per CPU and per\n"
		"event type.  CPU streams are decoded in parallel, one thread per core.\n"
		"\n"
		"  -j, --threads N   decoding threads (default: online CPUs, at most the streams)\n"
		"  -h, --help        this text\n");
}

int cmd_count(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threads", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ipt_trace *t;
	struct worker *w = NULL;
	pthread_t *th = NULL;
	long nthreads = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t total = 0;
	int c, ret = 1, nid;

	while ((c = getopt_long(argc, argv, "j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': {
			char *end;

			nthreads = strtol(optarg, &end, 10);
			if (*end || nthreads < 1 || nthreads > 1024) {
				err_msg("--threads: a number from 1 to 1024, not '%s'", optarg);
				return 2;
			}
			break;
		}
		case 'h': count_usage(stdout); return 0;
		default: count_usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		count_usage(stderr);
		return 2;
	}
	t = ipt_trace_open(argv[optind]);
	if (!t) {
		err_msg("%s", ipt_errmsg());
		return 1;
	}
	if (nthreads > t->nstreams)
		nthreads = t->nstreams > 0 ? t->nstreams : 1;
	nid = t->max_id + 2;
	w = calloc((size_t)nthreads, sizeof(*w));
	th = calloc((size_t)nthreads, sizeof(*th));
	if (!w || !th)
		goto oom;
	for (long i = 0; i < nthreads; i++) {
		w[i].t = t;
		w[i].first = (int)i;
		w[i].step = (int)nthreads;
		w[i].per_id = calloc((size_t)nid, sizeof(uint64_t));
		w[i].per_stream = calloc((size_t)t->nstreams + 1, sizeof(uint64_t));
		if (!w[i].per_id || !w[i].per_stream)
			goto oom;
	}
	for (long i = 1; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, count_streams, &w[i])) {
			err_msg("cannot start a thread");
			nthreads = i;
			break;
		}
	count_streams(&w[0]);
	for (long i = 1; i < nthreads; i++)
		pthread_join(th[i], NULL);
	for (long i = 0; i < nthreads; i++)
		if (w[i].failed) {
			err_msg("%s", w[i].err);
			goto out;
		}
	for (long i = 1; i < nthreads; i++) {
		for (int k = 0; k < nid; k++)
			w[0].per_id[k] += w[i].per_id[k];
		for (int k = 0; k < t->nstreams; k++)
			w[0].per_stream[k] += w[i].per_stream[k];
	}
	for (int k = 0; k < t->nstreams; k++) {
		printf("cpu %d: %llu events\n", t->streams[k].cpu, (unsigned long long)w[0].per_stream[k]);
		total += w[0].per_stream[k];
	}
	for (int k = 0; k < nid; k++) {
		const struct ipt_event *ev = k < nid - 1 ? ipt_trace_event_by_id(t, k) : NULL;

		if (!w[0].per_id[k])
			continue;
		if (ev)
			printf("%s:%s: %llu\n", ev->system, ev->name, (unsigned long long)w[0].per_id[k]);
		else
			printf("unknown event types: %llu\n", (unsigned long long)w[0].per_id[k]);
	}
	printf("total: %llu events\n", (unsigned long long)total);
	ret = 0;
	goto out;
oom:
	err_msg("out of memory");
out:
	for (long i = 0; w && i < nthreads; i++) {
		free(w[i].per_id);
		free(w[i].per_stream);
	}
	free(w);
	free(th);
	ipt_trace_close(t);
	return ret;
}
