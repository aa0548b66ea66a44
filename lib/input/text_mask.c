// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * text_mask.c - CPU masks of a text trace: hex words
 * ("00000000,00000104"), CPU lists ("2,5-7") and byte arrays
 * ("ARRAY[02, 00, ...]") into the __data_loc bitmap the kernel writes
 */
#include "input/text.h"

static void mask_clear(struct tx *x)
{
	memset(x->mask, 0, x->mask_words * sizeof(x->mask[0]));
	x->mask_words = 0;
}

static bool mask_set(struct tx *x, uint64_t bit)
{
	if (bit >= IPT_CPUSET_MAX)
		return false;
	x->mask[bit / 64] |= 1ULL << (bit % 64);
	if (bit / 64 + 1 > x->mask_words)
		x->mask_words = (unsigned int)(bit / 64 + 1);
	return true;
}

/*
 * ipt_text_parse_mask - "00000000,00000104" (hex words), "2,5-7" (list), "" or
 * "ARRAY[02, 00, ...]" (bytes).  prefer_hex: an ambiguous text such as "4"
 * is read as hex (bitmasks are always hex in trace-cmd).  *bits: width
 * shown by a hex text (0 for a list).
 */
bool ipt_text_parse_mask(struct tx *x, const char *p, const char *e, bool prefer_hex,
			 unsigned int *bits)
{
	bool hex = prefer_hex, has_alpha = false, len8 = false, has_dash = false;
	const char *c;

	mask_clear(x);
	*bits = 0;
	p = skip_blanks(p, e);
	e = rtrim(p, e);
	if (p == e)
		return true;
	if (starts(p, e, "ARRAY[")) {
		const char *q = p + 6;
		uint64_t byte = 0;

		if (e[-1] != ']')
			return false;
		e--;
		while (q < e) {
			const char *te;
			uint64_t v;

			q = skip_blanks(q, e);
			te = q;
			while (te < e && *te != ',' && !is_blank(*te))
				te++;
			if (!parse_hexn(q, te, &v) || v > 255)
				return false;
			for (int b = 0; b < 8; b++)
				if ((v >> b & 1) && !mask_set(x, byte * 8 + (uint64_t)b))
					return false;
			byte++;
			q = skip_blanks(te, e);
			if (q < e && *q == ',')
				q++;
		}
		*bits = (unsigned int)(byte * 8 > IPT_CPUSET_MAX ? IPT_CPUSET_MAX : byte * 8);
		return true;
	}
	for (c = p; c < e; c++) {
		if (*c == '-')
			has_dash = true;
		else if (hexv(*c) >= 10)
			has_alpha = true;
		else if (*c != ',' && !is_digit(*c))
			return false;
	}
	for (const char *s = p; s < e;) {
		const char *w = memchr(s, ',', (size_t)(e - s));

		if (!w)
			w = e;
		if (w - s == 8)
			len8 = true;
		s = w + 1;
	}
	if (has_dash)
		hex = false;
	else if (has_alpha || len8)
		hex = true;
	if (has_dash && has_alpha)
		return false;
	if (hex) {
		unsigned int bit = 0;
		bool commas = memchr(p, ',', (size_t)(e - p)) != NULL;

		for (const char *we = e; we > p;) {
			const char *ws = we;

			while (ws > p && ws[-1] != ',')
				ws--;
			if (ws == we || (commas && we - ws > 8))
				return false;
			for (const char *d = we; d > ws; d--) {
				int v = hexv(d[-1]);

				for (int b = 0; b < 4; b++)
					if ((v >> b & 1) && !mask_set(x, bit + (unsigned int)b))
						return false;
				bit += 4;
				if (bit > IPT_CPUSET_MAX)
					bit = IPT_CPUSET_MAX;
			}
			if (commas)
				bit = (bit + 31) / 32 * 32;
			we = ws > p ? ws - 1 : p;
			if (ws > p && ws - 1 == p)
				return false;
		}
		*bits = bit > IPT_CPUSET_MAX ? IPT_CPUSET_MAX : bit;
		return true;
	}
	for (const char *s = p; s < e;) {
		const char *w = memchr(s, ',', (size_t)(e - s)), *d;
		uint64_t a, b;

		if (!w)
			w = e;
		d = memchr(s, '-', (size_t)(w - s));
		if (!parse_dec(s, d ? d : w, &a))
			return false;
		b = a;
		if (d && !parse_dec(d + 1, w, &b))
			return false;
		if (b < a || b >= IPT_CPUSET_MAX)
			return false;
		for (uint64_t cpu = a; cpu <= b; cpu++)
			mask_set(x, cpu);
		s = w + 1;
		if (w < e && s == e)
			return false;
	}
	return true;
}

/* ipt_text_put_mask - the parsed mask as a __data_loc bitmap of unsigned
 * longs */
int ipt_text_put_mask(struct tx *x, const struct ipt_field *f, unsigned int shown_bits)
{
	unsigned int bits = shown_bits, words;
	uint8_t buf[IPT_CPUSET_MAX / 8];

	if ((unsigned int)x->nr_cpus > bits)
		bits = (unsigned int)x->nr_cpus;
	if ((unsigned int)x->max_cpu + 1 > bits)
		bits = (unsigned int)x->max_cpu + 1;
	if (x->mask_words * 64 > bits)
		bits = x->mask_words * 64;
	words = (bits + 63) / 64;
	if (!words)
		words = 1;
	for (unsigned int i = 0; i < words; i++)
		ipt_put_uint(buf + i * 8, 8, false, i < x->mask_words ? x->mask[i] : 0);
	return ipt_text_put_dyn(x, f, buf, words * 8, false);
}
