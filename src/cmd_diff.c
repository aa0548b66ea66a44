// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_diff.c - `ipitrace diff BEFORE AFTER`: two recordings compared key
 * by key (ipt_diff_read, ipt_diff_table), as text, JSON or CSV
 */
#include "commands.h"
#include "cpu_ranges.h"
#include "diff_out.h"
#include "outfile.h"
#include "report_out.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void diff_usage(FILE *f)
{
	fprintf(f,
		"usage: ipitrace diff [OPTIONS] BEFORE AFTER\n"
		"\n"
		"Compare two recordings (trace.dat or text, any mix): did a change remove the\n"
		"IPIs to the isolated CPUs?  One table per key, a row per key and role of the\n"
		"target CPUs (isolated, housekeeping), first the roles' totals: the counts\n"
		"before and after, the rates per second and per CPU-hour of the role (the\n"
		"recordings may differ in length and CPU count), their ratio, the dispersion,\n"
		"a significance and a status: gone, new, more, fewer (a change at p < 0.05),\n"
		"same (none shown), untested (and why).  Rows come by the size of the change.\n"
		"\n"
		"  -g, --by KEYS        the tables, comma-separated, in order: function (the\n"
		"                       function run, csd, else the callback), callsite, comm,\n"
		"                       pid, cpu (the sending CPU), kind, stack (the sender's\n"
		"                       kernel stack, folded; recorded with --stacks) (default:\n"
		"                       function,callsite,comm,kind).  Keys are names, not\n"
		"                       addresses: kernels built apart compare\n"
		"  -F, --filter EXPR    count only the rows matching EXPR, on both sides (the\n"
		"                       row columns of `ipitrace convert`)\n"
		"  -c, --cpus LIST      only the IPIs to these CPUs, on both sides\n"
		"      --per-cpu        a row per key and target CPU instead of per role, rates\n"
		"                       per CPU-hour of that CPU\n"
		"  -i, --isolated LIST  the isolated role on both sides (default: each\n"
		"                       recording's stored isolated and nohz_full CPUs; none:\n"
		"                       every CPU is housekeeping)\n"
		"      --with-recorder  keep the IPIs `ipitrace record` itself sent (default:\n"
		"                       left out, and counted)\n"
		"  -t, --top N          rows per table in text (default 10; 0: all)\n"
		"  -L, --latency        in text, each row's latency (send to handler entry) and\n"
		"                       handler time, p50 and p99 before and after, instead of\n"
		"                       the rates per second (JSON, CSV and HTML always have\n"
		"                       them).  They need 80 bytes per IPI row while reading:\n"
		"                       800 MB for 10 M rows; plain text keeps 10 MB\n"
		"  -f, --format FMT     text (default), json (docs/schema/diff.json), csv (one\n"
		"                       line per row of every table), uniq or folded.  uniq:\n"
		"                       the two tables of the kernel developers' trace-cmd\n"
		"                       recipe (report --format uniq, docs/recipe.md), before\n"
		"                       and after side by side (-F and -c apply; no test);\n"
		"                       folded: the senders' stacks as 'comm;root;...;leaf\n"
		"                       BEFORE AFTER' lines, as difffolded.pl writes them for\n"
		"                       flamegraph.pl\n"
		"      --html OUT       write the tables and a differential flame graph (red:\n"
		"                       more after, blue: fewer) as one self-contained HTML\n"
		"                       file instead, and say where; not with --format\n"
		"      --force          replace OUT if it exists (else an error)\n"
		"  -j, --threads N      decoding threads, as in report\n"
		"  -h, --help           this text\n"
		"\n"
		"SIGNIFICANCE\n"
		"  IPIs come in bursts, so a plain Poisson test calls noise significant.  Each\n"
		"  recording is cut into windows of time (32 to 64 of equal length, fewer in a\n"
		"  recording shorter than 64 ms); a row's\n"
		"  dispersion is the variance of its counts in the windows over their mean\n"
		"  (Pearson's estimate over both recordings, at least 1).  The test is the\n"
		"  binomial test of the before count among both, under one rate per CPU of the\n"
		"  role, with both counts divided by the dispersion; two-sided.  A recording\n"
		"  with fewer than 10 windows (shorter than about 10 ms) or a clock in cycles\n"
		"  is too short or unclear to tell: its rows are 'untested'.  docs/diff.md has\n"
		"  the method and its checks.\n");
}

#define DIFF_MAX_KEYS 8
/* the "schema" member of -f json: docs/schema/diff.json, whose "const" says
 * the same; a change to the JSON changes both (the version) */
#define DIFF_SCHEMA "ipitrace-diff/1"

struct dctx {
	const char *path[2];
	struct ipt_trace *t[2];
	struct ipt_diff_side *s[2];
	int by[DIFF_MAX_KEYS + 1];	/* IPT_DIFF_BY_ROLE first */
	int nby;
	int top;
	bool latency;		/* text: the latency columns */
	bool per_cpu;		/* rows per target CPU: a cpu column */
};

static const char *const side_name[2] = { "before", "after" };

static const char *by_name(int by)
{
	return by == IPT_DIFF_BY_ROLE ? "role" : ipt_group_by_name((enum ipt_group_by)by);
}

/* parse_by - "function,comm" into x->by after the role table */
static int parse_by(struct dctx *x, const char *arg)
{
	char *copy = strdup(arg), *save = NULL, *w;

	if (!copy)
		return usage_err("diff", "out of memory");
	x->by[0] = IPT_DIFF_BY_ROLE;
	x->nby = 1;
	for (w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int by = ipt_group_by_from_name(w);

		if (by < 0 || by == IPT_BY_TASK || x->nby > DIFF_MAX_KEYS) {
			usage_err("diff", "--by: function, callsite, comm, pid, cpu, kind or stack, not '%s'", w);
			free(copy);
			return 2;
		}
		x->by[x->nby++] = by;
	}
	free(copy);
	return x->nby > 1 ? 0 : usage_err("diff", "--by: no key given");
}

/* fmt_num - a rate or ratio in 4 significant digits, "-" for none */
static const char *fmt_num(double v, char *buf, size_t size)
{
	if (isnan(v))
		return "-";
	if (isinf(v))
		return "inf";
	snprintf(buf, size, v != 0 && fabs(v) < 0.01 ? "%.2e" : "%.4g", v);
	return buf;
}

static const char *fmt_p(double p, char *buf, size_t size)
{
	if (isnan(p))
		return "-";
	snprintf(buf, size, p < 1e-4 ? "%.1e" : "%.4f", p);
	return buf;
}

static void side_line(const struct dctx *x, int i, FILE *f)
{
	const struct ipt_diff_info *in = ipt_diff_info(x->s[i]);
	char iso[64];

	fprintf(f, "%-7s %s: ", side_name[i], x->path[i]);
	if (in->ts_in_ns)
		fprintf(f, "%.3f s, ", in->duration_s);
	else
		fprintf(f, "duration unknown (cycles, not ns), ");
	fprintf(f, "%d CPUs (isolated: %s), %llu IPIs", in->ncpus,
		in->ncpus_isolated ? cpu_list_short(in->isolated, iso, sizeof(iso), 40) : "none",
		(unsigned long long)in->ipis);
	if (in->recorder_ipis)
		fprintf(f, ", %llu sent by the recorder left out", (unsigned long long)in->recorder_ipis);
	if (in->lost_events)
		fprintf(f, "; events were lost: its counts are low by them");
	fputc('\n', f);
	if (x->latency && in->cross_cpu_latency_missing_because)
		fprintf(f, "        no latency between CPUs: %s\n", in->cross_cpu_latency_missing_because);
}

/* fmt_us - a distribution's quantile in us, "-" when empty */
static const char *fmt_us(const struct ipt_dist *d, double q, char *buf, size_t size)
{
	if (!d || !ipt_dist_count(d))
		return "-";
	snprintf(buf, size, "%.1f", (double)ipt_dist_quantile(d, q) / 1e3);
	return buf;
}

/* handler_line - the role's IPI handler time, before and after */
static void handler_line(const struct dctx *x, int role, FILE *f)
{
	const struct ipt_diff_info *in[2] = { ipt_diff_info(x->s[0]), ipt_diff_info(x->s[1]) };

	if (!in[0]->handlers[role] && !in[1]->handlers[role])
		return;
	fprintf(f, "  IPI handlers on the %s CPUs:", ipt_role_name((enum ipt_cpu_role)role));
	for (int i = 0; i < 2; i++) {
		int n = role == IPT_ROLE_ISOLATED ? in[i]->ncpus_isolated : in[i]->ncpus - in[i]->ncpus_isolated;
		double ms = (double)in[i]->handler_ns[role] / 1e6;

		fprintf(f, "%s %llu interrupts, %.3f ms in handlers", i ? "; after" : " before",
			(unsigned long long)in[i]->handlers[role], ms);
		if (in[i]->handler_timed[role] < in[i]->handlers[role])
			fprintf(f, " (%llu without their exit: not timed)",
				(unsigned long long)(in[i]->handlers[role] - in[i]->handler_timed[role]));
		if (in[i]->ts_in_ns && in[i]->duration_s > 0 && n > 0)
			fprintf(f, " = %.4g%% of their time", ms / 1e3 / (in[i]->duration_s * n) * 100);
	}
	fputc('\n', f);
}

static void text_table(const struct dctx *x, int by, const struct ipt_diff_row *v, size_t n, FILE *f)
{
	size_t shown = x->top && (size_t)x->top < n ? (size_t)x->top : n, kw = strlen(by_name(by));
	char b[8][32];

	if (by == IPT_DIFF_BY_ROLE)
		fprintf(f, x->per_cpu ? "\nby target CPU:\n" : "\nby role of the target CPUs:\n");
	else if (shown < n)
		fprintf(f, "\nby %s: the %zu largest changes of %zu rows (-t 0: all):\n", by_name(by), shown, n);
	else
		fprintf(f, "\nby %s: %zu rows:\n", by_name(by), n);
	if (!n) {
		fprintf(f, "  (none)\n");
		return;
	}
	for (size_t i = 0; i < shown; i++)
		if (strlen(v[i].key) > kw)
			kw = strlen(v[i].key);
	if (kw > 48)
		kw = 48;
	if (x->per_cpu)
		fprintf(f, "  %5s", "cpu");
	fprintf(f, "  %-12s ", "role");
	if (by != IPT_DIFF_BY_ROLE)
		fprintf(f, "%-*s ", (int)kw, by_name(by));
	if (x->latency)
		fprintf(f, "%10s %10s %8s %8s %8s %8s %8s %8s %8s %8s %9s  %s\n", "before", "after", "lat50 b",
			"lat50 a", "lat99 b", "lat99 a", "hdl50 b", "hdl50 a", "hdl99 b", "hdl99 a", "p", "status");
	else
		fprintf(f, "%10s %10s %10s %10s %12s %12s %8s %6s %9s  %s\n", "before", "after", "/s before",
			"/s after", "/CPU-h before", "/CPU-h after", "ratio", "disp", "p", "status");
	for (size_t i = 0; i < shown; i++) {
		const struct ipt_diff_row *d = &v[i];

		if (x->per_cpu)
			fprintf(f, "  %5d", d->target_cpu);
		fprintf(f, "  %-12s ", ipt_role_name(d->role));
		if (by != IPT_DIFF_BY_ROLE)
			fprintf(f, "%-*s ", (int)kw, d->key);
		fprintf(f, "%10llu %10llu ", (unsigned long long)d->count[0], (unsigned long long)d->count[1]);
		if (x->latency)
			fprintf(f, "%8s %8s %8s %8s %8s %8s %8s %8s ", fmt_us(d->latency[0], 0.5, b[0], sizeof(b[0])),
				fmt_us(d->latency[1], 0.5, b[1], sizeof(b[1])),
				fmt_us(d->latency[0], 0.99, b[2], sizeof(b[2])),
				fmt_us(d->latency[1], 0.99, b[3], sizeof(b[3])),
				fmt_us(d->handler[0], 0.5, b[4], sizeof(b[4])),
				fmt_us(d->handler[1], 0.5, b[5], sizeof(b[5])),
				fmt_us(d->handler[0], 0.99, b[6], sizeof(b[6])),
				fmt_us(d->handler[1], 0.99, b[7], sizeof(b[7])));
		else
			fprintf(f, "%10s %10s %12s %12s %8s %6.1f ", fmt_num(d->per_s[0], b[0], sizeof(b[0])),
				fmt_num(d->per_s[1], b[1], sizeof(b[1])),
				fmt_num(d->per_cpu_hour[0], b[2], sizeof(b[2])),
				fmt_num(d->per_cpu_hour[1], b[3], sizeof(b[3])), fmt_num(d->ratio, b[4], sizeof(b[4])),
				d->dispersion);
		fprintf(f, "%9s  %s%s%s\n", fmt_p(d->p, b[5], sizeof(b[5])), ipt_diff_status_name(d->status),
			d->untested_because ? ": " : "", d->untested_because ? d->untested_because : "");
	}
	if (by == IPT_DIFF_BY_ROLE) {
		handler_line(x, IPT_ROLE_ISOLATED, f);
		handler_line(x, IPT_ROLE_HOUSEKEEPING, f);
	}
}

static void json_side(struct ipt_jw *j, const struct dctx *x, int i)
{
	const struct ipt_diff_info *in = ipt_diff_info(x->s[i]);
	char iso[4096];

	ipt_jw_key(j, side_name[i]);
	ipt_jw_obj(j);
	ipt_jw_kstr(j, "file", x->path[i]);
	ipt_jw_kdouble(j, "duration_s", in->duration_s);
	ipt_jw_ki64(j, "ncpus", in->ncpus);
	ipt_cpuset_format_list(in->isolated, iso, sizeof(iso));
	ipt_jw_kstr(j, "isolated", iso);
	ipt_jw_ki64(j, "ncpus_isolated", in->ncpus_isolated);
	ipt_jw_ku64(j, "ipis", in->ipis);
	ipt_jw_ku64(j, "recorder_ipis", in->recorder_ipis);
	ipt_jw_ku64(j, "windows", in->windows);
	ipt_jw_kdouble(j, "window_s", in->window_s);
	ipt_jw_key(j, "lost_events");
	ipt_jw_bool(j, in->lost_events);
	ipt_jw_kstr(j, "cross_cpu_latency_missing_because", in->cross_cpu_latency_missing_because);
	ipt_jw_key(j, "handlers");
	ipt_jw_obj(j);
	for (int role = 0; role < 2; role++) {
		ipt_jw_key(j, ipt_role_name((enum ipt_cpu_role)role));
		ipt_jw_obj(j);
		ipt_jw_ku64(j, "interrupts", in->handlers[role]);
		ipt_jw_ku64(j, "timed", in->handler_timed[role]);
		ipt_jw_ku64(j, "ns", in->handler_ns[role]);
		ipt_jw_end(j);
	}
	ipt_jw_end(j);
	ipt_jw_end(j);
}

static void json_pair(struct ipt_jw *j, const char *k, const double v[2])
{
	for (int i = 0; i < 2; i++) {
		char key[64];

		snprintf(key, sizeof(key), "%s_%s", k, side_name[i]);
		ipt_jw_key(j, key);
		ipt_jw_double(j, v[i]);
	}
}

/* json_dist - "NAME_before"/"NAME_after": {count, p50_ns, p99_ns, max_ns}
 * of the rows matched, or null */
static void json_dist(struct ipt_jw *j, const char *name, const struct ipt_dist *const d[2])
{
	for (int i = 0; i < 2; i++) {
		char key[64];

		snprintf(key, sizeof(key), "%s_%s", name, side_name[i]);
		ipt_jw_key(j, key);
		if (!d[i] || !ipt_dist_count(d[i])) {
			ipt_jw_null(j);
			continue;
		}
		ipt_jw_obj(j);
		ipt_jw_ku64(j, "count", ipt_dist_count(d[i]));
		ipt_jw_ku64(j, "p50_ns", ipt_dist_quantile(d[i], 0.5));
		ipt_jw_ku64(j, "p99_ns", ipt_dist_quantile(d[i], 0.99));
		ipt_jw_ku64(j, "max_ns", ipt_dist_max(d[i]));
		ipt_jw_end(j);
	}
}

static void json_row(struct ipt_jw *j, const struct ipt_diff_row *d)
/* (target_cpu only with --per-cpu) */
{
	ipt_jw_obj(j);
	ipt_jw_kstr(j, "key", d->key);
	ipt_jw_kstr(j, "role", ipt_role_name(d->role));
	if (d->target_cpu >= 0)
		ipt_jw_ki64(j, "target_cpu", d->target_cpu);
	ipt_jw_ku64(j, "count_before", d->count[0]);
	ipt_jw_ku64(j, "count_after", d->count[1]);
	json_pair(j, "per_s", d->per_s);
	json_pair(j, "per_cpu_hour", d->per_cpu_hour);
	ipt_jw_kdouble(j, "diff_per_s", d->diff_per_s);
	ipt_jw_kdouble(j, "ratio", d->ratio);
	ipt_jw_kdouble(j, "dispersion", d->dispersion);
	ipt_jw_kdouble(j, "p", d->p);
	ipt_jw_kstr(j, "status", ipt_diff_status_name(d->status));
	ipt_jw_kstr(j, "untested_because", d->untested_because);
	json_dist(j, "latency", d->latency);
	json_dist(j, "handler", d->handler);
	ipt_jw_end(j);
}

static void csv_num(double v, FILE *f)
{
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, "%.6g", v);
}

static void csv_row(int by, const struct ipt_diff_row *d, FILE *f)
{
	fprintf(f, "%s,", by_name(by));
	csv_field(d->key, f);
	fprintf(f, ",%s,", ipt_role_name(d->role));
	if (d->target_cpu >= 0)
		fprintf(f, "%d", d->target_cpu);
	fprintf(f, ",%llu,%llu", (unsigned long long)d->count[0],
		(unsigned long long)d->count[1]);
	csv_num(d->per_s[0], f);
	csv_num(d->per_s[1], f);
	csv_num(d->per_cpu_hour[0], f);
	csv_num(d->per_cpu_hour[1], f);
	csv_num(d->diff_per_s, f);
	csv_num(d->ratio, f);
	csv_num(d->dispersion, f);
	csv_num(d->p, f);
	fprintf(f, ",%s,", ipt_diff_status_name(d->status));
	if (d->untested_because)
		csv_field(d->untested_because, f);
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 2; i++) {
			const struct ipt_dist *h = k ? d->handler[i] : d->latency[i];

			if (h && ipt_dist_count(h))
				fprintf(f, ",%llu,%llu", (unsigned long long)ipt_dist_quantile(h, 0.5),
					(unsigned long long)ipt_dist_quantile(h, 0.99));
			else
				fputs(",,", f);
		}
	fputc('\n', f);
}

enum dfmt { F_TEXT, F_JSON, F_CSV, F_UNIQ, F_FOLDED };

/* folded - the stacks with two counts on f; -1 after the error was said */
static int folded(const struct dctx *x, FILE *f)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	size_t n;
	struct ipt_diff_row *v = ipt_diff_table(x->s[0], x->s[1], IPT_BY_STACK, &n);
	int ret = -1;

	if (!v)
		err_msg("%s", ipt_errmsg());
	else if (diff_folded_text(v, n, &sb))
		err_msg("out of memory");
	else if (!sb.len)
		err_msg("%s, %s: none of their IPIs has a kernel stack (record with --stacks, or trace-cmd record -T)",
			x->path[0], x->path[1]);
	else
		ret = fwrite(ipt_strbuf_str(&sb), 1, sb.len, f) == sb.len ? 0 : -1;
	free(v);
	ipt_strbuf_free(&sb);
	return ret;
}

/* uniq_text - report --format uniq of t into a string (the caller frees);
 * NULL after the error was said */
static char *uniq_text(struct ipt_trace *t, const char *filter, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		err_msg("out of memory");
		*rc = 1;
		return NULL;
	}
	*rc = report_uniq(t, filter, f);
	if (fclose(f) || *rc) {
		free(buf);
		if (!*rc) {
			err_msg("out of memory");
			*rc = 1;
		}
		return NULL;
	}
	return buf;
}

/* struct lines - a text cut into lines, and where its second table starts */
struct lines {
	const char **s;
	int *len;
	int n, second;
};

static int cut_lines(char *text, struct lines *L)
{
	int caps = 0, capl = 0;

	*L = (struct lines){ 0 };
	for (char *p = text; *p;) {
		char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);

		if (IPT_GROW(L->s, caps, L->n + 1) || IPT_GROW(L->len, capl, L->n + 1))
			return -1;
		if (L->n && !strncmp(p, "# table 2", 9))
			L->second = L->n;
		L->s[L->n] = p;
		L->len[L->n++] = n;
		p += n + (nl ? 1 : 0);
	}
	if (!L->second)
		L->second = L->n;
	return 0;
}

/* uniq_side_by_side - the recipe's two tables of both recordings: their
 * header lines, then each before line left and after line right (as
 * `paste` pairs them, padded) */
static int uniq_side_by_side(struct dctx *x, const char *const filter[2], FILE *f)
{
	char *text[2] = { NULL, NULL };
	struct lines L[2] = { { 0 }, { 0 } };
	int rc = 0, width = (int)strlen(x->path[0]);

	for (int i = 0; i < 2 && !rc; i++)
		if (!(text[i] = uniq_text(x->t[i], filter[i], &rc)))
			break;
	for (int i = 0; i < 2 && !rc; i++)
		if (cut_lines(text[i], &L[i])) {
			err_msg("out of memory");
			rc = 1;
		}
	for (int k = 0; !rc && k < L[0].n; k++)
		if (L[0].len[k] > width && L[0].s[k][0] != '#')
			width = L[0].len[k];
	if (width > 100)
		width = 100;
	if (!rc)
		fprintf(f, "%-*s | %s\n", width, x->path[0], x->path[1]);
	for (int table = 0; !rc && table < 2; table++) {
		int from[2], to[2];

		for (int i = 0; i < 2; i++) {
			from[i] = table ? L[i].second : 0;
			to[i] = table ? L[i].n : L[i].second;
		}
		for (int k = 0; from[0] + k < to[0] || from[1] + k < to[1]; k++) {
			int a = from[0] + k, b = from[1] + k;

			if (!k) {	/* the headers, one a line */
				for (int i = 0; i < 2; i++)
					if (from[i] < to[i])
						fprintf(f, "%-6s %.*s\n", side_name[i], L[i].len[from[i]], L[i].s[from[i]]);
				continue;
			}
			fprintf(f, "%-*.*s | %.*s\n", width, a < to[0] ? L[0].len[a] : 0, a < to[0] ? L[0].s[a] : "",
				b < to[1] ? L[1].len[b] : 0, b < to[1] ? L[1].s[b] : "");
		}
	}
	for (int i = 0; i < 2; i++) {
		free(L[i].s);
		free(L[i].len);
		free(text[i]);
	}
	return rc;
}

static int write_diff(const struct dctx *x, enum dfmt fmt, FILE *f)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	struct ipt_jw j;
	int ret = 0;

	if (fmt == F_FOLDED)
		return folded(x, f);
	if (fmt == F_TEXT) {
		const struct ipt_diff_info *a = ipt_diff_info(x->s[0]), *b = ipt_diff_info(x->s[1]);
		char w[2][32];

		side_line(x, 0, f);
		side_line(x, 1, f);
		fprintf(f, "test: each row's change of rate per CPU of its role, two-sided, significant at p < %g;\n"
			   "      counts widened by their dispersion over %u windows of %s s (before) and %u of %s s"
			   " (after)\n",
			IPT_DIFF_ALPHA, a->windows, fmt_num(a->window_s, w[0], sizeof(w[0])), b->windows,
			fmt_num(b->window_s, w[1], sizeof(w[1])));
	} else if (fmt == F_JSON) {
		ipt_jw_init(&j, &sb, f);
		ipt_jw_obj(&j);
		ipt_jw_kstr(&j, "schema", DIFF_SCHEMA);
		json_side(&j, x, 0);
		json_side(&j, x, 1);
		ipt_jw_kdouble(&j, "alpha", IPT_DIFF_ALPHA);
		ipt_jw_key(&j, "tables");
		ipt_jw_arr(&j);
	} else {
		fprintf(f, "table,key,role,target_cpu,count_before,count_after,per_s_before,per_s_after,per_cpu_hour_before,"
			   "per_cpu_hour_after,diff_per_s,ratio,dispersion,p,status,untested_because,"
			   "latency_p50_ns_before,latency_p99_ns_before,latency_p50_ns_after,latency_p99_ns_after,"
			   "handler_p50_ns_before,handler_p99_ns_before,handler_p50_ns_after,handler_p99_ns_after\n");
	}
	for (int k = 0; k < x->nby && !ret; k++) {
		size_t n;
		struct ipt_diff_row *v = ipt_diff_table(x->s[0], x->s[1], x->by[k], &n);

		if (!v) {
			err_msg("%s", ipt_errmsg());
			ret = -1;
			break;
		}
		if (fmt == F_TEXT) {
			text_table(x, x->by[k], v, n, f);
		} else if (fmt == F_CSV) {
			for (size_t i = 0; i < n; i++)
				csv_row(x->by[k], &v[i], f);
		} else {
			ipt_jw_obj(&j);
			ipt_jw_kstr(&j, "by", by_name(x->by[k]));
			ipt_jw_key(&j, "rows");
			ipt_jw_arr(&j);
			for (size_t i = 0; i < n; i++)
				json_row(&j, &v[i]);
			ipt_jw_end(&j);
			ipt_jw_end(&j);
		}
		free(v);
	}
	if (fmt == F_JSON) {
		ipt_jw_end(&j);
		ipt_jw_end(&j);
		ipt_jw_raw(&j, "\n");
		if (ipt_jw_finish(&j) && !ret) {
			err_msg("write error on standard output");
			ret = -1;
		}
		ipt_strbuf_free(&sb);
	}
	return ret;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "by", required_argument, NULL, 'g' },
		{ "filter", required_argument, NULL, 'F' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "isolated", required_argument, NULL, 'i' },
		{ "with-recorder", no_argument, NULL, 'R' },
		{ "per-cpu", no_argument, NULL, 'P' },
		{ "top", required_argument, NULL, 't' },
		{ "latency", no_argument, NULL, 'L' },
		{ "format", required_argument, NULL, 'f' },
		{ "html", required_argument, NULL, 'H' },
		{ "threads", required_argument, NULL, 'j' },
		{ "force", no_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dctx x = { .top = 10 };
	struct ipt_diff_opts o = { .sz = sizeof(o) };
	struct ipt_cpuset iso = IPT_CPUSET_INIT;
	const char *cpus_arg = NULL, *iso_arg = NULL, *filter = NULL, *side_filter[2] = { NULL, NULL };
	char *exprs[2] = { NULL, NULL };
	enum dfmt fmt = F_TEXT;
	bool fmt_given = false;
	const char *html = NULL;
	bool force = false;
	int c, ret = 1;
	char *end;

	if (parse_by(&x, "function,callsite,comm,kind"))
		return 2;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":g:F:c:i:t:Lf:j:h", opts, NULL)) != -1) {
		switch (c) {
		case '?':
		case ':':
			return opt_err("diff", c, argv);
		case 'g':
			if (parse_by(&x, optarg))
				return 2;
			break;
		case 'F': filter = optarg; break;
		case 'c': cpus_arg = optarg; break;
		case 'i': iso_arg = optarg; break;
		case 'R': o.with_recorder = true; break;
		case 'P': o.per_cpu = x.per_cpu = true; break;
		case 'L': x.latency = true; break;
		case 't':
			x.top = (int)strtol(optarg, &end, 10);
			if (*end || end == optarg || x.top < 0)
				return usage_err("diff", "--top: a count, not '%s'", optarg);
			break;
		case 'H': html = optarg; break;
		case 'O': force = true; break;
		case 'f':
			fmt_given = true;
			if (!strcmp(optarg, "text"))
				fmt = F_TEXT;
			else if (!strcmp(optarg, "json"))
				fmt = F_JSON;
			else if (!strcmp(optarg, "csv"))
				fmt = F_CSV;
			else if (!strcmp(optarg, "uniq"))
				fmt = F_UNIQ;
			else if (!strcmp(optarg, "folded"))
				fmt = F_FOLDED;
			else
				return usage_err("diff", "--format: text, json, csv, uniq or folded, not '%s'", optarg);
			break;
		case 'j':
			o.threads = (int)strtol(optarg, &end, 10);
			if (*end || end == optarg || o.threads < 1 || o.threads > 8)
				return usage_err("diff", "--threads: 1 to 8, not '%s'", optarg);
			break;
		case 'h': diff_usage(stdout); return 0;
		default: return 2;
		}
	}
	/* what matching found (80 bytes a row while reading): only for the
	 * outputs that show it, and for stacks */
	o.latency = x.latency || fmt != F_TEXT || html;
	for (int k = 0; k < x.nby; k++)
		if (x.by[k] == IPT_BY_STACK)
			o.latency = true;
	if (html && fmt_given)
		return usage_err("diff", "--html writes HTML: it takes no --format");
	if (html && output_taken(html, force))
		return 1;
	if (argc - optind != 2)
		return usage_err("diff", argc - optind < 2 ? "give two recordings: BEFORE AFTER" :
							      "two recordings only: BEFORE AFTER");
	ipt_cpuset_init(&iso);
	if (iso_arg && (ipt_cpuset_parse_list(&iso, iso_arg, strlen(iso_arg)))) {
		ipt_cpuset_free(&iso);
		return usage_err("diff", "--isolated: bad CPU list '%s'", iso_arg);
	}
	for (int i = 0; i < 2; i++) {
		x.path[i] = argv[optind + i];
		x.t[i] = open_trace(x.path[i], NULL, true, &ret);
		if (!x.t[i])
			goto out;
		if (cpus_arg && !(exprs[i] = cpus_filter("diff", cpus_arg, filter, x.t[i]))) {
			ret = 2;
			goto out;
		}
		side_filter[i] = exprs[i] ? exprs[i] : filter;
	}
	if (fmt == F_UNIQ) {	/* the recipe's tables: no tallies, no test */
		ret = uniq_side_by_side(&x, side_filter, stdout);
		if (!ret && (fflush(stdout) || ferror(stdout))) {
			err_msg("write error on standard output");
			ret = 1;
		}
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		o.filter = side_filter[i];
		o.isolated = iso_arg ? &iso : NULL;
		x.s[i] = ipt_diff_read(x.t[i], &o);
		if (!x.s[i]) {
			ret = lib_err("diff");
			goto out;
		}
	}
	if (!ipt_diff_info(x.s[0])->ipis && !ipt_diff_info(x.s[1])->ipis) {
		err_msg("%s, %s: no IPI %sin either recording", x.path[0], x.path[1],
			filter || cpus_arg ? "matches the filter " : "");
		ret = 1;
		goto out;
	}
	ret = 1;
	if (html) {
		ret = diff_html(x.s, x.path, x.by, x.nby, x.top, html, force);
		goto out;
	}
	if (write_diff(&x, fmt, stdout))
		goto out;
	if (fflush(stdout) || ferror(stdout)) {
		err_msg("write error on standard output");
		goto out;
	}
	ret = 0;
out:
	for (int i = 0; i < 2; i++) {
		ipt_diff_side_free(x.s[i]);
		if (x.t[i])
			ipt_trace_close(x.t[i]);
	}
	ipt_cpuset_free(&iso);
	free(exprs[0]);
	free(exprs[1]);
	return ret;
}
