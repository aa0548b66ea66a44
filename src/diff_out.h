/* SPDX-License-Identifier: GPL-2.0-or-later */
/* diff_out.h - what `ipitrace diff` writes besides its text: the folded
 * stacks with two counts (cmd_diff.c), and --html OUT (diff_html.c): the
 * tables and a differential flame graph as one self-contained HTML file
 * (no script, no network) */
#ifndef IPT_DIFF_OUT_H
#define IPT_DIFF_OUT_H

#include "ipitrace-private.h"

/* diff_folded_text - the rows of a table by stack as "comm;root;...;leaf
 * BEFORE AFTER" lines (difffolded.pl's form; roles added up, "(no stack)"
 * left out), sorted by stack, appended to sb; -1 without memory */
int diff_folded_text(const struct ipt_diff_row *v, size_t n, struct ipt_strbuf *sb);

/* the page of sides s (read from path[0], path[1]) with a table for each
 * key of by[0..nby) (IPT_DIFF_BY_ROLE first), top rows each (0: all);
 * written to path as it becomes complete (an existing file only if
 * replace), and said where; 0 or 1 (the
 * error said) */
int diff_html(struct ipt_diff_side *const s[2], const char *const path[2], const int *by, int nby, int top,
	      const char *out, bool replace);

#endif
