// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ringbuf.c - decoding of ring-buffer sub-buffers ("pages")
 *
 * A page: header (timestamp, commit word, from events/header_page), then
 * events, each with a 32-bit header: type_len (5 bits) and time_delta (27
 * bits), in the trace's byte order (big endian: type_len in the top bits).
 *
 *   type_len 1..28  data event, payload type_len * 4 bytes after the header
 *   type_len 0      data event, array[0] = payload length + 4, payload after
 *   29 padding      array[0] = bytes to skip after the header (discarded event)
 *   30 time extend  delta = array[0] << 27 | time_delta, added
 *   31 time stamp   absolute: array[0] << 27 | time_delta (top 5 bits kept)
 *
 * The commit word holds the data length in its low 27 bits; bit 31 says
 * events were lost before this page, bit 30 that their count is stored as
 * a long right after the data.  These rules mirror the kernel's
 * ring_buffer.c and libtraceevent's kbuffer, so that timestamps agree with
 * trace-cmd exactly.
 */
#include "ringbuf/ringbuf.h"

#include <stdlib.h>
#include <unistd.h>

#define RB_MISSED_EVENTS (1ULL << 31)
#define RB_MISSED_STORED (1ULL << 30)
#define RB_COMMIT_MASK ((1ULL << 27) - 1)
#define RB_TS_SHIFT 27
#define RB_TS_MSB (0xf8ULL << 56)

enum { RB_PADDING = 29, RB_TIME_EXTEND = 30, RB_TIME_STAMP = 31 };

void ipt_page_reader_init(struct ipt_page_reader *pr, const struct ipt_trace *t,
			  const struct ipt_cpu_stream *s)
{
	memset(pr, 0, sizeof(*pr));
	pr->t = t;
	pr->s = s;
	if (!s->chunked) {
		/* a stream in the file is read in blocks, one in a reused
		 * buffer (see load_block); one elsewhere (text input) is all here */
		pr->in_file = s->data && t->fd >= 0 && s->data == t->map + s->file_offset;
		pr->cur = pr->in_file ? NULL : s->data;
		pr->cur_size = s->data && !pr->in_file ? s->size : 0;
	}
	pr->next_off = s->chunk_off;
}

void ipt_page_reader_release(struct ipt_page_reader *pr)
{
	free(pr->cbuf);
	pr->cbuf = NULL;
	pr->cbuf_cap = 0;
	ipt_file_window_release(&pr->zwin);
}

/* where - file offset of byte off of the current bytes, for messages */
static long long where(const struct ipt_page_reader *pr, uint64_t off)
{
	if (pr->s->chunked)
		return (long long)pr->chunk_foff;
	return (long long)(pr->s->file_offset + pr->cur_base + off);
}

static int bad(const struct ipt_page_reader *pr, uint64_t off, const char *what)
{
	if (pr->s->chunked)
		return ipt_err_at(pr->t->path, where(pr, off),
				  "CPU %d: %s (at byte %llu of the decompressed chunk)",
				  pr->s->cpu, what, (unsigned long long)off);
	return ipt_err_at(pr->t->path, where(pr, off), "CPU %d: %s", pr->s->cpu, what);
}

/*
 * load_block - read the next block of a stream stored flat in the file: a
 * whole number of pages, through the reader's window (core/filewin.c) for
 * the reason compressed data is; 1 loaded, 0 none left, -1 error
 */
static int load_block(struct ipt_page_reader *pr)
{
	const struct ipt_cpu_stream *s = pr->s;
	uint64_t done = pr->cur_base + pr->cur_size, n, ps = pr->t->layout.page_size;
	const uint8_t *p;

	if (done >= s->size)
		return 0;
	n = pr->block_max ? pr->block_max : 256u << 10;
	n = ps < n ? n / ps * ps : ps;
	if (n > s->size - done)
		n = s->size - done;
	p = ipt_file_window_get(pr->t, &pr->zwin, s->file_offset + done, n, "CPU data");
	if (!p)
		return -1;
	pr->cur_base = done;
	pr->cur = p;
	pr->cur_size = n;
	pr->page = 0;
	return 1;
}

/* load_chunk - decompress the next chunk; 1 loaded, 0 none left, -1 error */
static int load_chunk(struct ipt_page_reader *pr)
{
	const struct ipt_cpu_stream *s = pr->s;
	const struct ipt_trace *t = pr->t;
	uint64_t off = pr->next_off, data;
	uint32_t csize, usize;
	const uint8_t *p;

	if (pr->in_file)
		return load_block(pr);
	if (!s->chunked || pr->next_chunk >= s->nchunks)
		return 0;
	p = ipt_file_window_get(t, &pr->zwin, off, 8, "chunk header");
	if (!p)
		return -1;
	csize = (uint32_t)ipt_get_uint(p, 4, t->big_endian);
	usize = (uint32_t)ipt_get_uint(p + 4, 4, t->big_endian);
	data = off + 8;
	if (!(p = ipt_file_window_get(t, &pr->zwin, data, csize, "compressed chunk")))
		return -1;
	if (IPT_GROW(pr->cbuf, pr->cbuf_cap, usize))
		return -1;
	if (ipt_decompress(t->compression, p, csize, pr->cbuf, usize, t->path, (long long)off))
		return -1;
	pr->chunk_foff = off;
	pr->next_off = data + csize;
	pr->cur_base += pr->cur_size;
	pr->cur = pr->cbuf;
	pr->cur_size = usize;
	pr->page = 0;
	pr->next_chunk++;
	return 1;
}

/* open_page - start the page at pr->page; 1 ok, 0 no more pages, -1 error */
static int open_page(struct ipt_page_reader *pr)
{
	const struct ipt_page_layout *pl = &pr->t->layout;
	bool be = pr->t->big_endian;
	uint64_t left, commit, size, psize;
	const uint8_t *p;

	for (;;) {
		if (pr->cur && pr->page < pr->cur_size)
			break;
		{
			int r = load_chunk(pr);

			if (r <= 0)
				return r;
		}
	}
	left = pr->cur_size - pr->page;
	psize = left < pl->page_size ? left : pl->page_size;
	if (psize < pl->data_off)
		return bad(pr, pr->page, "truncated page header");
	p = pr->cur + pr->page;
	pr->ts = ipt_get_uint(p + pl->ts_off, 8, be);
	commit = ipt_get_uint(p + pl->commit_off, pl->commit_size, be);
	size = commit & RB_COMMIT_MASK;
	if (size > psize - pl->data_off)
		return bad(pr, pr->page, "page commit size past the end of the page");
	pr->missed = 0;
	if (commit & RB_MISSED_EVENTS) {
		pr->missed = UINT64_MAX;
		if (commit & RB_MISSED_STORED) {
			unsigned int ls = pl->commit_size;

			if (pl->data_off + size + ls <= psize)
				pr->missed = ipt_get_uint(p + pl->data_off + size, ls, be);
			if (!pr->missed)
				pr->missed = UINT64_MAX;
		}
	}
	pr->pos = pr->page + pl->data_off;
	pr->end = pr->pos + size;
	pr->in_page = true;
	pr->page_rec = 0;
	return 1;
}

/* ipt_page_reader_next - the next data event of the stream */
int ipt_page_reader_next(struct ipt_page_reader *pr, struct ipt_record *rec)
{
	bool be = pr->t->big_endian;

	for (;;) {
		uint32_t hdr, type_len, delta;
		uint64_t pos, dlen, data;

		if (!pr->in_page) {
			int r = open_page(pr);

			if (r <= 0)
				return r;
		}
		pos = pr->pos;
		if (pos >= pr->end) {
			pr->in_page = false;
			pr->page += pr->t->layout.page_size;
			continue;
		}
		if (pr->end - pos < 4)
			return bad(pr, pos, "truncated event header");
		hdr = (uint32_t)ipt_get_uint(pr->cur + pos, 4, be);
		if (be) {
			type_len = hdr >> 27;
			delta = hdr & ((1u << 27) - 1);
		} else {
			type_len = hdr & 31;
			delta = hdr >> 5;
		}
		switch (type_len) {
		case RB_PADDING: {
			uint64_t len;

			pr->ts += delta;
			if (pr->end - pos < 8) {
				pr->pos = pr->end;
				continue;
			}
			len = ipt_get_uint(pr->cur + pos + 4, 4, be);
			if (!len || len > pr->end - pos - 4) {
				pr->pos = pr->end;	/* rest of the page is padding */
				continue;
			}
			pr->pos = pos + 4 + len;
			continue;
		}
		case RB_TIME_EXTEND:
		case RB_TIME_STAMP: {
			uint64_t ext;

			if (pr->end - pos < 8)
				return bad(pr, pos, "truncated time extend");
			ext = ipt_get_uint(pr->cur + pos + 4, 4, be) << RB_TS_SHIFT | delta;
			if (type_len == RB_TIME_STAMP)
				pr->ts = ext | (pr->ts & RB_TS_MSB);
			else
				pr->ts += ext;
			pr->pos = pos + 8;
			continue;
		}
		case 0: {
			uint64_t len;

			if (pr->end - pos < 8)
				return bad(pr, pos, "truncated event length");
			len = ipt_get_uint(pr->cur + pos + 4, 4, be);
			if (len < 4)
				return bad(pr, pos, "bad event length");
			dlen = (len - 4 + 3) & ~3ULL;
			data = pos + 8;
			break;
		}
		default:
			dlen = type_len * 4u;
			data = pos + 4;
			break;
		}
		if (dlen > pr->end - data)
			return bad(pr, pos, "event runs past the page's data");
		pr->ts += delta;
		pr->pos = data + dlen;
		rec->ts = pr->t->tsc_mult && !pr->raw_ts ? ipt_tsc_to_ns(pr->t, pr->ts) : pr->ts;
		rec->data = pr->cur + data;
		rec->size = (uint32_t)dlen;
		rec->cpu = pr->s->cpu;
		rec->buffer = pr->s->buffer;
		rec->missed = pr->missed;
		pr->missed = 0;
		pr->page_rec++;
		rec->event = NULL;
		if (dlen >= 2) {
			/* ipt_trace_event_by_id, here for every record */
			int id = (int)ipt_get_uint(rec->data, 2, be);

			if (pr->t->by_id && id <= pr->t->max_id)
				rec->event = pr->t->by_id[id];
		}
		/* every __data_loc of the record must point inside it */
		if (rec->event && rec->event->ndyn) {
			for (int i = 0; i < rec->event->ndyn; i++) {
				const uint8_t *d;
				uint32_t n;

				if (ipt_field_bytes(pr->t, rec, rec->event->dyn[i], &d, &n))
					return bad(pr, pos, "a __data_loc field points outside its event");
			}
		}
		return 1;
	}
}

int ipt_page_reader_seek_block(struct ipt_page_reader *pr, const struct ipt_stream_pos *pos, uint32_t block)
{
	struct ipt_record rec;

	pr->block_max = block;
	if (pr->s->chunked || pos->page % pr->t->layout.page_size)
		return ipt_err("CPU %d: no seeking in this stream", pr->s->cpu);
	if (pr->in_file) {
		/* the next block is read from the page on */
		pr->cur = NULL;
		pr->cur_base = pos->page;
		pr->cur_size = 0;
	} else {
		pr->page = pos->page;
	}
	pr->in_page = false;
	if (pos->page >= pr->s->size)
		return 0;
	if (open_page(pr) < 0)
		return -1;
	for (uint32_t i = 0; i < pos->rec; i++)
		if (ipt_page_reader_next(pr, &rec) < 0)
			return -1;
	return 0;
}

void ipt_page_reader_restart(struct ipt_page_reader *pr)
{
	struct ipt_file_window w = pr->zwin;
	uint8_t *cbuf = pr->cbuf;
	size_t cap = pr->cbuf_cap;

	/* the window's bytes are the file's still: kept, and used if they fit */
	ipt_page_reader_init(pr, pr->t, pr->s);
	pr->zwin = w;
	pr->cbuf = cbuf;
	pr->cbuf_cap = cap;
}

void ipt_page_reader_pos(const struct ipt_page_reader *pr, struct ipt_stream_pos *pos)
{
	pos->page = (pr->in_file ? pr->cur_base : 0) + pr->page;
	pos->rec = pr->page_rec ? pr->page_rec - 1 : 0;
}

int ipt_stream_page_ts(const struct ipt_trace *t, const struct ipt_cpu_stream *s, uint64_t page,
		       uint64_t *ts)
{
	const struct ipt_page_layout *pl = &t->layout;
	uint8_t b[8];

	if (s->chunked || !s->data || page + pl->ts_off + 8 > s->size)
		return -1;
	if (t->fd >= 0 && s->data == t->map + s->file_offset) {
		/* read, not touched through the mapping (see load_block) */
		if (pread(t->fd, b, 8, (off_t)(s->file_offset + page + pl->ts_off)) != 8)
			return -1;
	} else {
		memcpy(b, s->data + page + pl->ts_off, 8);
	}
	*ts = ipt_get_uint(b, 8, t->big_endian);
	if (t->tsc_mult)
		*ts = ipt_tsc_to_ns(t, *ts);
	return 0;
}

/* ipt_page_each - each data event of one whole page, to fn */
void ipt_page_each(const uint8_t *pg, const struct ipt_page_layout *pl, bool big_endian,
		   void (*fn)(const uint8_t *data, size_t len, void *arg), void *arg)
{
	uint64_t commit = ipt_get_uint(pg + pl->commit_off, pl->commit_size, big_endian);
	uint64_t p, end = pl->data_off + (commit & RB_COMMIT_MASK);

	if (end > pl->page_size)
		end = pl->page_size;
	for (p = pl->data_off; p + 4 <= end;) {
		uint32_t h = (uint32_t)ipt_get_uint(pg + p, 4, big_endian);
		uint32_t type_len = big_endian ? h >> 27 : h & 31;
		uint32_t delta = big_endian ? h & ((1u << 27) - 1) : h >> 5;
		uint64_t size, data;

		if (type_len == RB_PADDING && !delta)
			break;			/* padding to the end of the page */
		if (type_len >= RB_TIME_EXTEND) {
			size = 8;
			data = 0;
		} else if (type_len == RB_PADDING || type_len == 0) {
			if (p + 8 > end)
				break;
			size = 4 + ((ipt_get_uint(pg + p + 4, 4, big_endian) + 3) & ~3ULL);
			if (size < 8)
				break;		/* corrupt: stop this page */
			data = type_len == 0 ? p + 8 : 0;
		} else {
			size = 4 + 4ULL * type_len;
			data = p + 4;
		}
		if (data)
			fn(pg + data, (size_t)((p + size < end ? p + size : end) - data), arg);
		p += size;
	}
}

struct tally_walk {
	struct ipt_page_tally *tally;
	bool big_endian;
};

/* tally_event - count one event, and by its common_type if one of tally->ids */
static void tally_event(const uint8_t *data, size_t len, void *arg)
{
	struct tally_walk *w = arg;
	struct ipt_page_tally *tally = w->tally;
	uint16_t type;

	tally->events++;
	if (!tally->nids || len < 2)
		return;
	type = (uint16_t)ipt_get_uint(data, 2, w->big_endian);
	for (int i = 0; i < tally->nids; i++)
		if (tally->ids[i] == type) {
			tally->id_events++;
			return;
		}
}

/* ipt_page_tally_add - count the data events and the missed mark of one page */
void ipt_page_tally_add(struct ipt_page_tally *tally, const uint8_t *pg,
			const struct ipt_page_layout *pl, bool big_endian)
{
	uint64_t commit = ipt_get_uint(pg + pl->commit_off, pl->commit_size, big_endian);
	uint64_t end = pl->data_off + (commit & RB_COMMIT_MASK);
	struct tally_walk w = { tally, big_endian };

	tally->pages++;
	if (end > pl->page_size)
		end = pl->page_size;
	if (commit & RB_MISSED_EVENTS) {
		tally->missed_pages++;
		if ((commit & RB_MISSED_STORED) && end + pl->commit_size <= pl->page_size)
			tally->missed_events += ipt_get_uint(pg + end, pl->commit_size, big_endian);
		else
			tally->missed_unknown = true;
	}
	ipt_page_each(pg, pl, big_endian, tally_event, &w);
}
