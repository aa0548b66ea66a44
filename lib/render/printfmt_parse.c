// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * printfmt_parse.c - a print fmt into a program: the format string's
 * literal text and conversions into segments (libtraceevent's
 * parse_args), each conversion taking the next argument
 * (printfmt_args.c); the constants used as numbers resolved
 *
 * As in libtraceevent, %c, %+d and "% d" print ">c<", ">+<d" and "> <d"
 * and consume no argument, and %pK, %pB, %px print the pointer followed
 * by the letter (the letter is not one of a %p kind: it stays text).
 */
#include "render/printfmt.h"

#include <stdlib.h>

static void mark_str(struct parser *p, int32_t i, int depth);

/* mark_num - flag the constants under node i that are evaluated as numbers */
static void mark_num(struct parser *p, int32_t i, int depth)
{
	struct pf_node *n;

	if (i == NONE || depth > PF_MAX_DEPTH)
		return;
	n = ND(p, i);
	switch (n->kind) {
	case N_ATOM:
		n->num = true;
		break;
	case N_OP:
		mark_num(p, n->left, depth + 1);
		mark_num(p, n->right, depth + 1);
		break;
	case N_TYPE:
		mark_num(p, n->right, depth + 1);
		break;
	default:
		mark_str(p, i, depth + 1);
		break;
	}
}

/* mark_str - the same for node i printed with %s */
static void mark_str(struct parser *p, int32_t i, int depth)
{
	struct pf_node *n;

	if (i == NONE || depth > PF_MAX_DEPTH)
		return;
	n = ND(p, i);
	switch (n->kind) {
	case N_OP:
		if (n->op[0] == '?' && n->right != NONE) {
			mark_num(p, n->left, depth + 1);
			mark_str(p, ND(p, n->right)->left, depth + 1);
			mark_str(p, ND(p, n->right)->right, depth + 1);
		}
		break;
	case N_FLAGS: case N_SYMBOL:
		mark_num(p, n->left, depth + 1);
		break;
	case N_HEX: case N_HEX_STR: case N_INT_ARRAY:
		mark_num(p, n->right, depth + 1);
		mark_num(p, n->extra, depth + 1);
		break;
	default:
		break;
	}
}

/*
 * resolve_atoms - numeric values of the constants used as numbers; a name
 * is looked up as a kernel symbol, as libtraceevent does (0 if unknown)
 */
static void resolve_atoms(struct parser *p)
{
	for (int32_t k = 0; k < p->prog->nsegs; k++) {
		const struct pf_seg *g = &p->prog->segs[k];

		mark_num(p, g->len_arg, 0);
		if (g->kind == SEG_STR)
			mark_str(p, g->arg, 0);
		else if (g->kind != SEG_TEXT)
			mark_num(p, g->arg, 0);
	}
	for (int32_t i = 0; i < p->prog->nnodes; i++) {
		struct pf_node *n = ND(p, i);
		const char *s;

		if (n->kind != N_ATOM)
			continue;
		s = TXT(p, n->text);
		n->val = strtoull(s, NULL, 0);
		if (n->num && !n->val && !(*s >= '0' && *s <= '9'))
			n->val = ipt_trace_symbol_addr(p->t, s);
	}
}

/* ------------------------------------------------------------------ */
/* Format string -> segments (libtraceevent's parse_args)              */
/* ------------------------------------------------------------------ */

/* seg_new - append a zeroed segment; NULL when out of memory */
static struct pf_seg *seg_new(struct parser *p)
{
	struct pf_prog *g = p->prog;
	struct pf_seg *s;

	if (g->nsegs >= PF_MAX_NODES) {
		ipt_pf_perr(p, "format too long");
		return NULL;
	}
	if (IPT_GROW(g->segs, g->capsegs, g->nsegs + 1)) {
		p->failed = true;
		return NULL;
	}
	s = &g->segs[g->nsegs++];
	memset(s, 0, sizeof(*s));
	s->arg = s->len_arg = NONE;
	s->width = s->prec = -1;
	return s;
}

/* add_text - a literal segment (fmt is an arena offset, so recompute) */
static int add_text(struct parser *p, const char *s, size_t n)
{
	uint32_t off = ipt_pf_arena_add(p, s, n);
	struct pf_seg *g;

	if (off == NOSTR || !(g = seg_new(p)))
		return -1;
	g->kind = SEG_TEXT;
	g->text = off;
	g->tlen = (uint32_t)n;
	return 0;
}

/* compile_text - literal text up to the next conversion; chars consumed */
static size_t compile_text(struct parser *p, uint32_t fmt, size_t at, struct ipt_strbuf *tmp)
{
	const char *f = TXT(p, fmt) + at;
	size_t i = 0;

	tmp->len = 0;
	for (; f[i]; i++) {
		char c = f[i];

		if (c == '\\') {
			if (!f[i + 1])
				break;		/* cannot happen with the tokenizer */
			c = f[++i];
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
		} else if (c == '%') {
			if (f[i + 1] != '%')
				break;
			i++;
		}
		if (ipt_strbuf_addc(tmp, c))
			return 0;
	}
	if (add_text(p, tmp->buf ? tmp->buf : "", tmp->len))
		return 0;
	return i ? i : 1;
}

/* ptr_letters - how many letters after 'p' libtraceevent takes as the kind */
static size_t ptr_letters(const char *f)
{
	size_t n;

	switch (f[0]) {
	case 'F': case 'S': case 'f': case 's':
		return 1;
	case 'M': case 'm':
		return f[1] == 'R' || f[1] == 'F' ? 2 : 1;
	case 'I': case 'i':
		if (f[1] == '4')
			return strchr("hnlb", f[2]) && f[2] ? 3 : 2;
		if (f[1] == '6')
			return f[2] == 'c' ? 3 : 2;
		if (f[1] != 'S')
			return 1;
		for (n = 2; f[n] && strchr("pfs", f[n]); n++)
			;
		if (f[n] && strchr("hnlb", f[n]))
			n++;
		return n + (f[n] == 'c');
	case 'U':
		return f[1] && strchr("LlBb", f[1]) ? 2 : 1;
	case 'h':
		return f[1] && strchr("CDN", f[1]) ? 2 : 1;
	default:
		return 0;
	}
}

/*
 * check_spec - flags, width, precision and length of "%...c" in C order
 * (what glibc will be given).  Fills the segment; false if not C.
 */
static bool check_spec(struct pf_seg *s, const char *f, size_t n, bool star)
{
	size_t i = 1;
	long v;

	for (; i < n && strchr("-0#", f[i]); i++)
		s->left |= f[i] == '-';
	if (f[i] == '*') {
		s->star = 1;
		i++;
	} else if (f[i] >= '1' && f[i] <= '9') {
		for (v = 0; f[i] >= '0' && f[i] <= '9'; i++)
			if ((v = v * 10 + f[i] - '0') > PF_MAX_WIDTH)
				return false;
		s->width = (int)v;
	}
	if (f[i] == '.') {
		if (f[++i] == '*') {
			if (s->star)
				return false;
			s->star = 2;
			i++;
		} else {
			for (v = 0; f[i] >= '0' && f[i] <= '9'; i++)
				if ((v = v * 10 + f[i] - '0') > PF_MAX_WIDTH)
					return false;
			s->prec = (int)v;
		}
	}
	s->fast = i == 1;
	if (!strncmp(f + i, "hh", 2) || !strncmp(f + i, "ll", 2))
		i += 2;
	else if (f[i] && strchr("hlLzZ", f[i]))
		i++;
	return i == n - 1 && (s->star != 0) == star;
}

/* conv_arg - take the next print argument for a conversion */
static bool conv_arg(struct parser *p, int32_t *args, int32_t *out)
{
	if (*args == NONE) {
		ipt_pf_perr(p, "more conversions than arguments");
		return false;
	}
	*out = *args;
	*args = ND(p, *args)->next;
	return true;
}

/* add_conv - the segment of one conversion f[0..n) ("%...c") */
static int add_conv(struct parser *p, uint32_t fmt, size_t at, size_t n, int ls,
		    int32_t len_arg, int32_t *args)
{
	const char *f = TXT(p, fmt) + at;
	char c = f[n - 1];
	struct pf_seg *s;
	int32_t arg;
	size_t pl = 0;

	if (c == 'p')
		pl = ptr_letters(f + n);
	if (n + pl > (c == 'p' || c == 's' ? 31 : 30))
		return ipt_pf_perr(p, "conversion too long"), -1;
	if (ls < -2 || ls > 2)
		return ipt_pf_perr(p, "bad length modifier"), -1;
	if (!conv_arg(p, args, &arg) || !(s = seg_new(p)))
		return -1;
	s->conv = c;
	s->ls = (int8_t)ls;
	s->arg = arg;
	s->len_arg = len_arg;
	if (c == 'p') {
		s->kind = SEG_PTR;
		memcpy(s->pc, f + n, pl < sizeof(s->pc) ? pl : sizeof(s->pc) - 1);
		return (int)(n + pl);
	}
	s->kind = c == 's' ? SEG_STR : SEG_NUM;
	if (!check_spec(s, f, n, len_arg != NONE))
		return ipt_pf_perr(p, "conversion not understood"), -1;
	if (c == 's' && ls)
		return ipt_pf_perr(p, "%ls not supported"), -1;
	if (s->kind == SEG_NUM) {
		uint32_t off = ipt_pf_arena_sub(p, fmt + (uint32_t)at, n);

		s = &p->prog->segs[p->prog->nsegs - 1];
		if (off == NOSTR)
			return -1;
		s->text = off;
		s->tlen = (uint32_t)n;
		s->fast = s->fast && c != 'X' && c != 'o';
	}
	return (int)n;
}

/*
 * compile_conv - one conversion at fmt[at] ('%'); chars consumed, -1 on error.
 * Scans as libtraceevent does: a character it does not know ends the
 * conversion and is printed as ">c<", consuming no argument.
 */
static int compile_conv(struct parser *p, uint32_t fmt, size_t at, int32_t *args)
{
	int32_t len_arg = NONE;
	size_t i;
	int ls = 0;

	for (i = 1;; i++) {
		char c = TXT(p, fmt)[at + i], txt[4] = { '>', c, '<', 0 };

		switch (c) {
		case 0:
			return (int)i;
		case '#': case '.': case '-':
		case '0': case '1': case '2': case '3': case '4':
		case '5': case '6': case '7': case '8': case '9':
			break;
		case 'h': ls--; break;
		case 'l': ls++; break;
		case 'L': ls = 2; break;
		case 'z': case 'Z': ls = 1; break;
		case '*':
			if (len_arg != NONE) {
				ipt_pf_perr(p, "two '*' in one conversion");
				return -1;
			}
			if (!conv_arg(p, args, &len_arg))
				return -1;
			break;
		case 'p': case 'd': case 'u': case 'i': case 'x': case 'X': case 'o': case 's':
			return add_conv(p, fmt, at, i + 1, ls, len_arg, args);
		default:
			return add_text(p, txt, 3) ? -1 : (int)i + 1;
		}
	}
}

/* compile_format - the format string into segments, taking arguments in order */
static int compile_format(struct parser *p, uint32_t fmt, int32_t args)
{
	struct ipt_strbuf tmp = IPT_STRBUF_INIT;
	size_t at = 0, len = strlen(TXT(p, fmt));
	int n, ret = 0;

	while (at < len) {
		const char *f = TXT(p, fmt) + at;

		if (f[0] == '%' && f[1] != '%') {
			n = compile_conv(p, fmt, at, &args);
		} else {
			size_t k = compile_text(p, fmt, at, &tmp);

			n = k ? (int)k : -1;
		}
		if (n < 0) {
			ret = -1;
			break;
		}
		at += (size_t)n;
	}
	ipt_strbuf_free(&tmp);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Building programs                                                   */
/* ------------------------------------------------------------------ */

/* ipt_printfmt_free - a program and all it holds */
void ipt_printfmt_free(struct pf_prog *prog)
{
	if (!prog)
		return;
	free(prog->nodes);
	free(prog->syms);
	free(prog->segs);
	ipt_strbuf_free(&prog->arena);
	free(prog);
}

/* ipt_printfmt_parse - build the program of ev's print fmt; NULL (ipt_err) if unusable */
struct pf_prog *ipt_printfmt_parse(struct ipt_trace *t, const struct ipt_event *ev)
{
	struct parser p = { .ev = ev, .t = t };
	uint32_t fmt;
	int32_t args = NONE;
	int nargs = 0;
	enum tok type;

	if (!ev->print_fmt || strlen(ev->print_fmt) > PF_MAX_TEXT) {
		ipt_err("%s:%s: print fmt missing or too long", STR(ev->system), STR(ev->name));
		return NULL;
	}
	if (!strcmp(STR(ev->system), "ftrace") && !strcmp(STR(ev->name), "bprint")) {
		ipt_err("ftrace:bprint has no fixed print fmt");
		return NULL;
	}
	p.s = ev->print_fmt;
	p.len = strlen(p.s);
	if (!(p.prog = ipt_calloc(1, sizeof(*p.prog))))
		return NULL;
	if (!ipt_pf_expect(&p, TK_DQUOTE, NULL, &fmt)) {
		ipt_pf_perr(&p, "no format string");
		goto fail;
	}
	for (;;) {
		uint32_t token;

		type = ipt_pf_read_token_item(&p, &token);
		if (type == TK_NONE)
			break;
		if (type == TK_DQUOTE) {
			if ((fmt = ipt_pf_arena_join(&p, fmt, "", token)) == NOSTR)
				goto fail;
			continue;
		}
		if (type != TK_DELIM || !tok_is(&p, token, ",")) {
			ipt_pf_perr(&p, "expected ',' after the format string");
			goto fail;
		}
		if (ipt_pf_read_args(&p, &args, &nargs))
			goto fail;
		break;
	}
	if (!nargs && !strcmp(STR(ev->system), "ftrace") && ipt_pf_ftrace_args(&p, &args))
		goto fail;
	if (compile_format(&p, fmt, args))
		goto fail;
	resolve_atoms(&p);
	return p.prog;
fail:
	if (!p.failed)
		ipt_pf_perr(&p, "cannot parse");
	ipt_printfmt_free(p.prog);
	return NULL;
}
