// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dl.c - a library opened when a command first needs it (libbpf for BPF
 * counting, libdw for user stacks), not linked: the dynamic loader would
 * map it, and what it needs, at every exec of every command.
 */
#include "core/core.h"

#include <dlfcn.h>
#include <stdio.h>

int ipt_dl_open(const char *soname, const char *const *names, void **syms, size_t n, char *why, size_t whylen)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(why, whylen, "%s", dlerror());
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!(syms[i] = dlsym(h, names[i]))) {
			snprintf(why, whylen, "%s has no %s", soname, names[i]);
			return -1;	/* (the handle stays: dlclose would gain nothing) */
		}
	return 0;
}
