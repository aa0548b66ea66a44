// SPDX-License-Identifier: GPL-2.0-or-later
/* outfile.c - output files that appear only when complete */
#include "outfile.h"
#include "commands.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool output_taken(const char *path, bool force)
{
	struct stat st;

	if (force || !strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	err_msg("%s: the file exists; --force replaces it", path);
	return true;
}

int outfile_open(struct outfile *o, const char *path, bool replace)
{

	memset(o, 0, sizeof(*o));
	if (output_taken(path, replace))
		return -1;
	o->replace = replace;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	{
		/* a device or FIFO (/dev/null, a pipe) is written to, never replaced */
		struct stat st;

		if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
			if (S_ISDIR(st.st_mode)) {
				err_msg("%s: is a directory", path);
				return -1;
			}
			o->f = fopen(path, "w");
			if (!o->f) {
				err_msg("%s: %s", path, strerror(errno));
				return -1;
			}
			o->direct = true;
			return 0;
		}
	}
	if (ipt_afile_open(&o->af, path, 0600)) {
		err_msg("%s", ipt_errmsg());
		return -1;
	}
	o->path = o->af.path;
	o->f = fdopen(o->af.fd, "w");
	if (!o->f) {
		err_msg("%s: %s", path, strerror(errno));
		close(o->af.fd);
		ipt_afile_discard(&o->af);
		o->path = NULL;
		return -1;
	}
	setvbuf(o->f, NULL, _IOFBF, 1 << 16);
	return 0;
}

int outfile_write(struct outfile *o, const void *buf, size_t n)
{
	if (n && fwrite(buf, 1, n, o->f) != n)
		return -1;
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->direct && o->f)
		fclose(o->f);
	if (o->path) {
		if (o->f)
			fclose(o->f);
		ipt_afile_discard(&o->af);
	}
	memset(o, 0, sizeof(*o));
}

int outfile_commit(struct outfile *o)
{
	const char *name = o->path ? o->path : "standard output";
	int r;

	if (fflush(o->f) || ferror(o->f)) {
		err_msg("%s: write error: %s", name, strerror(errno ? errno : EIO));
		outfile_abort(o);
		return -1;
	}
	if (o->direct) {
		r = fclose(o->f);
		o->f = NULL;
		o->direct = false;
		if (r) {
			err_msg("%s: %s", name, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (!o->path)
		return 0;
	if (ipt_afile_place(&o->af, o->replace)) {
		err_msg("%s", ipt_errmsg());
		outfile_abort(o);
		return -1;
	}
	r = fclose(o->f);
	o->f = NULL;
	if (r)
		err_msg("%s: %s", name, strerror(errno));
	ipt_afile_discard(&o->af);
	memset(o, 0, sizeof(*o));
	return r ? -1 : 0;
}
