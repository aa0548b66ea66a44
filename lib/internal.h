/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * internal.h - libipitrace internals shared between lib/ files
 *
 * Not installed.  The model: a struct ipt_trace owns event formats parsed
 * from format files, symbol tables, and one byte stream of ring-buffer
 * sub-buffers ("pages") per CPU.  Binary traces map their streams from the
 * file (or decompress them); text traces are turned into the same pages by
 * text.c, so that every later stage has a single decode path.
 */
#ifndef IPT_INTERNAL_H
#define IPT_INTERNAL_H

#include "ipitrace.h"

#include <stdarg.h>
#include <string.h>

#define IPT_UNUSED __attribute__((unused))
#define IPT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- errors (error.c) ---- */
/* Set the thread's message; always returns -1. */
int ipt_err(const char *fmt, ...) IPT_PRINTF(1, 2);
/* Same, prefixed "path: offset N: " (offset < 0: no offset part). */
int ipt_err_at(const char *path, long long offset, const char *fmt, ...) IPT_PRINTF(3, 4);

/* ---- memory (alloc.c): abort-free wrappers that set ipt_err on failure ---- */
void *ipt_malloc(size_t n);
void *ipt_calloc(size_t n, size_t size);
void *ipt_realloc(void *p, size_t n);
char *ipt_strndup(const char *s, size_t n);
char *ipt_strdup(const char *s);

/* ---- strbuf (strbuf.c) ---- */
int sb_grow(struct ipt_strbuf *sb, size_t extra);		/* -1 on OOM */
int sb_add(struct ipt_strbuf *sb, const char *s, size_t n);
int sb_adds(struct ipt_strbuf *sb, const char *s);
int sb_addc(struct ipt_strbuf *sb, char c);
int sb_addf(struct ipt_strbuf *sb, const char *fmt, ...) IPT_PRINTF(2, 3);
int sb_add_u64(struct ipt_strbuf *sb, uint64_t v);		/* decimal, fast */
int sb_add_i64(struct ipt_strbuf *sb, int64_t v);
int sb_add_hex(struct ipt_strbuf *sb, uint64_t v);		/* lower-case, no 0x */
int sb_pad(struct ipt_strbuf *sb, size_t from, size_t width);	/* pad right with blanks */
static inline void sb_reset(struct ipt_strbuf *sb) { sb->len = 0; if (sb->buf) sb->buf[0] = 0; }
const char *sb_str(struct ipt_strbuf *sb);			/* "" when empty */

/* ---- byte order ---- */
static inline uint64_t ipt_get_uint(const uint8_t *p, unsigned int size, bool be)
{
	uint64_t v = 0;
	unsigned int i;

	if (!be) {
		switch (size) {
		case 1: return p[0];
		case 2: { uint16_t x; memcpy(&x, p, 2); return x; }
		case 4: { uint32_t x; memcpy(&x, p, 4); return x; }
		case 8: { uint64_t x; memcpy(&x, p, 8); return x; }
		}
		for (i = 0; i < size && i < 8; i++)
			v |= (uint64_t)p[i] << (8 * i);
		return v;
	}
	for (i = 0; i < size && i < 8; i++)
		v = (v << 8) | p[i];
	return v;
}

static inline void ipt_put_uint(uint8_t *p, unsigned int size, bool be, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < size; i++) {
		unsigned int shift = be ? 8 * (size - 1 - i) : 8 * i;

		p[i] = shift < 64 ? (uint8_t)(v >> shift) : 0;
	}
}

/* ---- event formats (format.c) ---- */
struct ipt_field {
	char *name;
	char *type;		/* type text as in the file: "__data_loc cpumask_t" */
	unsigned int offset;
	unsigned int size;
	unsigned int flags;	/* enum ipt_field_flags */
	unsigned int elem_size;	/* arrays: bytes per element (else = size) */
	unsigned int nelem;	/* fixed arrays: element count */
};

struct pf_prog;			/* parsed print fmt (printfmt.c) */

struct ipt_event {
	int id;
	char *system;
	char *name;
	struct ipt_field *fields;
	int nfields;
	char *print_fmt;	/* text after "print fmt: " */
	struct pf_prog *prog;	/* parsed print fmt, NULL if not parseable */
	bool prog_tried;
	const struct ipt_field *f_pid;	/* common_pid */
	const struct ipt_field **dyn;	/* __data_loc/__rel_loc fields, checked per record */
	int ndyn;
};

/*
 * Parse one format file (as in events/SYS/NAME/format) into ev.  The system
 * is given (the file does not say it).  long_size: the kernel's long size.
 * Errors name path and the byte offset base + offset within the text.
 */
int ipt_format_parse(struct ipt_event *ev, const char *system, const char *text,
		     size_t len, int long_size, const char *path, long long base);
void ipt_event_release(struct ipt_event *ev);

/* Ring-buffer layout taken from events/header_page. */
struct ipt_page_layout {
	unsigned int ts_off, ts_size;
	unsigned int commit_off, commit_size;
	unsigned int data_off;
	unsigned int page_size;	/* sub-buffer size, header included */
};
int ipt_header_page_parse(struct ipt_page_layout *pl, const char *text, size_t len,
			  unsigned int page_size, int long_size);

/* ---- symbols (symbols.c) ---- */
struct ipt_sym {
	uint64_t addr;
	const char *name;	/* into the owning table's string storage */
};
struct ipt_symtab {
	struct ipt_sym *syms;	/* sorted by address */
	size_t n, cap;
	char *strings;		/* storage the names point into (may be NULL) */
	char **extra;		/* additionally owned strings */
	size_t nextra, extracap;
};
/* Parse /proc/kallsyms text ("addr type name [module]"). */
int ipt_symtab_load_kallsyms(struct ipt_symtab *st, const char *text, size_t len);
/* Parse printk_formats text ("0xaddr : \"string\""). */
int ipt_symtab_load_printk(struct ipt_symtab *st, const char *text, size_t len);
/* Add one symbol (the name is copied). */
int ipt_symtab_add(struct ipt_symtab *st, uint64_t addr, const char *name, size_t len);
int ipt_symtab_sort(struct ipt_symtab *st);
const struct ipt_sym *ipt_symtab_lookup(const struct ipt_symtab *st, uint64_t addr);	/* <= addr */
const struct ipt_sym *ipt_symtab_exact(const struct ipt_symtab *st, uint64_t addr);
void ipt_symtab_free(struct ipt_symtab *st);

/* pid -> comm */
struct ipt_comms {
	int *pids;
	char **names;
	size_t n, cap;		/* open addressing, cap a power of two */
};
int ipt_comms_set(struct ipt_comms *c, int pid, const char *name, size_t len);
const char *ipt_comms_get(const struct ipt_comms *c, int pid);
int ipt_comms_load_cmdlines(struct ipt_comms *c, const char *text, size_t len);
void ipt_comms_free(struct ipt_comms *c);

/* ---- the trace ---- */
/*
 * The pages of one CPU: either flat bytes (mapped from the file, or owned
 * after being built or decompressed), or v7 compressed chunks (a count, then
 * per chunk: compressed size, uncompressed size, data) that readers walk and
 * decompress one at a time, so memory stays constant however many there are.
 */
struct ipt_cpu_stream {
	int cpu;
	const uint8_t *data;	/* flat pages, or NULL when chunked */
	uint64_t size;		/* flat size, or total uncompressed size */
	uint64_t file_offset;	/* where the data starts in the file */
	uint8_t *owned;		/* set if data is owned by the stream */
	bool chunked;		/* data is compressed chunks */
	uint64_t chunk_off;	/* file offset of the first chunk header */
	uint32_t nchunks;	/* chunks (validated when the file was opened) */
};

/* compress.c: decompress exactly dlen bytes; errors name path and offset. */
int ipt_decompress(const char *algo, const uint8_t *src, size_t slen, uint8_t *dst,
		   size_t dlen, const char *path, long long off);
bool ipt_compression_supported(const char *algo);

struct ipt_trace {
	char *path;
	enum ipt_input_kind kind;
	int version;		/* 6 or 7; 0 for text */
	bool big_endian;
	int long_size;		/* user-space long size from the file */
	int kernel_long_size;	/* from header_page commit size */
	uint32_t page_size;
	char *compression;	/* "none", "zstd", "zlib" */

	const uint8_t *map;	/* the whole file, mmap()ed (or NULL) */
	size_t map_size;

	struct ipt_page_layout layout;

	struct ipt_event *events;	/* all event formats */
	int nevents, capevents;
	struct ipt_event **by_id;	/* index by id (NULL holes) */
	int max_id;

	struct ipt_symtab ksyms;
	struct ipt_symtab printk;
	struct ipt_comms comms;

	char *clock;
	char *uname;
	char *tc_version;
	char **cpustat;		/* per cpu, may be NULL */
	int ncpustat;
	int cpucount;		/* CPUCOUNT option (0 if absent) */

	struct ipt_cpu_stream *streams;
	int nstreams;

	char *scratch;		/* misc owned text */
	char *isolated_text;	/* private option: "isolated=LIST\nnohz_full=LIST\n" */

	/* the metadata texts as stored in the file, for rewriting (explode) */
	struct ipt_strbuf raw_header_page, raw_header_event;
	struct ipt_strbuf raw_kallsyms, raw_printk, raw_cmdlines;
	struct ipt_raw_format *raw_formats;
	int nraw_formats;
};

/* A format file text as stored in a trace.dat. */
struct ipt_raw_format {
	char *system;		/* "ftrace" for the ftrace formats */
	char *text;
	size_t len;
};
int ipt_trace_keep_format(struct ipt_trace *t, const char *system, const char *text, size_t len);

/* Allocate an empty trace with defaults (little endian, 8-byte long). */
struct ipt_trace *ipt_trace_alloc(const char *path);
/* Add a parsed event (takes ownership of its members).  -1 on error. */
int ipt_trace_add_event(struct ipt_trace *t, struct ipt_event *ev);
/* Build by_id and other indexes once every event is added. */
int ipt_trace_finish_events(struct ipt_trace *t);
/* Add an empty stream for cpu; returns it, NULL on error. */
struct ipt_cpu_stream *ipt_trace_add_stream(struct ipt_trace *t, int cpu);

/* ipitrace's private trace.dat option: the recording machine's isolated CPUs */
#define IPT_OPTION_CPU_ISOLATION	64

/* tracedat_read.c */
int ipt_tracedat_load(struct ipt_trace *t);	/* t->map set by caller */
/* text.c: parse text input (report or tracefs) mapped at t->map. */
int ipt_text_load(struct ipt_trace *t);
bool ipt_text_probe(const uint8_t *data, size_t len);

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
	uint64_t page;		/* offset of the current page in cur */
	uint64_t pos;		/* offset of the next event header in cur */
	uint64_t end;		/* end of the current page's data in cur */
	uint64_t ts;		/* running timestamp */
	uint64_t missed;	/* pending "missed events" for the next record */
	uint64_t drop_mark;	/* file offset up to which pages were dropped */
	bool in_page;
};
void ipt_page_reader_init(struct ipt_page_reader *pr, const struct ipt_trace *t,
			  const struct ipt_cpu_stream *s);
/* 1 and rec filled, 0 at the end, -1 on a malformed page (ipt_errmsg).
 * rec->data stays valid until the next call. */
int ipt_page_reader_next(struct ipt_page_reader *pr, struct ipt_record *rec);
void ipt_page_reader_release(struct ipt_page_reader *pr);

/*
 * Page builder: the inverse of the reader.  Used by text.c (text traces
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
};
int ipt_page_writer_init(struct ipt_page_writer *pw, const struct ipt_page_layout *pl,
			 bool big_endian);
/* Append one event (payload starts with common_type). */
int ipt_page_writer_add(struct ipt_page_writer *pw, uint64_t ts, const void *payload,
			uint32_t len);
/* Close the last page; out then holds whole pages. */
int ipt_page_writer_finish(struct ipt_page_writer *pw);
void ipt_page_writer_free(struct ipt_page_writer *pw);
/* The kernel's standard 64-bit layout (page 4096, ts 0/8, commit 8/8, data 16). */
void ipt_page_layout_default(struct ipt_page_layout *pl, unsigned int page_size,
			     int kernel_long_size);

/* ---- print fmt (printfmt.c) ---- */
/*
 * Parse ev->print_fmt into ev->prog (once); render the fields of rec as the
 * kernel / libtraceevent would print them.  Returns -1 when the print fmt
 * cannot be rendered (the caller then falls back to name=value).
 */
int ipt_printfmt_render(struct ipt_trace *t, const struct ipt_event *ev,
			const struct ipt_record *rec, unsigned int flags,
			struct ipt_strbuf *out);
void ipt_printfmt_free(struct pf_prog *prog);

/* render.c: name=value rendering of every non-common field. */
int ipt_render_raw_fields(struct ipt_trace *t, const struct ipt_record *r,
			  unsigned int flags, struct ipt_strbuf *out);
/* "sym+0xoff" (off) or "sym" for addr into buf; "0x..." unknown; "-" for 0. */
void ipt_format_sym(const struct ipt_trace *t, uint64_t addr, bool off, char *buf, size_t n);
/* Print %pS-style "sym+0xoff" (or "0x..." when unknown) for addr. */
int ipt_render_sym(const struct ipt_trace *t, uint64_t addr, bool with_offset,
		   struct ipt_strbuf *out);

#endif /* IPT_INTERNAL_H */
