// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * filewin.c - bytes of a trace file read through a small private window
 *
 * CPU data (pages stored flat, or compressed chunks) is read once, in
 * order: through the mapping, each touch would map a whole page-cache folio (up to
 * 2 MiB on recent kernels, which map large folios whole at a fault), so
 * resident memory grew with the size of the file however promptly the
 * decoded pages were dropped.  pread() into a reused buffer keeps it at the
 * buffer's size, and the kernel's read-ahead still sees a sequential reader.
 */
#include "core/core.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

/* what one read asks for at least: a few dozen chunks of trace-cmd's size */
#define WINDOW_READ (128u << 10)

void ipt_file_window_release(struct ipt_file_window *w)
{
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

/* fill - read at least n bytes of the file at off into w; -1 with a message */
static int fill(const struct ipt_trace *t, struct ipt_file_window *w, uint64_t off, size_t n)
{
	size_t want = n > WINDOW_READ ? n : WINDOW_READ, got = 0;

	if (want > t->map_size - off)
		want = t->map_size - off;	/* n fits: the caller checked */
	if (IPT_GROW(w->buf, w->cap, want))
		return -1;
	w->len = 0;
	while (got < n) {
		ssize_t r = pread(t->fd, w->buf + got, want - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return ipt_err_at(t->path, (long long)(off + got), "cannot read: %s",
					  strerror(errno));
		if (r == 0)
			return ipt_err_at(t->path, (long long)(off + got),
					  "file ends early (did it shrink while being read?)");
		got += (size_t)r;
	}
	w->off = off;
	w->len = got;
	return 0;
}

const uint8_t *ipt_file_window_get(const struct ipt_trace *t, struct ipt_file_window *w,
				   uint64_t off, size_t n, const char *what)
{
	if (off > t->map_size || n > t->map_size - off) {
		ipt_err_at(t->path, (long long)off, "%s runs past the end of the file", what);
		return NULL;
	}
	if (t->fd < 0) {
		ipt_err_at(t->path, (long long)off, "%s: the file is not open", what);
		return NULL;
	}
	if (off < w->off || off - w->off > w->len || n > w->len - (off - w->off)) {
		if (fill(t, w, off, n))
			return NULL;
	}
	return w->buf + (off - w->off);
}
