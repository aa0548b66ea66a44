// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_record.c - `ipitrace record`: capture IPIs from the live kernel into
 * a trace.dat that trace-cmd and KernelShark read.
 *
 * The recorder works in its own tracefs instance (instances/ipitrace-<pid>)
 * and removes it at the end, so the top-level buffer and other tools'
 * instances are never touched.  Per-CPU data is spliced from trace_pipe_raw
 * by reader threads pinned to housekeeping CPUs that poll by sleeping (see
 * include/ipitrace.h): the recorder sends no wake-up IPIs to the CPUs it watches.
 * The file appears under its name only once complete (temporary file +
 * rename, in the library).
 */
#include "commands.h"
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_SERVE_OUTPUT	"ipitrace-serve.txt"
#define SERVE_DRAIN_WAIT_US	300000	/* serve drains its ring every 100 ms */
#define DEFAULT_BUFFER_KB	4096
#define CHILD_GRACE_S		5

struct rec_opts {
	const char *output;
	double duration;		/* seconds; 0 = until COMMAND ends or a signal */
	struct ipt_cpuset cpus;		/* --cpus: only IPIs targeting these */
	const char *cpus_arg;		/* ... as given */
	bool have_cpus;
	const char *filter;		/* --filter: ANDed to the send events */
	char *kfilter;			/* filter, --pid and --comm together (allocated) */
	long pid;			/* --pid: only sends by this task (0: any) */
	const char *comm;		/* --comm: only sends by tasks of this name */
	bool stacks, user_stacks;
	const char *extra;		/* --events */
	const char *clock;
	unsigned long buffer_kb;
	struct ipt_cpuset hk;		/* --housekeeping */
	bool have_hk;
	const char *compression;
	bool quiet;
	char **command;			/* after --, NULL-terminated */
	bool output_given;
	bool force;			/* --force: an existing output is replaced */
	bool from_serve;		/* --from-serve: serve's counts and rows */
	const char *socket;		/* where serve answers */
	const char *tracefs_opt;	/* the first option that sets up tracefs */
	const char *tracer;		/* --timerlat or --osnoise: "timerlat", "osnoise" */
	unsigned long tracer_threshold_us, tracer_period_us, tracer_runtime_us;
};

struct recorder {
	struct rec_opts o;
	struct ipt_recorder *rec;
	cpu_set_t orig_affinity;	/* COMMAND runs with it */
	sigset_t sigs;
	pid_t child;
	int child_status;
	bool child_done;
	int go_fd, err_fd;		/* COMMAND's start and exec-error pipes */
	int stop_signal;
	double t_start, t_stop;
	bool usage_error;		/* setup failed on an option: exit 2 */
	bool status;			/* a status line once a second (a terminal, not -q) */
	bool status_shown;		/* one is on the screen */
	double t_status;		/* when it was last drawn */
	bool tracer_stop;		/* the tracer's threshold ended the recording */
};

/* record_usage - the --help text */
static void record_usage(FILE *f)
{
	fprintf(f,
		"usage: ipitrace record [OPTIONS] [-- COMMAND [ARGS...]]\n"
		"       ipitrace record --from-serve [-o FILE] [-d TIME] [--socket PATH]\n"
		"                       [-- COMMAND]\n"
		"\n"
		"Record inter-processor interrupts from the live kernel into a trace.dat (v7,\n"
		"zstd) that `ipitrace report`, `trace-cmd report` and KernelShark read.  Needs\n"
		"root and tracefs (mounted at " IPT_TRACEFS_PATH " if it is not mounted; it is\n"
		"left mounted, as other tools may use it).\n"
		"\n"
		"Events: every IPI event this kernel has is enabled, and listed on stderr with\n"
		"the ones missing: ipi:ipi_send_cpu and ipi:ipi_send_cpumask (Linux 6.4+, one per\n"
		"IPI sent, with call site, callback and target CPUs), csd:* (6.5+: the function\n"
		"queued for a CPU and its execution there), and the receive side: on x86\n"
		"irq_vectors:{reschedule,call_function,call_function_single,irq_work,\n"
		"x86_platform_ipi}_{entry,exit}; on arm64 ipi:ipi_raise/ipi_entry/ipi_exit.\n"
		"\n"
		"Kernels without a send event (before 6.4): kprobe events in a group of its\n"
		"own (ipitrace_<pid>, removed at the end) stand for ipi_send_cpu and\n"
		"ipi_send_cpumask: on the arch send hooks for the targets\n"
		"(native_smp_send_reschedule, native_send_call_func_single_ipi,\n"
		"native_send_call_func_ipi, or the smp_send_reschedule and\n"
		"arch_send_call_function_* functions) and on generic_exec_single,\n"
		"__smp_call_single_queue and smp_call_function_many_cond for the call site and\n"
		"function, each where the kernel offers it (available_filter_functions, else\n"
		"kallsyms).  The file says what each probe stands for; report, convert and\n"
		"explode read them as those events.\n"
		"\n"
		"`record -- COMMAND` records the whole machine while COMMAND runs, not COMMAND\n"
		"alone (unlike `perf record -- COMMAND`): every CPU, every sender.  --pid and\n"
		"--comm focus on the IPIs one task sends (a kernel filter on the sending task;\n"
		"IPIs sent on its behalf by other tasks, e.g. kernel threads, are not kept).\n"
		"\n"
		"The recording ends after -d TIME, when COMMAND exits, or on SIGINT (Ctrl-C),\n"
		"SIGTERM or SIGHUP; a COMMAND still running then gets the same signal (SIGTERM\n"
		"after -d) and is waited for (5 s, then SIGKILL).  COMMAND starts once tracing\n"
		"is on, with the recorder's original CPU affinity.  At the end the events\n"
		"recorded and lost on each CPU are printed on stderr (lost: the kernel's\n"
		"overrun and dropped counters, also stored in the file's per-CPU stats, and\n"
		"the ring buffer's missed-events marks).\n"
		"\n"
		"With `ipitrace serve` running, --from-serve attaches nothing (no tracefs\n"
		"instance, no program: none of the text-patching IPIs that enabling events\n"
		"sends to every CPU): it reads serve's counts at the start and the end of the\n"
		"window and, after it, serve's flight-recorder rows stamped inside it (IPIs\n"
		"whose targets include serve's watched CPUs, with stacks if serve keeps them).\n"
		"It writes them as tracefs trace text (default " DEFAULT_SERVE_OUTPUT "): the counts\n"
		"of every IPI in the window as '# count target=T from=S event=E callsite=C\n"
		"callback=F [function=G] n=N comm=COMM' lines ('# interrupts cpu=C vector=V\n"
		"n=N handler_ns=NS' and '# not counted REASON=N' beside them), then the rows,\n"
		"which report and convert read.  The counts and the rows are taken at slightly\n"
		"different moments at the window's edges; rows older than serve's --keep are\n"
		"gone, and said.\n"
		"\n"
		"Options:\n"
		"  -o, --output FILE     output file (default " DEFAULT_TRACE "); it appears only\n"
		"                        when complete (temporary name + rename), mode 0600;\n"
		"                        \"-\" writes to standard output.  An existing FILE is\n"
		"                        an error (checked before recording and again at the end)\n"
		"      --force           replace an existing FILE\n"
		"  -d, --duration TIME   stop after TIME: seconds (fractions allowed), or with a\n"
		"                        unit: 500ms, 30s, 5m, 2h\n"
		"  -c, --cpus LIST       only IPIs that target these CPUs (e.g. 2-5,8): kernel\n"
		"                        filters 'cpu & CPUS{LIST}' on ipi_send_cpu and\n"
		"                        csd_queue_cpu, 'cpumask & CPUS{LIST}' on\n"
		"                        ipi_send_cpumask, and the receive events only on LIST.\n"
		"                        Needs Linux 6.6+ cpumask filters; on older kernels\n"
		"                        everything is recorded (and this is said)\n"
		"  -F, --filter EXPR     an extra kernel filter ANDed to the send events\n"
		"                        (ipi_send_cpu, ipi_send_cpumask, ipi_raise), in the\n"
		"                        kernel's syntax, e.g. 'callback == 0' or\n"
		"                        'common_pid != 0'\n"
		"  -p, --pid PID         only IPIs sent by task PID (kernel filter\n"
		"                        'common_pid == PID' on the send events)\n"
		"      --comm NAME       only IPIs sent by tasks named NAME (kernel filter\n"
		"                        'COMM == \"NAME\"', or 'COMM ~ \"NAME\"' for a glob\n"
		"                        such as 'fx-*')\n"
		"  -s, --stacks          record the kernel stack of each (filtered) send, with\n"
		"                        a 'stacktrace' trigger (events ftrace:kernel_stack)\n"
		"      --user-stacks     and the sending task's user stack (implies --stacks):\n"
		"                        the instance's userstacktrace option (up to 8 frames,\n"
		"                        followed by frame pointers; sends in interrupt\n"
		"                        context have none), resolved to functions while\n"
		"                        recording, from the processes' maps and ELF files\n"
		"                        (elfutils), and stored in the file\n"
		"  -e, --events LIST     more events to record: comma-separated SYS:NAME,\n"
		"                        SYS:* or SYS (e.g. sched:sched_switch,irq:*)\n"
		"  -C, --clock NAME      trace clock: local, global, counter, uptime, perf, mono,\n"
		"                        mono_raw, boot, tai or x86-tsc (those this kernel\n"
		"                        offers in trace_clock; default: mono if offered, else\n"
		"                        global).  Timestamps must compare across CPUs to\n"
		"                        order a send on one CPU before its receipt on\n"
		"                        another: 'local' is per-CPU and not ordered across\n"
		"                        CPUs; 'mono' is global and in nanoseconds\n"
		"  -b, --buffer-kb N     per-CPU ring buffer of the instance in KiB (default\n"
		"                        %d: no loss at ipi-workload's highest rate with the\n"
		"                        100 ms polling)\n"
		"  -H, --housekeeping LIST  CPUs the recorder's own threads run on (default:\n"
		"                        the CPUs neither isolated nor nohz_full; if no CPU\n"
		"                        is isolated, the first CPU, so the others are left\n"
		"                        alone)\n"
		"  -Z, --compression C   none or zstd (default); trace-cmd reads both\n"
		"      --timerlat[=US]   run the kernel's timerlat tracer in the recording's\n"
		"                        instance on the watched CPUs (--cpus, else those the\n"
		"                        readers leave alone, else all) and record its\n"
		"                        samples ('#SEQ context irq|thread timer_latency N\n"
		"                        ns') and the osnoise:* events beside the IPIs; with\n"
		"                        US, the kernel stops tracing at the first thread\n"
		"                        latency over US microseconds (osnoise/\n"
		"                        stop_tracing_total_us, as rtla timerlat -T) and the\n"
		"                        recording ends there\n"
		"      --osnoise[=US]    the same with the osnoise tracer (its per-period\n"
		"                        summaries and osnoise:* noise events); US: one noise\n"
		"                        over US stops it (osnoise/stop_tracing_us)\n"
		"      --tracer-period US[,RUNTIME]  the tracer's period: timerlat_period_us,\n"
		"                        or osnoise's period_us and runtime_us (RUNTIME, else\n"
		"                        the whole period); default: the kernel's, 1000 us and\n"
		"                        1 s\n"
		"  -q, --quiet           only errors and the lost-events warning on stderr\n"
		"      --from-serve      the counts and rows of a running `ipitrace serve`\n"
		"                        (above); only -o, -d, -q, --socket and COMMAND apply\n"
		"      --socket PATH     where serve answers (default " SERVE_SOCKET ")\n"
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
		"With --timerlat or --osnoise the tracer's settings under tracefs/osnoise/\n"
		"(cpus, period, stop_tracing_us, stop_tracing_total_us), which are global,\n"
		"are saved first and written back at the end; if another instance or the\n"
		"top level already runs osnoise or timerlat (rtla), or the kernel has no such\n"
		"tracer (CONFIG_TIMERLAT_TRACER, CONFIG_OSNOISE_TRACER), one line says so and\n"
		"nothing is recorded.  `ipitrace dump` prints the samples as trace-cmd does.\n"
		"\n"
		"Exit status: COMMAND's exit status if given (128+N if killed by signal N:\n"
		"143 when -d ended it with SIGTERM, which a warning says, with when, and the\n"
		"file keeps as its provenance's command_end), else 0; 1 on a runtime error\n"
		"(not root, no tracefs, no serve answers for --from-serve, disk full, ...:\n"
		"one line on stderr, no file left under the output name); 2 on a usage error.\n",
		DEFAULT_BUFFER_KB);
}

/* info - an informative line on stderr unless --quiet */
static void info(const struct recorder *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void info(const struct recorder *r, const char *fmt, ...)
{
	va_list ap;

	if (r->o.quiet)
		return;
	va_start(ap, fmt);
	vmsg("ipitrace: ", fmt, ap);
	va_end(ap);
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
		usage_err("record", "%s: bad CPU list '%s'", opt, arg);
		return -1;
	}
	return 0;
}

/* parse_opt - one option; 0 ok, 2 usage error, 3 --help */
static int parse_opt(struct rec_opts *o, int c)
{
	char *end;

	if (strchr("cFpmsUeCbHZTNP", c) && !o->tracefs_opt) {
		static const struct { char c; const char *name; } names[] = {
			{ 'c', "--cpus" }, { 'F', "--filter" }, { 'p', "--pid" }, { 'm', "--comm" },
			{ 's', "--stacks" }, { 'U', "--user-stacks" }, { 'e', "--events" }, { 'C', "--clock" },
			{ 'b', "--buffer-kb" }, { 'H', "--housekeeping" }, { 'Z', "--compression" },
			{ 'T', "--timerlat" }, { 'N', "--osnoise" }, { 'P', "--tracer-period" },
		};

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (names[i].c == c)
				o->tracefs_opt = names[i].name;
	}
	switch (c) {
	case 'o': o->output = optarg; o->output_given = true; return 0;
	case 'S': o->from_serve = true; return 0;
	case 'O': o->force = true; return 0;
	case 'K': o->socket = optarg; return 0;
	case 'd':
		if (parse_duration(optarg, &o->duration))
			return usage_err("record", "--duration: bad duration '%s' (e.g. 10, 2.5, 30s, 5m, 2h)",
					 optarg);
		return 0;
	case 'c':
		o->have_cpus = true;
		o->cpus_arg = optarg;
		return parse_cpus_opt(&o->cpus, "--cpus", optarg) ? 2 : 0;
	case 'F':
		if (strchr(optarg, '\n') || !*optarg)
			return usage_err("record", "--filter: bad expression");
		o->filter = optarg;
		return 0;
	case 'p':
		errno = 0;
		o->pid = strtol(optarg, &end, 10);
		if (errno || *end || end == optarg || o->pid < 0 || o->pid > INT_MAX)
			return usage_err("record", "--pid: bad task id '%s'", optarg);
		return 0;
	case 'm':
		if (!*optarg || strpbrk(optarg, "\"\\\n"))
			return usage_err("record", "--comm: bad task name '%s'", optarg);
		o->comm = optarg;
		return 0;
	case 's': o->stacks = true; return 0;
	case 'U': o->user_stacks = o->stacks = true; return 0;
	case 'e': o->extra = optarg; return 0;
	case 'C': o->clock = optarg; return 0;
	case 'b':
		errno = 0;
		o->buffer_kb = strtoul(optarg, &end, 10);
		if (errno || *end || end == optarg || !o->buffer_kb || o->buffer_kb > (1UL << 30))
			return usage_err("record", "--buffer-kb: bad size '%s'", optarg);
		return 0;
	case 'H':
		o->have_hk = true;
		return parse_cpus_opt(&o->hk, "--housekeeping", optarg) ? 2 : 0;
	case 'Z':
		if (strcmp(optarg, "none") && strcmp(optarg, "zstd"))
			return usage_err("record", "--compression: '%s' is not none or zstd", optarg);
		o->compression = optarg;
		return 0;
	case 'T':
	case 'N': {
		const char *name = c == 'T' ? "timerlat" : "osnoise";

		if (o->tracer && strcmp(o->tracer, name))
			return usage_err("record", "--timerlat and --osnoise: one tracer at a time");
		o->tracer = name;
		o->tracer_threshold_us = 0;
		if (!optarg)
			return 0;
		errno = 0;
		o->tracer_threshold_us = strtoul(optarg, &end, 10);
		if (errno || *end || end == optarg || *optarg == '-' || !o->tracer_threshold_us ||
		    o->tracer_threshold_us > 1000000000UL)
			return usage_err("record", "--%s: bad threshold '%s' (microseconds, e.g. --%s=100)",
					 name, optarg, name);
		return 0;
	}
	case 'P':
		errno = 0;
		o->tracer_period_us = strtoul(optarg, &end, 10);
		if (!errno && *end == ',' && end[1] != '-') {
			char *r = end + 1;

			o->tracer_runtime_us = strtoul(r, &end, 10);
			if (end == r || !o->tracer_runtime_us || o->tracer_runtime_us > o->tracer_period_us)
				end = r - 1;	/* said below */
		}
		if (errno || *end || end == optarg || *optarg == '-' || o->tracer_period_us < 100 ||
		    o->tracer_period_us > 10000000UL)
			return usage_err("record", "--tracer-period: bad period '%s' (microseconds, 100 to "
					 "10000000; osnoise: PERIOD,RUNTIME with 0 < RUNTIME <= PERIOD)", optarg);
		return 0;
	case 'q': o->quiet = true; return 0;
	case 'h': return 3;
	default: return 2;	/* '?' and ':': parse_args says which */
	}
}

/* kernel_filter - --filter, --pid and --comm as one kernel filter; 0 or 2 */
static int kernel_filter(struct rec_opts *o)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	int r = 0;

	if (!o->pid && !o->comm)
		return 0;
	if (o->filter)
		r |= ipt_strbuf_addf(&sb, "(%s)", o->filter);
	if (o->pid)
		r |= ipt_strbuf_addf(&sb, "%scommon_pid == %ld", sb.len ? " && " : "", o->pid);
	if (o->comm)
		r |= ipt_strbuf_addf(&sb, "%sCOMM %s \"%s\"", sb.len ? " && " : "",
				     strpbrk(o->comm, "*?[") ? "~" : "==", o->comm);
	if (!r)
		o->kfilter = strdup(ipt_strbuf_str(&sb));
	ipt_strbuf_free(&sb);
	if (!o->kfilter) {
		err_msg("out of memory");
		return 1;
	}
	o->filter = o->kfilter;
	return 0;
}

/* parse_args - options and COMMAND; 0 ok, else the exit code (-1: --help) */
static int parse_args(struct rec_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "filter", required_argument, NULL, 'F' },
		{ "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, 'm' },
		{ "stacks", no_argument, NULL, 's' },
		{ "user-stacks", no_argument, NULL, 'U' },
		{ "events", required_argument, NULL, 'e' },
		{ "clock", required_argument, NULL, 'C' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "housekeeping", required_argument, NULL, 'H' },
		{ "compression", required_argument, NULL, 'Z' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "from-serve", no_argument, NULL, 'S' },
		{ "socket", required_argument, NULL, 'K' },
		{ "force", no_argument, NULL, 'O' },
		{ "timerlat", optional_argument, NULL, 'T' },
		{ "osnoise", optional_argument, NULL, 'N' },
		{ "tracer-period", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	o->output = DEFAULT_TRACE;
	o->socket = SERVE_SOCKET;
	o->buffer_kb = DEFAULT_BUFFER_KB;
	o->compression = "zstd";
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:d:c:F:p:se:C:b:H:Z:qh", longopts, NULL)) != -1) {
		if (c == '?' || c == ':')
			return opt_err("record", c, argv);
		ret = parse_opt(o, c);
		if (ret == 3)
			return -1;
		if (ret)
			return 2;
	}
	if (optind < argc)
		o->command = argv + optind;
	if (!*o->output)
		return usage_err("record", "-o: empty file name");
	if (o->from_serve && o->tracefs_opt)
		return usage_err("record", "%s: not with --from-serve (serve's programs count what they "
				 "were started with; only -o, -d, -q, --socket and COMMAND apply)", o->tracefs_opt);
	if (o->tracer_period_us && !o->tracer)
		return usage_err("record", "--tracer-period: only with --timerlat or --osnoise");
	if (o->tracer_runtime_us && strcmp(o->tracer, "osnoise"))
		return usage_err("record", "--tracer-period: a RUNTIME only with --osnoise");
	if (o->from_serve && !o->output_given)
		o->output = DEFAULT_SERVE_OUTPUT;
	if (output_taken(o->output, o->force))
		return 1;
	return kernel_filter(o);
}

/* ------------------------------------------------------------------ */
/* setup                                                               */
/* ------------------------------------------------------------------ */

/* about_prefix - the option a library failure or note is about */
static const char *about_option(enum ipt_recorder_about about)
{
	switch (about) {
	case IPT_RECORDER_ABOUT_EVENTS: return "--events";
	case IPT_RECORDER_ABOUT_FILTER: return "--filter";
	case IPT_RECORDER_ABOUT_CLOCK: return "--clock";
	case IPT_RECORDER_ABOUT_STACKS: return "--stacks";
	case IPT_RECORDER_ABOUT_USER_STACKS: return "--user-stacks";
	case IPT_RECORDER_ABOUT_CPUS: return "--cpus";
	default: return NULL;
	}
}

/* on_note - a line from the recording session */
static void on_note(enum ipt_recorder_note kind, enum ipt_recorder_about about, const char *text,
		    void *arg)
{
	const char *opt = about_option(about);

	if (kind == IPT_RECORDER_NOTE_ERROR)
		err_msg("%s", text);
	else if (kind == IPT_RECORDER_NOTE_REJECTED && opt)
		info(arg, "%s: %s", opt, text);
	else
		info(arg, "%s", text);
}

/* rec_error - print the session's last failure, worded for the options */
static void rec_error(struct recorder *r)
{
	enum ipt_recorder_about about = r->rec ? ipt_recorder_error(r->rec) : IPT_RECORDER_ABOUT_NONE;

	if (about == IPT_RECORDER_ABOUT_FILTER)
		err_msg("--filter %s", ipt_errmsg());
	else if (about == IPT_RECORDER_ABOUT_TRACER && r->o.tracer)
		err_msg("--%s: %s", r->o.tracer, ipt_errmsg());
	else if (about_option(about))
		err_msg("%s: %s", about_option(about), ipt_errmsg());
	else
		err_msg("%s", ipt_errmsg());
}

/*
 * test_stop - a fault-injection point for tests/test_faults.sh: when the
 * environment has IPITRACE_TEST_STOP=POINT the recorder stops itself
 * (SIGSTOP) there, and the test changes the world under it (removes an
 * event, kills it while the file is half written) before SIGCONT.
 * Points: "probed" (events chosen, none enabled yet), "writing" (the file is
 * written under its temporary name, not yet renamed).
 */
static void test_stop(enum ipt_recorder_point point, void *arg)
{
	const char *want = getenv("IPITRACE_TEST_STOP");
	const char *name = point == IPT_RECORDER_PROBED ? "probed" : "writing";

	(void)arg;
	if (want && !strcmp(want, name))
		raise(SIGSTOP);
}

/* print_events - the IPI events recorded and those this kernel lacks */
static void print_events(struct recorder *r)
{
	struct ipt_strbuf have = IPT_STRBUF_INIT, miss = IPT_STRBUF_INIT, kp = IPT_STRBUF_INIT;
	bool send = false;

	for (int i = 0; i < ipt_recorder_nevents(r->rec); i++) {
		const struct ipt_recorder_event *e = ipt_recorder_event(r->rec, i);

		if (e->probe_function) {
			ipt_strbuf_addf(&kp, " %s:%s=%s%s%s", e->system, e->name, e->probe_function,
					strcmp(e->stands_for, "-") ? " as " : "",
					strcmp(e->stands_for, "-") ? e->stands_for : "");
			send |= e->send;
		} else if (e->present) {
			ipt_strbuf_addf(&have, " %s:%s", e->system, e->name);
			send |= e->send;
		} else {
			ipt_strbuf_addf(&miss, " %s:%s", e->system, e->name);
			if (e->since)
				ipt_strbuf_addf(&miss, " (Linux %s+)", e->since);
		}
	}
	info(r, "events:%s", ipt_strbuf_str(&have));
	if (miss.len)
		info(r, "missing in this kernel:%s", ipt_strbuf_str(&miss));
	if (kp.len)
		info(r, "send events from kprobes (removed at the end):%s", ipt_strbuf_str(&kp));
	if (!send)
		info(r, "no IPI send event here: recording the receive side only");
	ipt_strbuf_free(&have);
	ipt_strbuf_free(&miss);
	ipt_strbuf_free(&kp);
}

/* setup - the session up to its events enabled */
static int setup(struct recorder *r)
{
	struct ipt_recorder_opts ro = {
		.sz = sizeof(ro),
		.output = r->o.output,
		.cpus = r->o.have_cpus ? &r->o.cpus : NULL,
		.filter = r->o.filter,
		.stacks = r->o.stacks,
		.user_stacks = r->o.user_stacks,
		.no_replace = !r->o.force,
		.events = r->o.extra,
		.clock = r->o.clock,
		.buffer_kb = r->o.buffer_kb,
		.housekeeping = r->o.have_hk ? &r->o.hk : NULL,
		.compression = r->o.compression,
		.note = on_note,
		.checkpoint = test_stop,
		.arg = r,
		.command_line = cli_command_line(),
		.tracer = r->o.tracer,
		.tracer_cpus = r->o.tracer && r->o.have_cpus ? &r->o.cpus : NULL,
		.tracer_period_us = r->o.tracer_period_us,
		.tracer_threshold_us = r->o.tracer_threshold_us,
		.tracer_runtime_us = r->o.tracer_runtime_us,
	};
	char *command = NULL;

	if (r->o.command) {
		int n = 0;

		while (r->o.command[n])
			n++;
		ro.command = command = shell_join(r->o.command, n);
	}
	/* the options first: what this build cannot do is said to anyone, root or not */
	r->rec = ipt_recorder_new(&ro);
	free(command);	/* the session keeps a copy */
	if (!r->rec) {
		rec_error(r);
		return -1;
	}
	if (geteuid() != 0) {
		err_msg("record needs root (tracefs); to read a trace instead: ipitrace report FILE");
		return -1;
	}
	if (sched_getaffinity(0, sizeof(r->orig_affinity), &r->orig_affinity)) {
		err_msg("sched_getaffinity: %s", strerror(errno));
		return -1;
	}
	if (ipt_recorder_probe(r->rec)) {
		rec_error(r);
		return -1;
	}
	if (r->o.have_cpus && cpus_within("record", "--cpus", r->o.cpus_arg, &r->o.cpus, ipt_recorder_cpus(r->rec),
					  "this machine")) {
		r->usage_error = true;
		return -1;
	}
	print_events(r);
	if (ipt_recorder_arm(r->rec)) {
		rec_error(r);
		return -1;
	}
	if (r->o.tracer) {
		char c[256], thr[64] = "no threshold";

		if (r->o.tracer_threshold_us)
			snprintf(thr, sizeof(thr), "tracing stops at a sample over %lu us", r->o.tracer_threshold_us);
		info(r, "%s tracer on CPU %s (%s; its osnoise/ settings restored at the end)", r->o.tracer,
		     cpulist(ipt_recorder_tracer_cpus(r->rec), c, sizeof(c)), thr);
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

/* wait_child_bounded - wait CHILD_GRACE_S for COMMAND, then SIGKILL it;
 * true if it took SIGKILL */
static bool wait_child_bounded(struct recorder *r)
{
	double end = now_s() + CHILD_GRACE_S;

	while (!reap_child(r, false) && now_s() < end)
		usleep(20000);
	if (!r->child_done) {
		kill(r->child, SIGKILL);
		reap_child(r, true);
		return true;
	}
	return false;
}

/* human_bytes - n as B, KiB, MiB or GiB */
static const char *human_bytes(uint64_t n, char *buf, size_t size)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

/* status_line - the counts so far, on one line that is redrawn (terminals only) */
static void status_line(struct recorder *r, double now)
{
	struct ipt_recorder_progress p;
	char size[32];

	if (!r->status || now - r->t_status < 1.0)
		return;
	r->t_status = now;
	if (ipt_recorder_progress(r->rec, &p))
		return;
	fprintf(stderr, "\r%.0f s: %llu events, %llu IPI sends, %llu lost, %s captured\033[K",
		now - r->t_start, (unsigned long long)p.events, (unsigned long long)p.sends,
		(unsigned long long)(p.lost > p.missed ? p.lost : p.missed),
		human_bytes(p.bytes, size, sizeof(size)));
	fflush(stderr);
	r->status_shown = true;
}

/* status_clear - remove the status line before other output */
static void status_clear(struct recorder *r)
{
	if (!r->status_shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	r->status_shown = false;
}

/* wait_end - sleep until -d, COMMAND's end, a signal, or a reader failure */
static int wait_end(struct recorder *r)
{
	double deadline = r->o.duration > 0 ? r->t_start + r->o.duration : 0;

	for (;;) {
		struct timespec ts = { 0, 100000000L };
		double left = deadline ? deadline - now_s() : 1;
		int sig;

		if (r->rec && ipt_recorder_failed(r->rec))
			return -1;
		if (left <= 0)
			return 0;
		if (r->rec && ipt_recorder_tracer_stopped(r->rec)) {
			status_clear(r);
			info(r, "%s stopped tracing: a sample over %lu us; ending the recording", r->o.tracer,
			     r->o.tracer_threshold_us);
			r->tracer_stop = true;
			return 0;
		}
		status_line(r, now_s());
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

/* exit_meaning - what exit_code() stands for, in words */
static const char *exit_meaning(const struct recorder *r)
{
	static char buf[64];

	if (r->child_done && WIFSIGNALED(r->child_status)) {
		snprintf(buf, sizeof(buf), "128 + SIG%s: COMMAND's, killed", sigabbrev_np(WTERMSIG(r->child_status)));
		return buf;
	}
	return "COMMAND's own";
}

/* end_child - after tracing stopped: make COMMAND end and reap it */
static void end_child(struct recorder *r)
{
	int sig = r->stop_signal ? r->stop_signal : SIGTERM;
	char how[200], why[64];
	bool killed;

	if (!r->child || reap_child(r, false))
		return;
	kill(r->child, sig);
	killed = wait_child_bounded(r);
	/* said, and stored: a command cut short is not a command that ended */
	if (r->stop_signal)
		snprintf(why, sizeof(why), "ipitrace got SIG%s", sigabbrev_np(sig));
	else if (r->tracer_stop)
		snprintf(why, sizeof(why), "%s stopped tracing at its threshold", r->o.tracer);
	else
		snprintf(why, sizeof(why), "-d %g s reached", r->o.duration);
	snprintf(how, sizeof(how), "SIG%s after %.2f s (%s)", sigabbrev_np(sig), r->t_stop - r->t_start, why);
	if (killed)
		snprintf(how + strlen(how), sizeof(how) - strlen(how), ", SIGKILL %d s later", CHILD_GRACE_S);
	err_msg("warning: COMMAND was still running when the recording ended: sent %s; its output may be "
		"cut short; exit status %d (%s)", how, exit_code(r), exit_meaning(r));
	if (r->rec && ipt_recorder_set_command_end(r->rec, how))
		err_msg("%s", ipt_errmsg());
}

/* ------------------------------------------------------------------ */
/* the file                                                            */
/* ------------------------------------------------------------------ */

/* print_cpus - the per-CPU summary lines; totals into *events and *lost */
static void print_cpus(struct recorder *r, uint64_t *events, uint64_t *lost)
{
	*events = *lost = 0;
	for (int i = 0; i < ipt_recorder_ncpus(r->rec); i++) {
		const struct ipt_recorder_cpu *c = ipt_recorder_cpu(r->rec, i);

		*events += c->events;
		*lost += c->lost;
		if (!c->lost && !c->missed_pages) {
			info(r, "  cpu%d: %llu events, 0 lost", c->cpu, (unsigned long long)c->events);
		} else {
			err_msg("  cpu%d: %llu events, %llu lost (overrun %llu, commit overrun %llu, "
				"dropped %llu; %llu pages flagged missed events%s)", c->cpu,
				(unsigned long long)c->events, (unsigned long long)c->lost,
				(unsigned long long)c->overrun, (unsigned long long)c->commit_overrun,
				(unsigned long long)c->dropped, (unsigned long long)c->missed_pages,
				c->missed_unknown ? ", some without a count" : "");
		}
		debug_msg("cpu%d: stats read events %llu, pages %llu", c->cpu,
			  (unsigned long long)c->read, (unsigned long long)c->pages);
	}
}

/* recorder_free - release memory */
static void recorder_free(struct recorder *r)
{
	ipt_cpuset_free(&r->o.cpus);
	ipt_cpuset_free(&r->o.hk);
	free(r->o.kfilter);
}

/* print_start - what is being recorded, where */
static void print_start(struct recorder *r)
{
	char a[256], b[256];

	info(r, "recording on CPUs %s into %s (clock %s, %lu KiB/CPU, readers on CPU %s)%s",
	     cpulist(ipt_recorder_cpus(r->rec), a, sizeof(a)), r->o.output,
	     ipt_recorder_clock(r->rec), ipt_recorder_buffer_kb(r->rec),
	     cpulist(ipt_recorder_readers(r->rec), b, sizeof(b)),
	     r->o.command ? "" : r->o.duration > 0 ? "" : "; Ctrl-C stops");
}

/* ------------------------------------------------------------------ */
/* --from-serve: a running serve's counts and rows, nothing attached   */
/* ------------------------------------------------------------------ */

/*
 * row_time - the timestamp of a row of serve's /watched.txt (tracefs trace
 * text: "COMM-PID [CPU] FLAGS SECONDS.NANOS: ..."); false for other lines.
 * The comm may hold anything, so every " [" is tried.
 */
static bool row_time(const char *line, const char *end, double *ts)
{
	for (const char *p = line; p < end && (p = memchr(p, '[', (size_t)(end - p))); p++) {
		const char *q = p + 1;
		char *e;

		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q == p + 1 || q + 1 >= end || q[0] != ']' || q[1] != ' ')
			continue;
		for (q += 2; q < end && *q != ' '; q++)		/* the flags */
			;
		while (q < end && *q == ' ')
			q++;
		if (q >= end || *q < '0' || *q > '9')
			continue;
		*ts = strtod(q, &e);
		if (e < end && *e == ':')
			return true;
	}
	return false;
}

/* serve_counts - the window's counts as comment lines; totals per target into tot */
static int serve_counts(struct ipt_strbuf *sb, const struct ipt_counter *b, const struct ipt_counter_snapshot *d,
			uint64_t *sends)
{
	char site[192], fn[192], real[192];
	int e = 0;

	*sends = 0;
	e |= ipt_strbuf_adds(sb, "# counts: every IPI serve counted in the window, one line per target CPU, "
			     "sending CPU, event, call site, function (callback; for a csd call the "
			     "function queued) and command; report reads only the rows\n");
	for (size_t i = 0; i < d->nsends && !e; i++) {
		const struct ipt_counter_send *x = &d->sends[i];

		if (!x->count)
			continue;
		*sends += x->event == IPT_COUNTER_CSD_QUEUE ? 0 : x->count;
		bpf_sym(b, x->callsite, true, site, sizeof(site));
		bpf_sym(b, x->addr2, x->event != IPT_COUNTER_CSD_QUEUE, fn, sizeof(fn));
		e |= ipt_strbuf_addf(sb, "# count target=%d from=%d event=%s callsite=%s %s=%s", x->target, x->src,
				     ipt_counter_event_name(x->event), site,
				     x->event == IPT_COUNTER_CSD_QUEUE ? "func" : "callback", fn);
		if (x->func)
			e |= ipt_strbuf_addf(sb, " function=%s", bpf_sym(b, x->func, false, real, sizeof(real)));
		e |= ipt_strbuf_addf(sb, " n=%" PRIu64 " comm=%s\n", x->count, x->comm[0] ? x->comm : "<...>");
	}
	for (size_t i = 0; i < d->nhandlers && !e; i++) {
		const struct ipt_counter_handler *h = &d->handlers[i];

		if (h->count)
			e |= ipt_strbuf_addf(sb, "# interrupts cpu=%d vector=%s n=%" PRIu64 " handler_ns=%" PRIu64 "\n",
					     h->cpu, ipt_counter_vector_name(h->vector), h->count, h->sum_ns);
	}
	for (int k = 0; k < IPT_COUNTER_NERRORS && !e; k++)
		if (d->errors[k])
			e |= ipt_strbuf_addf(sb, "# not counted %s=%" PRIu64 "\n", ipt_counter_error_name(k), d->errors[k]);
	if (d->recursion_misses && !e)
		e |= ipt_strbuf_addf(sb, "# not counted recursion_misses=%" PRIu64 "\n", d->recursion_misses);
	return e;
}

/* serve_rows - the rows of /watched.txt inside [t0, t1] into sb; counts
 * them (*ncsd: those of queued csd calls) */
static int serve_rows(struct ipt_strbuf *sb, const char *text, size_t len, double t0, double t1,
		      long *nrows, long *ncsd, double *oldest)
{
	const char *p = text, *end = text + len;
	bool keep = false;
	int e = 0;

	*nrows = *ncsd = 0;
	*oldest = -1;
	while (p < end && !e) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		double ts;

		if (*p == '#') {
			keep = false;
		} else if (!strncmp(p, " => ", 4)) {
			/* a frame of the stack above */
		} else if (row_time(p, le, &ts)) {
			/* the sends and csd queueings (not the stacks, not the
			 * handlers' entries and exits) */
			bool csd = memmem(p, (size_t)(le - p), ": csd_queue_cpu: ", 17) != NULL;
			bool send = csd || memmem(p, (size_t)(le - p), ": ipi_send_", 11) != NULL;

			if (*oldest < 0)
				*oldest = ts;
			keep = ts >= t0 && ts <= t1;
			*nrows += keep && send;
			*ncsd += keep && csd;
		} else {
			keep = false;
		}
		if (keep && *p != '#')
			e |= ipt_strbuf_add(sb, p, (size_t)(le - p)) || ipt_strbuf_addc(sb, '\n');
		p = le + 1;
	}
	return e;
}

/* print_serve_summary - what serve counted, per target CPU, on stderr */
static void print_serve_summary(struct recorder *r, const struct ipt_counter_snapshot *d, uint64_t sends,
				long nrows, long ncsd, const char *watch)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	int last = -1;
	uint64_t n = 0;

	for (size_t i = 0; i <= d->nsends; i++) {
		const struct ipt_counter_send *x = i < d->nsends ? &d->sends[i] : NULL;

		if (x && x->event == IPT_COUNTER_CSD_QUEUE)
			continue;
		if ((!x || x->target != last) && last >= 0 && n)
			ipt_strbuf_addf(&sb, "%scpu%d %" PRIu64, sb.len ? ", " : "", last, n);
		if (!x)
			break;
		if (x->target != last)
			n = 0;
		last = x->target;
		n += x->count;
	}
	info(r, "serve counted %" PRIu64 " IPIs in %.2f s (per target CPU: %s); %ld rows (%ld IPI sends, %ld "
	     "csd calls queued) for the watched CPUs %s written to %s", sends, r->t_stop - r->t_start,
	     sb.len ? ipt_strbuf_str(&sb) : "none", nrows, nrows - ncsd, ncsd, watch, r->o.output);
	ipt_strbuf_free(&sb);
}

/* write_serve_file - header, counts, rows; appears only when complete */
static int write_serve_file(struct recorder *r, const struct ipt_counter *b, const struct ipt_counter_snapshot *d,
			    double t0, double t1, const char *text, size_t len)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	struct watched_header h;
	struct outfile of;
	uint64_t sends;
	long nrows, ncsd;
	double oldest;
	int e = 0;

	watched_header_read(text, &h);
	e |= ipt_strbuf_addf(&sb, "# tracer: nop\n#\n# ipitrace record --from-serve: the rows of ipitrace serve's "
			     "flight recorder (pid %d; IPIs whose targets include the watched CPUs %s) over a "
			     "window of %.3f s, CLOCK_MONOTONIC %.6f to %.6f; nothing attached for it; clock: "
			     "CLOCK_MONOTONIC\n",
			     ipt_counter_remote_pid(b), h.watch, t1 - t0, t0, t1);
	e |= serve_counts(&sb, b, d, &sends);
	e |= ipt_strbuf_addf(&sb, "#P:%s\n", h.ncpus);
	e |= serve_rows(&sb, text, len, t0, t1, &nrows, &ncsd, &oldest);
	if (e) {
		err_msg("out of memory");
		ipt_strbuf_free(&sb);
		return -1;
	}
	if (outfile_open(&of, r->o.output, r->o.force)) {
		err_msg("%s: %s", r->o.output, strerror(errno));
		ipt_strbuf_free(&sb);
		return -1;
	}
	if (outfile_write(&of, sb.buf, sb.len) || outfile_commit(&of)) {
		err_msg("%s: %s", r->o.output, strerror(errno));
		outfile_abort(&of);
		ipt_strbuf_free(&sb);
		return -1;
	}
	ipt_strbuf_free(&sb);
	print_serve_summary(r, d, sends, nrows, ncsd, h.watch);
	if (h.kept < (long)h.total && oldest > t0)
		err_msg("warning: serve keeps its last %ld rows (--keep): the rows before CLOCK_MONOTONIC %.6f, the "
			"first %.3f s of the window, are gone from it and missing in %s", h.kept, oldest,
			oldest - t0, r->o.output);
	for (int k = 0; k < IPT_COUNTER_NERRORS; k++)
		if (d->errors[k])
			err_msg("warning: serve did not count everything in the window: %s %" PRIu64,
				ipt_counter_error_name(k), d->errors[k]);
	return 0;
}

/* record_from_serve - `record --from-serve`: two reads of serve's maps
 * around the window, then its rows of the window; returns the exit code */
static int record_from_serve(struct recorder *r)
{
	struct ipt_counter_snapshot *s0 = NULL, *s1 = NULL, *d = NULL;
	struct ipt_counter *b;
	char *text = NULL;
	size_t len = 0;
	int rc = 1;

	/* COMMAND runs with the affinity the recorder had before it was
	 * pinned (by ipt_counter_connect) to the housekeeping CPUs */
	if (sched_getaffinity(0, sizeof(r->orig_affinity), &r->orig_affinity)) {
		err_msg("sched_getaffinity: %s", strerror(errno));
		return 1;
	}
	b = ipt_counter_connect(r->o.socket);
	if (!b) {
		err_msg("record --from-serve: no ipitrace serve answers: %s", ipt_errmsg());
		return 1;
	}
	if (r->o.command && fork_command(r))
		goto out;
	s0 = ipt_counter_read(b);
	if (!s0) {
		err_msg("%s", ipt_errmsg());
		goto out;
	}
	r->t_start = now_s();
	info(r, "reading the counts and rows of ipitrace serve (pid %d, %s): nothing attached%s",
	     ipt_counter_remote_pid(b), r->o.socket, r->o.command || r->o.duration > 0 ? "" : "; Ctrl-C stops");
	if (r->o.command && release_command(r))
		goto out;
	if (wait_end(r))
		goto out;
	s1 = ipt_counter_read(b);
	r->t_stop = now_s();
	if (r->stop_signal)
		info(r, "%s: stopping", strsignal(r->stop_signal));
	end_child(r);
	if (!s1) {
		err_msg("%s (no file written)", ipt_errmsg());
		goto out;
	}
	d = ipt_counter_snapshot_diff(s1, s0);
	usleep(SERVE_DRAIN_WAIT_US);	/* the window's last rows reach serve's ring */
	text = ipt_counter_remote_get(r->o.socket, "/watched.txt", &len);
	if (!d || !text) {
		err_msg("%s (no file written)", d ? ipt_errmsg() : "out of memory");
		goto out;
	}
	if (write_serve_file(r, b, d, s0->time, s1->time, text, len))
		goto out;
	rc = exit_code(r);
out:
	free(text);
	ipt_counter_snapshot_free(s0);
	ipt_counter_snapshot_free(s1);
	ipt_counter_snapshot_free(d);
	ipt_counter_close(b);
	if (r->go_fd >= 0)
		close(r->go_fd);
	if (r->err_fd >= 0)
		close(r->err_fd);
	if (r->child && !r->child_done) {
		kill(r->child, SIGTERM);
		wait_child_bounded(r);
	}
	return rc;
}

/* record_run - everything after option parsing; returns the exit code */
static int record_run(struct recorder *r)
{
	uint64_t events, lost;
	int rc = 1;

	if (!r->o.quiet && geteuid() == 0 && access(r->o.socket, F_OK) == 0) {
		size_t n;
		char *t = ipt_counter_remote_get(r->o.socket, "/", &n);

		if (t)
			info(r, "ipitrace serve runs (%s): `record --from-serve` reads its counts and rows "
			     "instead, without attaching", r->o.socket);
		free(t);
	}
	if (setup(r) || (r->o.command && fork_command(r)))
		goto out;
	if (ipt_recorder_start(r->rec)) {
		err_msg("%s", ipt_errmsg());
		goto out;
	}
	r->t_start = now_s();
	print_start(r);
	if (r->o.command && release_command(r))
		goto out;
	r->t_status = r->t_start;
	r->status = !r->o.quiet && isatty(STDERR_FILENO);
	if (wait_end(r)) {
		status_clear(r);
		err_msg("%s (no file written)", ipt_recorder_failure(r->rec));
		goto out;
	}
	status_clear(r);
	ipt_recorder_stop(r->rec);
	r->t_stop = now_s();
	if (r->stop_signal)
		info(r, "%s: stopping", strsignal(r->stop_signal));
	end_child(r);
	if (ipt_recorder_collect(r->rec)) {
		err_msg("%s", ipt_errmsg());
		goto out;
	}
	print_cpus(r, &events, &lost);
	if (ipt_recorder_write(r->rec)) {
		err_msg("%s", ipt_errmsg());
		goto out;
	}
	info(r, "%llu events in %.2f s written to %s", (unsigned long long)events,
	     r->t_stop - r->t_start, r->o.output);
	if (lost)
		err_msg("warning: %llu events lost: raise --buffer-kb (now %lu)",
			(unsigned long long)lost, r->o.buffer_kb);
	rc = exit_code(r);
out:
	if (r->go_fd >= 0)
		close(r->go_fd);	/* a COMMAND not yet started exits */
	if (r->err_fd >= 0)
		close(r->err_fd);
	if (ipt_recorder_close(r->rec))
		rc = 1;
	if (r->child && !r->child_done) {
		kill(r->child, SIGTERM);
		wait_child_bounded(r);
	}
	return r->usage_error ? 2 : rc;
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
	rc = r.o.from_serve ? record_from_serve(&r) : record_run(&r);
	{
		/* an EPIPE was reported already: the pending SIGPIPE must not kill */
		struct timespec zero = { 0, 0 };

		while (sigtimedwait(&pipe_sig, NULL, &zero) == SIGPIPE)
			;
	}
	ipt_recorder_free(r.rec);		/* restores the CPU affinity */
	sigprocmask(SIG_SETMASK, &old, NULL);
	recorder_free(&r);
	return rc;
}
