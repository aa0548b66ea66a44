// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_convert.c - `ipitrace convert`: IPI rows as tables for other tools
 */
#include "commands.h"
#include "outfile.h"

#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void convert_usage(FILE *f)
{
	fprintf(f,
		"usage: ipitrace convert [OPTIONS] [FILE] -o OUT\n"
		"       ipitrace convert [OPTIONS] [FILE] -o DIR --partition-by host,date\n"
		"\n"
		"Write the IPIs of FILE as a table, one row per (IPI send, target CPU), for\n"
		"pandas, DuckDB, Spark, spreadsheets and scripts.  FILE '-' (or a pipe) reads\n"
		"standard input; no FILE: the newest of ipitrace.dat and ipitrace-*.dat here.\n"
		"\n"
		"  -o, --output OUT     output file; '-' for standard output (required).\n"
		"                       The file appears only when complete.\n"
		"      --force          replace OUT if it exists (else an error)\n"
		"  -f, --format FMT     csv, jsonl or parquet; default from OUT's extension\n"
		"                       (.csv, .jsonl/.json/.ndjson, .parquet), csv for '-'\n"
		"  -Z, --compression C  parquet: zstd (default) or none\n"
		"      --partition-by K\n"
		"                       parquet dataset: K is host, date or host,date; OUT is a\n"
		"                       directory, the file goes to\n"
		"                       OUT/host=H/date=D/part-N.parquet\n"
		"                       (H: the trace's uname node name; D: the UTC date the\n"
		"                       recording started, as `record` stores it, else of the\n"
		"                       file's modification; N: the first free number).\n"
		"                       A trace already in the dataset (same uname, clock,\n"
		"                       CPUs and first event time, noted in\n"
		"                       DIR/.ipitrace-sources) is refused: its rows would\n"
		"                       count twice.  Remove its part file to convert it again\n"
		"      --no-explode     one row per send event; its targets as a CPU list\n"
		"                       string (csv: \"0-3,8\"), an array of integers (jsonl)\n"
		"                       or a list<int32> column (parquet)\n"
		"      --no-match       leave out the matching (a report pass): lat_ns,\n"
		"                       handler_ns, handler_ts_ns, matched, coalesced,\n"
		"                       unmatched_reason and stack are null\n"
		"  -F, --filter EXPR    keep rows matching EXPR (see ipitrace(1) FILTERS), e.g.\n"
		"                       'target_cpu == 3', 'cpumask & CPUS{4-7} && callsite ~\n"
		"                       \"ttwu*\"', 'lat_ns > 100us' (any of the columns below)\n"
		"  -c, --cpus LIST      keep only rows whose target CPU is in LIST (with -F:\n"
		"                       both; --no-explode: sends with a target in LIST)\n"
		"      --buffer NAME    only this buffer of a trace with tracefs instance\n"
		"                       buffers ('top': the top one); needed when several hold\n"
		"                       data\n"
		"  -j, --threads N      decode the CPUs' streams in N threads (1 to 8; default:\n"
		"                       the online CPUs, 1 for less than 8 MiB of CPU data),\n"
		"                       merged in time order: the same rows\n"
		"                       and ids.  One thread with --no-explode, a filter on\n"
		"                       id, or a trace with sched events (task names learnt\n"
		"                       on the way).  Rows kept by the matching (32 Ki or\n"
		"                       more) are formatted in up to N threads, at most 4\n"
		"                       (default: the online CPUs): the same bytes\n"
		"  -h, --help           this text\n"
		"\n"
		"Columns: ts_ns,id,src_cpu,target_cpu,ntargets,pid,comm,event,kind,callsite,\n"
		"callsite_sym,callback,callback_sym,func,func_sym,reason, then lat_ns,handler_ns,\n"
		"handler_ts_ns,matched,coalesced,unmatched_reason,callsite_func,func_name,stack.\n"
		"id numbers the send event (rows of one multicast share it); func is the\n"
		"function really run (from csd:csd_queue_cpu on Linux 6.5+); kind is one of\n"
		"resched, wakeup, call, tlb, irq_work, membarrier, timer, stop, other.\n"
		"Parquet: ts_ns and handler_ts_ns are TIMESTAMP(NANOS) of the trace clock (not\n"
		"wall-clock time; INT64 when the clock does not count ns), cpus and pid INT32,\n"
		"addresses \"0x...\" strings as in the CSV, unknown symbols NULL.\n"
		"\n"
		"The last columns come from matching each send to the interrupt that served it\n"
		"on its target CPU, as `ipitrace report` does, in a first pass (which keeps\n"
		"up to 4 Mi rows, not mostly multicasts, for the second; else the trace is\n"
		"read twice):\n"
		"matched (true/false), coalesced (served by an interrupt that had served an\n"
		"earlier send; null when not matched), unmatched_reason (trace_ended,\n"
		"no_receive_events, lost_events, no_handler), lat_ns (send -> handler\n"
		"entry), handler_ns (entry -> exit), handler_ts_ns (the entry's time);\n"
		"callsite_func is the call site's function, func_name the function really\n"
		"run (else the callback), stack the sender's kernel stack leaf first, tracing\n"
		"frames trimmed (\"sym+0xoff\" strings; csv: joined by ';').  Null (csv:\n"
		"empty) when not known: no match, lat_ns across CPUs with a clock not\n"
		"comparable across them, times with a clock not in ns, no exit seen, no\n"
		"stack recorded.  With --no-explode a row is a whole send: the per-target\n"
		"columns lat_ns .. unmatched_reason are given for a send to one CPU only,\n"
		"null for a multicast (use the default one row per target).\n"
		"Parquet: INT64 (handler_ts_ns as ts_ns), BOOLEAN, STRING, list<string>\n"
		"stack.  Matching keeps 16 bytes per row until the rows are written: past 1\n"
		"MiB in an unnamed file in $TMPDIR (else /tmp), not in memory, so memory\n"
		"does not grow with the trace (in memory where no file can be made there).\n");
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
		usage_err("convert", "--compression and --partition-by apply to Parquet output only");
		return -1;
	}
	if (compression && strcmp(compression, "none") && strcmp(compression, "zstd")) {
		usage_err("convert", "--compression: none or zstd, not '%s'", compression);
		return -1;
	}
	if (partition_by && ipt_parquet_check_partition(partition_by)) {
		usage_err("convert", "--partition-by: %s", ipt_errmsg());
		return -1;
	}
	if (partition_by && out && !strcmp(out, "-")) {
		usage_err("convert", "--partition-by writes a directory: give one with -o DIR");
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

/* ---- --partition-by: the traces a dataset holds (DIR/.ipitrace-sources) ---- */

#define SOURCES ".ipitrace-sources"

/* source_id - what identifies a trace: uname, clock, CPUs, first event time */
static int source_id(struct ipt_trace *t, struct ipt_strbuf *id)
{
	struct ipt_iter *it = ipt_iter_new(t, NULL);
	struct ipt_record rec;
	int r;

	if (!it) {
		err_msg("%s", ipt_errmsg());
		return -1;
	}
	r = ipt_iter_next(it, &rec);
	ipt_iter_free(it);
	if (r < 0) {
		err_msg("%s", ipt_errmsg());
		return -1;
	}
	ipt_strbuf_reset(id);
	for (const char *p = ipt_trace_uname(t); *p; p++)
		ipt_strbuf_addc(id, *p == '\t' || *p == '\n' ? ' ' : *p);
	if (r > 0)
		ipt_strbuf_addf(id, "\tclock=%s\tcpus=%d\tfirst=%llu@%d", ipt_trace_clock(t),
				ipt_trace_ncpus(t), (unsigned long long)rec.ts, rec.cpu);
	else
		ipt_strbuf_addf(id, "\tclock=%s\tcpus=%d\tfirst=none", ipt_trace_clock(t),
				ipt_trace_ncpus(t));
	return 0;
}

/* already_in - the part file (relative to dir) of a trace with this id that still exists */
static bool already_in(const char *dir, const char *id, char *part, size_t size)
{
	char path[PATH_MAX], line[8192];
	size_t idlen = strlen(id);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/" SOURCES, dir);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char full[PATH_MAX * 2];

		if (strncmp(line, id, idlen) || line[idlen] != '\t')
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(part, size, "%s", line + idlen + 1);
		snprintf(full, sizeof(full), "%s/%s", dir, part);
		found = access(full, F_OK) == 0;
	}
	fclose(f);
	return found;
}

static struct ipt_strbuf *walk_list;	/* nftw has no argument */
static size_t walk_skip;		/* the length of "DIR/" */

static int walk_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	size_t n = strlen(path);

	(void)st;
	(void)ftw;
	if (flag == FTW_F && n > 8 && !strcmp(path + n - 8, ".parquet") && n > walk_skip)
		ipt_strbuf_addf(walk_list, "%s\n", path + walk_skip);
	return 0;
}

/* parquet_files - the *.parquet files under dir, relative, one a line */
static void parquet_files(const char *dir, struct ipt_strbuf *list)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')	/* nftw names "DIR/x" for "DIR/" too */
		n--;
	ipt_strbuf_reset(list);
	walk_list = list;
	walk_skip = n + 1;
	nftw(dir, walk_one, 16, FTW_PHYS);
	walk_list = NULL;
}

/* note_source - after a conversion: the new part file (not in before) under id */
static void note_source(const char *dir, const char *id, const char *before)
{
	struct ipt_strbuf after = IPT_STRBUF_INIT;
	char path[PATH_MAX];
	const char *p;

	parquet_files(dir, &after);
	for (p = ipt_strbuf_str(&after); *p;) {
		size_t n = strcspn(p, "\n");
		bool old = false;

		for (const char *q = before; *q;) {
			size_t m = strcspn(q, "\n");

			if (m == n && !strncmp(p, q, n)) {
				old = true;
				break;
			}
			q += m + (q[m] == '\n');
		}
		if (!old) {
			FILE *f;

			snprintf(path, sizeof(path), "%s/" SOURCES, dir);
			f = fopen(path, "a");
			if (!f || fprintf(f, "%s\t%.*s\n", id, (int)n, p) < 0 || fclose(f))
				err_msg("warning: %s: %s (a second conversion of this trace would not be "
					"detected)", path, strerror(errno));
			break;
		}
		p += n + (p[n] == '\n');
	}
	ipt_strbuf_free(&after);
}

/* write_rows - the rows' text to the output (ipt_rows_write's writer) */
static int write_rows(void *arg, const char *buf, size_t len)
{
	return outfile_write(arg, buf, len) ? 1 : 0;
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
		{ "compression", required_argument, NULL, 'Z' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "partition-by", required_argument, NULL, 'P' },
		{ "threads", required_argument, NULL, 'j' },
		{ "buffer", required_argument, NULL, 'B' },
		{ "no-match", no_argument, NULL, 'M' },
		{ "force", no_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *fmt = NULL, *filter = NULL, *compression = NULL, *partition = NULL;
	const char *buffer = NULL, *cpus_arg = NULL, *path;
	char *cpus_expr = NULL, found[256];
	enum ipt_row_format rf = IPT_ROWS_CSV;
	bool explode = true, match = true, force = false;
	struct ipt_report *rep = NULL;
	struct ipt_trace *t = NULL;
	struct ipt_ipi_iter *it = NULL;
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	struct outfile of = { 0 };
	long threads = 0;	/* the library's choice */
	int c, r, pq, ret = 1;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:f:F:c:Z:j:h", opts, NULL)) != -1) {
		switch (c) {
		case '?':
		case ':':
			return opt_err("convert", c, argv);
		case 'c': cpus_arg = optarg; break;
		case 'o': out = optarg; break;
		case 'f': fmt = optarg; break;
		case 'N': explode = false; break;
		case 'F': filter = optarg; break;
		case 'Z': compression = optarg; break;
		case 'P': partition = optarg; break;
		case 'B': buffer = optarg; break;
		case 'M': match = false; break;
		case 'O': force = true; break;
		case 'j':
			if (optarg[0] < '1' || optarg[0] > '8' || optarg[1])
				return usage_err("convert", "--threads: a number from 1 to 8, not '%s'", optarg);
			threads = optarg[0] - '0';
			break;
		case 'h': convert_usage(stdout); return 0;
		default: return 2;
		}
	}
	if (optind < argc - 1)
		return usage_err("convert", "one FILE only");
	if (!out)
		return usage_err("convert", "no output: give -o OUT (- for standard output)");
	if (!partition && output_taken(out, force))
		return 1;
	path = optind == argc - 1 ? argv[optind] : default_trace("convert", found, sizeof(found));
	if (!path)
		return 1;
	pq = parquet_wanted(fmt, out, compression, partition);
	if (pq < 0)
		return 2;
	if (pq && !partition && strcmp(out, "-")) {
		struct stat st;

		/* refused now, not once the whole trace is converted */
		if (!stat(out, &st) && !S_ISREG(st.st_mode)) {
			err_msg("%s: not a regular file: Parquet is written to a file, named once complete, or to '-'",
				out);
			return 1;
		}
	}
	if (!pq && pick_format(fmt, out, &rf))
		return usage_err("convert", "unknown output format %s (use --format csv, jsonl or parquet)",
				 fmt ? fmt : out);
	t = open_trace(path, buffer, true, &ret);
	if (!t)
		return ret;
	if (cpus_arg) {	/* a row filter on the target CPU, with --filter's */
		cpus_expr = cpus_filter("convert", cpus_arg, filter, t);
		if (!cpus_expr) {
			ipt_trace_close(t);
			return 2;
		}
		filter = cpus_expr;
	}
	ret = 1;
	if (match) {	/* the matching first: row results for every counted row */
		/* no senders, pairs or matrix tables: only the rows' results are
		 * read; one row per target: the rows kept, not decoded twice */
		struct ipt_report_opts ro = { .sz = sizeof(ro), .filter = filter, .row_results = true,
					      .no_tables = true, .threads = threads > 8 ? 8 : (int)threads,
					      .keep_rows = explode };

		rep = ipt_report_run(t, &ro);
		if (!rep) {
			ret = lib_err("convert");
			goto out;
		}
	}
	it = ipt_ipi_iter_new_with(t, filter, rep);
	if (!it) {
		ret = lib_err("convert");
		goto out;
	}
	/* one row per target: the lanes' rows carry no target set, none needed */
	if (explode && threads != 1)
		ipt_ipi_iter_set_threads(it, threads > 8 ? 8 : (int)threads);
	if (pq) {
		struct ipt_parquet_opts po;
		struct ipt_strbuf id = IPT_STRBUF_INIT, before = IPT_STRBUF_INIT;
		char part[PATH_MAX];

		if (partition) {
			if (source_id(t, &id)) {
				ipt_strbuf_free(&id);
				goto out;
			}
			if (already_in(out, ipt_strbuf_str(&id), part, sizeof(part))) {
				err_msg("%s: this trace is in the dataset already (%s/%s, same uname, clock, "
					"CPUs and first event): its rows would count twice; remove that "
					"file to convert it again", path, out, part);
				ipt_strbuf_free(&id);
				goto out;
			}
			parquet_files(out, &before);
		}
		parquet_opts(&po, explode, compression, partition);
		po.match_columns = true;
		po.no_replace = !force;
		po.report = rep;
		if (ipt_parquet_convert(t, it, out, &po)) {
			err_msg("%s", ipt_errmsg());
		} else {
			ret = 0;
			if (partition)
				note_source(out, ipt_strbuf_str(&id), ipt_strbuf_str(&before));
		}
		ipt_strbuf_free(&id);
		ipt_strbuf_free(&before);
		goto out;
	}
	if (outfile_open(&of, out, force))
		goto out;
	if (ipt_rows_header_match(rf, explode, &sb))
		goto fail;
	if (outfile_write(&of, sb.buf, sb.len))
		goto write_fail;
	{
		struct ipt_rows_write_opts wo = { .sz = sizeof(wo), .fmt = rf, .explode = explode,
						  .threads = (int)threads, .write = write_rows, .arg = &of };

		r = ipt_rows_write(t, it, rep, &wo);
		if (r < 0)
			goto fail;
		if (r > 0)
			goto write_fail;
	}
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
	free(cpus_expr);
	return ret;
}
