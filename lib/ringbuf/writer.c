// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ringbuf_write.c - build Linux ring-buffer sub-buffers ("pages")
 *
 * The inverse of ringbuf.c.  A page is laid out as the kernel's
 * ring_buffer_read_page() hands it to user space:
 *
 *   u64 time_stamp        absolute time of the first event of the page
 *   long commit           bytes of event data that follow (kernel long size)
 *   data[]                4-byte aligned events, the rest of the page zero
 *
 * Every event starts with a 32-bit word holding type_len (5 bits) and
 * time_delta (27 bits).  As a C bit-field the kernel puts type_len in the
 * low bits of the word on little-endian machines and in the high bits on
 * big-endian ones; the word itself is stored in the machine's byte order.
 *
 *   type_len 1..28   data event, payload of type_len * 4 bytes follows
 *   type_len 0       data event, array[0] = payload bytes + 4, then payload
 *   type_len 29      padding (never written here)
 *   type_len 30      time extend: delta bits 0..26 in time_delta,
 *                    bits 27..58 in array[0]
 *
 * Sizes follow rb_calculate_event_length(): a payload of up to 112 bytes
 * (RB_MAX_SMALL_DATA) is stored inline with type_len = its length in
 * 4-byte words, rounded up; a longer one gets the array[0] length word.
 * A zero-length payload counts as one byte, as in the kernel.
 */
#include "ringbuf/ringbuf.h"

#include <stdlib.h>

#define RB_ALIGNMENT		4u
#define RB_MAX_SMALL_DATA	(RB_ALIGNMENT * 28u)
#define RB_TYPE_TIME_EXTEND	30u
#define RB_DELTA_BITS		27u
#define RB_DELTA_MASK		((1u << RB_DELTA_BITS) - 1u)
#define RB_LEN_TIME_EXTEND	8u
#define RB_MISSED_EVENTS	(UINT64_C(1) << 31)	/* commit flags */
#define RB_MISSED_STORED	(UINT64_C(1) << 30)
/* A delta beyond 27 + 32 bits cannot be expressed by a time extend. */
#define RB_MAX_EXTEND_DELTA	((UINT64_C(1) << (RB_DELTA_BITS + 32)) - 1)

static uint32_t align4(uint32_t n)
{
	return (n + RB_ALIGNMENT - 1) & ~(RB_ALIGNMENT - 1);
}

static uint32_t event_header(const struct ipt_page_writer *pw, uint32_t type_len,
			     uint32_t delta)
{
	if (pw->big_endian)
		return (type_len << RB_DELTA_BITS) | (delta & RB_DELTA_MASK);
	return ((delta & RB_DELTA_MASK) << 5) | type_len;
}

static inline void put32(const struct ipt_page_writer *pw, uint32_t off, uint32_t v)
{
	ipt_put_uint(pw->page + pw->layout.data_off + off, 4, pw->big_endian, v);
}

/* Bytes available for events in one page: less the stored missed count
 * in a page that carries one */
static uint32_t page_capacity(const struct ipt_page_writer *pw)
{
	uint32_t n = pw->layout.page_size - pw->layout.data_off;

	if ((pw->open && pw->page_missed && pw->page_missed_count) ||
	    (!pw->open && pw->missed_pending && pw->missed_next))
		n -= pw->layout.commit_size;
	return n;
}

/* ipt_page_writer_init - start an empty writer for pages of layout pl */
int ipt_page_writer_init(struct ipt_page_writer *pw, const struct ipt_page_layout *pl,
			 bool big_endian)
{
	const struct ipt_page_layout *l = pl;

	memset(pw, 0, sizeof(*pw));
	if (!l->ts_size || l->ts_size > 8 || !l->commit_size || l->commit_size > 8)
		return ipt_err("page layout: bad timestamp or commit field size");
	if (l->ts_off + l->ts_size > l->data_off || l->commit_off + l->commit_size > l->data_off)
		return ipt_err("page layout: header fields overlap the data");
	if (l->page_size < l->data_off + 2 * RB_LEN_TIME_EXTEND + RB_ALIGNMENT ||
	    l->page_size > (1u << RB_DELTA_BITS))
		return ipt_err("page layout: page size %u out of range", l->page_size);
	pw->layout = *l;
	pw->big_endian = big_endian;
	pw->page = ipt_calloc(1, l->page_size);
	if (!pw->page)
		return -1;
	return 0;
}

/* Finish the page being filled and append it to out. */
static int close_page(struct ipt_page_writer *pw)
{
	const struct ipt_page_layout *l = &pw->layout;

	uint64_t commit = pw->used;

	if (!pw->open)
		return 0;
	if (pw->page_missed) {
		commit |= RB_MISSED_EVENTS;
		if (pw->page_missed_count) {
			/* room was kept for it (page_capacity) */
			commit |= RB_MISSED_STORED;
			ipt_put_uint(pw->page + l->data_off + pw->used, l->commit_size, pw->big_endian,
				     pw->page_missed_count);
		}
	}
	ipt_put_uint(pw->page + l->ts_off, l->ts_size, pw->big_endian, pw->page_ts);
	ipt_put_uint(pw->page + l->commit_off, l->commit_size, pw->big_endian, commit);
	if (ipt_strbuf_add(&pw->out, (const char *)pw->page, l->page_size))
		return -1;
	pw->open = false;
	return 0;
}

static void open_page(struct ipt_page_writer *pw, uint64_t ts)
{
	memset(pw->page, 0, pw->layout.page_size);
	pw->page_missed = pw->missed_pending;
	pw->page_missed_count = pw->missed_next;
	pw->missed_pending = false;
	pw->missed_next = 0;
	pw->used = 0;
	pw->page_ts = ts;
	pw->last_ts = ts;
	pw->open = true;
}

/* ipt_page_writer_add - append one event; ts must not go backwards */
int ipt_page_writer_add(struct ipt_page_writer *pw, uint64_t ts, const void *payload,
			uint32_t len)
{
	uint32_t n = len ? len : 1;	/* zero length counts as one byte */
	uint32_t evsize, type_len, hdr, extend = 0;
	uint64_t delta = 0;

	if (!pw->page)
		return ipt_err("page writer not initialised");
	if (n > pw->layout.page_size - pw->layout.data_off)
		return ipt_err("event of %u bytes does not fit a %u-byte page",
			       len, pw->layout.page_size);
	if (n <= RB_MAX_SMALL_DATA) {
		type_len = align4(n) / RB_ALIGNMENT;
		hdr = 4;
	} else {
		type_len = 0;
		hdr = 8;
	}
	evsize = hdr + align4(n);
	if (evsize > pw->layout.page_size - pw->layout.data_off)
		return ipt_err("event of %u bytes does not fit a %u-byte page",
			       len, pw->layout.page_size);

	if (pw->open) {
		if (ts < pw->last_ts)
			return ipt_err("event timestamp %llu is before the previous one (%llu)",
				       (unsigned long long)ts,
				       (unsigned long long)pw->last_ts);
		delta = ts - pw->last_ts;
		if (delta > RB_DELTA_MASK)
			extend = RB_LEN_TIME_EXTEND;
		if (delta > RB_MAX_EXTEND_DELTA ||
		    pw->used + extend + evsize > page_capacity(pw)) {
			if (close_page(pw))
				return -1;
		}
	}
	if (!pw->open) {
		open_page(pw, ts);
		delta = 0;
		extend = 0;
		if (evsize > page_capacity(pw))
			return ipt_err("event of %u bytes does not fit a %u-byte page with a lost-events count",
				       len, pw->layout.page_size);
	}

	if (extend) {
		put32(pw, pw->used, event_header(pw, RB_TYPE_TIME_EXTEND,
						 (uint32_t)(delta & RB_DELTA_MASK)));
		put32(pw, pw->used + 4, (uint32_t)(delta >> RB_DELTA_BITS));
		pw->used += RB_LEN_TIME_EXTEND;
		delta = 0;	/* the data event carries no further delta */
	}
	put32(pw, pw->used, event_header(pw, type_len, (uint32_t)delta));
	if (!type_len)
		put32(pw, pw->used + 4, align4(n) + 4);
	if (len)
		memcpy(pw->page + pw->layout.data_off + pw->used + hdr, payload, len);
	pw->used += evsize;
	pw->last_ts = ts;
	return 0;
}

/* ipt_page_writer_mark_missed - events were lost before the next event */
int ipt_page_writer_mark_missed(struct ipt_page_writer *pw, uint64_t count)
{
	if (!pw->page)
		return ipt_err("page writer not initialised");
	if (close_page(pw))
		return -1;
	if (pw->missed_pending)	/* two marks, no event between: one mark */
		count = pw->missed_next && count ? pw->missed_next + count : 0;
	pw->missed_pending = true;
	pw->missed_next = count;
	return 0;
}

/* ipt_page_writer_finish - close the last page */
int ipt_page_writer_finish(struct ipt_page_writer *pw)
{
	if (!pw->page)
		return ipt_err("page writer not initialised");
	return close_page(pw);
}

/* ipt_page_writer_free - release the writer's memory (out included) */
void ipt_page_writer_free(struct ipt_page_writer *pw)
{
	if (!pw)
		return;
	free(pw->page);
	pw->page = NULL;
	ipt_strbuf_free(&pw->out);
	pw->open = false;
	pw->used = 0;
}
