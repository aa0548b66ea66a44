// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * text_line.c - the prefix of an event line of a text trace: comm-pid,
 * CPU, latency flags, timestamp and event name, in the shapes of
 * `trace-cmd report`, `report -l`, tracefs and its latency format (see
 * text_load.c); the "NAME: " of instance buffers; the tracefs layouts
 * that carry no fields as text; and the probe that tells a text trace
 * from other input.
 */
#include "input/text.h"

#include <ctype.h>

/*
 * parse_ts - "secs.frac" -> ns; or a plain integer (raw clock counts).
 * *raw set when there is no fraction.
 */
static bool parse_ts(const char *p, const char *e, uint64_t *ns, bool *raw)
{
	const char *dot = memchr(p, '.', (size_t)(e - p));
	uint64_t secs, frac = 0;
	int nd;

	*raw = false;
	/* tracefs latency-format: microseconds, "3417894594us" and a delay mark */
	if (e - p > 2 && !dot) {
		const char *u = e;

		if (u > p && strchr("+!#*@$ ", u[-1]) && u - p > 3 && u[-2] == 's')
			u--;
		if (u - p > 2 && u[-1] == 's' && u[-2] == 'u') {
			uint64_t us;

			if (!parse_dec(p, u - 2, &us) || us > UINT64_MAX / 1000)
				return false;
			*ns = us * 1000;
			return true;
		}
	}
	if (!dot) {
		*raw = true;
		return parse_dec(p, e, ns);
	}
	if (dot == p || dot - p > 11 || !parse_dec(p, dot, &secs))
		return false;
	nd = (int)(e - dot - 1);
	if (nd < 1 || nd > 9 || !parse_dec(dot + 1, e, &frac))
		return false;
	for (int i = nd; i < 9; i++)
		frac *= 10;
	*ns = secs * 1000000000ULL + frac;
	return true;
}

/* flag characters of the irqs-off/need-resched/hardirq/preempt columns */
static bool flag_char(char c)
{
	return c == '.' || is_digit(c) || strchr("dXDbBNnpLlHhsSZz", c);
}

/* decode_flags - latency flags text into common_flags and preempt_count */
static void decode_flags(const char *p, size_t n, uint8_t *flags, uint8_t *pc)
{
	/* enum trace_flag_type (Linux 6.12+) */
	enum { IRQS_OFF = 0x01, RESCHED_LAZY = 0x02, RESCHED = 0x04, HARDIRQ = 0x08,
	       SOFTIRQ = 0x10, PREEMPT_RESCHED = 0x20, NMI = 0x40, BH_OFF = 0x80 };
	unsigned int f = 0, depth = 0, mig = 0;
	size_t i = 0;

	if (i < n) {
		switch (p[i++]) {
		case 'd': f |= IRQS_OFF; break;
		case 'D': f |= IRQS_OFF | BH_OFF; break;
		case 'b': f |= BH_OFF; break;
		case 'X': f |= RESCHED_LAZY; break;	/* irqs-off not supported (old kernels) */
		}
	}
	if (i < n) {
		switch (p[i++]) {
		case 'B': f |= RESCHED | RESCHED_LAZY | PREEMPT_RESCHED; break;
		case 'N': f |= RESCHED | PREEMPT_RESCHED; break;
		case 'L': f |= RESCHED_LAZY | PREEMPT_RESCHED; break;
		case 'b': f |= RESCHED | RESCHED_LAZY; break;
		case 'n': f |= RESCHED; break;
		case 'p': f |= PREEMPT_RESCHED; break;
		case 'l': f |= RESCHED_LAZY; break;
		}
	}
	if (n == 7 && i < n) {	/* PREEMPT_RT lazy layout: need-resched-lazy column */
		if (p[i++] != '.')
			f |= RESCHED_LAZY;
	}
	if (i < n) {
		switch (p[i++]) {
		case 'Z': f |= NMI | HARDIRQ; break;
		case 'z': f |= NMI; break;
		case 'H': f |= HARDIRQ | SOFTIRQ; break;
		case 'h': f |= HARDIRQ; break;
		case 's': f |= SOFTIRQ; break;
		}
	}
	if (i < n) {
		int v = hexv(p[i++]);

		depth = v > 0 ? (unsigned int)v : 0;
	}
	if (n == 7 && i < n)
		i++;		/* preempt-lazy-depth */
	if (i < n) {
		int v = hexv(p[i++]);

		mig = v > 0 ? (unsigned int)v : 0;
	}
	*flags = (uint8_t)f;
	*pc = (uint8_t)((depth & 0xf) | (mig & 0xf) << 4);
}

/* is [p, e) "digits[.digits]:" ? returns the end of the number */
static const char *ts_token(const char *p, const char *e)
{
	const char *q = p;

	while (q < e && is_digit(*q))
		q++;
	if (q == p)
		return NULL;
	/* tracefs latency-format: "3417894594us+:" (a delay mark, or none) */
	if (e - q >= 3 && q[0] == 'u' && q[1] == 's') {
		q += 2;
		if (q < e && *q != ':' && strchr("+!#*@$ ", *q))
			q++;
		return q < e && *q == ':' ? q : NULL;
	}
	if (q < e && *q == '.') {
		const char *d = ++q;

		while (q < e && is_digit(*q))
			q++;
		if (q == d)
			return NULL;
	}
	if (q < e && *q == ':')
		return q;
	return NULL;
}

/*
 * split_comm_pid - "comm-pid" in [s, e): comm is everything before the last
 * '-' that is followed only by digits.
 */
static bool split_comm_pid(const char *s, const char *e, struct line *ln)
{
	const char *dash;
	uint64_t pid;

	s = skip_blanks(s, e);
	e = rtrim(s, e);
	dash = e;
	while (dash > s && is_digit(dash[-1]))
		dash--;
	if (dash == e || dash == s || dash[-1] != '-' || e - dash > 10)
		return false;
	if (!parse_dec(dash, e, &pid) || pid > 0x7fffffff)
		return false;
	ln->comm = s;
	ln->comm_len = (size_t)(dash - 1 - s);
	ln->pid = (int)pid;
	return true;
}

/*
 * parse_rest - after the prefix: "ts: event: fields".  p points at the
 * timestamp.  Returns LP_OK or LP_BAD with *why set.
 */
static int parse_rest(const char *p, const char *e, struct line *ln, bool *raw,
		      const char **why)
{
	const char *te = ts_token(p, e), *n, *ne;

	if (!te) {
		*why = "bad timestamp";
		return LP_BAD;
	}
	if (!parse_ts(p, te, &ln->ts, raw)) {
		*why = "bad timestamp";
		return LP_BAD;
	}
	n = skip_blanks(te + 1, e);
	/* trace-cmd report --ts-diff: "(+71)", the ns since the previous event */
	if (n + 3 < e && n[0] == '(' && n[1] == '+' && is_digit(n[2])) {
		const char *c = n + 2;

		while (c < e && is_digit(*c))
			c++;
		if (c < e && *c == ')')
			n = skip_blanks(c + 1, e);
	}
	ln->name = NULL;
	ln->name_len = 0;
	ne = n;
	while (ne < e && (isalnum((unsigned char)*ne) || *ne == '_' || *ne == '.' || *ne == '-'))
		ne++;
	if (ne > n && ne < e && *ne == ':') {
		ln->name = n;
		ln->name_len = (size_t)(ne - n);
		ln->f = skip_blanks(ne + 1, e);
	} else if (n < e) {
		ln->f = n;	/* "<stack trace>", "func <-parent", ... */
	} else {
		*why = "no event after the timestamp";
		return LP_BAD;
	}
	ln->fe = rtrim(ln->f, e);
	return LP_OK;
}

/*
 * ipt_text_parse_prefix - recognise an event line.  LP_NO: not an event line;
 * LP_BAD: looks like one but is malformed (*why); LP_OK: ln filled.
 */
int ipt_text_parse_prefix(const char *p, const char *e, struct line *ln, bool *raw,
			  const char **why)
{
	const char *b;

	memset(ln, 0, sizeof(*ln));
	*why = "malformed event line";
	/* the bracket form: the first " [digits]" after a comm-pid */
	for (b = p; (b = memchr(b, '[', (size_t)(e - b))); b++) {
		const char *q = b + 1, *pre_e, *r;
		uint64_t cpu;

		if (b == p || !is_blank(b[-1]))
			continue;
		while (q < e && is_digit(*q))
			q++;
		if (q == b + 1 || q >= e || *q != ']')
			continue;
		pre_e = rtrim(p, b);
		/* tgid column: "( 2519)" or "(-----)" */
		if (pre_e > p && pre_e[-1] == ')') {
			const char *o = pre_e - 1;

			while (o > p && o[-1] != '(')
				o--;
			if (o > p && o[-1] == '(' && o - 1 > p && is_blank(o[-2])) {
				bool ok = true;

				for (const char *c = o; c < pre_e - 1; c++)
					if (!is_digit(*c) && *c != '-' && !is_blank(*c))
						ok = false;
				if (ok)
					pre_e = rtrim(p, o - 1);
			}
		}
		if (!split_comm_pid(p, pre_e, ln))
			continue;
		if (!parse_dec(b + 1, q, &cpu) || q - b - 1 > 6)
			continue;
		r = skip_blanks(q + 1, e);
		if (r >= e)
			return LP_NO;
		if (!is_digit(*r)) {
			/* a flags column, then the timestamp */
			const char *fe = r;

			while (fe < e && !is_blank(*fe))
				fe++;
			if (fe - r > 8)
				return LP_NO;
			for (const char *c = r; c < fe; c++)
				if (!flag_char(*c))
					return LP_NO;
			decode_flags(r, (size_t)(fe - r), &ln->flags, &ln->pc);
			ln->has_flags = true;
			r = skip_blanks(fe, e);
			if (r >= e || !is_digit(*r))
				return LP_NO;
		} else {
			/* "[2] 3 apples" in prose is no event line; "12.3x:" is a bad one */
			const char *te = r;

			while (te < e && !is_blank(*te) && *te != '.' && *te != ':')
				te++;
			if (te >= e || is_blank(*te))
				return LP_NO;
		}
		if (cpu >= IPT_CPUSET_MAX) {
			*why = "CPU number out of range";
			return LP_BAD;
		}
		ln->cpu = (int)cpu;
		return parse_rest(r, e, ln, raw, why);
	}
	/* the latency form of trace-cmd report -l: "comm-pid  0d..2.  ts: ..." */
	{
		const char *tok = p, *prev1 = NULL, *prev1e = NULL;

		for (;;) {
			const char *te;

			tok = skip_blanks(tok, e);
			if (tok >= e)
				return LP_NO;
			te = tok;
			while (te < e && !is_blank(*te))
				te++;
			const char *tt = ts_token(tok, e);

			/* "ts:", or latency-format's "3417901526us :" (a blank delay mark) */
			if (prev1 && tt && (tt == te - 1 || (tt == te + 1 && te[-1] == 's'))) {
				/* prev1 must be CPU digits + flags, before it comm-pid */
				const char *c = prev1;
				uint64_t cpu;

				while (c < prev1e && is_digit(*c))
					c++;
				if (c == prev1 || prev1e - c < 3 || prev1e - c > 8)
					return LP_NO;
				for (const char *f = c; f < prev1e; f++)
					if (!flag_char(*f))
						return LP_NO;
				if (!split_comm_pid(p, prev1, ln))
					return LP_NO;
				if (!parse_dec(prev1, c, &cpu) || cpu >= IPT_CPUSET_MAX)
					return LP_NO;
				ln->cpu = (int)cpu;
				decode_flags(c, (size_t)(prev1e - c), &ln->flags, &ln->pc);
				ln->has_flags = true;
				ln->latency = true;
				return parse_rest(tok, e, ln, raw, why);
			}
			prev1 = tok;
			prev1e = te;
			tok = te;
			if (tok - p > 200)
				return LP_NO;
		}
	}
}

/* strip mail quoting ("> ", ">> ") at the start of a line */
const char *ipt_text_unquote(const char *p, const char *e)
{
	const char *q = skip_blanks(p, e);

	if (q >= e || *q != '>')
		return p;
	while (q < e && *q == '>') {
		q++;
		if (q < e && *q == ' ')
			q++;
	}
	return q;
}

#define MAX_TEXT_BUFFERS 64

/*
 * ipt_text_buffer_prefix - `trace-cmd report` of a file with instance
 * buffers puts "NAME: " before their lines, at the start of the line.
 * LP_OK and ln filled (ln->buf its buffer) when p is such a line, 0 if
 * not, -1 on error.
 */
int ipt_text_buffer_prefix(struct tx *x, const char *p, const char *e, struct line *ln, bool *raw)
{
	const char *q = p, *why;
	int b;

	while (q < e && (isalnum((unsigned char)*q) || *q == '_' || *q == '-' || *q == '.'))
		q++;
	if (q == p || q + 1 >= e || *q != ':' || !is_blank(q[1]))
		return 0;
	if (ipt_text_parse_prefix(q + 1, e, ln, raw, &why) != LP_OK)
		return 0;
	if ((b = ipt_trace_add_buffer(x->t, p, (size_t)(q - p))) < 0)
		return -1;
	if (b >= MAX_TEXT_BUFFERS)
		return ipt_err_at(x->t->path, x->line_off, "more than %d buffers", MAX_TEXT_BUFFERS);
	ln->buf = b;
	return LP_OK;
}

/*
 * ipt_text_unreadable_layout - the tracefs trace_options layout a line is
 * written in, when it is one that carries no task, CPU and time stamp or
 * no fields as text (NULL for any other line):
 *   raw           "19900 0 3417894593797 type: 354 ..." (pid cpu ts, fields as numbers)
 *   hex           "00004dbc 00000000 0000031bca64a505 type: 354 ..." (8, 8, 16 digits)
 *   context-info  "ipi_send_cpu: cpu=1 ..." (context-info off: no task, CPU or time)
 */
const char *ipt_text_unreadable_layout(const char *p, const char *e)
{
	static const size_t hex_width[3] = { 8, 8, 16 };
	const char *q = p, *type = find(p, e, " type: ");
	bool dec = true, fixed = true;
	int words = 0;

	if (type) {
		while (q < type) {
			const char *w = q;

			while (q < type && isxdigit((unsigned char)*q)) {
				dec = dec && is_digit(*q);
				q++;
			}
			if (q == w || (q < type && *q != ' ') || words == 3)
				return NULL;
			fixed = fixed && (size_t)(q - w) == hex_width[words];
			words++;
			q = skip_blanks(q, type);
		}
		if (words != 3)
			return NULL;
		/* hex writes pid, cpu, ts zero-padded to 8, 8, 16 digits, which
		 * may all be decimal digits; raw writes them unpadded */
		return dec && !fixed ? "raw" : "hex";
	}
	while (q < e && (isalnum((unsigned char)*q) || *q == '_'))
		q++;
	if (q > p && q + 1 < e && *q == ':' && q[1] == ' ' && isalpha((unsigned char)*p) &&
	    memchr(p, '_', (size_t)(q - p)) && memchr(q, '=', (size_t)(e - q)))
		return "context-info";
	return NULL;
}

/*
 * ipt_text_probe - whether data looks like a text trace: no NUL in its
 * first 64 KiB, and one of its first 200 lines is "# tracer:", "cpus=" or
 * has the shape of an event line
 */
bool ipt_text_probe(const uint8_t *data, size_t len)
{
	const char *s = (const char *)data, *end;
	size_t scan = len < 65536 ? len : 65536;
	int lines = 0;

	if (memchr(data, 0, scan))
		return false;
	end = s + scan;
	while (s < end && lines++ < 200) {
		const char *e = memchr(s, '\n', (size_t)(end - s)), *p;
		struct line ln;
		const char *why;
		bool raw;

		if (!e)
			e = end;
		p = ipt_text_unquote(s, rtrim(s, e));
		if (starts(p, e, "# tracer:") || starts(p, e, "cpus=") ||
		    ipt_text_parse_prefix(p, rtrim(p, e), &ln, &raw, &why) != LP_NO)
			return true;
		s = e + 1;
	}
	return false;
}
