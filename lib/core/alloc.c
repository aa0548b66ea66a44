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

void *ipt_malloc_big(size_t n)
{
	const size_t huge = 2u << 20;
	size_t round = (n + huge - 1) & ~(huge - 1);
	void *p;

	/* the whole last page is resident once touched: not for a buffer that
	 * would leave much of it unused */
	if (n < huge / 2 || round < n || round - n > n / 4)
		return ipt_malloc(n);
	p = aligned_alloc(huge, round);
	if (!p)
		return ipt_malloc(n);
#ifdef MADV_HUGEPAGE
	(void)madvise(p, round, MADV_HUGEPAGE);	/* a hint: refused where THP is off */
#endif
	return p;
}

void *ipt_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		ipt_err_code(IPT_ERR_NOMEM, "out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *ipt_calloc_lines(size_t n, size_t size)
{
	size_t bytes = n * size, round;
	void *p;

	if (size && bytes / size != n) {
		ipt_err_code(IPT_ERR_NOMEM, "out of memory (%zu x %zu bytes)", n, size);
		return NULL;
	}
	round = (bytes + IPT_LINE - 1) & ~(size_t)(IPT_LINE - 1);
	p = aligned_alloc(IPT_LINE, round ? round : IPT_LINE);
	if (!p) {
		ipt_err_code(IPT_ERR_NOMEM, "out of memory (%zu x %zu bytes)", n, size);
		return NULL;
	}
	memset(p, 0, round ? round : IPT_LINE);
	return p;
}

void *ipt_realloc(void *old, size_t n)
{
	void *p = realloc(old, n ? n : 1);

	if (!p)
		ipt_err_code(IPT_ERR_NOMEM, "out of memory (%zu bytes)", n);
	return p;
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
