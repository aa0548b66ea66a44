// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * zz_stubs.c - weak fallbacks for parts of the library that are optional
 * at build time.  A real definition elsewhere always takes precedence.
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

__attribute__((weak)) bool ipt_text_probe(const uint8_t *data, size_t len)
{
	return false;
}

__attribute__((weak)) int ipt_text_load(struct ipt_trace *t)
{
	return ipt_err_at(t->path, 0, "text traces are not supported in this build");
}

__attribute__((weak)) struct ipt_filter *ipt_filter_parse(const char *expr,
							 ipt_filter_resolve_fn resolve,
							 void *resolve_ctx)
{
	ipt_err("filter: filters are not supported in this build");
	return NULL;
}

__attribute__((weak)) int ipt_filter_eval(const struct ipt_filter *f, ipt_filter_lookup_fn lookup,
					  void *ctx)
{
	return 1;
}

__attribute__((weak)) void ipt_filter_free(struct ipt_filter *f)
{
}
