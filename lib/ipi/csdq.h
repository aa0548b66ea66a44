/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * csdq.h - csd calls queued and not yet run, found again by their csd
 * pointer and target CPU
 *
 * csd:csd_queue_cpu names the call (its csd pointer) and the CPU it is
 * queued for; csd:csd_function_entry on that CPU names the pointer again
 * when the call runs.  The pointer of a call on the stack is used again
 * once the call has run, so a queueing and the next run of the same
 * pointer on its target are one call.  Both the report's matching
 * (match.c) and the spikes' csd lanes (spikes.c) pair them here.
 *
 * Memory is bounded: past IPT_CSDQ_MAX calls waiting (their runs were not
 * recorded: the target's csd events missing, or lost), the waiting ones
 * are forgotten and counted in given_up.
 */
#ifndef IPT_IPI_CSDQ_H
#define IPT_IPI_CSDQ_H

#include "core/core.h"

#define IPT_CSDQ_MAX 262144

struct ipt_csd_call {
	uint64_t tag;			/* the hash map's (ipt_hmap) */
	uint64_t csd, ts;
	uint64_t callsite;		/* of the queueing (0: not known) */
	uint32_t epoch;			/* the target's loss count when it was queued:
					 * a run after another loss there is not its run */
	int32_t src, target, pid;	/* the queueing's CPU and task */
};

struct ipt_csdq {
	struct ipt_hmap h;		/* of struct ipt_csd_call */
	uint64_t given_up;		/* calls forgotten, to bound the memory */
};

/* c queued (csd and target set, csd not 0); a call waiting with the same
 * pointer and target is replaced.  0, or -1 without memory. */
int ipt_csdq_put(struct ipt_csdq *q, const struct ipt_csd_call *c);
/* The call waiting for target with this csd pointer, removed into *out:
 * true; false if there is none. */
bool ipt_csdq_take(struct ipt_csdq *q, uint64_t csd, int32_t target, struct ipt_csd_call *out);
void ipt_csdq_free(struct ipt_csdq *q);

#endif
