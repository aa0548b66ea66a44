/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * render/printfmt.h - print fmt programs: their types, the helpers parser
 * and renderer share, the functions the printfmt_*.c files call (not
 * installed)
 *
 * A record is rendered from its event's "print fmt:" text the way
 * libtraceevent 1.7 (and so `trace-cmd report` 3.1) prints it.
 *
 * The print fmt is parsed once per event into a program: a tree of argument
 * nodes and a list of output segments (literal text and conversions).  The
 * parser follows libtraceevent's own algorithm step by step, quirks
 * included, because the point is to print exactly what trace-cmd prints;
 * the head of each file says which quirks it keeps.
 *
 * Records and print fmt texts are untrusted: every read is bounded by the
 * record, parsing depth and sizes are bounded, and rendering allocates
 * nothing but output.  Programs are immutable once built; several threads
 * may render records of one event at once.
 *
 * Parsing, from the bottom up: printfmt_lex.c (tokens), printfmt_const.c
 * (fields, types, constants), printfmt_args.c (the arguments),
 * printfmt_parse.c (the format string, the whole program).  Rendering:
 * printfmt_eval.c (argument values), printfmt_ptr.c (the %p kinds of
 * binary data), printfmt_helpers.c (__print_flags and the other helpers),
 * printfmt_render.c (the programs of a trace, the loop over segments,
 * numbers, strings, %pS).  Each file calls only files before it in its
 * list; printfmt_render.c calls the parser through ipt_printfmt_parse and
 * ipt_printfmt_free alone.
 */
#ifndef IPT_RENDER_PRINTFMT_H
#define IPT_RENDER_PRINTFMT_H

#include "render/render.h"

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

/* A program: built by the parser, then only read (by any thread). */
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

/* ---- small helpers of parser and renderer ---- */

/* tok_is - whether token text off equals s (false for NOSTR) */
static inline bool tok_is(struct parser *p, uint32_t off, const char *s)
{
	return off != NOSTR && !strcmp(TXT(p, off), s);
}

/* item_type - a token that can be a name or a constant */
static inline bool item_type(enum tok type)
{
	return type == TK_ITEM || type == TK_DQUOTE || type == TK_SQUOTE;
}

/* field_is_array - libtraceevent's TEP_FIELD_IS_ARRAY */
static inline bool field_is_array(const struct ipt_field *f)
{
	return (f->flags & IPT_FIELD_ARRAY) || strchr(STR(f->type), '[') ||
	       ((f->flags & IPT_FIELD_DYNAMIC) && f->size == 2);
}

/* apply_cast - mask a value as a cast does */
static inline uint64_t apply_cast(uint64_t v, enum cast c)
{
	switch (c) {
	case C_8: return v & 0xff;
	case C_16: return v & 0xffff;
	case C_32: return v & 0xffffffff;
	default: return v;
	}
}

/* shl - left shift with the count masked to 6 bits, as x86 does */
static inline uint64_t shl(uint64_t a, uint64_t n)
{
	return a << (n & 63);
}

/* shr - right shift, count masked likewise */
static inline uint64_t shr(uint64_t a, uint64_t n)
{
	return a >> (n & 63);
}

/* ---- printfmt_lex.c: tokens, the text arena, parse errors ---- */

/* Record the first parse error of this print fmt; returns TK_ERROR. */
enum tok ipt_pf_perr(struct parser *p, const char *what);
/* n bytes of s, plus a NUL, into the arena: their offset, or NOSTR. */
uint32_t ipt_pf_arena_add(struct parser *p, const char *s, size_t n);
/* A new arena string: n bytes of the arena at from. */
uint32_t ipt_pf_arena_sub(struct parser *p, uint32_t from, size_t n);
/* A new arena string x + mid + y (x, y arena offsets). */
uint32_t ipt_pf_arena_join(struct parser *p, uint32_t x, const char *mid, uint32_t y);
/* The next token that is not blank (newlines are tokens); its text in *tok. */
enum tok ipt_pf_read_token(struct parser *p, uint32_t *tok);
/* The next token that is neither blank nor newline. */
enum tok ipt_pf_read_token_item(struct parser *p, uint32_t *tok);
/* Read a token (newlines count) and check its type and text (text NULL: any). */
bool ipt_pf_expect(struct parser *p, enum tok type, const char *text, uint32_t *tok);

/* ---- printfmt_const.c: fields, types and constants ---- */

/* A field by name; common fields first unless any is false. */
const struct ipt_field *ipt_pf_find_field(const struct ipt_event *ev, const char *name,
					  bool any);
/* libtraceevent's elementsize of a field. */
unsigned int ipt_pf_elem_size(const struct ipt_trace *t, const struct ipt_field *f);
/* The mask libtraceevent applies for a cast to type (pointer: as an array element). */
enum cast ipt_pf_type_cast(const char *type, bool pointer);
/* Fold the operators under node i whose operands are both constants. */
int ipt_pf_consolidate(struct parser *p, int32_t i, int depth);
/* A flag entry's value or string as libtraceevent keeps it (NOSTR: not constant). */
uint32_t ipt_pf_const_text(struct parser *p, int32_t i);
/* libtraceevent's eval_flag: a number or a few known names, else -1. */
int64_t ipt_pf_flag_value(const char *s);

/* ---- printfmt_args.c: the arguments after the format string ---- */

/* The comma-separated arguments: the first in *first, their number in *count. */
int ipt_pf_read_args(struct parser *p, int32_t *first, int *count);
/* Old ftrace events without arguments print every field. */
int ipt_pf_ftrace_args(struct parser *p, int32_t *first);

/* ---- printfmt_parse.c: a whole program ---- */

/* The program of ev's print fmt; NULL (ipt_err) if it cannot be rendered. */
struct pf_prog *ipt_printfmt_parse(struct ipt_trace *t, const struct ipt_event *ev);
void ipt_printfmt_free(struct pf_prog *prog);

/* ---- rendering ---- */

/* Rendering one record through a program. */
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
static inline uint64_t read_num(const struct rctx *c, uint64_t off, unsigned int size)
{
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return 0;
	if (off + size > c->size)
		return 0;
	return ipt_get_uint(c->data + off, size, c->t->big_endian);
}

/* dyn_loc - where a __data_loc/__rel_loc field's data is (libtraceevent's rules) */
static inline void dyn_loc(const struct rctx *c, const struct ipt_field *f, uint32_t *off,
			   uint32_t *len)
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

/* put_str - a string through a %s conversion's width and precision */
static inline int put_str(struct ipt_strbuf *out, const struct pf_seg *s, int star,
			  const char *str, size_t n)
{
	int width = s->star == 1 ? star : s->width;
	int prec = s->star == 2 ? star : s->prec;
	size_t pad;

	if (prec >= 0 && n > (size_t)prec)
		n = (size_t)prec;
	pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;
	if (ipt_strbuf_grow(out, n + pad))
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
static inline int put_cstr(struct ipt_strbuf *out, const struct pf_seg *s, int star,
			   const char *str)
{
	return put_str(out, s, star, str, strlen(str));
}

/* pad_since - apply a %s conversion's width/precision to text written since from */
static inline int pad_since(struct ipt_strbuf *out, const struct pf_seg *s, int star, size_t from)
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
	if (ipt_strbuf_grow(out, pad))
		return -1;
	if (!s->left)
		memmove(out->buf + from + pad, out->buf + from, n);
	memset(out->buf + (s->left ? from + n : from), ' ', pad);
	out->len += pad;
	out->buf[out->len] = 0;
	return 0;
}

/* host_uint - an unsigned integer of k bytes in host byte order */
static inline uint64_t host_uint(const uint8_t *p, int k)
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

/* printfmt_eval.c: the numeric value of node i (libtraceevent's eval_num_arg) */
uint64_t ipt_pf_eval(struct rctx *c, int32_t i, int depth);

/* printfmt_helpers.c: the helpers printed through a %s conversion (star:
 * its width or precision argument) */
int ipt_pf_put_flags(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s, int star,
		     const struct pf_node *n);
int ipt_pf_put_symbol(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s, int star,
		      const struct pf_node *n);
int ipt_pf_put_hex(struct rctx *c, struct ipt_strbuf *out, const struct pf_node *n);
int ipt_pf_put_int_array(struct rctx *c, struct ipt_strbuf *out, const struct pf_node *n);
int ipt_pf_put_mask(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s, int star,
		    const struct pf_node *n);

/* printfmt_ptr.c: the %p kinds of binary data */
int ipt_pf_put_mac(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s);
int ipt_pf_put_ip(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s);
int ipt_pf_put_uuid(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s);
int ipt_pf_put_raw_buf(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s, int star);

#endif /* IPT_RENDER_PRINTFMT_H */
