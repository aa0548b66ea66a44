// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * text_spikes.c - the latency tracers' lines of a text trace into their
 * records: timerlat's samples and the osnoise:* noise events
 *
 *   timerlat, tracefs:    "#12 context irq timer_latency 932 ns"
 *                         ("irq", "thread", or "user-ret"; blanks vary)
 *   timerlat, trace-cmd:  "seq:12<TAB>context:0<TAB>timer_latency:932"
 *                         (the print fmt of ftrace's own timerlat entry)
 *   irq_noise:            "local_timer:236 start 548.771077442 duration 7597 ns"
 *   thread_noise:         "    cc1:87882 start ... duration ... ns" (%8s:%d)
 *   softirq_noise:        "   TIMER:1 start ... duration ... ns"
 *   nmi_noise:            "start ... duration ... ns"
 *   sample_threshold:     "start ... duration ... ns interference 2"
 *                         (newer kernels: "interferences 2")
 *   osnoise (the tracer's per-period summary), tracefs:
 *                         "RUNTIME NOISE %CPU MAX_SINGLE HW NMI IRQ SIRQ THREAD"
 *                         (nine columns, the times in us, no event name)
 *   osnoise, trace-cmd:   "noise:N max_sample:N hw:N nmi:N irq:N softirq:N
 *                         thread:N" (its print fmt; no runtime)
 */
#include "input/text.h"

#include <stdio.h>

static int bad(struct tx *x, const struct einfo *ei, const char *s, const char *e)
{
	int n = (int)(e - s > 60 ? 60 : e - s);

	return ipt_err_at(x->t->path, x->line_off, "%s: cannot read '%.*s'", ei->name, n, s);
}

/* word - the next blank-separated word of [*p, e): [*w, *we), *p past it */
static bool word(const char **p, const char *e, const char **w, const char **we)
{
	const char *q = skip_blanks(*p, e);

	if (q >= e)
		return false;
	*w = q;
	while (q < e && !is_blank(*q))
		q++;
	*we = q;
	*p = q;
	return true;
}

/* is - [w, we) is lit */
static bool is(const char *w, const char *we, const char *lit)
{
	return (size_t)(we - w) == strlen(lit) && !memcmp(w, lit, (size_t)(we - w));
}

/* put - a number into the field name, if the event has it */
static void put(struct tx *x, const struct einfo *ei, const char *name, uint64_t v)
{
	const struct finfo *f = fld(ei, name);

	if (f)
		put_field(x, f->f, v);
}

/* context_value - "irq" 0, "thread" 1, "user-ret" 2, or a number */
static bool context_value(const char *w, const char *we, uint64_t *v)
{
	if (is(w, we, "irq"))
		*v = 0;
	else if (is(w, we, "thread"))
		*v = 1;
	else if (is(w, we, "user-ret"))
		*v = 2;
	else
		return parse_int(w, we, v);
	return true;
}

/* ipt_text_fields_timerlat - a timerlat sample in either text form */
int ipt_text_fields_timerlat(struct tx *x, const struct einfo *ei, const char *s, const char *e)
{
	const char *p = s, *w, *we;
	uint64_t seq, ctx, lat;

	e = rtrim(s, e);
	if (starts(skip_blanks(s, e), e, "#")) {
		/* "#SEQ context CTX timer_latency N ns" */
		if (!word(&p, e, &w, &we) || !parse_dec(w + 1, we, &seq) ||
		    !word(&p, e, &w, &we) || !is(w, we, "context") ||
		    !word(&p, e, &w, &we) || !context_value(w, we, &ctx) ||
		    !word(&p, e, &w, &we) || !is(w, we, "timer_latency") ||
		    !word(&p, e, &w, &we) || !parse_dec(w, we, &lat) ||
		    !word(&p, e, &w, &we) || !is(w, we, "ns") || skip_blanks(p, e) != e)
			return bad(x, ei, s, e);
	} else {
		/* "seq:SEQ context:CTX timer_latency:N" (blanks or tabs) */
		if (!word(&p, e, &w, &we) || !starts(w, we, "seq:") || !parse_dec(w + 4, we, &seq) ||
		    !word(&p, e, &w, &we) || !starts(w, we, "context:") ||
		    !context_value(w + 8, we, &ctx) ||
		    !word(&p, e, &w, &we) || !starts(w, we, "timer_latency:") ||
		    !parse_dec(w + 14, we, &lat) || skip_blanks(p, e) != e)
			return bad(x, ei, s, e);
	}
	if (seq > UINT32_MAX || ctx > INT32_MAX)
		return bad(x, ei, s, e);
	put(x, ei, "seqnum", seq);
	put(x, ei, "context", ctx);
	put(x, ei, "timer_latency", lat);
	return 0;
}

/* secs_ns - "S.NNNNNNNNN" (nine digits) as ns */
static bool secs_ns(const char *w, const char *we, uint64_t *v)
{
	const char *dot = find(w, we, ".");
	uint64_t sec, ns;

	if (!dot || we - dot != 10 || !parse_dec(w, dot, &sec) || !parse_dec(dot + 1, we, &ns) ||
	    sec > UINT64_MAX / 1000000000ULL - 1)
		return false;
	*v = sec * 1000000000ULL + ns;
	return true;
}

/* ipt_text_fields_noise - an osnoise:*_noise or sample_threshold line */
int ipt_text_fields_noise(struct tx *x, const struct einfo *ei, const char *s, const char *e)
{
	const char *st, *p, *w, *we;
	uint64_t start, dur, n;

	e = rtrim(s, e);
	s = skip_blanks(s, e);
	st = starts(s, e, "start ") ? s : find(s, e, " start ");
	if (!st)
		return bad(x, ei, s, e);
	if (st > s) {
		/* "NAME:NUM" before it: desc/comm and vector/pid; NAME may hold ':' */
		const char *ne = rtrim(s, st), *colon = ne;
		const struct finfo *f;

		while (colon > s && colon[-1] != ':')
			colon--;
		if (colon == s || !parse_int(colon, ne, &n))
			return bad(x, ei, s, e);
		put(x, ei, "vector", n);
		put(x, ei, "pid", n);
		if ((f = fld(ei, "desc")) &&
		    ipt_text_put_dyn(x, f->f, s, (uint32_t)(colon - 1 - s), true))
			return -1;
		if ((f = fld(ei, "comm")) && f->f->offset + f->f->size <= x->rlen) {
			size_t len = (size_t)(colon - 1 - s);

			if (len > f->f->size - 1)
				len = f->f->size - 1;
			memset(x->rec + f->f->offset, 0, f->f->size);
			memcpy(x->rec + f->f->offset, s, len);
		}
		st++;
	}
	p = st;
	if (!word(&p, e, &w, &we) || !is(w, we, "start") ||
	    !word(&p, e, &w, &we) || !secs_ns(w, we, &start) ||
	    !word(&p, e, &w, &we) || !is(w, we, "duration") ||
	    !word(&p, e, &w, &we) || !parse_dec(w, we, &dur) ||
	    !word(&p, e, &w, &we) || !is(w, we, "ns"))
		return bad(x, ei, s, e);
	put(x, ei, "start", start);
	put(x, ei, "duration", dur);
	if (word(&p, e, &w, &we)) {
		if (!(is(w, we, "interference") || is(w, we, "interferences")) ||
		    !word(&p, e, &w, &we) || !parse_dec(w, we, &n) || skip_blanks(p, e) != e)
			return bad(x, ei, s, e);
		put(x, ei, "interference", n);
	}
	return 0;
}

/* the summary's fields, in the order of trace-cmd's text */
static const char *const summary[] = {
	"noise", "max_sample", "hw_count", "nmi_count", "irq_count", "softirq_count", "thread_count",
};
static const char *const summary_key[] = { "noise:", "max_sample:", "hw:", "nmi:", "irq:", "softirq:", "thread:" };

/* ipt_text_osnoise_columns - [s, e) is tracefs's nine-column summary */
bool ipt_text_osnoise_columns(const char *s, const char *e)
{
	const char *p = s, *w, *we;
	int n = 0;

	while (word(&p, e, &w, &we)) {
		for (const char *c = w; c < we; c++)
			if (!is_digit(*c) && !(n == 2 && *c == '.'))
				return false;
		n++;
	}
	return n == 9;
}

/* ipt_text_fields_osnoise - the osnoise tracer's summary in either form */
int ipt_text_fields_osnoise(struct tx *x, const struct einfo *ei, const char *s, const char *e)
{
	const char *p = s, *w, *we;
	uint64_t v;

	e = rtrim(s, e);
	if (ipt_text_osnoise_columns(s, e)) {
		static const char *const cols[] = {
			"runtime", "noise", NULL, "max_sample", "hw_count", "nmi_count", "irq_count",
			"softirq_count", "thread_count",
		};

		for (int i = 0; i < 9 && word(&p, e, &w, &we); i++) {
			if (!cols[i])
				continue;	/* the % of CPU left, computed */
			if (!parse_dec(w, we, &v))
				return bad(x, ei, s, e);
			put(x, ei, cols[i], v);
		}
		return 0;
	}
	for (size_t i = 0; i < sizeof(summary) / sizeof(summary[0]); i++) {
		size_t kl = strlen(summary_key[i]);

		if (!word(&p, e, &w, &we) || (size_t)(we - w) <= kl || memcmp(w, summary_key[i], kl) ||
		    !parse_dec(w + kl, we, &v))
			return bad(x, ei, s, e);
		put(x, ei, summary[i], v);
	}
	return skip_blanks(p, e) == e ? 0 : bad(x, ei, s, e);
}
