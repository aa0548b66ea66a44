// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_usyms.c - the user symbols option that `record --user-stacks`
 * stores (IPT_OPTION_USER_SYMBOLS, lib/core/usyms.c).  What parses is
 * checked; each violated property is an abort() (a finding):
 *  - the stored text is a prefix of the input, up to its first NUL;
 *  - every entry, looked up again by its (process, address), gives a
 *    token for an entry with that same process and address;
 *  - ipt_trace_symbol() of a token names what ipt_trace_user_frame() says,
 *    and ipt_trace_format_symbol() prints it, or the address when unnamed,
 *    NUL-terminated in any buffer size.
 */
#include "fuzz_common.h"

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "usyms check failed: %s: ", #cond); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipt_trace *t = ipt_trace_alloc("fuzz-usyms");
	struct ipt_user_frame uf, again;
	const char *text;

	if (!t)
		return 0;
	if (size > UINT32_MAX || ipt_usyms_parse(t, data, (uint32_t)size, 0)) {
		ipt_trace_close(t);
		return 0;
	}
	text = ipt_usyms_text(t);
	CHECK(text && strlen(text) <= size && !memcmp(text, data, strlen(text)), "stored text");
	for (uint64_t i = 0; ipt_trace_user_frame(t, IPT_UFRAME_TAG | i, &uf); i++) {
		uint64_t tok = ipt_usym_token(t, uf.tgid, uf.addr), off = 0;
		const char *name = ipt_trace_symbol(t, IPT_UFRAME_TAG | i, &off);
		char buf[32], tiny[3];

		CHECK((tok & IPT_UFRAME_TAG_MASK) == IPT_UFRAME_TAG, "entry %llu not found again",
		      (unsigned long long)i);
		CHECK(ipt_trace_user_frame(t, tok, &again) && again.tgid == uf.tgid && again.addr == uf.addr,
		      "entry %llu found as another", (unsigned long long)i);
		CHECK((name == NULL) == (uf.function == NULL) && (!name || off == uf.off), "name of %llu",
		      (unsigned long long)i);
		ipt_trace_format_symbol(t, IPT_UFRAME_TAG | i, true, buf, sizeof(buf));
		ipt_trace_format_symbol(t, IPT_UFRAME_TAG | i, false, tiny, sizeof(tiny));
		CHECK(strlen(buf) < sizeof(buf) && strlen(tiny) < sizeof(tiny), "format");
		if (!name) {
			char want[32];

			snprintf(want, sizeof(want), "0x%llx", (unsigned long long)uf.addr);
			CHECK(!strcmp(buf, want), "unnamed frame printed '%s'", buf);
		}
		(void)ipt_trace_user_process(t, uf.tgid, NULL);
		if (i > 100000)
			break;
	}
	ipt_trace_close(t);
	return 0;
}
