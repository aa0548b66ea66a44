/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report.c - the report API: one pass over a trace counts every IPI per
 * target CPU, matches the sends to the interrupts that served them, and
 * groups them; printed here as a table per CPU and a top-10 table.
 *
 *   usage: report TRACE [KEY]    KEY: comm (default), pid, task, cpu,
 *                                callsite, function, kind, stack
 */
#include <ipitrace.h>
#include <stdio.h>
#include <string.h>

/* A duration distribution's median in ns, or "-" when it is empty. */
static void print_median(const struct ipt_dist *d)
{
	if (ipt_dist_count(d))
		printf(" %10llu", (unsigned long long)ipt_dist_quantile(d, 0.5));
	else
		printf(" %10s", "-");
}

int main(int argc, char **argv)
{
	int by = ipt_group_by_from_name(argc >= 3 ? argv[2] : "comm");
	if ((argc != 2 && argc != 3) || by < 0) {
		fprintf(stderr, "usage: %s TRACE [comm|pid|task|cpu|callsite|function|kind|stack]\n", argv[0]);
		return 2;
	}
	struct ipt_trace *t = ipt_trace_open(argv[1]);
	if (!t) {
		fprintf(stderr, "%s\n", ipt_errmsg());
		return 1;
	}
	/* Options carry their size, so that fields can be added to them later.
	 * with_recorder: also count the IPIs that `ipitrace record` itself
	 * caused while recording (left out of the groups by default). */
	struct ipt_report_opts opts = { .sz = sizeof(opts), .with_recorder = true };
	struct ipt_report *r = ipt_report_run(t, &opts);
	if (!r) {
		fprintf(stderr, "%s\n", ipt_errmsg());
		ipt_trace_close(t);
		return 1;
	}
	const struct ipt_report_summary *s = ipt_report_summary(r);
	printf("%llu events, %llu IPI send events, %llu IPIs (one per target CPU)\nkinds:",
	       (unsigned long long)s->events, (unsigned long long)s->send_events,
	       (unsigned long long)s->ipis);
	for (int k = 0; k < IPT_KIND__COUNT; k++)
		if (s->kinds[k])
			printf(" %s %llu", ipt_kind_name(k), (unsigned long long)s->kinds[k]);
	printf("\n\n%4s %8s %8s %8s %8s %10s %10s\n", "cpu", "ipis", "sent", "handlers",
	       "matched", "lat_p50_ns", "hdl_p50_ns");
	for (int c = 0; c < s->ncpus; c++) {
		const struct ipt_report_cpu *rc = ipt_report_cpu(r, c);
		if (!rc)
			continue;
		printf("%4d %8llu %8llu %8llu %8llu", c, (unsigned long long)rc->ipis,
		       (unsigned long long)rc->sent, (unsigned long long)rc->handlers,
		       (unsigned long long)rc->matched);
		print_median(rc->latency);	/* send -> handler entry */
		print_median(rc->handler);	/* handler entry -> exit */
		printf("\n");
	}
	if (!s->cross_cpu_latency)
		printf("no latencies between CPUs: %s\n", s->cross_cpu_missing_because);

	/* The groups of all target CPUs (-1) by the key, largest first.  The
	 * array belongs to the report: no free. */
	size_t n;
	const struct ipt_report_group *g = ipt_report_groups(r, by, -1, IPT_SORT_COUNT, &n);
	if (!g) {
		fprintf(stderr, "%s\n", ipt_errmsg());
		ipt_report_free(r);
		ipt_trace_close(t);
		return 1;
	}
	printf("\ntop %s of %zu, all target CPUs\n", ipt_group_by_name(by), n);
	for (size_t i = 0; i < n && i < 10; i++) {
		char key[160];
		switch (by) {
		case IPT_BY_COMM: snprintf(key, sizeof(key), "%s", g[i].comm); break;
		case IPT_BY_PID: snprintf(key, sizeof(key), "%d %s", g[i].pid, g[i].comm); break;
		case IPT_BY_TASK:
			snprintf(key, sizeof(key), "%d %s on cpu %d", g[i].pid, g[i].comm, g[i].src_cpu);
			break;
		case IPT_BY_CPU: snprintf(key, sizeof(key), "cpu %d", g[i].src_cpu); break;
		case IPT_BY_KIND: snprintf(key, sizeof(key), "%s", ipt_kind_name(g[i].kind)); break;
		case IPT_BY_STACK:	/* its first frames, leaf first */
			snprintf(key, sizeof(key), "(no stack)");
			for (uint32_t f = 0; g[i].stack && f < g[i].stack->nframes && f < 3; f++) {
				char sym[64];
				size_t len = f ? strlen(key) : 0;
				ipt_trace_format_symbol(t, g[i].stack->frames[f], false, sym, sizeof(sym));
				snprintf(key + len, sizeof(key) - len, "%s%s", f ? " <- " : "", sym);
			}
			break;
		default:		/* callsite, function: an address */
			ipt_trace_format_symbol(t, g[i].addr, by == IPT_BY_CALLSITE, key, sizeof(key));
		}
		printf("%10llu  %s\n", (unsigned long long)g[i].count, key);
	}
	ipt_report_free(r);
	ipt_trace_close(t);
	return 0;
}
