// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * zz_stub_printfmt.c - weak fallback while lib/printfmt.c is absent: every
 * event then prints as name=value.  One stub per file, named to sort after
 * the real one, so that the archive never picks a stub over real code.
 */
#include "internal.h"

__attribute__((weak)) int ipt_printfmt_render(struct ipt_trace *t, const struct ipt_event *ev,
					      const struct ipt_record *rec, unsigned int flags,
					      struct ipt_strbuf *out)
{
	return -1;
}

__attribute__((weak)) void ipt_printfmt_free(struct pf_prog *prog)
{
}
