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
};

int outfile_open(struct outfile *o, const char *path);
/* flush, fsync, rename; on any error the temporary file is removed */
int outfile_commit(struct outfile *o);
void outfile_abort(struct outfile *o);
/* write n bytes; -1 on error (errno set) */
int outfile_write(struct outfile *o, const void *buf, size_t n);

#endif
