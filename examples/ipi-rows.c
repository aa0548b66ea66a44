/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ipi-rows.c - the IPI rows of a trace: one per (IPI send, target CPU),
 * kept or not by a filter expression, printed one a line, then counted per
 * target CPU.
 *
 *   usage: ipi-rows TRACE [FILTER]      e.g. ipi-rows trace.dat 'cpu == 1'
 *
 * FILTER is over the row's columns: ts, id, src_cpu, target_cpu, cpu (the
 * target), pid, comm, ntargets, event, callsite, callback, func, kind,
 * reason, cpumask; `ipitrace help filters` (or ipitrace-filter(7)) has
 * the language: 'src_cpu == 0 && kind == "resched"', 'callsite ~ "ttwu*"'.
 */
#include <ipitrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: %s TRACE [FILTER]\n", argv[0]);
		return 2;
	}
	struct ipt_trace *t = ipt_trace_open(argv[1]);
	if (!t) {
		fprintf(stderr, "%s\n", ipt_errmsg());
		return 1;
	}
	/* The filter is parsed here: a syntax error or an unknown column makes
	 * this fail with IPT_ERR_INVALID, and the message points at the column. */
	struct ipt_ipi_iter *it = ipt_ipi_iter_new(t, argc == 3 ? argv[2] : NULL);
	if (!it) {
		int usage = ipt_errcode() == IPT_ERR_INVALID;	/* the code, not the text */
		fprintf(stderr, "%s\n", ipt_errmsg());
		ipt_trace_close(t);
		return usage ? 2 : 1;
	}
	/* Rows per target CPU; a target CPU is below IPT_CPUSET_MAX. */
	uint64_t *per_target = calloc(IPT_CPUSET_MAX, sizeof(*per_target));
	if (!per_target) {
		fprintf(stderr, "out of memory\n");
		ipt_ipi_iter_free(it);
		ipt_trace_close(t);
		return 1;
	}
	bool ns = ipt_trace_ts_in_ns(t);	/* else timestamps are raw counts */
	struct ipt_ipi_row row;
	int r;
	printf("%-20s %3s -> %-6s  %-8s  %-32s %s\n", "time", "src", "target", "kind",
	       "callsite", "callback [-> function run]");
	while ((r = ipt_ipi_next(it, &row)) > 0) {
		char callsite[128], callback[128], func[128] = "";
		/* "name+0xoff", "0x..." when the trace has no symbol for it, "-" for none */
		ipt_trace_format_symbol(t, row.callsite, true, callsite, sizeof(callsite));
		ipt_trace_format_symbol(t, row.callback, false, callback, sizeof(callback));
		if (!row.callback && row.reason)	/* arm64: no callback but a reason */
			snprintf(callback, sizeof(callback), "(%s)", row.reason);
		/* the function the IPI made run, when joining the csd events of the
		 * trace found one other than the callback (a generic handler) */
		if (row.func && row.func != row.callback) {
			strcpy(func, " -> ");
			ipt_trace_format_symbol(t, row.func, false, func + 4, sizeof(func) - 4);
		}
		if (ns)		/* seconds.nanoseconds */
			printf("%10llu.%09llu ", (unsigned long long)(row.ts / 1000000000),
			       (unsigned long long)(row.ts % 1000000000));
		else
			printf("%20llu ", (unsigned long long)row.ts);
		printf("%3d -> %-6d  %-8s  %-32s %s%s\n", row.src_cpu, row.target_cpu,
		       ipt_kind_name(row.kind), callsite, callback, func);
		if (row.target_cpu >= 0 && row.target_cpu < IPT_CPUSET_MAX)
			per_target[row.target_cpu]++;
	}
	if (r < 0) {
		fprintf(stderr, "%s\n", ipt_errmsg());
	} else {
		/* what the iterator saw: every row made, and those the filter kept */
		const struct ipt_ipi_stats *st = ipt_ipi_iter_stats(it);
		printf("\n%llu send events, %llu rows, %llu kept\n",
		       (unsigned long long)st->send_events, (unsigned long long)st->rows,
		       (unsigned long long)st->rows_out);
		for (int c = 0; c < IPT_CPUSET_MAX; c++)
			if (per_target[c])
				printf("%10llu  to cpu %d\n", (unsigned long long)per_target[c], c);
	}
	free(per_target);
	ipt_ipi_iter_free(it);
	ipt_trace_close(t);
	return r < 0;
}
