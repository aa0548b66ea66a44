// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * ipitrace.bpf.c - in-kernel IPI counting for `ipitrace top` (clang -target
 * bpf; the loader is ../counter.c, through the skeleton bpftool generates).
 *
 * One program per tracepoint (the kernel's recursion protection is per
 * program).  Sends are counted per (target CPU, sending CPU, event, call
 * site, callback or function, sending command) in a preallocated hash;
 * since the key holds the sending CPU, an entry has one writer (the atomic
 * add covers an interrupt on the same CPU).  Handler time per (CPU, vector)
 * goes into a log2 histogram.  Nothing is ever silent: a full map or a
 * failed read counts in errors[].  No wake-ups: user space polls the maps,
 * and the flight recorder's ring buffer (rows of the sends that target a
 * watched CPU, only when the loader watches some) is written with
 * BPF_RB_NO_WAKEUP and drained by a timer, never by an irq_work wake-up.
 *
 * The kernel types used are declared here (CO-RE relocates them), so that
 * the build needs no vmlinux BTF.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "ipitrace.bpf.h"

typedef unsigned long long u64;
typedef unsigned int u32;

/* the kernel's struct cpumask: a bitmap of longs at offset 0 */
struct cpumask {
	unsigned long bits[1];
} __attribute__((preserve_access_index));

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* set by the loader before loading */
const volatile u32 nr_cpu_ids = 1;

/* the watched CPUs (flight recorder), set by the loader before loading */
const volatile u32 watch_on = 0;
/* rows for the handlers that run on the watched CPUs too */
const volatile u32 watch_handlers = 0;
const volatile u32 want_stacks = 0;	/* the rows carry the sender's kernel stack */
const volatile u64 watch_bits[IPTK_MAX_CPUS / 64];

/* error counters (enum iptk_err), read from the mmapped .bss */
u64 errors[IPTK_NERR];

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IPTK_MAX_SENDS);
	__type(key, struct iptk_send_key);
	__type(value, u64);
} sends SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IPTK_MAX_HANDLERS);
	__type(key, struct iptk_handler_key);
	__type(value, struct iptk_handler_val);
} handlers SEC(".maps");

/*
 * csd calls queued and not yet sent, (sending CPU << 32 | target) -> the
 * function: the send that follows on the same CPU for the same target
 * takes it (as `convert` joins csd_queue_cpu to its IPI); a newer queueing
 * replaces an older one that needed no IPI
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IPTK_MAX_PENDING);
	__type(key, u64);
	__type(value, u64);
} pending SEC(".maps");

/* entry timestamps per CPU and vector */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IPTK_NVEC);
	__type(key, u32);
	__type(value, u64);
} entry_ts SEC(".maps");

/* the flight recorder; max_entries set by the loader (a page when unused) */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} rows SEC(".maps");

static __always_inline void bump_err(u32 which)
{
	if (which < IPTK_NERR)
		__sync_fetch_and_add(&errors[which], 1);
}

static __always_inline int watched(u32 cpu)
{
	u32 i = cpu / 64;

	asm volatile("" : "+r"(i));
	if (i >= IPTK_MAX_CPUS / 64)
		return 0;
	return (watch_bits[i] >> (cpu % 64)) & 1;
}

/* keep_row - a row for the flight recorder; mask: NULL for one target */
static __always_inline void keep_row(void *ctx, u32 event, u64 callsite, u64 addr2, u32 target,
				     const u64 *mask, u32 ntargets)
{
	/* without stacks a row ends before them (the verifier knows want_stacks) */
	struct iptk_row *r = want_stacks ? bpf_ringbuf_reserve(&rows, sizeof(*r), 0) :
			     bpf_ringbuf_reserve(&rows, __builtin_offsetof(struct iptk_row, stack), 0);

	if (!r) {
		bump_err(IPTK_ERR_RING_FULL);
		return;
	}
	r->ts = bpf_ktime_get_ns();
	r->callsite = callsite;
	r->addr2 = addr2;
	for (int i = 0; i < IPTK_ROW_MASK_WORDS; i++)
		r->mask[i] = mask ? mask[i] : 0;
	if (!mask) {
		u32 w = target / 64;

		asm volatile("" : "+r"(w));	/* keep the bound check (clang 14) */
		if (w < IPTK_ROW_MASK_WORDS)
			r->mask[w] = 1ull << (target % 64);
	}
	r->src = bpf_get_smp_processor_id();
	r->pid = (u32)bpf_get_current_pid_tgid();
	r->event = event;
	r->ntargets = mask ? ntargets : 1;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	r->nstack = 0;
	r->pad = 0;
	if (want_stacks) {	/* then the row is whole */
		/* skip the tracing frames: this program, bpf_trace_runN, __traceiter_* */
		long n = bpf_get_stack(ctx, r->stack, sizeof(r->stack), 3 & BPF_F_SKIP_FIELD_MASK);

		r->nstack = n > 0 ? (u32)((u64)n / 8) : 0;
	}
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

/* count - one more send for key */
static __always_inline void count(struct iptk_send_key *key)
{
	u64 zero = 0, *v;
	long err;

	v = bpf_map_lookup_elem(&sends, key);
	if (!v) {
		err = bpf_map_update_elem(&sends, key, &zero, BPF_NOEXIST);
		if (err && err != -17 /* EEXIST: an interrupt added it */) {
			bump_err(err == -7 /* E2BIG */ ? IPTK_ERR_SEND_FULL : IPTK_ERR_SEND_UPDATE);
			return;
		}
		v = bpf_map_lookup_elem(&sends, key);
		if (!v) {
			bump_err(IPTK_ERR_SEND_UPDATE);
			return;
		}
	}
	__sync_fetch_and_add(v, 1);
}

/* take_func - the function queued from this CPU for target, forgotten; 0 if none */
static __always_inline u64 take_func(u32 src, u32 target)
{
	u64 pk = ((u64)src << 32) | target, *f = bpf_map_lookup_elem(&pending, &pk), func;

	if (!f)
		return 0;
	func = *f;
	bpf_map_delete_elem(&pending, &pk);
	return func;
}

/* fill_key - the fields every send shares */
static __always_inline void fill_key(struct iptk_send_key *key, u32 event, u64 callsite, u64 addr2)
{
	__builtin_memset(key, 0, sizeof(*key));
	key->src = bpf_get_smp_processor_id();
	key->event = event;
	key->callsite = callsite;
	key->addr2 = addr2;
	bpf_get_current_comm(key->comm, sizeof(key->comm));
}

SEC("tp_btf/ipi_send_cpu")
int BPF_PROG(ipt_send_cpu, unsigned int cpu, unsigned long callsite, void *callback)
{
	struct iptk_send_key key;

	fill_key(&key, IPTK_EV_SEND_CPU, callsite, (u64)callback);
	key.target = cpu;
	if (callback)
		key.func = take_func(key.src, cpu);
	count(&key);
	if (watch_on && watched(cpu))
		keep_row(ctx, IPTK_EV_SEND_CPU, callsite, (u64)callback, cpu, NULL, 1);
	return 0;
}

struct mask_walk {
	const unsigned long *bits;
	struct iptk_send_key key;
	u64 mask[IPTK_ROW_MASK_WORDS];	/* the targets, for a row */
	u32 ntargets;
	u32 hit;			/* a watched CPU among them */
};

/* walk_word - bpf_loop callback: count the targets in word index */
static long walk_word(u32 index, void *data)
{
	struct mask_walk *w = data;
	struct iptk_send_key key;
	unsigned long word;
	u32 i = index;

	asm volatile("" : "+r"(i));
	if (i >= IPTK_MAX_CPUS / 64)
		return 1;
	if (bpf_probe_read_kernel(&word, sizeof(word), &w->bits[i])) {
		bump_err(IPTK_ERR_MASK_READ);
		return 1;
	}
	if (!word)
		return 0;
	if (watch_on) {
		if (word & watch_bits[i])
			w->hit = 1;
		/* constant offsets: the verifier refuses a variable one into the stack */
		switch (i) {
		case 0: w->mask[0] = word; break;
		case 1: w->mask[1] = word; break;
		case 2: w->mask[2] = word; break;
		case 3: w->mask[3] = word; break;
		}
	}
	__builtin_memcpy(&key, &w->key, sizeof(key));
	for (u32 b = 0; b < 64; b++) {
		if (!(word >> b))
			break;
		if (!((word >> b) & 1))
			continue;
		key.target = i * 64 + b;
		if (key.target >= nr_cpu_ids)
			break;
		if (key.addr2)
			key.func = take_func(key.src, key.target);
		w->ntargets++;
		count(&key);
	}
	return 0;
}

SEC("tp_btf/ipi_send_cpumask")
int BPF_PROG(ipt_send_cpumask, const struct cpumask *mask, unsigned long callsite, void *callback)
{
	struct mask_walk w;
	u32 nwords = (nr_cpu_ids + 63) / 64;

	if (nwords > IPTK_MAX_CPUS / 64)
		nwords = IPTK_MAX_CPUS / 64;
	__builtin_memset(&w, 0, sizeof(w));
	w.bits = (const unsigned long *)mask;
	fill_key(&w.key, IPTK_EV_SEND_MASK, callsite, (u64)callback);
	bpf_loop(nwords, walk_word, &w, 0);
	if (w.hit)
		keep_row(ctx, IPTK_EV_SEND_MASK, callsite, (u64)callback, 0, w.mask, w.ntargets);
	return 0;
}

/* csd_queue_cpu: tp_btf refuses its function-pointer argument; raw_tp works */
SEC("raw_tp/csd_queue_cpu")
int BPF_PROG(ipt_csd_queue_cpu, unsigned int cpu, unsigned long callsite, void *func, void *csd)
{
	struct iptk_send_key key;

	fill_key(&key, IPTK_EV_CSD, callsite, (u64)func);
	key.target = cpu;
	count(&key);
	{
		u64 pk = ((u64)key.src << 32) | cpu, f = (u64)func;

		if (bpf_map_update_elem(&pending, &pk, &f, BPF_ANY))
			bump_err(IPTK_ERR_JOIN_FULL);
	}
	if (watch_on && watched(cpu))
		keep_row(ctx, IPTK_EV_CSD, callsite, (u64)func, cpu, NULL, 1);
	return 0;
}

/* ---- receive side: handler time per (CPU, vector) ---- */

static __always_inline u32 log2_u64(u64 v)
{
	u32 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) r += 1;
	return r;
}

static __always_inline void vec_entry(u32 vec)
{
	u64 *ts = bpf_map_lookup_elem(&entry_ts, &vec);

	if (ts)
		*ts = bpf_ktime_get_ns();
}

/* keep_handler - a row for an IPI handler that ran on a watched CPU */
static __always_inline void keep_handler(u32 vec, u64 entry, u64 d)
{
	struct iptk_row *r = bpf_ringbuf_reserve(&rows, __builtin_offsetof(struct iptk_row, stack), 0);

	if (!r) {
		bump_err(IPTK_ERR_RING_FULL);
		return;
	}
	r->ts = entry;
	r->callsite = vec;
	r->addr2 = d;
	for (int i = 0; i < IPTK_ROW_MASK_WORDS; i++)
		r->mask[i] = 0;
	r->src = bpf_get_smp_processor_id();
	r->pid = (u32)bpf_get_current_pid_tgid();
	r->event = IPTK_EV_HANDLER;
	r->ntargets = 0;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	r->nstack = 0;
	r->pad = 0;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

static __always_inline void vec_exit(u32 vec)
{
	struct iptk_handler_key key = { .cpu = bpf_get_smp_processor_id(), .vec = vec };
	struct iptk_handler_val *v;
	u64 *ts = bpf_map_lookup_elem(&entry_ts, &vec), d;
	u32 slot;
	long err;

	if (!ts || !*ts) {
		bump_err(IPTK_ERR_NO_ENTRY);
		return;
	}
	d = bpf_ktime_get_ns() - *ts;
	if (watch_handlers && watched(key.cpu))
		keep_handler(vec, *ts, d);
	*ts = 0;
	v = bpf_map_lookup_elem(&handlers, &key);
	if (!v) {
		struct iptk_handler_val zero;

		__builtin_memset(&zero, 0, sizeof(zero));
		err = bpf_map_update_elem(&handlers, &key, &zero, BPF_NOEXIST);
		if (err && err != -17) {
			bump_err(IPTK_ERR_HANDLER_FULL);
			return;
		}
		v = bpf_map_lookup_elem(&handlers, &key);
		if (!v)
			return;
	}
	slot = log2_u64(d);
	if (slot >= IPTK_HIST_SLOTS)
		slot = IPTK_HIST_SLOTS - 1;
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->sum_ns, d);
	__sync_fetch_and_add(&v->hist[slot], 1);
	if (d > v->max_ns)
		v->max_ns = d;
}

#define VECTOR_PROGS(name, vec)						\
SEC("tp_btf/" #name "_entry")						\
int BPF_PROG(ipt_##name##_entry, int vector) { vec_entry(vec); return 0; } \
SEC("tp_btf/" #name "_exit")						\
int BPF_PROG(ipt_##name##_exit, int vector) { vec_exit(vec); return 0; }

VECTOR_PROGS(reschedule, IPTK_VEC_RESCHED)
VECTOR_PROGS(call_function, IPTK_VEC_CALL)
VECTOR_PROGS(call_function_single, IPTK_VEC_CALL_SINGLE)
VECTOR_PROGS(irq_work, IPTK_VEC_IRQ_WORK)
