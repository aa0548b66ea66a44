/*
 * unit_json.c - ipt_json_str, the one JSON string escaper: each case of
 * its rule (include/ipitrace-private.h) against the text written by hand.
 *
 * With --emit it prints instead, one line each, the input bytes in hex, a
 * tab and what ipt_json_str made of them, for the cases below and for
 * random byte strings (a fixed seed): tests/test_json.sh has Python's json
 * module parse each and compare it with the rule reimplemented there.
 */
#include "core/core.h"
#include "testlib.h"

#include <stdint.h>

struct jcase {
	const char *in;
	size_t n;
	const char *want;
};

#define S(lit) lit, sizeof(lit) - 1

static const struct jcase cases[] = {
	{ S(""), "\"\"" },
	{ S("abc 123 ~"), "\"abc 123 ~\"" },
	{ S("a\"b\\c/d"), "\"a\\\"b\\\\c/d\"" },
	/* control bytes and DEL: \u00XX, NUL included */
	{ S("\n\t\r\b\f\x01\x1f"), "\"\\u000a\\u0009\\u000d\\u0008\\u000c\\u0001\\u001f\"" },
	{ S("a\0b"), "\"a\\u0000b\"" },
	{ S("x\x7fy"), "\"x\\u007fy\"" },
	/* valid UTF-8 as it is: 2, 3 and 4 bytes, the edges of each */
	{ S("w\xc3\xb6rker"), "\"w\xc3\xb6rker\"" },
	{ S("\xe6\x97\xa5\xe6\x9c\xac"), "\"\xe6\x97\xa5\xe6\x9c\xac\"" },
	{ S("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\"" },
	{ S("\xc2\x80\xdf\xbf"), "\"\xc2\x80\xdf\xbf\"" },
	{ S("\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf"), "\"\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf\"" },
	{ S("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"), "\"\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\"" },
	/* not UTF-8: each byte of no valid sequence as \u00XX */
	{ S("\x80"), "\"\\u0080\"" },
	{ S("a\xbf" "b"), "\"a\\u00bfb\"" },
	{ S("\xc0\xaf"), "\"\\u00c0\\u00af\"" },			/* overlong '/' */
	{ S("\xc1\xbf"), "\"\\u00c1\\u00bf\"" },
	{ S("\xe0\x80\xaf"), "\"\\u00e0\\u0080\\u00af\"" },		/* overlong, 3 bytes */
	{ S("\xe0\x9f\xbf"), "\"\\u00e0\\u009f\\u00bf\"" },
	{ S("\xf0\x80\x80\xaf"), "\"\\u00f0\\u0080\\u0080\\u00af\"" },	/* overlong, 4 bytes */
	{ S("\xf0\x8f\xbf\xbf"), "\"\\u00f0\\u008f\\u00bf\\u00bf\"" },
	{ S("\xed\xa0\x80"), "\"\\u00ed\\u00a0\\u0080\"" },		/* surrogate U+D800 */
	{ S("\xed\xbf\xbf"), "\"\\u00ed\\u00bf\\u00bf\"" },		/* U+DFFF */
	{ S("\xf4\x90\x80\x80"), "\"\\u00f4\\u0090\\u0080\\u0080\"" },	/* above U+10FFFF */
	{ S("\xf5\x80\x80\x80"), "\"\\u00f5\\u0080\\u0080\\u0080\"" },
	{ S("\xfe\xff"), "\"\\u00fe\\u00ff\"" },
	/* cut short, at the end and before other bytes */
	{ S("\xe6\x97"), "\"\\u00e6\\u0097\"" },
	{ S("\xe6\x97x"), "\"\\u00e6\\u0097x\"" },
	{ S("\xf0\x9f\x98"), "\"\\u00f0\\u009f\\u0098\"" },
	{ S("\xc3"), "\"\\u00c3\"" },
	{ S("\xc3\xc3\xb6"), "\"\\u00c3\xc3\xb6\"" },		/* a lead byte, then a valid pair */
	{ S("\xe6\x97\n"), "\"\\u00e6\\u0097\\u000a\"" },
	{ S("\xe6\"\xa5"), "\"\\u00e6\\\"\\u00a5\"" },
	/* a name cut at TASK_COMM_LEN inside a character */
	{ S("abcdefghijklm\xe6\x97"), "\"abcdefghijklm\\u00e6\\u0097\"" },
};

/* xorshift64: the same random strings on every run */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* random_bytes - n bytes mixing ASCII, valid UTF-8 pieces and any byte */
static size_t random_bytes(uint64_t *seed, char *buf, size_t cap)
{
	static const char *const pieces[] = {
		"\xc3\xb6", "\xe6\x97\xa5", "\xf0\x9f\x98\x80", "\xed\x9f\xbf", "\xf4\x8f\xbf\xbf",
		"\"", "\\", "\n", "\x7f", "\xed\xa0\x80", "\xc0\x80", "\xe0\x80\x80", "\xf4\x90\x80\x80",
	};
	size_t n = 0, want = rnd(seed) % 24;

	while (n < want && n + 4 < cap) {
		uint64_t r = rnd(seed);

		switch (r % 4) {
		case 0:
			buf[n++] = (char)(0x20 + (r >> 8) % 0x5f);
			break;
		case 1: {
			const char *p = pieces[(r >> 8) % ARRAY_SIZE(pieces)];
			size_t k = strlen(p);

			/* sometimes only its first bytes: a sequence cut short */
			if ((r >> 16) % 4 == 0 && k > 1)
				k = 1 + (r >> 20) % (k - 1);
			memcpy(buf + n, p, k);
			n += k;
			break;
		}
		default:
			buf[n++] = (char)(r >> 8);
			break;
		}
	}
	return n;
}

static void emit(const char *in, size_t n, const struct ipt_strbuf *out)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", (unsigned char)in[i]);
	putchar('\t');
	fwrite(out->buf, 1, out->len, stdout);
	putchar('\n');
}

/* the JSON writer (ipt_jw_*): commas, nesting, values, its errors */
static void writer(void)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	struct ipt_jw j;

	ipt_jw_init(&j, &sb, NULL);
	ipt_jw_obj(&j);
	ipt_jw_ku64(&j, "a", 18446744073709551615ULL);
	ipt_jw_ki64(&j, "b", -3);
	ipt_jw_key(&j, "c");
	ipt_jw_arr(&j);
	ipt_jw_arr(&j);
	ipt_jw_end(&j);
	ipt_jw_obj(&j);
	ipt_jw_end(&j);
	ipt_jw_str(&j, "w\xc3\xb6r\"k");
	ipt_jw_str(&j, NULL);
	ipt_jw_strn(&j, "xyz", 2);
	ipt_jw_bool(&j, true);
	ipt_jw_fixed(&j, 2.5, 3);
	ipt_jw_addr(&j, 0);
	ipt_jw_addr(&j, 0xffffffff81000000ULL);
	ipt_jw_hex(&j, 0);
	ipt_jw_end(&j);
	ipt_jw_kstr(&j, "d\n", "");
	ipt_jw_key(&j, "rows");
	ipt_jw_arr(&j);
	for (int i = 0; i < 2; i++) {
		ipt_jw_next(&j);
		ipt_jw_raw(&j, "\n");
		ipt_jw_u64(&j, (uint64_t)i);
	}
	ipt_jw_end(&j);
	ipt_jw_end(&j);
	CHECK(ipt_jw_finish(&j) == 0, "writer: finish");
	CHECK_STR(ipt_strbuf_str(&sb), "{\"a\":18446744073709551615,\"b\":-3,\"c\":[[],{},\"w\xc3\xb6r\\\"k\","
		  "null,\"xy\",true,2.500,null,\"0xffffffff81000000\",\"0x0\"],\"d\\u000a\":\"\","
		  "\"rows\":[\n0,\n1]}");
	/* errors: an end with nothing open, a finish with something open */
	ipt_strbuf_reset(&sb);
	ipt_jw_init(&j, &sb, NULL);
	ipt_jw_end(&j);
	CHECK(ipt_jw_finish(&j) == -1, "writer: an end without an open container fails");
	ipt_jw_init(&j, &sb, NULL);
	ipt_jw_arr(&j);
	CHECK(ipt_jw_finish(&j) == -1, "writer: a finish with an open container fails");
	ipt_jw_init(&j, &sb, NULL);
	for (int i = 0; i < 70; i++)
		ipt_jw_arr(&j);
	CHECK(ipt_jw_finish(&j) == -1, "writer: too deep fails");
	ipt_strbuf_free(&sb);
}

int main(int argc, char **argv)
{
	bool emitting = argc > 1 && !strcmp(argv[1], "--emit");
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	char buf[128];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct jcase *c = &cases[i];

		ipt_strbuf_reset(&sb);
		CHECK(ipt_json_str(&sb, c->in, c->n) == 0, "case %zu: failed", i);
		if (emitting) {
			emit(c->in, c->n, &sb);
			continue;
		}
		CHECK(sb.len == strlen(c->want) && !memcmp(sb.buf, c->want, sb.len),
		      "case %zu: got '%s', want '%s'", i, ipt_strbuf_str(&sb), c->want);
	}
	if (!emitting)
		writer();
	if (emitting) {
		for (int i = 0; i < 3000; i++) {
			size_t n = random_bytes(&seed, buf, sizeof(buf));

			ipt_strbuf_reset(&sb);
			if (ipt_json_str(&sb, buf, n))
				return 1;
			emit(buf, n, &sb);
		}
		ipt_strbuf_free(&sb);
		return 0;
	}

	/* the NUL-terminated form, and null for NULL */
	ipt_strbuf_reset(&sb);
	CHECK(ipt_json_strz(&sb, "w\xc3\xb6rker\x01") == 0, "strz failed");
	CHECK_STR(ipt_strbuf_str(&sb), "\"w\xc3\xb6rker\\u0001\"");
	ipt_strbuf_reset(&sb);
	CHECK(ipt_json_strz(&sb, NULL) == 0, "strz(NULL) failed");
	CHECK_STR(ipt_strbuf_str(&sb), "null");
	/* added after what the buffer holds, which stays */
	ipt_strbuf_reset(&sb);
	ipt_strbuf_adds(&sb, "{\"comm\":");
	ipt_json_str(&sb, "\xe6\x97\xa5\xff", 4);
	ipt_strbuf_addc(&sb, '}');
	CHECK_STR(ipt_strbuf_str(&sb), "{\"comm\":\"\xe6\x97\xa5\\u00ff\"}");
	/* a long string, past the buffer's first sizes: runs copied whole */
	{
		struct ipt_strbuf big = IPT_STRBUF_INIT;
		size_t n = 0, len;

		for (int i = 0; i < 1000; i++)
			n += (size_t)snprintf(buf, sizeof(buf), "w\xc3\xb6rker-%d\t", i);
		{
			char *s = malloc(n + 1), *p = s;

			for (int i = 0; i < 1000; i++)
				p += sprintf(p, "w\xc3\xb6rker-%d\t", i);
			CHECK(ipt_json_str(&big, s, n) == 0, "long string failed");
			/* each tab became 6 bytes, the rest is the same */
			len = n + 2 + 1000 * 5;
			CHECK(big.len == len, "long string: %zu bytes, want %zu", big.len, len);
			CHECK(big.len > 20 && !memcmp(big.buf, "\"w\xc3\xb6rker-0\\u0009w\xc3\xb6rker-1", 20),
			      "long string starts '%.24s'", big.buf);
			free(s);
		}
		ipt_strbuf_free(&big);
	}
	ipt_strbuf_free(&sb);
	TEST_MAIN_END();
}
