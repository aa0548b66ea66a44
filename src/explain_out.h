/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * explain_out.h - the summary of `ipitrace explain` (explain_sum.c), for
 * its text and JSON (cmd_explain.c) and the spikes section of `report`
 */
#ifndef IPT_EXPLAIN_OUT_H
#define IPT_EXPLAIN_OUT_H

#include "ipitrace-private.h"

/* one key of the summary: its IPIs' spike time (handler time, once per
 * interrupt), its IPIs and the spikes they are in */
struct explain_tally {
	char key[512];
	const struct ipt_spike_ipi *ip;	/* the first IPI of the key (its fields) */
	uint64_t ns, ipis, spikes;
	size_t last;			/* the last spike counted, + 1 */
};
struct explain_tallies {
	struct explain_tally *t;
	size_t n, cap;
};
/* the summary over all spikes, each list by spike time, most first: by
 * "comm[pid] via callsite function" (full), by sender, by call path */
struct explain_summary {
	struct explain_tallies full, senders, paths;
	uint64_t with;			/* spikes holding IPI interrupts */
};
/* "comm[pid] via callsite+off function func" of one IPI */
void explain_sender(const struct ipt_spike_ipi *ip, char *buf, size_t n);
/* one CPU's spikes summed (report's spikes section, text and JSON) */
struct explain_cpu {
	int cpu;
	uint64_t spikes, worst_ns, with_ipis, ipi_ns;
	bool noise_known;		/* every one of them has osnoise events */
	uint64_t noise_ns, unaccounted_ns;	/* (noise: of those with them) */
	uint64_t over;			/* spikes whose noise exceeds their latency */
	uint64_t unknown;		/* spikes with no noise events */
};
/* The spikes of one CPU from spike i on (they come by CPU) into c; the
 * index after them. */
size_t explain_cpu_sum(const struct ipt_spikes *sp, size_t i, struct explain_cpu *c);
/* A latency recording (record --timerlat or --osnoise): timerlat's or
 * osnoise's samples with the osnoise noise events beside them, in ns;
 * report shows its spikes. */
bool explain_latency_recording(struct ipt_trace *t, bool ns);
/* The spikes of t as explain picks them by default (the worst 10 per CPU)
 * and their summary: 1; 0 none (*sp NULL: ipt_errmsg() says why); -1 out
 * of memory.  Freed with ipt_spikes_free and explain_summary_free. */
int explain_default_spikes(struct ipt_trace *t, struct ipt_spikes **sp, struct explain_summary *m);
/* 0, or -1 out of memory (m freed by explain_summary_free either way) */
int explain_summarize(const struct ipt_spikes *sp, struct explain_summary *m);
void explain_summary_free(struct explain_summary *m);
/* What the spikes are: "timerlat thread samples", "osnoise samples" or
 * "timerlat thread samples and osnoise samples" */
const char *explain_samples_kind(const struct ipt_spikes *sp);
/* "k": the tallies as explain's and report's JSON write them: by sender
 * (comm, pid) or, path, by call site and function */
void explain_json_tallies(struct ipt_jw *j, const char *k, const struct explain_tallies *ts, bool path);

#endif
