// SPDX-License-Identifier: LGPL-2.1-or-later
/* strbuf.c - a growable byte buffer, always NUL-terminated */
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>

/* ipt_strbuf_reserve - make room for extra more bytes plus the NUL */
int ipt_strbuf_reserve(struct ipt_strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	bool first = !sb->buf;

	if (need < sb->len)
		return ipt_err("buffer size overflow");
	if (IPT_GROW(sb->buf, sb->cap, need))
		return -1;
	if (first)
		sb->buf[sb->len] = 0;	/* a first allocation holds "" (ipt_strbuf_str) */
	return 0;
}

int ipt_strbuf_addf(struct ipt_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ipt_strbuf_grow(sb, 64))
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return ipt_err("format error");
	if ((size_t)n >= sb->cap - sb->len) {
		if (ipt_strbuf_grow(sb, (size_t)n))
			return -1;
		va_start(ap, fmt);
		vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
		va_end(ap);
	}
	sb->len += (size_t)n;
	return 0;
}

/* add - ipt_strbuf_add with the room checked here (the numbers below) */
static inline int add(struct ipt_strbuf *sb, const char *s, size_t n)
{
	if (n >= sb->cap - sb->len)
		return ipt_strbuf_add(sb, s, n);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = 0;
	return 0;
}

const char ipt_two_digits[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";


/* ipt_strbuf_add_u64 - decimal without stdio */
int ipt_strbuf_add_u64(struct ipt_strbuf *sb, uint64_t v)
{
	char tmp[24], *p = ipt_decimal(tmp + sizeof(tmp), v);

	return add(sb, p, (size_t)(tmp + sizeof(tmp) - p));
}

int ipt_strbuf_add_i64(struct ipt_strbuf *sb, int64_t v)
{
	char tmp[24], *p = ipt_decimal(tmp + sizeof(tmp), v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);

	if (v < 0)
		*--p = '-';
	return add(sb, p, (size_t)(tmp + sizeof(tmp) - p));
}

int ipt_strbuf_add_hex(struct ipt_strbuf *sb, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int i = sizeof(tmp);

	do {
		tmp[--i] = digits[v & 15];
		v >>= 4;
	} while (v);
	return add(sb, tmp + i, sizeof(tmp) - (size_t)i);
}

/* ipt_strbuf_pad - pad with blanks so that the text since from is width wide */
int ipt_strbuf_pad(struct ipt_strbuf *sb, size_t from, size_t width)
{
	size_t have = sb->len - from;

	if (have >= width)
		return 0;
	if (width - have >= sb->cap - sb->len && ipt_strbuf_grow(sb, width - have))
		return -1;
	/* a column's few blanks: no call */
	for (char *p = sb->buf + sb->len, *e = p + (width - have); p < e; p++)
		*p = ' ';
	sb->len += width - have;
	sb->buf[sb->len] = 0;
	return 0;
}

const char *ipt_strbuf_str(struct ipt_strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

/* ipt_strbuf_free - release a buffer's memory */
void ipt_strbuf_free(struct ipt_strbuf *sb)
{
	if (!sb)
		return;
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}
