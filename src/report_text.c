// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report_text.c - `ipitrace report`: the report as text, for a terminal
 */
#include "commands.h"
#include "report_out.h"
#include "explain_out.h"
#include "cpu_ranges.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ctx {
	struct ipt_report *r;
	const struct ipt_report_summary *s;
	struct ipt_trace *t;
	int top;			/* 0: all */
	enum ipt_group_by by;
	enum ipt_group_sort sort;
	bool ns;		/* timestamps are ns; else no times are shown ("cycles, not ns") */
	bool with_recorder;
	const struct ipt_cpuset *iso;	/* the isolated CPUs (NULL: not known) */
	const char *iso_from;		/* where that set comes from */
	struct ipt_cpuset hk;		/* the other CPUs of the trace: housekeeping */
	bool wide;			/* more CPUs than a table shows whole: by role,
					 * ranges and the busiest */
};

static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

/* hist3 - p50, p99 and max of a distribution in us, or dashes, into b */
static const char *hist3(const struct ctx *x, const struct ipt_dist *h, char *b, size_t size)
{
	if (!ipt_dist_count(h) || !x->ns)
		snprintf(b, size, "  %8s %8s %8s", "-", "-", "-");
	else
		snprintf(b, size, "  %8.1f %8.1f %8.1f", us(ipt_dist_quantile(h, 0.5)),
			 us(ipt_dist_quantile(h, 0.99)), us(ipt_dist_max(h)));
	return b;
}

/* is_iso - whether CPU c is among the isolated ones */
static bool is_iso(const struct ctx *x, int c)
{
	return x->iso && ipt_cpuset_has(x->iso, (unsigned int)c);
}

/* more_line - what a bounded table left out, and how to see it */
static void more_line(size_t more, const char *what)
{
	if (more)
		printf("  (%zu more %s; -t 0 shows all)\n", more, what);
}

/* pid_ranges - a list of numbers "561,567,568,569" as ranges
 * ("561,567-569") in place, when it is one; else left as it is */
static void pid_ranges(char *v)
{
	char out[4096];
	size_t o = 0;
	long first = -1, last = -1;
	char *p = v;

	for (;;) {
		char *end;
		long n = strtol(p, &end, 10);

		if (end == p || n < 0 || (*end && *end != ','))
			return;		/* not a list of numbers */
		if (first >= 0 && n == last + 1) {
			last = n;
		} else {
			if (first >= 0)
				o += (size_t)snprintf(out + o, o < sizeof(out) ? sizeof(out) - o : 0,
						      first == last ? "%ld," : "%ld-%ld,", first, last);
			first = last = n;
		}
		if (!*end)
			break;
		p = end + 1;
	}
	if (first >= 0)
		o += (size_t)snprintf(out + o, o < sizeof(out) ? sizeof(out) - o : 0,
				      first == last ? "%ld" : "%ld-%ld", first, last);
	if (o < sizeof(out))
		memcpy(v, out, o + 1);	/* never longer than the list */
}

/* prov_line - "INDENT LABEL VALUE" within the report's width: a longer
 * value cut at a comma or a space and ended with "... (N characters)" */
static void prov_line(const char *indent_label, const char *v)
{
	size_t room = TEXT_WIDTH - strlen(indent_label) - 24, len = strlen(v), cut;

	if (len <= TEXT_WIDTH - strlen(indent_label)) {
		printf("%s%s\n", indent_label, v);
		return;
	}
	for (cut = room; cut > room / 2 && v[cut] != ',' && v[cut] != ' '; cut--)
		;
	if (cut <= room / 2)
		cut = room;
	printf("%s%.*s... (%zu characters)\n", indent_label, (int)cut, v, len);
}

/* text_provenance - how the trace was recorded, when it says */
static void text_provenance(const struct ctx *x)
{
	char v[4096], label[64];

	if (!ipt_trace_provenance(x->t, "command_line", v, sizeof(v)))
		return;
	prov_line("  Recorded with: ", v);
	for (size_t i = 0; prov_keys[i]; i++) {
		if (!ipt_trace_provenance(x->t, prov_keys[i], v, sizeof(v)))
			continue;
		if (!strcmp(prov_keys[i], "recorder_pids"))
			pid_ranges(v);
		snprintf(label, sizeof(label), "    %s: ", prov_keys[i]);
		prov_line(label, v);
	}
}

/* text_kernel - the kernel's counters beside what the trace holds, and
 * what explains each difference */
static void text_kernel(const struct ctx *x)
{
	size_t n;
	const struct ipt_report_kernel_irq *k = ipt_report_kernel_irqs(x->r, &n);
	bool setup = false, note[IPT_KIRQ__COUNT] = { false };
	int64_t not_recorded = 0;
	char rec[256] = "";
	uint64_t *w = NULL;
	bool *shown = NULL;
	size_t more = 0;

	if (!n)
		return;
	printf("\nKernel counters (/proc/interrupts) from tracing on to off, beside the trace\n");
	printf("  %4s %-5s %10s %10s %10s %12s  %s\n", "cpu", "row", "kernel", "traced", "sends", "unexplained",
	       "what");
	if (n > CPU_TABLE_ALL_UP_TO && x->wide && (w = calloc(n, sizeof(*w))) && (shown = calloc(n, sizeof(*shown)))) {
		for (size_t i = 0; i < n; i++)	/* the most unexplained first, then the most counted */
			w[i] = (uint64_t)llabs(k[i].unexplained) << 24 | (uint64_t)(k[i].kernel > 0xffffff ? 0xffffff :
										  k[i].kernel > 0 ? k[i].kernel : 0);
		busiest(w, n, (size_t)x->top, shown);
	}
	for (size_t i = 0; i < n; i++) {
		char kern[24], tr[24], se[24], un[24];
		const char *why = "";

		if (shown && !shown[i]) {
			more++;
			note[k[i].note] = true;
			setup = setup || k[i].setup > 0 || k[i].teardown > 0;
			if (k[i].note == IPT_KIRQ_NOT_RECORDED)
				not_recorded += k[i].kernel;
			continue;
		}

		snprintf(kern, sizeof(kern), k[i].kernel >= 0 ? "%lld" : "?", (long long)k[i].kernel);
		snprintf(tr, sizeof(tr), k[i].traced >= 0 ? "%lld" : "-", (long long)k[i].traced);
		snprintf(se, sizeof(se), k[i].sends >= 0 ? "%lld" : "-", (long long)k[i].sends);
		switch (k[i].note) {
		case IPT_KIRQ_WITHIN: snprintf(un, sizeof(un), "(in CAL)"); break;
		case IPT_KIRQ_UNKNOWN: snprintf(un, sizeof(un), "?"); break;
		case IPT_KIRQ_NOT_RECORDED:
			snprintf(un, sizeof(un), "-");
			why = " (not recorded: outside --cpus)";
			not_recorded += k[i].kernel;
			break;
		case IPT_KIRQ_NOT_COVERED:
			why = " (no trace event covers it)";
			/* fall through */
		default: snprintf(un, sizeof(un), "%lld", (long long)k[i].unexplained); break;
		}
		note[k[i].note] = true;
		printf("  %4d %-5s %10s %10s %10s %12s  %s%s\n", k[i].cpu, k[i].row, kern, tr, se, un,
		       k[i].desc ? k[i].desc : "", why);
		setup = setup || k[i].setup > 0 || k[i].teardown > 0;
	}
	more_line(more, "CPU and row pairs, the largest unexplained and counts first");
	if (note[IPT_KIRQ_MORE_COUNTED] || note[IPT_KIRQ_NOT_COVERED])
		printf("  (unexplained: the kernel counted more interrupts than the trace holds; lost events,"
		       " or interrupts before the first or after the last event of the CPU)\n");
	if (note[IPT_KIRQ_MORE_TRACED])
		printf("  (a negative count: the trace holds more interrupts than the kernel counted; the"
		       " counters were read a moment after tracing started or before it stopped)\n");
	if (note[IPT_KIRQ_NOT_RECORDED]) {
		ipt_trace_provenance(x->t, "cpus", rec, sizeof(rec));
		printf("  (not recorded: %lld interrupts on CPUs that the recording's --cpus %s left out;"
		       " not in the trace by choice)\n", (long long)not_recorded, rec);
	}
	if (!setup)
		goto out;
	printf("  the recording's own cost: interrupts while it set tracing up and tore it down\n");
	more = 0;
	for (size_t i = 0; i < n; i++)
		if ((k[i].setup > 0 || k[i].teardown > 0) && shown && !shown[i])
			more++;
		else if (k[i].setup > 0 || k[i].teardown > 0)
			printf("    cpu %-4d %-5s setup %lld, teardown %lld\n", k[i].cpu, k[i].row,
			       (long long)(k[i].setup > 0 ? k[i].setup : 0),
			       (long long)(k[i].teardown > 0 ? k[i].teardown : 0));
	more_line(more, "CPU and row pairs");
out:
	free(w);
	free(shown);
}

/* text_lost - the events lost per CPU, the CPUs with the same count together */
static int text_lost(const struct ctx *x)
{
	int n = x->s->ncpus, ret;
	char (*val)[32] = calloc((size_t)n + 1, sizeof(*val));
	const char **vals = calloc((size_t)n + 1, sizeof(*vals));

	if (!val || !vals) {
		free(val);
		free(vals);
		return -1;
	}
	for (int c = 0; c < n; c++) {
		const struct ipt_report_cpu *cp = ipt_report_cpu(x->r, c);

		if (cp->lost_unknown && !cp->lost)
			snprintf(val[c], sizeof(val[c]), "unknown");
		else
			snprintf(val[c], sizeof(val[c]), "%llu%s", (unsigned long long)cp->lost,
				 cp->lost_unknown ? "+" : "");
		vals[c] = val[c];
	}
	ret = print_cpu_values(stdout, "  lost events:", vals, n, "    ");
	printf("\n");
	free(val);
	free(vals);
	return ret;
}

static int text_summary(struct ctx *x)
{
	const struct ipt_report_summary *s = x->s;
	struct ipt_trace *t = x->t;

	printf("ipitrace report: %s\n", ipt_trace_path(t));
	text_provenance(x);
	if (x->ns)
		printf("  duration %.6f s, %d CPUs, clock %s, kernel %s\n", s->duration_s, s->ncpus,
		       *ipt_trace_clock(t) ? ipt_trace_clock(t) : "unknown",
		       *ipt_trace_uname(t) ? ipt_trace_uname(t) : "unknown");
	else
		printf("  duration %.0f %s (%s, not ns: no times, rates or latencies), %d CPUs, clock %s, kernel %s\n",
		       s->duration_s * 1e9, ipt_trace_time_unit(t), ipt_trace_time_unit(t), s->ncpus,
		       ipt_trace_clock(t), *ipt_trace_uname(t) ? ipt_trace_uname(t) : "unknown");
	if (ipt_trace_nbuffers(t) > 1) {
		char names[512];

		buffers_read(t, names, sizeof(names));
		printf("  buffer read: %s\n", *names ? names : "none has data");
	}
	printf("  events %llu, IPI send events %llu, IPIs (one per target CPU) %llu",
	       (unsigned long long)s->events, (unsigned long long)s->send_events,
	       (unsigned long long)s->ipis);
	if (s->filtered)
		printf(", %llu matching the filter", (unsigned long long)s->ipis_counted);
	if (s->probes_missed > 0)
		printf("\n  sends from kprobes the kernel missed (a kprobe hit while another ran on that\n"
		       "  CPU): %lld, not in the trace", (long long)s->probes_missed);
	if (s->senders_unknown)
		printf("\n  senders unknown: the trace has no IPI send event (ipi:ipi_send_cpu and\n"
		       "  ipi:ipi_send_cpumask need Linux 6.4+; record defines kprobes for them where the\n"
		       "  kernel allows): the receive side alone, in 'interrupts with no traced send'");
	printf("\n");
	if (text_lost(x))
		return -1;
	if (s->lost_by_header > 0)
		printf("  lost events by the text's header: %lld (entries-in-buffer/entries-written %lld/%lld:"
		       " the oldest overwritten, on CPUs it does not say)", (long long)s->lost_by_header,
		       (long long)s->header_in_buffer, (long long)s->header_written);
	if (s->lost_by_header > 0)
		printf("\n");
	if (s->csd_queued)
		printf("  csd calls queued %llu: %llu rode an IPI of their own, %llu needed none "
		       "(target polling, or work already queued)\n",
		       (unsigned long long)s->csd_queued, (unsigned long long)s->csd_with_ipi,
		       (unsigned long long)s->csd_without_ipi);
	if (s->csd_given_up)
		printf("  csd calls forgotten unpaired: %llu (too many waited at once, their runs not"
		       " recorded): csd queue -> run leaves out their runs\n",
		       (unsigned long long)s->csd_given_up);
	printf("  kinds:");
	for (int k = 0; k < IPT_KIND__COUNT; k++)
		if (s->kinds[k])
			printf(" %s %llu", ipt_kind_name(k), (unsigned long long)s->kinds[k]);
	printf("\n");
	return 0;
}

/* shown - how many of n entries a top-N table shows */
static size_t shown(const struct ctx *x, size_t n)
{
	return x->top && (size_t)x->top < n ? (size_t)x->top : n;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* text_stack - the frames of a stack, one per line, leaf first */
static void text_stack(const struct ctx *x, const struct ipt_report_stack *st, const char *indent)
{
	char a[160];

	if (!st) {
		printf("%s(no stack recorded)\n", indent);
		return;
	}
	for (uint32_t k = 0; k < st->nframes; k++) {
		struct ipt_user_frame uf;
		const char *base;

		ipt_trace_format_symbol(x->t, st->frames[k], true, a, sizeof(a));
		if (!ipt_trace_user_frame(x->t, st->frames[k], &uf) || uf.cut || !uf.module) {
			printf("%s%s\n", indent, a);
			continue;
		}
		base = strrchr(uf.module, '/');
		printf("%s%s [%s]\n", indent, a, base ? base + 1 : uf.module);
	}
	if (!st->nframes)
		printf("%s(only tracing frames)\n", indent);
}

/* text_group_key - one group's key as the text report shows it */
static void text_group_key(const struct ctx *x, const struct ipt_report_group *g)
{
	char a[160];

	switch (x->by) {
	case IPT_BY_COMM:
		printf("%s (%u pid%s:", g->comm, g->npids, g->npids == 1 ? "" : "s");
		for (int i = 0; i < IPT_GROUP_TOP_PIDS && g->top_pids[i].pid >= 0; i++)
			printf("%s %d", i ? "," : "", g->top_pids[i].pid);
		printf("%s)", g->npids > IPT_GROUP_TOP_PIDS ? ", ..." : "");
		break;
	case IPT_BY_PID:
		printf("%s-%d", g->comm, g->pid);
		break;
	case IPT_BY_TASK:
		printf("%s-%d on cpu %d", g->comm, g->pid, g->src_cpu);
		break;
	case IPT_BY_CPU:
		printf("from cpu %d", g->src_cpu);
		break;
	case IPT_BY_CALLSITE:
	case IPT_BY_FUNCTION:
		if (x->by == IPT_BY_CALLSITE)
			ipt_trace_format_symbol(x->t, g->addr, true, a, sizeof(a));
		else
			ipt_trace_format_function(x->t, g->addr, a, sizeof(a));
		printf("%s", a);
		break;
	case IPT_BY_KIND:
		printf("%s", ipt_kind_name((enum ipt_ipi_kind)g->kind));
		break;
	default:
		break;
	}
}

/* text_role - the IPIs that reached one role's CPUs: rate, kinds, senders,
 * call paths; -1 if out of memory */
static int text_role(struct ctx *x, const char *role, const struct ipt_cpuset *set)
{
	struct ipt_report_role *ro = ipt_report_role(x->r, set);
	uint64_t n, rec;
	enum ipt_group_by by = x->by == IPT_BY_STACK ? IPT_BY_COMM : x->by;
	struct ipt_report_group *g;
	struct ipt_report_pair *p;
	size_t ng, np;
	char list[96], a[160], b[160];

	if (!ro)
		return -1;
	n = ro->ipis;
	rec = ro->recorder_ipis;
	printf("\nIPIs to %s%sCPUs %s: %llu", *role ? "the " : "all ", role, cpu_list_short(set, list, sizeof(list), 60),
	       (unsigned long long)n);
	if (x->ns && !isnan(ro->per_s))
		printf(", %.1f/s, %.2f/s per CPU", ro->per_s, ro->per_cpu_per_s);
	printf("\n");
	if (n) {
		printf("  kinds:");
		for (int k = 0; k < IPT_KIND__COUNT; k++)
			if (ro->by_kind[k])
				printf(" %s %llu", ipt_kind_name(k), (unsigned long long)ro->by_kind[k]);
		printf("\n");
	}
	free(ro);
	if (!n)
		return 0;
	if (!(g = ipt_report_groups_on(x->r, by, set, x->sort, &ng)))
		return -1;
	printf("  by %s:\n", ipt_group_by_name(by));
	if (rec && !x->with_recorder && by != IPT_BY_CALLSITE && by != IPT_BY_FUNCTION && by != IPT_BY_KIND)
		printf("    %9llu %5.1f%%  sent by the recorder itself: left out (--with-recorder)\n",
		       (unsigned long long)rec, share(rec, n));
	for (size_t i = 0; i < shown(x, ng); i++) {
		enum ipt_group_by keep = x->by;

		printf("    %9llu %5.1f%%  ", (unsigned long long)g[i].count, share(g[i].count, n));
		x->by = by;
		text_group_key(x, &g[i]);
		x->by = keep;
		printf("\n");
	}
	if (shown(x, ng) < ng)
		printf("    (%zu more)\n", ng - shown(x, ng));
	free(g);
	if (!(p = ipt_report_pairs_on(x->r, set, &np)))
		return -1;
	printf("  by call site -> function:\n");
	for (size_t i = 0; i < shown(x, np); i++) {
		ipt_trace_format_symbol(x->t, p[i].callsite, true, a, sizeof(a));
		ipt_trace_format_function(x->t, p[i].function, b, sizeof(b));
		printf("    %9llu %5.1f%%  %s -> %s\n", (unsigned long long)p[i].count, share(p[i].count, n), a, b);
	}
	if (shown(x, np) < np)
		printf("    (%zu more)\n", np - shown(x, np));
	free(p);
	return 0;
}

/* text_recorded_roles - what the recording machine said of its CPUs */
static void text_recorded_roles(const struct ctx *x)
{
	static const char *const roles[][2] = {
		{ "isolated", "sysfs isolated (isolcpus=, cpusets)" }, { "nohz_full", "sysfs nohz_full" },
		{ "isolcpus", "isolcpus= on the kernel command line" },
		{ "rcu_nocbs", "rcu_nocbs= on the kernel command line" }, { "online", "online" },
		{ "possible", "possible" },
	};
	struct ipt_cpuset set = IPT_CPUSET_INIT;
	char list[96], flags[64];
	bool said = false;

	ipt_cpuset_init(&set);
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		if (!ipt_trace_cpu_role(x->t, roles[i][0], &set))
			continue;
		if (!said)
			printf("  the recording machine's CPUs:\n");
		said = true;
		printf("    %-40s %s", roles[i][1], ipt_cpuset_empty(&set) ? "none" :
		       cpu_list_short(&set, list, sizeof(list), 60));
		if (!strcmp(roles[i][0], "isolcpus") && ipt_trace_isolcpus_flags(x->t, flags, sizeof(flags)) &&
		    *flags)
			printf(" (flags %s)", flags);
		printf("\n");
	}
	ipt_cpuset_free(&set);
}

/* text_roles - the isolated CPUs as one unit, then the housekeeping ones
 * (with no isolated CPU known: all of them, when there are many) */
static int text_roles(struct ctx *x)
{
	bool iso = x->iso && ipt_cpuset_weight(&x->hk) < (unsigned int)x->s->ncpus;
	char l1[96], l2[96];

	if (!iso && !x->wide)
		return 0;
	if (iso)
		printf("\nCPU roles: isolated %s (%u CPUs, from %s), housekeeping %s (%u CPUs)\n",
		       cpu_list_short(x->iso, l1, sizeof(l1), 60), ipt_cpuset_weight(x->iso), x->iso_from,
		       cpu_list_short(&x->hk, l2, sizeof(l2), 60), ipt_cpuset_weight(&x->hk));
	else
		printf("\nCPU roles: no isolated CPU known (none recorded; --isolated LIST names them)\n");
	if (iso)
		text_recorded_roles(x);
	if (iso && text_role(x, "isolated ", x->iso))
		return -1;
	return text_role(x, iso ? "housekeeping " : "", &x->hk);
}

/* per_cpu_body - target CPU c's row of the per-CPU table, after its CPU column */
static void per_cpu_body(const struct ctx *x, int c, char *b, size_t size)
{
	const struct ipt_report_cpu *cp = ipt_report_cpu(x->r, c);
	double d = x->s->duration_s;
	char h1[40], h2[40];
	size_t o;

	if (x->ns)
		o = (size_t)snprintf(b, size, " %9llu %10.1f", (unsigned long long)cp->ipis,
				     d > 0 ? (double)cp->ipis / d : 0.0);
	else
		o = (size_t)snprintf(b, size, " %9llu %10s", (unsigned long long)cp->ipis, "-");
	for (int k = 0; k < IPT_KIND__COUNT && o < size; k++)
		if (x->s->kinds[k])
			o += (size_t)snprintf(b + o, size - o, " %*llu", k == IPT_KIND_MEMBARRIER ? 10 : 8,
					      (unsigned long long)cp->by_kind[k]);
	if (o < size)
		snprintf(b + o, size - o, "%s %s", hist3(x, cp->latency, h1, sizeof(h1)),
			 hist3(x, cp->handler, h2, sizeof(h2)));
}

/* cpu_units - the rows of the per-CPU table of many CPUs, merged into
 * ranges; the isolated CPUs are there even with no IPI.  NULL if out of memory. */
static struct cpu_unit *cpu_units(const struct ctx *x, size_t *n)
{
	struct cpu_unit *u = calloc((size_t)x->s->ncpus + 1, sizeof(*u));
	size_t k = 0;

	if (!u)
		return NULL;
	for (int c = 0; c < x->s->ncpus; c++) {
		const struct ipt_report_cpu *cp = ipt_report_cpu(x->r, c);

		if (!cp->ipis && !cp->handlers && !is_iso(x, c))
			continue;
		per_cpu_body(x, c, u[k].text, sizeof(u[k].text));
		cpu_unit_add(u, &k, c, is_iso(x, c));
	}
	*n = k;
	return u;
}

/* text_per_cpu_wide - the isolated ranges and the busiest other CPUs */
static void text_per_cpu_wide(const struct ctx *x)
{
	size_t n = 0, more = 0;
	struct cpu_unit *u = cpu_units(x, &n);
	bool *shown = calloc(n + 1, sizeof(*shown));

	if (!u || !shown || busiest_units(x->r, u, n, (size_t)x->top, shown))
		goto out;
	for (size_t i = 0; i < n; i++) {
		char cpus[24];

		if (!shown[i]) {	/* a range has the same figures on each CPU */
			if (ipt_report_cpu(x->r, u[i].first)->ipis)
				more += (size_t)(u[i].last - u[i].first + 1);
			continue;
		}
		if (u[i].last > u[i].first)
			snprintf(cpus, sizeof(cpus), "%d-%d", u[i].first, u[i].last);
		else
			snprintf(cpus, sizeof(cpus), "%d", u[i].first);
		if (x->iso)
			printf("  %9s %-4s%s\n", cpus, u[i].iso ? "iso" : "", u[i].text);
		else
			printf("  %9s%s\n", cpus, u[i].text);
	}
	more_line(more, "CPUs with IPIs");
out:
	free(u);
	free(shown);
}

static void text_per_cpu(struct ctx *x)
{
	const struct ipt_report_summary *r = x->s;

	printf("\nIPIs received per target CPU, by kind (lat: send -> handler entry, hdl: handler;"
	       " times in us)\n");
	if (x->wide && x->iso)
		printf("  (the %d busiest isolated CPUs (iso) and the %d busiest others; consecutive CPUs with"
		       " the same figures as one range)\n  %9s %-4s", x->top, x->top, "cpu", "");
	else if (x->wide)
		printf("  (the %d busiest CPUs; consecutive CPUs with the same figures as one range)\n  %9s",
		       x->top, "cpu");
	else
		printf("  %4s", "cpu");
	printf(" %9s %10s", "ipis", "per_s");
	for (int k = 0; k < IPT_KIND__COUNT; k++)
		if (r->kinds[k])
			printf(" %*s", k == IPT_KIND_MEMBARRIER ? 10 : 8, ipt_kind_name(k));
	printf("   lat_p50  lat_p99  lat_max   hdl_p50  hdl_p99  hdl_max\n");
	if (x->wide)
		text_per_cpu_wide(x);
	for (int c = 0; c < r->ncpus && !x->wide; c++) {
		const struct ipt_report_cpu *cp = ipt_report_cpu(x->r, c);
		char b[256];

		if (!cp->ipis && !cp->handlers)
			continue;
		per_cpu_body(x, c, b, sizeof(b));
		printf("  %4d%s\n", c, b);
	}
	if (!r->cross_cpu_latency && x->ns)
		printf("  cross-CPU latencies are missing: %s (use --assume-synced-clock to compute them anyway)\n",
		       r->cross_cpu_missing_because);
}

/* text_groups - the senders per target CPU, grouped by x->by */
static int text_groups(struct ctx *x)
{
	static const char *const what[IPT_BY__COUNT] = {
		[IPT_BY_COMM] = "command (pids, the largest first)", [IPT_BY_PID] = "task",
		[IPT_BY_TASK] = "task, sending CPU", [IPT_BY_CPU] = "sending CPU",
		[IPT_BY_CALLSITE] = "call site", [IPT_BY_FUNCTION] = "function run (else callback)",
		[IPT_BY_KIND] = "kind", [IPT_BY_STACK] = "kernel stack, tracing frames trimmed",
	};

	printf("\nTop senders per target CPU, by %s\n", what[x->by]);
	if (x->wide) {
		printf("  (%d CPUs: see the IPIs to each role above; -t 0 lists every CPU)\n", x->s->ncpus);
		return 0;
	}
	for (int c = 0; c < x->s->ncpus; c++) {
		const struct ipt_report_cpu *cp = ipt_report_cpu(x->r, c);

		if (cp->recorder_ipis && !x->with_recorder &&
		    (x->by == IPT_BY_COMM || x->by == IPT_BY_PID || x->by == IPT_BY_TASK || x->by == IPT_BY_CPU))
			printf("  cpu %-4d %9llu %5.1f%%  sent by the recorder itself: left out (--with-recorder)\n",
			       c, (unsigned long long)cp->recorder_ipis, share(cp->recorder_ipis, cp->ipis));
	}
	for (int c = 0; c < x->s->ncpus; c++) {
		const struct ipt_report_cpu *cp = ipt_report_cpu(x->r, c);
		size_t n;
		const struct ipt_report_group *g;

		if (!cp->ipis)
			continue;
		if (!(g = ipt_report_groups(x->r, x->by, c, x->sort, &n)))
			return -1;
		for (size_t i = 0; i < shown(x, n); i++) {
			printf("  cpu %-4d %9llu %5.1f%%  ", c, (unsigned long long)g[i].count,
			       share(g[i].count, cp->ipis));
			if (x->by == IPT_BY_STACK) {
				printf("stack %zu of %zu\n", i + 1, n);
				text_stack(x, g[i].stack, "                             ");
				continue;
			}
			text_group_key(x, &g[i]);
			printf("\n");
		}
		if (shown(x, n) < n)
			printf("  cpu %-4d (%zu more)\n", c, n - shown(x, n));
	}
	return 0;
}

/* text_stacks_by_role - the top sender stacks to each role's CPUs */
static int text_stacks_by_role(struct ctx *x)
{
	bool iso = x->iso && ipt_cpuset_weight(&x->hk) < (unsigned int)x->s->ncpus;

	printf("\nTop sender stacks per role (tracing frames trimmed; share of the IPIs with a stack)\n");
	for (int role = iso ? 0 : 1; role < 2; role++) {
		const struct ipt_cpuset *set = role ? &x->hk : x->iso;
		struct ipt_report_role *ro = ipt_report_role(x->r, set);
		struct ipt_report_group *g;
		uint64_t with;
		size_t n, k = 0;
		char list[96];

		if (!ro)
			return -1;
		with = ro->with_stack;
		free(ro);
		printf("  to %s CPUs %s: %llu IPIs with a stack\n", role ? (iso ? "the housekeeping" : "all") : "the isolated",
		       cpu_list_short(set, list, sizeof(list), 60), (unsigned long long)with);
		if (!(g = ipt_report_groups_on(x->r, IPT_BY_STACK, set, IPT_SORT_COUNT, &n)))
			return -1;
		for (size_t i = 0; i < n && (!x->top || k < (size_t)x->top); i++) {
			if (!g[i].stack)
				continue;
			printf("    %9llu %5.1f%%  stack %zu\n", (unsigned long long)g[i].count, share(g[i].count, with), ++k);
			text_stack(x, g[i].stack, "                             ");
		}
		free(g);
	}
	return 0;
}

/* text_stacks - the top sender stacks per target CPU (when recorded) */
static int text_stacks(struct ctx *x)
{
	bool any = false;

	for (int c = 0; c < x->s->ncpus; c++)
		any = any || ipt_report_cpu(x->r, c)->with_stack;
	if (!any || (x->by == IPT_BY_STACK && !x->wide))
		return 0;
	if (x->wide)
		return text_stacks_by_role(x);
	printf("\nTop sender stacks per target CPU (tracing frames trimmed; share of the IPIs"
	       " with a stack)\n");
	for (int c = 0; c < x->s->ncpus; c++) {
		const struct ipt_report_cpu *cp = ipt_report_cpu(x->r, c);
		size_t n, k = 0;
		const struct ipt_report_group *g;

		if (!cp->ipis)
			continue;
		if (!(g = ipt_report_groups(x->r, IPT_BY_STACK, c, IPT_SORT_COUNT, &n)))
			return -1;
		printf("  cpu %-4d %llu of %llu IPIs had a stack\n", c, (unsigned long long)cp->with_stack,
		       (unsigned long long)cp->ipis);
		if (ipt_trace_has_user_symbols(x->t))
			printf("  cpu %-4d of those, %llu go on into the sender's user stack (%llu of them cut"
			       " short: no frame pointers, or the kernel's 8 frames), %llu were sent in"
			       " interrupt context (no user origin)\n", c,
			       (unsigned long long)cp->with_user_stack, (unsigned long long)cp->user_cut,
			       (unsigned long long)cp->user_in_irq);
		for (size_t i = 0; i < n && (!x->top || k < (size_t)x->top); i++) {
			if (!g[i].stack)
				continue;
			printf("  cpu %-4d %9llu %5.1f%%  stack %zu\n", c, (unsigned long long)g[i].count,
			       share(g[i].count, cp->with_stack), ++k);
			text_stack(x, g[i].stack, "                             ");
		}
	}
	return 0;
}

static int text_tops(struct ctx *x)
{
	int ncpus = x->s->ncpus;
	size_t m;
	const struct ipt_report_pair *p = ipt_report_pairs(x->r, &m);
	char a[160], b[160];

	if (text_groups(x))
		return -1;
	printf("\nTop (call site, function) per target CPU\n");
	if (x->wide) {
		printf("  (%d CPUs: see the IPIs to each role above; -t 0 lists every CPU)\n", ncpus);
		return text_stacks(x);
	}
	for (int c = 0; c < ncpus; c++) {
		size_t shown_c = 0;

		for (size_t i = 0; i < m && (!x->top || shown_c < (size_t)x->top); i++) {
			if (p[i].target_cpu != c)
				continue;
			ipt_trace_format_symbol(x->t, p[i].callsite, true, a, sizeof(a));
			ipt_trace_format_function(x->t, p[i].function, b, sizeof(b));
			printf("  cpu %-4d %9llu  %s -> %s\n", c, (unsigned long long)p[i].count, a, b);
			shown_c++;
		}
	}
	return text_stacks(x);
}

/* text_matrix_roles - the sender x target counts between roles, and the
 * busiest pairs of CPUs */
static void text_matrix_roles(const struct ctx *x, const struct ipt_report_cell *e, size_t n)
{
	uint64_t cell[2][2] = { { 0 } };

	if (x->iso && ipt_cpuset_weight(&x->hk) < (unsigned int)x->s->ncpus) {
		for (size_t i = 0; i < n; i++)
			cell[is_iso(x, e[i].src_cpu)][is_iso(x, e[i].target_cpu)] += e[i].count;
		printf("  by role (rows: sending, columns: target)\n  %14s %14s %14s\n", "", "housekeeping",
		       "isolated");
		for (int i = 0; i < 2; i++)
			printf("  %14s %14llu %14llu\n", i ? "isolated" : "housekeeping",
			       (unsigned long long)cell[i][0], (unsigned long long)cell[i][1]);
	}
	printf("  the busiest pairs (sending CPU -> target CPU):\n");
	for (size_t i = 0; i < n && i < (size_t)x->top; i++)	/* the table is sorted by count */
		printf("    %9llu  cpu %d -> cpu %d%s\n", (unsigned long long)e[i].count, e[i].src_cpu, e[i].target_cpu,
		       is_iso(x, e[i].target_cpu) ? " (isolated)" : "");
	more_line(n > (size_t)x->top ? n - (size_t)x->top : 0, "pairs");
}

/* text_matrix - sender x target counts; CPUs grouped when there are many */
static void text_matrix(struct ctx *x)
{
	int ncpus = x->s->ncpus, group = 1, ng, empty = 0;
	size_t n;
	const struct ipt_report_cell *e = ipt_report_matrix(x->r, &n);
	uint64_t *cell;

	while ((ncpus + group - 1) / group > (x->wide ? CPU_TABLE_ALL_UP_TO : 64))
		group *= 2;
	ng = (ncpus + group - 1) / group;
	cell = calloc((size_t)ng * (size_t)ng, sizeof(*cell));
	if (!cell)
		return;
	for (size_t i = 0; i < n; i++)
		cell[(size_t)(e[i].src_cpu / group) * (size_t)ng + (size_t)(e[i].target_cpu / group)] += e[i].count;
	printf("\nSender x target matrix (rows: sending CPU%s, columns: target CPU%s)\n",
	       group > 1 ? " group" : "", group > 1 ? " group" : "");
	if (group > 1)
		printf("  (groups of %d CPUs: group g is CPUs %d*g .. %d*g+%d)\n", group, group, group, group - 1);
	printf("  %6s", "");
	for (int j = 0; j < ng; j++)
		printf(" %8d", j);
	printf("\n");
	for (int i = 0; i < ng; i++) {
		uint64_t sum = 0;

		for (int j = 0; j < ng; j++)
			sum += cell[(size_t)i * (size_t)ng + (size_t)j];
		if (!sum && x->wide) {
			empty++;
			continue;
		}
		printf("  %6d", i);
		for (int j = 0; j < ng; j++)
			printf(" %8llu", (unsigned long long)cell[(size_t)i * (size_t)ng + (size_t)j]);
		printf("\n");
	}
	free(cell);
	if (empty)
		printf("  (%d sending CPU group%s with no IPI left out)\n", empty, empty == 1 ? "" : "s");
	if (x->wide)
		text_matrix_roles(x, e, n);
}

/* text_unsent - the interrupts that served no traced send, with causes */
static void text_unsent(const struct ctx *x)
{
	size_t n;
	const struct ipt_report_unsent *u = ipt_report_unsent(x->r, &n);
	bool seen[IPT_UNSENT__COUNT] = { false };
	uint64_t *w = NULL;
	bool *shown = NULL;
	size_t more = 0;

	if (!n)
		return;
	if (n > CPU_TABLE_ALL_UP_TO && (w = calloc(n, sizeof(*w))) && (shown = calloc(n, sizeof(*shown)))) {
		for (size_t i = 0; i < n; i++)
			w[i] = u[i].count;
		busiest(w, n, (size_t)x->top, shown);
	}
	printf("  interrupts with no traced send, per CPU and vector, by cause%s:\n",
	       shown && x->top ? " (the busiest)" : "");
	for (size_t i = 0; i < n; i++) {
		bool first = true;

		if (shown && !shown[i]) {
			more++;
			continue;
		}
		printf("    cpu %-4d %-22s %8llu:", u[i].cpu, u[i].vector, (unsigned long long)u[i].count);
		for (int k = 0; k < IPT_UNSENT__COUNT; k++) {
			if (!u[i].by_cause[k])
				continue;
			printf("%s %s %llu", first ? "" : ",", ipt_unsent_cause_name((enum ipt_unsent_cause)k),
			       (unsigned long long)u[i].by_cause[k]);
			first = false;
			seen[k] = true;
		}
		printf("\n");
	}
	more_line(more, "CPU and vector rows");
	free(w);
	free(shown);
	for (int k = 0; k < IPT_UNSENT__COUNT; k++)	/* the causes above, what they mean */
		if (seen[k])
			printf("    (%s: %s)\n", ipt_unsent_cause_name((enum ipt_unsent_cause)k),
			       ipt_unsent_cause_what((enum ipt_unsent_cause)k));
}

static void text_csd(const struct ctx *x);

static void text_matching(struct ctx *x)
{
	const struct ipt_report_summary *r = x->s;

	printf("\nMatching sends to handlers\n");
	if (!r->receive_events) {
		printf("  no receive events in this trace (irq_vectors:*_entry or ipi:ipi_entry):"
		       " nothing to match\n");
		return;
	}
	printf("  remote IPIs matched to a handler: %llu of %llu (%.2f%%)\n",
	       (unsigned long long)r->remote_matched, (unsigned long long)r->remote,
	       r->remote ? 100.0 * (double)r->remote_matched / (double)r->remote : 100.0);
	printf("  IPIs served by an interrupt that served an earlier one (coalesced): %llu\n",
	       (unsigned long long)r->coalesced);
	printf("  IPI interrupts %llu, with no traced send %llu; csd calls matched by pointer %llu\n",
	       (unsigned long long)r->handlers, (unsigned long long)r->handlers_unattributed,
	       (unsigned long long)r->csd_runs);
	if (r->csd_set_aside)
		printf("  csd calls not paired, events lost on the target in between: %llu\n",
		       (unsigned long long)r->csd_set_aside);
	printf("  unmatched: trace ended %llu, receive events not recorded %llu, lost events %llu,"
	       " no handler seen %llu\n",
	       (unsigned long long)r->unmatched_trace_ended, (unsigned long long)r->unmatched_no_receive_events,
	       (unsigned long long)r->unmatched_lost_events, (unsigned long long)r->unmatched_no_handler);
	text_unsent(x);
	text_csd(x);
}

/* text_csd - csd queue -> run and run times per target CPU (the busiest
 * when there are many) */
static void text_csd(const struct ctx *x)
{
	int n = x->s->ncpus;
	uint64_t *w = calloc((size_t)n + 1, sizeof(*w));
	bool *shown = calloc((size_t)n + 1, sizeof(*shown));
	size_t rows = 0, more = 0;

	if (!w || !shown)
		goto out;
	for (int c = 0; c < n; c++)
		rows += (w[c] = ipt_report_cpu(x->r, c)->csd_runs) != 0;
	if (!rows)
		goto out;
	busiest(w, (size_t)n, rows > CPU_TABLE_ALL_UP_TO ? (size_t)x->top : 0, shown);
	printf("  csd calls per target CPU (us): %s\n", "queue -> run p50, p99, max; run p50, p99, max");
	for (int c = 0; c < n; c++) {
		const struct ipt_report_cpu *cp = ipt_report_cpu(x->r, c);
		char h1[40], h2[40];

		if (!cp->csd_runs)
			continue;
		if (!shown[c]) {
			more++;
			continue;
		}
		printf("    cpu %-4d %9llu runs  queue->run%s  run%s\n", c, (unsigned long long)cp->csd_runs,
		       hist3(x, cp->csd_queue_to_run, h1, sizeof(h1)), hist3(x, cp->csd_run, h2, sizeof(h2)));
	}
	more_line(more, "CPUs that ran csd calls");
out:
	free(w);
	free(shown);
}

/* text_isolated_unsent - the interrupts on isolated CPUs that served no send */
static void text_isolated_unsent(const struct ctx *x, const char *list)
{
	size_t n;
	const struct ipt_report_isolated_unsent *v = ipt_report_isolated_unsent(x->r, &n);

	printf("\nIPI interrupts on isolated CPUs %s with no traced send: %zu\n", list, n);
	if (!n)
		return;
	printf("  %-16s %4s %-22s %-22s %-20s %9s\n", "time", "cpu", "vector", "interrupted task", "cause",
	       "hdl_us");
	for (size_t i = 0; i < n; i++) {
		struct ipt_strbuf sb = IPT_STRBUF_INIT;
		char task[64], hdl[24];

		ipt_render_ts(x->t, v[i].ts, &sb);
		snprintf(task, sizeof(task), "%s-%d", ipt_trace_comm(x->t, v[i].pid), v[i].pid);
		if (v[i].handler >= 0 && x->ns)
			snprintf(hdl, sizeof(hdl), "%.1f", us((uint64_t)v[i].handler));
		else
			snprintf(hdl, sizeof(hdl), "-");
		printf("  %-16s %4d %-22s %-22s %-20s %9s\n", ipt_strbuf_str(&sb), v[i].cpu, v[i].vector, task,
		       ipt_unsent_cause_name(v[i].cause), hdl);
		ipt_strbuf_free(&sb);
	}
}

/* The listing of the IPIs to isolated CPUs, unless --all: the first ones
 * and the slowest of the rest. */
#define ISO_FIRST 20
#define ISO_SLOWEST 20

static const struct ipt_report_isolated *iso_v;	/* for the comparisons below */

/* cmp_stack - by the frames of the entries' stacks, then by index */
static int cmp_stack(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct ipt_report_isolated *p = &iso_v[i], *q = &iso_v[j];

	if (p->nstack != q->nstack)
		return p->nstack < q->nstack ? -1 : 1;
	for (uint32_t k = 0; k < p->nstack; k++)
		if (p->stack[k] != q->stack[k])
			return p->stack[k] < q->stack[k] ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* cmp_slow - the largest latency first, then by index */
static int cmp_slow(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (iso_v[i].latency != iso_v[j].latency)
		return iso_v[i].latency < iso_v[j].latency ? 1 : -1;
	return i < j ? -1 : i > j;
}

/* iso_listed - which entries the listing shows: all, or the first ones and
 * the slowest of the rest; returns how many */
static size_t iso_listed(const struct ipt_report_isolated *v, size_t n, bool all, bool *shown)
{
	size_t *idx, k = 0;

	for (size_t i = 0; i < n; i++)
		shown[i] = all || n <= ISO_FIRST + ISO_SLOWEST || i < ISO_FIRST;
	if (all || n <= ISO_FIRST + ISO_SLOWEST)
		return n;
	if (!(idx = malloc((n - ISO_FIRST) * sizeof(*idx))))
		return ISO_FIRST;
	for (size_t i = ISO_FIRST; i < n; i++)
		if (v[i].latency >= 0)
			idx[k++] = i;
	iso_v = v;
	qsort(idx, k, sizeof(*idx), cmp_slow);
	for (size_t i = 0; i < k && i < ISO_SLOWEST; i++)
		shown[idx[i]] = true;
	free(idx);
	return ISO_FIRST + (k < ISO_SLOWEST ? k : ISO_SLOWEST);
}

/* same_stack - whether entries i and j have the same frames */
static bool same_stack(const struct ipt_report_isolated *v, size_t i, size_t j)
{
	return v[i].nstack == v[j].nstack && !memcmp(v[i].stack, v[j].stack, v[i].nstack * sizeof(uint64_t));
}

/* iso_stack_ids - sid[i]: the number of entry i's stack among the distinct
 * stacks of the entries shown, in order of first appearance (0: none);
 * first[g] is the first entry with stack g + 1.  Returns how many. */
static size_t iso_stack_ids(const struct ipt_report_isolated *v, size_t n, const bool *shown, size_t *sid,
			    size_t *first)
{
	size_t *idx = malloc((n + 1) * sizeof(*idx)), *lead = malloc((n + 1) * sizeof(*lead)), k = 0, ng = 0;

	memset(sid, 0, n * sizeof(*sid));
	if (!idx || !lead)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (shown[i] && v[i].stack)
			idx[k++] = i;
	iso_v = v;
	qsort(idx, k, sizeof(*idx), cmp_stack);
	/* equal stacks are together, the first entry of each run leads it */
	for (size_t i = 0; i < k; i++)
		lead[idx[i]] = i && same_stack(v, idx[i - 1], idx[i]) ? lead[idx[i - 1]] : idx[i];
	for (size_t i = 0; i < n; i++) {
		if (!shown[i] || !v[i].stack)
			continue;
		if (lead[i] == i) {
			first[ng] = i;
			sid[i] = ++ng;
		} else {
			sid[i] = sid[lead[i]];	/* its leader comes earlier */
		}
	}
out:
	free(idx);
	free(lead);
	return ng;
}

/* text_isolated_row - one IPI of the listing */
static void text_isolated_row(const struct ctx *x, const struct ipt_report_isolated *e, size_t sid)
{
	char task[64], ts[32], lat[24], hdl[24], st[24], a[160], b[160];
	struct ipt_strbuf sb = IPT_STRBUF_INIT;

	ipt_render_ts(x->t, e->ts, &sb);
	snprintf(ts, sizeof(ts), "%s", ipt_strbuf_str(&sb));
	ipt_strbuf_free(&sb);
	snprintf(task, sizeof(task), "%s-%d", ipt_trace_comm(x->t, e->pid), e->pid);
	ipt_trace_format_symbol(x->t, e->callsite, true, a, sizeof(a));
	ipt_trace_format_function(x->t, e->func ? e->func : e->callback, b, sizeof(b));
	if (e->latency >= 0 && x->ns)
		snprintf(lat, sizeof(lat), "%.1f", us((uint64_t)e->latency));
	else if (e->matched && !x->ns)
		snprintf(lat, sizeof(lat), "-");
	else
		snprintf(lat, sizeof(lat), e->matched ? "n/a" : "unmatched");
	if (e->handler >= 0 && x->ns)
		snprintf(hdl, sizeof(hdl), "%.1f", us((uint64_t)e->handler));
	else
		snprintf(hdl, sizeof(hdl), "-");
	if (sid)
		snprintf(st, sizeof(st), "%zu", sid);
	else
		snprintf(st, sizeof(st), "-");
	printf("  %-16s %4d %4d %-22.22s %-34.34s %-26.26s %-10s %9s %9s %5s\n", ts, e->src_cpu, e->target_cpu, task,
	       a, b, ipt_kind_name(e->kind), lat, hdl, st);
}

static void text_isolated(struct ctx *x, const struct ipt_cpuset *iso, bool all)
{
	size_t niso, nshown, nst;
	bool slow_said = false;
	const struct ipt_report_isolated *v = ipt_report_isolated(x->r, &niso);
	char list[96];
	bool *shown = calloc(niso + 1, sizeof(*shown));
	size_t *sid = calloc(niso + 1, sizeof(*sid)), *first = calloc(niso + 1, sizeof(*first));

	cpu_list_short(iso, list, sizeof(list), 60);
	printf("\nIPIs that reached isolated CPUs %s: %zu\n", list, niso);
	if (!niso || !shown || !sid || !first)
		goto out;
	nshown = iso_listed(v, niso, all, shown);
	nst = iso_stack_ids(v, niso, shown, sid, first);
	if (nshown < niso)
		printf("  (the first %d in time order, then the %zu slowest of the other %zu;"
		       " --all lists every one)\n", ISO_FIRST, nshown - ISO_FIRST, niso - ISO_FIRST);
	printf("  %-16s %4s %4s %-22s %-34s %-26s %-10s %9s %9s %5s\n", "time", "from", "to", "task",
	       "call site", "function", "kind", "lat_us", "hdl_us", "stack");
	for (size_t i = 0; i < niso; i++) {
		if (!shown[i])
			continue;
		if (i >= ISO_FIRST && nshown < niso && !slow_said) {
			printf("  ... the %zu slowest of the other %zu, in time order:\n", nshown - ISO_FIRST,
			       niso - ISO_FIRST);
			slow_said = true;
		}
		text_isolated_row(x, &v[i], sid[i]);
	}
	if (nst)
		printf("  their stacks (tracing frames trimmed), by the number above:\n");
	for (size_t g = 0; g < nst; g++) {
		const struct ipt_report_isolated *e = &v[first[g]];
		struct ipt_report_stack st = { e->stack, e->nstack, 0 };

		printf("    stack %zu\n", g + 1);
		text_stack(x, &st, "      => ");
	}
out:
	free(shown);
	free(sid);
	free(first);
	text_isolated_unsent(x, list);
}

/* text_spikes - a latency recording's spikes in brief (`explain` lists
 * each): per CPU the worst 10 samples, their IPI, noise and unaccounted
 * time, and the senders by spike time.  Only for a latency recording: one
 * with the osnoise events beside timerlat's or osnoise's samples (record
 * --timerlat and --osnoise record both); every trace.dat holds ftrace's
 * timerlat format, and looking for samples would read the trace once more. */
static int text_spikes(const struct ctx *x, bool filtered)
{
	struct explain_summary m;
	struct ipt_spikes *sp;
	size_t n, over = 0, unknown = 0;

	if (!explain_latency_recording(x->t, x->ns))
		return 0;
	switch (explain_default_spikes(x->t, &sp, &m)) {
	case -1:
		return -1;
	case 0:
		printf("\nlatency spikes: none: %s\n", ipt_errmsg());
		return 0;
	}
	printf("\nlatency spikes: %s, the worst 10 per CPU%s (ipitrace explain lists each)\n",
	       explain_samples_kind(sp), filtered ? "; the whole trace: -F and --cpus do not apply" : "");
	n = ipt_spikes_count(sp);
	printf("  %4s %7s %10s %9s %10s %10s %14s\n", "cpu", "spikes", "worst us", "with IPIs", "IPI us", "noise us",
	       "unaccounted us");
	for (size_t i = 0; i < n;) {
		struct explain_cpu c;

		i = explain_cpu_sum(sp, i, &c);
		over += c.over;
		unknown += c.unknown;
		if (c.noise_known)
			printf("  %4d %7llu %10.1f %9llu %10.1f %10.1f %14.1f\n", c.cpu, (unsigned long long)c.spikes,
			       us(c.worst_ns), (unsigned long long)c.with_ipis, us(c.ipi_ns), us(c.noise_ns),
			       us(c.unaccounted_ns));
		else
			printf("  %4d %7llu %10.1f %9llu %10.1f %10s %14s\n", c.cpu, (unsigned long long)c.spikes,
			       us(c.worst_ns), (unsigned long long)c.with_ipis, us(c.ipi_ns), "?", "?");
	}
	if (unknown)
		printf("  ?: %zu spikes on CPUs with no osnoise noise events: their other interference is unknown\n",
		       unknown);
	if (over)
		printf("  %zu spikes list more net noise than their latency (local and trace clocks): no unaccounted "
		       "time counted for them\n", over);
	printf("  senders by IPI handler time inside spikes%s\n", m.full.n ? ":" : ": none");
	for (size_t j = 0; j < m.full.n && (!x->top || j < (size_t)x->top); j++)
		printf("  %10.1f us %6llu IPIs  %s\n", us(m.full.t[j].ns), (unsigned long long)m.full.t[j].ipis,
		       m.full.t[j].key);
	if (x->top && m.full.n > (size_t)x->top)
		more_line(m.full.n - (size_t)x->top, "senders");
	explain_summary_free(&m);
	ipt_spikes_free(sp);
	return 0;
}

int report_text(struct ipt_report *r, struct ipt_trace *t, const struct report_view *v, FILE *f)
{
	struct ctx x = { .r = r, .s = ipt_report_summary(r), .t = t, .top = v->top, .by = v->by,
			 .sort = v->sort, .ns = v->ns, .with_recorder = v->with_recorder,
			 .iso = v->isolated, .iso_from = v->isolated_from };
	int ret = 1;

	(void)f;	/* stdout: the printers write there */
	ipt_cpuset_init(&x.hk);
	for (int c = 0; c < x.s->ncpus; c++)
		if (!is_iso(&x, c) && ipt_cpuset_add(&x.hk, (unsigned int)c) < 0)
			goto nomem;
	x.wide = x.top && x.s->ncpus > CPU_TABLE_ALL_UP_TO;
	if (text_summary(&x) || text_roles(&x))
		goto nomem;
	text_per_cpu(&x);
	if (text_tops(&x)) {
		err_msg("%s", ipt_errmsg());
		goto out;
	}
	text_matrix(&x);
	text_matching(&x);
	text_kernel(&x);
	if (v->isolated)
		text_isolated(&x, v->isolated, v->all_isolated);
	if (text_spikes(&x, v->filtered)) {
		err_msg("%s", ipt_errmsg());
		goto out;
	}
	ret = 0;
	goto out;
nomem:
	err_msg("out of memory");
out:
	ipt_cpuset_free(&x.hk);
	return ret;
}
