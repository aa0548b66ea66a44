// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs.c - the fallback where BPF is unavailable (no BTF, no libbpf, a
 * verifier that refuses): the same counts from a tracefs instance of our
 * own (instances/ipitrace-<pid>, removed as stale if we are killed) with
 * the send events on, read by polling its trace_pipe opened O_NONBLOCK.
 * Nobody waits on the ring buffer, so the kernel sends no irq_work wake-up
 * on our behalf; the loader stays pinned to the housekeeping CPUs.
 *
 * Each read drains trace_pipe (its text: "comm-pid [cpu] flags ts: event:
 * fields") and adds the lines to the counts kept since the start, keyed as
 * the BPF programs key them; the symbols of the text go back to addresses
 * through /proc/kallsyms, so that the callers see the same snapshot.  What
 * the text says was lost ("CPU:N [LOST M EVENTS]") is counted as
 * tracefs_lost, never dropped silently.  No handler times (BPF only).
 *
 * Names: the text names a task as the kernel's saved cmdlines have it when
 * the line is read, a cache the kernel updates at the task's next context
 * switch; around a fork, an exec or a rename that lags (a new task's first
 * sends would be "<...>", an exec'ing one's the old name).  BPF takes the
 * name at the send.  So the instance also records sched_process_fork,
 * sched_process_exec and task_rename, whose fields carry the name as it
 * becomes, and a task seen born or renamed in the window is named from them
 * (a table of TFS_NAMES slots by the pid's low bits: a task whose slot a
 * later one took is named by the text, right by then).
 */
#include "core/core.h"
#include "live/live.h"
#include "bpf/bpf_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TFS_BUFFER_KB	4096
#define LINE_MAX_LEN	4096
#define TFS_NAMES	4096	/* tasks named from their fork, exec, rename (a power of 2) */

struct tfs_entry {
	uint64_t tag;				/* the hash map's (ipt_hmap) */
	struct ipt_counter_send s;		/* key and count */
};

struct tfs_byname {			/* a kallsyms name: its first symbol */
	uint64_t tag;
	uint32_t sym;			/* index in ksyms.syms */
};

/* a task's name as its last fork, exec or rename event gave it */
struct tfs_name {
	int32_t pid;			/* 0: empty */
	char comm[16];
};

struct ipt_tfs {
	struct ipt_live *live;
	int fd;				/* trace_pipe, O_NONBLOCK */
	struct ipt_hmap tab;		/* of struct tfs_entry */
	uint64_t lost;
	char line[LINE_MAX_LEN];
	size_t llen;
	bool overlong;
	struct ipt_hmap by_name;	/* of struct tfs_byname */
	const struct ipt_symtab *ksyms;	/* what by_name indexes */
	struct tfs_name names[TFS_NAMES];	/* by pid, direct-mapped */
};

static const char *const send_events[] = { "ipi_send_cpu", "ipi_send_cpumask", "csd_queue_cpu" };
static const char *const send_systems[] = { "ipi", "ipi", "csd" };
/* the events that say a task's name as it becomes */
static const char *const name_events[] = { "sched_process_fork", "sched_process_exec", "task_rename" };
static const char *const name_systems[] = { "sched", "sched", "task" };

static uint64_t key_hash(const struct ipt_counter_send *s)
{
	uint64_t h = ipt_hash64(((uint64_t)(uint32_t)s->target << 32) | (uint32_t)s->src);

	h = ipt_hash_combine(h, (uint64_t)s->event);
	h = ipt_hash_combine(h, s->callsite);
	h = ipt_hash_combine(h, s->addr2);
	return ipt_hash_combine(h, ipt_hash_bytes(s->comm, strnlen(s->comm, sizeof(s->comm))));
}

static bool key_eq(const void *entry, const void *key)
{
	const struct ipt_counter_send *a = &((const struct tfs_entry *)entry)->s, *b = key;

	return a->target == b->target && a->src == b->src && a->event == b->event &&
	       a->callsite == b->callsite && a->addr2 == b->addr2 &&
	       !strncmp(a->comm, b->comm, sizeof(a->comm));
}

static int tab_add(struct ipt_tfs *t, const struct ipt_counter_send *k)
{
	uint64_t tag = ipt_hmap_tag(key_hash(k));
	bool added;
	struct tfs_entry *e = ipt_hmap_add(&t->tab, sizeof(*e), tag, key_eq, k, &added);

	if (!e)
		return -1;
	if (added) {
		e->s = *k;
		e->s.count = 0;
	}
	e->s.count++;
	return 0;
}

/* ---- names back to addresses ---- */

struct name_key {
	const struct ipt_tfs *t;
	const char *name;
};

static bool name_eq(const void *entry, const void *key)
{
	const struct name_key *k = key;

	return !strcmp(k->t->ksyms->syms[((const struct tfs_byname *)entry)->sym].name, k->name);
}

static int names_index(struct ipt_counter *b)
{
	struct ipt_tfs *t = b->tfs;

	t->ksyms = &b->ksyms;
	if (ipt_hmap_reserve(&t->by_name, sizeof(struct tfs_byname), b->ksyms.n))
		return -1;
	for (size_t k = 0; k < b->ksyms.n && k < UINT32_MAX; k++) {
		const char *name = b->ksyms.syms[k].name;
		uint64_t tag = ipt_hmap_tag(ipt_hash_bytes(name, strlen(name)));
		struct name_key nk = { t, name };
		struct tfs_byname *e = ipt_hmap_find(&t->by_name, sizeof(*e), tag, name_eq, &nk);

		if (!ipt_hmap_used(e)) {	/* the first of a name */
			ipt_hmap_take(&t->by_name, e, tag);
			e->sym = (uint32_t)k;
		}
	}
	return 0;
}

/* addr_of - "name+0xoff/0xsize", "name", "0x..." or "(nil)" as an address;
 * a name not in kallsyms keeps a stable stand-in (its hash, top bit set) */
static uint64_t addr_of(const struct ipt_counter *b, const char *s, size_t len)
{
	const struct ipt_tfs *t = b->tfs;
	char name[256];
	const char *plus = memchr(s, '+', len);
	size_t nl = plus ? (size_t)(plus - s) : len;
	uint64_t off = 0;

	if (len >= 2 && s[0] == '0' && s[1] == 'x')
		return strtoull(s, NULL, 16);
	if (!len || (len == 5 && !memcmp(s, "(nil)", 5)))
		return 0;
	if (plus)
		off = strtoull(plus + 1, NULL, 16);
	if (nl >= sizeof(name))
		nl = sizeof(name) - 1;
	memcpy(name, s, nl);
	name[nl] = 0;
	if (t->ksyms) {
		struct name_key nk = { t, name };
		const struct tfs_byname *e = ipt_hmap_find(&t->by_name, sizeof(*e),
							   ipt_hmap_tag(ipt_hash_bytes(name, nl)), name_eq, &nk);

		if (e && ipt_hmap_used(e))
			return b->ksyms.syms[e->sym].addr + off;
	}
	return (ipt_hash_bytes(name, nl) | (1ull << 63)) + off;
}

/* field - the value of "key=" in the fields (up to a blank), its length */
static const char *field(const char *f, const char *key, size_t *len)
{
	size_t kl = strlen(key);

	for (const char *p = f; (p = strstr(p, key)); p++) {
		if ((p == f || p[-1] == ' ') && p[kl] == '=') {
			p += kl + 1;
			*len = strcspn(p, " ");
			return p;
		}
	}
	return NULL;
}

/* ---- names of the tasks born or renamed in the window ---- */

static void name_set(struct ipt_tfs *t, long pid, const char *comm, size_t len)
{
	struct tfs_name *n;

	if (pid <= 0 || pid > INT32_MAX)
		return;
	n = &t->names[(size_t)pid & (TFS_NAMES - 1)];
	n->pid = (int32_t)pid;
	memset(n->comm, 0, sizeof(n->comm));
	memcpy(n->comm, comm, len < sizeof(n->comm) - 1 ? len : sizeof(n->comm) - 1);
}

/* between - the text after key up to the last end after it (or the line's end) */
static const char *between(const char *f, const char *key, const char *end, size_t *len)
{
	const char *p = strstr(f, key), *e = NULL;

	if (!p)
		return NULL;
	p += strlen(key);
	for (const char *q = p; (q = strstr(q, end)); q++)
		e = q;
	*len = e ? (size_t)(e - p) : strlen(p);
	return p;
}

/* name_line - a fork, exec or rename: the name the task has from now on */
static void name_line(struct ipt_tfs *t, int event, const char *f, long line_pid)
{
	const char *v, *pid;
	size_t vl, pl;

	switch (event) {
	case 0:	/* "comm=%s pid=%d child_comm=%s child_pid=%d" */
		v = between(f, " child_comm=", " child_pid=", &vl);
		pid = v ? strstr(v + vl, " child_pid=") : NULL;
		if (pid)
			name_set(t, strtol(pid + 11, NULL, 10), v, vl);
		return;
	case 1:	/* "filename=%s pid=%d old_pid=%d": named after the file */
		v = between(f, "filename=", " pid=", &vl);
		pid = v ? strstr(v + vl, " pid=") : NULL;
		if (pid) {
			const char *base = v;

			for (size_t i = 0; i < vl; i++)
				if (v[i] == '/')
					base = v + i + 1;
			name_set(t, strtol(pid + 5, NULL, 10), base, vl - (size_t)(base - v));
		}
		return;
	default:	/* "pid=%d oldcomm=%s newcomm=%s oom_score_adj=%hd" */
		v = between(f, " newcomm=", " oom_score_adj=", &vl);
		pid = field(f, "pid", &pl);
		if (v)
			name_set(t, pid && pid < v ? strtol(pid, NULL, 10) : line_pid, v, vl);
		return;
	}
}

/* one_line - a line of trace_pipe; unknown lines are skipped */
static int one_line(struct ipt_counter *b, char *line)
{
	struct ipt_tfs *t = b->tfs;
	struct ipt_counter_send k;
	const char *br, *rb, *ev, *f, *v, *end, *dash;
	size_t vl, el;
	long pid;
	int event = -1;

	if (!strncmp(line, "CPU:", 4)) {
		const char *lost = strstr(line, "[LOST ");

		if (lost)
			t->lost += strtoull(lost + 6, NULL, 10);
		return 0;
	}
	/* "comm-pid [cpu] flags ts: event: fields" (comm may hold blanks and '-') */
	for (br = strstr(line, " ["); br && !(br[2] >= '0' && br[2] <= '9'); br = strstr(br + 1, " ["))
		;
	if (!br || !(rb = strchr(br, ']')) || !(ev = strstr(rb, ": ")))
		return 0;
	ev += 2;	/* the event's name, up to its ':' */
	el = strcspn(ev, ":");
	if (ev[el] != ':')
		return 0;
	f = ev + el + (ev[el + 1] == ' ' ? 2 : 1);
	/* the pid: after the last '-' before the CPU */
	for (end = br; end > line && end[-1] == ' '; end--)
		;
	for (dash = end > line ? end - 1 : line; dash > line && *dash != '-'; dash--)
		;
	pid = dash > line ? strtol(dash + 1, NULL, 10) : 0;
	for (int i = 0; i < 3; i++) {
		if (strlen(name_events[i]) == el && !memcmp(ev, name_events[i], el)) {
			name_line(t, i, f, pid);
			return 0;
		}
		if (strlen(send_events[i]) == el && !memcmp(ev, send_events[i], el))
			event = i;
	}
	if (event < 0)
		return 0;
	memset(&k, 0, sizeof(k));
	k.event = (enum ipt_counter_event)event;
	k.src = atoi(br + 2);
	{
		const struct tfs_name *n = &t->names[(size_t)pid & (TFS_NAMES - 1)];
		const char *c = line;

		while (c < dash && *c == ' ')
			c++;
		if (pid > 0 && n->pid == pid) {		/* born or renamed in the window */
			memcpy(k.comm, n->comm, sizeof(k.comm));
		} else if (dash > c) {
			size_t cl = (size_t)(dash - c);

			memcpy(k.comm, c, cl < sizeof(k.comm) - 1 ? cl : sizeof(k.comm) - 1);
		}
	}
	v = field(f, "callsite", &vl);
	k.callsite = v ? addr_of(b, v, vl) : 0;
	v = field(f, event == IPT_COUNTER_CSD_QUEUE ? "func" : "callback", &vl);
	k.addr2 = v ? addr_of(b, v, vl) : 0;
	if (event == IPT_COUNTER_SEND_CPUMASK) {
		struct ipt_cpuset set = IPT_CPUSET_INIT;
		int rc = 0;

		v = field(f, "cpumask", &vl);
		ipt_cpuset_init(&set);
		if (!v || ipt_cpuset_parse_list(&set, v, vl)) {
			ipt_cpuset_free(&set);
			t->lost++;	/* a mask the text did not give whole */
			return 0;
		}
		for (int c = ipt_cpuset_next(&set, 0); c >= 0 && !rc; c = ipt_cpuset_next(&set, (unsigned int)c + 1)) {
			k.target = c;
			rc = tab_add(t, &k);
		}
		ipt_cpuset_free(&set);
		return rc;
	}
	v = field(f, "cpu", &vl);
	if (!v)
		return 0;
	k.target = atoi(v);
	return tab_add(t, &k);
}

/* drain - every line trace_pipe holds now (never waits) */
static int drain(struct ipt_counter *b)
{
	struct ipt_tfs *t = b->tfs;
	char buf[65536];

	for (;;) {
		ssize_t r = read(t->fd, buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return 0;
		if (r < 0)
			return ipt_err("%s/trace_pipe: %s", t->live->dir, strerror(errno));
		if (r == 0)
			return 0;
		for (ssize_t i = 0; i < r; i++) {
			if (buf[i] != '\n') {
				if (t->llen < sizeof(t->line) - 1)
					t->line[t->llen++] = buf[i];
				else
					t->overlong = true;
				continue;
			}
			t->line[t->llen] = 0;
			if (t->overlong)
				t->lost++;	/* a line too long to be one of ours: count it */
			else if (one_line(b, t->line))
				return -1;
			t->llen = 0;
			t->overlong = false;
		}
	}
}

struct ipt_counter_snapshot *ipt_tfs_read(struct ipt_counter *b)
{
	struct ipt_tfs *t = b->tfs;
	struct ipt_counter_snapshot *s;
	struct timespec ts;

	if (drain(b))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s || (t->tab.n && !(s->sends = calloc(t->tab.n, sizeof(*s->sends))))) {
		free(s);
		ipt_err_code(IPT_ERR_NOMEM, "out of memory");
		return NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->time = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	for (size_t i = 0; i < t->tab.cap; i++) {
		const struct tfs_entry *e = ipt_hmap_at(&t->tab, sizeof(*e), i);

		if (ipt_hmap_used(e))
			s->sends[s->nsends++] = e->s;
	}
	s->errors[IPT_COUNTER_ERR_TRACEFS_LOST] = t->lost;
	ipt_counter_sort_sends(s);
	return s;
}

void ipt_tfs_close(struct ipt_counter *b)
{
	struct ipt_tfs *t = b->tfs;

	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	if (t->live) {
		ipt_live_set_tracing(t->live, false);
		ipt_live_destroy(t->live);
	}
	ipt_hmap_free(&t->tab);
	ipt_hmap_free(&t->by_name);
	free(t);
	b->tfs = NULL;
}

struct ipt_counter *ipt_counter_open_tracefs(const struct ipt_counter_opts *opts)
{
	struct ipt_counter_opts o = { 0 };
	struct ipt_counter *b = calloc(1, sizeof(*b));
	char tracefs[4096], name[64], msg[1024];
	bool mounted = false;
	int nsend = 0;

	if (IPT_OPTS_COPY(o, opts, "counting")) {
		free(b);
		return NULL;
	}
	if (!b || !(b->tfs = calloc(1, sizeof(*b->tfs)))) {
		free(b);
		ipt_err_code(IPT_ERR_NOMEM, "out of memory");
		return NULL;
	}
	b->stats_fd = -1;
	b->tfs->fd = -1;
	ipt_cpuset_init(&b->pin);
	if (ipt_counter_list_add(&b->attached, "") || ipt_counter_list_add(&b->skipped, ""))
		goto fail;
	if (!o.no_pin && ipt_counter_pin(b, &o))
		goto fail;
	ipt_counter_load_ksyms(b);
	if (names_index(b) || ipt_tracefs_find(tracefs, sizeof(tracefs), true, &mounted))
		goto fail;
	ipt_live_remove_stale(tracefs, NULL, NULL);
	snprintf(name, sizeof(name), IPT_LIVE_PREFIX "%d", (int)getpid());
	b->tfs->live = ipt_live_create(tracefs, name);
	if (!b->tfs->live || ipt_live_set_tracing(b->tfs->live, false) ||
	    ipt_live_set_buffer_kb(b->tfs->live, TFS_BUFFER_KB))
		goto fail;
	for (int i = 0; i < 3; i++) {
		bool have = ipt_live_has_event(b->tfs->live, send_systems[i], send_events[i]);

		if (have && ipt_live_enable_event(b->tfs->live, send_systems[i], send_events[i], true))
			goto fail;
		if (ipt_counter_list_add(have ? &b->attached : &b->skipped, send_events[i]))
			goto fail;
		nsend += have && i < 2;
	}
	if (!nsend) {
		ipt_err("tracefs: this kernel has no ipi:ipi_send_cpu nor ipi:ipi_send_cpumask");
		goto fail;
	}
	/* the names as they become (where the kernel has the events) */
	for (int i = 0; i < 3; i++)
		if (ipt_live_has_event(b->tfs->live, name_systems[i], name_events[i]) &&
		    ipt_live_enable_event(b->tfs->live, name_systems[i], name_events[i], true))
			goto fail;
	{
		char path[4200];

		snprintf(path, sizeof(path), "%s/trace_pipe", b->tfs->live->dir);
		b->tfs->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (b->tfs->fd < 0) {
			ipt_err("%s: %s", path, strerror(errno));
			goto fail;
		}
	}
	if (ipt_live_set_tracing(b->tfs->live, true))
		goto fail;
	return b;
fail:
	snprintf(msg, sizeof(msg), "%s", ipt_errmsg());
	{
		enum ipt_error code = ipt_errcode();

		ipt_tfs_close(b);
		ipt_counter_handle_free(b);
		ipt_err_code(code, "%s", msg);
	}
	return NULL;
}
