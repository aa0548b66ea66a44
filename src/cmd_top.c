// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_top.c - `ipitrace top`: IPIs per target CPU, counted in the kernel by
 * BPF programs (the library's ipt_bpf_*), read by polling the maps.
 *
 * The loader is pinned to the housekeeping CPUs before the programs load,
 * attaches once and stays attached; it has one thread and one poll() loop
 * (the interval timer and, in the live view, the keyboard); no ring buffer,
 * so no wake-up is ever sent to the CPUs it watches.
 */
#include "commands.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_TOP	3
/* the "schema" member of each interval's JSON: docs/schema/top.json, whose
 * "const" says the same; a change to the JSON changes both (the version) */
#define TOP_SCHEMA	"ipitrace-top/1"

struct top_opts {
	double interval;		/* seconds */
	bool once;
	bool json;
	struct ipt_cpuset watch;	/* marked CPUs */
	struct ipt_cpuset cpus;		/* rows shown (empty: every CPU) */
	bool have_cpus;
	struct ipt_cpuset hk;		/* --housekeeping */
	bool have_hk;
	int top;			/* entries per CPU in the JSON senders, text top lists */
	bool stats;
	bool quiet;
	const char *socket;		/* a running serve's */
	bool no_serve;
	const char *backend;
	/* the live view's keys */
	enum top_sort { SORT_CPU, SORT_SENDS, SORT_RECEIVED } sort;
	bool only_watched;
	char cpus_typed[64];		/* after 'c': the CPU list being typed */
	bool typing;
};

static const char *const sort_names[] = { "cpu", "sends", "received" };

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void top_usage(FILE *f)
{
	fprintf(f,
		"usage: ipitrace top [OPTIONS]\n"
		"\n"
		"IPIs per target CPU, counted in the kernel by BPF programs, as a live view\n"
		"refreshed every interval (q or Ctrl-C quits), or with --once one table over one\n"
		"interval.  Needs root.  With `ipitrace serve` running it reads serve's counts\n"
		"(one attachment per boot); else it attaches the programs itself, which needs\n"
		"the kernel's BTF (/sys/kernel/btf/vmlinux); where BPF is unavailable (no BTF,\n"
		"built without libbpf, refused) it says why and counts the same sends with a\n"
		"tracefs instance of its own instead, polled (no handler times then).\n"
		"\n"
		"Counted: ipi:ipi_send_cpu and ipi:ipi_send_cpumask (one count per target CPU of\n"
		"the mask) per target CPU, sending CPU, call site, callback and sending command;\n"
		"csd:csd_queue_cpu for the function the target really runs; and on x86 the\n"
		"handler time of the reschedule, call_function, call_function_single and irq_work\n"
		"vectors per CPU (a log2 histogram).  Tracepoints this kernel lacks are skipped\n"
		"and named on stderr.\n"
		"\n"
		"Each row begins with the target CPU (* after it: a watched CPU), then the IPIs\n"
		"sent to it (sends), the csd functions queued for it (csd), the interrupts it\n"
		"received per vector with their mean handler time, the top sending command and\n"
		"the top call site -> function (" IPT_NO_FUNCTION ": the IPI names no function, no\n"
		"callback: a reschedule, or an irq_work or timer IPI).  Counts are for the\n"
		"interval, not per second.\n"
		"Sends the programs could not count (a full map, a read error) are shown, never\n"
		"dropped silently.\n"
		"\n"
		"Options:\n"
		"      --once            one interval, one table, then exit; SIGINT or SIGTERM\n"
		"                        ends the interval early, and the table covers the\n"
		"                        time counted (said on stderr)\n"
		"  -d, --duration TIME   the interval: seconds (fractions allowed) or 500ms, 30s,\n"
		"                        5m (default 1)\n"
		"  -f, --format FMT      text (default) or json.  json: one object per\n"
		"                        interval, one line each (docs/schema/top.json), with\n"
		"                        its start_ns and end_ns (CLOCK_MONOTONIC ns of the\n"
		"                        counts' reads that bound it: the next starts where\n"
		"                        it ends); call sites and callbacks as \"0x...\"\n"
		"                        addresses (null: none) with their symbols apart\n"
		"      --watch LIST      CPUs to mark and whose IPIs are shown one by one under\n"
		"                        the table, the last 5 of the interval (json: their\n"
		"                        count; default: the isolated and nohz_full CPUs)\n"
		"  -c, --cpus LIST       only rows of these target CPUs\n"
		"  -t, --top N           senders listed per CPU in json (default %d; 0: all)\n"
		"  -H, --housekeeping LIST  CPUs the loader runs on (default: the CPUs neither\n"
		"                        isolated nor nohz_full; if none is, the first CPU)\n"
		"      --stats           the kernel's BPF run-time stats at the end on stderr:\n"
		"                        runs and ns per run of each program; attach and\n"
		"                        detach time\n"
		"      --socket PATH     where a running `ipitrace serve` answers (default\n"
		"                        " SERVE_SOCKET "): top then reads its counts\n"
		"                        instead of attaching the programs again\n"
		"      --no-serve        attach the programs even when serve runs\n"
		"      --backend B       auto (default: serve's counts, else BPF, else tracefs),\n"
		"                        bpf, or tracefs (an instance of its own whose\n"
		"                        trace_pipe is polled, never waited on: no handler\n"
		"                        times)\n"
		"  -q, --quiet           only errors and warnings on stderr\n"
		"  -h, --help            this text\n"
		"\n"
		"Keys of the live view (a terminal): s sorts the rows by CPU, by IPIs sent to\n"
		"the CPU, or by interrupts received; w shows only the watched CPUs; c then a\n"
		"CPU list and Enter shows only those (Enter alone: all); a shows all again;\n"
		"q quits.  A key redraws the last interval at once.\n"
		"\n"
		"Attaching and detaching patch kernel text, which sends IPIs to every CPU:\n"
		"top attaches once, at the start, and stays attached until it exits.  The\n"
		"loader then sends nothing to the watched CPUs: it sleeps in poll() and reads\n"
		"the maps with one system call per entry.\n",
		DEFAULT_TOP);
}

/* parse_list - a CPU list option, kept to this machine's possible CPUs */
static int parse_list(struct ipt_cpuset *set, const char *opt, const char *arg)
{
	if (ipt_cpuset_parse_list(set, arg, strlen(arg)) || ipt_cpuset_empty(set))
		return usage_err("top", "%s: bad CPU list '%s'", opt, arg);
	return machine_cpus_within("top", opt, arg, set);
}

static int parse_args(struct top_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "once", no_argument, NULL, '1' },
		{ "duration", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "watch", required_argument, NULL, 'w' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "top", required_argument, NULL, 't' },
		{ "housekeeping", required_argument, NULL, 'H' },
		{ "stats", no_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "socket", required_argument, NULL, 's' },
		{ "no-serve", no_argument, NULL, 'N' },
		{ "backend", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_watch = false;
	char *end;
	long v;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:f:c:t:H:qh", longopts, NULL)) != -1) {
		switch (c) {
		case '1': o->once = true; break;
		case 'd':
			if (parse_duration(optarg, &o->interval) || o->interval < 0.01)
				return usage_err("top", "--duration: bad interval '%s' (e.g. 1, 0.5, 500ms, 30s)",
						 optarg);
			break;
		case 'f':
			if (!strcmp(optarg, "json"))
				o->json = true;
			else if (strcmp(optarg, "text"))
				return usage_err("top", "--format: '%s' is not text or json", optarg);
			break;
		case 'w':
			have_watch = true;
			if (parse_list(&o->watch, "--watch", optarg))
				return 2;
			break;
		case 'c':
			o->have_cpus = true;
			if (parse_list(&o->cpus, "--cpus", optarg))
				return 2;
			break;
		case 't':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || v < 0 || v > 1000000)
				return usage_err("top", "--top: bad number '%s'", optarg);
			o->top = (int)v;
			break;
		case 'H':
			o->have_hk = true;
			if (parse_list(&o->hk, "--housekeeping", optarg))
				return 2;
			break;
		case 'S': o->stats = true; break;
		case 'q': o->quiet = true; break;
		case 's': o->socket = optarg; break;
		case 'N': o->no_serve = true; break;
		case 'B':
			if (strcmp(optarg, "auto") && strcmp(optarg, "bpf") && strcmp(optarg, "tracefs"))
				return usage_err("top", "--backend: '%s' is not auto, bpf or tracefs", optarg);
			o->backend = optarg;
			break;
		case 'h': top_usage(stdout); return 3;
		default: return opt_err("top", c, argv);
		}
	}
	if (optind < argc)
		return usage_err("top", "unexpected argument '%s'", argv[optind]);
	if (!have_watch && ipt_isolated_cpus(&o->watch)) {
		err_msg("%s", ipt_errmsg());
		return 1;
	}
	return 0;
}

/* ---- the table of one interval ---- */

struct cpu_row {
	int cpu;
	uint64_t sends, csd;
	uint64_t recv[IPT_COUNTER_NVECTORS], recv_ns[IPT_COUNTER_NVECTORS];
};

/* agg - counts of one (callsite, addr2) or one comm for one CPU */
struct agg {
	uint64_t callsite, addr2;
	const char *comm;
	uint64_t count;
};

/* top_of - the largest group of the CPU's entries [lo, hi) of event class
 * csd (or sends), grouped by comm (by_comm) or by (callsite, addr2) */
static struct agg top_of(const struct ipt_counter_snapshot *d, size_t lo, size_t hi, bool csd, bool by_comm)
{
	struct agg best = { 0, 0, NULL, 0 };

	for (size_t i = lo; i < hi; i++) {
		const struct ipt_counter_send *s = &d->sends[i];
		struct agg a = { s->callsite, s->addr2, s->comm, 0 };
		bool seen = false;

		if ((s->event == IPT_COUNTER_CSD_QUEUE) != csd)
			continue;
		for (size_t j = lo; j < i && !seen; j++) {
			const struct ipt_counter_send *t = &d->sends[j];

			if ((t->event == IPT_COUNTER_CSD_QUEUE) != csd)
				continue;
			seen = by_comm ? !strncmp(t->comm, s->comm, sizeof(s->comm))
				       : t->callsite == s->callsite && t->addr2 == s->addr2;
		}
		if (seen)
			continue;
		for (size_t j = i; j < hi; j++) {
			const struct ipt_counter_send *t = &d->sends[j];

			if ((t->event == IPT_COUNTER_CSD_QUEUE) != csd)
				continue;
			if (by_comm ? !strncmp(t->comm, s->comm, sizeof(s->comm))
				    : t->callsite == s->callsite && t->addr2 == s->addr2)
				a.count += t->count;
		}
		if (a.count > best.count)
			best = a;
	}
	return best;
}

/* the callback of a function-call IPI is only the generic handler: the
 * function is then the top csd function queued for the CPU */
static bool generic_callback(const struct ipt_counter *b, uint64_t addr)
{
	const char *n = ipt_counter_symbol(b, addr, NULL);

	return n && (!strcmp(n, "generic_smp_call_function_single_interrupt") ||
		     !strcmp(n, "generic_smp_call_function_interrupt"));
}

static void top_site(const struct ipt_counter *b, const struct ipt_counter_snapshot *d, size_t lo, size_t hi,
		     char *site, size_t ssize, char *fn, size_t fsize)
{
	struct agg s = top_of(d, lo, hi, false, false), q = top_of(d, lo, hi, true, false);

	*site = *fn = 0;
	if (!s.count && !q.count)
		return;
	if (!s.count) {
		bpf_sym(b, q.callsite, true, site, ssize);
		bpf_sym(b, q.addr2, false, fn, fsize);
		return;
	}
	bpf_sym(b, s.callsite, true, site, ssize);
	if (!s.addr2)
		snprintf(fn, fsize, "%s", IPT_NO_FUNCTION);
	else if (generic_callback(b, s.addr2) && q.count)
		bpf_sym(b, q.addr2, false, fn, fsize);
	else
		bpf_sym(b, s.addr2, false, fn, fsize);
}

static void fill_row(const struct ipt_counter_snapshot *d, struct cpu_row *r, size_t lo, size_t hi)
{
	for (size_t i = lo; i < hi; i++) {
		if (d->sends[i].event == IPT_COUNTER_CSD_QUEUE)
			r->csd += d->sends[i].count;
		else
			r->sends += d->sends[i].count;
	}
	for (size_t i = 0; i < d->nhandlers; i++) {
		const struct ipt_counter_handler *h = &d->handlers[i];

		if (h->cpu == r->cpu && (unsigned int)h->vector < IPT_COUNTER_NVECTORS) {
			r->recv[h->vector] += h->count;
			r->recv_ns[h->vector] += h->sum_ns;
		}
	}
}

static bool shown(const struct top_opts *o, int cpu)
{
	if (o->only_watched && !ipt_cpuset_has(&o->watch, (unsigned int)cpu))
		return false;
	return !o->have_cpus || ipt_cpuset_has(&o->cpus, (unsigned int)cpu);
}

/* ncpus_of - rows: every CPU up to the highest seen, at least the online count */
static int ncpus_of(const struct ipt_counter_snapshot *d)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int max = n > 0 ? (int)n : 1;

	for (size_t i = 0; i < d->nsends; i++)
		if (d->sends[i].target >= max)
			max = d->sends[i].target + 1;
	for (size_t i = 0; i < d->nhandlers; i++)
		if (d->handlers[i].cpu >= max)
			max = d->handlers[i].cpu + 1;
	return max;
}

static uint64_t lost_of(const struct ipt_counter_snapshot *d)
{
	return d->errors[IPT_COUNTER_ERR_SEND_FULL] + d->errors[IPT_COUNTER_ERR_SEND_UPDATE] +
	       d->errors[IPT_COUNTER_ERR_HANDLER_FULL] + d->errors[IPT_COUNTER_ERR_MASK_READ] +
	       d->errors[IPT_COUNTER_ERR_TRACEFS_LOST];
}

/* one row of the text table */
struct line {
	struct cpu_row r;
	uint64_t received;
	const char *comm;
	char site[160], fn[128];
};

static int cmp_sends(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	/* the sends column, as the status line names it (csd queueing has its own) */
	if (x->r.sends != y->r.sends)
		return x->r.sends < y->r.sends ? 1 : -1;
	return x->r.cpu - y->r.cpu;
}

static int cmp_received(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	if (x->received != y->received)
		return x->received < y->received ? 1 : -1;
	return x->r.cpu - y->r.cpu;
}

static void print_text(FILE *f, const struct top_opts *o, const struct ipt_counter *b,
		       const struct ipt_counter_snapshot *d, bool tty)
{
	int ncpus = ncpus_of(d);
	struct line *v = calloc((size_t)ncpus, sizeof(*v));
	size_t lo = 0, n = 0;

	if (!v) {
		err_msg("top: out of memory");
		return;
	}
	fprintf(f, "%-5s %8s %8s %8s %7s %8s %7s %8s %7s  %-15s %s\n", "CPU", "sends", "csd",
		"resched", "avg_ns", "call", "avg_ns", "irq_work", "avg_ns", "top command",
		"top call site -> function");
	for (int cpu = 0; cpu < ncpus; cpu++) {
		struct line *l = &v[n];
		size_t hi;
		struct agg c;

		while (lo < d->nsends && d->sends[lo].target < cpu)
			lo++;
		for (hi = lo; hi < d->nsends && d->sends[hi].target == cpu; hi++)
			;
		if (!shown(o, cpu)) {
			lo = hi;
			continue;
		}
		l->r.cpu = cpu;
		fill_row(d, &l->r, lo, hi);
		for (int k = 0; k < IPT_COUNTER_NVECTORS; k++)
			l->received += l->r.recv[k];
		c = top_of(d, lo, hi, false, true);
		if (!c.count)
			c = top_of(d, lo, hi, true, true);
		l->comm = c.comm;
		top_site(b, d, lo, hi, l->site, sizeof(l->site), l->fn, sizeof(l->fn));
		n++;
		lo = hi;
	}
	if (o->sort == SORT_SENDS)
		qsort(v, n, sizeof(*v), cmp_sends);
	else if (o->sort == SORT_RECEIVED)
		qsort(v, n, sizeof(*v), cmp_received);
	for (size_t i = 0; i < n; i++) {
		const struct cpu_row *r = &v[i].r;
		uint64_t call = r->recv[IPT_COUNTER_VEC_CALL_FUNCTION] + r->recv[IPT_COUNTER_VEC_CALL_FUNCTION_SINGLE];
		uint64_t call_ns = r->recv_ns[IPT_COUNTER_VEC_CALL_FUNCTION] +
				   r->recv_ns[IPT_COUNTER_VEC_CALL_FUNCTION_SINGLE];
		char cpu_s[16];

		snprintf(cpu_s, sizeof(cpu_s), "%d%s", r->cpu,
			 ipt_cpuset_has(&o->watch, (unsigned int)r->cpu) ? "*" : "");
		fprintf(f, "%-5s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %7" PRIu64 " %8" PRIu64 " %7" PRIu64
			" %8" PRIu64 " %7" PRIu64 "  %-15s %s%s%s\n", cpu_s, r->sends, r->csd,
			r->recv[IPT_COUNTER_VEC_RESCHEDULE],
			r->recv[IPT_COUNTER_VEC_RESCHEDULE] ? r->recv_ns[IPT_COUNTER_VEC_RESCHEDULE] /
				r->recv[IPT_COUNTER_VEC_RESCHEDULE] : 0,
			call, call ? call_ns / call : 0, r->recv[IPT_COUNTER_VEC_IRQ_WORK],
			r->recv[IPT_COUNTER_VEC_IRQ_WORK] ? r->recv_ns[IPT_COUNTER_VEC_IRQ_WORK] /
				r->recv[IPT_COUNTER_VEC_IRQ_WORK] : 0,
			v[i].comm ? v[i].comm : "-", *v[i].site ? v[i].site : "-", *v[i].fn ? " -> " : "",
			v[i].fn);
	}
	free(v);
	if (tty || lost_of(d) || d->recursion_misses)
		fprintf(tty ? f : stderr, "%snot counted: %" PRIu64 " (map full %" PRIu64 ", map errors %"
			PRIu64 ", mask reads %" PRIu64 "), recursion misses %" PRIu64 "\n",
			tty ? "" : "ipitrace top: ", lost_of(d), d->errors[IPT_COUNTER_ERR_SEND_FULL] +
			d->errors[IPT_COUNTER_ERR_HANDLER_FULL], d->errors[IPT_COUNTER_ERR_SEND_UPDATE],
			d->errors[IPT_COUNTER_ERR_MASK_READ], d->recursion_misses);
}

/* json_list - a comma-separated list as a JSON array of strings */
static void json_list(struct ipt_jw *j, const char *list)
{
	ipt_jw_arr(j);
	for (const char *p = list; *p;) {
		const char *c = strchr(p, ',');
		size_t n = c ? (size_t)(c - p) : strlen(p);

		ipt_jw_strn(j, p, n);
		p += n + (c ? 1 : 0);
	}
	ipt_jw_end(j);
}

/* json_cpu - one CPU's object: its counts, its top sender, call site and
 * function, what it received, its senders (the sends [lo, hi) to it) */
static void json_cpu(struct ipt_jw *j, const struct top_opts *o, const struct ipt_counter *b,
		     const struct ipt_counter_snapshot *d, int cpu, size_t lo, size_t hi)
{
	char site[160], fn[128];
	struct cpu_row r;
	struct agg c;
	int n = 0;

	memset(&r, 0, sizeof(r));
	r.cpu = cpu;
	fill_row(d, &r, lo, hi);
	c = top_of(d, lo, hi, false, true);
	top_site(b, d, lo, hi, site, sizeof(site), fn, sizeof(fn));
	ipt_jw_obj(j);
	ipt_jw_ki64(j, "cpu", cpu);
	ipt_jw_kbool(j, "watched", ipt_cpuset_has(&o->watch, (unsigned int)cpu));
	ipt_jw_ku64(j, "sends", r.sends);
	ipt_jw_ku64(j, "csd", r.csd);
	ipt_jw_kstr(j, "top_comm", c.comm);
	ipt_jw_kstr(j, "top_callsite", site);
	ipt_jw_kstr(j, "top_function", fn);
	ipt_jw_key(j, "received");
	ipt_jw_obj(j);
	for (size_t i = 0; i < d->nhandlers; i++) {
		const struct ipt_counter_handler *h = &d->handlers[i];
		int last = IPT_COUNTER_HIST_SLOTS - 1;

		if (h->cpu != cpu)
			continue;
		while (last > 0 && !h->hist[last])
			last--;
		ipt_jw_key(j, ipt_counter_vector_name(h->vector));
		ipt_jw_obj(j);
		ipt_jw_ku64(j, "count", h->count);
		ipt_jw_ku64(j, "sum_ns", h->sum_ns);
		ipt_jw_ku64(j, "max_ns", h->max_ns);
		ipt_jw_key(j, "log2_ns_hist");
		ipt_jw_arr(j);
		for (int s = 0; s <= last; s++)
			ipt_jw_u64(j, h->hist[s]);
		ipt_jw_end(j);
		ipt_jw_end(j);
	}
	ipt_jw_end(j);
	ipt_jw_key(j, "senders");
	ipt_jw_arr(j);
	for (size_t i = lo; i < hi && (!o->top || n < o->top); i++, n++) {
		const struct ipt_counter_send *s = &d->sends[i];

		ipt_jw_obj(j);
		ipt_jw_ki64(j, "src_cpu", s->src);
		ipt_jw_kstr(j, "event", ipt_counter_event_name(s->event));
		ipt_jw_ku64(j, "count", s->count);
		ipt_jw_kstr(j, "comm", s->comm);
		bpf_json_addr(j, b, "callsite", "callsite_sym", s->callsite, true);
		if (s->event == IPT_COUNTER_CSD_QUEUE)
			bpf_json_addr(j, b, "func", "func_name", s->addr2, false);
		else
			bpf_json_addr(j, b, "callback", "callback_sym", s->addr2, false);
		ipt_jw_end(j);
	}
	ipt_jw_end(j);
	ipt_jw_end(j);
}

/* mono_ns - a snapshot's time (CLOCK_MONOTONIC seconds) in ns */
static uint64_t mono_ns(double s)
{
	return s > 0 ? (uint64_t)(s * 1e9 + 0.5) : 0;
}

/* print_json - one interval (the counts d between the reads at start and
 * end, CLOCK_MONOTONIC seconds) as one line of JSON */
static void print_json(FILE *f, const struct top_opts *o, const struct ipt_counter *b,
		       const struct ipt_counter_snapshot *d, double start, double end, uint64_t rows)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	struct ipt_jw j;
	char w[256];
	int ncpus = ncpus_of(d);
	size_t lo = 0;

	ipt_cpuset_format_list(&o->watch, w, sizeof(w));
	ipt_jw_init(&j, &sb, f);
	ipt_jw_obj(&j);
	ipt_jw_kstr(&j, "schema", TOP_SCHEMA);
	ipt_jw_kstr(&j, "source", strcmp(ipt_counter_backend(b), "tracefs") ? "bpf" : "tracefs");
	ipt_jw_ki64(&j, "serve_pid", ipt_counter_remote_pid(b));
	ipt_jw_kfixed(&j, "interval_s", d->time, 6);
	ipt_jw_ku64(&j, "start_ns", mono_ns(start));
	ipt_jw_ku64(&j, "end_ns", mono_ns(end));
	ipt_jw_key(&j, "attached");
	json_list(&j, ipt_counter_attached(b));
	ipt_jw_key(&j, "skipped");
	json_list(&j, ipt_counter_skipped(b));
	ipt_jw_kstr(&j, "watch", w);
	ipt_jw_key(&j, "errors");
	ipt_jw_obj(&j);
	for (int e = 0; e < IPT_COUNTER_NERRORS; e++)
		ipt_jw_ku64(&j, ipt_counter_error_name(e), d->errors[e]);
	ipt_jw_end(&j);
	ipt_jw_ku64(&j, "recursion_misses", d->recursion_misses);
	ipt_jw_key(&j, "watched_ipis");
	if (!strcmp(ipt_counter_backend(b), "bpf") && !ipt_cpuset_empty(&o->watch))
		ipt_jw_u64(&j, rows);
	else
		ipt_jw_null(&j);
	ipt_jw_key(&j, "cpus");
	ipt_jw_arr(&j);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		size_t hi;

		while (lo < d->nsends && d->sends[lo].target < cpu)
			lo++;
		for (hi = lo; hi < d->nsends && d->sends[hi].target == cpu; hi++)
			;
		if (shown(o, cpu))
			json_cpu(&j, o, b, d, cpu, lo, hi);
		lo = hi;
	}
	ipt_jw_end(&j);
	ipt_jw_end(&j);
	ipt_jw_raw(&j, "\n");
	if (ipt_jw_finish(&j))
		err_msg("top: an interval's JSON was not written whole");
	ipt_strbuf_free(&sb);
}

/* ---- the flight recorder's rows (IPIs to watched CPUs), the last few ---- */

#define LAST_ROWS 5

struct last_rows {
	struct ipt_counter_row row[LAST_ROWS];
	uint64_t n;			/* rows in the interval */
};

static void keep_row(const struct ipt_counter_row *r, void *ctx)
{
	struct last_rows *lr = ctx;

	lr->row[lr->n++ % LAST_ROWS] = *r;
}

static void print_rows(FILE *f, const struct ipt_counter *b, const struct last_rows *lr)
{
	char site[160], fn[128];
	uint64_t first = lr->n > LAST_ROWS ? lr->n - LAST_ROWS : 0;

	fprintf(f, "IPIs to watched CPUs: %" PRIu64 " in the interval%s\n", lr->n, lr->n ? "; the last:" : "");
	for (uint64_t i = first; i < lr->n; i++) {
		const struct ipt_counter_row *r = &lr->row[i % LAST_ROWS];
		char tg[128];

		bpf_row_targets(r, tg, sizeof(tg));
		fprintf(f, "  %" PRIu64 ".%06" PRIu64 " %s[%d] cpu %d -> %s  %s -> %s%s\n", r->ts_ns / 1000000000u,
			r->ts_ns % 1000000000u / 1000u, r->comm, r->pid, r->src, tg,
			bpf_sym(b, r->callsite, true, site, sizeof(site)),
			r->addr2 ? bpf_sym(b, r->addr2, false, fn, sizeof(fn)) : IPT_NO_FUNCTION,
			r->event == IPT_COUNTER_CSD_QUEUE ? " (csd queued)" : "");
	}
}

/* ---- the loop ---- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* on_key - one key of the live view: 1 quit, 2 redraw, 0 nothing to do */
static int on_key(struct top_opts *o, char ch)
{
	size_t n = strlen(o->cpus_typed);

	if (o->typing) {
		if (ch == 'q' || ch == 'Q')
			return 1;
		if (ch == '\r' || ch == '\n') {
			struct ipt_cpuset set = IPT_CPUSET_INIT;

			o->typing = false;
			ipt_cpuset_init(&set);
			if (!n) {
				o->have_cpus = false;	/* nothing typed: every CPU */
			} else if (!ipt_cpuset_parse_list(&set, o->cpus_typed, n) && !ipt_cpuset_empty(&set)) {
				ipt_cpuset_copy(&o->cpus, &set);
				o->have_cpus = true;
			} else {
				snprintf(o->cpus_typed, sizeof(o->cpus_typed), "?");
				ipt_cpuset_free(&set);
				return 2;	/* said on the status line: '?' */
			}
			ipt_cpuset_free(&set);
			o->cpus_typed[0] = 0;
		} else if (ch == 27) {	/* Esc: typing abandoned */
			o->typing = false;
			o->cpus_typed[0] = 0;
		} else if ((ch == 127 || ch == 8) && n) {
			o->cpus_typed[n - 1] = 0;
		} else if (((ch >= '0' && ch <= '9') || ch == ',' || ch == '-') && n + 1 < sizeof(o->cpus_typed)) {
			o->cpus_typed[n] = ch;
			o->cpus_typed[n + 1] = 0;
		}
		return 2;
	}
	switch (ch) {
	case 'q': case 'Q': return 1;
	case 's': o->sort = (enum top_sort)((o->sort + 1) % 3); return 2;
	case 'w': o->only_watched = !o->only_watched; return 2;
	case 'a': o->have_cpus = o->only_watched = false; return 2;
	case 'c':
		o->typing = true;
		o->cpus_typed[0] = 0;
		return 2;
	}
	return 0;
}

/* status_line - the live view's last line: time, keys and their state */
static void status_line(const struct top_opts *o, double secs)
{
	char cpus[128] = "all";

	if (o->have_cpus)
		ipt_cpuset_format_list(&o->cpus, cpus, sizeof(cpus));
	if (o->typing)
		printf("CPUs to show (Enter: apply, empty: all, Esc: cancel): %s", o->cpus_typed);
	else
		printf("%.2f s; s: sort (%s)  w: watched only (%s)  c: CPUs (%s%s)  a: all  q: quit\n", secs,
		       sort_names[o->sort], o->only_watched ? "on" : "off", cpus,
		       !strcmp(o->cpus_typed, "?") ? "; not a CPU list" : "");
}

/* wait_until - sleep in poll() until t (the keyboard too when keys), with
 * lr draining the rows every 100 ms (by the clock: no wake-up); 1 on q, -1
 * on a signal */
static int wait_until(double t, bool keys, struct top_opts *o, struct ipt_counter *b, struct last_rows *lr)
{
	for (;;) {
		double left = t - now_s();
		struct pollfd p = { .fd = 0, .events = POLLIN };
		int r;

		if (lr)
			ipt_counter_drain(b, keep_row, lr);
		if (stop_signal)
			return -1;
		if (left <= 0)
			return 0;
		if (lr && left > 0.1)
			left = 0.1;
		r = poll(&p, keys ? 1 : 0, (int)(left * 1000) + 1);
		if (r > 0 && keys) {
			char ch;

			if (read(0, &ch, 1) == 1) {
				int k = on_key(o, ch);

				if (k)
					return k;
			}
		}
	}
}

static void print_stats(const struct ipt_counter *b, double detach_s)
{
	for (int i = 0; i < ipt_counter_nprogs(b); i++) {
		struct ipt_counter_prog_stats st;

		if (ipt_counter_prog_stats(b, i, &st))
			continue;
		fprintf(stderr, "ipitrace top: bpf %s: %" PRIu64 " runs, %" PRIu64 " ns, %.0f ns/run, %" PRIu64
			" recursion misses\n", st.name, st.run_cnt, st.run_time_ns,
			st.run_cnt ? (double)st.run_time_ns / (double)st.run_cnt : 0.0, st.recursion_misses);
	}
	fprintf(stderr, "ipitrace top: attach %.1f ms\n", (double)ipt_counter_attach_ns(b) / 1e6);
	(void)detach_s;
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o = { .interval = 1.0, .top = DEFAULT_TOP, .socket = SERVE_SOCKET };
	struct ipt_counter_opts bo = { .sz = sizeof(bo) };
	struct ipt_counter_snapshot *prev = NULL, *cur = NULL, *d = NULL, *last = NULL;
	struct ipt_counter *b = NULL;
	struct termios saved;
	struct last_rows lr;
	bool rows_kept;
	bool tty = false, keys = false;
	struct sigaction sa;
	int rc, w;
	double t, t_close;

	ipt_cpuset_init(&o.watch);
	ipt_cpuset_init(&o.cpus);
	ipt_cpuset_init(&o.hk);
	rc = parse_args(&o, argc, argv);
	if (rc) {
		rc = rc == 3 ? 0 : rc;
		goto out;
	}
	bo.housekeeping = o.have_hk ? &o.hk : NULL;
	bo.stats = o.stats;
	bo.watch = &o.watch;	/* rows of the IPIs to them, shown live */
	bo.ring_bytes = 1u << 20;	/* about 9000 rows: 100 ms of 90k/s */
	/* one attachment per boot: a running serve's, if it answers */
	b = open_counter("top", o.backend, o.no_serve ? NULL : o.socket, &bo);
	if (!b) {
		rc = 1;
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	tty = !o.once && !o.json && isatty(1);
	if (tty && isatty(0) && tcgetattr(0, &saved) == 0) {
		struct termios raw = saved;

		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		keys = tcsetattr(0, TCSANOW, &raw) == 0;
	}
	prev = ipt_counter_read(b);
	if (!prev)
		goto runtime_err;
	/* rows from here on (those of the attach itself are not the interval's) */
	rows_kept = !strcmp(ipt_counter_backend(b), "bpf") && !ipt_cpuset_empty(&o.watch);
	ipt_counter_drain(b, keep_row, &lr);
	lr.n = 0;
	/* said after the first read: the interval counts from here */
	if (!o.quiet) {
		char pin[256];

		ipt_cpuset_format_list(ipt_counter_pinned(b), pin, sizeof(pin));
		if (!strcmp(ipt_counter_backend(b), "tracefs"))
			fprintf(stderr, "ipitrace top: counting with tracefs (an instance of its own, trace_pipe "
				"polled; no handler times), loader on CPU %s; events: %s\n", pin, ipt_counter_attached(b));
		else if (ipt_counter_remote_pid(b))
			fprintf(stderr, "ipitrace top: counting with BPF: the attachment of ipitrace serve "
				"(pid %d, %s), loader on CPU %s; attached: %s\n", ipt_counter_remote_pid(b), o.socket,
				pin, ipt_counter_attached(b));
		else
			fprintf(stderr, "ipitrace top: counting with BPF, loader on CPU %s; attached: %s\n", pin,
				ipt_counter_attached(b));
		if (*ipt_counter_skipped(b))
			fprintf(stderr, "ipitrace top: skipped (not in this kernel): %s\n", ipt_counter_skipped(b));
	}
	t = prev->time;
	for (;;) {
		t += o.interval;
		w = wait_until(t, keys, &o, b, rows_kept ? &lr : NULL);
		/* a signal ends the live view at once; with --once it ends the
		 * interval early, and the table covers what was counted (as
		 * perf stat does on Ctrl-C) */
		if (w < 0 && !o.once)
			break;
		if (w == 2 && last) {	/* a key: the last interval again, as asked */
			t -= o.interval;
			fputs("\033[H\033[2J", stdout);
			print_text(stdout, &o, b, last, tty);
			status_line(&o, last->time);
			fflush(stdout);
			continue;
		}
		if (w == 2) {
			t -= o.interval;
			continue;
		}
		if (w > 0)
			break;
		cur = ipt_counter_read(b);
		if (!cur)
			goto runtime_err;
		d = ipt_counter_snapshot_diff(cur, prev);
		if (!d)
			goto runtime_err;
		if (ipt_counter_drain(b, keep_row, &lr) < 0)
			goto runtime_err;
		if (o.json) {
			print_json(stdout, &o, b, d, prev->time, cur->time, lr.n);
		} else {
			if (tty)
				fputs("\033[H\033[2J", stdout);
			print_text(stdout, &o, b, d, tty);
			if (rows_kept)
				print_rows(stdout, b, &lr);
			if (tty)
				status_line(&o, d->time);
			else if (!o.once)
				putchar('\n');
		}
		fflush(stdout);
		lr.n = 0;
		ipt_counter_snapshot_free(prev);
		ipt_counter_snapshot_free(last);
		last = d;	/* shown again when a key changes the view */
		d = NULL;
		prev = cur;
		cur = NULL;
		if (o.once)
			break;
	}
	if (stop_signal && o.once && last)
		fprintf(stderr, "ipitrace top: interrupted after %.1f s of the %g s interval: the table covers those\n",
			last->time, o.interval);
	goto done;
runtime_err:
	err_msg("top: %s", ipt_errmsg());
	rc = 1;
done:
	if (keys)
		tcsetattr(0, TCSANOW, &saved);
	if (o.stats)
		print_stats(b, 0);
	t_close = now_s();
	ipt_counter_close(b);
	if (o.stats)
		fprintf(stderr, "ipitrace top: detach %.1f ms\n", (now_s() - t_close) * 1e3);
out:
	ipt_counter_snapshot_free(prev);
	ipt_counter_snapshot_free(cur);
	ipt_counter_snapshot_free(d);
	ipt_counter_snapshot_free(last);
	ipt_cpuset_free(&o.watch);
	ipt_cpuset_free(&o.cpus);
	ipt_cpuset_free(&o.hk);
	return rc;
}
