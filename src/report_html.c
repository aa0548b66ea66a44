// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report_html.c - `ipitrace report --html OUT`: one self-contained HTML file
 *
 * Everything is inline: CSS in a <style>, the charts as SVG (no xmlns
 * needed inside HTML), hover numbers in SVG <title> elements.  No script,
 * no font, no URL: the file opens anywhere, offline, with JavaScript off.
 * Every chart is an aggregate (at most 64 x 64 heatmap cells, 64 rows of
 * 240 time bins, 47 histogram bins per kind), so the size does not grow
 * with the number of events; only the isolated-CPU table is per IPI, and
 * it is cut at ISO_MAX rows.
 *
 * The numbers are those of the library's report (ipt_report_run, with
 * time bins and per-kind distributions): this file only lays them out.
 */
#include "commands.h"
#include "cpu_ranges.h"
#include "explain_out.h"
#include "flame.h"
#include "outfile.h"
#include "report_html.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum {
	TBINS = REPORT_HTML_TIME_BINS,	/* time bins */
	MAXROWS = 64,		/* rows of the heatmap and the time chart */
	HB_PER = IPT_DIST_LOG_PER_DECADE,	/* histogram bins per decade */
	HB_N = IPT_DIST_LOG_NBINS,	/* < 10 ns, 10 ns .. 10 s, >= 10 s */
	ISO_MAX = 1000,		/* rows of the isolated-CPU table */
	TARGETS_MAX = 64,	/* target CPUs with their own senders and flame graph */
	CPU_ROWS_MAX = 512,	/* rows of the per-CPU table */
	SPIKES_MAX = 20,	/* latency spikes drawn as a timeline, the worst */
	SPIKE_W = 640,		/* a spike's window, in px */
};

struct axis {			/* CPUs -> chart rows */
	int n;			/* rows */
	int group;		/* CPUs per row (1: one row per listed CPU) */
	int *lo, *hi;		/* CPU range of each row */
	int *map;		/* cpu -> row or -1 */
	int ncpu;
};

struct hx {
	struct ipt_report *r;
	const struct ipt_report_summary *s;
	struct ipt_trace *t;
	const char *filter;
	enum ipt_group_by by;	/* of the per-target senders */
	int top;
	const struct ipt_cpuset *iso;	/* the isolated CPUs, or NULL */
	bool wide;		/* more CPUs than a table shows whole (as the text): the
				 * per-CPU table by role, ranges and the busiest */
	struct axis tax;	/* time chart rows */
	uint64_t *tbins;	/* tax.n x TBINS */
	uint64_t span;		/* of the time bins, in the clock's ticks */
	bool ns;		/* the clock counts ns: else no times, rates or latencies
				 * (as the text report says) */
	FILE *f;
};

/* ---- axes: which CPUs get a row ---- */

static void axis_free(struct axis *a)
{
	free(a->lo);
	free(a->hi);
	free(a->map);
	memset(a, 0, sizeof(*a));
}

/* axis_build - a row per wanted CPU when there are at most MAXROWS of them,
 * else a row per group of `group` consecutive CPUs that holds a wanted one */
static int axis_build(struct axis *a, int ncpu, const bool *want)
{
	int nwant = 0;

	memset(a, 0, sizeof(*a));
	a->ncpu = ncpu;
	a->map = malloc((size_t)(ncpu ? ncpu : 1) * sizeof(*a->map));
	a->lo = malloc(MAXROWS * sizeof(*a->lo));
	a->hi = malloc(MAXROWS * sizeof(*a->hi));
	if (!a->map || !a->lo || !a->hi)
		return -1;
	for (int c = 0; c < ncpu; c++) {
		a->map[c] = -1;
		nwant += want[c];
	}
	a->group = 1;
	if (nwant <= MAXROWS) {
		for (int c = 0; c < ncpu; c++)
			if (want[c]) {
				a->lo[a->n] = a->hi[a->n] = c;
				a->map[c] = a->n++;
			}
		return 0;
	}
	while ((ncpu + a->group - 1) / a->group > MAXROWS)
		a->group *= 2;
	for (int g = 0; g * a->group < ncpu; g++) {
		int lo = g * a->group, hi = lo + a->group - 1 < ncpu - 1 ? lo + a->group - 1 : ncpu - 1;
		bool any = false;

		for (int c = lo; c <= hi; c++)
			any |= want[c];
		if (!any)
			continue;
		a->lo[a->n] = lo;
		a->hi[a->n] = hi;
		for (int c = lo; c <= hi; c++)
			a->map[c] = a->n;
		a->n++;
	}
	return 0;
}

static void axis_label(const struct axis *a, int i, char *buf, size_t n)
{
	if (a->lo[i] == a->hi[i])
		snprintf(buf, n, "%d", a->lo[i]);
	else
		snprintf(buf, n, "%d-%d", a->lo[i], a->hi[i]);
}

/* ---- output helpers ---- */

/* a count with thousands separators */
static const char *num(uint64_t v, char *buf)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v), o = 0;

	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = 0;
	return buf;
}

/* a count in 3 significant characters: 999, 1.2k, 34k, 5.6M */
static const char *shortnum(double v, char *buf)
{
	if (v < 1000)
		snprintf(buf, 16, "%.0f", v);
	else if (v < 1e4)
		snprintf(buf, 16, "%.1fk", v / 1e3);
	else if (v < 1e6)
		snprintf(buf, 16, "%.0fk", v / 1e3);
	else if (v < 1e7)
		snprintf(buf, 16, "%.1fM", v / 1e6);
	else if (v < 1e9)
		snprintf(buf, 16, "%.0fM", v / 1e6);
	else
		snprintf(buf, 16, "%.1fG", v / 1e9);
	return buf;
}

/* a duration in ns, in the unit that suits it */
static const char *dur(double ns, char *buf)
{
	if (ns < 1e3)
		snprintf(buf, 24, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, 24, "%.3g \xc2\xb5s", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, 24, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, 24, "%.3g s", ns / 1e9);
	return buf;
}

/* color - t in [0,1] on a light-yellow .. dark-purple scale */
static void color(double t, char *out)
{
	static const unsigned char a[][3] = {
		{ 255, 244, 196 }, { 253, 190, 90 }, { 235, 106, 40 }, { 174, 28, 62 }, { 70, 10, 96 },
	};
	const int n = (int)ARRAY_SIZE(a) - 1;
	double p;
	int i;

	if (!(t > 0))
		t = 0;
	if (t > 1)
		t = 1;
	p = t * n;
	i = (int)p;
	if (i >= n)
		i = n - 1;
	p -= i;
	snprintf(out, 8, "#%02x%02x%02x", (int)lround(a[i][0] + (a[i + 1][0] - a[i][0]) * p),
		 (int)lround(a[i][1] + (a[i + 1][1] - a[i][1]) * p),
		 (int)lround(a[i][2] + (a[i + 1][2] - a[i][2]) * p));
}

static double logscale(uint64_t v, uint64_t max)
{
	return max ? log1p((double)v) / log1p((double)max) : 0.0;
}


/* nice_step - a 1/2/5 x 10^k step giving at most max ticks over span */
static double nice_step(double span, int max)
{
	static const double m[] = { 1, 2, 5, 10 };
	double base;

	if (!(span > 0))
		return 1;
	base = pow(10.0, floor(log10(span / max)));
	for (size_t i = 0; i < ARRAY_SIZE(m); i++)
		if (span / (base * m[i]) <= max)
			return base * m[i];
	return base * 10;
}

/* ---- sections ---- */

static const char *const css =
	"body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;"
	"margin:24px;color:#1d1d1f;background:#fff;max-width:1400px}"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 6px;border-bottom:1px solid #ddd;"
	"padding-bottom:3px}h3{font-size:14px;margin:4px 0}"
	".meta{color:#555;font-size:13px;margin:2px 0}.note{color:#666;font-size:12px;margin:4px 0 8px}"
	"nav{font-size:13px;margin:10px 0}nav a{margin-right:12px;color:#3558a8}"
	"table{border-collapse:collapse;font-size:12px;margin:6px 0}"
	"th,td{border:1px solid #ddd;padding:2px 6px;text-align:right;white-space:nowrap}"
	"th{background:#f3f3f3}td.l,th.l{text-align:left}"
	"svg{font-size:11px;fill:#333;display:block}svg text{font-family:inherit}"
	".axis{font-size:12px;fill:#444}.cellnum{font-size:10px;pointer-events:none}"
	".kinds{display:flex;flex-wrap:wrap;gap:14px}.kind{border:1px solid #e2e2e2;border-radius:6px;"
	"padding:8px;width:630px}.h{width:305px}.kind .pair{display:flex;gap:8px}.stat{font-size:12px;color:#444;"
	"margin:2px 0 4px}.pill{display:inline-block;background:#f1f1f1;border-radius:9px;padding:1px 8px;"
	"margin:2px 4px 2px 0;font-size:12px}details{font-size:11px}summary{cursor:pointer;color:#3558a8}"
	"tr.iso td{background:#fff3d6}.target{margin:10px 0 18px}svg.flame text{font-size:11px;fill:#000;pointer-events:none}"
	".spike{margin:8px 0 14px}";

/* has_spikes - a latency recording: timerlat's or osnoise's samples and
 * osnoise noise events, ns clock (as the text report's spikes section) */
static bool has_spikes(const struct hx *x)
{
	return explain_latency_recording(x->t, x->ns);
}

static void head(struct hx *x)
{
	FILE *f = x->f;
	const struct ipt_report_summary *r = x->s;
	struct ipt_trace *t = x->t;
	char a[32], b[32], c[32];

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"ipitrace " IPT_VERSION "\">\n<title>ipitrace report: ", f);
	html_esc(f, ipt_trace_path(t));
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n", css);
	fputs("<h1>Who interrupts my CPUs?</h1>\n<p class=\"meta\">", f);
	html_esc(f, ipt_trace_path(t));
	if (x->ns)
		fprintf(f, " &middot; %.6f s", r->duration_s);
	else
		fprintf(f, " &middot; %.0f %s (%s, not ns: no times, rates or latencies)", r->duration_s * 1e9,
			ipt_trace_time_unit(t), ipt_trace_time_unit(t));
	fprintf(f, " &middot; %d CPUs &middot; clock %s &middot; kernel ", r->ncpus,
		*ipt_trace_clock(t) ? ipt_trace_clock(t) : "unknown");
	html_esc(f, *ipt_trace_uname(t) ? ipt_trace_uname(t) : "unknown");
	fprintf(f, "</p>\n<p class=\"meta\">%s events &middot; %s IPI send events &middot; %s IPIs "
		"(one per target CPU)", num(r->events, a), num(r->send_events, b), num(r->ipis, c));
	if (r->filtered) {
		fputs(" &middot; ", f);
		fputs(num(r->ipis_counted, a), f);
		fputs(" matching the filter <code>", f);
		html_esc(f, x->filter);
		fputs("</code>", f);
	}
	fputs("</p>\n", f);
	{
		char v[2048];

		if (ipt_trace_provenance(t, "command_line", v, sizeof(v))) {
			fputs("<p class=\"meta\">Recorded with: <code>", f);
			html_esc(f, v);
			fputs("</code>", f);
			if (ipt_trace_provenance(t, "start_utc", v, sizeof(v))) {
				fputs(" &middot; started ", f);
				html_esc(f, v);
			}
			fputs("</p>\n", f);
		}
	}
	fputs("<p>", f);
	for (int k = 0; k < IPT_KIND__COUNT; k++)
		if (r->kinds[k])
			fprintf(f, "<span class=\"pill\">%s %s</span>", ipt_kind_name(k), num(r->kinds[k], a));
	fputs("</p>\n<nav><a href=\"#heatmap\">sender &times; target</a><a href=\"#time\">over time</a>"
	      "<a href=\"#hist\">latency by kind</a><a href=\"#cpus\">per CPU</a>"
	      "<a href=\"#tops\">top senders</a><a href=\"#targets\">per target CPU</a>"
	      "<a href=\"#matching\">matching</a>"
	      "<a href=\"#isolated\">isolated CPUs</a>", f);
	if (has_spikes(x))
		fputs("<a href=\"#spikes\">latency spikes</a>", f);
	fputs("</nav>\n", f);
}

static int heatmap(struct hx *x)
{
	FILE *f = x->f;
	const struct ipt_report_summary *r = x->s;
	struct axis ra = { 0 }, ca = { 0 };	/* rows: senders, columns: targets */
	bool *ws = calloc((size_t)r->ncpus + 1, 1), *wt = calloc((size_t)r->ncpus + 1, 1);
	size_t n = 0;
	const struct ipt_report_cell *e = ipt_report_matrix(x->r, &n);
	uint64_t *cell = NULL, max = 0;
	int cw, ch, L, T, W, H, cstep, rstep, ret = -1;
	bool rot;
	char col[8], a[32], b[32], c1[32], lab[32], lab2[32];

	if (!ws || !wt)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (e[i].src_cpu >= 0 && e[i].src_cpu < r->ncpus)
			ws[e[i].src_cpu] = true;
		if (e[i].target_cpu >= 0 && e[i].target_cpu < r->ncpus)
			wt[e[i].target_cpu] = true;
	}
	if (axis_build(&ra, r->ncpus, ws) || axis_build(&ca, r->ncpus, wt))
		goto out;
	fputs("<section id=\"heatmap\">\n<h2>Sender &times; target</h2>\n", f);
	if (!ra.n || !ca.n) {
		fputs("<p class=\"note\">No IPI in this trace (or none matching the filter).</p>\n</section>\n", f);
		ret = 0;
		goto out;
	}
	cell = calloc((size_t)ra.n * (size_t)ca.n, sizeof(*cell));
	if (!cell)
		goto out;
	for (size_t i = 0; i < n; i++) {
		int s = e[i].src_cpu >= 0 && e[i].src_cpu < r->ncpus ? ra.map[e[i].src_cpu] : -1;
		int d = e[i].target_cpu >= 0 && e[i].target_cpu < r->ncpus ? ca.map[e[i].target_cpu] : -1;
		uint64_t *v;

		if (s < 0 || d < 0)
			continue;
		v = &cell[(size_t)s * (size_t)ca.n + (size_t)d];
		*v += e[i].count;
		if (*v > max)
			max = *v;
	}
	cw = ca.n <= 8 ? 46 : ca.n <= 16 ? 34 : ca.n <= 32 ? 20 : 12;
	ch = ra.n <= 8 ? 34 : ra.n <= 16 ? 28 : ra.n <= 32 ? 20 : 12;
	rot = ca.group > 1 || ca.n > 16;	/* column labels slanted */
	L = ra.group > 1 || ra.n > 16 ? 90 : 64;
	T = rot ? 76 : 46;
	W = L + ca.n * cw + 120;
	H = T + ra.n * ch + 12;
	if (H < T + 180)
		H = T + 180;	/* room for the color scale */
	cstep = ca.n <= 32 ? 1 : 4;
	rstep = ra.n <= 32 ? 1 : 4;
	fprintf(f, "<p class=\"note\">IPIs from each sending CPU (rows) to each target CPU (columns); only CPUs "
		"that sent (rows) or received (columns) IPIs%s; log color scale; hover a cell for its count.</p>\n",
		ra.group > 1 || ca.group > 1 ? ", grouped" : "");
	fprintf(f, "<svg id=\"heatmap-svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
		"aria-label=\"sender by target IPI counts\">\n", W, H, W, H);
	fprintf(f, "<defs><linearGradient id=\"hmscale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">");
	for (int i = 0; i <= 8; i++) {
		color(0.08 + 0.92 * i / 8.0, col);
		fprintf(f, "<stop offset=\"%.3f\" stop-color=\"%s\"/>", i / 8.0, col);
	}
	fputs("</linearGradient></defs>\n", f);
	fprintf(f, "<text class=\"axis\" x=\"%d\" y=\"13\" text-anchor=\"middle\">target CPU &#8594;</text>\n",
		L + ca.n * cw / 2);
	fprintf(f, "<text class=\"axis\" transform=\"translate(14,%d) rotate(-90)\" text-anchor=\"middle\">"
		"sending CPU &#8594;</text>\n", T + ra.n * ch / 2);
	for (int i = 0; i < ca.n; i += cstep) {
		int cx = L + i * cw + cw / 2;

		axis_label(&ca, i, lab, sizeof(lab));
		if (rot)
			fprintf(f, "<text x=\"%d\" y=\"%d\" transform=\"rotate(-50 %d %d)\">%s</text>\n", cx, T - 4, cx,
				T - 4, lab);
		else
			fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", cx, T - 5, lab);
	}
	for (int i = 0; i < ra.n; i += rstep) {
		axis_label(&ra, i, lab, sizeof(lab));
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", L - 5, T + i * ch + ch / 2 + 4, lab);
	}
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f5f5f5\" stroke=\"#ddd\"/>\n",
		L, T, ca.n * cw, ra.n * ch);
	for (int s = 0; s < ra.n; s++)
		for (int d = 0; d < ca.n; d++) {
			uint64_t v = cell[(size_t)s * (size_t)ca.n + (size_t)d];
			double tt = logscale(v, max);

			if (!v)
				continue;
			color(0.08 + 0.92 * tt, col);
			axis_label(&ra, s, lab, sizeof(lab));
			axis_label(&ca, d, lab2, sizeof(lab2));
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\">"
				"<title>CPU%s %s &#8594; CPU%s %s: %s IPIs</title></rect>",
				L + d * cw, T + s * ch, cw - (cw > 12), ch - (ch > 12), col,
				ra.lo[s] == ra.hi[s] ? "" : "s", lab, ca.lo[d] == ca.hi[d] ? "" : "s", lab2,
				num(v, a));
			if (cw >= 34 && ch >= 20)
				fprintf(f, "<text class=\"cellnum\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\">%s</text>",
					L + d * cw + cw / 2, T + s * ch + ch / 2 + 4, tt > 0.45 ? "#fff" : "#222",
					shortnum((double)v, b));
			fputc('\n', f);
		}
	{	/* the color scale */
		int lx = L + ca.n * cw + 28, lh = 160;

		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"%d\" fill=\"url(#hmscale)\" stroke=\"#ccc\"/>\n",
			lx, T, lh);
		for (int i = 0; i <= 4; i++) {
			double v = expm1(log1p((double)max) * i / 4.0);

			fprintf(f, "<text x=\"%d\" y=\"%d\">%s</text>", lx + 19, T + lh - i * lh / 4 + 4,
				i ? shortnum(v, c1) : "1");
		}
		fprintf(f, "\n<text class=\"axis\" x=\"%d\" y=\"%d\">IPIs</text>\n", lx - 2, T - 8);
	}
	fputs("</svg>\n</section>\n", f);
	ret = 0;
out:
	free(cell);
	axis_free(&ra);
	axis_free(&ca);
	free(ws);
	free(wt);
	return ret;
}

static void time_chart(struct hx *x)
{
	FILE *f = x->f;
	const int L = 170, PW = 720, R = 110, RH = 22, T = 8;
	int W = L + PW + R, H;
	uint64_t maxtot = 0;
	/* in s, or in the clock's own ticks when they are no ns */
	double scale = x->ns ? 1e9 : 1.0, binsec = (double)x->span / scale / TBINS, ds = (double)x->span / scale;
	const char *unit = x->ns ? "s" : ipt_trace_time_unit(x->t), *rate = x->ns ? "/s" : " per bin";
	double step;
	char col[8], a[32], b[32], lab[32], bin[48];

	fputs("<section id=\"time\">\n<h2>IPIs per target CPU over time</h2>\n", f);
	if (!x->tax.n) {
		fputs("<p class=\"note\">No IPI to show.</p>\n</section>\n", f);
		return;
	}
	H = T + x->tax.n * RH + 34;
	for (int i = 0; i < x->tax.n; i++) {
		uint64_t tot = 0;

		for (int k = 0; k < TBINS; k++)
			tot += x->tbins[(size_t)i * TBINS + k];
		if (tot > maxtot)
			maxtot = tot;
	}
	if (x->ns)
		snprintf(bin, sizeof(bin), "%s", dur(binsec * 1e9, a));
	else
		snprintf(bin, sizeof(bin), "%.3g %s (not ns)", binsec, unit);
	fprintf(f, "<p class=\"note\">IPIs received per %s, in %d time bins of %s; each row is scaled to its "
		"own peak rate (right), its color to its total (left). Hover a row for its numbers.</p>\n",
		x->tax.group > 1 ? "group of target CPUs" : "target CPU", TBINS, bin);
	fprintf(f, "<svg id=\"time-svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
		"aria-label=\"IPIs per target CPU over time\">\n", W, H, W, H);
	for (int i = 0; i < x->tax.n; i++) {
		const uint64_t *v = &x->tbins[(size_t)i * TBINS];
		uint64_t tot = 0, peak = 0;
		int peakb = 0, base = T + (i + 1) * RH - 3, h = RH - 5;

		for (int k = 0; k < TBINS; k++) {
			tot += v[k];
			if (v[k] > peak) {
				peak = v[k];
				peakb = k;
			}
		}
		axis_label(&x->tax, i, lab, sizeof(lab));
		color(0.15 + 0.85 * logscale(tot, maxtot), col);
		fprintf(f, "<g data-total=\"%llu\"><title>CPU%s %s: %s IPIs; peak %s%s around %.3f %s</title>",
			(unsigned long long)tot, x->tax.group > 1 ? "s" : "", lab, num(tot, a),
			shortnum(x->ns && binsec > 0 ? (double)peak / binsec : (double)peak, b), rate,
			(peakb + 0.5) * ds / TBINS, unit);
		fprintf(f, "<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>", base - RH + 3, W, RH,
			i % 2 ? "#fafafa" : "#fff");
		fprintf(f, "<text x=\"4\" y=\"%d\">cpu %s</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>",
			base - 4, lab, L - 8, base - 4, num(tot, a));
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ccc\"/>", L, base, L + PW, base);
		if (peak) {
			fprintf(f, "<path fill=\"%s\" stroke=\"%s\" stroke-width=\"0.6\" d=\"M%d %d", col, col, L, base);
			for (int k = 0; k < TBINS; k++)
				fprintf(f, "L%d %.1f", L + k * PW / TBINS + PW / TBINS / 2,
					base - (double)h * (double)v[k] / (double)peak);
			fprintf(f, "L%d %dZ\"/>", L + PW, base);
		}
		fprintf(f, "<text x=\"%d\" y=\"%d\">%s%s</text></g>\n", L + PW + 6, base - 4,
			shortnum(x->ns && binsec > 0 ? (double)peak / binsec : (double)peak, a), rate);
	}
	/* the time axis */
	{
		int y = T + x->tax.n * RH;

		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", L, y, L + PW, y);
		step = nice_step(ds, 8);
		for (double s = 0; ds > 0 && s <= ds * 1.0001; s += step) {
			int xx = L + (int)lround(s / ds * PW);

			fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>"
				"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%.*f %s</text>\n", xx, y, xx, y + 4, xx,
				y + 16, step >= 1 ? 0 : step >= 0.1 ? 1 : step >= 0.01 ? 2 : step >= 0.001 ? 3 : 6, s,
				x->ns ? "s" : "");
		}
		fprintf(f, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">time since the first "
			"event (trace clock%s%s)</text>\n", L + PW / 2, y + 30, x->ns ? "" : ", ", x->ns ? "" : unit);
	}
	fputs("</svg>\n</section>\n", f);
}

/* one histogram of a kind */
static void hist_svg(struct hx *x, const char *id, const char *title, const struct ipt_dist *h,
		     const char *none)
{
	FILE *f = x->f;
	const int W = 300, H = 150, L = 44, R = 8, T = 8, B = 30, PW = W - L - R, PH = H - T - B;
	int b0 = -1, b1 = -1, nb;
	uint64_t max = 0, bins[HB_N];
	char a[32], b[32], c[32], d[32];

	for (int i = 0; i < HB_N; i++)
		bins[i] = ipt_dist_log_bin(h, i);
	for (int i = 0; i < HB_N; i++)
		if (bins[i]) {
			if (b0 < 0)
				b0 = i;
			b1 = i;
			if (bins[i] > max)
				max = bins[i];
		}
	fprintf(f, "<div class=\"h\"><h3>%s</h3>", title);
	if (!x->ns) {
		fprintf(f, "<p class=\"stat\">the clock counts %s, not ns: no latencies</p></div>\n",
			ipt_trace_time_unit(x->t));
		return;
	}
	if (!ipt_dist_count(h)) {
		fprintf(f, "<p class=\"stat\">%s</p></div>\n", none);
		return;
	}
	fprintf(f, "<p class=\"stat\">n %s &middot; p50 %s &middot; p99 %s &middot; max %s</p>", num(ipt_dist_count(h), a),
		dur((double)ipt_dist_quantile(h, 0.5), b), dur((double)ipt_dist_quantile(h, 0.99), c),
		dur((double)ipt_dist_max(h), d));
	/* whole decades around the data */
	if (b0 >= 1)
		b0 = 1 + (b0 - 1) / HB_PER * HB_PER;
	if (b1 >= 1 && b1 < HB_N - 1)
		b1 = 1 + ((b1 - 1) / HB_PER + 1) * HB_PER - 1;
	if (b1 > HB_N - 1)
		b1 = HB_N - 1;
	nb = b1 - b0 + 1;
	fprintf(f, "<svg id=\"%s\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"%s\">",
		id, W, H, W, H, title);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>", L, T + PH, L + PW, T + PH);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>", L, T, L, T + PH);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text><text x=\"%d\" y=\"%d\" "
		"text-anchor=\"end\">0</text>", L - 4, T + 8, shortnum((double)max, a), L - 4, T + PH);
	for (int i = b0; i <= b1; i++) {
		double x0 = L + (double)(i - b0) * PW / nb, bw = (double)PW / nb;
		double bh = max ? (double)PH * (double)bins[i] / (double)max : 0;

		if (bins[i]) {
			if (i == 0)
				snprintf(c, sizeof(c), "&lt; 10 ns");
			else if (i == HB_N - 1)
				snprintf(c, sizeof(c), "&#8805; 10 s");
			else
				snprintf(c, sizeof(c), "%s", dur(ipt_dist_log_bin_low(i), d));
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#4a72b8\">"
				"<title>%s%s%s: %s</title></rect>", x0 + 0.5, T + PH - bh, bw > 2 ? bw - 1 : bw, bh,
				c, i > 0 && i < HB_N - 1 ? " to " : "",
				i > 0 && i < HB_N - 1 ? dur(ipt_dist_log_bin_low(i + 1), d) : "", num(bins[i], a));
		}
		if (i >= 1 && (i - 1) % HB_PER == 0 && i < HB_N - 1)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\"/>"
				"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>", x0, T + PH, x0, T + PH + 4,
				x0, T + PH + 15, dur(ipt_dist_log_bin_low(i), a));
	}
	fprintf(f, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">time (log scale)</text>",
		L + PW / 2, H - 2);
	fputs("</svg></div>\n", f);
}

static void histograms(struct hx *x)
{
	FILE *f = x->f;
	const struct ipt_report_summary *r = x->s;
	bool any = false;
	char a[32], id[64], none[256];

	fputs("<section id=\"hist\">\n<h2>Latency and handler time by kind</h2>\n", f);
	fputs("<p class=\"note\">Latency: from the send to the entry of the interrupt that served it on the "
	      "target CPU. Handler time: from that entry to its exit; a handler that served IPIs of several "
	      "kinds counts in each. Bins: 5 per decade. Hover a bar for its range and count.</p>\n", f);
	if (!r->receive_events)
		fputs("<p class=\"note\">This trace has no receive events (irq_vectors:*_entry, "
		      "ipi:ipi_entry): nothing to match, so no latency or handler time.</p>\n", f);
	else if (!r->cross_cpu_latency)
		fprintf(f, "<p class=\"note\">Cross-CPU latencies are left out: %s (use "
			"--assume-synced-clock to compute them anyway). Only IPIs a CPU sent to itself "
			"have a latency.</p>\n", r->cross_cpu_missing_because);
	fputs("<div class=\"kinds\">\n", f);
	for (int k = 0; k < IPT_KIND__COUNT; k++) {
		const struct ipt_report_kind *kd = ipt_report_kind(x->r, k);

		if (!r->kinds[k])
			continue;
		any = true;
		fprintf(f, "<div class=\"kind\" data-kind=\"%s\" data-lat-n=\"%llu\" data-hdl-n=\"%llu\">"
			"<h3>%s &middot; %s IPIs</h3><div class=\"pair\">\n", ipt_kind_name(k),
			(unsigned long long)ipt_dist_count(kd->latency),
			(unsigned long long)ipt_dist_count(kd->handler),
			ipt_kind_name(k), num(r->kinds[k], a));
		snprintf(id, sizeof(id), "lat-%s", ipt_kind_name(k));
		snprintf(none, sizeof(none), "%s", !r->receive_events ? "no receive events" :
			 !r->cross_cpu_latency ? "none measurable (cross-CPU latencies left out)" : "none matched");
		hist_svg(x, id, "send &#8594; handler entry", kd->latency, none);
		snprintf(id, sizeof(id), "hdl-%s", ipt_kind_name(k));
		hist_svg(x, id, "handler time", kd->handler,
			 r->receive_events ? "no handler seen" : "no receive events");
		fputs("</div></div>\n", f);
	}
	if (!any)
		fputs("<p class=\"note\">No IPI.</p>\n", f);
	fputs("</div>\n</section>\n", f);
}

/* cpu_cells - CPU c's cells after its CPU cell, into b: one string, so
 * that neighbours with equal figures can be merged into one range */
static void cpu_cells(const struct hx *x, int c, char *b, size_t size)
{
	const struct ipt_report_summary *r = x->s;
	const struct ipt_report_cpu *cp = ipt_report_cpu(x->r, c);
	double d = r->duration_s;
	char a[32];
	size_t o = 0;

#define CELL(...) (o += o < size ? (size_t)snprintf(b + o, size - o, __VA_ARGS__) : 0)
	CELL("<td>%s</td>", num(cp->ipis, a));
	if (x->ns)
		CELL("<td>%.1f</td>", d > 0 ? (double)cp->ipis / d : 0.0);
	else
		CELL("<td>-</td>");
	for (int k = 0; k < IPT_KIND__COUNT; k++)
		if (r->kinds[k])
			CELL("<td>%s</td>", num(cp->by_kind[k], a));
	CELL("<td>%s</td>", num(cp->sent, a));
	for (int h = 0; h < 2; h++) {
		const struct ipt_dist *dist = h ? cp->handler : cp->latency;

		if (!ipt_dist_count(dist) || !x->ns)
			CELL("<td>-</td><td>-</td><td>-</td>");
		else
			CELL("<td>%.1f</td><td>%.1f</td><td>%.1f</td>", (double)ipt_dist_quantile(dist, 0.5) / 1e3,
			     (double)ipt_dist_quantile(dist, 0.99) / 1e3, (double)ipt_dist_max(dist) / 1e3);
	}
	CELL("<td>%llu%s</td>", (unsigned long long)cp->lost, cp->lost_unknown ? "+" : "");
#undef CELL
}

static void cpu_head(const struct hx *x, const char *attrs)
{
	fprintf(x->f, "<table%s>\n<tr><th>cpu</th><th>IPIs</th><th>per s</th>", attrs);
	for (int k = 0; k < IPT_KIND__COUNT; k++)
		if (x->s->kinds[k])
			fprintf(x->f, "<th>%s</th>", ipt_kind_name(k));
	fputs("<th>sent</th><th>lat p50 &#181;s</th><th>lat p99</th><th>lat max</th><th>hdl p50 &#181;s</th>"
	      "<th>hdl p99</th><th>hdl max</th><th>lost events</th></tr>\n", x->f);
}

/* cpu_rows - one row per CPU with IPIs, interrupts or sends, at most
 * CPU_ROWS_MAX; returns how many more there were */
static int cpu_rows(const struct hx *x)
{
	int shown = 0, more = 0;
	char b[512];

	for (int c = 0; c < x->s->ncpus; c++) {
		const struct ipt_report_cpu *cp = ipt_report_cpu(x->r, c);

		if (!cp->ipis && !cp->handlers && !cp->sent)
			continue;
		if (shown == CPU_ROWS_MAX) {
			more++;
			continue;
		}
		shown++;
		cpu_cells(x, c, b, sizeof(b));
		fprintf(x->f, "<tr><td>%d</td>%s</tr>\n", c, b);
	}
	fputs("</table>\n", x->f);
	return more;
}

/* cpu_table_wide - beyond 16 CPUs: the busiest ranges of isolated CPUs,
 * then the busiest of the others, then every CPU in a <details>; -1 if out
 * of memory */
static int cpu_table_wide(const struct hx *x)
{
	FILE *f = x->f;
	int ncpus = x->s->ncpus, more = 0;
	size_t n = 0;
	struct cpu_unit *u = calloc((size_t)ncpus + 1, sizeof(*u));
	bool *shown = calloc((size_t)ncpus + 1, sizeof(*shown));
	int ret = -1;

	if (!u || !shown)
		goto out;
	for (int c = 0; c < ncpus; c++) {
		const struct ipt_report_cpu *cp = ipt_report_cpu(x->r, c);
		bool iso = x->iso && ipt_cpuset_has(x->iso, (unsigned int)c);

		if (!cp->ipis && !cp->handlers && !cp->sent && !iso)
			continue;
		cpu_cells(x, c, u[n].text, sizeof(u[n].text));
		cpu_unit_add(u, &n, c, iso);
	}
	if (busiest_units(x->r, u, n, (size_t)x->top, shown))
		goto out;
	fprintf(f, "<p class=\"note\">%d CPUs: the %d busiest %sCPUs; consecutive CPUs with the same figures "
		"as one range. The table under it lists every CPU with IPIs, interrupts or sends.</p>\n", ncpus, x->top,
		x->iso ? "isolated CPUs (shaded) and the busiest other " : "");
	cpu_head(x, " class=\"cpus-busiest\"");
	for (size_t i = 0; i < n; i++) {
		if (!shown[i]) {	/* a range has the same figures on each CPU */
			if (ipt_report_cpu(x->r, u[i].first)->ipis)
				more += u[i].last - u[i].first + 1;
			continue;
		}
		fprintf(f, "<tr%s><td>%d", u[i].iso ? " class=\"iso\"" : "", u[i].first);
		if (u[i].last > u[i].first)
			fprintf(f, "-%d", u[i].last);
		fprintf(f, "</td>%s</tr>\n", u[i].text);
	}
	fputs("</table>\n", f);
	if (more)
		fprintf(f, "<p class=\"note\">(%d more CPUs with IPIs: in the table of every CPU below)</p>\n", more);
	fputs("<details><summary>every CPU with IPIs, interrupts or sends</summary>\n", f);
	cpu_head(x, " class=\"cpus-all\"");
	more = cpu_rows(x);
	if (more)
		fprintf(f, "<p class=\"note\">%d more CPUs: see <code>ipitrace report --format json</code>.</p>\n",
			more);
	fputs("</details>\n", f);
	ret = 0;
out:
	free(u);
	free(shown);
	return ret;
}

static int cpu_table(struct hx *x)
{
	FILE *f = x->f;
	const struct ipt_report_summary *r = x->s;
	int more;

	fputs("<section id=\"cpus\">\n<h2>Per target CPU</h2>\n", f);
	if (x->wide) {
		if (cpu_table_wide(x))
			return -1;
	} else {
		cpu_head(x, "");
		more = cpu_rows(x);
		if (more)
			fprintf(f, "<p class=\"note\">%d more CPUs: see <code>ipitrace report --format json</code>.</p>\n",
				more);
	}
	if (!r->cross_cpu_latency)
		fprintf(f, "<p class=\"note\">Cross-CPU latencies are missing: %s.</p>\n",
			r->cross_cpu_missing_because);
	fputs("</section>\n", f);
	return 0;
}

static void tops(struct hx *x, int top)
{
	FILE *f = x->f;
	const struct ipt_report_summary *r = x->s;
	size_t n = 0, m = 0;
	const struct ipt_report_sender *s = ipt_report_sender_tasks(x->r, &n);
	const struct ipt_report_pair *p = ipt_report_pairs_all(x->r, &m);
	char a[160], b[160], c[32];

	if (top < 10)
		top = 10;
	fputs("<section id=\"tops\">\n<h2>Top senders and call sites</h2>\n<div class=\"kinds\">\n", f);
	fputs("<div><h3>Tasks that send the most IPIs</h3><table><tr><th class=\"l\">task</th><th>pid</th>"
	      "<th>IPIs</th><th>share</th></tr>\n", f);
	for (size_t i = 0; i < n && i < (size_t)top; i++) {
		int pid = s[i].pid;

		fputs("<tr><td class=\"l\">", f);
		html_esc(f, ipt_trace_comm(x->t, pid));
		fprintf(f, "</td><td>%d</td><td>%s</td><td>%.1f%%</td></tr>\n", pid, num(s[i].count, c),
			r->ipis_counted ? 100.0 * (double)s[i].count / (double)r->ipis_counted : 0.0);
	}
	fputs("</table></div>\n<div><h3>Call sites and the functions they run</h3><table><tr>"
	      "<th class=\"l\">call site</th><th class=\"l\">function</th><th>IPIs</th><th>share</th></tr>\n", f);
	for (size_t i = 0; i < m && i < (size_t)top; i++) {
		ipt_trace_format_symbol(x->t, p[i].callsite, true, a, sizeof(a));
		ipt_trace_format_function(x->t, p[i].function, b, sizeof(b));
		fputs("<tr><td class=\"l\">", f);
		html_esc(f, a);
		fputs("</td><td class=\"l\">", f);
		html_esc(f, b);
		fprintf(f, "</td><td>%s</td><td>%.1f%%</td></tr>\n", num(p[i].count, c),
			r->ipis_counted ? 100.0 * (double)p[i].count / (double)r->ipis_counted : 0.0);
	}
	fputs("</table></div>\n</div>\n</section>\n", f);
}

/* ---- per target CPU: senders by the --by key, and a flame graph ---- */

/* group_label - a group's key as one line of text */
static void group_label(const struct hx *x, const struct ipt_report_group *g, char *buf, size_t n)
{
	char a[160];

	switch (x->by) {
	case IPT_BY_COMM:
		snprintf(buf, n, "%s", g->comm);
		break;
	case IPT_BY_PID:
		snprintf(buf, n, "%s-%d", g->comm, g->pid);
		break;
	case IPT_BY_TASK:
		snprintf(buf, n, "%s-%d on cpu %d", g->comm, g->pid, g->src_cpu);
		break;
	case IPT_BY_CPU:
		snprintf(buf, n, "cpu %d", g->src_cpu);
		break;
	case IPT_BY_CALLSITE:
	case IPT_BY_FUNCTION:
		if (x->by == IPT_BY_CALLSITE)
			ipt_trace_format_symbol(x->t, g->addr, true, a, sizeof(a));
		else
			ipt_trace_format_function(x->t, g->addr, a, sizeof(a));
		snprintf(buf, n, "%s", a);
		break;
	case IPT_BY_KIND:
		snprintf(buf, n, "%s", ipt_kind_name((enum ipt_ipi_kind)g->kind));
		break;
	case IPT_BY_STACK:
		if (!g->stack)
			snprintf(buf, n, "(no stack recorded)");
		else if (!g->stack->nframes)
			snprintf(buf, n, "(only tracing frames)");
		else {
			ipt_trace_format_symbol(x->t, g->stack->frames[0], true, a, sizeof(a));
			snprintf(buf, n, "%s (%u frames)", a, g->stack->nframes);
		}
		break;
	default:
		buf[0] = 0;
	}
}

/* flame - the icicle graph of the folded stacks to cpu; -1 out of memory */
static int flame(struct hx *x, int cpu)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	uint64_t total = 0;
	char attrs[96];
	int ret = -1;

	if (ipt_report_folded(x->r, cpu, &sb, &total))
		goto out;
	ret = 0;
	if (!total)
		goto out;
	fprintf(x->f, "<h3>Call paths of the senders (%s IPIs with a kernel stack; icicle: the command"
		" on top, then the stack from its root to the send)</h3>\n", num(total, (char[32]){ 0 }));
	snprintf(attrs, sizeof(attrs), "data-cpu=\"%d\" data-stacks=\"%llu\"", cpu, (unsigned long long)total);
	ret = flame_svg(x->f, ipt_strbuf_str(&sb), sb.len, false, attrs, &total);
out:
	ipt_strbuf_free(&sb);
	return ret;
}

/* targets - per target CPU (the TARGETS_MAX with most IPIs): its senders by
 * the --by key and the flame graph of their stacks */
static int targets(struct hx *x)
{
	FILE *f = x->f;
	int ncpus = x->s->ncpus, shown = 0, with = 0;
	int *order = calloc((size_t)ncpus + 1, sizeof(*order));
	char a[200], c[32];

	if (!order)
		return -1;
	for (int i = 0; i < ncpus; i++)
		if (ipt_report_cpu(x->r, i)->ipis)
			order[with++] = i;
	/* the busiest targets, shown in CPU order */
	for (int i = 0; i < with; i++)
		for (int j = i + 1; j < with; j++)
			if (ipt_report_cpu(x->r, order[j])->ipis > ipt_report_cpu(x->r, order[i])->ipis) {
				int t = order[i];

				order[i] = order[j];
				order[j] = t;
			}
	shown = with < TARGETS_MAX ? with : TARGETS_MAX;
	for (int i = 0; i < shown; i++)
		for (int j = i + 1; j < shown; j++)
			if (order[j] < order[i]) {
				int t = order[i];

				order[i] = order[j];
				order[j] = t;
			}
	fprintf(f, "<section id=\"targets\">\n<h2>Per target CPU: who sends, from which call path</h2>\n");
	if (shown < with)
		fprintf(f, "<p class=\"note\">The %d target CPUs that received the most IPIs of %d.</p>\n", shown,
			with);
	for (int i = 0; i < shown; i++) {
		int cpu = order[i];
		const struct ipt_report_cpu *cp = ipt_report_cpu(x->r, cpu);
		size_t n;
		const struct ipt_report_group *g = ipt_report_groups(x->r, x->by, cpu, IPT_SORT_COUNT, &n);

		if (!g)
			goto fail;
		fprintf(f, "<div class=\"target\" id=\"target-%d\"><h3>CPU %d: %s IPIs</h3>\n", cpu, cpu,
			num(cp->ipis, c));
		fprintf(f, "<table class=\"senders\" data-cpu=\"%d\" data-by=\"%s\"><tr><th class=\"l\">%s</th>%s"
			"<th>IPIs</th><th>share</th></tr>\n", cpu, ipt_group_by_name(x->by), ipt_group_by_name(x->by),
			x->by == IPT_BY_COMM ? "<th>pids</th>" : "");
		for (size_t k = 0; k < n && k < (size_t)x->top; k++) {
			group_label(x, &g[k], a, sizeof(a));
			fprintf(f, "<tr data-count=\"%llu\"><td class=\"l\">", (unsigned long long)g[k].count);
			html_esc(f, a);
			fputs("</td>", f);
			if (x->by == IPT_BY_COMM)
				fprintf(f, "<td>%u</td>", g[k].npids);
			fprintf(f, "<td>%s</td><td>%.1f%%</td></tr>\n", num(g[k].count, c),
				100.0 * (double)g[k].count / (double)cp->ipis);
		}
		if (n > (size_t)x->top)
			fprintf(f, "<tr><td class=\"l\" colspan=\"%d\">%zu more</td></tr>\n",
				x->by == IPT_BY_COMM ? 4 : 3, n - (size_t)x->top);
		fputs("</table>\n", f);
		if (cp->with_stack && flame(x, cpu))
			goto fail;
		fputs("</div>\n", f);
	}
	fputs("</section>\n", f);
	free(order);
	return 0;
fail:
	free(order);
	return -1;
}

/* kernel_counters - /proc/interrupts (stored by record) beside the trace */
static void kernel_counters(struct hx *x)
{
	FILE *f = x->f;
	size_t n;
	const struct ipt_report_kernel_irq *k = ipt_report_kernel_irqs(x->r, &n);
	char a[32];

	if (!n)
		return;
	fputs("<h3>Kernel counters (/proc/interrupts), tracing on to off</h3><table class=\"kernel\"><tr>"
	      "<th>CPU</th><th class=\"l\">row</th><th>kernel</th><th>traced</th><th>sends</th>"
	      "<th>unexplained</th><th>setup</th><th>teardown</th><th class=\"l\">what</th></tr>\n", f);
	for (size_t i = 0; i < n && i < CPU_ROWS_MAX * 4; i++) {
		int64_t v[] = { k[i].kernel, k[i].traced, k[i].sends, 0, k[i].setup, k[i].teardown };

		fprintf(f, "<tr><td>%d</td><td class=\"l\">", k[i].cpu);
		html_esc(f, k[i].row);
		fputs("</td>", f);
		for (size_t j = 0; j < sizeof(v) / sizeof(v[0]); j++) {
			if (j == 3 && k[i].note == IPT_KIRQ_WITHIN)
				fputs("<td>(in CAL)</td>", f);
			else if (j == 3 && (k[i].note == IPT_KIRQ_UNKNOWN || k[i].note == IPT_KIRQ_NOT_RECORDED))
				fputs("<td>-</td>", f);
			else if (j == 3)
				fprintf(f, "<td>%lld</td>", (long long)k[i].unexplained);
			else if (v[j] < 0)
				fputs("<td>-</td>", f);
			else
				fprintf(f, "<td>%s</td>", num((uint64_t)v[j], a));
		}
		fputs("<td class=\"l\">", f);
		html_esc(f, k[i].desc);
		fputs(k[i].note == IPT_KIRQ_NOT_COVERED ? " (no trace event covers it)" :
		      k[i].note == IPT_KIRQ_NOT_RECORDED ? " (not recorded: outside the recording's --cpus)" : "", f);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void matching(struct hx *x)
{
	FILE *f = x->f;
	const struct ipt_report_summary *r = x->s;
	char a[32], b[32], c[32], d[32];

	fputs("<section id=\"matching\">\n<h2>Matching sends to handlers</h2>\n", f);
	if (r->csd_queued)
		fprintf(f, "<p class=\"meta\">csd calls queued %s: %s rode an IPI of their own, %s needed none.</p>\n",
			num(r->csd_queued, a), num(r->csd_with_ipi, b), num(r->csd_without_ipi, c));
	if (!r->receive_events) {
		fputs("<p class=\"meta\">No receive events in this trace (irq_vectors:*_entry or ipi:ipi_entry): "
		      "nothing to match.</p>\n</section>\n", f);
		return;
	}
	fprintf(f, "<p class=\"meta\">Remote IPIs matched to a handler: %s of %s (%.2f%%); served by an interrupt "
		"that served an earlier one (coalesced): %s.</p>\n", num(r->remote_matched, a),
		num(r->remote, b),
		r->remote ? 100.0 * (double)r->remote_matched / (double)r->remote : 100.0,
		num(r->coalesced, c));
	fprintf(f, "<p class=\"meta\">IPI interrupts %s, with no traced send %s; csd calls matched by pointer "
		"%s.</p>\n", num(r->handlers, a), num(r->handlers_unattributed, b), num(r->csd_runs, c));
	fprintf(f, "<p class=\"meta\">Unmatched: trace ended %s, receive events not recorded %s, lost events "
		"%s, no handler seen %s.</p>\n", num(r->unmatched_trace_ended, a),
		num(r->unmatched_no_receive_events, b), num(r->unmatched_lost_events, c),
		num(r->unmatched_no_handler, d));
	{
		size_t n;
		const struct ipt_report_unsent *u = ipt_report_unsent(x->r, &n);

		if (n) {
			fputs("<h3>Interrupts with no traced send</h3><table class=\"unsent\"><tr><th>CPU</th>"
			      "<th class=\"l\">vector</th><th>interrupts</th>", f);
			for (int w = 0; w < IPT_UNSENT__COUNT; w++)
				fprintf(f, "<th>%s</th>", ipt_unsent_cause_name((enum ipt_unsent_cause)w));
			fputs("</tr>\n", f);
			for (size_t i = 0; i < n && i < CPU_ROWS_MAX; i++) {
				fprintf(f, "<tr><td>%d</td><td class=\"l\">", u[i].cpu);
				html_esc(f, u[i].vector);
				fprintf(f, "</td><td>%s</td>", num(u[i].count, a));
				for (int w = 0; w < IPT_UNSENT__COUNT; w++)
					fprintf(f, "<td>%s</td>", num(u[i].by_cause[w], a));
				fputs("</tr>\n", f);
			}
			fputs("</table>\n<p class=\"note\">", f);
			for (int w = 0; w < IPT_UNSENT__COUNT; w++)
				fprintf(f, "%s%s: %s", w ? "; " : "", ipt_unsent_cause_name((enum ipt_unsent_cause)w),
					ipt_unsent_cause_what((enum ipt_unsent_cause)w));
			fputs(".</p>\n", f);
		}
	}
	kernel_counters(x);
	fputs("</section>\n", f);
}

static void isolated(struct hx *x, const struct ipt_cpuset *iso)
{
	FILE *f = x->f;
	size_t niso;
	const struct ipt_report_isolated *v = ipt_report_isolated(x->r, &niso);
	char list[256], a[160], b[160];

	fputs("<section id=\"isolated\">\n<h2>IPIs that reached isolated CPUs</h2>\n", f);
	if (!iso) {
		fputs("<p class=\"note\">No isolated CPUs: give them with <code>--isolated LIST</code> "
		      "(<code>ipitrace record</code> stores the machine's own).</p>\n</section>\n", f);
		return;
	}
	ipt_cpuset_format_list(iso, list, sizeof(list));
	fprintf(f, "<p class=\"meta\">CPUs %s: %zu IPIs.</p>\n", list, niso);
	if (!niso) {
		fputs("</section>\n", f);
		return;
	}
	fputs("<table>\n<tr><th class=\"l\">time</th><th>from</th><th>to</th><th class=\"l\">task</th>"
	      "<th class=\"l\">call site</th><th class=\"l\">function</th><th class=\"l\">kind</th>"
	      "<th>latency &#181;s</th><th>handler &#181;s</th><th class=\"l\">stack</th></tr>\n", f);
	for (size_t i = 0; i < niso && i < ISO_MAX; i++) {
		const struct ipt_report_isolated *e = &v[i];
		struct ipt_strbuf sb = IPT_STRBUF_INIT;

		ipt_render_ts(x->t, e->ts, &sb);
		fputs("<tr><td class=\"l\">", f);
		html_esc(f, ipt_strbuf_str(&sb));
		ipt_strbuf_free(&sb);
		fprintf(f, "</td><td>%d</td><td>%d</td><td class=\"l\">", e->src_cpu, e->target_cpu);
		html_esc(f, ipt_trace_comm(x->t, e->pid));
		fprintf(f, "-%d</td><td class=\"l\">", e->pid);
		ipt_trace_format_symbol(x->t, e->callsite, true, a, sizeof(a));
		html_esc(f, a);
		fputs("</td><td class=\"l\">", f);
		ipt_trace_format_function(x->t, e->func ? e->func : e->callback, b, sizeof(b));
		html_esc(f, b);
		fprintf(f, "</td><td class=\"l\">%s</td>", ipt_kind_name(e->kind));
		if (e->latency >= 0)
			fprintf(f, "<td>%.1f</td>", (double)e->latency / 1e3);
		else
			fprintf(f, "<td>%s</td>", e->matched ? "n/a" : "unmatched");
		if (e->handler >= 0)
			fprintf(f, "<td>%.1f</td>", (double)e->handler / 1e3);
		else
			fputs("<td>-</td>", f);
		fputs("<td class=\"l\">", f);
		if (e->nstack) {
			fprintf(f, "<details><summary>%u frames</summary>", e->nstack);
			for (uint32_t k = 0; k < e->nstack; k++) {
				ipt_trace_format_symbol(x->t, e->stack[k], true, a, sizeof(a));
				html_esc(f, a);
				fputs("<br>", f);
			}
			fputs("</details>", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	if (niso > ISO_MAX)
		fprintf(f, "<p class=\"note\">%zu more: see <code>ipitrace report --format json</code>.</p>\n",
			niso - ISO_MAX);
	fputs("</section>\n", f);
}

/* the spikes by latency, the worst first (then CPU and time, as listed) */
static int by_latency(const void *a, const void *b)
{
	const struct ipt_spike *x = *(const struct ipt_spike *const *)a, *y = *(const struct ipt_spike *const *)b;

	if (x->latency_ns != y->latency_ns)
		return x->latency_ns < y->latency_ns ? 1 : -1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

/* span_x - [from, to] inside the spike's window, as px from its start */
static void span_x(const struct ipt_spike *s, uint64_t from, uint64_t to, double *x0, double *x1)
{
	double lat = s->latency_ns ? (double)s->latency_ns : 1;
	double a = from > s->start_ns ? (double)(from - s->start_ns) : 0;
	double b = to > s->start_ns ? (double)(to - s->start_ns) : 0;

	*x0 = (a > lat ? lat : a) / lat * SPIKE_W;
	*x1 = (b > lat ? lat : b) / lat * SPIKE_W;
	if (*x1 - *x0 < 1)
		*x1 = *x0 + 1;	/* too short to see: one pixel */
}

/* spike_timeline - one spike: its window, then a lane per IPI interrupt
 * (entry -> exit, by kind; a coalesced send: a mark at its interrupt's
 * entry), per csd function run (entry -> exit) and per noise row (its end
 * and net duration, cut at the window) */
static void spike_timeline(struct hx *x, const struct ipt_spike *s)
{
	static const char *const kind_col[IPT_KIND__COUNT] = { "#4e79a7", "#59a14f", "#f28e2b", "#e15759",
							       "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
							       "#9c755f" };
	FILE *f = x->f;
	size_t lanes = 1 + s->nipis + s->ncsd + s->nnoise;
	char a[32], key[512];
	double x0, x1;
	int y = 16;

	fprintf(f, "<div class=\"spike\"><h3>CPU %d, sample %u: %s latency", s->cpu, s->seq,
		dur((double)s->latency_ns, a));
	fprintf(f, ", %zu IPI interrupt%s, ", s->nipis, s->nipis == 1 ? "" : "s");
	if (!s->noise_known)
		fputs("other interference unknown (no osnoise events on this CPU)", f);
	else if (s->over)
		fprintf(f, "noise listed %s over the latency (two clocks)", dur((double)s->excess_ns, a));
	else
		fprintf(f, "unaccounted %s", dur((double)s->unaccounted_ns, a));
	fprintf(f, "</h3>\n<svg class=\"spike\" width=\"%d\" height=\"%zu\" data-cpu=\"%d\" data-seq=\"%u\" "
		"data-latency-ns=\"%llu\" data-ipis=\"%zu\" data-csd=\"%zu\" data-noise=\"%zu\">\n", SPIKE_W + 260,
		lanes * 14 + 20, s->cpu, s->seq, (unsigned long long)s->latency_ns, s->nipis, s->ncsd, s->nnoise);
	fprintf(f, "<rect class=\"window\" x=\"260\" y=\"2\" width=\"%d\" height=\"10\" fill=\"#ddd\">"
		"<title>the sample's window: its timer was due at the start, the thread woke at the end</title>"
		"</rect><text x=\"0\" y=\"11\">window</text>\n", SPIKE_W);
	for (size_t i = 0; i < s->nipis; i++, y += 14) {
		const struct ipt_spike_ipi *ip = ipt_spike_ipi_get(s, i);
		const char *col = kind_col[ip->kind < IPT_KIND__COUNT ? ip->kind : IPT_KIND__COUNT - 1];

		explain_sender(ip, key, sizeof(key));
		span_x(s, ip->entry_ns, ip->entry_ns + (ip->has_handler && !ip->coalesced ? ip->handler_ns : 0), &x0, &x1);
		fprintf(f, "<rect class=\"ipi\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"10\" fill=\"%s\"%s>"
			"<title>%s IPI from CPU %d, ", 260 + x0, y, x1 - x0, col,
			ip->coalesced ? " fill-opacity=\"0.4\"" : "", ipt_kind_name(ip->kind), (int)ip->src_cpu);
		html_esc(f, key);
		if (ip->coalesced)
			fputs(": coalesced into the interrupt above", f);
		else if (ip->has_handler)
			fprintf(f, ": handler %s", dur((double)ip->handler_ns, a));
		fprintf(f, "</title></rect><text x=\"0\" y=\"%d\">%s ", y + 9, ipt_kind_name(ip->kind));
		html_esc(f, ip->comm ? ip->comm : "?");
		fputs("</text>\n", f);
	}
	for (size_t i = 0; i < s->ncsd; i++, y += 14) {
		const struct ipt_spike_csd *c = ipt_spike_csd_get(s, i);

		span_x(s, c->entry_ns, c->entry_ns + c->run_ns, &x0, &x1);
		fprintf(f, "<rect class=\"csd\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"10\" fill=\"#8cd17d\">"
			"<title>csd function ", 260 + x0, y, x1 - x0);
		html_esc(f, c->func);
		if (c->has_exit)
			fprintf(f, ": run %s", dur((double)c->run_ns, a));
		else
			fputs(": no exit seen", f);
		if (c->ipi >= 0)
			fprintf(f, ", in IPI %d above", c->ipi + 1);
		if (c->queued) {
			fprintf(f, "; queued on CPU %d by ", (int)c->src_cpu);
			html_esc(f, c->comm);
			fprintf(f, "[%d], waited %s", (int)c->pid,
				dur((double)(c->entry_ns >= c->queue_ns ? c->entry_ns - c->queue_ns : 0), a));
		}
		fputs("</title></rect><text x=\"0\" y=\"", f);
		fprintf(f, "%d\">csd ", y + 9);
		html_esc(f, c->func);
		fputs("</text>\n", f);
	}
	for (size_t i = 0; i < s->nnoise; i++, y += 14) {
		const struct ipt_spike_noise *n = ipt_spike_noise_get(s, i);

		span_x(s, n->end_ns > n->duration_ns ? n->end_ns - n->duration_ns : 0, n->end_ns, &x0, &x1);
		fprintf(f, "<rect class=\"noise\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"10\" fill=\"#999\">"
			"<title>%s noise ", 260 + x0, y, x1 - x0, ipt_spike_noise_kind_name(n->kind));
		html_esc(f, n->name);
		fprintf(f, ": %s net, %s of it inside the window%s</title></rect><text x=\"0\" y=\"%d\">%s ",
			dur((double)n->duration_ns, a), dur((double)n->counted_ns, key), n->before_window ?
			" (it began before the window)" : "", y + 9, ipt_spike_noise_kind_name(n->kind));
		html_esc(f, n->name);
		fputs("</text>\n", f);
	}
	fputs("</svg></div>\n", f);
}

/* spikes - a latency recording's spikes (the worst 10 per CPU, as
 * `ipitrace explain` picks them): the worst SPIKES_MAX as timelines, and
 * the senders by IPI handler time inside spikes.  Only for a latency
 * recording (timerlat's or osnoise's samples and osnoise's noise events, ns
 * clock), as the text report. */
static int spikes(struct hx *x)
{
	struct explain_summary m;
	const struct ipt_spike **v;
	struct ipt_spikes *sp;
	FILE *f = x->f;
	size_t n;
	char a[32];

	if (!has_spikes(x))
		return 0;
	fputs("<section id=\"spikes\">\n<h2>Latency spikes and what was inside them</h2>\n", f);
	switch (explain_default_spikes(x->t, &sp, &m)) {
	case -1:
		return -1;
	case 0:
		fputs("<p class=\"note\">None: ", f);
		html_esc(f, ipt_errmsg());
		fputs("</p>\n</section>\n", f);
		return 0;
	}
	n = ipt_spikes_count(sp);
	if (!(v = calloc(n ? n : 1, sizeof(*v)))) {
		explain_summary_free(&m);
		ipt_spikes_free(sp);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = ipt_spikes_get(sp, i);
	qsort(v, n, sizeof(*v), by_latency);
	fprintf(f, "<p class=\"meta\">%zu %s, the worst 10 per CPU; %llu of them hold IPI "
		"interrupts. The whole trace: filters and --cpus do not apply. "
		"<code>ipitrace explain</code> lists each.</p>\n", n, explain_samples_kind(sp), (unsigned long long)m.with);
	if (m.full.n)
		fputs("<table>\n<tr><th class=\"l\">senders by IPI handler time inside spikes</th><th>time</th>"
		      "<th>IPIs</th><th>spikes</th></tr>\n", f);
	for (size_t j = 0; j < m.full.n && j < (size_t)x->top; j++) {
		fputs("<tr><td class=\"l\">", f);
		html_esc(f, m.full.t[j].key);
		fprintf(f, "</td><td>%s</td><td>%llu</td><td>%llu</td></tr>\n", dur((double)m.full.t[j].ns, a),
			(unsigned long long)m.full.t[j].ipis, (unsigned long long)m.full.t[j].spikes);
	}
	fputs(m.full.n ? "</table>\n" : "<p class=\"note\">No IPI interrupt inside any of them.</p>\n", f);
	fprintf(f, "<p class=\"note\">The worst %d, each its window scaled to %d px: IPI interrupts from entry "
		"to exit by kind (pale: a send coalesced into an interrupt above), the noise osnoise measured, "
		"net, from its end.</p>\n", n < SPIKES_MAX ? (int)n : SPIKES_MAX, SPIKE_W);
	for (size_t i = 0; i < n && i < SPIKES_MAX; i++)
		spike_timeline(x, v[i]);
	fputs("</section>\n", f);
	free(v);
	explain_summary_free(&m);
	ipt_spikes_free(sp);
	return 0;
}

static void hx_free(struct hx *x)
{
	free(x->tbins);
	axis_free(&x->tax);
}

/* time_rows - the chart's rows: CPUs that received IPIs, their time bins
 * added up per row */
static int time_rows(struct hx *x)
{
	int ncpus = x->s->ncpus;
	bool *want = calloc((size_t)ncpus + 1, 1);
	int ret = -1;

	if (!want)
		return -1;
	for (int c = 0; c < ncpus; c++)
		want[c] = ipt_report_cpu(x->r, c)->ipis > 0;
	if (axis_build(&x->tax, ncpus, want))
		goto out;
	x->tbins = calloc((size_t)(x->tax.n ? x->tax.n : 1) * TBINS, sizeof(*x->tbins));
	if (!x->tbins)
		goto out;
	for (int c = 0; c < ncpus; c++) {
		const uint64_t *b = ipt_report_time_bins(x->r, c);

		if (!b || x->tax.map[c] < 0)
			continue;
		for (int k = 0; k < TBINS; k++)
			x->tbins[(size_t)x->tax.map[c] * TBINS + (size_t)k] += b[k];
	}
	ret = 0;
out:
	free(want);
	return ret;
}

int report_html(struct ipt_report *r, struct ipt_trace *t, const char *filter,
		const struct ipt_cpuset *iso, int top, enum ipt_group_by by, const char *path, bool replace)
{
	struct hx x = { 0 };
	struct outfile of;
	int ret = 1;

	x.r = r;
	x.s = ipt_report_summary(r);
	x.t = t;
	x.filter = filter;
	x.by = by;
	x.top = top ? (top < 10 ? 10 : top) : 1 << 30;
	x.iso = iso;
	x.wide = top && x.s->ncpus > CPU_TABLE_ALL_UP_TO;
	x.span = x.s->last_ts > x.s->first_ts ? x.s->last_ts - x.s->first_ts + 1 : 1;
	x.ns = ipt_trace_ts_in_ns(t);
	if (time_rows(&x))
		goto oom;
	if (outfile_open(&of, path, replace))
		goto out;
	x.f = of.f;
	head(&x);
	if (heatmap(&x)) {
		outfile_abort(&of);
		goto oom;
	}
	time_chart(&x);
	histograms(&x);
	if (cpu_table(&x)) {
		outfile_abort(&of);
		goto oom;
	}
	tops(&x, x.top);
	if (targets(&x)) {
		outfile_abort(&of);
		goto oom;
	}
	matching(&x);
	isolated(&x, iso);
	if (spikes(&x)) {
		outfile_abort(&of);
		goto oom;
	}
	fprintf(x.f, "<p class=\"note\">Written by ipitrace %s. Times are trace clock times.</p>\n"
		"</body>\n</html>\n", IPT_VERSION);
	if (outfile_commit(&of))
		goto out;
	if (strcmp(path, "-"))
		fprintf(stderr, "ipitrace: wrote the HTML report to %s\n", path);
	ret = 0;
	goto out;
oom:
	err_msg("out of memory");
out:
	hx_free(&x);
	return ret;
}
