/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_html.h - `ipitrace report --html OUT`: the report as one
 * self-contained HTML file (inline CSS and SVG; no script, no network)
 */
#ifndef IPT_REPORT_HTML_H
#define IPT_REPORT_HTML_H

#include "ipi/report.h"

/*
 * Write the HTML report of r (already run over t) to path ("-": standard
 * output).  iso: the isolated CPUs listed (NULL: none); top: rows of the
 * top-N tables.  Makes one more pass over t for what r does not keep (IPIs
 * per target CPU over time, latency and handler-time distributions per
 * kind).  Returns 0, or 1 after printing an error.
 */
int report_html(struct rpt *r, struct ipt_trace *t, const struct ipt_cpuset *iso, int top,
		const char *path);

#endif
