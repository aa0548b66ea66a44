// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_report.c - `ipitrace report`: who interrupts my CPUs
 *
 * Renders the report of the library (ipt_report_run) as text (for people)
 * or JSON (for scripts; it carries every number the text shows).
 */
#include "commands.h"
#include "outfile.h"
#include "report_html.h"
#include "report_out.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: ipitrace report [OPTIONS] [FILE]\n"
		"\n"
		"Who sends which IPIs to which CPUs, how often, from where, and how long they\n"
		"took: per target CPU counts by kind, the top senders and call sites, a sender x\n"
		"target matrix, send-to-handler latency and handler time, and every IPI that\n"
		"reached the CPUs given with --isolated.  Without FILE: the newest of\n"
		"ipitrace.dat and ipitrace-*.dat in the current directory, named on stderr; '-'\n"
		"(or a pipe) reads standard input, e.g. `zcat x.dat.gz | ipitrace report -`.\n"
		"\n"
		"  -F, --filter EXPR    count only IPI rows matching EXPR (matching still sees\n"
		"                       all), on a row's columns or what matching found:\n"
		"                       'lat_ns > 100us', 'stack ~ \"*flush_tlb*\"' (`ipitrace\n"
		"                       help filters`)\n"
		"  -c, --cpus LIST      count only IPIs to these target CPUs (with -F: both)\n"
		"  -i, --isolated LIST  the isolated CPUs: reported as one role before the\n"
		"                       housekeeping rest, and every IPI that reached them\n"
		"                       listed (default: the isolated/nohz_full CPUs stored\n"
		"                       by `ipitrace record`)\n"
		"      --all            list every IPI to the isolated CPUs (default: the first\n"
		"                       20 and the 20 slowest of the rest, and how many more)\n"
		"  -g, --by KEY         group the senders per target CPU by KEY: comm\n"
		"                       (default; with its number of pids and the top ones),\n"
		"                       pid, task (pid on a sending CPU), cpu (sending CPU),\n"
		"                       callsite, function (the function run, else the\n"
		"                       callback), kind, or stack (the sender's kernel stack,\n"
		"                       tracing frames trimmed; recorded with --stacks)\n"
		"  -k, --sort ORDER     count (default: largest first) or key (by the key)\n"
		"      --with-recorder  keep the IPIs `ipitrace record` itself sent in the\n"
		"                       groups by comm, pid, task and cpu (default: apart)\n"
		"  -t, --top N          rows in the top-N tables, and beyond 16 CPUs in the\n"
		"                       per-CPU tables, which then show the N busiest\n"
		"                       isolated and other CPUs, ranges of equal figures\n"
		"                       merged (default 5; 0: all, every CPU)\n"
		"      --buffer NAME    only this buffer of a trace with tracefs instance\n"
		"                       buffers (trace-cmd record/extract -B); 'top' is the\n"
		"                       top one.  A trace with data in several needs it\n"
		"  -f, --format FMT     text (default), json (docs/schema/report.json), folded\n"
		"                       or uniq.  folded: the senders' stacks as folded lines\n"
		"                       'comm;root;...;leaf COUNT' for flamegraph.pl, inferno\n"
		"                       or speedscope (all target CPUs; restrict with -F\n"
		"                       'target_cpu==N'); uniq: the two tables of the\n"
		"                       trace-cmd recipe `trace-cmd report |\n"
		"                       grep callback | awk '{ print $(NF) }' | sort | uniq -c |\n"
		"                       sort -nr` (the send events by callback) and the same\n"
		"                       with grep csd_queue and $(NF-1) (the queued csd calls by\n"
		"                       func), byte for byte, each after a '# ' line saying\n"
		"                       what it counts and the stack lines the recipe's grep\n"
		"                       would count too; -F and -c keep an event if they keep\n"
		"                       any of its rows (a queued call: one to its cpu)\n"
		"      --html OUT       write the report as one self-contained HTML file (charts\n"
		"                       in inline SVG, no script, no network) instead, and say\n"
		"                       where; not with --format\n"
		"      --force          replace OUT if it exists (else an error)\n"
		"  -j, --threads N      1 to 8 (default: the online CPUs, at most 8; 1 on UP and\n"
		"                       for a trace with less than 8 MiB of CPU data).\n"
		"                       1: one thread.  N > 1: the CPUs' streams are decoded\n"
		"                       by N threads in parallel and merged in time order for\n"
		"                       the matching; a trace with sched events keeps the\n"
		"                       task names each thread learns apart, the first of\n"
		"                       each pid by time taken at the end (with --filter: one\n"
		"                       thread decodes, another counts).  The output is the\n"
		"                       same for any N\n"
		"      --assume-synced-clock\n"
		"                       compute cross-CPU latencies even when the trace clock\n"
		"                       is per-CPU (e.g. 'local'); see LATENCIES below\n"
		"  -h, --help           this text\n"
		"\n"
		"Matching: each IPI is queued on its target CPU until the interrupt that serves\n"
		"it (x86 irq_vectors:reschedule/call_function/call_function_single/irq_work\n"
		"entry, arm64 ipi:ipi_entry with the same reason).  A vector is pending at most\n"
		"once per CPU and a send is traced before it is written to the interrupt\n"
		"controller, so an interrupt serves every IPI waiting: the oldest raised it,\n"
		"the others coalesced into it; one sent less than half the quickest delivery\n"
		"seen before it waits for the next.  The newest of several may have been\n"
		"written just after the interrupt was taken: the next interrupt takes it if\n"
		"nothing else was sent in between (a guess: a wrong one moves that IPI by one\n"
		"interrupt, never the ones after it; docs/matching.md).  A drop mark on the\n"
		"target sets the IPIs waiting there aside (unmatched: lost events).  csd calls\n"
		"are matched by target CPU and csd pointer from csd_queue_cpu to\n"
		"csd_function_entry, never across a drop.  Unmatched IPIs are counted with a\n"
		"reason.\n"
		"\n"
		"LATENCIES from a send on one CPU to its handler on another compare timestamps\n"
		"of two CPUs; they are shown only when the trace clock is comparable across\n"
		"CPUs (global, mono, mono_raw, boot, tai, counter, x86-tsc).  `ipitrace record`\n"
		"uses mono.  Handler times (same CPU) are always shown.  Times are in\n"
		"microseconds.\n");
}

struct ctx {
	struct ipt_report *r;
	const struct ipt_report_summary *s;
	struct ipt_trace *t;
	int top;			/* 0: all */
	enum ipt_group_by by;
	enum ipt_group_sort sort;
	bool json;
	bool with_recorder;
	bool ns;		/* timestamps are ns; else no times are shown ("cycles, not ns") */
};


/* folded_report - the senders' stacks as folded lines, on stdout */
static int folded_report(struct ctx *x)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	uint64_t total = 0;

	if (ipt_report_folded(x->r, -1, &sb, &total)) {
		ipt_strbuf_free(&sb);
		return -1;
	}
	if (!total) {
		ipt_strbuf_free(&sb);
		if (!x->s->ipis_counted)
			err_msg("%s: no IPI %sto fold", ipt_trace_path(x->t), x->s->filtered ? "matches the filter " : "");
		else
			err_msg("%s: none of its %llu IPIs has a kernel stack (record with --stacks, or"
				" trace-cmd record -T)", ipt_trace_path(x->t), (unsigned long long)x->s->ipis_counted);
		return -1;
	}
	fwrite(ipt_strbuf_str(&sb), 1, sb.len, stdout);
	ipt_strbuf_free(&sb);
	return 0;
}

/* stored_isolated - the isolated and nohz_full CPUs `ipitrace record`
 * stored in the file, as one set (as record and top keep off them) */
static bool stored_isolated(struct ipt_trace *t, struct ipt_cpuset *set)
{
	struct ipt_cpuset nohz = IPT_CPUSET_INIT;
	bool ok;

	ipt_cpuset_init(&nohz);
	ok = ipt_trace_cpu_isolation(t, set, &nohz) && !ipt_cpuset_or(set, &nohz) && !ipt_cpuset_empty(set);
	ipt_cpuset_free(&nohz);
	return ok;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "filter", required_argument, NULL, 'F' },
		{ "isolated", required_argument, NULL, 'i' },
		{ "top", required_argument, NULL, 't' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'f' },
		{ "assume-synced-clock", no_argument, NULL, 'S' },
		{ "html", required_argument, NULL, 'H' },
		{ "threads", required_argument, NULL, 'j' },
		{ "buffer", required_argument, NULL, 'B' },
		{ "by", required_argument, NULL, 'g' },
		{ "with-recorder", no_argument, NULL, 'W' },
		{ "sort", required_argument, NULL, 'k' },
		{ "all", no_argument, NULL, 'A' },
		{ "force", no_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ipt_cpuset iso = IPT_CPUSET_INIT;
	struct ipt_report_opts ro = { .sz = sizeof(ro) };
	struct ipt_report *r = NULL;
	struct ctx x = { 0 };
	char found[256];
	const char *path, *html = NULL, *buffer = NULL, *fmt_arg = NULL;
	const char *cpus_arg = NULL;
	char *cpus_expr = NULL;
	bool have_iso = false, folded = false, uniq = false, all_isolated = false, force = false;
	const char *iso_arg = NULL;
	int c, ret = 1;

	ipt_cpuset_init(&iso);
	x.top = 5;
	ro.threads = 0;	/* the library's choice */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":F:c:i:t:f:g:k:j:h", opts, NULL)) != -1) {
		switch (c) {
		case '?':
		case ':':
			return opt_err("report", c, argv);
		case 'c': cpus_arg = optarg; break;
		case 'F': ro.filter = optarg; break;
		case 'B': buffer = optarg; break;
		case 'A': all_isolated = true; break;
		case 'i':
			if (ipt_cpuset_parse_list(&iso, optarg, strlen(optarg))) {
				ipt_cpuset_free(&iso);
				return usage_err("report", "--isolated: %s", ipt_errmsg());
			}
			have_iso = true;
			iso_arg = optarg;
			break;
		case 't': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || end == optarg || v < 0 || v > 100000) {
				ipt_cpuset_free(&iso);
				return usage_err("report", "--top: expected a number from 0 (all) to 100000, got '%s'",
						 optarg);
			}
			x.top = (int)v;
			break;
		}
		case 'f':
			fmt_arg = optarg;
			x.json = !strcmp(optarg, "json");
			folded = !strcmp(optarg, "folded");
			uniq = !strcmp(optarg, "uniq");
			if (!x.json && !folded && !uniq && strcmp(optarg, "text")) {
				ipt_cpuset_free(&iso);
				return usage_err("report", "--format: text, json, folded or uniq, not '%s'", optarg);
			}
			break;
		case 'g': {
			int by = ipt_group_by_from_name(optarg);

			if (by < 0) {
				ipt_cpuset_free(&iso);
				return usage_err("report", "--by: comm, pid, task, cpu, callsite, function, kind or"
						 " stack, not '%s'", optarg);
			}
			x.by = (enum ipt_group_by)by;
			break;
		}
		case 'k':
			if (!strcmp(optarg, "count"))
				x.sort = IPT_SORT_COUNT;
			else if (!strcmp(optarg, "key"))
				x.sort = IPT_SORT_KEY;
			else {
				ipt_cpuset_free(&iso);
				return usage_err("report", "--sort: count or key, not '%s'", optarg);
			}
			break;
		case 'S': ro.assume_synced_clock = true; break;
		case 'W': ro.with_recorder = x.with_recorder = true; break;
		case 'H': html = optarg; break;
		case 'O': force = true; break;
		case 'j':
			if (optarg[0] < '1' || optarg[0] > '8' || optarg[1]) {
				ipt_cpuset_free(&iso);
				return usage_err("report", "--threads: a number from 1 to 8, not '%s'", optarg);
			}
			ro.threads = optarg[0] - '0';
			break;
		case 'h': ipt_cpuset_free(&iso); report_usage(stdout); return 0;
		default: ipt_cpuset_free(&iso); return 2;
		}
	}
	if (optind < argc - 1) {
		ipt_cpuset_free(&iso);
		return usage_err("report", "one FILE only (got '%s' and '%s')", argv[optind], argv[optind + 1]);
	}
	if (html && fmt_arg) {
		ipt_cpuset_free(&iso);
		return usage_err("report", "--html writes HTML: it takes no --format");
	}
	if (html && output_taken(html, force)) {
		ipt_cpuset_free(&iso);
		return 1;
	}
	if (optind == argc - 1)
		path = argv[optind];
	else if (!(path = default_trace("report", found, sizeof(found)))) {
		ipt_cpuset_free(&iso);
		return 1;
	}
	x.t = open_trace(path, buffer, true, &ret);
	x.ns = x.t && ipt_trace_ts_in_ns(x.t);
	if (!x.t) {
		ipt_cpuset_free(&iso);
		free(cpus_expr);
		return ret;
	}
	ret = 1;
	if (cpus_arg) {	/* a row filter on the target CPU, with --filter's */
		cpus_expr = cpus_filter("report", cpus_arg, ro.filter, x.t);
		if (!cpus_expr) {
			ipt_trace_close(x.t);
			ipt_cpuset_free(&iso);
			return 2;
		}
		ro.filter = cpus_expr;
	}
	if (iso_arg) {
		struct ipt_cpuset all = IPT_CPUSET_INIT;
		int bad;

		ipt_cpuset_init(&all);
		bad = trace_cpus(x.t, &all) || cpus_within("report", "--isolated", iso_arg, &iso, &all, "the trace");
		ipt_cpuset_free(&all);
		if (bad) {
			ipt_trace_close(x.t);
			ipt_cpuset_free(&iso);
			free(cpus_expr);
			return 2;
		}
	}
	if (!have_iso)
		have_iso = stored_isolated(x.t, &iso);
	ro.isolated = have_iso ? &iso : NULL;
	if (html) {	/* what only the charts show */
		ro.time_bins = REPORT_HTML_TIME_BINS;
		ro.kind_distributions = true;
	}
	if (uniq) {	/* the recipe's tables: no report to run */
		ret = report_uniq(x.t, ro.filter, stdout);
		if (!ret && (fflush(stdout) || ferror(stdout))) {
			err_msg("write error on standard output");
			ret = 1;
		}
		goto out;
	}
	r = ipt_report_run(x.t, &ro);
	if (!r) {
		ret = lib_err("report");
		goto out;
	}
	x.r = r;
	x.s = ipt_report_summary(r);
	if (html) {
		ret = report_html(r, x.t, ro.filter, ro.isolated, x.top, x.by, html, force);
		goto out;
	}
	if (folded) {
		if (folded_report(&x))
			goto out;
	} else {
		struct report_view v = { x.top, x.by, x.sort, x.ns, x.with_recorder, ro.isolated,
					  iso_arg ? "--isolated" : "the recording", all_isolated, iso_arg != NULL,
					  ro.filter != NULL };

		if ((x.json ? report_json : report_text)(r, x.t, &v, stdout))
			goto out;
	}
	if (fflush(stdout) || ferror(stdout)) {
		err_msg("write error on standard output");
		goto out;
	}
	ret = 0;
out:
	if (!ret)
		note_skipped(x.t);
	ipt_report_free(r);
	ipt_trace_close(x.t);
	ipt_cpuset_free(&iso);
	free(cpus_expr);
	return ret;
}
