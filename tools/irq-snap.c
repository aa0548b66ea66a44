// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * irq-snap.c - /proc/interrupts and a trace marker, back to back
 *
 *   irq-snap start|end OUT MARKER TEXT
 *
 * Reads /proc/interrupts (read() to its end, no fork between), writes TEXT
 * to MARKER (a tracefs trace_marker), reads /proc/interrupts again: start
 * writes the second reading to OUT and the first to OUT.pre, end the first
 * to OUT and the second to OUT.post.  The qemu guests' test (tests/qemu/init.sh,
 * check.py) counts the events between a start and an end marker: at least
 * OUT(end) - OUT(start), at most OUT.post - OUT.pre; the same when no
 * interrupt came while a marker was written.  A shell would read the file
 * in many small reads (tens of milliseconds under emulation, IPIs on the
 * way) or fork a cat between the marker and the snapshot.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[2][4 << 20];

/*
 * snap - /proc/interrupts into buf[i], read to its end; its length, -1 on
 * error.  The kernel hands a seq_file over one page at a time: with 8 CPUs
 * the whole table fits in one read(), with 32 it takes several (back to
 * back, no fork between).
 */
static ssize_t snap(int i)
{
	int fd = open("/proc/interrupts", O_RDONLY);
	size_t len = 0;
	ssize_t n = 0;

	if (fd < 0)
		return -1;
	while (len < sizeof(buf[i]) && (n = read(fd, buf[i] + len, sizeof(buf[i]) - len)) > 0)
		len += (size_t)n;
	close(fd);
	return n == 0 && len > 0 ? (ssize_t)len : -1;
}

static int save(const char *path, const char *suffix, int i, ssize_t n)
{
	char name[4096];
	int fd;

	snprintf(name, sizeof(name), "%s%s", path, suffix);
	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf[i], (size_t)n) != n) {
		perror(name);
		return -1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	ssize_t n0, n1;
	int fd, start;

	if (argc != 5 || (strcmp(argv[1], "start") && strcmp(argv[1], "end"))) {
		fprintf(stderr, "usage: irq-snap start|end OUT MARKER TEXT\n");
		return 2;
	}
	start = !strcmp(argv[1], "start");
	fd = open(argv[3], O_WRONLY);
	if (fd < 0) {
		perror(argv[3]);
		return 1;
	}
	n0 = snap(0);
	if (write(fd, argv[4], strlen(argv[4])) < 0) {
		perror(argv[3]);
		return 1;
	}
	n1 = snap(1);
	close(fd);
	if (n0 < 0 || n1 < 0) {
		fprintf(stderr, "irq-snap: /proc/interrupts: failed or short read\n");
		return 1;
	}
	if (start)
		return save(argv[2], ".pre", 0, n0) || save(argv[2], "", 1, n1);
	return save(argv[2], "", 0, n0) || save(argv[2], ".post", 1, n1);
}
