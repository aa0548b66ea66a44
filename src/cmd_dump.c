// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_dump.c - `ipitrace dump`: the events of a trace as text, one line
 * each in `trace-cmd report`'s layout, CPU masks as CPU lists.
 */
#include "commands.h"

#include <getopt.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void dump_usage(FILE *f)
{
	fprintf(f,
		"usage: ipitrace dump [OPTIONS] [FILE]\n"
		"\n"
		"Print the events of FILE (trace.dat v6/v7, `trace-cmd report` text or tracefs\n"
		"`trace` text; '-' or a pipe: standard input; none: the newest of ipitrace.dat\n"
		"and ipitrace-*.dat here, named on stderr) in time order, merged across CPUs,\n"
		"one line each in the layout of `trace-cmd report`: comm-pid [cpu] timestamp:\n"
		"event: fields.  Fields follow each event's print fmt; CPU masks print as CPU\n"
		"lists (0-3,8), not hex words.\n"
		"\n"
		"  -R, --raw            every field as name=value (like trace-cmd report -R),\n"
		"                       masks still as CPU lists\n"
		"      --mask-hex       masks as the kernel's hex words (00000000,00000104)\n"
		"      --on-cpus LIST   only events recorded on these CPUs (e.g. 0-3,8); the old\n"
		"                       name --cpus still works (elsewhere -c, --cpus means\n"
		"                       the IPIs' target CPUs)\n"
		"  -e, --events LIST    only these events: comma-separated NAME or SYSTEM:NAME,\n"
		"                       SYSTEM:* for a whole system (e.g. ipi:*,csd_queue_cpu)\n"
		"  -F, --filter EXPR    only events matching EXPR, the kernel's filter syntax\n"
		"                       over each event's fields plus CPU sets and symbols,\n"
		"                       e.g. 'cpu == 1', 'cpumask & CPUS{4-7}', 'callsite ~\n"
		"                       \"ttwu*\"', 'callsite.function == \"ttwu_queue_wakelist\"';\n"
		"                       CPU and COMM are the recording CPU and task; events\n"
		"                       without a named field do not match\n"
		"  -n, --count N        stop after N events\n"
		"  -j, --threads N      render in N threads (1-8; default: the online CPUs,\n"
		"                       but 1 below 16 MiB of CPU data), each a slice of time\n"
		"                       of its own; the output is the same for any N.\n"
		"                       Compressed traces, --count, and what follows the\n"
		"                       first sched_switch or sched_wakeup line (it names\n"
		"                       tasks for the lines after it) take one thread\n"
		"      --no-header      do not print the leading cpus=N line\n"
		"      --buffer NAME    only this buffer of a trace with tracefs instance buffers\n"
		"                       ('top': the top one); default: every buffer, its lines\n"
		"                       prefixed 'NAME: ' as trace-cmd prints them\n"
		"  -h, --help           this text\n"
		"\n"
		"Exit status: 0 success, 1 unreadable or malformed input (one line on stderr\n"
		"naming the file and offset), 2 usage error.\n");
}

struct event_sel {
	struct sel_pair {
		char *sys;		/* NULL: any system */
		char *name;
	} *v;
	int n;
	size_t cap;
};

/* sel_parse - "a,b:c,d:*" into (system, name) pairs; NULL system = any */
static int sel_parse(struct event_sel *sel, const char *spec)
{
	char *copy = strdup(spec), *save = NULL, *tok;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');

		if (IPT_GROW(sel->v, sel->cap, (size_t)sel->n + 1))
			goto fail;
		if (colon) {
			*colon = 0;
			sel->v[sel->n].sys = strdup(tok);
			sel->v[sel->n].name = strdup(colon + 1);
		} else {
			sel->v[sel->n].sys = NULL;
			sel->v[sel->n].name = strdup(tok);
		}
		sel->n++;
	}
	free(copy);
	return 0;
fail:
	free(copy);
	return -1;
}

/* sel_known - whether selector i names an event of t */
static bool sel_known(const struct event_sel *sel, int i, struct ipt_trace *t)
{
	for (int k = 0; k < ipt_trace_nevents(t); k++) {
		const struct ipt_event *ev = ipt_trace_event_at(t, k);

		if (sel->v[i].sys && strcmp(sel->v[i].sys, ipt_event_system(ev)))
			continue;
		if (!strcmp(sel->v[i].name, "*") || !strcmp(sel->v[i].name, ipt_event_name(ev)))
			return true;
	}
	return false;
}

/*
 * sel_check - names that name no event of the trace: all of them, a usage
 * error (-1); some, a warning naming them, and they are left out
 */
static int sel_check(struct event_sel *sel, struct ipt_trace *t, const char *arg)
{
	struct ipt_strbuf bad = IPT_STRBUF_INIT;
	int kept = 0;

	for (int i = 0; i < sel->n; i++) {
		if (sel_known(sel, i, t)) {
			sel->v[kept++] = sel->v[i];
			continue;
		}
		ipt_strbuf_addf(&bad, "%s%s%s%s", bad.len ? ", " : "", sel->v[i].sys ? sel->v[i].sys : "",
				sel->v[i].sys ? ":" : "", sel->v[i].name);
		free(sel->v[i].sys);
		free(sel->v[i].name);
	}
	sel->n = kept;
	if (bad.len && !kept) {
		err_msg("--events %s: no such event in %s (it has %d event types: NAME, SYSTEM:NAME "
			"or SYSTEM:*, e.g. ipi:*, csd:*, irq_vectors:*)", arg, ipt_trace_path(t),
			ipt_trace_nevents(t));
		ipt_strbuf_free(&bad);
		return -1;
	}
	if (bad.len)
		err_msg("warning: --events: %s: no such event in %s, left out", ipt_strbuf_str(&bad),
			ipt_trace_path(t));
	ipt_strbuf_free(&bad);
	return 0;
}

static void sel_free(struct event_sel *sel)
{
	for (int i = 0; i < sel->n; i++) {
		free(sel->v[i].sys);
		free(sel->v[i].name);
	}
	free(sel->v);
}

static bool sel_match(const struct event_sel *sel, const struct ipt_event *ev)
{
	if (!sel->n)
		return true;
	if (!ev)
		return false;
	for (int i = 0; i < sel->n; i++) {
		if (sel->v[i].sys && strcmp(sel->v[i].sys, ipt_event_system(ev)))
			continue;
		if (!sel->v[i].name || !strcmp(sel->v[i].name, "*") ||
		    !strcmp(sel->v[i].name, ipt_event_name(ev)))
			return true;
	}
	return false;
}

/* keep - the record's event is selected (called by the rendering threads) */
static bool keep(void *ctx, const struct ipt_record *rec)
{
	return sel_match(ctx, rec->event);
}

/* flush - write the buffer to stdout; -1 on a write error */
static int flush(struct ipt_strbuf *sb)
{
	if (sb->len && fwrite(sb->buf, 1, sb->len, stdout) != sb->len)
		return -1;
	ipt_strbuf_reset(sb);
	return 0;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "raw", no_argument, NULL, 'R' },
		{ "mask-hex", no_argument, NULL, 'x' },
		{ "on-cpus", required_argument, NULL, 'c' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "events", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'n' },
		{ "filter", required_argument, NULL, 'F' },
		{ "no-header", no_argument, NULL, 'H' },
		{ "buffer", required_argument, NULL, 'B' },
		{ "threads", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ipt_cpuset cpus = IPT_CPUSET_INIT;
	struct event_sel sel = { 0 };
	struct ipt_strbuf out = IPT_STRBUF_INIT;
	struct ipt_trace *t = NULL;
	struct ipt_dump *d = NULL;
	struct ipt_dump_opts dop = { .sz = sizeof(dop), .drop_lines = true };
	const char *text, *path;
	char found[256];
	size_t len;
	bool have_cpus = false, header = true;
	unsigned long long limit = 0;
	const char *cpus_arg = NULL, *events_arg = NULL, *buffer = NULL;
	int c, r, ret = 1;

	ipt_cpuset_init(&cpus);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":Re:n:F:j:h", opts, NULL)) != -1) {
		switch (c) {
		case '?':
		case ':':
			ret = opt_err("dump", c, argv);
			goto out;
		case 'R':
			dop.flags |= IPT_RENDER_RAW;
			break;
		case 'x':
			dop.flags |= IPT_RENDER_MASK_HEX;
			break;
		case 'j':
			if (optarg[0] < '1' || optarg[0] > '8' || optarg[1]) {
				ret = usage_err("dump", "--threads: a number from 1 to 8, not '%s'", optarg);
				goto out;
			}
			dop.threads = optarg[0] - '0';
			break;
		case 'c':
			if (ipt_cpuset_parse_list(&cpus, optarg, strlen(optarg))) {
				ret = usage_err("dump", "--on-cpus: %s", ipt_errmsg());
				goto out;
			}
			have_cpus = true;
			cpus_arg = optarg;
			break;
		case 'B':
			buffer = optarg;
			break;
		case 'e':
			events_arg = optarg;
			if (sel_parse(&sel, optarg)) {
				err_msg("out of memory");
				goto out;
			}
			break;
		case 'n': {
			char *end;

			limit = strtoull(optarg, &end, 10);
			if (*end || !*optarg || *optarg == '-' || *optarg == '+' || !limit) {
				ret = usage_err("dump", "--count: a number of events from 1 up, not '%s'", optarg);
				goto out;
			}
			break;
		}
		case 'H':
			header = false;
			break;
		case 'F':
			dop.filter = optarg;
			break;
		case 'h':
			dump_usage(stdout);
			ret = 0;
			goto out;
		default:
			ret = 2;
			goto out;
		}
	}
	if (optind < argc - 1) {
		ret = usage_err("dump", "one FILE only");
		goto out;
	}
	path = optind == argc - 1 ? argv[optind] : default_trace("dump", found, sizeof(found));
	if (!path) {
		ret = 1;
		goto out;
	}
	t = open_trace(path, buffer, false, &ret);
	if (!t)
		goto out;
	ret = 1;
	if (have_cpus) {
		struct ipt_cpuset all = IPT_CPUSET_INIT;
		int bad;

		ipt_cpuset_init(&all);
		bad = trace_cpus(t, &all) || cpus_within("dump", "--on-cpus", cpus_arg, &cpus, &all, "the trace");
		ipt_cpuset_free(&all);
		if (bad) {
			ret = 2;
			goto out;
		}
	}
	if (sel.n && sel_check(&sel, t, events_arg)) {
		ret = 2;
		goto out;
	}
	if (sel.n) {
		dop.keep = keep;
		dop.keep_ctx = &sel;
	}
	if (have_cpus)
		dop.cpus = &cpus;
	dop.max_records = limit;
	d = ipt_dump_new(t, &dop);
	if (!d) {
		ret = lib_err("dump");
		goto out;
	}
	if (header && ipt_strbuf_addf(&out, "cpus=%d\n", ipt_trace_ncpus(t)))
		goto out;
	/* the blocks go out as they come: whole lines, 64 KiB or a slice's */
	while ((r = ipt_dump_next(d, &text, &len)) > 0)
		if (flush(&out) || fwrite(text, 1, len, stdout) != len) {
			err_msg("write error: %s", strerror(errno));
			goto out;
		}
	if (flush(&out) || fflush(stdout)) {
		err_msg("write error: %s", strerror(errno));
		goto out;
	}
	if (r < 0) {
		err_msg("%s", ipt_errmsg());
		goto out;
	}
	ret = 0;
	note_skipped(t);
out:
	ipt_dump_free(d);
	ipt_trace_close(t);
	ipt_strbuf_free(&out);
	ipt_cpuset_free(&cpus);
	sel_free(&sel);
	return ret;
}
