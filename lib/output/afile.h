/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * afile.h - output files that appear under their name only when complete
 * (not installed)
 *
 * The data goes to an unnamed file in the target directory (O_TMPFILE), so
 * that a process killed at any moment, SIGKILL included, leaves nothing
 * behind; it gets its name when complete (fsync, link, rename over the old
 * file).  Where O_TMPFILE is not offered, a hidden ".NAME.tmpXXXXXX" file
 * is used instead (left behind only by a SIGKILL).
 */
#ifndef IPT_AFILE_H
#define IPT_AFILE_H

#include <stdbool.h>
#include <sys/types.h>

struct ipt_afile {
	int fd;			/* the caller writes it, and closes it (after publish) */
	char *path;		/* the final name */
	char *tmp;		/* named temporary (no O_TMPFILE), else NULL */
};

/* A new file for path, in path's directory, with mode (less the umask). */
int ipt_afile_open(struct ipt_afile *a, const char *path, mode_t mode);
/*
 * fsync the data and give it the name `name` (NULL: a->path), replacing
 * what has that name if replace; else 1 is returned when the name is taken.
 * 0 on success, -1 on error (ipt_errmsg() names the file).
 */
int ipt_afile_publish(struct ipt_afile *a, const char *name, bool replace);
/* Forget the file: a named temporary is removed; fd is left to the caller. */
void ipt_afile_discard(struct ipt_afile *a);

#endif
