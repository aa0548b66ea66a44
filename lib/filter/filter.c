// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * filter.c - event filter expressions: the kernel's event filter syntax
 * (Documentation/trace/events.rst, "Event filtering") plus CPU sets and
 * symbol names.
 *
 * Grammar (blanks are isspace() characters and may appear between tokens):
 *
 *   expr    := and ( "||" and )*
 *   and     := unary ( "&&" unary )*
 *   unary   := "!" unary | "(" expr ")" | pred
 *   pred    := NAME op value
 *   op      := "==" | "!=" | "<" | "<=" | ">" | ">=" | "&" | "~"
 *   value   := NUMBER | DURATION | STRING | "CPUS{" cpulist "}" | "true" | "false"
 *   NAME    := [A-Za-z_][A-Za-z0-9_.]*
 *   NUMBER  := "-"? digits, read as the kernel's kstrtoull(s, 0):
 *              0x/0X hexadecimal, a leading 0 octal, else decimal
 *   DURATION:= "-"? digits ("." digits)? ("ns" | "us" | "ms" | "s"): decimal,
 *              its value in ns (whole ns only); "true" is 1, "false" 0
 *   STRING  := '"' chars '"' | "'" chars "'"   (no escapes, as in the kernel)
 *
 * "!" followed by "=" is the != operator, not a negation.  && binds tighter
 * than ||; "!" applies to the predicate or parenthesised group after it.
 *
 * Which operators a value allows is checked at parse time: a string takes
 * == != ~, a number anything but ~, a CPU set == != &.  The kind of a
 * name's value is only known during evaluation; a kind that does not fit
 * the literal (a string compared with a number, ...) makes the predicate
 * false, as does IPT_VAL_NONE.  "!" inverts that false.
 *
 * Compilation: predicates are stored in source order; the boolean
 * structure becomes, for each predicate, the index to continue at when it
 * is true and when it is false (or the final verdict), so evaluation is a
 * forward-only loop with short-circuiting and no recursion.  Each distinct
 * name gets a slot; its value is looked up at most once per evaluation, on
 * first use.
 */
#include "filter/filter.h"

#include <ctype.h>
#include <stdlib.h>

#define FLT_MAX_LEN	65536	/* bytes of expression */
#define FLT_MAX_DEPTH	256	/* nested "(" and "!" */
#define FLT_MAX_SLOTS	128	/* distinct ids (values looked up per eval) */
#define FLT_MAX_NAMES	1024	/* distinct spellings of names */

#define FLT_TRUE	(-1)	/* jump targets meaning "the filter matches" */
#define FLT_FALSE	(-2)	/* ... and "it does not" */

enum flt_op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_BAND, OP_GLOB };
enum flt_lit { LIT_NUM, LIT_STR, LIT_CPUS };
enum flt_match { M_FULL, M_FRONT, M_MIDDLE, M_END, M_GLOB };

struct flt_insn {
	int32_t jt, jf;		/* next insn when true / false, or FLT_TRUE/FALSE */
	uint16_t slot;		/* value slot */
	uint8_t op;		/* enum flt_op */
	uint8_t lit;		/* enum flt_lit */
	uint8_t match;		/* strings: enum flt_match */
	uint8_t invert;		/* strings: result inverted (!=, or ~ "!pat") */
	uint8_t lit_neg;	/* numbers: the literal is negative */
	uint32_t plen;		/* strings: pattern length */
	int32_t single;		/* CPU sets: the CPU if the set has one, else -1 */
	uint64_t num;		/* numbers: value (two's complement if negative) */
	const char *pat;	/* strings: pattern (NUL-terminated) */
	const struct ipt_cpuset *set;	/* CPU sets */
};

struct ipt_filter {
	struct flt_insn *insns;
	int ninsns;
	int *ids;		/* slot -> resolved id */
	int nslots;
	char *pool;		/* string literals */
	struct ipt_cpuset **sets;
	int nsets;
};

/* ------------------------------------------------------------------ */
/* Parsing                                                             */
/* ------------------------------------------------------------------ */

enum node_type { N_PRED, N_AND, N_OR, N_NOT };

struct node {
	uint8_t type;
	int child;		/* first child (AND/OR/NOT) */
	int next;		/* next sibling, -1 at the end */
	int leaves;		/* predicates under this node */
	int pred;		/* N_PRED: index into insns */
};

struct parser {
	const char *s;		/* the expression */
	size_t len;
	size_t pos;
	int depth;
	ipt_filter_resolve_fn resolve;
	void *rctx;
	struct ipt_filter *f;
	size_t pool_used;
	int capinsns, capsets;
	struct node *nodes;
	int nnodes, capnodes;
	char *namebuf;		/* NUL-terminated copy of a name for resolve */
	struct pname {		/* a spelling of a name: where it is first in s, */
		size_t off, len;
		int slot;	/* ... and its slot */
	} *names;
	int nnames, capnames;
};

static bool is_space(char c)
{
	return isspace((unsigned char)c) != 0;
}

static bool is_name_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9') || c == '.';
}

static void skip_space(struct parser *p)
{
	while (p->pos < p->len && is_space(p->s[p->pos]))
		p->pos++;
}

/* What is at pos, for messages: 'x', '\x01' or end of expression. */
static const char *found(const struct parser *p, size_t pos, char *buf, size_t size)
{
	unsigned char c;

	if (pos >= p->len)
		return "end of expression";
	c = (unsigned char)p->s[pos];
	if (c >= 0x20 && c < 0x7f && c != '\'')
		snprintf(buf, size, "'%c'", c);
	else if (c == '\'')
		snprintf(buf, size, "\"'\"");
	else
		snprintf(buf, size, "'\\x%02x'", c);
	return buf;
}

/* Set "filter: column N: ..." (pos is 0-based); returns -1. */
static int perr(size_t pos, const char *fmt, ...) IPT_PRINTF(2, 3);
static int perr(size_t pos, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ipt_err_code(IPT_ERR_INVALID, "filter: column %zu: %s", pos + 1, msg);
}

static int new_node(struct parser *p, enum node_type type)
{
	struct node *n;

	if (IPT_GROW(p->nodes, p->capnodes, p->nnodes + 1))
		return -1;
	n = &p->nodes[p->nnodes];
	memset(n, 0, sizeof(*n));
	n->type = (uint8_t)type;
	n->child = -1;
	n->next = -1;
	n->pred = -1;
	return p->nnodes++;
}

/* Slot for the name at s[off, off+len), resolving it on first sight. */
static int name_slot(struct parser *p, size_t off, size_t len)
{
	struct ipt_filter *f = p->f;
	int id, i;

	for (i = 0; i < p->nnames; i++)
		if (p->names[i].len == len && memcmp(p->s + p->names[i].off, p->s + off, len) == 0)
			return p->names[i].slot;

	if (p->nnames == FLT_MAX_NAMES)
		return perr(off, "too many different names (at most %d)", FLT_MAX_NAMES);
	memcpy(p->namebuf, p->s + off, len);
	p->namebuf[len] = 0;
	id = p->resolve ? p->resolve(p->rctx, p->namebuf) : -1;
	if (id < 0)
		return perr(off, "unknown field '%.*s'", len > 100 ? 100 : (int)len, p->s + off);

	if (IPT_GROW(p->names, p->capnames, p->nnames + 1))
		return -1;

	/* Two names may resolve to the same id: share the slot. */
	for (i = 0; i < f->nslots; i++)
		if (f->ids[i] == id)
			break;
	if (i == f->nslots) {
		if (f->nslots == FLT_MAX_SLOTS)
			return perr(off, "too many different names (at most %d)", FLT_MAX_SLOTS);
		f->ids[f->nslots++] = id;
	}
	p->names[p->nnames] = (struct pname){ off, len, i };
	p->nnames++;
	return i;
}

/* Operators, longest first where one is a prefix of another. */
static const struct {
	const char *text;
	enum flt_op op;
} ops[] = {
	{ "==", OP_EQ }, { "!=", OP_NE }, { "<=", OP_LE }, { "<", OP_LT },
	{ ">=", OP_GE }, { ">", OP_GT }, { "&", OP_BAND }, { "~", OP_GLOB },
};

static const char *op_text(enum flt_op op)
{
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		if (ops[i].op == op)
			return ops[i].text;
	return "?";
}

/*
 * A duration at i (after the sign): decimal digits, an optional fraction
 * and a unit, ns us ms or s ("100us", "1391.5s"), as a number of ns in
 * *v.  1 when the token is no duration (a plain number), 0 when *v and
 * *end are set, -1 on error.
 */
static int parse_duration(struct parser *p, size_t start, size_t i, uint64_t *v, size_t *end)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	size_t j = i, k, u, nfrac;
	uint64_t mult = 0, whole = 0, frac = 0, scale = 1;

	while (j < p->len && isdigit((unsigned char)p->s[j]))
		j++;
	k = j;
	if (k < p->len && p->s[k] == '.')
		for (k++; k < p->len && isdigit((unsigned char)p->s[k]); )
			k++;
	u = k;
	while (u < p->len && isalnum((unsigned char)p->s[u]))
		u++;
	for (size_t n = 0; n < ARRAY_SIZE(units); n++)
		if (u - k == strlen(units[n].unit) && !memcmp(p->s + k, units[n].unit, u - k))
			mult = units[n].ns;
	if (!mult && k == j)
		return 1;	/* no fraction, no unit: a number */
	if (!mult || j == i || (k > j && k == j + 1))
		return perr(start, "invalid number '%.*s' (a duration is decimal with a unit: "
			    "1.5s, 100ms, 20us, 300ns)", (int)(u - start > 40 ? 40 : u - start), p->s + start);
	nfrac = k > j ? k - j - 1 : 0;
	if (nfrac > 18)
		return perr(start, "duration '%.*s': finer than 1 ns", (int)(u - start > 40 ? 40 : u - start),
			    p->s + start);
	for (size_t n = i; n < j; n++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return perr(start, "number out of range '%.*s'", (int)(u - start > 40 ? 40 : u - start),
				    p->s + start);
		whole = whole * 10 + (uint64_t)(p->s[n] - '0');
	}
	for (size_t n = j + 1; n < k; n++) {
		frac = frac * 10 + (uint64_t)(p->s[n] - '0');
		scale *= 10;
	}
	/* frac / scale of a unit: whole ns only (mult and scale are powers of 10) */
	if (frac && (mult < scale ? frac % (scale / mult) : 0))
		return perr(start, "duration '%.*s': finer than 1 ns", (int)(u - start > 40 ? 40 : u - start),
			    p->s + start);
	frac = mult >= scale ? frac * (mult / scale) : frac / (scale / mult);
	if (whole > (UINT64_MAX - frac) / mult)
		return perr(start, "number out of range '%.*s'", (int)(u - start > 40 ? 40 : u - start),
			    p->s + start);
	*v = whole * mult + frac;
	*end = u;
	return 0;
}

/* A number token at pos: "-"? [A-Za-z0-9]+, read like kstrtoull(s, 0). */
static int parse_number(struct parser *p, struct flt_insn *in)
{
	size_t start = p->pos, i = p->pos, end = p->pos;
	bool neg = false;
	unsigned int base = 10;
	uint64_t v = 0;

	if (p->s[i] == '-') {
		neg = true;
		i++;
	}
	int dur = parse_duration(p, start, i, &v, &end);

	if (dur < 0)
		return -1;
	if (dur == 0)
		goto done;
	end = i;
	while (end < p->len && isalnum((unsigned char)p->s[end]))
		end++;
	if (end == i)
		return perr(start, "invalid number '%.*s'", (int)(end - start), p->s + start);
	if (p->s[i] == '0' && i + 2 < end && (p->s[i + 1] == 'x' || p->s[i + 1] == 'X') &&
	    isxdigit((unsigned char)p->s[i + 2])) {
		base = 16;
		i += 2;
	} else if (p->s[i] == '0') {
		base = 8;
	}
	for (; i < end; i++) {
		char c = p->s[i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else
			d = 99;
		if (d >= base)
			return perr(start, "invalid number '%.*s'",
				    (int)(end - start > 40 ? 40 : end - start), p->s + start);
		if (v > (UINT64_MAX - d) / base)
			return perr(start, "number out of range '%.*s'",
				    (int)(end - start > 40 ? 40 : end - start), p->s + start);
		v = v * base + d;
	}
done:
	if (neg && v > (uint64_t)1 << 63)
		return perr(start, "number out of range '%.*s'",
			    (int)(end - start > 40 ? 40 : end - start), p->s + start);
	in->lit = LIT_NUM;
	in->lit_neg = neg && v != 0;
	in->num = neg ? (uint64_t)0 - v : v;
	p->pos = end;
	return 0;
}

/* The string literal at pos (opening quote); fills the pattern. */
static int parse_string(struct parser *p, struct flt_insn *in)
{
	char q = p->s[p->pos];
	size_t start = p->pos, i = p->pos + 1, n;
	char *dst, *pat;
	size_t plen;

	while (i < p->len && p->s[i] != q)
		i++;
	if (i >= p->len)
		return perr(start, "unterminated string");
	n = i - (start + 1);
	dst = p->f->pool + p->pool_used;	/* room: n + 1 <= bytes of the literal */
	memcpy(dst, p->s + start + 1, n);
	dst[n] = 0;
	p->pool_used += n + 1;
	p->pos = i + 1;

	in->lit = LIT_STR;
	in->match = M_FULL;
	in->invert = in->op == OP_NE;
	pat = dst;
	plen = n;
	if (in->op == OP_GLOB) {
		/* As the kernel's filter_parse_regex(): "!" inverts, "*x",
		 * "x*" and "*x*" are suffix, prefix and substring matches,
		 * anything else with * ? [ \ is a full glob. */
		if (plen && pat[0] == '!') {
			in->invert = 1;
			pat++;
			plen--;
		}
		for (size_t k = 0; k < plen; k++) {
			if (pat[k] == '*') {
				if (k == 0) {
					in->match = M_END;
				} else if (k == plen - 1) {
					in->match = in->match == M_END ? M_MIDDLE : M_FRONT;
					pat[k] = 0;
					plen = k;
					break;
				} else {
					in->match = M_GLOB;
					break;
				}
			} else if (pat[k] == '[' || pat[k] == '?' || pat[k] == '\\') {
				in->match = M_GLOB;
				break;
			}
		}
		if (in->match != M_GLOB && in->match != M_FULL && pat[0] == '*') {
			pat++;
			plen--;
		}
	}
	in->pat = pat;		/* into the pool, which never moves */
	in->plen = (uint32_t)plen;
	return 0;
}

static bool list_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A CPU number of a cpulist at *i (decimal); -1 none, -2 too large. */
static long list_uint(const char *s, size_t end, size_t *i)
{
	size_t start = *i;
	long v = 0;

	while (*i < end && s[*i] >= '0' && s[*i] <= '9') {
		v = v * 10 + (s[*i] - '0');
		if (v >= IPT_CPUSET_MAX)
			return -2;
		(*i)++;
	}
	return *i == start ? -1 : v;
}

/*
 * Check the cpulist s[from, end) with the rules of ipt_cpuset_parse_list()
 * so that an error can name its column.
 */
static int check_cpulist(const char *s, size_t from, size_t end)
{
	size_t i = from, last = end;
	char buf[16];

	while (i < last && list_blank(s[i]))
		i++;
	while (last > i && list_blank(s[last - 1]))
		last--;
	if (i == last)
		return perr(from, "empty CPU list");
	for (;;) {
		size_t at;
		long a, b;

		while (i < last && list_blank(s[i]))
			i++;
		at = i;
		a = list_uint(s, last, &i);
		if (a == -2)
			return perr(at, "CPU number too large (at most %d)", IPT_CPUSET_MAX - 1);
		if (a < 0)
			goto bad;
		if (i < last && s[i] == '-') {
			i++;
			at = i;
			b = list_uint(s, last, &i);
			if (b == -2)
				return perr(at, "CPU number too large (at most %d)", IPT_CPUSET_MAX - 1);
			if (b < 0)
				goto bad;
			if (b < a)
				return perr(at, "CPU range %ld-%ld goes backwards", a, b);
		}
		while (i < last && list_blank(s[i]))
			i++;
		if (i == last)
			return 0;
		if (s[i] != ',')
			goto bad;
		i++;
	}
bad:
	if (i >= last)
		return perr(i, "expected a CPU number before '}'");
	if (s[i] >= 0x20 && s[i] < 0x7f)
		snprintf(buf, sizeof(buf), "'%c'", s[i]);
	else
		snprintf(buf, sizeof(buf), "'\\x%02x'", (unsigned char)s[i]);
	return perr(i, "bad CPU list: unexpected %s", buf);
}

/* "CPUS{list}" at pos (just after "CPUS"). */
static int parse_cpus(struct parser *p, struct flt_insn *in, size_t cpus_pos)
{
	struct ipt_filter *f = p->f;
	struct ipt_cpuset *set;
	size_t open = p->pos, close;
	char buf[24];

	if (open >= p->len || p->s[open] != '{')
		return perr(open, "expected '{' after CPUS, found %s", found(p, open, buf, sizeof(buf)));
	close = open + 1;
	while (close < p->len && p->s[close] != '}')
		close++;
	if (close >= p->len)
		return perr(open, "missing '}' after CPUS{");
	if (check_cpulist(p->s, open + 1, close))
		return -1;

	if (IPT_GROW(f->sets, p->capsets, f->nsets + 1))
		return -1;
	set = ipt_malloc(sizeof(*set));
	if (!set)
		return -1;
	ipt_cpuset_init(set);
	f->sets[f->nsets++] = set;
	if (ipt_cpuset_parse_list(set, p->s + open + 1, close - open - 1))
		return perr(cpus_pos, "bad CPU list (%s)", ipt_errmsg());
	in->lit = LIT_CPUS;
	in->set = set;
	in->single = ipt_cpuset_weight(set) == 1 ? ipt_cpuset_next(set, 0) : -1;
	p->pos = close + 1;
	return 0;
}

static int add_insn(struct parser *p)
{
	struct ipt_filter *f = p->f;

	if (IPT_GROW(f->insns, p->capinsns, f->ninsns + 1))
		return -1;
	memset(&f->insns[f->ninsns], 0, sizeof(f->insns[0]));
	f->insns[f->ninsns].single = -1;
	return f->ninsns++;
}

/* pred := NAME op value; returns a node index or -1. */
static int parse_pred(struct parser *p)
{
	size_t name_pos = p->pos, name_len, op_pos, val_pos;
	struct flt_insn *in;
	char buf[24];
	int slot, idx, node;
	enum flt_op op;
	size_t k;

	if (p->pos >= p->len || !is_name_start(p->s[p->pos]))
		return perr(p->pos, "expected a field name, '(' or '!', found %s",
			    found(p, p->pos, buf, sizeof(buf)));
	while (p->pos < p->len && is_name_char(p->s[p->pos]))
		p->pos++;
	name_len = p->pos - name_pos;
	slot = name_slot(p, name_pos, name_len);
	if (slot < 0)
		return -1;

	skip_space(p);
	op_pos = p->pos;
	for (k = 0; k < ARRAY_SIZE(ops); k++) {
		size_t n = strlen(ops[k].text);

		if (p->len - p->pos >= n && memcmp(p->s + p->pos, ops[k].text, n) == 0)
			break;
	}
	if (k == ARRAY_SIZE(ops) ||
	    (ops[k].op == OP_BAND && p->pos + 1 < p->len && p->s[p->pos + 1] == '&'))
		return perr(op_pos, "expected an operator after '%.*s', found %s",
			    name_len > 100 ? 100 : (int)name_len, p->s + name_pos,
			    found(p, op_pos, buf, sizeof(buf)));
	op = ops[k].op;
	p->pos += strlen(ops[k].text);

	idx = add_insn(p);
	if (idx < 0)
		return -1;
	in = &p->f->insns[idx];
	in->slot = (uint16_t)slot;
	in->op = (uint8_t)op;

	skip_space(p);
	val_pos = p->pos;
	if (val_pos < p->len && (p->s[val_pos] == '"' || p->s[val_pos] == '\'')) {
		if (op != OP_EQ && op != OP_NE && op != OP_GLOB)
			return perr(op_pos, "operator '%s' cannot compare strings (use ==, != or ~)",
				    op_text(op));
		if (parse_string(p, in))
			return -1;
	} else if (val_pos < p->len &&
		   (isdigit((unsigned char)p->s[val_pos]) || p->s[val_pos] == '-')) {
		if (op == OP_GLOB)
			return perr(op_pos, "operator '~' needs a \"string\" pattern");
		if (parse_number(p, in))
			return -1;
	} else if (val_pos < p->len && is_name_start(p->s[val_pos])) {
		size_t e = val_pos;

		while (e < p->len && is_name_char(p->s[e]))
			e++;
		if ((e - val_pos == 4 && !memcmp(p->s + val_pos, "true", 4)) ||
		    (e - val_pos == 5 && !memcmp(p->s + val_pos, "false", 5))) {
			if (op != OP_EQ && op != OP_NE)
				return perr(op_pos, "operator '%s' cannot compare true or false (use == or !=)",
					    op_text(op));
			in->lit = LIT_NUM;
			in->num = p->s[val_pos] == 't';
			p->pos = e;
		} else if (e - val_pos == 4 && memcmp(p->s + val_pos, "CPUS", 4) == 0) {
			if (op != OP_EQ && op != OP_NE && op != OP_BAND)
				return perr(op_pos, "operator '%s' cannot compare CPU sets (use &, == or !=)",
					    op_text(op));
			p->pos = e;
			if (parse_cpus(p, in, val_pos))
				return -1;
		} else {
			return perr(val_pos, "expected a value after '%s', found '%.*s' (strings need quotes)",
				    op_text(op), e - val_pos > 100 ? 100 : (int)(e - val_pos),
				    p->s + val_pos);
		}
	} else {
		return perr(val_pos, "expected a value after '%s', found %s", op_text(op),
			    found(p, val_pos, buf, sizeof(buf)));
	}

	node = new_node(p, N_PRED);
	if (node < 0)
		return -1;
	p->nodes[node].pred = idx;
	p->nodes[node].leaves = 1;
	return node;
}

static int parse_or(struct parser *p);

static int parse_unary(struct parser *p)
{
	size_t at;
	int child, node;

	skip_space(p);
	at = p->pos;
	if (at < p->len && (p->s[at] == '(' || (p->s[at] == '!' && (at + 1 >= p->len ||
									 p->s[at + 1] != '=')))) {
		if (p->depth >= FLT_MAX_DEPTH)
			return perr(at, "nesting too deep (more than %d levels of '(' and '!')",
				    FLT_MAX_DEPTH);
		p->depth++;
		p->pos++;
		if (p->s[at] == '!') {
			child = parse_unary(p);
			if (child < 0)
				return -1;
			if (p->nodes[child].type == N_NOT) {
				node = p->nodes[child].child;	/* !!x is x */
			} else {
				node = new_node(p, N_NOT);
				if (node < 0)
					return -1;
				p->nodes[node].child = child;
				p->nodes[node].leaves = p->nodes[child].leaves;
			}
		} else {
			char buf[24];

			node = parse_or(p);
			if (node < 0)
				return -1;
			skip_space(p);
			if (p->pos >= p->len)
				return perr(p->pos, "expected ')'");
			if (p->s[p->pos] != ')')
				return perr(p->pos, "expected '&&', '||' or ')', found %s",
					    found(p, p->pos, buf, sizeof(buf)));
			p->pos++;
		}
		p->depth--;
		return node;
	}
	return parse_pred(p);
}

/* A chain of operands joined by "&&" (sep '&') or "||" (sep '|'). */
static int parse_chain(struct parser *p, char sep)
{
	int first, node = -1, last;

	first = sep == '&' ? parse_unary(p) : parse_chain(p, '&');
	if (first < 0)
		return -1;
	last = first;
	for (;;) {
		int next;

		skip_space(p);
		if (p->pos + 1 >= p->len || p->s[p->pos] != sep || p->s[p->pos + 1] != sep)
			break;
		p->pos += 2;
		if (node < 0) {
			node = new_node(p, sep == '&' ? N_AND : N_OR);
			if (node < 0)
				return -1;
			p->nodes[node].child = first;
			p->nodes[node].leaves = p->nodes[first].leaves;
		}
		next = sep == '&' ? parse_unary(p) : parse_chain(p, '&');
		if (next < 0)
			return -1;
		p->nodes[last].next = next;
		p->nodes[node].leaves += p->nodes[next].leaves;
		last = next;
	}
	return node < 0 ? first : node;
}

static int parse_or(struct parser *p)
{
	return parse_chain(p, '|');
}

/* Give every predicate under node its true/false continuations. */
static void compile(struct parser *p, int node, int32_t t, int32_t f, int *pos)
{
	const struct node *n = &p->nodes[node];
	int c;

	switch (n->type) {
	case N_PRED:
		p->f->insns[n->pred].jt = t;
		p->f->insns[n->pred].jf = f;
		(*pos)++;
		break;
	case N_NOT:
		compile(p, n->child, f, t, pos);
		break;
	case N_AND:
	case N_OR:
		for (c = n->child; c >= 0; c = p->nodes[c].next) {
			int32_t after = (int32_t)(*pos + p->nodes[c].leaves);

			if (p->nodes[c].next < 0)
				compile(p, c, t, f, pos);
			else if (n->type == N_AND)
				compile(p, c, after, f, pos);
			else
				compile(p, c, t, after, pos);
		}
		break;
	}
}

struct ipt_filter *ipt_filter_parse(const char *expr, ipt_filter_resolve_fn resolve,
				    void *resolve_ctx)
{
	struct parser p;
	struct ipt_filter *f;
	char buf[24];
	int root, pos = 0;

	if (!expr) {
		perr(0, "no expression");
		return NULL;
	}
	memset(&p, 0, sizeof(p));
	p.s = expr;
	p.len = strnlen(expr, FLT_MAX_LEN + 1);
	if (p.len > FLT_MAX_LEN) {
		perr(FLT_MAX_LEN, "expression too long (more than %d bytes)", FLT_MAX_LEN);
		return NULL;
	}
	p.resolve = resolve;
	p.rctx = resolve_ctx;

	skip_space(&p);
	if (p.pos == p.len) {
		perr(0, "empty expression");
		return NULL;
	}

	f = ipt_calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	p.f = f;
	f->ids = ipt_malloc(FLT_MAX_SLOTS * sizeof(*f->ids));
	f->pool = ipt_malloc(p.len + 1);
	p.namebuf = ipt_malloc(p.len + 1);
	if (!f->ids || !f->pool || !p.namebuf)
		goto fail;

	root = parse_or(&p);
	if (root < 0)
		goto fail;
	skip_space(&p);
	if (p.pos < p.len) {
		if (p.s[p.pos] == ')')
			perr(p.pos, "unmatched ')'");
		else
			perr(p.pos, "expected '&&', '||' or end of expression, found %s",
			     found(&p, p.pos, buf, sizeof(buf)));
		goto fail;
	}

	compile(&p, root, FLT_TRUE, FLT_FALSE, &pos);
	free(p.nodes);
	free(p.namebuf);
	free(p.names);
	return f;

fail:
	free(p.nodes);
	free(p.namebuf);
	free(p.names);
	ipt_filter_free(f);
	return NULL;
}

void ipt_filter_free(struct ipt_filter *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->nsets; i++) {
		ipt_cpuset_free(f->sets[i]);
		free(f->sets[i]);
	}
	free(f->sets);
	free(f->insns);
	free(f->ids);
	free(f->pool);
	free(f);
}

/* ------------------------------------------------------------------ */
/* Evaluation                                                          */
/* ------------------------------------------------------------------ */

/*
 * Glob match of pat (NUL-terminated) against str[0, n) (no NUL inside),
 * with the rules of the kernel's glob_match(): ? * [set] [!set] [a-z] and
 * \ escapes; a "[" without its "]" is literal.
 */
static bool glob_match(const char *pat, const char *str, size_t n)
{
	const char *back_pat = NULL;
	size_t i = 0, back_i = 0;

	for (;;) {
		unsigned char c = i < n ? (unsigned char)str[i] : 0;
		unsigned char d = (unsigned char)*pat++;

		i++;
		switch (d) {
		case '?':
			if (c == 0)
				return false;
			break;
		case '*':
			if (*pat == 0)
				return true;
			back_pat = pat;
			back_i = --i;
			break;
		case '[': {
			bool match = false, inverted;
			const char *cls;
			unsigned char a;

			if (c == 0)
				return false;
			inverted = *pat == '!';
			cls = pat + inverted;
			a = (unsigned char)*cls++;
			do {
				unsigned char b = a;

				if (a == 0)
					goto literal;
				if (cls[0] == '-' && cls[1] != ']') {
					b = (unsigned char)cls[1];
					if (b == 0)
						goto literal;
					cls += 2;
				}
				if (a <= c && c <= b)
					match = true;
			} while ((a = (unsigned char)*cls++) != ']');
			if (match == inverted)
				goto backtrack;
			pat = cls;
			break;
		}
		case '\\':
			d = (unsigned char)*pat++;
			/* fall through */
		default:
literal:
			if (c == d) {
				if (d == 0)
					return true;
				break;
			}
backtrack:
			if (c == 0 || !back_pat)
				return false;
			pat = back_pat;
			i = ++back_i;
			break;
		}
	}
}

/* Does pat[0, m) (m > 0) occur in s[0, n)?  Short strings: first byte, then the rest. */
static bool contains(const char *s, size_t n, const char *pat, size_t m)
{
	const char *end = s + n - m + 1;	/* last possible start + 1 */

	if (n < m)
		return false;
	while (s < end) {
		s = memchr(s, pat[0], (size_t)(end - s));
		if (!s)
			return false;
		if (memcmp(s + 1, pat + 1, m - 1) == 0)
			return true;
		s++;
	}
	return false;
}

static bool str_match(const struct flt_insn *in, const char *s, size_t n)
{
	switch (in->match) {
	case M_FULL:
		return n == in->plen && memcmp(s, in->pat, n) == 0;
	case M_FRONT:
		return n >= in->plen && memcmp(s, in->pat, in->plen) == 0;
	case M_MIDDLE:
		return in->plen == 0 || contains(s, n, in->pat, in->plen);
	case M_END:
		return n >= in->plen && memcmp(s + n - in->plen, in->pat, in->plen) == 0;
	default:
		return glob_match(in->pat, s, n);
	}
}

const char *ipt_filter_unmatched_literal(const struct ipt_filter *f, int id,
					 const char *const *values, size_t n)
{
	for (int i = 0; f && i < f->ninsns; i++) {
		const struct flt_insn *in = &f->insns[i];
		bool any = false;

		if (in->lit != LIT_STR || in->slot >= f->nslots || f->ids[in->slot] != id)
			continue;
		for (size_t k = 0; k < n && !any; k++)
			any = str_match(in, values[k], strlen(values[k]));
		if (!any)
			return in->pat;
	}
	return NULL;
}

static bool num_match(const struct flt_insn *in, uint64_t x, bool is_signed)
{
	bool xneg = is_signed && (int64_t)x < 0;
	int c;

	if (in->op == OP_BAND)
		return (x & in->num) != 0;
	/* Compare the mathematical values: a negative number is below any
	 * non-negative one; two negatives or two non-negatives order like
	 * their 64-bit patterns. */
	if (xneg != (bool)in->lit_neg)
		c = xneg ? -1 : 1;
	else
		c = x < in->num ? -1 : x > in->num;
	switch (in->op) {
	case OP_EQ: return c == 0;
	case OP_NE: return c != 0;
	case OP_LT: return c < 0;
	case OP_LE: return c <= 0;
	case OP_GT: return c > 0;
	case OP_GE: return c >= 0;
	default: return false;
	}
}

static bool pred_match(const struct flt_insn *in, const struct ipt_value *v)
{
	switch (in->lit) {
	case LIT_NUM:
		if (v->kind == IPT_VAL_INT)
			return num_match(in, v->i, v->is_signed);
		if (v->kind == IPT_VAL_ADDR)
			return num_match(in, v->i, false);
		return false;
	case LIT_STR: {
		const char *s;
		size_t n;

		if (v->kind == IPT_VAL_STR) {
			const char *z;

			s = v->s ? v->s : "";
			n = v->s ? v->slen : 0;
			z = n ? memchr(s, 0, n) : NULL;
			if (z)
				n = (size_t)(z - s);
		} else if (v->kind == IPT_VAL_ADDR) {
			s = v->sym ? v->sym : "";
			n = strlen(s);
		} else {
			return false;
		}
		return str_match(in, s, n) != (bool)in->invert;
	}
	case LIT_CPUS:
		if (v->kind == IPT_VAL_CPUSET) {
			if (!v->set)
				return false;
			switch (in->op) {
			case OP_EQ: return ipt_cpuset_equal(v->set, in->set);
			case OP_NE: return !ipt_cpuset_equal(v->set, in->set);
			default:
				if (in->single >= 0)
					return ipt_cpuset_has(v->set, (unsigned int)in->single);
				return ipt_cpuset_intersects(v->set, in->set);
			}
		}
		if (v->kind == IPT_VAL_INT) {
			/* A scalar CPU number: == is "the set is just this CPU",
			 * & is membership.  Not a CPU: in no set. */
			bool valid = !(v->is_signed && (int64_t)v->i < 0) && v->i < IPT_CPUSET_MAX;
			bool r;

			switch (in->op) {
			case OP_EQ:
			case OP_NE:
				r = valid && in->single >= 0 && v->i == (uint64_t)in->single;
				return in->op == OP_EQ ? r : !r;
			default:
				return valid && ipt_cpuset_has(in->set, (unsigned int)v->i);
			}
		}
		return false;
	}
	return false;
}

int ipt_filter_eval(const struct ipt_filter *f, ipt_filter_lookup_fn lookup, void *ctx)
{
	struct ipt_value vals[FLT_MAX_SLOTS];
	uint64_t loaded[FLT_MAX_SLOTS / 64] = { 0 };
	int32_t i = 0;

	if (!f)
		return 1;	/* no filter: everything matches */
	while (i >= 0) {
		const struct flt_insn *in = &f->insns[i];
		unsigned int slot = in->slot;
		struct ipt_value *v = &vals[slot];

		if (!(loaded[slot / 64] & ((uint64_t)1 << (slot % 64)))) {
			loaded[slot / 64] |= (uint64_t)1 << (slot % 64);
			memset(v, 0, sizeof(*v));
			v->kind = IPT_VAL_NONE;
			if (lookup)
				lookup(ctx, f->ids[slot], v);
		}
		i = pred_match(in, v) ? in->jt : in->jf;
	}
	return i == FLT_TRUE;
}
