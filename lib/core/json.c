// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * json.c - JSON strings: the one escaper of every JSON output
 * (report -f json, convert -f jsonl, top -f json, serve's /watched)
 *
 * The rule is ipt_json_str's comment in ipitrace-private.h.  Bytes that
 * need nothing are copied in runs, so that a row of names costs a few
 * calls, not one per byte.
 */
#include "core/core.h"

#include <math.h>

/* utf8_len - the length of the valid UTF-8 sequence of 2 to 4 bytes at
 * s[0..n) (s[0] >= 0x80), or 0: a stray continuation byte, a lead byte
 * that no sequence has (C0, C1, F5-FF), a sequence cut short, an overlong
 * form (E0 80-9F, F0 80-8F), a surrogate (ED A0-BF) or a code point above
 * U+10FFFF (F4 90-BF) */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	/* the second byte's range is narrower after some lead bytes */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

int ipt_json_str(struct ipt_strbuf *sb, const char *str, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0;	/* s[run..i): bytes to copy as they are */
	size_t at = sb->len;

	if (ipt_strbuf_addc(sb, '"'))
		return -1;
	while (i < n) {
		unsigned char c = s[i];
		size_t len = 1;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			continue;
		}
		if (c >= 0x80 && (len = utf8_len(s + i, n - i))) {
			i += len;
			continue;
		}
		if (i > run && ipt_strbuf_add(sb, str + run, i - run))
			goto fail;
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			if (ipt_strbuf_add(sb, e, 2))
				goto fail;
		} else {	/* a control byte, DEL, or a byte of no valid sequence */
			char e[6] = { '\\', 'u', '0', '0', hx[c >> 4], hx[c & 15] };

			if (ipt_strbuf_add(sb, e, 6))
				goto fail;
		}
		run = ++i;
	}
	if ((i > run && ipt_strbuf_add(sb, str + run, i - run)) || ipt_strbuf_addc(sb, '"'))
		goto fail;
	return 0;
fail:	/* the buffer as it was, as the strbuf functions leave it */
	sb->len = at;
	sb->buf[at] = 0;
	return -1;
}

int ipt_json_strz(struct ipt_strbuf *sb, const char *s)
{
	return s ? ipt_json_str(sb, s, strlen(s)) : ipt_strbuf_add(sb, "null", 4);
}

/* ---- the JSON writer (ipt_jw_*) ---- */

/* flush_at - what the writer keeps before it writes to its file */
#define JW_FLUSH_AT (64u << 10)

void ipt_jw_init(struct ipt_jw *j, struct ipt_strbuf *sb, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->sb = sb;
	j->f = f;
}

/* err - record a failure (out of memory, a write error, too deep) */
static void err(struct ipt_jw *j)
{
	j->err = 1;
}

static void flush_some(struct ipt_jw *j)
{
	if (!j->f || j->sb->len < JW_FLUSH_AT)
		return;
	if (fwrite(j->sb->buf, 1, j->sb->len, j->f) != j->sb->len)
		err(j);
	j->sb->len = 0;
	j->sb->buf[0] = 0;
}

int ipt_jw_finish(struct ipt_jw *j)
{
	if (j->depth)
		err(j);
	if (j->f && j->sb->len) {
		if (fwrite(j->sb->buf, 1, j->sb->len, j->f) != j->sb->len)
			err(j);
		j->sb->len = 0;
		j->sb->buf[0] = 0;
	}
	return j->err ? -1 : 0;
}

/* item - what comes before a value: the comma after the container's item
 * before it (none after a key) */
static void item(struct ipt_jw *j)
{
	uint64_t bit = 1ull << (j->depth & 63);

	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth && (j->has_item & bit) && ipt_strbuf_addc(j->sb, ','))
		err(j);
	j->has_item |= bit;
}

void ipt_jw_next(struct ipt_jw *j)
{
	item(j);
	j->after_key = true;	/* the value that follows needs no comma of its own */
}

static void jw_open(struct ipt_jw *j, char c)
{
	item(j);
	if (j->depth >= 63) {
		err(j);
		return;
	}
	if (ipt_strbuf_addc(j->sb, c))
		err(j);
	j->depth++;
	j->has_item &= ~(1ull << j->depth);
	if (c == '[')
		j->is_arr |= 1ull << j->depth;
	else
		j->is_arr &= ~(1ull << j->depth);
}

void ipt_jw_obj(struct ipt_jw *j)
{
	jw_open(j, '{');
}

void ipt_jw_arr(struct ipt_jw *j)
{
	jw_open(j, '[');
}

void ipt_jw_end(struct ipt_jw *j)
{
	if (!j->depth) {
		err(j);
		return;
	}
	if (ipt_strbuf_addc(j->sb, (j->is_arr >> j->depth) & 1 ? ']' : '}'))
		err(j);
	j->depth--;
	if (!j->depth)
		flush_some(j);
}

void ipt_jw_key(struct ipt_jw *j, const char *k)
{
	item(j);
	if (ipt_json_strz(j->sb, k) || ipt_strbuf_addc(j->sb, ':'))
		err(j);
	j->after_key = true;
}

void ipt_jw_str(struct ipt_jw *j, const char *s)
{
	item(j);
	if (ipt_json_strz(j->sb, s))
		err(j);
}

void ipt_jw_strn(struct ipt_jw *j, const char *s, size_t n)
{
	item(j);
	if (ipt_json_str(j->sb, s, n))
		err(j);
}

void ipt_jw_u64(struct ipt_jw *j, uint64_t v)
{
	item(j);
	if (ipt_strbuf_add_u64(j->sb, v))
		err(j);
}

void ipt_jw_i64(struct ipt_jw *j, int64_t v)
{
	item(j);
	if (ipt_strbuf_add_i64(j->sb, v))
		err(j);
}

void ipt_jw_fixed(struct ipt_jw *j, double v, int decimals)
{
	item(j);
	if (ipt_strbuf_addf(j->sb, "%.*f", decimals, v))
		err(j);
}

void ipt_jw_double(struct ipt_jw *j, double v)
{
	if (!isfinite(v)) {
		ipt_jw_null(j);
		return;
	}
	item(j);
	if (ipt_strbuf_addf(j->sb, "%.12g", v))
		err(j);
}

void ipt_jw_bool(struct ipt_jw *j, bool v)
{
	item(j);
	if (ipt_strbuf_adds(j->sb, v ? "true" : "false"))
		err(j);
}

void ipt_jw_null(struct ipt_jw *j)
{
	item(j);
	if (ipt_strbuf_adds(j->sb, "null"))
		err(j);
}

void ipt_jw_addr(struct ipt_jw *j, uint64_t a)
{
	if (a)
		ipt_jw_hex(j, a);
	else
		ipt_jw_null(j);
}

void ipt_jw_hex(struct ipt_jw *j, uint64_t v)
{
	item(j);
	if (ipt_strbuf_adds(j->sb, "\"0x") || ipt_strbuf_add_hex(j->sb, v) || ipt_strbuf_addc(j->sb, '"'))
		err(j);
}

void ipt_jw_raw(struct ipt_jw *j, const char *text)
{
	if (ipt_strbuf_adds(j->sb, text))
		err(j);
}
