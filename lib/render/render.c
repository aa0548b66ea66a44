// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * render.c - records as text, laid out like `trace-cmd report`
 *
 *   "%16s-%-5d [%03d] %5lu.%06lu: %-21s %s"  comm-pid [cpu] ts: event: fields
 *
 * Fields come from the event's print fmt (printfmt_*.c), from a built-in
 * handler for the events trace-cmd has plugins for (sched_switch,
 * sched_wakeup, ftrace kernel_stack), or, in raw mode, as name=value pairs
 * formatted with the conversion the print fmt uses for that field, as
 * libtraceevent's raw output does, except that CPU masks print as CPU lists.
 */
#include "render/render.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * ipt_render_sym - %pS style "sym+0xoff" (libtraceevent prints "+0x0" too),
 * %ps style "sym", or "0x<hex>" when no symbol covers addr
 */
int ipt_render_sym(const struct ipt_trace *t, uint64_t addr, bool with_offset,
		   struct ipt_strbuf *out)
{
	uint64_t off = 0;
	const char *name = ipt_trace_symbol(t, addr, &off);

	if (!name)
		return ipt_strbuf_add(out, "0x", 2) || ipt_strbuf_add_hex(out, addr);
	if (ipt_strbuf_adds(out, name))
		return -1;
	if (with_offset)
		return ipt_strbuf_add(out, "+0x", 3) || ipt_strbuf_add_hex(out, off);
	return 0;
}

/* ipt_trace_format_symbol - a symbol for tables: "sym+0xoff", "sym", "0x..." or "-" */
void ipt_trace_format_symbol(const struct ipt_trace *t, uint64_t addr, bool off, char *buf, size_t n)
{
	uint64_t o = 0;
	const char *s = addr ? ipt_trace_symbol(t, addr, &o) : NULL;

	if (!addr)
		snprintf(buf, n, "-");
	else if (!s)
		snprintf(buf, n, "0x%llx", (unsigned long long)ipt_trace_frame_address(t, addr));
	else if (off && addr != IPT_UFRAME_CUT && addr != IPT_UFRAME_SKIP)
		snprintf(buf, n, "%s+0x%llx", s, (unsigned long long)o);
	else
		snprintf(buf, n, "%s", s);
}

/* ipt_trace_format_function - a callback or csd function for tables: "sym",
 * "0x..." or IPT_NO_FUNCTION */
void ipt_trace_format_function(const struct ipt_trace *t, uint64_t addr, char *buf, size_t n)
{
	if (addr)
		ipt_trace_format_symbol(t, addr, false, buf, n);
	else
		snprintf(buf, n, "%s", IPT_NO_FUNCTION);
}

/*
 * put_text - n bytes at p, without a call to memcpy for the short texts
 * of a line's head (a comm, an event name): two overlapping copies
 */
static inline char *put_text(char *p, const char *s, size_t n)
{
	if (n >= 8 && n <= 16) {
		uint64_t a, b;

		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(p, &a, 8);
		memcpy(p + n - 8, &b, 8);
	} else if (n >= 4 && n < 8) {
		uint32_t a, b;

		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		memcpy(p, &a, 4);
		memcpy(p + n - 4, &b, 4);
	} else if (n < 4) {
		for (size_t i = 0; i < n; i++)
			p[i] = s[i];
	} else {
		memcpy(p, s, n);
	}
	return p + n;
}

/* put_blanks - n blanks at p: 32 bytes written whatever n up to 32 (one
 * copy, not a loop: the padding was a fifth of a line's head), so the
 * caller has room for 32 */
static inline char *put_blanks(char *p, size_t n)
{
	static const char blanks[32] = "                                ";

	if (n <= sizeof(blanks))
		memcpy(p, blanks, sizeof(blanks));
	else
		memset(p, ' ', n);
	return p + n;
}

/* ipt_render_ts - timestamp column: seconds.microseconds, rounded like libtraceevent */
int ipt_render_ts(const struct ipt_trace *t, uint64_t ts, struct ipt_strbuf *out)
{
	uint64_t usec;

	if (!ipt_trace_ts_in_ns(t))
		return ipt_strbuf_addf(out, "%12llu", (unsigned long long)ts);
	usec = (ts + 500) / 1000;
	{
		/*
		 * "%5llu.%06llu" of seconds and microseconds, written in place
		 * two digits at a time; the seconds, the same from one line to
		 * the next for a million microseconds, kept per thread
		 */
		static __thread uint64_t last_secs = UINT64_MAX;
		static __thread char secs_text[24];
		static __thread size_t secs_len;
		uint64_t secs = usec / 1000000;
		uint32_t f = (uint32_t)(usec - secs * 1000000);
		char *p;

		if (secs != last_secs) {
			char buf[24], *e = buf + sizeof(buf), *d = ipt_decimal(e, secs);

			while (e - d < 5)
				*--d = ' ';
			secs_len = (size_t)(e - d);
			memcpy(secs_text, d, secs_len);
			last_secs = secs;
		}
		if (ipt_strbuf_grow(out, secs_len + 8))
			return -1;
		p = out->buf + out->len;
		p = put_text(p, secs_text, secs_len);
		*p++ = '.';
		for (int i = 4; i >= 0; i -= 2) {
			memcpy(p + i, ipt_two_digits + 2 * (f % 100), 2);
			f /= 100;
		}
		out->len += secs_len + 7;
		out->buf[out->len] = 0;
		return 0;
	}
}

/* ---- raw mode: the conversion of each field in the print fmt ---- */

/*
 * field_conv - the printf conversion ("%pS", "%u", ...) that the print fmt
 * applies to a plain REC->name argument; "" if none.
 */
static void field_conv(const char *fmt, const char *name, char *conv, size_t size)
{
	const char *p = fmt, *q;
	int nconv = 0, argi = 0, want = -1;
	size_t nlen = strlen(name);

	conv[0] = 0;
	if (!p || *p != '"')
		return;
	/* the format string: find the closing quote (strings may be concatenated) */
	p++;
	q = p;
	while (*q && *q != '"') {
		if (*q == '\\' && q[1])
			q++;
		q++;
	}
	if (!*q)
		return;
	/* the arguments: top-level comma separated after the format string */
	{
		const char *a = q + 1;
		int depth = 0;

		while (*a && *a != ',')
			a++;
		while (*a == ',') {
			const char *s = ++a;
			const char *e;

			depth = 0;
			while (*a && !(depth == 0 && *a == ',')) {
				if (*a == '(' || *a == '[' || *a == '{')
					depth++;
				else if (*a == ')' || *a == ']' || *a == '}')
					depth--;
				else if (*a == '"') {
					a++;
					while (*a && *a != '"')
						a += (*a == '\\' && a[1]) ? 2 : 1;
				}
				if (*a)
					a++;
			}
			e = a;
			while (s < e && isspace((unsigned char)*s))
				s++;
			while (e > s && isspace((unsigned char)e[-1]))
				e--;
			if ((size_t)(e - s) == 5 + nlen && !memcmp(s, "REC->", 5) &&
			    !memcmp(s + 5, name, nlen)) {
				want = argi;
				break;
			}
			argi++;
		}
	}
	if (want < 0)
		return;
	/* the want-th conversion of the format string */
	for (const char *c = p; c < q; c++) {
		const char *start;

		if (*c != '%')
			continue;
		if (c[1] == '%') {
			c++;
			continue;
		}
		start = c++;
		while (c < q && strchr("-+ #0123456789.*", *c))
			c++;
		while (c < q && strchr("hlzjt", *c))
			c++;
		if (c < q && *c == 'p') {
			while (c + 1 < q && isalnum((unsigned char)c[1]))
				c++;
		}
		if (nconv++ == want) {
			size_t n = (size_t)(c - start + 1);

			if (n < size) {
				memcpy(conv, start, n);
				conv[n] = 0;
			}
			return;
		}
	}
}

/* render_ptr - a pointer with the given %p conversion */
static int render_ptr(const struct ipt_trace *t, uint64_t v, const char *conv,
		      struct ipt_strbuf *out)
{
	const char *pc = strchr(conv, 'p');

	if (pc && (pc[1] == 'S' || pc[1] == 'F' || pc[1] == 'B'))
		return ipt_render_sym(t, v, true, out);
	if (pc && (pc[1] == 's' || pc[1] == 'f'))
		return ipt_render_sym(t, v, false, out);
	if (!v)
		return ipt_strbuf_adds(out, "(nil)");
	return ipt_strbuf_add(out, "0x", 2) || ipt_strbuf_add_hex(out, v);
}

/* render_array - fixed or dynamic non-string array as ARRAY[hex bytes] */
static int render_array(const uint8_t *d, uint32_t n, struct ipt_strbuf *out)
{
	static const char hx[] = "0123456789abcdef";

	if (ipt_strbuf_adds(out, "ARRAY["))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		char b[4] = { hx[d[i] >> 4], hx[d[i] & 15], ',', ' ' };

		if (ipt_strbuf_add(out, b, i + 1 < n ? 4 : 2))
			return -1;
	}
	return ipt_strbuf_addc(out, ']');
}

static int render_mask(const struct ipt_trace *t, const struct ipt_record *r,
		       const struct ipt_field *f, unsigned int flags, struct ipt_strbuf *out)
{
	struct ipt_cpuset set = IPT_CPUSET_INIT;
	char small[256];
	size_t n;
	int ret = 0;

	if (ipt_field_cpuset(t, r, f, &set)) {
		ipt_cpuset_free(&set);
		return ipt_strbuf_adds(out, "<bad mask>");
	}
	if (flags & IPT_RENDER_MASK_HEX) {
		const uint8_t *d;
		uint32_t len = 0;

		ipt_field_bytes(t, r, f, &d, &len);
		n = ipt_cpuset_format_hex(&set, len * 8, small, sizeof(small));
	} else {
		n = ipt_cpuset_format_list(&set, small, sizeof(small));
	}
	if (n < sizeof(small)) {
		ret = ipt_strbuf_add(out, small, n);
	} else {
		char *big = ipt_malloc(n + 1);

		if (!big) {
			ret = -1;
		} else {
			if (flags & IPT_RENDER_MASK_HEX) {
				const uint8_t *d;
				uint32_t len = 0;

				ipt_field_bytes(t, r, f, &d, &len);
				ipt_cpuset_format_hex(&set, len * 8, big, n + 1);
			} else {
				ipt_cpuset_format_list(&set, big, n + 1);
			}
			ret = ipt_strbuf_add(out, big, n);
			free(big);
		}
	}
	ipt_cpuset_free(&set);
	return ret;
}

/* render_value - one field's value in raw mode */
static int render_value(const struct ipt_trace *t, const struct ipt_record *r,
			const struct ipt_event *ev, const struct ipt_field *f,
			unsigned int flags, struct ipt_strbuf *out)
{
	const uint8_t *d;
	uint32_t n;
	uint64_t v;
	char conv[16];

	if (f->flags & IPT_FIELD_CPUMASK)
		return render_mask(t, r, f, flags, out);
	if (f->flags & IPT_FIELD_STRING) {
		if (ipt_field_bytes(t, r, f, &d, &n))
			return ipt_strbuf_adds(out, "<bad string>");
		return ipt_strbuf_add(out, (const char *)d, strnlen((const char *)d, n));
	}
	if (f->flags & (IPT_FIELD_ARRAY | IPT_FIELD_DYNAMIC)) {
		if (ipt_field_bytes(t, r, f, &d, &n))
			return ipt_strbuf_adds(out, "<bad array>");
		return render_array(d, n, out);
	}
	if (ipt_field_u64(t, r, f, &v))
		return ipt_strbuf_adds(out, "<outside record>");
	field_conv(ev->print_fmt, f->name, conv, sizeof(conv));
	if (strchr(conv, 'p') || (!conv[0] && (f->flags & IPT_FIELD_POINTER)))
		return render_ptr(t, v, conv[0] ? conv : "%p", out);
	if (conv[0] && strpbrk(conv, "xX"))
		return ipt_strbuf_add(out, "0x", 2) || ipt_strbuf_add_hex(out, v);
	if (f->flags & IPT_FIELD_SIGNED)
		return ipt_strbuf_add_i64(out, (int64_t)v);
	return ipt_strbuf_add_u64(out, v);
}

/* ipt_render_raw_fields - every non-common field as name=value */
int ipt_render_raw_fields(struct ipt_trace *t, const struct ipt_record *r,
			  unsigned int flags, struct ipt_strbuf *out)
{
	const struct ipt_event *ev = r->event;
	bool first = true;
	bool is_wakeup = !strcmp(ev->system, "sched") &&
			 (!strcmp(ev->name, "sched_waking") || !strcmp(ev->name, "sched_wakeup") ||
			  !strcmp(ev->name, "sched_wakeup_new"));

	for (int i = 0; i < ev->nfields; i++) {
		const struct ipt_field *f = &ev->fields[i];

		if (f->flags & IPT_FIELD_COMMON)
			continue;
		if ((!first && ipt_strbuf_addc(out, ' ')) || ipt_strbuf_adds(out, f->name) || ipt_strbuf_addc(out, '='))
			return -1;
		first = false;
		if (is_wakeup && !strcmp(f->name, "target_cpu")) {
			uint64_t v;

			/* trace-cmd report -R prints it as the print fmt does: %03d */
			if (ipt_field_u64(t, r, f, &v) || ipt_strbuf_addf(out, "%03d", (int)(int32_t)v))
				return -1;
			continue;
		}
		if (render_value(t, r, ev, f, flags, out))
			return -1;
	}
	return 0;
}

/* ---- built-in handlers for events trace-cmd renders with plugins ---- */

static int get(const struct ipt_trace *t, const struct ipt_record *r, const char *name, uint64_t *v)
{
	const struct ipt_field *f = ipt_event_field(r->event, name);

	return f ? ipt_field_u64(t, r, f, v) : -1;
}

/*
 * get_comm - print a comm field and, as trace-cmd's sched plugin does,
 * remember it as the task name of pid for the lines that follow, unless
 * the pid already has a name (saved cmdlines win, as in libtraceevent).
 */
static int get_comm(struct ipt_trace *t, const struct ipt_record *r, const char *name,
		    uint64_t pid, struct ipt_strbuf *out)
{
	const struct ipt_field *f = ipt_event_field(r->event, name);
	const uint8_t *d = NULL;
	uint32_t n = 0;
	size_t len;

	if (!f || ipt_field_bytes(t, r, f, &d, &n))
		return -1;
	len = strnlen((const char *)d, n);
	if (!ipt_comms_get(&t->comms, (int)(int32_t)pid) &&
	    ipt_comms_set(&t->comms, (int)(int32_t)pid, (const char *)d, len))
		return -1;
	return ipt_strbuf_add(out, (const char *)d, len);
}

/* sched_switch - "prev:pid [prio] S ==> next:pid [prio]" as trace-cmd's plugin */
static int render_sched_switch(struct ipt_trace *t, const struct ipt_record *r,
			       struct ipt_strbuf *out)
{
	static const char states[] = "SDTtZXxW";
	uint64_t pid, prio, state, npid, nprio;
	bool found = false;

	if (get(t, r, "prev_pid", &pid) || get(t, r, "prev_prio", &prio) ||
	    get(t, r, "prev_state", &state) || get(t, r, "next_pid", &npid) ||
	    get(t, r, "next_prio", &nprio))
		return -1;
	if (get_comm(t, r, "prev_comm", pid, out) || ipt_strbuf_addc(out, ':') || ipt_strbuf_add_i64(out, (int32_t)pid) ||
	    ipt_strbuf_adds(out, " [") || ipt_strbuf_add_i64(out, (int32_t)prio) || ipt_strbuf_adds(out, "] "))
		return -1;
	for (unsigned int i = 0; i < sizeof(states) - 1; i++) {
		if (!(state & (1ULL << i)))
			continue;
		if ((found && ipt_strbuf_addc(out, '|')) || ipt_strbuf_addc(out, states[i]))
			return -1;
		found = true;
	}
	if (!found && ipt_strbuf_addc(out, 'R'))
		return -1;
	return ipt_strbuf_adds(out, " ==> ") || get_comm(t, r, "next_comm", npid, out) || ipt_strbuf_addc(out, ':') ||
	       ipt_strbuf_add_i64(out, (int32_t)npid) || ipt_strbuf_adds(out, " [") ||
	       ipt_strbuf_add_i64(out, (int32_t)nprio) || ipt_strbuf_addc(out, ']');
}

/* sched_wakeup - "comm:pid [prio] CPU:003" as trace-cmd's plugin */
static int render_sched_wakeup(struct ipt_trace *t, const struct ipt_record *r,
			       struct ipt_strbuf *out)
{
	uint64_t pid, prio, cpu, success;

	if (get(t, r, "pid", &pid) || get(t, r, "prio", &prio) || get(t, r, "target_cpu", &cpu))
		return -1;
	if (get_comm(t, r, "comm", pid, out) || ipt_strbuf_addc(out, ':') || ipt_strbuf_add_i64(out, (int32_t)pid) ||
	    ipt_strbuf_adds(out, " [") || ipt_strbuf_add_i64(out, (int32_t)prio) || ipt_strbuf_addc(out, ']'))
		return -1;
	if (!get(t, r, "success", &success) && !success && ipt_strbuf_adds(out, " failure"))
		return -1;
	return ipt_strbuf_addf(out, " CPU:%03d", (int)(int32_t)cpu);
}

/* kernel_stack - "<stack trace >" and one "=> sym (addr)" line per caller */
static int render_stack(struct ipt_trace *t, const struct ipt_record *r, struct ipt_strbuf *out)
{
	const struct ipt_field *f = ipt_event_field(r->event, "caller");
	unsigned int ls = (unsigned int)t->kernel_long_size;

	if (!f)
		return -1;
	if (ipt_strbuf_adds(out, "<stack trace >"))
		return -1;
	for (uint64_t off = f->offset; off + ls <= r->size; off += ls) {
		uint64_t addr = ipt_get_uint(r->data + off, ls, t->big_endian);
		const char *name;

		if ((ls == 8 && addr == UINT64_MAX) || (uint32_t)addr == UINT32_MAX)
			break;
		name = ipt_trace_symbol(t, addr, NULL);
		if (ipt_strbuf_adds(out, "\n=> "))
			return -1;
		if (name) {
			if (ipt_strbuf_adds(out, name) || ipt_strbuf_adds(out, " (") || ipt_strbuf_add_hex(out, addr) ||
			    ipt_strbuf_addc(out, ')'))
				return -1;
		} else if (ipt_strbuf_add_hex(out, addr)) {
			return -1;
		}
	}
	return 0;
}

/* ipt_render_fields - the fields part of a line */
int ipt_render_fields(struct ipt_trace *t, const struct ipt_record *r,
		      unsigned int flags, struct ipt_strbuf *out)
{
	const struct ipt_event *ev = r->event;
	size_t mark = out->len;

	if (!ev)
		return ipt_strbuf_adds(out, "[unknown event]");
	if (flags & IPT_RENDER_RAW)
		return ipt_render_raw_fields(t, r, flags, out);
	/* asked per record: the first letter first */
	if (ev->system[0] == 'f' && !strcmp(ev->system, "ftrace") && !strcmp(ev->name, "kernel_stack") &&
	    !render_stack(t, r, out))
		return 0;
	out->len = mark;
	if (ev->system[0] == 's' && !strcmp(ev->system, "sched")) {
		int ret = 1;

		if (!strcmp(ev->name, "sched_switch"))
			ret = render_sched_switch(t, r, out);
		else if (!strcmp(ev->name, "sched_wakeup") || !strcmp(ev->name, "sched_wakeup_new"))
			ret = render_sched_wakeup(t, r, out);
		if (!ret)
			return 0;
		out->len = mark;
	}
	if (!ipt_printfmt_render(t, ev, r, flags, out))
		return 0;
	out->len = mark;
	if (out->buf)
		out->buf[mark] = 0;
	return ipt_render_raw_fields(t, r, flags, out);
}

/* ipt_render_record - one whole line as trace-cmd report prints it */
int ipt_render_record(struct ipt_trace *t, const struct ipt_record *r,
		      unsigned int flags, struct ipt_strbuf *out)
{
	int pid = ipt_record_pid(t, r);
	const char *comm = ipt_trace_comm(t, pid);
	const char *name = r->event ? r->event->name : "unknown";
	size_t clen = strlen(comm), nlen = strlen(name), start;
	char num[24], *e = num + sizeof(num), *d, *p, *head;

	/* an instance buffer's records, as trace-cmd prints them: "NAME: " first */
	if (r->buffer > 0 && r->buffer < t->nbuffers &&
	    (ipt_strbuf_adds(out, t->buffers[r->buffer]) || ipt_strbuf_adds(out, ": ")))
		return -1;
	/*
	 * "%16s-%-5d [%03d] ": written in place, the room asked for once (a
	 * dozen calls per line before, a third of a dump's time)
	 */
	if (ipt_strbuf_grow(out, clen + nlen + 64))	/* put_blanks writes 32 */
		return -1;
	head = p = out->buf + out->len;
	if (clen < 16)
		p = put_blanks(p, 16 - clen);
	p = put_text(p, comm, clen);
	*p++ = '-';
	d = ipt_decimal(e, pid < 0 ? -(uint64_t)(int64_t)pid : (uint64_t)pid);
	if (pid < 0)
		*--d = '-';
	p = put_text(p, d, (size_t)(e - d));
	if (e - d < 5)
		p = put_blanks(p, 5 - (size_t)(e - d));
	*p++ = ' ';
	*p++ = '[';
	if (r->cpu >= 0 && r->cpu < 100) {
		*p++ = '0';
		*p++ = (char)('0' + r->cpu / 10);
		*p++ = (char)('0' + r->cpu % 10);
	} else {
		d = ipt_decimal(e, r->cpu < 0 ? -(uint64_t)(int64_t)r->cpu : (uint64_t)r->cpu);
		if (r->cpu < 0)
			*--d = '-';
		p = put_text(p, d, (size_t)(e - d));
	}
	*p++ = ']';
	*p++ = ' ';
	out->len += (size_t)(p - head);
	out->buf[out->len] = 0;
	if (ipt_render_ts(t, r->ts, out))
		return -1;
	/* ": NAME:" padded to 21, then the fields; raw fields each follow a
	 * blank in trace-cmd report -R, also after a name longer than the
	 * column */
	if (ipt_strbuf_grow(out, nlen + 64))	/* put_blanks writes 32 */
		return -1;
	head = p = out->buf + out->len;
	*p++ = ':';
	*p++ = ' ';
	start = out->len + 2;
	p = put_text(p, name, nlen);
	*p++ = ':';
	if (nlen + 1 < 21)
		p = put_blanks(p, 21 - (nlen + 1));
	*p++ = ' ';
	if (flags & IPT_RENDER_RAW)
		*p++ = ' ';
	out->len += (size_t)(p - head);
	out->buf[out->len] = 0;
	if (ipt_render_fields(t, r, flags, out))
		return -1;
	/* trace-cmd drops the newline a string field may end with */
	while (out->len > start && out->buf[out->len - 1] == '\n')
		out->buf[--out->len] = 0;
	return 0;
}
