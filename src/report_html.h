/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_html.h - `ipitrace report --html OUT`: the report as one
 * self-contained HTML file (inline CSS and SVG; no script, no network)
 */
#ifndef IPT_REPORT_HTML_H
#define IPT_REPORT_HTML_H

#include "ipitrace-private.h"

/* the time bins of the chart of IPIs over time (ipt_report_opts.time_bins) */
#define REPORT_HTML_TIME_BINS 240

/*
 * Write the HTML report r (run over t with time_bins REPORT_HTML_TIME_BINS
 * and kind_distributions) to path ("-": standard output).  filter: the
 * filter expression given (NULL: none), shown as it is; iso: the isolated
 * CPUs listed (NULL: none); top: rows of the top-N tables (0: all); by: the
 * key of the per-target senders tables; replace: an existing file at path
 * is replaced (--force), else an error.  Returns 0, or
 * 1 after printing an error.
 */
int report_html(struct ipt_report *r, struct ipt_trace *t, const char *filter,
		const struct ipt_cpuset *iso, int top, enum ipt_group_by by, const char *path,
		bool replace);

#endif
