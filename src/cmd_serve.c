// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_serve.c - `ipitrace serve`: the BPF counts as Prometheus metrics over
 * HTTP, and a flight recorder of the IPIs sent to the watched CPUs.
 *
 * One thread, one poll() loop: the TCP listener (loopback by default), the
 * unix socket other ipitrace processes ask (/snapshot: `top` reuses this
 * attachment instead of attaching again), the clients, and a 100 ms timer
 * that drains the ring buffer (written with BPF_RB_NO_WAKEUP: nothing wakes
 * this process, so nothing is sent to the watched CPUs).  The maps are read
 * when a client asks, never on a timer.
 *
 * The HTTP server is ours and small: GET only, the request (line and
 * headers) at most 8 KiB, 10 s for a client to send it and read the answer,
 * at most 32 clients at a time; anything else gets its status code and the
 * connection is closed.  HTTP/1.1 clients keep their connection after a
 * 200 answer (Prometheus scrapes on one: no socket made and freed each
 * second), idle at most 10 s.
 */
#include "commands.h"
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_LISTEN	"127.0.0.1:9464"
#define DEFAULT_SOCKET	SERVE_SOCKET
#define DEFAULT_TOPK	10
#define DEFAULT_KEEP	10000
#define REQ_MAX		8192
#define CLIENT_MS	10000
#define MAX_CLIENTS	32
#define DRAIN_MS	100
/* the "schema" member of /watched: docs/schema/watched.json, whose "const"
 * says the same; a change to the JSON changes both (the version) */
#define WATCHED_SCHEMA	"ipitrace-watched/1"

#define sbf ipt_strbuf_addf
#define sbs ipt_strbuf_adds
#define sbc ipt_strbuf_addc

struct serve_opts {
	const char *listen;
	const char *socket;
	const char *dump;		/* client mode: write the rows here */
	const char *signal_dump;	/* SIGUSR1 writes the rows here */
	struct ipt_cpuset watch;
	struct ipt_cpuset hk;
	bool have_hk;
	int topk;			/* named series per target CPU; 0: no limit */
	long keep;			/* rows kept */
	long ring_kb;
	bool quiet;
	bool stacks;
	const char *backend;
};

static volatile sig_atomic_t stop_signal, dump_signal;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		dump_signal = 1;
	else
		stop_signal = sig;
}

static void serve_usage(FILE *f)
{
	fprintf(f,
		"usage: ipitrace serve [OPTIONS]\n"
		"       ipitrace serve --dump FILE [--socket PATH]\n"
		"\n"
		"Count IPIs in the kernel with BPF (the programs of `ipitrace top`, attached once\n"
		"and kept attached) and offer the counts as Prometheus metrics over HTTP, on\n"
		"loopback unless --listen says otherwise; keep the IPIs sent to the watched CPUs\n"
		"as rows (a flight recorder).  Needs root and the kernel's BTF.  One serve per\n"
		"machine: a second one says where the first one is and exits 1.  `ipitrace top`\n"
		"asks a running serve for its counts instead of attaching again.\n"
		"\n"
		"HTTP paths:\n"
		"  /metrics      Prometheus text format (0.0.4):\n"
		"                ipitrace_ipis_total{target_cpu,kind,callsite,function,comm}:\n"
		"                  IPIs sent, one per target CPU (ipi_send_cpu;\n"
		"                  ipi_send_cpumask once per CPU of its mask), as `convert`\n"
		"                  counts rows; function is the function really run (the\n"
		"                  csd call queued just before from the same CPU for the\n"
		"                  target), else the callback; kind as `convert` names it\n"
		"                ipitrace_csd_queued_total{target_cpu,callsite,function,comm}:\n"
		"                  function calls queued (csd:csd_queue_cpu), the function run\n"
		"                ipitrace_interrupts_total{cpu,vector}: IPI handlers run (x86)\n"
		"                ipitrace_ipi_handler_seconds{cpu,vector}: their time, a\n"
		"                  histogram\n"
		"                ipitrace_dropped_total{reason}: what was not counted or kept\n"
		"                ipitrace_watched_rows_total, ipitrace_map_entries{map}, ...\n"
		"                At most --top series per target CPU and metric carry their own\n"
		"                labels (the largest when they first appear; a series keeps its\n"
		"                labels once given); the rest are summed under the labels\n"
		"                callsite=\"other\",function=\"other\",comm=\"other\",kind=\"other\".\n"
		"  /watched      the last rows of the flight recorder as JSON (docs/schema/\n"
		"                watched.json: addresses \"0x...\" and their symbols apart)\n"
		"  /watched.txt  the same as tracefs trace text (report and convert read it)\n"
		"  /snapshot     (unix socket only) the raw counts, for `top`\n"
		"\n"
		"Options:\n"
		"  -l, --listen ADDR:PORT  HTTP address (default " DEFAULT_LISTEN "); a port\n"
		"                        alone listens on 127.0.0.1\n"
		"      --socket PATH     the unix socket (default " DEFAULT_SOCKET "; its\n"
		"                        .lock file makes serve one per machine)\n"
		"      --watch LIST      CPUs whose IPIs are kept as rows (default: the isolated\n"
		"                        and nohz_full CPUs; none: no rows)\n"
		"  -t, --top K           named series per target CPU and metric (default %d; 0:\n"
		"                        no limit)\n"
		"      --keep N          rows kept for /watched and dumps (default %d)\n"
		"  -s, --stacks          rows carry the sender's kernel stack (bpf_get_stack,\n"
		"                        about 1.5-3 us per row, only rows of watched CPUs)\n"
		"      --ring-kb N       the BPF ring buffer in KiB, a power of 2 (default 4096)\n"
		"      --signal-dump FILE  where SIGUSR1 writes the rows (default: watched.txt\n"
		"                        beside the socket)\n"
		"      --dump FILE       ask the running serve for its rows and write them to\n"
		"                        FILE as trace text, then exit\n"
		"  -H, --housekeeping LIST  CPUs serve runs on (default: those neither isolated\n"
		"                        nor nohz_full)\n"
		"      --backend B       auto (default: BPF, else where BPF is unavailable a\n"
		"                        tracefs instance whose trace_pipe is polled: the same\n"
		"                        IPI counters, no handler times, no rows), bpf, tracefs\n"
		"  -q, --quiet           only errors and warnings on stderr\n"
		"  -h, --help            this text\n"
		"\n"
		"SIGTERM or SIGINT detaches and exits 0.  Row times are CLOCK_MONOTONIC, which is\n"
		"what the kernel's trace clock \"mono\" shows (the default \"local\" clock is close\n"
		"to it but not the same).  The maps are read when /metrics or /snapshot is asked\n"
		"for; the ring buffer is drained every 100 ms without wake-ups.\n",
		DEFAULT_TOPK, DEFAULT_KEEP);
}

static int parse_num(const char *opt, const char *arg, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v < lo || v > hi)
		return usage_err("serve", "%s: bad number '%s' (%ld to %ld)", opt, arg, lo, hi);
	*out = v;
	return 0;
}

static int parse_args(struct serve_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "socket", required_argument, NULL, 'O' },
		{ "watch", required_argument, NULL, 'w' },
		{ "top", required_argument, NULL, 't' },
		{ "keep", required_argument, NULL, 'k' },
		{ "ring-kb", required_argument, NULL, 'r' },
		{ "signal-dump", required_argument, NULL, 'S' },
		{ "dump", required_argument, NULL, 'D' },
		{ "housekeeping", required_argument, NULL, 'H' },
		{ "backend", required_argument, NULL, 'B' },
		{ "stacks", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_watch = false;
	long v;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":l:t:H:sqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'l': o->listen = optarg; break;
		case 'O': o->socket = optarg; break;
		case 's': o->stacks = true; break;
		case 'w':
			have_watch = true;
			if (!strcmp(optarg, "none"))
				break;
			if (ipt_cpuset_parse_list(&o->watch, optarg, strlen(optarg)) || ipt_cpuset_empty(&o->watch))
				return usage_err("serve", "--watch: bad CPU list '%s'", optarg);
			if (machine_cpus_within("serve", "--watch", optarg, &o->watch))
				return 2;
			break;
		case 't':
			if (parse_num("--top", optarg, 0, 100000, &v))
				return 2;
			o->topk = (int)v;
			break;
		case 'k':
			if (parse_num("--keep", optarg, 1, 10000000, &o->keep))
				return 2;
			break;
		case 'r':
			if (parse_num("--ring-kb", optarg, 4, 1 << 20, &o->ring_kb))
				return 2;
			if (o->ring_kb & (o->ring_kb - 1))
				return usage_err("serve", "--ring-kb: %ld is not a power of 2", o->ring_kb);
			break;
		case 'S': o->signal_dump = optarg; break;
		case 'D': o->dump = optarg; break;
		case 'H':
			o->have_hk = true;
			if (ipt_cpuset_parse_list(&o->hk, optarg, strlen(optarg)) || ipt_cpuset_empty(&o->hk))
				return usage_err("serve", "--housekeeping: bad CPU list '%s'", optarg);
			break;
		case 'B':
			if (strcmp(optarg, "auto") && strcmp(optarg, "bpf") && strcmp(optarg, "tracefs"))
				return usage_err("serve", "--backend: '%s' is not auto, bpf or tracefs", optarg);
			o->backend = optarg;
			break;
		case 'q': o->quiet = true; break;
		case 'h': serve_usage(stdout); return 3;
		default: return opt_err("serve", c, argv);
		}
	}
	if (optind < argc)
		return usage_err("serve", "unexpected argument '%s'", argv[optind]);
	if (!have_watch && !o->dump && ipt_isolated_cpus(&o->watch)) {
		err_msg("%s", ipt_errmsg());
		return 1;
	}
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the series of the metrics, with the cardinality limit ---- */

struct series {
	char *key;			/* labels as rendered, with target and metric */
	int target;
	bool csd;			/* ipitrace_csd_queued_total, else ipis_total */
	bool named;			/* has its own labels */
	uint64_t now;			/* this read's total */
	uint64_t last;			/* the total at the last answer */
	uint64_t base;			/* named: the total already shown under other */
	size_t label_off;		/* the labels after target and metric in key */
};

struct series_ref {			/* an entry of the map of series by key */
	uint64_t tag;
	struct series *s;
};

struct metrics {
	struct ipt_hmap by_key;		/* of struct series_ref */
	struct series **all;
	size_t nall, capall;
	int *named;			/* per target*2+csd: named series */
	size_t capnamed;		/* entries of named (2 per target) */
	int topk;
};

static bool series_eq(const void *entry, const void *key)
{
	return !strcmp(((const struct series_ref *)entry)->s->key, key);
}

static struct series *series_get(struct metrics *m, int target, bool csd, const char *labels)
{
	char head[32];
	struct ipt_strbuf key = IPT_STRBUF_INIT;
	struct series_ref *ref;
	struct series *s;
	uint64_t tag;

	snprintf(head, sizeof(head), "%d %d ", target, csd);
	if (sbf(&key, "%s%s", head, labels))
		return NULL;
	tag = ipt_hmap_tag(ipt_hash_bytes(key.buf, key.len));
	if (ipt_hmap_reserve(&m->by_key, sizeof(*ref), 1))
		goto nomem;
	ref = ipt_hmap_find(&m->by_key, sizeof(*ref), tag, series_eq, key.buf);
	if (ipt_hmap_used(ref)) {
		ipt_strbuf_free(&key);
		return ref->s;
	}
	if (IPT_GROW(m->all, m->capall, m->nall + 1) ||
	    IPT_GROW_ZERO(m->named, m->capnamed, (size_t)target * 2 + 2))
		goto nomem;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	s->key = key.buf;
	s->target = target;
	s->csd = csd;
	s->label_off = strlen(head);
	ipt_hmap_take(&m->by_key, ref, tag);
	ref->s = s;
	m->all[m->nall++] = s;
	return s;
nomem:
	ipt_strbuf_free(&key);
	return NULL;
}

static void metrics_free(struct metrics *m)
{
	for (size_t i = 0; i < m->nall; i++) {
		free(m->all[i]->key);
		free(m->all[i]);
	}
	free(m->all);
	free(m->named);
	ipt_hmap_free(&m->by_key);
}

/* add_label - name="s", with \\ and " escaped as the text format wants and
 * bytes outside printable ASCII (a command is any bytes) as '?' */
static int add_label(struct ipt_strbuf *sb, const char *name, const char *s, bool comma)
{
	int e = sbf(sb, "%s%s=\"", comma ? "," : "", name);

	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '\\' || ch == '"')
			e |= sbc(sb, '\\') | sbc(sb, (char)ch);
		else if (ch < 0x20 || ch >= 0x7f)
			e |= sbc(sb, '?');
		else
			e |= sbc(sb, (char)ch);
	}
	return e | sbc(sb, '"');
}

/* send_labels - the labels of a send entry after target_cpu (no braces) */
static int send_labels(const struct ipt_counter *b, const struct ipt_counter_send *x, struct ipt_strbuf *sb)
{
	char site[192], fn[160];
	bool csd = x->event == IPT_COUNTER_CSD_QUEUE;
	int e = 0;

	/* the function really run (the csd queued for this send), else the callback */
	bpf_sym(b, x->callsite, true, site, sizeof(site));
	if (x->func || x->addr2)
		bpf_sym(b, x->func ? x->func : x->addr2, false, fn, sizeof(fn));
	else
		fn[0] = 0;
	if (!csd) {
		struct ipt_ipi_row row;

		memset(&row, 0, sizeof(row));
		row.event = ipt_counter_event_name(x->event);
		row.callsite = x->callsite;
		row.callsite_sym = ipt_counter_symbol(b, x->callsite, NULL);
		row.callback = x->addr2;
		row.callback_sym = x->addr2 ? ipt_counter_symbol(b, x->addr2, NULL) : NULL;
		row.func = x->func;
		row.func_sym = x->func ? ipt_counter_symbol(b, x->func, NULL) : NULL;
		e |= add_label(sb, "kind", ipt_kind_name(ipt_ipi_classify(&row)), true);
	}
	e |= add_label(sb, "callsite", site, true);
	e |= add_label(sb, "function", fn, true);
	e |= add_label(sb, "comm", x->comm, true);
	return e;
}

static int cand_qcmp(const void *pa, const void *pb)
{
	const struct series *a = *(struct series *const *)pa, *b = *(struct series *const *)pb;

	if (a->now != b->now)
		return a->now > b->now ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* tally - this read's totals per series; new series named while room is left */
static int tally(struct metrics *m, const struct ipt_counter *b, const struct ipt_counter_snapshot *snap)
{
	struct ipt_strbuf lab = IPT_STRBUF_INIT;
	struct series **cand = NULL;
	size_t ncand = 0;

	for (size_t i = 0; i < m->nall; i++)
		m->all[i]->now = 0;
	for (size_t i = 0; i < snap->nsends; i++) {
		const struct ipt_counter_send *x = &snap->sends[i];
		struct series *s;

		if (x->target < 0 || x->target >= 1 << 20)
			continue;
		ipt_strbuf_reset(&lab);
		if (send_labels(b, x, &lab))
			goto nomem;
		s = series_get(m, x->target, x->event == IPT_COUNTER_CSD_QUEUE, lab.buf);
		if (!s)
			goto nomem;
		s->now += x->count;
	}
	ipt_strbuf_free(&lab);
	if (m->nall) {
		cand = malloc(m->nall * sizeof(*cand));
		if (!cand)
			goto nomem;
	}
	for (size_t i = 0; i < m->nall; i++)
		if (!m->all[i]->named && m->all[i]->now)
			cand[ncand++] = m->all[i];
	if (ncand)
		qsort(cand, ncand, sizeof(*cand), cand_qcmp);
	for (size_t i = 0; i < ncand; i++) {
		struct series *s = cand[i];
		int *n = &m->named[s->target * 2 + s->csd];

		if (m->topk && *n >= m->topk)
			continue;
		(*n)++;
		s->named = true;
		s->base = s->last;	/* what the other series showed of it stays there */
	}
	free(cand);
	return 0;
nomem:
	ipt_strbuf_free(&lab);
	free(cand);
	return -1;
}

struct server {
	struct serve_opts *o;
	struct ipt_counter *b;
	struct metrics m;
	struct ipt_counter_row *rows;	/* the last o->keep rows, a circle */
	long nrows, head;
	uint64_t rows_total, scrapes, bad_requests;
	char watch_str[256];
};

static int emit_counters(struct server *sv, struct ipt_strbuf *out, bool csd)
{
	struct metrics *m = &sv->m;
	const char *name = csd ? "ipitrace_csd_queued_total" : "ipitrace_ipis_total";
	uint64_t *other;
	int nt = (int)(m->capnamed / 2), e = 0;

	other = calloc((size_t)(nt > 0 ? nt : 1), sizeof(*other));
	if (!other)
		return -1;
	e |= sbf(out, "# HELP %s %s\n# TYPE %s counter\n", name, csd ?
		 "Function calls queued for a CPU (csd:csd_queue_cpu), by the function run." :
		 "IPIs sent, one per target CPU (ipi_send_cpu, ipi_send_cpumask per CPU of its mask).",
		 name);
	for (size_t i = 0; i < m->nall; i++) {
		struct series *s = m->all[i];

		if (s->csd != csd)
			continue;
		if (!s->named) {
			other[s->target] += s->now;
			continue;
		}
		other[s->target] += s->base;
		e |= sbf(out, "%s{target_cpu=\"%d\"%s} %" PRIu64 "\n", name, s->target,
			 s->key + s->label_off, s->now - s->base);
	}
	for (int t = 0; t < nt; t++) {
		bool any = false;

		for (size_t i = 0; i < m->nall && !any; i++)
			any = m->all[i]->target == t && m->all[i]->csd == csd;
		if (any)
			e |= sbf(out, "%s{target_cpu=\"%d\"%s,callsite=\"other\",function=\"other\","
				 "comm=\"other\"} %" PRIu64 "\n", name, t, csd ? "" : ",kind=\"other\"", other[t]);
	}
	free(other);
	return e;
}

static int render_metrics(struct server *sv, struct ipt_strbuf *out)
{
	struct ipt_counter_snapshot *snap = ipt_counter_read(sv->b);
	int e = 0;

	if (!snap)
		return -1;
	if (tally(&sv->m, sv->b, snap)) {
		ipt_counter_snapshot_free(snap);
		return -2;
	}
	e |= emit_counters(sv, out, false);
	e |= emit_counters(sv, out, true);
	for (size_t i = 0; i < sv->m.nall; i++)
		sv->m.all[i]->last = sv->m.all[i]->now;
	e |= sbs(out, "# HELP ipitrace_interrupts_total IPI handlers run on a CPU (x86 irq_vectors exits).\n"
		 "# TYPE ipitrace_interrupts_total counter\n");
	for (size_t i = 0; i < snap->nhandlers; i++)
		e |= sbf(out, "ipitrace_interrupts_total{cpu=\"%d\",vector=\"%s\"} %" PRIu64 "\n",
			 snap->handlers[i].cpu, ipt_counter_vector_name(snap->handlers[i].vector),
			 snap->handlers[i].count);
	e |= sbs(out, "# HELP ipitrace_ipi_handler_seconds IPI handler time, entry to exit.\n"
		 "# TYPE ipitrace_ipi_handler_seconds histogram\n");
	for (size_t i = 0; i < snap->nhandlers; i++) {
		const struct ipt_counter_handler *h = &snap->handlers[i];
		char lab[96];
		uint64_t cum = 0;

		snprintf(lab, sizeof(lab), "cpu=\"%d\",vector=\"%s\"", h->cpu, ipt_counter_vector_name(h->vector));
		/* slot i holds [2^i, 2^(i+1)) ns: at most 2^(i+1) ns */
		for (int k = 0; k < IPT_COUNTER_HIST_SLOTS; k++) {
			cum += h->hist[k];
			if (k >= 7 && k <= 26)
				e |= sbf(out, "ipitrace_ipi_handler_seconds_bucket{%s,le=\"%.9g\"} %" PRIu64 "\n",
					 lab, (double)(1ull << (k + 1)) * 1e-9, cum);
		}
		e |= sbf(out, "ipitrace_ipi_handler_seconds_bucket{%s,le=\"+Inf\"} %" PRIu64 "\n"
			 "ipitrace_ipi_handler_seconds_sum{%s} %.9f\n"
			 "ipitrace_ipi_handler_seconds_count{%s} %" PRIu64 "\n",
			 lab, h->count, lab, (double)h->sum_ns * 1e-9, lab, h->count);
	}
	e |= sbs(out, "# HELP ipitrace_dropped_total Events not counted or rows not kept, by reason "
		 "(exit_without_entry: a handler exit seen without its entry, at attach).\n"
		 "# TYPE ipitrace_dropped_total counter\n");
	for (int k = 0; k < IPT_COUNTER_NERRORS; k++)
		e |= sbf(out, "ipitrace_dropped_total{reason=\"%s\"} %" PRIu64 "\n",
			 ipt_counter_error_name((enum ipt_counter_error)k), snap->errors[k]);
	e |= sbf(out, "ipitrace_dropped_total{reason=\"recursion_miss\"} %" PRIu64 "\n",
		 snap->recursion_misses);
	e |= sbf(out, "# HELP ipitrace_watched_rows_total Rows of the flight recorder (IPIs to watched CPUs).\n"
		 "# TYPE ipitrace_watched_rows_total counter\n"
		 "ipitrace_watched_rows_total %" PRIu64 "\n"
		 "# HELP ipitrace_watched_rows_kept Rows kept for /watched.\n"
		 "# TYPE ipitrace_watched_rows_kept gauge\n"
		 "ipitrace_watched_rows_kept %ld\n"
		 "# HELP ipitrace_map_entries Entries of the BPF maps.\n"
		 "# TYPE ipitrace_map_entries gauge\n"
		 "ipitrace_map_entries{map=\"sends\"} %zu\n"
		 "ipitrace_map_entries{map=\"handlers\"} %zu\n"
		 "# HELP ipitrace_series Series of the IPI counters, by whether they carry their own labels.\n"
		 "# TYPE ipitrace_series gauge\n"
		 "ipitrace_series{named=\"all\"} %zu\n"
		 "# HELP ipitrace_attach_seconds Time spent loading and attaching the programs.\n"
		 "# TYPE ipitrace_attach_seconds gauge\n"
		 "ipitrace_attach_seconds %.6f\n"
		 "# HELP ipitrace_scrapes_total Answers to /metrics.\n"
		 "# TYPE ipitrace_scrapes_total counter\n"
		 "ipitrace_scrapes_total %" PRIu64 "\n"
		 "# HELP ipitrace_http_bad_requests_total Requests refused (malformed, too large, too slow).\n"
		 "# TYPE ipitrace_http_bad_requests_total counter\n"
		 "ipitrace_http_bad_requests_total %" PRIu64 "\n",
		 sv->rows_total, sv->nrows, snap->nsends, snap->nhandlers, sv->m.nall,
		 (double)ipt_counter_attach_ns(sv->b) * 1e-9, ++sv->scrapes, sv->bad_requests);
	ipt_counter_snapshot_free(snap);
	return e ? -2 : 0;
}

/* ---- the flight recorder's rows ---- */

static void on_row(const struct ipt_counter_row *row, void *ctx)
{
	struct server *sv = ctx;

	sv->rows[sv->head] = *row;
	sv->head = (sv->head + 1) % sv->o->keep;
	if (sv->nrows < sv->o->keep)
		sv->nrows++;
	sv->rows_total += row->event != IPT_COUNTER_HANDLER;	/* IPIs only */
}

static const struct ipt_counter_row *row_at(const struct server *sv, long i)
{
	long first = (sv->head - sv->nrows + sv->o->keep) % sv->o->keep;

	return &sv->rows[(first + i) % sv->o->keep];
}

/* render_watched_json - the rows as JSON, a row a line (the one JSON writer) */
static int render_watched_json(struct server *sv, struct ipt_strbuf *out)
{
	char site[192], tg[512];
	struct ipt_jw j;

	ipt_jw_init(&j, out, NULL);
	ipt_jw_obj(&j);
	ipt_jw_kstr(&j, "schema", WATCHED_SCHEMA);
	ipt_jw_kstr(&j, "watch", sv->watch_str);
	ipt_jw_ku64(&j, "rows_total", sv->rows_total);
	ipt_jw_ki64(&j, "kept", sv->nrows);
	ipt_jw_kstr(&j, "clock", "CLOCK_MONOTONIC");
	ipt_jw_key(&j, "rows");
	ipt_jw_arr(&j);
	for (long i = 0; i < sv->nrows && !j.err; i++) {
		const struct ipt_counter_row *r = row_at(sv, i);

		ipt_jw_next(&j);
		ipt_jw_raw(&j, "\n");
		ipt_jw_obj(&j);
		ipt_jw_ku64(&j, "ts_ns", r->ts_ns);
		if (r->event == IPT_COUNTER_HANDLER) {	/* an IPI handler on a watched CPU */
			ipt_jw_ki64(&j, "cpu", r->src);
			ipt_jw_kstr(&j, "event", "handler");
			ipt_jw_kstr(&j, "vector", ipt_counter_vector_name((enum ipt_counter_vector)r->callsite));
			ipt_jw_ku64(&j, "handler_ns", r->addr2);
			ipt_jw_end(&j);
			continue;
		}
		bpf_row_targets(r, tg, sizeof(tg));
		ipt_jw_ki64(&j, "src_cpu", r->src);
		ipt_jw_ki64(&j, "pid", r->pid);
		ipt_jw_kstr(&j, "comm", r->comm);
		ipt_jw_kstr(&j, "event", ipt_counter_event_name(r->event));
		ipt_jw_kstr(&j, "targets", tg);
		ipt_jw_ku64(&j, "ntargets", r->ntargets);
		bpf_json_addr(&j, sv->b, "callsite", "callsite_sym", r->callsite, true);
		if (r->event == IPT_COUNTER_CSD_QUEUE)
			bpf_json_addr(&j, sv->b, "func", "func_name", r->addr2, false);
		else
			bpf_json_addr(&j, sv->b, "callback", "callback_sym", r->addr2, false);
		if (r->event != IPT_COUNTER_CSD_QUEUE) {
			struct ipt_ipi_row row;

			/* from the call site and the callback: the function a csd row
			 * names is not joined here (report and convert join the text) */
			memset(&row, 0, sizeof(row));
			row.callsite = r->callsite;
			row.callsite_sym = ipt_counter_symbol(sv->b, r->callsite, NULL);
			row.callback = r->addr2;
			row.callback_sym = r->addr2 ? ipt_counter_symbol(sv->b, r->addr2, NULL) : NULL;
			ipt_jw_kstr(&j, "kind", ipt_kind_name(ipt_ipi_classify(&row)));
		}
		if (r->nstack) {
			ipt_jw_key(&j, "stack");
			ipt_jw_arr(&j);
			for (unsigned int k = 0; k < r->nstack && k < 32; k++)
				ipt_jw_str(&j, bpf_sym(sv->b, r->stack[k], true, site, sizeof(site)));
			ipt_jw_end(&j);
		}
		ipt_jw_end(&j);
	}
	ipt_jw_end(&j);
	ipt_jw_end(&j);
	ipt_jw_raw(&j, "\n");
	return ipt_jw_finish(&j);
}

/* the x86 vectors of the handlers' rows, as irq_vectors prints them */
static const int vector_numbers[IPT_COUNTER_NVECTORS] = { 253, 252, 251, 246 };

struct wline {			/* a line of /watched.txt, put in time order */
	uint64_t ts;
	size_t off, len;	/* in the text built */
};

static int cmp_wline(const void *a, const void *b)
{
	const struct wline *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;	/* as written */
}

/* watched_row_text - one row as trace text lines (a handler: its entry and
 * exit; a send with a stack: the stack lines after it) */
static int watched_row_text(struct server *sv, const struct ipt_counter_row *r, struct ipt_strbuf *out,
			    struct wline **lines, size_t *n, size_t *cap)
{
	char site[192], fn[160], tg[512], head[96];
	const char *comm = r->comm[0] ? r->comm : "<...>";
	int e = 0;

	if (r->event == IPT_COUNTER_HANDLER) {
		const char *v = ipt_counter_vector_name((enum ipt_counter_vector)r->callsite);
		int num = r->callsite < IPT_COUNTER_NVECTORS ? vector_numbers[r->callsite] : 0;

		for (int k = 0; k < 2 && !e; k++) {
			uint64_t ts = r->ts_ns + (k ? r->addr2 : 0);

			if (IPT_GROW(*lines, *cap, *n + 1))
				return -1;
			(*lines)[*n] = (struct wline){ ts, out->len, 0 };
			e |= sbf(out, "%16s-%-7d [%03d] d.h.. %5" PRIu64 ".%09" PRIu64 ": %s_%s: vector=%d\n", comm,
				 r->pid, r->src, ts / 1000000000u, ts % 1000000000u, v, k ? "exit" : "entry", num);
			(*lines)[*n].len = out->len - (*lines)[*n].off;
			(*n)++;
		}
		return e;
	}
	if (IPT_GROW(*lines, *cap, *n + 1))
		return -1;
	(*lines)[*n] = (struct wline){ r->ts_ns, out->len, 0 };
	snprintf(head, sizeof(head), "%16s-%-7d [%03d] ..... %5" PRIu64 ".%09" PRIu64 ": ", comm, r->pid, r->src,
		 r->ts_ns / 1000000000u, r->ts_ns % 1000000000u);
	bpf_sym(sv->b, r->callsite, true, site, sizeof(site));
	e |= sbf(out, "%s%s: ", head, ipt_counter_event_name(r->event));
	if (r->addr2)
		bpf_sym(sv->b, r->addr2, r->event != IPT_COUNTER_CSD_QUEUE, fn, sizeof(fn));
	else
		snprintf(fn, sizeof(fn), "0x0");
	if (r->event == IPT_COUNTER_SEND_CPUMASK) {
		bpf_row_targets(r, tg, sizeof(tg));
		e |= sbf(out, "cpumask=%s callsite=%s callback=%s\n", tg, site, fn);
	} else {
		int t = -1;

		for (int w = 0; w < IPT_COUNTER_ROW_MASK_WORDS && t < 0; w++)
			if (r->mask[w])
				t = w * 64 + __builtin_ctzll(r->mask[w]);
		if (r->event == IPT_COUNTER_CSD_QUEUE)
			e |= sbf(out, "cpu=%d callsite=%s func=%s csd=0x0\n", t, site, fn);
		else
			e |= sbf(out, "cpu=%d callsite=%s callback=%s\n", t, site, fn);
	}
	if (r->nstack) {	/* as tracefs prints a stacktrace trigger's stack */
		e |= sbf(out, "%s<stack trace>\n", head);
		for (unsigned int k = 0; k < r->nstack && k < 32; k++)
			e |= sbf(out, " => %s\n", bpf_sym(sv->b, r->stack[k], true, site, sizeof(site)));
	}
	(*lines)[*n].len = out->len - (*lines)[*n].off;
	(*n)++;
	return e;
}

/* render_watched_text - the rows as tracefs trace text (report and convert
 * read it), in time order: a handler's exit comes when it ended */
static int render_watched_text(struct server *sv, struct ipt_strbuf *out)
{
	struct ipt_strbuf body = IPT_STRBUF_INIT;
	struct wline *lines = NULL;
	size_t n = 0, cap = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int e = watched_header_write(out, sv->watch_str, sv->rows_total, sv->nrows, ncpu);

	for (long i = 0; i < sv->nrows && !e; i++)
		e |= watched_row_text(sv, row_at(sv, i), &body, &lines, &n, &cap);
	if (!e && n)
		qsort(lines, n, sizeof(*lines), cmp_wline);
	for (size_t i = 0; i < n && !e; i++)
		e |= ipt_strbuf_add(out, body.buf + lines[i].off, lines[i].len);
	free(lines);
	ipt_strbuf_free(&body);
	return e;
}

static int write_file(const char *path, const char *data, size_t len)
{
	char tmp[4096];
	FILE *f;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		err_msg("serve: %s: path too long", path);
		return -1;
	}
	/* the rows name tasks and call paths: for the owner only, as the
	 * socket and the state directory are */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f && fd >= 0)
		close(fd);
	if (!f || (fwrite(data, 1, len, f) != len) | (fclose(f) != 0)) {
		err_msg("serve: %s: %s", tmp, strerror(errno));
		if (fd >= 0)
			unlink(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		err_msg("serve: %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* ---- HTTP ---- */

struct client {
	int fd;
	bool local;			/* came on the unix socket */
	char req[REQ_MAX + 1];
	size_t rlen;
	char *out;			/* the answer, once made */
	size_t olen, ooff;
	int64_t deadline;
	bool draining;			/* answered: reading what is left until EOF */
	bool keep;			/* HTTP/1.1 keep-alive: the next request after this answer */
	int served;			/* answers sent on this connection */
};

static void answer(struct client *c, int code, const char *ctype, const char *body, size_t blen, bool head)
{
	const char *reason = code == 200 ? "OK" : code == 400 ? "Bad Request" : code == 404 ? "Not Found" :
			     code == 405 ? "Method Not Allowed" : code == 408 ? "Request Timeout" :
			     code == 431 ? "Request Header Fields Too Large" : code == 503 ? "Service Unavailable" :
			     "Internal Server Error";
	struct ipt_strbuf sb = IPT_STRBUF_INIT;

	if (code != 200)
		c->keep = false;	/* an error closes the connection */
	if (sbf(&sb, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: %s\r\n\r\n",
		code, reason, ctype, blen, c->keep ? "keep-alive" : "close") || (!head && blen && ipt_strbuf_add(&sb, body, blen))) {
		ipt_strbuf_free(&sb);
		c->out = NULL;
		c->olen = 0;
		return;
	}
	c->out = sb.buf;
	c->olen = sb.len;
	c->ooff = 0;
}

static void answer_text(struct client *c, int code, const char *msg)
{
	answer(c, code, "text/plain; charset=utf-8", msg, strlen(msg), false);
}

/* handle - the request in c->req is complete: make the answer */
static void handle(struct server *sv, struct client *c)
{
	struct ipt_strbuf body = IPT_STRBUF_INIT;
	const char *ctype = "text/plain; charset=utf-8", *path;
	struct http_request req;
	int rc = http_parse(c->req, c->rlen, &req);

	if (rc) {
		sv->bad_requests++;
		answer_text(c, rc, rc == 405 ? "only GET and HEAD\n" : "bad request\n");
		return;
	}
	/* keep-alive: Prometheus scrapes on one connection, no socket made
	 * and freed each second */
	c->keep = req.keep_alive;
	path = req.path;
	if (!strcmp(path, "/metrics")) {
		rc = render_metrics(sv, &body);
		ctype = "text/plain; version=0.0.4; charset=utf-8";
	} else if (!strcmp(path, "/watched")) {
		rc = render_watched_json(sv, &body) ? -2 : 0;
		ctype = "application/json";
	} else if (!strcmp(path, "/watched.txt")) {
		rc = render_watched_text(sv, &body) ? -2 : 0;
	} else if (!strcmp(path, "/snapshot") && c->local) {
		struct ipt_counter_snapshot *s = ipt_counter_read(sv->b);
		size_t len;
		char *t = s ? ipt_counter_snapshot_text(sv->b, s, &len) : NULL;

		ipt_counter_snapshot_free(s);
		rc = t ? 0 : -1;
		if (t) {
			body.buf = t;
			body.len = body.cap = len;
		}
	} else if (!strcmp(path, "/")) {
		rc = sbs(&body, "ipitrace serve: /metrics (Prometheus), /watched (JSON), /watched.txt (trace text)\n");
	} else {
		answer_text(c, 404, "not found: try /metrics\n");
		return;
	}
	if (rc) {
		char msg[600];

		/* -1: the maps could not be read (the library says why); else no memory */
		snprintf(msg, sizeof(msg), "ipitrace serve: %s\n", rc == -1 ? ipt_errmsg() : "out of memory");
		answer_text(c, 500, msg);
	} else {
		answer(c, 200, ctype, body.buf ? body.buf : "", body.len, req.head);
	}
	ipt_strbuf_free(&body);
}

/* client_read - more of the request; the answer made once it is complete */
static void client_read(struct server *sv, struct client *c)
{
	ssize_t r = read(c->fd, c->req + c->rlen, REQ_MAX - c->rlen);
	int state;

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r <= 0) {
		c->deadline = 0;	/* closed before asking: drop it */
		return;
	}
	c->rlen += (size_t)r;
	c->req[c->rlen] = 0;
	state = http_request_state(c->req, c->rlen, REQ_MAX);
	if (state == 1) {
		handle(sv, c);
	} else if (state) {
		sv->bad_requests++;
		answer_text(c, state, state == 431 ? "request too large\n" : "bad request\n");
	}
	if (!c->out && state)
		c->deadline = 0;	/* no memory for an answer: drop it */
}

static void client_write(struct client *c)
{
	ssize_t w = write(c->fd, c->out + c->ooff, c->olen - c->ooff);

	if (w < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (w <= 0) {
		c->deadline = 0;
		return;
	}
	c->ooff += (size_t)w;
	if (c->ooff == c->olen && c->keep) {	/* ready for the next request */
		free(c->out);
		c->out = NULL;
		c->olen = c->ooff = 0;
		c->rlen = 0;
		c->req[0] = 0;
		c->keep = false;
		c->served++;
		c->deadline = now_ms() + CLIENT_MS;	/* idle at most as long */
		return;
	}
	if (c->ooff == c->olen) {
		/* done: no more to send; read what the client still sends (a
		 * request too large) for a second, so that closing with unread
		 * data does not reset the connection before it read the answer */
		shutdown(c->fd, SHUT_WR);
		c->draining = true;
		c->deadline = now_ms() + 1000;
	}
}

static void client_drain(struct client *c)
{
	char buf[4096];
	ssize_t r = read(c->fd, buf, sizeof(buf));

	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
		c->deadline = 0;
}

static void client_close(struct client *c)
{
	close(c->fd);
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* ---- sockets ---- */

static int listen_tcp(const char *spec, char *shown, size_t size)
{
	char host[256], port[32];
	struct addrinfo hints, *ai = NULL;
	const char *colon = strrchr(spec, ':');
	int fd = -1, one = 1, rc;

	if (!colon) {
		snprintf(host, sizeof(host), "127.0.0.1");
		snprintf(port, sizeof(port), "%s", spec);
	} else {
		size_t hl = (size_t)(colon - spec);

		if (hl >= sizeof(host) || strlen(colon + 1) >= sizeof(port))
			return usage_err("serve", "--listen: bad address '%s'", spec), -2;
		memcpy(host, spec, hl);
		host[hl] = 0;
		snprintf(port, sizeof(port), "%s", colon + 1);
		if (host[0] == '[' && hl >= 2 && host[hl - 1] == ']') {
			memmove(host, host + 1, hl - 2);
			host[hl - 2] = 0;
		}
		if (!*host)
			snprintf(host, sizeof(host), "127.0.0.1");
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc)
		return usage_err("serve", "--listen: bad address '%s' (a numeric address and port: %s)", spec,
				 gai_strerror(rc)), -2;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 64)) {
		err_msg("serve: listening on %s: %s", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return -1;
	}
	snprintf(shown, size, "%s%s%s:%s", strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "", port);
	freeaddrinfo(ai);
	return fd;
}

static int listen_unix(const char *path)
{
	struct sockaddr_un sa;
	mode_t old;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		err_msg("serve: --socket: path too long: %s", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	unlink(path);	/* ours: the lock is held */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	old = umask(077);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 16)) {
		umask(old);
		err_msg("serve: %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	umask(old);
	return fd;
}

/* take_lock - the socket's .lock, held while serve runs; -1: another one runs (said) */
static int take_lock(const char *sock)
{
	char lock[4200], dir[4200], *slash, info[256];
	ssize_t n;
	int fd;

	snprintf(dir, sizeof(dir), "%s", sock);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		if (mkdir(dir, 0755) && errno != EEXIST) {
			err_msg("serve: %s: %s", dir, strerror(errno));
			return -1;
		}
	}
	snprintf(lock, sizeof(lock), "%s.lock", sock);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		err_msg("serve: %s: %s", lock, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		n = errno == EWOULDBLOCK ? pread(fd, info, sizeof(info) - 1, 0) : -1;
		info[n > 0 ? n : 0] = 0;
		info[strcspn(info, "\n")] = 0;
		err_msg("serve: another ipitrace serve runs (%s; lock %s): it keeps its attachment; "
			"`ipitrace top` reads its counts", *info ? info : "pid unknown", lock);
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- the loop ---- */

static int dump_rows(struct server *sv, const char *path)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	int rc = render_watched_text(sv, &sb) || write_file(path, sb.buf ? sb.buf : "", sb.len) ? -1 : 0;

	ipt_strbuf_free(&sb);
	if (!rc && !sv->o->quiet)
		fprintf(stderr, "ipitrace serve: %ld rows written to %s\n", sv->nrows, path);
	return rc;
}

static int run(struct server *sv, int tcp_fd, int unix_fd)
{
	struct client cl[MAX_CLIENTS];
	struct pollfd pfd[MAX_CLIENTS + 2];
	int map[MAX_CLIENTS + 2];
	int64_t next_drain = now_ms() + DRAIN_MS;
	int ncl = 0;

	for (int i = 0; i < MAX_CLIENTS; i++) {
		memset(&cl[i], 0, sizeof(cl[i]));
		cl[i].fd = -1;
	}
	while (!stop_signal) {
		int64_t now = now_ms(), timeout = next_drain - now;
		int np = 0;

		if (ncl < MAX_CLIENTS) {
			pfd[np] = (struct pollfd){ .fd = tcp_fd, .events = POLLIN };
			map[np++] = -1;
			pfd[np] = (struct pollfd){ .fd = unix_fd, .events = POLLIN };
			map[np++] = -2;
		}
		for (int i = 0; i < MAX_CLIENTS; i++) {
			if (cl[i].fd < 0)
				continue;
			pfd[np] = (struct pollfd){ .fd = cl[i].fd,
						   .events = cl[i].out && !cl[i].draining ? POLLOUT : POLLIN };
			map[np++] = i;
			if (cl[i].deadline - now < timeout)
				timeout = cl[i].deadline - now;
		}
		if (timeout < 0)
			timeout = 0;
		if (poll(pfd, (nfds_t)np, (int)timeout) < 0 && errno != EINTR) {
			err_msg("serve: poll: %s", strerror(errno));
			return -1;
		}
		for (int k = 0; k < np; k++) {
			if (!pfd[k].revents)
				continue;
			if (map[k] < 0) {
				int fd = accept4(pfd[k].fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
				int slot = 0;

				if (fd < 0)
					continue;
				while (slot < MAX_CLIENTS && cl[slot].fd >= 0)
					slot++;
				if (slot == MAX_CLIENTS) {
					close(fd);
					continue;
				}
				cl[slot].fd = fd;
				cl[slot].local = map[k] == -2;
				cl[slot].deadline = now_ms() + CLIENT_MS;
				ncl++;
			} else {
				struct client *c = &cl[map[k]];

				if (c->draining)
					client_drain(c);
				else if (c->out)
					client_write(c);
				else if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR))
					client_read(sv, c);
			}
		}
		now = now_ms();
		for (int i = 0; i < MAX_CLIENTS; i++) {
			if (cl[i].fd < 0 || cl[i].deadline > now)
				continue;
			if (cl[i].deadline && !cl[i].out && (cl[i].rlen || !cl[i].served))
				sv->bad_requests++;	/* too slow to ask (not an idle keep-alive) */
			if (cl[i].deadline && cl[i].out && !cl[i].draining)
				sv->bad_requests++;	/* too slow to read the answer */
			client_close(&cl[i]);
			ncl--;
		}
		if (now >= next_drain) {
			if (ipt_counter_drain(sv->b, on_row, sv) < 0)
				err_msg("serve: %s", ipt_errmsg());
			next_drain = now + DRAIN_MS;
		}
		if (dump_signal) {
			dump_signal = 0;
			ipt_counter_drain(sv->b, on_row, sv);
			dump_rows(sv, sv->o->signal_dump);
		}
	}
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (cl[i].fd >= 0)
			client_close(&cl[i]);
	return 0;
}

static int dump_client(const struct serve_opts *o)
{
	size_t len;
	char *text = ipt_counter_remote_get(o->socket, "/watched.txt", &len);
	int rc;

	if (!text) {
		err_msg("serve --dump: no ipitrace serve answers: %s", ipt_errmsg());
		return 1;
	}
	rc = write_file(o->dump, text, len) ? 1 : 0;
	free(text);
	return rc;
}

int cmd_serve(int argc, char **argv)
{
	struct serve_opts o = { .listen = DEFAULT_LISTEN, .socket = DEFAULT_SOCKET, .topk = DEFAULT_TOPK,
				.keep = DEFAULT_KEEP };
	char sigdump[4200];
	struct ipt_counter_opts bo = { .sz = sizeof(bo) };
	struct server sv;
	struct sigaction sa;
	char shown[300];
	int rc, tcp_fd = -1, unix_fd = -1, lock_fd = -1;

	memset(&sv, 0, sizeof(sv));
	ipt_cpuset_init(&o.watch);
	ipt_cpuset_init(&o.hk);
	rc = parse_args(&o, argc, argv);
	if (rc) {
		rc = rc == 3 ? 0 : rc;
		goto out;
	}
	if (o.dump) {
		rc = dump_client(&o);
		goto out;
	}
	/* memory that stays flat for days: after a large answer is freed (the
	 * --keep rows of /watched.txt) glibc raises its mmap threshold, and the
	 * heap keeps that much from then on; a fixed one gives it back */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	if (!o.signal_dump) {	/* beside the socket */
		const char *slash = strrchr(o.socket, '/');

		snprintf(sigdump, sizeof(sigdump), "%.*swatched.txt", slash ? (int)(slash - o.socket + 1) : 0,
			 o.socket);
		o.signal_dump = sigdump;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	rc = 1;
	lock_fd = take_lock(o.socket);
	if (lock_fd < 0)
		goto out;
	tcp_fd = listen_tcp(o.listen, shown, sizeof(shown));
	if (tcp_fd < 0) {
		rc = tcp_fd == -2 ? 2 : 1;
		tcp_fd = -1;
		goto out;
	}
	{
		char info[400];
		int n = snprintf(info, sizeof(info), "pid %d, metrics at http://%s/metrics\n", (int)getpid(), shown);

		if (ftruncate(lock_fd, 0) || pwrite(lock_fd, info, (size_t)n, 0) != n)
			err_msg("serve: %s.lock: %s (continuing)", o.socket, strerror(errno));
	}
	unix_fd = listen_unix(o.socket);
	if (unix_fd < 0)
		goto out;
	sv.o = &o;
	sv.m.topk = o.topk;
	sv.rows = calloc((size_t)o.keep, sizeof(*sv.rows));
	if (!sv.rows) {
		err_msg("serve: out of memory for %ld rows", o.keep);
		goto out;
	}
	ipt_cpuset_format_list(&o.watch, sv.watch_str, sizeof(sv.watch_str));
	bo.housekeeping = o.have_hk ? &o.hk : NULL;
	bo.watch = &o.watch;
	bo.ring_bytes = o.ring_kb ? (size_t)o.ring_kb * 1024 : 0;
	bo.stacks = o.stacks;
	bo.handler_rows = true;		/* so that what comes out keeps latencies and handler times */
	sv.b = open_counter("serve", o.backend, NULL, &bo);
	if (!sv.b)
		goto out;
	if (!strcmp(ipt_counter_backend(sv.b), "tracefs") && *sv.watch_str)
		fprintf(stderr, "ipitrace serve: warning: no flight recorder rows for CPU %s with tracefs\n",
			sv.watch_str);
	if (!o.quiet) {
		char pin[256];

		ipt_cpuset_format_list(ipt_counter_pinned(sv.b), pin, sizeof(pin));
		fprintf(stderr, "ipitrace serve: counting with %s, loader on CPU %s, attach %.1f ms; "
			"metrics at http://%s/metrics; watching CPU %s; socket %s\n",
			strcmp(ipt_counter_backend(sv.b), "tracefs") ? "BPF" : "tracefs (an instance of its own, "
			"trace_pipe polled)", pin, (double)ipt_counter_attach_ns(sv.b) / 1e6, shown,
			*sv.watch_str ? sv.watch_str : "none", o.socket);
		if (*ipt_counter_skipped(sv.b))
			fprintf(stderr, "ipitrace serve: skipped (not in this kernel): %s\n", ipt_counter_skipped(sv.b));
	}
	rc = run(&sv, tcp_fd, unix_fd) ? 1 : 0;
	if (!o.quiet)
		fprintf(stderr, "ipitrace serve: %s, detaching\n", stop_signal == SIGTERM ? "SIGTERM" :
			stop_signal == SIGINT ? "SIGINT" : stop_signal == SIGHUP ? "SIGHUP" : "stopping");
out:
	if (unix_fd >= 0) {
		close(unix_fd);
		unlink(o.socket);
	}
	if (tcp_fd >= 0)
		close(tcp_fd);
	ipt_counter_close(sv.b);
	if (lock_fd >= 0)
		close(lock_fd);
	metrics_free(&sv.m);
	free(sv.rows);
	ipt_cpuset_free(&o.watch);
	ipt_cpuset_free(&o.hk);
	return rc;
}
