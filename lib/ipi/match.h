/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * match.h - the matching stage: which interrupt served which send
 *
 * The engine feeds it, in the time order of the records, every send (one
 * per IPI row and target, counted or not, with its receive class), the
 * IPI interrupts' entries and exits, the csd calls queued and run, and
 * the losses of events.  It queues each send on its target CPU and class
 * until an interrupt of that class serves it (the coalescing rule is
 * ipt_match_entry's, match.c), and pairs csd calls by csd pointer.  What
 * it finds about one send it writes where the send says: its row result
 * (ipt_rowres, by index) and its entry in the engine's list of IPIs to
 * isolated CPUs (by index); the rest it keeps in its results, per CPU and
 * in total.  ipt_match_end settles the sends still waiting; from then on
 * the results are only read.
 */
#ifndef IPT_IPI_MATCH_H
#define IPT_IPI_MATCH_H

#include "core/hist.h"
#include "ipi/classes.h"
#include "ipi/row_results.h"

#define RPT_NCAUSE IPT_UNSENT__COUNT

struct ipt_match;

struct ipt_match_config {
	bool cross_ok;			/* latencies of sends from other CPUs too (the
					 * clock compares across CPUs) */
	bool kind_distributions;	/* kind_lat[], kind_hdl[] */
	bool have_receive;		/* receive events exist in the trace */
	bool sends_filtered;		/* the recording filtered its sends */
	const struct ipt_cpuset *isolated;	/* list interrupts without a send on these
					 * (NULL: none); read until ipt_match_end */
	const struct ipt_classes *classes;	/* ... with the names of their vectors */
	struct ipt_rowres *rows;	/* the row results sends' res index */
	struct ipt_report_isolated *const *iso;	/* the list sends' iso index (the
					 * engine's: it grows it) */
};

/* One send to a target CPU: queued there until an interrupt serves it. */
struct ipt_match_send {
	uint64_t ts;
	int64_t iso;			/* index in *config.iso, or -1 */
	int64_t res;			/* index in config.rows, or -1 */
	int32_t src;			/* the sending CPU */
	bool counted;			/* passed the row filter: its outcome counts */
	uint8_t kind;			/* enum ipt_ipi_kind */
};

struct rpt_unmatched {			/* reasons counted sends stayed unmatched */
	uint64_t trace_ended, no_receive_events, lost_events, no_handler;
};

struct ipt_match_cpu {			/* per CPU: the sends to it, the interrupts on it */
	uint64_t matched, remote_matched, coalesced;	/* counted sends */
	uint64_t handlers;		/* IPI interrupt entries on this CPU */
	uint64_t handlers_unattributed;	/* entries that served no counted send */
	uint64_t csd_runs;		/* csd_function_entry with a queued csd */
	struct ipt_dist lat;		/* send -> handler entry, ns */
	struct ipt_dist handler;	/* handler entry -> exit, ns */
	struct ipt_dist csd_q2r;	/* csd queue -> function entry, ns */
	struct ipt_dist csd_run;	/* csd function entry -> exit, ns */
	uint64_t unsent[RPT_NCLASS][RPT_NCAUSE];	/* interrupts that served no send */
	uint64_t entries[RPT_NCLASS];	/* IPI interrupts, per receive class */
	uint64_t sends[RPT_NCLASS];	/* sends to it (filtered or not), per class */
};

struct ipt_match_results {
	struct ipt_match_cpu *cpu;	/* ncpu (as many as ipt_match_cpus made room for) */
	int ncpu;
	struct rpt_unmatched unmatched;
	uint64_t remote_matched;	/* counted sends from another CPU, matched */
	uint64_t csd_set_aside;		/* csd runs not paired: events lost on the target between */
	uint64_t csd_given_up;		/* csd calls queued, forgotten unpaired (csdq.h's bound) */
	struct ipt_dist kind_lat[IPT_KIND__COUNT];	/* config.kind_distributions */
	struct ipt_dist kind_hdl[IPT_KIND__COUNT];
	struct ipt_report_isolated_unsent *isu;	/* on isolated CPUs: interrupts without a send */
	size_t nisu, capisu;
};

/* A matching stage for trace t (it reads which CPUs recorded, and when
 * each started); NULL without memory.  cfg is copied. */
struct ipt_match *ipt_match_new(struct ipt_trace *t, const struct ipt_match_config *cfg);
/* Room for CPUs 0 .. n - 1: every CPU fed must have it first. */
int ipt_match_cpus(struct ipt_match *m, int n);

/* The feed, in time order; each returns 0, or -1 without memory.  cls: a
 * receive class (a send of none, cls < 0 or >= RPT_NCLASS, is not matched). */
int ipt_match_send(struct ipt_match *m, int target, int cls, const struct ipt_match_send *e);
/* Whether the trace has data for cpu: a send to a CPU without can never be
 * matched, so its order does not matter (ipt_match_send_unreceived). */
bool ipt_match_has_stream(const struct ipt_match *m, int cpu);
/* Sends to target, a CPU without data: sends[cls] of each receive class,
 * counted of them counted.  What as many ipt_match_send calls for them do,
 * at any time before ipt_match_end (for sends with no row results and no
 * isolated listing). */
int ipt_match_send_unreceived(struct ipt_match *m, int target, const uint64_t sends[RPT_NCLASS],
			      uint64_t counted);
int ipt_match_entry(struct ipt_match *m, int cpu, int cls, uint64_t ts, int32_t pid);
int ipt_match_exit(struct ipt_match *m, int cpu, int cls, uint64_t ts);
int ipt_match_csd_queue(struct ipt_match *m, uint64_t csd, uint64_t ts, int src, int target);
int ipt_match_csd_entry(struct ipt_match *m, int cpu, uint64_t csd, uint64_t ts);
int ipt_match_csd_exit(struct ipt_match *m, int cpu, uint64_t ts);
/* Events were lost on cpu between its records at from (0: it had none
 * before) and ts.  0, or -1 without memory. */
int ipt_match_drop(struct ipt_match *m, int cpu, uint64_t from, uint64_t ts);

/* What the engine knows of a CPU once every record is read. */
struct ipt_match_end {
	uint64_t first_ts;		/* its first record (0: none) */
	uint64_t last_ts;		/* its last record (0: none) */
	bool lost;			/* events were lost on it */
};
/* The end of the feed: the sends still waiting on CPUs 0 .. ncpu - 1
 * matched (coalesced into the last interrupt) or given their reason, the
 * distributions finished. */
int ipt_match_end(struct ipt_match *m, int ncpu, const struct ipt_match_end *cpu);

const struct ipt_match_results *ipt_match_results(const struct ipt_match *m);
void ipt_match_free(struct ipt_match *m);

#endif
