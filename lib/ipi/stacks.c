// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stacks.c - distinct kernel stacks by number, and the tracing frames on
 * top of them (see stacks.h)
 */
#include "ipi/stacks.h"

#include "core/hash.h"

#include <stdlib.h>
#include <string.h>

static uint64_t stk_hash(const uint64_t *addr, uint32_t n)
{
	uint64_t h = ipt_hash64(n);

	for (uint32_t i = 0; i < n; i++)
		h = ipt_hash_combine(h, addr[i]);
	return h;
}

static bool stk_same(const struct stk_table *tab, const struct stk_ent *e, uint64_t h,
		     const uint64_t *addr, uint32_t n)
{
	return e->hash == h && e->n == n && !memcmp(tab->addr + e->off, addr, n * sizeof(*addr));
}

static int stk_rehash(struct stk_table *tab)
{
	size_t cap = tab->capslot ? tab->capslot * 2 : 256;
	uint32_t *s = ipt_calloc(cap, sizeof(*s));

	if (!s)
		return -1;
	for (size_t id = 1; id <= tab->nent; id++) {
		size_t i = ipt_hash_slot(tab->ent[id - 1].hash, cap);

		while (s[i])
			i = (i + 1) & (cap - 1);
		s[i] = (uint32_t)id;
	}
	free(tab->slot);
	tab->slot = s;
	tab->capslot = cap;
	return 0;
}

uint32_t stk_intern(struct stk_table *tab, const uint64_t *addr, uint32_t n)
{
	uint64_t h = stk_hash(addr, n);
	size_t i;

	if ((tab->nent + 1) * 2 > tab->capslot && stk_rehash(tab))
		return 0;
	for (i = ipt_hash_slot(h, tab->capslot); tab->slot[i]; i = (i + 1) & (tab->capslot - 1))
		if (stk_same(tab, &tab->ent[tab->slot[i] - 1], h, addr, n))
			return tab->slot[i];
	if (tab->nent >= UINT32_MAX - 1)
		return 0;
	if (tab->nent == tab->capent) {
		size_t cap = tab->capent ? tab->capent * 2 : 64;
		struct stk_ent *e = ipt_realloc(tab->ent, cap * sizeof(*e));

		if (!e)
			return 0;
		tab->ent = e;
		tab->capent = cap;
	}
	if (tab->naddr + n > tab->capaddr) {
		size_t cap = tab->capaddr ? tab->capaddr : 1024;
		uint64_t *a;

		while (cap < tab->naddr + n)
			cap *= 2;
		a = ipt_realloc(tab->addr, cap * sizeof(*a));
		if (!a)
			return 0;
		tab->addr = a;
		tab->capaddr = cap;
	}
	if (n)
		memcpy(tab->addr + tab->naddr, addr, n * sizeof(*addr));
	tab->ent[tab->nent] = (struct stk_ent){ h, tab->naddr, n };
	tab->naddr += n;
	tab->slot[i] = (uint32_t)++tab->nent;
	return (uint32_t)tab->nent;
}

const uint64_t *stk_get(const struct stk_table *tab, uint32_t id, uint32_t *n)
{
	if (!id || id > tab->nent) {
		*n = 0;
		return NULL;
	}
	static const uint64_t none[1];

	*n = tab->ent[id - 1].n;
	return *n ? tab->addr + tab->ent[id - 1].off : none;	/* addr may be NULL: no frame yet */
}

void stk_free(struct stk_table *tab)
{
	free(tab->addr);
	free(tab->ent);
	free(tab->slot);
	memset(tab, 0, sizeof(*tab));
}

bool stk_tracing_frame(const char *name)
{
	static const char *const prefixes[] = {
		"trace_event_raw_event_", "__traceiter_", "perf_trace_", "__bpf_trace_",
		"__probestub_",
	};
	static const char *const names[] = {
		"event_triggers_call", "__event_trigger_test_discard", "trace_event_buffer_commit",
		"trace_buffer_unlock_commit_regs", "__trace_stack", "__ftrace_trace_stack",
		"ftrace_trace_stack", "stacktrace_trigger", "stacktrace_count_trigger",
		"trace_event_buffer_lock_reserve", "ring_buffer_lock_reserve",
	};

	if (!name)
		return false;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

uint32_t stk_trim_count(const struct ipt_trace *t, const uint64_t *addr, uint32_t n)
{
	uint32_t k = 0;
	uint64_t off;

	while (k < n && stk_tracing_frame(ipt_trace_symbol(t, addr[k], &off)))
		k++;
	return k;
}
