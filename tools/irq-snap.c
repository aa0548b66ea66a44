// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * irq-snap.c - /proc/interrupts and a trace marker, back to back
 *
 *   irq-snap start|end OUT MARKER TEXT
 *
 * start: writes TEXT to MARKER (a tracefs trace_marker), then reads
 * /proc/interrupts with one read() into OUT; end: reads first, then writes
 * the marker.  So the marked window of a trace holds every interrupt the
 * two snapshots count, and only microseconds more: the qemu guests' test
 * (tests/qemu/init.sh) compares the two.  A shell would read the file in
 * many small reads (tens of milliseconds under emulation, IPIs on the way)
 * or fork a cat between the marker and the snapshot.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[4 << 20];

static int mark(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, text, strlen(text)) < 0) {
		perror(path);
		return -1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	ssize_t n;
	int in, out, start;

	if (argc != 5 || (strcmp(argv[1], "start") && strcmp(argv[1], "end"))) {
		fprintf(stderr, "usage: irq-snap start|end OUT MARKER TEXT\n");
		return 2;
	}
	start = !strcmp(argv[1], "start");
	in = open("/proc/interrupts", O_RDONLY);
	out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0) {
		perror(in < 0 ? "/proc/interrupts" : argv[2]);
		return 1;
	}
	if (start && mark(argv[3], argv[4]))
		return 1;
	n = read(in, buf, sizeof(buf));
	if (!start && mark(argv[3], argv[4]))
		return 1;
	if (n <= 0 || (size_t)n == sizeof(buf) || write(out, buf, (size_t)n) != n) {
		fprintf(stderr, "irq-snap: /proc/interrupts: short or failed read or write\n");
		return 1;
	}
	close(out);
	close(in);
	return 0;
}
