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
		"`ipitrace COMMAND --help` describes each.  Inputs: trace.dat v6/v7\n"
		"(uncompressed, zstd, zlib), `trace-cmd report` text, tracefs `trace` text.\n"
		"\n"
		"  -h, --help     this text\n"
		"  -V, --version  print the version\n");
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return cmd_default(argc, argv);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("ipitrace %s\n", IPT_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	err_msg("unknown command '%s' (see ipitrace --help)", argv[1]);
	return 2;
}
