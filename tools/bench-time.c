// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench-time.c - one command's wall time and peak memory, for bench/run.sh
 *
 *   bench-time OUT CMD [ARG...]
 *
 * Runs CMD (its standard streams as given) and writes "NS KB EXIT" to OUT:
 * the wall time from just before the fork to the child's end, in
 * nanoseconds (CLOCK_MONOTONIC), its peak resident set (ru_maxrss, KiB)
 * and its exit status (128 + N for a signal).  The bench timed rows as
 * `date` before, `/usr/bin/time CMD`, `date` after: two more execs around
 * each run, 4-8 ms on this VM, which a 15 ms report cannot carry.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	long long t0, t1;
	int status = 0, code;
	pid_t pid;
	FILE *out;

	if (argc < 3) {
		fprintf(stderr, "usage: bench-time OUT CMD [ARG...]\n");
		return 2;
	}
	t0 = now_ns();
	pid = fork();
	if (pid < 0) {
		perror("bench-time: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "bench-time: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("bench-time: wait4");
			return 2;
		}
	}
	t1 = now_ns();
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	out = fopen(argv[1], "w");
	if (!out || fprintf(out, "%lld %ld %d\n", t1 - t0, ru.ru_maxrss, code) < 0 || fclose(out)) {
		perror(argv[1]);
		return 2;
	}
	return code;
}
