// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * explode.c - a trace.dat rewritten with one event per IPI target
 * (ipt_explode, declared in ipitrace.h)
 *
 * Every ipi:ipi_send_cpumask event becomes one ipi:ipi_send_cpu event per
 * CPU in its mask (same time, common fields, call site and callback), and
 * every arm64 ipi:ipi_raise event becomes one ipi_raise event per target
 * whose mask holds only that CPU.  Everything else is copied unchanged, so
 * that trace-cmd can then filter on single CPUs:
 *   trace-cmd report -F 'ipi_send_cpu: cpu == 5' OUT.dat
 * The target fields are the IPI catalogue's.
 */
#include "core/core.h"
#include "ringbuf/ringbuf.h"
#include "ipi/catalogue.h"
#include "output/tracedat_write.h"

#include <stdlib.h>

struct exploder {
	struct ipt_trace *t;
	const struct ipt_event *mask_ev, *cpu_ev, *raise_ev;
	const struct ipt_field *m_mask, *m_callsite, *m_callback;
	const struct ipt_field *c_cpu, *c_callsite, *c_callback;
	const struct ipt_field *r_mask;
	uint8_t *buf;
	size_t cap;
	struct ipt_explode_stats st;
};

/* scratch - n zeroed bytes of the exploder's buffer */
static uint8_t *scratch(struct exploder *x, size_t n)
{
	if (IPT_GROW(x->buf, x->cap, n))
		return NULL;
	memset(x->buf, 0, n);
	return x->buf;
}

/* payload_size - bytes an event of ev needs (fields end, 4-aligned) */
static size_t payload_size(const struct ipt_event *ev)
{
	size_t end = 8;

	for (int i = 0; i < ev->nfields; i++) {
		size_t e = ev->fields[i].offset + ev->fields[i].size;

		if (e > end)
			end = e;
	}
	return (end + 3) & ~(size_t)3;
}

/* put_field - store v in field f of the payload at p */
static void put_field(const struct ipt_trace *t, uint8_t *p, const struct ipt_field *f, uint64_t v)
{
	ipt_put_uint(p + f->offset, f->size, t->big_endian, v);
}

/* explode_mask - one ipi_send_cpu payload per CPU of an ipi_send_cpumask */
static int explode_mask(struct exploder *x, struct ipt_page_writer *pw, const struct ipt_record *r)
{
	struct ipt_cpuset set = IPT_CPUSET_INIT;
	size_t n = payload_size(x->cpu_ev);
	uint64_t callsite = 0, callback = 0;
	int ret = 0;

	if (ipt_field_cpuset(x->t, r, x->m_mask, &set)) {
		ipt_cpuset_free(&set);
		return -1;
	}
	if (x->m_callsite)
		ipt_field_u64(x->t, r, x->m_callsite, &callsite);
	if (x->m_callback)
		ipt_field_u64(x->t, r, x->m_callback, &callback);
	x->st.masks++;
	for (int c = ipt_cpuset_next(&set, 0); c >= 0 && !ret; c = ipt_cpuset_next(&set, (unsigned int)c + 1)) {
		uint8_t *p = scratch(x, n);

		if (!p) {
			ret = ipt_err_code(IPT_ERR_NOMEM, "out of memory");
			break;
		}
		memcpy(p, r->data, 8);	/* common_type, flags, preempt_count, pid */
		ipt_put_uint(p, 2, x->t->big_endian, (uint64_t)x->cpu_ev->id);
		put_field(x->t, p, x->c_cpu, (uint64_t)c);
		if (x->c_callsite)
			put_field(x->t, p, x->c_callsite, callsite);
		if (x->c_callback)
			put_field(x->t, p, x->c_callback, callback);
		ret = ipt_page_writer_add(pw, r->ts, p, (uint32_t)n);
		x->st.singles++;
		x->st.events_out++;
	}
	ipt_cpuset_free(&set);
	return ret;
}

/* explode_raise - one ipi_raise per target, its bitmask holding that CPU only */
static int explode_raise(struct exploder *x, struct ipt_page_writer *pw, const struct ipt_record *r)
{
	struct ipt_cpuset set = IPT_CPUSET_INIT;
	const uint8_t *mask;
	uint32_t mlen;
	int ret = 0;

	if (ipt_field_bytes(x->t, r, x->r_mask, &mask, &mlen) || ipt_field_cpuset(x->t, r, x->r_mask, &set)) {
		ipt_cpuset_free(&set);
		return -1;
	}
	x->st.masks++;
	for (int c = ipt_cpuset_next(&set, 0); c >= 0 && !ret; c = ipt_cpuset_next(&set, (unsigned int)c + 1)) {
		uint8_t *p = scratch(x, r->size);
		size_t moff = (size_t)(mask - r->data);
		unsigned int ws = (unsigned int)x->t->kernel_long_size;

		if (!p) {
			ret = ipt_err_code(IPT_ERR_NOMEM, "out of memory");
			break;
		}
		memcpy(p, r->data, r->size);
		memset(p + moff, 0, mlen);
		if ((size_t)c / 8 < mlen)
			ipt_put_uint(p + moff + (size_t)c / (ws * 8) * ws, ws, x->t->big_endian,
				     1ULL << (c % (ws * 8)));
		ret = ipt_page_writer_add(pw, r->ts, p, r->size);
		x->st.singles++;
		x->st.events_out++;
	}
	ipt_cpuset_free(&set);
	return ret;
}

/* pages handed to the writer at a time: the memory explode needs does not
 * grow with the output (a mask of 8192 CPUs makes 8192 events) */
#define HAND_OVER (1u << 20)

/* hand_over - the finished pages of pw to the writer, for CPU cpu */
static int hand_over(struct ipt_page_writer *pw, struct ipt_tdw *w, int cpu)
{
	if (!pw->out.len)
		return 0;
	if (ipt_tdw_add_cpu_pages(w, cpu, pw->out.buf, pw->out.len))
		return -1;
	pw->out.len = 0;
	return 0;
}

/* explode_cpu - rewrite one CPU's stream into pages */
static int explode_cpu(struct exploder *x, const struct ipt_cpu_stream *s, struct ipt_tdw *w)
{
	struct ipt_page_reader pr;
	struct ipt_page_writer pw;
	struct ipt_record r;
	int ret;

	if (ipt_page_writer_init(&pw, &x->t->layout, x->t->big_endian))
		return -1;
	ipt_page_reader_init(&pr, x->t, s);
	pr.raw_ts = true;	/* the output keeps the input's clock and its TSC2NSEC */
	while ((ret = ipt_page_reader_next(&pr, &r)) > 0) {
		x->st.events_in++;
		if (x->mask_ev && r.event == x->mask_ev && x->cpu_ev)
			ret = explode_mask(x, &pw, &r);
		else if (x->raise_ev && r.event == x->raise_ev)
			ret = explode_raise(x, &pw, &r);
		else {
			ret = ipt_page_writer_add(&pw, r.ts, r.data, r.size);
			x->st.events_out++;
		}
		if (!ret && pw.out.len >= HAND_OVER)
			ret = hand_over(&pw, w, s->cpu);
		if (ret)
			break;
	}
	ipt_page_reader_release(&pr);
	if (!ret)
		ret = ipt_page_writer_finish(&pw);
	if (!ret)	/* a CPU without a page still has its (empty) data */
		ret = pw.out.len ? hand_over(&pw, w, s->cpu) : ipt_tdw_add_cpu_pages(w, s->cpu, NULL, 0);
	ipt_page_writer_free(&pw);
	return ret;
}

/* copy_meta - everything but the per-CPU data, as stored in the input
 * (kallsyms: this text instead, if given) */
static int copy_meta(struct ipt_trace *t, struct ipt_tdw *w, const char *creator,
		     const struct ipt_strbuf *kallsyms)
{
	if (ipt_tdw_set_headers(w, t->raw_header_page.buf ? t->raw_header_page.buf : "",
				t->raw_header_page.len,
				t->raw_header_event.buf ? t->raw_header_event.buf : "",
				t->raw_header_event.len))
		return -1;
	for (int i = 0; i < t->nraw_formats; i++) {
		const struct ipt_raw_format *f = &t->raw_formats[i];
		int r = !strcmp(f->system, "ftrace") ?
			ipt_tdw_add_ftrace_format(w, f->text, f->len) :
			ipt_tdw_add_event_format(w, f->system, f->text, f->len);

		if (r)
			return -1;
	}
	if (kallsyms) {
		if (kallsyms->len && ipt_tdw_set_kallsyms(w, kallsyms->buf, kallsyms->len))
			return -1;
	} else {
		struct ipt_strbuf tmp = { 0 };
		const char *text;
		size_t len;
		int r = ipt_trace_kallsyms_text(t, &tmp, &text, &len);

		if (!r && len)
			r = ipt_tdw_set_kallsyms(w, text, len);
		ipt_strbuf_free(&tmp);
		if (r)
			return -1;
	}
	if ((t->raw_printk.len && ipt_tdw_set_printk(w, t->raw_printk.buf, t->raw_printk.len)) ||
	    (t->raw_cmdlines.len && ipt_tdw_set_cmdlines(w, t->raw_cmdlines.buf, t->raw_cmdlines.len)))
		return -1;
	if ((*t->clock && ipt_tdw_set_clock(w, t->clock)) ||
	    (*t->uname && ipt_tdw_set_uname(w, t->uname)) ||
	    ipt_tdw_set_version(w, creator) ||
	    ipt_tdw_set_cpucount(w, ipt_trace_ncpus(t)))
		return -1;
	for (int c = 0; c < t->ncpustat; c++)
		if (t->cpustat[c] && ipt_tdw_add_cpustat(w, c, t->cpustat[c]))
			return -1;
	if (t->tsc_mult) {
		uint8_t o[16];

		ipt_put_uint(o, 4, t->big_endian, t->tsc_mult);
		ipt_put_uint(o + 4, 4, t->big_endian, t->tsc_shift);
		ipt_put_uint(o + 8, 8, t->big_endian, 0);
		if (ipt_tdw_add_option(w, 14, o, sizeof(o)))	/* TSC2NSEC */
			return -1;
	}
	{
		static const uint16_t ids[] = { IPT_OPTION_CPU_ISOLATION, IPT_OPTION_PROVENANCE,
						IPT_OPTION_INTERRUPTS, IPT_OPTION_USER_SYMBOLS,
						IPT_OPTION_PROBES };
		const char *texts[] = { t->isolated_text, t->provenance_text, t->interrupts_text,
					ipt_usyms_text(t), t->probes_text };

		for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
			if (texts[i] && *texts[i] &&
			    ipt_tdw_add_option(w, ids[i], texts[i], (uint32_t)strlen(texts[i]) + 1))
				return -1;
	}
	return 0;
}

/*
 * send_event - the catalogue's IPI send event system:name of t and its
 * target field; in a trace whose probes stand for it, the probe (for
 * ipi_send_cpu the function-call one, which the exploded masks become)
 */
static const struct ipt_event *send_event(struct ipt_trace *t, const char *system, const char *name,
					  const struct ipt_field **target)
{
	const struct ipt_ipi_event_info *info = ipt_ipi_event_info(system, name);
	const struct ipt_event *ev = ipt_trace_find_event(t, system, name);

	for (int i = 0; !ev && i < t->nevents; i++)
		if (t->events[i].as_name && !strcmp(t->events[i].as_name, name) &&
		    (t->events[i].probe == IPT_PROBE_SEND_CALL || strcmp(name, "ipi_send_cpu")))
			ev = &t->events[i];

	*target = NULL;
	if (!ev || !info || info->role != IPT_ROLE_SEND || !info->target)
		return NULL;
	*target = ipt_event_field(ev, info->target);
	return *target ? ev : NULL;
}

/* rewrite - explode (or, with explode false, copy) t into out */
static int rewrite(struct ipt_trace *t, const char *out, const struct ipt_explode_opts *opts,
		   struct ipt_explode_stats *stats, bool explode, const struct ipt_strbuf *kallsyms)
{
	struct ipt_explode_opts o = { 0 };
	struct ipt_tdw_opts wo = { 0 };
	struct exploder x = { 0 };
	struct ipt_tdw *w;

	if (IPT_OPTS_COPY(o, opts, "explode"))
		return -1;
	if (!t || !out)
		return ipt_err_code(IPT_ERR_INVALID, "explode: no trace or no output");
	if (t->kind != IPT_INPUT_TRACEDAT)
		return ipt_err_code(IPT_ERR_INVALID, "%s: explode needs a trace.dat input", t->path);
	if (o.version && o.version != 6 && o.version != 7)
		return ipt_err_code(IPT_ERR_INVALID, "explode: no trace.dat version %d (6 or 7)", o.version);
	if (o.compression && !ipt_compression_supported(o.compression))
		return ipt_err_code(IPT_ERR_INVALID, "unknown compression '%s' (none, zstd, zlib)",
				    o.compression);
	x.t = t;
	if (explode) {
		x.mask_ev = send_event(t, "ipi", "ipi_send_cpumask", &x.m_mask);
		x.cpu_ev = send_event(t, "ipi", "ipi_send_cpu", &x.c_cpu);
		x.raise_ev = send_event(t, "ipi", "ipi_raise", &x.r_mask);
	}
	if (x.mask_ev) {
		x.m_callsite = ipt_event_field(x.mask_ev, "callsite");
		x.m_callback = ipt_event_field(x.mask_ev, "callback");
	}
	if (x.cpu_ev) {
		x.c_callsite = ipt_event_field(x.cpu_ev, "callsite");
		x.c_callback = ipt_event_field(x.cpu_ev, "callback");
	}
	wo.version = o.version ? o.version : 7;
	wo.compression = o.compression ? o.compression :
			 strcmp(t->compression, "none") ? t->compression : "zstd";
	if (wo.version == 6)
		wo.compression = "none";
	wo.big_endian = t->big_endian;
	wo.long_size = t->long_size;
	wo.page_size = t->layout.page_size;
	wo.no_replace = o.no_replace;
	w = ipt_tdw_open(out, &wo);
	if (!w || copy_meta(t, w, o.creator ? o.creator : "libipitrace " IPT_VERSION, kallsyms))
		goto fail;
	for (int i = 0; i < t->nstreams; i++)
		if (explode_cpu(&x, &t->streams[i], w))
			goto fail;
	/* the writer is freed by commit, whatever it returns */
	if (ipt_tdw_commit(w)) {
		w = NULL;
		goto fail;
	}
	if (stats)
		*stats = x.st;
	free(x.buf);
	return 0;
fail:
	ipt_tdw_abort(w);
	free(x.buf);
	return -1;
}

int ipt_explode(struct ipt_trace *t, const char *out, const struct ipt_explode_opts *opts,
		struct ipt_explode_stats *stats)
{
	return rewrite(t, out, opts, stats, true, NULL);
}

/* ipt_trace_rewrite - t copied into out, records as they are, with this
 * kallsyms text (tools/trim-syms: small fixtures) */
int ipt_trace_rewrite(struct ipt_trace *t, const char *out, const struct ipt_strbuf *kallsyms)
{
	struct ipt_explode_opts o = { .sz = sizeof(o) };

	return rewrite(t, out, &o, NULL, false, kallsyms);
}
