// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * core/opts.c - the one check of a caller's options struct.
 *
 * Every options struct of the API starts with `size_t sz`, the size of the
 * struct the caller was compiled with (as libbpf's do), so that fields can
 * be added at the end without breaking older callers.  ipt_opts_copy is
 * the only place that reads sz.
 */
#include "core/core.h"

/* ipt_opts_copy - the fields of the caller's opts that this library knows */
int ipt_opts_copy(void *dst, size_t dst_size, const void *opts, const char *what)
{
	size_t sz, n;

	memset(dst, 0, dst_size);
	if (!opts)
		return 0;
	memcpy(&sz, opts, sizeof(sz));
	if (sz < sizeof(size_t))
		return ipt_err_code(IPT_ERR_INVALID, "%s: options of size %zu", what, sz);
	n = sz < dst_size ? sz : dst_size;
	memcpy(dst, opts, n);
	/* a newer caller's fields that this library does not know must be unset */
	for (size_t i = dst_size; i < sz; i++)
		if (((const unsigned char *)opts)[i])
			return ipt_err_code(IPT_ERR_INVALID,
					    "%s: an option this library does not know is set (byte %zu of %zu)",
					    what, i, sz);
	memcpy(dst, &dst_size, sizeof(dst_size));	/* what the copy holds */
	return 0;
}
