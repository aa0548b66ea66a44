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
 * function: u_flags and func of struct __call_single_data, their offsets
 * from the kernel's BTF, else +8 and +16, the layout of 64-bit kernels
 * since 5.10) and
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
	const char *args;	/* %s: the mask words ("x64" or "x64[N]"); queue
				 * roles: %d %d the csd's flags and func offsets */
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
	  "cpu=$arg1:u32 flags=+%d($arg2):u32 func=+%d($arg2):symbol" CALLSITE },
	{ "queue", "-", "queue", NULL, { "__smp_call_single_queue" },
	  "cpu=$arg1:u32 flags=+%d($arg2):u32 func=+%d($arg2):symbol" CALLSITE },
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

/* ---- BTF: where a csd keeps its flags and function ---- */

struct btf {
	const uint8_t *types, *strs;
	uint32_t types_len, strs_len;
	uint32_t *off;		/* offset of type id i in types (1-based ids) */
	uint32_t n;
};

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* btf_extra - bytes after a type's 12-byte header, by kind; -1 unknown */
static long btf_extra(uint32_t info)
{
	uint32_t kind = (info >> 24) & 0x1f, vlen = info & 0xffff;

	switch (kind) {
	case 1: case 14: case 17: return 4;		/* INT, VAR, DECL_TAG */
	case 3: return 12;				/* ARRAY */
	case 4: case 5: case 15: case 19: return 12L * vlen;	/* STRUCT, UNION, DATASEC, ENUM64 */
	case 6: case 13: return 8L * vlen;		/* ENUM, FUNC_PROTO */
	case 2: case 7: case 8: case 9: case 10: case 11: case 12: case 16: case 18:
		return 0;
	default: return -1;
	}
}

static const char *btf_str(const struct btf *b, uint32_t off)
{
	return off < b->strs_len ? (const char *)b->strs + off : "";
}

/* btf_index - the offset of every type; -1 on a malformed file */
static int btf_index(struct btf *b, const uint8_t *d, size_t len)
{
	uint32_t hdr, toff, tlen, soff, slen, pos = 0, cap = 0;

	if (len < 24 || d[0] != 0x9f || d[1] != 0xeb)
		return -1;
	hdr = rd32(d + 4);
	toff = rd32(d + 8);
	tlen = rd32(d + 12);
	soff = rd32(d + 16);
	slen = rd32(d + 20);
	if (hdr > len || toff > len - hdr || tlen > len - hdr - toff || soff > len - hdr ||
	    slen > len - hdr - soff)
		return -1;
	b->types = d + hdr + toff;
	b->types_len = tlen;
	b->strs = d + hdr + soff;
	b->strs_len = slen;
	while (pos + 12 <= tlen) {
		long extra = btf_extra(rd32(b->types + pos + 4));

		if (extra < 0 || pos + 12 + (uint32_t)extra > tlen)
			return -1;
		if (IPT_GROW(b->off, cap, (size_t)b->n + 2))
			return -1;
		b->off[++b->n] = pos;
		pos += 12 + (uint32_t)extra;
	}
	return 0;
}

/* btf_member - the bit offset of member name in struct/union id (through
 * anonymous members), -1 if none */
static long btf_member(const struct btf *b, uint32_t id, const char *name, int depth)
{
	const uint8_t *t;
	uint32_t info, kind, vlen;

	if (!id || id > b->n || depth > 4)
		return -1;
	t = b->types + b->off[id];
	info = rd32(t + 4);
	kind = (info >> 24) & 0x1f;
	vlen = info & 0xffff;
	if (kind != 4 && kind != 5)
		return -1;
	for (uint32_t i = 0; i < vlen; i++) {
		const uint8_t *m = t + 12 + 12 * i;
		uint32_t bits = rd32(m + 8) & (info >> 31 ? 0xffffff : 0xffffffff);
		long inner;

		if (!strcmp(btf_str(b, rd32(m)), name))
			return bits;
		if (!rd32(m) && (inner = btf_member(b, rd32(m + 4), name, depth + 1)) >= 0)
			return bits + inner;
	}
	return -1;
}

/* btf_struct - the id of struct name, 0 if none */
static uint32_t btf_struct(const struct btf *b, const char *name)
{
	for (uint32_t id = 1; id <= b->n; id++) {
		const uint8_t *t = b->types + b->off[id];

		if (((rd32(t + 4) >> 24) & 0x1f) == 4 && !strcmp(btf_str(b, rd32(t)), name))
			return id;
	}
	return 0;
}

/*
 * ipt_btf_csd_layout - the byte offsets of a csd's flags (u_flags of struct
 * __call_single_node) and function (func of struct __call_single_data)
 * from the kernel's BTF: 1 found, 0 no BTF (the caller assumes), -1 BTF
 * without them (the callers' probes are left out)
 */
int ipt_btf_csd_layout(int *flags_off, int *func_off)
{
	struct btf b = { 0 };
	char *text = NULL;
	size_t len = 0;
	long fl, fn;
	int ret = -1;

	if (access("/sys/kernel/btf/vmlinux", R_OK) ||
	    ipt_file_read("/sys/kernel/btf/vmlinux", &text, &len))
		return 0;
	if (!btf_index(&b, (const uint8_t *)text, len)) {
		fl = btf_member(&b, btf_struct(&b, "__call_single_node"), "u_flags", 0);
		fn = btf_member(&b, btf_struct(&b, "__call_single_data"), "func", 0);
		if (fl >= 0 && fn >= 0 && fl % 8 == 0 && fn % 8 == 0) {
			*flags_off = (int)(fl / 8);
			*func_off = (int)(fn / 8);
			ret = 1;
		}
	}
	free(b.off);
	free(text);
	return ret;
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
	int layout, flags_off = 8, func_off = 16;
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
	/* the csd layout: from BTF, else that of 64-bit kernels since 5.10 */
	layout = ipt_btf_csd_layout(&flags_off, &func_off);
	if (layout == 0 && skipped)
		skipped("no BTF: the csd's flags and function read at +8 and +16 (64-bit kernels "
			"since 5.10)", arg);
	for (size_t i = 0; i < NCAND; i++) {
		const struct candidate *c = &candidates[i];
		const char *fn = NULL;
		const char *why = "the kernel has none of its functions";
		bool queue = !strcmp(c->role, "queue");

		if (queue && layout < 0) {
			if (skipped) {
				snprintf(msg, sizeof(msg), "no probe %s (%s): the BTF has no "
					 "__call_single_data.func or __call_single_node.u_flags",
					 c->name, c->functions[0]);
				skipped(msg, arg);
			}
			continue;
		}

		for (int j = 0; j < 3 && c->functions[j] && !fn; j++) {
			if (!offered(funcs, kallsyms, c->functions[j]))
				continue;
			if (queue)
				snprintf(args, sizeof(args), c->args, flags_off, func_off);
			else
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
