// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_default.c - `ipitrace` with no command: record every IPI for 10
 * seconds (-d; Ctrl-C ends earlier) into ipitrace-YYYYmmdd-HHMMSS.dat in the
 * current directory (or -o FILE; never over an existing file), print the
 * report, and say where the trace is.
 */
#include "commands.h"
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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

/* reserve - create path (mode 0600, O_EXCL) so that no other run takes it; 0, or -1 if it exists */
static int reserve(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* pick_name - ipitrace-YYYYmmdd-HHMMSS.dat, else with -2, -3, ... (reserved) */
static int pick_name(char *path, size_t size)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	if (!localtime_r(&now, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		snprintf(stamp, sizeof(stamp), "%lld", (long long)now);
	for (int i = 1; i < 1000; i++) {
		if (i == 1)
			snprintf(path, size, "ipitrace-%s.dat", stamp);
		else
			snprintf(path, size, "ipitrace-%s-%d.dat", stamp, i);
		if (!reserve(path))
			return 0;
		if (errno != EEXIST) {
			err_msg("%s: %s", path, strerror(errno));
			return -1;
		}
	}
	err_msg("ipitrace-%s-*.dat: every name is taken", stamp);
	return -1;
}

/* same_file - path is still the file before was (a trace is published
 * under a new inode: the same inode and time mean none was written) */
static bool same_file(const char *path, const struct stat *before)
{
	struct stat st;

	return !stat(path, &st) && st.st_ino == before->st_ino && st.st_dev == before->st_dev &&
	       st.st_mtim.tv_sec == before->st_mtim.tv_sec && st.st_mtim.tv_nsec == before->st_mtim.tv_nsec;
}

int cmd_default(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "stacks", no_argument, NULL, 's' },
		{ "user-stacks", no_argument, NULL, 'U' },
		{ "isolated", required_argument, NULL, 'i' },
		{ "html", required_argument, NULL, 'W' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "force", no_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char path[PATH_MAX], secs[32];
	struct stat before;
	const char *out = NULL, *dur = "10", *cpus = NULL, *iso = NULL, *html = NULL;
	char **rec_argv = NULL, *rep_argv[16];
	char **command = NULL;
	int ncommand = 0;
	bool stacks = false, user_stacks = false, quiet = false, force = false, dur_given = false;
	const char *why = NULL;
	double d = 10;
	int c, ret, nrec = 0, nrep = 0;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:d:c:si:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'd':
			if (parse_duration(optarg, &d))
				return usage_err("", "--duration: bad duration '%s' (e.g. 10, 2.5, 30s, 5m, 2h)",
						 optarg);
			dur = optarg;
			dur_given = true;
			break;
		case 'c': cpus = optarg; break;
		case 's': stacks = true; break;
		case 'U': user_stacks = true; break;
		case 'i': iso = optarg; break;
		case 'W': html = optarg; break;
		case 'q': quiet = true; break;
		case 'O': force = true; break;
		case 'h':
			printf("usage: ipitrace [-d TIME] [-o FILE] [-c LIST] [-s] [--user-stacks] [-i LIST]\n"
			       "                [--html OUT] [-q] [--force] [-- COMMAND [ARG...]]\n"
			       "(ipitrace --help describes them and the commands)\n");
			return 0;
		default:
			return opt_err("", c, argv);
		}
	}
	if (optind < argc && strcmp(argv[optind - 1], "--"))
		return usage_err("", "unknown command '%s'", argv[optind]);
	if (optind < argc) {	/* `ipitrace [OPTIONS] -- COMMAND...`: record while it runs */
		command = argv + optind;
		ncommand = argc - optind;
	}
	if (html && output_taken(html, force))
		return 1;
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
	if (out) {
		if (strlen(out) >= sizeof(path))
			return usage_err("", "-o: name too long");
		if (!strcmp(out, "-"))
			return usage_err("", "-o -: the trace is kept in a file (use `ipitrace record -o -`)");
		snprintf(path, sizeof(path), "%s", out);
		if (output_taken(path, force))
			return 1;
		if (!force && reserve(path)) {
			if (errno == EEXIST)	/* appeared since */
				output_taken(path, false);
			else
				err_msg("%s: %s", path, strerror(errno));
			return 1;
		}
	} else if (pick_name(path, sizeof(path))) {
		return 1;
	}
	rec_argv = calloc((size_t)ncommand + 16, sizeof(*rec_argv));
	if (!rec_argv) {
		err_msg("out of memory");
		unlink(path);
		return 1;
	}
	rec_argv[nrec++] = "record";
	rec_argv[nrec++] = "--force";	/* the name reserved above, or --force given */
	rec_argv[nrec++] = "-o";
	rec_argv[nrec++] = path;
	if (!command || dur_given) {	/* with a COMMAND: until it exits, unless -d */
		rec_argv[nrec++] = "-d";
		snprintf(secs, sizeof(secs), "%s", dur);
		rec_argv[nrec++] = secs;
	}
	if (cpus) {
		rec_argv[nrec++] = "-c";
		rec_argv[nrec++] = (char *)cpus;
	}
	if (stacks)
		rec_argv[nrec++] = "-s";
	if (user_stacks)
		rec_argv[nrec++] = "--user-stacks";
	if (quiet)
		rec_argv[nrec++] = "-q";
	if (command) {
		rec_argv[nrec++] = "--";
		for (int i = 0; i < ncommand; i++)
			rec_argv[nrec++] = command[i];
	}
	rec_argv[nrec] = NULL;
	if (!quiet && command && dur_given)
		fprintf(stderr, "ipitrace: recording all IPIs while %s runs, for %g s at most, into %s\n",
			command[0], d, path);
	else if (!quiet && command)
		fprintf(stderr, "ipitrace: recording all IPIs while %s runs into %s\n", command[0], path);
	else if (!quiet)
		fprintf(stderr, "ipitrace: recording all IPIs for %g s (Ctrl-C to stop earlier) into %s\n",
			d, path);
	if (stat(path, &before))
		memset(&before, 0, sizeof(before));	/* --force of a new name */
	ret = cmd_record(nrec, rec_argv);
	free(rec_argv);
	if (before.st_ino ? same_file(path, &before) : access(path, F_OK)) {
		/* no trace was written: the reserved empty name goes; a file
		 * --force would have replaced stays, and is not reported on */
		if (!before.st_size)
			unlink(path);
		return ret ? ret : 1;
	}
	optind = 1;	/* getopt state is per process */
	rep_argv[nrep++] = "report";
	if (iso) {
		rep_argv[nrep++] = "-i";
		rep_argv[nrep++] = (char *)iso;
	}
	if (cpus) {
		rep_argv[nrep++] = "-c";
		rep_argv[nrep++] = (char *)cpus;
	}
	if (html && force)
		rep_argv[nrep++] = "--force";
	if (html) {
		rep_argv[nrep++] = "--html";
		rep_argv[nrep++] = (char *)html;
	}
	rep_argv[nrep++] = path;
	rep_argv[nrep] = NULL;
	c = cmd_report(nrep, rep_argv);
	if (!ret)
		ret = c;
	fflush(stdout);
	fprintf(stderr, "ipitrace: the trace is kept in %s (`ipitrace report %s` shows it again)\n",
		path, path);
	return ret;
}
