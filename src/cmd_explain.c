// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_explain.c - `ipitrace explain`: the timerlat spikes of a recording
 * and the IPI interrupts inside each, joined to their sends (first cut:
 * text; ipt_spikes_explain does the work)
 */
#include "commands.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void explain_usage(FILE *f)
{
	fprintf(f,
		"usage: ipitrace explain [OPTIONS] [FILE]\n"
		"\n"
		"The latency spikes of a recording made with `record --timerlat` (FILE '-'\n"
		"or a pipe: standard input; none: the newest of ipitrace.dat and\n"
		"ipitrace-*.dat here) and the IPIs inside each.  A spike is a timerlat sample\n"
		"of the thread context: on its CPU the thread woke LAT after its timer was\n"
		"due, so it covers [ts - LAT, ts].  Each IPI whose interrupt entered on that\n"
		"CPU inside the window is listed under it, joined to the send that raised it\n"
		"(the matching of `report`): its kind, the interrupt's entry and handler time\n"
		"and share of the spike, the sending CPU, task, call site and function.\n"
		"Sends served by one interrupt (coalesced) are listed, its time counted once.\n"
		"What else interfered on that CPU inside the window follows: the osnoise:*\n"
		"noise events (irq, softirq, nmi, thread) with their net durations (an IPI's\n"
		"irq_noise names it), then `unaccounted`: the latency less the sum of those.\n"
		"Then the senders by the spike time of their IPIs.\n"
		"\n"
		"  -t, --threshold US   every thread sample over US microseconds (default:\n"
		"                       the worst 10 per CPU)\n"
		"  -n, --worst N        without --threshold: the worst N per CPU (default 10)\n"
		"  -h, --help           this text\n");
}

/* us - ns as microseconds text */
static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

/* secs - a timestamp in s, to the ns (trace-cmd report -t's) */
static void secs(uint64_t ns, char *buf, size_t n)
{
	snprintf(buf, n, "%llu.%09llu", (unsigned long long)(ns / 1000000000ULL),
		 (unsigned long long)(ns % 1000000000ULL));
}

/* pct - part of whole in percent (0 for an empty whole) */
static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* print_noise - the osnoise rows of a spike and its unaccounted time */
static void print_noise(const struct ipt_spike *s)
{
	char a[32];

	if (!s->noise_known) {
		printf("  other interference: unknown (no osnoise:* noise events on cpu %d in the recording)\n",
		       s->cpu);
	}
	for (size_t j = 0; j < s->nnoise; j++) {
		const struct ipt_spike_noise *nz = &s->noise[j];
		char what[96], ipi[48] = "";

		if (nz->kind == IPT_SPIKE_NOISE_NMI)
			snprintf(what, sizeof(what), "nmi");
		else
			snprintf(what, sizeof(what), "%s %s:%d", ipt_spike_noise_kind_name(nz->kind), nz->name,
				 (int)nz->num);
		if (nz->ipi >= 0)
			snprintf(ipi, sizeof(ipi), " (IPI %d above)", (int)nz->ipi + 1);
		else if (nz->kind == IPT_SPIKE_NOISE_IRQ && (!strncmp(nz->name, "call_function", 13) ||
							     !strcmp(nz->name, "reschedule")))
			snprintf(ipi, sizeof(ipi), " (an IPI: no send matched)");
		secs(nz->end_ns, a, sizeof(a));
		if (nz->before_window)
			printf("  %s ended %s: net %.3f us, %.3f us of it inside the window (%.1f%%)%s\n", what, a,
			       us(nz->duration_ns), us(nz->counted_ns), pct(nz->counted_ns, s->latency_ns), ipi);
		else
			printf("  %s ended %s: net %.3f us (%.1f%%)%s\n", what, a, us(nz->duration_ns),
			       pct(nz->counted_ns, s->latency_ns), ipi);
	}
	if (s->over)
		printf("  unaccounted: none; the listed %s exceed the latency by %.3f us (%s)\n",
		       s->noise_known ? "net durations" : "IPI handler times", us(s->excess_ns),
		       s->noise_known ? "osnoise measures in the local clock, the window is in the trace's" :
					"the handlers overlap the window's edges");
	else
		printf("  unaccounted %.3f us (%.1f%%)%s\n", us(s->unaccounted_ns), pct(s->unaccounted_ns, s->latency_ns),
		       s->noise_known ? "" : ": latency - the IPI handler times; other interference unknown");
}

/* sender - "comm pid, callsite+off, function" of one IPI, the summary's key */
static void sender(const struct ipt_spike_ipi *ip, char *buf, size_t n)
{
	char cs[192] = "?";

	if (ip->callsite)
		snprintf(cs, sizeof(cs), "%s+0x%llx", ip->callsite, (unsigned long long)ip->callsite_off);
	snprintf(buf, n, "%s[%d] via %s function %s", ip->comm, (int)ip->pid, cs, ip->func ? ip->func : "?");
}

struct tally {
	char key[512];
	uint64_t ns, ipis;
};

static int by_ns(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : strcmp(x->key, y->key);
}

static void print(const struct ipt_spikes *sp, bool threshold)
{
	size_t n = ipt_spikes_count(sp), nt = 0, cap = 0;
	struct tally *t = NULL;
	uint64_t with = 0;

	printf("%zu spikes (timerlat thread samples, %s)\n", n,
	       threshold ? "over the threshold" : "the worst per CPU");
	for (size_t i = 0; i < n; i++) {
		const struct ipt_spike *s = ipt_spikes_get(sp, i);
		char a[32], b[32], c[32];

		secs(s->start_ns, a, sizeof(a));
		secs(s->ts_ns, b, sizeof(b));
		printf("\nspike cpu %d seq %u at %s: latency %.3f us, window [%s, %s], IPIs %zu, "
		       "IPI handler time %.3f us (%.1f%%)\n", s->cpu, s->seq, b, us(s->latency_ns), a, b,
		       s->nipis, us(s->ipi_ns), s->latency_ns ? 100.0 * (double)s->ipi_ns / (double)s->latency_ns : 0);
		with += s->nipis > 0;
		for (size_t k = 0; k < s->nipis; k++) {
			const struct ipt_spike_ipi *ip = &s->ipis[k];
			char key[512], h[64] = "handler ?";
			struct tally *tt = NULL;

			secs(ip->entry_ns, c, sizeof(c));
			secs(ip->send_ns, a, sizeof(a));
			if (ip->has_handler)
				snprintf(h, sizeof(h), "handler %.3f us (%.1f%%)", us(ip->handler_ns),
					 s->latency_ns ? 100.0 * (double)ip->handler_ns / (double)s->latency_ns : 0);
			sender(ip, key, sizeof(key));
			printf("  ipi %s entry %s %s%s; sent %s from cpu %d by %s\n", ipt_kind_name(ip->kind), c,
			       ip->coalesced ? "(coalesced: the interrupt above) " : "", ip->coalesced ? "" : h, a,
			       (int)ip->src_cpu, key);
			for (size_t j = 0; j < nt; j++)
				if (!strcmp(t[j].key, key))
					tt = &t[j];
			if (!tt) {
				if (IPT_GROW(t, cap, nt + 1))
					continue;
				tt = &t[nt++];
				memset(tt, 0, sizeof(*tt));
				snprintf(tt->key, sizeof(tt->key), "%s", key);
			}
			tt->ipis++;
			if (!ip->coalesced)
				tt->ns += ip->handler_ns;
		}
		print_noise(s);
	}
	if (nt)
		qsort(t, nt, sizeof(*t), by_ns);
	printf("\n%llu of %zu spikes hold IPI interrupts; senders by IPI handler time inside spikes:\n",
	       (unsigned long long)with, n);
	for (size_t j = 0; j < nt; j++)
		printf("  %10.3f us %6llu IPIs  %s\n", us(t[j].ns), (unsigned long long)t[j].ipis, t[j].key);
	free(t);
}

int cmd_explain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threshold", required_argument, NULL, 't' },
		{ "worst", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ipt_spikes_opts so = { .sz = sizeof(so) };
	struct ipt_spikes *sp;
	struct ipt_trace *t;
	const char *path;
	char found[256], *end;
	int c, r;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:n:h", opts, NULL)) != -1) {
		switch (c) {
		case '?':
		case ':':
			return opt_err("explain", c, argv);
		case 't': {
			unsigned long long v = strtoull(optarg, &end, 10);

			if (*end || end == optarg || *optarg == '-' || !v || v > 1000000000ULL)
				return usage_err("explain", "--threshold: microseconds, not '%s'", optarg);
			so.threshold_ns = v * 1000;
			break;
		}
		case 'n': {
			long v = strtol(optarg, &end, 10);

			if (*end || end == optarg || v < 1 || v > 1000000)
				return usage_err("explain", "--worst: a number from 1 to 1000000, not '%s'", optarg);
			so.worst = (int)v;
			break;
		}
		case 'h': explain_usage(stdout); return 0;
		default: return 2;
		}
	}
	if (optind < argc - 1)
		return usage_err("explain", "one FILE only");
	path = optind == argc - 1 ? argv[optind] : default_trace("explain", found, sizeof(found));
	if (!path)
		return 1;
	t = open_trace(path, NULL, false, &r);
	if (!t)
		return r;
	sp = ipt_spikes_explain(t, &so);
	if (!sp) {
		err_msg("%s: %s", path, ipt_errmsg());
		ipt_trace_close(t);
		return 1;
	}
	print(sp, so.threshold_ns != 0);
	ipt_spikes_free(sp);
	ipt_trace_close(t);
	return 0;
}
