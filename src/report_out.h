/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_out.h - `ipitrace report` as text (report_text.c) and as JSON
 * (report_json.c), from one finished report
 */
#ifndef IPT_REPORT_OUT_H
#define IPT_REPORT_OUT_H

#include "ipitrace-private.h"

struct report_view {
	int top;				/* rows of the top-N tables (0: all) */
	enum ipt_group_by by;			/* the key of the senders' groups */
	enum ipt_group_sort sort;
	bool ns;				/* times are ns (else none is shown) */
	bool with_recorder;			/* the recorder's own sends kept in the groups */
	const struct ipt_cpuset *isolated;	/* the isolated CPUs: a role of their own, and
						 * listed one IPI at a time (NULL: none) */
	const char *isolated_from;		/* where that set comes from, for the reader */
	bool all_isolated;			/* list every IPI to them (else the first and
						 * the slowest) */
	bool isolated_given;			/* they were given (--isolated), else recorded */
	bool filtered;				/* -F or --cpus: the spikes section is unfiltered */
};

/* Write the report r over t to f.  0, or 1 after printing an error. */
int report_text(struct ipt_report *r, struct ipt_trace *t, const struct report_view *v, FILE *f);
int report_json(struct ipt_report *r, struct ipt_trace *t, const struct report_view *v, FILE *f);

/*
 * report --format uniq (report_uniq.c): the two tables of the kernel
 * developers' trace-cmd recipe, for the send events and the queued csd
 * calls whose rows filter (NULL: all) keeps.  0, or the exit code after
 * printing an error (1; 2 for a bad filter).
 */
int report_uniq(struct ipt_trace *t, const char *filter, FILE *f);

#endif
