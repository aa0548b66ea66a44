// SPDX-License-Identifier: GPL-2.0-or-later
/* main.c - ipitrace command dispatch */
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "record", cmd_record, "capture IPIs from the live kernel into a trace.dat" },
	{ "report", cmd_report, "who sends which IPIs to whom, how often, how long" },
	{ "dump", cmd_dump, "print the events of a trace, masks as CPU lists" },
	{ "count", cmd_count, "decode every event and count them per CPU and type" },
	{ "convert", cmd_convert, "IPI rows as CSV, JSON lines or Parquet (one row per target CPU)" },
	{ "explode", cmd_explode, "rewrite a trace.dat with one single-CPU event per mask bit" },
};

/* The filter language: `ipitrace help filters`, and the FILTERS sections of the man pages. */
static const char filters_help[] =
	"Filters use the kernel's event-filter syntax, plus CPU sets and symbols:\n"
	"\n"
	"  cpumask & CPUS{4-7} && callsite ~ \"ttwu*\"\n"
	"  target_cpu == 5 || (kind == \"tlb\" && !(src_cpu & CPUS{0,1}))\n"
	"  func == \"sched_ttwu_pending\" && comm ~ \"fx-*\"\n"
	"\n"
	"Operators: == != < <= > >=; & (bitwise and; between a mask and a CPU set it\n"
	"means \"intersects\", between a scalar CPU and a set \"is a member\"); ~ (glob,\n"
	"kernel rules: x*, *x, *x*, or a full glob); && || ! and parentheses.\n"
	"\n"
	"Literals: decimal, 0x hex and kernel-style octal numbers, \"quoted strings\",\n"
	"and CPUS{list}.  Address fields (callsite, callback, func) compare as numbers\n"
	"against numbers and by symbol name against strings.\n"
	"\n"
	"Row columns (convert, report, the library's IPI rows): ts id src_cpu\n"
	"target_cpu cpu ntargets pid comm event kind callsite callback func reason\n"
	"cpumask.  cpu is the target CPU, as in the kernel's ipi_send_cpu.cpu;\n"
	"cpumask is the event's whole target set.\n"
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
		"how often, and at what cost.  Without a command, as root on a live machine:\n"
		"record all IPIs for 10 seconds (Ctrl-C ends earlier) and print the report.\n"
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
		"  -V, --version  print the version\n");
}

int main(int argc, char **argv)
{
	if (argc < 2)
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
		printf("ipitrace %s\n", ipt_version());
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	err_msg("unknown command '%s' (see ipitrace --help)", argv[1]);
	return 2;
}
