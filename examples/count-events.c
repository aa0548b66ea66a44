/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * count-events.c - open a trace, read every event in time order, and print
 * how many there are of each event type and on each CPU.
 *
 *   usage: count-events TRACE     (trace.dat, or `trace-cmd report` text)
 */
#include <ipitrace.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s TRACE\n", argv[0]);
		return 2;
	}
	/* Open the trace: its kind (binary or text) is found from its content. */
	struct ipt_trace *t = ipt_trace_open(argv[1]);
	if (!t) {
		fprintf(stderr, "%s\n", ipt_errmsg());	/* "FILE: offset N: why" */
		return 1;
	}
	/* One counter per event type id (a record's common_type: 16 bits; a
	 * trace may describe thousands of types, most never recorded), one per CPU. */
	int nevents = ipt_trace_nevents(t), ncpus = ipt_trace_ncpus(t);
	uint64_t *by_id = calloc(65536, sizeof(*by_id));
	uint64_t *by_cpu = calloc(ncpus + 1, sizeof(*by_cpu));
	uint64_t total = 0, unknown = 0;
	/* An iterator over all CPUs (NULL), merged in timestamp order. */
	struct ipt_iter *it = by_id && by_cpu ? ipt_iter_new(t, NULL) : NULL;
	struct ipt_record rec;
	int r = -1;
	if (it) {
		while ((r = ipt_iter_next(it, &rec)) > 0) {	/* 1: a record, 0: the end */
			total++;
			if (rec.cpu >= 0 && rec.cpu < ncpus)
				by_cpu[rec.cpu]++;
			if (rec.event && (unsigned int)ipt_event_id(rec.event) < 65536)
				by_id[ipt_event_id(rec.event)]++;
			else
				unknown++;	/* a type the trace does not describe */
		}
		ipt_iter_free(it);
	}
	if (r < 0) {	/* no memory, or a damaged trace (the message says where) */
		fprintf(stderr, "%s\n", by_id && by_cpu ? ipt_errmsg() : "out of memory");
	} else {
		for (int i = 0; i < nevents; i++) {
			const struct ipt_event *ev = ipt_trace_event_at(t, i);
			unsigned int id = ipt_event_id(ev);
			if (id < 65536 && by_id[id])
				printf("%10llu  %s:%s\n", (unsigned long long)by_id[id],
				       ipt_event_system(ev), ipt_event_name(ev));
		}
		if (unknown)
			printf("%10llu  (unknown event type)\n", (unsigned long long)unknown);
		for (int c = 0; c < ncpus; c++)
			printf("%10llu  on cpu %d\n", (unsigned long long)by_cpu[c], c);
		printf("%10llu  events in all\n", (unsigned long long)total);
	}
	free(by_id);
	free(by_cpu);
	ipt_trace_close(t);
	return r < 0;
}
