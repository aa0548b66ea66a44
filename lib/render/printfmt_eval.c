// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * printfmt_eval.c - the numeric value of an argument of a print fmt
 * program for one record (libtraceevent's eval_num_arg): fields are read
 * unsigned (only the conversion's length modifier signs), every read
 * bounded by the record
 */
#include "render/printfmt.h"

/* eval_index - "x[i]", with casts around x applied to the element */
static uint64_t eval_index(struct rctx *c, const struct pf_node *n, int depth)
{
	uint64_t idx = ipt_pf_eval(c, n->right, depth + 1), v;
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
		ipt_pf_eval(c, n->left, depth + 1);
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

		l = ipt_pf_eval(c, n->left, depth + 1);
		if (br->left == NONE || br->right == NONE) {
			c->fail = true;
			return 0;
		}
		return ipt_pf_eval(c, l ? br->left : br->right, depth + 1);
	}
	l = ipt_pf_eval(c, n->left, depth + 1);
	r = ipt_pf_eval(c, n->right, depth + 1);
	return eval_binary(c, n->op, l, r);
}

/* ipt_pf_eval - numeric value of node i (libtraceevent's eval_num_arg) */
uint64_t ipt_pf_eval(struct rctx *c, int32_t i, int depth)
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
		return apply_cast(ipt_pf_eval(c, n->right, depth + 1), n->cast);
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
