/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpu_ranges.h - per-CPU figures of machines with many CPUs, readable in a
 * terminal: CPU lists cut to a width, the CPUs with the same value
 * together, the N busiest of a table
 */
#ifndef IPT_CPU_RANGES_H
#define IPT_CPU_RANGES_H

#include "ipitrace.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Above this many rows a per-CPU table is cut to the busiest (-t N). */
#define CPU_TABLE_ALL_UP_TO 16
/* The widest line of the text report. */
#define TEXT_WIDTH 160

/* Each CPU c of set below ncpus, in order. */
#define for_each_cpu_of(c, set, ncpus) \
	for (int c = ipt_cpuset_next(set, 0); c >= 0 && c < (ncpus); c = ipt_cpuset_next(set, (unsigned int)c + 1))

/*
 * cpu_list_short - set as a CPU list ("0-2,5") of at most width
 * characters: past that, cut at a comma and ended with ",... (N CPUs)".
 * buf needs width + 32 bytes.  Returns buf.
 */
const char *cpu_list_short(const struct ipt_cpuset *set, char *buf, size_t size, size_t width);

/*
 * busiest - mark in shown[] the top entries of largest weight (top 0:
 * all of them; ties go to the lower index).  Returns how many are marked.
 */
size_t busiest(const uint64_t *weight, size_t n, size_t top, bool *shown);

/* A row of a per-CPU table of many CPUs: consecutive CPUs of one role with
 * the same figures (text: the row as shown), as one range. */
struct cpu_unit {
	int first, last;
	bool iso;
	char text[512];
};

/* cpu_unit_add - CPU c (its role and row text) after the units u[0..*n):
 * merged into the last one when it is c - 1's, of the same role and text */
void cpu_unit_add(struct cpu_unit *u, size_t *n, int c, bool iso);

/*
 * busiest_units - mark in shown[] (n entries) the top units of each role
 * by their CPUs' IPIs (each CPU of a unit has the same figures), the
 * isolated ones and the others apart.  -1 if out of memory.
 */
int busiest_units(const struct ipt_report *r, const struct cpu_unit *u, size_t n, size_t top, bool *shown);

/*
 * print_cpu_values - "LABEL 0 on 0-2, unknown on 3-8191": the CPUs with the
 * same value together, in the order of their first CPU; values[c] NULL
 * leaves CPU c out.  Lines are wrapped under TEXT_WIDTH with indent; past 8
 * different values the rest are named as CPUs only.  -1 if out of memory.
 */
int print_cpu_values(FILE *f, const char *label, const char *const *values, int ncpus, const char *indent);

#endif
