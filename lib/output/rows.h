/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rows.h - the rows' text with a memo of their stacks (rows.c), for
 * ipt_rows_write: a stack's column is formatted once per memo, not for
 * every row of it (its frames looked up and printed: a third of a convert
 * of a recording with stacks).  A memo is one thread's, for the rows of
 * one report (a stack is known by its address there) in one format.
 */
#ifndef IPT_OUTPUT_ROWS_H
#define IPT_OUTPUT_ROWS_H

#include "core/core.h"

struct ipt_stack_memo;

/* NULL without memory */
struct ipt_stack_memo *ipt_stack_memo_new(void);
void ipt_stack_memo_free(struct ipt_stack_memo *memo);
/* ipt_rows_format_match with a memo (NULL: none) */
int ipt_rows_format_match_memo(enum ipt_row_format fmt, bool explode, const struct ipt_trace *t,
			       const struct ipt_ipi_row *r, const struct ipt_row_match *m,
			       struct ipt_stack_memo *memo, struct ipt_strbuf *sb);

#endif
