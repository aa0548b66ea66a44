// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_default.c - `ipitrace` with no arguments: record every IPI for 10
 * seconds (Ctrl-C ends earlier) into a temporary file and print the report.
 */
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* tracefs_usable - root, and tracefs mounted or mountable */
static bool tracefs_usable(const char **why)
{
	char path[4096];

	if (geteuid() != 0) {
		*why = "recording needs root (the kernel's tracefs is root-only)";
		return false;
	}
	if (ipt_tracefs_state(path, sizeof(path)) != IPT_TRACEFS_MISSING)
		return true;	/* not mounted yet: record mounts it */
	*why = "this kernel has no tracefs (/sys/kernel/tracing is missing)";
	return false;
}

int cmd_default(int argc, char **argv)
{
	char dir[] = "/tmp/ipitrace-XXXXXX", path[64];
	char *rec_argv[] = { "record", "-o", path, "-d", "10", NULL };
	char *rep_argv[] = { "report", path, NULL };
	const char *why = NULL;
	int ret;

	if (!tracefs_usable(&why)) {
		fprintf(stderr,
			"ipitrace: cannot record here: %s.\n"
			"Run it as root on the machine to watch, or report on a trace made elsewhere:\n"
			"  ipitrace report FILE     (trace.dat from `ipitrace record` or `trace-cmd\n"
			"                            record -e ipi -e csd -e irq_vectors`, or the text of\n"
			"                            `trace-cmd report` or of /sys/kernel/tracing/trace)\n"
			"  ipitrace --help          all commands\n", why);
		return 1;
	}
	if (!mkdtemp(dir)) {
		err_msg("cannot create a temporary directory: %m");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/ipitrace.dat", dir);
	fprintf(stderr, "ipitrace: recording all IPIs for 10 seconds (Ctrl-C to stop earlier)...\n");
	ret = cmd_record(5, rec_argv);
	if (ret == 0 || access(path, R_OK) == 0) {
		optind = 1;	/* getopt state is per process */
		ret = cmd_report(2, rep_argv);
	}
	unlink(path);
	rmdir(dir);
	return ret;
}
