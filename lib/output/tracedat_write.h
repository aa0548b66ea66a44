/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracedat_write.h - writing trace-cmd trace.dat files (v6 and v7)
 *
 * Used by `ipitrace record` (live capture), `ipitrace explode` and the
 * synthetic trace generator.  The writer gathers the metadata in memory,
 * takes per-CPU ring-buffer data from memory or from a file descriptor, and
 * writes the file at commit time under a temporary name in the target
 * directory (mode 0600), fsyncs it and renames it over the final name.  On
 * any error or on abort, the temporary file is removed and nothing exists
 * under the final name.  Output "-" means standard output (no rename).
 */
#ifndef IPT_TRACEDAT_WRITE_H
#define IPT_TRACEDAT_WRITE_H

#include "core/core.h"

struct ipt_tdw;

struct ipt_tdw_opts {
	int version;			/* 6 or 7 (default 7) */
	const char *compression;	/* v7: "none" (default), "zstd", "zlib" */
	bool big_endian;		/* byte order of the traced machine */
	int long_size;			/* 4 or 8 (default 8) */
	uint32_t page_size;		/* default 4096 */
	bool no_replace;		/* an existing file at path: commit fails */
};

/* Start a file; nothing is visible under path until ipt_tdw_commit(). */
struct ipt_tdw *ipt_tdw_open(const char *path, const struct ipt_tdw_opts *opts);

/* Metadata, each copied.  header_page/header_event: the tracefs files. */
int ipt_tdw_set_headers(struct ipt_tdw *w, const char *header_page, size_t hp_len,
			const char *header_event, size_t he_len);
int ipt_tdw_add_ftrace_format(struct ipt_tdw *w, const char *text, size_t len);
int ipt_tdw_add_event_format(struct ipt_tdw *w, const char *system,
			     const char *text, size_t len);
int ipt_tdw_set_kallsyms(struct ipt_tdw *w, const char *text, size_t len);
int ipt_tdw_set_printk(struct ipt_tdw *w, const char *text, size_t len);
int ipt_tdw_set_cmdlines(struct ipt_tdw *w, const char *text, size_t len);

/* Options (string ones are NUL-terminated text as trace-cmd stores them). */
int ipt_tdw_set_clock(struct ipt_tdw *w, const char *trace_clock_text);	/* "[local] global ..." or "local" */
int ipt_tdw_set_uname(struct ipt_tdw *w, const char *uname);
int ipt_tdw_set_version(struct ipt_tdw *w, const char *version);
int ipt_tdw_set_cpucount(struct ipt_tdw *w, int ncpus);
int ipt_tdw_add_cpustat(struct ipt_tdw *w, int cpu, const char *stats_text);
/* Any other string option (id from trace-cmd.dat(5)); e.g. a private one. */
int ipt_tdw_add_option(struct ipt_tdw *w, uint16_t id, const void *data, uint32_t len);

/*
 * Per-CPU data: whole ring-buffer pages (page_size each) for CPU cpu.
 * Either from memory (copied) or from an open file descriptor (read from
 * offset 0 to EOF at commit time; the caller keeps ownership of fd).
 * CPUs may be given in any order; CPUs never given get no data.
 */
int ipt_tdw_set_cpu_data(struct ipt_tdw *w, int cpu, const void *data, size_t len);
int ipt_tdw_set_cpu_fd(struct ipt_tdw *w, int cpu, int fd);
/*
 * Or appended a piece at a time, whole pages, one CPU after another (a CPU
 * cannot come back once another began): each chunk is compressed as it
 * fills and kept in a scratch file in $TMPDIR until the commit, so that
 * memory stays one chunk however large the data.
 */
int ipt_tdw_add_cpu_pages(struct ipt_tdw *w, int cpu, const void *data, size_t len);

/* Write everything, fsync, rename.  The writer is freed either way. */
int ipt_tdw_commit(struct ipt_tdw *w);
/* Drop everything; the temporary file is removed.  Accepts NULL. */
void ipt_tdw_abort(struct ipt_tdw *w);

/* (explode.c) t copied into out record for record, kallsyms replaced by
 * the given text: for tools/trim-syms. */
struct ipt_trace;
int ipt_trace_rewrite(struct ipt_trace *t, const char *out, const struct ipt_strbuf *kallsyms);

#endif
