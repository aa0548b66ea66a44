// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kinds.c - what kind of IPI a send is, decided by a table of rules
 *
 * The rules are data: each looks at one property of the send (arm64 reason
 * string, the function really run, the call site, the callback) and names
 * a kind when its glob matches.  The first matching rule wins.  Extend the
 * table to teach ipitrace a new sender.
 */
#include "input/input.h"
#include "render/render.h"
#include "ipi/ipi.h"

#include <fnmatch.h>

static const char *const kind_names[IPT_KIND__COUNT] = {
	[IPT_KIND_RESCHED] = "resched",
	[IPT_KIND_WAKEUP] = "wakeup",
	[IPT_KIND_CALL] = "call",
	[IPT_KIND_TLB] = "tlb",
	[IPT_KIND_IRQ_WORK] = "irq_work",
	[IPT_KIND_MEMBARRIER] = "membarrier",
	[IPT_KIND_TIMER] = "timer",
	[IPT_KIND_STOP] = "stop",
	[IPT_KIND_OTHER] = "other",
};

const char *ipt_kind_name(enum ipt_ipi_kind kind)
{
	return (unsigned int)kind < IPT_KIND__COUNT ? kind_names[kind] : "other";
}

int ipt_kind_from_name(const char *name)
{
	for (int i = 0; i < IPT_KIND__COUNT; i++)
		if (!strcmp(kind_names[i], name))
			return i;
	return -1;
}

enum rule_on {
	ON_REASON,		/* arm64 ipi_raise reason string */
	ON_FUNC,		/* function really run (csd join), or the callback */
	ON_CALLSITE,		/* call site symbol */
	ON_NO_CALLBACK,		/* callback is NULL (glob unused) */
	ON_ANY_CALLBACK,	/* callback is not NULL (glob unused) */
};

static const struct kind_rule {
	enum rule_on on;
	const char *glob;
	enum ipt_ipi_kind kind;
} rules[] = {
	/* arm/arm64 ipi_raise reasons (arch/arm64/kernel/smp.c ipi_types[]) */
	{ ON_REASON, "Rescheduling*", IPT_KIND_RESCHED },
	{ ON_REASON, "*unction call*", IPT_KIND_CALL },
	{ ON_REASON, "IRQ work*", IPT_KIND_IRQ_WORK },
	{ ON_REASON, "Timer broadcast*", IPT_KIND_TIMER },
	{ ON_REASON, "CPU stop*", IPT_KIND_STOP },
	{ ON_REASON, "*", IPT_KIND_OTHER },
	/* what the call runs */
	{ ON_FUNC, "sched_ttwu_pending", IPT_KIND_WAKEUP },
	{ ON_FUNC, "flush_tlb_func*", IPT_KIND_TLB },
	{ ON_FUNC, "*tlb*", IPT_KIND_TLB },
	{ ON_FUNC, "ipi_mb", IPT_KIND_MEMBARRIER },
	{ ON_FUNC, "ipi_sync_core", IPT_KIND_MEMBARRIER },
	{ ON_FUNC, "ipi_rseq", IPT_KIND_MEMBARRIER },
	{ ON_FUNC, "ipi_sync_rq_state", IPT_KIND_MEMBARRIER },
	{ ON_FUNC, "stop_this_cpu", IPT_KIND_STOP },
	{ ON_FUNC, "*tick_broadcast*", IPT_KIND_TIMER },
	/* who sends it */
	{ ON_CALLSITE, "*irq_work*", IPT_KIND_IRQ_WORK },
	{ ON_CALLSITE, "*tick_broadcast*", IPT_KIND_TIMER },
	{ ON_CALLSITE, "*broadcast_timer*", IPT_KIND_TIMER },
	{ ON_CALLSITE, "*send_stop*", IPT_KIND_STOP },
	{ ON_CALLSITE, "*stop_other_cpus*", IPT_KIND_STOP },
	{ ON_CALLSITE, "*membarrier*", IPT_KIND_MEMBARRIER },
	{ ON_CALLSITE, "*flush_tlb*", IPT_KIND_TLB },
	/* smp_send_reschedule() passes no callback */
	{ ON_NO_CALLBACK, NULL, IPT_KIND_RESCHED },
	{ ON_ANY_CALLBACK, NULL, IPT_KIND_CALL },
};

static bool match(const char *glob, const char *s)
{
	return s && !fnmatch(glob, s, 0);
}

/* ipt_ipi_classify - the kind of the send described by row */
enum ipt_ipi_kind ipt_ipi_classify(const struct ipt_ipi_row *row)
{
	const char *func = row->func_sym ? row->func_sym : row->callback_sym;

	for (size_t i = 0; i < ARRAY_SIZE(rules); i++) {
		const struct kind_rule *r = &rules[i];

		switch (r->on) {
		case ON_REASON:
			if (match(r->glob, row->reason))
				return r->kind;
			break;
		case ON_FUNC:
			if (match(r->glob, func))
				return r->kind;
			break;
		case ON_CALLSITE:
			if (match(r->glob, row->callsite_sym))
				return r->kind;
			break;
		case ON_NO_CALLBACK:
			if (!row->callback && !row->reason && !row->func)
				return r->kind;
			break;
		case ON_ANY_CALLBACK:
			if (row->callback || row->func)
				return r->kind;
			break;
		}
	}
	return IPT_KIND_OTHER;
}
