// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_explode.c - `ipitrace explode`: the seed thread's post-processing step
 *
 * Rewrites a trace.dat with one event per IPI target (ipt_explode): every
 * ipi:ipi_send_cpumask event becomes one ipi:ipi_send_cpu event per CPU in
 * its mask, every arm64 ipi:ipi_raise event one ipi_raise per target.
 * trace-cmd then filters on single CPUs:
 *   trace-cmd report -F 'ipi_send_cpu: cpu == 5' OUT.dat
 */
#include "commands.h"
#include "outfile.h"

#include <getopt.h>
#include <stdlib.h>

static void explode_usage(FILE *f)
{
	fprintf(f,
		"usage: ipitrace explode [OPTIONS] IN.dat -o OUT.dat\n"
		"\n"
		"Write a trace.dat like IN in which every ipi_send_cpumask event became one\n"
		"ipi_send_cpu event per CPU of its mask (same timestamp, task, call site and\n"
		"callback), and every arm64 ipi_raise event one ipi_raise event per target CPU\n"
		"(its mask holding that CPU alone).  All other events are copied as they are.\n"
		"trace-cmd and KernelShark read the result; then, for instance,\n"
		"  trace-cmd report -F 'ipi_send_cpu: cpu == 5' OUT.dat\n"
		"finds every IPI sent to CPU 5.\n"
		"\n"
		"  -o, --output OUT     the new trace.dat (required; appears only when complete)\n"
		"  -Z, --compression A  none, zstd or zlib (default: as IN, else zstd)\n"
		"      --v6             write trace.dat version 6 (default 7)\n"
		"      --force          replace OUT if it exists (else an error)\n"
		"  -h, --help           this text\n"
		"\n"
		"Limits: lost-event marks of IN's pages are not carried over (the counts stay\n"
		"in the per-CPU stats); only the top-level buffer of IN is written.\n");
}

int cmd_explode(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "compression", required_argument, NULL, 'Z' },
		{ "v6", no_argument, NULL, '6' },
		{ "force", no_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ipt_explode_opts eo = {
		.sz = sizeof(eo),
		.version = 7,
		.creator = "ipitrace explode " IPT_VERSION,
		.no_replace = true,	/* --force: false */
	};
	struct ipt_explode_stats st = { 0 };
	struct ipt_trace *t;
	const char *out = NULL;
	int c, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:Z:h", opts, NULL)) != -1) {
		switch (c) {
		case '?':
		case ':':
			return opt_err("explode", c, argv);
		case 'o': out = optarg; break;
		case 'Z': eo.compression = optarg; break;
		case '6': eo.version = 6; break;
		case 'O': eo.no_replace = false; break;
		case 'h': explode_usage(stdout); return 0;
		default: return 2;
		}
	}
	if (optind != argc - 1)
		return usage_err("explode", optind < argc ? "one IN.dat only" : "no IN.dat given");
	if (!out)
		return usage_err("explode", "no output: give -o OUT.dat");
	if (eo.compression && !ipt_compression_supported(eo.compression))
		return usage_err("explode", "unknown compression '%s' (none, zstd, zlib)", eo.compression);
	if (output_taken(out, !eo.no_replace))
		return 1;
	t = open_trace(argv[optind], NULL, true, &ret);
	if (!t)
		return ret;
	if (ipt_trace_kind(t) != IPT_INPUT_TRACEDAT) {
		err_msg("%s: explode needs a trace.dat input (text traces: use convert)", argv[optind]);
		ipt_trace_close(t);
		return 1;
	}
	if (ipt_explode(t, out, &eo, &st)) {
		err_msg("%s", ipt_errmsg());
		ipt_trace_close(t);
		return 1;
	}
	fprintf(stderr, "ipitrace: %s: %llu events in, %llu out (%llu mask events -> %llu single-CPU events)\n",
		out, (unsigned long long)st.events_in, (unsigned long long)st.events_out,
		(unsigned long long)st.masks, (unsigned long long)st.singles);
	ipt_trace_close(t);
	return 0;
}
