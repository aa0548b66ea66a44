// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * afile.c - output files that appear under their name only when complete
 * (declared in ipitrace.h)
 *
 * The data goes to an unnamed file in the target directory (O_TMPFILE), so
 * that a process killed at any moment, SIGKILL included, leaves nothing
 * behind; it gets its name when complete (fsync, link, rename over the old
 * file).  Where O_TMPFILE is not offered, a hidden ".NAME.tmpXXXXXX" file
 * is used instead (left behind only by a SIGKILL).
 */
#include "core/core.h"
#include "output/afile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* dir_of - the directory part of path ("." for a bare name) */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return ipt_strdup(".");
	if (slash == path)
		return ipt_strdup("/");
	return ipt_strndup(path, (size_t)(slash - path));
}

/* hidden_name - "DIR/.BASE.SUFFIX" for a file beside path */
static char *hidden_name(const char *path, const char *suffix)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dirlen = slash ? (int)(slash - path) + 1 : 0;
	char *s;

	if (asprintf(&s, "%.*s.%s.%s", dirlen, path, base, suffix) < 0)
		return NULL;
	return s;
}

int ipt_afile_open(struct ipt_afile *a, const char *path, unsigned int mode)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	mode_t mask;

	memset(a, 0, sizeof(*a));
	a->fd = -1;
	if (!*(slash ? slash + 1 : path))
		return ipt_err("%s: not a file name", path);
	a->path = ipt_strdup(path);
	dir = dir_of(path);
	if (!a->path || !dir) {
		free(dir);
		ipt_afile_discard(a);
		return ipt_err("out of memory");
	}
	errno = EOPNOTSUPP;
#ifdef O_TMPFILE
	a->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
#endif
	if (a->fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
		int e = errno;

		ipt_afile_discard(a);
		free(dir);
		return ipt_err("%s: cannot create: %s", path, strerror(e));
	}
	free(dir);
	if (a->fd >= 0)
		return 0;
	/* no O_TMPFILE on this file system: a hidden named file */
	a->tmp = hidden_name(path, "tmpXXXXXX");
	if (!a->tmp) {
		ipt_afile_discard(a);
		return ipt_err("out of memory");
	}
	a->fd = mkostemp(a->tmp, O_CLOEXEC);
	if (a->fd < 0) {
		int e = errno;

		free(a->tmp);
		a->tmp = NULL;
		ipt_afile_discard(a);
		return ipt_err("%s: cannot create: %s", path, strerror(e));
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(a->fd, mode & ~mask) < 0) {
		int e = errno;

		close(a->fd);
		ipt_afile_discard(a);
		return ipt_err("%s: chmod: %s", path, strerror(e));
	}
	return 0;
}

/* link_fd - a name for the unnamed file; -1 with errno */
static int link_fd(int fd, const char *name)
{
	char proc[64];
	int e;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (!linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW))
		return 0;
	if (errno == EEXIST)
		return -1;
	e = errno;
	if (!linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH))	/* needs CAP_DAC_READ_SEARCH */
		return 0;
	if (errno != EEXIST)
		errno = e;
	return -1;
}

/* sync_dir - make the new name durable (best effort) */
static void sync_dir(const char *path)
{
	char *dir = dir_of(path);
	int fd;

	if (!dir)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

/* name_unnamed - link the O_TMPFILE file as name (over it if replace) */
static int name_unnamed(struct ipt_afile *a, const char *name, bool replace)
{
	if (!replace) {
		if (!link_fd(a->fd, name))
			return 0;
		return errno == EEXIST ? 1 : ipt_err("%s: cannot create: %s", name, strerror(errno));
	}
	/* a hidden name first, then renamed over the old file in one step */
	for (unsigned int n = 0; n < 1000; n++) {
		char suffix[48], *tmp;
		int r, e;

		snprintf(suffix, sizeof(suffix), "new%ld-%u", (long)getpid(), n);
		tmp = hidden_name(name, suffix);
		if (!tmp)
			return ipt_err("out of memory");
		r = link_fd(a->fd, tmp);
		e = errno;
		if (!r && rename(tmp, name)) {
			e = errno;
			unlink(tmp);
			free(tmp);
			return ipt_err("%s: cannot rename: %s", name, strerror(e));
		}
		free(tmp);
		if (!r)
			return 0;
		if (e != EEXIST)
			return ipt_err("%s: cannot create: %s", name, strerror(e));
	}
	return ipt_err("%s: no free temporary name", name);
}

/* name_named - give the named temporary its final name */
static int name_named(struct ipt_afile *a, const char *name, bool replace)
{
	struct stat st;

	if (replace) {
		if (rename(a->tmp, name))
			return ipt_err("%s: cannot rename: %s", name, strerror(errno));
	} else if (!link(a->tmp, name)) {
		unlink(a->tmp);
	} else if (errno == EEXIST || stat(name, &st) == 0) {
		return 1;
	} else if (rename(a->tmp, name)) {	/* no hard links here */
		return ipt_err("%s: cannot rename: %s", name, strerror(errno));
	}
	free(a->tmp);
	a->tmp = NULL;
	return 0;
}

int ipt_afile_publish(struct ipt_afile *a, const char *name, bool replace)
{
	int r;

	if (!name)
		name = a->path;
	if (fsync(a->fd) && errno != EINVAL)
		return ipt_err("%s: fsync: %s", name, strerror(errno));
	r = a->tmp ? name_named(a, name, replace) : name_unnamed(a, name, replace);
	if (!r)
		sync_dir(name);
	return r;
}

int ipt_afile_place(struct ipt_afile *a, bool replace)
{
	int r = ipt_afile_publish(a, NULL, replace);

	if (r == 1)
		return ipt_err("%s: the file exists; it is not replaced", a->path);
	return r;
}

void ipt_afile_discard(struct ipt_afile *a)
{
	if (a->tmp)
		unlink(a->tmp);
	free(a->tmp);
	free(a->path);
	a->tmp = a->path = NULL;
}
