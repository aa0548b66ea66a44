// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_tracedat.c - trace.dat v6/v7 (none, zstd, zlib) through the whole
 * reader: ipt_trace_open, every record in time order rendered normally and
 * raw, every field read, the IPI rows and the report engine.
 *
 * Inputs that do not start like a trace.dat are left to fuzz_text.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipt_trace *t;

	if (size < 3 || data[0] != 0x17 || data[1] != 0x08 || data[2] != 0x44)
		return -1;	/* not kept in the corpus */
	t = ipt_trace_open(fz_file(data, size));
	if (!t) {
		fz_touch(ipt_errmsg());
		return 0;
	}
	fz_exercise(t, 20000);
	ipt_trace_close(t);
	return 0;
}
