// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * printfmt_lex.c - the tokens of a print fmt (libtraceevent's
 * __read_token), the arena that holds their text and every other text of
 * a program, and the parse errors
 */
#include "render/printfmt.h"

/* ipt_pf_perr - record the first parse error of this print fmt; returns TK_ERROR */
enum tok ipt_pf_perr(struct parser *p, const char *what)
{
	if (!p->failed)
		ipt_err("%s:%s: print fmt: %s near column %zu", STR(p->ev->system),
			STR(p->ev->name), what, p->pos);
	p->failed = true;
	return TK_ERROR;
}

/* ipt_pf_arena_add - copy n bytes plus a NUL into the arena; its offset or NOSTR */
uint32_t ipt_pf_arena_add(struct parser *p, const char *s, size_t n)
{
	struct ipt_strbuf *a = &p->prog->arena;
	size_t off = a->len;

	if (off + n + 1 >= UINT32_MAX || ipt_strbuf_add(a, s, n) || ipt_strbuf_addc(a, 0))
		return NOSTR;
	return (uint32_t)off;
}

/* ipt_pf_arena_sub - a new arena string: n bytes of the arena at from */
uint32_t ipt_pf_arena_sub(struct parser *p, uint32_t from, size_t n)
{
	struct ipt_strbuf *a = &p->prog->arena;
	size_t off = a->len;

	if (off + n + 1 >= UINT32_MAX || ipt_strbuf_grow(a, n + 1))
		return NOSTR;
	memcpy(a->buf + off, a->buf + from, n);	/* after the grow: buf may move */
	a->buf[off + n] = 0;
	a->len = off + n + 1;
	a->buf[a->len] = 0;
	return (uint32_t)off;
}

/* ipt_pf_arena_join - a new arena string x + mid + y (x, y arena offsets) */
uint32_t ipt_pf_arena_join(struct parser *p, uint32_t x, const char *mid, uint32_t y)
{
	struct ipt_strbuf *a = &p->prog->arena;
	size_t lx = strlen(TXT(p, x)), lm = strlen(mid), ly = strlen(TXT(p, y));
	size_t off = a->len;

	if (off + lx + lm + ly + 1 >= UINT32_MAX || ipt_strbuf_grow(a, lx + lm + ly + 1))
		return NOSTR;
	memcpy(a->buf + off, a->buf + x, lx);
	memcpy(a->buf + off + lx, mid, lm);
	memcpy(a->buf + off + lx + lm, a->buf + y, ly);
	a->buf[off + lx + lm + ly] = 0;
	a->len = off + lx + lm + ly + 1;
	a->buf[a->len] = 0;
	return (uint32_t)off;
}

/* ------------------------------------------------------------------ */
/* Tokenizer (libtraceevent's __read_token)                            */
/* ------------------------------------------------------------------ */

/* lx_getc - next input char as a signed char value, -1 at the end */
static int lx_getc(struct parser *p)
{
	if (p->pos >= p->len)
		return -1;
	return (signed char)p->s[p->pos++];
}

/* lx_peek - the char lx_getc would return, without consuming it */
static int lx_peek(struct parser *p)
{
	if (p->pos >= p->len)
		return -1;
	return (signed char)p->s[p->pos];
}

/* c_space, c_alnum, c_print - ASCII classes (bytes >= 0x80 are negative) */
static bool c_space(int c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool c_alnum(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool c_print(int c)
{
	return c >= 0x20 && c < 0x7f;
}

/* char_type - the token type a char starts */
static enum tok char_type(int c)
{
	if (c == '\n')
		return TK_NEWLINE;
	if (c_space(c))
		return TK_SPACE;
	if (c_alnum(c) || c == '_')
		return TK_ITEM;
	if (c == '\'')
		return TK_SQUOTE;
	if (c == '"')
		return TK_DQUOTE;
	if (!c_print(c))
		return TK_NONE;
	if (c == '(' || c == ')' || c == ',')
		return TK_DELIM;
	return TK_OP;
}

/* tpush - append one char to the token being built */
static bool tpush(struct parser *p, int c)
{
	return !ipt_strbuf_addc(&p->prog->arena, (char)c);
}

/* lx_op - rest of an operator token starting with c (already pushed) */
static bool lx_op(struct parser *p, int c)
{
	bool eq = false;

	if (c == '-' && lx_peek(p) == '>')
		return tpush(p, lx_getc(p));
	switch (c) {
	case '-': case '+': case '|': case '&': case '>': case '<':
		if (lx_peek(p) != c) {
			eq = true;
			break;
		}
		if (!tpush(p, lx_getc(p)))
			return false;
		eq = c == '>' || c == '<';
		break;
	case '!': case '=':
		eq = true;
		break;
	}
	if (eq && lx_peek(p) == '=')
		return tpush(p, lx_getc(p));
	return true;
}

/*
 * lx_quoted - body of a quoted token.  Adjacent double-quoted strings are
 * joined.  The escape test is libtraceevent's: a quote right after any
 * backslash does not end the string, even after "\\".
 */
static enum tok lx_quoted(struct parser *p, int quote, enum tok type)
{
	struct ipt_strbuf *a = &p->prog->arena;
	int c = quote, last;

	for (;;) {
		do {
			last = c;
			c = lx_getc(p);
			if (!tpush(p, c))
				return TK_ERROR;
			if (c == '\\' && last == '\\')
				last = 0;
			if (c <= 0)
				break;
		} while ((c != quote && c_print(c)) || last == '\\' || c == '\n');
		a->len--;		/* the closing quote (or bad char) */
		if (c <= 0)
			return TK_NONE;
		if (type == TK_DQUOTE) {
			size_t save = p->pos;
			int n;

			do
				n = lx_getc(p);
			while (c_space(n));
			if (n == '"')
				continue;
			p->pos = save;
		}
		return type;
	}
}

/* lx_force - replace a known broken macro name by its text (mac80211) */
static enum tok lx_force(struct parser *p, uint32_t *tok)
{
	static const struct { const char *name, *text; } fix[] = {
		{ "LOCAL_PR_FMT", "%s" },
		{ "STA_PR_FMT", " sta:%pM" },
		{ "VIF_PR_FMT", " vif:%p(%d)" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(fix); i++) {
		if (!strcmp(TXT(p, *tok), fix[i].name)) {
			*tok = ipt_pf_arena_add(p, fix[i].text, strlen(fix[i].text));
			return *tok == NOSTR ? TK_ERROR : TK_DQUOTE;
		}
	}
	return TK_ITEM;
}

/* lx_read - read one token; its text goes to the arena (*tok) */
static enum tok lx_read(struct parser *p, uint32_t *tok)
{
	struct ipt_strbuf *a = &p->prog->arena;
	enum tok type;
	int c;

	*tok = NOSTR;
	c = lx_getc(p);
	if (c < 0)
		return TK_NONE;
	type = char_type(c);
	if (type == TK_NONE)
		return type;
	if (type == TK_SPACE) {
		while (char_type(lx_peek(p)) == TK_SPACE)
			p->pos++;
		return type;
	}
	if (a->len >= UINT32_MAX / 2)
		return TK_ERROR;
	*tok = (uint32_t)a->len;
	if (type == TK_DQUOTE || type == TK_SQUOTE) {
		type = lx_quoted(p, c, type);
	} else {
		if (!tpush(p, c))
			return TK_ERROR;
		if (type == TK_OP) {
			if (!lx_op(p, c))
				return TK_ERROR;
		} else if (type == TK_ITEM) {
			while (char_type(lx_peek(p)) == TK_ITEM)
				if (!tpush(p, lx_getc(p)))
					return TK_ERROR;
		}
	}
	if (type == TK_ERROR || !tpush(p, 0))
		return TK_ERROR;
	if (type == TK_NONE)
		*tok = NOSTR;
	if (type == TK_ITEM)
		type = lx_force(p, tok);
	return type;
}

/* ipt_pf_read_token - next token that is not blank (newlines are tokens) */
enum tok ipt_pf_read_token(struct parser *p, uint32_t *tok)
{
	enum tok type;

	while ((type = lx_read(p, tok)) == TK_SPACE)
		;
	return type;
}

/* ipt_pf_read_token_item - next token that is neither blank nor newline */
enum tok ipt_pf_read_token_item(struct parser *p, uint32_t *tok)
{
	enum tok type;

	while ((type = lx_read(p, tok)) == TK_SPACE || type == TK_NEWLINE)
		;
	return type;
}

/* ipt_pf_expect - read a token (newlines count) and check its type and text */
bool ipt_pf_expect(struct parser *p, enum tok type, const char *text, uint32_t *tok)
{
	uint32_t t;
	enum tok got = ipt_pf_read_token(p, &t);

	if (tok)
		*tok = t;
	return got == type && (!text || tok_is(p, t, text));
}
