// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * watched.c - the header of serve's /watched.txt, written by serve and read
 * back by record --from-serve: its one definition
 */
#include "commands.h"

#include <inttypes.h>
#include <string.h>

#define HEAD "IPIs to the watched CPUs "

int watched_header_write(struct ipt_strbuf *out, const char *watch, uint64_t total, long kept, long ncpus)
{
	return ipt_strbuf_addf(out, "# tracer: nop\n#\n# ipitrace serve: the flight recorder's rows, " HEAD
			       "%s (%" PRIu64 " rows in all, the last %ld here); clock: CLOCK_MONOTONIC\n#P:%ld\n",
			       watch, total, kept, ncpus > 0 ? ncpus : 1);
}

void watched_header_read(const char *text, struct watched_header *h)
{
	const char *p = strstr(text, HEAD), *nl;

	snprintf(h->watch, sizeof(h->watch), "?");
	h->total = 0;
	h->kept = 0;
	if (p) {
		int n = 0;
		unsigned long long total;
		long kept;

		p += strlen(HEAD);
		while (p[n] && p[n] != ' ' && p[n] != '\n' && n < (int)sizeof(h->watch) - 1)
			n++;
		snprintf(h->watch, sizeof(h->watch), "%.*s", n ? n : 4, n ? p : "none");
		if (sscanf(p + n, " (%llu rows in all, the last %ld here)", &total, &kept) == 2) {
			h->total = total;
			h->kept = kept;
		}
	}
	snprintf(h->ncpus, sizeof(h->ncpus), "1");
	p = strstr(text, "\n#P:");
	if (p) {
		p += 4;
		nl = strchr(p, '\n');
		snprintf(h->ncpus, sizeof(h->ncpus), "%.*s", nl ? (int)(nl - p) : 8, p);
	}
}
