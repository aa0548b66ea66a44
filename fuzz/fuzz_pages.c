// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_pages.c - ring-buffer pages: the input is the per-CPU data of a trace
 * whose header_page and event formats are fixed (the x86_64 and arm64 IPI,
 * csd, irq_vectors, sched and kernel_stack formats of a real 6.8 kernel,
 * plus one event with every dynamic field kind).  Every record is iterated,
 * rendered and read field by field; the IPI rows and the report engine run
 * on top.
 *
 * Input: one flag byte, then the stream bytes.
 *   bit 0    big endian
 *   bit 1    4-byte kernel long (header_page with a 4-byte commit word)
 *   bits 2-3 sub-buffer size: 4096, 256, 1024, 64
 *   bit 4    two CPU streams (0 and 2), the bytes split in halves
 * The traces of the 16 layouts are built once and reused; only their
 * streams change from one input to the next.
 */
#include "fuzz_common.h"

#include "pages_formats.h"

static struct ipt_trace *build(unsigned int layout)
{
	bool be = layout & 1, l4 = layout & 2;
	int ls = l4 ? 4 : 8;
	unsigned int ps = page_sizes[(layout >> 2) & 3];
	const char *hp = l4 ? header_page4 : header_page8;
	struct ipt_trace *t = ipt_trace_alloc("fuzz-pages");

	if (!t)
		abort();
	t->big_endian = be;
	t->long_size = ls;
	t->kernel_long_size = ls;
	t->page_size = ps;
	free(t->clock);
	t->clock = ipt_strdup("mono");
	if (ipt_header_page_parse(&t->layout, hp, strlen(hp), ps, ls)) {
		fprintf(stderr, "header_page: %s\n", ipt_errmsg());
		abort();
	}
	t->layout.page_size = ps;
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		struct ipt_event ev;

		memset(&ev, 0, sizeof(ev));
		if (ipt_format_parse(&ev, formats[i].system, formats[i].text,
				     strlen(formats[i].text), ls, "fuzz-pages", 0) ||
		    ipt_trace_add_event(t, &ev)) {
			fprintf(stderr, "format %zu: %s\n", i, ipt_errmsg());
			abort();
		}
	}
	if (ipt_trace_finish_events(t) ||
	    ipt_symtab_load_kallsyms(&t->ksyms, kallsyms, strlen(kallsyms)) ||
	    ipt_symtab_sort(&t->ksyms) ||
	    ipt_symtab_load_printk(&t->printk, printk, strlen(printk)) ||
	    ipt_symtab_sort(&t->printk) ||
	    ipt_comms_load_cmdlines(&t->comms, cmdlines, strlen(cmdlines))) {
		fprintf(stderr, "setup: %s\n", ipt_errmsg());
		abort();
	}
	return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ipt_trace *traces[16];
	unsigned int layout;
	struct ipt_trace *t;
	struct ipt_cpu_stream *s;

	if (size < 1)
		return 0;
	layout = data[0] & 15;
	if (!traces[layout])
		traces[layout] = build(layout);
	t = traces[layout];
	data++;
	size--;
	if (data[-1] & 16) {
		size_t half = size / 2;

		if (!(s = ipt_trace_add_stream(t, 0)))
			abort();
		s->data = data;
		s->size = half;
		if (!(s = ipt_trace_add_stream(t, 2)))
			abort();
		s->data = data + half;
		s->size = size - half;
		s->file_offset = half + 1;
	} else {
		if (!(s = ipt_trace_add_stream(t, 0)))
			abort();
		s->data = size ? data : NULL;
		s->size = size;
		s->file_offset = 1;
	}
	fz_exercise(t, 20000);
	free(t->streams);
	t->streams = NULL;
	t->nstreams = 0;
	t->capstreams = 0;
	return 0;
}
