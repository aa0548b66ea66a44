// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * text_header.c - the lines of a text trace that are no events but say
 * something of it: the header ("cpus=N", "version = N", "# ..." comments
 * with "#P:N" and the entries-in-buffer count) and the loss marks
 * ("CPU:N [EVENTS DROPPED]", "CPU:N [LOST N EVENTS]")
 */
#include "input/text.h"

/* "CPU:N [EVENTS DROPPED]", "CPU:N [123 EVENTS DROPPED]", "CPU:N [LOST 123 EVENTS]" */
int ipt_text_dropped_line(struct tx *x, const char *p, const char *e, bool *handled)
{
	const char *q = p + 4, *ce;
	uint64_t cpu, count = 0;
	struct cpuw *w;

	*handled = false;
	ce = q;
	while (ce < e && is_digit(*ce))
		ce++;
	if (!parse_dec(q, ce, &cpu) || cpu >= IPT_CPUSET_MAX)
		return 0;
	q = skip_blanks(ce, e);
	if (starts(q, e, "[EVENTS DROPPED]")) {
		count = 0;
	} else if (starts(q, e, "[LOST ")) {
		const char *n = q + 6, *ne = n;

		while (ne < e && is_digit(*ne))
			ne++;
		if (!parse_dec(n, ne, &count) || !starts(ne, e, " EVENTS]"))
			return 0;
	} else if (starts(q, e, "[")) {
		const char *n = q + 1, *ne = n;

		while (ne < e && is_digit(*ne))
			ne++;
		if (!parse_dec(n, ne, &count) || !starts(ne, e, " EVENTS DROPPED]"))
			return 0;
	} else {
		return 0;
	}
	*handled = true;
	if (ipt_text_flush_pending(x))
		return -1;
	w = ipt_text_cpu_writer(x, (int)cpu);
	if (!w || ipt_page_writer_mark_missed(&w->pw, count))
		return -1;
	return 0;
}

/* clock_comment - "# ... clock: NAME" (ipitrace serve's /watched.txt says
 * CLOCK_MONOTONIC; a tracefs clock name is taken as it is): the clock that
 * stamped the text, when it names one that tracefs has */
static void clock_comment(struct tx *x, const char *p, const char *e)
{
	static const char *const names[] = {
		"local", "global", "counter", "uptime", "perf", "mono", "mono_raw", "boot", "tai", "x86-tsc",
	};
	size_t n = 0;

	while (p + n < e && p[n] != ' ' && p[n] != ')' && p[n] != ',' && p[n] != ';' && p[n] != '\n')
		n++;
	if (n == 15 && !memcmp(p, "CLOCK_MONOTONIC", 15)) {
		snprintf(x->clock, sizeof(x->clock), "mono");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strlen(names[i]) == n && !memcmp(p, names[i], n))
			snprintf(x->clock, sizeof(x->clock), "%s", names[i]);
}

/* ipt_text_header_line - cpus=, version =, # comments; true if it was one */
bool ipt_text_header_line(struct tx *x, const char *p, const char *e)
{
	if (*p == '#') {
		const char *np = find(p, e, "#P:");

		const char *ew = find(p, e, "entries-in-buffer/entries-written: ");

		const char *ck = find(p, e, "clock: ");

		if (starts(p, e, "# tracer:"))
			x->saw_tracer = true;
		if (ck)
			clock_comment(x, ck + 7, e);
		if (ew) {
			/* "# entries-in-buffer/entries-written: 318/318   #P:2" */
			const char *a = ew + 35, *ae = a, *b, *be;
			uint64_t in, wr;

			while (ae < e && is_digit(*ae))
				ae++;
			b = ae + 1;
			be = b;
			while (be < e && is_digit(*be))
				be++;
			if (ae < e && *ae == '/' && parse_dec(a, ae, &in) && parse_dec(b, be, &wr) &&
			    in <= INT64_MAX && wr <= INT64_MAX) {
				x->t->entries_in_buffer = (int64_t)in;
				x->t->entries_written = (int64_t)wr;
			}
		}
		if (np) {
			const char *d = np + 3, *de = d;
			uint64_t n;

			while (de < e && is_digit(*de))
				de++;
			if (parse_dec(d, de, &n) && n > 0 && n <= IPT_CPUSET_MAX)
				x->nr_cpus = (int)n;
		}
		return true;
	}
	if (starts(p, e, "cpus=")) {
		uint64_t n;

		if (parse_dec(p + 5, e, &n) && n > 0 && n <= IPT_CPUSET_MAX) {
			x->nr_cpus = (int)n;
			x->saw_cpus = true;
			return true;
		}
		return false;
	}
	if (starts(p, e, "version = ") || starts(p, e, "version=")) {
		x->saw_cpus = true;	/* trace-cmd report's header */
		return true;
	}
	if (starts(p, e, "CPU ") && (find(p, e, " is empty") || find(p, e, "is empty")))
		return true;
	return false;
}
