/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stacks.h - distinct kernel stacks, each kept once and named by a number
 *
 * A stack is a list of addresses, leaf first (as the kernel_stack event
 * holds them).  Interning gives equal lists the same id (1, 2, ...; 0
 * stands for "no stack"), so tables count stacks by id.  Tracing frames
 * (the tracepoint's own and its trigger's, on the leaf side) are trimmed
 * by stk_trim_count().
 */
#ifndef IPT_IPI_STACKS_H
#define IPT_IPI_STACKS_H

#include "core/core.h"

struct stk_table {
	uint64_t *addr;			/* all stacks' addresses, one after another */
	size_t naddr, capaddr;
	struct stk_ent {
		size_t off;		/* in addr */
		uint32_t n;
	} *ent;				/* ent[id - 1] */
	size_t nent, capent;
	struct ipt_hmap ids;		/* of struct stk_slot (stacks.c): the ids by hash */
};

/* The id of the stack (n addresses), added if new; 0 on error (no memory,
 * or more than UINT32_MAX - 1 stacks). */
uint32_t stk_intern(struct stk_table *tab, const uint64_t *addr, uint32_t n);
/* The addresses of stack id (1 .. nent); *n set.  NULL for an unknown id. */
const uint64_t *stk_get(const struct stk_table *tab, uint32_t id, uint32_t *n);
void stk_free(struct stk_table *tab);

/* Whether a function name is one of the tracing machinery's (the event's
 * own tracepoint code, a trigger, the stack saver). */
bool stk_tracing_frame(const char *name);
/* How many leaf-side frames of the stack are tracing frames. */
uint32_t stk_trim_count(const struct ipt_trace *t, const uint64_t *addr, uint32_t n);

#endif
