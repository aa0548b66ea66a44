// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * classes.c - receive classes: x86 vectors and arm64 reasons, and which
 * of them serves a send (classes.h)
 */
#include "ipi/classes.h"

#include <string.h>

void ipt_classes_init(struct ipt_classes *c)
{
	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
}

void ipt_classes_destroy(struct ipt_classes *c)
{
	pthread_mutex_destroy(&c->lock);
}

/*
 * ipt_class_of_reason - class of an arm64 reason string (added on first
 * sight), after the x86 vector classes: the generic sends of arm64
 * (ipi_send_cpu, no reason) keep x86-style classes and never share a queue
 * with a reason, so matching does not depend on the order in which reasons
 * were seen
 */
int ipt_class_of_reason(struct ipt_classes *c, const char *reason)
{
	int cls = -1;

	if (!reason)
		return -1;
	pthread_mutex_lock(&c->lock);	/* producers of several lanes */
	for (int i = 0; i < c->nreasons && cls < 0; i++)
		if (!strcmp(c->reasons[i], reason))
			cls = CLS_X86_COUNT + i;
	if (cls < 0 && CLS_X86_COUNT + c->nreasons < RPT_NCLASS) {
		c->reasons[c->nreasons] = reason;
		cls = CLS_X86_COUNT + c->nreasons++;
	}
	pthread_mutex_unlock(&c->lock);
	return cls;
}

/* ipt_class_find - the class of a reason seen (once the producers are done) */
int ipt_class_find(const struct ipt_classes *c, const char *reason)
{
	int cls = -1;

	for (int i = 0; i < c->nreasons; i++)
		if (!strcmp(c->reasons[i], reason))
			cls = CLS_X86_COUNT + i;
	return cls;
}

/* ipt_class_of_send - which receive event serves this send */
int ipt_class_of_send(struct ipt_classes *c, const struct ipt_ipi_row *row, struct ipt_cb_memo *m)
{
	int cls;

	if (row->reason) {
		if (m->reason != row->reason) {
			m->reason_cls = ipt_class_of_reason(c, row->reason);
			m->reason = row->reason;
		}
		return m->reason_cls;
	}
	if (row->kind == IPT_KIND_IRQ_WORK && row->src_cpu == row->target_cpu)
		return CLS_IRQ_WORK;
	if (!row->callback)
		return CLS_RESCHED;
	/* a send to a mask is the call-function vector's, whatever the
	 * callback says (since 6.5 it names the single-call handler: the two
	 * share it) */
	if (row->event != m->event) {
		m->event = row->event;
		m->event_mask = row->event && !strcmp(row->event, "ipi_send_cpumask");
	}
	if (m->event_mask)
		return CLS_CALL;
	if (!row->callback_sym)
		return CLS_CALL_ANY;
	if (m->sym == row->callback_sym)
		return m->cls;
	/* the callback names the vector (an exploded mask send keeps it) */
	if (!strcmp(row->callback_sym, "generic_smp_call_function_interrupt"))
		cls = CLS_CALL;
	else if (!strcmp(row->callback_sym, "generic_smp_call_function_single_interrupt"))
		cls = CLS_CALL_SINGLE;
	else
		cls = CLS_CALL_ANY;
	m->sym = row->callback_sym;
	m->cls = cls;
	return cls;
}

/* ipt_class_name - the interrupt vector (x86) or reason (arm64) of class cls */
const char *ipt_class_name(const struct ipt_classes *c, int cls)
{
	static const char *const x86[] = {
		[CLS_RESCHED] = "reschedule", [CLS_CALL_SINGLE] = "call_function_single",
		[CLS_CALL] = "call_function", [CLS_IRQ_WORK] = "irq_work", [CLS_CALL_ANY] = "call_function",
	};

	if (cls >= 0 && cls < CLS_X86_COUNT)
		return x86[cls];
	if (cls >= CLS_X86_COUNT && cls - CLS_X86_COUNT < c->nreasons)
		return c->reasons[cls - CLS_X86_COUNT];
	return "?";
}
