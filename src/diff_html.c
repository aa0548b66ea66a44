// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * diff_html.c - `ipitrace diff --html OUT` (diff_out.h): the recordings,
 * a table per key with each row's status in colour, and the differential
 * flame graph of the senders' stacks (flame.c, two counts)
 */
#include "diff_out.h"
#include "commands.h"
#include "flame.h"
#include "outfile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:20px;color:#222}"
	"table{border-collapse:collapse;margin:6px 0 18px}td,th{padding:2px 8px;border-bottom:1px solid #ddd;"
	"text-align:right}td.k,th.k{text-align:left;max-width:520px;overflow-wrap:anywhere}"
	"tr.gone td{background:#d6e4ff}tr.fewer td{background:#eaf1ff}tr.new td{background:#ffd9d6}"
	"tr.more td{background:#fff0ee}.note{color:#555}svg.flame text{font-size:11px;fill:#000;"
	"pointer-events:none}";

static const char *by_title(int by)
{
	return by == IPT_DIFF_BY_ROLE ? "role" : ipt_group_by_name((enum ipt_group_by)by);
}

static void cell_num(FILE *f, double v)
{
	if (isnan(v))
		fputs("<td>-</td>", f);
	else if (isinf(v))
		fputs("<td>inf</td>", f);
	else
		fprintf(f, "<td>%.4g</td>", v);
}

static void side_meta(FILE *f, const char *name, const char *path, const struct ipt_diff_info *in)
{
	char iso[256];

	fprintf(f, "<p class=\"meta\"><b>%s</b> ", name);
	html_esc(f, path);
	ipt_cpuset_format_list(in->isolated, iso, sizeof(iso));
	if (in->ts_in_ns)
		fprintf(f, " &middot; %.3f s", in->duration_s);
	else
		fputs(" &middot; duration unknown (cycles, not ns)", f);
	fprintf(f, " &middot; %d CPUs, isolated: %s &middot; %llu IPIs", in->ncpus, *iso ? iso : "none",
		(unsigned long long)in->ipis);
	if (in->recorder_ipis)
		fprintf(f, " (%llu sent by the recorder left out)", (unsigned long long)in->recorder_ipis);
	if (in->lost_events)
		fputs(" &middot; events were lost: its counts are low by them", f);
	fputs("</p>\n", f);
}

/* table - one key's rows; -1 on error (said) */
static int table(FILE *f, struct ipt_diff_side *const s[2], int by, int top)
{
	size_t n;
	struct ipt_diff_row *v = ipt_diff_table(s[0], s[1], by, &n);
	size_t shown;

	if (!v) {
		err_msg("%s", ipt_errmsg());
		return -1;
	}
	shown = top && (size_t)top < n ? (size_t)top : n;
	fprintf(f, "<section class=\"table\" data-by=\"%s\" data-rows=\"%zu\"><h2>By %s</h2>\n", by_title(by), n,
		by_title(by));
	if (shown < n)
		fprintf(f, "<p class=\"note\">The %zu largest changes of %zu rows.</p>\n", shown, n);
	fputs("<table><tr><th class=\"k\">role</th>", f);
	if (by != IPT_DIFF_BY_ROLE)
		fprintf(f, "<th class=\"k\">%s</th>", by_title(by));
	fputs("<th>before</th><th>after</th><th>/s before</th><th>/s after</th><th>/CPU-h before</th>"
	      "<th>/CPU-h after</th><th>ratio</th><th>dispersion</th><th>p</th><th class=\"k\">status</th></tr>\n", f);
	for (size_t i = 0; i < shown; i++) {
		const struct ipt_diff_row *d = &v[i];

		fprintf(f, "<tr class=\"%s\"><td class=\"k\">%s</td>", ipt_diff_status_name(d->status),
			ipt_role_name(d->role));
		if (by != IPT_DIFF_BY_ROLE) {
			fputs("<td class=\"k\">", f);
			html_esc(f, d->key);
			fputs("</td>", f);
		}
		fprintf(f, "<td>%llu</td><td>%llu</td>", (unsigned long long)d->count[0],
			(unsigned long long)d->count[1]);
		cell_num(f, d->per_s[0]);
		cell_num(f, d->per_s[1]);
		cell_num(f, d->per_cpu_hour[0]);
		cell_num(f, d->per_cpu_hour[1]);
		cell_num(f, d->ratio);
		cell_num(f, d->dispersion);
		if (isnan(d->p))
			fputs("<td>-</td>", f);
		else
			fprintf(f, "<td>%.2g</td>", d->p);
		fprintf(f, "<td class=\"k\">%s", ipt_diff_status_name(d->status));
		if (d->untested_because) {
			fputs(": ", f);
			html_esc(f, d->untested_because);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table></section>\n", f);
	free(v);
	return 0;
}

/* flame - the stacks before and after as one differential graph */
static int flame(FILE *f, struct ipt_diff_side *const s[2])
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	size_t n;
	struct ipt_diff_row *v = ipt_diff_table(s[0], s[1], IPT_BY_STACK, &n);
	uint64_t total;
	int ret = -1;

	if (!v) {
		err_msg("%s", ipt_errmsg());
		return -1;
	}
	if (diff_folded_text(v, n, &sb))
		goto out;
	fputs("<section id=\"flame\"><h2>Call paths of the senders, before and after</h2>\n", f);
	if (!sb.len) {
		fputs("<p class=\"note\">No IPI of either recording has a kernel stack (record with --stacks, or"
		      " trace-cmd record -T).</p>\n</section>\n", f);
		ret = 0;
		goto out;
	}
	fputs("<p class=\"note\">Widths: the IPIs of both recordings; red where there are more after, blue"
	      " where fewer (deep blue: gone, deep red: new); each frame's title gives both counts.</p>\n", f);
	ret = flame_svg(f, ipt_strbuf_str(&sb), sb.len, true, "data-diff=\"1\"", &total);
	fputs("</section>\n", f);
out:
	ipt_strbuf_free(&sb);
	free(v);
	return ret;
}

int diff_html(struct ipt_diff_side *const s[2], const char *const path[2], const int *by, int nby, int top,
	      const char *out, bool replace)
{
	struct outfile of;
	FILE *f;

	if (outfile_open(&of, out, replace))
		return 1;
	f = of.f;
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>ipitrace diff</title>"
		   "<style>%s</style></head>\n<body>\n<h1>Before and after</h1>\n", css);
	side_meta(f, "before", path[0], ipt_diff_info(s[0]));
	side_meta(f, "after", path[1], ipt_diff_info(s[1]));
	fprintf(f, "<p class=\"note\">Each row: a key and the role of its target CPUs. Status: gone, new, more,"
		   " fewer at p &lt; %g (a test of the rates per CPU widened by the dispersion of the counts in"
		   " windows of time: IPIs come in bursts), same otherwise; docs/diff.md.</p>\n", IPT_DIFF_ALPHA);
	for (int k = 0; k < nby; k++)
		if (table(f, s, by[k], top)) {
			outfile_abort(&of);
			return 1;
		}
	if (flame(f, s)) {
		outfile_abort(&of);
		return 1;
	}
	fprintf(f, "<p class=\"note\">Written by ipitrace %s.</p>\n</body>\n</html>\n", IPT_VERSION);
	if (outfile_commit(&of))
		return 1;
	if (strcmp(out, "-"))
		fprintf(stderr, "ipitrace: wrote the HTML diff to %s\n", out);
	return 0;
}
