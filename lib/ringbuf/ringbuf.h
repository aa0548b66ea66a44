/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ringbuf/ringbuf.h - the kernel's ring-buffer page format: layout, reader,
 * writer (not installed).  A leaf above core/, like libtraceevent's kbuffer.
 */
#ifndef IPT_RINGBUF_H
#define IPT_RINGBUF_H

#include "core/core.h"


/* ---- ring-buffer pages (ringbuf.c) ---- */
/*
 * Walks the events of one CPU stream, page after page.  Mirrors the kernel's
 * ring_buffer_event format and libtraceevent's kbuffer reading rules.
 */
struct ipt_page_reader {
	const struct ipt_trace *t;
	const struct ipt_cpu_stream *s;
	const uint8_t *cur;	/* current flat bytes (stream data or chunk) */
	uint64_t cur_size;
	uint64_t cur_base;	/* uncompressed stream offset of cur[0] */
	uint32_t next_chunk;	/* chunked streams: next chunk to load */
	uint64_t next_off;	/* ... and the file offset of its header */
	uint64_t chunk_foff;	/* file offset of the chunk in cur (messages) */
	uint8_t *cbuf;		/* chunk buffer */
	size_t cbuf_cap;
	struct ipt_file_window zwin;	/* the stream's bytes in the file, read ahead */
	uint64_t page;		/* offset of the current page in cur */
	uint64_t pos;		/* offset of the next event header in cur */
	uint64_t end;		/* end of the current page's data in cur */
	uint64_t ts;		/* running timestamp */
	uint64_t missed;	/* pending "missed events" for the next record */
	uint32_t page_rec;	/* data events handed out of the current page */
	uint32_t block_max;	/* flat stream in the file: bytes read at a time (0: 256 KiB) */
	bool in_page;
	bool in_file;		/* a flat stream read from the file in blocks */
	bool raw_ts;		/* timestamps as stored, not converted (TSC2NSEC): for rewriting */
};
void ipt_page_reader_init(struct ipt_page_reader *pr, const struct ipt_trace *t,
			  const struct ipt_cpu_stream *s);
/* 1 and rec filled, 0 at the end, -1 on a malformed page (ipt_errmsg).
 * rec->data stays valid until the next call. */
int ipt_page_reader_next(struct ipt_page_reader *pr, struct ipt_record *rec);
void ipt_page_reader_release(struct ipt_page_reader *pr);

/*
 * A place in a flat (not chunked) stream: the data event after the first
 * rec data events of the page at byte page of the stream's data; (size,
 * 0) is its end.  Time-sliced readers (input/iter.c) start and stop there.
 */
struct ipt_stream_pos {
	uint64_t page;
	uint32_t rec;
};
/* Move a new reader of a flat stream to pos (reading the events skipped),
 * to read block bytes at a time from there (0: the usual 256 KiB).  0, or
 * -1 on a malformed page, or on a chunked stream. */
int ipt_page_reader_seek_block(struct ipt_page_reader *pr, const struct ipt_stream_pos *pos, uint32_t block);
/* Back to the start of the stream, keeping the buffers. */
void ipt_page_reader_restart(struct ipt_page_reader *pr);
/* The place of the event handed out last. */
void ipt_page_reader_pos(const struct ipt_page_reader *pr, struct ipt_stream_pos *pos);
/* The timestamp in the header of the page at byte page of a flat stream
 * (as the records' are: converted from TSC where they are); -1 if the
 * page cannot be read. */
int ipt_stream_page_ts(const struct ipt_trace *t, const struct ipt_cpu_stream *s, uint64_t page,
		       uint64_t *ts);

/* Counts of a series of pages (a recorder's per-CPU summary). */
struct ipt_page_tally {
	uint64_t pages;
	uint64_t events;		/* data events (padding and time records not counted) */
	uint64_t missed_pages;		/* pages flagged "events missed before" */
	uint64_t missed_events;		/* sum of the stored missed counts */
	bool missed_unknown;		/* a flagged page had no stored count */
	/* optional: events whose common_type is one of ids[0..nids) are counted */
	const uint16_t *ids;
	int nids;
	uint64_t id_events;
};
/* Each data event of one whole page (pl->page_size bytes at pg), in order:
 * fn gets its payload (common_type first) and length.  Stops at the first
 * malformed event of the page. */
void ipt_page_each(const uint8_t *pg, const struct ipt_page_layout *pl, bool big_endian,
		   void (*fn)(const uint8_t *data, size_t len, void *arg), void *arg);
/* Add one whole page (pl->page_size bytes at pg) to *tally.  Stops at the
 * first malformed event of the page: counting never fails. */
void ipt_page_tally_add(struct ipt_page_tally *tally, const uint8_t *pg,
			const struct ipt_page_layout *pl, bool big_endian);

/*
 * Page builder: the inverse of the reader.  Used by input/text_record.c (text traces
 * become pages), by the synthetic trace generator and by `explode`.
 * Events are appended in time order; pages of layout->page_size bytes are
 * appended to out (ring-buffer header, type_len 0 or small events, time
 * extends when a delta does not fit 27 bits).
 */
struct ipt_page_writer {
	struct ipt_page_layout layout;
	bool big_endian;
	struct ipt_strbuf out;	/* finished pages */
	uint8_t *page;		/* page being filled */
	uint32_t used;		/* bytes of data used in the current page */
	uint64_t page_ts;	/* timestamp in the current page header */
	uint64_t last_ts;
	bool open;
	/* events lost before the next event (ipt_page_writer_mark_missed) */
	bool missed_pending, page_missed;
	uint64_t missed_next, page_missed_count;	/* 0: unknown */
};
int ipt_page_writer_init(struct ipt_page_writer *pw, const struct ipt_page_layout *pl,
			 bool big_endian);
/* Append one event (payload starts with common_type). */
int ipt_page_writer_add(struct ipt_page_writer *pw, uint64_t ts, const void *payload,
			uint32_t len);
/*
 * count events (0: an unknown number) were lost before the next event: the
 * page that event starts is flagged as the kernel flags it (commit bit 31,
 * and bit 30 with the count stored after the data).  Marks with no event
 * between them add up.
 */
int ipt_page_writer_mark_missed(struct ipt_page_writer *pw, uint64_t count);
/* Close the last page; out then holds whole pages. */
int ipt_page_writer_finish(struct ipt_page_writer *pw);
void ipt_page_writer_free(struct ipt_page_writer *pw);

#endif /* IPT_RINGBUF_H */
