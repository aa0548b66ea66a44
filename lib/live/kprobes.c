// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kprobes.c - send events from dynamic probes where the kernel lacks
 * ipi:ipi_send_cpu and ipi:ipi_send_cpumask (before Linux 6.4)
 *
 * The targets of an IPI are known for certain only where the architecture
 * sends it: the send hooks (x86: native_smp_send_reschedule,
 * native_send_call_func_single_ipi, native_send_call_func_ipi; elsewhere
 * smp_send_reschedule and arch_send_call_function_{single_ipi,ipi_mask}).
 * Their callers give the call site and the function run:
 * generic_exec_single(cpu, csd) (smp_call_function_single and _async; it
 * may have __smp_call_single_queue inlined) and
 * __smp_call_single_queue(cpu, node) for one CPU (the node's csd type and
 * function: flags at +8 and func at +16 of struct __call_single_data, the
 * layout since Linux 5.10 on 64-bit kernels) and
 * smp_call_function_many_cond(mask, func, ...) for several.  Each probe is
 * put on the first function of its list the kernel offers, never chosen
 * by version number; the decoder (ipi/ipi.c) joins a send hook to the
 * caller probe just before it on the same CPU.
 *
 * kprobe_events is shared by every user of the machine: it is only ever
 * appended to ("p:..." and "-:..." lines), never truncated.
 */
#include "live/live.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the call site: the return address on the stack at function entry (x86);
 * elsewhere the probes go without one.  Addresses are fetched as "symbol"
 * (a u64 printed with %pS): trace-cmd shows them by name */
#if defined(__x86_64__) || defined(__i386__)
#define CALLSITE " callsite=$stack0:symbol"
#else
#define CALLSITE ""
#endif

static const struct candidate {
	const char *name, *stands_for, *role, *target;
	const char *functions[3];
	const char *args;	/* %s: the mask words ("x64" or "x64[N]") */
} candidates[] = {
	{ "resched", "ipi:ipi_send_cpu", "send", "cpu",
	  { "native_smp_send_reschedule", "smp_send_reschedule" }, "cpu=$arg1:u32" CALLSITE },
	{ "call_single", "ipi:ipi_send_cpu", "send_call", "cpu",
	  { "native_send_call_func_single_ipi", "arch_send_call_function_single_ipi" },
	  "cpu=$arg1:u32" CALLSITE },
	{ "call_mask", "ipi:ipi_send_cpumask", "send_call", "cpumask",
	  { "native_send_call_func_ipi", "arch_send_call_function_ipi_mask" },
	  "cpumask=+0($arg1):%s" CALLSITE },
	{ "exec_single", "-", "queue", NULL, { "generic_exec_single" },
	  "cpu=$arg1:u32 flags=+8($arg2):u32 func=+16($arg2):symbol" CALLSITE },
	{ "queue", "-", "queue", NULL, { "__smp_call_single_queue" },
	  "cpu=$arg1:u32 flags=+8($arg2):u32 func=+16($arg2):symbol" CALLSITE },
	{ "many", "-", "many", NULL, { "smp_call_function_many_cond" },
	  "func=$arg2:symbol" CALLSITE },
};

#define NCAND ARRAY_SIZE(candidates)

struct ipt_kprobes {
	char tracefs[PATH_MAX];
	char group[32];
	struct ipt_kprobe p[NCAND];
	int n;
	struct ipt_strbuf option;
};

/* offered - function is a probe-able function of this kernel: a line of
 * available_filter_functions (text), else a text symbol of kallsyms */
static bool offered(const char *funcs, const char *kallsyms, const char *function)
{
	size_t n = strlen(function);

	if (funcs) {
		for (const char *l = funcs; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
			if (!strncmp(l, function, n) && (l[n] == '\n' || l[n] == ' ' || !l[n]))
				return true;
		return false;
	}
	/* "ADDR t NAME[\t[module]]" */
	for (const char *l = kallsyms; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *sp = strchr(l, ' '), *name;

		if (!sp || (sp[1] != 't' && sp[1] != 'T') || sp[2] != ' ')
			continue;
		name = sp + 3;
		if (!strncmp(name, function, n) && (name[n] == '\n' || name[n] == '\t' || !name[n]))
			return true;
	}
	return false;
}

/* mask_words - "x64" or "x64[N]" for the possible CPUs */
static void mask_words(char *buf, size_t size)
{
	struct ipt_cpuset possible;
	int last = -1, words;

	ipt_cpuset_init(&possible);
	if (!ipt_sysfs_cpulist("possible", &possible))
		for (int c = ipt_cpuset_next(&possible, 0); c >= 0;
		     c = ipt_cpuset_next(&possible, (unsigned int)c + 1))
			last = c;
	ipt_cpuset_free(&possible);
	words = last < 0 ? 1 : last / 64 + 1;
	if (words == 1)
		snprintf(buf, size, "x64");
	else
		snprintf(buf, size, "x64[%d]", words);
}

struct ipt_kprobes *ipt_kprobes_define(const char *tracefs, int pid,
				       void (*skipped)(const char *msg, void *arg), void *arg)
{
	char path[PATH_MAX + 32], words[32], args[256], line[PATH_MAX + 64], msg[PATH_MAX + 1024];
	char *funcs = NULL, *kallsyms = NULL;
	struct ipt_kprobes *k = ipt_calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	snprintf(k->tracefs, sizeof(k->tracefs), "%s", tracefs);
	snprintf(k->group, sizeof(k->group), IPT_KPROBE_PREFIX "%d", pid);
	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs);
	if (access(path, W_OK)) {
		if (skipped) {
			snprintf(msg, sizeof(msg), "no dynamic probes: %s: %s", path, strerror(errno));
			skipped(msg, arg);
		}
		return k;
	}
	snprintf(line, sizeof(line), "%s/available_filter_functions", tracefs);
	if (ipt_file_read(line, &funcs, NULL)) {
		funcs = NULL;
		if (ipt_file_read("/proc/kallsyms", &kallsyms, NULL)) {
			free(k);
			return NULL;
		}
	}
	mask_words(words, sizeof(words));
	for (size_t i = 0; i < NCAND; i++) {
		const struct candidate *c = &candidates[i];
		const char *fn = NULL;
		const char *why = "the kernel has none of its functions";

		for (int j = 0; j < 3 && c->functions[j] && !fn; j++) {
			if (!offered(funcs, kallsyms, c->functions[j]))
				continue;
			snprintf(args, sizeof(args), c->args, words);
			snprintf(line, sizeof(line), "p:%s/%s %s %s", k->group, c->name, c->functions[j], args);
			if (ipt_file_write(path, line)) {
				why = ipt_errmsg();
				continue;
			}
			fn = c->functions[j];
		}
		if (!fn) {
			if (skipped) {
				snprintf(msg, sizeof(msg), "no probe %s (%s): %s", c->name, c->functions[0], why);
				skipped(msg, arg);
			}
			continue;
		}
		k->p[k->n] = (struct ipt_kprobe){ k->group, c->name, fn, c->stands_for, c->role,
						  c->target, c->target != NULL };
		k->n++;
		if (ipt_strbuf_addf(&k->option, "%s:%s %s %s %s\n", k->group, c->name, c->stands_for,
				    c->role, fn)) {
			free(funcs);
			free(kallsyms);
			ipt_kprobes_remove(k);
			return NULL;
		}
	}
	free(funcs);
	free(kallsyms);
	return k;
}

int ipt_kprobes_count(const struct ipt_kprobes *k)
{
	return k ? k->n : 0;
}

const struct ipt_kprobe *ipt_kprobes_get(const struct ipt_kprobes *k, int i)
{
	return k && i >= 0 && i < k->n ? &k->p[i] : NULL;
}

const char *ipt_kprobes_option(const struct ipt_kprobes *k)
{
	return k && k->option.len ? k->option.buf : NULL;
}

/*
 * ipt_kprobes_count_missed - the kernel's hit and miss counts of the
 * probes (kprobe_profile: "NAME HITS MISSES", NAME with or without its
 * group), added to the option's lines as " hits=H missed=M"; the total
 * missed in *missed.  A probe another kprobe group names alike (a second
 * recorder at the same time) cannot be told apart in kernels that print
 * the name alone: its counts are added.
 */
int ipt_kprobes_count_missed(struct ipt_kprobes *k, uint64_t *missed)
{
	char path[PATH_MAX + 32], *text, *save = NULL;
	uint64_t hits[NCAND] = { 0 }, miss[NCAND] = { 0 };
	struct ipt_strbuf opt = IPT_STRBUF_INIT;
	const char *s;
	int i = 0;

	*missed = 0;
	if (!k || !k->n)
		return 0;
	snprintf(path, sizeof(path), "%s/kprobe_profile", k->tracefs);
	if (ipt_file_read(path, &text, NULL))
		return -1;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char name[256];
		unsigned long long h, m;
		const char *n;

		if (sscanf(l, " %255s %llu %llu", name, &h, &m) != 3)
			continue;
		n = strchr(name, '/');
		if (n && (strncmp(name, k->group, (size_t)(n - name)) || strlen(k->group) != (size_t)(n - name)))
			continue;
		n = n ? n + 1 : name;
		for (int j = 0; j < k->n; j++)
			if (!strcmp(n, k->p[j].name)) {
				hits[j] += h;
				miss[j] += m;
			}
	}
	free(text);
	/* the option again, each line with its counts */
	for (s = k->option.buf; s && *s && i < k->n; i++) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (ipt_strbuf_add(&opt, s, n) ||
		    ipt_strbuf_addf(&opt, " hits=%llu missed=%llu\n", (unsigned long long)hits[i],
				    (unsigned long long)miss[i])) {
			ipt_strbuf_free(&opt);
			return ipt_err_code(IPT_ERR_NOMEM, "out of memory");
		}
		*missed += miss[i];
		s += n + (e ? 1 : 0);
	}
	ipt_strbuf_free(&k->option);
	k->option = opt;
	return 0;
}

/* remove_one - "-:group/name" appended to kprobe_events */
static int remove_one(const char *tracefs, const char *group, const char *name)
{
	char path[PATH_MAX + 32], line[256];

	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs);
	snprintf(line, sizeof(line), "-:%s/%s", group, name);
	return ipt_file_write(path, line);
}

int ipt_kprobes_remove(struct ipt_kprobes *k)
{
	int ret = 0;

	if (!k)
		return 0;
	for (int i = k->n - 1; i >= 0; i--)
		if (remove_one(k->tracefs, k->group, k->p[i].name))
			ret = -1;
	ipt_strbuf_free(&k->option);
	free(k);
	return ret;
}

int ipt_kprobes_remove_stale(const char *tracefs,
			     void (*report)(const char *dir, void *arg), void *arg)
{
	char path[PATH_MAX + 32], *text, *save = NULL;
	int removed = 0;

	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs);
	if (access(path, R_OK) || ipt_file_read(path, &text, NULL))
		return 0;
	/* "p:GROUP/NAME FUNCTION ARGS" */
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *group = strchr(l, ':'), *slash, *end, what[300];

		if (!group || !(slash = strchr(group, '/')))
			continue;
		*slash = 0;
		group++;
		end = slash + 1 + strcspn(slash + 1, " ");
		*end = 0;
		if (!ipt_stale_pid(group, IPT_KPROBE_PREFIX) || remove_one(tracefs, group, slash + 1))
			continue;
		removed++;
		if (report) {
			snprintf(what, sizeof(what), "kprobe %s/%s", group, slash + 1);
			report(what, arg);
		}
	}
	free(text);
	return removed;
}
