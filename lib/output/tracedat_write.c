// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat_write.c - write trace-cmd trace.dat files, versions 6 and 7
 *
 * The metadata is gathered in memory; ipt_tdw_commit() lays the file out
 * in one pass, patching a few offsets and sizes in place once they are
 * known (as trace-cmd does).  The file is written under a temporary name in
 * the target directory and renamed over the final name after fsync().  For
 * standard output the file is built in an unnamed temporary file first
 * (the layout needs those back-patches) and then copied out.
 *
 * Version 6 (trace-cmd.dat.v6(5)):
 *   magic, "6", endian, long size, page size, header_page/header_event,
 *   ftrace formats, event formats, kallsyms, printk, cmdlines, CPU count,
 *   "options  " + options + 0, "flyrecord" + per-CPU offset/size,
 *   the clock as "[name]", then page-aligned per-CPU data.
 *
 * Version 7 (trace-cmd.dat.v7(5)), laid out as `trace-cmd record` does:
 *   magic, "7", endian, long size, page size, compression name/version,
 *   offset of the first options section; then the sections HEADER_INFO,
 *   FTRACE_EVENTS, EVENT_FORMATS, KALLSYMS, PRINTK, CMDLINES (compressed
 *   as one block each), an options section pointing at them (plus clock,
 *   uname, version, cpustat, cpucount, ...), the BUFFER flyrecord section
 *   (per-CPU data page aligned, compressed in chunks of ten pages), a second
 *   options section with the BUFFER option, and last the strings section.
 */
#include "output/tracedat_write.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

/* Section and option ids (trace-cmd.dat.v7(5)). */
enum {
	OPT_DONE = 0,
	OPT_CPUSTAT = 2,
	OPT_BUFFER = 3,
	OPT_TRACECLOCK = 4,
	OPT_UNAME = 5,
	OPT_CPUCOUNT = 8,
	OPT_VERSION = 9,
	SEC_STRINGS = 15,
	SEC_HEADER_INFO = 16,
	SEC_FTRACE_EVENTS = 17,
	SEC_EVENT_FORMATS = 18,
	SEC_KALLSYMS = 19,
	SEC_PRINTK = 20,
	SEC_CMDLINES = 21,
};

#define SEC_FL_COMPRESS	1
#define PAGES_IN_CHUNK	10	/* flyrecord compression chunk, as trace-cmd */
#define OUTBUF_SIZE	(256 * 1024)

enum comp_kind { COMP_NONE, COMP_ZSTD, COMP_ZLIB };

struct tdw_text {
	char *text;
	size_t len;
};

struct tdw_system {
	char *name;
	struct tdw_text *ev;
	int n, cap;
};

struct tdw_opt {
	uint16_t id;
	uint32_t len;
	uint8_t *data;
};

struct tdw_cpustat {
	int cpu;
	char *text;
};

struct tdw_cpu {
	bool given;
	uint8_t *data;		/* from memory (owned) */
	size_t len;
	int fd;			/* or from this descriptor (-1: memory) */
	bool pipe;		/* fd cannot be read with pread() */
	/* or appended (ipt_tdw_add_cpu_pages): as written to the file, chunks
	 * compressed, in the spool from spool_off */
	bool spooled;
	uint64_t spool_off, spool_len, spool_raw, spool_chunks;
	/* filled at commit */
	uint64_t offset, size;	/* where and how many bytes in the file */
	uint64_t raw;		/* bytes of pages (uncompressed) */
};

struct ipt_tdw {
	char *path;		/* final name, "-" for stdout */
	struct ipt_afile af;	/* the file being written (not for stdout) */
	int fd;
	bool to_stdout;		/* built in a temporary file, then copied out */
	bool no_replace;	/* an existing file at the path: commit fails */
	bool special;		/* ... to the device or FIFO at path, not stdout */

	int version;
	enum comp_kind comp;
	bool be;
	int long_size;
	uint32_t page_size;

	struct tdw_text header_page, header_event;
	struct tdw_text *ftrace;
	int nftrace, capftrace;
	struct tdw_system *sys;
	int nsys, capsys;
	struct tdw_text kallsyms, printk, cmdlines;

	char *clock_text;	/* TRACECLOCK option content */
	char *clock_name;	/* "local" */
	char *uname, *tc_version;
	int cpucount;
	struct tdw_cpustat *stats;
	int nstats, capstats;
	struct tdw_opt *opts;
	int nopts, capopts;

	struct tdw_cpu *cpus;
	int ncpus;		/* max cpu given + 1 */
	size_t capcpus;

	/* output state */
	uint8_t *obuf;
	size_t olen;
	uint64_t pos;		/* file offset of the next byte */
	struct ipt_strbuf strings;	/* v7 string section */
	ZSTD_CCtx *zctx;
	uint8_t *cbuf;		/* compression output */
	/* ipt_tdw_add_cpu_pages: the CPU being appended, its pages not yet a
	 * whole chunk, and the scratch file the chunks go to */
	int spool_fd;
	int spool_cpu;
	uint64_t spool_end;
	uint8_t *pend;
	size_t npend;
	size_t ccap;
};

/* ------------------------------------------------------------------ */
/* small helpers                                                       */
/* ------------------------------------------------------------------ */

static int set_text(struct tdw_text *t, const char *s, size_t len)
{
	char *p = ipt_malloc(len + 1);

	if (!p)
		return -1;
	if (len)
		memcpy(p, s, len);
	p[len] = 0;
	free(t->text);
	t->text = p;
	t->len = len;
	return 0;
}

static const char *comp_name(enum comp_kind c)
{
	switch (c) {
	case COMP_ZSTD: return "zstd";
	case COMP_ZLIB: return "zlib";
	default: return "none";
	}
}

static const char *comp_version(enum comp_kind c)
{
	switch (c) {
	case COMP_ZSTD: return ZSTD_versionString();
	case COMP_ZLIB: return zlibVersion();
	default: return "";
	}
}

/* Append a number of size bytes in the file's byte order. */
static int sb_put(struct ipt_strbuf *sb, const struct ipt_tdw *w, unsigned int size, uint64_t v)
{
	uint8_t b[8];

	ipt_put_uint(b, size, w->be, v);
	return ipt_strbuf_add(sb, (const char *)b, size);
}

/* ------------------------------------------------------------------ */
/* output                                                              */
/* ------------------------------------------------------------------ */

static int werr(const struct ipt_tdw *w, const char *what, int e)
{
	return ipt_err("%s: %s: %s", w->path, what, strerror(e));
}

static int out_flush(struct ipt_tdw *w)
{
	if (!w->olen)
		return 0;
	if (ipt_write_all(w->fd, w->obuf, w->olen))
		return werr(w, "write", errno);
	w->olen = 0;
	return 0;
}

static int out_write(struct ipt_tdw *w, const void *data, size_t len)
{
	const uint8_t *p = data;

	if (!len)
		return 0;
	w->pos += len;
	if (len >= OUTBUF_SIZE) {
		if (out_flush(w))
			return -1;
		if (ipt_write_all(w->fd, p, len))
			return werr(w, "write", errno);
		return 0;
	}
	if (w->olen + len > OUTBUF_SIZE && out_flush(w))
		return -1;
	memcpy(w->obuf + w->olen, p, len);
	w->olen += len;
	return 0;
}

static int out_num(struct ipt_tdw *w, unsigned int size, uint64_t v)
{
	uint8_t b[8];

	ipt_put_uint(b, size, w->be, v);
	return out_write(w, b, size);
}

static int out_str(struct ipt_tdw *w, const char *s)
{
	return out_write(w, s, strlen(s) + 1);
}

/* Overwrite a number already written at file offset off. */
static int out_patch(struct ipt_tdw *w, uint64_t off, unsigned int size, uint64_t v)
{
	uint8_t b[8];

	if (off + size > w->pos - w->olen) {
		/* still in the buffer */
		if (off >= w->pos - w->olen) {
			ipt_put_uint(w->obuf + (off - (w->pos - w->olen)), size, w->be, v);
			return 0;
		}
		if (out_flush(w))
			return -1;
	}
	ipt_put_uint(b, size, w->be, v);
	if (ipt_write_at(w->fd, b, size, (int64_t)off))
		return werr(w, "write", errno);
	return 0;
}

/* Zero bytes up to the next multiple of align. */
static int out_align(struct ipt_tdw *w, uint64_t align)
{
	static const uint8_t zeros[4096];
	uint64_t pad = (align - w->pos % align) % align;

	while (pad) {
		size_t n = pad > sizeof(zeros) ? sizeof(zeros) : (size_t)pad;

		if (out_write(w, zeros, n))
			return -1;
		pad -= n;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* compression                                                         */
/* ------------------------------------------------------------------ */

static int cbuf_reserve(struct ipt_tdw *w, size_t need)
{
	return IPT_GROW(w->cbuf, w->ccap, need);
}

/* Compress in[0..len) into w->cbuf; *clen gets the compressed size. */
static int compress_block(struct ipt_tdw *w, const void *in, size_t len, size_t *clen)
{
	if (len > UINT32_MAX)
		return ipt_err("%s: block of %zu bytes too large to compress", w->path, len);
	if (w->comp == COMP_ZSTD) {
		size_t bound = ZSTD_compressBound(len), r;

		if (cbuf_reserve(w, bound))
			return -1;
		if (!w->zctx) {
			w->zctx = ZSTD_createCCtx();
			if (!w->zctx)
				return ipt_err("%s: cannot create a zstd context", w->path);
		}
		r = ZSTD_compressCCtx(w->zctx, w->cbuf, bound, in, len, ZSTD_CLEVEL_DEFAULT);
		if (ZSTD_isError(r))
			return ipt_err("%s: zstd: %s", w->path, ZSTD_getErrorName(r));
		*clen = r;
		return 0;
	}
	if (w->comp == COMP_ZLIB) {
		uLongf dlen = compressBound((uLong)len);
		int r;

		if (cbuf_reserve(w, dlen))
			return -1;
		r = compress2(w->cbuf, &dlen, in, (uLong)len, Z_DEFAULT_COMPRESSION);
		if (r != Z_OK)
			return ipt_err("%s: zlib: compression failed (%d)", w->path, r);
		*clen = dlen;
		return 0;
	}
	return ipt_err("%s: no compression selected", w->path);
}

/* ------------------------------------------------------------------ */
/* public: building                                                    */
/* ------------------------------------------------------------------ */

static int open_temp(struct ipt_tdw *w)
{
	if (w->to_stdout) {
		w->fd = ipt_tmpfile(NULL);
		return w->fd < 0 ? -1 : 0;
	}
	if (ipt_afile_open(&w->af, w->path, 0600))
		return -1;
	w->fd = w->af.fd;
	return 0;
}

static void tdw_free(struct ipt_tdw *w)
{
	int i, j;

	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->spool_fd >= 0)
		close(w->spool_fd);
	free(w->pend);
	ipt_afile_discard(&w->af);
	free(w->path);
	free(w->header_page.text);
	free(w->header_event.text);
	for (i = 0; i < w->nftrace; i++)
		free(w->ftrace[i].text);
	free(w->ftrace);
	for (i = 0; i < w->nsys; i++) {
		for (j = 0; j < w->sys[i].n; j++)
			free(w->sys[i].ev[j].text);
		free(w->sys[i].ev);
		free(w->sys[i].name);
	}
	free(w->sys);
	free(w->kallsyms.text);
	free(w->printk.text);
	free(w->cmdlines.text);
	free(w->clock_text);
	free(w->clock_name);
	free(w->uname);
	free(w->tc_version);
	for (i = 0; i < w->nstats; i++)
		free(w->stats[i].text);
	free(w->stats);
	for (i = 0; i < w->nopts; i++)
		free(w->opts[i].data);
	free(w->opts);
	for (i = 0; i < w->ncpus; i++)
		free(w->cpus[i].data);
	free(w->cpus);
	free(w->obuf);
	ipt_strbuf_free(&w->strings);
	ZSTD_freeCCtx(w->zctx);
	free(w->cbuf);
	free(w);
}

/* ipt_tdw_open - start a trace.dat writer for path ("-": stdout) */
struct ipt_tdw *ipt_tdw_open(const char *path, const struct ipt_tdw_opts *opts)
{
	struct ipt_tdw *w;
	const char *comp = opts && opts->compression ? opts->compression : "none";

	if (!path || !*path) {
		ipt_err("no output file name");
		return NULL;
	}
	w = ipt_calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->fd = -1;
	w->spool_fd = -1;
	w->spool_cpu = -1;
	w->version = opts && opts->version ? opts->version : 7;
	w->be = opts ? opts->big_endian : false;
	w->long_size = opts && opts->long_size ? opts->long_size : 8;
	w->page_size = opts && opts->page_size ? opts->page_size : 4096;
	w->no_replace = opts && opts->no_replace;
	w->path = ipt_strdup(path);
	if (!w->path)
		goto fail;
	w->to_stdout = strcmp(path, "-") == 0;
	{
		/* a device or FIFO (/dev/null, a pipe) is written to, never replaced */
		struct stat st;

		if (!w->to_stdout && stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
			if (S_ISDIR(st.st_mode)) {
				ipt_err("%s: is a directory", path);
				goto fail;
			}
			w->to_stdout = true;
			w->special = true;
		}
	}

	if (w->version != 6 && w->version != 7) {
		ipt_err("%s: unsupported trace.dat version %d (6 or 7)", path, w->version);
		goto fail;
	}
	if (!strcmp(comp, "none") || !*comp) {
		w->comp = COMP_NONE;
	} else if (!strcmp(comp, "zstd")) {
		w->comp = COMP_ZSTD;
	} else if (!strcmp(comp, "zlib")) {
		w->comp = COMP_ZLIB;
	} else {
		ipt_err("%s: unknown compression '%s' (none, zstd, zlib)", path, comp);
		goto fail;
	}
	if (w->version == 6 && w->comp != COMP_NONE) {
		ipt_err("%s: version 6 files cannot be compressed", path);
		goto fail;
	}
	if (w->long_size != 4 && w->long_size != 8) {
		ipt_err("%s: long size must be 4 or 8, not %d", path, w->long_size);
		goto fail;
	}
	if (w->page_size < 64 || (w->page_size & (w->page_size - 1))) {
		ipt_err("%s: page size %u is not a power of two", path, w->page_size);
		goto fail;
	}
	w->obuf = ipt_malloc(OUTBUF_SIZE);
	if (!w->obuf)
		goto fail;
	if (open_temp(w))
		goto fail;
	return w;
fail:
	tdw_free(w);
	return NULL;
}

int ipt_tdw_set_headers(struct ipt_tdw *w, const char *header_page, size_t hp_len,
			const char *header_event, size_t he_len)
{
	if (set_text(&w->header_page, header_page, hp_len))
		return -1;
	return set_text(&w->header_event, header_event, he_len);
}

int ipt_tdw_add_ftrace_format(struct ipt_tdw *w, const char *text, size_t len)
{
	if (IPT_GROW_ZERO(w->ftrace, w->capftrace, w->nftrace + 1))
		return -1;
	if (set_text(&w->ftrace[w->nftrace], text, len))
		return -1;
	w->nftrace++;
	return 0;
}

int ipt_tdw_add_event_format(struct ipt_tdw *w, const char *system,
			     const char *text, size_t len)
{
	struct tdw_system *s = NULL;
	int i;

	if (!system || !*system)
		return ipt_err("%s: event format without a system name", w->path);
	for (i = 0; i < w->nsys; i++)
		if (!strcmp(w->sys[i].name, system)) {
			s = &w->sys[i];
			break;
		}
	if (!s) {
		if (IPT_GROW_ZERO(w->sys, w->capsys, w->nsys + 1))
			return -1;
		s = &w->sys[w->nsys];
		s->name = ipt_strdup(system);
		if (!s->name)
			return -1;
		w->nsys++;
	}
	if (IPT_GROW_ZERO(s->ev, s->cap, s->n + 1))
		return -1;
	if (set_text(&s->ev[s->n], text, len))
		return -1;
	s->n++;
	return 0;
}

int ipt_tdw_set_kallsyms(struct ipt_tdw *w, const char *text, size_t len)
{
	if (len > UINT32_MAX)
		return ipt_err("%s: kallsyms too large", w->path);
	return set_text(&w->kallsyms, text, len);
}

int ipt_tdw_set_printk(struct ipt_tdw *w, const char *text, size_t len)
{
	if (len > UINT32_MAX)
		return ipt_err("%s: printk formats too large", w->path);
	return set_text(&w->printk, text, len);
}

int ipt_tdw_set_cmdlines(struct ipt_tdw *w, const char *text, size_t len)
{
	return set_text(&w->cmdlines, text, len);
}

/* "[local] global counter\n" -> option text as given, clock name "local" */
int ipt_tdw_set_clock(struct ipt_tdw *w, const char *trace_clock_text)
{
	const char *s = trace_clock_text ? trace_clock_text : "";
	const char *lb = strchr(s, '['), *rb = lb ? strchr(lb, ']') : NULL;
	char *name, *text;

	if (lb && rb) {
		name = ipt_strndup(lb + 1, (size_t)(rb - lb - 1));
		text = ipt_strdup(s);
	} else {
		size_t n = strcspn(s, " \t\n");

		if (!n)
			return ipt_err("%s: empty trace clock", w->path);
		name = ipt_strndup(s, n);
		text = NULL;
		if (name && asprintf(&text, "[%s]\n", name) < 0)
			text = NULL;
	}
	if (!name || !text) {
		free(name);
		free(text);
		return ipt_err("out of memory");
	}
	free(w->clock_name);
	free(w->clock_text);
	w->clock_name = name;
	w->clock_text = text;
	return 0;
}

static int set_str(char **dst, const char *s)
{
	char *p = ipt_strdup(s ? s : "");

	if (!p)
		return -1;
	free(*dst);
	*dst = p;
	return 0;
}

int ipt_tdw_set_uname(struct ipt_tdw *w, const char *uname)
{
	return set_str(&w->uname, uname);
}

int ipt_tdw_set_version(struct ipt_tdw *w, const char *version)
{
	return set_str(&w->tc_version, version);
}

int ipt_tdw_set_cpucount(struct ipt_tdw *w, int ncpus)
{
	if (ncpus < 0)
		return ipt_err("%s: negative CPU count", w->path);
	w->cpucount = ncpus;
	return 0;
}

int ipt_tdw_add_cpustat(struct ipt_tdw *w, int cpu, const char *stats_text)
{
	int i;

	if (cpu < 0)
		return ipt_err("%s: negative CPU number", w->path);
	for (i = 0; i < w->nstats; i++)
		if (w->stats[i].cpu == cpu)
			return set_str(&w->stats[i].text, stats_text);
	if (IPT_GROW_ZERO(w->stats, w->capstats, w->nstats + 1))
		return -1;
	w->stats[w->nstats].cpu = cpu;
	if (set_str(&w->stats[w->nstats].text, stats_text))
		return -1;
	w->nstats++;
	return 0;
}

int ipt_tdw_add_option(struct ipt_tdw *w, uint16_t id, const void *data, uint32_t len)
{
	struct tdw_opt *o;

	if (IPT_GROW_ZERO(w->opts, w->capopts, w->nopts + 1))
		return -1;
	o = &w->opts[w->nopts];
	o->data = ipt_malloc(len);
	if (!o->data)
		return -1;
	if (len)
		memcpy(o->data, data, len);
	o->id = id;
	o->len = len;
	w->nopts++;
	return 0;
}

static struct tdw_cpu *get_cpu(struct ipt_tdw *w, int cpu)
{
	struct tdw_cpu *c;

	if (cpu < 0 || cpu >= IPT_CPUSET_MAX) {
		ipt_err("%s: CPU number %d out of range", w->path, cpu);
		return NULL;
	}
	if (cpu >= w->ncpus) {
		if (IPT_GROW_ZERO(w->cpus, w->capcpus, (size_t)cpu + 1))
			return NULL;
		for (int i = w->ncpus; i <= cpu; i++)
			w->cpus[i].fd = -1;
		w->ncpus = cpu + 1;
	}
	c = &w->cpus[cpu];
	free(c->data);
	c->data = NULL;
	c->len = 0;
	c->spooled = false;
	c->fd = -1;
	c->given = true;
	return c;
}

int ipt_tdw_set_cpu_data(struct ipt_tdw *w, int cpu, const void *data, size_t len)
{
	struct tdw_cpu *c;

	if (len % w->page_size)
		return ipt_err("%s: CPU %d data (%zu bytes) is not whole %u-byte pages",
			       w->path, cpu, len, w->page_size);
	c = get_cpu(w, cpu);
	if (!c)
		return -1;
	if (len) {
		c->data = ipt_malloc(len);
		if (!c->data)
			return -1;
		memcpy(c->data, data, len);
	}
	c->len = len;
	return 0;
}

int ipt_tdw_set_cpu_fd(struct ipt_tdw *w, int cpu, int fd)
{
	struct tdw_cpu *c;

	if (fd < 0)
		return ipt_err("%s: CPU %d: bad file descriptor", w->path, cpu);
	c = get_cpu(w, cpu);
	if (!c)
		return -1;
	c->fd = fd;
	return 0;
}

/* spool_chunk - the pending pages as one chunk of the file, into the spool */
static int spool_chunk(struct ipt_tdw *w)
{
	struct tdw_cpu *c = &w->cpus[w->spool_cpu];
	uint8_t hdr[8];
	size_t clen = w->npend;
	const void *p = w->pend;

	if (!w->npend)
		return 0;
	if (w->version >= 7 && w->comp != COMP_NONE) {
		if (compress_block(w, w->pend, w->npend, &clen))
			return -1;
		ipt_put_uint(hdr, 4, w->be, clen);
		ipt_put_uint(hdr + 4, 4, w->be, w->npend);
		if (ipt_write_at(w->spool_fd, hdr, 8, (int64_t)w->spool_end))
			return werr(w, "write a temporary file", errno);
		w->spool_end += 8;
		c->spool_len += 8;
		c->spool_chunks++;
		p = w->cbuf;
	}
	if (ipt_write_at(w->spool_fd, p, clen, (int64_t)w->spool_end))
		return werr(w, "write a temporary file", errno);
	w->spool_end += clen;
	c->spool_len += clen;
	c->spool_raw += w->npend;
	w->npend = 0;
	return 0;
}

int ipt_tdw_add_cpu_pages(struct ipt_tdw *w, int cpu, const void *data, size_t len)
{
	size_t chunk_size = (size_t)PAGES_IN_CHUNK * w->page_size;
	const uint8_t *p = data;
	struct tdw_cpu *c;

	if (len % w->page_size)
		return ipt_err("%s: CPU %d data (%zu bytes) is not whole %u-byte pages",
			       w->path, cpu, len, w->page_size);
	if (cpu != w->spool_cpu) {
		if (cpu >= 0 && cpu < w->ncpus && w->cpus[cpu].spooled)
			return ipt_err("%s: CPU %d's pages after another CPU's", w->path, cpu);
		if (w->spool_cpu >= 0 && spool_chunk(w))
			return -1;
		if (w->spool_fd < 0 && (w->spool_fd = ipt_tmpfile(NULL)) < 0)
			return -1;
		if (!w->pend && !(w->pend = ipt_malloc(chunk_size)))
			return -1;
		if (!(c = get_cpu(w, cpu)))
			return -1;
		c->spooled = true;
		c->spool_off = w->spool_end;
		w->spool_cpu = cpu;
	}
	while (len) {
		size_t n = chunk_size - w->npend < len ? chunk_size - w->npend : len;

		memcpy(w->pend + w->npend, p, n);
		w->npend += n;
		p += n;
		len -= n;
		if (w->npend == chunk_size && spool_chunk(w))
			return -1;
	}
	return 0;
}

/* write_spooled - a CPU's chunks from the spool, as they are */
static int write_spooled(struct ipt_tdw *w, struct tdw_cpu *c, uint8_t *buf, size_t size)
{
	uint64_t start = w->pos;

	if (w->version >= 7 && w->comp != COMP_NONE && out_num(w, 4, c->spool_chunks))
		return -1;
	for (uint64_t rd = 0; rd < c->spool_len;) {
		size_t n = c->spool_len - rd < size ? (size_t)(c->spool_len - rd) : size;
		ssize_t r = pread(w->spool_fd, buf, n, (off_t)(c->spool_off + rd));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return werr(w, "read a temporary file", r < 0 ? errno : EIO);
		if (out_write(w, buf, (size_t)r))
			return -1;
		rd += (uint64_t)r;
	}
	c->size = w->pos - start;
	c->raw = c->spool_raw;
	return 0;
}

/* ------------------------------------------------------------------ */
/* metadata blocks (same content in v6 and v7)                         */
/* ------------------------------------------------------------------ */

static const char default_header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

/* header_page as Linux shows it for this page and long size. */
static int default_header_page(const struct ipt_tdw *w, struct ipt_strbuf *sb)
{
	unsigned int ls = (unsigned int)w->long_size;

	return ipt_strbuf_addf(sb,
		       "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		       "\tfield: local_t commit;\toffset:8;\tsize:%u;\tsigned:1;\n"
		       "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		       "\tfield: char data;\toffset:%u;\tsize:%u;\tsigned:0;\n",
		       ls, 8 + ls, w->page_size - 8 - ls);
}

static int build_headers(const struct ipt_tdw *w, struct ipt_strbuf *sb)
{
	struct ipt_strbuf hp = IPT_STRBUF_INIT;
	const char *he = w->header_event.text ? w->header_event.text : default_header_event;
	size_t he_len = w->header_event.text ? w->header_event.len : strlen(default_header_event);
	int ret = -1;

	if (w->header_page.text) {
		if (ipt_strbuf_add(&hp, w->header_page.text, w->header_page.len))
			goto out;
	} else if (default_header_page(w, &hp)) {
		goto out;
	}
	if (ipt_strbuf_add(sb, "header_page", 12) || sb_put(sb, w, 8, hp.len) ||
	    ipt_strbuf_add(sb, hp.buf, hp.len) ||
	    ipt_strbuf_add(sb, "header_event", 13) || sb_put(sb, w, 8, he_len) ||
	    ipt_strbuf_add(sb, he, he_len))
		goto out;
	ret = 0;
out:
	ipt_strbuf_free(&hp);
	return ret;
}

static int build_ftrace(const struct ipt_tdw *w, struct ipt_strbuf *sb)
{
	int i;

	if (sb_put(sb, w, 4, (uint64_t)w->nftrace))
		return -1;
	for (i = 0; i < w->nftrace; i++)
		if (sb_put(sb, w, 8, w->ftrace[i].len) ||
		    ipt_strbuf_add(sb, w->ftrace[i].text, w->ftrace[i].len))
			return -1;
	return 0;
}

static int build_events(const struct ipt_tdw *w, struct ipt_strbuf *sb)
{
	int i, j;

	if (sb_put(sb, w, 4, (uint64_t)w->nsys))
		return -1;
	for (i = 0; i < w->nsys; i++) {
		const struct tdw_system *s = &w->sys[i];

		if (ipt_strbuf_add(sb, s->name, strlen(s->name) + 1) || sb_put(sb, w, 4, (uint64_t)s->n))
			return -1;
		for (j = 0; j < s->n; j++)
			if (sb_put(sb, w, 8, s->ev[j].len) ||
			    ipt_strbuf_add(sb, s->ev[j].text, s->ev[j].len))
				return -1;
	}
	return 0;
}

/* size_bytes: 4 for kallsyms/printk, 8 for cmdlines */
static int build_blob(const struct ipt_tdw *w, const struct tdw_text *t, unsigned int size_bytes,
		      struct ipt_strbuf *sb)
{
	if (sb_put(sb, w, size_bytes, t->len))
		return -1;
	return t->len ? ipt_strbuf_add(sb, t->text, t->len) : 0;
}

static int cmp_cpustat(const void *a, const void *b)
{
	const struct tdw_cpustat *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* Options other than the v7 section pointers and BUFFER, in file order. */
static int for_each_option(struct ipt_tdw *w,
			   int (*fn)(struct ipt_tdw *w, uint16_t id, const void *d, uint32_t len))
{
	int i;

	if (w->clock_text && fn(w, OPT_TRACECLOCK, w->clock_text, (uint32_t)strlen(w->clock_text) + 1))
		return -1;
	if (w->uname && fn(w, OPT_UNAME, w->uname, (uint32_t)strlen(w->uname) + 1))
		return -1;
	if (w->tc_version && fn(w, OPT_VERSION, w->tc_version, (uint32_t)strlen(w->tc_version) + 1))
		return -1;
	for (i = 0; i < w->nopts; i++)
		if (fn(w, w->opts[i].id, w->opts[i].data, w->opts[i].len))
			return -1;
	/* CPUSTAT options in CPU order */
	if (w->nstats > 1)
		qsort(w->stats, (size_t)w->nstats, sizeof(*w->stats), cmp_cpustat);
	for (i = 0; i < w->nstats; i++)
		if (fn(w, OPT_CPUSTAT, w->stats[i].text, (uint32_t)strlen(w->stats[i].text) + 1))
			return -1;
	if (w->cpucount) {
		uint8_t b[4];

		ipt_put_uint(b, 4, w->be, (uint64_t)w->cpucount);
		if (fn(w, OPT_CPUCOUNT, b, 4))
			return -1;
	}
	return 0;
}

static int out_option(struct ipt_tdw *w, uint16_t id, const void *data, uint32_t len)
{
	if (out_num(w, 2, id) || out_num(w, 4, len))
		return -1;
	return out_write(w, data, len);
}

/* ------------------------------------------------------------------ */
/* per-CPU data                                                        */
/* ------------------------------------------------------------------ */

/*
 * Copy (v6, v7 "none") or chunk-compress (v7) the data of one CPU at the
 * current position; sets c->size to the bytes written.
 */
static int write_cpu_data(struct ipt_tdw *w, int cpu, struct tdw_cpu *c, uint8_t *chunk,
			  size_t chunk_size)
{
	uint64_t start = w->pos, rd = 0, count_off = 0, nchunks = 0;
	bool compress = w->version >= 7 && w->comp != COMP_NONE;

	if (compress) {
		count_off = w->pos;
		if (out_num(w, 4, 0))
			return -1;
	}
	for (;;) {
		const uint8_t *p;
		size_t n = 0;

		if (c->fd < 0) {
			if (rd >= c->len)
				break;
			n = c->len - rd > chunk_size ? chunk_size : (size_t)(c->len - rd);
			p = c->data + rd;
		} else {
			while (n < chunk_size) {
				ssize_t r = c->pipe ? read(c->fd, chunk + n, chunk_size - n)
						    : pread(c->fd, chunk + n, chunk_size - n,
							    (off_t)(rd + n));

				if (r < 0) {
					if (errno == EINTR)
						continue;
					if (errno == ESPIPE && !c->pipe && !rd && !n) {
						c->pipe = true;	/* not seekable: read it as it comes */
						continue;
					}
					return ipt_err("%s: reading CPU %d data: %s", w->path, cpu,
						       strerror(errno));
				}
				if (r == 0)
					break;
				n += (size_t)r;
			}
			if (!n)
				break;
			p = chunk;
		}
		rd += n;
		if (compress) {
			size_t clen;

			if (compress_block(w, p, n, &clen) ||
			    out_num(w, 4, clen) || out_num(w, 4, n) ||
			    out_write(w, w->cbuf, clen))
				return -1;
			nchunks++;
		} else if (out_write(w, p, n)) {
			return -1;
		}
		if (n < chunk_size && c->fd >= 0)
			break;
	}
	if (rd % w->page_size)
		return ipt_err("%s: CPU %d data (%llu bytes) is not whole %u-byte pages",
			       w->path, cpu, (unsigned long long)rd, w->page_size);
	if (compress) {
		if (nchunks > UINT32_MAX)
			return ipt_err("%s: CPU %d: too many chunks", w->path, cpu);
		if (out_patch(w, count_off, 4, nchunks))
			return -1;
	}
	c->size = w->pos - start;
	c->raw = rd;
	return 0;
}

static int write_all_cpus(struct ipt_tdw *w)
{
	size_t chunk_size = (size_t)PAGES_IN_CHUNK * w->page_size;
	uint8_t *chunk = ipt_malloc(chunk_size);
	int i, ret = 0;

	if (!chunk || (w->spool_cpu >= 0 && spool_chunk(w))) {
		free(chunk);
		return -1;
	}
	for (i = 0; i < w->ncpus && !ret; i++) {
		struct tdw_cpu *c = &w->cpus[i];

		if (out_align(w, w->page_size)) {
			ret = -1;
			break;
		}
		c->offset = w->pos;
		c->size = 0;
		c->raw = 0;
		if (!c->given)
			continue;
		ret = c->spooled ? write_spooled(w, c, chunk, chunk_size) : write_cpu_data(w, i, c, chunk, chunk_size);
	}
	free(chunk);
	return ret;
}

/* ------------------------------------------------------------------ */
/* version 6                                                           */
/* ------------------------------------------------------------------ */

static int write_initial(struct ipt_tdw *w)
{
	static const uint8_t magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	uint8_t b[2];

	if (out_write(w, magic, sizeof(magic)) ||
	    out_str(w, w->version == 6 ? "6" : "7"))
		return -1;
	b[0] = w->be ? 1 : 0;
	b[1] = (uint8_t)w->long_size;
	if (out_write(w, b, 2) || out_num(w, 4, w->page_size))
		return -1;
	return 0;
}

static int write_v6(struct ipt_tdw *w)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	uint64_t table;
	int i, ret = -1;

	if (write_initial(w))
		goto out;
	if (build_headers(w, &sb) || build_ftrace(w, &sb) || build_events(w, &sb) ||
	    build_blob(w, &w->kallsyms, 4, &sb) || build_blob(w, &w->printk, 4, &sb) ||
	    build_blob(w, &w->cmdlines, 8, &sb))
		goto out;
	if (out_write(w, sb.buf, sb.len))
		goto out;
	if (out_num(w, 4, (uint64_t)w->ncpus))
		goto out;
	if (out_write(w, "options  ", 10) || for_each_option(w, out_option) ||
	    out_num(w, 2, OPT_DONE))
		goto out;
	if (out_write(w, "flyrecord", 10))
		goto out;
	table = w->pos;
	for (i = 0; i < w->ncpus; i++)
		if (out_num(w, 8, 0) || out_num(w, 8, 0))
			goto out;
	{
		char clk[160];
		int n = snprintf(clk, sizeof(clk), "[%s]",
				 w->clock_name ? w->clock_name : "local");

		if (n < 0 || (size_t)n >= sizeof(clk)) {
			ipt_err("%s: clock name too long", w->path);
			goto out;
		}
		if (out_num(w, 8, (uint64_t)n) || out_write(w, clk, (size_t)n))
			goto out;
	}
	if (write_all_cpus(w))
		goto out;
	for (i = 0; i < w->ncpus; i++)
		if (out_patch(w, table + 16 * (uint64_t)i, 8, w->cpus[i].offset) ||
		    out_patch(w, table + 16 * (uint64_t)i + 8, 8, w->cpus[i].size))
			goto out;
	ret = 0;
out:
	ipt_strbuf_free(&sb);
	return ret;
}

/* ------------------------------------------------------------------ */
/* version 7                                                           */
/* ------------------------------------------------------------------ */

static uint32_t add_string(struct ipt_tdw *w, const char *s)
{
	uint32_t off = (uint32_t)w->strings.len;

	if (ipt_strbuf_add(&w->strings, s, strlen(s) + 1))
		return UINT32_MAX;
	return off;
}

/* Section header; *size_off (if wanted) gets the offset of the size field. */
static int sec_header_sid(struct ipt_tdw *w, uint16_t id, uint32_t sid, bool compress,
			  uint64_t size, uint64_t *size_off)
{
	if (out_num(w, 2, id) || out_num(w, 2, compress ? SEC_FL_COMPRESS : 0) ||
	    out_num(w, 4, sid))
		return -1;
	if (size_off)
		*size_off = w->pos;
	return out_num(w, 8, size);
}

static int sec_header(struct ipt_tdw *w, uint16_t id, const char *desc, bool compress,
		      uint64_t size, uint64_t *size_off)
{
	uint32_t sid = add_string(w, desc);

	if (sid == UINT32_MAX)
		return -1;
	return sec_header_sid(w, id, sid, compress, size, size_off);
}

/* A metadata section: content compressed as one block when compressing. */
static int write_section(struct ipt_tdw *w, uint16_t id, const char *desc,
			 const struct ipt_strbuf *content, uint64_t *sec_off)
{
	bool compress = w->comp != COMP_NONE;
	size_t clen = 0;

	*sec_off = w->pos;
	if (!compress)
		return sec_header(w, id, desc, false, content->len, NULL) ||
		       out_write(w, content->buf, content->len);
	if (compress_block(w, content->buf ? content->buf : "", content->len, &clen))
		return -1;
	if (sec_header(w, id, desc, true, 8 + (uint64_t)clen, NULL) ||
	    out_num(w, 4, clen) || out_num(w, 4, content->len) ||
	    out_write(w, w->cbuf, clen))
		return -1;
	return 0;
}

/* The strings section, last: its own description is among its strings. */
static int write_strings(struct ipt_tdw *w)
{
	uint32_t sid = add_string(w, "strings");
	size_t clen = 0;

	if (sid == UINT32_MAX)
		return -1;
	if (w->comp == COMP_NONE)
		return sec_header_sid(w, SEC_STRINGS, sid, false, w->strings.len, NULL) ||
		       out_write(w, w->strings.buf, w->strings.len);
	if (compress_block(w, w->strings.buf, w->strings.len, &clen))
		return -1;
	return sec_header_sid(w, SEC_STRINGS, sid, true, 8 + (uint64_t)clen, NULL) ||
	       out_num(w, 4, clen) || out_num(w, 4, w->strings.len) ||
	       out_write(w, w->cbuf, clen);
}

static int write_v7(struct ipt_tdw *w)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	uint64_t first_opts_ptr, done1_ptr, buf_size_ptr, opt_size_ptr, opts_start;
	uint64_t sec_off[6], fly_off;
	static const struct {
		uint16_t id;
		const char *desc;
	} secs[6] = {
		{ SEC_HEADER_INFO, "headers" },
		{ SEC_FTRACE_EVENTS, "ftrace events" },
		{ SEC_EVENT_FORMATS, "events format" },
		{ SEC_KALLSYMS, "kallsyms" },
		{ SEC_PRINTK, "printk" },
		{ SEC_CMDLINES, "command lines" },
	};
	int i, nwith = 0, ret = -1;

	if (write_initial(w) || out_str(w, comp_name(w->comp)) ||
	    out_str(w, comp_version(w->comp)))
		goto out;
	first_opts_ptr = w->pos;
	if (out_num(w, 8, 0))
		goto out;

	for (i = 0; i < 6; i++) {
		int r;

		ipt_strbuf_reset(&sb);
		switch (secs[i].id) {
		case SEC_HEADER_INFO: r = build_headers(w, &sb); break;
		case SEC_FTRACE_EVENTS: r = build_ftrace(w, &sb); break;
		case SEC_EVENT_FORMATS: r = build_events(w, &sb); break;
		case SEC_KALLSYMS: r = build_blob(w, &w->kallsyms, 4, &sb); break;
		case SEC_PRINTK: r = build_blob(w, &w->printk, 4, &sb); break;
		default: r = build_blob(w, &w->cmdlines, 8, &sb); break;
		}
		if (r || write_section(w, secs[i].id, secs[i].desc, &sb, &sec_off[i]))
			goto out;
	}

	/* first options section: where the metadata is, and the string options */
	opts_start = w->pos;
	if (out_patch(w, first_opts_ptr, 8, opts_start) ||
	    sec_header(w, OPT_DONE, "options", false, 0, &opt_size_ptr))
		goto out;
	for (i = 0; i < 6; i++) {
		uint8_t b[8];

		ipt_put_uint(b, 8, w->be, sec_off[i]);
		if (out_option(w, secs[i].id, b, 8))
			goto out;
	}
	if (for_each_option(w, out_option))
		goto out;
	if (out_num(w, 2, OPT_DONE) || out_num(w, 4, 8))
		goto out;
	done1_ptr = w->pos;
	if (out_num(w, 8, 0) || out_patch(w, opt_size_ptr, 8, w->pos - opt_size_ptr - 8))
		goto out;

	/* the flyrecord data */
	fly_off = w->pos;
	if (sec_header(w, OPT_BUFFER, "buffer flyrecord ", w->comp != COMP_NONE, 0, &buf_size_ptr))
		goto out;
	if (write_all_cpus(w))
		goto out;
	if (out_patch(w, buf_size_ptr, 8, w->pos - buf_size_ptr - 8))
		goto out;

	/* second options section: the BUFFER option */
	if (out_patch(w, done1_ptr, 8, w->pos) ||
	    sec_header(w, OPT_DONE, "options", false, 0, &opt_size_ptr))
		goto out;
	ipt_strbuf_reset(&sb);
	for (i = 0; i < w->ncpus; i++)
		if (w->cpus[i].raw)
			nwith++;
	if (sb_put(&sb, w, 8, fly_off) || ipt_strbuf_add(&sb, "", 1) ||
	    ipt_strbuf_add(&sb, w->clock_name ? w->clock_name : "local",
		   strlen(w->clock_name ? w->clock_name : "local") + 1) ||
	    sb_put(&sb, w, 4, w->page_size) || sb_put(&sb, w, 4, (uint64_t)nwith))
		goto out;
	for (i = 0; i < w->ncpus; i++) {
		if (!w->cpus[i].raw)	/* as trace-cmd: CPUs without data are not listed */
			continue;
		if (sb_put(&sb, w, 4, (uint64_t)i) || sb_put(&sb, w, 8, w->cpus[i].offset) ||
		    sb_put(&sb, w, 8, w->cpus[i].size))
			goto out;
	}
	if (sb.len > UINT32_MAX || out_option(w, OPT_BUFFER, sb.buf, (uint32_t)sb.len))
		goto out;
	if (out_num(w, 2, OPT_DONE) || out_num(w, 4, 8) || out_num(w, 8, 0) ||
	    out_patch(w, opt_size_ptr, 8, w->pos - opt_size_ptr - 8))
		goto out;

	if (write_strings(w))
		goto out;
	ret = 0;
out:
	ipt_strbuf_free(&sb);
	return ret;
}

/* ------------------------------------------------------------------ */
/* commit / abort                                                      */
/* ------------------------------------------------------------------ */

/* Copy the finished temporary file to standard output. */
static int copy_to_stdout(struct ipt_tdw *w)
{
	uint64_t off = 0;
	int fd = STDOUT_FILENO, ret = 0;

	if (w->special && (fd = open(w->path, O_WRONLY | O_CLOEXEC)) < 0)
		return ipt_err("%s: %s", w->path, strerror(errno));
	for (;;) {
		ssize_t r = pread(w->fd, w->obuf, OUTBUF_SIZE, (off_t)off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = ipt_err("%s: reading the temporary file: %s", w->path, strerror(errno));
			break;
		}
		if (r == 0)
			break;
		if (ipt_write_all(fd, w->obuf, (size_t)r)) {
			ret = ipt_err("%s: write: %s", w->special ? w->path : "standard output", strerror(errno));
			break;
		}
		off += (uint64_t)r;
	}
	if (w->special)
		close(fd);
	return ret;
}

/* ipt_tdw_commit - write the file and give it its final name */
int ipt_tdw_commit(struct ipt_tdw *w)
{
	int ret;

	if (!w)
		return ipt_err("no trace.dat writer");
	ret = w->version == 6 ? write_v6(w) : write_v7(w);
	if (!ret)
		ret = out_flush(w);
	if (!ret && w->to_stdout)
		ret = copy_to_stdout(w);
	if (!ret && !w->to_stdout)
		ret = ipt_afile_place(&w->af, !w->no_replace);
	if (!ret && w->fd >= 0) {
		int fd = w->fd;

		w->fd = -1;
		if (close(fd) < 0)
			ret = werr(w, "close", errno);
	}
	tdw_free(w);	/* removes the temporary file if still there */
	return ret;
}

/* ipt_tdw_abort - drop everything, remove the temporary file */
void ipt_tdw_abort(struct ipt_tdw *w)
{
	tdw_free(w);
}
