// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_text.c - text traces (`trace-cmd report` output, tracefs trace and
 * trace_pipe text) through ipt_trace_open, then every record rendered, the
 * IPI rows and the report engine, as for a trace.dat.
 *
 * Inputs that start like a trace.dat are left to fuzz_tracedat.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipt_trace *t;

	if (size >= 3 && data[0] == 0x17 && data[1] == 0x08 && data[2] == 0x44)
		return -1;
	if (size == 0)
		return 0;
	t = ipt_trace_open(fz_file(data, size));
	if (!t) {
		fz_touch(ipt_errmsg());
		return 0;
	}
	fz_exercise(t, 20000);
	ipt_trace_close(t);
	return 0;
}
