// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * session.c - the recording session of include/ipitrace.h: an instance
 * set up with the IPI events of the catalogue, per-CPU capture, and the
 * trace.dat written from it with the live system's metadata.
 */
#include "live/live.h"
#include "input/input.h"
#include "ipi/catalogue.h"
#include "output/tracedat_write.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_BUFFER_KB	4096

/* One event the session enabled. */
struct rec_event {
	char *sys, *name;		/* name NULL: a whole system (opts.events SYS) */
	bool send;
	const char *target;
	bool ipi;			/* from the catalogue (else opts.events) */
	bool stack;			/* a stacktrace trigger is installed */
};

/* A (TSC, CLOCK_MONOTONIC_RAW) pair: the x86-tsc clock's rate is measured
 * between tracing on and off, for the file's TSC2NSEC option. */
struct tsc_sample {
	uint64_t tsc, ns;
	bool taken;
};

struct ipt_recorder {
	struct ipt_recorder_opts o;
	struct tsc_sample tsc_on, tsc_off;
	char tracefs[PATH_MAX];
	char tmpdir[PATH_MAX];
	struct ipt_live *live;
	struct rec_event *ev;
	int nev;
	size_t capev;
	struct ipt_recorder_event *probed;	/* catalogue entries as probed, then probes */
	int nprobed;
	size_t capprobed;
	struct ipt_kprobes *kprobes;	/* dynamic probes standing for missing send events */
	char **systems;			/* systems whose formats go in the file */
	int nsys;
	size_t capsys;
	struct ipt_cpuset online;
	struct ipt_cpuset pin;		/* where the session's threads run */
	cpu_set_t orig_affinity;
	bool pinned;
	struct ipt_capture *cap;
	struct ipt_page_layout layout;
	char *header_page, *header_event;
	size_t hp_len, he_len;
	char *clock_text;
	const char *clock;
	struct ipt_tdw *w;
	struct ipt_recorder_cpu *res;
	int nres;
	bool rm_failed;
	enum ipt_recorder_about about;
	/* ipt_recorder_progress: the send events' ids, the pages counted so far */
	uint16_t send_ids[16];
	int nsend_ids;
	bool ids_read;
	uint64_t *prog_off;		/* per capture slot: bytes counted */
	struct ipt_page_tally prog;
	/* provenance and the kernel's counters, stored in the file */
	char *command_line, *command;	/* copies of the options' */
	struct ipt_strbuf irqs;		/* "@point\n" + /proc/interrupts, per point */
	char start_utc[32];
	char *self_tids;		/* the recorder's process and threads */
	char *command_end;		/* ipt_recorder_set_command_end */
	struct ipt_ustacks *ustacks;	/* --user-stacks: their resolver */
	struct ipt_spike_tracer *tracer;	/* opts.tracer: its saved settings */
	struct ipt_cpuset tracer_cpus;
	bool tracer_failed;		/* its settings were not restored */
};

/* note - pass a line to the caller */
static void note(struct ipt_recorder *r, enum ipt_recorder_note kind, enum ipt_recorder_about about,
		 const char *fmt, ...) IPT_PRINTF(4, 5);
static void note(struct ipt_recorder *r, enum ipt_recorder_note kind, enum ipt_recorder_about about,
		 const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (!r->o.note)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	r->o.note(kind, about, buf, r->o.arg);
}

/* fail_about - a failure about one request of the options */
static int fail_about(struct ipt_recorder *r, enum ipt_recorder_about about)
{
	r->about = about;
	return -1;
}

/* ipt_recorder_new - a session with a copy of the options */
struct ipt_recorder *ipt_recorder_new(const struct ipt_recorder_opts *opts)
{
	struct ipt_recorder_opts known;
	struct ipt_recorder *r;

	if (IPT_OPTS_COPY(known, opts, "recording"))
		return NULL;
	if (!known.output || !*known.output) {
		ipt_err_code(IPT_ERR_INVALID, "recording: no output file");
		return NULL;
	}
	if (known.user_stacks && !ipt_ustacks_built()) {	/* said before tracefs is touched */
		ipt_err_code(IPT_ERR_INVALID, "--user-stacks: this ipitrace was built without elfutils "
			     "(libdw), which resolves them");
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		ipt_err_code(IPT_ERR_NOMEM, "out of memory");
		return NULL;
	}
	r->o = known;
	if ((r->o.command_line && !(r->command_line = strdup(r->o.command_line))) ||
	    (r->o.command && !(r->command = strdup(r->o.command)))) {
		free(r->command_line);
		free(r);
		ipt_err_code(IPT_ERR_NOMEM, "out of memory");
		return NULL;
	}
	r->o.command_line = r->command_line;
	r->o.command = r->command;
	if (!r->o.buffer_kb)
		r->o.buffer_kb = DEFAULT_BUFFER_KB;
	if (r->o.user_stacks)
		r->o.stacks = true;	/* a user stack is told apart by the kernel one after it */
	if (!r->o.compression)
		r->o.compression = "zstd";
	if (r->o.tracer && strcmp(r->o.tracer, "timerlat") && strcmp(r->o.tracer, "osnoise")) {
		ipt_err_code(IPT_ERR_INVALID, "tracer '%s': not timerlat or osnoise", r->o.tracer);
		free(r->command_line);
		free(r->command);
		free(r);
		return NULL;
	}
	ipt_cpuset_init(&r->tracer_cpus);
	ipt_cpuset_init(&r->online);
	ipt_cpuset_init(&r->pin);
	return r;
}

/* ------------------------------------------------------------------ */
/* probing                                                             */
/* ------------------------------------------------------------------ */

/* report_stale - say that a stale instance was removed */
static void report_stale(const char *dir, void *arg)
{
	note(arg, IPT_RECORDER_NOTE_INFO, IPT_RECORDER_ABOUT_NONE,
	     "removed %s, left by a recorder that no longer runs", dir);
}

/* find_tracefs - tracefs location, stale instances */
static int find_tracefs(struct ipt_recorder *r)
{
	char path[PATH_MAX + 64];
	bool mounted;

	if (ipt_tracefs_find(r->tracefs, sizeof(r->tracefs), true, &mounted))
		return -1;
	if (mounted)
		note(r, IPT_RECORDER_NOTE_INFO, IPT_RECORDER_ABOUT_NONE,
		     "mounted tracefs at %s (left mounted)", r->tracefs);
	snprintf(path, sizeof(path), "%s/instances", r->tracefs);
	if (access(path, W_OK))
		return ipt_err("%s: %s (tracefs instances are needed)", path, strerror(errno));
	ipt_live_remove_stale(r->tracefs, report_stale, r);
	ipt_kprobes_remove_stale(r->tracefs, report_stale, r);
	return 0;
}

/* output_dir - the directory of the output file (TMPDIR for "-") */
static int output_dir(struct ipt_recorder *r)
{
	const char *out = r->o.output, *slash = strrchr(out, '/');
	const char *tmp = getenv("TMPDIR");

	if (!strcmp(out, "-"))
		snprintf(r->tmpdir, sizeof(r->tmpdir), "%s", tmp && *tmp ? tmp : "/tmp");
	else if (!slash)
		snprintf(r->tmpdir, sizeof(r->tmpdir), ".");
	else if (slash == out)
		snprintf(r->tmpdir, sizeof(r->tmpdir), "/");
	else
		snprintf(r->tmpdir, sizeof(r->tmpdir), "%.*s", (int)(slash - out), out);
	if (slash && !slash[1])
		return ipt_err("%s: is a directory name, not a file name", out);
	if (access(r->tmpdir, W_OK | X_OK))
		return ipt_err("%s: cannot write there: %s", r->tmpdir, strerror(errno));
	return 0;
}

/* choose_pin - CPUs for the session's threads, and pin the caller there */
static int choose_pin(struct ipt_recorder *r)
{
	struct ipt_cpuset allowed = IPT_CPUSET_INIT;
	cpu_set_t set;
	int ret = -1, c;

	ipt_cpuset_init(&allowed);
	if (sched_getaffinity(0, sizeof(r->orig_affinity), &r->orig_affinity)) {
		ipt_err("sched_getaffinity: %s", strerror(errno));
		goto out;
	}
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &r->orig_affinity) && ipt_cpuset_add(&allowed, (unsigned int)c))
			goto out;
	if (r->o.housekeeping) {
		if (ipt_cpuset_copy(&r->pin, r->o.housekeeping))
			goto out;
	} else if (ipt_housekeeping_cpus(&r->pin, &r->online, &allowed)) {
		goto out;
	}
	CPU_ZERO(&set);
	for (c = ipt_cpuset_next(&r->pin, 0); c >= 0 && c < CPU_SETSIZE;
	     c = ipt_cpuset_next(&r->pin, (unsigned int)c + 1))
		CPU_SET(c, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		char b[256];

		ipt_cpuset_format_list(&r->pin, b, sizeof(b));
		ipt_err("cannot run on CPUs %s: %s", b, strerror(errno));
		goto out;
	}
	r->pinned = true;
	ret = 0;
out:
	ipt_cpuset_free(&allowed);
	return ret;
}

/* add_system - remember a system whose formats go in the file */
static int add_system(struct ipt_recorder *r, const char *sys)
{
	for (int i = 0; i < r->nsys; i++)
		if (!strcmp(r->systems[i], sys))
			return 0;
	if (IPT_GROW(r->systems, r->capsys, (size_t)r->nsys + 1))
		return -1;
	r->systems[r->nsys] = strdup(sys);
	if (!r->systems[r->nsys])
		return ipt_err_code(IPT_ERR_NOMEM, "out of memory");
	r->nsys++;
	return 0;
}

/* add_event - append an event to enable */
static int add_event(struct ipt_recorder *r, const char *sys, const char *name, bool send,
		     const char *target, bool ipi)
{
	struct rec_event *e;

	if (IPT_GROW(r->ev, r->capev, (size_t)r->nev + 1))
		return -1;
	e = &r->ev[r->nev];
	memset(e, 0, sizeof(*e));
	e->sys = strdup(sys);
	e->name = name ? strdup(name) : NULL;
	if (!e->sys || (name && !e->name)) {
		free(e->sys);
		free(e->name);
		return ipt_err_code(IPT_ERR_NOMEM, "out of memory");
	}
	e->send = send;
	e->target = target;
	e->ipi = ipi;
	r->nev++;
	return add_system(r, sys);
}

/* machine_arch - the catalogue's architecture of this machine (uname) */
static enum ipt_ipi_arch machine_arch(void)
{
	struct utsname u;

	if (uname(&u))
		return IPT_ARCH_ANY;
	if (strstr(u.machine, "86"))
		return IPT_ARCH_X86;
	if (!strncmp(u.machine, "arm", 3) || !strncmp(u.machine, "aarch64", 7))
		return IPT_ARCH_ARM;
	return IPT_ARCH_ANY;
}

/* probe_events - the catalogue's events this kernel has, and the missing ones */
static int probe_events(struct ipt_recorder *r)
{
	enum ipt_ipi_arch arch = machine_arch();

	if (IPT_GROW_ZERO(r->probed, r->capprobed, ipt_ipi_catalogue_len))
		return -1;
	for (size_t i = 0; i < ipt_ipi_catalogue_len; i++) {
		const struct ipt_ipi_event_info *d = &ipt_ipi_catalogue[i];
		struct ipt_recorder_event *pe = &r->probed[r->nprobed];
		bool send = d->role == IPT_ROLE_SEND;

		if (ipt_live_has_event(r->live, d->system, d->name)) {
			if (add_event(r, d->system, d->name, send, d->target, true))
				return -1;
			pe->present = true;
		} else if (d->arch != IPT_ARCH_ANY && d->arch != arch) {
			continue;
		}
		pe->system = d->system;
		pe->name = d->name;
		pe->send = send;
		pe->since = pe->present ? NULL : d->since;
		r->nprobed++;
	}
	if (!r->nev)
		return ipt_err("%s/events: this kernel has none of the IPI trace events", r->tracefs);
	return 0;
}

/* probe_skipped - a dynamic probe left out */
static void probe_skipped(const char *msg, void *arg)
{
	note(arg, IPT_RECORDER_NOTE_INFO, IPT_RECORDER_ABOUT_NONE, "%s", msg);
}

/*
 * add_kprobes - without a send event (ipi_send_cpu, ipi_send_cpumask,
 * ipi_raise), kprobe events on the send paths stand for them (kprobes.c);
 * listed after the catalogue's entries
 */
static int add_kprobes(struct ipt_recorder *r)
{
	int n;

	for (int i = 0; i < r->nev; i++)
		if (r->ev[i].send)
			return 0;
	r->kprobes = ipt_kprobes_define(r->tracefs, (int)getpid(), probe_skipped, r);
	if (!r->kprobes)
		return -1;
	n = ipt_kprobes_count(r->kprobes);
	if (!n)
		return 0;
	if (IPT_GROW_ZERO(r->probed, r->capprobed, (size_t)r->nprobed + (size_t)n))
		return -1;
	for (int i = 0; i < n; i++) {
		const struct ipt_kprobe *k = ipt_kprobes_get(r->kprobes, i);
		struct ipt_recorder_event *pe = &r->probed[r->nprobed++];

		if (!ipt_live_has_event(r->live, k->group, k->name))
			return ipt_err("%s/events/%s/%s: the probe defined is not in the instance",
				       r->tracefs, k->group, k->name);
		if (add_event(r, k->group, k->name, k->send, k->target, true))
			return -1;
		memset(pe, 0, sizeof(*pe));
		pe->system = k->group;
		pe->name = k->name;
		pe->present = true;
		pe->send = k->send;
		pe->probe_function = k->function;
		pe->stands_for = k->stands_for;
	}
	return 0;
}

/* remove_kprobes - the dynamic probes removed (after the instance) */
static void remove_kprobes(struct ipt_recorder *r)
{
	if (!r->kprobes)
		return;
	if (ipt_kprobes_remove(r->kprobes)) {
		r->rm_failed = true;
		note(r, IPT_RECORDER_NOTE_ERROR, IPT_RECORDER_ABOUT_NONE, "%s", ipt_errmsg());
	}
	r->kprobes = NULL;
}

/* add_extra_one - one opts.events item: SYS:NAME, SYS:* or SYS */
static int add_extra_one(struct ipt_recorder *r, char *item)
{
	char *colon = strchr(item, ':');
	const char *name = NULL;

	if (colon) {
		*colon = 0;
		if (strcmp(colon + 1, "*"))
			name = colon + 1;
	}
	if (!*item || (name && !*name) || strchr(item, '/') || (name && strchr(name, '/'))) {
		ipt_err_code(IPT_ERR_INVALID, "bad event '%s'", item);
		return fail_about(r, IPT_RECORDER_ABOUT_EVENTS);
	}
	if (!ipt_live_has_event(r->live, item, name)) {
		ipt_err("no event %s%s%s in this kernel (see %s/available_events)",
			item, name ? ":" : "", name ? name : "", r->tracefs);
		return fail_about(r, IPT_RECORDER_ABOUT_EVENTS);
	}
	return add_event(r, item, name, false, NULL, false);
}

/* add_extra - the opts.events list */
static int add_extra(struct ipt_recorder *r)
{
	char *copy, *tok, *save = NULL;
	int ret = 0;

	if (!r->o.events)
		return 0;
	copy = strdup(r->o.events);
	if (!copy)
		return ipt_err_code(IPT_ERR_NOMEM, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save))
		ret = add_extra_one(r, tok);
	free(copy);
	return ret;
}

/* choose_clock - opts.clock, else mono, else global */
static int choose_clock(struct ipt_recorder *r)
{
	const char *clock = r->o.clock;
	size_t len;

	/*
	 * The default must order events across CPUs (a send on one CPU before
	 * its handling on another): "local" is per-CPU and not ordered across
	 * CPUs; "mono" is global and in nanoseconds; "global" is the fallback.
	 */
	if (!clock)
		clock = ipt_live_clock_offered(r->live, "mono") ? "mono" : "global";
	if (!ipt_live_clock_offered(r->live, clock)) {
		char *text = NULL;

		ipt_live_read(r->live, "trace_clock", &text, NULL);
		if (text)
			text[strcspn(text, "\n")] = 0;
		ipt_err_code(IPT_ERR_INVALID, "'%s' is not offered (%s/trace_clock: %s)", clock,
			     r->live->dir, text ? text : "?");
		free(text);
		return fail_about(r, IPT_RECORDER_ABOUT_CLOCK);
	}
	if (ipt_live_set_clock(r->live, clock) ||
	    ipt_live_read(r->live, "trace_clock", &r->clock_text, &len))
		return -1;
	r->clock = clock;
	return 0;
}

/* read_headers - header_page/header_event and the page layout */
static int read_headers(struct ipt_recorder *r)
{
	uint32_t ps;

	if (ipt_live_page_size(r->live, &ps) ||
	    ipt_live_read(r->live, "events/header_page", &r->header_page, &r->hp_len) ||
	    ipt_live_read(r->live, "events/header_event", &r->header_event, &r->he_len))
		return -1;
	if (ipt_header_page_parse(&r->layout, r->header_page, r->hp_len, ps, (int)sizeof(long)))
		return ipt_err("events/header_page: %s", ipt_errmsg());
	return 0;
}

/* setup_instance - create and configure our instance (tracing stays off) */
static int setup_instance(struct ipt_recorder *r)
{
	char name[32], path[PATH_MAX + 128];

	snprintf(name, sizeof(name), IPT_LIVE_PREFIX "%d", (int)getpid());
	/* one under our own pid is from a dead process that had this pid */
	snprintf(path, sizeof(path), "%s/instances/%s", r->tracefs, name);
	if (!rmdir(path))
		report_stale(path, r);
	r->live = ipt_live_create(r->tracefs, name);
	if (!r->live)
		return -1;
	if (ipt_live_set_tracing(r->live, false) ||
	    ipt_live_set_buffer_kb(r->live, r->o.buffer_kb))
		return -1;
	return 0;
}

/*
 * setup_tracer - opts.tracer: its CPUs (opts.tracer_cpus, else the online
 * CPUs the readers leave alone, else all), the kernel's checks and the
 * global settings saved and written (the tracer itself goes on in arm),
 * and the osnoise events beside the IPI ones
 */
static int setup_tracer(struct ipt_recorder *r)
{
	struct ipt_spike_tracer_opts to = { 0 };

	if (!r->o.tracer)
		return 0;
	if (r->o.tracer_cpus) {
		if (ipt_cpuset_copy(&r->tracer_cpus, r->o.tracer_cpus))
			return -1;
	} else {
		if (ipt_cpuset_copy(&r->tracer_cpus, &r->online))
			return -1;
		for (int c = ipt_cpuset_next(&r->pin, 0); c >= 0; c = ipt_cpuset_next(&r->pin, (unsigned int)c + 1))
			ipt_cpuset_del(&r->tracer_cpus, (unsigned int)c);
		if (ipt_cpuset_empty(&r->tracer_cpus) && ipt_cpuset_copy(&r->tracer_cpus, &r->online))
			return -1;
	}
	to.tracer = r->o.tracer;
	to.cpus = &r->tracer_cpus;
	to.period_us = r->o.tracer_period_us;
	to.runtime_us = r->o.tracer_runtime_us;
	to.threshold_us = r->o.tracer_threshold_us;
	r->tracer = ipt_spike_tracer_setup(r->live, r->tracefs, &to);
	if (!r->tracer)
		return fail_about(r, IPT_RECORDER_ABOUT_TRACER);
	for (int i = 0; i < r->nev; i++)
		if (!strcmp(r->ev[i].sys, "osnoise") && !r->ev[i].name)
			return add_system(r, "ftrace");	/* -e osnoise named it already */
	if (ipt_live_has_event(r->live, "osnoise", NULL) && add_event(r, "osnoise", NULL, false, NULL, false))
		return -1;
	return add_system(r, "ftrace");
}

/* restore_tracer - the tracer off and its settings back (noted if not) */
static void restore_tracer(struct ipt_recorder *r)
{
	if (!r->tracer)
		return;
	if (ipt_spike_tracer_restore(r->tracer)) {
		r->tracer_failed = true;
		note(r, IPT_RECORDER_NOTE_ERROR, IPT_RECORDER_ABOUT_TRACER, "%s", ipt_errmsg());
	}
	r->tracer = NULL;
}

/* ipt_recorder_probe - tracefs, pinning, the instance, clock and events */
/* irq_snapshot - /proc/interrupts now, for point (a machine without it: none) */
static void irq_snapshot(struct ipt_recorder *r, enum ipt_irq_point point)
{
	char *text = NULL;
	size_t len = 0;

	if (ipt_file_read("/proc/interrupts", &text, &len))
		return;
	if (ipt_strbuf_addf(&r->irqs, "@%s\n", ipt_irq_point_name(point)) ||
	    ipt_strbuf_add(&r->irqs, text, len) ||
	    (len && text[len - 1] != '\n' && ipt_strbuf_add(&r->irqs, "\n", 1)))
		r->irqs.len = 0;	/* out of memory: none stored rather than a part */
	free(text);
}

/* self_tids - the recorder's own thread ids (its readers run by now) */
static void self_tids(struct ipt_recorder *r)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
			ipt_strbuf_addf(&sb, "%s%s", sb.len ? "," : "", e->d_name);
	closedir(d);
	free(r->self_tids);
	r->self_tids = sb.buf;
}

int ipt_recorder_probe(struct ipt_recorder *r)
{
	r->about = IPT_RECORDER_ABOUT_NONE;
	irq_snapshot(r, IPT_IRQ_BEFORE_SETUP);
	if (find_tracefs(r) || output_dir(r) || ipt_sysfs_cpulist("online", &r->online) ||
	    choose_pin(r) || setup_instance(r))
		return -1;
	return read_headers(r) || choose_clock(r) || probe_events(r) || add_kprobes(r) ||
	       add_extra(r) || setup_tracer(r) ? -1 : 0;
}

/* ipt_recorder_nevents - how many catalogue events were probed */
int ipt_recorder_nevents(const struct ipt_recorder *r)
{
	return r->nprobed;
}

/* ipt_recorder_event - one probed catalogue event */
const struct ipt_recorder_event *ipt_recorder_event(const struct ipt_recorder *r, int i)
{
	return i >= 0 && i < r->nprobed ? &r->probed[i] : NULL;
}

/* ------------------------------------------------------------------ */
/* filters, triggers, events                                           */
/* ------------------------------------------------------------------ */

/* cpus_part - the opts.cpus filter of an event (empty when none applies) */
static int cpus_part(const struct ipt_recorder *r, const struct rec_event *e,
		     struct ipt_strbuf *sb)
{
	size_t n;
	char *list;
	int ret;

	ipt_strbuf_reset(sb);
	if (!r->o.cpus || !e->ipi)
		return 0;
	n = ipt_cpuset_format_list(r->o.cpus, NULL, 0);
	list = malloc(n + 1);
	if (!list)
		return ipt_err_code(IPT_ERR_NOMEM, "out of memory");
	ipt_cpuset_format_list(r->o.cpus, list, n + 1);
	ret = ipt_strbuf_addf(sb, "%s & CPUS{%s}", e->target ? e->target : "common_cpu", list);
	free(list);
	return ret;
}

/* try_filter - set expr on e; true if the kernel took it, else *why says why */
static bool try_filter(struct ipt_recorder *r, const struct rec_event *e, const char *expr,
		       struct ipt_strbuf *why)
{
	if (!ipt_live_set_filter(r->live, e->sys, e->name, expr))
		return true;
	ipt_strbuf_reset(why);
	ipt_strbuf_adds(why, ipt_errmsg());
	return false;
}

/* filter_event - install the opts.cpus and opts.filter parts the kernel accepts */
static int filter_event(struct ipt_recorder *r, const struct rec_event *e,
			struct ipt_strbuf *final, bool *user_ok)
{
	struct ipt_strbuf cpus = IPT_STRBUF_INIT, why = IPT_STRBUF_INIT;
	bool want_user = r->o.filter && e->send;
	bool cpus_ok = false;
	int ret = -1;

	ipt_strbuf_reset(final);
	*user_ok = false;
	if (cpus_part(r, e, &cpus))
		goto out;
	if (cpus.len) {
		cpus_ok = try_filter(r, e, ipt_strbuf_str(&cpus), &why);
		if (!cpus_ok)
			note(r, IPT_RECORDER_NOTE_INFO, IPT_RECORDER_ABOUT_CPUS,
			     "%s (cpumask filters need Linux 6.6+): recording all of %s:%s",
			     ipt_strbuf_str(&why), e->sys, e->name);
	}
	if (want_user) {
		*user_ok = try_filter(r, e, r->o.filter, &why);
		if (!*user_ok)
			note(r, IPT_RECORDER_NOTE_REJECTED, IPT_RECORDER_ABOUT_FILTER, "%s", ipt_strbuf_str(&why));
	}
	if ((cpus_ok && *user_ok && ipt_strbuf_addf(final, "(%s) && (%s)", ipt_strbuf_str(&cpus), r->o.filter)) ||
	    (cpus_ok && !*user_ok && ipt_strbuf_adds(final, ipt_strbuf_str(&cpus))) ||
	    (!cpus_ok && *user_ok && ipt_strbuf_adds(final, r->o.filter))) {
		ipt_err_code(IPT_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (!ipt_live_set_filter(r->live, e->sys, e->name, ipt_strbuf_str(final)))
		ret = 0;
out:
	ipt_strbuf_free(&cpus);
	ipt_strbuf_free(&why);
	return ret;
}

/* set_stack - the stacktrace trigger of a send event */
static void set_stack(struct ipt_recorder *r, struct rec_event *e, const char *filter)
{
	char *trig;

	if (asprintf(&trig, "stacktrace%s%s", *filter ? " if " : "", filter) < 0) {
		note(r, IPT_RECORDER_NOTE_REJECTED, IPT_RECORDER_ABOUT_STACKS, "out of memory");
		return;
	}
	if (ipt_live_set_trigger(r->live, e->sys, e->name, trig))
		note(r, IPT_RECORDER_NOTE_REJECTED, IPT_RECORDER_ABOUT_STACKS, "no stacks for %s:%s: %s",
		     e->sys, e->name, ipt_errmsg());
	else
		e->stack = true;
	free(trig);
}

/* setup_filters - per-event filters and triggers */
static int setup_filters(struct ipt_recorder *r)
{
	struct ipt_strbuf final = IPT_STRBUF_INIT;
	int sends = 0, accepted = 0, ret = -1;
	bool user_ok = false;

	for (int i = 0; i < r->nev; i++) {
		struct rec_event *e = &r->ev[i];

		if (!e->name || !e->ipi)
			continue;
		ipt_strbuf_reset(&final);
		if ((r->o.cpus || r->o.filter) && filter_event(r, e, &final, &user_ok))
			goto out;
		if (e->send) {
			sends++;
			accepted += user_ok;
			if (r->o.stacks)
				set_stack(r, e, ipt_strbuf_str(&final));
		}
	}
	if (r->o.filter && sends && !accepted) {
		ipt_err_code(IPT_ERR_INVALID, "'%s': rejected by the kernel for every send event",
			     r->o.filter);
		fail_about(r, IPT_RECORDER_ABOUT_FILTER);
		goto out;
	}
	if (r->o.stacks && add_system(r, "ftrace"))
		goto out;
	if (r->o.user_stacks && ipt_live_write(r->live, "options/userstacktrace", "1")) {
		fail_about(r, IPT_RECORDER_ABOUT_USER_STACKS);
		goto out;
	}
	ret = 0;
out:
	ipt_strbuf_free(&final);
	return ret;
}

/* enable_events - turn every chosen event on */
static int enable_events(struct ipt_recorder *r)
{
	for (int i = 0; i < r->nev; i++) {
		const struct rec_event *e = &r->ev[i];

		if (!ipt_live_enable_event(r->live, e->sys, e->name, true))
			continue;
		if (!ipt_live_has_event(r->live, e->sys, e->name))
			ipt_err("%s%s%s: the event was removed from the kernel after it was found (%s)",
				e->sys, e->name ? ":" : "", e->name ? e->name : "", ipt_errmsg());
		return -1;
	}
	return 0;
}

/* ipt_recorder_arm - filters, triggers, events on (tracing still off) */
int ipt_recorder_arm(struct ipt_recorder *r)
{
	r->about = IPT_RECORDER_ABOUT_NONE;
	if (r->o.checkpoint)
		r->o.checkpoint(IPT_RECORDER_PROBED, r->o.arg);
	if (setup_filters(r) || enable_events(r))
		return -1;
	if (r->tracer && ipt_spike_tracer_start(r->tracer))
		return fail_about(r, IPT_RECORDER_ABOUT_TRACER);
	return 0;
}

/* ------------------------------------------------------------------ */
/* running                                                             */
/* ------------------------------------------------------------------ */

/* tsc_sample - now, in TSC cycles and ns (x86 only) */
static void tsc_sample(struct tsc_sample *s)
{
#if defined(__x86_64__) || defined(__i386__)
	struct timespec ts;

	s->tsc = __builtin_ia32_rdtsc();
	if (clock_gettime(CLOCK_MONOTONIC_RAW, &ts))
		return;
	s->ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	s->taken = true;
#else
	(void)s;
#endif
}

/*
 * add_tsc2nsec - with the x86-tsc clock, the TSC2NSEC option trace-cmd
 * reads (u32 mult, u32 shift, u64 offset): ns = cycles * mult >> shift,
 * from the rate measured over the recording (at least 50 ms of it)
 */
static int add_tsc2nsec(struct ipt_recorder *r)
{
	const unsigned int shift = 24;
	uint8_t opt[16];
	double mult;

	if (!r->clock || strcmp(r->clock, "x86-tsc") || !r->tsc_on.taken || !r->tsc_off.taken ||
	    r->tsc_off.tsc <= r->tsc_on.tsc || r->tsc_off.ns <= r->tsc_on.ns)
		return 0;
	mult = (double)(r->tsc_off.ns - r->tsc_on.ns) / (double)(r->tsc_off.tsc - r->tsc_on.tsc) *
	       (double)(1u << shift);
	if (mult < 1 || mult > 4294967295.0)
		return 0;
	ipt_put_uint(opt, 4, false, (uint64_t)(mult + 0.5));
	ipt_put_uint(opt + 4, 4, false, shift);
	ipt_put_uint(opt + 8, 8, false, 0);
	return ipt_tdw_add_option(r->w, 14, opt, sizeof(opt));
}

/* ipt_recorder_start - readers for every online CPU, then tracing on */
int ipt_recorder_start(struct ipt_recorder *r)
{
	struct ipt_capture_opts co = {
		.cpus = &r->online,
		.tmpdir = r->tmpdir,
		.page_size = r->layout.page_size,
		.poll_ms = 100,
	};

	r->cap = ipt_capture_start(r->live, &co);
	if (!r->cap)
		return -1;
	if (r->o.user_stacks) {
		char *fmt;
		size_t len;

		if (ipt_live_read(r->live, "events/ftrace/user_stack/format", &fmt, &len))
			return fail_about(r, IPT_RECORDER_ABOUT_USER_STACKS);
		r->ustacks = ipt_ustacks_start(r->cap, &r->layout, fmt, len);
		free(fmt);
		if (!r->ustacks)
			return fail_about(r, IPT_RECORDER_ABOUT_USER_STACKS);
	}
	tsc_sample(&r->tsc_on);
	if (ipt_live_set_tracing(r->live, true))
		return -1;
	{
		time_t now = time(NULL);
		struct tm tm;

		if (gmtime_r(&now, &tm))
			strftime(r->start_utc, sizeof(r->start_utc), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	irq_snapshot(r, IPT_IRQ_TRACING_ON);
	self_tids(r);
	return 0;
}

/* ipt_recorder_failed - a reader failed */
bool ipt_recorder_failed(const struct ipt_recorder *r)
{
	return r->cap && ipt_capture_failed(r->cap);
}

/* ipt_recorder_failure - the first reader failure */
const char *ipt_recorder_failure(const struct ipt_recorder *r)
{
	return r->cap ? ipt_capture_error(r->cap) : "";
}

/* ipt_recorder_stop - tracing off */
int ipt_recorder_stop(struct ipt_recorder *r)
{
	if (r->tsc_on.taken) {
		tsc_sample(&r->tsc_off);
		/* a rate measured over less than 50 ms would be too coarse */
		if (r->tsc_off.taken && r->tsc_off.ns - r->tsc_on.ns < 50000000ULL) {
			struct timespec w = { 0, (long)(50000000ULL - (r->tsc_off.ns - r->tsc_on.ns)) };

			nanosleep(&w, NULL);
			tsc_sample(&r->tsc_off);
		}
	}
	/* read just before: writing tracing_on 0 wakes the buffer's waiters,
	 * irq_works on this CPU that the trace can no longer hold */
	irq_snapshot(r, IPT_IRQ_TRACING_OFF);
	if (r->live && ipt_live_set_tracing(r->live, false))
		return -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* the file                                                            */
/* ------------------------------------------------------------------ */

/* add_formats_of - every events/SYS/x/format of one system */
static int add_formats_of(struct ipt_recorder *r, const char *sys)
{
	char dir[PATH_MAX], rel[PATH_MAX];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/events/%s", r->live->dir, sys);
	d = opendir(dir);
	if (!d)
		return ipt_err("%s: %s", dir, strerror(errno));
	while (!ret && (de = readdir(d))) {
		char *text;
		size_t len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, de->d_name);
		if (!ipt_live_exists(r->live, rel))
			continue;
		if (ipt_live_read(r->live, rel, &text, &len))
			ret = -1;
		else if (!strcmp(sys, "ftrace"))
			ret = ipt_tdw_add_ftrace_format(r->w, text, len);
		else
			ret = ipt_tdw_add_event_format(r->w, sys, text, len);
		free(text);
	}
	closedir(d);
	return ret;
}

/* add_global_file - a whole tracefs/proc file through a setter */
static int add_global_file(struct ipt_tdw *w, const char *path,
			   int (*set)(struct ipt_tdw *, const char *, size_t))
{
	char *text;
	size_t len;
	int ret;

	if (ipt_file_read(path, &text, &len))
		return -1;
	ret = set(w, text, len);
	free(text);
	return ret;
}

/* add_metadata - formats, symbols, strings, comms */
static int add_metadata(struct ipt_recorder *r)
{
	char path[PATH_MAX + 64];

	if (ipt_tdw_set_headers(r->w, r->header_page, r->hp_len, r->header_event, r->he_len))
		return -1;
	if (add_formats_of(r, "ftrace"))
		return -1;
	for (int i = 0; i < r->nsys; i++)
		if (strcmp(r->systems[i], "ftrace") && add_formats_of(r, r->systems[i]))
			return -1;
	if (add_global_file(r->w, "/proc/kallsyms", ipt_tdw_set_kallsyms))
		return -1;
	snprintf(path, sizeof(path), "%s/printk_formats", r->tracefs);
	if (add_global_file(r->w, path, ipt_tdw_set_printk))
		return -1;
	snprintf(path, sizeof(path), "%s/saved_cmdlines", r->tracefs);
	return add_global_file(r->w, path, ipt_tdw_set_cmdlines);
}

/* add_isolation - the private option with the roles of the CPUs */
static int add_isolation(struct ipt_tdw *w)
{
	struct ipt_strbuf text = IPT_STRBUF_INIT;
	int ret = -1;

	if (!ipt_live_cpu_roles_text(&text))
		ret = ipt_tdw_add_option(w, IPT_OPTION_CPU_ISOLATION, text.buf, (uint32_t)text.len + 1);
	ipt_strbuf_free(&text);
	return ret;
}

/* add_options - clock, uname, version, CPU count, isolation */
static int add_options(struct ipt_recorder *r)
{
	char text[4 * 65 + 8];
	struct utsname u;

	if (ipt_tdw_set_clock(r->w, r->clock_text))
		return -1;
	if (!uname(&u)) {
		snprintf(text, sizeof(text), "%s %s %s %s", u.sysname, u.nodename, u.release,
			 u.machine);
		if (ipt_tdw_set_uname(r->w, text))
			return -1;
	}
	if (ipt_tdw_set_version(r->w, "ipitrace " IPT_VERSION) ||
	    ipt_tdw_set_cpucount(r->w, ipt_cpuset_last(&r->online) + 1) || add_tsc2nsec(r))
		return -1;
	return add_isolation(r->w);
}

/* cpu_stats - stats of one CPU: stored ("CPU: N\n" + text) and counted */
static int cpu_stats(struct ipt_recorder *r, int i)
{
	struct ipt_recorder_cpu *res = &r->res[r->nres];
	int cpu = ipt_capture_cpu(r->cap, i);
	struct ipt_cpu_stats st;
	struct ipt_page_tally pc;
	char rel[64], *text = NULL, *full = NULL;
	int ret = -1;

	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", cpu);
	if (ipt_live_read(r->live, rel, &text, NULL) || ipt_stats_parse(text, &st) ||
	    ipt_pages_count(ipt_capture_fd(r->cap, i), &r->layout, &pc))
		goto out;
	if (asprintf(&full, "CPU: %d\n%s", cpu, text) < 0) {
		full = NULL;
		ipt_err_code(IPT_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (ipt_tdw_add_cpustat(r->w, cpu, full) ||
	    ipt_tdw_set_cpu_fd(r->w, cpu, ipt_capture_fd(r->cap, i)))
		goto out;
	res->cpu = cpu;
	res->events = pc.events;
	res->lost = ipt_stats_lost(&st);
	res->overrun = st.overrun;
	res->commit_overrun = st.commit_overrun;
	res->dropped = st.dropped;
	res->read = st.read;
	res->pages = pc.pages;
	res->missed_pages = pc.missed_pages;
	res->missed_unknown = pc.missed_unknown;
	res->bytes = ipt_capture_bytes(r->cap, i);
	r->nres++;
	ret = 0;
out:
	free(text);
	free(full);
	return ret;
}

/* ipt_recorder_set_command_end - how the command ended, for the provenance */
int ipt_recorder_set_command_end(struct ipt_recorder *r, const char *how)
{
	char *c = how ? strdup(how) : NULL;

	if (how && !c)
		return ipt_err_code(IPT_ERR_NOMEM, "out of memory");
	free(r->command_end);
	r->command_end = c;
	return 0;
}

/* ipt_recorder_collect - drain the readers, prepare the file, read the stats */
int ipt_recorder_collect(struct ipt_recorder *r)
{
	struct ipt_tdw_opts wo = {
		.version = 7,
		.compression = r->o.compression,
		.big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
		.long_size = (int)sizeof(long),
		.page_size = r->layout.page_size,
		.no_replace = r->o.no_replace,
	};
	int n;

	if (!r->cap || ipt_capture_finish(r->cap))
		return -1;
	ipt_ustacks_finish(r->ustacks);
	n = ipt_capture_ncpus(r->cap);
	r->res = calloc((size_t)(n > 0 ? n : 1), sizeof(*r->res));
	if (!r->res)
		return ipt_err_code(IPT_ERR_NOMEM, "out of memory");
	r->w = ipt_tdw_open(r->o.output, &wo);
	if (!r->w)
		return -1;
	if (add_metadata(r) || add_options(r))
		return -1;
	for (int i = 0; i < n; i++)
		if (cpu_stats(r, i))
			return -1;
	return 0;
}

/* remove_instance - triggers off, instance removed; -1 if it stays (noted) */
static int remove_instance(struct ipt_recorder *r)
{
	int ret;

	if (!r->live)
		return 0;
	ipt_live_set_tracing(r->live, false);
	ipt_spike_tracer_off(r->tracer);
	for (int i = 0; i < r->nev; i++)
		if (r->ev[i].stack)
			ipt_live_set_trigger(r->live, r->ev[i].sys, r->ev[i].name, "!stacktrace");
	ret = ipt_live_destroy(r->live);
	r->live = NULL;
	if (ret) {
		r->rm_failed = true;
		note(r, IPT_RECORDER_NOTE_ERROR, IPT_RECORDER_ABOUT_NONE, "%s", ipt_errmsg());
	}
	return ret;
}

/* kv - one "key=value" line, the value on one line */
static int kv(struct ipt_strbuf *sb, const char *key, const char *value)
{
	if (!value)
		return 0;
	if (ipt_strbuf_addf(sb, "%s=", key))
		return -1;
	for (const char *c = value; *c; c++)
		if (ipt_strbuf_add(sb, *c == '\n' || *c == '\r' ? " " : c, 1))
			return -1;
	return ipt_strbuf_add(sb, "\n", 1);
}

/* tracer_provenance - opts.tracer's lines: tracer, tracer_cpus, its period and threshold */
static int tracer_provenance(const struct ipt_recorder *r, struct ipt_strbuf *sb)
{
	char cpus[512] = "";

	if (!r->o.tracer)
		return 0;
	ipt_cpuset_format_list(&r->tracer_cpus, cpus, sizeof(cpus));
	return ipt_strbuf_addf(sb, "tracer=%s\ntracer_cpus=%s\ntracer_period_us=%lu\n"
			       "tracer_threshold_us=%lu\n", r->o.tracer, cpus, r->o.tracer_period_us,
			       r->o.tracer_threshold_us);
}

/* add_provenance - how this recording was made, for the file */
static int add_provenance(struct ipt_recorder *r)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT, evs = IPT_STRBUF_INIT;
	char cpus[512] = "", buf[32];
	int ret = -1;

	for (int i = 0; i < r->nev; i++)
		if (ipt_strbuf_addf(&evs, "%s%s%s%s", evs.len ? "," : "", r->ev[i].sys,
				    r->ev[i].name ? ":" : "", r->ev[i].name ? r->ev[i].name : ""))
			goto out;
	if (r->o.cpus)
		ipt_cpuset_format_list(r->o.cpus, cpus, sizeof(cpus));
	snprintf(buf, sizeof(buf), "%lu", r->o.buffer_kb);
	if (kv(&sb, "recorder", "ipitrace " IPT_VERSION) || kv(&sb, "command_line", r->o.command_line) ||
	    kv(&sb, "command", r->o.command) || kv(&sb, "command_end", r->command_end) ||
	    kv(&sb, "events", evs.len ? evs.buf : "") ||
	    kv(&sb, "filter", r->o.filter && *r->o.filter ? r->o.filter : NULL) ||
	    kv(&sb, "cpus", r->o.cpus ? cpus : NULL) || kv(&sb, "stacks", r->o.stacks ? "yes" : "no") ||
	    kv(&sb, "user_stacks", r->o.user_stacks ? "yes" : NULL) ||
	    kv(&sb, "buffer_kb", buf) || kv(&sb, "clock", r->clock) ||
	    kv(&sb, "start_utc", *r->start_utc ? r->start_utc : NULL) ||
	    kv(&sb, "recorder_pids", r->self_tids) || tracer_provenance(r, &sb))
		goto out;
	ret = ipt_tdw_add_option(r->w, IPT_OPTION_PROVENANCE, sb.buf, (uint32_t)sb.len + 1);
out:
	ipt_strbuf_free(&sb);
	ipt_strbuf_free(&evs);
	return ret;
}

/* add_user_symbols - the user stacks' addresses resolved, for the file, and said */
static int add_user_symbols(struct ipt_recorder *r)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	struct ipt_ustacks_stats st;
	int ret = -1;

	if (!r->ustacks)
		return 0;
	if (ipt_ustacks_option(r->ustacks, &sb, &st) || ipt_strbuf_addc(&sb, '\0'))
		goto out;
	ret = ipt_tdw_add_option(r->w, IPT_OPTION_USER_SYMBOLS, sb.buf, (uint32_t)sb.len);
	if (!ret) {
		char gone[96] = "";

		if (st.gone)
			snprintf(gone, sizeof(gone), " (%zu exited before their maps could be read)", st.gone);
		note(r, IPT_RECORDER_NOTE_INFO, IPT_RECORDER_ABOUT_USER_STACKS,
		     "user stacks: %llu recorded (%llu in interrupt context, left out), %zu processes%s, "
		     "%zu addresses, %zu of them named", (unsigned long long)st.records,
		     (unsigned long long)st.in_irq, st.processes, gone, st.addresses, st.resolved);
	}
out:
	ipt_strbuf_free(&sb);
	return ret;
}

/* ipt_recorder_write - remove the instance, then commit the file */
int ipt_recorder_write(struct ipt_recorder *r)
{
	struct ipt_tdw *w = r->w;

	if (!w)
		return ipt_err("recording: nothing collected");
	remove_instance(r);
	if (r->kprobes && ipt_kprobes_option(r->kprobes)) {
		const char *o;
		uint64_t missed = 0;

		if (ipt_kprobes_count_missed(r->kprobes, &missed))
			note(r, IPT_RECORDER_NOTE_ERROR, IPT_RECORDER_ABOUT_NONE, "%s", ipt_errmsg());
		else if (missed)
			note(r, IPT_RECORDER_NOTE_INFO, IPT_RECORDER_ABOUT_NONE,
			     "the kernel missed %llu hits of the probes (a kprobe hit while another "
			     "runs on that CPU): those sends are not in the file",
			     (unsigned long long)missed);
		o = ipt_kprobes_option(r->kprobes);
		if (ipt_tdw_add_option(w, IPT_OPTION_PROBES, o, (uint32_t)strlen(o) + 1))
			return -1;
	}
	remove_kprobes(r);
	restore_tracer(r);
	irq_snapshot(r, IPT_IRQ_AFTER_TEARDOWN);
	if (add_provenance(r) || add_user_symbols(r) ||
	    (r->irqs.len && ipt_tdw_add_option(w, IPT_OPTION_INTERRUPTS, r->irqs.buf, (uint32_t)r->irqs.len + 1)))
		return -1;
	if (r->o.checkpoint)
		r->o.checkpoint(IPT_RECORDER_WRITING, r->o.arg);
	r->w = NULL;
	return ipt_tdw_commit(w);
}

/* ipt_recorder_close - undo everything still in place */
int ipt_recorder_close(struct ipt_recorder *r)
{
	if (!r)
		return 0;
	ipt_tdw_abort(r->w);
	r->w = NULL;
	if (r->live)
		ipt_live_set_tracing(r->live, false);
	ipt_ustacks_free(r->ustacks);	/* its thread reads the capture's files */
	r->ustacks = NULL;
	ipt_capture_free(r->cap);
	r->cap = NULL;
	remove_instance(r);
	remove_kprobes(r);
	restore_tracer(r);
	return r->rm_failed || r->tracer_failed ? -1 : 0;
}

/* ipt_recorder_free - close and release, the caller's affinity restored */
void ipt_recorder_free(struct ipt_recorder *r)
{
	if (!r)
		return;
	ipt_recorder_close(r);
	if (r->pinned)
		sched_setaffinity(0, sizeof(r->orig_affinity), &r->orig_affinity);
	for (int i = 0; i < r->nev; i++) {
		free(r->ev[i].sys);
		free(r->ev[i].name);
	}
	free(r->ev);
	for (int i = 0; i < r->nsys; i++)
		free(r->systems[i]);
	free(r->systems);
	free(r->probed);
	free(r->res);
	free(r->prog_off);
	free(r->header_page);
	free(r->header_event);
	free(r->clock_text);
	ipt_cpuset_free(&r->online);
	ipt_cpuset_free(&r->pin);
	ipt_cpuset_free(&r->tracer_cpus);
	free(r->command_line);
	free(r->command);
	free(r->command_end);
	free(r->self_tids);
	ipt_strbuf_free(&r->irqs);
	free(r);
}

/* ------------------------------------------------------------------ */
/* accessors                                                           */
/* ------------------------------------------------------------------ */

/* read_send_ids - the type ids of the send events enabled (events/SYS/NAME/id) */
static void read_send_ids(struct ipt_recorder *r)
{
	r->ids_read = true;
	for (int i = 0; i < r->nev && r->nsend_ids < (int)(sizeof(r->send_ids) / sizeof(r->send_ids[0])); i++) {
		char path[PATH_MAX + 128], *text = NULL, *end;
		unsigned long id;

		if (!r->ev[i].send || !r->ev[i].name)
			continue;
		snprintf(path, sizeof(path), "%s/events/%s/%s/id", r->tracefs, r->ev[i].sys, r->ev[i].name);
		if (ipt_file_read(path, &text, NULL))
			continue;
		id = strtoul(text, &end, 10);
		if (end != text && id <= UINT16_MAX)
			r->send_ids[r->nsend_ids++] = (uint16_t)id;
		free(text);
	}
	r->prog.ids = r->send_ids;
	r->prog.nids = r->nsend_ids;
}

/* progress_cpu - count the whole pages slot i captured since the last call */
static void progress_cpu(struct ipt_recorder *r, int i, uint8_t *buf, size_t chunk)
{
	uint32_t ps = r->layout.page_size;
	uint64_t have = ipt_capture_bytes(r->cap, i) / ps * ps;
	bool be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

	while (r->prog_off[i] < have) {
		size_t want = have - r->prog_off[i] < chunk ? (size_t)(have - r->prog_off[i]) : chunk;
		ssize_t n = pread(ipt_capture_fd(r->cap, i), buf, want, (off_t)r->prog_off[i]);

		if (n < (ssize_t)ps)
			return;		/* counting is best effort */
		n = n / ps * ps;
		for (ssize_t k = 0; k < n; k += ps)
			ipt_page_tally_add(&r->prog, buf + k, &r->layout, be);
		r->prog_off[i] += (uint64_t)n;
	}
}

/* ipt_recorder_progress - the counts so far of a running recording */
int ipt_recorder_progress(struct ipt_recorder *r, struct ipt_recorder_progress *p)
{
	size_t chunk;
	uint8_t *buf;
	int n;

	memset(p, 0, sizeof(*p));
	if (!r->cap || !r->live || !r->layout.page_size)
		return ipt_err_code(IPT_ERR_INVALID, "recording: not running");
	n = ipt_capture_ncpus(r->cap);
	if (!r->prog_off && !(r->prog_off = calloc((size_t)(n > 0 ? n : 1), sizeof(*r->prog_off))))
		return ipt_err_code(IPT_ERR_NOMEM, "out of memory");
	if (!r->ids_read)
		read_send_ids(r);
	chunk = (size_t)r->layout.page_size * 64;
	buf = ipt_malloc(chunk);
	if (!buf)
		return -1;
	for (int i = 0; i < n; i++) {
		char rel[64], *text = NULL;
		struct ipt_cpu_stats st;

		progress_cpu(r, i, buf, chunk);
		p->bytes += ipt_capture_bytes(r->cap, i);
		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", ipt_capture_cpu(r->cap, i));
		if (!ipt_live_read(r->live, rel, &text, NULL) && !ipt_stats_parse(text, &st))
			p->lost += ipt_stats_lost(&st);
		free(text);
	}
	free(buf);
	p->events = r->prog.events;
	p->sends = r->prog.id_events;
	p->missed = r->prog.missed_events;
	p->missed_unknown = r->prog.missed_unknown;
	return 0;
}

/* ipt_recorder_cpus - the CPUs recorded (online) */
const struct ipt_cpuset *ipt_recorder_cpus(const struct ipt_recorder *r)
{
	return &r->online;
}

/* ipt_recorder_readers - the CPUs the readers run on */
const struct ipt_cpuset *ipt_recorder_readers(const struct ipt_recorder *r)
{
	return &r->pin;
}

/* ipt_recorder_clock - the trace clock chosen */
const char *ipt_recorder_clock(const struct ipt_recorder *r)
{
	return r->clock ? r->clock : "";
}

/* ipt_recorder_buffer_kb - the per-CPU buffer size */
unsigned long ipt_recorder_buffer_kb(const struct ipt_recorder *r)
{
	return r->o.buffer_kb;
}

/* ipt_recorder_tracer_stopped - the kernel stopped the tracing at a threshold */
bool ipt_recorder_tracer_stopped(const struct ipt_recorder *r)
{
	return r->tracer && ipt_spike_tracer_stopped(r->tracer);
}

/* ipt_recorder_tracer_cpus - the tracer's CPUs */
const struct ipt_cpuset *ipt_recorder_tracer_cpus(const struct ipt_recorder *r)
{
	return &r->tracer_cpus;
}

/* ipt_recorder_error - what the last failure was about */
enum ipt_recorder_about ipt_recorder_error(const struct ipt_recorder *r)
{
	return r->about;
}

/* ipt_recorder_ncpus - how many CPU results */
int ipt_recorder_ncpus(const struct ipt_recorder *r)
{
	return r->nres;
}

/* ipt_recorder_cpu - one CPU's result */
const struct ipt_recorder_cpu *ipt_recorder_cpu(const struct ipt_recorder *r, int i)
{
	return i >= 0 && i < r->nres ? &r->res[i] : NULL;
}
