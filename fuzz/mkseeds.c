// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mkseeds.c - small fuzz seeds cut out of a real trace.dat
 *
 *   mkseeds IN.dat PREFIX [NRECORDS]
 *
 * A real trace.dat holds thousands of formats and megabytes of kallsyms,
 * so a truncated copy only exercises the file header.  This tool keeps the
 * first NRECORDS (default 16) records of every CPU, the formats of the
 * events they use plus every ipi and csd format, the kallsyms
 * entries around the addresses those records hold, the printk strings, the
 * cmdlines of their pids, the options, and writes
 *   PREFIX-v6.dat PREFIX-v7-none.dat PREFIX-v7-zstd.dat PREFIX-v7-zlib.dat
 * and, for fuzz_pages, the first ring-buffer page of each CPU as found in
 * the file, behind fuzz_pages' flag byte for the trace's layout (byte order,
 * commit word size, sub-buffer size 4096, 256, 1024 or 64; other sizes get
 * no page file):
 *   PREFIX-page-cpuN.bin
 * Built and run by hand (see fuzz/README.md); its outputs are committed
 * under fuzz/seeds/.
 */
#include "input/input.h"
#include "render/render.h"
#include "output/tracedat_write.h"

#include <stdio.h>
#include <stdlib.h>

struct kept {
	struct ipt_page_writer pw;
	int cpu;
};

static bool *used_ids;
static int *pids;
static size_t npids;
static uint64_t *addrs;
static size_t naddrs, capaddrs;

static void add_addr(uint64_t a)
{
	if (naddrs == capaddrs) {
		capaddrs = capaddrs ? capaddrs * 2 : 256;
		addrs = realloc(addrs, capaddrs * sizeof(*addrs));
	}
	addrs[naddrs++] = a;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void note_record(struct ipt_trace *t, const struct ipt_record *r)
{
	const struct ipt_event *ev = r->event;
	int pid = ipt_record_pid(t, r);

	if (!ev)
		return;
	used_ids[ev->id] = true;
	if (pid > 0) {
		pids = realloc(pids, (npids + 1) * sizeof(*pids));
		pids[npids++] = pid;
	}
	for (int i = 0; i < ev->nfields; i++) {
		const struct ipt_field *f = &ev->fields[i];
		uint64_t v;

		if (f->flags & IPT_FIELD_POINTER) {
			if (!ipt_field_u64(t, r, f, &v))
				add_addr(v);
		} else if ((f->flags & IPT_FIELD_ARRAY) && f->elem_size == 8) {
			for (unsigned int k = 0; k < f->nelem; k++)
				if (f->offset + 8 * (k + 1) <= r->size)
					add_addr(ipt_get_uint(r->data + f->offset + 8 * k, 8,
							      t->big_endian));
		}
	}
}

/* first_page - copy of the first page of a stream as stored (decompressed) */
static uint8_t *first_page(struct ipt_trace *t, const struct ipt_cpu_stream *s, size_t *len)
{
	size_t ps = t->layout.page_size;
	uint8_t *out;

	if (s->chunked) {
		/* the first chunk: compressed size, size, then the data (validated
		 * when the file was opened) */
		const uint8_t *h = t->map + s->chunk_off;
		uint32_t csize, usize;
		uint8_t *tmp;

		if (!s->nchunks)
			return NULL;
		csize = (uint32_t)ipt_get_uint(h, 4, t->big_endian);
		usize = (uint32_t)ipt_get_uint(h + 4, 4, t->big_endian);
		tmp = malloc(usize ? usize : 1);
		if (!tmp || ipt_decompress(t->compression, h + 8, csize, tmp, usize, t->path,
					   (long long)(s->chunk_off + 8))) {
			free(tmp);
			return NULL;
		}
		*len = usize < ps ? usize : ps;
		out = malloc(*len);
		memcpy(out, tmp, *len);
		free(tmp);
		return out;
	}
	if (!s->data)
		return NULL;
	*len = s->size < ps ? s->size : ps;
	out = malloc(*len);
	memcpy(out, s->data, *len);
	return out;
}

static int write_one(struct ipt_trace *t, struct kept *k, int nk, const char *path,
		     int version, const char *comp, struct ipt_strbuf *ksyms,
		     struct ipt_strbuf *cmdl)
{
	struct ipt_tdw_opts wo = { 0 };
	struct ipt_tdw *w;

	wo.version = version;
	wo.compression = comp;
	wo.big_endian = t->big_endian;
	wo.long_size = t->long_size;
	wo.page_size = t->layout.page_size;
	w = ipt_tdw_open(path, &wo);
	if (!w)
		return -1;
	if (ipt_tdw_set_headers(w, t->raw_header_page.buf, t->raw_header_page.len,
				t->raw_header_event.buf ? t->raw_header_event.buf : "",
				t->raw_header_event.len))
		goto fail;
	for (int i = 0; i < t->nraw_formats; i++) {
		const struct ipt_raw_format *f = &t->raw_formats[i];
		struct ipt_event *ev = &t->events[i];
		bool keep = !strcmp(f->system, "ipi") || !strcmp(f->system, "csd") ||
			    (ev->id >= 0 && ev->id <= t->max_id && used_ids[ev->id]);
		int r;

		if (!keep)
			continue;
		r = !strcmp(f->system, "ftrace") ? ipt_tdw_add_ftrace_format(w, f->text, f->len) :
			ipt_tdw_add_event_format(w, f->system, f->text, f->len);
		if (r)
			goto fail;
	}
	if ((ksyms->len && ipt_tdw_set_kallsyms(w, ksyms->buf, ksyms->len)) ||
	    (t->raw_printk.len && ipt_tdw_set_printk(w, t->raw_printk.buf, t->raw_printk.len)) ||
	    (cmdl->len && ipt_tdw_set_cmdlines(w, cmdl->buf, cmdl->len)))
		goto fail;
	if ((*t->clock && ipt_tdw_set_clock(w, t->clock)) ||
	    (*t->uname && ipt_tdw_set_uname(w, t->uname)) ||
	    ipt_tdw_set_version(w, "ipitrace mkseeds") ||
	    ipt_tdw_set_cpucount(w, ipt_trace_ncpus(t)))
		goto fail;
	for (int c = 0; c < t->ncpustat; c++)
		if (t->cpustat[c] && ipt_tdw_add_cpustat(w, c, t->cpustat[c]))
			goto fail;
	for (int i = 0; i < nk; i++)
		if (ipt_tdw_set_cpu_data(w, k[i].cpu, k[i].pw.out.buf, k[i].pw.out.len))
			goto fail;
	return ipt_tdw_commit(w);
fail:
	ipt_tdw_abort(w);
	return -1;
}

int main(int argc, char **argv)
{
	struct ipt_strbuf ksyms = IPT_STRBUF_INIT, cmdl = IPT_STRBUF_INIT;
	unsigned int nrec = argc > 3 ? (unsigned int)atoi(argv[3]) : 16;
	struct ipt_trace *t;
	struct kept *k;
	char path[4096];
	int pflag = -1;

	if (argc < 3) {
		fprintf(stderr, "usage: mkseeds IN.dat PREFIX [NRECORDS]\n");
		return 2;
	}
	t = ipt_trace_open(argv[1]);
	if (!t || t->kind != IPT_INPUT_TRACEDAT) {
		fprintf(stderr, "mkseeds: %s\n", t ? "not a trace.dat" : ipt_errmsg());
		return 1;
	}
	used_ids = calloc((size_t)t->max_id + 2, 1);
	switch (t->layout.page_size) {
	case 4096: pflag = 0; break;
	case 256: pflag = 1 << 2; break;
	case 1024: pflag = 2 << 2; break;
	case 64: pflag = 3 << 2; break;
	}
	if (pflag >= 0)
		pflag |= (t->big_endian ? 1 : 0) | (t->layout.commit_size == 4 ? 2 : 0);
	k = calloc((size_t)t->nstreams, sizeof(*k));
	for (int i = 0; i < t->nstreams; i++) {
		const struct ipt_cpu_stream *s = &t->streams[i];
		struct ipt_page_reader pr;
		struct ipt_record r;
		unsigned int n = 0;
		uint8_t *page;
		size_t plen;

		k[i].cpu = s->cpu;
		ipt_page_writer_init(&k[i].pw, &t->layout, t->big_endian);
		ipt_page_reader_init(&pr, t, s);
		while (n++ < nrec && ipt_page_reader_next(&pr, &r) > 0) {
			note_record(t, &r);
			if (ipt_page_writer_add(&k[i].pw, r.ts, r.data, r.size))
				return 1;
		}
		ipt_page_reader_release(&pr);
		ipt_page_writer_finish(&k[i].pw);
		page = first_page(t, s, &plen);
		if (page && pflag >= 0) {
			FILE *f;

			snprintf(path, sizeof(path), "%s-page-cpu%d.bin", argv[2], s->cpu);
			f = fopen(path, "wb");
			if (!f)
				return 1;
			fputc(pflag, f);
			fwrite(page, 1, plen, f);
			fclose(f);
			free(page);
		}
	}
	/* kallsyms: each symbol an address falls in, and the one after it */
	qsort(addrs, naddrs, sizeof(*addrs), cmp_u64);
	if (ipt_symtab_materialize(&t->ksyms))	/* indexed on first use otherwise */
		return 1;
	{
		size_t *keep = calloc(t->ksyms.n + 1, sizeof(*keep)), nk = 0;

		for (size_t i = 0; i < naddrs; i++) {
			const struct ipt_sym *s = ipt_symtab_lookup(&t->ksyms, addrs[i]);
			size_t idx;

			if (!s)
				continue;
			idx = (size_t)(s - t->ksyms.syms);
			for (size_t j = idx; j <= idx + 1 && j < t->ksyms.n; j++)
				if (!nk || keep[nk - 1] < j)
					keep[nk++] = j;
		}
		for (size_t i = 0; i < nk; i++)
			ipt_strbuf_addf(&ksyms, "%016llx t %s\n",
				(unsigned long long)t->ksyms.syms[keep[i]].addr,
				ipt_symtab_name(&t->ksyms, &t->ksyms.syms[keep[i]]));
		free(keep);
	}
	/* cmdlines of the pids seen */
	for (size_t i = 0; i < npids; i++) {
		const char *c = ipt_comms_get(&t->comms, pids[i]);
		bool dup = false;

		for (size_t j = 0; j < i; j++)
			dup |= pids[j] == pids[i];
		if (c && !dup)
			ipt_strbuf_addf(&cmdl, "%d %s\n", pids[i], c);
	}
	static const struct { int v; const char *comp, *suffix; } outs[] = {
		{ 6, "none", "v6" }, { 7, "none", "v7-none" },
		{ 7, "zstd", "v7-zstd" }, { 7, "zlib", "v7-zlib" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(outs); i++) {
		snprintf(path, sizeof(path), "%s-%s.dat", argv[2], outs[i].suffix);
		if (write_one(t, k, t->nstreams, path, outs[i].v, outs[i].comp, &ksyms, &cmdl)) {
			fprintf(stderr, "mkseeds: %s: %s\n", path, ipt_errmsg());
			return 1;
		}
	}
	for (int i = 0; i < t->nstreams; i++)
		ipt_page_writer_free(&k[i].pw);
	free(k);
	ipt_strbuf_free(&ksyms);
	ipt_strbuf_free(&cmdl);
	ipt_trace_close(t);
	free(used_ids);
	free(pids);
	free(addrs);
	return 0;
}
