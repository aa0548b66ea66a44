/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* out_rows.h - IPI rows as text tables (CSV, JSON lines) */
#ifndef IPT_OUT_ROWS_H
#define IPT_OUT_ROWS_H

#include "core/core.h"

enum ipt_row_format { IPT_ROWS_CSV, IPT_ROWS_JSONL };

/* the header line (CSV only; nothing for JSON lines) */
int ipt_rows_header(enum ipt_row_format fmt, bool explode, struct ipt_strbuf *sb);
/* one row as a line; !explode: the event's targets instead of target_cpu */
int ipt_rows_format(enum ipt_row_format fmt, bool explode, const struct ipt_ipi_row *r,
		    struct ipt_strbuf *sb);

#endif
