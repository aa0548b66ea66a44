// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * heap.c - the process's heap on huge pages, for the commands that read a
 * trace and end
 *
 * A first touch of a 4 KiB page costs about 11 us on the VMs these tools
 * run on (a PVM guest that shadows page tables; 0.5-1 us on bare metal),
 * and one of a 2 MiB huge page about 60 us.  A report of a small trace
 * touched some 250 fresh heap pages (its tables, names, formats), its
 * decoding threads each 120 more in their own malloc arenas: 3 to 7 ms of
 * a 10 to 25 ms run.  So, before anything is allocated: the heap starts on
 * a 2 MiB boundary, grows 8 MiB at a time, is marked for huge pages (a
 * hint: where THP is off nothing changes) and its first 2 MiB, already
 * touched by malloc's own header, is made one huge page now (MADV_COLLAPSE,
 * Linux 6.1; refused elsewhere); all threads allocate from it (one arena:
 * their allocations are few, at set-up and when a table grows).  Resident
 * memory is then counted in 2 MiB steps: a few MiB more for a small
 * trace, nothing for a large one.  Only for commands that end: a recorder
 * or a server running for days keeps glibc's defaults (its memory returned
 * as it is freed).
 */
#include "commands.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

void cli_heap_on_huge_pages(void)
{
	const uintptr_t huge = 2u << 20;
	uintptr_t cur = (uintptr_t)sbrk(0), start, end;
	char *first;

	if (cur == (uintptr_t)-1)
		return;
	start = (cur + huge - 1) & ~(huge - 1);
	if (start != cur && sbrk((intptr_t)(start - cur)) == (void *)-1)
		return;
	mallopt(M_TOP_PAD, 8 << 20);
	mallopt(M_TRIM_THRESHOLD, 32 << 20);
	mallopt(M_ARENA_MAX, 1);
	first = malloc(64);	/* the heap made: start .. 8 MiB on */
	if (!first)
		return;
	first[0] = 0;
	end = (uintptr_t)sbrk(0) & ~(huge - 1);
	/* where malloc does not use brk (a sanitizer's allocator): nothing */
	if ((uintptr_t)first >= start && (uintptr_t)first < end) {
		(void)madvise((void *)start, end - start, MADV_HUGEPAGE);
		(void)madvise((void *)start, huge, MADV_COLLAPSE);
	}
	free(first);
}
