/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz_common.h - helpers shared by the libFuzzer targets in fuzz/
 *
 * Each target is one .c file with LLVMFuzzerTestOneInput; this header is
 * included by exactly one translation unit per binary, so the helpers are
 * plain static functions.
 *
 *  fz_file()       the input as a file: one memfd reused for every run,
 *                  opened by path through /proc/self/fd (no disk I/O).
 *  fz_exercise()   everything a reader of a trace does: accessors, every
 *                  record rendered three ways and matched by event filters
 *                  (dump --filter), every field read, a one-CPU
 *                  iterator, the IPI rows (through a filter that looks up
 *                  every column and keeps every row), the report engine and
 *                  explain's spikes (their sums checked).
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include "input/input.h"
#include "render/render.h"
#include "ipi/ipi.h"
#include "ipi/report.h"
#include "ipi/match.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Results go here so that the compiler keeps every read. */
static volatile size_t fz_sink;

static void fz_touch(const char *s)
{
	if (s)
		fz_sink += strlen(s);
}

/* fz_file - put data into the reusable memfd; returns its path */
static const char *fz_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];

	if (fd < 0) {
		fd = memfd_create("ipitrace-fuzz", MFD_CLOEXEC);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || ftruncate(fd, (off_t)size)) {
		perror("ftruncate");
		abort();
	}
	for (size_t done = 0; done < size;) {
		ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);

		if (n <= 0) {
			perror("pwrite");
			abort();
		}
		done += (size_t)n;
	}
	return path;
}

/* fz_fields - read every field of a record in every way the API offers */
static void fz_fields(const struct ipt_trace *t, const struct ipt_record *r)
{
	const struct ipt_event *ev = r->event;

	if (!ev)
		return;
	for (int i = 0; i < ipt_event_nfields(ev); i++) {
		const struct ipt_field *f = ipt_event_field_at(ev, i);
		struct ipt_cpuset set = IPT_CPUSET_INIT;
		const uint8_t *d;
		uint32_t n;
		uint64_t v;

		fz_touch(ipt_field_name(f));
		fz_touch(ipt_field_type(f));
		if (!ipt_field_u64(t, r, f, &v)) {
			uint64_t off;

			fz_touch(ipt_trace_symbol(t, v, &off));
			fz_touch(ipt_trace_printk_string(t, v));
		}
		if (!ipt_field_bytes(t, r, f, &d, &n)) {
			uint8_t x = 0;

			for (uint32_t k = 0; k < n; k++)
				x ^= d[k];
			fz_sink += x;
		}
		/* masks, and one other field per record to try the reader on */
		if ((ipt_field_flags(f) & IPT_FIELD_CPUMASK) || i == (int)(r->ts % 16)) {
			ipt_cpuset_init(&set);
			if (!ipt_field_cpuset(t, r, f, &set))
				fz_sink += ipt_cpuset_weight(&set);
			ipt_cpuset_free(&set);
		}
	}
}

static bool has_mask(const struct ipt_event *ev)
{
	for (int i = 0; i < ipt_event_nfields(ev); i++)
		if (ipt_field_flags(ipt_event_field_at(ev, i)) & IPT_FIELD_CPUMASK)
			return true;
	return false;
}

/* fz_records - iterate (all CPUs or one) and render every record */
static void fz_records(struct ipt_trace *t, const struct ipt_cpuset *cpus, bool render,
		       unsigned int max)
{
	static const char *const evf_exprs[] = {
		"CPU == 0 || COMM ~ \"*a*\" || common_pid > 0",
		"cpumask & CPUS{1} || callsite.function ~ \"*ttwu*\" || callback == 0",
		"cpu == 1 || target_cpus & CPUS{0-2} || reason ~ \"R*\" || func.function == \"x\"",
	};
	struct ipt_event_filter *evf[ARRAY_SIZE(evf_exprs)] = { NULL };
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	struct ipt_iter *it = ipt_iter_new(t, cpus);
	struct ipt_record rec;
	unsigned int n = 0;

	if (!it)
		return;
	/* event filters (dump --filter); a name no event has makes one fail */
	for (size_t k = 0; render && k < ARRAY_SIZE(evf_exprs); k++)
		evf[k] = ipt_event_filter_new(t, evf_exprs[k]);
	while (n++ < max && ipt_iter_next(it, &rec) > 0) {
		int pid = ipt_record_pid(t, &rec);

		fz_touch(ipt_trace_comm(t, pid));
		if (!render)
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(evf_exprs); k++)
			if (evf[k])
				fz_sink += (size_t)ipt_event_filter_match(evf[k], &rec);
		ipt_strbuf_reset(&sb);
		ipt_render_record(t, &rec, 0, &sb);
		fz_touch(ipt_strbuf_str(&sb));
		ipt_strbuf_reset(&sb);
		ipt_render_record(t, &rec, IPT_RENDER_RAW, &sb);
		fz_touch(ipt_strbuf_str(&sb));
		if (rec.event && has_mask(rec.event)) {
			ipt_strbuf_reset(&sb);
			ipt_render_fields(t, &rec, IPT_RENDER_MASK_HEX, &sb);
			fz_touch(ipt_strbuf_str(&sb));
		}
		ipt_strbuf_reset(&sb);
		ipt_render_ts(t, rec.ts, &sb);
		fz_touch(ipt_strbuf_str(&sb));
		fz_fields(t, &rec);
	}
	ipt_iter_free(it);
	ipt_strbuf_free(&sb);
	for (size_t k = 0; k < ARRAY_SIZE(evf_exprs); k++)
		ipt_event_filter_free(evf[k]);
}

static void fz_ipi_rows(struct ipt_trace *t, const char *filter, unsigned int max)
{
	struct ipt_ipi_iter *ii = ipt_ipi_iter_new(t, filter);
	struct ipt_ipi_iter *par = ipt_ipi_iter_new(t, filter);	/* 3 lanes */
	struct ipt_ipi_row row, prow;
	unsigned int n = 0;

	if (!ii || !par) {
		ipt_ipi_iter_free(ii);
		ipt_ipi_iter_free(par);
		return;
	}
	ipt_ipi_iter_set_threads(par, 3);
	for (;;) {
		int a = n++ < max ? ipt_ipi_next(ii, &row) : 0;
		int b = a > 0 ? ipt_ipi_next(par, &prow) : a;

		/* the same rows, in the same order, with the same ids */
		if (a != b || (a > 0 && (row.ts != prow.ts || row.id != prow.id ||
					 row.src_cpu != prow.src_cpu ||
					 row.target_cpu != prow.target_cpu || row.kind != prow.kind ||
					 row.func != prow.func || row.callsite != prow.callsite)))
			abort();
		if (a <= 0)
			break;
		fz_touch(row.comm);
		fz_touch(row.event);
		fz_touch(row.callsite_sym);
		fz_touch(row.callback_sym);
		fz_touch(row.func_sym);
		fz_touch(row.reason);
		fz_touch(ipt_kind_name(row.kind));
		if (row.targets)
			fz_sink += ipt_cpuset_weight(row.targets);
		fz_sink += (size_t)row.target_cpu + (size_t)row.src_cpu + row.ntargets;
	}
	fz_sink += ipt_ipi_iter_stats(ii)->rows;
	ipt_ipi_iter_free(ii);
	ipt_ipi_iter_free(par);
}

/* fz_report_run - the report engine with that many threads; -1 on error,
 * else a digest of its counts (the same for any number of threads) */
static int fz_report_run(struct ipt_trace *t, int threads, uint64_t digest[8])
{
	struct ipt_cpuset iso = IPT_CPUSET_INIT;
	struct rpt_opts ro = { 0 };
	struct rpt r;
	size_t n;
	int ret;

	ipt_cpuset_init(&iso);
	for (unsigned int c = 0; c < 4; c++)
		ipt_cpuset_add(&iso, c);
	ro.isolated = &iso;
	ro.assume_synced_clock = true;
	ro.threads = threads;
	memset(&r, 0, sizeof(r));
	ret = ipt_rpt_run(&r, t, &ro);
	if (!ret) {
		struct rpt_entry *e = ipt_cpumap_sorted(&r.senders, &n);

		free(e);
		e = ipt_cpumap_sorted(&r.pairs, &n);
		free(e);
		e = ipt_cmap_sorted(&r.matrix, &n);
		free(e);
		const struct ipt_match_results *mr = ipt_match_results(r.match);

		fz_sink += r.rows + r.niso;
		digest[0] = r.rows;
		digest[1] = r.rows_counted;
		digest[2] = r.events;
		digest[3] = r.niso;
		digest[4] = mr->remote_matched;
		digest[5] = r.senders.h.n * 1000003 + r.pairs.h.n * 1009 + r.matrix.h.n;
		digest[6] = mr->unmatched.no_handler + 7 * mr->unmatched.trace_ended +
			    49 * mr->unmatched.lost_events +
			    343 * mr->unmatched.no_receive_events;
		digest[7] = r.niso ? r.iso[r.niso - 1].id + 31 * r.iso[r.niso - 1].nstack : 0;
	}
	ipt_rpt_free(&r);
	ipt_cpuset_free(&iso);
	return ret;
}

/* fz_report - one thread and 3 parallel lanes must agree */
static void fz_report(struct ipt_trace *t)
{
	uint64_t a[8] = { 0 }, b[8] = { 0 };
	int ra = fz_report_run(t, 1, a), rb = fz_report_run(t, 3, b);

	if (ra != rb || memcmp(a, b, sizeof(a)))
		abort();
}

/* fz_same_match - the row results of two reports agree (abort if not) */
static void fz_same_match(const struct ipt_row_match *a, const struct ipt_row_match *b)
{
	if (a->known != b->known || a->matched != b->matched || a->coalesced != b->coalesced ||
	    a->unmatched != b->unmatched || a->has_latency != b->has_latency ||
	    a->latency_ns != b->latency_ns || a->has_handler != b->has_handler ||
	    a->handler_ns != b->handler_ns || a->has_handler_ts != b->has_handler_ts ||
	    a->handler_ts_ns != b->handler_ts_ns || !a->stack != !b->stack ||
	    (a->stack && a->stack->nframes != b->stack->nframes))
		abort();
}

/* the rows a report hands to on_row (targets left out: not kept) */
struct fz_rowv {
	struct ipt_ipi_row *v;
	size_t n, cap;
};

static int fz_keep_row(void *ctx, const struct ipt_ipi_row *row)
{
	struct fz_rowv *rv = ctx;

	if (rv->n == rv->cap) {
		size_t cap = rv->cap ? rv->cap * 2 : 64;
		struct ipt_ipi_row *v = realloc(rv->v, cap * sizeof(*v));

		if (!v)
			return -1;
		rv->v = v;
		rv->cap = cap;
	}
	rv->v[rv->n] = *row;
	rv->v[rv->n++].targets = NULL;
	return 0;
}

static bool fz_same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* fz_same_row - a row of on_row is the iterator's, field by field */
static void fz_same_row(const struct ipt_ipi_row *a, const struct ipt_ipi_row *b)
{
	if (a->ts != b->ts || a->id != b->id || a->src_cpu != b->src_cpu || a->target_cpu != b->target_cpu ||
	    a->pid != b->pid || a->ntargets != b->ntargets || a->callsite != b->callsite ||
	    a->callsite_off != b->callsite_off || a->callback != b->callback || a->func != b->func ||
	    a->kind != b->kind || !fz_same_str(a->comm, b->comm) || !fz_same_str(a->event, b->event) ||
	    !fz_same_str(a->callsite_sym, b->callsite_sym) || !fz_same_str(a->callback_sym, b->callback_sym) ||
	    !fz_same_str(a->func_sym, b->func_sym) || !fz_same_str(a->reason, b->reason))
		abort();
}

/* fz_public_report - the public report: groups by every key, folded
 * stacks, interrupts without a send, kernel counters, provenance, and the
 * per-row results walked as convert walks them; a report without tables
 * (no_tables) must have none, the same counts and the same row results */
static void fz_public_report(struct ipt_trace *t)
{
	struct fz_rowv rv = { 0 };
	struct ipt_report_opts o = { .sz = sizeof(o), .row_results = true, .threads = 1 };
	/* and in three lanes, handing its rows out: those are the iterator's */
	struct ipt_report_opts on = { .sz = sizeof(on), .row_results = true, .threads = 3, .no_tables = true,
				      .on_row = fz_keep_row, .on_row_ctx = &rv };
	struct ipt_report *r = ipt_report_run(t, &o), *rn = r ? ipt_report_run(t, &on) : NULL;
	struct ipt_row_match mn;
	size_t k = 0;
	int rc = -1;
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	struct ipt_ipi_iter *it;
	struct ipt_ipi_row row;
	struct ipt_row_match m;
	char buf[256];
	size_t n;

	fz_touch(ipt_trace_provenance(t, "recorder_pids", buf, sizeof(buf)));
	fz_touch(ipt_trace_irq_desc(t, "RES"));
	fz_sink += (size_t)ipt_trace_irq_count(t, IPT_IRQ_TRACING_ON, "CAL", 0);
	if (!r)
		return;
	for (int by = 0; by < IPT_BY__COUNT; by++)
		for (int c = -1; c < ipt_report_summary(r)->ncpus && c < 8; c++)
			if (ipt_report_groups(r, (enum ipt_group_by)by, c, (enum ipt_group_sort)(c & 1), &n))
				fz_sink += n;
	if (!ipt_report_folded(r, -1, &sb, NULL))
		fz_sink += sb.len;
	ipt_strbuf_free(&sb);
	ipt_report_unsent(r, &n);
	fz_sink += n;
	ipt_report_kernel_irqs(r, &n);
	fz_sink += n;
	if (rn) {
		const struct ipt_report_summary *a = ipt_report_summary(r), *b = ipt_report_summary(rn);

		if (a->ipis != b->ipis || a->ipis_counted != b->ipis_counted || a->send_events != b->send_events ||
		    (ipt_report_senders(rn, &n), n) || (ipt_report_pairs(rn, &n), n))
			abort();
	}
	if ((it = ipt_ipi_iter_new(t, NULL))) {
		while ((rc = ipt_ipi_next(it, &row)) > 0 && !ipt_report_row_match(r, &row, &m)) {
			fz_sink += m.matched + (m.stack ? m.stack->nframes : 0);
			if (rn) {
				if (ipt_report_row_match(rn, &row, &mn) || k >= rv.n)
					abort();
				fz_same_match(&m, &mn);
				/* by index: the k-th counted row */
				if (ipt_report_row_match_nth(rn, k, &row, &mn))
					abort();
				fz_same_match(&m, &mn);
				fz_same_row(&rv.v[k++], &row);
			}
		}
		ipt_ipi_iter_free(it);
	}
	if (rn && rc == 0 && k != rv.n)
		abort();	/* every row was handed out, none more */
	free(rv.v);
	ipt_report_free(r);
	ipt_report_free(rn);
}

/* fz_dump_run - the whole dump with that many threads into out, its
 * last return and error message into err */
static int fz_dump_run(struct ipt_trace *t, int threads, unsigned int flags, struct ipt_strbuf *out,
		       char *err, size_t errlen)
{
	struct ipt_dump_opts o = { .sz = sizeof(o), .flags = flags, .threads = threads, .drop_lines = true };
	struct ipt_dump *d = ipt_dump_new(t, &o);
	const char *text;
	size_t len;
	int r;

	if (!d)
		return -2;
	while ((r = ipt_dump_next(d, &text, &len)) > 0)
		ipt_strbuf_add(out, text, len);
	snprintf(err, errlen, "%s", r < 0 ? ipt_errmsg() : "");
	ipt_dump_free(d);
	return r;
}

/* fz_dump - a dump by one thread and by three (slices of time) must agree:
 * text, end and message (after fz_records: the task names learnt from
 * sched lines are all there, the same for both) */
static void fz_dump(struct ipt_trace *t, unsigned int flags)
{
	struct ipt_strbuf a = IPT_STRBUF_INIT, b = IPT_STRBUF_INIT;
	char ea[512], eb[512];
	int ra = fz_dump_run(t, 1, flags, &a, ea, sizeof(ea));
	int rb = fz_dump_run(t, 3, flags, &b, eb, sizeof(eb));

	if (ra != rb || a.len != b.len || (a.len && memcmp(a.buf, b.buf, a.len)) || strcmp(ea, eb)) {
		fprintf(stderr, "dump: 1 thread %d (%zu bytes, '%s') != 3 threads %d (%zu bytes, '%s')\n",
			ra, a.len, ea, rb, b.len, eb);
		abort();
	}
	fz_sink += a.len;
	ipt_strbuf_free(&a);
	ipt_strbuf_free(&b);
}

/* fz_spikes_check - a spike's rows read and its sums as documented
 * (ipitrace-private.h): abort otherwise */
static void fz_spikes_check(const struct ipt_spike *s)
{
	uint64_t listed = 0, ipi = 0;

	if (s->start_ns > s->ts_ns)
		abort();
	for (size_t k = 0; k < s->nipis; k++) {
		const struct ipt_spike_ipi *ip = &s->ipis[k];

		fz_touch(ip->comm);
		fz_touch(ip->callsite);
		fz_touch(ip->func);
		if (ip->entry_ns < s->start_ns || ip->entry_ns > s->ts_ns ||
		    (ip->noise >= 0 && ((size_t)ip->noise >= s->nnoise || s->noise[ip->noise].kind != IPT_SPIKE_NOISE_IRQ)))
			abort();
		ipi += ip->coalesced ? 0 : ip->handler_ns;
	}
	for (size_t j = 0; j < s->nnoise; j++) {
		const struct ipt_spike_noise *nz = &s->noise[j];

		fz_touch(nz->name);
		fz_touch(ipt_spike_noise_kind_name(nz->kind));
		if (nz->end_ns < s->start_ns || nz->end_ns > s->ts_ns || nz->counted_ns > nz->duration_ns ||
		    nz->counted_ns > nz->end_ns - s->start_ns || nz->before_window != (nz->counted_ns < nz->duration_ns) ||
		    (nz->ipi >= 0 && (size_t)nz->ipi >= s->nipis) || (j && nz->end_ns < s->noise[j - 1].end_ns))
			abort();
		listed = listed > UINT64_MAX - nz->counted_ns ? UINT64_MAX : listed + nz->counted_ns;
	}
	if (ipi != s->ipi_ns || (!s->noise_known && s->nnoise) || s->listed_ns != (s->noise_known ? listed : ipi) ||
	    s->over != (s->listed_ns > s->latency_ns) ||
	    (s->over ? s->unaccounted_ns != 0 || s->excess_ns != s->listed_ns - s->latency_ns :
		       s->excess_ns != 0 || s->unaccounted_ns != s->latency_ns - s->listed_ns))
		abort();
}

/* fz_spikes - explain's spikes: the worst per CPU, and a threshold */
static void fz_spikes(struct ipt_trace *t)
{
	struct ipt_spikes_opts o[2] = { { .sz = sizeof(o[0]), .worst = 3 },
					{ .sz = sizeof(o[0]), .threshold_ns = 1000 } };

	for (int i = 0; i < 2; i++) {
		struct ipt_spikes *sp = ipt_spikes_explain(t, &o[i]);

		for (size_t k = 0; k < ipt_spikes_count(sp); k++)
			fz_spikes_check(ipt_spikes_get(sp, k));
		fz_sink += ipt_spikes_count(sp);
		ipt_spikes_free(sp);
	}
}

/* fz_exercise - everything a consumer of an opened trace does */
static void fz_exercise(struct ipt_trace *t, unsigned int max)
{
	struct ipt_cpuset one = IPT_CPUSET_INIT;
	int ncpus;

	fz_sink += ipt_trace_kind(t) + ipt_trace_file_version(t) + ipt_trace_long_size(t) +
		   ipt_trace_big_endian(t) + ipt_trace_ts_in_ns(t);
	fz_touch(ipt_trace_path(t));
	fz_touch(ipt_trace_clock(t));
	fz_touch(ipt_trace_uname(t));
	fz_touch(ipt_trace_compression(t));
	ncpus = ipt_trace_ncpus(t);
	for (int c = -1; c <= ncpus && c < 64; c++)
		fz_touch(ipt_trace_cpustat(t, c));
	for (int i = 0; i < ipt_trace_nevents(t); i++) {
		const struct ipt_event *ev = ipt_trace_event_at(t, i);

		fz_touch(ipt_event_name(ev));
		fz_touch(ipt_event_system(ev));
		fz_touch(ipt_event_print_fmt(ev));
		fz_sink += (size_t)ipt_event_id(ev);
		if (ipt_trace_event_by_id(t, ipt_event_id(ev)) == NULL)
			fz_sink++;
	}
	fz_sink += ipt_trace_event_by_id(t, -1) != NULL;
	fz_sink += ipt_trace_event_by_id(t, 1 << 30) != NULL;
	fz_sink += ipt_trace_symbol_addr(t, "sched_ttwu_pending");

	fz_records(t, NULL, true, max);
	ipt_cpuset_init(&one);
	ipt_cpuset_add(&one, 0);
	fz_records(t, &one, false, max);
	ipt_cpuset_free(&one);
	/* every column looked up, and every row kept by the final ts >= 0 */
	fz_ipi_rows(t, "cpumask & CPUS{0-2} || callsite ~ \"*ttwu*\" || func == \"sched_ttwu_pending\" "
		       "|| (kind == \"tlb\" && !(src_cpu & CPUS{1})) || reason ~ \"Res*\" || comm ~ \"*a*\" "
		       "|| callback == 0 || event == \"ipi_raise\" || pid < 0 || ntargets > 1 || id == 3 "
		       "|| target_cpu == 0 || cpu > 7 || ts >= 0",
		    max);
	fz_report(t);
	fz_public_report(t);
	fz_spikes(t);
	fz_dump(t, 0);
	fz_dump(t, IPT_RENDER_RAW);
}

#endif
