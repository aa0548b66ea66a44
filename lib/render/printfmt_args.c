// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * printfmt_args.c - the arguments of a print fmt into a tree of nodes
 * (libtraceevent's process_* functions), followed step by step, quirks
 * included: its operator handling is not C's (a parenthesised operand of
 * higher precedence is re-associated, a * (b + c) is (a * b) + c;
 * anything after a ?: wraps the whole conditional), and
 * __get_dynamic_array(x)[i] and sizeof(u64) do not parse.  The helper
 * calls (__print_flags, __get_str, sizeof, ...) are here too: their
 * arguments are arguments again.
 */
#include "render/printfmt.h"

#include <stdio.h>

static enum tok process_arg_token(struct parser *p, int32_t arg, uint32_t *tok,
				  enum tok type);
static enum tok process_op(struct parser *p, int32_t arg, uint32_t *tok);

/* process_arg - read a token and parse the argument it starts */
static enum tok process_arg(struct parser *p, int32_t arg, uint32_t *tok)
{
	enum tok type = ipt_pf_read_token(p, tok);

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

/* node_new - a fresh N_NULL node; its index, or NONE when out of room */
static int32_t node_new(struct parser *p)
{
	struct pf_prog *g = p->prog;
	struct pf_node *n;

	if (g->nnodes >= PF_MAX_NODES) {
		ipt_pf_perr(p, "too many nodes");
		return NONE;
	}
	if (IPT_GROW(g->nodes, g->capnodes, g->nnodes + 1)) {
		p->failed = true;
		return NONE;
	}
	n = &g->nodes[g->nnodes];
	memset(n, 0, sizeof(*n));
	n->left = n->right = n->extra = n->next = n->syms = NONE;
	n->text = NOSTR;
	return g->nnodes++;
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
		return ipt_pf_perr(p, "expected ':'");
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
		return ipt_pf_perr(p, "expected ']'");
	ND(p, top)->right = arg;
	return ipt_pf_read_token_item(p, tok);
}

/* process_unary - "-x", "!x", "~x", "+x": arg already holds the operator */
static enum tok process_unary(struct parser *p, int32_t arg, uint32_t *tok, int32_t *right)
{
	const char *op = TXT(p, *tok);
	int32_t left;

	if (!strchr("~!+-", op[0]) || !op[0] || op[1])
		return ipt_pf_perr(p, "bad operator");
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
	type = ipt_pf_read_token_item(p, &token);
	*tok = token;
	if (!strcmp(ND(p, arg)->op, "*") && type == TK_DELIM && tok_is(p, token, ")")) {
		/* "(type *)": the '*' belongs to the type name */
		if (ND(p, left)->kind != N_ATOM)
			return ipt_pf_perr(p, "bad pointer type");
		ND(p, left)->text = ipt_pf_arena_join(p, ND(p, left)->text, " ", optok);
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
		return ipt_pf_perr(p, "expression too deep");
	}
	op = *tok == NOSTR ? "" : TXT(p, *tok);
	if (!*op) {
		type = ipt_pf_perr(p, "missing operator");
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
		type = ipt_pf_perr(p, "unknown operator");
	}
	if (type == TK_OP && !tok_is(p, *tok, ":")) {
		if (op_prio(TXT(p, *tok)) > ND(p, arg)->prio)
			type = process_op(p, arg, tok);
		else if (right == NONE)
			type = ipt_pf_perr(p, "unknown operator");
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
	enum tok type = ipt_pf_read_token_item(p, &token);
	struct pf_node *n;

	if (type == TK_DELIM && tok_is(p, token, ")")) {
		*tok = token;
		return TK_ITEM;		/* "(REC)->field" */
	}
	if (type != TK_OP || !tok_is(p, token, "->"))
		return ipt_pf_perr(p, "expected '->'");
	if (!ipt_pf_expect(p, TK_ITEM, NULL, &token))
		return ipt_pf_perr(p, "expected a field name");
	n = ND(p, arg);
	n->kind = N_FIELD;
	n->text = token;
	n->field = ipt_pf_find_field(p->ev, TXT(p, token), true);
	n->elem = n->field ? ipt_pf_elem_size(p->t, n->field) : 0;
	return ipt_pf_read_token(p, tok);
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
		if (type == TK_ERROR || ipt_pf_consolidate(p, field, 0))
			return -1;
	}
	if (type != TK_DELIM || !tok_is(p, token, next))
		return ipt_pf_perr(p, "bad function argument"), -1;
	*out = field;
	return 0;
}

/* add_sym - append a flag/symbol entry to node owner's list */
static int add_sym(struct parser *p, int32_t owner, int32_t *last, uint32_t value, uint32_t str)
{
	struct pf_prog *g = p->prog;
	struct pf_sym *s;

	if (g->nsyms >= PF_MAX_NODES)
		return ipt_pf_perr(p, "too many flags"), -1;
	if (IPT_GROW(g->syms, g->capsyms, g->nsyms + 1))
		return -1;
	s = &g->syms[g->nsyms];
	s->value = ipt_pf_flag_value(TXT(p, value));
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
		type = ipt_pf_read_token_item(p, &token);
		if (type != TK_OP || !tok_is(p, token, "{"))
			break;
		if ((arg = node_new(p)) == NONE)
			return TK_ERROR;
		type = process_arg(p, arg, &token);
		if (type == TK_OP)
			type = process_op(p, arg, &token);
		if (type != TK_DELIM || !tok_is(p, token, ","))
			return ipt_pf_perr(p, "bad flag entry");
		if ((value = ipt_pf_const_text(p, arg)) == NOSTR)
			return ipt_pf_perr(p, "flag value is not a constant");
		if ((arg = node_new(p)) == NONE)
			return TK_ERROR;
		type = process_arg(p, arg, &token);
		if (type != TK_OP || !tok_is(p, token, "}"))
			return ipt_pf_perr(p, "expected '}'");
		if ((str = ipt_pf_const_text(p, arg)) == NOSTR)
			return ipt_pf_perr(p, "flag name is not a constant");
		if (add_sym(p, owner, &last, value, str))
			return TK_ERROR;
		type = ipt_pf_read_token_item(p, &token);
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
		return ipt_pf_perr(p, "bad __print_flags");
	ND(p, arg)->left = field;
	type = ipt_pf_read_token_item(p, &token);
	if (item_type(type)) {
		ND(p, arg)->text = token;
		type = ipt_pf_read_token_item(p, &token);
	}
	if (type != TK_DELIM || !tok_is(p, token, ","))
		return ipt_pf_perr(p, "bad __print_flags");
	type = process_fields(p, arg, &token);
	if (type != TK_DELIM || !tok_is(p, token, ")"))
		return ipt_pf_perr(p, "bad __print_flags");
	return ipt_pf_read_token_item(p, tok);
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
		return ipt_pf_perr(p, "bad __print_symbolic");
	ND(p, arg)->left = field;
	type = process_fields(p, arg, &token);
	if (type != TK_DELIM || !tok_is(p, token, ")"))
		return ipt_pf_perr(p, "bad __print_symbolic");
	return ipt_pf_read_token_item(p, tok);
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
		return ipt_pf_perr(p, "__print_hex of something not an array");
	ND(p, arg)->left = a;
	ND(p, arg)->right = len;
	return ipt_pf_read_token_item(p, tok);
}

/* process_int_array - __print_array(array, count, element size) */
static enum tok process_int_array(struct parser *p, int32_t arg, uint32_t *tok)
{
	int32_t a, count, size;

	ND(p, arg)->kind = N_INT_ARRAY;
	if (delim_arg(p, ",", &a) || delim_arg(p, ",", &count) || delim_arg(p, ")", &size))
		return TK_ERROR;
	if (!array_arg_ok(p, a))
		return ipt_pf_perr(p, "__print_array of something not an array");
	ND(p, arg)->left = a;
	ND(p, arg)->right = count;
	ND(p, arg)->extra = size;
	return ipt_pf_read_token_item(p, tok);
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

	type = ipt_pf_read_token(p, &token);
	if (type != TK_ITEM || !(f = ipt_pf_find_field(p->ev, TXT(p, token), false)))
		return ipt_pf_perr(p, "bad __get_dynamic_array");
	ND(p, arg)->kind = N_DYNARRAY;
	ND(p, arg)->field = f;
	ND(p, arg)->elem = ipt_pf_elem_size(p->t, f);
	ND(p, arg)->text = token;
	if (!ipt_pf_expect(p, TK_DELIM, ")", NULL))
		return ipt_pf_perr(p, "expected ')'");
	type = ipt_pf_read_token_item(p, tok);
	if (type != TK_OP || !tok_is(p, *tok, "["))
		return type;
	if ((idx = node_new(p)) == NONE)
		return TK_ERROR;
	type = process_arg(p, idx, &token);
	if (type == TK_ERROR || (type == TK_OP && tok_is(p, token, "]")))
		return ipt_pf_perr(p, "__get_dynamic_array()[] is not supported");
	return ipt_pf_read_token_item(p, tok);
}

/* process_dynarray_len - __get_dynamic_array_len(field) */
static enum tok process_dynarray_len(struct parser *p, int32_t arg, uint32_t *tok)
{
	const struct ipt_field *f;
	uint32_t token;

	if (!ipt_pf_expect(p, TK_ITEM, NULL, &token) ||
	    !(f = ipt_pf_find_field(p->ev, TXT(p, token), false)))
		return ipt_pf_perr(p, "bad __get_dynamic_array_len");
	ND(p, arg)->kind = N_DYNARRAY_LEN;
	ND(p, arg)->field = f;
	if (!ipt_pf_expect(p, TK_DELIM, ")", NULL))
		return ipt_pf_perr(p, "expected ')'");
	return ipt_pf_read_token(p, tok);
}

/* process_named - __get_str/__get_bitmask/__get_cpumask(field) */
static enum tok process_named(struct parser *p, int32_t arg, uint32_t *tok, enum node_kind kind)
{
	uint32_t token;
	struct pf_node *n;

	if (!ipt_pf_expect(p, TK_ITEM, NULL, &token))
		return ipt_pf_perr(p, "expected a field name");
	n = ND(p, arg);
	n->kind = (uint8_t)kind;
	n->text = token;
	n->field = ipt_pf_find_field(p->ev, TXT(p, token), true);
	if (!ipt_pf_expect(p, TK_DELIM, ")", NULL))
		return ipt_pf_perr(p, "expected ')'");
	return ipt_pf_read_token(p, tok);
}

/* process_expect - __builtin_expect(cond, N): just cond */
static enum tok process_expect(struct parser *p, int32_t arg, uint32_t *tok)
{
	uint32_t token;
	enum tok type = process_arg(p, arg, &token);

	if (type != TK_DELIM || !tok_is(p, token, ","))
		return ipt_pf_perr(p, "bad __builtin_expect");
	if (!ipt_pf_expect(p, TK_ITEM, NULL, NULL) || !ipt_pf_expect(p, TK_DELIM, ")", NULL))
		return ipt_pf_perr(p, "bad __builtin_expect");
	return ipt_pf_read_token_item(p, tok);
}

/* set_atom - make node i the constant text s */
static bool set_atom(struct parser *p, int32_t i, const char *s)
{
	uint32_t off = ipt_pf_arena_add(p, s, strlen(s));

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

	if (ipt_pf_read_token_item(p, &token) != TK_OP || !tok_is(p, token, "->") ||
	    !ipt_pf_expect(p, TK_ITEM, NULL, &token))
		return false;
	f = ipt_pf_find_field(p->ev, TXT(p, token), true);
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
	enum tok type = ipt_pf_read_token_item(p, &token);
	bool ok = false;

	if (tok_is(p, token, "unsigned")) {
		type = ipt_pf_read_token_item(p, &token);
		if (type == TK_ERROR)
			return type;
		ok = type != TK_ITEM;
	}
	if (ok || tok_is(p, token, "int")) {
		if (!set_atom(p, arg, "4"))
			return TK_ERROR;
	} else if (tok_is(p, token, "long")) {
		type = ipt_pf_read_token_item(p, &token);
		if (tok_is(p, token, "long")) {
			if (!set_atom(p, arg, "8"))
				return TK_ERROR;
		} else {
			if (p->t->long_size != 4 && p->t->long_size != 8)
				return ipt_pf_perr(p, "unknown long size");
			if (!set_atom(p, arg, p->t->long_size == 4 ? "4" : "8"))
				return TK_ERROR;
			ok = true;
		}
	} else if (!tok_is(p, token, "REC") || !sizeof_rec(p, arg)) {
		return ipt_pf_perr(p, "sizeof of an unknown type");
	}
	if (!ok)
		type = ipt_pf_read_token_item(p, &token);
	if (type != TK_DELIM || !tok_is(p, token, ")"))
		return ipt_pf_perr(p, "bad sizeof");
	return ipt_pf_read_token_item(p, tok);
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
	return ipt_pf_perr(p, "unknown function");
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
		return ipt_pf_perr(p, "expected ')'");
	type = ipt_pf_read_token_item(p, &token);
	if (item_type(type) || (type == TK_DELIM && tok_is(p, token, "("))) {
		if (ND(p, arg)->kind != N_ATOM)
			return ipt_pf_perr(p, "bad type cast");
		if ((item = node_new(p)) == NONE)
			return TK_ERROR;
		n = ND(p, arg);
		n->kind = N_TYPE;
		n->right = item;
		n->cast = (uint8_t)ipt_pf_type_cast(TXT(p, n->text), false);
		n->cast_ptr = (uint8_t)ipt_pf_type_cast(TXT(p, n->text), true);
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
	type = ipt_pf_read_token_item(p, &token);
	if (type == TK_DELIM && tok_is(p, token, "(")) {
		type = process_function(p, arg, atom, &token);
		*tok = token;
		return type;
	}
	while (type == TK_ITEM) {
		atom = ipt_pf_arena_join(p, atom, " ", token);
		if (atom == NOSTR)
			return TK_ERROR;
		type = ipt_pf_read_token_item(p, &token);
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
		return ipt_pf_perr(p, "expression too deep");
	}
	switch (type) {
	case TK_ITEM:
		type = process_item(p, arg, tok);
		break;
	case TK_DQUOTE:
	case TK_SQUOTE:
		ND(p, arg)->kind = N_ATOM;
		ND(p, arg)->text = *tok;
		type = ipt_pf_read_token_item(p, tok);
		break;
	case TK_DELIM:
		if (tok_is(p, *tok, "(")) {
			type = process_paren(p, arg, tok);
			break;
		}
		/* fall through */
	case TK_OP:
		if (!set_op(p, arg, *tok, NONE)) {
			type = ipt_pf_perr(p, "bad operator");
			break;
		}
		type = process_op(p, arg, tok);
		break;
	default:
		type = ipt_pf_perr(p, "unexpected token");
		break;
	}
	p->depth--;
	return type;
}

/* ipt_pf_read_args - the comma-separated arguments after the format string */
int ipt_pf_read_args(struct parser *p, int32_t *first, int *count)
{
	enum tok type = TK_ERROR;
	int32_t last = NONE, arg;
	uint32_t token;

	*first = NONE;
	*count = 0;
	do {
		if (type == TK_NEWLINE) {
			type = ipt_pf_read_token_item(p, &token);
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
			if (type == TK_ERROR || ipt_pf_consolidate(p, arg, 0))
				return -1;
			continue;
		}
		if (type == TK_DELIM && tok_is(p, token, ","))
			continue;
		break;
	} while (type != TK_NONE);
	return 0;
}

/* ipt_pf_ftrace_args - old ftrace events without arguments print every field */
int ipt_pf_ftrace_args(struct parser *p, int32_t *first)
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
		ND(p, arg)->elem = ipt_pf_elem_size(p->t, f);
		if (last == NONE)
			*first = arg;
		else
			ND(p, last)->next = arg;
		last = arg;
	}
	return 0;
}
