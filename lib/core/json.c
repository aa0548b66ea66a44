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
