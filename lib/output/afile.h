/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* afile.h - files that appear only when complete: what only lib/ uses */
#ifndef IPT_OUTPUT_AFILE_H
#define IPT_OUTPUT_AFILE_H

#include "ipitrace-private.h"

/*
 * fsync the data and give it the name `name` (NULL: a->path), replacing
 * what has that name if replace; else 1 is returned when the name is taken
 * (a Parquet dataset then tries the next part number).  0 on success, -1
 * on error (ipt_errmsg() names the file).
 */
int ipt_afile_publish(struct ipt_afile *a, const char *name, bool replace);

#endif
