/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ipitrace-private.h - libipitrace's private tier: what the ipitrace
 * command line, the tests, the fuzz targets and tools/ need beyond the
 * stable API of ipitrace.h.
 *
 * Its rules, as trace-cmd keeps trace-cmd-private.h beside its public
 * header:
 *  - it is not installed, and nothing declared here is exported from
 *    libipitrace.so (the version script lists ipitrace.h alone); its
 *    functions reach the CLI through the static library;
 *  - no ABI or API promise: names, layouts and calls change whenever the
 *    CLI needs them to, without a version bump;
 *  - python/ and the examples of the documentation must not include it
 *    (tests/test_layers.sh checks that they call only the stable tier);
 *  - the conventions of ipitrace.h hold here too (ipt_ prefix, -1/NULL
 *    with ipt_errmsg(), options structs with .sz).
 * A function moves to ipitrace.h when a user of the library needs it, has
 * a caller or a test outside src/, and its interface is one to keep.
 */
#ifndef IPITRACE_PRIVATE_H
#define IPITRACE_PRIVATE_H

#include "ipitrace.h"

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What this library was built with, in a fixed order, each "+name" (built
 * in) or "-name" (left out: the build found no library for it, or was told
 * HAVE_BPF=0 or HAVE_DW=0): "+bpf +libdw +zstd +zlib".  bpf: in-kernel
 * counting for top and serve; libdw: the user stacks of a recording;
 * zstd, zlib: compressed trace.dat, always in.  `ipitrace --version`
 * prints it.
 */
const char *ipt_build_features(void);

/* ------------------------------------------------------------------ */
/* Dump: records as text, rendered in slices of time by threads        */
/* ------------------------------------------------------------------ */

/*
 * A dump: the records of a trace rendered as ipt_render_record does, one
 * line each (and a line before a record after lost events, if asked), in
 * the order of ipt_iter_new, ties included, handed out as blocks of whole
 * lines.  With threads, each renders slices of time of its own and the
 * text is the same as one thread's: where a stream's times go back, at a
 * bad record, and from the first sched_switch or sched_wakeup line kept
 * (it names tasks for the lines after it), one thread renders the rest.
 * Compressed traces, several buffers of one CPU and max_records are
 * rendered by one thread.
 */
struct ipt_dump;
struct ipt_dump_opts {
	size_t sz;			/* sizeof(struct ipt_dump_opts) */
	const struct ipt_cpuset *cpus;	/* only the records of these CPUs (NULL: all) */
	unsigned int flags;		/* enum ipt_render_flags */
	int threads;			/* as ipt_report_opts.threads: 0 the online CPUs,
					 * at most 8, but 1 below 16 MiB of CPU data */
	const char *filter;		/* only the records that match this event filter
					 * (ipt_event_filter_new; NULL or "": all) */
	/* keep (may be NULL): only the records it keeps.  Called from any of the
	 * threads, several at once: it must only read shared state. */
	bool (*keep)(void *ctx, const struct ipt_record *rec);
	void *keep_ctx;
	uint64_t max_records;		/* stop after this many records kept (0: all) */
	bool drop_lines;		/* "CPU:N [K EVENTS DROPPED]" before a record after
					 * lost events, as trace-cmd prints it */
};
/* NULL on error (IPT_ERR_INVALID: a bad filter, with its message). */
struct ipt_dump *ipt_dump_new(struct ipt_trace *t, const struct ipt_dump_opts *opts);
/*
 * The next block of text: 1 and *text, *len (whole lines, each ended by
 * '\n'; valid until the next call); 0 at the end; -1 on error (ipt_errmsg:
 * the file and offset of a bad record, once the text before it was
 * handed out).
 */
int ipt_dump_next(struct ipt_dump *d, const char **text, size_t *len);
void ipt_dump_free(struct ipt_dump *d);

/* ------------------------------------------------------------------ */
/* The IPI rows of each record                                         */
/* ------------------------------------------------------------------ */

/*
 * For a caller that walks the records itself (report --format uniq counts
 * trace-cmd's lines, one per record): fed every record of t in the order
 * of ipt_iter_new(t, NULL), it says which are IPI sends and which are csd
 * calls queued for a CPU (csd_queue_cpu), and how many of their rows the
 * row filter (ipt_ipi_iter_new's columns; NULL or "": all) keeps.  A send
 * has the IPI iterator's rows, one per target CPU, with the same columns;
 * a queued call stands for one row to its cpu from the CPU that recorded
 * it (event "csd_queue_cpu", its callsite and func, no callback, id 0).
 */
struct ipt_rec_rows;
enum ipt_rec_role {
	IPT_REC_OTHER,			/* neither: rows and kept are 0 */
	IPT_REC_SEND,			/* an IPI send event */
	IPT_REC_QUEUE,			/* a csd call queued for a CPU */
};
struct ipt_rec_rows_out {
	enum ipt_rec_role role;
	uint32_t rows;			/* its rows */
	uint32_t kept;			/* of those, the ones the filter keeps */
};
/* NULL on error (IPT_ERR_INVALID: a bad filter, with its message). */
struct ipt_rec_rows *ipt_rec_rows_new(struct ipt_trace *t, const char *filter);
/* The next record: 0 and *out filled, -1 on a decode error (ipt_errmsg). */
int ipt_rec_rows_feed(struct ipt_rec_rows *rr, const struct ipt_record *rec, struct ipt_rec_rows_out *out);
void ipt_rec_rows_free(struct ipt_rec_rows *rr);

/* ------------------------------------------------------------------ */
/* Output files, Parquet datasets, trace.dat rewriting, counting       */
/* ------------------------------------------------------------------ */

/*
 * Files that appear under their name only when complete.  The data goes to
 * an unnamed file in the target directory (O_TMPFILE), so that a process
 * killed at any moment leaves nothing behind; publishing fsyncs it and
 * gives it its name.  Where O_TMPFILE is not offered, a hidden
 * ".NAME.tmpXXXXXX" file beside it is used (left behind only by SIGKILL).
 */
struct ipt_afile {
	int fd;			/* the caller writes it, and closes it (after publish) */
	char *path;		/* the final name */
	char *tmp;		/* (private) the named temporary, if one is used */
};
/* A new file for path, in path's directory, with mode (less the umask). */
int ipt_afile_open(struct ipt_afile *a, const char *path, unsigned int mode);
/* fsync the data and give it its name (a->path): with !replace an existing
 * file there is an error ("PATH: the file exists; it is not replaced"), -1;
 * 0 on success (lib/output/afile.h: under another name) */
int ipt_afile_place(struct ipt_afile *a, bool replace);
/* Forget the file (a named temporary is removed); fd is left to the caller. */
void ipt_afile_discard(struct ipt_afile *a);

/*
 * Whether by is a valid list of partition keys: host and/or date, comma
 * separated, each at most once.  0, or -1 (IPT_ERR_INVALID) with a message
 * that names the problem, such as "empty key".
 */
int ipt_parquet_check_partition(const char *by);
/* Whether algo is a trace.dat compression this library reads and writes:
 * "none", "zstd" or "zlib". */
bool ipt_compression_supported(const char *algo);

/*
 * Explode: write trace.dat t (IPT_INPUT_TRACEDAT) again as out, with every
 * ipi:ipi_send_cpumask event become one ipi:ipi_send_cpu event per CPU of
 * its mask (same timestamp, common fields, call site and callback), and
 * every arm64 ipi:ipi_raise event one ipi_raise event per target, its mask
 * holding that CPU alone.  All other events are copied as they are, and so
 * are the headers, formats, symbols, task names, clock, uname and per-CPU
 * stats; lost-event marks are not carried over, and only the top-level
 * buffer is written.  out appears only when complete ("-": standard output).
 */
struct ipt_explode_opts {
	size_t sz;			/* sizeof(struct ipt_explode_opts) */
	const char *compression;	/* "none", "zstd", "zlib"; NULL: as t, else zstd */
	int version;			/* trace.dat version 6 (always uncompressed) or 7; 0: 7 */
	const char *creator;		/* the file's version option; NULL: "libipitrace <version>" */
	bool no_replace;		/* an existing out: an error, not replaced */
};
struct ipt_explode_stats {
	uint64_t events_in;		/* records read */
	uint64_t events_out;		/* records written */
	uint64_t masks;			/* mask events exploded */
	uint64_t singles;		/* single-CPU events they became */
};
/* 0, or -1 on error (IPT_ERR_INVALID for a text trace or a bad option).
 * opts and stats may be NULL. */
int ipt_explode(struct ipt_trace *t, const char *out, const struct ipt_explode_opts *opts,
		struct ipt_explode_stats *stats);

/*
 * Counting: decode every record of every CPU stream, CPU streams in
 * parallel, and count them per CPU and per event type; what reading a
 * trace costs before any analysis.
 */
struct ipt_count_opts {
	size_t sz;			/* sizeof(struct ipt_count_opts) */
	int threads;			/* decoding threads; 0: the online CPUs.
					 * At most one per CPU stream. */
};
struct ipt_count_cpu {
	int cpu;
	uint64_t records;
	uint64_t lost_events;		/* events the kernel dropped (known counts) */
	uint64_t lost_unknown;		/* drops of unknown size */
};
struct ipt_count_event {
	const struct ipt_event *event;
	uint64_t records;
};
struct ipt_counts {
	int ncpus;			/* CPU streams, in the order of the file */
	struct ipt_count_cpu *cpus;
	int nevents;			/* event types with records, by id */
	struct ipt_count_event *events;
	uint64_t unknown;		/* records of an unknown event type */
	uint64_t records;		/* all records */
	uint64_t lost_events, lost_unknown;	/* summed over the CPUs */
};
/* The counts of t, or NULL on error (ipt_errmsg).  opts may be NULL. */
struct ipt_counts *ipt_trace_count(struct ipt_trace *t, const struct ipt_count_opts *opts);
void ipt_counts_free(struct ipt_counts *c);

/* ------------------------------------------------------------------ */
/* Recording from the live kernel                                      */
/* ------------------------------------------------------------------ */

/*
 * A recording session captures IPI events from the running kernel into a
 * trace.dat (v7) that trace-cmd and KernelShark read.  It works in its own
 * tracefs instance (instances/ipitrace-<pid>), never in the top-level
 * buffer nor in another tool's instance, and removes it at the end.  Its
 * per-CPU readers poll trace_pipe_raw by sleeping and never block on a ring
 * buffer, so the kernel sends no wake-up IPIs on its behalf.  Needs root.
 *
 * The steps, in order: ipt_recorder_new(), ipt_recorder_probe() (the events of
 * this kernel: ipt_recorder_event()), ipt_recorder_arm() (filters, triggers,
 * events on), [the caller forks its command here: no trace_pipe_raw is open
 * yet], ipt_recorder_start() (readers, tracing on), [the caller waits, with
 * ipt_recorder_failed()], ipt_recorder_stop(), ipt_recorder_collect() (per-CPU
 * results: ipt_recorder_cpu()), ipt_recorder_write(), ipt_recorder_close(),
 * ipt_recorder_free().  Any step may fail (-1, ipt_errmsg(), and
 * ipt_recorder_error() says which request it was about); then call
 * ipt_recorder_close() and ipt_recorder_free().  Signals and the command are
 * the caller's.
 */
#define IPT_TRACEFS_PATH	"/sys/kernel/tracing"

enum ipt_tracefs_state {
	IPT_TRACEFS_MOUNTED,	/* mounted: path says where */
	IPT_TRACEFS_MOUNTABLE,	/* not mounted, IPT_TRACEFS_PATH exists (a recording mounts it) */
	IPT_TRACEFS_MISSING,	/* this kernel has no tracefs */
};
/* Where tracefs is (IPT_TRACEFS_PATH, /proc/mounts, debugfs's tracing/);
 * path (size >= 32) receives the directory, else IPT_TRACEFS_PATH. */
enum ipt_tracefs_state ipt_tracefs_state(char *path, size_t size);

/* Points where a session calls opts.checkpoint (tests stop the process there). */
enum ipt_recorder_point {
	IPT_RECORDER_PROBED,	/* events chosen, none enabled yet (start of ipt_recorder_arm) */
	IPT_RECORDER_WRITING,	/* the file written under its temporary name, not yet renamed */
};

/* Which request of the options a failure or a note is about. */
enum ipt_recorder_about {
	IPT_RECORDER_ABOUT_NONE,
	IPT_RECORDER_ABOUT_EVENTS,	/* opts.events */
	IPT_RECORDER_ABOUT_FILTER,	/* opts.filter */
	IPT_RECORDER_ABOUT_CLOCK,		/* opts.clock */
	IPT_RECORDER_ABOUT_STACKS,	/* opts.stacks */
	IPT_RECORDER_ABOUT_CPUS,		/* opts.cpus */
	IPT_RECORDER_ABOUT_USER_STACKS,	/* opts.user_stacks */
	IPT_RECORDER_ABOUT_TRACER,	/* opts.tracer */
};

/* What a note to the caller says (opts.note). */
enum ipt_recorder_note {
	IPT_RECORDER_NOTE_INFO,		/* informative: text is the whole line */
	IPT_RECORDER_NOTE_ERROR,		/* an error the session goes on after */
	IPT_RECORDER_NOTE_REJECTED,	/* the kernel rejected part of a request ('about'): text says why */
};

struct ipt_recorder_opts {
	size_t sz;			/* sizeof(struct ipt_recorder_opts) */
	const char *output;		/* trace.dat to write; "-": standard output */
	const struct ipt_cpuset *cpus;	/* NULL, or only IPIs targeting these (kernel
					   filters; needs Linux 6.6+ cpumask filters) */
	const char *filter;		/* NULL, or a kernel filter ANDed to the send events */
	bool stacks;			/* a stacktrace trigger on the send events */
	const char *events;		/* NULL, or more events: "SYS:NAME,SYS:*,SYS" */
	const char *clock;		/* NULL: mono if offered, else global */
	unsigned long buffer_kb;	/* per-CPU ring buffer in KiB (0: 4096) */
	const struct ipt_cpuset *housekeeping;	/* NULL: ipt_housekeeping_cpus() */
	const char *compression;	/* "zstd" (NULL) or "none" */
	/* Called with each informative line or note, in order (may be NULL). */
	void (*note)(enum ipt_recorder_note kind, enum ipt_recorder_about about,
		     const char *text, void *arg);
	/* Called at each enum ipt_recorder_point (may be NULL). */
	void (*checkpoint)(enum ipt_recorder_point point, void *arg);
	void *arg;
	/* Provenance stored in the file (ipt_trace_provenance), NULL: not said:
	 * the caller's command line as run, and the command it runs. */
	const char *command_line;
	const char *command;
	/* The sending task's user stack too (implies stacks): the instance's
	 * userstacktrace option (up to 8 frames, followed by frame pointers);
	 * resolved while recording, as the processes run, and stored in the
	 * file (ipt_trace_user_frame).  Needs a build with elfutils (libdw):
	 * ipt_recorder_new() refuses it otherwise. */
	bool user_stacks;
	/* An existing file at output: an error when the file is written, not
	 * replaced (the caller checks first, to say so before recording). */
	bool no_replace;
	/* The kernel's latency tracer beside the IPI events: "timerlat" or
	 * "osnoise" (NULL: none), in the instance, on tracer_cpus (NULL: the
	 * CPUs the readers do not run on, or all if they run on every one),
	 * with the osnoise:* events.  Its global osnoise/ settings are saved
	 * and restored; another instance running it is an error, as is a
	 * kernel without it.  tracer_period_us (0: the kernel's) is
	 * timerlat_period_us or osnoise's period_us and runtime_us;
	 * tracer_threshold_us (0: none) stop_tracing_total_us (timerlat) or
	 * stop_tracing_us (osnoise): the kernel stops tracing at the first
	 * sample over it (ipt_recorder_tracer_stopped); tracer_runtime_us
	 * (osnoise, 0: the period) its runtime_us. */
	const char *tracer;
	const struct ipt_cpuset *tracer_cpus;
	unsigned long tracer_period_us, tracer_threshold_us, tracer_runtime_us;
};

struct ipt_recorder;

/* A session (nothing touched yet); NULL if opts are invalid or out of memory. */
struct ipt_recorder *ipt_recorder_new(const struct ipt_recorder_opts *opts);
/*
 * Find (or mount) tracefs, remove instances of dead recorders, check the
 * output's directory, pin the calling thread to the housekeeping CPUs,
 * create the instance (tracing off), choose the clock and the events: the
 * IPI events of the catalogue this kernel has, and opts.events.
 */
int ipt_recorder_probe(struct ipt_recorder *r);

/* One IPI event of the catalogue as probed (those of other architectures
 * that this kernel lacks are not listed). */
struct ipt_recorder_event {
	const char *system, *name;
	bool present;			/* this kernel has it: it is recorded */
	bool send;			/* a send event */
	const char *since;		/* missing: the first Linux with it, or NULL */
	/* a dynamic probe record defined for the missing send events: the
	 * function it is on and what it stands for ("ipi:ipi_send_cpu",
	 * "ipi:ipi_send_cpumask", "-": a caller giving call site and
	 * function); NULL for a kernel event */
	const char *probe_function, *stands_for;
};
int ipt_recorder_nevents(const struct ipt_recorder *r);
const struct ipt_recorder_event *ipt_recorder_event(const struct ipt_recorder *r, int i);

/* Filters and triggers (parts the kernel rejects are noted and left out),
 * then every chosen event on. */
int ipt_recorder_arm(struct ipt_recorder *r);
/* Start the per-CPU readers (they inherit the pinned affinity) and tracing. */
int ipt_recorder_start(struct ipt_recorder *r);
/* True once a reader failed (ipt_errmsg()-style text: ipt_recorder_failure()). */
bool ipt_recorder_failed(const struct ipt_recorder *r);
const char *ipt_recorder_failure(const struct ipt_recorder *r);
/* Tracing off. */
int ipt_recorder_stop(struct ipt_recorder *r);
/* How the command ended when the recording ended it (before collect), for
 * the provenance ("command_end"), e.g. "SIGTERM after 3.00 s (-d)". */
int ipt_recorder_set_command_end(struct ipt_recorder *r, const char *how);
/* Let the readers drain the buffers, read the stats: ipt_recorder_cpu() is
 * then valid; the file is prepared under a temporary name. */
int ipt_recorder_collect(struct ipt_recorder *r);
/* Remove the instance (a failure is noted as IPT_RECORDER_NOTE_ERROR and
 * makes ipt_recorder_close() return -1) and commit the file under its name. */
int ipt_recorder_write(struct ipt_recorder *r);
/* Tracing off, readers stopped, a file not written removed, the instance
 * removed; -1 if the instance could not be removed (noted). */
int ipt_recorder_close(struct ipt_recorder *r);
void ipt_recorder_free(struct ipt_recorder *r);

/* The kernel stopped the tracing (opts.tracer_threshold_us was crossed):
 * the recording holds everything up to that sample; end it. */
bool ipt_recorder_tracer_stopped(const struct ipt_recorder *r);
/* The CPUs the tracer watches (after ipt_recorder_arm; empty: no tracer). */
const struct ipt_cpuset *ipt_recorder_tracer_cpus(const struct ipt_recorder *r);

/* What the session runs with (after ipt_recorder_probe). */
const struct ipt_cpuset *ipt_recorder_cpus(const struct ipt_recorder *r);	/* CPUs recorded */
const struct ipt_cpuset *ipt_recorder_readers(const struct ipt_recorder *r); /* where readers run */
const char *ipt_recorder_clock(const struct ipt_recorder *r);
unsigned long ipt_recorder_buffer_kb(const struct ipt_recorder *r);
/* The request (opts) the last failure was about. */
enum ipt_recorder_about ipt_recorder_error(const struct ipt_recorder *r);

/* Counts so far of a running recording (between ipt_recorder_start and
 * ipt_recorder_collect; from the thread that drives the session).  Events
 * are counted in the whole pages the readers captured so far, so they lag
 * by up to a poll interval and a page; lost is the kernel's counters now. */
struct ipt_recorder_progress {
	uint64_t events;		/* data events captured */
	uint64_t sends;			/* ... of them IPI send events */
	uint64_t lost;			/* overrun + commit_overrun + dropped, every CPU */
	uint64_t missed;		/* events the captured pages flag as missed */
	bool missed_unknown;		/* a flagged page had no stored count */
	uint64_t bytes;			/* bytes captured (before compression) */
};
int ipt_recorder_progress(struct ipt_recorder *r, struct ipt_recorder_progress *p);

/* One CPU's result (after ipt_recorder_collect). */
struct ipt_recorder_cpu {
	int cpu;
	uint64_t events;		/* events in the file */
	uint64_t lost;			/* overrun + commit_overrun + dropped */
	uint64_t overrun, commit_overrun, dropped;	/* the kernel's counters */
	uint64_t read;			/* the kernel's count of events read */
	uint64_t pages, missed_pages;	/* pages, pages flagged "events missed" */
	bool missed_unknown;		/* a flagged page had no stored count */
	uint64_t bytes;			/* bytes captured */
};
int ipt_recorder_ncpus(const struct ipt_recorder *r);
const struct ipt_recorder_cpu *ipt_recorder_cpu(const struct ipt_recorder *r, int i);

/* (end of the recording section) */

/*
 * ---- In-kernel counting with BPF (`ipitrace top`) ----
 *
 * BPF programs on the IPI tracepoints count in kernel maps, and the caller
 * polls the maps: no ring buffer, no wake-up, so nothing is sent to the
 * CPUs being watched once the programs are attached.  Sends are counted
 * per (target CPU, sending CPU, event, call site, callback or function,
 * sending command): ipi_send_cpu (tp_btf), ipi_send_cpumask (tp_btf, one
 * count per target CPU of the mask), csd_queue_cpu (raw_tp: the function
 * the target runs); receive handler time per (CPU, vector) from the x86
 * irq_vectors *_entry/_exit pairs, as a log2 histogram.  Tracepoints this
 * kernel lacks are skipped and named (ipt_counter_skipped).  Attaching and
 * detaching patch kernel text, which sends IPIs to every CPU: attach once
 * and stay attached.  Needs root (CAP_BPF and CAP_PERFMON) and the kernel's
 * BTF (/sys/kernel/btf/vmlinux).
 */


enum ipt_counter_event {
	IPT_COUNTER_SEND_CPU = 0,		/* ipi:ipi_send_cpu */
	IPT_COUNTER_SEND_CPUMASK = 1,	/* ipi:ipi_send_cpumask (one count per target) */
	IPT_COUNTER_CSD_QUEUE = 2,		/* csd:csd_queue_cpu: addr2 is the function */
	IPT_COUNTER_HANDLER = 3,		/* rows only: an IPI handler on a watched CPU
					 * (ts_ns its entry, src that CPU, callsite its
					 * enum ipt_counter_vector, addr2 its time in ns) */
};
/* "ipi_send_cpu", "ipi_send_cpumask", "csd_queue_cpu", "handler" */
const char *ipt_counter_event_name(enum ipt_counter_event ev);

/* x86 receive vectors, handler time measured from *_entry to *_exit */
enum ipt_counter_vector {
	IPT_COUNTER_VEC_RESCHEDULE = 0,
	IPT_COUNTER_VEC_CALL_FUNCTION = 1,
	IPT_COUNTER_VEC_CALL_FUNCTION_SINGLE = 2,
	IPT_COUNTER_VEC_IRQ_WORK = 3,
	IPT_COUNTER_NVECTORS = 4,
};
/* "reschedule", "call_function", "call_function_single", "irq_work" */
const char *ipt_counter_vector_name(enum ipt_counter_vector v);

#define IPT_COUNTER_HIST_SLOTS 32		/* slot i: [2^i, 2^(i+1)) ns */

struct ipt_counter_send {
	int target;			/* target CPU */
	int src;			/* sending CPU */
	enum ipt_counter_event event;
	uint64_t callsite;
	uint64_t addr2;			/* callback (sends), function (csd) */
	uint64_t func;			/* sends: the function of the csd queued just before
					 * for this target (the function really run), 0: none */
	char comm[16];			/* sending command */
	uint64_t count;
};

struct ipt_counter_handler {
	int cpu;
	enum ipt_counter_vector vector;
	uint64_t count, sum_ns, max_ns;	/* max_ns: since attach, not a delta */
	uint64_t hist[IPT_COUNTER_HIST_SLOTS];
};

/* Counters that say what was not counted (never silent). */
enum ipt_counter_error {
	IPT_COUNTER_ERR_SEND_FULL = 0,	/* a send not counted: the send map is full */
	IPT_COUNTER_ERR_SEND_UPDATE,	/* a send not counted: another map error */
	IPT_COUNTER_ERR_HANDLER_FULL,	/* a handler time not counted: map full */
	IPT_COUNTER_ERR_MASK_READ,		/* a cpumask word could not be read */
	IPT_COUNTER_ERR_NO_ENTRY,		/* a handler exit without its entry (at attach) */
	IPT_COUNTER_ERR_RING_FULL,		/* a watched row not kept: the ring buffer was full */
	IPT_COUNTER_ERR_JOIN_FULL,		/* a csd call's function not tied to its send: map full */
	IPT_COUNTER_ERR_TRACEFS_LOST,	/* the tracefs fallback: events the kernel lost */
	IPT_COUNTER_NERRORS,
};
/* "send_map_full", "send_update", "handler_map_full", "mask_read", "exit_without_entry",
 * "ring_full", "join_full", "tracefs_lost" */
const char *ipt_counter_error_name(enum ipt_counter_error e);

/* The maps at one moment (ipt_counter_read), or the difference of two. */
struct ipt_counter_snapshot {
	double time;			/* CLOCK_MONOTONIC seconds of the read */
	size_t nsends;
	struct ipt_counter_send *sends;	/* sorted by target, then count (descending) */
	size_t nhandlers;
	struct ipt_counter_handler *handlers;	/* sorted by CPU, vector */
	uint64_t errors[IPT_COUNTER_NERRORS];
	uint64_t recursion_misses;	/* the kernel's, every program: runs skipped */
};

struct ipt_counter_opts {
	size_t sz;			/* sizeof(struct ipt_counter_opts) */
	/* pin the calling thread there before loading (NULL:
	 * ipt_housekeeping_cpus(), as the recorder does); no_pin: leave it */
	const struct ipt_cpuset *housekeeping;
	bool no_pin;
	bool stats;			/* kernel BPF run-time stats while open */
	/* the flight recorder: the sends (and csd queueings) whose targets
	 * include a CPU of watch are kept as rows in a ring buffer of
	 * ring_bytes (a power of 2 >= 4096; 0: 4 MiB) written without
	 * wake-ups; read them with ipt_counter_drain().  NULL or empty: none. */
	const struct ipt_cpuset *watch;
	size_t ring_bytes;
	bool stacks;			/* rows carry the sender's kernel stack (about
					 * 1.5-3 us per row kept, only for watched CPUs) */
	bool handler_rows;		/* rows for the IPI handlers that run on the
					 * watched CPUs too (IPT_COUNTER_HANDLER) */
};

struct ipt_counter;

/* One row of the flight recorder. */
#define IPT_COUNTER_ROW_MASK_WORDS 4
struct ipt_counter_row {
	uint64_t ts_ns;			/* CLOCK_MONOTONIC */
	int src;			/* sending CPU */
	int pid;			/* sending thread */
	enum ipt_counter_event event;
	unsigned int ntargets;		/* targets (mask: CPUs 0-255 only) */
	uint64_t mask[IPT_COUNTER_ROW_MASK_WORDS];
	uint64_t callsite;
	uint64_t addr2;			/* callback (sends), function (csd) */
	char comm[16];
	unsigned int nstack;		/* frames in stack (opts.stacks) */
	uint64_t stack[32];		/* the sender's kernel stack, leaf first */
};
typedef void (*ipt_counter_row_fn)(const struct ipt_counter_row *row, void *ctx);
/* Hand every row written since the last call to fn (never blocks, sends no
 * wake-up); the number of rows, -1 on error. */
int ipt_counter_drain(struct ipt_counter *b, ipt_counter_row_fn fn, void *ctx);

/*
 * Load the programs this kernel can run and attach them (once).  NULL on
 * failure: ipt_errmsg() says why (not built with libbpf, no BTF, no
 * permission, the verifier's refusal); a tracepoint that is missing or
 * that does not attach is skipped, not a failure, unless every send
 * tracepoint is.
 */
struct ipt_counter *ipt_counter_open(const struct ipt_counter_opts *opts);
/*
 * The fallback where BPF is unavailable: the same counts (sends and csd
 * queueings; no handler times, no rows) from a tracefs instance of its own
 * (instances/ipitrace-<pid>) with the send events on, its trace_pipe read
 * with O_NONBLOCK by ipt_counter_read (never waited on: no wake-up IPIs); lost
 * events count as IPT_COUNTER_ERR_TRACEFS_LOST.  Needs root and tracefs.
 */
struct ipt_counter *ipt_counter_open_tracefs(const struct ipt_counter_opts *opts);
/* What counts: "bpf", "serve" (ipt_counter_connect) or "tracefs". */
const char *ipt_counter_backend(const struct ipt_counter *b);
/* Comma-separated tracepoints attached / skipped ("" when none). */
const char *ipt_counter_attached(const struct ipt_counter *b);
const char *ipt_counter_skipped(const struct ipt_counter *b);
/* Nanoseconds ipt_counter_open spent loading and attaching. */
uint64_t ipt_counter_attach_ns(const struct ipt_counter *b);
/* The CPUs the caller was pinned to (empty with no_pin). */
const struct ipt_cpuset *ipt_counter_pinned(const struct ipt_counter *b);
/* Read every map (one syscall per entry; nothing is deleted). */
struct ipt_counter_snapshot *ipt_counter_read(struct ipt_counter *b);
/* now - before, entry by entry (entries never go away); NULL on no memory. */
struct ipt_counter_snapshot *ipt_counter_snapshot_diff(const struct ipt_counter_snapshot *now,
					       const struct ipt_counter_snapshot *before);
void ipt_counter_snapshot_free(struct ipt_counter_snapshot *s);
/* The kernel symbol at or below addr (kallsyms read after attaching), NULL if none. */
const char *ipt_counter_symbol(const struct ipt_counter *b, uint64_t addr, uint64_t *offset);
/* Kernel run-time stats of program i (0 <= i < ipt_counter_nprogs), with opts.stats;
 * -1 if i is not attached. */
struct ipt_counter_prog_stats {
	const char *name;		/* the tracepoint */
	uint64_t run_cnt, run_time_ns, recursion_misses;
};
int ipt_counter_nprogs(const struct ipt_counter *b);
int ipt_counter_prog_stats(const struct ipt_counter *b, int i, struct ipt_counter_prog_stats *st);
/* Detach, unload, restore the caller's affinity; NULL is fine. */
void ipt_counter_close(struct ipt_counter *b);

/*
 * Sharing one attachment (`ipitrace serve`): the snapshot as text
 * (ipt_counter_snapshot_text, malloc'ed, with the attached and skipped lists
 * and the loader's CPUs), and a client that reads such snapshots from the
 * serving process over its unix socket at path instead of attaching again:
 * ipt_counter_connect returns a handle on which ipt_counter_read, _attached,
 * _skipped, _pinned and _symbol work (symbols from this process's
 * kallsyms) and that attaches nothing; like ipt_counter_open it pins the
 * calling thread to the housekeeping CPUs (best effort) until
 * ipt_counter_close.  NULL when nothing serves at path
 * (errno then ENOENT or ECONNREFUSED) or when its answer is
 * malformed.  ipt_counter_remote_pid: the serving process (0 for a local handle).
 */
char *ipt_counter_snapshot_text(const struct ipt_counter *b, const struct ipt_counter_snapshot *s,
			    size_t *len);
struct ipt_counter *ipt_counter_connect(const char *path);
int ipt_counter_remote_pid(const struct ipt_counter *b);
/* GET what ("/watched.txt") from the serving process at path: the body of
 * its 200 answer (malloc'ed, NUL-terminated, *len bytes), else NULL. */
char *ipt_counter_remote_get(const char *path, const char *what, size_t *len);

/* The words of a CPU set (bit c % 64 of word c / 64: CPU c), *n set: for
 * loops over whole words.  Right for a zero-initialised or moved set too. */
static inline const uint64_t *ipt_cpuset_words(const struct ipt_cpuset *set, uint32_t *n)
{
	if (!set->words || set->nwords <= sizeof(set->inline_words) / sizeof(set->inline_words[0])) {
		*n = sizeof(set->inline_words) / sizeof(set->inline_words[0]);
		return set->inline_words;
	}
	*n = set->nwords;
	return set->words;
}

/* This machine's isolated and nohz_full CPUs (sysfs), as one set. */
int ipt_isolated_cpus(struct ipt_cpuset *set);
/* This machine's possible CPUs (sysfs; where it cannot be read, the
 * configured ones). */
int ipt_possible_cpus(struct ipt_cpuset *set);

/* ------------------------------------------------------------------ */
/* Hashing, and the one hash map                                       */
/* ------------------------------------------------------------------ */

/*
 * The hash functions every table uses.
 */
/* A 64-bit value, every bit mixed into the low ones (Fibonacci hashing
 * with the high half folded down). */
static inline uint64_t ipt_hash64(uint64_t v)
{
	uint64_t h = v * 0x9e3779b97f4a7c15ULL;

	return h ^ (h >> 32);
}

/* h and one more value. */
static inline uint64_t ipt_hash_combine(uint64_t h, uint64_t v)
{
	return ipt_hash64(h ^ (v + 0x632be59bd9b4e019ULL + (h << 6) + (h >> 2)));
}

/* Bytes (FNV-1a, folded). */
static inline uint64_t ipt_hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

/* The home slot of hash h in a table of cap slots (a power of two). */
static inline size_t ipt_hash_slot(uint64_t h, size_t cap)
{
	return (size_t)h & (cap - 1);
}

/*
 * The one hash map of the library and the CLI.
 *
 * Open addressing with linear probing in a power-of-two number of slots.
 * The entries live in the slots themselves, so that a key, its flag and
 * its value share a cache line: an entry is any struct whose first member
 * is its tag, a uint64_t made from the key's hash by ipt_hmap_tag (never
 * 0: 0 marks an empty slot).  The map keeps the tags, so that it can grow
 * and delete (backward shift) without knowing the key; finding a key
 * takes the table's own comparison, which the compiler inlines:
 *
 *	struct ent { uint64_t tag; int pid; const char *name; };
 *	uint64_t tag = ipt_hmap_tag(ipt_hash64(pid));
 *	struct ent *e;
 *
 *	bool added;
 *
 *	e = ipt_hmap_add(&m, sizeof(*e), tag, ent_eq, &pid, &added);
 *	if (!e)
 *		return -1;			// out of memory
 *	if (added)
 *		e->pid = pid;			// a new entry: fill it
 *
 * The hash functions are those above.
 */
struct ipt_hmap {
	void *slot;		/* cap entries (NULL while cap is 0) */
	size_t n, cap;		/* entries in use, slots (0 or a power of two) */
	uint64_t moves;		/* times the slots moved (grown): pointers into
				 * them taken at another count are stale (a new
				 * array may lie where a freed one was) */
};

/* The tag of a key of hash h. */
static inline uint64_t ipt_hmap_tag(uint64_t h)
{
	return h ? h : 1;
}

/* The tag of the entry at e (0: the slot is empty). */
static inline uint64_t ipt_hmap_tag_of(const void *e)
{
	uint64_t t;

	memcpy(&t, e, sizeof(t));
	return t;
}

static inline bool ipt_hmap_used(const void *e)
{
	return ipt_hmap_tag_of(e) != 0;
}

/* Slot i (0 .. cap - 1) of a map of entries of esz bytes. */
static inline void *ipt_hmap_at(const struct ipt_hmap *m, size_t esz, size_t i)
{
	return (char *)m->slot + i * esz;
}

/*
 * ipt_hmap_find - the entry of the key with this tag for which eq(entry,
 * key) holds, or else the empty slot where it would go (ipt_hmap_used
 * tells which); NULL only while the map has no slots.  eq sees only
 * entries of the same tag.
 */
static inline void *ipt_hmap_find(const struct ipt_hmap *m, size_t esz, uint64_t tag,
				  bool (*eq)(const void *entry, const void *key), const void *key)
{
	size_t mask = m->cap - 1;

	if (!m->cap)
		return NULL;
	for (size_t i = (size_t)tag & mask;; i = (i + 1) & mask) {
		void *e = ipt_hmap_at(m, esz, i);
		uint64_t t = ipt_hmap_tag_of(e);

		if (!t || (t == tag && eq(e, key)))
			return e;
	}
}

/* Mark the empty slot e (from ipt_hmap_find) used by a key of this tag;
 * the caller fills the rest of the entry. */
static inline void ipt_hmap_take(struct ipt_hmap *m, void *e, uint64_t tag)
{
	memcpy(e, &tag, sizeof(tag));
	m->n++;
}

/*
 * ipt_hmap_reserve - room for more entries without growing, the slots at
 * most half full (a larger table rehashed by the tags kept: entries move,
 * pointers into the map are stale after it).  0, or -1 without memory
 * (ipt_err; the map unchanged).  The test of room is inline,
 * ipt_hmap_grow the rest.
 */
int ipt_hmap_grow(struct ipt_hmap *m, size_t esz, size_t more);
static inline int ipt_hmap_reserve(struct ipt_hmap *m, size_t esz, size_t more)
{
	return __builtin_expect((m->n + more) * 2 <= m->cap, 1) ? 0 : ipt_hmap_grow(m, esz, more);
}

/*
 * ipt_hmap_add - the entry of the key (ipt_hmap_find), made first when it
 * is not there: room reserved, the slot taken with this tag, *added true
 * (the caller fills the rest of the entry, zero but for the tag).  NULL
 * without memory (ipt_err).
 */
static inline void *ipt_hmap_add(struct ipt_hmap *m, size_t esz, uint64_t tag,
				 bool (*eq)(const void *entry, const void *key), const void *key,
				 bool *added)
{
	void *e;

	if (ipt_hmap_reserve(m, esz, 1))
		return NULL;
	e = ipt_hmap_find(m, esz, tag, eq, key);
	*added = !ipt_hmap_used(e);
	if (*added)
		ipt_hmap_take(m, e, tag);
	return e;
}

/* Remove the used entry e: later entries of its run move back (pointers
 * into the map are stale after it). */
void ipt_hmap_remove(struct ipt_hmap *m, size_t esz, void *e);

/* Every slot empty, the memory kept. */
void ipt_hmap_clear(struct ipt_hmap *m, size_t esz);

/* The memory freed; the map empty (it may be used again). */
void ipt_hmap_free(struct ipt_hmap *m);

/* ------------------------------------------------------------------ */
/* Arrays that grow                                                    */
/* ------------------------------------------------------------------ */

/*
 * ipt_grow - the one way an array grows: room for need elements of esz
 * bytes in the array at *arrp (a T ** passed as void *), which has room
 * for *cap now.  It doubles (from 16) until need fits, so that n appends
 * cost O(n), but never past max elements.  0 (also when need <= *cap),
 * or -1 (ipt_err: out of memory, or need above max; the array and *cap
 * unchanged).
 *
 * IPT_GROW(arr, cap, need), for a T *arr and a cap of any integer type
 * (its type's maximum is max), tests the room inline; its arguments are
 * read more than once (no side effects).  IPT_GROW_ZERO zeroes the new
 * room [old cap, new cap): for an array indexed by CPU or id rather than
 * appended to.
 */
int ipt_grow(void *arrp, size_t *cap, size_t esz, size_t need, size_t max);
int ipt_grow_zero(void *arrp, size_t *cap, size_t esz, size_t need, size_t max);
#define IPT_INT_MAX_OF(x)                                                 \
	((__typeof__(x))-1 > (__typeof__(x))0 ? (size_t)(__typeof__(x))-1      \
	 : (size_t)((1ULL << (sizeof(x) * 8 - 1)) - 1))
#define IPT_GROW_WITH(fn, arr, cap, need) __extension__({                 \
	size_t ipt_cap_ = (size_t)(cap);                                  \
	int ipt_ret_ = __builtin_expect((size_t)(need) <= ipt_cap_, 1) ? 0  \
		: fn(&(arr), &ipt_cap_, sizeof(*(arr)), (size_t)(need),   \
		     IPT_INT_MAX_OF(cap));                                \
	(cap) = (__typeof__(cap))ipt_cap_;                                \
	ipt_ret_;                                                         \
})
#define IPT_GROW(arr, cap, need) IPT_GROW_WITH(ipt_grow, arr, cap, need)
#define IPT_GROW_ZERO(arr, cap, need) IPT_GROW_WITH(ipt_grow_zero, arr, cap, need)

/* ------------------------------------------------------------------ */
/* JSON strings                                                        */
/* ------------------------------------------------------------------ */

/*
 * s[0..n) as a JSON string, quoted, added to sb: the one escaper of every
 * JSON output (report -f json, convert -f jsonl, top -f json, serve's
 * /watched).  Its rule:
 *  - valid UTF-8 is kept as it is (a name "wörker" stays "wörker");
 *  - '"' and '\' are written \" and \\;
 *  - a control byte (below 0x20, NUL included) and DEL (0x7f) are written
 *    \u00XX (lower-case hex: "\u000a", "\u007f");
 *  - a byte that is not part of valid UTF-8 (a stray continuation byte,
 *    C0, C1 or F5-FF, a sequence cut short, an overlong form, a surrogate,
 *    a code point above U+10FFFF) is written \u00XX of that byte, and the
 *    bytes after it are looked at afresh: "\xff" becomes "\u00ff".
 * The output is therefore always valid UTF-8 and valid JSON.  0, or -1
 * when out of memory (sb then as it was).
 */
int ipt_json_str(struct ipt_strbuf *sb, const char *s, size_t n);
/* The same for a NUL-terminated s; null (unquoted) when s is NULL. */
int ipt_json_strz(struct ipt_strbuf *sb, const char *s);

/*
 * The JSON writer: every JSON output (report -f json, convert -f jsonl,
 * top -f json, serve's /watched) is written through it, so that commas,
 * nesting, strings (ipt_json_str), numbers and nulls follow one rule.
 * Compact: no blanks.  Into sb, and when f is given, written to f as sb
 * fills (at each top-level value past 64 KiB) and at ipt_jw_finish.
 * The calls record a failure (out of memory, a write error, an end
 * without an open container, deeper than 62) and ipt_jw_finish says it:
 *
 *	ipt_jw_init(&j, &sb, stdout);
 *	ipt_jw_obj(&j);
 *	ipt_jw_key(&j, "cpus"); ipt_jw_i64(&j, 2);
 *	ipt_jw_key(&j, "clock"); ipt_jw_str(&j, NULL);	// null
 *	ipt_jw_end(&j);
 *	if (ipt_jw_finish(&j)) ...			// {"cpus":2,"clock":null}
 */
struct ipt_jw {
	struct ipt_strbuf *sb;
	FILE *f;
	int depth;
	uint64_t has_item, is_arr;	/* per depth: an item written; an array */
	bool after_key;			/* the next value follows a key */
	int err;
};
void ipt_jw_init(struct ipt_jw *j, struct ipt_strbuf *sb, FILE *f);
void ipt_jw_obj(struct ipt_jw *j);		/* { */
void ipt_jw_arr(struct ipt_jw *j);		/* [ */
void ipt_jw_end(struct ipt_jw *j);		/* } or ] of the innermost */
void ipt_jw_key(struct ipt_jw *j, const char *k);
void ipt_jw_str(struct ipt_jw *j, const char *s);	/* NULL: null */
void ipt_jw_strn(struct ipt_jw *j, const char *s, size_t n);
void ipt_jw_u64(struct ipt_jw *j, uint64_t v);
void ipt_jw_i64(struct ipt_jw *j, int64_t v);
void ipt_jw_fixed(struct ipt_jw *j, double v, int decimals);	/* printf %.*f */
void ipt_jw_double(struct ipt_jw *j, double v);	/* %.12g; NAN, infinities: null */
void ipt_jw_bool(struct ipt_jw *j, bool v);
void ipt_jw_null(struct ipt_jw *j);
void ipt_jw_addr(struct ipt_jw *j, uint64_t a);	/* "0x..."; 0: null */
void ipt_jw_hex(struct ipt_jw *j, uint64_t v);	/* "0x...", "0x0" too */
/* The comma before the next item now, so that text can follow it
 * (ipt_jw_raw: a newline between the rows of an array) */
void ipt_jw_next(struct ipt_jw *j);
void ipt_jw_raw(struct ipt_jw *j, const char *text);	/* as it is */
/* 0, or -1 if anything failed; the rest written to f */
int ipt_jw_finish(struct ipt_jw *j);
/* key and value in one call */
static inline void ipt_jw_kstr(struct ipt_jw *j, const char *k, const char *s)
{
	ipt_jw_key(j, k);
	ipt_jw_str(j, s);
}
static inline void ipt_jw_ku64(struct ipt_jw *j, const char *k, uint64_t v)
{
	ipt_jw_key(j, k);
	ipt_jw_u64(j, v);
}
static inline void ipt_jw_ki64(struct ipt_jw *j, const char *k, int64_t v)
{
	ipt_jw_key(j, k);
	ipt_jw_i64(j, v);
}
static inline void ipt_jw_kdouble(struct ipt_jw *j, const char *k, double v)
{
	ipt_jw_key(j, k);
	ipt_jw_double(j, v);
}
static inline void ipt_jw_kbool(struct ipt_jw *j, const char *k, bool v)
{
	ipt_jw_key(j, k);
	ipt_jw_bool(j, v);
}
static inline void ipt_jw_kfixed(struct ipt_jw *j, const char *k, double v, int decimals)
{
	ipt_jw_key(j, k);
	ipt_jw_fixed(j, v, decimals);
}
static inline void ipt_jw_kaddr(struct ipt_jw *j, const char *k, uint64_t a)
{
	ipt_jw_key(j, k);
	ipt_jw_addr(j, a);
}
static inline void ipt_jw_khex(struct ipt_jw *j, const char *k, uint64_t v)
{
	ipt_jw_key(j, k);
	ipt_jw_hex(j, v);
}
static inline void ipt_jw_knull(struct ipt_jw *j, const char *k)
{
	ipt_jw_key(j, k);
	ipt_jw_null(j);
}
/* "k": v when has, else null */
static inline void ipt_jw_kopt_u64(struct ipt_jw *j, const char *k, bool has, uint64_t v)
{
	ipt_jw_key(j, k);
	if (has)
		ipt_jw_u64(j, v);
	else
		ipt_jw_null(j);
}
static inline void ipt_jw_kopt_i64(struct ipt_jw *j, const char *k, bool has, int64_t v)
{
	ipt_jw_key(j, k);
	if (has)
		ipt_jw_i64(j, v);
	else
		ipt_jw_null(j);
}

#ifdef __cplusplus
}
#endif
#endif /* IPITRACE_PRIVATE_H */
