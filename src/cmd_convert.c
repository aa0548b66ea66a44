// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_convert.c - `ipitrace convert`: IPI rows as tables for other tools
 */
#include "commands.h"
#include "outfile.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void convert_usage(FILE *f)
{
	fprintf(f,
		"usage: ipitrace convert [OPTIONS] FILE -o OUT\n"
		"       ipitrace convert [OPTIONS] FILE -o DIR --partition-by host,date\n"
		"\n"
		"Write the IPIs of FILE as a table, one row per (IPI send, target CPU), for\n"
		"pandas, DuckDB, Spark, spreadsheets and scripts.\n"
		"\n"
		"  -o, --output OUT     output file; '-' for standard output (required).\n"
		"                       The file appears only when complete.\n"
		"  -f, --format FMT     csv, jsonl or parquet; default from OUT's extension\n"
		"                       (.csv, .jsonl/.json/.ndjson, .parquet), csv for '-'\n"
		"      --compression C  parquet: zstd (default) or none\n"
		"      --partition-by K parquet dataset: K is host, date or host,date; OUT is a\n"
		"                       directory, the file goes to OUT/host=H/date=D/part-N.parquet\n"
		"                       (H: the trace's uname node name; D: the trace file's\n"
		"                       modification date, UTC; N: the first free number)\n"
		"      --no-explode     one row per send event; its targets as a CPU list\n"
		"                       string (csv: \"0-3,8\"), an array of integers (jsonl)\n"
		"                       or a list<int32> column (parquet)\n"
		"      --no-match       leave out the matching (a report pass): lat_ns,\n"
		"                       handler_ns, handler_ts_ns, matched, coalesced,\n"
		"                       unmatched_reason and stack are null\n"
		"  -F, --filter EXPR    keep rows matching EXPR (see ipitrace(1) FILTERS), e.g.\n"
		"                       'target_cpu == 3', 'cpumask & CPUS{4-7} && callsite ~ \"ttwu*\"'\n"		"      --buffer NAME    only this buffer of a trace with tracefs instance\n"
		"                       buffers ('top': the top one); needed when several hold data\n"
		"  -j, --threads N      decode the CPUs' streams in N threads (1 to 8; default:\n"
		"                       the online CPUs), merged in time order: the same rows\n"
		"                       and ids.  One thread with --no-explode, a filter on\n"
		"                       id, or a trace with sched events (task names learnt\n"
		"                       on the way)\n"
		"  -h, --help           this text\n"
		"\n"
		"Columns: ts_ns,id,src_cpu,target_cpu,ntargets,pid,comm,event,kind,callsite,\n"
		"callsite_sym,callback,callback_sym,func,func_sym,reason, then lat_ns,handler_ns,\n"
		"handler_ts_ns,matched,coalesced,unmatched_reason,callsite_func,func_name,stack.\n"
		"id numbers the send event (rows of one multicast share it); func is the\n"
		"function really run (from csd:csd_queue_cpu on Linux 6.5+); kind is one of\n"
		"resched, wakeup, call, tlb, irq_work, membarrier, timer, stop, other.\n"
		"Parquet: ts_ns is a TIMESTAMP(NANOS) of the trace clock (not wall-clock time),\n"
		"cpus and pid INT32, addresses \"0x...\" strings as in the CSV, unknown symbols\n"
		"NULL.\n"
		"\n"
		"The last columns come from matching each send to the interrupt that served it\n"
		"on its target CPU, as `ipitrace report` does (it reads the trace twice):\n"
		"matched (true/false), coalesced (served by an interrupt that had served an\n"
		"earlier send), unmatched_reason (trace_ended, no_receive_events, lost_events,\n"
		"no_handler), lat_ns (send -> handler entry), handler_ns (entry -> exit),\n"
		"handler_ts_ns (the entry's time); callsite_func is the call site's function,\n"
		"func_name the function really run (else the callback), stack the sender's\n"
		"kernel stack leaf first, tracing frames trimmed (\"sym+0xoff\" strings; csv:\n"
		"joined by ';').  Null (csv: empty) when not known: no match, lat_ns across\n"
		"CPUs with a clock not comparable across them, times with a clock not in ns,\n"
		"no exit seen, no stack recorded.  With --no-explode a row is a whole send:\n"
		"the per-target columns lat_ns .. unmatched_reason are given for a send to\n"
		"one CPU only, null for a multicast (use the default one row per target).\n"
		"Parquet: INT64, BOOLEAN, STRING, list<string> stack.  Matching keeps 32 bytes\n"
		"per row in memory (and the report's tables) until the end.\n");
}

/*
 * parquet_wanted - whether the options ask for Parquet: --format parquet, an
 * OUT ending in .parquet, or --partition-by.  1 yes, 0 no, -1 when they
 * contradict each other or are invalid (message printed): compression must
 * be none or zstd, partition keys host and/or date.
 */
static int parquet_wanted(const char *fmt, const char *out, const char *compression,
			  const char *partition_by)
{
	const char *dot = out ? strrchr(out, '.') : NULL;
	bool pq;

	if (fmt)
		pq = !strcmp(fmt, "parquet");
	else
		pq = partition_by || (dot && !strcmp(dot, ".parquet"));
	if (!pq && (compression || partition_by)) {
		err_msg("--compression and --partition-by apply to Parquet output only");
		return -1;
	}
	if (compression && strcmp(compression, "none") && strcmp(compression, "zstd")) {
		err_msg("--compression: none or zstd, not '%s'", compression);
		return -1;
	}
	if (partition_by && ipt_parquet_check_partition(partition_by)) {
		err_msg("--partition-by: %s", ipt_errmsg());
		return -1;
	}
	if (partition_by && out && !strcmp(out, "-")) {
		err_msg("--partition-by writes a directory: give one with -o DIR");
		return -1;
	}
	return pq ? 1 : 0;
}

/* parquet_opts - the writer's options from the command line and the environment */
static void parquet_opts(struct ipt_parquet_opts *o, bool explode, const char *compression,
			 const char *partition_by)
{
	const char *env;

	memset(o, 0, sizeof(*o));
	o->sz = sizeof(*o);
	o->explode = explode;
	o->codec = compression && !strcmp(compression, "none") ? IPT_PQ_UNCOMPRESSED : IPT_PQ_ZSTD;
	o->partition_by = partition_by;
	/* tuning knobs (the tests use small values to get many groups and pages) */
	if ((env = getenv("IPITRACE_PARQUET_ROW_GROUP_ROWS")))
		o->row_group_rows = strtoull(env, NULL, 10);
	if ((env = getenv("IPITRACE_PARQUET_PAGE_ROWS")))
		o->page_rows = (uint32_t)strtoul(env, NULL, 10);
}

static int pick_format(const char *fmt, const char *out, enum ipt_row_format *f)
{
	const char *dot;

	if (fmt) {
		if (!strcmp(fmt, "csv"))
			*f = IPT_ROWS_CSV;
		else if (!strcmp(fmt, "jsonl") || !strcmp(fmt, "json") || !strcmp(fmt, "ndjson"))
			*f = IPT_ROWS_JSONL;
		else
			return -1;
		return 0;
	}
	dot = strrchr(out, '.');
	*f = IPT_ROWS_CSV;
	if (dot && (!strcmp(dot, ".jsonl") || !strcmp(dot, ".json") || !strcmp(dot, ".ndjson")))
		*f = IPT_ROWS_JSONL;
	else if (dot && strcmp(dot, ".csv") && strcmp(out, "-"))
		return -1;
	return 0;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "no-explode", no_argument, NULL, 'N' },
		{ "filter", required_argument, NULL, 'F' },
		{ "compression", required_argument, NULL, 'C' },
		{ "partition-by", required_argument, NULL, 'P' },
		{ "threads", required_argument, NULL, 'j' },
		{ "buffer", required_argument, NULL, 'B' },
		{ "no-match", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *fmt = NULL, *filter = NULL, *compression = NULL, *partition = NULL;
	const char *buffer = NULL;
	enum ipt_row_format rf = IPT_ROWS_CSV;
	bool explode = true, match = true;
	struct ipt_report *rep = NULL;
	struct ipt_row_match m;
	struct ipt_trace *t = NULL;
	struct ipt_ipi_iter *it = NULL;
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	struct outfile of = { 0 };
	struct ipt_ipi_row row;
	uint64_t last_id = 0;
	long threads = sysconf(_SC_NPROCESSORS_ONLN);
	int c, r, pq, ret = 1;

	if (threads < 1)
		threads = 1;
	while ((c = getopt_long(argc, argv, "o:f:F:j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'f': fmt = optarg; break;
		case 'N': explode = false; break;
		case 'F': filter = optarg; break;
		case 'C': compression = optarg; break;
		case 'P': partition = optarg; break;
		case 'B': buffer = optarg; break;
		case 'M': match = false; break;
		case 'j':
			if (optarg[0] < '1' || optarg[0] > '8' || optarg[1]) {
				err_msg("--threads: a number from 1 to 8, not '%s'", optarg);
				return 2;
			}
			threads = optarg[0] - '0';
			break;
		case 'h': convert_usage(stdout); return 0;
		default: convert_usage(stderr); return 2;
		}
	}
	if (optind != argc - 1 || !out) {
		convert_usage(stderr);
		return 2;
	}
	pq = parquet_wanted(fmt, out, compression, partition);
	if (pq < 0)
		return 2;
	if (!pq && pick_format(fmt, out, &rf)) {
		err_msg("unknown output format %s (use --format csv, jsonl or parquet)", fmt ? fmt : out);
		return 2;
	}
	t = open_trace(argv[optind], buffer, true, &ret);
	if (!t)
		return ret;
	ret = 1;
	if (match) {	/* the matching first: row results for every counted row */
		struct ipt_report_opts ro = { .sz = sizeof(ro), .filter = filter, .row_results = true,
					      .threads = threads > 8 ? 8 : (int)threads };

		rep = ipt_report_run(t, &ro);
		if (!rep) {
			err_msg("%s", ipt_errmsg());
			ret = ipt_errcode() == IPT_ERR_INVALID ? 2 : 1;
			goto out;
		}
	}
	it = ipt_ipi_iter_new(t, filter);
	if (!it) {
		err_msg("%s", ipt_errmsg());
		ret = ipt_errcode() == IPT_ERR_INVALID ? 2 : 1;
		goto out;
	}
	/* one row per target: the lanes' rows carry no target set, none needed */
	if (explode && threads > 1)
		ipt_ipi_iter_set_threads(it, threads > 8 ? 8 : (int)threads);
	if (pq) {
		struct ipt_parquet_opts po;

		parquet_opts(&po, explode, compression, partition);
		po.match_columns = true;
		po.report = rep;
		if (ipt_parquet_convert(t, it, out, &po))
			err_msg("%s", ipt_errmsg());
		else
			ret = 0;
		goto out;
	}
	if (outfile_open(&of, out))
		goto out;
	if (ipt_rows_header_match(rf, explode, &sb))
		goto fail;
	while ((r = ipt_ipi_next(it, &row)) > 0) {
		/* every row, the skipped ones too: the report's cursor moves on */
		if (rep && ipt_report_row_match(rep, &row, &m))
			goto fail;
		if (!explode) {
			if (row.id == last_id)
				continue;
			last_id = row.id;
		}
		if (ipt_rows_format_match(rf, explode, t, &row, rep ? &m : NULL, &sb))
			goto fail;
		if (sb.len > (1 << 16)) {
			if (outfile_write(&of, sb.buf, sb.len))
				goto write_fail;
			ipt_strbuf_reset(&sb);
		}
	}
	if (r < 0)
		goto fail;
	if (outfile_write(&of, sb.buf, sb.len))
		goto write_fail;
	if (outfile_commit(&of))
		goto out;
	ret = 0;
	note_skipped(t);
	goto out;
write_fail:
	err_msg("%s: write error: %s", out, strerror(errno));
	outfile_abort(&of);
	goto out;
fail:
	err_msg("%s", ipt_errmsg());
	outfile_abort(&of);
out:
	ipt_strbuf_free(&sb);
	ipt_ipi_iter_free(it);
	ipt_report_free(rep);
	ipt_trace_close(t);
	return ret;
}
