// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * report_api.c - the accessors of a finished report (ipitrace.h): they
 * only read what report_build.c made
 */
#include "ipi/report_views.h"

const struct ipt_report_summary *ipt_report_summary(const struct ipt_report *rep)
{
	return &rep->sum;
}

const struct ipt_report_cpu *ipt_report_cpu(const struct ipt_report *rep, int cpu)
{
	return cpu >= 0 && cpu < rep->sum.ncpus ? &rep->cpus[cpu] : NULL;
}

const struct ipt_report_kind *ipt_report_kind(const struct ipt_report *rep, enum ipt_ipi_kind kind)
{
	return (int)kind >= 0 && kind < IPT_KIND__COUNT ? &rep->kinds[kind] : NULL;
}

const struct ipt_report_sender *ipt_report_senders(const struct ipt_report *rep, size_t *n)
{
	*n = rep->nsenders;
	return rep->senders;
}

const struct ipt_report_sender *ipt_report_sender_tasks(const struct ipt_report *rep, size_t *n)
{
	*n = rep->ntasks;
	return rep->tasks;
}

const struct ipt_report_pair *ipt_report_pairs(const struct ipt_report *rep, size_t *n)
{
	*n = rep->npairs;
	return rep->pairs;
}

const struct ipt_report_pair *ipt_report_pairs_all(const struct ipt_report *rep, size_t *n)
{
	*n = rep->npairs_all;
	return rep->pairs_all;
}

const struct ipt_report_cell *ipt_report_matrix(const struct ipt_report *rep, size_t *n)
{
	*n = rep->nmatrix;
	return rep->matrix;
}

const struct ipt_report_isolated *ipt_report_isolated(const struct ipt_report *rep, size_t *n)
{
	*n = rep->r.niso;
	return rep->r.iso;
}

const uint64_t *ipt_report_time_bins(const struct ipt_report *rep, int cpu)
{
	if (!rep->tbins || cpu < 0 || cpu >= rep->sum.ncpus)
		return NULL;
	return rep->tbins + (size_t)cpu * (size_t)rep->r.opts.time_bins;
}

const char *ipt_unsent_cause_what(enum ipt_unsent_cause why)
{
	static const char *const what[IPT_UNSENT__COUNT] = {
		[IPT_UNSENT_BEFORE_START] = "another CPU was not recording yet",
		[IPT_UNSENT_LOST_EVENTS] = "events were lost on a CPU in the moments before (as long as the "
					   "largest latency seen)",
		[IPT_UNSENT_FILTERED] = "the recording filtered sends",
		[IPT_UNSENT_UNTRACED] = "sent by a kernel path the IPI send events do not cover",
		[IPT_UNSENT_UNKNOWN] = "not decided (more such interrupts than the report keeps)",
	};

	return (unsigned int)why < IPT_UNSENT__COUNT ? what[why] : "?";
}

const char *ipt_unsent_cause_name(enum ipt_unsent_cause why)
{
	static const char *const names[IPT_UNSENT__COUNT] = {
		[IPT_UNSENT_BEFORE_START] = "before_trace_start",
		[IPT_UNSENT_LOST_EVENTS] = "lost_events",
		[IPT_UNSENT_FILTERED] = "filtered",
		[IPT_UNSENT_UNTRACED] = "untraced_path",
		[IPT_UNSENT_UNKNOWN] = "unknown",
	};

	return (int)why >= 0 && why < IPT_UNSENT__COUNT ? names[why] : NULL;
}

const struct ipt_report_unsent *ipt_report_unsent(const struct ipt_report *rep, size_t *n)
{
	*n = rep->nunsent;
	return rep->unsent;
}

const struct ipt_report_isolated_unsent *ipt_report_isolated_unsent(const struct ipt_report *rep, size_t *n)
{
	*n = rep->mres->nisu;
	return rep->mres->isu;
}

const struct ipt_report_kernel_irq *ipt_report_kernel_irqs(const struct ipt_report *rep, size_t *n)
{
	*n = rep->nkirq;
	return rep->kirq;
}
