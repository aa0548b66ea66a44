// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * printfmt_helpers.c - the print fmt helpers printed through a %s
 * conversion: __print_flags, __print_symbolic, __print_hex,
 * __print_hex_str, __print_array, and the CPU masks of __get_bitmask and
 * __get_cpumask (as CPU lists or %*pb hex words)
 */
#include "render/printfmt.h"

#include <stdlib.h>

/* ipt_pf_put_flags - __print_flags: names of the set bits, then the rest in hex */
int ipt_pf_put_flags(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s,
		     int star, const struct pf_node *n)
{
	int64_t val = (int64_t)ipt_pf_eval(c, n->left, 1);
	const char *delim = n->text == NOSTR ? NULL : RTXT(c, n->text);
	bool printed = false;

	for (int32_t k = n->syms; k != NONE; k = c->prog->syms[k].next) {
		const struct pf_sym *e = &c->prog->syms[k];

		if (!val && e->value < 0)
			return put_cstr(out, s, star, RTXT(c, e->str));
		if (e->value > 0 && (val & e->value) == e->value) {
			if (printed && delim && ipt_strbuf_adds(out, delim))
				return -1;
			if (put_cstr(out, s, star, RTXT(c, e->str)))
				return -1;
			printed = true;
			val &= ~e->value;
		}
	}
	if (!val)
		return 0;
	if (printed && delim && ipt_strbuf_adds(out, delim))
		return -1;
	return ipt_strbuf_adds(out, "0x") || ipt_strbuf_add_hex(out, (uint64_t)val);
}

/* ipt_pf_put_symbol - __print_symbolic: the name of the value, else the value in hex */
int ipt_pf_put_symbol(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s,
		      int star, const struct pf_node *n)
{
	int64_t val = (int64_t)ipt_pf_eval(c, n->left, 1);

	for (int32_t k = n->syms; k != NONE; k = c->prog->syms[k].next)
		if (c->prog->syms[k].value == val)
			return put_cstr(out, s, star, RTXT(c, c->prog->syms[k].str));
	return ipt_strbuf_adds(out, "0x") || ipt_strbuf_add_hex(out, (uint64_t)val);
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

/* ipt_pf_put_hex - __print_hex ("01 02 ff") and __print_hex_str ("0102ff") */
int ipt_pf_put_hex(struct rctx *c, struct ipt_strbuf *out, const struct pf_node *n)
{
	static const char hx[] = "0123456789abcdef";
	uint32_t off, len, i;

	if (!array_start(c, RN(c, n->left), &off))
		return 0;
	len = (uint32_t)ipt_pf_eval(c, n->right, 1);
	for (i = 0; i < len && (uint64_t)off + i < c->size; i++) {
		uint8_t b = c->data[off + i];

		if (i && n->kind == N_HEX && ipt_strbuf_addc(out, ' '))
			return -1;
		if (ipt_strbuf_addc(out, hx[b >> 4]) || ipt_strbuf_addc(out, hx[b & 15]))
			return -1;
	}
	return 0;
}

/*
 * ipt_pf_put_int_array - __print_array: elements in decimal, in host byte order
 * as libtraceevent reads them; a bad element size prints "BAD SIZE" once
 * and continues byte by byte.
 */
int ipt_pf_put_int_array(struct rctx *c, struct ipt_strbuf *out, const struct pf_node *n)
{
	uint32_t off, count, i;
	int size;

	if (!array_start(c, RN(c, n->left), &off))
		return 0;
	count = (uint32_t)ipt_pf_eval(c, n->right, 1);
	size = (int)ipt_pf_eval(c, n->extra, 1);
	for (i = 0; i < count; i++) {
		bool bad = size != 1 && size != 2 && size != 4 && size != 8;
		int k = bad ? 1 : size;

		if ((uint64_t)off + (uint64_t)k > c->size)
			break;
		if (i && ipt_strbuf_addc(out, ' '))
			return -1;
		if (bad) {
			if (ipt_strbuf_addf(out, "BAD SIZE:%d 0x%x", size, c->data[off]))
				return -1;
			size = 1;
		} else if (ipt_strbuf_add_u64(out, host_uint(c->data + off, k))) {
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
		if ((!first && ipt_strbuf_addc(out, ',')) || ipt_strbuf_add_u64(out, j))
			return -1;
		if (e > j && (ipt_strbuf_addc(out, '-') || ipt_strbuf_add_u64(out, e)))
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

		if (ipt_strbuf_addc(out, hx[b >> 4]) || ipt_strbuf_addc(out, hx[b & 15]))
			return -1;
		if (k && k % 4 == 0 && ipt_strbuf_addc(out, ','))
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
	r = ipt_strbuf_add(out, buf, need);
	if (buf != small)
		free(buf);
out:
	ipt_cpuset_free(&set);
	return r;
}

/* ipt_pf_put_mask - __get_bitmask / __get_cpumask through a %s conversion */
int ipt_pf_put_mask(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s,
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
