// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * printfmt_const.c - what the print fmt parser knows of fields, types
 * and constants: an event's fields and libtraceevent's element sizes,
 * the masks of casts, operators on constants folded, and the values of
 * __print_flags / __print_symbolic entries
 */
#include "render/printfmt.h"

#include <stdio.h>
#include <stdlib.h>

/* ipt_pf_find_field - field by name; common fields first unless any is false */
const struct ipt_field *ipt_pf_find_field(const struct ipt_event *ev, const char *name,
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

/* ipt_pf_elem_size - libtraceevent's elementsize of a field */
unsigned int ipt_pf_elem_size(const struct ipt_trace *t, const struct ipt_field *f)
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

/* ipt_pf_type_cast - the mask libtraceevent applies for a cast to type (eval_type_str) */
enum cast ipt_pf_type_cast(const char *type, bool pointer)
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
		return ipt_pf_type_cast(buf, false);
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

/* ipt_pf_consolidate - fold operators whose operands are both constants */
int ipt_pf_consolidate(struct parser *p, int32_t i, int depth)
{
	struct pf_node *n = ND(p, i);
	int32_t l = n->left, r = n->right;
	uint64_t v;
	bool dz;
	char buf[24];

	if (n->kind != N_OP)
		return 0;
	if (depth > PF_MAX_DEPTH)
		return ipt_pf_perr(p, "expression too deep"), -1;
	if ((l != NONE && ipt_pf_consolidate(p, l, depth + 1)) ||
	    (r != NONE && ipt_pf_consolidate(p, r, depth + 1)))
		return -1;
	if (l == NONE || r == NONE || ND(p, l)->kind != N_ATOM || ND(p, r)->kind != N_ATOM)
		return 0;
	if (!fold_op(ND(p, i)->op, strtoull(TXT(p, ND(p, l)->text), NULL, 0),
		     strtoull(TXT(p, ND(p, r)->text), NULL, 0), &v, &dz))
		return dz ? (ipt_pf_perr(p, "division by zero"), -1) : 0;
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	n = ND(p, i);
	n->kind = N_ATOM;
	n->text = ipt_pf_arena_add(p, buf, strlen(buf));
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

/* ipt_pf_const_text - a flag entry's value or string as libtraceevent keeps it */
uint32_t ipt_pf_const_text(struct parser *p, int32_t i)
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
	return ipt_pf_arena_add(p, buf, strlen(buf));
}

/* ipt_pf_flag_value - libtraceevent's eval_flag: a number or a few known names, else -1 */
int64_t ipt_pf_flag_value(const char *s)
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
