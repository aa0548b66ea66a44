// SPDX-License-Identifier: GPL-2.0-or-later
/* cli.c - what every command shares: messages */
#include "commands.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void err_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("ipitrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void debug_msg(const char *fmt, ...)
{
	va_list ap;

	if (!getenv("IPITRACE_DEBUG"))
		return;
	fputs("ipitrace: debug: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cpus_within(const char *opt, const char *arg, struct ipt_cpuset *set,
		const struct ipt_cpuset *valid, const char *where)
{
	struct ipt_cpuset keep = IPT_CPUSET_INIT;
	char v[256], k[256];
	int ret = 0;

	ipt_cpuset_init(&keep);
	if (ipt_cpuset_copy(&keep, set)) {
		err_msg("out of memory");
		return -1;
	}
	ipt_cpuset_and(&keep, valid);
	ipt_cpuset_format_list(valid, v, sizeof(v));
	if (ipt_cpuset_empty(&keep)) {
		err_msg("%s %s: no such CPU (%s has CPUs %s)", opt, arg, where, v);
		ret = -1;
	} else if (!ipt_cpuset_equal(&keep, set)) {
		ipt_cpuset_format_list(&keep, k, sizeof(k));
		err_msg("warning: %s %s: %s has CPUs %s only; keeping %s", opt, arg, where, v, k);
		ipt_cpuset_and(set, valid);
	}
	ipt_cpuset_free(&keep);
	return ret;
}
