// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * text_load.c - text traces: `trace-cmd report` output and tracefs
 * `trace` text, read line by line
 *
 * Text traces become the same model as binary ones, so that every later
 * stage has one decode path: each known event gets its real kernel format
 * (text_events.c), each line becomes the binary record the kernel would
 * have written, and the records go through the page writer into one
 * stream of ring-buffer pages per CPU.
 *
 * Accepted line shapes (leading blanks, mail quoting "> " and a trailing
 * CR are ignored):
 *
 *   report:    "   comm-pid   [CPU]  secs.usecs: event:   fields"
 *   report -l: "   comm-pid   CPUflags  secs.usecs: event:   fields"
 *   tracefs:   "   comm-pid   [CPU] flags  secs.usecs: event: fields"
 *              "   comm-pid   ( tgid) [CPU] flags  secs.usecs: ..."
 *   buffers:   "NAME: " before the line of an instance buffer (report)
 *   timerlat:  "... secs.usecs: #SEQ context irq|thread timer_latency N ns"
 *              (tracefs's form of the tracer's samples: no event name)
 *   osnoise:   "... secs.usecs: RUNTIME NOISE %CPU MAX HW NMI IRQ SIRQ THREAD" 
 *   stacks:    "=> sym (addr)" / " => sym" lines after a kernel_stack line
 *              (tracefs writes "<stack trace>" instead of "kernel_stack:")
 *   headers:   "cpus=N", "version = N", "# ..." comments ("#P:N" gives the
 *              CPU count), "CPU:N [EVENTS DROPPED]", "CPU:N [LOST N EVENTS]"
 *
 * Any other line is skipped and counted.  A line that has the shape of an
 * event line (comm-pid, CPU, then a number) but cannot be parsed is an
 * error naming the byte offset of the line.
 */
#include "input/text.h"

#include <stdio.h>
#include <stdlib.h>

static int set_comm(struct tx *x, const struct line *ln)
{
	const char *old;

	if (ln->pid == 0 || !ln->comm_len || (ln->comm_len == 5 && !memcmp(ln->comm, "<...>", 5)))
		return 0;
	old = ipt_comms_get(&x->t->comms, ln->pid);
	if (old) {
		if (strlen(old) == ln->comm_len && !memcmp(old, ln->comm, ln->comm_len))
			return 0;
		/* report -l cuts names to 8 characters: keep the longer one */
		if (ln->latency && !strncmp(old, ln->comm, ln->comm_len))
			return 0;
	}
	return ipt_comms_set(&x->t->comms, ln->pid, ln->comm, ln->comm_len);
}

static int event_line(struct tx *x, struct line *ln)
{
	const char *name = ln->name;
	size_t nlen = ln->name_len;
	const char *f = ln->f, *fe = ln->fe;
	const struct einfo *ei;
	int idx, r = 0, wid;

	if (!x->first_seen) {
		x->first_seen = true;
		x->first_flags = ln->has_flags && !ln->latency;
	}
	if (ln->cpu > x->max_cpu)
		x->max_cpu = ln->cpu;
	wid = ln->buf * IPT_CPUSET_MAX + ln->cpu;
	/*
	 * Text keeps microseconds; trace-cmd printed the lines in nanosecond
	 * order.  Lines with the same microsecond stay in the file's order
	 * (across CPUs too): the n-th one after the first gets n ns more.
	 */
	if (ln->ts == x->prev_line_ts && ln->ts % 1000 == 0 && x->nevents) {
		if (x->same_ts < 999)
			x->same_ts++;
		ln->ts += x->same_ts;
	} else {
		x->prev_line_ts = ln->ts;
		x->same_ts = 0;
	}
	if (!name) {
		if (starts(f, fe, "<stack trace")) {
			name = "kernel_stack";
			nlen = 12;
			f = fe;
		} else if (starts(f, fe, "<user stack trace")) {
			name = "user_stack";
			nlen = 10;
		} else if (starts(f, fe, "#") && find(f, fe, " timer_latency ")) {
			name = "timerlat";	/* tracefs prints timerlat's samples so */
			nlen = 8;
		} else if (ipt_text_osnoise_columns(f, fe)) {
			name = "osnoise";	/* and osnoise's summaries so */
			nlen = 7;
		} else if (find(f, fe, " <-")) {
			name = "function";
			nlen = 8;
		} else {
			return ipt_err_at(x->t->path, x->line_off, "no event name after the timestamp");
		}
	}
	if (ipt_text_kprobe_event(x, name, nlen, f, fe) || ipt_text_event_for(x, name, nlen, &idx))
		return -1;
	if (set_comm(x, ln))
		return -1;
	ei = &x->ei[idx];
	if (rec_begin(x, ei, ln))
		return -1;
	switch (ei->kind) {
	case EK_KV:
		r = ipt_text_fields_kv(x, ei, f, fe);
		break;
	case EK_SWITCH:
		r = ipt_text_fields_switch(x, ei, f, fe);
		break;
	case EK_WAKEUP:
		r = ipt_text_fields_wakeup(x, ei, f, fe);
		break;
	case EK_RAISE:
		r = ipt_text_fields_raise(x, ei, f, fe);
		break;
	case EK_REASON:
		r = ipt_text_fields_reason(x, ei, f, fe);
		break;
	case EK_TIMERLAT:
		r = ipt_text_fields_timerlat(x, ei, f, fe);
		break;
	case EK_NOISE:
		r = ipt_text_fields_noise(x, ei, f, fe);
		break;
	case EK_OSNOISE:
		r = ipt_text_fields_osnoise(x, ei, f, fe);
		break;
	case EK_KPROBE:
		r = ipt_text_fields_kprobe(x, ei, f, fe);
		break;
	case EK_STACK:
	case EK_TEXT:
		x->pending = true;
		x->pend_cpu = wid;
		x->pend_ts = ln->ts;
		x->pend_ei = idx;
		x->pend_n = 0;
		x->pend_str = x->rlen;
		if (ei->kind == EK_TEXT) {
			size_t n = (size_t)(fe - f);

			if (n > MAX_PAYLOAD - 2 - x->rlen)
				n = MAX_PAYLOAD - 2 - x->rlen;
			if (rec_reserve(x, x->rlen + (uint32_t)n + 1))
				return -1;
			memcpy(x->rec + x->rlen, f, n);
			x->rlen += (uint32_t)n;
		}
		return 0;
	}
	if (r)
		return -1;
	return ipt_text_emit(x, wid, ln->ts);
}

static int do_line(struct tx *x, const char *s, const char *e)
{
	const char *p;
	struct line ln;
	const char *why;
	bool raw;
	int r;

	e = rtrim(s, e);
	p = ipt_text_unquote(s, e);
	p = skip_blanks(p, e);
	if (p >= e)
		return 0;
	if (starts(p, e, "=>")) {
		if (x->pending)
			return ipt_text_continuation(x, p, e);
		goto skip;
	}
	if (starts(p, e, "CPU:")) {
		bool handled;

		if (ipt_text_dropped_line(x, p, e, &handled))
			return -1;
		if (handled)
			return 0;
	}
	if (ipt_text_header_line(x, p, e))
		return 0;
	r = ipt_text_buffer_prefix(x, p, e, &ln, &raw);
	if (r < 0)
		return -1;
	if (!r)
		r = ipt_text_parse_prefix(p, e, &ln, &raw, &why);
	if (r == LP_BAD)
		return ipt_err_at(x->t->path, x->line_off, "%s in '%.*s'", why,
				  (int)(e - p > 80 ? 80 : e - p), p);
	if (r == LP_NO) {
		if (!x->layout && (x->layout = ipt_text_unreadable_layout(p, e)))
			x->layout_off = x->line_off;
		goto skip;
	}
	if (raw)
		x->raw_ts = true;
	if (ipt_text_flush_pending(x))
		return -1;
	return event_line(x, &ln);
skip:
	if (ipt_text_flush_pending(x))
		return -1;
	if (!x->skipped)
		x->first_skipped = x->line_off;
	x->skipped++;
	return 0;
}

/* finish - the pages, symbols and what the text said of itself into the trace */
static int finish(struct tx *x)
{
	struct ipt_trace *t = x->t;
	char note[160];

	if (ipt_text_flush_pending(x))
		return -1;
	if (!x->nevents && x->layout)
		return ipt_err_at(t->path, x->layout_off,
				  !strcmp(x->layout, "context-info") ?
				  "tracefs text written with the trace option context-info off: its lines name no task, CPU or time; write it with context-info on" :
				  "tracefs text written with the trace option %s on: its records are not printed as fields; write it with %s off",
				  x->layout, x->layout);
	for (int wid = 0; wid < x->ncw; wid++) {
		struct cpuw *w = x->cw[wid];
		int cpu = wid % IPT_CPUSET_MAX;
		struct ipt_cpu_stream *s;

		if (!w)
			continue;
		if (ipt_page_writer_finish(&w->pw))
			return -1;
		if (!w->pw.out.len)
			continue;
		s = ipt_trace_add_buffer_stream(t, wid / IPT_CPUSET_MAX, cpu);
		if (!s)
			return -1;
		s->owned = (uint8_t *)w->pw.out.buf;
		s->data = s->owned;
		s->size = w->pw.out.len;
		w->pw.out.buf = NULL;
		w->pw.out.len = w->pw.out.cap = 0;
	}
	if (ipt_symtab_sort(&t->ksyms) || ipt_symtab_sort(&t->printk))
		return -1;
	t->cpucount = x->nr_cpus;
	t->kind = (x->saw_tracer || (x->first_flags && !x->saw_cpus)) ? IPT_INPUT_TRACEFS_TEXT
									 : IPT_INPUT_REPORT_TEXT;
	t->version = 0;
	{
		char *clock = ipt_strdup(x->raw_ts ? "counter" : x->clock);

		if (!clock)
			return -1;
		free(t->clock);
		t->clock = clock;
	}
	snprintf(note, sizeof(note), "%llu events, %llu lines skipped (first at offset %lld), %llu timestamps raised",
		 (unsigned long long)x->nevents, (unsigned long long)x->skipped,
		 x->skipped ? x->first_skipped : -1LL, (unsigned long long)x->raised);
	t->lines_skipped = x->skipped;
	t->first_skipped = x->skipped ? x->first_skipped : -1;
	free(t->scratch);
	t->scratch = ipt_strdup(note);
	if (!t->scratch)
		return -1;
	return ipt_trace_finish_events(t) || ipt_trace_apply_probes(t) ? -1 : 0;
}

/* release - the reader's own memory (the trace keeps the pages) */
static void release(struct tx *x)
{
	for (int i = 0; i < x->ncw; i++) {
		if (!x->cw[i])
			continue;
		ipt_page_writer_free(&x->cw[i]->pw);
		free(x->cw[i]);
	}
	free(x->cw);
	free(x->ei);
	ipt_hmap_free(&x->evmap.h);
	ipt_hmap_free(&x->symmap.h);
	ipt_hmap_free(&x->reasonmap.h);
	free(x->syn);
	ipt_hmap_free(&x->real.h);
	free(x->rec);
}

int ipt_text_load(struct ipt_trace *t)
{
	struct tx *x = ipt_calloc(1, sizeof(*x));
	const char *s, *end;
	int r = 0;

	if (!x)
		return -1;
	x->t = t;
	x->buf = (const char *)t->map;
	x->len = t->map_size;
	x->sym_top = SYM_TOP;
	x->max_cpu = -1;
	t->version = 0;
	t->big_endian = false;
	t->long_size = 8;
	t->kernel_long_size = 8;
	t->page_size = 4096;
	ipt_page_layout_default(&t->layout, 4096, 8);
	s = x->buf;
	end = x->buf + x->len;
	while (s < end) {
		const char *e = memchr(s, '\n', (size_t)(end - s));

		if (!e)
			e = end;
		x->line_off = (long long)(s - x->buf);
		if (memchr(s, 0, (size_t)(e - s))) {
			r = ipt_err_at(t->path, x->line_off, "NUL byte in a text trace");
			break;
		}
		if (do_line(x, s, e)) {
			r = -1;
			break;
		}
		s = e + 1;
	}
	if (!r)
		r = finish(x);
	release(x);
	free(x);
	return r;
}
