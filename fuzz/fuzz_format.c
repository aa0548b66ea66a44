// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_format.c - event format files: the input as the text of
 * events/ipi/NAME/format, parsed with an 8-byte and a 4-byte kernel long.
 * Whatever parses is used to render three 256-byte records (all zeros, all
 * 0xff, and a pattern whose __data_loc words point inside the record) as a
 * report line, raw and with hex masks, in both byte orders, and every field
 * is read through the public accessors.
 */
#include "fuzz_common.h"

static struct ipt_trace *trace(void)
{
	static struct ipt_trace *t;
	static const char ks[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff813b4440 t sched_ttwu_pending\n"
		"ffffffffffffff00 t top_sym [mod]\n";
	static const char pk[] = "0xffffffffffffffff : \"all ones\"\n";
	static const char cl[] = "0 swapper\n-1 neg\n";

	if (t)
		return t;
	t = ipt_trace_alloc("fuzz-format");
	if (!t || ipt_symtab_load_kallsyms(&t->ksyms, ks, strlen(ks)) ||
	    ipt_symtab_sort(&t->ksyms) || ipt_symtab_load_printk(&t->printk, pk, strlen(pk)) ||
	    ipt_symtab_sort(&t->printk))
		abort();
	ipt_comms_load_cmdlines(&t->comms, cl, strlen(cl));
	return t;
}

static void render_all(struct ipt_trace *t, struct ipt_event *ev)
{
	static uint8_t recs[3][256];
	static bool init;
	struct ipt_strbuf sb = IPT_STRBUF_INIT;

	if (!init) {
		memset(recs[1], 0xff, sizeof(recs[1]));
		for (size_t i = 0; i < sizeof(recs[2]); i += 4) {
			recs[2][i] = 0x20;
			recs[2][i + 1] = 0;
			recs[2][i + 2] = 0x10;
			recs[2][i + 3] = 0;
		}
		init = true;
	}
	for (int be = 0; be < 2; be++) {
		t->big_endian = be;
		for (int k = 0; k < 3; k++) {
			struct ipt_record rec = {
				.ts = 123456789012ULL, .data = recs[k], .size = sizeof(recs[k]),
				.cpu = k, .event = ev, .missed = 0,
			};
			static const unsigned int flags[] = {
				0, IPT_RENDER_RAW, IPT_RENDER_MASK_HEX,
				IPT_RENDER_RAW | IPT_RENDER_MASK_HEX,
			};

			for (size_t f = 0; f < ARRAY_SIZE(flags); f++) {
				ipt_strbuf_reset(&sb);
				ipt_render_record(t, &rec, flags[f], &sb);
				fz_touch(ipt_strbuf_str(&sb));
			}
			fz_fields(t, &rec);
		}
	}
	t->big_endian = false;
	ipt_strbuf_free(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipt_trace *t = trace();
	static const int longs[] = { 8, 4 };

	for (size_t i = 0; i < ARRAY_SIZE(longs); i++) {
		struct ipt_event ev;

		memset(&ev, 0, sizeof(ev));
		if (ipt_format_parse(&ev, "ipi", (const char *)data, size, longs[i],
				     "fuzz-format", 100)) {
			fz_touch(ipt_errmsg());
			continue;
		}
		fz_touch(ev.name);
		fz_touch(ev.system);
		fz_touch(ev.print_fmt);
		ev.f_pid = ipt_event_field(&ev, "common_pid");
		t->kernel_long_size = longs[i];
		t->long_size = longs[i];
		render_all(t, &ev);
		ipt_event_release(&ev);
	}
	return 0;
}
