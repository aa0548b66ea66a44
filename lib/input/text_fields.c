// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * text_fields.c - the fields text of an event line into its record:
 * name=value pairs named after the event's fields, the text of
 * trace-cmd's sched_switch and sched_wakeup plugins, and the arm64 IPI
 * events' "target_mask=HEX (reason)" and "(reason)"
 */
#include "input/text.h"

#include <ctype.h>
#include <stdio.h>

static int bad_field(struct tx *x, const struct einfo *ei, const char *what, const char *p,
		     const char *e)
{
	int n = (int)(e - p > 60 ? 60 : e - p);

	return ipt_err_at(x->t->path, x->line_off, "%s: bad %s '%.*s'", ei->name, what, n, p);
}

/* state letters: kernel print fmt (kernel) or trace-cmd's plugin */
static bool parse_state(const char *p, const char *e, bool plugin, uint64_t *v)
{
	const char *letters = plugin ? "SDTtZXxW" : "SDTtXZPI";

	*v = 0;
	if (p == e)
		return false;
	for (; p < e; p++) {
		const char *l;

		if (*p == '|' || *p == 'R')
			continue;
		if (*p == '+') {
			*v |= 0x100;
			continue;
		}
		l = strchr(letters, *p);
		if (!l || !*p)
			return false;
		*v |= 1ULL << (l - letters);
	}
	return true;
}

/* parse_ptr - a %p value: "(nil)", "0x..." or hashed/zero-padded hex */
static bool parse_ptr(const char *p, const char *e, uint64_t *v)
{
	if (e - p == 5 && starts(p, e, "(nil)")) {
		*v = 0;
		return true;
	}
	if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return parse_hexn(p + 2, e, v);
	return parse_hexn(p, e, v);
}

/* put_words - "{0x6,0x0}" into an array of 8-byte words: exactly as many
 * as the field holds (its format was made from the probe's first line) */
static int put_words(struct tx *x, const struct einfo *ei, const struct ipt_field *f, const char *p,
		     const char *e)
{
	unsigned int words = f->size / 8, i = 0;
	const char *q = p;

	if (q >= e || *q != '{')
		return bad_field(x, ei, f->name, p, e);
	for (q++; q < e && i < words; i++) {
		const char *we = q;
		uint64_t v;

		while (we < e && *we != ',' && *we != '}')
			we++;
		if (we >= e || !parse_int(q, we, &v) || (*we == '}') != (i + 1 == words))
			return bad_field(x, ei, f->name, p, e);
		if (f->offset + (i + 1) * 8 <= x->rlen)
			ipt_put_uint(x->rec + f->offset + i * 8, 8, false, v);
		q = we + 1;
	}
	if (i != words || q != e)
		return bad_field(x, ei, f->name, p, e);
	return 0;
}

/* put_value - one field from its value text [p, e) */
static int put_value(struct tx *x, const struct einfo *ei, const struct finfo *fi,
		     const char *p, const char *e)
{
	const struct ipt_field *f = fi->f;
	const char *te = token_end(p, e);
	uint64_t v;

	switch (fi->role) {
	case R_INT:
		if (!parse_int(p, te, &v))
			return bad_field(x, ei, f->name, p, e);
		put_field(x, f, v);
		return 0;
	case R_SYM:
		switch (ipt_text_parse_symval(x, p, te, &v)) {
		case 0:
			break;
		case -1:
			return bad_field(x, ei, f->name, p, e);
		default:
			return -1;
		}
		put_field(x, f, v);
		return 0;
	case R_PTR:
		if (!parse_ptr(p, te, &v))
			return bad_field(x, ei, f->name, p, e);
		put_field(x, f, v);
		return 0;
	case R_STATE:
		/* letters as the print fmt shows them, or the number (report -R) */
		if (!parse_dec(p, te, &v) && !parse_state(p, te, false, &v))
			return bad_field(x, ei, f->name, p, e);
		put_field(x, f, v);
		return 0;
	case R_MASK: {
		unsigned int bits;

		if (!starts(p, e, "ARRAY[")) {
			const char *me = p;

			while (me < e && !is_blank(*me))
				me++;
			e = me;
		}
		if (!ipt_text_parse_mask(x, p, e, false, &bits))
			return bad_field(x, ei, f->name, p, e);
		return ipt_text_put_mask(x, f, bits);
	}
	case R_STR: {
		size_t n = (size_t)(e - p);

		if (n > f->size - 1)
			n = f->size - 1;
		if (f->offset + f->size <= x->rlen) {
			memset(x->rec + f->offset, 0, f->size);
			memcpy(x->rec + f->offset, p, n);
		}
		return 0;
	}
	case R_DSTR:
		return ipt_text_put_dyn(x, f, p, (uint32_t)(e - p), true);
	case R_WORDS:
		return put_words(x, ei, f, p, e);
	}
	return 0;
}

/* ipt_text_fields_kv - "name=value ..." with the event's field names */
int ipt_text_fields_kv(struct tx *x, const struct einfo *ei, const char *s, const char *e)
{
	struct {
		const struct finfo *fi;
		const char *key, *val;
	} found[MAXF];
	int nfound = 0;

	if (starts(s, e, "[FAILED TO PARSE]"))
		s = skip_blanks(s + 17, e);
	for (const char *p = s; p < e; p++) {
		const char *q;

		if (p > s && !is_blank(p[-1]) && p[-1] != ',')
			continue;
		q = p;
		while (q < e && (isalnum((unsigned char)*q) || *q == '_'))
			q++;
		if (q == p || q >= e || *q != '=')
			continue;
		for (int i = 0; i < ei->nf; i++) {
			const char *fn = ei->fl[i].f->name;
			bool dup = false;

			if (strlen(fn) != (size_t)(q - p) || memcmp(fn, p, (size_t)(q - p)))
				continue;
			for (int k = 0; k < nfound; k++)
				if (found[k].fi == &ei->fl[i])
					dup = true;
			if (!dup && nfound < MAXF) {
				found[nfound].fi = &ei->fl[i];
				found[nfound].key = p;
				found[nfound].val = q + 1;
				nfound++;
			}
			break;
		}
		p = q;
	}
	if (!nfound)
		return ipt_err_at(x->t->path, x->line_off, "%s: no field of the event in '%.*s'",
				  ei->name, (int)(e - s > 60 ? 60 : e - s), s);
	for (int k = 0; k < nfound; k++) {
		const char *ve = k + 1 < nfound ? found[k + 1].key : e;

		ve = rtrim(found[k].val, ve);
		if (ve > found[k].val && ve[-1] == ',' && found[k].fi->role != R_MASK)
			ve--;
		if (put_value(x, ei, found[k].fi, found[k].val, ve))
			return -1;
	}
	return 0;
}

int ipt_text_fields_kprobe(struct tx *x, const struct einfo *ei, const char *s, const char *e)
{
	const char *close = s < e && *s == '(' ? memchr(s, ')', (size_t)(e - s)) : NULL;
	const struct finfo *ip = fld(ei, "__probe_ip");
	uint64_t v;

	if (!close || !ip)
		return bad_field(x, ei, "probed address", s, e);
	switch (ipt_text_parse_symval(x, s + 1, close, &v)) {
	case 0:
		break;
	case -1:
		return bad_field(x, ei, "probed address", s, e);
	default:
		return -1;
	}
	put_field(x, ip->f, v);
	return ipt_text_fields_kv(x, ei, skip_blanks(close + 1, e), e);
}

/*
 * comm_pid_prio - trace-cmd plugin text "comm:pid [prio]" ending at e;
 * fills comm/pid/prio fields named by the prefix ("prev_", "next_", "").
 */
static int comm_pid_prio(struct tx *x, const struct einfo *ei, const char *s, const char *e,
			 const char *prefix)
{
	char name[32];
	const char *lb, *colon;
	uint64_t pid, prio;
	const struct finfo *f;

	e = rtrim(s, e);
	s = skip_blanks(s, e);
	lb = rfind(s, e, " [");
	if (!lb || e[-1] != ']' || !parse_int(lb + 2, e - 1, &prio))
		return bad_field(x, ei, "task", s, e);
	colon = lb;
	while (colon > s && colon[-1] != ':')
		colon--;
	if (colon <= s || !parse_int(colon, lb, &pid))
		return bad_field(x, ei, "task", s, e);
	colon--;
	snprintf(name, sizeof(name), "%scomm", prefix);
	if ((f = fld(ei, name)) && put_value(x, ei, f, s, colon))
		return -1;
	snprintf(name, sizeof(name), "%spid", prefix);
	if ((f = fld(ei, name)))
		put_field(x, f->f, pid);
	snprintf(name, sizeof(name), "%sprio", prefix);
	if ((f = fld(ei, name)))
		put_field(x, f->f, prio);
	return 0;
}

/* sched_switch as trace-cmd's plugin prints it */
int ipt_text_fields_switch(struct tx *x, const struct einfo *ei, const char *s, const char *e)
{
	const char *arrow, *st;
	const struct finfo *f;
	uint64_t state;

	if (find(s, e, "prev_comm="))
		return ipt_text_fields_kv(x, ei, s, e);
	/* trace-cmd report -w appends " Latency: 5.962 usecs" */
	{
		const char *lat = find(s, e, " Latency: ");

		if (lat && e - lat > 6 && !memcmp(e - 6, " usecs", 6))
			e = lat;
	}
	arrow = find(s, e, " ==> ");
	if (!arrow)
		return bad_field(x, ei, "sched_switch text", s, e);
	st = rtrim(s, arrow);
	while (st > s && !is_blank(st[-1]))
		st--;
	if (!parse_state(st, rtrim(s, arrow), true, &state))
		return bad_field(x, ei, "prev_state", st, arrow);
	if ((f = fld(ei, "prev_state")))
		put_field(x, f->f, state);
	if (comm_pid_prio(x, ei, s, st, "prev_") || comm_pid_prio(x, ei, arrow + 5, e, "next_"))
		return -1;
	return 0;
}

/* sched_wakeup* as trace-cmd's plugin prints it: "comm:pid [prio] [success=1] CPU:003" */
int ipt_text_fields_wakeup(struct tx *x, const struct einfo *ei, const char *s, const char *e)
{
	const char *cpu, *te;
	const struct finfo *f;
	uint64_t v;

	if (find(s, e, "comm=") == s || find(s, e, " pid="))
		return ipt_text_fields_kv(x, ei, s, e);
	cpu = rfind(s, e, " CPU:");
	if (!cpu || !parse_int(cpu + 5, e, &v))
		return bad_field(x, ei, "sched_wakeup text", s, e);
	if ((f = fld(ei, "target_cpu")))
		put_field(x, f->f, v);
	te = rtrim(s, cpu);
	/* " success=1" or " failure" between the prio and CPU: */
	while (te > s && te[-1] != ']') {
		const char *w = te;

		while (w > s && !is_blank(w[-1]))
			w--;
		if (w == s)
			break;
		te = rtrim(s, w);
	}
	return comm_pid_prio(x, ei, s, te, "");
}

/* ipi_raise: "target_mask=00000000,00000004 (Function call interrupts)" */
int ipt_text_fields_raise(struct tx *x, const struct einfo *ei, const char *s, const char *e)
{
	const struct finfo *mf = fld(ei, "target_cpus"), *rf = fld(ei, "reason");
	const char *p = s, *me, *rs, *re;
	unsigned int bits;
	uint64_t a;

	if (starts(p, e, "target_mask="))
		p += 12;
	else if (starts(p, e, "target_cpus="))
		p += 12;
	else
		return bad_field(x, ei, "ipi_raise text", s, e);
	me = p;
	while (me < e && !is_blank(*me))
		me++;
	if (!mf || !ipt_text_parse_mask(x, p, me, true, &bits))
		return bad_field(x, ei, "target_mask", p, me);
	if (ipt_text_put_mask(x, mf->f, bits))
		return -1;
	rs = skip_blanks(me, e);
	if (rs < e && *rs == '(')
		rs++;
	re = e;
	if (re > rs && re[-1] == ')')
		re--;
	if (rf && re > rs) {
		if (ipt_text_reason_addr(x, rs, (size_t)(re - rs), &a))
			return -1;
		put_field(x, rf->f, a);
	}
	return 0;
}

/* ipi_entry/ipi_exit: "(Rescheduling interrupts)" */
int ipt_text_fields_reason(struct tx *x, const struct einfo *ei, const char *s, const char *e)
{
	const struct finfo *rf = fld(ei, "reason");
	uint64_t a;

	if (starts(s, e, "reason="))
		s += 7;
	if (s < e && *s == '(')
		s++;
	if (e > s && e[-1] == ')')
		e--;
	if (s == e)
		return bad_field(x, ei, "reason", s, e);
	if (rf) {
		if (ipt_text_reason_addr(x, s, (size_t)(e - s), &a))
			return -1;
		put_field(x, rf->f, a);
	}
	return 0;
}
