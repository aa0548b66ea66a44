/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_json.h - `ipitrace report -f json`: the report as one JSON object
 */
#ifndef IPT_REPORT_JSON_H
#define IPT_REPORT_JSON_H

#include "ipitrace-private.h"

struct report_json_opts {
	int top;				/* groups per target CPU (0: all) */
	enum ipt_group_by by;			/* the key of the groups */
	enum ipt_group_sort sort;
	bool ns;				/* times are ns (else they are null) */
	const struct ipt_cpuset *isolated;	/* the CPUs listed one IPI at a time (NULL: none) */
};

/* Write the report r over t to f.  0, or 1 after printing an error. */
int report_json(struct ipt_report *r, struct ipt_trace *t, const struct report_json_opts *o, FILE *f);

#endif
