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
	/* One counter per event type (by its position in the trace's list),
	 * one per CPU, and one for records of a type the trace does not describe. */
	int nevents = ipt_trace_nevents(t), ncpus = ipt_trace_ncpus(t);
	uint64_t *by_event = calloc(nevents + 1, sizeof(*by_event));
	uint64_t *by_cpu = calloc(ncpus + 1, sizeof(*by_cpu));
	uint64_t total = 0, unknown = 0;
	int ret = 1;
	if (!by_event || !by_cpu) {
		fprintf(stderr, "out of memory\n");
		goto out;
	}
	/* An iterator over all CPUs (NULL), merged in timestamp order. */
	struct ipt_iter *it = ipt_iter_new(t, NULL);
	if (!it) {
		fprintf(stderr, "%s\n", ipt_errmsg());
		goto out;
	}
	struct ipt_record rec;
	int r;
	while ((r = ipt_iter_next(it, &rec)) > 0) {	/* 1: a record, 0: the end */
		total++;
		if (rec.cpu >= 0 && rec.cpu < ncpus)
			by_cpu[rec.cpu]++;
		int i = 0;
		while (i < nevents && ipt_trace_event_at(t, i) != rec.event)
			i++;		/* a linear search keeps the example short */
		if (rec.event && i < nevents)
			by_event[i]++;
		else
			unknown++;
	}
	ipt_iter_free(it);
	if (r < 0) {		/* -1: the trace is damaged; say where */
		fprintf(stderr, "%s\n", ipt_errmsg());
		goto out;
	}
	for (int i = 0; i < nevents; i++) {
		const struct ipt_event *ev = ipt_trace_event_at(t, i);
		if (by_event[i])
			printf("%10llu  %s:%s\n", (unsigned long long)by_event[i],
			       ipt_event_system(ev), ipt_event_name(ev));
	}
	if (unknown)
		printf("%10llu  (unknown event type)\n", (unsigned long long)unknown);
	for (int c = 0; c < ncpus; c++)
		printf("%10llu  on cpu %d\n", (unsigned long long)by_cpu[c], c);
	printf("%10llu  events in all\n", (unsigned long long)total);
	ret = 0;
out:
	free(by_event);
	free(by_cpu);
	ipt_trace_close(t);
	return ret;
}
