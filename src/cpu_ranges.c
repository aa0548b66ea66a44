// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cpu_ranges.c - per-CPU figures of machines with many CPUs, readable in a
 * terminal
 */
#include "cpu_ranges.h"

#include <stdlib.h>
#include <string.h>

const char *cpu_list_short(const struct ipt_cpuset *set, char *buf, size_t size, size_t width)
{
	size_t len = ipt_cpuset_format_list(set, buf, size), cut;
	char *comma;

	if (len < size && len <= width)
		return buf;
	cut = width < size ? width : size - 1;
	buf[cut] = 0;
	comma = strrchr(buf, ',');
	if (comma)
		*comma = 0;
	len = strlen(buf);
	snprintf(buf + len, size - len, "%s... (%u CPUs)", len ? "," : "", ipt_cpuset_weight(set));
	return buf;
}

struct weighted {
	uint64_t w;
	size_t i;
};

static int cmp_weighted(const void *a, const void *b)
{
	const struct weighted *x = a, *y = b;

	if (x->w != y->w)
		return x->w < y->w ? 1 : -1;
	return x->i < y->i ? -1 : x->i > y->i;
}

size_t busiest(const uint64_t *weight, size_t n, size_t top, bool *shown)
{
	struct weighted *v;

	if (!top || top >= n) {
		for (size_t i = 0; i < n; i++)
			shown[i] = true;
		return n;
	}
	for (size_t i = 0; i < n; i++)
		shown[i] = false;
	v = malloc(n * sizeof(*v));
	if (!v) {	/* no order to go by: the first ones */
		for (size_t i = 0; i < top; i++)
			shown[i] = true;
		return top;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = (struct weighted){ weight[i], i };
	qsort(v, n, sizeof(*v), cmp_weighted);
	for (size_t i = 0; i < top; i++)
		shown[v[i].i] = true;
	free(v);
	return top;
}

#define MAX_VALUES 8

/* put - part s on the line, wrapping under TEXT_WIDTH; *col is the column */
static void put(FILE *f, const char *s, const char *indent, size_t *col, bool first)
{
	size_t len = strlen(s) + (first ? 1 : 2);

	if (!first && *col + len > TEXT_WIDTH - 2) {
		fprintf(f, ",\n%s%s", indent, s);
		*col = strlen(indent) + strlen(s);
		return;
	}
	fprintf(f, "%s%s", first ? " " : ", ", s);
	*col += len;
}

int print_cpu_values(FILE *f, const char *label, const char *const *values, int ncpus, const char *indent)
{
	struct ipt_cpuset cpus[MAX_VALUES + 1];	/* the last: the other values */
	const char *val[MAX_VALUES];
	int nv = 0, ret = 0;
	size_t col = strlen(label);
	char list[96], part[160];

	for (int i = 0; i <= MAX_VALUES; i++)
		ipt_cpuset_init(&cpus[i]);
	for (int c = 0; c < ncpus && !ret; c++) {
		int k = 0;

		if (!values[c])
			continue;
		while (k < nv && strcmp(val[k], values[c]))
			k++;
		if (k == nv && nv < MAX_VALUES)
			val[nv++] = values[c];
		ret = ipt_cpuset_add(&cpus[k], (unsigned int)c) < 0 ? -1 : 0;
	}
	fprintf(f, "%s", label);
	for (int k = 0; k < nv && !ret; k++) {
		snprintf(part, sizeof(part), "%s on %s", val[k], cpu_list_short(&cpus[k], list, sizeof(list), 60));
		put(f, part, indent, &col, k == 0);
	}
	if (!ret && !ipt_cpuset_empty(&cpus[MAX_VALUES])) {
		snprintf(part, sizeof(part), "other values on %s (--format json gives each CPU)",
			 cpu_list_short(&cpus[MAX_VALUES], list, sizeof(list), 60));
		put(f, part, indent, &col, false);
	}
	if (!nv)
		fprintf(f, " none");
	for (int i = 0; i <= MAX_VALUES; i++)
		ipt_cpuset_free(&cpus[i]);
	return ret;
}

void cpu_unit_add(struct cpu_unit *u, size_t *n, int c, bool iso)
{
	struct cpu_unit *w = &u[*n];

	w->first = w->last = c;
	w->iso = iso;
	if (*n && u[*n - 1].last == c - 1 && u[*n - 1].iso == iso && !strcmp(u[*n - 1].text, w->text))
		u[*n - 1].last = c;
	else
		(*n)++;
}

int busiest_units(const struct ipt_report *r, const struct cpu_unit *u, size_t n, size_t top, bool *shown)
{
	uint64_t *w = calloc(n + 1, sizeof(*w));
	bool *pick = calloc(n + 1, sizeof(*pick));

	if (!w || !pick) {
		free(w);
		free(pick);
		return -1;
	}
	for (int role = 1; role >= 0; role--) {	/* the isolated ones, then the rest */
		size_t m = 0;

		for (size_t i = 0; i < n; i++)
			if (u[i].iso == role)
				w[m++] = ipt_report_cpu(r, u[i].first)->ipis;
		busiest(w, m, top, pick);
		m = 0;
		for (size_t i = 0; i < n; i++)
			if (u[i].iso == role)
				shown[i] = pick[m++];
	}
	free(w);
	free(pick);
	return 0;
}
