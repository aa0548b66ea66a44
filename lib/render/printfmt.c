// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * printfmt.c - render a record from its event's "print fmt:" text, the way
 * libtraceevent 1.7 (and so `trace-cmd report` 3.1) prints it
 *
 * The print fmt is parsed once per event into a program: a tree of argument
 * nodes and a list of output segments (literal text and conversions).  The
 * parser follows libtraceevent's own algorithm step by step, quirks
 * included, because the point is to print exactly what trace-cmd prints:
 *  - its operator handling is not C's: a parenthesised operand of higher
 *    precedence is re-associated (a * (b + c) is (a * b) + c), anything after
 *    a ?: wraps the whole conditional, and so on;
 *  - fields are read unsigned; only the conversion's length modifier signs;
 *  - %c, %+d, "% d" print ">c<", ">+<d", "> <d" and consume no argument;
 *  - %pS/%pF print "sym+0xoff" even for offset 0; %pK, %pB, %px print the
 *    pointer followed by the letter;
 *  - a long-sized non-array field printed with %s is a pointer: its printk
 *    string, else its address in hex without 0x;
 *  - __get_dynamic_array(x)[i] and sizeof(u64) do not parse.
 * Where libtraceevent would read outside the record or crash (division by
 * zero, bad widths), rendering fails instead and the caller falls back.
 *
 * Records and print fmt texts are untrusted: every read is bounded by the
 * record, parsing depth and sizes are bounded, and rendering allocates
 * nothing but output.  Programs are immutable once built; several threads
 * may render records of one event at once.
 */
#include "render/render.h"

#include <pthread.h>
#include <stdlib.h>

#define PF_MAX_TEXT	(64 * 1024)	/* longest print fmt accepted */
#define PF_MAX_DEPTH	256		/* parser and evaluator nesting */
#define PF_MAX_NODES	(256 * 1024)
#define PF_MAX_WIDTH	4096		/* width / precision in the format */
#define PF_MAX_STAR	65536		/* width / precision from an argument */
#define NOSTR		UINT32_MAX	/* "no text" arena offset */
#define NONE		(-1)		/* "no node" index */

/* Token types, as libtraceevent's tokenizer classifies them. */
enum tok {
	TK_ERROR, TK_NONE, TK_SPACE, TK_NEWLINE, TK_OP, TK_DELIM, TK_ITEM,
	TK_DQUOTE, TK_SQUOTE,
};

/*
 * Argument node kinds.  The numbers are libtraceevent's (enum
 * tep_print_arg_type), because one of its messages prints them.
 */
enum node_kind {
	N_NULL, N_ATOM, N_FIELD, N_FLAGS, N_SYMBOL, N_HEX, N_INT_ARRAY, N_TYPE,
	N_STRING, N_BSTRING, N_DYNARRAY, N_OP, N_FUNC, N_BITMASK,
	N_DYNARRAY_LEN, N_HEX_STR, N_CPUMASK,
};

/*
 * One argument node.  Children are node indexes:
 *  N_OP: left, right (left is an N_NULL node for unary operators);
 *        "?" has right = a ":" node holding both branches;
 *  N_TYPE: right = the cast item, text = the type name;
 *  N_FLAGS, N_SYMBOL: left = value, syms = entries, text = delimiter;
 *  N_HEX, N_HEX_STR: left = array, right = length;
 *  N_INT_ARRAY: left = array, right = count, extra = element size.
 */
struct pf_node {
	uint8_t kind;
	char op[4];		/* N_OP: the operator text */
	int8_t prio;		/* N_OP: precedence fixed at parse time */
	uint8_t cast;		/* N_TYPE: mask as a value cast (enum cast) */
	uint8_t cast_ptr;	/* N_TYPE: mask as an array element cast */
	bool num;		/* N_ATOM: evaluated as a number somewhere */
	int32_t left, right, extra;
	int32_t next;		/* next print argument */
	int32_t syms;		/* first pf_sym entry */
	uint32_t text;		/* arena offset */
	uint32_t elem;		/* N_FIELD, N_DYNARRAY: libtraceevent's elementsize */
	uint64_t val;		/* N_ATOM: numeric value */
	const struct ipt_field *field;
};

/* A { value, "string" } entry of __print_flags / __print_symbolic. */
struct pf_sym {
	int64_t value;
	uint32_t str;
	int32_t next;
};

enum seg_kind { SEG_TEXT, SEG_NUM, SEG_PTR, SEG_STR };
enum cast { C_NONE, C_8, C_16, C_32 };

/* One output piece: literal text or a conversion with its argument. */
struct pf_seg {
	uint8_t kind;
	int8_t ls;		/* SEG_NUM length: -2 hh, -1 h, 0, 1 l/z, 2 ll/L */
	char conv;		/* d i u x X o s p */
	char pc[8];		/* SEG_PTR: letters after 'p' that it uses */
	bool fast;		/* no flags, width or precision */
	bool left;		/* '-' flag */
	uint8_t star;		/* 0, 1: width from len_arg, 2: precision */
	int width, prec;	/* -1 when absent */
	int32_t arg, len_arg;
	uint32_t text, tlen;	/* SEG_TEXT: the text; SEG_NUM: printf format */
};

struct pf_prog {
	struct pf_node *nodes;
	int32_t nnodes, capnodes;
	struct pf_sym *syms;
	int32_t nsyms, capsyms;
	struct pf_seg *segs;
	int32_t nsegs, capsegs;
	struct ipt_strbuf arena;	/* all texts, NUL-terminated */
};

/* Parser state: the input, the program being built, the event. */
struct parser {
	const char *s;
	size_t len, pos;
	struct pf_prog *prog;
	const struct ipt_event *ev;
	struct ipt_trace *t;
	int depth;
	bool failed;		/* an error message is already set */
};

#define ND(p, i) (&(p)->prog->nodes[(i)])
#define TXT(p, off) ((p)->prog->arena.buf + (off))
#define STR(s) ((s) ? (s) : "")	/* a name that may be missing */

/* ------------------------------------------------------------------ */
/* Errors, arena, nodes                                                */
/* ------------------------------------------------------------------ */

/* perr - record the first parse error of this print fmt; returns TK_ERROR */
static enum tok perr(struct parser *p, const char *what)
{
	if (!p->failed)
		ipt_err("%s:%s: print fmt: %s near column %zu", STR(p->ev->system),
			STR(p->ev->name), what, p->pos);
	p->failed = true;
	return TK_ERROR;
}

/* arena_add - copy n bytes plus a NUL into the arena; its offset or NOSTR */
static uint32_t arena_add(struct parser *p, const char *s, size_t n)
{
	struct ipt_strbuf *a = &p->prog->arena;
	size_t off = a->len;

	if (off + n + 1 >= UINT32_MAX || sb_add(a, s, n) || sb_addc(a, 0))
		return NOSTR;
	return (uint32_t)off;
}

/* arena_sub - a new arena string: n bytes of the arena at from */
static uint32_t arena_sub(struct parser *p, uint32_t from, size_t n)
{
	struct ipt_strbuf *a = &p->prog->arena;
	size_t off = a->len;

	if (off + n + 1 >= UINT32_MAX || sb_grow(a, n + 1))
		return NOSTR;
	memcpy(a->buf + off, a->buf + from, n);	/* after the grow: buf may move */
	a->buf[off + n] = 0;
	a->len = off + n + 1;
	a->buf[a->len] = 0;
	return (uint32_t)off;
}

/* arena_join - a new arena string x + mid + y (x, y arena offsets) */
static uint32_t arena_join(struct parser *p, uint32_t x, const char *mid, uint32_t y)
{
	struct ipt_strbuf *a = &p->prog->arena;
	size_t lx = strlen(TXT(p, x)), lm = strlen(mid), ly = strlen(TXT(p, y));
	size_t off = a->len;

	if (off + lx + lm + ly + 1 >= UINT32_MAX || sb_grow(a, lx + lm + ly + 1))
		return NOSTR;
	memcpy(a->buf + off, a->buf + x, lx);
	memcpy(a->buf + off + lx, mid, lm);
	memcpy(a->buf + off + lx + lm, a->buf + y, ly);
	a->buf[off + lx + lm + ly] = 0;
	a->len = off + lx + lm + ly + 1;
	a->buf[a->len] = 0;
	return (uint32_t)off;
}

/* tok_is - whether token text off equals s (false for NOSTR) */
static bool tok_is(struct parser *p, uint32_t off, const char *s)
{
	return off != NOSTR && !strcmp(TXT(p, off), s);
}

/* node_new - a fresh N_NULL node; its index, or NONE when out of room */
static int32_t node_new(struct parser *p)
{
	struct pf_prog *g = p->prog;
	struct pf_node *n;

	if (g->nnodes == g->capnodes) {
		int32_t cap = g->capnodes ? g->capnodes * 2 : 32;

		if (cap > PF_MAX_NODES) {
			perr(p, "too many nodes");
			return NONE;
		}
		n = ipt_realloc(g->nodes, (size_t)cap * sizeof(*n));
		if (!n) {
			p->failed = true;
			return NONE;
		}
		g->nodes = n;
		g->capnodes = cap;
	}
	n = &g->nodes[g->nnodes];
	memset(n, 0, sizeof(*n));
	n->left = n->right = n->extra = n->next = n->syms = NONE;
	n->text = NOSTR;
	return g->nnodes++;
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
	return !sb_addc(&p->prog->arena, (char)c);
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
			*tok = arena_add(p, fix[i].text, strlen(fix[i].text));
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

/* read_token - next token that is not blank (newlines are tokens) */
static enum tok read_token(struct parser *p, uint32_t *tok)
{
	enum tok type;

	while ((type = lx_read(p, tok)) == TK_SPACE)
		;
	return type;
}

/* read_token_item - next token that is neither blank nor newline */
static enum tok read_token_item(struct parser *p, uint32_t *tok)
{
	enum tok type;

	while ((type = lx_read(p, tok)) == TK_SPACE || type == TK_NEWLINE)
		;
	return type;
}

/* expect - read a token (newlines count) and check its type and text */
static bool expect(struct parser *p, enum tok type, const char *text, uint32_t *tok)
{
	uint32_t t;
	enum tok got = read_token(p, &t);

	if (tok)
		*tok = t;
	return got == type && (!text || tok_is(p, t, text));
}

/* item_type - a token that can be a name or a constant */
static bool item_type(enum tok type)
{
	return type == TK_ITEM || type == TK_DQUOTE || type == TK_SQUOTE;
}

/* ------------------------------------------------------------------ */
/* Fields, types, constant evaluation                                  */
/* ------------------------------------------------------------------ */

/* find_field - field by name; common fields first unless any is false */
static const struct ipt_field *find_field(const struct ipt_event *ev, const char *name,
					  bool any)
{
	for (int pass = any ? 0 : 1; pass < 2; pass++)
		for (int i = 0; i < ev->nfields; i++) {
			const struct ipt_field *f = &ev->fields[i];
			bool common = f->flags & IPT_FIELD_COMMON;

			if (common == (pass == 0) && !strcmp(STR(f->name), name))
				return f;
		}
	return NULL;
}

/* field_is_array - libtraceevent's TEP_FIELD_IS_ARRAY */
static bool field_is_array(const struct ipt_field *f)
{
	return (f->flags & IPT_FIELD_ARRAY) || strchr(STR(f->type), '[') ||
	       ((f->flags & IPT_FIELD_DYNAMIC) && f->size == 2);
}

/* last_word_size - size of the last word of type before '[' (u8..s64, char) */
static unsigned int last_word_size(const char *type)
{
	static const struct { const char *name; unsigned int size; } tab[] = {
		{ "u8", 1 }, { "u16", 2 }, { "u32", 4 }, { "u64", 8 },
		{ "s8", 1 }, { "s16", 2 }, { "s32", 4 }, { "s64", 8 }, { "char", 1 },
	};
	const char *br = strchr(type, '['), *w;
	size_t n;

	if (!br)
		return 0;
	while (br > type && br[-1] == ' ')
		br--;
	w = br;
	while (w > type && w[-1] != ' ')
		w--;
	n = (size_t)(br - w);
	for (size_t i = 0; i < ARRAY_SIZE(tab); i++)
		if (strlen(tab[i].name) == n && !memcmp(tab[i].name, w, n))
			return tab[i].size;
	return 0;
}

/* elem_size - libtraceevent's elementsize of a field */
static unsigned int elem_size(const struct ipt_trace *t, const struct ipt_field *f)
{
	const char *type = STR(f->type);

	if (!(f->flags & IPT_FIELD_DYNAMIC) && !field_is_array(f))
		return f->size;
	if ((f->flags & IPT_FIELD_ARRAY) && f->nelem && !strchr(type, '['))
		return f->size / f->nelem;
	if (f->flags & IPT_FIELD_DYNAMIC)
		return last_word_size(type);
	if (strstr(type, "char") || strstr(type, "u8") || strstr(type, "s8"))
		return 1;
	if (strstr(type, "long"))
		return (unsigned int)t->long_size;
	return 0;
}

/* type_cast - the mask libtraceevent applies for a cast to type (eval_type_str) */
static enum cast type_cast(const char *type, bool pointer)
{
	static const struct { const char *name; enum cast c; } fixed[] = {
		{ "u8", C_8 }, { "u16", C_16 }, { "u32", C_32 },
		{ "s8", C_8 }, { "s16", C_16 }, { "s32", C_32 },
	}, plain[] = {
		{ "char", C_8 }, { "short", C_16 }, { "int", C_32 },
	};
	size_t len = strlen(type);
	char buf[256];

	if (len < 2)
		return C_NONE;
	if (pointer) {
		if (type[len - 1] != '*' || len - 2 >= sizeof(buf))
			return C_NONE;
		memcpy(buf, type, len - 2);	/* drop " *" */
		buf[len - 2] = 0;
		return type_cast(buf, false);
	}
	if (type[len - 1] == '*' || !strncmp(type, "struct", 6))
		return C_NONE;
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		if (!strcmp(type, fixed[i].name))
			return fixed[i].c;
	if (!strncmp(type, "unsigned ", 9))
		type += 9;
	for (size_t i = 0; i < ARRAY_SIZE(plain); i++)
		if (!strcmp(type, plain[i].name))
			return plain[i].c;
	return C_NONE;
}

/* apply_cast - mask a value as a cast does */
static uint64_t apply_cast(uint64_t v, enum cast c)
{
	switch (c) {
	case C_8: return v & 0xff;
	case C_16: return v & 0xffff;
	case C_32: return v & 0xffffffff;
	default: return v;
	}
}

/* shl - left shift with the count masked to 6 bits, as x86 does */
static uint64_t shl(uint64_t a, uint64_t n)
{
	return a << (n & 63);
}

/* shr - right shift, count masked likewise */
static uint64_t shr(uint64_t a, uint64_t n)
{
	return a >> (n & 63);
}

/* fold_op - op on two constants (libtraceevent's consolidation); false if not foldable */
static bool fold_op(const char *op, uint64_t l, uint64_t r, uint64_t *v, bool *divzero)
{
	*divzero = false;
	switch (op[0]) {
	case '>': *v = op[1] == '>' ? shr(l, r) : op[1] == '=' ? l >= r : l > r; return true;
	case '<': *v = op[1] == '<' ? shl(l, r) : op[1] == '=' ? l <= r : l < r; return true;
	case '&': *v = op[1] ? (l && r) : (l & r); return true;
	case '|': *v = op[1] ? (l || r) : (l | r); return true;
	case '-': *v = l - r; return true;
	case '+': *v = l + r; return true;
	case '*': *v = l * r; return true;
	case '^': *v = l ^ r; return true;
	case '/': case '%':
		if (!r) {
			*divzero = true;
			return false;
		}
		*v = op[0] == '/' ? l / r : l % r;
		return true;
	case '=': *v = l == r; return true;
	case '!': *v = l != r; return true;
	default: return false;
	}
}

/* consolidate - fold operators whose operands are both constants */
static int consolidate(struct parser *p, int32_t i, int depth)
{
	struct pf_node *n = ND(p, i);
	int32_t l = n->left, r = n->right;
	uint64_t v;
	bool dz;
	char buf[24];

	if (n->kind != N_OP)
		return 0;
	if (depth > PF_MAX_DEPTH)
		return perr(p, "expression too deep"), -1;
	if ((l != NONE && consolidate(p, l, depth + 1)) ||
	    (r != NONE && consolidate(p, r, depth + 1)))
		return -1;
	if (l == NONE || r == NONE || ND(p, l)->kind != N_ATOM || ND(p, r)->kind != N_ATOM)
		return 0;
	if (!fold_op(ND(p, i)->op, strtoull(TXT(p, ND(p, l)->text), NULL, 0),
		     strtoull(TXT(p, ND(p, r)->text), NULL, 0), &v, &dz))
		return dz ? (perr(p, "division by zero"), -1) : 0;
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	n = ND(p, i);
	n->kind = N_ATOM;
	n->text = arena_add(p, buf, strlen(buf));
	return n->text == NOSTR ? -1 : 0;
}

/* num_op - the operators libtraceevent evaluates in flag values (signed) */
static bool num_op(char o0, char o1, int64_t l, int64_t r, int64_t *val)
{
	uint64_t ul = (uint64_t)l, ur = (uint64_t)r;

	switch (o0) {
	case '|': *val = o1 ? (l || r) : (int64_t)(ul | ur); return true;
	case '&': *val = o1 ? (l && r) : (int64_t)(ul & ur); return true;
	case '<':
		*val = o1 == '<' ? (int64_t)shl(ul, ur) : o1 == '=' ? l <= r : l < r;
		return true;
	case '>':
		*val = o1 == '>' ? l >> (r & 63) : o1 == '=' ? l >= r : l > r;
		return true;
	case '=': *val = l == r; return o1 == '=';
	case '!': *val = l != r; return o1 == '=';
	case '-': *val = (int64_t)(ul - ur); return true;
	case '+': *val = (int64_t)(ul + ur); return true;
	case '~': *val = ~r; return true;
	default: return false;
	}
}

/* num_eval - signed constant value of an expression (flag values); false if none */
static bool num_eval(struct parser *p, int32_t i, int64_t *val, int depth)
{
	struct pf_node *n = ND(p, i);
	int64_t l = 0, r = 0;
	char o0, o1;

	if (depth > PF_MAX_DEPTH)
		return false;
	if (n->kind == N_ATOM) {
		*val = strtoll(TXT(p, n->text), NULL, 0);
		return true;
	}
	if (n->kind == N_TYPE) {
		if (!num_eval(p, n->right, val, depth + 1))
			return false;
		*val = (int64_t)apply_cast((uint64_t)*val, n->cast);
		return true;
	}
	if (n->kind != N_OP || n->left == NONE || n->right == NONE)
		return false;
	o0 = n->op[0];
	o1 = n->op[1];
	if (o0 != '~' && !((o0 == '-' || o0 == '+') && ND(p, n->left)->kind == N_NULL) &&
	    !num_eval(p, n->left, &l, depth + 1))
		return false;
	if (!num_eval(p, n->right, &r, depth + 1))
		return false;
	return num_op(o0, o1, l, r, val);
}

/* const_text - a flag entry's value or string as libtraceevent keeps it */
static uint32_t const_text(struct parser *p, int32_t i)
{
	char buf[24];
	int64_t v;

	while (ND(p, i)->kind == N_TYPE)
		i = ND(p, i)->right;
	if (ND(p, i)->kind == N_ATOM)
		return ND(p, i)->text;
	if (ND(p, i)->kind != N_OP || !num_eval(p, i, &v, 0))
		return NOSTR;
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	return arena_add(p, buf, strlen(buf));
}

/* flag_value - libtraceevent's eval_flag: a number or a few known names, else -1 */
static int64_t flag_value(const char *s)
{
	static const struct { const char *name; int value; } known[] = {
		{ "HI_SOFTIRQ", 0 }, { "TIMER_SOFTIRQ", 1 }, { "NET_TX_SOFTIRQ", 2 },
		{ "NET_RX_SOFTIRQ", 3 }, { "BLOCK_SOFTIRQ", 4 }, { "IRQ_POLL_SOFTIRQ", 5 },
		{ "TASKLET_SOFTIRQ", 6 }, { "SCHED_SOFTIRQ", 7 }, { "HRTIMER_SOFTIRQ", 8 },
		{ "RCU_SOFTIRQ", 9 }, { "HRTIMER_NORESTART", 0 }, { "HRTIMER_RESTART", 1 },
	};

	if (*s >= '0' && *s <= '9')
		return (int64_t)strtoull(s, NULL, 0);
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (!strcmp(known[i].name, s))
			return known[i].value;
	return -1;
}

/* ------------------------------------------------------------------ */
/* Argument parser (libtraceevent's process_* functions)               */
/* ------------------------------------------------------------------ */

static enum tok process_arg_token(struct parser *p, int32_t arg, uint32_t *tok,
				  enum tok type);
static enum tok process_op(struct parser *p, int32_t arg, uint32_t *tok);

/* process_arg - read a token and parse the argument it starts */
static enum tok process_arg(struct parser *p, int32_t arg, uint32_t *tok)
{
	enum tok type = read_token(p, tok);

	return process_arg_token(p, arg, tok, type);
}

/* process_field_arg - an argument with all its operators */
static enum tok process_field_arg(struct parser *p, int32_t arg, uint32_t *tok)
{
	enum tok type = process_arg(p, arg, tok);

	while (type == TK_OP)
		type = process_op(p, arg, tok);
	return type;
}

/* op_prio - libtraceevent's precedence of an operator (-1: unknown) */
static int op_prio(const char *op)
{
	static const struct { const char *op; int prio; } tab[] = {
		{ "~", 4 }, { "!", 4 }, { "*", 6 }, { "/", 6 }, { "%", 6 },
		{ "+", 7 }, { "-", 7 }, { "<", 9 }, { ">", 9 }, { "&", 11 },
		{ "^", 12 }, { "|", 13 }, { "?", 16 }, { "++", 3 }, { "--", 3 },
		{ ">>", 8 }, { "<<", 8 }, { ">=", 9 }, { "<=", 9 }, { "==", 10 },
		{ "!=", 10 }, { "&&", 14 }, { "||", 15 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(tab); i++)
		if (!strcmp(tab[i].op, op))
			return tab[i].prio;
	return -1;
}

/* is_binary_op - the operators libtraceevent accepts between two operands */
static bool is_binary_op(const char *op)
{
	static const char *const ops[] = {
		">>", "<<", "&", "|", "&&", "||", "-", "+", "*", "^", "/", "%",
		"<", ">", "<=", ">=", "==", "!=",
	};

	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		if (!strcmp(ops[i], op))
			return true;
	return false;
}

/* set_op - make node i an operator node with left child l */
static bool set_op(struct parser *p, int32_t i, uint32_t tok, int32_t l)
{
	struct pf_node *n = ND(p, i);
	const char *op = TXT(p, tok);

	if (strlen(op) >= sizeof(n->op))
		return false;
	memset(n, 0, sizeof(*n));
	n->kind = N_OP;
	strcpy(n->op, op);
	n->left = l;
	n->right = n->extra = n->next = n->syms = NONE;
	n->text = NOSTR;
	return true;
}

/* push_down - move node i's content to a new node (the new left operand) */
static int32_t push_down(struct parser *p, int32_t i)
{
	int32_t l = node_new(p);

	if (l != NONE)
		*ND(p, l) = *ND(p, i);
	return l;
}

/* process_cond - the branches of "cond ? a : b"; top is the "?" node */
static enum tok process_cond(struct parser *p, int32_t top, uint32_t *tok)
{
	int32_t arg = node_new(p), left = node_new(p), right = node_new(p);
	uint32_t token;
	enum tok type;

	if (arg == NONE || left == NONE || right == NONE)
		return TK_ERROR;
	ND(p, arg)->kind = N_OP;
	ND(p, arg)->left = left;
	ND(p, arg)->right = right;
	type = process_arg(p, left, &token);
	while (type == TK_OP && !tok_is(p, token, ":"))
		type = process_op(p, left, &token);
	if (type != TK_OP || !tok_is(p, token, ":"))
		return perr(p, "expected ':'");
	strcpy(ND(p, arg)->op, ":");
	type = process_arg(p, right, &token);
	ND(p, top)->right = arg;
	*tok = token;
	return type;
}

/* process_array - the index of "x[i]"; top is the "[" node */
static enum tok process_array(struct parser *p, int32_t top, uint32_t *tok)
{
	int32_t arg = node_new(p);
	uint32_t token;
	enum tok type;

	if (arg == NONE)
		return TK_ERROR;
	type = process_arg(p, arg, &token);
	if (type != TK_OP || !tok_is(p, token, "]"))
		return perr(p, "expected ']'");
	ND(p, top)->right = arg;
	return read_token_item(p, tok);
}

/* process_unary - "-x", "!x", "~x", "+x": arg already holds the operator */
static enum tok process_unary(struct parser *p, int32_t arg, uint32_t *tok, int32_t *right)
{
	const char *op = TXT(p, *tok);
	int32_t left;

	if (!strchr("~!+-", op[0]) || !op[0] || op[1])
		return perr(p, "bad operator");
	left = node_new(p);
	*right = node_new(p);
	if (left == NONE || *right == NONE)
		return TK_ERROR;
	ND(p, arg)->left = left;
	ND(p, arg)->right = *right;
	return process_arg(p, *right, tok);
}

/* process_binary - "l OP r": arg holds l; reorders by libtraceevent's rules */
static enum tok process_binary(struct parser *p, int32_t arg, uint32_t *tok, int32_t *rightp)
{
	int32_t left = push_down(p, arg), right;
	uint32_t optok = *tok, token;
	struct pf_node tmp;
	enum tok type;

	if (left == NONE || !set_op(p, arg, optok, left))
		return TK_ERROR;
	ND(p, arg)->prio = (int8_t)(ND(p, left)->kind == N_NULL ? 0 : op_prio(ND(p, arg)->op));
	type = read_token_item(p, &token);
	*tok = token;
	if (!strcmp(ND(p, arg)->op, "*") && type == TK_DELIM && tok_is(p, token, ")")) {
		/* "(type *)": the '*' belongs to the type name */
		if (ND(p, left)->kind != N_ATOM)
			return perr(p, "bad pointer type");
		ND(p, left)->text = arena_join(p, ND(p, left)->text, " ", optok);
		if (ND(p, left)->text == NOSTR)
			return TK_ERROR;
		*ND(p, arg) = *ND(p, left);
		*rightp = NONE;
		return type;
	}
	right = node_new(p);
	if (right == NONE)
		return TK_ERROR;
	*rightp = right;
	type = process_arg_token(p, right, tok, type);
	if (type == TK_ERROR)
		return type;
	if (ND(p, right)->kind == N_OP &&
	    op_prio(ND(p, arg)->op) < op_prio(ND(p, right)->op)) {
		/* rotate: the operand's operator becomes the root */
		ND(p, arg)->right = ND(p, right)->left;
		tmp = *ND(p, arg);
		*ND(p, arg) = *ND(p, right);
		*ND(p, right) = tmp;
		ND(p, arg)->left = right;
	} else {
		ND(p, arg)->right = right;
	}
	return type;
}

/* process_op - the operator in *tok applied to arg (libtraceevent's process_op) */
static enum tok process_op(struct parser *p, int32_t arg, uint32_t *tok)
{
	int32_t right = NONE, left;
	enum tok type;
	const char *op;

	if (++p->depth > PF_MAX_DEPTH) {
		p->depth--;
		return perr(p, "expression too deep");
	}
	op = *tok == NOSTR ? "" : TXT(p, *tok);
	if (!*op) {
		type = perr(p, "missing operator");
	} else if (ND(p, arg)->kind == N_OP && ND(p, arg)->left == NONE) {
		type = process_unary(p, arg, tok, &right);
	} else if (!strcmp(op, "?") || !strcmp(op, "[")) {
		bool cond = op[0] == '?';

		left = push_down(p, arg);
		if (left == NONE || !set_op(p, arg, *tok, left))
			type = TK_ERROR;
		else
			type = cond ? process_cond(p, arg, tok) : process_array(p, arg, tok);
	} else if (is_binary_op(op)) {
		type = process_binary(p, arg, tok, &right);
		if (type != TK_ERROR && right == NONE) {	/* "(type *)" */
			p->depth--;
			return type;
		}
	} else {
		type = perr(p, "unknown operator");
	}
	if (type == TK_OP && !tok_is(p, *tok, ":")) {
		if (op_prio(TXT(p, *tok)) > ND(p, arg)->prio)
			type = process_op(p, arg, tok);
		else if (right == NONE)
			type = perr(p, "unknown operator");
		else
			type = process_op(p, right, tok);
	}
	p->depth--;
	return type;
}

/* process_entry - "REC->field" after REC */
static enum tok process_entry(struct parser *p, int32_t arg, uint32_t *tok)
{
	uint32_t token;
	enum tok type = read_token_item(p, &token);
	struct pf_node *n;

	if (type == TK_DELIM && tok_is(p, token, ")")) {
		*tok = token;
		return TK_ITEM;		/* "(REC)->field" */
	}
	if (type != TK_OP || !tok_is(p, token, "->"))
		return perr(p, "expected '->'");
	if (!expect(p, TK_ITEM, NULL, &token))
		return perr(p, "expected a field name");
	n = ND(p, arg);
	n->kind = N_FIELD;
	n->text = token;
	n->field = find_field(p->ev, TXT(p, token), true);
	n->elem = n->field ? elem_size(p->t, n->field) : 0;
	return read_token(p, tok);
}

/* delim_arg - one argument with operators, followed by the delimiter next */
static int delim_arg(struct parser *p, const char *next, int32_t *out)
{
	int32_t field = node_new(p);
	uint32_t token;
	enum tok type;

	if (field == NONE)
		return -1;
	type = process_arg(p, field, &token);
	if (type == TK_OP) {
		type = process_op(p, field, &token);
		if (type == TK_ERROR || consolidate(p, field, 0))
			return -1;
	}
	if (type != TK_DELIM || !tok_is(p, token, next))
		return perr(p, "bad function argument"), -1;
	*out = field;
	return 0;
}

/* add_sym - append a flag/symbol entry to node owner's list */
static int add_sym(struct parser *p, int32_t owner, int32_t *last, uint32_t value, uint32_t str)
{
	struct pf_prog *g = p->prog;
	struct pf_sym *s;

	if (g->nsyms == g->capsyms) {
		int32_t cap = g->capsyms ? g->capsyms * 2 : 16;

		if (cap > PF_MAX_NODES)
			return perr(p, "too many flags"), -1;
		s = ipt_realloc(g->syms, (size_t)cap * sizeof(*s));
		if (!s)
			return -1;
		g->syms = s;
		g->capsyms = cap;
	}
	s = &g->syms[g->nsyms];
	s->value = flag_value(TXT(p, value));
	s->str = str;
	s->next = NONE;
	if (*last == NONE)
		ND(p, owner)->syms = g->nsyms;
	else
		g->syms[*last].next = g->nsyms;
	*last = g->nsyms++;
	return 0;
}

/* process_fields - the "{ value, "name" }, ..." list of __print_flags/symbolic */
static enum tok process_fields(struct parser *p, int32_t owner, uint32_t *tok)
{
	int32_t last = NONE, arg;
	uint32_t token, value, str;
	enum tok type;

	do {
		type = read_token_item(p, &token);
		if (type != TK_OP || !tok_is(p, token, "{"))
			break;
		if ((arg = node_new(p)) == NONE)
			return TK_ERROR;
		type = process_arg(p, arg, &token);
		if (type == TK_OP)
			type = process_op(p, arg, &token);
		if (type != TK_DELIM || !tok_is(p, token, ","))
			return perr(p, "bad flag entry");
		if ((value = const_text(p, arg)) == NOSTR)
			return perr(p, "flag value is not a constant");
		if ((arg = node_new(p)) == NONE)
			return TK_ERROR;
		type = process_arg(p, arg, &token);
		if (type != TK_OP || !tok_is(p, token, "}"))
			return perr(p, "expected '}'");
		if ((str = const_text(p, arg)) == NOSTR)
			return perr(p, "flag name is not a constant");
		if (add_sym(p, owner, &last, value, str))
			return TK_ERROR;
		type = read_token_item(p, &token);
	} while (type == TK_DELIM && tok_is(p, token, ","));
	*tok = token;
	return type;
}

/* process_flags - __print_flags(value, "delim", {v, "s"}, ...) */
static enum tok process_flags(struct parser *p, int32_t arg, uint32_t *tok)
{
	int32_t field = node_new(p);
	uint32_t token;
	enum tok type;

	if (field == NONE)
		return TK_ERROR;
	ND(p, arg)->kind = N_FLAGS;
	type = process_field_arg(p, field, &token);
	if (type != TK_DELIM || !tok_is(p, token, ","))
		return perr(p, "bad __print_flags");
	ND(p, arg)->left = field;
	type = read_token_item(p, &token);
	if (item_type(type)) {
		ND(p, arg)->text = token;
		type = read_token_item(p, &token);
	}
	if (type != TK_DELIM || !tok_is(p, token, ","))
		return perr(p, "bad __print_flags");
	type = process_fields(p, arg, &token);
	if (type != TK_DELIM || !tok_is(p, token, ")"))
		return perr(p, "bad __print_flags");
	return read_token_item(p, tok);
}

/* process_symbols - __print_symbolic(value, {v, "s"}, ...) */
static enum tok process_symbols(struct parser *p, int32_t arg, uint32_t *tok)
{
	int32_t field = node_new(p);
	uint32_t token;
	enum tok type;

	if (field == NONE)
		return TK_ERROR;
	ND(p, arg)->kind = N_SYMBOL;
	type = process_field_arg(p, field, &token);
	if (type != TK_DELIM || !tok_is(p, token, ","))
		return perr(p, "bad __print_symbolic");
	ND(p, arg)->left = field;
	type = process_fields(p, arg, &token);
	if (type != TK_DELIM || !tok_is(p, token, ")"))
		return perr(p, "bad __print_symbolic");
	return read_token_item(p, tok);
}

/* array_arg_ok - the array argument of __print_hex/__print_array is usable */
static bool array_arg_ok(struct parser *p, int32_t i)
{
	return ND(p, i)->kind == N_DYNARRAY || ND(p, i)->kind == N_FIELD;
}

/* process_hex - __print_hex(array, len) and __print_hex_str(array, len) */
static enum tok process_hex(struct parser *p, int32_t arg, uint32_t *tok, enum node_kind kind)
{
	int32_t a, len;

	ND(p, arg)->kind = (uint8_t)kind;
	if (delim_arg(p, ",", &a) || delim_arg(p, ")", &len))
		return TK_ERROR;
	if (!array_arg_ok(p, a))
		return perr(p, "__print_hex of something not an array");
	ND(p, arg)->left = a;
	ND(p, arg)->right = len;
	return read_token_item(p, tok);
}

/* process_int_array - __print_array(array, count, element size) */
static enum tok process_int_array(struct parser *p, int32_t arg, uint32_t *tok)
{
	int32_t a, count, size;

	ND(p, arg)->kind = N_INT_ARRAY;
	if (delim_arg(p, ",", &a) || delim_arg(p, ",", &count) || delim_arg(p, ")", &size))
		return TK_ERROR;
	if (!array_arg_ok(p, a))
		return perr(p, "__print_array of something not an array");
	ND(p, arg)->left = a;
	ND(p, arg)->right = count;
	ND(p, arg)->extra = size;
	return read_token_item(p, tok);
}

/*
 * process_dynamic_array - __get_dynamic_array(field).  As in libtraceevent
 * 1.7, a following "[i]" makes the print fmt fail to parse.
 */
static enum tok process_dynamic_array(struct parser *p, int32_t arg, uint32_t *tok)
{
	const struct ipt_field *f;
	uint32_t token;
	enum tok type;
	int32_t idx;

	type = read_token(p, &token);
	if (type != TK_ITEM || !(f = find_field(p->ev, TXT(p, token), false)))
		return perr(p, "bad __get_dynamic_array");
	ND(p, arg)->kind = N_DYNARRAY;
	ND(p, arg)->field = f;
	ND(p, arg)->elem = elem_size(p->t, f);
	ND(p, arg)->text = token;
	if (!expect(p, TK_DELIM, ")", NULL))
		return perr(p, "expected ')'");
	type = read_token_item(p, tok);
	if (type != TK_OP || !tok_is(p, *tok, "["))
		return type;
	if ((idx = node_new(p)) == NONE)
		return TK_ERROR;
	type = process_arg(p, idx, &token);
	if (type == TK_ERROR || (type == TK_OP && tok_is(p, token, "]")))
		return perr(p, "__get_dynamic_array()[] is not supported");
	return read_token_item(p, tok);
}

/* process_dynarray_len - __get_dynamic_array_len(field) */
static enum tok process_dynarray_len(struct parser *p, int32_t arg, uint32_t *tok)
{
	const struct ipt_field *f;
	uint32_t token;

	if (!expect(p, TK_ITEM, NULL, &token) ||
	    !(f = find_field(p->ev, TXT(p, token), false)))
		return perr(p, "bad __get_dynamic_array_len");
	ND(p, arg)->kind = N_DYNARRAY_LEN;
	ND(p, arg)->field = f;
	if (!expect(p, TK_DELIM, ")", NULL))
		return perr(p, "expected ')'");
	return read_token(p, tok);
}

/* process_named - __get_str/__get_bitmask/__get_cpumask(field) */
static enum tok process_named(struct parser *p, int32_t arg, uint32_t *tok, enum node_kind kind)
{
	uint32_t token;
	struct pf_node *n;

	if (!expect(p, TK_ITEM, NULL, &token))
		return perr(p, "expected a field name");
	n = ND(p, arg);
	n->kind = (uint8_t)kind;
	n->text = token;
	n->field = find_field(p->ev, TXT(p, token), true);
	if (!expect(p, TK_DELIM, ")", NULL))
		return perr(p, "expected ')'");
	return read_token(p, tok);
}

/* process_expect - __builtin_expect(cond, N): just cond */
static enum tok process_expect(struct parser *p, int32_t arg, uint32_t *tok)
{
	uint32_t token;
	enum tok type = process_arg(p, arg, &token);

	if (type != TK_DELIM || !tok_is(p, token, ","))
		return perr(p, "bad __builtin_expect");
	if (!expect(p, TK_ITEM, NULL, NULL) || !expect(p, TK_DELIM, ")", NULL))
		return perr(p, "bad __builtin_expect");
	return read_token_item(p, tok);
}

/* set_atom - make node i the constant text s */
static bool set_atom(struct parser *p, int32_t i, const char *s)
{
	uint32_t off = arena_add(p, s, strlen(s));

	ND(p, i)->kind = N_ATOM;
	ND(p, i)->text = off;
	return off != NOSTR;
}

/* sizeof_rec - sizeof(REC->field) after "REC" */
static bool sizeof_rec(struct parser *p, int32_t arg)
{
	const struct ipt_field *f;
	uint32_t token;
	char buf[16];

	if (read_token_item(p, &token) != TK_OP || !tok_is(p, token, "->") ||
	    !expect(p, TK_ITEM, NULL, &token))
		return false;
	f = find_field(p->ev, TXT(p, token), true);
	if (!f || field_is_array(f))
		return false;
	snprintf(buf, sizeof(buf), "%u", f->size);
	return set_atom(p, arg, buf);
}

/*
 * process_sizeof - sizeof(int), sizeof(unsigned [int]), sizeof(long [long]),
 * sizeof(REC->field): what libtraceevent 1.7 knows (not u8..u64).
 */
static enum tok process_sizeof(struct parser *p, int32_t arg, uint32_t *tok)
{
	uint32_t token;
	enum tok type = read_token_item(p, &token);
	bool ok = false;

	if (tok_is(p, token, "unsigned")) {
		type = read_token_item(p, &token);
		if (type == TK_ERROR)
			return type;
		ok = type != TK_ITEM;
	}
	if (ok || tok_is(p, token, "int")) {
		if (!set_atom(p, arg, "4"))
			return TK_ERROR;
	} else if (tok_is(p, token, "long")) {
		type = read_token_item(p, &token);
		if (tok_is(p, token, "long")) {
			if (!set_atom(p, arg, "8"))
				return TK_ERROR;
		} else {
			if (p->t->long_size != 4 && p->t->long_size != 8)
				return perr(p, "unknown long size");
			if (!set_atom(p, arg, p->t->long_size == 4 ? "4" : "8"))
				return TK_ERROR;
			ok = true;
		}
	} else if (!tok_is(p, token, "REC") || !sizeof_rec(p, arg)) {
		return perr(p, "sizeof of an unknown type");
	}
	if (!ok)
		type = read_token_item(p, &token);
	if (type != TK_DELIM || !tok_is(p, token, ")"))
		return perr(p, "bad sizeof");
	return read_token_item(p, tok);
}

/* process_function - a helper call NAME( ... ); fname is the name token */
static enum tok process_function(struct parser *p, int32_t arg, uint32_t fname, uint32_t *tok)
{
	const char *f = TXT(p, fname);

	if (!strcmp(f, "__print_flags"))
		return process_flags(p, arg, tok);
	if (!strcmp(f, "__print_symbolic"))
		return process_symbols(p, arg, tok);
	if (!strcmp(f, "__print_hex"))
		return process_hex(p, arg, tok, N_HEX);
	if (!strcmp(f, "__print_hex_str"))
		return process_hex(p, arg, tok, N_HEX_STR);
	if (!strcmp(f, "__print_array"))
		return process_int_array(p, arg, tok);
	if (!strcmp(f, "__get_str") || !strcmp(f, "__get_rel_str"))
		return process_named(p, arg, tok, N_STRING);
	if (!strcmp(f, "__get_bitmask") || !strcmp(f, "__get_rel_bitmask"))
		return process_named(p, arg, tok, N_BITMASK);
	if (!strcmp(f, "__get_cpumask") || !strcmp(f, "__get_rel_cpumask"))
		return process_named(p, arg, tok, N_CPUMASK);
	if (!strcmp(f, "__get_dynamic_array") || !strcmp(f, "__get_rel_dynamic_array") ||
	    !strcmp(f, "__get_sockaddr") || !strcmp(f, "__get_sockaddr_rel"))
		return process_dynamic_array(p, arg, tok);
	if (!strcmp(f, "__get_dynamic_array_len") || !strcmp(f, "__get_rel_dynamic_array_len"))
		return process_dynarray_len(p, arg, tok);
	if (!strcmp(f, "__builtin_expect"))
		return process_expect(p, arg, tok);
	if (!strcmp(f, "sizeof"))
		return process_sizeof(p, arg, tok);
	return perr(p, "unknown function");
}

/* process_paren - "( ... )": a parenthesised expression or a type cast */
static enum tok process_paren(struct parser *p, int32_t arg, uint32_t *tok)
{
	uint32_t token;
	enum tok type = process_arg(p, arg, &token);
	int32_t item;
	struct pf_node *n;

	if (type == TK_OP)
		type = process_op(p, arg, &token);
	if (type == TK_ERROR)
		return type;
	if (type == TK_ITEM && tok_is(p, token, ")"))
		return process_entry(p, arg, tok);	/* "(REC)->" */
	if (type != TK_DELIM || !tok_is(p, token, ")"))
		return perr(p, "expected ')'");
	type = read_token_item(p, &token);
	if (item_type(type) || (type == TK_DELIM && tok_is(p, token, "("))) {
		if (ND(p, arg)->kind != N_ATOM)
			return perr(p, "bad type cast");
		if ((item = node_new(p)) == NONE)
			return TK_ERROR;
		n = ND(p, arg);
		n->kind = N_TYPE;
		n->right = item;
		n->cast = (uint8_t)type_cast(TXT(p, n->text), false);
		n->cast_ptr = (uint8_t)type_cast(TXT(p, n->text), true);
		type = process_arg_token(p, item, &token, type);
	}
	*tok = token;
	return type;
}

/* process_item - an identifier: REC->x, a function call or a (multi-word) atom */
static enum tok process_item(struct parser *p, int32_t arg, uint32_t *tok)
{
	uint32_t atom = *tok, token;
	enum tok type;

	if (tok_is(p, atom, "REC"))
		return process_entry(p, arg, tok);
	type = read_token_item(p, &token);
	if (type == TK_DELIM && tok_is(p, token, "(")) {
		type = process_function(p, arg, atom, &token);
		*tok = token;
		return type;
	}
	while (type == TK_ITEM) {
		atom = arena_join(p, atom, " ", token);
		if (atom == NOSTR)
			return TK_ERROR;
		type = read_token_item(p, &token);
	}
	ND(p, arg)->kind = N_ATOM;
	ND(p, arg)->text = atom;
	*tok = token;
	return type;
}

/* process_arg_token - parse the argument starting with token *tok of type type */
static enum tok process_arg_token(struct parser *p, int32_t arg, uint32_t *tok,
				  enum tok type)
{
	if (++p->depth > PF_MAX_DEPTH) {
		p->depth--;
		return perr(p, "expression too deep");
	}
	switch (type) {
	case TK_ITEM:
		type = process_item(p, arg, tok);
		break;
	case TK_DQUOTE:
	case TK_SQUOTE:
		ND(p, arg)->kind = N_ATOM;
		ND(p, arg)->text = *tok;
		type = read_token_item(p, tok);
		break;
	case TK_DELIM:
		if (tok_is(p, *tok, "(")) {
			type = process_paren(p, arg, tok);
			break;
		}
		/* fall through */
	case TK_OP:
		if (!set_op(p, arg, *tok, NONE)) {
			type = perr(p, "bad operator");
			break;
		}
		type = process_op(p, arg, tok);
		break;
	default:
		type = perr(p, "unexpected token");
		break;
	}
	p->depth--;
	return type;
}

/* read_args - the comma-separated arguments after the format string */
static int read_args(struct parser *p, int32_t *first, int *count)
{
	enum tok type = TK_ERROR;
	int32_t last = NONE, arg;
	uint32_t token;

	*first = NONE;
	*count = 0;
	do {
		if (type == TK_NEWLINE) {
			type = read_token_item(p, &token);
			continue;
		}
		if ((arg = node_new(p)) == NONE)
			return -1;
		type = process_arg(p, arg, &token);
		if (type == TK_ERROR)
			return -1;
		if (last == NONE)
			*first = arg;
		else
			ND(p, last)->next = arg;
		last = arg;
		(*count)++;
		if (type == TK_OP) {
			type = process_op(p, arg, &token);
			if (type == TK_ERROR || consolidate(p, arg, 0))
				return -1;
			continue;
		}
		if (type == TK_DELIM && tok_is(p, token, ","))
			continue;
		break;
	} while (type != TK_NONE);
	return 0;
}

/* ftrace_args - old ftrace events without arguments print every field */
static int ftrace_args(struct parser *p, int32_t *first)
{
	int32_t last = NONE, arg;

	for (int i = 0; i < p->ev->nfields; i++) {
		const struct ipt_field *f = &p->ev->fields[i];

		if (f->flags & IPT_FIELD_COMMON)
			continue;
		if ((arg = node_new(p)) == NONE)
			return -1;
		ND(p, arg)->kind = N_FIELD;
		ND(p, arg)->field = f;
		ND(p, arg)->elem = elem_size(p->t, f);
		if (last == NONE)
			*first = arg;
		else
			ND(p, last)->next = arg;
		last = arg;
	}
	return 0;
}

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

	if (g->nsegs == g->capsegs) {
		int32_t cap = g->capsegs ? g->capsegs * 2 : 8;

		if (cap > PF_MAX_NODES) {
			perr(p, "format too long");
			return NULL;
		}
		s = ipt_realloc(g->segs, (size_t)cap * sizeof(*s));
		if (!s) {
			p->failed = true;
			return NULL;
		}
		g->segs = s;
		g->capsegs = cap;
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
	uint32_t off = arena_add(p, s, n);
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
		if (sb_addc(tmp, c))
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
		perr(p, "more conversions than arguments");
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
		return perr(p, "conversion too long"), -1;
	if (ls < -2 || ls > 2)
		return perr(p, "bad length modifier"), -1;
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
		return perr(p, "conversion not understood"), -1;
	if (c == 's' && ls)
		return perr(p, "%ls not supported"), -1;
	if (s->kind == SEG_NUM) {
		uint32_t off = arena_sub(p, fmt + (uint32_t)at, n);

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
				perr(p, "two '*' in one conversion");
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
/* Building and caching programs                                       */
/* ------------------------------------------------------------------ */

static void ipt_printfmt_free(struct pf_prog *prog)
{
	if (!prog)
		return;
	free(prog->nodes);
	free(prog->syms);
	free(prog->segs);
	ipt_strbuf_free(&prog->arena);
	free(prog);
}

/* parse_prog - build the program of ev's print fmt; NULL (ipt_err) if unusable */
static struct pf_prog *parse_prog(struct ipt_trace *t, const struct ipt_event *ev)
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
	if (!expect(&p, TK_DQUOTE, NULL, &fmt)) {
		perr(&p, "no format string");
		goto fail;
	}
	for (;;) {
		uint32_t token;

		type = read_token_item(&p, &token);
		if (type == TK_NONE)
			break;
		if (type == TK_DQUOTE) {
			if ((fmt = arena_join(&p, fmt, "", token)) == NOSTR)
				goto fail;
			continue;
		}
		if (type != TK_DELIM || !tok_is(&p, token, ",")) {
			perr(&p, "expected ',' after the format string");
			goto fail;
		}
		if (read_args(&p, &args, &nargs))
			goto fail;
		break;
	}
	if (!nargs && !strcmp(STR(ev->system), "ftrace") && ftrace_args(&p, &args))
		goto fail;
	if (compile_format(&p, fmt, args))
		goto fail;
	resolve_atoms(&p);
	return p.prog;
fail:
	if (!p.failed)
		perr(&p, "cannot parse");
	ipt_printfmt_free(p.prog);
	return NULL;
}

static pthread_mutex_t prog_lock = PTHREAD_MUTEX_INITIALIZER;

/* The programs of a trace's events, by index in t->events, kept in the
 * trace's IPT_SLOT_PRINTFMT slot and released with the trace. */
struct pf_cache {
	int n;
	struct pf_prog **prog;
	bool *tried;
};

static void pf_cache_release(void *data)
{
	struct pf_cache *c = data;

	for (int i = 0; i < c->n; i++)
		ipt_printfmt_free(c->prog[i]);
	free(c->prog);
	free(c->tried);
	free(c);
}

/* pf_cache_of - t's cache, made on first use (call with prog_lock held) */
static struct pf_cache *pf_cache_of(struct ipt_trace *t)
{
	struct ipt_trace_slot *sl = &t->slots[IPT_SLOT_PRINTFMT];
	struct pf_cache *c = sl->data;

	if (c)
		return c;
	if (!(c = ipt_calloc(1, sizeof(*c))))
		return NULL;
	c->n = t->nevents;
	c->prog = ipt_calloc((size_t)(c->n ? c->n : 1), sizeof(*c->prog));
	c->tried = ipt_calloc((size_t)(c->n ? c->n : 1), sizeof(*c->tried));
	if (!c->prog || !c->tried) {
		pf_cache_release(c);
		return NULL;
	}
	sl->release = pf_cache_release;
	__atomic_store_n(&sl->data, c, __ATOMIC_RELEASE);
	return c;
}

/* event_index - ev's index in t->events, -1 if ev is not one of them
 * (compared as addresses: ev may be any event, a unit test's own) */
static ptrdiff_t event_index(const struct ipt_trace *t, const struct ipt_event *ev)
{
	uintptr_t a = (uintptr_t)ev, lo = (uintptr_t)t->events;

	if (!t->events || a < lo || a >= lo + (uintptr_t)t->nevents * sizeof(*ev) ||
	    (a - lo) % sizeof(*ev))
		return -1;
	return (ptrdiff_t)((a - lo) / sizeof(*ev));
}

/* get_prog - ev's program, parsed on first use (thread-safe) */
static const struct pf_prog *get_prog(struct ipt_trace *t, const struct ipt_event *ev)
{
	struct pf_cache *c = __atomic_load_n(&t->slots[IPT_SLOT_PRINTFMT].data, __ATOMIC_ACQUIRE);
	ptrdiff_t i = event_index(t, ev);
	const struct pf_prog *prog;

	if (i < 0)
		return NULL;	/* not one of t's events: the caller parses it */
	if (!c || i >= c->n || !__atomic_load_n(&c->tried[i], __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&prog_lock);
		c = pf_cache_of(t);
		if (!c || i >= c->n) {
			pthread_mutex_unlock(&prog_lock);
			if (c)
				ipt_err("%s:%s: event added after rendering began",
					STR(ev->system), STR(ev->name));
			return NULL;
		}
		if (!c->tried[i]) {
			c->prog[i] = parse_prog(t, ev);
			__atomic_store_n(&c->tried[i], true, __ATOMIC_RELEASE);
			pthread_mutex_unlock(&prog_lock);
			return c->prog[i];
		}
		pthread_mutex_unlock(&prog_lock);
	}
	prog = c->prog[i];
	if (!prog)
		ipt_err("%s:%s: print fmt not supported", STR(ev->system), STR(ev->name));
	return prog;
}

/* ------------------------------------------------------------------ */
/* Evaluation                                                          */
/* ------------------------------------------------------------------ */

struct rctx {
	struct ipt_trace *t;
	const struct pf_prog *prog;
	const uint8_t *data;
	uint32_t size;
	unsigned int flags;
	bool fail;		/* libtraceevent would crash or print garbage */
};

#define RN(c, i) (&(c)->prog->nodes[(i)])
#define RTXT(c, off) ((c)->prog->arena.buf + (off))

/* read_num - a number of size bytes at off (0 outside the record or odd size) */
static uint64_t read_num(const struct rctx *c, uint64_t off, unsigned int size)
{
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return 0;
	if (off + size > c->size)
		return 0;
	return ipt_get_uint(c->data + off, size, c->t->big_endian);
}

/* dyn_loc - where a __data_loc/__rel_loc field's data is (libtraceevent's rules) */
static void dyn_loc(const struct rctx *c, const struct ipt_field *f, uint32_t *off, uint32_t *len)
{
	uint64_t v;
	uint32_t o, l;

	*off = *len = 0;
	if (!f || (uint64_t)f->offset + f->size > c->size)
		return;
	v = read_num(c, f->offset, f->size);
	o = (uint32_t)(v & 0xffff);
	l = f->size == 2 ? c->size - o : (uint32_t)((v >> 16) & 0xffff);
	*off = o > c->size ? 0 : o;
	*len = (uint64_t)o + l > c->size ? 0 : l;
	if (f->flags & IPT_FIELD_RELATIVE)
		*off += f->offset + f->size;
}

static uint64_t eval(struct rctx *c, int32_t i, int depth);

/* eval_index - "x[i]", with casts around x applied to the element */
static uint64_t eval_index(struct rctx *c, const struct pf_node *n, int depth)
{
	uint64_t idx = eval(c, n->right, depth + 1), v;
	const struct pf_node *l = RN(c, n->left), *cast = NULL;
	uint32_t off, len, size = (uint32_t)c->t->long_size;

	while (l->kind == N_TYPE) {
		if (!cast)
			cast = l;
		l = RN(c, l->right);
	}
	if (l->kind == N_DYNARRAY) {
		dyn_loc(c, l->field, &off, &len);
		off += (uint32_t)idx;
		if (l->elem)
			size = l->elem;
	} else if (l->kind == N_FIELD) {
		if (!l->field)
			return 0;
		size = l->elem;
		off = l->field->offset + (uint32_t)idx * l->elem;
	} else {
		eval(c, n->left, depth + 1);
		return 0;	/* libtraceevent: unknown op '[' */
	}
	if ((uint64_t)off + size > c->size)
		return 0;
	v = read_num(c, off, size);
	return cast ? apply_cast(v, cast->cast_ptr) : v;
}

/* eval_binary - a non-special operator on evaluated operands */
static uint64_t eval_binary(struct rctx *c, const char *op, uint64_t l, uint64_t r)
{
	switch (op[0]) {
	case '!': return op[1] == '=' ? l != r : op[1] ? 0 : !r;
	case '~': return ~r;
	case '|': return op[1] ? (l || r) : (l | r);
	case '&': return op[1] ? (l && r) : (l & r);
	case '<': return op[1] == '<' ? shl(l, r) : op[1] == '=' ? l <= r : op[1] ? 0 : l < r;
	case '>': return op[1] == '>' ? shr(l, r) : op[1] == '=' ? l >= r : op[1] ? 0 : l > r;
	case '=': return op[1] == '=' ? l == r : 0;
	case '-': return l - r;
	case '+': return l + r;
	case '*': return l * r;
	case '/': case '%':
		if (!r) {
			c->fail = true;
			return 0;
		}
		return op[0] == '/' ? l / r : l % r;
	default: return 0;	/* '^' included: libtraceevent does not evaluate it */
	}
}

/* eval_op - value of an operator node */
static uint64_t eval_op(struct rctx *c, const struct pf_node *n, int depth)
{
	uint64_t l, r;

	if (n->left == NONE || n->right == NONE) {
		c->fail = true;
		return 0;
	}
	if (n->op[0] == '[')
		return eval_index(c, n, depth);
	if (n->op[0] == '?') {
		const struct pf_node *br = RN(c, n->right);

		l = eval(c, n->left, depth + 1);
		if (br->left == NONE || br->right == NONE) {
			c->fail = true;
			return 0;
		}
		return eval(c, l ? br->left : br->right, depth + 1);
	}
	l = eval(c, n->left, depth + 1);
	r = eval(c, n->right, depth + 1);
	return eval_binary(c, n->op, l, r);
}

/* eval - numeric value of node i (libtraceevent's eval_num_arg) */
static uint64_t eval(struct rctx *c, int32_t i, int depth)
{
	const struct pf_node *n;
	uint32_t off, len;

	if (i == NONE || depth > PF_MAX_DEPTH) {
		c->fail = true;
		return 0;
	}
	n = RN(c, i);
	switch (n->kind) {
	case N_ATOM:
		return n->val;
	case N_FIELD:
		return n->field ? read_num(c, n->field->offset, n->field->size) : 0;
	case N_TYPE:
		return apply_cast(eval(c, n->right, depth + 1), n->cast);
	case N_OP:
		return eval_op(c, n, depth);
	case N_DYNARRAY_LEN:
		dyn_loc(c, n->field, &off, &len);
		return len;
	case N_DYNARRAY:
		c->fail = true;		/* a pointer into trace-cmd's memory */
		return 0;
	default:
		return 0;
	}
}

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

/*
 * star_value - the width/precision argument of a conversion; false if
 * unusable: libtraceevent hands a negative one to printf with the
 * arguments shifted, and a huge width would print megabytes of blanks.
 * %p conversions only use it as a byte count.
 */
static bool star_value(struct rctx *c, const struct pf_seg *s, int *v)
{
	int x;

	if (s->len_arg == NONE) {
		*v = -1;
		return true;
	}
	x = (int)eval(c, s->len_arg, 0);
	*v = x;
	if (s->kind == SEG_PTR)
		return true;
	if (s->kind == SEG_STR && s->star == 2)
		return x >= 0;		/* a maximum: any size is harmless */
	return x >= 0 && x <= PF_MAX_STAR;
}

/* put_str - a string through a %s conversion's width and precision */
static int put_str(struct ipt_strbuf *out, const struct pf_seg *s, int star,
		   const char *str, size_t n)
{
	int width = s->star == 1 ? star : s->width;
	int prec = s->star == 2 ? star : s->prec;
	size_t pad;

	if (prec >= 0 && n > (size_t)prec)
		n = (size_t)prec;
	pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;
	if (sb_grow(out, n + pad))
		return -1;
	if (!s->left) {
		memset(out->buf + out->len, ' ', pad);
		out->len += pad;
	}
	memcpy(out->buf + out->len, str, n);
	out->len += n;
	if (s->left) {
		memset(out->buf + out->len, ' ', pad);
		out->len += pad;
	}
	out->buf[out->len] = 0;
	return 0;
}

/* put_cstr - a NUL-terminated string through a %s conversion */
static int put_cstr(struct ipt_strbuf *out, const struct pf_seg *s, int star, const char *str)
{
	return put_str(out, s, star, str, strlen(str));
}

/* pad_since - apply a %s conversion's width/precision to text written since from */
static int pad_since(struct ipt_strbuf *out, const struct pf_seg *s, int star, size_t from)
{
	int width = s->star == 1 ? star : s->width;
	int prec = s->star == 2 ? star : s->prec;
	size_t n = out->len - from, pad;

	if (prec >= 0 && n > (size_t)prec) {
		n = (size_t)prec;
		out->len = from + n;
		out->buf[out->len] = 0;
	}
	if (width <= 0 || (size_t)width <= n)
		return 0;
	pad = (size_t)width - n;
	if (sb_grow(out, pad))
		return -1;
	if (!s->left)
		memmove(out->buf + from + pad, out->buf + from, n);
	memset(out->buf + (s->left ? from + n : from), ' ', pad);
	out->len += pad;
	out->buf[out->len] = 0;
	return 0;
}

/* put_bytes_str - record bytes [off, off + n) as a C string (up to a NUL) */
static int put_bytes_str(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s,
			 int star, uint64_t off, uint64_t n)
{
	const char *p, *z;

	if (off >= c->size)
		return put_str(out, s, star, "", 0);
	if (n > c->size - off)
		n = c->size - off;
	p = (const char *)c->data + off;
	z = memchr(p, 0, n);
	return put_str(out, s, star, p, z ? (size_t)(z - p) : n);
}

/* put_field_str - %s of REC->field: a string, or a long-sized pointer */
static int put_field_str(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s,
			 int star, const struct ipt_field *f)
{
	uint64_t len;

	if (!f)
		return 0;
	if (!field_is_array(f) && f->size == (unsigned int)c->t->long_size) {
		uint64_t addr = 0;
		const char *str;

		if ((uint64_t)f->offset + f->size > c->size)
			return 0;
		if (f->size == 8) {	/* host order, as libtraceevent */
			memcpy(&addr, c->data + f->offset, 8);
		} else {
			uint32_t a32;

			memcpy(&a32, c->data + f->offset, 4);
			addr = a32;
		}
		str = ipt_trace_printk_string(c->t, addr);
		if (str)
			return sb_adds(out, str);
		return sb_add_hex(out, addr);
	}
	len = f->size ? f->size : (c->size > f->offset ? c->size - f->offset : 0);
	return put_bytes_str(c, out, s, star, f->offset, len);
}

/* put_flags - __print_flags: names of the set bits, then the rest in hex */
static int put_flags(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s,
		     int star, const struct pf_node *n)
{
	int64_t val = (int64_t)eval(c, n->left, 1);
	const char *delim = n->text == NOSTR ? NULL : RTXT(c, n->text);
	bool printed = false;

	for (int32_t k = n->syms; k != NONE; k = c->prog->syms[k].next) {
		const struct pf_sym *e = &c->prog->syms[k];

		if (!val && e->value < 0)
			return put_cstr(out, s, star, RTXT(c, e->str));
		if (e->value > 0 && (val & e->value) == e->value) {
			if (printed && delim && sb_adds(out, delim))
				return -1;
			if (put_cstr(out, s, star, RTXT(c, e->str)))
				return -1;
			printed = true;
			val &= ~e->value;
		}
	}
	if (!val)
		return 0;
	if (printed && delim && sb_adds(out, delim))
		return -1;
	return sb_adds(out, "0x") || sb_add_hex(out, (uint64_t)val);
}

/* put_symbol - __print_symbolic: the name of the value, else the value in hex */
static int put_symbol(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s,
		      int star, const struct pf_node *n)
{
	int64_t val = (int64_t)eval(c, n->left, 1);

	for (int32_t k = n->syms; k != NONE; k = c->prog->syms[k].next)
		if (c->prog->syms[k].value == val)
			return put_cstr(out, s, star, RTXT(c, c->prog->syms[k].str));
	return sb_adds(out, "0x") || sb_add_hex(out, (uint64_t)val);
}

/* array_start - where the array of __print_hex/__print_array starts; false if nowhere */
static bool array_start(struct rctx *c, const struct pf_node *a, uint32_t *off)
{
	uint32_t len;

	if (a->kind == N_DYNARRAY) {
		dyn_loc(c, a->field, off, &len);
		return true;
	}
	if (!a->field)
		return false;
	*off = a->field->offset;
	return true;
}

/* put_hex - __print_hex ("01 02 ff") and __print_hex_str ("0102ff") */
static int put_hex(struct rctx *c, struct ipt_strbuf *out, const struct pf_node *n)
{
	static const char hx[] = "0123456789abcdef";
	uint32_t off, len, i;

	if (!array_start(c, RN(c, n->left), &off))
		return 0;
	len = (uint32_t)eval(c, n->right, 1);
	for (i = 0; i < len && (uint64_t)off + i < c->size; i++) {
		uint8_t b = c->data[off + i];

		if (i && n->kind == N_HEX && sb_addc(out, ' '))
			return -1;
		if (sb_addc(out, hx[b >> 4]) || sb_addc(out, hx[b & 15]))
			return -1;
	}
	return 0;
}

/* host_uint - an unsigned integer of k bytes in host byte order */
static uint64_t host_uint(const uint8_t *p, int k)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (k) {
	case 1: memcpy(&u8, p, 1); return u8;
	case 2: memcpy(&u16, p, 2); return u16;
	case 4: memcpy(&u32, p, 4); return u32;
	default: memcpy(&u64, p, 8); return u64;
	}
}

/*
 * put_int_array - __print_array: elements in decimal, in host byte order
 * as libtraceevent reads them; a bad element size prints "BAD SIZE" once
 * and continues byte by byte.
 */
static int put_int_array(struct rctx *c, struct ipt_strbuf *out, const struct pf_node *n)
{
	uint32_t off, count, i;
	int size;

	if (!array_start(c, RN(c, n->left), &off))
		return 0;
	count = (uint32_t)eval(c, n->right, 1);
	size = (int)eval(c, n->extra, 1);
	for (i = 0; i < count; i++) {
		bool bad = size != 1 && size != 2 && size != 4 && size != 8;
		int k = bad ? 1 : size;

		if ((uint64_t)off + (uint64_t)k > c->size)
			break;
		if (i && sb_addc(out, ' '))
			return -1;
		if (bad) {
			if (sb_addf(out, "BAD SIZE:%d 0x%x", size, c->data[off]))
				return -1;
			size = 1;
		} else if (sb_add_u64(out, host_uint(c->data + off, k))) {
			return -1;
		}
		off += (uint32_t)k;
	}
	return 0;
}

/* mask_bit - bit j of a mask stored as n bytes (libtraceevent's byte order) */
static bool mask_bit(const uint8_t *d, uint32_t n, bool be, uint32_t j)
{
	uint32_t byte = j / 8;

	return (d[be ? n - 1 - byte : byte] >> (j % 8)) & 1;
}

/* put_cpulist - mask bytes as a cpulist "0-3,8" */
static int put_cpulist(struct ipt_strbuf *out, const uint8_t *d, uint32_t n, bool be)
{
	uint64_t nbits = (uint64_t)n * 8, j = 0;
	bool first = true;

	while (j < nbits) {
		uint64_t e;

		if (!d[(be ? n - 1 - j / 8 : j / 8)] && j % 8 == 0) {
			j += 8;
			continue;
		}
		if (!mask_bit(d, n, be, (uint32_t)j)) {
			j++;
			continue;
		}
		for (e = j; e + 1 < nbits && mask_bit(d, n, be, (uint32_t)(e + 1)); e++)
			;
		if ((!first && sb_addc(out, ',')) || sb_add_u64(out, j))
			return -1;
		if (e > j && (sb_addc(out, '-') || sb_add_u64(out, e)))
			return -1;
		first = false;
		j = e + 1;
	}
	return 0;
}

/* put_mask_hex - mask bytes as %*pb hex: two digits a byte, a comma every 4 bytes */
static int put_mask_hex(struct ipt_strbuf *out, const uint8_t *d, uint32_t n, bool be)
{
	static const char hx[] = "0123456789abcdef";

	for (uint32_t k = n; k-- > 0;) {
		uint8_t b = d[be ? n - 1 - k : k];

		if (sb_addc(out, hx[b >> 4]) || sb_addc(out, hx[b & 15]))
			return -1;
		if (k && k % 4 == 0 && sb_addc(out, ','))
			return -1;
	}
	return 0;
}

/*
 * put_mask_set - mask bytes as the kernel lays them out (an array of
 * kernel longs, each in the trace's byte order) printed as a CPU list or
 * as %*pb hex words.  libtraceevent 1.7 reads a big-endian mask wider than
 * one long as a single number, which reverses its words; ipitrace does not
 * copy that.  Little-endian output is the same as libtraceevent's.
 */
static int put_mask_set(struct rctx *c, struct ipt_strbuf *out, const uint8_t *d, uint32_t n,
			bool list)
{
	struct ipt_cpuset set = IPT_CPUSET_INIT;
	unsigned int ws = c->t->kernel_long_size == 4 ? 4 : 8;
	char small[256], *buf = small;
	size_t need;
	int r = -1;

	if (n % ws)
		ws = n % 4 ? 1 : 4;
	if (ws == 1 ? ipt_cpuset_from_bitmap(&set, d, n - n % 4, 4, c->t->big_endian) :
		      ipt_cpuset_from_bitmap(&set, d, n, ws, c->t->big_endian)) {
		ipt_cpuset_free(&set);
		return list ? put_cpulist(out, d, n, c->t->big_endian) :
			      put_mask_hex(out, d, n, c->t->big_endian);
	}
	need = list ? ipt_cpuset_format_list(&set, small, sizeof(small)) :
		      ipt_cpuset_format_hex(&set, n * 8, small, sizeof(small));
	if (need >= sizeof(small)) {
		buf = ipt_malloc(need + 1);
		if (!buf)
			goto out;
		if (list)
			ipt_cpuset_format_list(&set, buf, need + 1);
		else
			ipt_cpuset_format_hex(&set, n * 8, buf, need + 1);
	}
	r = sb_add(out, buf, need);
	if (buf != small)
		free(buf);
out:
	ipt_cpuset_free(&set);
	return r;
}

/* put_mask - __get_bitmask / __get_cpumask through a %s conversion */
static int put_mask(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s,
		    int star, const struct pf_node *n)
{
	uint32_t off, len;
	size_t from = out->len;
	int r;

	if (!n->field)
		return 0;
	dyn_loc(c, n->field, &off, &len);
	if (off > c->size)
		off = len = 0;
	if (len > c->size - off)
		len = c->size - off;
	r = put_mask_set(c, out, c->data + off, len,
			 n->kind == N_CPUMASK && !(c->flags & IPT_RENDER_MASK_HEX));
	return r ? r : pad_since(out, s, star, from);
}

/* put_dyn_str - __get_str: the string at the field's data location */
static int put_dyn_str(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s,
		       int star, const struct pf_node *n)
{
	uint32_t off, len;

	if (!n->field)
		return 0;
	dyn_loc(c, n->field, &off, &len);
	if (!len)
		return 0;
	return put_bytes_str(c, out, s, star, off, c->size);
}

/* render_str - node i through a %s conversion (libtraceevent's print_str_arg) */
static int render_str(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s,
		      int star, int32_t i, int depth)
{
	const struct pf_node *n;

	if (i == NONE || depth > PF_MAX_DEPTH) {
		c->fail = true;
		return 0;
	}
	n = RN(c, i);
	switch (n->kind) {
	case N_ATOM: return put_cstr(out, s, star, RTXT(c, n->text));
	case N_FIELD: return put_field_str(c, out, s, star, n->field);
	case N_FLAGS: return put_flags(c, out, s, star, n);
	case N_SYMBOL: return put_symbol(c, out, s, star, n);
	case N_HEX: case N_HEX_STR: return put_hex(c, out, n);
	case N_INT_ARRAY: return put_int_array(c, out, n);
	case N_STRING: return put_dyn_str(c, out, s, star, n);
	case N_BITMASK: case N_CPUMASK: return put_mask(c, out, s, star, n);
	case N_OP:
		if (n->op[0] != '?')
			return 0;
		if (n->right == NONE || RN(c, n->right)->left == NONE) {
			c->fail = true;
			return 0;
		}
		i = eval(c, n->left, depth + 1) ? RN(c, n->right)->left : RN(c, n->right)->right;
		return render_str(c, out, s, star, i, depth + 1);
	default:
		return 0;
	}
}

/* put_func - %pS/%pF ("sym+0xoff") and %ps/%pf ("sym"); unknown: 0x... */
static int put_func(struct rctx *c, struct ipt_strbuf *out, char kind, uint64_t v)
{
	uint64_t off = 0;
	const char *sym = ipt_trace_symbol(c->t, v, &off);

	if (!sym)
		return sb_adds(out, "0x") || sb_add_hex(out, v);
	if (sb_adds(out, sym))
		return -1;
	if (kind == 'S' || kind == 'F')
		return sb_adds(out, "+0x") || sb_add_hex(out, off);
	return 0;
}

/* field_of - the field under casts, or NULL with a libtraceevent message */
static const struct ipt_field *field_of(struct rctx *c, struct ipt_strbuf *out, int32_t i,
					unsigned int size, const char *bad, int *err)
{
	const struct pf_node *n = RN(c, i);

	*err = 0;
	while (n->kind == N_TYPE)
		n = RN(c, n->right);
	if (n->kind != N_FIELD) {
		*err = sb_addf(out, "ARG TYPE NOT FIELD BUT %d", n->kind);
		return NULL;
	}
	if (!n->field)
		return NULL;
	if (n->field->size != size) {
		*err = sb_adds(out, bad);
		return NULL;
	}
	if ((uint64_t)n->field->offset + size > c->size)
		return NULL;
	return n->field;
}

/* put_mac - %pM "00:11:..", %pMF "00-11-..", %pm "0011..", R: reversed */
static int put_mac(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s)
{
	const char *sep = s->pc[0] == 'm' ? "" : s->pc[1] == 'F' ? "-" : ":";
	bool rev = s->pc[1] == 'R';
	const struct ipt_field *f;
	int err;

	if (!(f = field_of(c, out, s->arg, 6, "INVALIDMAC", &err)))
		return err;
	for (int k = 0; k < 6; k++) {
		uint8_t b = c->data[f->offset + (rev ? 5 - k : k)];

		if ((k && sb_adds(out, sep)) || sb_addf(out, "%.2x", b))
			return -1;
	}
	return 0;
}

/* put_ip4 - 4 address bytes, dotted ('i': 3 digits each), maybe reversed */
static int put_ip4(struct ipt_strbuf *out, char i, bool rev, const uint8_t *b)
{
	const char *fmt = i == 'i' ? "%03d.%03d.%03d.%03d" : "%d.%d.%d.%d";

	return rev ? sb_addf(out, fmt, b[3], b[2], b[1], b[0]) :
		     sb_addf(out, fmt, b[0], b[1], b[2], b[3]);
}

/* put_ip6 - 16 address bytes as 8 groups of 4 digits ('I': with colons) */
static int put_ip6(struct ipt_strbuf *out, char i, const uint8_t *b)
{
	for (int k = 0; k < 16; k += 2)
		if (sb_addf(out, "%02x%02x%s", b[k], b[k + 1], i == 'I' && k < 14 ? ":" : ""))
			return -1;
	return 0;
}

/* zero_run - how many 16-bit zero words start at word i (before end) */
static int zero_run(const uint8_t *b, int i, int end)
{
	int n = 0;

	while (i + n < end && !b[2 * (i + n)] && !b[2 * (i + n) + 1])
		n++;
	return n;
}

/*
 * put_ip6c - %pI6c: the longest run (> 1) of zero words as "::", words in
 * hex without leading zeros; v4-mapped and ISATAP addresses end dotted.
 */
static int put_ip6c(struct ipt_strbuf *out, const uint8_t *b)
{
	bool v4 = !memcmp(b, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) ||
		  ((b[8] | 0x02) == 0x02 && b[9] == 0 && b[10] == 0x5e && b[11] == 0xfe);
	int range = v4 ? 6 : 8, longest = 1, at = -1;
	bool colon = false;

	for (int i = 0; i < range; i++) {
		int z = zero_run(b, i, range);

		if (z > longest) {
			longest = z;
			at = i;
		}
	}
	for (int i = 0; i < range; i++) {
		if (i == at) {
			if ((colon || i == 0) && sb_addc(out, ':'))
				return -1;
			if (sb_addc(out, ':'))
				return -1;
			colon = false;
			i += longest - 1;
			continue;
		}
		if ((colon && sb_addc(out, ':')) || sb_addf(out, "%x", b[2 * i] << 8 | b[2 * i + 1]))
			return -1;
		colon = true;
	}
	if (!v4)
		return 0;
	if (colon && sb_addc(out, ':'))
		return -1;
	return put_ip4(out, 'I', false, b + 12);
}

/* ip4_reverse - whether an [hnbl] letter asks for reversed IPv4 bytes */
static bool ip4_reverse(const struct rctx *c, char l)
{
	return l == 'l' || (l == 'h' && !c->t->big_endian);
}

/*
 * put_ipsa - %pIS / %piS: an IPv4 or IPv6 sockaddr ('p': with port, 'c':
 * compressed), family read in host order as libtraceevent does
 */
static int put_ipsa(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s)
{
	const char *l = s->pc + 2;
	bool port = false, comp = false;
	const struct pf_node *n = RN(c, s->arg);
	uint32_t off, len;
	const uint8_t *sa;

	if (s->pc[0] == 'I') {
		if (*l == 'p' && (port = true))
			l++;
		if (*l == 'c' && (comp = true))
			l++;
	}
	while (n->kind == N_TYPE)
		n = RN(c, n->right);
	if (n->kind == N_FIELD) {
		if (!n->field)
			return 0;
		off = n->field->offset;
		len = n->field->size;
	} else if (n->kind == N_DYNARRAY) {
		dyn_loc(c, n->field, &off, &len);
	} else {
		return sb_addf(out, "ARG NOT FIELD NOR DYNAMIC ARRAY BUT TYPE %d", n->kind);
	}
	if ((uint64_t)off + 2 > c->size)
		return 0;
	sa = c->data + off;
	if (host_uint(sa, 2) == 2) {		/* AF_INET */
		if (len < 16)
			return sb_adds(out, "INVALIDIPv4");
		if ((uint64_t)off + 16 > c->size)
			return 0;
		if (put_ip4(out, s->pc[0], ip4_reverse(c, *l), sa + 4))
			return -1;
		return port ? sb_addf(out, ":%d", sa[2] << 8 | sa[3]) : 0;
	}
	if (host_uint(sa, 2) != 10)		/* AF_INET6 */
		return 0;
	if (len < 28)
		return sb_adds(out, "INVALIDIPv6");
	if ((uint64_t)off + 28 > c->size)
		return 0;
	if (port && sb_addc(out, '['))
		return -1;
	if (comp ? put_ip6c(out, sa + 8) : put_ip6(out, s->pc[0], sa + 8))
		return -1;
	return port ? sb_addf(out, "]:%d", sa[2] << 8 | sa[3]) : 0;
}

/* put_ip - %pI4 %pi4 [hnbl], %pI6 %pi6 %pI6c, %pIS... */
static int put_ip(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s)
{
	const struct ipt_field *f;
	int err;

	if (s->pc[1] == 'S')
		return put_ipsa(c, out, s);
	if (s->pc[1] == '4') {
		if (!(f = field_of(c, out, s->arg, 4, "INVALIDIPv4", &err)))
			return err;
		return put_ip4(out, s->pc[0], ip4_reverse(c, s->pc[2]), c->data + f->offset);
	}
	if (s->pc[1] != '6')
		return 0;
	if (!(f = field_of(c, out, s->arg, 16, "INVALIDIPv6", &err)))
		return err;
	if (s->pc[0] == 'I' && s->pc[2] == 'c')
		return put_ip6c(out, c->data + f->offset);
	return put_ip6(out, s->pc[0], c->data + f->offset);
}

/* put_uuid - %pU[bBlL]: 16 bytes as a UUID ('l', 'L': GUID byte order) */
static int put_uuid(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s)
{
	static const uint8_t guid[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	bool upper = s->pc[1] == 'L' || s->pc[1] == 'B';
	bool g = s->pc[1] == 'L' || s->pc[1] == 'l';
	const struct ipt_field *f;
	int err;

	if (!(f = field_of(c, out, s->arg, 16, "INVALIDUUID", &err)))
		return err;
	for (int i = 0; i < 16; i++) {
		uint8_t b = c->data[f->offset + (g ? guid[i] : i)];

		if (sb_addf(out, upper ? "%02X" : "%02x", b))
			return -1;
		if ((i == 3 || i == 5 || i == 7 || i == 9) && sb_addc(out, '-'))
			return -1;
	}
	return 0;
}

/* put_raw_buf - %*ph: bytes of a dynamic array, separated per C/D/N */
static int put_raw_buf(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s, int star)
{
	const char *sep = s->pc[1] == 'C' ? ":" : s->pc[1] == 'D' ? "-" : s->pc[1] == 'N' ? "" : " ";
	const struct pf_node *n = RN(c, s->arg);
	uint32_t off, len, want = s->len_arg == NONE ? 1 : (uint32_t)star;

	if (n->kind != N_DYNARRAY)
		return sb_addf(out, "ARG TYPE NOT FIELD BUT %d", n->kind);
	dyn_loc(c, n->field, &off, &len);
	if (len < want)
		want = len;
	for (uint32_t k = 0; k < want && (uint64_t)off + k < c->size; k++)
		if ((k && sb_adds(out, sep)) || sb_addf(out, "%02x", c->data[off + k]))
			return -1;
	return 0;
}

/* render_ptr - a %p conversion and its letters */
static int render_ptr(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s, int star)
{
	uint64_t v;

	switch (s->pc[0]) {
	case 'F': case 'f': case 'S': case 's':
		v = eval(c, s->arg, 0);
		return put_func(c, out, s->pc[0], v);
	case 'M': case 'm':
		return put_mac(c, out, s);
	case 'I': case 'i':
		return put_ip(c, out, s);
	case 'U':
		return put_uuid(c, out, s);
	case 'h':
		return put_raw_buf(c, out, s, star);
	default:
		v = eval(c, s->arg, 0);
		if (!v)
			return sb_adds(out, "(nil)");
		return sb_adds(out, "0x") || sb_add_hex(out, v);
	}
}

/* sext - v as the signed integer of the conversion's length */
static int64_t sext(uint64_t v, int ls)
{
	switch (ls) {
	case -2: return (int8_t)v;
	case -1: return (int16_t)v;
	case 0: return (int32_t)v;
	default: return (int64_t)v;
	}
}

/* zext - v as the unsigned integer of the conversion's length */
static uint64_t zext(uint64_t v, int ls)
{
	switch (ls) {
	case -2: return (uint8_t)v;
	case -1: return (uint16_t)v;
	case 0: return (uint32_t)v;
	default: return v;
	}
}

/* render_num - an integer conversion: fast paths, else glibc with the checked format */
static int render_num(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s, int star)
{
	uint64_t v = eval(c, s->arg, 0);
	const char *fmt = RTXT(c, s->text);
	int64_t sv = sext(v, s->ls);
	size_t room;
	int n;

	if (s->fast) {
		if (s->conv == 'd' || s->conv == 'i')
			return sb_add_i64(out, sv);
		if (s->conv == 'u')
			return sb_add_u64(out, zext(v, s->ls));
		return sb_add_hex(out, zext(v, s->ls));
	}
	room = (size_t)(s->width > s->prec ? s->width : s->prec);
	if (s->len_arg != NONE && (size_t)star > room)
		room = (size_t)star;
	room += 32;
	if (sb_grow(out, room))
		return -1;
	room = out->cap - out->len;
	if (s->ls <= 0)
		n = s->len_arg == NONE ? snprintf(out->buf + out->len, room, fmt, (int)sv) :
			snprintf(out->buf + out->len, room, fmt, star, (int)sv);
	else
		n = s->len_arg == NONE ? snprintf(out->buf + out->len, room, fmt, (long long)sv) :
			snprintf(out->buf + out->len, room, fmt, star, (long long)sv);
	if (n < 0 || (size_t)n >= room)
		return ipt_err("number conversion failed");
	out->len += (size_t)n;
	return 0;
}

/* render_seg - one segment of the program */
static int render_seg(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s)
{
	int star;

	if (s->kind == SEG_TEXT)
		return sb_add(out, RTXT(c, s->text), s->tlen);
	if (!star_value(c, s, &star)) {
		c->fail = true;
		return 0;
	}
	switch (s->kind) {
	case SEG_NUM:
		return render_num(c, out, s, star);
	case SEG_PTR:
		return render_ptr(c, out, s, star);
	default:
		return render_str(c, out, s, star, s->arg, 0);
	}
}

/* ipt_printfmt_render - append rec's fields as its print fmt prints them */
int ipt_printfmt_render(struct ipt_trace *t, const struct ipt_event *ev,
			const struct ipt_record *rec, unsigned int flags,
			struct ipt_strbuf *out)
{
	ptrdiff_t i = event_index(t, ev);
	struct pf_prog *own = NULL;	/* an event not of t (unit tests): parsed for this call */
	const struct pf_prog *prog;
	struct rctx c = { t, NULL, rec->data, rec->size, flags, false };
	size_t start = out->len;
	int ret = 0;

	if (i >= 0)
		prog = get_prog(t, ev);
	else
		prog = own = parse_prog(t, ev);
	if (!prog)
		return -1;
	c.prog = prog;
	if (!rec->data)
		c.size = 0;
	for (int32_t k = 0; k < prog->nsegs; k++) {
		if (render_seg(&c, out, &prog->segs[k]) || c.fail) {
			if (c.fail)
				ipt_err("%s:%s: record cannot be printed with its print fmt",
					STR(ev->system), STR(ev->name));
			out->len = start;
			if (out->buf)
				out->buf[start] = 0;
			ret = -1;
			break;
		}
	}
	ipt_printfmt_free(own);
	return ret;
}
