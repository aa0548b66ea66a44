// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * printfmt_render.c - a record rendered through its event's print fmt
 * program: the programs of a trace's events, parsed on first use and
 * kept with the trace; the loop over the segments; the conversions every
 * record meets, inline here: numbers (%d, %u, %x, ... with glibc for
 * widths and flags), strings of fields and __get_str, %pS / %ps symbols
 * and plain %p
 *
 * A long-sized non-array field printed with %s is a pointer: its printk
 * string, else its address in hex without 0x.  %pS/%pF print "sym+0xoff"
 * even for offset 0.  Where libtraceevent would read outside the record
 * or crash (division by zero, bad widths), rendering fails instead and
 * the caller falls back.
 */
#include "render/printfmt.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* held to make a trace's cache and to parse a program into it */
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
			c->prog[i] = ipt_printfmt_parse(t, ev);
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
/* Rendering                                                           */
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
	x = (int)ipt_pf_eval(c, s->len_arg, 0);
	*v = x;
	if (s->kind == SEG_PTR)
		return true;
	if (s->kind == SEG_STR && s->star == 2)
		return x >= 0;		/* a maximum: any size is harmless */
	return x >= 0 && x <= PF_MAX_STAR;
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
			return ipt_strbuf_adds(out, str);
		return ipt_strbuf_add_hex(out, addr);
	}
	len = f->size ? f->size : (c->size > f->offset ? c->size - f->offset : 0);
	return put_bytes_str(c, out, s, star, f->offset, len);
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
	case N_FLAGS: return ipt_pf_put_flags(c, out, s, star, n);
	case N_SYMBOL: return ipt_pf_put_symbol(c, out, s, star, n);
	case N_HEX: case N_HEX_STR: return ipt_pf_put_hex(c, out, n);
	case N_INT_ARRAY: return ipt_pf_put_int_array(c, out, n);
	case N_STRING: return put_dyn_str(c, out, s, star, n);
	case N_BITMASK: case N_CPUMASK: return ipt_pf_put_mask(c, out, s, star, n);
	case N_OP:
		if (n->op[0] != '?')
			return 0;
		if (n->right == NONE || RN(c, n->right)->left == NONE) {
			c->fail = true;
			return 0;
		}
		i = ipt_pf_eval(c, n->left, depth + 1) ? RN(c, n->right)->left : RN(c, n->right)->right;
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
		return ipt_strbuf_adds(out, "0x") || ipt_strbuf_add_hex(out, v);
	if (ipt_strbuf_adds(out, sym))
		return -1;
	if (kind == 'S' || kind == 'F')
		return ipt_strbuf_adds(out, "+0x") || ipt_strbuf_add_hex(out, off);
	return 0;
}

/* render_ptr - a %p conversion and its letters */
static int render_ptr(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s, int star)
{
	uint64_t v;

	switch (s->pc[0]) {
	case 'F': case 'f': case 'S': case 's':
		v = ipt_pf_eval(c, s->arg, 0);
		return put_func(c, out, s->pc[0], v);
	case 'M': case 'm':
		return ipt_pf_put_mac(c, out, s);
	case 'I': case 'i':
		return ipt_pf_put_ip(c, out, s);
	case 'U':
		return ipt_pf_put_uuid(c, out, s);
	case 'h':
		return ipt_pf_put_raw_buf(c, out, s, star);
	default:
		v = ipt_pf_eval(c, s->arg, 0);
		if (!v)
			return ipt_strbuf_adds(out, "(nil)");
		return ipt_strbuf_adds(out, "0x") || ipt_strbuf_add_hex(out, v);
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
	uint64_t v = ipt_pf_eval(c, s->arg, 0);
	const char *fmt = RTXT(c, s->text);
	int64_t sv = sext(v, s->ls);
	size_t room;
	int n;

	if (s->fast) {
		if (s->conv == 'd' || s->conv == 'i')
			return ipt_strbuf_add_i64(out, sv);
		if (s->conv == 'u')
			return ipt_strbuf_add_u64(out, zext(v, s->ls));
		return ipt_strbuf_add_hex(out, zext(v, s->ls));
	}
	room = (size_t)(s->width > s->prec ? s->width : s->prec);
	if (s->len_arg != NONE && (size_t)star > room)
		room = (size_t)star;
	room += 32;
	if (ipt_strbuf_grow(out, room))
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
		return ipt_strbuf_add(out, RTXT(c, s->text), s->tlen);
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
		prog = own = ipt_printfmt_parse(t, ev);
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
