/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * live.h - tracefs control and per-CPU ring-buffer capture (not installed)
 *
 * The recorder works in its own tracefs instance (instances/ipitrace-<pid>),
 * never in the top-level buffer nor in another tool's instance.  Per-CPU
 * data is read from per_cpu/cpuN/trace_pipe_raw opened O_NONBLOCK, spliced
 * into a pipe and from there into an unnamed per-CPU temporary file, by
 * reader threads that poll by sleeping: no reader ever waits on a ring
 * buffer, so the kernel never sends irq_work wake-up IPIs on our behalf.
 *
 * Functions return 0 (or a valid pointer) on success, -1 (or NULL) on
 * failure with a one-line message in ipt_errmsg() naming the path.
 */
#ifndef IPT_LIVE_H
#define IPT_LIVE_H

#include "core/core.h"
#include "ringbuf/ringbuf.h"

#include <stdbool.h>
#include <stdint.h>

#define IPT_LIVE_TRACEFS	IPT_TRACEFS_PATH
#define IPT_LIVE_PREFIX		"ipitrace-"	/* instance name: PREFIX<pid> */

/* (ipitrace's private trace.dat options: core/core.h) */

/* ---- files ---- */

/* Read a whole (tracefs, proc, sysfs) file; *text is NUL-terminated. */
int ipt_file_read(const char *path, char **text, size_t *len);
/* Write text with one write(); on EINVAL the message says "rejected". */
int ipt_file_write(const char *path, const char *text);

/* ---- tracefs and CPUs ---- */

/*
 * Find the tracefs mount (IPT_LIVE_TRACEFS, /proc/mounts, debugfs's
 * tracing/).  If none and mount_it, mount tracefs at IPT_LIVE_TRACEFS and
 * set *mounted.  path receives the directory.
 */
int ipt_tracefs_find(char *path, size_t size, bool mount_it, bool *mounted);

/* CPU list of /sys/devices/system/cpu/NAME ("online", "isolated",
 * "nohz_full"); a missing file gives the empty set. */
int ipt_sysfs_cpulist(const char *name, struct ipt_cpuset *set);
/* This machine's isolated and nohz_full CPUs (sysfs; either may be empty). */
int ipt_live_cpu_isolation(struct ipt_cpuset *isolated, struct ipt_cpuset *nohz_full);
/* The text of the private option IPT_OPTION_CPU_ISOLATION for this machine
 * (every role ipt_trace_cpu_role reads), appended to out. */
int ipt_live_cpu_roles_text(struct ipt_strbuf *out);

/*
 * The CPUs the recorder's own threads may run on: online CPUs that are
 * neither isolated nor nohz_full; if that is every online CPU (nothing is
 * isolated), only the first CPU of allowed (the caller's affinity), so that
 * the other CPUs stay free of recorder activity.
 */
int ipt_housekeeping_cpus(struct ipt_cpuset *hk, const struct ipt_cpuset *online,
			  const struct ipt_cpuset *allowed);

/* ---- instances ---- */

struct ipt_live {
	char *tracefs;		/* tracefs mount point */
	char *dir;		/* tracefs/instances/name */
	char *name;
};

/*
 * Remove instances/ipitrace-<pid> whose pid no longer exists (left behind
 * by a SIGKILLed recorder).  report (may be NULL) is called for each one
 * removed.  Returns the number removed, -1 if instances/ cannot be read.
 */
int ipt_live_remove_stale(const char *tracefs,
			  void (*report)(const char *dir, void *arg), void *arg);

/* The pid of a "<prefix><pid>" name whose process no longer runs, else 0. */
long ipt_stale_pid(const char *name, const char *prefix);

/* ---- dynamic probes (kprobes.c) ---- */

/* kprobe group of a recorder: PREFIX<pid> (a group name allows no '-') */
#define IPT_KPROBE_PREFIX	"ipitrace_"
struct ipt_kprobes;
/* One defined probe: group/name on function, standing for stands_for
 * ("ipi:ipi_send_cpu", "ipi:ipi_send_cpumask", or "-": a caller whose call
 * site and function the next send takes); target: its target field. */
struct ipt_kprobe {
	const char *group, *name, *function, *stands_for, *role, *target;
	bool send;
};
/*
 * Define, in group IPT_KPROBE_PREFIX<pid>, kprobe events on the generic send
 * paths of this kernel (for kernels without ipi:ipi_send_cpu/_cpumask),
 * each on the first function of its list that the kernel offers
 * (available_filter_functions where readable, else /proc/kallsyms) and
 * accepts.  skipped (may be NULL) hears each one left out and why.  NULL
 * on failure; a set with no probe if none could be defined.
 */
struct ipt_kprobes *ipt_kprobes_define(const char *tracefs, int pid,
				       void (*skipped)(const char *msg, void *arg), void *arg);
int ipt_kprobes_count(const struct ipt_kprobes *k);
const struct ipt_kprobe *ipt_kprobes_get(const struct ipt_kprobes *k, int i);
/* The IPT_OPTION_PROBES text: "SYSTEM:NAME STANDS_FOR ROLE FUNCTION\n" each. */
const char *ipt_kprobes_option(const struct ipt_kprobes *k);
/* The byte offsets of a csd's u_flags and func from the running kernel's
 * BTF (/sys/kernel/btf/vmlinux): 1 found, 0 no BTF, -1 BTF without them. */
int ipt_btf_csd_layout(int *flags_off, int *func_off);
/* The kernel's hit and miss counts (kprobe_profile) added to the option's
 * lines (" hits=H missed=M"); *missed: the misses of all. */
int ipt_kprobes_count_missed(struct ipt_kprobes *k, uint64_t *missed);
/* Remove the probes (after the instance that enabled them) and free k;
 * -1 if one stays (the message names it). */
int ipt_kprobes_remove(struct ipt_kprobes *k);
/* Remove the probes of recorders that no longer run; report as for
 * ipt_live_remove_stale. */
int ipt_kprobes_remove_stale(const char *tracefs,
			     void (*report)(const char *dir, void *arg), void *arg);

/* mkdir tracefs/instances/name (fails if it exists). */
struct ipt_live *ipt_live_create(const char *tracefs, const char *name);
/* rmdir the instance (events, filters, triggers and buffers go with it)
 * and free l.  -1 if the directory could not be removed (l is freed). */
int ipt_live_destroy(struct ipt_live *l);

/* Files of the instance, rel relative to its directory. */
int ipt_live_write(struct ipt_live *l, const char *rel, const char *text);
int ipt_live_read(struct ipt_live *l, const char *rel, char **text, size_t *len);
bool ipt_live_exists(struct ipt_live *l, const char *rel);

/* events/sys/name (name NULL: the whole system) exists in the instance. */
bool ipt_live_has_event(struct ipt_live *l, const char *sys, const char *name);
int ipt_live_enable_event(struct ipt_live *l, const char *sys, const char *name, bool on);
/* Set the event's filter (NULL or "" clears it); on rejection the message
 * carries the kernel's parse error. */
int ipt_live_set_filter(struct ipt_live *l, const char *sys, const char *name,
			const char *expr);
/* Write a trigger ("stacktrace if cpu == 1"); remove with "!stacktrace". */
int ipt_live_set_trigger(struct ipt_live *l, const char *sys, const char *name,
			 const char *trigger);

bool ipt_live_clock_offered(struct ipt_live *l, const char *clock);
int ipt_live_set_clock(struct ipt_live *l, const char *clock);
int ipt_live_set_tracing(struct ipt_live *l, bool on);
int ipt_live_set_buffer_kb(struct ipt_live *l, unsigned long kb);
/* Sub-buffer ("page") size of the instance in bytes. */
int ipt_live_page_size(struct ipt_live *l, uint32_t *page_size);

/* ---- per-CPU stats (per_cpu/cpuN/stats) ---- */

struct ipt_cpu_stats {
	uint64_t entries;		/* events still in the buffer */
	uint64_t overrun;		/* overwritten before being read */
	uint64_t commit_overrun;	/* lost to nested writes filling a page */
	uint64_t bytes;
	uint64_t dropped;		/* dropped (buffer full, no overwrite) */
	uint64_t read;			/* events consumed by readers */
};
int ipt_stats_parse(const char *text, struct ipt_cpu_stats *st);
static inline uint64_t ipt_stats_lost(const struct ipt_cpu_stats *st)
{
	return st->overrun + st->commit_overrun + st->dropped;
}

/* ---- ring-buffer pages ---- */

/* Walk the whole pages of fd (from offset 0, native byte order) and count
 * their events. */
int ipt_pages_count(int fd, const struct ipt_page_layout *pl, struct ipt_page_tally *pc);

/* ---- capture ---- */

struct ipt_capture;

struct ipt_capture_opts {
	const struct ipt_cpuset *cpus;	/* CPUs whose buffers to read */
	const char *tmpdir;		/* where the per-CPU temporary files go */
	uint32_t page_size;
	unsigned int poll_ms;		/* sleep between polls (default 100) */
};

/*
 * Open every CPU's trace_pipe_raw (O_NONBLOCK) and an unnamed temporary
 * file per CPU in tmpdir, and start one reader thread per CPU.  The
 * threads inherit the caller's CPU affinity: pin the caller first.
 */
struct ipt_capture *ipt_capture_start(struct ipt_live *l, const struct ipt_capture_opts *o);
/* True once a reader failed (the message: ipt_capture_error()). */
bool ipt_capture_failed(struct ipt_capture *c);
const char *ipt_capture_error(struct ipt_capture *c);
/*
 * Call after tracing is off: the readers splice what is left, read the
 * last partial pages, and exit; trace_pipe_raw files are closed.  -1 if a
 * reader failed at any time.
 */
int ipt_capture_finish(struct ipt_capture *c);
int ipt_capture_ncpus(struct ipt_capture *c);
int ipt_capture_cpu(struct ipt_capture *c, int i);	/* CPU number of slot i */
int ipt_capture_fd(struct ipt_capture *c, int i);	/* its temporary file */
/* Bytes in slot i's file so far (any thread, also while the readers run). */
uint64_t ipt_capture_bytes(struct ipt_capture *c, int i);
/* Stop (if running), close everything; the temporary files vanish. */
void ipt_capture_free(struct ipt_capture *c);

/* ---- the timerlat or osnoise tracer beside the IPI events (spiketracer.c) ---- */

struct ipt_spike_tracer;
struct ipt_spike_tracer_opts {
	const char *tracer;		/* "timerlat" or "osnoise" */
	const struct ipt_cpuset *cpus;	/* osnoise/cpus: the CPUs it watches */
	unsigned long period_us;	/* 0: the kernel's (timerlat_period_us, or
					   osnoise's period_us = runtime_us) */
	unsigned long runtime_us;	/* osnoise's runtime_us (0: period_us) */
	unsigned long threshold_us;	/* stop_tracing_total_us (timerlat) or
					   stop_tracing_us (osnoise); 0: never */
};
/*
 * Check that this kernel has the tracer and that no other instance (nor
 * the top level) runs osnoise or timerlat, save the global osnoise/
 * settings and write ours.  NULL (nothing left changed) on failure.
 */
struct ipt_spike_tracer *ipt_spike_tracer_setup(struct ipt_live *live, const char *tracefs,
						const struct ipt_spike_tracer_opts *o);
/* The tracer on in the instance (its threads start; tracing_on says when
 * their samples are kept). */
int ipt_spike_tracer_start(struct ipt_spike_tracer *t);
/* The kernel turned the instance's tracing off (a stop_tracing threshold). */
bool ipt_spike_tracer_stopped(struct ipt_spike_tracer *t);
/* The instance's tracer back to nop; t forgets the instance. */
void ipt_spike_tracer_off(struct ipt_spike_tracer *t);
/* Tracer off, the saved settings written back, t freed; -1 if one stays. */
int ipt_spike_tracer_restore(struct ipt_spike_tracer *t);

/* ---- user stacks (ustack.c) ---- */

struct ipt_ustacks;
struct ipt_ustacks_stats {
	uint64_t records;		/* user_stack records seen */
	uint64_t in_irq;		/* ... in interrupt context (not the sender's own) */
	size_t processes, gone;		/* processes seen; of them, maps not read */
	size_t addresses, resolved;	/* distinct (process, address); of them, named */
};
/* Whether this build can resolve user stacks (elfutils). */
bool ipt_ustacks_built(void);
/* Start looking at what cap captures (pl: its pages) for user_stack
 * records (format: events/ftrace/user_stack/format), in a thread of its own. */
struct ipt_ustacks *ipt_ustacks_start(struct ipt_capture *cap, const struct ipt_page_layout *pl,
				      const char *format, size_t len);
/* Stop the thread and look at the rest (once the capture is drained). */
void ipt_ustacks_finish(struct ipt_ustacks *u);
/* Resolve every address seen: the option IPT_OPTION_USER_SYMBOLS appended to out. */
int ipt_ustacks_option(struct ipt_ustacks *u, struct ipt_strbuf *out, struct ipt_ustacks_stats *st);
void ipt_ustacks_free(struct ipt_ustacks *u);

#endif
