// SPDX-License-Identifier: LGPL-2.1-or-later
/* version.c - the library's version, as its header states it, and what it was built with */
#include "core/core.h"

/* ipt_version - "M.m.p" of the library linked */
const char *ipt_version(void)
{
	return IPT_VERSION;
}

/*
 * ipt_build_features - the optional parts, each "+name" or "-name": the
 * Makefile compiles this file with the -DIPT_HAVE_* it gives the files
 * they change (bpf/counter.c, live/ustack.c); zstd and zlib are always in
 * (core/compress.c)
 */
const char *ipt_build_features(void)
{
	return
#ifdef IPT_HAVE_BPF
		"+bpf"
#else
		"-bpf"
#endif
#ifdef IPT_HAVE_DW
		" +libdw"
#else
		" -libdw"
#endif
		" +zstd +zlib";
}
