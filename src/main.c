// SPDX-License-Identifier: GPL-2.0-or-later
/* main.c - ipitrace command dispatch */
#include "commands.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
	bool ends;	/* reads and ends: its heap on huge pages (heap.c) */
};

static const struct command commands[] = {
	{ "record", cmd_record, "capture IPIs from the live kernel into a trace.dat", false },
	{ "report", cmd_report, "who sends which IPIs to whom, how often, how long", true },
	{ "diff", cmd_diff, "before and after: two recordings compared, with significance", true },
	{ "dump", cmd_dump, "print the events of a trace, masks as CPU lists", true },
	{ "explain", cmd_explain, "timerlat spikes and the IPIs inside them, with their senders", true },
	{ "count", cmd_count, "decode every event and count them per CPU and type", true },
	{ "convert", cmd_convert, "IPI rows as CSV, JSON lines or Parquet (one row per target CPU)", true },
	{ "explode", cmd_explode, "rewrite a trace.dat with one single-CPU event per mask bit", true },
	{ "top", cmd_top, "IPIs per target CPU now, counted in the kernel with BPF", false },
	{ "serve", cmd_serve, "Prometheus metrics and a flight recorder of watched CPUs, with BPF", false },
};

/* The filter language: `ipitrace help filters`, and the FILTERS sections of the man pages. */
static const char filters_help[] =
	"Filters use the kernel's event-filter syntax, plus CPU sets and symbols:\n"
	"\n"
	"  cpumask & CPUS{4-7} && callsite ~ \"ttwu*\"\n"
	"  target_cpu == 5 || (kind == \"tlb\" && !(src_cpu & CPUS{0,1}))\n"
	"  func == \"sched_ttwu_pending\" && comm ~ \"fx-*\"\n"
	"  lat_ns > 100us && cpu & CPUS{2-3}        what matching found (report, convert)\n"
	"  stack ~ \"*flush_tlb*\" || unmatched_reason == \"lost_events\"\n"
	"  ts >= 1391.5s && ts < 1392s              times as dump prints them, in s\n"
	"\n"
	"Operators: == != < <= > >=; & (bitwise and; between a mask and a CPU set it\n"
	"means \"intersects\", between a scalar CPU and a set \"is a member\"); ~ (glob,\n"
	"kernel rules: x*, *x, *x*, or a full glob); && || ! and parentheses.\n"
	"\n"
	"Literals: decimal, 0x hex and kernel-style octal numbers, \"quoted strings\",\n"
	"CPUS{list}, true and false (1 and 0), and durations: a decimal number with a\n"
	"unit, ns us ms or s (100us, 1.5ms, 1391.5s), read as ns.  Times and durations\n"
	"are ns (ts in the trace clock's units).  Address fields (callsite, callback,\n"
	"func) compare as numbers against numbers and by symbol name against strings.\n"
	"\n"
	"Row columns (report, convert, diff, Python's rows()): ts (or ts_ns) id\n"
	"src_cpu target_cpu cpu ntargets pid comm event kind callsite callback func\n"
	"reason cpumask callsite_func func_name; cpu is the target CPU, as in the\n"
	"kernel's ipi_send_cpu.cpu; cpumask (or targets) the event's whole target set;\n"
	"callsite_sym, callback_sym and func_sym name the same as callsite, callback\n"
	"and func.  And what matching found (`ipitrace convert --help`): lat_ns\n"
	"handler_ns handler_ts_ns matched coalesced (true or false) unmatched_reason\n"
	"(trace_ended, no_receive_events, lost_events, no_handler) and stack (the\n"
	"sender's frames as \"leaf;...;root\", for ~ \"*name*\").  A value that is\n"
	"unknown for a row (lat_ns of a send no interrupt served, the stack of a\n"
	"trace without stacks) compares false, and ! of that true.  A filter naming\n"
	"one of these reads the trace twice: matching first, over every row.\n"
	"\n"
	"Event fields (dump --filter): each event's own fields, as the kernel filters\n"
	"them, plus CPU (the recording CPU), COMM (the task) and FIELD.function (a\n"
	"pointer field's symbol).  An event that lacks a named field does not match.\n"
	"\n"
	"Errors point at the column: filter: column 10: expected ')'.\n";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ipitrace [COMMAND [OPTIONS] [ARGS]]\n"
		"\n"
		"Which inter-processor interrupts hit which CPUs, sent by whom, from where,\n"
		"how often, and at what cost.\n"
		"\n"
		"Without a command, as root on a live machine: record all IPIs for 10 seconds\n"
		"(Ctrl-C ends earlier) into ipitrace-YYYYmmdd-HHMMSS.dat in the current\n"
		"directory (never over an existing file; it says where), and print the report:\n"
		"  ipitrace [-d TIME] [-o FILE] [-c LIST] [-s] [-i LIST] [--html OUT] [-q]\n"
		"           [--user-stacks] [--force] [-- COMMAND [ARG...]]\n"
		"-d, -c, -s, --user-stacks and -q go to `ipitrace record`; -i, -c and --html\n"
		"to `ipitrace report`.  -o FILE names the trace (it must not exist; --force\n"
		"replaces it).  With -- COMMAND: record while COMMAND runs (at most -d if\n"
		"given).  Later, `ipitrace report` without FILE reads the newest trace here.\n"
		"\n"
		"Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
	fprintf(f,
		"\n"
		"`ipitrace COMMAND --help` describes each, `ipitrace help filters` the filter\n"
		"language.  Inputs: trace.dat v6/v7\n"
		"(uncompressed, zstd, zlib), `trace-cmd report` text, tracefs `trace` text.\n"
		"\n"
		"  -h, --help     this text\n"
		"  -V, --version  print the version, and the parts built in (+name) or left\n"
		"                 out (-name): bpf (top, serve), libdw (record --user-stacks),\n"
		"                 zstd, zlib\n"
		"\n"
		"Options mean the same in every command that has them (the commands are in\n"
		"brackets; default: ipitrace without a command):\n"
		"  -o, --output FILE         the file to write (record, convert, explode,\n"
		"                            default)\n"
		"  -d, --duration TIME       how long to record: 10, 2.5, 30s, 5m, 2h (record,\n"
		"                            default; top: the interval)\n"
		"  -c, --cpus LIST           only IPIs to these target CPUs (record, report,\n"
		"                            diff, convert, top, default)\n"
		"  -F, --filter EXPR         a filter (record: kernel filter on the sends;\n"
		"                            report, diff, convert: IPI rows; dump: events)\n"
		"  -f, --format FMT          output format (report, diff, convert, top)\n"
		"  -i, --isolated LIST       the isolated CPUs, reported as a role (report,\n"
		"                            diff, default); report lists each IPI to them\n"
		"  -s, --stacks              record the kernel stacks of the sends (record,\n"
		"                            serve, default)\n"
		"  -e, --events LIST         events: more to record (record), only these (dump)\n"
		"  -j, --threads N           decoding threads (report, diff, convert, count),\n"
		"                            rendering threads (dump)\n"
		"  -t, --top N               rows of the top-N tables (report, diff, top; serve:\n"
		"                            named series per CPU)\n"
		"  -n, --count N             stop after N events (dump)\n"
		"  -p, --pid PID             only IPIs sent by this task (record)\n"
		"  -C, --clock NAME          trace clock (record)\n"
		"  -Z, --compression C       output compression (record, convert, explode)\n"
		"  -b, --buffer-kb N         per-CPU ring buffer in KiB (record)\n"
		"  -H, --housekeeping LIST   CPUs for the recorder's threads (record, top,\n"
		"                            serve)\n"
		"  -R, --raw                 every field as name=value (dump)\n"
		"  -q, --quiet               only errors and warnings (record, top, serve,\n"
		"                            default)\n"
		"  -l, --listen ADDR:PORT    the HTTP address (serve)\n"
		"  -g, --by KEY              group the senders by KEY (report; diff: KEYS,\n"
		"                            the tables)\n"
		"  -L, --latency             latency and handler time columns (diff)\n"
		"  -k, --sort ORDER          order of the groups (report)\n"
		"  -h, --help                the command's help (every command)\n"
		"Long only: --html OUT (report, diff, default), --all (report: every IPI to\n"
		"the isolated CPUs), --with-recorder (report, diff), --per-cpu (diff),\n"
		"--buffer NAME (report, dump, convert), --comm NAME, --from-serve (record),\n"
		"--user-stacks (record, default), --on-cpus LIST (dump: recording CPUs),\n"
		"--once, --stats, --no-serve (top), --socket PATH (record, top, serve),\n"
		"--backend NAME (top, serve), --watch LIST (top, serve), --keep N,\n"
		"--ring-kb N, --dump FILE, --signal-dump FILE (serve), --force (record,\n"
		"convert, explode, --html, default: replace an existing output file).\n"
		"FILE '-' reads standard input (report, dump, convert, count).\n"
		"\n"
		"Environment: IPITRACE_CACHE_DIR, the directory where the index of a trace's\n"
		"kallsyms section is kept, by its content, so that the next trace with it\n"
		"opens without reading it (with refs of 40 bytes that know a file opened\n"
		"again by its inode, size and times, and the answers its lookups gave, so\n"
		"that a trace reported again reads no index at all; the first open writes\n"
		"some 3 MB; at most 16 indexes, 16 files of answers and 256 refs are\n"
		"kept); empty: none.\n"
		"Unset: $XDG_CACHE_HOME/ipitrace, else ~/.cache/ipitrace. The answers are\n"
		"the same without it.\n");
}

int main(int argc, char **argv)
{
	/* before the first allocation */
	for (size_t i = 0; argc > 1 && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].ends && !strcmp(argv[1], commands[i].name))
			cli_heap_on_huge_pages();
	cli_set_command_line(argc, argv);
	if (argc < 2 || (argv[1][0] == '-' && argv[1][1] && strcmp(argv[1], "-h") &&
			  strcmp(argv[1], "--help") && strcmp(argv[1], "-V") && strcmp(argv[1], "--version")))
		return cmd_default(argc, argv);
	if (!strcmp(argv[1], "help") && argc > 2) {
		char help_opt[] = "--help";
		char *help_argv[] = { argv[2], help_opt, NULL };

		if (!strcmp(argv[2], "filters") || !strcmp(argv[2], "filter")) {
			fputs(filters_help, stdout);
			return 0;
		}
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[2], commands[i].name))
				return commands[i].fn(2, help_argv);
		err_msg("no help on '%s' (commands, or 'filters'; see ipitrace --help)", argv[2]);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("ipitrace %s\nfeatures: %s\n", ipt_version(), ipt_build_features());
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	err_msg("unknown command '%s' (see ipitrace --help)", argv[1]);
	return 2;
}
