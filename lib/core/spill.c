// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * spill.c - unnamed temporary files, and arrays that grow with the trace
 * (a result per row, an entry per undecided interrupt) kept within a
 * memory bound: in memory up to IPT_SPILL_FILE_FROM bytes, then in an
 * unnamed temporary file mapped shared, whose pages the owner gives back
 * (ipt_spill_rest) without losing them: the kernel keeps them in its page
 * cache or writes them to the file, and reads them back when touched.
 */
#include "core/core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

const char *ipt_tmpdir(const char *dir)
{
	if (!dir || !*dir)
		dir = getenv("TMPDIR");
	return dir && *dir ? dir : "/tmp";
}

int ipt_tmpfile(const char *dir)
{
	char *tmpl;
	int fd;

	dir = ipt_tmpdir(dir);
#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
#endif
	if (asprintf(&tmpl, "%s/.ipitrace-XXXXXX", dir) < 0)
		return ipt_err_code(IPT_ERR_NOMEM, "out of memory");
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		free(tmpl);
		return ipt_err("%s: cannot create a temporary file: %s", dir, strerror(e));
	}
	unlink(tmpl);
	free(tmpl);
	return fd;
}

/* room - the file's blocks for [from, to) taken now: a write through the
 * mapping to a block the disk has no room for would be a SIGBUS */
static int room(struct ipt_spill *s, size_t from, size_t to)
{
	int e = posix_fallocate(s->fd, (off_t)from, (off_t)(to - from));

	if (e)
		return ipt_err("%s: no room for %zu MiB more in a temporary file in %s: %s (TMPDIR names"
			       " another directory)", s->what ? s->what : "spill", ((to - from) + (1u << 20) - 1) >> 20,
			       ipt_tmpdir(NULL), strerror(e));
	return 0;
}

/* to_file - the array (cap bytes in memory) moved to a file of ncap bytes;
 * false when no file can be made there (it stays in memory) */
static bool to_file(struct ipt_spill *s, size_t ncap)
{
	int fd = ipt_tmpfile(NULL);
	uint8_t *p;

	if (fd < 0)
		return false;	/* the message stays unread: memory instead */
	s->fd = fd;
	if (room(s, 0, ncap)) {
		close(fd);
		return false;
	}
	/* written, not copied through the mapping: not in memory twice */
	if (ipt_write_at(fd, s->p, s->cap, 0)) {
		close(fd);
		return false;
	}
	p = mmap(NULL, ncap, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return false;
	}
	/* pages one at a time: no read-ahead into large folios, which would
	 * map megabytes ahead of what is touched */
	(void)madvise(p, ncap, MADV_RANDOM);
	ipt_free_soon(s->p, s->cap);
	s->p = p;
	s->cap = ncap;
	s->in_file = true;
	return true;
}

int ipt_spill_reserve(struct ipt_spill *s, size_t need)
{
	size_t ncap = ipt_grow_room(s->cap, need, 4096, SIZE_MAX / 2);
	uint8_t *p;

	if (need <= s->cap)
		return 0;
	if (!ncap)
		return ipt_err_code(IPT_ERR_NOMEM, "out of memory (%zu bytes)", need);
	if (!s->in_file && !s->memory_only && ncap > IPT_SPILL_FILE_FROM) {
		if (to_file(s, ncap))
			return 0;
		s->memory_only = true;	/* no file here: memory, as before */
	}
	if (!s->in_file) {
		p = ipt_realloc_soon(s->p, s->cap, ncap);
		if (!p)
			return -1;
		s->p = p;
		s->cap = ncap;
		return 0;
	}
	if (room(s, s->cap, ncap))
		return -1;
	p = mremap(s->p, s->cap, ncap, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return ipt_err_code(IPT_ERR_NOMEM, "out of memory (%zu bytes mapped)", ncap);
	(void)madvise(p, ncap, MADV_RANDOM);
	s->p = p;
	s->cap = ncap;
	return 0;
}

void ipt_spill_rest(struct ipt_spill *s, size_t from, size_t to)
{
	uintptr_t a, e;

	if (!s->in_file || from >= to || to > s->cap)
		return;
	a = ((uintptr_t)s->p + from + 4095) & ~(uintptr_t)4095;
	e = ((uintptr_t)s->p + to) & ~(uintptr_t)4095;
	/* a shared file mapping: its pages stay in the file */
	if (e > a)
		(void)madvise((void *)a, e - a, MADV_DONTNEED);
}

void ipt_spill_ahead(struct ipt_spill *s, size_t from, size_t to, bool write)
{
	uintptr_t a, e;

	if (!s->in_file || from >= to)
		return;
	if (to > s->cap)
		to = s->cap;
	a = ((uintptr_t)s->p + from) & ~(uintptr_t)4095;
	e = ((uintptr_t)s->p + to + 4095) & ~(uintptr_t)4095;
#if defined(MADV_POPULATE_WRITE) && defined(MADV_POPULATE_READ)
	/* one call, not a fault a page (pages one at a time: MADV_RANDOM) */
	if (e > a)
		(void)madvise((void *)a, e - a, write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
#else
	(void)write;
#endif
}

int ipt_spill_read(const struct ipt_spill *s, size_t off, void *buf, size_t n)
{
	if (off > s->cap || n > s->cap - off)
		return ipt_err("%s: a read past its %zu bytes", s->what ? s->what : "spill", s->cap);
	if (!s->in_file) {
		memcpy(buf, s->p + off, n);
		return 0;
	}
	/* not through the mapping: the pages read do not stay in memory */
	if (ipt_read_at(s->fd, buf, n, off))
		return ipt_err("%s: reading its temporary file: %s", s->what ? s->what : "spill",
			       errno ? strerror(errno) : "end of file");
	return 0;
}

void ipt_spill_free(struct ipt_spill *s)
{
	if (s->in_file) {
		munmap(s->p, s->cap);
		close(s->fd);
	} else {
		ipt_free_soon(s->p, s->cap);
	}
	s->p = NULL;
	s->cap = 0;
	s->in_file = s->memory_only = false;
}

int ipt_read_at(int fd, void *p, size_t len, uint64_t off)
{
	uint8_t *b = p;

	while (len) {
		ssize_t r = pread(fd, b, len, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (!r)
				errno = 0;
			return -1;
		}
		b += r;
		len -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

int ipt_write_at(int fd, const void *p, size_t len, int64_t off)
{
	const uint8_t *b = p;

	while (len) {
		ssize_t r = off < 0 ? write(fd, b, len) : pwrite(fd, b, len, (off_t)off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0) {
			errno = ENOSPC;
			return -1;
		}
		b += r;
		len -= (size_t)r;
		if (off >= 0)
			off += r;
	}
	return 0;
}
