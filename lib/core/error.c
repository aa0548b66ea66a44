// SPDX-License-Identifier: LGPL-2.1-or-later
/* error.c - the thread-local last error message */
#include "core/core.h"

#include <stdio.h>

static __thread char errbuf[512];
static __thread enum ipt_error errcode;

/* ipt_errmsg - the last error message of this thread */
const char *ipt_errmsg(void)
{
	return errbuf;
}

/* ipt_errcode - what kind of error the last message is */
enum ipt_error ipt_errcode(void)
{
	return errcode;
}

/* ipt_error_name - the code's name, for messages and tests */
const char *ipt_error_name(enum ipt_error code)
{
	switch (code) {
	case IPT_ERR_NONE: return "none";
	case IPT_ERR_FAILED: return "failed";
	case IPT_ERR_INVALID: return "invalid";
	case IPT_ERR_NOMEM: return "nomem";
	case IPT_ERR_UNAVAILABLE: return "unavailable";
	case IPT_ERR_REJECTED: return "rejected";
	}
	return "?";
}

static void verr(const char *prefix, const char *fmt, va_list ap)
{
	size_t n = 0;

	if (prefix)
		n = (size_t)snprintf(errbuf, sizeof(errbuf), "%s", prefix);
	if (n >= sizeof(errbuf))
		n = sizeof(errbuf) - 1;
	vsnprintf(errbuf + n, sizeof(errbuf) - n, fmt, ap);
	/* one line, always */
	for (char *p = errbuf; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

/* ipt_err - set the error message (code IPT_ERR_FAILED); returns -1 */
int ipt_err(const char *fmt, ...)
{
	va_list ap;

	errcode = IPT_ERR_FAILED;
	va_start(ap, fmt);
	verr(NULL, fmt, ap);
	va_end(ap);
	return -1;
}

/* ipt_err_at - set "path: offset N: message"; returns -1 */
int ipt_err_at(const char *path, long long offset, const char *fmt, ...)
{
	char prefix[300];
	va_list ap;

	errcode = IPT_ERR_FAILED;
	if (offset >= 0)
		snprintf(prefix, sizeof(prefix), "%s: offset %lld: ", path ? path : "?", offset);
	else
		snprintf(prefix, sizeof(prefix), "%s: ", path ? path : "?");
	va_start(ap, fmt);
	verr(prefix, fmt, ap);
	va_end(ap);
	return -1;
}

/* ipt_err_code - set the message with its code; returns -1 */
int ipt_err_code(enum ipt_error code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(NULL, fmt, ap);
	va_end(ap);
	errcode = code;
	return -1;
}
