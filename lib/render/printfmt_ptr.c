// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * printfmt_ptr.c - the %p kinds of a print fmt that print binary data
 * of the record: %pM / %pm MAC addresses, %pI / %pi IPv4 and IPv6
 * addresses and sockaddrs, %pU UUIDs, %*ph raw bytes (%pS and plain %p
 * are in printfmt_render.c)
 */
#include "render/printfmt.h"

/* field_of - the field under casts, or NULL with a libtraceevent message */
static const struct ipt_field *field_of(struct rctx *c, struct ipt_strbuf *out, int32_t i,
					unsigned int size, const char *bad, int *err)
{
	const struct pf_node *n = RN(c, i);

	*err = 0;
	while (n->kind == N_TYPE)
		n = RN(c, n->right);
	if (n->kind != N_FIELD) {
		*err = ipt_strbuf_addf(out, "ARG TYPE NOT FIELD BUT %d", n->kind);
		return NULL;
	}
	if (!n->field)
		return NULL;
	if (n->field->size != size) {
		*err = ipt_strbuf_adds(out, bad);
		return NULL;
	}
	if ((uint64_t)n->field->offset + size > c->size)
		return NULL;
	return n->field;
}

/* ipt_pf_put_mac - %pM "00:11:..", %pMF "00-11-..", %pm "0011..", R: reversed */
int ipt_pf_put_mac(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s)
{
	const char *sep = s->pc[0] == 'm' ? "" : s->pc[1] == 'F' ? "-" : ":";
	bool rev = s->pc[1] == 'R';
	const struct ipt_field *f;
	int err;

	if (!(f = field_of(c, out, s->arg, 6, "INVALIDMAC", &err)))
		return err;
	for (int k = 0; k < 6; k++) {
		uint8_t b = c->data[f->offset + (rev ? 5 - k : k)];

		if ((k && ipt_strbuf_adds(out, sep)) || ipt_strbuf_addf(out, "%.2x", b))
			return -1;
	}
	return 0;
}

/* put_ip4 - 4 address bytes, dotted ('i': 3 digits each), maybe reversed */
static int put_ip4(struct ipt_strbuf *out, char i, bool rev, const uint8_t *b)
{
	const char *fmt = i == 'i' ? "%03d.%03d.%03d.%03d" : "%d.%d.%d.%d";

	return rev ? ipt_strbuf_addf(out, fmt, b[3], b[2], b[1], b[0]) :
		     ipt_strbuf_addf(out, fmt, b[0], b[1], b[2], b[3]);
}

/* put_ip6 - 16 address bytes as 8 groups of 4 digits ('I': with colons) */
static int put_ip6(struct ipt_strbuf *out, char i, const uint8_t *b)
{
	for (int k = 0; k < 16; k += 2)
		if (ipt_strbuf_addf(out, "%02x%02x%s", b[k], b[k + 1], i == 'I' && k < 14 ? ":" : ""))
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
			if ((colon || i == 0) && ipt_strbuf_addc(out, ':'))
				return -1;
			if (ipt_strbuf_addc(out, ':'))
				return -1;
			colon = false;
			i += longest - 1;
			continue;
		}
		if ((colon && ipt_strbuf_addc(out, ':')) || ipt_strbuf_addf(out, "%x", b[2 * i] << 8 | b[2 * i + 1]))
			return -1;
		colon = true;
	}
	if (!v4)
		return 0;
	if (colon && ipt_strbuf_addc(out, ':'))
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
		return ipt_strbuf_addf(out, "ARG NOT FIELD NOR DYNAMIC ARRAY BUT TYPE %d", n->kind);
	}
	if ((uint64_t)off + 2 > c->size)
		return 0;
	sa = c->data + off;
	if (host_uint(sa, 2) == 2) {		/* AF_INET */
		if (len < 16)
			return ipt_strbuf_adds(out, "INVALIDIPv4");
		if ((uint64_t)off + 16 > c->size)
			return 0;
		if (put_ip4(out, s->pc[0], ip4_reverse(c, *l), sa + 4))
			return -1;
		return port ? ipt_strbuf_addf(out, ":%d", sa[2] << 8 | sa[3]) : 0;
	}
	if (host_uint(sa, 2) != 10)		/* AF_INET6 */
		return 0;
	if (len < 28)
		return ipt_strbuf_adds(out, "INVALIDIPv6");
	if ((uint64_t)off + 28 > c->size)
		return 0;
	if (port && ipt_strbuf_addc(out, '['))
		return -1;
	if (comp ? put_ip6c(out, sa + 8) : put_ip6(out, s->pc[0], sa + 8))
		return -1;
	return port ? ipt_strbuf_addf(out, "]:%d", sa[2] << 8 | sa[3]) : 0;
}

/* ipt_pf_put_ip - %pI4 %pi4 [hnbl], %pI6 %pi6 %pI6c, %pIS... */
int ipt_pf_put_ip(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s)
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

/* ipt_pf_put_uuid - %pU[bBlL]: 16 bytes as a UUID ('l', 'L': GUID byte order) */
int ipt_pf_put_uuid(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s)
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

		if (ipt_strbuf_addf(out, upper ? "%02X" : "%02x", b))
			return -1;
		if ((i == 3 || i == 5 || i == 7 || i == 9) && ipt_strbuf_addc(out, '-'))
			return -1;
	}
	return 0;
}

/* ipt_pf_put_raw_buf - %*ph: bytes of a dynamic array, separated per C/D/N */
int ipt_pf_put_raw_buf(struct rctx *c, struct ipt_strbuf *out, const struct pf_seg *s, int star)
{
	const char *sep = s->pc[1] == 'C' ? ":" : s->pc[1] == 'D' ? "-" : s->pc[1] == 'N' ? "" : " ";
	const struct pf_node *n = RN(c, s->arg);
	uint32_t off, len, want = s->len_arg == NONE ? 1 : (uint32_t)star;

	if (n->kind != N_DYNARRAY)
		return ipt_strbuf_addf(out, "ARG TYPE NOT FIELD BUT %d", n->kind);
	dyn_loc(c, n->field, &off, &len);
	if (len < want)
		want = len;
	for (uint32_t k = 0; k < want && (uint64_t)off + k < c->size; k++)
		if ((k && ipt_strbuf_adds(out, sep)) || ipt_strbuf_addf(out, "%02x", c->data[off + k]))
			return -1;
	return 0;
}
