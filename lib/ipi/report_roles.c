// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * report_roles.c - a role's share of the report: the counted rows to the
 * target CPUs of a set (the isolated CPUs, the housekeeping ones) as one
 * unit (ipt_report_role), and its (call site, function) pairs
 * (ipt_report_pairs_on); its senders are ipt_report_groups_on's
 */
#include "ipi/report_views.h"

#include <math.h>
#include <stdlib.h>

struct ipt_report_role *ipt_report_role(const struct ipt_report *rep, const struct ipt_cpuset *cpus)
{
	struct ipt_report_role *role;
	double d = rep->sum.duration_s;

	if (!cpus) {
		ipt_err_code(IPT_ERR_INVALID, "report role: no CPUs");
		return NULL;
	}
	if (!(role = ipt_calloc(1, sizeof(*role))))
		return NULL;
	for (int c = ipt_cpuset_next(cpus, 0); c >= 0 && c < rep->sum.ncpus; c = ipt_cpuset_next(cpus, (unsigned)c + 1)) {
		const struct ipt_report_cpu *cp = &rep->cpus[c];

		role->ncpus++;
		role->ipis += cp->ipis;
		for (int k = 0; k < IPT_KIND__COUNT; k++)
			role->by_kind[k] += cp->by_kind[k];
		role->recorder_ipis += cp->recorder_ipis;
		role->with_stack += cp->with_stack;
	}
	if (rep->ns && d > 0) {
		role->per_s = (double)role->ipis / d;
		role->per_cpu_per_s = role->ncpus ? role->per_s / role->ncpus : 0.0;
	} else {
		role->per_s = role->per_cpu_per_s = NAN;
	}
	return role;
}

static int cmp_pair_key(const void *a, const void *b)
{
	const struct ipt_report_pair *p = a, *q = b;

	if (p->callsite != q->callsite)
		return p->callsite < q->callsite ? -1 : 1;
	return p->function < q->function ? -1 : p->function > q->function;
}

static int cmp_pair_count(const void *a, const void *b)
{
	const struct ipt_report_pair *p = a, *q = b;

	if (p->count != q->count)
		return p->count < q->count ? 1 : -1;
	return cmp_pair_key(a, b);
}

struct ipt_report_pair *ipt_report_pairs_on(const struct ipt_report *rep, const struct ipt_cpuset *cpus, size_t *n)
{
	struct ipt_report_pair *v;
	size_t k = 0, o = 0;

	*n = 0;
	if (!cpus) {
		ipt_err_code(IPT_ERR_INVALID, "report pairs: no CPUs");
		return NULL;
	}
	if (!(v = ipt_malloc((rep->npairs + 1) * sizeof(*v))))
		return NULL;
	for (size_t i = 0; i < rep->npairs; i++)
		if (rep->pairs[i].target_cpu >= 0 && ipt_cpuset_has(cpus, (unsigned int)rep->pairs[i].target_cpu))
			v[k++] = rep->pairs[i];
	qsort(v, k, sizeof(*v), cmp_pair_key);
	for (size_t i = 0; i < k; i++) {	/* the same pair to several CPUs: added up */
		if (o && !cmp_pair_key(&v[o - 1], &v[i])) {
			v[o - 1].count += v[i].count;
			continue;
		}
		v[o] = v[i];
		v[o++].target_cpu = -1;
	}
	qsort(v, o, sizeof(*v), cmp_pair_count);
	*n = o;
	return v;
}
