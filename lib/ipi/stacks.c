// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stacks.c - distinct kernel stacks by number, and the tracing frames on
 * top of them (see stacks.h)
 */
#include "ipi/stacks.h"


#include <stdlib.h>
#include <string.h>

static uint64_t stk_hash(const uint64_t *addr, uint32_t n)
{
	uint64_t h = ipt_hash64(n);

	for (uint32_t i = 0; i < n; i++)
		h = ipt_hash_combine(h, addr[i]);
	return h;
}

struct stk_slot {
	uint64_t tag;
	uint32_t id;
};

struct stk_key {
	const struct stk_table *tab;
	const uint64_t *addr;
	uint32_t n;
};

static bool stk_same(const void *entry, const void *key)
{
	const struct stk_key *k = key;
	const struct stk_ent *e = &k->tab->ent[((const struct stk_slot *)entry)->id - 1];

	return e->n == k->n && !memcmp(k->tab->addr + e->off, k->addr, k->n * sizeof(*k->addr));
}

uint32_t stk_intern(struct stk_table *tab, const uint64_t *addr, uint32_t n)
{
	uint64_t tag = ipt_hmap_tag(stk_hash(addr, n));
	struct stk_key k = { tab, addr, n };
	struct stk_slot *sl;
	bool added;

	/* room for the stack first: then nothing can fail after its entry is made */
	if (tab->nent >= UINT32_MAX - 1 || IPT_GROW(tab->ent, tab->capent, tab->nent + 1) ||
	    IPT_GROW(tab->addr, tab->capaddr, tab->naddr + n) ||
	    !(sl = ipt_hmap_add(&tab->ids, sizeof(*sl), tag, stk_same, &k, &added)))
		return 0;
	if (!added)
		return sl->id;
	if (n)
		memcpy(tab->addr + tab->naddr, addr, n * sizeof(*addr));
	tab->ent[tab->nent] = (struct stk_ent){ tab->naddr, n };
	tab->naddr += n;
	sl->id = (uint32_t)++tab->nent;
	return sl->id;
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
	ipt_hmap_free(&tab->ids);
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
