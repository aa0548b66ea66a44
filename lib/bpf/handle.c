// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * handle.c - what every kind of handle of lib/bpf/ shares (a local
 * attachment, counter.c; a client of a running serve, share.c; the tracefs
 * fallback, tracefs.c): names, snapshots and their difference, the lists,
 * the symbols, pinning, freeing.  It calls none of the three (they call it).
 */
#include "core/core.h"
#include "live/live.h"
#include "bpf/bpf_int.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const event_names[] = { "ipi_send_cpu", "ipi_send_cpumask", "csd_queue_cpu", "handler" };
static const char *const vector_names[] = { "reschedule", "call_function", "call_function_single",
					    "irq_work" };
static const char *const error_names[] = { "send_map_full", "send_update", "handler_map_full",
					   "mask_read", "exit_without_entry", "ring_full", "join_full",
					   "tracefs_lost" };

const char *ipt_counter_event_name(enum ipt_counter_event ev)
{
	return (unsigned int)ev < ARRAY_SIZE(event_names) ? event_names[ev] : "?";
}

const char *ipt_counter_vector_name(enum ipt_counter_vector v)
{
	return (unsigned int)v < IPT_COUNTER_NVECTORS ? vector_names[v] : "?";
}

const char *ipt_counter_error_name(enum ipt_counter_error e)
{
	return (unsigned int)e < IPT_COUNTER_NERRORS ? error_names[e] : "?";
}

void ipt_counter_snapshot_free(struct ipt_counter_snapshot *s)
{
	if (!s)
		return;
	free(s->sends);
	free(s->handlers);
	free(s);
}

/* send_key_cmp - the identity of a send entry (not its count) */
static int send_key_cmp(const struct ipt_counter_send *a, const struct ipt_counter_send *b)
{
	if (a->target != b->target)
		return a->target < b->target ? -1 : 1;
	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	if (a->event != b->event)
		return a->event < b->event ? -1 : 1;
	if (a->callsite != b->callsite)
		return a->callsite < b->callsite ? -1 : 1;
	if (a->addr2 != b->addr2)
		return a->addr2 < b->addr2 ? -1 : 1;
	if (a->func != b->func)
		return a->func < b->func ? -1 : 1;
	return strncmp(a->comm, b->comm, sizeof(a->comm));
}

static int send_key_qcmp(const void *a, const void *b)
{
	return send_key_cmp(a, b);
}

/* by target, then count descending, then key */
static int send_out_qcmp(const void *pa, const void *pb)
{
	const struct ipt_counter_send *a = pa, *b = pb;

	if (a->target != b->target)
		return a->target < b->target ? -1 : 1;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return send_key_cmp(a, b);
}

void ipt_counter_sort_sends(struct ipt_counter_snapshot *s)
{
	if (s->nsends)
		qsort(s->sends, s->nsends, sizeof(*s->sends), send_out_qcmp);
}

struct ipt_counter_snapshot *ipt_counter_snapshot_diff(const struct ipt_counter_snapshot *now,
					       const struct ipt_counter_snapshot *before)
{
	struct ipt_counter_snapshot *d = calloc(1, sizeof(*d));
	struct ipt_counter_send *old = NULL;
	size_t i, j;

	if (!d)
		goto nomem;
	d->time = now->time - before->time;
	if (now->nsends) {
		d->sends = calloc(now->nsends, sizeof(*d->sends));
		if (!d->sends)
			goto nomem;
	}
	if (before->nsends) {
		old = malloc(before->nsends * sizeof(*old));
		if (!old)
			goto nomem;
		memcpy(old, before->sends, before->nsends * sizeof(*old));
		qsort(old, before->nsends, sizeof(*old), send_key_qcmp);
	}
	for (i = 0; i < now->nsends; i++) {
		const struct ipt_counter_send *s = &now->sends[i];
		const struct ipt_counter_send *o = old ? bsearch(s, old, before->nsends, sizeof(*old),
							     send_key_qcmp) : NULL;
		uint64_t c = s->count - (o && o->count <= s->count ? o->count : 0);

		if (!c)
			continue;
		d->sends[d->nsends] = *s;
		d->sends[d->nsends++].count = c;
	}
	free(old);
	old = NULL;
	if (d->nsends)
		qsort(d->sends, d->nsends, sizeof(*d->sends), send_out_qcmp);
	if (now->nhandlers) {
		d->handlers = calloc(now->nhandlers, sizeof(*d->handlers));
		if (!d->handlers)
			goto nomem;
	}
	for (i = 0; i < now->nhandlers; i++) {
		const struct ipt_counter_handler *h = &now->handlers[i], *o = NULL;
		struct ipt_counter_handler *out = &d->handlers[d->nhandlers];

		for (j = 0; j < before->nhandlers && !o; j++)
			if (before->handlers[j].cpu == h->cpu && before->handlers[j].vector == h->vector)
				o = &before->handlers[j];
		*out = *h;
		if (o) {
			out->count -= o->count;
			out->sum_ns -= o->sum_ns;
			for (j = 0; j < IPT_COUNTER_HIST_SLOTS; j++)
				out->hist[j] -= o->hist[j];
		}
		if (out->count)
			d->nhandlers++;
	}
	for (i = 0; i < IPT_COUNTER_NERRORS; i++)
		d->errors[i] = now->errors[i] - before->errors[i];
	d->recursion_misses = now->recursion_misses - before->recursion_misses;
	return d;
nomem:
	free(old);
	ipt_counter_snapshot_free(d);
	ipt_err_code(IPT_ERR_NOMEM, "out of memory");
	return NULL;
}

const char *ipt_counter_attached(const struct ipt_counter *b) { return b->attached ? b->attached : ""; }
const char *ipt_counter_skipped(const struct ipt_counter *b) { return b->skipped ? b->skipped : ""; }
uint64_t ipt_counter_attach_ns(const struct ipt_counter *b) { return b->attach_ns; }
const struct ipt_cpuset *ipt_counter_pinned(const struct ipt_counter *b) { return &b->pin; }

const char *ipt_counter_symbol(const struct ipt_counter *b, uint64_t addr, uint64_t *offset)
{
	const struct ipt_sym *sym = addr ? ipt_symtab_lookup(&b->ksyms, addr) : NULL;

	if (!sym)
		return NULL;
	if (offset)
		*offset = addr - sym->addr;
	return sym->name;
}

/* pin - the calling thread onto the housekeeping CPUs */
int ipt_counter_pin(struct ipt_counter *b, const struct ipt_counter_opts *o)
{
	struct ipt_cpuset online = IPT_CPUSET_INIT, allowed = IPT_CPUSET_INIT;
	cpu_set_t set;
	int c, rc = -1;

	ipt_cpuset_init(&online);
	ipt_cpuset_init(&allowed);
	if (sched_getaffinity(0, sizeof(b->orig_affinity), &b->orig_affinity)) {
		ipt_err("sched_getaffinity: %s", strerror(errno));
		goto out;
	}
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &b->orig_affinity) && ipt_cpuset_add(&allowed, (unsigned int)c))
			goto out;
	if (o->housekeeping) {
		if (ipt_cpuset_copy(&b->pin, o->housekeeping))
			goto out;
	} else if (ipt_sysfs_cpulist("online", &online) ||
		   ipt_housekeeping_cpus(&b->pin, &online, &allowed)) {
		goto out;
	}
	CPU_ZERO(&set);
	for (c = ipt_cpuset_next(&b->pin, 0); c >= 0 && c < CPU_SETSIZE;
	     c = ipt_cpuset_next(&b->pin, (unsigned int)c + 1))
		CPU_SET(c, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		ipt_err("pinning to the housekeeping CPUs: %s", strerror(errno));
		goto out;
	}
	b->pinned = true;
	rc = 0;
out:
	ipt_cpuset_free(&online);
	ipt_cpuset_free(&allowed);
	return rc;
}

int ipt_counter_list_add(char **list, const char *name)
{
	char *p;

	if (asprintf(&p, "%s%s%s", *list ? *list : "", *list && **list ? "," : "", name) < 0)
		return ipt_err_code(IPT_ERR_NOMEM, "out of memory");
	free(*list);
	*list = p;
	return 0;
}

void ipt_counter_load_ksyms(struct ipt_counter *b)
{
	char *text = NULL;
	size_t len;

	if (ipt_file_read("/proc/kallsyms", &text, &len) == 0) {
		if (ipt_symtab_load_kallsyms(&b->ksyms, text, len) == 0)
			ipt_symtab_sort(&b->ksyms);
		free(text);
	}
}

const char *ipt_counter_backend(const struct ipt_counter *b)
{
	return b->remote ? "serve" : b->tfs ? "tracefs" : "bpf";
}

int ipt_counter_remote_pid(const struct ipt_counter *b)
{
	return b->remote ? b->remote_pid : 0;
}

void ipt_counter_handle_free(struct ipt_counter *b)
{
	if (b->pinned)
		sched_setaffinity(0, sizeof(b->orig_affinity), &b->orig_affinity);
	free(b->sock_path);
	free(b->attached);
	free(b->skipped);
	ipt_cpuset_free(&b->pin);
	ipt_symtab_free(&b->ksyms);
	free(b);
}
