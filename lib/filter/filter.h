/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* filter/filter.h - the filter language, for the stages above (not installed) */
#ifndef IPT_FILTER_FILTER_H
#define IPT_FILTER_FILTER_H

#include "core/core.h"

/*
 * The first string literal (or pattern) that f compares with the name
 * resolved to id (==, !=, ~) and that matches none of values[0..n): a name
 * that names nothing real.  NULL when every one matches one of them.
 */
const char *ipt_filter_unmatched_literal(const struct ipt_filter *f, int id,
					 const char *const *values, size_t n);

#endif
