/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * classes.h - receive classes: which interrupt serves a send
 *
 * A send is matched to an interrupt of its class on the target CPU.  The
 * first classes are the x86 IPI vectors; arm64's reasons (ipi_raise and
 * ipi_entry carry the same strings) get the classes after them, in the
 * order they are first seen.  The producers of several lanes add reasons,
 * so the table has a lock.
 */
#ifndef IPT_IPI_CLASSES_H
#define IPT_IPI_CLASSES_H

#include "ipi/catalogue.h"

#include <pthread.h>

#define RPT_NCLASS 16			/* receive classes: x86 vectors, or arm64 reasons */

enum {
	CLS_RESCHED = IPT_VEC_RESCHED, CLS_CALL_SINGLE = IPT_VEC_CALL_SINGLE, CLS_CALL = IPT_VEC_CALL,
	CLS_IRQ_WORK = IPT_VEC_IRQ_WORK,
	/* a function call whose vector the send does not tell (its callback is
	 * the function itself, as on 6.4, or an exploded mask send): served by
	 * either function-call vector */
	CLS_CALL_ANY = IPT_VEC__X86,
	CLS_X86_COUNT			/* the first arm64 reason's class */
};

struct ipt_classes {
	const char *reasons[RPT_NCLASS];	/* arm64 reason string per class - CLS_X86_COUNT */
	int nreasons;
	pthread_mutex_t lock;		/* reasons[] (producers add) */
};

void ipt_classes_init(struct ipt_classes *c);
void ipt_classes_destroy(struct ipt_classes *c);

/* The class of an arm64 reason string, added on first sight; -1 for no
 * reason, or when the classes are all taken. */
int ipt_class_of_reason(struct ipt_classes *c, const char *reason);
/* The class of a reason already seen, else -1. */
int ipt_class_find(const struct ipt_classes *c, const char *reason);

/* A producer's last answer for a callback's name (names are interned: the
 * same symbol, the same pointer). */
struct ipt_cb_memo {		/* the last answers, for the next row (zeroed first) */
	const char *sym;		/* callback symbol -> cls */
	int cls;
	const char *reason;		/* reason -> reason_cls */
	int reason_cls;
	const char *event;		/* event name -> whether it is ipi_send_cpumask */
	bool event_mask;
};
/* The class of the interrupt that serves this send (-1: none known). */
int ipt_class_of_send(struct ipt_classes *c, const struct ipt_ipi_row *row, struct ipt_cb_memo *m);

/* The interrupt vector (x86) or reason (arm64) of class cls, "?" if none. */
const char *ipt_class_name(const struct ipt_classes *c, int cls);

#endif
