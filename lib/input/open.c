// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * open.c - opening a trace file: the kind is detected from the content
 * (trace.dat magic, else text) and the matching loader fills the model.
 */
#include "input/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const uint8_t tracedat_magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

/*
 * spool - copy a stream (pipe, FIFO, terminal, socket) into an unnamed
 * temporary file in $TMPDIR (else /tmp) and return it: a trace.dat is read
 * at random offsets, which a stream does not allow.  name is for messages.
 */
static int spool(int in, const char *name)
{
	char buf[1 << 16];
	int out = ipt_tmpfile(NULL);

	if (out < 0) {
		char why[512];

		snprintf(why, sizeof(why), "%s", ipt_errmsg());	/* not the buffer it writes */
		ipt_err_at(name, -1, "cannot hold the stream: %s", why);
		return -1;
	}
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf)), w = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ipt_err_at(name, -1, "read: %s", strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		while (w < n) {
			ssize_t m = write(out, buf + w, (size_t)(n - w));

			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0) {
				ipt_err_at(name, -1, "copying the stream to a temporary file: %s",
					   m < 0 ? strerror(errno) : "no progress");
				goto fail;
			}
			w += m;
		}
	}
	return out;
fail:
	close(out);
	return -1;
}

/* what_file - a hint for a file that is no trace, from its first bytes; NULL if none */
static const char *what_file(const uint8_t *p, size_t n)
{
	static const struct { const char *magic; size_t len; const char *hint; } kinds[] = {
		{ "PERFILE2", 8, "a perf.data file, not a trace: use `perf script` (or record with "
				 "`ipitrace record` or `trace-cmd record`)" },
		{ "PERFFILE", 8, "a perf.data file, not a trace: use `perf script` (or record with "
				 "`ipitrace record` or `trace-cmd record`)" },
		{ "\x1f\x8b", 2, "gzip-compressed: decompress it first (zcat FILE | ipitrace CMD -)" },
		{ "\xfd" "7zXZ\0", 6, "xz-compressed: decompress it first (xzcat FILE | ipitrace CMD -)" },
		{ "\x28\xb5\x2f\xfd", 4, "zstd-compressed: decompress it first (zstdcat FILE | ipitrace CMD -)" },
		{ "BZh", 3, "bzip2-compressed: decompress it first (bzcat FILE | ipitrace CMD -)" },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (n >= kinds[i].len && !memcmp(p, kinds[i].magic, kinds[i].len))
			return kinds[i].hint;
	return NULL;
}

static struct ipt_trace *open_fd(int fd, const char *path, const struct ipt_open_opts *o);

/* ipt_trace_open - open a trace.dat or a text trace */
struct ipt_trace *ipt_trace_open(const char *path)
{
	return ipt_trace_open_opts(path, -1, NULL);
}

/* ipt_trace_open_fd - open the trace that fd reads (a file or a stream) */
struct ipt_trace *ipt_trace_open_fd(int fd, const char *path)
{
	const struct ipt_open_opts none = { .sz = sizeof(none) };

	return open_fd(fd, path, &none);
}

struct ipt_trace *ipt_trace_open_opts(const char *path, int fd, const struct ipt_open_opts *opts)
{
	struct ipt_open_opts o;
	struct ipt_trace *t;

	if (ipt_opts_copy(&o, sizeof(o), opts, "ipt_trace_open_opts"))
		return NULL;
	if (fd >= 0)
		return open_fd(fd, path, &o);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ipt_err_at(path, -1, "%s", strerror(errno));
		return NULL;
	}
	t = open_fd(fd, path, &o);
	close(fd);
	return t;
}

/*
 * file_ident - the file's identity for the kallsyms index's refs
 * (core/symcache.c): none for a spooled pipe, nor for a file changed in the
 * last 2 s (a change within the same tick of the clock that stamps files
 * could leave its times as they were; 2 s later any change shows)
 */
static void file_ident(struct ipt_trace *t, const struct stat *st, bool own_file)
{
	struct timespec now;
	time_t last = st->st_mtim.tv_sec > st->st_ctim.tv_sec ? st->st_mtim.tv_sec : st->st_ctim.tv_sec;

	t->file_ident_ok = own_file && S_ISREG(st->st_mode) && clock_gettime(CLOCK_REALTIME, &now) == 0 &&
			   last <= now.tv_sec - 2;
	t->file_ident[0] = (uint64_t)st->st_dev;
	t->file_ident[1] = (uint64_t)st->st_ino;
	t->file_ident[2] = (uint64_t)st->st_size;
	t->file_ident[3] = (uint64_t)st->st_mtim.tv_sec * 1000000000u + (uint64_t)st->st_mtim.tv_nsec;
	t->file_ident[4] = (uint64_t)st->st_ctim.tv_sec * 1000000000u + (uint64_t)st->st_ctim.tv_nsec;
}

static struct ipt_trace *open_fd(int fd, const char *path, const struct ipt_open_opts *o)
{
	struct ipt_trace *t;
	struct stat st;
	int own = -1, r;

	if (fstat(fd, &st)) {
		ipt_err_at(path, -1, "%s", strerror(errno));
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		ipt_err_at(path, -1, "is a directory, not a trace file");
		return NULL;
	}
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
		/* a pipe, FIFO or socket: read it all into a file (a device such as
		 * /dev/zero may never end: refused below) */
		own = spool(fd, path);
		if (own < 0)
			return NULL;
		fd = own;
		if (fstat(fd, &st)) {
			ipt_err_at(path, -1, "%s", strerror(errno));
			close(own);
			return NULL;
		}
	} else if (!S_ISREG(st.st_mode)) {
		ipt_err_at(path, -1, "not a regular file");
		return NULL;
	}
	if (st.st_size == 0) {
		ipt_err_at(path, 0, own >= 0 ? "empty input" : "empty file");
		if (own >= 0)
			close(own);
		return NULL;
	}
	t = ipt_trace_alloc(path);
	if (!t) {
		if (own >= 0)
			close(own);
		return NULL;
	}
	file_ident(t, &st, own < 0);
	t->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (t->map == MAP_FAILED) {
		t->map = NULL;
		ipt_err_at(path, -1, "cannot map: %s", strerror(errno));
		if (own >= 0)
			close(own);
		ipt_trace_close(t);
		return NULL;
	}
	/* kept for compressed data, read with pread (core/filewin.c) */
	t->fd = own >= 0 ? own : fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (t->fd < 0) {
		ipt_err_at(path, -1, "%s", strerror(errno));
		ipt_trace_close(t);
		return NULL;
	}
	t->map_size = (size_t)st.st_size;
	madvise((void *)t->map, t->map_size, MADV_WILLNEED);
	if (t->map_size >= 3 && !memcmp(t->map, tracedat_magic, 3)) {
		if (t->map_size < sizeof(tracedat_magic) ||
		    memcmp(t->map, tracedat_magic, sizeof(tracedat_magic))) {
			ipt_err_at(path, 0, "truncated or bad trace.dat magic");
			ipt_trace_close(t);
			return NULL;
		}
		t->kind = IPT_INPUT_TRACEDAT;
		t->symcache_dir = o->symbol_cache;	/* borrowed while it loads */
		r = ipt_tracedat_load(t);
		t->symcache_dir = NULL;
	} else if (ipt_text_probe(t->map, t->map_size)) {
		r = ipt_text_load(t);
	} else {
		const char *hint = what_file(t->map, t->map_size);

		if (hint)
			ipt_err_at(path, 0, "%s", hint);
		else if (t->map_size > 9 && !memcmp(t->map, "# tracer:", 9) &&
		    memchr(t->map, 0, t->map_size < 65536 ? t->map_size : 65536))
			ipt_err_at(path, 0, "tracefs text written with the trace option bin on (binary records); write it with bin off");
		else
			ipt_err_at(path, 0, "not a trace.dat (bad magic) nor a text trace");
		r = -1;
	}
	if (r) {
		ipt_trace_close(t);
		return NULL;
	}
	return t;
}

