// SPDX-License-Identifier: LGPL-2.1-or-later
/* catalogue.c - the kernel events of IPIs (see catalogue.h) */
#include "ipi/catalogue.h"

#define S IPT_ROLE_SEND
#define Q IPT_ROLE_QUEUE
#define CE IPT_ROLE_CSD_ENTRY
#define CX IPT_ROLE_CSD_EXIT
#define VE IPT_ROLE_VEC_ENTRY
#define VX IPT_ROLE_VEC_EXIT
#define ANY IPT_ARCH_ANY
#define X86 IPT_ARCH_X86
#define ARM IPT_ARCH_ARM
#define NOV IPT_VEC_NONE

const struct ipt_ipi_event_info ipt_ipi_catalogue[] = {
	{ "ipi", "ipi_send_cpu", S, ANY, "cpu", NOV, "6.4" },
	{ "ipi", "ipi_send_cpumask", S, ANY, "cpumask", NOV, "6.4" },
	{ "csd", "csd_queue_cpu", Q, ANY, "cpu", NOV, "6.5" },
	{ "csd", "csd_function_entry", CE, ANY, NULL, NOV, "6.5" },
	{ "csd", "csd_function_exit", CX, ANY, NULL, NOV, "6.5" },
	{ "irq_vectors", "reschedule_entry", VE, X86, NULL, IPT_VEC_RESCHED, NULL },
	{ "irq_vectors", "reschedule_exit", VX, X86, NULL, IPT_VEC_RESCHED, NULL },
	{ "irq_vectors", "call_function_entry", VE, X86, NULL, IPT_VEC_CALL, NULL },
	{ "irq_vectors", "call_function_exit", VX, X86, NULL, IPT_VEC_CALL, NULL },
	{ "irq_vectors", "call_function_single_entry", VE, X86, NULL, IPT_VEC_CALL_SINGLE, NULL },
	{ "irq_vectors", "call_function_single_exit", VX, X86, NULL, IPT_VEC_CALL_SINGLE, NULL },
	{ "irq_vectors", "irq_work_entry", VE, X86, NULL, IPT_VEC_IRQ_WORK, NULL },
	{ "irq_vectors", "irq_work_exit", VX, X86, NULL, IPT_VEC_IRQ_WORK, NULL },
	{ "irq_vectors", "x86_platform_ipi_entry", VE, X86, NULL, NOV, NULL },
	{ "irq_vectors", "x86_platform_ipi_exit", VX, X86, NULL, NOV, NULL },
	{ "ipi", "ipi_raise", S, ARM, "target_cpus", NOV, NULL },
	{ "ipi", "ipi_entry", VE, ARM, NULL, NOV, NULL },
	{ "ipi", "ipi_exit", VX, ARM, NULL, NOV, NULL },
};

const size_t ipt_ipi_catalogue_len = ARRAY_SIZE(ipt_ipi_catalogue);

const struct ipt_ipi_event_info *ipt_ipi_event_info(const char *system, const char *name)
{
	if (!system || !name)
		return NULL;
	/* asked of every event of a trace (thousands when all were recorded):
	 * the first letters turn most away before a call to strcmp */
	for (size_t i = 0; i < ARRAY_SIZE(ipt_ipi_catalogue); i++)
		if (ipt_ipi_catalogue[i].name[0] == name[0] &&
		    ipt_ipi_catalogue[i].system[0] == system[0] &&
		    !strcmp(ipt_ipi_catalogue[i].name, name) &&
		    !strcmp(ipt_ipi_catalogue[i].system, system))
			return &ipt_ipi_catalogue[i];
	return NULL;
}

const struct ipt_ipi_event_info *ipt_ipi_event_info_of(const struct ipt_event *ev)
{
	if (!ev)
		return NULL;
	if (ev->as_name)
		return ipt_ipi_event_info("ipi", ev->as_name);
	return ev->probe ? NULL : ipt_ipi_event_info(ev->system, ev->name);
}
