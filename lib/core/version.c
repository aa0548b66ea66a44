// SPDX-License-Identifier: LGPL-2.1-or-later
/* version.c - the library's version, as its header states it */
#include "core/core.h"

/* ipt_version - "M.m.p" of the library linked */
const char *ipt_version(void)
{
	return IPT_VERSION;
}
