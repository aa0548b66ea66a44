// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_count.c - `ipitrace count`: decode every record and count events per
 * CPU and per event type, with one thread per group of CPU streams.  The
 * decode-only path: what reading a trace costs before any analysis.
 */
#include "commands.h"

#include <getopt.h>
#include <stdlib.h>

static void count_usage(FILE *f)
{
	fprintf(f,
		"usage: ipitrace count [OPTIONS] [FILE]\n"
		"\n"
		"Decode every record of FILE ('-' or a pipe: standard input; none: the newest\n"
		"of ipitrace.dat and ipitrace-*.dat here) and print the number of events per\n"
		"CPU and per event type.  CPU streams are decoded in parallel, one thread per\n"
		"core.\n"
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
	struct ipt_count_opts co = { .sz = sizeof(co) };
	struct ipt_trace *t;
	struct ipt_counts *n;
	const char *path;
	char found[256];
	int c, r;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":j:h", opts, NULL)) != -1) {
		switch (c) {
		case '?':
		case ':':
			return opt_err("count", c, argv);
		case 'j': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || v < 1 || v > 1024)
				return usage_err("count", "--threads: a number from 1 to 1024, not '%s'", optarg);
			co.threads = (int)v;
			break;
		}
		case 'h': count_usage(stdout); return 0;
		default: return 2;
		}
	}
	if (optind < argc - 1)
		return usage_err("count", "one FILE only");
	path = optind == argc - 1 ? argv[optind] : default_trace("count", found, sizeof(found));
	if (!path)
		return 1;
	t = open_trace(path, NULL, false, &r);
	if (!t)
		return r;
	n = ipt_trace_count(t, &co);
	if (!n) {
		err_msg("%s", ipt_errmsg());
		ipt_trace_close(t);
		return 1;
	}
	for (int k = 0; k < n->ncpus; k++)
		printf("cpu %d: %llu events\n", n->cpus[k].cpu, (unsigned long long)n->cpus[k].records);
	for (int k = 0; k < n->nevents; k++)
		printf("%s:%s: %llu\n", ipt_event_system(n->events[k].event),
		       ipt_event_name(n->events[k].event), (unsigned long long)n->events[k].records);
	if (n->unknown)
		printf("unknown event types: %llu\n", (unsigned long long)n->unknown);
	printf("total: %llu events\n", (unsigned long long)n->records);
	ipt_counts_free(n);
	ipt_trace_close(t);
	return 0;
}
