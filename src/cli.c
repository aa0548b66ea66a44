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
