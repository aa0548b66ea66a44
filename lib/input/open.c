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
#include <unistd.h>

static const uint8_t tracedat_magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

/* ipt_trace_open - open a trace.dat or a text trace */
struct ipt_trace *ipt_trace_open(const char *path)
{
	struct ipt_trace *t;
	struct stat st;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ipt_err_at(path, -1, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st)) {
		ipt_err_at(path, -1, "%s", strerror(errno));
		close(fd);
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		ipt_err_at(path, -1, "is a directory, not a trace file");
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		ipt_err_at(path, -1, "not a regular file");
		close(fd);
		return NULL;
	}
	if (st.st_size == 0) {
		ipt_err_at(path, 0, "empty file");
		close(fd);
		return NULL;
	}
	t = ipt_trace_alloc(path);
	if (!t) {
		close(fd);
		return NULL;
	}
	t->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (t->map == MAP_FAILED) {
		t->map = NULL;
		ipt_err_at(path, -1, "cannot map: %s", strerror(errno));
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
		r = ipt_tracedat_load(t);
	} else if (ipt_text_probe(t->map, t->map_size)) {
		r = ipt_text_load(t);
	} else {
		if (t->map_size > 9 && !memcmp(t->map, "# tracer:", 9) &&
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

