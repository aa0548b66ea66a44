// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report_json.c - `ipitrace report -f json`: the report as one JSON
 * object, written through the one JSON writer (ipt_jw_*)
 */
#include "commands.h"
#include "report_out.h"
#include "explain_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the "schema" member: docs/schema/report.json, whose "const" says the
 * same; a change to the JSON changes both (the version) */
#define REPORT_SCHEMA	"ipitrace-report/5"

struct jctx {
	struct ipt_jw *j;
	struct ipt_report *r;
	const struct ipt_report_summary *s;
	struct ipt_trace *t;
	const struct report_view *o;
};

/* str - s, or "" for NULL (the report's strings are never null) */
static void str(struct ipt_jw *j, const char *s)
{
	ipt_jw_str(j, s ? s : "");
}

static void kstr(struct ipt_jw *j, const char *k, const char *s)
{
	ipt_jw_key(j, k);
	str(j, s);
}

/* hist - "name":{count, p50, p99, max, min} in ns, or null */
static void hist(const struct jctx *x, const char *name, const struct ipt_dist *h)
{
	struct ipt_jw *j = x->j;

	ipt_jw_key(j, name);
	if (!ipt_dist_count(h) || !x->o->ns) {
		ipt_jw_null(j);
		return;
	}
	ipt_jw_obj(j);
	ipt_jw_ku64(j, "count", ipt_dist_count(h));
	ipt_jw_ku64(j, "p50_ns", ipt_dist_quantile(h, 0.5));
	ipt_jw_ku64(j, "p99_ns", ipt_dist_quantile(h, 0.99));
	ipt_jw_ku64(j, "max_ns", ipt_dist_max(h));
	ipt_jw_ku64(j, "min_ns", ipt_dist_min(h));
	ipt_jw_end(j);
}

/* sym - "name":"sym+0xoff" (with_off) or "sym", null when unknown */
static void sym(const struct jctx *x, const char *name, uint64_t addr, bool with_off)
{
	uint64_t off;
	const char *s = addr ? ipt_trace_symbol(x->t, addr, &off) : NULL;
	char b[192];

	ipt_jw_key(x->j, name);
	if (s && with_off) {
		snprintf(b, sizeof(b), "%s+0x%llx", s, (unsigned long long)off);
		s = b;
	}
	ipt_jw_str(x->j, s);
}

/* frames - a stack's frames as a list of "sym+0xoff" ("0x..." unknown), or null */
static void frames(const struct jctx *x, const uint64_t *f, uint32_t n, bool have)
{
	char a[160];

	if (!have) {
		ipt_jw_null(x->j);
		return;
	}
	ipt_jw_arr(x->j);
	for (uint32_t k = 0; k < n; k++) {
		ipt_trace_format_symbol(x->t, f[k], true, a, sizeof(a));
		str(x->j, a);
	}
	ipt_jw_end(x->j);
}

/* ns_or_null - "name":v (ns) when known (v >= 0) and times are ns, else null */
static void ns_or_null(const struct jctx *x, const char *name, int64_t v)
{
	ipt_jw_key(x->j, name);
	if (v >= 0 && x->o->ns)
		ipt_jw_i64(x->j, v);
	else
		ipt_jw_null(x->j);
}

static void summary(const struct jctx *x)
{
	struct ipt_jw *j = x->j;
	const struct ipt_report_summary *r = x->s;

	kstr(j, "file", ipt_trace_path(x->t));
	ipt_jw_key(j, "duration_s");
	if (x->o->ns)
		ipt_jw_fixed(j, r->duration_s, 9);
	else
		ipt_jw_null(j);
	ipt_jw_ki64(j, "cpus", r->ncpus);
	kstr(j, "clock", ipt_trace_clock(x->t));
	kstr(j, "kernel", ipt_trace_uname(x->t));
	kstr(j, "time_unit", ipt_trace_time_unit(x->t));
	if (ipt_trace_nbuffers(x->t) > 1) {
		char names[512];

		buffers_read(x->t, names, sizeof(names));
		kstr(j, "buffers", names);
	}
	ipt_jw_kbool(j, "senders_known", !r->senders_unknown);
	ipt_jw_key(j, "probes_missed");
	if (r->probes_missed >= 0)
		ipt_jw_i64(j, r->probes_missed);
	else
		ipt_jw_null(j);
	ipt_jw_key(j, "lost_by_header");
	if (r->lost_by_header >= 0)
		ipt_jw_i64(j, r->lost_by_header);
	else
		ipt_jw_null(j);
	ipt_jw_ku64(j, "events", r->events);
	ipt_jw_ku64(j, "send_events", r->send_events);
	ipt_jw_ku64(j, "ipis", r->ipis);
	ipt_jw_ku64(j, "ipis_counted", r->ipis_counted);
	ipt_jw_key(j, "csd");
	ipt_jw_obj(j);
	ipt_jw_ku64(j, "queued", r->csd_queued);
	ipt_jw_ku64(j, "with_ipi", r->csd_with_ipi);
	ipt_jw_ku64(j, "without_ipi", r->csd_without_ipi);
	ipt_jw_end(j);
	ipt_jw_kbool(j, "cross_cpu_latency", r->cross_cpu_latency);
	if (!r->cross_cpu_latency)
		kstr(j, "cross_cpu_latency_missing_because", r->cross_cpu_missing_because);
	ipt_jw_key(j, "kinds");
	ipt_jw_obj(j);
	for (int k = 0; k < IPT_KIND__COUNT; k++)
		ipt_jw_ku64(j, ipt_kind_name(k), r->kinds[k]);
	ipt_jw_end(j);
}

static void per_cpu(const struct jctx *x)
{
	struct ipt_jw *j = x->j;
	const struct ipt_report_summary *r = x->s;

	ipt_jw_key(j, "per_cpu");
	ipt_jw_arr(j);
	for (int c = 0; c < r->ncpus; c++) {
		const struct ipt_report_cpu *cp = ipt_report_cpu(x->r, c);

		ipt_jw_obj(j);
		ipt_jw_ki64(j, "cpu", c);
		ipt_jw_ku64(j, "ipis", cp->ipis);
		ipt_jw_key(j, "per_s");
		if (x->o->ns)
			ipt_jw_fixed(j, r->duration_s > 0 ? (double)cp->ipis / r->duration_s : 0.0, 3);
		else
			ipt_jw_null(j);
		ipt_jw_ku64(j, "sent", cp->sent);
		ipt_jw_ku64(j, "remote", cp->remote);
		ipt_jw_ku64(j, "matched", cp->matched);
		ipt_jw_ku64(j, "remote_matched", cp->remote_matched);
		ipt_jw_ku64(j, "coalesced", cp->coalesced);
		ipt_jw_ku64(j, "handlers", cp->handlers);
		ipt_jw_ku64(j, "handlers_unattributed", cp->handlers_unattributed);
		ipt_jw_ku64(j, "csd_runs", cp->csd_runs);
		ipt_jw_ku64(j, "lost", cp->lost);
		ipt_jw_kbool(j, "lost_unknown", cp->lost_unknown);
		ipt_jw_key(j, "by_kind");
		ipt_jw_obj(j);
		for (int k = 0; k < IPT_KIND__COUNT; k++)
			ipt_jw_ku64(j, ipt_kind_name(k), cp->by_kind[k]);
		ipt_jw_end(j);
		hist(x, "latency", cp->latency);
		hist(x, "handler", cp->handler);
		hist(x, "csd_queue_to_run", cp->csd_queue_to_run);
		hist(x, "csd_run", cp->csd_run);
		ipt_jw_end(j);
	}
	ipt_jw_end(j);
}

/* tables - senders, call site pairs and the matrix */
static void tables(const struct jctx *x)
{
	struct ipt_jw *j = x->j;
	size_t n;
	const struct ipt_report_sender *se = ipt_report_senders(x->r, &n);
	const struct ipt_report_pair *pa;
	const struct ipt_report_cell *ce;
	char a[160];

	ipt_jw_key(j, "senders");
	ipt_jw_arr(j);
	for (size_t i = 0; i < n; i++) {
		ipt_jw_obj(j);
		ipt_jw_ki64(j, "target_cpu", se[i].target_cpu);
		ipt_jw_ki64(j, "pid", se[i].pid);
		kstr(j, "comm", ipt_trace_comm(x->t, se[i].pid));
		ipt_jw_ki64(j, "src_cpu", se[i].src_cpu);
		ipt_jw_ku64(j, "count", se[i].count);
		ipt_jw_end(j);
	}
	ipt_jw_end(j);
	ipt_jw_key(j, "pairs");
	ipt_jw_arr(j);
	pa = ipt_report_pairs(x->r, &n);
	for (size_t i = 0; i < n; i++) {
		ipt_jw_obj(j);
		ipt_jw_ki64(j, "target_cpu", pa[i].target_cpu);
		ipt_trace_format_symbol(x->t, pa[i].callsite, true, a, sizeof(a));
		kstr(j, "callsite", a);
		ipt_trace_format_function(x->t, pa[i].function, a, sizeof(a));
		kstr(j, "function", a);
		ipt_jw_ku64(j, "count", pa[i].count);
		ipt_jw_end(j);
	}
	ipt_jw_end(j);
	ipt_jw_key(j, "matrix");
	ipt_jw_arr(j);
	ce = ipt_report_matrix(x->r, &n);
	for (size_t i = 0; i < n; i++) {
		ipt_jw_obj(j);
		ipt_jw_ki64(j, "src_cpu", ce[i].src_cpu);
		ipt_jw_ki64(j, "target_cpu", ce[i].target_cpu);
		ipt_jw_ku64(j, "count", ce[i].count);
		ipt_jw_end(j);
	}
	ipt_jw_end(j);
}

static void matching(const struct jctx *x)
{
	struct ipt_jw *j = x->j;
	const struct ipt_report_summary *r = x->s;

	ipt_jw_key(j, "matching");
	ipt_jw_obj(j);
	ipt_jw_kbool(j, "receive_events", r->receive_events);
	ipt_jw_ku64(j, "remote", r->remote);
	ipt_jw_ku64(j, "remote_matched", r->remote_matched);
	ipt_jw_key(j, "unmatched");
	ipt_jw_obj(j);
	ipt_jw_ku64(j, "trace_ended", r->unmatched_trace_ended);
	ipt_jw_ku64(j, "no_receive_events", r->unmatched_no_receive_events);
	ipt_jw_ku64(j, "lost_events", r->unmatched_lost_events);
	ipt_jw_ku64(j, "no_handler", r->unmatched_no_handler);
	ipt_jw_end(j);
	ipt_jw_ku64(j, "csd_set_aside", r->csd_set_aside);
	ipt_jw_ku64(j, "csd_given_up", r->csd_given_up);
	ipt_jw_end(j);
}

/* unsent - per CPU and vector, the interrupts that served no send, by cause */
static void unsent(const struct jctx *x)
{
	struct ipt_jw *j = x->j;
	size_t n;
	const struct ipt_report_unsent *u = ipt_report_unsent(x->r, &n);

	ipt_jw_key(j, "unsent");
	ipt_jw_arr(j);
	for (size_t i = 0; i < n; i++) {
		ipt_jw_obj(j);
		ipt_jw_ki64(j, "cpu", u[i].cpu);
		kstr(j, "vector", u[i].vector);
		ipt_jw_ku64(j, "count", u[i].count);
		ipt_jw_key(j, "by_cause");
		ipt_jw_obj(j);
		for (int w = 0; w < IPT_UNSENT__COUNT; w++)
			ipt_jw_ku64(j, ipt_unsent_cause_name((enum ipt_unsent_cause)w), u[i].by_cause[w]);
		ipt_jw_end(j);
		ipt_jw_end(j);
	}
	ipt_jw_end(j);
}

/* kernel - "provenance", "kernel_counters", "recorder_ipis" */
static void kernel(const struct jctx *x)
{
	static const char *const names[] = { "kernel", "traced", "sends", "setup", "teardown" };
	struct ipt_jw *j = x->j;
	char v[4096];
	size_t n;
	const struct ipt_report_kernel_irq *k = ipt_report_kernel_irqs(x->r, &n);

	ipt_jw_key(j, "provenance");
	if (!ipt_trace_provenance(x->t, "command_line", v, sizeof(v))) {
		ipt_jw_null(j);
	} else {
		ipt_jw_obj(j);
		kstr(j, "command_line", v);
		for (size_t i = 0; prov_keys[i]; i++)
			ipt_jw_kstr(j, prov_keys[i],
				    ipt_trace_provenance(x->t, prov_keys[i], v, sizeof(v)) ? v : NULL);
		ipt_jw_end(j);
	}
	ipt_jw_key(j, "kernel_counters");
	ipt_jw_arr(j);
	for (size_t i = 0; i < n; i++) {
		int64_t vals[] = { k[i].kernel, k[i].traced, k[i].sends, k[i].setup, k[i].teardown };

		ipt_jw_obj(j);
		ipt_jw_ki64(j, "cpu", k[i].cpu);
		kstr(j, "row", k[i].row);
		ipt_jw_kstr(j, "desc", k[i].desc);
		ipt_jw_kbool(j, "within", k[i].within);
		ipt_jw_kstr(j, "note", ipt_kirq_note_name(k[i].note));
		ipt_jw_ki64(j, "unexplained", k[i].unexplained);
		for (int m = 0; m < 5; m++) {
			ipt_jw_key(j, names[m]);
			if (vals[m] >= 0)
				ipt_jw_i64(j, vals[m]);
			else
				ipt_jw_null(j);
		}
		ipt_jw_end(j);
	}
	ipt_jw_end(j);
	ipt_jw_key(j, "recorder_ipis");
	ipt_jw_arr(j);
	for (int c = 0; c < x->s->ncpus; c++) {
		const struct ipt_report_cpu *cp = ipt_report_cpu(x->r, c);

		if (!cp->recorder_ipis)
			continue;
		ipt_jw_obj(j);
		ipt_jw_ki64(j, "target_cpu", c);
		ipt_jw_ku64(j, "ipis", cp->recorder_ipis);
		ipt_jw_end(j);
	}
	ipt_jw_end(j);
}

/* group - one group by key by: count, share and its key's fields */
static void group(const struct jctx *x, enum ipt_group_by by, const struct ipt_report_group *g, uint64_t whole)
{
	struct ipt_jw *j = x->j;

	ipt_jw_obj(j);
	ipt_jw_ku64(j, "count", g->count);
	ipt_jw_kfixed(j, "share", whole ? (double)g->count / (double)whole : 0.0, 6);
	switch (by) {
	case IPT_BY_COMM:
		kstr(j, "comm", g->comm);
		ipt_jw_ku64(j, "npids", g->npids);
		ipt_jw_key(j, "top_pids");
		ipt_jw_arr(j);
		for (int i = 0; i < IPT_GROUP_TOP_PIDS && g->top_pids[i].pid >= 0; i++) {
			ipt_jw_obj(j);
			ipt_jw_ki64(j, "pid", g->top_pids[i].pid);
			ipt_jw_ku64(j, "count", g->top_pids[i].count);
			ipt_jw_end(j);
		}
		ipt_jw_end(j);
		break;
	case IPT_BY_PID:
	case IPT_BY_TASK:
		ipt_jw_ki64(j, "pid", g->pid);
		kstr(j, "comm", g->comm);
		if (by == IPT_BY_TASK)
			ipt_jw_ki64(j, "src_cpu", g->src_cpu);
		break;
	case IPT_BY_CPU:
		ipt_jw_ki64(j, "src_cpu", g->src_cpu);
		break;
	case IPT_BY_CALLSITE:
		ipt_jw_kaddr(j, "callsite", g->addr);
		sym(x, "callsite_sym", g->addr, true);
		sym(x, "callsite_func", g->addr, false);
		break;
	case IPT_BY_FUNCTION:
		ipt_jw_kaddr(j, "func", g->addr);
		sym(x, "func_name", g->addr, false);
		break;
	case IPT_BY_KIND:
		kstr(j, "kind", ipt_kind_name((enum ipt_ipi_kind)g->kind));
		break;
	case IPT_BY_STACK:
		ipt_jw_key(j, "stack");
		frames(x, g->stack ? g->stack->frames : NULL, g->stack ? g->stack->nframes : 0, g->stack);
		break;
	default:
		break;
	}
	ipt_jw_end(j);
}

static size_t shown(const struct jctx *x, size_t n)
{
	return x->o->top && (size_t)x->o->top < n ? (size_t)x->o->top : n;
}

/* groups - "by", "groups" per target CPU, "stacks" per target CPU or null */
static int groups(const struct jctx *x)
{
	struct ipt_jw *j = x->j;
	bool any = false;

	kstr(j, "by", ipt_group_by_name(x->o->by));
	ipt_jw_key(j, "groups");
	ipt_jw_arr(j);
	for (int c = 0; c < x->s->ncpus; c++) {
		const struct ipt_report_cpu *cp = ipt_report_cpu(x->r, c);
		size_t n;
		const struct ipt_report_group *g;

		any = any || cp->with_stack;
		if (!cp->ipis)
			continue;
		if (!(g = ipt_report_groups(x->r, x->o->by, c, x->o->sort, &n)))
			return -1;
		ipt_jw_obj(j);
		ipt_jw_ki64(j, "target_cpu", c);
		ipt_jw_ku64(j, "ipis", cp->ipis);
		ipt_jw_key(j, "groups");
		ipt_jw_arr(j);
		for (size_t i = 0; i < shown(x, n); i++)
			group(x, x->o->by, &g[i], cp->ipis);
		ipt_jw_end(j);
		ipt_jw_end(j);
	}
	ipt_jw_end(j);
	ipt_jw_key(j, "stacks");
	if (!any) {
		ipt_jw_null(j);
		return 0;
	}
	ipt_jw_arr(j);
	for (int c = 0; c < x->s->ncpus; c++) {
		const struct ipt_report_cpu *cp = ipt_report_cpu(x->r, c);
		size_t n, k = 0;
		const struct ipt_report_group *g;

		if (!cp->ipis)
			continue;
		if (!(g = ipt_report_groups(x->r, IPT_BY_STACK, c, IPT_SORT_COUNT, &n)))
			return -1;
		ipt_jw_obj(j);
		ipt_jw_ki64(j, "target_cpu", c);
		ipt_jw_ku64(j, "ipis", cp->ipis);
		ipt_jw_ku64(j, "with_stack", cp->with_stack);
		ipt_jw_key(j, "stacks");
		ipt_jw_arr(j);
		for (size_t i = 0; i < n && (!x->o->top || k < (size_t)x->o->top); i++) {
			if (!g[i].stack)
				continue;
			k++;
			ipt_jw_obj(j);
			ipt_jw_ku64(j, "count", g[i].count);
			ipt_jw_kfixed(j, "share", cp->with_stack ? (double)g[i].count / (double)cp->with_stack : 0.0, 6);
			ipt_jw_key(j, "frames");
			frames(x, g[i].stack->frames, g[i].stack->nframes, true);
			ipt_jw_end(j);
		}
		ipt_jw_end(j);
		ipt_jw_end(j);
	}
	ipt_jw_end(j);
	return 0;
}

/* cpu_list - "name": set as a CPU list ("" for none), or null without a set */
static int cpu_list(const struct jctx *x, const char *name, const struct ipt_cpuset *set)
{
	char small[256], *b = small;
	size_t len = set ? ipt_cpuset_format_list(set, small, sizeof(small)) : 0;

	ipt_jw_key(x->j, name);
	if (!set) {
		ipt_jw_null(x->j);
		return 0;
	}
	if (len >= sizeof(small)) {	/* a list of many pieces */
		if (!(b = malloc(len + 1)))
			return -1;
		ipt_cpuset_format_list(set, b, len + 1);
	}
	str(x->j, b);
	if (b != small)
		free(b);
	return 0;
}

/* rate - "name": v with digits decimals, or null when not known (NAN) */
static void rate(struct ipt_jw *j, const char *name, double v, int digits)
{
	ipt_jw_key(j, name);
	if (isnan(v))
		ipt_jw_null(j);
	else
		ipt_jw_fixed(j, v, digits);
}

/* role - "name": the IPIs to the CPUs of set as one unit: figures, kinds,
 * every sender by the key by and every (call site, function) pair; from:
 * where the set comes from (NULL: no such member) */
static int role(const struct jctx *x, const char *name, const struct ipt_cpuset *set, const char *from,
		enum ipt_group_by by)
{
	struct ipt_jw *j = x->j;
	struct ipt_report_role *ro = ipt_report_role(x->r, set);
	struct ipt_report_group *g = NULL;
	struct ipt_report_pair *p = NULL;
	size_t ng, np;
	char a[160];
	int ret = -1;

	if (!ro || !(g = ipt_report_groups_on(x->r, by, set, x->o->sort, &ng)) ||
	    !(p = ipt_report_pairs_on(x->r, set, &np)))
		goto out;
	ipt_jw_key(j, name);
	ipt_jw_obj(j);
	if (cpu_list(x, "cpus", set))
		goto out;
	if (from)
		kstr(j, "from", from);
	ipt_jw_ku64(j, "ncpus", ro->ncpus);
	ipt_jw_ku64(j, "ipis", ro->ipis);
	rate(j, "per_s", x->o->ns ? ro->per_s : NAN, 3);
	rate(j, "per_cpu_per_s", x->o->ns ? ro->per_cpu_per_s : NAN, 6);
	ipt_jw_key(j, "by_kind");
	ipt_jw_obj(j);
	for (int k = 0; k < IPT_KIND__COUNT; k++)
		ipt_jw_ku64(j, ipt_kind_name(k), ro->by_kind[k]);
	ipt_jw_end(j);
	ipt_jw_ku64(j, "recorder_ipis", ro->recorder_ipis);
	ipt_jw_ku64(j, "with_stack", ro->with_stack);
	ipt_jw_key(j, "senders");
	ipt_jw_arr(j);
	for (size_t i = 0; i < ng; i++)
		group(x, by, &g[i], ro->ipis);
	ipt_jw_end(j);
	ipt_jw_key(j, "pairs");
	ipt_jw_arr(j);
	for (size_t i = 0; i < np; i++) {
		ipt_jw_obj(j);
		ipt_trace_format_symbol(x->t, p[i].callsite, true, a, sizeof(a));
		kstr(j, "callsite", a);
		ipt_trace_format_function(x->t, p[i].function, a, sizeof(a));
		kstr(j, "function", a);
		ipt_jw_ku64(j, "count", p[i].count);
		ipt_jw_kfixed(j, "share", ro->ipis ? (double)p[i].count / (double)ro->ipis : 0.0, 6);
		ipt_jw_end(j);
	}
	ipt_jw_end(j);
	ipt_jw_end(j);
	ret = 0;
out:
	free(ro);
	free(g);
	free(p);
	return ret;
}

/* machine - "machine": the roles the recording machine reported of its
 * CPUs (ipt_trace_cpu_role), each a CPU list or null when not recorded */
static int machine(const struct jctx *x)
{
	static const char *const names[] = { "isolated", "nohz_full", "isolcpus", "rcu_nocbs", "online", "possible" };
	struct ipt_jw *j = x->j;
	struct ipt_cpuset set = IPT_CPUSET_INIT;
	char flags[256];
	int ret = 0;

	ipt_cpuset_init(&set);
	ipt_jw_key(j, "machine");
	ipt_jw_obj(j);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !ret; i++) {
		ret = cpu_list(x, names[i], ipt_trace_cpu_role(x->t, names[i], &set) ? &set : NULL);
		if (!strcmp(names[i], "isolcpus"))
			ipt_jw_kstr(j, "isolcpus_flags", ipt_trace_isolcpus_flags(x->t, flags, sizeof(flags)));
	}
	ipt_jw_end(j);
	ipt_cpuset_free(&set);
	return ret;
}

/* roles - "roles": the isolated CPUs (recorded, --isolated, or none: an
 * empty set) and the housekeeping rest, each as one unit, and what the
 * recording machine said of its CPUs */
static int roles(const struct jctx *x)
{
	struct ipt_jw *j = x->j;
	const struct ipt_cpuset *iso = x->o->isolated;
	struct ipt_cpuset none = IPT_CPUSET_INIT, hk = IPT_CPUSET_INIT;
	enum ipt_group_by by = x->o->by == IPT_BY_STACK ? IPT_BY_COMM : x->o->by;	/* as the text */
	int ret = -1;

	ipt_cpuset_init(&none);
	ipt_cpuset_init(&hk);
	for (int c = 0; c < x->s->ncpus; c++)
		if ((!iso || !ipt_cpuset_has(iso, (unsigned int)c)) && ipt_cpuset_add(&hk, (unsigned int)c) < 0)
			goto out;
	ipt_jw_key(j, "roles");
	ipt_jw_obj(j);
	kstr(j, "by", ipt_group_by_name(by));
	if (role(x, "isolated", iso ? iso : &none, !iso ? "none" : x->o->isolated_given ? "--isolated" : "recorded",
		 by) ||
	    role(x, "housekeeping", &hk, NULL, by) || machine(x))
		goto out;
	ipt_jw_end(j);
	ret = 0;
out:
	ipt_cpuset_free(&none);
	ipt_cpuset_free(&hk);
	return ret;
}

/* isolated - the IPIs to the isolated CPUs, one by one, with the names and
 * nulls of `ipitrace convert` rows, and their interrupts without a send */
static void isolated(const struct jctx *x)
{
	struct ipt_jw *j = x->j;
	char list[256];
	size_t n;
	const struct ipt_report_isolated *v = ipt_report_isolated(x->r, &n);
	const struct ipt_report_isolated_unsent *w;

	ipt_jw_key(j, "isolated");
	if (!x->o->isolated) {
		ipt_jw_null(j);
		return;
	}
	ipt_cpuset_format_list(x->o->isolated, list, sizeof(list));
	ipt_jw_obj(j);
	kstr(j, "cpus", list);
	ipt_jw_key(j, "ipis");
	ipt_jw_arr(j);
	for (size_t i = 0; i < n; i++) {
		const struct ipt_report_isolated *s = &v[i];
		uint64_t fn = s->func ? s->func : s->callback;

		ipt_jw_obj(j);
		ipt_jw_ku64(j, "ts_ns", s->ts);
		ipt_jw_ku64(j, "id", s->id);
		ipt_jw_ki64(j, "src_cpu", s->src_cpu);
		ipt_jw_ki64(j, "target_cpu", s->target_cpu);
		ipt_jw_ki64(j, "pid", s->pid);
		kstr(j, "comm", ipt_trace_comm(x->t, s->pid));
		kstr(j, "kind", ipt_kind_name(s->kind));
		ipt_jw_kaddr(j, "callsite", s->callsite);
		sym(x, "callsite_sym", s->callsite, true);
		sym(x, "callsite_func", s->callsite, false);
		ipt_jw_kaddr(j, "callback", s->callback);
		sym(x, "callback_sym", s->callback, false);
		ipt_jw_kaddr(j, "func", fn);
		sym(x, "func_name", fn, false);
		ipt_jw_kbool(j, "matched", s->matched);
		ns_or_null(x, "lat_ns", s->latency);
		ns_or_null(x, "handler_ns", s->handler);
		ipt_jw_key(j, "stack");
		frames(x, s->stack, s->nstack, s->stack != NULL);
		ipt_jw_end(j);
	}
	ipt_jw_end(j);
	ipt_jw_key(j, "unsent");
	ipt_jw_arr(j);
	w = ipt_report_isolated_unsent(x->r, &n);
	for (size_t i = 0; i < n; i++) {
		ipt_jw_obj(j);
		ipt_jw_ku64(j, "ts_ns", w[i].ts);
		ipt_jw_ki64(j, "cpu", w[i].cpu);
		kstr(j, "vector", w[i].vector);
		ipt_jw_ki64(j, "pid", w[i].pid);
		kstr(j, "comm", ipt_trace_comm(x->t, w[i].pid));
		kstr(j, "cause", ipt_unsent_cause_name(w[i].cause));
		ns_or_null(x, "handler_ns", w[i].handler);
		ipt_jw_end(j);
	}
	ipt_jw_end(j);
	ipt_jw_end(j);
}

/* spikes - a latency recording's spikes (the text's section): per CPU its
 * worst 10 samples (timerlat's thread samples, osnoise's) summed, and the
 * senders and call paths by spike time as explain's summary; null for a
 * recording without samples and osnoise's noise events */
static int spikes(const struct jctx *x)
{
	struct ipt_jw *j = x->j;
	struct explain_summary m;
	struct ipt_spikes *sp;
	size_t n;

	ipt_jw_key(j, "spikes");
	switch (explain_latency_recording(x->t, x->o->ns) ? explain_default_spikes(x->t, &sp, &m) : 0) {
	case -1:
		return -1;
	case 0:
		ipt_jw_null(j);
		return 0;
	}
	n = ipt_spikes_count(sp);
	ipt_jw_obj(j);
	ipt_jw_ki64(j, "worst", 10);
	ipt_jw_ku64(j, "count", n);
	ipt_jw_ku64(j, "with_ipis", m.with);
	ipt_jw_key(j, "per_cpu");
	ipt_jw_arr(j);
	for (size_t i = 0; i < n;) {
		struct explain_cpu c;

		i = explain_cpu_sum(sp, i, &c);
		ipt_jw_obj(j);
		ipt_jw_ki64(j, "cpu", c.cpu);
		ipt_jw_ku64(j, "spikes", c.spikes);
		ipt_jw_ku64(j, "worst_ns", c.worst_ns);
		ipt_jw_ku64(j, "with_ipis", c.with_ipis);
		ipt_jw_ku64(j, "ipi_ns", c.ipi_ns);
		ipt_jw_key(j, "noise_ns");
		if (c.noise_known)
			ipt_jw_u64(j, c.noise_ns);
		else
			ipt_jw_null(j);
		ipt_jw_key(j, "unaccounted_ns");
		if (c.noise_known)
			ipt_jw_u64(j, c.unaccounted_ns);
		else
			ipt_jw_null(j);
		ipt_jw_ku64(j, "over", c.over);
		ipt_jw_end(j);
	}
	ipt_jw_end(j);
	explain_json_tallies(j, "senders", &m.senders, false);
	explain_json_tallies(j, "paths", &m.paths, true);
	ipt_jw_end(j);
	explain_summary_free(&m);
	ipt_spikes_free(sp);
	return 0;
}

int report_json(struct ipt_report *r, struct ipt_trace *t, const struct report_view *o, FILE *f)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	struct ipt_jw j;
	struct jctx x = { &j, r, ipt_report_summary(r), t, o };
	int ret = 0;

	ipt_jw_init(&j, &sb, f);
	ipt_jw_obj(&j);
	ipt_jw_kstr(&j, "schema", REPORT_SCHEMA);
	summary(&x);
	per_cpu(&x);
	tables(&x);
	matching(&x);
	unsent(&x);
	kernel(&x);
	if (groups(&x) || roles(&x))
		ret = -1;
	else
		isolated(&x);
	if (!ret && spikes(&x))
		ret = -1;
	ipt_jw_end(&j);
	ipt_jw_raw(&j, "\n");
	if (ret)
		err_msg("%s", ipt_errmsg());
	else if (ipt_jw_finish(&j))
		err_msg("report: the JSON was not written whole (%s)", ferror(f) ? "a write error" : "out of memory");
	ipt_strbuf_free(&sb);
	return ret || j.err ? 1 : 0;
}
