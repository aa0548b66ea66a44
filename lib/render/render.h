/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * render/render.h - records as text: print fmt programs, name=value fields,
 * symbols (not installed)
 */
#ifndef IPT_RENDER_H
#define IPT_RENDER_H

#include "core/core.h"

/* ---- print fmt (printfmt_render.c; the programs: printfmt.h) ---- */
/*
 * Parse ev->print_fmt into ev->prog (once); render the fields of rec as the
 * kernel / libtraceevent would print them.  Returns -1 when the print fmt
 * cannot be rendered (the caller then falls back to name=value).
 */
int ipt_printfmt_render(struct ipt_trace *t, const struct ipt_event *ev,
			const struct ipt_record *rec, unsigned int flags,
			struct ipt_strbuf *out);

/* render.c: name=value rendering of every non-common field. */
int ipt_render_raw_fields(struct ipt_trace *t, const struct ipt_record *r,
			  unsigned int flags, struct ipt_strbuf *out);
/* Print %pS-style "sym+0xoff" (or "0x..." when unknown) for addr. */
int ipt_render_sym(const struct ipt_trace *t, uint64_t addr, bool with_offset,
		   struct ipt_strbuf *out);

#endif /* IPT_RENDER_H */
