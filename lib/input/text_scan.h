/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * input/text_scan.h - scanning the lines of a text trace: blanks,
 * literals, decimal and hex numbers, each in a range [p, e) of the mapped
 * file (not installed)
 *
 * Static inline: the text reader calls them on every line.
 */
#ifndef IPT_INPUT_TEXT_SCAN_H
#define IPT_INPUT_TEXT_SCAN_H

#include "core/core.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline bool is_blank(char c) { return c == ' ' || c == '\t'; }
static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

#define hexv ipt_hex_digit

static inline const char *skip_blanks(const char *p, const char *e)
{
	while (p < e && is_blank(*p))
		p++;
	return p;
}

static inline const char *rtrim(const char *s, const char *e)
{
	while (e > s && (is_blank(e[-1]) || e[-1] == '\r'))
		e--;
	return e;
}

static inline bool starts(const char *p, const char *e, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(e - p) >= n && !memcmp(p, lit, n);
}

/* find lit in [p, e) */
static inline const char *find(const char *p, const char *e, const char *lit)
{
	size_t n = strlen(lit);

	while ((size_t)(e - p) >= n) {
		const char *q = memchr(p, lit[0], (size_t)(e - p) - n + 1);

		if (!q)
			return NULL;
		if (!memcmp(q, lit, n))
			return q;
		p = q + 1;
	}
	return NULL;
}

/* last occurrence of lit in [p, e) */
static inline const char *rfind(const char *p, const char *e, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(e - p) < n)
		return NULL;
	for (const char *q = e - n; q >= p; q--)
		if (*q == lit[0] && !memcmp(q, lit, n))
			return q;
	return NULL;
}

/* decimal digits [p, e) -> v; false if none or too many */
static inline bool parse_dec(const char *p, const char *e, uint64_t *v)
{
	uint64_t x = 0;

	if (p >= e || e - p > 19)
		return false;
	for (; p < e; p++) {
		if (!is_digit(*p))
			return false;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = x;
	return true;
}

/* hex digits [p, e) (no 0x) -> v */
static inline bool parse_hexn(const char *p, const char *e, uint64_t *v)
{
	uint64_t x = 0;

	if (p >= e || e - p > 16)
		return false;
	for (; p < e; p++) {
		int d = hexv(*p);

		if (d < 0)
			return false;
		x = (x << 4) | (uint64_t)d;
	}
	*v = x;
	return true;
}

/* an integer as printed: [-+]decimal or 0xhex */
static inline bool parse_int(const char *p, const char *e, uint64_t *v)
{
	bool neg = false;

	if (p < e && (*p == '-' || *p == '+')) {
		neg = *p == '-';
		p++;
	}
	if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		if (!parse_hexn(p + 2, e, v))
			return false;
	} else if (!parse_dec(p, e, v)) {
		return false;
	}
	if (neg)
		*v = (uint64_t)-(int64_t)*v;
	return true;
}

/* the token at p: up to a blank or ',' */
static inline const char *token_end(const char *p, const char *e)
{
	while (p < e && !is_blank(*p) && *p != ',')
		p++;
	return p;
}

#endif /* IPT_INPUT_TEXT_SCAN_H */
