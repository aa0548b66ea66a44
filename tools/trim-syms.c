// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trim-syms.c - a trace.dat copied with only the kernel symbols it uses
 *
 *   trim-syms IN.dat OUT.dat
 *
 * Every record is kept as it is; the kallsyms text keeps, of the input's,
 * the lines of the symbols that the records' 8-byte kernel addresses (call
 * sites, callbacks, functions, probe addresses) fall in, the symbol after
 * each (where it ends), and the generic handler and sched_ttwu_pending that
 * the decoder looks up by name.  A guest's full kallsyms is most of a
 * recording (about 800 KB compressed); the committed fixtures of the qemu
 * guests (tests/data/qemu/) are made with this, so that `trace-cmd report`
 * and ipitrace resolve every address of them as in the original.
 */
#include "core/core.h"
#include "output/tracedat_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct addrs {
	uint64_t *v;
	size_t n, cap;
};

static int add(struct addrs *a, uint64_t v)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 1024;
		uint64_t *nv = realloc(a->v, cap * sizeof(*nv));

		if (!nv)
			return -1;
		a->v = nv;
		a->cap = cap;
	}
	a->v[a->n++] = v;
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static bool has(const struct addrs *a, uint64_t v)
{
	return bsearch(&v, a->v, a->n, sizeof(*a->v), cmp_u64) != NULL;
}

/* keep_sym - the symbol holding addr and the one after it */
static int keep_sym(const struct ipt_trace *t, struct addrs *keep, uint64_t addr)
{
	const struct ipt_sym *s = ipt_symtab_lookup(&t->ksyms, addr);
	size_t i;

	if (!s)
		return 0;
	i = (size_t)(s - t->ksyms.syms);
	if (add(keep, s->addr))
		return -1;
	while (i + 1 < t->ksyms.n && t->ksyms.syms[i + 1].addr == s->addr)
		i++;
	return i + 1 < t->ksyms.n ? add(keep, t->ksyms.syms[i + 1].addr) : 0;
}

int main(int argc, char **argv)
{
	static const char *const by_name[] = { "generic_smp_call_function_single_interrupt",
					       "sched_ttwu_pending" };
	struct ipt_strbuf out = IPT_STRBUF_INIT;
	struct addrs keep = { 0 };
	struct ipt_trace *t;
	struct ipt_iter *it;
	struct ipt_record rec;
	const char *s;
	int r, rc = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: trim-syms IN.dat OUT.dat\n");
		return 2;
	}
	t = ipt_trace_open(argv[1]);
	if (!t || !(it = ipt_iter_new(t, NULL))) {
		fprintf(stderr, "trim-syms: %s\n", ipt_errmsg());
		ipt_trace_close(t);
		return 1;
	}
	while ((r = ipt_iter_next(it, &rec)) > 0) {
		const struct ipt_event *ev = rec.event;

		for (int i = 0; ev && i < ev->nfields; i++) {
			const struct ipt_field *f = &ev->fields[i];
			uint64_t v;

			if (f->size != 8 || (f->flags & (IPT_FIELD_COMMON | IPT_FIELD_DYNAMIC | IPT_FIELD_ARRAY)) ||
			    ipt_field_u64(t, &rec, f, &v) || v < 0xffff000000000000ull)
				continue;
			if (keep_sym(t, &keep, v))
				goto oom;
		}
	}
	ipt_iter_free(it);
	if (r < 0) {
		fprintf(stderr, "trim-syms: %s\n", ipt_errmsg());
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(by_name); i++) {
		uint64_t a = ipt_trace_symbol_addr(t, by_name[i]);

		if (a && keep_sym(t, &keep, a))
			goto oom;
	}
	qsort(keep.v, keep.n, sizeof(*keep.v), cmp_u64);
	/* the input's lines of the kept addresses, in its order */
	s = t->raw_kallsyms.buf;
	while (s && s < t->raw_kallsyms.buf + t->raw_kallsyms.len) {
		const char *e = memchr(s, '\n', t->raw_kallsyms.len - (size_t)(s - t->raw_kallsyms.buf));
		size_t n = e ? (size_t)(e - s) + 1 : t->raw_kallsyms.len - (size_t)(s - t->raw_kallsyms.buf);

		if (has(&keep, strtoull(s, NULL, 16)) && ipt_strbuf_add(&out, s, n))
			goto oom;
		s += n;
	}
	if (ipt_trace_rewrite(t, argv[2], &out)) {
		fprintf(stderr, "trim-syms: %s\n", ipt_errmsg());
		goto out;
	}
	fprintf(stderr, "trim-syms: %s: %zu of %zu bytes of kallsyms kept\n", argv[2], out.len,
		t->raw_kallsyms.len);
	rc = 0;
	goto out;
oom:
	fprintf(stderr, "trim-syms: out of memory\n");
out:
	ipt_strbuf_free(&out);
	free(keep.v);
	ipt_trace_close(t);
	return rc;
}
