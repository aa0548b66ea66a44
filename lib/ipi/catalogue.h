/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ipi/catalogue.h - the one list of the kernel events ipitrace knows for
 * IPIs: the send events, the csd queue and run events, and the receive
 * events with the interrupt vector each one stands for (not installed)
 *
 * The recorder enables what it lists, the IPI decoder and the report engine
 * recognise events through it.  Add an event here and every stage knows it.
 */
#ifndef IPT_IPI_CATALOGUE_H
#define IPT_IPI_CATALOGUE_H

#include "core/core.h"

enum ipt_ipi_role {
	IPT_ROLE_SEND,		/* an IPI sent: ipi_send_cpu, ipi_send_cpumask, ipi_raise */
	IPT_ROLE_QUEUE,		/* a csd call queued for a CPU: csd_queue_cpu */
	IPT_ROLE_CSD_ENTRY,	/* a csd call runs on the target */
	IPT_ROLE_CSD_EXIT,
	IPT_ROLE_VEC_ENTRY,	/* an IPI vector's handler starts on the target */
	IPT_ROLE_VEC_EXIT,
};

enum ipt_ipi_arch { IPT_ARCH_ANY, IPT_ARCH_X86, IPT_ARCH_ARM };

/*
 * The x86 IPI vectors a send is matched to (an interrupt pending at most
 * once per vector and CPU).  arm64 receive events carry a reason string
 * instead; the report numbers those classes after these.
 */
enum ipt_ipi_vector {
	IPT_VEC_NONE = -1,
	IPT_VEC_RESCHED = 0,	/* reschedule_entry/exit */
	IPT_VEC_CALL_SINGLE,	/* call_function_single_entry/exit */
	IPT_VEC_CALL,		/* call_function_entry/exit */
	IPT_VEC_IRQ_WORK,	/* irq_work_entry/exit */
	IPT_VEC__X86		/* number of x86 vector classes */
};

struct ipt_ipi_event_info {
	const char *system, *name;
	enum ipt_ipi_role role;
	enum ipt_ipi_arch arch;
	const char *target;	/* the field naming the target CPU(s), NULL: the CPU it is recorded on */
	enum ipt_ipi_vector vector;	/* x86 receive events: their vector, else IPT_VEC_NONE */
	const char *since;	/* first kernel with it (for messages), NULL: long-standing */
};

/* The catalogue, in the order the recorder probes it. */
extern const struct ipt_ipi_event_info ipt_ipi_catalogue[];
extern const size_t ipt_ipi_catalogue_len;

/* The entry for system:name, or NULL if ipitrace does not know it for IPIs. */
const struct ipt_ipi_event_info *ipt_ipi_event_info(const char *system, const char *name);

/* The entry for an event of a trace: a dynamic probe's (ev->as_name) or its own. */
const struct ipt_ipi_event_info *ipt_ipi_event_info_of(const struct ipt_event *ev);

#endif
