/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * ipitrace.bpf.h - what the BPF programs (ipitrace.bpf.c) and the loader
 * (bpf.c) share: the map keys and values, and the error counters.  Plain C
 * types only, so that both clang -target bpf and the host compiler read it.
 */
#ifndef IPTK_SHARED_H
#define IPTK_SHARED_H

#define IPTK_COMM_LEN	16
#define IPTK_HIST_SLOTS	32	/* log2 ns buckets: [2^i, 2^(i+1)) */
#define IPTK_MAX_SENDS	16384	/* entries of the send map */
#define IPTK_MAX_HANDLERS	1024	/* entries of the handler map */
#define IPTK_MAX_CPUS	8192	/* the most CPUs a mask walk covers */
#define IPTK_MAX_PENDING	8192	/* csd calls queued, waiting for their IPI */

/* which event counted the entry */
enum iptk_event {
	IPTK_EV_SEND_CPU = 0,	/* ipi:ipi_send_cpu */
	IPTK_EV_SEND_MASK = 1,	/* ipi:ipi_send_cpumask, one entry per target */
	IPTK_EV_CSD = 2,		/* csd:csd_queue_cpu (addr2 = func) */
	IPTK_EV_HANDLER = 3,	/* an IPI handler ran on a watched CPU (rows only: ts its
				 * entry, callsite its enum iptk_vec, addr2 its ns) */
};

/* the receive vectors (irq_vectors:*_entry/_exit) */
enum iptk_vec {
	IPTK_VEC_RESCHED = 0,
	IPTK_VEC_CALL = 1,
	IPTK_VEC_CALL_SINGLE = 2,
	IPTK_VEC_IRQ_WORK = 3,
	IPTK_NVEC = 4,
};

struct iptk_send_key {
	unsigned int target;		/* target CPU */
	unsigned int src;		/* sending CPU */
	unsigned int event;		/* enum iptk_event */
	unsigned int pad;
	unsigned long long callsite;
	unsigned long long addr2;	/* callback (sends), func (csd) */
	unsigned long long func;	/* sends: the function of the csd queued just
					 * before from this CPU to the target (0: none) */
	char comm[IPTK_COMM_LEN];	/* sending task */
};

struct iptk_handler_key {
	unsigned int cpu;
	unsigned int vec;		/* enum iptk_vec */
};

struct iptk_handler_val {
	unsigned long long count;	/* exits measured */
	unsigned long long sum_ns;
	unsigned long long max_ns;
	unsigned long long hist[IPTK_HIST_SLOTS];
};

/* error counters, in the programs' .bss (read by the loader from the mmap) */
enum iptk_err {
	IPTK_ERR_SEND_FULL = 0,	/* send map full: a send not counted */
	IPTK_ERR_SEND_UPDATE,	/* another update error */
	IPTK_ERR_HANDLER_FULL,	/* handler map full */
	IPTK_ERR_MASK_READ,		/* a mask word could not be read */
	IPTK_ERR_NO_ENTRY,		/* an exit without a recorded entry */
	IPTK_ERR_RING_FULL,		/* a watched row not kept: the ring buffer is full */
	IPTK_ERR_JOIN_FULL,		/* a csd not remembered for its send: map full */
	IPTK_NERR,
};

/*
 * A row of the flight recorder: one send (or csd queueing) whose targets
 * include a watched CPU, written to the ring buffer "rows" without a
 * wake-up (BPF_RB_NO_WAKEUP) and drained by polling.
 */
#define IPTK_ROW_MASK_WORDS	4	/* the targets of the first 256 CPUs */
#define IPTK_ROW_STACK		32	/* kernel stack frames kept (with stacks) */
struct iptk_row {
	unsigned long long ts;		/* bpf_ktime_get_ns (CLOCK_MONOTONIC) */
	unsigned long long callsite;
	unsigned long long addr2;	/* callback (sends), func (csd) */
	unsigned long long mask[IPTK_ROW_MASK_WORDS];	/* the targets */
	unsigned int src;		/* sending CPU */
	unsigned int pid;		/* sending thread */
	unsigned int event;		/* enum iptk_event */
	unsigned int ntargets;		/* targets in all (may exceed the mask) */
	char comm[IPTK_COMM_LEN];
	unsigned int nstack;		/* frames in stack (0: stacks off or none) */
	unsigned int pad;
	unsigned long long stack[IPTK_ROW_STACK];	/* the sender's, leaf first */
};

#endif
