// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_record.c - `ipitrace record`: capture IPIs from the live kernel into
 * a trace.dat that trace-cmd and KernelShark read.
 *
 * The recorder works in its own tracefs instance (instances/ipitrace-<pid>)
 * and removes it at the end, so the top-level buffer and other tools'
 * instances are never touched.  Per-CPU data is spliced from trace_pipe_raw
 * by reader threads pinned to housekeeping CPUs that poll by sleeping (see
 * lib/live.h): the recorder sends no wake-up IPIs to the CPUs it watches.
 * The file appears under its name only once complete (temporary file +
 * rename in lib/tracedat_write.c).
 */
#include "commands.h"
#include "input/input.h"
#include "render/render.h"
#include "live/live.h"
#include "output/tracedat_write.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_OUTPUT		"ipitrace.dat"
#define DEFAULT_BUFFER_KB	4096
#define CHILD_GRACE_S		5

enum role { R_SEND, R_QUEUE, R_RECV };
enum arch { A_ANY, A_X86, A_ARM };

/* The IPI events the recorder knows, probed in this order. */
static const struct ipi_event {
	const char *sys, *name;
	enum role role;
	const char *target;	/* field naming the target CPU(s); NULL: common_cpu */
	enum arch arch;
	const char *since;	/* first kernel with it, for the "missing" note */
} ipi_events[] = {
	{ "ipi", "ipi_send_cpu", R_SEND, "cpu", A_ANY, "6.4" },
	{ "ipi", "ipi_send_cpumask", R_SEND, "cpumask", A_ANY, "6.4" },
	{ "csd", "csd_queue_cpu", R_QUEUE, "cpu", A_ANY, "6.5" },
	{ "csd", "csd_function_entry", R_RECV, NULL, A_ANY, "6.5" },
	{ "csd", "csd_function_exit", R_RECV, NULL, A_ANY, "6.5" },
	{ "irq_vectors", "reschedule_entry", R_RECV, NULL, A_X86, NULL },
	{ "irq_vectors", "reschedule_exit", R_RECV, NULL, A_X86, NULL },
	{ "irq_vectors", "call_function_entry", R_RECV, NULL, A_X86, NULL },
	{ "irq_vectors", "call_function_exit", R_RECV, NULL, A_X86, NULL },
	{ "irq_vectors", "call_function_single_entry", R_RECV, NULL, A_X86, NULL },
	{ "irq_vectors", "call_function_single_exit", R_RECV, NULL, A_X86, NULL },
	{ "irq_vectors", "irq_work_entry", R_RECV, NULL, A_X86, NULL },
	{ "irq_vectors", "irq_work_exit", R_RECV, NULL, A_X86, NULL },
	{ "irq_vectors", "x86_platform_ipi_entry", R_RECV, NULL, A_X86, NULL },
	{ "irq_vectors", "x86_platform_ipi_exit", R_RECV, NULL, A_X86, NULL },
	{ "ipi", "ipi_raise", R_SEND, "target_cpus", A_ARM, NULL },
	{ "ipi", "ipi_entry", R_RECV, NULL, A_ARM, NULL },
	{ "ipi", "ipi_exit", R_RECV, NULL, A_ARM, NULL },
};

struct rec_opts {
	const char *output;
	double duration;		/* seconds; 0 = until COMMAND ends or a signal */
	struct ipt_cpuset cpus;		/* --cpus: only IPIs targeting these */
	bool have_cpus;
	const char *filter;		/* --filter: ANDed to the send events */
	bool stacks;
	const char *extra;		/* --events */
	const char *clock;
	unsigned long buffer_kb;
	struct ipt_cpuset hk;		/* --housekeeping */
	bool have_hk;
	const char *compression;
	bool quiet;
	char **command;			/* after --, NULL-terminated */
};

/* One event the recorder enabled. */
struct rec_event {
	char *sys, *name;		/* name NULL: a whole system (--events sys) */
	enum role role;
	const char *target;
	bool ipi;			/* from ipi_events[] (else --events) */
	bool stack;			/* a stacktrace trigger is installed */
};

struct recorder {
	struct rec_opts o;
	char tracefs[PATH_MAX];
	char tmpdir[PATH_MAX];
	struct ipt_live *live;
	struct rec_event *ev;
	int nev;
	char **systems;			/* systems whose formats go in the file */
	int nsys;
	struct ipt_cpuset online;
	struct ipt_cpuset pin;		/* where the recorder's threads run */
	cpu_set_t orig_affinity;
	struct ipt_capture *cap;
	struct ipt_page_geometry geo;
	char *header_page, *header_event;
	size_t hp_len, he_len;
	char *clock_text;
	sigset_t sigs;
	pid_t child;
	int child_status;
	bool child_done;
	int go_fd, err_fd;		/* COMMAND's start and exec-error pipes */
	int stop_signal;
	double t_start, t_stop;
	uint64_t total_events, total_lost;
};

/* record_usage - the --help text */
static void record_usage(FILE *f)
{
	fprintf(f,
		"usage: ipitrace record [OPTIONS] [-- COMMAND [ARGS...]]\n"
		"\n"
		"Record inter-processor interrupts from the live kernel into a trace.dat (v7,\n"
		"zstd) that `ipitrace report`, `trace-cmd report` and KernelShark read.  Needs\n"
		"root and tracefs (mounted at " IPT_LIVE_TRACEFS " if it is not mounted; it is\n"
		"left mounted, as other tools may use it).\n"
		"\n"
		"Events: every IPI event this kernel has is enabled, and listed on stderr with\n"
		"the ones missing: ipi:ipi_send_cpu and ipi:ipi_send_cpumask (Linux 6.4+, one per\n"
		"IPI sent, with call site, callback and target CPUs), csd:* (6.5+: the function\n"
		"queued for a CPU and its execution there), and the receive side: on x86\n"
		"irq_vectors:{reschedule,call_function,call_function_single,irq_work,\n"
		"x86_platform_ipi}_{entry,exit}; on arm64 ipi:ipi_raise/ipi_entry/ipi_exit.\n"
		"\n"
		"The recording ends after -d SECONDS, when COMMAND exits, or on SIGINT (Ctrl-C),\n"
		"SIGTERM or SIGHUP; a COMMAND still running then gets the same signal (SIGTERM\n"
		"after -d) and is waited for (5 s, then SIGKILL).  COMMAND starts once tracing\n"
		"is on, with the recorder's original CPU affinity.  At the end the events\n"
		"recorded and lost on each CPU are printed on stderr (lost: the kernel's\n"
		"overrun and dropped counters, also stored in the file's per-CPU stats, and\n"
		"the ring buffer's missed-events marks).\n"
		"\n"
		"Options:\n"
		"  -o, --output FILE     output file (default " DEFAULT_OUTPUT "); it appears only\n"
		"                        when complete (temporary name + rename), mode 0600;\n"
		"                        \"-\" writes to standard output\n"
		"  -d, --duration SECS   stop after SECS seconds (fractions allowed)\n"
		"  -c, --cpus LIST       only IPIs that target these CPUs (e.g. 2-5,8): kernel\n"
		"                        filters 'cpu & CPUS{LIST}' on ipi_send_cpu and\n"
		"                        csd_queue_cpu, 'cpumask & CPUS{LIST}' on\n"
		"                        ipi_send_cpumask, and the receive events only on LIST.\n"
		"                        Needs Linux 6.6+ cpumask filters; on older kernels\n"
		"                        everything is recorded (and this is said)\n"
		"  -f, --filter EXPR     an extra kernel filter ANDed to the send events\n"
		"                        (ipi_send_cpu, ipi_send_cpumask, ipi_raise), in the\n"
		"                        kernel's syntax, e.g. 'callback == 0' or\n"
		"                        'common_pid != 0'\n"
		"  -s, --stacks          record the kernel stack of each (filtered) send, with\n"
		"                        a 'stacktrace' trigger (events ftrace:kernel_stack)\n"
		"  -e, --events LIST     more events to record: comma-separated SYS:NAME,\n"
		"                        SYS:* or SYS (e.g. sched:sched_switch,irq:*)\n"
		"  -C, --clock NAME      trace clock (default: mono if offered, else global).\n"
		"                        Timestamps must compare across CPUs to order a send\n"
		"                        on one CPU before its receipt on another: 'local' is\n"
		"                        per-CPU and not ordered across CPUs; 'mono' is global\n"
		"                        and in nanoseconds\n"
		"  -b, --buffer-kb N     per-CPU ring buffer of the instance in KiB (default\n"
		"                        %d: no loss at ipi-workload's highest rate with the\n"
		"                        100 ms polling)\n"
		"  -H, --housekeeping LIST  CPUs the recorder's own threads run on (default:\n"
		"                        the CPUs neither isolated nor nohz_full; if no CPU\n"
		"                        is isolated, the first CPU, so the others are left\n"
		"                        alone)\n"
		"  -Z, --compression C   none or zstd (default); trace-cmd reads both\n"
		"  -q, --quiet           only errors and the lost-events warning on stderr\n"
		"  -h, --help            this text\n"
		"\n"
		"The readers never block on a CPU's buffer (which would make the kernel send\n"
		"irq_work wake-up IPIs to the CPUs being watched): they poll trace_pipe_raw\n"
		"every 100 ms and splice whole pages into per-CPU temporary files next to the\n"
		"output.  tracefs is left as found: the instance (with its filters and\n"
		"triggers) is removed at the end; instances of recorders that were killed\n"
		"(SIGKILL) are removed by the next run.  /proc/sys/kernel/ftrace_enabled is\n"
		"neither needed nor written.\n"
		"\n"
		"Exit status: COMMAND's exit status if given (128+N if killed by signal N),\n"
		"else 0; 1 on a runtime error (not root, no tracefs, disk full, ...: one line on\n"
		"stderr, no file left under the output name); 2 on a usage error.\n",
		DEFAULT_BUFFER_KB);
}

/* info - an informative line on stderr unless --quiet */
static void info(const struct recorder *r, const char *fmt, ...) IPT_PRINTF(2, 3);
static void info(const struct recorder *r, const char *fmt, ...)
{
	va_list ap;

	if (r->o.quiet)
		return;
	fputs("ipitrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* now_s - monotonic seconds */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* cpulist - a CPU set as text in buf, for messages (cut if too long) */
static const char *cpulist(const struct ipt_cpuset *set, char *buf, size_t size)
{
	ipt_cpuset_format_list(set, buf, size);
	return buf;
}

/* parse_cpus_opt - a CPU list option */
static int parse_cpus_opt(struct ipt_cpuset *set, const char *opt, const char *arg)
{
	if (ipt_cpuset_parse_list(set, arg, strlen(arg)) || ipt_cpuset_empty(set)) {
		err_msg("%s: bad CPU list '%s'", opt, arg);
		return -1;
	}
	return 0;
}

/* parse_opt - one option; 0 ok, 2 usage error, 3 --help */
static int parse_opt(struct rec_opts *o, int c)
{
	char *end;

	switch (c) {
	case 'o': o->output = optarg; return 0;
	case 'd':
		o->duration = strtod(optarg, &end);
		if (*end || end == optarg || !(o->duration > 0)) {
			err_msg("-d: bad duration '%s'", optarg);
			return 2;
		}
		return 0;
	case 'c':
		o->have_cpus = true;
		return parse_cpus_opt(&o->cpus, "--cpus", optarg) ? 2 : 0;
	case 'f':
		if (strchr(optarg, '\n') || !*optarg) {
			err_msg("--filter: bad expression");
			return 2;
		}
		o->filter = optarg;
		return 0;
	case 's': o->stacks = true; return 0;
	case 'e': o->extra = optarg; return 0;
	case 'C': o->clock = optarg; return 0;
	case 'b':
		errno = 0;
		o->buffer_kb = strtoul(optarg, &end, 10);
		if (errno || *end || end == optarg || !o->buffer_kb || o->buffer_kb > (1UL << 30)) {
			err_msg("--buffer-kb: bad size '%s'", optarg);
			return 2;
		}
		return 0;
	case 'H':
		o->have_hk = true;
		return parse_cpus_opt(&o->hk, "--housekeeping", optarg) ? 2 : 0;
	case 'Z':
		if (strcmp(optarg, "none") && strcmp(optarg, "zstd")) {
			err_msg("--compression: '%s' is not none or zstd", optarg);
			return 2;
		}
		o->compression = optarg;
		return 0;
	case 'q': o->quiet = true; return 0;
	case 'h': return 3;
	default: return 2;
	}
}

/* parse_args - options and COMMAND; 0 ok, else the exit code (-1: --help) */
static int parse_args(struct rec_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "filter", required_argument, NULL, 'f' },
		{ "stacks", no_argument, NULL, 's' },
		{ "events", required_argument, NULL, 'e' },
		{ "clock", required_argument, NULL, 'C' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "housekeeping", required_argument, NULL, 'H' },
		{ "compression", required_argument, NULL, 'Z' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	o->output = DEFAULT_OUTPUT;
	o->buffer_kb = DEFAULT_BUFFER_KB;
	o->compression = "zstd";
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:d:c:f:se:C:b:H:Z:qh", longopts, NULL)) != -1) {
		ret = parse_opt(o, c);
		if (ret == 3)
			return -1;
		if (ret) {
			fprintf(stderr, "usage: ipitrace record [OPTIONS] [-- COMMAND...] "
				"(ipitrace record --help)\n");
			return 2;
		}
	}
	if (optind < argc)
		o->command = argv + optind;
	if (!*o->output) {
		err_msg("-o: empty file name");
		return 2;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* setup                                                               */
/* ------------------------------------------------------------------ */

/* report_stale - say that a stale instance was removed */
static void report_stale(const char *dir, void *arg)
{
	info(arg, "removed %s, left by a recorder that no longer runs", dir);
}

/* find_tracefs - root check, tracefs location, stale instances */
static int find_tracefs(struct recorder *r)
{
	char path[PATH_MAX + 64];
	bool mounted;

	if (geteuid() != 0) {
		err_msg("record needs root (tracefs); to read a trace instead: ipitrace report FILE");
		return -1;
	}
	if (ipt_tracefs_find(r->tracefs, sizeof(r->tracefs), true, &mounted)) {
		err_msg("%s", ipt_errmsg());
		return -1;
	}
	if (mounted)
		info(r, "mounted tracefs at %s (left mounted)", r->tracefs);
	snprintf(path, sizeof(path), "%s/instances", r->tracefs);
	if (access(path, W_OK)) {
		err_msg("%s: %s (tracefs instances are needed)", path, strerror(errno));
		return -1;
	}
	if (ipt_live_remove_stale(r->tracefs, report_stale, r) < 0)
		debug_msg("stale instances: %s", ipt_errmsg());
	return 0;
}

/* choose_pin - CPUs for the recorder's threads, and pin the process there */
static int choose_pin(struct recorder *r)
{
	struct ipt_cpuset allowed = IPT_CPUSET_INIT;
	cpu_set_t set;
	int ret = -1, c;

	ipt_cpuset_init(&allowed);
	if (sched_getaffinity(0, sizeof(r->orig_affinity), &r->orig_affinity)) {
		err_msg("sched_getaffinity: %s", strerror(errno));
		goto out;
	}
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &r->orig_affinity) && ipt_cpuset_add(&allowed, (unsigned int)c))
			goto out;
	if (r->o.have_hk) {
		if (ipt_cpuset_copy(&r->pin, &r->o.hk))
			goto out;
	} else if (ipt_housekeeping_cpus(&r->pin, &r->online, &allowed)) {
		err_msg("%s", ipt_errmsg());
		goto out;
	}
	CPU_ZERO(&set);
	for (c = ipt_cpuset_next(&r->pin, 0); c >= 0 && c < CPU_SETSIZE;
	     c = ipt_cpuset_next(&r->pin, (unsigned int)c + 1))
		CPU_SET(c, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		char b[256];

		err_msg("cannot run on CPUs %s: %s", cpulist(&r->pin, b, sizeof(b)),
			strerror(errno));
		goto out;
	}
	ret = 0;
out:
	ipt_cpuset_free(&allowed);
	return ret;
}

/* add_system - remember a system whose formats go in the file */
static int add_system(struct recorder *r, const char *sys)
{
	char **ns;

	for (int i = 0; i < r->nsys; i++)
		if (!strcmp(r->systems[i], sys))
			return 0;
	ns = realloc(r->systems, (size_t)(r->nsys + 1) * sizeof(*ns));
	if (!ns)
		return -1;
	r->systems = ns;
	r->systems[r->nsys] = strdup(sys);
	if (!r->systems[r->nsys])
		return -1;
	r->nsys++;
	return 0;
}

/* add_event - append an event to enable */
static int add_event(struct recorder *r, const char *sys, const char *name, enum role role,
		     const char *target, bool ipi)
{
	struct rec_event *ne = realloc(r->ev, (size_t)(r->nev + 1) * sizeof(*ne));
	struct rec_event *e;

	if (!ne)
		goto oom;
	r->ev = ne;
	e = &r->ev[r->nev];
	memset(e, 0, sizeof(*e));
	e->sys = strdup(sys);
	e->name = name ? strdup(name) : NULL;
	if (!e->sys || (name && !e->name)) {
		free(e->sys);
		free(e->name);
		goto oom;
	}
	e->role = role;
	e->target = target;
	e->ipi = ipi;
	r->nev++;
	if (add_system(r, sys))
		goto oom;
	return 0;
oom:
	err_msg("out of memory");
	return -1;
}

/* machine_arch - A_X86, A_ARM or A_ANY (other) from uname */
static enum arch machine_arch(void)
{
	struct utsname u;

	if (uname(&u))
		return A_ANY;
	if (strstr(u.machine, "86"))
		return A_X86;
	if (!strncmp(u.machine, "arm", 3) || !strncmp(u.machine, "aarch64", 7))
		return A_ARM;
	return A_ANY;
}

/* probe_events - pick the IPI events this kernel has; say what is missing */
static int probe_events(struct recorder *r)
{
	struct ipt_strbuf have = IPT_STRBUF_INIT, miss = IPT_STRBUF_INIT;
	enum arch arch = machine_arch();
	bool send = false;
	int ret = -1;

	for (size_t i = 0; i < ARRAY_SIZE(ipi_events); i++) {
		const struct ipi_event *d = &ipi_events[i];

		if (ipt_live_has_event(r->live, d->sys, d->name)) {
			if (add_event(r, d->sys, d->name, d->role, d->target, true))
				goto out;
			ipt_strbuf_addf(&have, " %s:%s", d->sys, d->name);
			send |= d->role == R_SEND;
		} else if (d->arch == A_ANY || d->arch == arch) {
			ipt_strbuf_addf(&miss, " %s:%s", d->sys, d->name);
			if (d->since)
				ipt_strbuf_addf(&miss, " (Linux %s+)", d->since);
		}
	}
	if (!r->nev) {
		err_msg("%s/events: this kernel has none of the IPI trace events", r->tracefs);
		goto out;
	}
	info(r, "events:%s", ipt_strbuf_str(&have));
	if (miss.len)
		info(r, "missing in this kernel:%s", ipt_strbuf_str(&miss));
	if (!send)
		info(r, "no IPI send event here: recording the receive side only");
	ret = 0;
out:
	ipt_strbuf_free(&have);
	ipt_strbuf_free(&miss);
	return ret;
}

/* add_extra_one - one --events item: SYS:NAME, SYS:* or SYS */
static int add_extra_one(struct recorder *r, char *item)
{
	char *colon = strchr(item, ':');
	const char *name = NULL;

	if (colon) {
		*colon = 0;
		if (strcmp(colon + 1, "*"))
			name = colon + 1;
	}
	if (!*item || (name && !*name) || strchr(item, '/') || (name && strchr(name, '/'))) {
		err_msg("--events: bad event '%s'", item);
		return -1;
	}
	if (!ipt_live_has_event(r->live, item, name)) {
		err_msg("--events: no event %s%s%s in this kernel (see %s/available_events)",
			item, name ? ":" : "", name ? name : "", r->tracefs);
		return -1;
	}
	return add_event(r, item, name, R_RECV, NULL, false);
}

/* add_extra - the --events list */
static int add_extra(struct recorder *r)
{
	char *copy, *tok, *save = NULL;
	int ret = 0;

	if (!r->o.extra)
		return 0;
	copy = strdup(r->o.extra);
	if (!copy) {
		err_msg("out of memory");
		return -1;
	}
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save))
		ret = add_extra_one(r, tok);
	free(copy);
	return ret;
}

/* cpuset_text - a CPU set as a cpulist in a new string (NULL: out of memory) */
static char *cpuset_text(const struct ipt_cpuset *set)
{
	size_t n = ipt_cpuset_format_list(set, NULL, 0);
	char *text = malloc(n + 1);

	if (text)
		ipt_cpuset_format_list(set, text, n + 1);
	return text;
}

/* cpus_part - the --cpus filter of an event (empty when none applies) */
static int cpus_part(const struct recorder *r, const struct rec_event *e,
		     struct ipt_strbuf *sb)
{
	char *list;
	int ret;

	ipt_strbuf_reset(sb);
	if (!r->o.have_cpus || !e->ipi)
		return 0;
	list = cpuset_text(&r->o.cpus);
	if (!list)
		return -1;
	ret = ipt_strbuf_addf(sb, "%s & CPUS{%s}", e->target ? e->target : "common_cpu", list);
	free(list);
	return ret;
}

/* try_filter - set expr on e; true if the kernel took it, else *why says why */
static bool try_filter(struct recorder *r, const struct rec_event *e, const char *expr,
		       struct ipt_strbuf *why)
{
	if (!ipt_live_set_filter(r->live, e->sys, e->name, expr))
		return true;
	ipt_strbuf_reset(why);
	ipt_strbuf_adds(why, ipt_errmsg());
	return false;
}

/* filter_event - install the --cpus and --filter parts the kernel accepts */
static int filter_event(struct recorder *r, const struct rec_event *e,
			struct ipt_strbuf *final, bool *user_ok)
{
	struct ipt_strbuf cpus = IPT_STRBUF_INIT, why = IPT_STRBUF_INIT;
	bool want_user = r->o.filter && e->role == R_SEND;
	bool cpus_ok = false;
	int ret = -1;

	ipt_strbuf_reset(final);
	*user_ok = false;
	if (cpus_part(r, e, &cpus))
		goto oom;
	if (cpus.len) {
		cpus_ok = try_filter(r, e, ipt_strbuf_str(&cpus), &why);
		if (!cpus_ok)
			info(r, "%s (cpumask filters need Linux 6.6+): recording all of %s:%s",
			     ipt_strbuf_str(&why), e->sys, e->name);
	}
	if (want_user) {
		*user_ok = try_filter(r, e, r->o.filter, &why);
		if (!*user_ok)
			info(r, "--filter: %s", ipt_strbuf_str(&why));
	}
	if ((cpus_ok && *user_ok && ipt_strbuf_addf(final, "(%s) && (%s)", ipt_strbuf_str(&cpus), r->o.filter)) ||
	    (cpus_ok && !*user_ok && ipt_strbuf_adds(final, ipt_strbuf_str(&cpus))) ||
	    (!cpus_ok && *user_ok && ipt_strbuf_adds(final, r->o.filter)))
		goto oom;
	if (ipt_live_set_filter(r->live, e->sys, e->name, ipt_strbuf_str(final)))
		err_msg("%s", ipt_errmsg());
	else
		ret = 0;
	goto out;
oom:
	err_msg("out of memory");
out:
	ipt_strbuf_free(&cpus);
	ipt_strbuf_free(&why);
	return ret;
}

/* set_stack - the stacktrace trigger of a send event */
static void set_stack(struct recorder *r, struct rec_event *e, const char *filter)
{
	char *trig;

	if (asprintf(&trig, "stacktrace%s%s", *filter ? " if " : "", filter) < 0) {
		info(r, "--stacks: out of memory");
		return;
	}
	if (ipt_live_set_trigger(r->live, e->sys, e->name, trig))
		info(r, "--stacks: no stacks for %s:%s: %s", e->sys, e->name, ipt_errmsg());
	else
		e->stack = true;
	free(trig);
}

/* setup_filters - per-event filters and triggers */
static int setup_filters(struct recorder *r)
{
	struct ipt_strbuf final = IPT_STRBUF_INIT;
	int sends = 0, accepted = 0, ret = -1;
	bool user_ok = false;

	for (int i = 0; i < r->nev; i++) {
		struct rec_event *e = &r->ev[i];

		if (!e->name || !e->ipi)
			continue;
		ipt_strbuf_reset(&final);
		if ((r->o.have_cpus || r->o.filter) && filter_event(r, e, &final, &user_ok))
			goto out;
		if (e->role == R_SEND) {
			sends++;
			accepted += user_ok;
			if (r->o.stacks)
				set_stack(r, e, ipt_strbuf_str(&final));
		}
	}
	if (r->o.filter && sends && !accepted) {
		err_msg("--filter '%s': rejected by the kernel for every send event", r->o.filter);
		goto out;
	}
	if (r->o.stacks && add_system(r, "ftrace")) {
		err_msg("out of memory");
		goto out;
	}
	ret = 0;
out:
	ipt_strbuf_free(&final);
	return ret;
}

/* choose_clock - --clock, else mono, else global */
static int choose_clock(struct recorder *r)
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
		err_msg("--clock: '%s' is not offered (%s/trace_clock: %s)", clock, r->live->dir,
			text ? text : "?");
		free(text);
		return -1;
	}
	if (ipt_live_set_clock(r->live, clock) ||
	    ipt_live_read(r->live, "trace_clock", &r->clock_text, &len)) {
		err_msg("%s", ipt_errmsg());
		return -1;
	}
	return 0;
}

/* enable_events - turn every chosen event on */
static int enable_events(struct recorder *r)
{
	for (int i = 0; i < r->nev; i++) {
		const struct rec_event *e = &r->ev[i];

		if (!ipt_live_enable_event(r->live, e->sys, e->name, true))
			continue;
		if (!ipt_live_has_event(r->live, e->sys, e->name))
			err_msg("%s%s%s: the event was removed from the kernel after it was found (%s)",
				e->sys, e->name ? ":" : "", e->name ? e->name : "", ipt_errmsg());
		else
			err_msg("%s", ipt_errmsg());
		return -1;
	}
	return 0;
}

/*
 * test_stop - a fault-injection point for tests/test_faults.sh: when the
 * environment has IPITRACE_TEST_STOP=POINT the recorder stops itself
 * (SIGSTOP) there, and the test changes the world under it (removes an
 * event, kills it while the file is half written) before SIGCONT.
 * Points: "probed" (events chosen, none enabled yet), "writing" (the file is
 * written under its temporary name, not yet renamed).
 */
static void test_stop(const char *point)
{
	const char *want = getenv("IPITRACE_TEST_STOP");

	if (want && !strcmp(want, point))
		raise(SIGSTOP);
}

/* read_headers - header_page/header_event and the page geometry */
static int read_headers(struct recorder *r)
{
	uint32_t ps;

	if (ipt_live_page_size(r->live, &ps) ||
	    ipt_live_read(r->live, "events/header_page", &r->header_page, &r->hp_len) ||
	    ipt_live_read(r->live, "events/header_event", &r->header_event, &r->he_len) ||
	    ipt_page_geometry_parse(&r->geo, r->header_page, r->hp_len, ps)) {
		err_msg("%s", ipt_errmsg());
		return -1;
	}
	return 0;
}

/* output_dir - the directory of the output file (TMPDIR for "-") */
static int output_dir(struct recorder *r)
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
	if (slash && !slash[1]) {
		err_msg("%s: is a directory name, not a file name", out);
		return -1;
	}
	if (access(r->tmpdir, W_OK | X_OK)) {
		err_msg("%s: cannot write there: %s", r->tmpdir, strerror(errno));
		return -1;
	}
	return 0;
}

/* setup_instance - create and configure our instance (tracing stays off) */
static int setup_instance(struct recorder *r)
{
	char name[32], path[PATH_MAX + 128];

	snprintf(name, sizeof(name), IPT_LIVE_PREFIX "%d", (int)getpid());
	/* one under our own pid is from a dead process that had this pid */
	snprintf(path, sizeof(path), "%s/instances/%s", r->tracefs, name);
	if (!rmdir(path))
		info(r, "removed %s, left by a recorder that no longer runs", path);
	r->live = ipt_live_create(r->tracefs, name);
	if (!r->live) {
		err_msg("%s", ipt_errmsg());
		return -1;
	}
	if (ipt_live_set_tracing(r->live, false) ||
	    ipt_live_set_buffer_kb(r->live, r->o.buffer_kb)) {
		err_msg("%s", ipt_errmsg());
		return -1;
	}
	if (read_headers(r) || choose_clock(r) || probe_events(r) || add_extra(r))
		return -1;
	test_stop("probed");
	if (setup_filters(r) || enable_events(r))
		return -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* running                                                             */
/* ------------------------------------------------------------------ */

/* start_capture - readers for every online CPU */
static int start_capture(struct recorder *r)
{
	struct ipt_capture_opts co = {
		.cpus = &r->online,
		.tmpdir = r->tmpdir,
		.page_size = r->geo.page_size,
		.poll_ms = 100,
	};

	r->cap = ipt_capture_start(r->live, &co);
	if (!r->cap) {
		err_msg("%s", ipt_errmsg());
		return -1;
	}
	return 0;
}

/* child_exec - in the child: original affinity and signal mask, then exec */
static void child_exec(struct recorder *r, int errfd)
{
	sigset_t none;
	int e;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	sched_setaffinity(0, sizeof(r->orig_affinity), &r->orig_affinity);
	execvp(r->o.command[0], r->o.command);
	e = errno;
	if (write(errfd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/*
 * fork_command - fork COMMAND before any trace_pipe_raw is open (a child
 * closing an inherited one makes the kernel queue an irq_work on its CPU);
 * the child waits on a pipe until tracing is on.
 */
static int fork_command(struct recorder *r)
{
	int go[2], ep[2];
	char c;

	if (pipe2(go, O_CLOEXEC)) {
		err_msg("pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(ep, O_CLOEXEC)) {
		err_msg("pipe: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		return -1;
	}
	r->child = fork();
	if (r->child == 0) {
		close(go[1]);
		close(ep[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);	/* the recorder gave up */
		child_exec(r, ep[1]);
	}
	close(go[0]);
	close(ep[1]);
	if (r->child < 0) {
		err_msg("fork: %s", strerror(errno));
		r->child = 0;
		close(go[1]);
		close(ep[0]);
		return -1;
	}
	r->go_fd = go[1];
	r->err_fd = ep[0];
	return 0;
}

/* release_command - let COMMAND exec; fails if it cannot be executed */
static int release_command(struct recorder *r)
{
	ssize_t n;
	int e = 0;

	if (write(r->go_fd, "g", 1) != 1) {
		err_msg("%s: cannot start: %s", r->o.command[0], strerror(errno));
		return -1;
	}
	close(r->go_fd);
	r->go_fd = -1;
	do
		n = read(r->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(r->err_fd);
	r->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		err_msg("%s: %s", r->o.command[0], strerror(e));
		return -1;
	}
	return 0;
}

/* reap_child - collect COMMAND's status if it ended; true if it did */
static bool reap_child(struct recorder *r, bool block)
{
	pid_t p;

	if (!r->child || r->child_done)
		return r->child_done;
	do
		p = waitpid(r->child, &r->child_status, block ? 0 : WNOHANG);
	while (p < 0 && errno == EINTR);
	if (p == r->child || (p < 0 && errno == ECHILD))
		r->child_done = true;
	return r->child_done;
}

/* wait_child_bounded - wait CHILD_GRACE_S for COMMAND, then SIGKILL it */
static void wait_child_bounded(struct recorder *r)
{
	double end = now_s() + CHILD_GRACE_S;

	while (!reap_child(r, false) && now_s() < end)
		usleep(20000);
	if (!r->child_done) {
		kill(r->child, SIGKILL);
		reap_child(r, true);
	}
}

/* wait_end - sleep until -d, COMMAND's end, a signal, or a reader failure */
static int wait_end(struct recorder *r)
{
	double deadline = r->o.duration > 0 ? r->t_start + r->o.duration : 0;

	for (;;) {
		struct timespec ts = { 0, 100000000L };
		double left = deadline ? deadline - now_s() : 1;
		int sig;

		if (r->cap && ipt_capture_failed(r->cap))
			return -1;
		if (left <= 0)
			return 0;
		if (left < 0.1) {
			ts.tv_sec = 0;
			ts.tv_nsec = (long)(left * 1e9) + 1;
		}
		sig = sigtimedwait(&r->sigs, NULL, &ts);
		if (sig == SIGCHLD && reap_child(r, false))
			return 0;
		if (sig > 0 && sig != SIGCHLD) {
			r->stop_signal = sig;
			return 0;
		}
	}
}

/* end_child - after tracing stopped: make COMMAND end and reap it */
static void end_child(struct recorder *r)
{
	if (!r->child || reap_child(r, false))
		return;
	kill(r->child, r->stop_signal ? r->stop_signal : SIGTERM);
	wait_child_bounded(r);
}

/* ------------------------------------------------------------------ */
/* the file                                                            */
/* ------------------------------------------------------------------ */

/* add_formats_of - every events/SYS/x/format of one system */
static int add_formats_of(struct recorder *r, struct ipt_tdw *w, const char *sys)
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
			ret = ipt_tdw_add_ftrace_format(w, text, len);
		else
			ret = ipt_tdw_add_event_format(w, sys, text, len);
		free(text);
		text = NULL;
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
static int add_metadata(struct recorder *r, struct ipt_tdw *w)
{
	char path[PATH_MAX + 64];

	if (ipt_tdw_set_headers(w, r->header_page, r->hp_len, r->header_event, r->he_len))
		return -1;
	if (add_formats_of(r, w, "ftrace"))
		return -1;
	for (int i = 0; i < r->nsys; i++)
		if (strcmp(r->systems[i], "ftrace") && add_formats_of(r, w, r->systems[i]))
			return -1;
	if (add_global_file(w, "/proc/kallsyms", ipt_tdw_set_kallsyms))
		return -1;
	snprintf(path, sizeof(path), "%s/printk_formats", r->tracefs);
	if (add_global_file(w, path, ipt_tdw_set_printk))
		return -1;
	snprintf(path, sizeof(path), "%s/saved_cmdlines", r->tracefs);
	return add_global_file(w, path, ipt_tdw_set_cmdlines);
}

/* add_isolation - the private option with the isolated and nohz_full CPUs */
static int add_isolation(struct ipt_tdw *w)
{
	struct ipt_cpuset iso = IPT_CPUSET_INIT, nohz = IPT_CPUSET_INIT;
	struct ipt_strbuf text = IPT_STRBUF_INIT;
	int ret = -1;

	ipt_cpuset_init(&iso);
	ipt_cpuset_init(&nohz);
	if (ipt_sysfs_cpulist("isolated", &iso) || ipt_sysfs_cpulist("nohz_full", &nohz))
		goto out;
	if (ipt_cpu_isolation_format(&iso, &nohz, &text))
		goto out;
	ret = ipt_tdw_add_option(w, IPT_OPTION_CPU_ISOLATION, text.buf, (uint32_t)text.len + 1);
out:
	ipt_strbuf_free(&text);
	ipt_cpuset_free(&iso);
	ipt_cpuset_free(&nohz);
	return ret;
}

/* add_options - clock, uname, version, CPU count, isolation */
static int add_options(struct recorder *r, struct ipt_tdw *w)
{
	char text[4 * 65 + 8];
	struct utsname u;

	if (ipt_tdw_set_clock(w, r->clock_text))
		return -1;
	if (!uname(&u)) {
		snprintf(text, sizeof(text), "%s %s %s %s", u.sysname, u.nodename, u.release,
			 u.machine);
		if (ipt_tdw_set_uname(w, text))
			return -1;
	}
	if (ipt_tdw_set_version(w, "ipitrace " IPT_VERSION) ||
	    ipt_tdw_set_cpucount(w, ipt_cpuset_last(&r->online) + 1))
		return -1;
	return add_isolation(w);
}

/* cpu_stats - stats of one CPU: stored ("CPU: N\n" + text) and counted */
static int cpu_stats(struct recorder *r, struct ipt_tdw *w, int i)
{
	int cpu = ipt_capture_cpu(r->cap, i);
	struct ipt_cpu_stats st;
	struct ipt_page_count pc;
	char rel[64], *text = NULL, *full = NULL;
	int ret = -1;

	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", cpu);
	if (ipt_live_read(r->live, rel, &text, NULL) || ipt_stats_parse(text, &st) ||
	    ipt_pages_count(ipt_capture_fd(r->cap, i), &r->geo, &pc))
		goto out;
	if (asprintf(&full, "CPU: %d\n%s", cpu, text) < 0) {
		full = NULL;
		ipt_err("out of memory");
		goto out;
	}
	if (ipt_tdw_add_cpustat(w, cpu, full) ||
	    ipt_tdw_set_cpu_fd(w, cpu, ipt_capture_fd(r->cap, i)))
		goto out;
	r->total_events += pc.events;
	r->total_lost += ipt_stats_lost(&st);
	if (!ipt_stats_lost(&st) && !pc.missed_pages) {
		info(r, "  cpu%d: %llu events, 0 lost", cpu, (unsigned long long)pc.events);
	} else {
		err_msg("  cpu%d: %llu events, %llu lost (overrun %llu, commit overrun %llu, "
			"dropped %llu; %llu pages flagged missed events%s)", cpu,
			(unsigned long long)pc.events, (unsigned long long)ipt_stats_lost(&st),
			(unsigned long long)st.overrun, (unsigned long long)st.commit_overrun,
			(unsigned long long)st.dropped, (unsigned long long)pc.missed_pages,
			pc.missed_unknown ? ", some without a count" : "");
	}
	debug_msg("cpu%d: stats read events %llu, pages %llu", cpu,
		  (unsigned long long)st.read, (unsigned long long)pc.pages);
	ret = 0;
out:
	free(text);
	free(full);
	return ret;
}

/* open_writer - the trace.dat writer, with everything but committed */
static struct ipt_tdw *open_writer(struct recorder *r)
{
	struct ipt_tdw_opts wo = {
		.version = 7,
		.compression = r->o.compression,
		.big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
		.long_size = (int)sizeof(long),
		.page_size = r->geo.page_size,
	};
	struct ipt_tdw *w = ipt_tdw_open(r->o.output, &wo);

	if (!w)
		return NULL;
	if (add_metadata(r, w) || add_options(r, w))
		goto fail;
	for (int i = 0; i < ipt_capture_ncpus(r->cap); i++)
		if (cpu_stats(r, w, i))
			goto fail;
	return w;
fail:
	ipt_tdw_abort(w);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* teardown                                                            */
/* ------------------------------------------------------------------ */

/* remove_instance - triggers off, instance removed; -1 if it stays */
static int remove_instance(struct recorder *r)
{
	int ret;

	if (!r->live)
		return 0;
	ipt_live_set_tracing(r->live, false);
	for (int i = 0; i < r->nev; i++)
		if (r->ev[i].stack)
			ipt_live_set_trigger(r->live, r->ev[i].sys, r->ev[i].name, "!stacktrace");
	ret = ipt_live_destroy(r->live);
	r->live = NULL;
	if (ret)
		err_msg("%s", ipt_errmsg());
	return ret;
}

/* recorder_free - release memory */
static void recorder_free(struct recorder *r)
{
	for (int i = 0; i < r->nev; i++) {
		free(r->ev[i].sys);
		free(r->ev[i].name);
	}
	free(r->ev);
	for (int i = 0; i < r->nsys; i++)
		free(r->systems[i]);
	free(r->systems);
	free(r->header_page);
	free(r->header_event);
	free(r->clock_text);
	ipt_cpuset_free(&r->online);
	ipt_cpuset_free(&r->pin);
	ipt_cpuset_free(&r->o.cpus);
	ipt_cpuset_free(&r->o.hk);
}

/* exit_code - COMMAND's status as an exit code, else 0 */
static int exit_code(const struct recorder *r)
{
	if (!r->child || !r->child_done)
		return 0;
	if (WIFEXITED(r->child_status))
		return WEXITSTATUS(r->child_status);
	if (WIFSIGNALED(r->child_status))
		return 128 + WTERMSIG(r->child_status);
	return 1;
}

/* print_start - what is being recorded, where */
static void print_start(struct recorder *r)
{
	char a[256], b[256];

	info(r, "recording on CPUs %s into %s (clock %s, %lu KiB/CPU, readers on CPU %s)%s",
	     cpulist(&r->online, a, sizeof(a)), r->o.output,
	     r->o.clock ? r->o.clock : (strstr(r->clock_text, "[mono]") ? "mono" : "global"),
	     r->o.buffer_kb, cpulist(&r->pin, b, sizeof(b)),
	     r->o.command ? "" : r->o.duration > 0 ? "" : "; Ctrl-C stops");
}

/* record_run - everything after option parsing; returns the exit code */
static int record_run(struct recorder *r)
{
	struct ipt_tdw *w = NULL;
	int rc = 1, rmret;

	if (find_tracefs(r) || output_dir(r))
		return 1;
	if (ipt_sysfs_cpulist("online", &r->online)) {
		err_msg("%s", ipt_errmsg());
		return 1;
	}
	if (choose_pin(r) || setup_instance(r) || (r->o.command && fork_command(r)) ||
	    start_capture(r))
		goto out;
	if (ipt_live_set_tracing(r->live, true)) {
		err_msg("%s", ipt_errmsg());
		goto out;
	}
	r->t_start = now_s();
	print_start(r);
	if (r->o.command && release_command(r))
		goto out;
	if (wait_end(r)) {
		err_msg("%s (no file written)", ipt_capture_error(r->cap));
		goto out;
	}
	ipt_live_set_tracing(r->live, false);
	r->t_stop = now_s();
	if (r->stop_signal)
		info(r, "%s: stopping", strsignal(r->stop_signal));
	end_child(r);
	if (ipt_capture_finish(r->cap)) {
		err_msg("%s", ipt_errmsg());
		goto out;
	}
	w = open_writer(r);
	if (!w) {
		err_msg("%s", ipt_errmsg());
		goto out;
	}
	rmret = remove_instance(r);
	test_stop("writing");
	if (ipt_tdw_commit(w)) {
		w = NULL;
		err_msg("%s", ipt_errmsg());
		goto out;
	}
	w = NULL;
	info(r, "%llu events in %.2f s written to %s", (unsigned long long)r->total_events,
	     r->t_stop - r->t_start, r->o.output);
	if (r->total_lost)
		err_msg("warning: %llu events lost: raise --buffer-kb (now %lu)",
			(unsigned long long)r->total_lost, r->o.buffer_kb);
	rc = rmret ? 1 : exit_code(r);
out:
	ipt_tdw_abort(w);
	if (r->go_fd >= 0)
		close(r->go_fd);	/* a COMMAND not yet started exits */
	if (r->err_fd >= 0)
		close(r->err_fd);
	if (r->live)
		ipt_live_set_tracing(r->live, false);
	ipt_capture_free(r->cap);
	r->cap = NULL;
	if (remove_instance(r))
		rc = 1;
	if (r->child && !r->child_done) {
		kill(r->child, SIGTERM);
		wait_child_bounded(r);
	}
	return rc;
}

/* cmd_record - `ipitrace record` */
int cmd_record(int argc, char **argv)
{
	struct recorder r;
	sigset_t old, pipe_sig;
	struct sigaction sa;
	int rc;

	memset(&r, 0, sizeof(r));
	r.go_fd = r.err_fd = -1;
	ipt_cpuset_init(&r.o.cpus);
	ipt_cpuset_init(&r.o.hk);
	ipt_cpuset_init(&r.online);
	ipt_cpuset_init(&r.pin);
	rc = parse_args(&r.o, argc, argv);
	if (rc) {
		if (rc < 0)
			record_usage(stdout);
		recorder_free(&r);
		return rc < 0 ? 0 : rc;
	}
	/* signals end the recording: taken synchronously by wait_end() */
	sigemptyset(&r.sigs);
	sigaddset(&r.sigs, SIGINT);
	sigaddset(&r.sigs, SIGTERM);
	if (sigaction(SIGHUP, NULL, &sa) || sa.sa_handler != SIG_IGN)
		sigaddset(&r.sigs, SIGHUP);	/* not under nohup */
	sigaddset(&r.sigs, SIGCHLD);
	sigprocmask(SIG_BLOCK, &r.sigs, &old);
	sigemptyset(&pipe_sig);		/* EPIPE instead of death */
	sigaddset(&pipe_sig, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_sig, NULL);
	rc = record_run(&r);
	{
		/* an EPIPE was reported already: the pending SIGPIPE must not kill */
		struct timespec zero = { 0, 0 };

		while (sigtimedwait(&pipe_sig, NULL, &zero) == SIGPIPE)
			;
	}
	if (CPU_COUNT(&r.orig_affinity))
		sched_setaffinity(0, sizeof(r.orig_affinity), &r.orig_affinity);
	sigprocmask(SIG_SETMASK, &old, NULL);
	recorder_free(&r);
	return rc;
}
