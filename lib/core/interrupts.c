// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * interrupts.c - the kernel's interrupt counters (/proc/interrupts) that
 * `ipitrace record` stores at four points of a recording (the private
 * option IPT_OPTION_INTERRUPTS, see core.h), parsed once, on first use.
 *
 * /proc/interrupts: a header naming the online CPUs ("CPU0 CPU1 ..."),
 * then one row per interrupt: "NAME:", a count per CPU column, and a
 * description.  Rows of numbered device interrupts are kept too; the
 * report only asks for the IPI rows (x86 RES, CAL, TLB, IWI; arm64 IPIn).
 */
#include "core/core.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct irq_row {
	char *name, *desc;
	uint64_t *count;		/* per column */
	int ncount;			/* columns read (a row may have fewer) */
};

struct irq_point {
	bool present;
	int ncol;
	int *cpu;			/* CPU of each column */
	size_t capcol;
	struct irq_row *row;
	int nrow;
	size_t caprow;
};

struct ipt_irq_table {
	struct irq_point p[IPT_IRQ__POINTS];
};

static const char *const point_names[IPT_IRQ__POINTS] = {
	[IPT_IRQ_BEFORE_SETUP] = "before_setup",
	[IPT_IRQ_TRACING_ON] = "tracing_on",
	[IPT_IRQ_TRACING_OFF] = "tracing_off",
	[IPT_IRQ_AFTER_TEARDOWN] = "after_teardown",
};

const char *ipt_irq_point_name(enum ipt_irq_point p)
{
	return (int)p >= 0 && p < IPT_IRQ__POINTS ? point_names[p] : NULL;
}

static void point_free(struct irq_point *pt)
{
	for (int i = 0; i < pt->nrow; i++) {
		free(pt->row[i].name);
		free(pt->row[i].desc);
		free(pt->row[i].count);
	}
	free(pt->row);
	free(pt->cpu);
	memset(pt, 0, sizeof(*pt));
}

void ipt_irq_table_free(struct ipt_irq_table *tab)
{
	if (!tab)
		return;
	for (int i = 0; i < IPT_IRQ__POINTS; i++)
		point_free(&tab->p[i]);
	free(tab);
}

/* parse_header - "   CPU0  CPU1 ..." into the columns' CPUs */
static int parse_header(struct irq_point *pt, const char *s, const char *e)
{
	while (s < e) {
		char *end;
		long cpu;

		while (s < e && isspace((unsigned char)*s))
			s++;
		if (e - s < 4 || strncmp(s, "CPU", 3))
			break;
		cpu = strtol(s + 3, &end, 10);
		if (end == s + 3 || end > e || cpu < 0 || cpu >= IPT_CPUSET_MAX)
			break;
		if (IPT_GROW(pt->cpu, pt->capcol, (size_t)pt->ncol + 1))
			return -1;
		pt->cpu[pt->ncol++] = (int)cpu;
		s = end;
	}
	return 0;
}

/* parse_row - "NAME: n n n description" */
static int parse_row(struct irq_point *pt, const char *s, const char *e)
{
	const char *colon = memchr(s, ':', (size_t)(e - s)), *n0 = s;
	struct irq_row *r;

	if (!colon)
		return 0;
	while (n0 < colon && isspace((unsigned char)*n0))
		n0++;
	if (n0 == colon)
		return 0;
	if (IPT_GROW(pt->row, pt->caprow, (size_t)pt->nrow + 1))
		return -1;
	r = &pt->row[pt->nrow++];
	memset(r, 0, sizeof(*r));
	if (!(r->name = strndup(n0, (size_t)(colon - n0))) ||
	    !(r->count = ipt_calloc((size_t)(pt->ncol ? pt->ncol : 1), sizeof(*r->count))))
		return ipt_err_code(IPT_ERR_NOMEM, "out of memory");
	s = colon + 1;
	while (r->ncount < pt->ncol) {
		char *end;
		unsigned long long c;

		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		if (s >= e || !isdigit((unsigned char)*s))
			break;
		c = strtoull(s, &end, 10);
		if (end > e)
			break;
		r->count[r->ncount++] = c;
		s = end;
	}
	while (s < e && isspace((unsigned char)*s))
		s++;
	if (!(r->desc = strndup(s, (size_t)(e - s))))
		return ipt_err_code(IPT_ERR_NOMEM, "out of memory");
	return 0;
}

/* parse_point - one stored copy of the file, text up to end */
static int parse_point(struct irq_point *pt, const char *s, const char *end)
{
	bool header = true;

	pt->present = true;
	while (s < end) {
		const char *e = memchr(s, '\n', (size_t)(end - s));

		if (!e)
			e = end;
		if (header) {
			if (parse_header(pt, s, e))
				return -1;
			header = false;
		} else if (parse_row(pt, s, e)) {
			return -1;
		}
		s = e + 1;
	}
	return 0;
}

/* irq_table - the parsed option of t (made on first use), NULL if none */
static const struct ipt_irq_table *irq_table(const struct ipt_trace *t)
{
	struct ipt_trace *mt = (struct ipt_trace *)t;	/* a cache, not the trace's content */
	const char *s = t->interrupts_text;
	struct ipt_irq_table *tab;

	if (t->irq || !s || !*s)
		return t->irq;
	tab = ipt_calloc(1, sizeof(*tab));
	if (!tab)
		return NULL;
	while ((s = strchr(s, '@'))) {
		const char *nl = strchr(s, '\n'), *next;
		int k = -1;

		if (!nl)
			break;
		for (int i = 0; i < IPT_IRQ__POINTS; i++)
			if ((size_t)(nl - s - 1) == strlen(point_names[i]) &&
			    !strncmp(s + 1, point_names[i], (size_t)(nl - s - 1)))
				k = i;
		next = strstr(nl, "\n@");
		if (!next)
			next = nl + strlen(nl);
		if (k >= 0 && !tab->p[k].present && parse_point(&tab->p[k], nl + 1, next)) {
			ipt_irq_table_free(tab);
			return NULL;
		}
		s = *next ? next + 1 : next;
	}
	mt->irq = tab;
	return tab;
}

static const struct irq_row *find_row(const struct irq_point *pt, const char *row)
{
	for (int i = 0; i < pt->nrow; i++)
		if (!strcmp(pt->row[i].name, row))
			return &pt->row[i];
	return NULL;
}

int64_t ipt_trace_irq_count(const struct ipt_trace *t, enum ipt_irq_point point, const char *row, int cpu)
{
	const struct ipt_irq_table *tab = irq_table(t);
	const struct irq_point *pt;
	const struct irq_row *r;

	if (!tab || (int)point < 0 || point >= IPT_IRQ__POINTS || !tab->p[point].present)
		return -1;
	pt = &tab->p[point];
	if (!(r = find_row(pt, row)))
		return -1;
	for (int c = 0; c < pt->ncol && c < r->ncount; c++)
		if (pt->cpu[c] == cpu)
			return (int64_t)r->count[c];
	return -1;
}

const char *ipt_trace_irq_desc(const struct ipt_trace *t, const char *row)
{
	const struct ipt_irq_table *tab = irq_table(t);

	for (int k = 0; tab && k < IPT_IRQ__POINTS; k++) {
		const struct irq_row *r = tab->p[k].present ? find_row(&tab->p[k], row) : NULL;

		if (r)
			return r->desc;
	}
	return NULL;
}

bool ipt_trace_has_irq_counts(const struct ipt_trace *t)
{
	const struct ipt_irq_table *tab = irq_table(t);

	for (int k = 0; tab && k < IPT_IRQ__POINTS; k++)
		if (tab->p[k].present)
			return true;
	return false;
}
