// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * text_stack.c - records of a text trace continued on later lines: the
 * "=>" stack entries after a kernel_stack line, further lines of a
 * generic text event; the pending record written when the next line
 * does not continue it
 */
#include "input/text.h"

#define MAX_STACK 400u		/* stack entries kept per record */

/* ipt_text_flush_pending - complete and write the pending record, if any */
int ipt_text_flush_pending(struct tx *x)
{
	const struct einfo *ei;

	if (!x->pending)
		return 0;
	x->pending = false;
	ei = &x->ei[x->pend_ei];
	if (ei->kind == EK_STACK) {
		const struct finfo *f = fld(ei, "size");

		if (f)
			put_field(x, f->f, x->pend_n);
	} else if (ei->kind == EK_TEXT) {
		uint32_t n = x->rlen - x->pend_str;

		if (rec_reserve(x, x->rlen + 1))
			return -1;
		x->rec[x->rlen++] = 0;
		n++;
		ipt_put_uint(x->rec + ei->fl[0].f->offset, 4, false, (uint64_t)n << 16 | x->pend_str);
	}
	return ipt_text_emit(x, x->pend_cpu, x->pend_ts);
}

/* stack_line - "=> name (ffffffff8144fb7c)", " => name+0x1a/0x40", "=> ffffffffc0123456" */
static int stack_line(struct tx *x, const char *p, const char *e)
{
	const char *te, *plus, *ne;
	uint64_t addr = 0, off = 0, size = 0;
	bool have_addr = false;

	p = skip_blanks(p + 2, e);
	if (x->pend_n >= MAX_STACK)
		return 0;
	te = p;
	while (te < e && !is_blank(*te))
		te++;
	if (te == p)
		return ipt_err_at(x->t->path, x->line_off, "empty stack line");
	/* the address in parentheses or angle brackets after the name */
	{
		const char *a = skip_blanks(te, e);

		if (a < e && (*a == '(' || *a == '<')) {
			char close = *a == '(' ? ')' : '>';
			const char *c = memchr(a, close, (size_t)(e - a));
			const char *h = a + 1;

			if (c && c - h > 2 && h[0] == '0' && h[1] == 'x')
				h += 2;
			if (!c || !parse_hexn(h, c, &addr))
				return ipt_err_at(x->t->path, x->line_off, "bad address in stack line");
			have_addr = true;
		}
	}
	plus = memchr(p, '+', (size_t)(te - p));
	ne = plus ? plus : te;
	if (!plus && !have_addr && (te - p >= 8 || starts(p, te, "0x"))) {
		const char *h = starts(p, te, "0x") ? p + 2 : p;

		if (parse_hexn(h, te, &addr)) {
			/* a raw address: trace-cmd knew no name for it, nor do we */
			if (ipt_text_unknown_at(x, addr))
				return -1;
			goto store;
		}
	}
	if (plus) {
		const char *slash = memchr(plus, '/', (size_t)(te - plus));

		if (!starts(plus, te, "+0x") || !parse_hexn(plus + 3, slash ? slash : te, &off) ||
		    (slash && (!starts(slash, te, "/0x") || !parse_hexn(slash + 3, te, &size))))
			return ipt_err_at(x->t->path, x->line_off, "bad offset in stack line");
		x->t->text_stack_offsets = true;	/* frames told apart by offset too */
	}
	if (have_addr) {
		/* the name covers its start to this address (to its size when
		 * given), nothing known beyond */
		if (ipt_text_real_sym(x, p, (size_t)(ne - p), addr - off) ||
		    ipt_text_unknown_at(x, size > off ? addr - off + size : addr + 1))
			return -1;
	} else if (ipt_text_sym_addr(x, p, (size_t)(ne - p), off, size, &addr)) {
		return -1;
	}
store:
	if (rec_reserve(x, x->rlen + 8))
		return -1;
	ipt_put_uint(x->rec + x->rlen, 8, false, addr);
	x->rlen += 8;
	x->pend_n++;
	return 0;
}

/* ipt_text_continuation - a line that belongs to the pending record */
int ipt_text_continuation(struct tx *x, const char *p, const char *e)
{
	const struct einfo *ei = &x->ei[x->pend_ei];

	if (ei->kind == EK_STACK)
		return stack_line(x, p, e);
	/* generic text: append as a new line of the string */
	if (x->rlen + 2 < MAX_PAYLOAD) {
		size_t n = (size_t)(e - p);

		if (n > MAX_PAYLOAD - 2 - x->rlen)
			n = MAX_PAYLOAD - 2 - x->rlen;
		if (rec_reserve(x, x->rlen + (uint32_t)n + 2))
			return -1;
		x->rec[x->rlen++] = '\n';
		memcpy(x->rec + x->rlen, p, n);
		x->rlen += (uint32_t)n;
	}
	return 0;
}
