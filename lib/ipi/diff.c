// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * diff.c - two recordings compared key by key (ipitrace diff)
 *
 * ipt_diff_read makes one pass over a recording (a report run whose on_row
 * tallies every counted row under each key and the role of its target
 * CPU, in windows of time); ipt_diff_table puts two of them side by side
 * and tests each row for a change of rate, with the dispersion its window
 * counts show (the method: docs/diff.md).
 */
#include "ipi/report_views.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the keys a side tallies: the group keys diff knows, and the role total */
/* the keys a side tallies: those of each row as it comes (DK_ROW_KEYS),
 * then the stack, known once matching is done (with opts.latency) */
enum { DK_COMM, DK_PID, DK_CPU, DK_CALLSITE, DK_FUNCTION, DK_KIND, DK_ROLE, DK_ROW_KEYS, DK_STACK = DK_ROW_KEYS,
       DK__COUNT };

static int dk_of(int by)
{
	switch (by) {
	case IPT_BY_COMM: return DK_COMM;
	case IPT_BY_PID: return DK_PID;
	case IPT_BY_CPU: return DK_CPU;
	case IPT_BY_CALLSITE: return DK_CALLSITE;
	case IPT_BY_FUNCTION: return DK_FUNCTION;
	case IPT_BY_KIND: return DK_KIND;
	case IPT_DIFF_BY_ROLE: return DK_ROLE;
	case IPT_BY_STACK: return DK_STACK;
	default: return -1;
	}
}

#define DIFF_BINS 64			/* fine windows of a side */
#define DIFF_SHIFT0 20			/* their first width: 2^20 ns, about 1 ms */
#define DIFF_MIN_WINDOWS 10		/* fewer complete windows: no test */

struct dentry {				/* one key of one kind and part (an ipt_hmap entry) */
	uint64_t tag;
	uint8_t dk;
	int32_t part;			/* the role of the target CPUs, or (per_cpu) the CPU */
	const char *key;		/* in the side's strings */
	uint64_t count;
	uint32_t *bins;			/* DIFF_BINS */
	uint32_t idx;			/* its stats (struct ipt_diff_side.stats) */
};

struct dstat {				/* the matching's figures of an entry's rows */
	struct ipt_dist latency, handler;
};

struct drow {				/* a tallied row, for its matching results */
	uint64_t id, nth, ts;		/* its send; its place among the counted rows */
	int32_t src, target, pid;
	uint32_t e[DK_ROW_KEYS];	/* its entries' idx, one per key */
};

struct dkey {				/* what a lookup compares */
	uint8_t dk;
	int32_t part;
	const char *key;
	size_t len;
};

struct ipt_diff_side {
	struct ipt_hmap map;		/* of struct dentry */
	char **strs;			/* the keys' text, owned */
	size_t nstrs, capstrs;
	struct ipt_cpuset isolated;
	int ncpus;
	uint64_t origin, last_ts;
	bool started;
	unsigned int shift;
	int32_t *rec_pids;		/* the recorder's own, sorted */
	size_t nrec, caprec;
	bool latency;			/* opts.latency: keep rows, then stats */
	bool per_cpu;			/* opts.per_cpu: parts are target CPUs */
	struct dstat *stats;		/* per entry (idx) */
	size_t nstats, capstats;
	struct drow *rows;
	size_t nrows, caprows;
	uint64_t nth;			/* counted rows seen by on_row */
	struct ipt_diff_info info;
};

static bool dentry_eq(const void *e, const void *k)
{
	const struct dentry *x = e;
	const struct dkey *y = k;

	return x->dk == y->dk && x->part == y->part && !strncmp(x->key, y->key, y->len) && !x->key[y->len];
}

/* coarsen - every entry's windows twice as wide: pairs become one */
static void coarsen(struct ipt_diff_side *s)
{
	s->shift++;
	for (size_t i = 0; i < s->map.cap; i++) {
		struct dentry *e = ipt_hmap_at(&s->map, sizeof(*e), i);

		if (!ipt_hmap_used(e))
			continue;
		for (int j = 0; j < DIFF_BINS / 2; j++)
			e->bins[j] = e->bins[2 * j] + e->bins[2 * j + 1];
		memset(e->bins + DIFF_BINS / 2, 0, DIFF_BINS / 2 * sizeof(*e->bins));
	}
}

/* tally - one row under key (len bytes) of kind dk, in window w; *idx
 * gets the entry's stats index */
static int tally(struct ipt_diff_side *s, int dk, int part, const char *key, size_t len, uint64_t w, uint32_t *idx)
{
	struct dkey k = { (uint8_t)dk, part, key, len };
	uint64_t tag = ipt_hmap_tag(ipt_hash_combine(ipt_hash_bytes(key, len),
						     (uint64_t)dk << 32 | (uint32_t)part));
	struct dentry *e;
	bool added;

	e = ipt_hmap_add(&s->map, sizeof(*e), tag, dentry_eq, &k, &added);
	if (!e)
		return -1;
	if (added) {
		char *str = ipt_strndup(key, len);
		uint32_t *bins = ipt_calloc(DIFF_BINS, sizeof(*bins));

		if (!str || !bins || IPT_GROW(s->strs, s->capstrs, s->nstrs + 1) ||
		    (s->latency && IPT_GROW_ZERO(s->stats, s->capstats, s->nstats + 1))) {
			free(str);
			free(bins);
			ipt_hmap_remove(&s->map, sizeof(*e), e);
			return -1;
		}
		s->strs[s->nstrs++] = str;
		e->dk = (uint8_t)dk;
		e->part = part;
		e->key = str;
		e->bins = bins;
		e->idx = (uint32_t)s->nstats;
		if (s->latency)
			s->nstats++;
	}
	e->count++;
	e->bins[w]++;
	*idx = e->idx;
	return 0;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

/* sym_key - a symbol's name, else its address in hex, IPT_NO_FUNCTION for none */
static const char *sym_key(const char *sym, uint64_t addr, char *buf, size_t size)
{
	if (sym)
		return sym;
	if (!addr)
		return IPT_NO_FUNCTION;
	snprintf(buf, size, "0x%llx", (unsigned long long)addr);
	return buf;
}

/* part_of - what a row to target is tallied under besides its key: the
 * role of the CPU, or the CPU itself (per_cpu) */
static int part_of(const struct ipt_diff_side *s, int target)
{
	if (s->per_cpu)
		return target;
	return ipt_cpuset_has(&s->isolated, (unsigned int)target) ? IPT_ROLE_ISOLATED : IPT_ROLE_HOUSEKEEPING;
}

static int on_row(void *ctx, const struct ipt_ipi_row *row)
{
	struct ipt_diff_side *s = ctx;
	int part = part_of(s, row->target_cpu);
	char buf[3][32];
	const char *key[DK_ROW_KEYS];
	struct drow d = { row->id, s->nth++, row->ts, row->src_cpu, row->target_cpu, row->pid, { 0 } };
	uint64_t w;

	if (s->nrec && bsearch(&row->pid, s->rec_pids, s->nrec, sizeof(row->pid), cmp_i32)) {
		s->info.recorder_ipis++;
		return 0;
	}
	if (!s->started) {
		s->origin = row->ts;
		s->started = true;
	}
	w = row->ts > s->origin ? (row->ts - s->origin) >> s->shift : 0;
	while (w >= DIFF_BINS) {
		coarsen(s);
		w >>= 1;
	}
	snprintf(buf[0], sizeof(buf[0]), "%d", row->pid);
	snprintf(buf[1], sizeof(buf[1]), "%d", row->src_cpu);
	key[DK_COMM] = row->comm ? row->comm : "<...>";
	key[DK_PID] = buf[0];
	key[DK_CPU] = buf[1];
	key[DK_CALLSITE] = sym_key(row->callsite_sym, row->callsite, buf[2], sizeof(buf[2]));
	key[DK_KIND] = ipt_kind_name(row->kind);
	key[DK_ROLE] = "";
	for (int dk = 0; dk < DK_ROW_KEYS; dk++) {
		char fbuf[32];

		if (dk == DK_FUNCTION)
			key[dk] = row->func ? sym_key(row->func_sym, row->func, fbuf, sizeof(fbuf)) :
					      sym_key(row->callback_sym, row->callback, fbuf, sizeof(fbuf));
		if (tally(s, dk, part, key[dk], strlen(key[dk]), w, &d.e[dk]))
			return -1;
	}
	s->info.ipis++;
	if (s->latency) {
		if (IPT_GROW(s->rows, s->caprows, s->nrows + 1))
			return -1;
		s->rows[s->nrows++] = d;
	}
	return 0;
}

/* recorder_pids - the pids of `ipitrace record` itself (its provenance) */
static int recorder_pids(struct ipt_diff_side *s, const struct ipt_trace *t)
{
	char buf[4096];
	const char *v = ipt_trace_provenance(t, "recorder_pids", buf, sizeof(buf));

	while (v && *v) {
		char *end;
		long pid = strtol(v, &end, 10);

		if (end == v)
			break;
		if (pid > 0 && pid <= INT32_MAX) {
			if (IPT_GROW(s->rec_pids, s->caprec, s->nrec + 1))
				return -1;
			s->rec_pids[s->nrec++] = (int32_t)pid;
		}
		v = *end == ',' ? end + 1 : end;
	}
	if (s->nrec)
		qsort(s->rec_pids, s->nrec, sizeof(*s->rec_pids), cmp_i32);
	return 0;
}

/* windows - the complete fine windows of the side: those that end by the
 * recording's last event */
static void windows(struct ipt_diff_side *s)
{
	uint64_t width = 1ULL << s->shift;
	uint64_t k = s->started && s->last_ts > s->origin ? (s->last_ts - s->origin) / width : 0;

	s->info.windows = (uint32_t)(k > DIFF_BINS ? DIFF_BINS : k);
	s->info.window_s = s->info.ts_in_ns ? (double)width / 1e9 : NAN;
}

/* add_stats - a row's matching results into the stats of entry idx */
static int add_stats(struct ipt_diff_side *s, uint32_t idx, const struct ipt_row_match *m)
{
	struct dstat *st = &s->stats[idx];

	return (m->has_latency && hist_add(&st->latency, m->latency_ns)) ||
	       (m->has_handler && hist_add(&st->handler, m->handler_ns));
}

/* add_matching - every tallied row's latency and handler time into the
 * stats of its entries, and the row under its stack (folded, as
 * ipt_report_folded writes it; "(no stack)" for none); the rows are let go */
static int add_matching(struct ipt_diff_side *s, struct ipt_report *r)
{
	for (size_t i = 0; i < s->nrows; i++) {
		const struct drow *d = &s->rows[i];
		struct ipt_ipi_row row = { .id = d->id, .ts = d->ts, .src_cpu = d->src, .target_cpu = d->target };
		int part = part_of(s, d->target);
		uint64_t w = d->ts > s->origin ? (d->ts - s->origin) >> s->shift : 0;
		struct ipt_row_match m;
		char *folded = NULL;
		uint32_t idx;
		int bad;

		if (ipt_report_row_match_nth(r, d->nth, &row, &m))
			return -1;
		if (!m.known)
			continue;
		for (int k = 0; k < DK_ROW_KEYS; k++)
			if (add_stats(s, d->e[k], &m))
				return -1;
		if (m.stack && !(folded = ipt_rpt_folded_line(r, d->pid, m.stack)))
			return -1;
		bad = tally(s, DK_STACK, part, folded ? folded : "(no stack)", strlen(folded ? folded : "(no stack)"),
			    w < DIFF_BINS ? w : DIFF_BINS - 1, &idx) || add_stats(s, idx, &m);
		free(folded);
		if (bad)
			return -1;
	}
	for (size_t i = 0; i < s->nstats; i++) {
		hist_finish(&s->stats[i].latency);
		hist_finish(&s->stats[i].handler);
	}
	free(s->rows);
	s->rows = NULL;
	s->nrows = s->caprows = 0;
	return 0;
}

/* handler_totals - the IPI interrupts of each role's CPUs and the time
 * spent in their handlers */
static void handler_totals(struct ipt_diff_side *s, struct ipt_report *r)
{
	const struct ipt_report_summary *sum = ipt_report_summary(r);

	for (int c = 0; c < sum->ncpus; c++) {
		const struct ipt_report_cpu *rc = ipt_report_cpu(r, c);
		int role = ipt_cpuset_has(&s->isolated, (unsigned int)c) ? IPT_ROLE_ISOLATED : IPT_ROLE_HOUSEKEEPING;

		if (!rc)
			continue;
		s->info.handlers[role] += rc->handlers;
		s->info.handler_timed[role] += ipt_dist_count(rc->handler);
		s->info.handler_ns[role] += ipt_dist_sum(rc->handler);
	}
}

struct ipt_diff_side *ipt_diff_read(struct ipt_trace *t, const struct ipt_diff_opts *opts)
{
	struct ipt_diff_opts o;
	struct ipt_report_opts ro = { .sz = sizeof(ro) };
	struct ipt_diff_side *s;
	struct ipt_report *r;
	const struct ipt_report_summary *sum;

	if (IPT_OPTS_COPY(o, opts, "diff"))
		return NULL;
	s = ipt_calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	ipt_cpuset_init(&s->isolated);
	s->shift = DIFF_SHIFT0;
	s->ncpus = ipt_trace_ncpus(t);
	if (o.isolated) {
		if (ipt_cpuset_copy(&s->isolated, o.isolated))
			goto fail;
	} else {
		struct ipt_cpuset nohz = IPT_CPUSET_INIT;

		ipt_cpuset_init(&nohz);
		if (ipt_trace_cpu_isolation(t, &s->isolated, &nohz) && ipt_cpuset_or(&s->isolated, &nohz)) {
			ipt_cpuset_free(&nohz);
			goto fail;
		}
		ipt_cpuset_free(&nohz);
	}
	for (int c = ipt_cpuset_next(&s->isolated, 0); c >= 0; c = ipt_cpuset_next(&s->isolated, (unsigned int)c + 1))
		if (c >= s->ncpus)
			ipt_cpuset_del(&s->isolated, (unsigned int)c);
	if (!o.with_recorder && recorder_pids(s, t))
		goto fail;
	ro.filter = o.filter;
	ro.threads = o.threads;
	ro.no_tables = true;
	ro.row_results = o.latency;
	s->latency = o.latency;
	s->per_cpu = o.per_cpu;
	ro.on_row = on_row;
	ro.on_row_ctx = s;
	r = ipt_report_run(t, &ro);
	if (!r)
		goto fail;
	sum = ipt_report_summary(r);
	if (s->latency && add_matching(s, r)) {
		ipt_report_free(r);
		goto fail;
	}
	handler_totals(s, r);
	s->info.cross_cpu_latency_missing_because = sum->cross_cpu_latency ? NULL : sum->cross_cpu_missing_because;
	s->last_ts = sum->last_ts;
	if (!s->started && sum->events) {
		/* no row counted (all gone after a change, or filtered out): the
		 * windows still span the recording, empty, so that the other
		 * side's rows are tested against nothing here */
		s->origin = sum->first_ts;
		s->started = true;
		while (s->last_ts > s->origin && (s->last_ts - s->origin) >> s->shift >= DIFF_BINS)
			s->shift++;
	}
	s->info.ts_in_ns = ipt_trace_ts_in_ns(t);
	s->info.duration_s = s->info.ts_in_ns ? sum->duration_s : NAN;
	s->info.ncpus = s->ncpus;
	s->info.ncpus_isolated = (int)ipt_cpuset_weight(&s->isolated);
	s->info.isolated = &s->isolated;
	s->info.lost_events = false;
	for (int c = 0; c < sum->ncpus; c++) {
		const struct ipt_report_cpu *rc = ipt_report_cpu(r, c);

		if (rc && (rc->lost || rc->lost_unknown))
			s->info.lost_events = true;
	}
	ipt_report_free(r);
	windows(s);
	return s;
fail:
	ipt_diff_side_free(s);
	return NULL;
}

const struct ipt_diff_info *ipt_diff_info(const struct ipt_diff_side *s)
{
	return &s->info;
}

void ipt_diff_side_free(struct ipt_diff_side *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->map.cap; i++) {
		struct dentry *e = ipt_hmap_at(&s->map, sizeof(*e), i);

		if (ipt_hmap_used(e))
			free(e->bins);
	}
	ipt_hmap_free(&s->map);
	for (size_t i = 0; i < s->nstats; i++) {
		hist_free(&s->stats[i].latency);
		hist_free(&s->stats[i].handler);
	}
	free(s->stats);
	free(s->rows);
	for (size_t i = 0; i < s->nstrs; i++)
		free(s->strs[i]);
	free(s->strs);
	free(s->rec_pids);
	ipt_cpuset_free(&s->isolated);
	free(s);
}

/* ---- the test ---- */

/* betacf - the continued fraction of the regularized incomplete beta
 * function (modified Lentz), for x < (a + 1) / (a + b + 2) */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), f;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	f = d;
	for (int m = 1; m < 1000000; m++) {
		double m2 = 2.0 * m, num, delta;

		/* the even step */
		num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		c = 1 + num / c;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		if (fabs(c) < tiny)
			c = tiny;
		f *= d * c;
		/* the odd step */
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		if (fabs(c) < tiny)
			c = tiny;
		delta = d * c;
		f *= delta;
		if (fabs(delta - 1) < eps)
			break;
	}
	return f;
}

static double betainc(double a, double b, double x)
{
	double lfront;
	int sg;

	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	lfront = a * log(x) + b * log1p(-x) - (lgamma_r(a, &sg) + lgamma_r(b, &sg) - lgamma_r(a + b, &sg));
	if (x < (a + 1) / (a + b + 2))
		return exp(lfront) * betacf(a, b, x) / a;
	return 1 - exp(lfront) * betacf(b, a, 1 - x) / b;
}

double ipt_diff_pvalue(uint64_t count_a, double exposure_a, uint64_t count_b, double exposure_b, double dispersion)
{
	double phi = dispersion > 1 ? dispersion : 1;
	double n = (double)(count_a + count_b) / phi, k = (double)count_a / phi;
	double p0, ge, le, p;

	if (!(exposure_a > 0) || !(exposure_b > 0) || isnan(dispersion) || !(count_a + count_b))
		return NAN;
	p0 = exposure_a / (exposure_a + exposure_b);
	/* P(X >= k) and P(X <= k) for X ~ Binomial(n, p0), extended to real k and n */
	ge = k > 0 ? betainc(k, n - k + 1, p0) : 1;
	le = k < n ? betainc(n - k, k + 1, 1 - p0) : 1;
	p = 2 * (ge < le ? ge : le);
	return p > 1 ? 1 : p;
}

/* dispersion - the Pearson estimate over both sides' complete windows:
 * sum of (x - mean)^2 / mean over the windows of each side that has
 * rows, over its degrees of freedom; NAN if there are none */
static double dispersion(const struct dentry *e[2], const struct ipt_diff_side *s[2])
{
	double x2 = 0;
	int df = 0;

	for (int i = 0; i < 2; i++) {
		uint32_t k = s[i]->info.windows;
		double sum = 0, m;

		if (!e[i] || k < 2)
			continue;
		for (uint32_t j = 0; j < k; j++)
			sum += e[i]->bins[j];
		if (sum == 0)
			continue;
		m = sum / k;
		for (uint32_t j = 0; j < k; j++)
			x2 += (e[i]->bins[j] - m) * (e[i]->bins[j] - m) / m;
		df += (int)k - 1;
	}
	return df ? x2 / df : NAN;
}

const char *ipt_diff_status_name(enum ipt_diff_status st)
{
	static const char *const names[] = {
		[IPT_DIFF_SAME] = "same", [IPT_DIFF_MORE] = "more", [IPT_DIFF_FEWER] = "fewer",
		[IPT_DIFF_GONE] = "gone", [IPT_DIFF_NEW] = "new", [IPT_DIFF_UNTESTED] = "untested",
	};

	return (int)st >= 0 && (size_t)st < ARRAY_SIZE(names) ? names[st] : NULL;
}

const char *ipt_role_name(enum ipt_cpu_role role)
{
	return role == IPT_ROLE_ISOLATED ? "isolated" : role == IPT_ROLE_HOUSEKEEPING ? "housekeeping" : NULL;
}

/* part_cpus - the CPUs of a part (a role, or one CPU) in a side */
static int part_cpus(const struct ipt_diff_side *s, int part)
{
	if (s->per_cpu)
		return part >= 0 && part < s->info.ncpus;
	return part == IPT_ROLE_ISOLATED ? s->info.ncpus_isolated : s->info.ncpus - s->info.ncpus_isolated;
}

/* untestable - why side s allows no test, or NULL */
static const char *untestable(const struct ipt_diff_side *s)
{
	if (!s->info.ts_in_ns)
		return "the trace clock counts cycles, not ns";
	if (s->info.windows < DIFF_MIN_WINDOWS)
		return "a recording too short to tell (fewer than 10 windows)";
	return NULL;
}

static void fill_row(struct ipt_diff_row *d, const struct dentry *e[2], const struct ipt_diff_side *s[2])
{
	double expo[2];
	const char *why = untestable(s[0]);

	if (!why)
		why = untestable(s[1]);
	for (int i = 0; i < 2; i++) {
		int n = part_cpus(s[i], d->target_cpu >= 0 ? d->target_cpu : (int)d->role);

		if (e[i] && s[i]->latency) {
			d->latency[i] = &s[i]->stats[e[i]->idx].latency;
			d->handler[i] = &s[i]->stats[e[i]->idx].handler;
		}
		double dur = s[i]->info.duration_s;


		d->count[i] = e[i] ? e[i]->count : 0;
		d->per_s[i] = dur > 0 ? (double)d->count[i] / dur : NAN;
		d->per_cpu_hour[i] = dur > 0 && n > 0 ? (double)d->count[i] / (dur / 3600 * n) : NAN;
		expo[i] = dur > 0 && n > 0 ? dur * n : NAN;
		if (!why && !(n > 0))
			why = d->target_cpu >= 0 ? "the CPU is not in one of the recordings" :
						   "the role has no CPU in one of the recordings";
	}
	d->diff_per_s = d->per_s[1] - d->per_s[0];
	d->ratio = !isnan(expo[0]) && !isnan(expo[1]) && d->count[0] ?
			   ((double)d->count[1] / expo[1]) / ((double)d->count[0] / expo[0]) :
		   d->count[1] ? INFINITY : NAN;
	d->dispersion = dispersion(e, s);
	if (isnan(d->dispersion))
		d->dispersion = 1;	/* rows in no complete window: nothing to widen by */
	d->p = why ? NAN : ipt_diff_pvalue(d->count[0], expo[0], d->count[1], expo[1], d->dispersion);
	d->untested_because = why;
	if (why)
		d->status = IPT_DIFF_UNTESTED;
	else if (!(d->p < IPT_DIFF_ALPHA))
		d->status = IPT_DIFF_SAME;
	else if (!d->count[1])
		d->status = IPT_DIFF_GONE;
	else if (!d->count[0])
		d->status = IPT_DIFF_NEW;
	else
		d->status = d->ratio > 1 ? IPT_DIFF_MORE : IPT_DIFF_FEWER;
}

static int cmp_change(const void *a, const void *b)
{
	const struct ipt_diff_row *x = a, *y = b;
	double dx = fabs(x->diff_per_s), dy = fabs(y->diff_per_s);
	int c;

	if (isnan(dx) || isnan(dy)) {	/* no clock: by the counts */
		dx = fabs((double)x->count[1] - (double)x->count[0]);
		dy = fabs((double)y->count[1] - (double)y->count[0]);
	}
	if (dx != dy)
		return dx < dy ? 1 : -1;
	if ((c = strcmp(x->key, y->key)))
		return c;
	if (x->target_cpu != y->target_cpu)
		return x->target_cpu < y->target_cpu ? -1 : 1;
	return x->role - y->role;
}

struct ipt_diff_row *ipt_diff_table(const struct ipt_diff_side *a, const struct ipt_diff_side *b, int by,
				    size_t *n)
{
	const struct ipt_diff_side *s[2] = { a, b };
	int dk = dk_of(by);
	struct ipt_diff_row *v;
	size_t k = 0, cap;

	*n = 0;
	if (dk < 0 || !a || !b) {
		ipt_err_code(IPT_ERR_INVALID, "diff: no table by %s (comm, pid, cpu, callsite, function, kind, stack, role)",
			     ipt_group_by_name((enum ipt_group_by)by) ? ipt_group_by_name((enum ipt_group_by)by) :
									  "that key");
		return NULL;
	}
	if (a->per_cpu != b->per_cpu) {
		ipt_err_code(IPT_ERR_INVALID, "diff: one side read per CPU, the other per role");
		return NULL;
	}
	if (dk == DK_STACK && !(a->latency && b->latency)) {
		ipt_err_code(IPT_ERR_INVALID, "diff: a table by stack needs sides read with opts.latency");
		return NULL;
	}
	cap = a->map.n + b->map.n + 1;
	v = ipt_calloc(cap, sizeof(*v));
	if (!v)
		return NULL;
	/* every key of a, with b's entry; then b's keys that a lacks */
	for (int side = 0; side < 2; side++) {
		const struct ipt_diff_side *me = s[side], *other = s[!side];

		for (size_t i = 0; i < me->map.cap; i++) {
			const struct dentry *e = ipt_hmap_at(&me->map, sizeof(*e), i), *pair[2];
			struct dkey key;
			const struct dentry *o;

			if (!ipt_hmap_used(e) || e->dk != dk)
				continue;
			key = (struct dkey){ e->dk, e->part, e->key, strlen(e->key) };
			o = other->map.cap ? ipt_hmap_find(&other->map, sizeof(*o), ipt_hmap_tag_of(e), dentry_eq, &key) :
					     NULL;
			if (o && !ipt_hmap_used(o))
				o = NULL;
			if (side == 1 && o)
				continue;	/* done from a */
			pair[side] = e;
			pair[!side] = o;
			v[k].key = e->key;
			if (me->per_cpu) {
				v[k].target_cpu = e->part;
				v[k].role = ipt_cpuset_has(&me->isolated, (unsigned int)e->part) ? IPT_ROLE_ISOLATED :
												  IPT_ROLE_HOUSEKEEPING;
			} else {
				v[k].target_cpu = -1;
				v[k].role = (enum ipt_cpu_role)e->part;
			}
			fill_row(&v[k], pair, s);
			k++;
		}
	}
	qsort(v, k, sizeof(*v), cmp_change);
	*n = k;
	return v;
}
