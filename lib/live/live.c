// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * live.c - tracefs control and per-CPU ring-buffer capture
 *
 * See live.h.  Everything here works on plain tracefs files: no libtracefs,
 * no ftrace_enabled, no top-level buffer.
 */
#include "live/live.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif

#define PIPE_BYTES		(1024 * 1024)

/* ------------------------------------------------------------------ */
/* files                                                               */
/* ------------------------------------------------------------------ */

/* ipt_file_read - read a whole file (size unknown in advance) */
int ipt_file_read(const char *path, char **text, size_t *len)
{
	size_t cap = 0, n = 0;
	char *buf = NULL;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ipt_err("%s: %s", path, strerror(errno));
	for (;;) {
		ssize_t r;

		if (IPT_GROW(buf, cap, n + 4096))
			goto oom;
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ipt_err("%s: read: %s", path, strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = 0;
	close(fd);
	*text = buf;
	if (len)
		*len = n;
	return 0;
oom:
	ipt_err("%s: out of memory", path);
fail:
	free(buf);
	close(fd);
	return -1;
}

/* ipt_file_write - write text to a (tracefs) file in one write() */
int ipt_file_write(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t w;
	int fd, err;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return ipt_err("%s: %s", path, strerror(errno));
	do
		w = write(fd, text, len ? len : 1);
	while (w < 0 && errno == EINTR);
	err = errno;
	if (close(fd) && w >= 0) {
		err = errno;
		w = -1;
	}
	if (w < 0 && err == EINVAL)
		return ipt_err_code(IPT_ERR_REJECTED, "%s: the kernel rejected '%s'", path, text);
	if (w < 0)
		return ipt_err("%s: writing '%s': %s", path, text, strerror(err));
	if ((size_t)w != (len ? len : 1))
		return ipt_err("%s: short write of '%s'", path, text);
	return 0;
}

/* path_of - "dir/rel" into buf; -1 if it does not fit */
static int path_of(char *buf, size_t size, const char *dir, const char *rel)
{
	int n = snprintf(buf, size, "%s/%s", dir, rel);

	if (n < 0 || (size_t)n >= size)
		return ipt_err("%s/%s: path too long", dir, rel);
	return 0;
}

/* ------------------------------------------------------------------ */
/* tracefs and CPUs                                                    */
/* ------------------------------------------------------------------ */

/* is_tracefs - dir is a mounted tracefs */
static bool is_tracefs(const char *dir)
{
	struct statfs sf;

	return statfs(dir, &sf) == 0 && (unsigned long)sf.f_type == TRACEFS_MAGIC;
}

/* mounted_tracefs - the first tracefs mount point in /proc/mounts */
static int mounted_tracefs(char *path, size_t size)
{
	char dev[256], mnt[PATH_MAX], type[64];
	int found = -1;
	FILE *f;

	f = fopen("/proc/mounts", "re");
	if (!f)
		return -1;
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", dev, mnt, type) == 3) {
		if (strcmp(type, "tracefs") || strlen(mnt) >= size)
			continue;
		strcpy(path, mnt);
		found = 0;
		break;
	}
	fclose(f);
	return found;
}

/* ipt_tracefs_state - where tracefs is mounted, or whether it can be */
enum ipt_tracefs_state ipt_tracefs_state(char *path, size_t size)
{
	const char *alt = "/sys/kernel/debug/tracing";

	if (size <= strlen(alt))
		return IPT_TRACEFS_MISSING;
	if (is_tracefs(IPT_LIVE_TRACEFS)) {
		strcpy(path, IPT_LIVE_TRACEFS);
		return IPT_TRACEFS_MOUNTED;
	}
	if (mounted_tracefs(path, size) == 0 && is_tracefs(path))
		return IPT_TRACEFS_MOUNTED;
	if (is_tracefs(alt)) {
		strcpy(path, alt);
		return IPT_TRACEFS_MOUNTED;
	}
	strcpy(path, IPT_LIVE_TRACEFS);
	return access(IPT_LIVE_TRACEFS, F_OK) == 0 ? IPT_TRACEFS_MOUNTABLE : IPT_TRACEFS_MISSING;
}

/* ipt_tracefs_find - locate (or mount) tracefs */
int ipt_tracefs_find(char *path, size_t size, bool mount_it, bool *mounted)
{
	if (mounted)
		*mounted = false;
	if (size <= strlen("/sys/kernel/debug/tracing"))
		return ipt_err("tracefs: path buffer too small");
	if (ipt_tracefs_state(path, size) == IPT_TRACEFS_MOUNTED)
		return 0;
	if (!mount_it)
		return ipt_err("%s: tracefs is not mounted", IPT_LIVE_TRACEFS);
	if (mount("nodev", IPT_LIVE_TRACEFS, "tracefs", 0, NULL))
		return ipt_err("no tracefs: mount -t tracefs nodev %s: %s",
			       IPT_LIVE_TRACEFS, strerror(errno));
	strcpy(path, IPT_LIVE_TRACEFS);
	if (mounted)
		*mounted = true;
	return 0;
}

/* ipt_sysfs_cpulist - parse /sys/devices/system/cpu/NAME */
int ipt_sysfs_cpulist(const char *name, struct ipt_cpuset *set)
{
	char path[256], *text;
	size_t len;
	int ret;

	ipt_cpuset_clear(set);
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/%s", name);
	if (access(path, F_OK) && errno == ENOENT)
		return 0;
	if (ipt_file_read(path, &text, &len))
		return -1;
	/* Linux 6.1 prints nohz_full as "(null)" (a space first) when
	 * nohz_full= was not given: no CPU */
	{
		size_t b = 0, e = len;

		while (b < e && (text[b] == ' ' || text[b] == '\n'))
			b++;
		while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\n'))
			e--;
		if (e - b == 6 && !memcmp(text + b, "(null)", 6)) {
			free(text);
			return 0;
		}
	}
	ret = ipt_cpuset_parse_list(set, text, len);
	free(text);
	if (ret)
		return ipt_err("%s: %s", path, ipt_errmsg());
	return 0;
}

/* ipt_possible_cpus - /sys/devices/system/cpu/possible, else the configured CPUs */
int ipt_possible_cpus(struct ipt_cpuset *set)
{
	long n;

	if (!ipt_sysfs_cpulist("possible", set) && !ipt_cpuset_empty(set))
		return 0;
	ipt_cpuset_clear(set);
	n = sysconf(_SC_NPROCESSORS_CONF);
	for (long c = 0; c < (n > 0 ? n : 1) && c < IPT_CPUSET_MAX; c++)
		if (ipt_cpuset_add(set, (unsigned int)c))
			return -1;
	return 0;
}

/* ipt_live_cpu_isolation - this machine's isolated and nohz_full CPUs
 * (sysfs): the one place that reads them */
int ipt_live_cpu_isolation(struct ipt_cpuset *isolated, struct ipt_cpuset *nohz_full)
{
	return ipt_sysfs_cpulist("isolated", isolated) || ipt_sysfs_cpulist("nohz_full", nohz_full) ?
	       -1 : 0;
}

/* cmdline_param - the value of name= on the kernel command line into buf
 * ("" for a bare name); false when absent */
static bool cmdline_param(const char *cmdline, const char *name, char *buf, size_t size)
{
	size_t n = strlen(name);

	for (const char *p = cmdline; *p;) {
		size_t len = strcspn(p, " \t\n");

		if (len >= n && !strncmp(p, name, n) && (len == n || p[n] == '=')) {
			size_t v = len > n ? len - n - 1 : 0;

			if (v >= size)
				v = size - 1;
			memcpy(buf, p + n + (len > n), v);
			buf[v] = 0;
			return true;
		}
		p += len;
		p += strspn(p, " \t\n");
	}
	return false;
}

/* isolcpus_split - "domain,managed_irq,4-31" into its flags and its CPUs */
static int isolcpus_split(char *v, struct ipt_strbuf *flags, struct ipt_cpuset *cpus)
{
	char *list = v;

	while (*list && ((*list >= 'a' && *list <= 'z') || *list == '_')) {	/* a flag */
		size_t k = strcspn(list, ",");

		if ((flags->len && ipt_strbuf_addc(flags, ',')) || ipt_strbuf_add(flags, list, k))
			return -1;
		list += k;
		if (*list == ',')
			list++;
	}
	if (ipt_cpuset_parse_list(cpus, list, strlen(list)))
		ipt_cpuset_clear(cpus);	/* unreadable: no CPU said */
	return 0;
}

/*
 * ipt_live_cpu_roles_text - the private option's text for this machine:
 * isolated and nohz_full (sysfs), isolcpus and its flags, rcu_nocbs (the
 * kernel command line), online and possible (sysfs)
 */
int ipt_live_cpu_roles_text(struct ipt_strbuf *out)
{
	struct ipt_cpuset set[4];
	struct ipt_strbuf flags = IPT_STRBUF_INIT;
	char *cmdline = NULL, v[4096];
	size_t len;
	int ret = -1;

	for (int i = 0; i < 4; i++)
		ipt_cpuset_init(&set[i]);
	if (ipt_live_cpu_isolation(&set[0], &set[1]) || ipt_cpu_isolation_format(&set[0], &set[1], out))
		goto out;
	if (!ipt_file_read("/proc/cmdline", &cmdline, &len)) {
		ipt_cpuset_clear(&set[0]);
		ipt_cpuset_clear(&set[1]);
		if (cmdline_param(cmdline, "isolcpus", v, sizeof(v)) && isolcpus_split(v, &flags, &set[0]))
			goto out;
		if (cmdline_param(cmdline, "rcu_nocbs", v, sizeof(v))) {
			if (*v)
				ipt_cpuset_parse_list(&set[1], v, strlen(v));
			else if (ipt_sysfs_cpulist("possible", &set[1]))	/* bare: every CPU */
				goto out;
		}
		if (ipt_strbuf_adds(out, "isolcpus_flags=") || ipt_strbuf_add(out, flags.buf ? flags.buf : "",
										 flags.len) ||
		    ipt_strbuf_addc(out, '\n') || ipt_cpu_role_format("isolcpus", &set[0], out) ||
		    ipt_cpu_role_format("rcu_nocbs", &set[1], out))
			goto out;
	}
	if (ipt_sysfs_cpulist("online", &set[2]) || ipt_sysfs_cpulist("possible", &set[3]) ||
	    ipt_cpu_role_format("online", &set[2], out) || ipt_cpu_role_format("possible", &set[3], out))
		goto out;
	ret = 0;
out:
	free(cmdline);
	ipt_strbuf_free(&flags);
	for (int i = 0; i < 4; i++)
		ipt_cpuset_free(&set[i]);
	return ret;
}

/* ipt_isolated_cpus - the isolated and nohz_full CPUs, as one set */
int ipt_isolated_cpus(struct ipt_cpuset *set)
{
	struct ipt_cpuset nohz = IPT_CPUSET_INIT;
	int rc;

	ipt_cpuset_init(&nohz);
	rc = ipt_live_cpu_isolation(set, &nohz) || ipt_cpuset_or(set, &nohz) ? -1 : 0;
	ipt_cpuset_free(&nohz);
	return rc;
}

/* first_of - lowest CPU of a ∩ b (-1 if none) */
static int first_of(const struct ipt_cpuset *a, const struct ipt_cpuset *b)
{
	for (int c = ipt_cpuset_next(a, 0); c >= 0; c = ipt_cpuset_next(a, (unsigned int)c + 1))
		if (!b || ipt_cpuset_has(b, (unsigned int)c))
			return c;
	return -1;
}

/* ipt_housekeeping_cpus - CPUs the recorder's threads should run on */
int ipt_housekeeping_cpus(struct ipt_cpuset *hk, const struct ipt_cpuset *online,
			  const struct ipt_cpuset *allowed)
{
	struct ipt_cpuset iso = IPT_CPUSET_INIT, nohz = IPT_CPUSET_INIT;
	int ret = -1, c;

	ipt_cpuset_init(&iso);
	ipt_cpuset_init(&nohz);
	if (ipt_live_cpu_isolation(&iso, &nohz))
		goto out;
	if (ipt_cpuset_copy(hk, online))
		goto out;
	for (c = ipt_cpuset_next(online, 0); c >= 0; c = ipt_cpuset_next(online, (unsigned int)c + 1))
		if (ipt_cpuset_has(&iso, (unsigned int)c) || ipt_cpuset_has(&nohz, (unsigned int)c) ||
		    (allowed && !ipt_cpuset_has(allowed, (unsigned int)c)))
			ipt_cpuset_del(hk, (unsigned int)c);
	if (ipt_cpuset_empty(hk) || ipt_cpuset_equal(hk, online)) {
		/* nothing isolated: keep to one CPU, the others stay quiet */
		c = first_of(online, allowed);
		if (c < 0)
			c = allowed ? first_of(allowed, NULL) : 0;
		ipt_cpuset_clear(hk);
		if (c < 0 || ipt_cpuset_add(hk, (unsigned int)c)) {
			ipt_err("no CPU to run the recorder on");
			goto out;
		}
	}
	ret = 0;
out:
	ipt_cpuset_free(&iso);
	ipt_cpuset_free(&nohz);
	return ret;
}

/* ------------------------------------------------------------------ */
/* instances                                                           */
/* ------------------------------------------------------------------ */

/* ipt_stale_pid - pid of a "<prefix><pid>" name whose process is gone, else 0 */
long ipt_stale_pid(const char *name, const char *prefix)
{
	size_t plen = strlen(prefix);
	const char *p = name + plen;
	char *end;
	long pid;

	if (strncmp(name, prefix, plen) || *p < '0' || *p > '9')
		return 0;
	errno = 0;
	pid = strtol(p, &end, 10);
	if (*end || errno || pid <= 0 || pid > INT_MAX || pid == (long)getpid())
		return 0;
	if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return 0;
	return pid;
}

/* ipt_live_remove_stale - rmdir instances of recorders that no longer run */
int ipt_live_remove_stale(const char *tracefs,
			  void (*report)(const char *dir, void *arg), void *arg)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	int removed = 0;
	DIR *d;

	if (path_of(dir, sizeof(dir), tracefs, "instances"))
		return -1;
	d = opendir(dir);
	if (!d)
		return ipt_err("%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (!ipt_stale_pid(de->d_name, IPT_LIVE_PREFIX) || path_of(path, sizeof(path), dir, de->d_name))
			continue;
		if (rmdir(path))
			continue;	/* busy: someone still holds it */
		removed++;
		if (report)
			report(path, arg);
	}
	closedir(d);
	return removed;
}

/* ipt_live_create - make our own tracefs instance */
struct ipt_live *ipt_live_create(const char *tracefs, const char *name)
{
	struct ipt_live *l = ipt_calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->tracefs = ipt_strdup(tracefs);
	l->name = ipt_strdup(name);
	if (!l->tracefs || !l->name || asprintf(&l->dir, "%s/instances/%s", tracefs, name) < 0) {
		l->dir = NULL;
		ipt_err("out of memory");
		goto fail;
	}
	if (mkdir(l->dir, 0750)) {
		ipt_err("%s: cannot create the tracefs instance: %s", l->dir, strerror(errno));
		goto fail;
	}
	return l;
fail:
	free(l->tracefs);
	free(l->name);
	free(l->dir);
	free(l);
	return NULL;
}

/* ipt_live_destroy - remove the instance and free l */
int ipt_live_destroy(struct ipt_live *l)
{
	int ret = 0, tries;

	if (!l)
		return 0;
	for (tries = 0; tries < 50; tries++) {
		if (!rmdir(l->dir) || errno == ENOENT)
			break;
		if (errno != EBUSY) {
			tries = 50;
			break;
		}
		usleep(20000);	/* a file of it may still be closing */
	}
	if (tries >= 50)
		ret = ipt_err("%s: cannot remove the tracefs instance: %s", l->dir, strerror(errno));
	free(l->tracefs);
	free(l->name);
	free(l->dir);
	free(l);
	return ret;
}

/* ipt_live_write - write a file of the instance */
int ipt_live_write(struct ipt_live *l, const char *rel, const char *text)
{
	char path[PATH_MAX];

	if (path_of(path, sizeof(path), l->dir, rel))
		return -1;
	return ipt_file_write(path, text);
}

/* ipt_live_read - read a file of the instance */
int ipt_live_read(struct ipt_live *l, const char *rel, char **text, size_t *len)
{
	char path[PATH_MAX];

	if (path_of(path, sizeof(path), l->dir, rel))
		return -1;
	return ipt_file_read(path, text, len);
}

/* ipt_live_exists - a file or directory of the instance exists */
bool ipt_live_exists(struct ipt_live *l, const char *rel)
{
	char path[PATH_MAX];

	if (path_of(path, sizeof(path), l->dir, rel))
		return false;
	return access(path, F_OK) == 0;
}

/* event_path - "events/sys[/name]/file" */
static int event_path(char *buf, size_t size, const char *sys, const char *name,
		      const char *file)
{
	int n;

	if (name)
		n = snprintf(buf, size, "events/%s/%s/%s", sys, name, file);
	else
		n = snprintf(buf, size, "events/%s/%s", sys, file);
	if (n < 0 || (size_t)n >= size)
		return ipt_err("events/%s/%s: name too long", sys, name ? name : "");
	return 0;
}

/* ipt_live_has_event - the event (or system) exists */
bool ipt_live_has_event(struct ipt_live *l, const char *sys, const char *name)
{
	char rel[512];

	return !event_path(rel, sizeof(rel), sys, name, "enable") && ipt_live_exists(l, rel);
}

/* ipt_live_enable_event - enable or disable an event or a whole system */
int ipt_live_enable_event(struct ipt_live *l, const char *sys, const char *name, bool on)
{
	char rel[512];

	if (event_path(rel, sizeof(rel), sys, name, "enable"))
		return -1;
	return ipt_live_write(l, rel, on ? "1" : "0");
}

/* parse_error_line - the "parse_error: ..." line the kernel leaves in a filter file */
static void parse_error_line(struct ipt_live *l, const char *rel, char *out, size_t size)
{
	char *text = NULL, *p, *nl;

	out[0] = 0;
	if (ipt_live_read(l, rel, &text, NULL))
		return;
	p = strstr(text, "parse_error:");
	if (p) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		snprintf(out, size, " (%s)", p);
	}
	free(text);
}

/* ipt_live_set_filter - set (or clear) an event's filter */
int ipt_live_set_filter(struct ipt_live *l, const char *sys, const char *name,
			const char *expr)
{
	char rel[512], why[200];

	if (event_path(rel, sizeof(rel), sys, name, "filter"))
		return -1;
	if (!expr || !*expr)
		return ipt_live_write(l, rel, "0");
	if (!ipt_live_write(l, rel, expr))
		return 0;
	if (ipt_errcode() != IPT_ERR_REJECTED)
		return -1;
	parse_error_line(l, rel, why, sizeof(why));
	ipt_live_write(l, rel, "0");	/* leave no half-set filter */
	return ipt_err_code(IPT_ERR_REJECTED, "%s:%s: the kernel rejected the filter '%s'%s",
			    sys, name, expr, why);
}

/* ipt_live_set_trigger - add or ("!cmd") remove an event trigger */
int ipt_live_set_trigger(struct ipt_live *l, const char *sys, const char *name,
			 const char *trigger)
{
	char rel[512];

	if (event_path(rel, sizeof(rel), sys, name, "trigger"))
		return -1;
	return ipt_live_write(l, rel, trigger);
}

/* ipt_live_clock_offered - clock appears in trace_clock */
bool ipt_live_clock_offered(struct ipt_live *l, const char *clock)
{
	char *text, *tok, *save = NULL;
	bool found = false;

	if (ipt_live_read(l, "trace_clock", &text, NULL))
		return false;
	for (tok = strtok_r(text, " []\n", &save); tok; tok = strtok_r(NULL, " []\n", &save))
		if (!strcmp(tok, clock))
			found = true;
	free(text);
	return found;
}

/* ipt_live_set_clock - select the instance's trace clock */
int ipt_live_set_clock(struct ipt_live *l, const char *clock)
{
	return ipt_live_write(l, "trace_clock", clock);
}

/* ipt_live_set_tracing - tracing_on of the instance */
int ipt_live_set_tracing(struct ipt_live *l, bool on)
{
	return ipt_live_write(l, "tracing_on", on ? "1" : "0");
}

/* ipt_live_set_buffer_kb - per-CPU buffer size of the instance */
int ipt_live_set_buffer_kb(struct ipt_live *l, unsigned long kb)
{
	char num[32];

	snprintf(num, sizeof(num), "%lu", kb);
	return ipt_live_write(l, "buffer_size_kb", num);
}

/* ipt_live_page_size - sub-buffer size (buffer_subbuf_size_kb, else the page size) */
int ipt_live_page_size(struct ipt_live *l, uint32_t *page_size)
{
	char *text;
	long kb;

	*page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	if (!ipt_live_exists(l, "buffer_subbuf_size_kb"))
		return 0;
	if (ipt_live_read(l, "buffer_subbuf_size_kb", &text, NULL))
		return -1;
	kb = strtol(text, NULL, 10);
	free(text);
	if (kb > 0 && kb <= 1024)
		*page_size = (uint32_t)kb * 1024;
	return 0;
}

/* ------------------------------------------------------------------ */
/* stats and pages                                                     */
/* ------------------------------------------------------------------ */

/* stat_value - the number after "key:" at the start of a line of text */
static uint64_t stat_value(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ':')
			return strtoull(p + klen + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

/* ipt_stats_parse - parse a per_cpu/cpuN/stats text */
int ipt_stats_parse(const char *text, struct ipt_cpu_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!strstr(text, "entries:"))
		return ipt_err("stats: no 'entries:' line");
	st->entries = stat_value(text, "entries");
	st->overrun = stat_value(text, "overrun");
	st->commit_overrun = stat_value(text, "commit overrun");
	st->bytes = stat_value(text, "bytes");
	st->dropped = stat_value(text, "dropped events");
	st->read = stat_value(text, "read events");
	return 0;
}

/* ipt_pages_count - count events and missed-event flags in a page file */
int ipt_pages_count(int fd, const struct ipt_page_layout *pl, struct ipt_page_tally *pc)
{
	size_t chunk = (size_t)pl->page_size * 64;
	uint8_t *buf = ipt_malloc(chunk);
	bool be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	off_t off = 0;
	int ret = 0;

	memset(pc, 0, sizeof(*pc));
	if (!buf)
		return -1;
	for (;;) {
		ssize_t n = pread(fd, buf, chunk, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = ipt_err("reading captured pages: %s", strerror(errno));
			break;
		}
		for (ssize_t i = 0; i + (ssize_t)pl->page_size <= n; i += pl->page_size)
			ipt_page_tally_add(pc, buf + i, pl, be);
		if ((size_t)n < chunk)
			break;
		off += n;
	}
	free(buf);
	return ret;
}

/* ------------------------------------------------------------------ */
/* capture                                                             */
/* ------------------------------------------------------------------ */

struct cap_cpu {
	struct ipt_capture *c;
	int cpu;
	int raw;		/* per_cpu/cpuN/trace_pipe_raw, O_NONBLOCK */
	int pipe[2];
	int out;		/* unnamed temporary file */
	size_t pipe_size;
	uint64_t bytes;
	pthread_t thread;
	bool running;
};

struct ipt_capture {
	struct cap_cpu *cpus;
	int n;
	uint32_t page_size;
	unsigned int poll_ms;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;		/* under lock */
	atomic_bool failed;
	char err[512];		/* first failure, under lock */
	char tmpdir[PATH_MAX];
};

/* cap_fail - record a reader's failure (the first one wins) */
static void cap_fail(struct ipt_capture *c, const char *fmt, ...) IPT_PRINTF(2, 3);
static void cap_fail(struct ipt_capture *c, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&c->lock);
	if (!atomic_load(&c->failed)) {
		va_start(ap, fmt);
		vsnprintf(c->err, sizeof(c->err), fmt, ap);
		va_end(ap);
		atomic_store(&c->failed, true);
	}
	pthread_mutex_unlock(&c->lock);
}

/* pipe_to_file - move n bytes from the pipe to the temporary file */
static int pipe_to_file(struct cap_cpu *cc, size_t n)
{
	while (n) {
		ssize_t m = splice(cc->pipe[0], NULL, cc->out, NULL, n, SPLICE_F_MOVE);

		if (m < 0 && errno == EINTR)
			continue;
		if (m <= 0) {
			cap_fail(cc->c, "%s: writing CPU %d data: %s", cc->c->tmpdir, cc->cpu,
				 m < 0 ? strerror(errno) : "no progress");
			return -1;
		}
		n -= (size_t)m;
		__atomic_store_n(&cc->bytes, cc->bytes + (uint64_t)m, __ATOMIC_RELEASE);
	}
	return 0;
}

/* splice_drain - splice every full page available now; never waits */
static int splice_drain(struct cap_cpu *cc)
{
	for (;;) {
		ssize_t n = splice(cc->raw, NULL, cc->pipe[1], NULL, cc->pipe_size,
				   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0) {
			cap_fail(cc->c, "per_cpu/cpu%d/trace_pipe_raw: splice: %s", cc->cpu,
				 strerror(errno));
			return -1;
		}
		if (n == 0)
			return 0;
		if (pipe_to_file(cc, (size_t)n))
			return -1;
	}
}

/* read_rest - after tracing stopped, read() the partial pages left */
static int read_rest(struct cap_cpu *cc)
{
	uint32_t ps = cc->c->page_size;
	uint8_t *buf = malloc(ps);

	if (!buf) {
		cap_fail(cc->c, "CPU %d: out of memory", cc->cpu);
		return -1;
	}
	for (;;) {
		ssize_t n = read(cc->raw, buf, ps);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) {
			cap_fail(cc->c, "per_cpu/cpu%d/trace_pipe_raw: read: %s", cc->cpu,
				 strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		if ((uint32_t)n < ps)
			memset(buf + n, 0, ps - (uint32_t)n);
		if (ipt_write_all(cc->out, buf, ps)) {
			cap_fail(cc->c, "%s: writing CPU %d data: %s", cc->c->tmpdir, cc->cpu,
				 strerror(errno));
			goto fail;
		}
		__atomic_store_n(&cc->bytes, cc->bytes + ps, __ATOMIC_RELEASE);
	}
	free(buf);
	return 0;
fail:
	free(buf);
	return -1;
}

/* wait_poll - sleep one poll interval; true when told to stop */
static bool wait_poll(struct ipt_capture *c)
{
	struct timespec ts;
	bool stop;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += (long)(c->poll_ms % 1000) * 1000000L;
	ts.tv_sec += c->poll_ms / 1000 + ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&c->lock);
	while (!c->stop && !atomic_load(&c->failed))
		if (pthread_cond_timedwait(&c->cond, &c->lock, &ts) == ETIMEDOUT)
			break;
	stop = c->stop || atomic_load(&c->failed);
	pthread_mutex_unlock(&c->lock);
	return stop;
}

/* reader_main - one CPU's reader thread: poll, splice, and flush at the end */
static void *reader_main(void *arg)
{
	struct cap_cpu *cc = arg;
	struct ipt_capture *c = cc->c;

	for (;;) {
		if (splice_drain(cc))
			return NULL;
		if (wait_poll(c))
			break;
	}
	if (atomic_load(&c->failed))
		return NULL;
	if (splice_drain(cc) == 0)
		read_rest(cc);
	return NULL;
}

/* cap_cpu_open - trace_pipe_raw, pipe and temporary file of one CPU */
static int cap_cpu_open(struct ipt_capture *c, struct cap_cpu *cc, struct ipt_live *l,
			const char *tmpdir)
{
	char path[PATH_MAX];
	int sz;

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", l->dir, cc->cpu);
	cc->raw = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (cc->raw < 0)
		return ipt_err("%s: %s", path, strerror(errno));
	if (pipe2(cc->pipe, O_CLOEXEC))
		return ipt_err("pipe: %s", strerror(errno));
	fcntl(cc->pipe[0], F_SETPIPE_SZ, PIPE_BYTES);	/* best effort */
	sz = fcntl(cc->pipe[0], F_GETPIPE_SZ);
	cc->pipe_size = sz > 0 ? (size_t)sz : 65536;
	if (cc->pipe_size < c->page_size)
		return ipt_err("pipe: %zu bytes cannot hold a %u-byte page", cc->pipe_size,
			       c->page_size);
	cc->out = ipt_tmpfile(tmpdir);
	return cc->out < 0 ? -1 : 0;
}

/* cap_alloc - the capture object with one slot per CPU, fds closed */
static struct ipt_capture *cap_alloc(const struct ipt_capture_opts *o)
{
	struct ipt_capture *c = ipt_calloc(1, sizeof(*c));
	pthread_condattr_t ca;
	int i = 0;

	if (!c)
		return NULL;
	c->n = (int)ipt_cpuset_weight(o->cpus);
	c->cpus = ipt_calloc((size_t)c->n, sizeof(*c->cpus));
	if (!c->cpus) {
		free(c);
		return NULL;
	}
	c->page_size = o->page_size;
	snprintf(c->tmpdir, sizeof(c->tmpdir), "%s", o->tmpdir);
	c->poll_ms = o->poll_ms ? o->poll_ms : 100;
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cond, &ca);
	pthread_condattr_destroy(&ca);
	atomic_init(&c->failed, false);
	for (int cpu = ipt_cpuset_next(o->cpus, 0); cpu >= 0 && i < c->n;
	     cpu = ipt_cpuset_next(o->cpus, (unsigned int)cpu + 1), i++) {
		c->cpus[i].c = c;
		c->cpus[i].cpu = cpu;
		c->cpus[i].raw = c->cpus[i].out = -1;
		c->cpus[i].pipe[0] = c->cpus[i].pipe[1] = -1;
	}
	return c;
}

/* ipt_capture_start - open every CPU's buffer and start the readers */
struct ipt_capture *ipt_capture_start(struct ipt_live *l, const struct ipt_capture_opts *o)
{
	struct ipt_capture *c;
	int i, err;

	if (!o->page_size || ipt_cpuset_empty(o->cpus)) {
		ipt_err("capture: no CPU or no page size");
		return NULL;
	}
	c = cap_alloc(o);
	if (!c)
		return NULL;
	for (i = 0; i < c->n; i++)
		if (cap_cpu_open(c, &c->cpus[i], l, o->tmpdir))
			goto fail;
	for (i = 0; i < c->n; i++) {
		err = pthread_create(&c->cpus[i].thread, NULL, reader_main, &c->cpus[i]);
		if (err) {
			ipt_err("cannot start a reader thread: %s", strerror(err));
			goto fail;
		}
		c->cpus[i].running = true;
	}
	return c;
fail:
	ipt_capture_free(c);
	return NULL;
}

/* ipt_capture_failed - a reader failed */
bool ipt_capture_failed(struct ipt_capture *c)
{
	return atomic_load(&c->failed);
}

/* ipt_capture_error - the first reader failure ("" if none) */
const char *ipt_capture_error(struct ipt_capture *c)
{
	return c->err;
}

/* stop_and_join - tell the readers to flush and wait for them */
static void stop_and_join(struct ipt_capture *c)
{
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	for (int i = 0; i < c->n; i++) {
		if (!c->cpus[i].running)
			continue;
		pthread_join(c->cpus[i].thread, NULL);
		c->cpus[i].running = false;
	}
}

/* close_fd - close *fd if open */
static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ipt_capture_finish - flush, join, close the trace_pipe_raw files */
int ipt_capture_finish(struct ipt_capture *c)
{
	stop_and_join(c);
	for (int i = 0; i < c->n; i++) {
		close_fd(&c->cpus[i].raw);
		close_fd(&c->cpus[i].pipe[0]);
		close_fd(&c->cpus[i].pipe[1]);
	}
	if (atomic_load(&c->failed))
		return ipt_err("%s", c->err);
	return 0;
}

/* ipt_capture_ncpus - number of CPU slots */
int ipt_capture_ncpus(struct ipt_capture *c)
{
	return c->n;
}

/* ipt_capture_cpu - CPU number of slot i */
int ipt_capture_cpu(struct ipt_capture *c, int i)
{
	return c->cpus[i].cpu;
}

/* ipt_capture_fd - temporary file of slot i */
int ipt_capture_fd(struct ipt_capture *c, int i)
{
	return c->cpus[i].out;
}

/* ipt_capture_bytes - bytes captured for slot i */
uint64_t ipt_capture_bytes(struct ipt_capture *c, int i)
{
	return __atomic_load_n(&c->cpus[i].bytes, __ATOMIC_ACQUIRE);	/* the data before it is in the file */
}

/* ipt_capture_free - stop, close all, free */
void ipt_capture_free(struct ipt_capture *c)
{
	if (!c)
		return;
	stop_and_join(c);
	for (int i = 0; i < c->n; i++) {
		close_fd(&c->cpus[i].raw);
		close_fd(&c->cpus[i].pipe[0]);
		close_fd(&c->cpus[i].pipe[1]);
		close_fd(&c->cpus[i].out);
	}
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	free(c->cpus);
	free(c);
}
