/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * input/input.h - opening traces: format files, trace.dat, text (not installed)
 */
#ifndef IPT_INPUT_H
#define IPT_INPUT_H

#include "core/core.h"
#include "ringbuf/ringbuf.h"

/*
 * Parse one format file (as in events/SYS/NAME/format) into ev.  The system
 * is given (the file does not say it).  long_size: the kernel's long size.
 * Errors name path and the byte offset base + offset within the text.
 */
int ipt_format_parse(struct ipt_event *ev, const char *system, const char *text,
		     size_t len, int long_size, const char *path, long long base);

/* The sub-buffer layout from the text of events/header_page (format.c). */
int ipt_header_page_parse(struct ipt_page_layout *pl, const char *text, size_t len,
			  unsigned int page_size, int long_size);

/* tracedat_read.c */
int ipt_tracedat_load(struct ipt_trace *t);	/* t->map set by caller */
/* text.c: parse text input (report or tracefs) mapped at t->map. */
int ipt_text_load(struct ipt_trace *t);
bool ipt_text_probe(const uint8_t *data, size_t len);

#endif /* IPT_INPUT_H */
