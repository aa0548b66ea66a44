// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat_read.c - trace-cmd trace.dat version 6 and 7 reading
 *
 * See trace-cmd.dat.v6(5) and trace-cmd.dat.v7(5).  Everything read from
 * the file is bounds-checked against the mapping; every error names the
 * file and the offset of what could not be read.  Per-CPU data is left in
 * place (uncompressed files) or indexed as chunks (compressed v7), and
 * decoded later, page by page, by ringbuf.c.
 */
#include "input/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

/* A bounded reader over bytes that sit at file offset `base`. */
struct rd {
	const uint8_t *p;
	size_t n;
	size_t pos;
	long long base;
	bool be;
	const char *path;
	const char *what;	/* what is being read, for messages */
	bool owned;		/* a decompressed section's buffer, not the file */
};

static int rd_fail(struct rd *r, const char *need)
{
	return ipt_err_at(r->path, r->base + (long long)r->pos, "truncated %s (%s needed, %zu bytes left)",
			  r->what, need, r->n - r->pos);
}

static int rd_uint(struct rd *r, unsigned int size, uint64_t *v)
{
	if (r->n - r->pos < size)
		return rd_fail(r, size == 2 ? "2 bytes" : size == 4 ? "4 bytes" : "8 bytes");
	*v = ipt_get_uint(r->p + r->pos, size, r->be);
	r->pos += size;
	return 0;
}

static int rd_u16(struct rd *r, uint16_t *v)
{
	uint64_t x;

	if (rd_uint(r, 2, &x))
		return -1;
	*v = (uint16_t)x;
	return 0;
}

static int rd_u32(struct rd *r, uint32_t *v)
{
	uint64_t x;

	if (rd_uint(r, 4, &x))
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static int rd_u64(struct rd *r, uint64_t *v)
{
	return rd_uint(r, 8, v);
}

/* rd_bytes - n bytes in place */
static int rd_bytes(struct rd *r, uint64_t n, const uint8_t **out)
{
	if (n > r->n - r->pos)
		return ipt_err_at(r->path, r->base + (long long)r->pos,
				  "%s claims %llu bytes, only %zu left", r->what,
				  (unsigned long long)n, r->n - r->pos);
	*out = r->p + r->pos;
	r->pos += n;
	return 0;
}

/* rd_cstr - a NUL-terminated string in place */
static int rd_cstr(struct rd *r, const char **s)
{
	const uint8_t *z = memchr(r->p + r->pos, 0, r->n - r->pos);

	if (!z)
		return ipt_err_at(r->path, r->base + (long long)r->pos,
				  "unterminated string in %s", r->what);
	*s = (const char *)r->p + r->pos;
	r->pos = (size_t)(z - r->p) + 1;
	return 0;
}

/* rd_expect - a fixed tag such as "header_page\0" */
static int rd_expect(struct rd *r, const char *tag, size_t n)
{
	if (r->n - r->pos < n || memcmp(r->p + r->pos, tag, n))
		return ipt_err_at(r->path, r->base + (long long)r->pos, "expected \"%s\"", tag);
	r->pos += n;
	return 0;
}

/* at_file - a reader over the whole file starting at off */
static int at_file(struct ipt_trace *t, struct rd *r, uint64_t off, const char *what)
{
	r->p = t->map;
	r->n = t->map_size;
	r->base = 0;
	r->be = t->big_endian;
	r->path = t->path;
	r->what = what;
	if (off > t->map_size)
		return ipt_err_at(t->path, (long long)off, "%s lies past the end of the file (%zu bytes)",
				  what, t->map_size);
	r->pos = (size_t)off;
	r->owned = false;
	return 0;
}

/* ---- metadata blocks, shared by v6 and v7 ---- */

static int read_header_info(struct ipt_trace *t, struct rd *r)
{
	const uint8_t *hp = NULL, *he = NULL;
	uint64_t n, hp_len;

	if (rd_expect(r, "header_page", 12) || rd_u64(r, &hp_len) || rd_bytes(r, hp_len, &hp))
		return -1;
	if (rd_expect(r, "header_event", 13) || rd_u64(r, &n) || rd_bytes(r, n, &he))
		return -1;
	ipt_strbuf_reset(&t->raw_header_page);
	ipt_strbuf_reset(&t->raw_header_event);
	if (ipt_strbuf_add(&t->raw_header_page, (const char *)hp, (size_t)hp_len) ||
	    ipt_strbuf_add(&t->raw_header_event, (const char *)he, (size_t)n))
		return -1;
	if (ipt_header_page_parse(&t->layout, (const char *)hp, (size_t)hp_len, t->page_size, 8)) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", ipt_errmsg());
		return ipt_err_at(t->path, r->base + (long long)(hp - r->p), "%s", msg);
	}
	t->kernel_long_size = (int)t->layout.commit_size;
	return 0;
}

static int add_format(struct ipt_trace *t, struct rd *r, const char *system)
{
	struct ipt_event ev;
	const uint8_t *txt = NULL;
	uint64_t n;
	long long at;

	if (rd_u64(r, &n))
		return -1;
	at = r->base + (long long)r->pos;
	if (rd_bytes(r, n, &txt))
		return -1;
	if (ipt_format_parse(&ev, system, (const char *)txt, (size_t)n, t->kernel_long_size,
			     t->path, at))
		return -1;
	if (ipt_trace_keep_format(t, system, (const char *)txt, (size_t)n)) {
		ipt_event_release(&ev);
		return -1;
	}
	return ipt_trace_add_event(t, &ev);
}

static int read_ftrace_formats(struct ipt_trace *t, struct rd *r)
{
	uint32_t count;

	r->what = "ftrace event formats";
	if (rd_u32(r, &count))
		return -1;
	for (uint32_t i = 0; i < count; i++)
		if (add_format(t, r, "ftrace"))
			return -1;
	return 0;
}

static int read_event_formats(struct ipt_trace *t, struct rd *r)
{
	uint32_t nsys;

	r->what = "event formats";
	if (rd_u32(r, &nsys))
		return -1;
	for (uint32_t s = 0; s < nsys; s++) {
		const char *sys;
		uint32_t count;

		if (rd_cstr(r, &sys) || rd_u32(r, &count))
			return -1;
		for (uint32_t i = 0; i < count; i++)
			if (add_format(t, r, sys))
				return -1;
	}
	return 0;
}

/*
 * text_len - kallsyms, printk formats and cmdlines are text: they end at the
 * first NUL byte, if any (so that a size field claiming gigabytes of zeros,
 * as in a sparse file, costs nothing: no copy, no scan past the NUL)
 */
static size_t text_len(const uint8_t *d, uint64_t n)
{
	const void *nul = memchr(d, 0, (size_t)n);

	return nul ? (size_t)((const uint8_t *)nul - d) : (size_t)n;
}

/*
 * read_kallsyms - the text of a kallsyms section (r: the section's content,
 * decompressed or in the file).  In the file: read at the first lookup.
 * Decompressed: read now, and only the symbols and their names are kept,
 * not the text (5 MB of it, where the names are 3); z, where the section
 * lies compressed, is kept instead, for a rewrite.
 */
static int read_kallsyms(struct ipt_trace *t, struct rd *r, const uint8_t *z, size_t zlen,
			 size_t ulen, long long zoff)
{
	const uint8_t *d = NULL;
	uint32_t n;
	bool in_map;

	r->what = "kallsyms";
	if (rd_u32(r, &n) || rd_bytes(r, n, &d))
		return -1;
	in_map = t->map && d >= t->map && d + n <= t->map + t->map_size;
	/* the text ends at a NUL: in the file, found when it is read (a
	 * section found again by where it lies is not read at all) */
	if (!in_map)
		n = (uint32_t)text_len(d, n);
	if (in_map ? ipt_symtab_defer_kallsyms(&t->ksyms, (const char *)d, n) :
	    r->owned ? ipt_symtab_take_kallsyms(&t->ksyms, (char *)(uintptr_t)d, n) :
	    ipt_symtab_load_kallsyms(&t->ksyms, (const char *)d, n))
		return -1;
	if (in_map) {
		struct ipt_symcache_ref ref;

		if (t->file_ident_ok)
			ipt_symcache_ref_of(&ref, t->file_ident, (uint64_t)(d - t->map), n);
		ipt_symtab_defer_cache(&t->ksyms, t->symcache_dir, t->file_ident_ok ? &ref : NULL);
	}
	/* for a rewrite (a trace.dat has one kallsyms text): where it lies
	 * compressed, a view of the mapped file, or else a copy */
	if (z) {
		t->kallsyms_z = z;
		t->kallsyms_zlen = zlen;
		t->kallsyms_ulen = ulen;
		t->kallsyms_zoff = zoff;
	} else if (in_map) {
		t->kallsyms_text = (const char *)d;
		t->kallsyms_len = n;
	} else {
		if (ipt_strbuf_add(&t->raw_kallsyms, (const char *)d, n))
			return -1;
		t->kallsyms_text = t->raw_kallsyms.buf;
		t->kallsyms_len = t->raw_kallsyms.len;
	}
	return 0;
}

int ipt_trace_kallsyms_text(const struct ipt_trace *t, struct ipt_strbuf *tmp, const char **text, size_t *len)
{
	uint32_t n;

	*text = t->kallsyms_text;
	*len = t->kallsyms_text ? text_len((const uint8_t *)t->kallsyms_text, t->kallsyms_len) : 0;
	if (!t->kallsyms_z)
		return 0;
	/* decompressed again: the text was not kept */
	tmp->buf = ipt_malloc(t->kallsyms_ulen);
	if (!tmp->buf)
		return -1;
	tmp->cap = t->kallsyms_ulen;
	if (ipt_decompress(t->compression, t->kallsyms_z, t->kallsyms_zlen, (uint8_t *)tmp->buf,
			   t->kallsyms_ulen, t->path, t->kallsyms_zoff + 24)) {
		ipt_strbuf_free(tmp);
		return -1;
	}
	n = (uint32_t)ipt_get_uint((const uint8_t *)tmp->buf, 4, t->big_endian);
	if (n > t->kallsyms_ulen - 4)	/* checked when the file was opened */
		n = (uint32_t)(t->kallsyms_ulen - 4);
	*text = tmp->buf + 4;
	*len = text_len((const uint8_t *)tmp->buf + 4, n);
	tmp->len = t->kallsyms_ulen;
	return 0;
}

static int read_printk(struct ipt_trace *t, struct rd *r)
{
	const uint8_t *d = NULL;
	uint32_t n;

	r->what = "printk formats";
	if (rd_u32(r, &n) || rd_bytes(r, n, &d))
		return -1;
	n = (uint32_t)text_len(d, n);
	if (ipt_strbuf_add(&t->raw_printk, (const char *)d, n) ||
	    ipt_symtab_load_printk(&t->printk, (const char *)d, n))
		return -1;
	return ipt_symtab_sort(&t->printk);
}

static int read_cmdlines(struct ipt_trace *t, struct rd *r)
{
	const uint8_t *d = NULL;
	uint64_t n;

	r->what = "saved cmdlines";
	if (rd_u64(r, &n) || rd_bytes(r, n, &d))
		return -1;
	n = text_len(d, n);
	if (ipt_strbuf_add(&t->raw_cmdlines, (const char *)d, (size_t)n))
		return -1;
	return ipt_comms_load_cmdlines(&t->comms, (const char *)d, (size_t)n);
}

/* ---- options ---- */

static int set_str(char **dst, const uint8_t *d, uint32_t n)
{
	char *s;
	size_t len = strnlen((const char *)d, n);

	while (len && (d[len - 1] == '\n' || d[len - 1] == ' '))
		len--;
	s = ipt_strndup((const char *)d, len);
	if (!s)
		return -1;
	free(*dst);
	*dst = s;
	return 0;
}

/* set_clock - "[local] global counter" -> "local"; a plain name as is */
static int set_clock(struct ipt_trace *t, const uint8_t *d, uint32_t n)
{
	const char *s = (const char *)d;
	size_t len = strnlen(s, n);
	const char *lb = memchr(s, '[', len), *rb;

	if (lb && (rb = memchr(lb, ']', len - (size_t)(lb - s))))
		return set_str(&t->clock, (const uint8_t *)lb + 1, (uint32_t)(rb - lb - 1));
	return set_str(&t->clock, d, (uint32_t)len);
}

/* cpustat_cpu - the CPU number of a "CPU: N\n..." stats text, -1 if none */
static int cpustat_cpu(const uint8_t *d, uint32_t n)
{
	int cpu = 0;
	uint32_t i = 0;

	if (n < 6 || memcmp(d, "CPU:", 4))
		return -1;
	i = 4;
	while (i < n && d[i] == ' ')
		i++;
	if (i >= n || d[i] < '0' || d[i] > '9')
		return -1;
	while (i < n && d[i] >= '0' && d[i] <= '9' && cpu < IPT_CPUSET_MAX)
		cpu = cpu * 10 + (d[i++] - '0');
	return cpu < IPT_CPUSET_MAX ? cpu : -1;
}

static int add_cpustat(struct ipt_trace *t, const uint8_t *d, uint32_t n, int fallback)
{
	int cpu = cpustat_cpu(d, n);

	if (cpu < 0)
		cpu = fallback;
	if (cpu < 0 || cpu >= IPT_CPUSET_MAX)
		return 0;
	if (cpu >= t->ncpustat) {
		if (IPT_GROW_ZERO(t->cpustat, t->capcpustat, (size_t)cpu + 1))
			return -1;
		t->ncpustat = cpu + 1;
	}
	return set_str(&t->cpustat[cpu], d, n);
}

/* a v7 BUFFER option: where the flyrecord data of one instance is */
struct buffer_opt {
	uint64_t section;
	const char *name;
	const char *clock;
	uint32_t page_size;
	uint32_t ncpus;
	const uint8_t *cpus;	/* ncpus x (u32 id, u64 offset, u64 size) */
	long long at;
};

#define MAX_BUFFERS 256

/* the sections the v7 options point to */
struct v7_refs {
	uint64_t header_info, ftrace, events, kallsyms, printk, cmdlines;
	struct buffer_opt buf[MAX_BUFFERS];	/* v6: only section (the offset) and name */
	int nbuf;
	bool traceclock;	/* a TRACECLOCK option was seen (v6: the clock follows the CPU table) */
};

/*
 * read_options - one options list: (u16 id, u32 size, data)... until DONE.
 * v7: DONE carries the offset of the next options section (*next).
 */
static int read_options(struct ipt_trace *t, struct rd *r, struct v7_refs *refs, uint64_t *next)
{
	int ncpustat = 0;

	*next = 0;
	for (;;) {
		uint16_t id;
		uint32_t size;
		const uint8_t *d = NULL;
		long long at = r->base + (long long)r->pos;
		struct rd o;

		r->what = "option";
		if (rd_u16(r, &id))
			return -1;
		if (id == 0 && t->version < 7)
			return 0;
		if (rd_u32(r, &size) || rd_bytes(r, size, &d))
			return -1;
		o = (struct rd){ d, size, 0, at + 6, r->be, r->path, "option", false };
		switch (id) {
		case 0:		/* DONE */
			if (size >= 8 && rd_u64(&o, next))
				return -1;
			return 0;
		case 2:		/* CPUSTAT */
			if (add_cpustat(t, d, size, ncpustat++))
				return -1;
			break;
		case 3:		/* BUFFER: one per buffer, the top one ("") first in v7 */
			if (refs->nbuf >= MAX_BUFFERS)
				return ipt_err_at(t->path, at, "more than %d buffers", MAX_BUFFERS);
			{
				struct buffer_opt *b = &refs->buf[refs->nbuf];

				o.what = "BUFFER option";
				memset(b, 0, sizeof(*b));
				b->at = at;
				if (rd_u64(&o, &b->section) || rd_cstr(&o, &b->name))
					return -1;
				if (t->version >= 7) {
					if (rd_cstr(&o, &b->clock) || rd_u32(&o, &b->page_size) ||
					    rd_u32(&o, &b->ncpus))
						return -1;
					if ((uint64_t)b->ncpus * 20 > o.n - o.pos)
						return ipt_err_at(t->path, at, "BUFFER option lists %u CPUs in %u bytes",
								  b->ncpus, size);
					b->cpus = o.p + o.pos;
				}
				refs->nbuf++;
			}
			break;
		case 4:		/* TRACECLOCK */
			refs->traceclock = true;
			if (!*t->clock && set_clock(t, d, size))
				return -1;
			break;
		case 5:		/* UNAME */
			if (set_str(&t->uname, d, size))
				return -1;
			break;
		case 14:	/* TSC2NSEC: u32 mult, u32 shift, u64 offset */
			if (size >= 16) {
				uint32_t mult = (uint32_t)ipt_get_uint(d, 4, t->big_endian);
				uint32_t shift = (uint32_t)ipt_get_uint(d + 4, 4, t->big_endian);

				if (mult && shift <= 32) {
					t->tsc_mult = mult;
					t->tsc_shift = shift;
				}
			}
			break;
		case 8:		/* CPUCOUNT */
			if (size >= 4) {
				uint32_t c = (uint32_t)ipt_get_uint(d, 4, t->big_endian);

				t->cpucount = c <= IPT_CPUSET_MAX ? (int)c : 0;
			}
			break;
		case 9:		/* VERSION */
			if (set_str(&t->tc_version, d, size))
				return -1;
			break;
		case 16: case 17: case 18: case 19: case 20: case 21: {
			uint64_t off;

			o.what = "section reference option";
			if (rd_u64(&o, &off))
				return -1;
			if (id == 16) refs->header_info = off;
			if (id == 17) refs->ftrace = off;
			if (id == 18) refs->events = off;
			if (id == 19) refs->kallsyms = off;
			if (id == 20) refs->printk = off;
			if (id == 21) refs->cmdlines = off;
			break;
		}
		case IPT_OPTION_CPU_ISOLATION:
			if (set_str(&t->isolated_text, d, size))
				return -1;
			break;
		case IPT_OPTION_PROVENANCE:
			if (set_str(&t->provenance_text, d, size))
				return -1;
			break;
		case IPT_OPTION_INTERRUPTS:
			if (set_str(&t->interrupts_text, d, size))
				return -1;
			break;
		case IPT_OPTION_USER_SYMBOLS:
			if (ipt_usyms_parse(t, d, size, at + 6))
				return -1;
			break;
		case IPT_OPTION_PROBES:
			if (set_str(&t->probes_text, d, size))
				return -1;
			break;
		default:
			break;	/* unknown options are skipped, as trace-cmd does */
		}
	}
}

/* ---- v6 ---- */

/* v6_cpu_table - ncpus x (u64 offset, u64 size) of one buffer's data */
static int v6_cpu_table(struct ipt_trace *t, struct rd *r, int buffer, uint32_t ncpus)
{
	r->what = "flyrecord CPU table";
	for (uint32_t cpu = 0; cpu < ncpus; cpu++) {
		uint64_t off, size;
		struct ipt_cpu_stream *s;

		if (rd_u64(r, &off) || rd_u64(r, &size))
			return -1;
		if (off > t->map_size || size > t->map_size - off)
			return ipt_err_at(t->path, r->base + (long long)r->pos - 16,
					  "CPU %u data (offset %llu, %llu bytes) lies past the end of the file",
					  cpu, (unsigned long long)off, (unsigned long long)size);
		s = ipt_trace_add_buffer_stream(t, buffer, (int)cpu);
		if (!s)
			return -1;
		s->data = t->map + off;
		s->size = size;
		s->file_offset = off;
	}
	return 0;
}

/*
 * load_v6_buffers - the instance buffers of a v6 file: each BUFFER option
 * gives the offset of its own "options"/"flyrecord" part, laid out as the
 * top buffer's after the CPU count
 */
static int load_v6_buffers(struct ipt_trace *t, const struct rd *top, const struct v7_refs *refs,
			   uint32_t ncpus)
{
	for (int i = 0; i < refs->nbuf; i++) {
		const struct buffer_opt *b = &refs->buf[i];
		struct v7_refs *inner;	/* options of a buffer: read, not used */
		struct rd r = *top;
		uint64_t next;
		int idx;

		if (!*b->name)
			continue;
		if (b->section >= t->map_size)
			return ipt_err_at(t->path, b->at, "buffer %s: offset %llu lies past the end of the file",
					  b->name, (unsigned long long)b->section);
		r.p = t->map + b->section;
		r.n = t->map_size - b->section;
		r.pos = 0;
		r.base = (long long)b->section;
		if ((idx = ipt_trace_add_buffer(t, b->name, strlen(b->name))) < 0)
			return -1;
		for (;;) {
			r.what = "buffer data kind";
			if (r.n - r.pos < 10)
				return rd_fail(&r, "10 bytes");
			if (!memcmp(r.p + r.pos, "options  \0", 10)) {
				int ret;

				r.pos += 10;
				if (!(inner = ipt_calloc(1, sizeof(*inner))))
					return -1;
				ret = read_options(t, &r, inner, &next);
				free(inner);
				if (ret)
					return -1;
				continue;
			}
			if (memcmp(r.p + r.pos, "flyrecord\0", 10))
				return ipt_err_at(t->path, r.base + (long long)r.pos,
						  "buffer %s: expected \"flyrecord\"", b->name);
			r.pos += 10;
			break;
		}
		if (v6_cpu_table(t, &r, idx, ncpus))
			return -1;
	}
	return 0;
}

static int load_v6(struct ipt_trace *t, struct rd *r)
{
	struct v7_refs refs = { 0 };
	uint32_t ncpus;
	uint64_t next;

	r->what = "header info";
	if (read_header_info(t, r) || read_ftrace_formats(t, r) || read_event_formats(t, r) ||
	    read_kallsyms(t, r, NULL, 0, 0, 0) || read_printk(t, r) || read_cmdlines(t, r))
		return -1;
	r->what = "CPU count";
	if (rd_u32(r, &ncpus))
		return -1;
	if (ncpus > IPT_CPUSET_MAX)
		return ipt_err_at(t->path, r->base + (long long)r->pos - 4, "CPU count %u too large", ncpus);
	for (;;) {
		long long at = r->base + (long long)r->pos;

		r->what = "data kind";
		if (r->n - r->pos < 10)
			return rd_fail(r, "10 bytes");
		if (!memcmp(r->p + r->pos, "options  \0", 10)) {
			r->pos += 10;
			if (read_options(t, r, &refs, &next))
				return -1;
			continue;
		}
		if (!memcmp(r->p + r->pos, "latency  \0", 10))
			return ipt_err_at(t->path, at, "latency (text) trace.dat files are not supported");
		if (memcmp(r->p + r->pos, "flyrecord\0", 10))
			return ipt_err_at(t->path, at, "expected \"flyrecord\" or \"options\"");
		r->pos += 10;
		break;
	}
	if (v6_cpu_table(t, r, 0, ncpus))
		return -1;
	/*
	 * With a TRACECLOCK option, v6 files keep the trace_clock text after
	 * the CPU table (u64 size, then the text); trace-cmd before 3.0
	 * stored it only there, its option empty.  As trace-cmd does, a copy
	 * that cannot be read means the local clock.
	 */
	if (refs.traceclock) {
		uint64_t len;
		const uint8_t *text = NULL;

		r->what = "trace_clock after the CPU table";
		if (!rd_u64(r, &len) && len <= 4096 && !rd_bytes(r, len, &text)) {
			char *before = t->clock;

			t->clock = NULL;
			if (set_clock(t, text, (uint32_t)len)) {
				t->clock = before;
				return -1;
			}
			if (*t->clock)
				free(before);
			else {
				free(t->clock);
				t->clock = before;
			}
		} else if (!*t->clock) {
			free(t->clock);
			if (!(t->clock = ipt_strdup("local")))
				return -1;
		}
	}
	return refs.nbuf ? load_v6_buffers(t, r, &refs, ncpus) : 0;
}

/* ---- v7 ---- */

/*
 * prefault - the pages of a large buffer about to be written, in one call
 * rather than one fault each (a 5 MB kallsyms section: 1300 faults, a
 * quarter of a short report's time).  Only a hint: ignored where the
 * kernel has no MADV_POPULATE_WRITE.
 */
static void prefault(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)p + n) & ~(uintptr_t)4095;

	if (n >= (1u << 20) && e > a)
		(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}

/* section_head - the section header at off: its flags, its content (as stored) */
static int section_head(struct ipt_trace *t, uint64_t off, uint16_t want, const char *what,
			struct rd *out, uint16_t *flags)
{
	struct rd r;
	uint16_t id;
	uint32_t strid;
	uint64_t size;
	const uint8_t *d = NULL;

	if (at_file(t, &r, off, what))
		return -1;
	r.what = what;
	if (rd_u16(&r, &id) || rd_u16(&r, flags) || rd_u32(&r, &strid) || rd_u64(&r, &size))
		return -1;
	if (id != want)
		return ipt_err_at(t->path, (long long)off, "%s: section id %u, expected %u", what, id, want);
	if (rd_bytes(&r, size, &d))
		return -1;
	*out = (struct rd){ d, (size_t)size, 0, (long long)(off + 16), t->big_endian, t->path, what, false };
	return 0;
}

/* a decompressed section's buffer (ipt_malloc_soon), freed by owned_free */
struct owned {
	uint8_t *p;
	size_t n;
};

static void owned_free(struct owned *o)
{
	ipt_free_soon(o->p, o->n);
	o->p = NULL;
}

/*
 * section_at - read the section header at off and give its content,
 * decompressed into *owned when the section is compressed.
 */
static int section_at(struct ipt_trace *t, uint64_t off, uint16_t want, const char *what,
		      struct rd *out, struct owned *owned)
{
	uint16_t flags;

	owned->p = NULL;
	owned->n = 0;
	if (section_head(t, off, want, what, out, &flags))
		return -1;
	if (flags & 1) {
		uint32_t csize, usize;
		const uint8_t *c = NULL;

		if (rd_u32(out, &csize) || rd_u32(out, &usize) || rd_bytes(out, csize, &c))
			return -1;
		/* a section cannot be more than this much larger than its bytes */
		if ((uint64_t)usize > (uint64_t)csize * 4096 + (1 << 20))
			return ipt_err_at(t->path, (long long)off, "%s: implausible size %u from %u compressed bytes",
					  what, usize, csize);
		owned->n = usize ? usize : 1;
		owned->p = ipt_malloc_soon(owned->n);
		if (!owned->p)
			return -1;
		prefault(owned->p, usize);
		if (ipt_decompress(t->compression, c, csize, owned->p, usize, t->path, (long long)off + 24)) {
			owned_free(owned);
			return -1;
		}
		*out = (struct rd){ owned->p, usize, 0, (long long)off + 24, t->big_endian, t->path, what, true };
		/* offsets inside decompressed data are not file offsets */
		out->base = (long long)off;
	}
	return 0;
}

/*
 * fill_kallsyms - a compressed kallsyms section deferred (found again by
 * its ref), read at the first lookup that needs the whole table and has no
 * index to read (ipt_symtab_defer_fill): at the offset kept for a rewrite
 */
static int fill_kallsyms(void *arg, struct ipt_symtab *st)
{
	struct ipt_trace *t = arg;
	struct rd r;
	struct owned owned;
	const uint8_t *d = NULL;
	uint32_t n;
	int ret = -1;

	if (section_at(t, (uint64_t)t->kallsyms_zoff, 19, "kallsyms", &r, &owned))
		return -1;
	r.what = "kallsyms";
	if (!rd_u32(&r, &n) && !rd_bytes(&r, n, &d))
		ret = ipt_symtab_take_kallsyms(st, (char *)(uintptr_t)d, text_len(d, n));
	owned_free(&owned);
	return ret;
}

/* read_kallsyms_at - the kallsyms section at off (none: 0) */
static int read_kallsyms_at(struct ipt_trace *t, uint64_t off)
{
	struct rd r, c;
	uint16_t flags;
	uint32_t csize = 0, usize = 0;
	const uint8_t *z = NULL;
	struct owned owned;
	struct ipt_symcache_key key;
	struct ipt_symcache_ref ref;
	const struct ipt_symcache_ref *rp = NULL;
	bool cache, known = false;
	int ret;

	if (!off)
		return 0;
	if (section_head(t, off, 19, "kallsyms", &c, &flags))
		return -1;
	if ((flags & 1) && (rd_u32(&c, &csize) || rd_u32(&c, &usize) || rd_bytes(&c, csize, &z)))
		return -1;
	/* a compressed section, read into an empty table: its index may be
	 * kept (symcache.c), saving its decompression and reading */
	cache = z && t->symcache_dir && !t->ksyms.n && !t->ksyms.lstate && !t->kallsyms_z;
	if (cache) {
		/* where it lies in the file first: then it is not read at all */
		if (t->file_ident_ok) {
			ipt_symcache_ref_of(&ref, t->file_ident, off, csize);
			rp = &ref;
		}
		known = ipt_symcache_ref_get(t->symcache_dir, rp, &key);
		if (!known)
			ipt_symcache_key(&key, z, csize, usize);
		/* found again by where it lies (read whole before): read at the
		 * first lookup that needs it, or never */
		if ((known && !ipt_symtab_defer_fill(&t->ksyms, t->symcache_dir, &key, fill_kallsyms, t)) ||
		    ipt_symtab_load_index(&t->ksyms, t->symcache_dir, &key)) {
			ipt_symcache_keep(&t->ksyms, t->symcache_dir, rp, &key, known, false);
			ipt_symtab_keep_answers(&t->ksyms, t->symcache_dir, &key);
			t->kallsyms_z = z;
			t->kallsyms_zlen = csize;
			t->kallsyms_ulen = usize;
			t->kallsyms_zoff = (long long)off;
			return 0;
		}
	}
	if (section_at(t, off, 19, "kallsyms", &r, &owned))
		return -1;
	ret = read_kallsyms(t, &r, z, csize, usize, (long long)off);
	owned_free(&owned);
	if (!ret && cache) {
		ipt_symcache_keep(&t->ksyms, t->symcache_dir, rp, &key, known, true);
		ipt_symtab_keep_answers(&t->ksyms, t->symcache_dir, &key);
	}
	return ret;
}

typedef int (*section_fn)(struct ipt_trace *t, struct rd *r);

/* FORMATS_*: the formats sections kept with the trace (formats_sections) */
enum { FORMATS_FTRACE, FORMATS_EVENTS, FORMATS_NONE = -1 };

/*
 * read_section - the section at off read by fn.  keep: a formats section,
 * whose texts raw_formats point into: kept, where it was decompressed.
 */
static int read_section(struct ipt_trace *t, uint64_t off, uint16_t id, const char *what,
			section_fn fn, bool required, int keep)
{
	struct rd r;
	struct owned owned;
	int ret;

	if (!off) {
		if (required)
			return ipt_err_at(t->path, -1, "no %s section", what);
		return 0;
	}
	if (section_at(t, off, id, what, &r, &owned))
		return -1;
	ret = fn(t, &r);
	if (keep != FORMATS_NONE && owned.p) {
		if (t->formats_sections[keep]) {	/* load_v7 reads each kind once */
			owned_free(&owned);
			return ipt_err_at(t->path, (long long)off, "%s read twice", what);
		}
		t->formats_sections[keep] = owned.p;
		t->formats_sections_len[keep] = owned.n;
		return ret;
	}
	owned_free(&owned);
	return ret;
}

/*
 * cpu_chunks - check the compressed chunks of one CPU's data; add up their
 * sizes.  Read through a window (core/filewin.c), not the mapping, which
 * would keep file pages resident.
 */
static int cpu_chunks(struct ipt_trace *t, struct ipt_cpu_stream *s, uint64_t off)
{
	struct ipt_file_window w = { 0 };
	const uint8_t *p;
	uint64_t at = off + 4;
	uint32_t count;
	int ret = -1;

	if (!(p = ipt_file_window_get(t, &w, off, 4, "compressed CPU data")))
		goto out;
	count = (uint32_t)ipt_get_uint(p, 4, t->big_endian);
	/* the stored size leaves out the chunk count: bound by the file instead */
	if ((uint64_t)count * 8 > t->map_size - at) {
		ipt_err_at(t->path, (long long)off, "CPU %d: %u chunks cannot fit in %llu bytes",
			   s->cpu, count, (unsigned long long)(t->map_size - at));
		goto out;
	}
	s->chunked = true;
	s->chunk_off = at;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t cs, us;

		if (!(p = ipt_file_window_get(t, &w, at, 8, "compressed CPU data")))
			goto out;
		cs = (uint32_t)ipt_get_uint(p, 4, t->big_endian);
		us = (uint32_t)ipt_get_uint(p + 4, 4, t->big_endian);
		if (cs > t->map_size - at - 8) {
			ipt_err_at(t->path, (long long)at, "CPU %d chunk %u claims %u bytes, only %llu left",
				   s->cpu, i, cs, (unsigned long long)(t->map_size - at - 8));
			goto out;
		}
		if (us % t->layout.page_size) {
			ipt_err_at(t->path, (long long)at, "CPU %d chunk %u: %u bytes is not whole pages",
				   s->cpu, i, us);
			goto out;
		}
		if ((uint64_t)us > (uint64_t)cs * 4096 + (1 << 20)) {
			ipt_err_at(t->path, (long long)at, "CPU %d chunk %u: implausible size %u from %u bytes",
				   s->cpu, i, us, cs);
			goto out;
		}
		s->size += us;
		at += 8 + (uint64_t)cs;
	}
	s->nchunks = count;
	ret = 0;
out:
	ipt_file_window_release(&w);
	return ret;
}

static int load_buffer(struct ipt_trace *t, const struct buffer_opt *b, bool first)
{
	bool compressed;
	const uint8_t *hdr;
	int idx = ipt_trace_add_buffer(t, b->name, strlen(b->name));

	if (idx < 0)
		return -1;

	/* the section header says whether the data is compressed */
	if (b->section > t->map_size || t->map_size - b->section < 16)
		return ipt_err_at(t->path, (long long)b->section, "flyrecord section lies past the end of the file");
	hdr = t->map + b->section;
	if (ipt_get_uint(hdr, 2, t->big_endian) != 3)
		return ipt_err_at(t->path, (long long)b->section, "expected a flyrecord section (id 3)");
	compressed = ipt_get_uint(hdr + 2, 2, t->big_endian) & 1;
	/* the top buffer's clock; an instance's only where the top one says none */
	if (*b->clock && (!*b->name || !*t->clock) &&
	    set_clock(t, (const uint8_t *)b->clock, (uint32_t)strlen(b->clock)))
		return -1;
	if (b->page_size) {
		if (b->page_size < 64 || b->page_size > (1u << 24) || (b->page_size & 3))
			return ipt_err_at(t->path, b->at, "bad buffer page size %u", b->page_size);
		if (!first && b->page_size != t->layout.page_size)
			return ipt_err_at(t->path, b->at, "buffer %s has %u-byte pages, another %u: buffers of different page sizes are not supported",
					  b->name, b->page_size, t->layout.page_size);
		t->layout.page_size = b->page_size;
	}
	for (uint32_t i = 0; i < b->ncpus; i++) {
		const uint8_t *e = b->cpus + (size_t)i * 20;
		uint32_t cpu = (uint32_t)ipt_get_uint(e, 4, t->big_endian);
		uint64_t off = ipt_get_uint(e + 4, 8, t->big_endian);
		uint64_t size = ipt_get_uint(e + 12, 8, t->big_endian);
		struct ipt_cpu_stream *s;

		if (off > t->map_size || size > t->map_size - off)
			return ipt_err_at(t->path, b->at, "CPU %u data (offset %llu, %llu bytes) lies past the end of the file",
					  cpu, (unsigned long long)off, (unsigned long long)size);
		s = ipt_trace_add_buffer_stream(t, idx, (int)cpu);
		if (!s)
			return -1;
		s->file_offset = off;
		if (compressed && size) {
			if (cpu_chunks(t, s, off))
				return -1;
		} else {
			s->data = t->map + off;
			s->size = size;
		}
	}
	return 0;
}

static int load_v7(struct ipt_trace *t, struct rd *r)
{
	struct v7_refs refs = { 0 };
	const char *algo, *ver;
	uint64_t opt;
	int guard = 0;

	r->what = "compression header";
	if (rd_cstr(r, &algo) || rd_cstr(r, &ver))
		return -1;
	free(t->compression);
	t->compression = ipt_strdup(algo);
	if (!t->compression)
		return -1;
	if (!ipt_compression_supported(algo))
		return ipt_err_at(t->path, r->base + (long long)r->pos, "unsupported compression '%s'", algo);
	r->what = "first options offset";
	if (rd_u64(r, &opt))
		return -1;
	while (opt) {
		struct rd o;
		struct owned owned;
		uint64_t next;
		int ret;

		if (++guard > 1024)
			return ipt_err_at(t->path, (long long)opt, "options sections form a loop");
		if (section_at(t, opt, 0, "options section", &o, &owned))
			return -1;
		ret = read_options(t, &o, &refs, &next);
		owned_free(&owned);
		if (ret)
			return -1;
		opt = next;
	}
	if (read_section(t, refs.header_info, 16, "header info", read_header_info, true, FORMATS_NONE) ||
	    read_section(t, refs.ftrace, 17, "ftrace formats", read_ftrace_formats, false,
			 FORMATS_FTRACE) ||
	    read_section(t, refs.events, 18, "event formats", read_event_formats, false,
			 FORMATS_EVENTS) ||
	    read_kallsyms_at(t, refs.kallsyms) ||
	    read_section(t, refs.printk, 20, "printk formats", read_printk, false, FORMATS_NONE) ||
	    read_section(t, refs.cmdlines, 21, "saved cmdlines", read_cmdlines, false, FORMATS_NONE))
		return -1;
	for (int i = 0; i < refs.nbuf; i++)
		if (load_buffer(t, &refs.buf[i], i == 0))
			return -1;
	return 0;
}

/* ipt_tracedat_load - parse a mapped trace.dat */
int ipt_tracedat_load(struct ipt_trace *t)
{
	struct rd r = { t->map, t->map_size, 10, 0, false, t->path, "version", false };
	const char *ver;
	uint8_t endian, lsize;
	uint32_t psize;

	if (rd_cstr(&r, &ver))
		return -1;
	if (!strcmp(ver, "6"))
		t->version = 6;
	else if (!strcmp(ver, "7"))
		t->version = 7;
	else
		return ipt_err_at(t->path, 10, "unsupported trace.dat version '%.8s'", ver);
	r.what = "file header";
	if (r.n - r.pos < 6)
		return rd_fail(&r, "6 bytes");
	endian = r.p[r.pos];
	lsize = r.p[r.pos + 1];
	r.pos += 2;
	if (endian > 1)
		return ipt_err_at(t->path, (long long)r.pos - 2, "bad endianness flag %u", endian);
	if (lsize != 4 && lsize != 8)
		return ipt_err_at(t->path, (long long)r.pos - 1, "bad long size %u", lsize);
	t->big_endian = endian == 1;
	t->long_size = lsize;
	r.be = t->big_endian;
	if (rd_u32(&r, &psize))
		return -1;
	if (psize < 64 || psize > (1u << 24) || (psize & 3))
		return ipt_err_at(t->path, (long long)r.pos - 4, "bad page size %u", psize);
	t->page_size = psize;
	ipt_page_layout_default(&t->layout, psize, 8);
	if ((t->version == 6 ? load_v6(t, &r) : load_v7(t, &r)))
		return -1;
	return ipt_trace_finish_events(t) || ipt_trace_apply_probes(t) ? -1 : 0;
}
