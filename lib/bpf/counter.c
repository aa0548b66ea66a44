// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * counter.c - in-kernel IPI counting: load and attach the BPF programs of
 * progs/ipitrace.bpf.c (through the skeleton bpftool made of them), read
 * their maps.  Built with -DIPT_HAVE_BPF when libbpf, clang and bpftool
 * are present; without, ipt_counter_open() says that BPF was not built in.
 */
#include "core/core.h"
#include "live/live.h"
#include "bpf/progs/ipitrace.bpf.h"
#include "bpf/bpf_int.h"

#include <errno.h>
#include <stddef.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

_Static_assert((int)IPT_COUNTER_NERRORS == (int)IPTK_NERR + 1, "error counters (+ tracefs_lost)");
_Static_assert((int)IPT_COUNTER_NVECTORS == (int)IPTK_NVEC, "vectors");
_Static_assert(IPT_COUNTER_HIST_SLOTS == IPTK_HIST_SLOTS, "slots");
_Static_assert((int)IPT_COUNTER_SEND_CPUMASK == (int)IPTK_EV_SEND_MASK, "events");
_Static_assert((int)IPT_COUNTER_CSD_QUEUE == (int)IPTK_EV_CSD, "events");
_Static_assert(sizeof(((struct ipt_counter_row *)0)->stack) / 8 == IPTK_ROW_STACK, "stack frames");

static IPT_UNUSED double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static IPT_UNUSED int handler_qcmp(const void *pa, const void *pb)
{
	const struct ipt_counter_handler *a = pa, *b = pb;

	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return a->vector < b->vector ? -1 : a->vector > b->vector;
}

#ifndef IPT_HAVE_BPF

struct ipt_counter *ipt_counter_open(const struct ipt_counter_opts *opts)
{
	(void)opts;
	ipt_err_code(IPT_ERR_UNAVAILABLE, "BPF is unavailable: libipitrace was built without libbpf "
		      "(install clang, bpftool and libbpf-dev, then rebuild)");
	return NULL;
}
struct ipt_counter_snapshot *ipt_counter_read(struct ipt_counter *b)
{
	return b->tfs ? ipt_tfs_read(b) : ipt_counter_remote_read(b);
}
int ipt_counter_drain(struct ipt_counter *b, ipt_counter_row_fn fn, void *ctx)
{
	(void)b; (void)fn; (void)ctx;
	return 0;
}
int ipt_counter_nprogs(const struct ipt_counter *b) { (void)b; return 0; }
int ipt_counter_prog_stats(const struct ipt_counter *b, int i, struct ipt_counter_prog_stats *st)
{
	(void)b; (void)i; (void)st;
	return -1;
}
void ipt_counter_close(struct ipt_counter *b)
{
	if (!b)
		return;
	ipt_tfs_close(b);
	ipt_counter_handle_free(b);
}

#else /* IPT_HAVE_BPF */

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/btf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

/*
 * libbpf is opened with dlopen when counting starts (ipt_counter_open), not
 * linked: the dynamic loader took some 0.4 ms at every exec to load it and
 * libelf, for `top`, `serve` and BPF recording only, where a `report` of a
 * small trace starts in 20 ms.  The functions used here and by the
 * skeleton's inline functions, called through libbpf (same names, same
 * types; the defines below route the calls, the skeleton's too):
 */
#define LIBBPF_FUNCS(X)							\
	X(bpf_enable_stats) X(bpf_link__destroy) X(bpf_map__fd)	\
	X(bpf_map__set_max_entries) X(bpf_map_get_next_key)	\
	X(bpf_map_lookup_elem) X(bpf_obj_get_info_by_fd)	\
	X(bpf_object__attach_skeleton) X(bpf_object__destroy_skeleton)	\
	X(bpf_object__detach_skeleton) X(bpf_object__load_skeleton)	\
	X(bpf_object__open_skeleton) X(bpf_program__attach) X(bpf_program__fd)	\
	X(bpf_program__set_autoload) X(btf__find_by_name_kind) X(btf__free)	\
	X(btf__load_vmlinux_btf) X(libbpf_num_possible_cpus)	\
	X(libbpf_set_print) X(ring_buffer__consume) X(ring_buffer__free)	\
	X(ring_buffer__new)
#define LIBBPF_MEMBER(f) __typeof__(f) *f;
static struct {
	LIBBPF_FUNCS(LIBBPF_MEMBER)
} libbpf;
static bool libbpf_loaded;
static char libbpf_error[256];
static pthread_once_t libbpf_once = PTHREAD_ONCE_INIT;

static void libbpf_load_once(void)
{
#define LIBBPF_NAME(f) #f,
	static const char *const names[] = { LIBBPF_FUNCS(LIBBPF_NAME) };
	void *syms[sizeof(names) / sizeof(names[0])];
	size_t i = 0;

	/* the soname of Debian's libbpf1 */
	if (ipt_dl_open("libbpf.so.1", names, syms, sizeof(names) / sizeof(names[0]), libbpf_error,
			sizeof(libbpf_error)))
		return;
#define LIBBPF_SET(f) libbpf.f = (__typeof__(f) *)syms[i++];
	LIBBPF_FUNCS(LIBBPF_SET)
	libbpf_loaded = true;
}

/* libbpf_load - libbpf's functions (once; any thread), or -1 saying why not */
static int libbpf_load(void)
{
	if (pthread_once(&libbpf_once, libbpf_load_once) || !libbpf_loaded)
		return ipt_err_code(IPT_ERR_UNAVAILABLE, "BPF is unavailable: libbpf cannot be loaded: %s "
				    "(Debian package libbpf1)", *libbpf_error ? libbpf_error : "?");
	return 0;
}

#define bpf_enable_stats (*libbpf.bpf_enable_stats)
#define bpf_link__destroy (*libbpf.bpf_link__destroy)
#define bpf_map__fd (*libbpf.bpf_map__fd)
#define bpf_map__set_max_entries (*libbpf.bpf_map__set_max_entries)
#define bpf_map_get_next_key (*libbpf.bpf_map_get_next_key)
#define bpf_map_lookup_elem (*libbpf.bpf_map_lookup_elem)
#define bpf_obj_get_info_by_fd (*libbpf.bpf_obj_get_info_by_fd)
#define bpf_object__attach_skeleton (*libbpf.bpf_object__attach_skeleton)
#define bpf_object__destroy_skeleton (*libbpf.bpf_object__destroy_skeleton)
#define bpf_object__detach_skeleton (*libbpf.bpf_object__detach_skeleton)
#define bpf_object__load_skeleton (*libbpf.bpf_object__load_skeleton)
#define bpf_object__open_skeleton (*libbpf.bpf_object__open_skeleton)
#define bpf_program__attach (*libbpf.bpf_program__attach)
#define bpf_program__fd (*libbpf.bpf_program__fd)
#define bpf_program__set_autoload (*libbpf.bpf_program__set_autoload)
#define btf__find_by_name_kind (*libbpf.btf__find_by_name_kind)
#define btf__free (*libbpf.btf__free)
#define btf__load_vmlinux_btf (*libbpf.btf__load_vmlinux_btf)
#define libbpf_num_possible_cpus (*libbpf.libbpf_num_possible_cpus)
#define libbpf_set_print (*libbpf.libbpf_set_print)
#define ring_buffer__consume (*libbpf.ring_buffer__consume)
#define ring_buffer__free (*libbpf.ring_buffer__free)
#define ring_buffer__new (*libbpf.ring_buffer__new)

typedef uint32_t u32;
typedef uint64_t u64;
#include "ipitrace.skel.h"

/* the programs, by tracepoint; send: one of the three send events */
struct prog_desc {
	const char *tp;			/* tracepoint name (btf_trace_<tp>) */
	bool send;
};
static const struct prog_desc prog_descs[] = {
	{ "ipi_send_cpu", true }, { "ipi_send_cpumask", true }, { "csd_queue_cpu", true },
	{ "reschedule_entry", false }, { "reschedule_exit", false },
	{ "call_function_entry", false }, { "call_function_exit", false },
	{ "call_function_single_entry", false }, { "call_function_single_exit", false },
	{ "irq_work_entry", false }, { "irq_work_exit", false },
};
#define NPROGS ((int)(sizeof(prog_descs) / sizeof(prog_descs[0])))

_Static_assert(IPTK_NPROGS == NPROGS, "programs");

static struct bpf_program *prog_of(struct ipitrace_bpf *s, int i)
{
	struct bpf_program *p[NPROGS] = {
		s->progs.ipt_send_cpu, s->progs.ipt_send_cpumask, s->progs.ipt_csd_queue_cpu,
		s->progs.ipt_reschedule_entry, s->progs.ipt_reschedule_exit,
		s->progs.ipt_call_function_entry, s->progs.ipt_call_function_exit,
		s->progs.ipt_call_function_single_entry, s->progs.ipt_call_function_single_exit,
		s->progs.ipt_irq_work_entry, s->progs.ipt_irq_work_exit,
	};
	return p[i];
}

/* the verifier's and libbpf's messages: kept for the error, printed with IPITRACE_DEBUG */
static char last_libbpf_msg[512];
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];
	va_list ap2;

	va_copy(ap2, ap);
	vsnprintf(line, sizeof(line), fmt, ap);
	if (level != LIBBPF_DEBUG && strlen(line) > 1) {
		size_t n;

		memcpy(last_libbpf_msg, line, sizeof(last_libbpf_msg));
		n = strlen(last_libbpf_msg);
		while (n && (last_libbpf_msg[n - 1] == '\n' || last_libbpf_msg[n - 1] == ' '))
			last_libbpf_msg[--n] = 0;
	}
	if (getenv("IPITRACE_DEBUG"))
		vfprintf(stderr, fmt, ap2);	/* whole: a verifier log is one message */
	va_end(ap2);
	return 0;
}


static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* on_row - one ring buffer record, handed to the caller of ipt_counter_drain */
static int on_row(void *ctx, void *data, size_t size)
{
	struct ipt_counter *b = ctx;
	const struct iptk_row *r = data;
	struct ipt_counter_row row;

	if (size < offsetof(struct iptk_row, stack) || !b->row_fn)
		return 0;
	memset(&row, 0, sizeof(row));
	row.ts_ns = r->ts;
	row.src = (int)r->src;
	row.pid = (int)r->pid;
	row.event = (enum ipt_counter_event)r->event;
	row.ntargets = r->ntargets;
	memcpy(row.mask, r->mask, sizeof(row.mask));
	row.callsite = r->callsite;
	row.addr2 = r->addr2;
	memcpy(row.comm, r->comm, sizeof(row.comm));
	row.comm[sizeof(row.comm) - 1] = 0;
	if (size >= sizeof(*r)) {	/* with stacks */
		row.nstack = r->nstack < IPTK_ROW_STACK ? r->nstack : IPTK_ROW_STACK;
		memcpy(row.stack, r->stack, row.nstack * sizeof(row.stack[0]));
	}
	b->row_fn(&row, b->row_ctx);
	b->row_count++;
	return 0;
}

int ipt_counter_drain(struct ipt_counter *b, ipt_counter_row_fn fn, void *ctx)
{
	int n;

	if (!b->ring)
		return 0;
	b->row_fn = fn;
	b->row_ctx = ctx;
	b->row_count = 0;
	n = ring_buffer__consume(b->ring);
	b->row_fn = NULL;
	if (n < 0) {
		ipt_err("BPF: draining the ring buffer: %s", strerror(-n));
		return -1;
	}
	return b->row_count;
}

struct ipt_counter *ipt_counter_open(const struct ipt_counter_opts *opts)
{
	struct ipt_counter_opts o = { 0 };
	struct ipt_counter *b;
	struct btf *vmlinux = NULL;
	char tname[96];
	uint64_t t0;
	int i, err, nsend = 0;

	if (IPT_OPTS_COPY(o, opts, "bpf"))
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b) {
		ipt_err_code(IPT_ERR_NOMEM, "out of memory");
		return NULL;
	}
	b->stats_fd = -1;
	ipt_cpuset_init(&b->pin);
	if (!b->attached && ipt_counter_list_add(&b->attached, ""))
		goto nomem;
	if (!b->skipped && ipt_counter_list_add(&b->skipped, ""))
		goto nomem;
	if (!o.no_pin && ipt_counter_pin(b, &o))
		goto fail;
	if (libbpf_load())
		goto fail;
	libbpf_set_print(libbpf_print);
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		ipt_err_code(IPT_ERR_UNAVAILABLE, "BPF is unavailable: no kernel BTF (/sys/kernel/btf/vmlinux: %s)",
			      strerror(errno));
		goto fail;
	}
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		ipt_err_code(IPT_ERR_UNAVAILABLE, "BPF is unavailable: reading the kernel BTF: %s",
			      strerror(errno));
		goto fail;
	}
	t0 = mono_ns();
	b->skel = ipitrace_bpf__open();
	if (!b->skel) {
		ipt_err_code(IPT_ERR_UNAVAILABLE, "BPF is unavailable: opening the programs: %s", strerror(errno));
		goto fail;
	}
	b->ncpus = libbpf_num_possible_cpus();
	if (b->ncpus < 1) {
		ipt_err("BPF: the possible CPUs: %s", strerror(-b->ncpus));
		goto fail;
	}
	b->skel->rodata->nr_cpu_ids = (u32)b->ncpus;
	if (o.watch && !ipt_cpuset_empty(o.watch)) {
		size_t ring = o.ring_bytes ? o.ring_bytes : 4u << 20;

		if (ring < 4096 || (ring & (ring - 1)) || ring > (1u << 30)) {
			ipt_err_code(IPT_ERR_INVALID, "BPF: the ring buffer size %zu is not a power of 2 "
				     "from 4096 to 1 GiB", ring);
			goto fail;
		}
		for (int c = ipt_cpuset_next(o.watch, 0); c >= 0 && c < IPTK_MAX_CPUS;
		     c = ipt_cpuset_next(o.watch, (unsigned int)c + 1))
			b->skel->rodata->watch_bits[c / 64] |= 1ull << (c % 64);
		b->skel->rodata->watch_on = 1;
		b->skel->rodata->want_stacks = o.stacks;
		b->skel->rodata->watch_handlers = o.handler_rows;
		if (bpf_map__set_max_entries(b->skel->maps.rows, (u32)ring)) {
			ipt_err("BPF: sizing the ring buffer: %s", strerror(errno));
			goto fail;
		}
	}
	for (i = 0; i < NPROGS; i++) {
		b->progs[i] = prog_of(b->skel, i);
		snprintf(tname, sizeof(tname), "btf_trace_%s", prog_descs[i].tp);
		if (btf__find_by_name_kind(vmlinux, tname, BTF_KIND_TYPEDEF) < 0) {
			bpf_program__set_autoload(b->progs[i], false);
			b->progs[i] = NULL;
			if (ipt_counter_list_add(&b->skipped, prog_descs[i].tp))
				goto nomem;
		}
	}
	btf__free(vmlinux);
	vmlinux = NULL;
	err = ipitrace_bpf__load(b->skel);
	if (err) {
		ipt_err_code(IPT_ERR_UNAVAILABLE, "BPF is unavailable: loading the programs: %s%s%s%s",
			      strerror(-err), err == -EPERM ? " (needs root: CAP_BPF and CAP_PERFMON)" : "",
			      *last_libbpf_msg ? "; " : "", last_libbpf_msg);
		goto fail;
	}
	if (o.stats) {
		b->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (b->stats_fd < 0)
			b->stats_fd = -1;	/* stats stay 0; not fatal */
	}
	for (i = 0; i < NPROGS; i++) {
		if (!b->progs[i])
			continue;
		b->links[i] = bpf_program__attach(b->progs[i]);
		if (!b->links[i]) {
			b->links[i] = NULL;
			if (ipt_counter_list_add(&b->skipped, prog_descs[i].tp))
				goto nomem;
			continue;
		}
		if (ipt_counter_list_add(&b->attached, prog_descs[i].tp))
			goto nomem;
		nsend += prog_descs[i].send;
	}
	b->attach_ns = mono_ns() - t0;
	if (b->skel->rodata->watch_on) {
		b->ring = ring_buffer__new(bpf_map__fd(b->skel->maps.rows), on_row, b, NULL);
		if (!b->ring) {
			ipt_err("BPF: the ring buffer: %s", strerror(errno));
			goto fail;
		}
	}
	if (!nsend) {
		ipt_err("BPF: no IPI send tracepoint could be attached (skipped: %s)",
			      b->skipped);
		goto fail;
	}
	/* symbols after loading: the JIT images are in kallsyms then */
	ipt_counter_load_ksyms(b);
	return b;
nomem:
	ipt_err_code(IPT_ERR_NOMEM, "out of memory");
fail:
	if (vmlinux)	/* (not loaded when libbpf was not) */
		btf__free(vmlinux);
	{
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s", ipt_errmsg());
		enum ipt_error code = ipt_errcode();
		ipt_counter_close(b);
		ipt_err_code(code, "%s", msg);
	}
	return NULL;
}


struct ipt_counter_snapshot *ipt_counter_read(struct ipt_counter *b)
{
	struct ipt_counter_snapshot *s;
	struct iptk_send_key k, next, *prev = NULL;
	struct iptk_handler_key hk, hnext, *hprev = NULL;
	struct iptk_handler_val hv;
	size_t cap = 0;
	uint64_t v;
	int fd, i;

	if (b->remote)
		return ipt_counter_remote_read(b);
	if (b->tfs)
		return ipt_tfs_read(b);
	s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	s->time = mono_s();
	fd = bpf_map__fd(b->skel->maps.sends);
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v))
			continue;	/* never deleted: cannot happen */
		if (IPT_GROW(s->sends, cap, s->nsends + 1))
			goto nomem;
		struct ipt_counter_send *o = &s->sends[s->nsends++];

		memset(o, 0, sizeof(*o));
		o->target = (int)k.target;
		o->src = (int)k.src;
		o->event = (enum ipt_counter_event)k.event;
		o->callsite = k.callsite;
		o->addr2 = k.addr2;
		o->func = k.func;
		memcpy(o->comm, k.comm, sizeof(o->comm));
		o->comm[sizeof(o->comm) - 1] = 0;
		o->count = v;
	}
	ipt_counter_sort_sends(s);
	cap = 0;
	fd = bpf_map__fd(b->skel->maps.handlers);
	while (bpf_map_get_next_key(fd, hprev, &hnext) == 0) {
		hk = hnext;
		hprev = &hk;
		if (bpf_map_lookup_elem(fd, &hk, &hv))
			continue;
		if (IPT_GROW(s->handlers, cap, s->nhandlers + 1))
			goto nomem;
		struct ipt_counter_handler *h = &s->handlers[s->nhandlers++];

		h->cpu = (int)hk.cpu;
		h->vector = (enum ipt_counter_vector)hk.vec;
		h->count = hv.count;
		h->sum_ns = hv.sum_ns;
		h->max_ns = hv.max_ns;
		memcpy(h->hist, hv.hist, sizeof(h->hist));
	}
	if (s->nhandlers)
		qsort(s->handlers, s->nhandlers, sizeof(*s->handlers), handler_qcmp);
	for (i = 0; i < IPTK_NERR; i++)	/* the last, tracefs_lost, is the fallback's */
		s->errors[i] = __atomic_load_n(&b->skel->bss->errors[i], __ATOMIC_RELAXED);
	for (i = 0; i < NPROGS; i++) {
		struct ipt_counter_prog_stats st;

		if (ipt_counter_prog_stats(b, i, &st) == 0)
			s->recursion_misses += st.recursion_misses;
	}
	return s;
nomem:
	ipt_counter_snapshot_free(s);
	ipt_err_code(IPT_ERR_NOMEM, "out of memory");
	return NULL;
}

int ipt_counter_nprogs(const struct ipt_counter *b) { return b->remote || b->tfs ? 0 : NPROGS; }

int ipt_counter_prog_stats(const struct ipt_counter *b, int i, struct ipt_counter_prog_stats *st)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	if (b->remote || b->tfs || i < 0 || i >= NPROGS || !b->links[i])
		return -1;
	memset(&info, 0, sizeof(info));
	memset(st, 0, sizeof(*st));
	st->name = prog_descs[i].tp;
	if (bpf_obj_get_info_by_fd(bpf_program__fd(b->progs[i]), &info, &len))
		return 0;
	st->run_cnt = info.run_cnt;
	st->run_time_ns = info.run_time_ns;
	st->recursion_misses = info.recursion_misses;
	return 0;
}

void ipt_counter_close(struct ipt_counter *b)
{
	int i;

	if (!b)
		return;
	ipt_tfs_close(b);
	if (b->skel) {	/* (tracefs and serve's: libbpf may not be loaded) */
		ring_buffer__free(b->ring);
		for (i = 0; i < NPROGS; i++)
			bpf_link__destroy(b->links[i]);
		ipitrace_bpf__destroy(b->skel);
	}
	if (b->stats_fd >= 0)
		close(b->stats_fd);
	ipt_counter_handle_free(b);
}

#endif /* IPT_HAVE_BPF */
