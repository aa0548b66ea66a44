// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parquet_dataset.c - Parquet files as parts of a Hive-partitioned
 * dataset (convert --partition-by): the partition keys (host, date), the
 * directory of a trace's partition (DIR/host=H/date=D, values escaped as
 * Hive does), making it, and the finished file linked as the first free
 * part-<n>.parquet in it.
 */
#include "output/afile.h"
#include "output/parquet.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <time.h>

/* pq_mkdir_p - dir and the directories above it, as mkdir -p */
int pq_mkdir_p(const char *dir)
{
	char *p = ipt_strdup(dir), *s;
	int ret = 0;

	if (!p)
		return -1;
	for (s = p + 1; ; s++) {
		if (*s && *s != '/')
			continue;
		{
			char ch = *s;

			*s = 0;
			if (mkdir(p, 0777) && errno != EEXIST)
				ret = ipt_err("%s: cannot create directory: %s", p, strerror(errno));
			*s = ch;
		}
		if (ret || !*s)
			break;
	}
	free(p);
	return ret;
}

/* next_part - the lowest n with no part-<n>.parquet in dir yet */
static unsigned long next_part(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned long n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char *end;
		unsigned long k;

		if (strncmp(e->d_name, "part-", 5))
			continue;
		k = strtoul(e->d_name + 5, &end, 10);
		if (end != e->d_name + 5 && !strcmp(end, ".parquet") && k + 1 > n)
			n = k + 1;
	}
	closedir(d);
	return n;
}

/* pq_place_numbered - link the finished file af as dir/part-<n>.parquet, never
 * replacing another one (several converts may fill one directory) */
int pq_place_numbered(struct ipt_afile *af, const char *dir)
{
	unsigned long n = next_part(dir);

	for (int tries = 0; tries < 100000; tries++, n++) {
		char *final;
		int r;

		if (asprintf(&final, "%s/part-%lu.parquet", dir, n) < 0)
			return ipt_err("out of memory");
		r = ipt_afile_publish(af, final, false);
		free(final);
		if (r <= 0)
			return r;
	}
	return ipt_err("%s: no free part-<n>.parquet name", dir);
}

/* ipt_parquet_check_partition - partition keys: host and/or date, once each */
int ipt_parquet_check_partition(const char *by)
{
	const char *p = by;
	bool host = false, date = false;

	if (!by || !*by)
		return ipt_err_code(IPT_ERR_INVALID, "expected host, date or host,date");
	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == 4 && !strncmp(p, "host", 4) && !host)
			host = true;
		else if (n == 4 && !strncmp(p, "date", 4) && !date)
			date = true;
		else
			return ipt_err_code(IPT_ERR_INVALID,
					    "unknown or repeated key '%.*s' (keys: host, date)",
					    (int)n, p);
		p += n;
		if (*p == ',' && *++p == 0)
			return ipt_err_code(IPT_ERR_INVALID, "empty key");
	}
	return 0;
}

/* hive_escape - a partition value as Hive writes it: %XX for unsafe bytes */
static int hive_escape(struct ipt_strbuf *sb, const char *s, size_t n)
{
	static const char hx[] = "0123456789ABCDEF";

	if (!n)
		return ipt_strbuf_adds(sb, "__HIVE_DEFAULT_PARTITION__");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || (c == '.' && i)) {
			if (ipt_strbuf_addc(sb, (char)c))
				return -1;
		} else if (ipt_strbuf_addc(sb, '%') || ipt_strbuf_addc(sb, hx[c >> 4]) || ipt_strbuf_addc(sb, hx[c & 15])) {
			return -1;
		}
	}
	return 0;
}

char *pq_partition_dir(struct ipt_trace *t, const char *base, const char *by)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	size_t blen = strlen(base);
	const char *p = by;

	if (ipt_parquet_check_partition(by)) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", ipt_errmsg());
		ipt_err_code(IPT_ERR_INVALID, "partition keys '%s': %s", by, msg);
		return NULL;
	}
	while (blen > 1 && base[blen - 1] == '/')
		blen--;
	if (ipt_strbuf_add(&sb, base, blen))
		goto fail;
	while (*p) {
		size_t n = strcspn(p, ",");

		if (!strncmp(p, "host", 4)) {
			const char *u = ipt_trace_uname(t), *h = u;
			size_t hl;

			h += strcspn(h, " \t");		/* sysname */
			h += strspn(h, " \t");
			hl = strcspn(h, " \t\n");	/* nodename */
			if (!hl) {
				h = "unknown";
				hl = 7;
			}
			if (ipt_strbuf_adds(&sb, "/host=") || hive_escape(&sb, h, hl))
				goto fail;
		} else {
			struct stat st;
			struct tm tm;
			char d[32], start[32];

			/* the recording's own start (provenance), else the file's time */
			if (ipt_trace_provenance(t, "start_utc", start, sizeof(start)) && strlen(start) >= 10 &&
			    start[4] == '-' && start[7] == '-') {
				memcpy(d, start, 10);
				d[10] = 0;
			} else if (stat(ipt_trace_path(t), &st)) {
				ipt_err("%s: %s", ipt_trace_path(t), strerror(errno));
				goto fail;
			} else if (!gmtime_r(&st.st_mtime, &tm) || !strftime(d, sizeof(d), "%Y-%m-%d", &tm)) {
				ipt_err("%s: bad modification time", ipt_trace_path(t));
				goto fail;
			}
			if (ipt_strbuf_adds(&sb, "/date=") || hive_escape(&sb, d, strlen(d)))
				goto fail;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return sb.buf;
fail:
	ipt_strbuf_free(&sb);
	return NULL;
}
