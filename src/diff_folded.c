// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * diff_folded.c - the stacks of a diff with two counts (diff_out.h), for
 * diff -f folded and the flame graph of diff --html
 */
#include "diff_out.h"

#include <stdlib.h>
#include <string.h>

static int cmp_row_key(const void *a, const void *b)
{
	return strcmp(((const struct ipt_diff_row *)a)->key, ((const struct ipt_diff_row *)b)->key);
}

int diff_folded_text(const struct ipt_diff_row *v, size_t n, struct ipt_strbuf *sb)
{
	struct ipt_diff_row *w = n ? malloc(n * sizeof(*w)) : NULL;

	if (n && !w)
		return -1;
	if (n)
		memcpy(w, v, n * sizeof(*w));
	qsort(w, n, sizeof(*w), cmp_row_key);
	for (size_t i = 0; i < n;) {
		uint64_t c[2] = { 0, 0 };
		size_t j = i;

		for (; j < n && !strcmp(w[j].key, w[i].key); j++) {
			c[0] += w[j].count[0];
			c[1] += w[j].count[1];
		}
		if (strcmp(w[i].key, "(no stack)") &&
		    ipt_strbuf_addf(sb, "%s %llu %llu\n", w[i].key, (unsigned long long)c[0], (unsigned long long)c[1])) {
			free(w);
			return -1;
		}
		i = j;
	}
	free(w);
	return 0;
}
