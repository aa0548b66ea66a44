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
/* text_load.c: parse text input (report or tracefs) mapped at t->map. */
int ipt_text_load(struct ipt_trace *t);
/* text_line.c: whether data looks like a text trace. */
bool ipt_text_probe(const uint8_t *data, size_t len);

/* iter.c: ipt_iter_next without the copy: *rec points at the
 * iterator's record, valid until the next call */
int ipt_iter_step(struct ipt_iter *it, const struct ipt_record **rec);
/* iter.c: time slices of flat streams (see there; output/dump.c) */
struct ipt_iter *ipt_iter_slice(struct ipt_iter *it, struct ipt_trace *t, const struct ipt_cpuset *cpus,
				const struct ipt_stream_pos *from, uint64_t start_ts, uint64_t stop_ts,
				uint32_t block);
void ipt_iter_slice_places(const struct ipt_iter *it, struct ipt_stream_pos *start,
			   struct ipt_stream_pos *stop);

#endif /* IPT_INPUT_H */
