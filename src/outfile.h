/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outfile.h - output files that appear only when complete (an unnamed file
 * in the target directory, named at the end: ipt_afile); "-" is standard
 * output; a device or FIFO is written in place.
 */
#ifndef IPT_OUTFILE_H
#define IPT_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "ipitrace-private.h"

struct outfile {
	FILE *f;
	const char *path;	/* final name (NULL for stdout or direct) */
	struct ipt_afile af;	/* the file until it is complete */
	bool direct;		/* a device or FIFO: written in place */
	bool replace;		/* an existing file is replaced (--force) */
};

/*
 * output_taken - whether path ("-" never) is an existing regular file that
 * only --force (force) may replace: then "PATH: the file exists; --force
 * replaces it" is said and true returned.  Commands ask before their work.
 */
bool output_taken(const char *path, bool force);
/* replace: an existing file is replaced (--force); else it is an error,
 * at the open and again if one appeared by the time it is complete */
int outfile_open(struct outfile *o, const char *path, bool replace);
/* flush, fsync, rename; on any error the temporary file is removed */
int outfile_commit(struct outfile *o);
void outfile_abort(struct outfile *o);
/* write n bytes; -1 on error (errno set) */
int outfile_write(struct outfile *o, const void *buf, size_t n);

#endif
