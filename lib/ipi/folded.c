// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * folded.c - the sender stacks of a report as folded lines ("comm;root;
 * ...;leaf count"), the input of flame graph tools (ipt_report_folded)
 */
#include "ipi/report_views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fline {
	char *text;
	uint64_t count;
};

static int cmp_fline_text(const void *a, const void *b)
{
	return strcmp(((const struct fline *)a)->text, ((const struct fline *)b)->text);
}

static int cmp_fline_count(const void *a, const void *b)
{
	const struct fline *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->text, y->text);
}

char *ipt_rpt_folded_line(struct ipt_report *rep, int32_t pid, const struct ipt_report_stack *st)
{
	struct ipt_strbuf sb = { 0 };
	const char *comm = ipt_trace_comm(rep->r.t, pid);

	for (const char *c = comm; *c; c++)
		if (ipt_strbuf_addc(&sb, *c == ';' || (unsigned char)*c < 0x20 ? '_' : *c))
			goto fail;
	for (uint32_t i = st->nframes; i-- > 0;) {
		uint64_t off;
		const char *name = ipt_trace_symbol(rep->r.t, st->frames[i], &off);

		if (ipt_strbuf_addc(&sb, ';') || (name ? ipt_strbuf_adds(&sb, name) :
					  ipt_strbuf_add(&sb, "0x", 2) ||
					  ipt_strbuf_add_hex(&sb, ipt_trace_frame_address(rep->r.t, st->frames[i]))))
			goto fail;
	}
	if (ipt_strbuf_addc(&sb, '\0'))
		goto fail;
	return sb.buf;
fail:
	ipt_strbuf_free(&sb);
	return NULL;
}

int ipt_report_folded(struct ipt_report *rep, int cpu, struct ipt_strbuf *out, uint64_t *total)
{
	const struct rpt_map *m = &rep->r.stackmap;
	struct fline *v = ipt_calloc(m->h.n ? m->h.n : 1, sizeof(*v));
	size_t k = 0, j = 0;
	uint64_t sum = 0;
	int ret = -1;

	if (!v)
		return -1;
	if (cpu < -1 || cpu >= rep->sum.ncpus) {
		ipt_err_code(IPT_ERR_INVALID, "folded stacks: no CPU %d", cpu);
		goto out;
	}
	for (size_t i = 0; i < m->h.cap; i++) {
		const struct rpt_slot *sl = ipt_cmap_at(m, i);

		if (!sl || !sl->val || (cpu >= 0 && sl->key.c != (uint32_t)cpu))
			continue;
		v[k].count = sl->val;
		if (!(v[k++].text = ipt_rpt_folded_line(rep, (int32_t)(uint32_t)sl->key.b,
						&rep->tstk[rep->tmap[sl->key.a]])))
			goto out;
	}
	qsort(v, k, sizeof(*v), cmp_fline_text);
	for (size_t i = 0; i < k; i++) {
		if (j && !strcmp(v[j - 1].text, v[i].text)) {
			v[j - 1].count += v[i].count;
			free(v[i].text);
		} else {
			v[j++] = v[i];
		}
	}
	k = j;
	qsort(v, k, sizeof(*v), cmp_fline_count);
	for (size_t i = 0; i < k; i++) {
		char num[24];

		snprintf(num, sizeof(num), " %llu\n", (unsigned long long)v[i].count);
		if (ipt_strbuf_adds(out, v[i].text) || ipt_strbuf_adds(out, num))
			goto out;
		sum += v[i].count;
	}
	if (total)
		*total = sum;
	ret = 0;
out:
	for (size_t i = 0; i < k; i++)
		free(v[i].text);
	free(v);
	return ret;
}
