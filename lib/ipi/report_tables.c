// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * report_tables.c - the report's tables: senders, tasks, call site pairs,
 * the sender x target matrix, the recorder's own share, and groups of the
 * counted rows by a key (ipt_report_groups)
 */
#include "ipi/report_views.h"

#include <stdlib.h>
#include <string.h>

/* ---- sorted tables ---- */

/* sum_over_target - m's entries added up over key.c (and key.b unless
 * keep_b), largest count first, ties by key */
static struct rpt_entry *sum_over_target(const struct rpt_cpumap *m, bool keep_b, size_t *n)
{
	struct rpt_map sum = { 0 };	/* added up by block first: few keys */
	struct rpt_entry *e = NULL;

	for (size_t i = 0; i < m->h.cap; i++) {
		const struct rpt_cslot *sl = ipt_hmap_at(&m->h, sizeof(*sl), i);
		uint64_t c = 0;

		if (!ipt_hmap_used(sl))
			continue;
		for (uint32_t j = 0; j < RPT_CBLOCK; j++)
			c += sl->n[j];
		if (c && ipt_cmap_add_n(&sum, sl->a, keep_b ? sl->b : 0, 0, c))
			goto out;
	}
	for (size_t i = 0; i < m->over.h.cap; i++) {
		const struct rpt_slot *sl = ipt_cmap_at(&m->over, i);

		if (sl && ipt_cmap_add_n(&sum, sl->key.a, keep_b ? sl->key.b : 0, 0, sl->val))
			goto out;
	}
	e = ipt_cmap_sorted(&sum, n);	/* (c is 0: by count, then a, then b) */
out:
	ipt_cmap_free(&sum);
	return e;
}

/* ipt_rpt_tables - the sorted tables of the report */
int ipt_rpt_tables(struct ipt_report *rep)
{
	struct rpt *r = &rep->r;
	struct rpt_entry *e;
	size_t n;

	if (!(e = ipt_cpumap_sorted(&r->senders, &n)) ||
	    !(rep->senders = ipt_malloc((n ? n : 1) * sizeof(*rep->senders))))
		goto fail;
	for (size_t i = 0; i < n; i++)
		rep->senders[i] = (struct ipt_report_sender){ (int32_t)e[i].key.c, (int32_t)(uint32_t)e[i].key.a,
							      (int32_t)e[i].key.b, e[i].count };
	rep->nsenders = n;
	free(e);
	if (!(e = sum_over_target(&r->senders, false, &n)) ||
	    !(rep->tasks = ipt_malloc((n ? n : 1) * sizeof(*rep->tasks))))
		goto fail;
	for (size_t i = 0; i < n; i++)
		rep->tasks[i] = (struct ipt_report_sender){ -1, (int32_t)(uint32_t)e[i].key.a, -1, e[i].count };
	rep->ntasks = n;
	free(e);
	if (!(e = ipt_cpumap_sorted(&r->pairs, &n)) ||
	    !(rep->pairs = ipt_malloc((n ? n : 1) * sizeof(*rep->pairs))))
		goto fail;
	for (size_t i = 0; i < n; i++)
		rep->pairs[i] = (struct ipt_report_pair){ (int32_t)e[i].key.c, e[i].key.a, e[i].key.b, e[i].count };
	rep->npairs = n;
	free(e);
	if (!(e = sum_over_target(&r->pairs, true, &n)) ||
	    !(rep->pairs_all = ipt_malloc((n ? n : 1) * sizeof(*rep->pairs_all))))
		goto fail;
	for (size_t i = 0; i < n; i++)
		rep->pairs_all[i] = (struct ipt_report_pair){ -1, e[i].key.a, e[i].key.b, e[i].count };
	rep->npairs_all = n;
	free(e);
	if (!(e = ipt_cmap_sorted(&r->matrix, &n)) ||
	    !(rep->matrix = ipt_malloc((n ? n : 1) * sizeof(*rep->matrix))))
		goto fail;
	for (size_t i = 0; i < n; i++)
		rep->matrix[i] = (struct ipt_report_cell){ (int32_t)e[i].key.a, (int32_t)e[i].key.b, e[i].count };
	rep->nmatrix = n;
	free(e);
	return 0;
fail:
	free(e);
	return -1;
}

/* ---- the recorder's own sends ---- */

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

static bool is_recorder(const struct ipt_report *rep, int32_t pid)
{
	return rep->nrec_pids && bsearch(&pid, rep->rec_pids, rep->nrec_pids, sizeof(pid), cmp_i32);
}

/* ipt_rpt_recorder_share - the recorder's own pids (provenance), and the rows they sent */
int ipt_rpt_recorder_share(struct ipt_report *rep)
{
	struct rpt *r = &rep->r;
	size_t n, len;
	const char *s = r->t->provenance_text ? ipt_kv_find(r->t->provenance_text, "recorder_pids", &len) : NULL;
	const char *e = s ? s + len : NULL;

	if (!s)
		return 0;
	rep->rec_pids = ipt_calloc(len / 2 + 1, sizeof(*rep->rec_pids));
	if (!rep->rec_pids)
		return -1;
	for (n = 0; s < e;) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s)
			break;
		if (v > 0 && v <= INT32_MAX)
			rep->rec_pids[n++] = (int32_t)v;
		s = end < e && *end == ',' ? end + 1 : end;
	}
	qsort(rep->rec_pids, n, sizeof(*rep->rec_pids), cmp_i32);
	rep->nrec_pids = n;
	for (size_t i = 0; i < rep->nsenders; i++) {
		const struct ipt_report_sender *sd = &rep->senders[i];

		if (sd->target_cpu >= 0 && sd->target_cpu < r->ncpus && is_recorder(rep, sd->pid))
			rep->cpus[sd->target_cpu].recorder_ipis += sd->count;
	}
	return 0;
}

/* ---- groups by a key ---- */

static const char *const by_names[IPT_BY__COUNT] = {
	[IPT_BY_COMM] = "comm", [IPT_BY_PID] = "pid", [IPT_BY_TASK] = "task", [IPT_BY_CPU] = "cpu",
	[IPT_BY_CALLSITE] = "callsite", [IPT_BY_FUNCTION] = "function", [IPT_BY_KIND] = "kind",
	[IPT_BY_STACK] = "stack",
};

const char *ipt_group_by_name(enum ipt_group_by by)
{
	return (int)by >= 0 && by < IPT_BY__COUNT ? by_names[by] : NULL;
}

int ipt_group_by_from_name(const char *name)
{
	for (int i = 0; name && i < IPT_BY__COUNT; i++)
		if (!strcmp(name, by_names[i]))
			return i;
	return -1;
}

static int cmp_stack(const struct ipt_report_stack *x, const struct ipt_report_stack *y)
{
	if (!x || !y)
		return !x && !y ? 0 : !x ? -1 : 1;	/* no stack first */
	for (uint32_t i = 0; i < x->nframes && i < y->nframes; i++)
		if (x->frames[i] != y->frames[i])
			return x->frames[i] < y->frames[i] ? -1 : 1;
	return x->nframes < y->nframes ? -1 : x->nframes > y->nframes;
}

static int cmp_int(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

/* cmp_key - order of two groups by the key of by (pid inside comm, to merge) */
static int cmp_key(enum ipt_group_by by, const struct ipt_report_group *x, const struct ipt_report_group *y)
{
	int c;

	switch (by) {
	case IPT_BY_COMM:
		return strcmp(x->comm, y->comm);
	case IPT_BY_PID:
		return cmp_int(x->pid, y->pid);
	case IPT_BY_TASK:
		return (c = cmp_int(x->pid, y->pid)) ? c : cmp_int(x->src_cpu, y->src_cpu);
	case IPT_BY_CPU:
		return cmp_int(x->src_cpu, y->src_cpu);
	case IPT_BY_CALLSITE:
	case IPT_BY_FUNCTION:
		return x->addr < y->addr ? -1 : x->addr > y->addr;
	case IPT_BY_KIND:
		return cmp_int(x->kind, y->kind);
	case IPT_BY_STACK:
		return cmp_stack(x->stack, y->stack);
	default:
		return 0;
	}
}

static _Thread_local enum ipt_group_by sort_by;

static int cmp_group_key(const void *a, const void *b)
{
	const struct ipt_report_group *x = a, *y = b;
	int c = cmp_key(sort_by, x, y);

	/* comm: its pids next to each other, for npids and top_pids */
	return c || sort_by != IPT_BY_COMM ? c : cmp_int(x->pid, y->pid);
}

static int cmp_group_count(const void *a, const void *b)
{
	const struct ipt_report_group *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return cmp_key(sort_by, x, y);
}

/* top_pid - pid with count among comm group g's largest pids */
static void top_pid(struct ipt_report_group *g, int32_t pid, uint64_t count)
{
	int i = IPT_GROUP_TOP_PIDS;

	while (i > 0 && (g->top_pids[i - 1].pid < 0 || g->top_pids[i - 1].count < count))
		i--;
	if (i >= IPT_GROUP_TOP_PIDS)
		return;
	memmove(&g->top_pids[i + 1], &g->top_pids[i], (size_t)(IPT_GROUP_TOP_PIDS - 1 - i) * sizeof(g->top_pids[0]));
	g->top_pids[i].pid = pid;
	g->top_pids[i].count = count;
}

static struct ipt_report_group blank_group(int cpu)
{
	struct ipt_report_group g = { .target_cpu = cpu, .pid = -1, .src_cpu = -1, .kind = -1 };

	for (int i = 0; i < IPT_GROUP_TOP_PIDS; i++)
		g.top_pids[i].pid = -1;
	return g;
}

/* group_rows - the raw entries for by (one per map entry to cpu) */
/* on - whether target CPU t is among those asked: the set, else cpu (-1: all) */
static bool on(int t, int cpu, const struct ipt_cpuset *set)
{
	return set ? ipt_cpuset_has(set, (unsigned int)t) : cpu < 0 || t == cpu;
}

/* group_key - what of a table's key (a, b, target) groups by takes: (x, y) */
static void group_key(enum ipt_group_by by, const struct rpt_key *key, uint64_t *x, uint64_t *y)
{
	*x = by == IPT_BY_FUNCTION || by == IPT_BY_CPU ? key->b : key->a;
	*y = by == IPT_BY_TASK ? key->b : 0;
}

struct on_ctx {
	int cpu;
	const struct ipt_cpuset *set;
};

static bool on_entry(int t, const void *ctx)
{
	const struct on_ctx *oc = ctx;

	return on(t, oc->cpu, oc->set);
}

static struct ipt_report_group *group_rows(struct ipt_report *rep, enum ipt_group_by by, int cpu,
					   const struct ipt_cpuset *set, size_t *n)
{
	struct rpt *r = &rep->r;
	bool senders = by != IPT_BY_CALLSITE && by != IPT_BY_FUNCTION && by != IPT_BY_STACK;
	struct rpt_map sum = { 0 };	/* (x, y) of group_key -> count: the targets added up first */
	struct rpt_entry *e;
	size_t cap, k = 0, ne;
	struct ipt_report_group *v;
	struct on_ctx oc = { cpu, set };

	if (by == IPT_BY_KIND) {
		if (!(v = ipt_malloc(IPT_KIND__COUNT * sizeof(*v))))
			return NULL;
		for (int kd = 0; kd < IPT_KIND__COUNT; kd++) {
			uint64_t c = 0;

			for (int t = 0; t < r->ncpus; t++)
				if (on(t, cpu, set))
					c += r->cpus[t].by_kind[kd];
			if (!c)
				continue;
			v[k] = blank_group(cpu);
			v[k].kind = kd;
			v[k++].count = c;
		}
		*n = k;
		return v;
	}
	e = by == IPT_BY_STACK ? ipt_cmap_sorted(&r->stackmap, &ne) :
	    ipt_cpumap_entries(senders ? &r->senders : &r->pairs, on_entry, &oc, &ne);
	if (!e)
		return NULL;
	for (size_t i = 0; i < ne; i++) {
		uint64_t x, y;

		if (!e[i].count || !on((int)e[i].key.c, cpu, set))
			continue;
		/* the recorder's own sends: apart (recorder_ipis), unless asked */
		if (senders && !r->opts.with_recorder && is_recorder(rep, (int32_t)(uint32_t)e[i].key.a))
			continue;
		group_key(by, &e[i].key, &x, &y);
		if (ipt_cmap_add_n(&sum, x, y, 0, e[i].count)) {
			ipt_cmap_free(&sum);
			free(e);
			return NULL;
		}
	}
	free(e);
	cap = sum.h.n + (by == IPT_BY_STACK ? (size_t)r->ncpus : 0) + 1;
	if (!(v = ipt_malloc(cap * sizeof(*v)))) {
		ipt_cmap_free(&sum);
		return NULL;
	}
	for (size_t i = 0; i < sum.h.cap; i++) {
		const struct rpt_slot *sl = ipt_cmap_at(&sum, i);
		struct ipt_report_group *g;

		if (!sl)
			continue;
		g = &v[k++];
		*g = blank_group(cpu);
		g->count = sl->val;
		switch (by) {
		case IPT_BY_CALLSITE:
		case IPT_BY_FUNCTION:
			g->addr = sl->key.a;
			break;
		case IPT_BY_STACK:
			g->stack = &rep->tstk[rep->tmap[sl->key.a]];
			break;
		case IPT_BY_CPU:
			g->src_cpu = (int32_t)sl->key.a;
			break;
		case IPT_BY_TASK:
			g->src_cpu = (int32_t)sl->key.b;
			/* fall through */
		default:	/* comm, pid */
			g->pid = (int32_t)(uint32_t)sl->key.a;
			g->comm = ipt_trace_comm(r->t, g->pid);
			break;
		}
	}
	ipt_cmap_free(&sum);
	if (by == IPT_BY_STACK) {
		/* the rows whose send has no stack: one group, stack NULL */
		uint64_t none = 0;

		for (int t = 0; t < r->ncpus; t++)
			if (on(t, cpu, set))
				none += r->cpus[t].ipis - r->cpus[t].with_stack;
		if (none) {
			v[k] = blank_group(cpu);
			v[k++].count = none;
		}
	}
	*n = k;
	return v;
}

/* merge_groups - v sorted by key: equal keys become one (comm: pids counted) */
static size_t merge_groups(enum ipt_group_by by, struct ipt_report_group *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n;) {
		struct ipt_report_group g = v[i];
		size_t j = i;

		g.count = 0;
		while (j < n && !cmp_key(by, &v[i], &v[j])) {
			/* comm: the entries of one pid are next to each other */
			size_t e = j;
			uint64_t c = 0;

			while (e < n && !cmp_key(by, &v[i], &v[e]) && (by != IPT_BY_COMM || v[e].pid == v[j].pid))
				c += v[e++].count;
			if (by == IPT_BY_COMM) {
				g.npids++;
				top_pid(&g, v[j].pid, c);
			}
			g.count += c;
			j = e;
		}
		if (by == IPT_BY_COMM)
			g.pid = -1;
		v[k++] = g;
		i = j;
	}
	return k;
}

/* sorted_groups - the groups to cpu (or to the CPUs of set), merged by
 * key and in order; the caller frees.  NULL without memory. */
static struct ipt_report_group *sorted_groups(struct ipt_report *rep, enum ipt_group_by by, int cpu,
					      const struct ipt_cpuset *set, enum ipt_group_sort sort, size_t *k)
{
	struct ipt_report_group *v = group_rows(rep, by, cpu, set, k);

	if (!v)
		return NULL;
	sort_by = by;
	qsort(v, *k, sizeof(*v), cmp_group_key);
	*k = merge_groups(by, v, *k);
	if (sort == IPT_SORT_COUNT)
		qsort(v, *k, sizeof(*v), cmp_group_count);
	return v;
}

const struct ipt_report_group *ipt_report_groups(struct ipt_report *rep, enum ipt_group_by by, int cpu,
						 enum ipt_group_sort sort, size_t *n)
{
	struct group_cache *gc;
	struct ipt_report_group *v;
	size_t k;

	*n = 0;
	if ((int)by < 0 || by >= IPT_BY__COUNT || cpu < -1 || cpu >= rep->sum.ncpus ||
	    (sort != IPT_SORT_COUNT && sort != IPT_SORT_KEY)) {
		ipt_err_code(IPT_ERR_INVALID, "report groups: no key %d, CPU %d or order %d", (int)by, cpu,
			     (int)sort);
		return NULL;
	}
	for (gc = rep->groups; gc; gc = gc->next)
		if (gc->by == by && gc->cpu == cpu && gc->sort == sort) {
			*n = gc->n;
			return gc->g;
		}
	gc = ipt_calloc(1, sizeof(*gc));
	v = gc ? sorted_groups(rep, by, cpu, NULL, sort, &k) : NULL;
	if (!gc || !v) {
		free(gc);
		free(v);
		return NULL;
	}
	*gc = (struct group_cache){ rep->groups, by, cpu, sort, v, k };
	rep->groups = gc;
	*n = k;
	return v;
}

struct ipt_report_group *ipt_report_groups_on(struct ipt_report *rep, enum ipt_group_by by,
					      const struct ipt_cpuset *cpus, enum ipt_group_sort sort, size_t *n)
{
	struct ipt_report_group *v;
	size_t k;

	*n = 0;
	if ((int)by < 0 || by >= IPT_BY__COUNT || !cpus || (sort != IPT_SORT_COUNT && sort != IPT_SORT_KEY)) {
		ipt_err_code(IPT_ERR_INVALID, "report groups: no key %d or order %d, or no CPUs", (int)by,
			     (int)sort);
		return NULL;
	}
	v = sorted_groups(rep, by, -1, cpus, sort, &k);
	if (v)
		*n = k;
	return v;
}

void ipt_rpt_tables_free(struct ipt_report *rep)
{
	free(rep->senders);
	free(rep->tasks);
	free(rep->pairs);
	free(rep->pairs_all);
	free(rep->matrix);
	free(rep->rec_pids);
	while (rep->groups) {
		struct group_cache *g = rep->groups;

		rep->groups = g->next;
		free(g->g);
		free(g);
	}
}
