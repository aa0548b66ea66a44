// SPDX-License-Identifier: LGPL-2.1-or-later
/* alloc.c - allocation wrappers that report failure through ipt_err() */
#include "core/core.h"

#include <stdlib.h>
#include <sys/mman.h>

void *ipt_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		ipt_err_code(IPT_ERR_NOMEM, "out of memory (%zu bytes)", n);
	return p;
}

/* huge_block - n bytes on whole 2 MiB pages (as a hint), freed by free() */
static void *huge_block(size_t n)
{
	const size_t huge = 2u << 20;
	size_t round = (n + huge - 1) & ~(huge - 1);
	void *p;

	if (round < n)
		return ipt_malloc(n);
	p = aligned_alloc(huge, round);
	if (!p)
		return ipt_malloc(n);
#ifdef MADV_HUGEPAGE
	(void)madvise(p, round, MADV_HUGEPAGE);	/* a hint: refused where THP is off */
#endif
	return p;
}

void *ipt_malloc_big(size_t n)
{
	const size_t huge = 2u << 20;
	size_t round = (n + huge - 1) & ~(huge - 1);

	/* the whole last page is resident once touched: not for a buffer that
	 * would leave much of it unused */
	if (n < huge / 2 || round < n || round - n > n / 4)
		return ipt_malloc(n);
	return huge_block(n);
}

/* from this size a table written all over (ipt_malloc_table) is one or
 * more huge pages: 64 faults of 4 KiB cost 0.7 ms on a VM that shadows
 * page tables, and one 2 MiB page 0.06 ms */
#define TABLE_HUGE (256u << 10)

void *ipt_malloc_table(size_t n)
{
	return n < TABLE_HUGE ? ipt_malloc(n) : huge_block(n);
}

/* a mapping of its own from this size (the 2 MiB of a huge page / 2) */
#define SOON_MAP (1u << 20)

/* a grown buffer's mapping in huge pages from this size (ipt_realloc_soon) */
#define SOON_HUGE_GROWN (16u << 20)

/* soon_len - the length of the mapping of a buffer of n bytes */
static size_t soon_len(size_t n)
{
	const size_t huge = 2u << 20;

	return (n + huge - 1) & ~(huge - 1);
}

void *ipt_malloc_soon(size_t n)
{
	const size_t huge = 2u << 20;
	size_t len = soon_len(n);
	uint8_t *m, *a;

	if (n < SOON_MAP || len < n)
		return ipt_malloc(n);
	/* aligned to a huge page: map one more, give back the ends */
	m = mmap(NULL, len + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		ipt_err_code(IPT_ERR_NOMEM, "out of memory (%zu bytes)", n);
		return NULL;
	}
	a = (uint8_t *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
	if (a > m)
		munmap(m, (size_t)(a - m));
	if (m + len + huge > a + len)
		munmap(a + len, (size_t)(m + len + huge - (a + len)));
#ifdef MADV_HUGEPAGE
	if (len - n <= n / 4)
		(void)madvise(a, len, MADV_HUGEPAGE);	/* a hint: refused where THP is off */
#endif
	return a;
}

void ipt_free_soon(void *p, size_t n)
{
	if (!p)
		return;
	if (n < SOON_MAP || soon_len(n) < n)
		free(p);
	else
		munmap(p, soon_len(n));
}

void ipt_soon_discard(void *p, size_t n, size_t from, size_t to)
{
	uintptr_t a, e;

	if (!p || n < SOON_MAP || soon_len(n) < n || from >= to || to > n)
		return;
	a = ((uintptr_t)p + from + 4095) & ~(uintptr_t)4095;
	e = ((uintptr_t)p + to) & ~(uintptr_t)4095;
	if (e > a)
		(void)madvise((void *)a, e - a, MADV_DONTNEED);
}

void *ipt_realloc_soon(void *p, size_t old, size_t n)
{
	void *q;

	if (old < SOON_MAP || soon_len(old) < old) {
		if (n < SOON_MAP || soon_len(n) < n)
			return ipt_realloc(p, n);
		q = ipt_malloc_soon(n);	/* from here a mapping of its own */
		if (q) {
			memcpy(q, p, old < n ? old : n);
			free(p);
		}
		return q;
	}
	if (soon_len(n) < n) {
		ipt_err_code(IPT_ERR_NOMEM, "out of memory (%zu bytes)", n);
		return NULL;
	}
	if (soon_len(n) == soon_len(old))
		return p;
	q = mremap(p, soon_len(old), soon_len(n), MREMAP_MAYMOVE);	/* never a copy */
	if (q == MAP_FAILED) {
		ipt_err_code(IPT_ERR_NOMEM, "out of memory (%zu bytes)", n);
		return NULL;
	}
#ifdef MADV_HUGEPAGE
	/* a buffer that doubles is at least half used: from 16 MiB, the last
	 * huge page's unused part is at most a sixteenth of what is */
	if (soon_len(n) >= SOON_HUGE_GROWN)
		(void)madvise(q, soon_len(n), MADV_HUGEPAGE);	/* a hint: refused where THP is off */
#endif
	return q;
}

void *ipt_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		ipt_err_code(IPT_ERR_NOMEM, "out of memory (%zu x %zu bytes)", n, size);
	return p;
}

/* lines - n * size bytes on whole cache lines, not cleared; their rounded size in *round */
static void *lines(size_t n, size_t size, size_t *round)
{
	size_t bytes = n * size;
	void *p;

	if (size && bytes / size != n) {
		ipt_err_code(IPT_ERR_NOMEM, "out of memory (%zu x %zu bytes)", n, size);
		return NULL;
	}
	*round = (bytes + IPT_LINE - 1) & ~(size_t)(IPT_LINE - 1);
	if (!*round)
		*round = IPT_LINE;
	p = aligned_alloc(IPT_LINE, *round);
	if (!p)
		ipt_err_code(IPT_ERR_NOMEM, "out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *ipt_calloc_lines(size_t n, size_t size)
{
	size_t round;
	void *p = lines(n, size, &round);

	if (p)
		memset(p, 0, round);
	return p;
}

void *ipt_malloc_lines(size_t n, size_t size)
{
	size_t round;

	return lines(n, size, &round);
}

void *ipt_realloc(void *old, size_t n)
{
	void *p = realloc(old, n ? n : 1);

	if (!p)
		ipt_err_code(IPT_ERR_NOMEM, "out of memory (%zu bytes)", n);
	return p;
}

size_t ipt_grow_room(size_t cap, size_t need, size_t first, size_t max)
{
	size_t n = cap ? cap : first;

	if (need > max)
		return 0;
	while (n < need)
		n = n > max / 2 ? max : n * 2;
	return n;
}

/* first room of a grown array, in elements */
#define GROW_MIN 16
/* ipt_grow - room for need elements (ipitrace-private.h) */
int ipt_grow(void *arrp, size_t *cap, size_t esz, size_t need, size_t max)
{
	size_t n;
	void *p;

	if (need <= *cap)
		return 0;
	if (need > max || need > SIZE_MAX / esz)
		return ipt_err_code(IPT_ERR_NOMEM, "out of memory (%zu elements of %zu bytes)", need, esz);
	n = ipt_grow_room(*cap, need, GROW_MIN, max);
	if (n > SIZE_MAX / esz)
		n = need;
	memcpy(&p, arrp, sizeof(p));
	p = ipt_realloc(p, n * esz);
	if (!p)
		return -1;
	memcpy(arrp, &p, sizeof(p));
	*cap = n;
	return 0;
}

int ipt_grow_zero(void *arrp, size_t *cap, size_t esz, size_t need, size_t max)
{
	size_t old = *cap;
	char *p;

	if (ipt_grow(arrp, cap, esz, need, max))
		return -1;
	memcpy(&p, arrp, sizeof(p));
	if (*cap > old)
		memset(p + old * esz, 0, (*cap - old) * esz);
	return 0;
}

char *ipt_strndup(const char *s, size_t n)
{
	char *p = ipt_malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}

char *ipt_strdup(const char *s)
{
	return ipt_strndup(s, strlen(s));
}
