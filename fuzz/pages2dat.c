// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pages2dat.c - turn a fuzz_pages input into a trace.dat that the command
 * line reads the same way (same header_page, formats, symbols, cmdlines,
 * layout and CPU streams), so that a fuzz_pages finding can be kept under
 * tests/fuzz-regress/ as a trace for `ipitrace dump/convert/report`.
 *
 *   pages2dat IN OUT.dat
 *
 * A stream that is not whole sub-buffers is padded with zero bytes (an
 * empty page), which the reader skips; a finding that depends on a partial
 * last page may not survive the padding.  Built by hand:
 *   cc -std=gnu11 -D_GNU_SOURCE -Iinclude -Ilib -o /tmp/pages2dat \
 *      fuzz/pages2dat.c build/libipitrace.a -lzstd -lz -lpthread -lm
 */
#include "input/input.h"
#include "render/render.h"
#include "output/tracedat_write.h"

#include <stdio.h>
#include <stdlib.h>

#include "pages_formats.h"

static int add_cpu(struct ipt_tdw *w, int cpu, const uint8_t *d, size_t n, unsigned int ps)
{
	size_t padded = (n + ps - 1) / ps * ps;
	uint8_t *b = calloc(1, padded ? padded : 1);
	int r;

	memcpy(b, d, n);
	r = ipt_tdw_set_cpu_data(w, cpu, b, padded);
	free(b);
	return r;
}

int main(int argc, char **argv)
{
	struct ipt_tdw_opts wo = { 0 };
	struct ipt_tdw *w;
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	unsigned int flag, ps;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: pages2dat IN OUT.dat\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
		}
		size_t k = fread(buf + n, 1, cap - n, f);

		if (!k)
			break;
		n += k;
	}
	fclose(f);
	if (!n) {
		fprintf(stderr, "pages2dat: empty input\n");
		return 1;
	}
	flag = buf[0];
	ps = page_sizes[(flag >> 2) & 3];
	wo.version = 6;
	wo.compression = "none";
	wo.big_endian = flag & 1;
	wo.long_size = (flag & 2) ? 4 : 8;
	wo.page_size = ps;
	w = ipt_tdw_open(argv[2], &wo);
	if (!w)
		goto fail;
	{
		const char *hp = (flag & 2) ? header_page4 : header_page8;

		if (ipt_tdw_set_headers(w, hp, strlen(hp), "", 0))
			goto fail;
	}
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		const char *txt = formats[i].text;
		int r = !strcmp(formats[i].system, "ftrace") ?
			ipt_tdw_add_ftrace_format(w, txt, strlen(txt)) :
			ipt_tdw_add_event_format(w, formats[i].system, txt, strlen(txt));

		if (r)
			goto fail;
	}
	if (ipt_tdw_set_kallsyms(w, kallsyms, strlen(kallsyms)) ||
	    ipt_tdw_set_printk(w, printk, strlen(printk)) ||
	    ipt_tdw_set_cmdlines(w, cmdlines, strlen(cmdlines)) ||
	    ipt_tdw_set_clock(w, "[mono]"))
		goto fail;
	if (flag & 16) {
		size_t half = (n - 1) / 2;

		if (add_cpu(w, 0, buf + 1, half, ps) ||
		    add_cpu(w, 2, buf + 1 + half, n - 1 - half, ps))
			goto fail;
	} else if (add_cpu(w, 0, buf + 1, n - 1, ps)) {
		goto fail;
	}
	free(buf);
	if (ipt_tdw_commit(w)) {
		fprintf(stderr, "pages2dat: %s\n", ipt_errmsg());
		return 1;
	}
	return 0;
fail:
	fprintf(stderr, "pages2dat: %s\n", ipt_errmsg());
	ipt_tdw_abort(w);
	free(buf);
	return 1;
}
