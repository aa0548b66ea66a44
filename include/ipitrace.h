/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ipitrace.h - the stable API of libipitrace
 *
 * libipitrace reads kernel traces (trace.dat v6/v7, `trace-cmd report` text,
 * tracefs `trace` text), decodes every record against the event format files
 * stored with the trace, and gives cpumask fields as native CPU sets.
 *
 * Start here:
 *   struct ipt_trace *t = ipt_trace_open("trace.dat");     reading
 *   struct ipt_ipi_iter *it = ipt_ipi_iter_new(t, "target_cpu == 3");
 *   struct ipt_ipi_row row;                                one row per
 *   while (ipt_ipi_next(it, &row) > 0)                     (send, target CPU)
 *           printf("%d -> %d %s\n", row.src_cpu, row.target_cpu,
 *                  ipt_kind_name(row.kind));
 *   ipt_ipi_iter_free(it);
 *   struct ipt_report *r = ipt_report_run(t, NULL);        counts, matching,
 *   ... ipt_report_summary(r), ipt_report_cpu(r, 3) ...    latencies
 *   ipt_report_free(r);
 *   ipt_trace_close(t);
 * The sections below, in order: errors; CPU sets; traces, events, fields
 * and records; iteration in time order; rendering as `trace-cmd report`
 * does; filters; the IPI rows; writers (CSV, JSON lines, Parquet); reports;
 * latency spikes.
 * Link with `pkg-config --libs ipitrace`.
 *
 * This header is the stable tier: what it declares is exported from
 * libipitrace.so under the version node IPITRACE_<major>, and changes only
 * by adding (fields at the end of options structs, new functions).  What
 * the ipitrace command line alone needs (recording, in-kernel counting,
 * dumps, trace.dat rewriting) is in the private, uninstalled
 * ipitrace-private.h, which makes no such promise.
 *
 * Conventions:
 *  - every symbol has the prefix ipt_ (types struct ipt_*, macros IPT_*);
 *  - objects are opaque and owned by whoever created them with an _open or _new call;
 *    they are released with the matching _close or _free call, which accepts NULL;
 *  - functions that can fail return 0 or a valid pointer on success, and on
 *    failure -1 or NULL with a one-line message available from ipt_errmsg()
 *    (thread-local), of the form "FILE: offset N: what went wrong", and a
 *    code from ipt_errcode() that says what kind of failure it was (callers
 *    decide on the code, never on the message's text);
 *  - options structs carry their size (`.sz = sizeof(opts)`, as libbpf's
 *    do), so that fields can be added without breaking callers.
 */
#ifndef IPITRACE_H
#define IPITRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every function declared here is exported from libipitrace.so, and no other
 * (ipitrace-private.h declares the private tier: hidden, linked statically). */
#pragma GCC visibility push(default)

#define IPT_VERSION_MAJOR 0
#define IPT_VERSION_MINOR 1
#define IPT_VERSION_PATCH 0
#define IPT_STR_(x) #x
#define IPT_STR(x) IPT_STR_(x)
/* "M.m.p" of this header */
#define IPT_VERSION IPT_STR(IPT_VERSION_MAJOR) "." IPT_STR(IPT_VERSION_MINOR) "." \
	IPT_STR(IPT_VERSION_PATCH)

/* The version of the library linked ("M.m.p"), as `ipitrace --version` prints it. */
const char *ipt_version(void);

/* The last error message of this thread ("" when none). */
const char *ipt_errmsg(void);

/* What kind of failure the last message of this thread reports. */
enum ipt_error {
	IPT_ERR_NONE = 0,	/* no error yet */
	IPT_ERR_FAILED,		/* the work failed: bad input data, a system call, ... */
	IPT_ERR_INVALID,	/* an argument is invalid: filter syntax, an option value */
	IPT_ERR_NOMEM,		/* out of memory */
	IPT_ERR_UNAVAILABLE,	/* what it needs is not there: BPF (no BTF, no libbpf,
				 * not allowed to load), a tracefs event */
	IPT_ERR_REJECTED,	/* the kernel refused what was written to tracefs
				 * (EINVAL): a filter, a trigger, a setting */
};
enum ipt_error ipt_errcode(void);
/* "none", "failed", "invalid", "nomem", "unavailable", "rejected" */
const char *ipt_error_name(enum ipt_error code);

/* ------------------------------------------------------------------ */
/* CPU sets                                                            */
/* ------------------------------------------------------------------ */

#define IPT_CPUSET_MAX 8192		/* widest mask accepted anywhere */

/*
 * A set of CPU numbers 0 .. IPT_CPUSET_MAX-1.  Small sets live inline;
 * wider ones grow on the heap.  Initialise with ipt_cpuset_init() (or
 * IPT_CPUSET_INIT) and release with ipt_cpuset_free().
 */
struct ipt_cpuset {
	uint64_t *words;	/* points at inline[] or heap memory */
	uint32_t nwords;	/* words in use (capacity) */
	uint64_t inline_words[4];
};
#define IPT_CPUSET_INIT { NULL, 0, { 0, 0, 0, 0 } }

void ipt_cpuset_init(struct ipt_cpuset *set);
void ipt_cpuset_free(struct ipt_cpuset *set);
void ipt_cpuset_clear(struct ipt_cpuset *set);
int ipt_cpuset_add(struct ipt_cpuset *set, unsigned int cpu);	/* -1 if cpu too large */
void ipt_cpuset_del(struct ipt_cpuset *set, unsigned int cpu);
bool ipt_cpuset_has(const struct ipt_cpuset *set, unsigned int cpu);
unsigned int ipt_cpuset_weight(const struct ipt_cpuset *set);
bool ipt_cpuset_empty(const struct ipt_cpuset *set);
bool ipt_cpuset_equal(const struct ipt_cpuset *a, const struct ipt_cpuset *b);
bool ipt_cpuset_intersects(const struct ipt_cpuset *a, const struct ipt_cpuset *b);
int ipt_cpuset_copy(struct ipt_cpuset *dst, const struct ipt_cpuset *src);
int ipt_cpuset_or(struct ipt_cpuset *dst, const struct ipt_cpuset *src);	/* dst |= src */
void ipt_cpuset_and(struct ipt_cpuset *dst, const struct ipt_cpuset *src);	/* dst &= src */
/* Next member >= from, or -1.  for (c = ipt_cpuset_next(s, 0); c >= 0; c = ipt_cpuset_next(s, c + 1)) */
int ipt_cpuset_next(const struct ipt_cpuset *set, unsigned int from);
/* Highest member, or -1 when empty. */
int ipt_cpuset_last(const struct ipt_cpuset *set);

/* "0-3,8,10-11" (also accepts "" for the empty set and blanks around items). */
int ipt_cpuset_parse_list(struct ipt_cpuset *set, const char *s, size_t len);
/* "00000000,00000104" or "104": comma-separated 32-bit hex words, MS first. */
int ipt_cpuset_parse_hex(struct ipt_cpuset *set, const char *s, size_t len);
/* Writes a NUL-terminated cpulist; returns the length it needs (snprintf style). */
size_t ipt_cpuset_format_list(const struct ipt_cpuset *set, char *buf, size_t size);
/* Hex words as the kernel's %*pb for a mask of nbits bits. */
size_t ipt_cpuset_format_hex(const struct ipt_cpuset *set, unsigned int nbits, char *buf, size_t size);
/* Set from raw bitmap bytes as stored in a trace (words of word_size bytes). */
int ipt_cpuset_from_bitmap(struct ipt_cpuset *set, const uint8_t *data, size_t len,
			   unsigned int word_size, bool big_endian);

/* ------------------------------------------------------------------ */
/* Traces, events, fields, records                                     */
/* ------------------------------------------------------------------ */

struct ipt_trace;		/* an opened trace (binary or text) */
struct ipt_event;		/* an event type described by a format file */
struct ipt_field;		/* a field of an event type */

enum ipt_input_kind {
	IPT_INPUT_TRACEDAT = 1,	/* trace-cmd trace.dat v6 or v7 */
	IPT_INPUT_REPORT_TEXT,	/* `trace-cmd report` output */
	IPT_INPUT_TRACEFS_TEXT,	/* tracefs `trace` / `trace_pipe` text */
};

/*
 * One decoded event.  data/size stay valid until the next call on the
 * iterator (or reader) that produced the record: compressed traces
 * decompress each chunk into a buffer that the next chunk reuses.  Copy
 * what must outlive that.
 */
struct ipt_record {
	uint64_t ts;			/* trace clock units (ns for ns clocks) */
	const uint8_t *data;		/* the event, common_type at offset 0 */
	uint32_t size;			/* bytes at data */
	int32_t cpu;
	const struct ipt_event *event;	/* NULL if the type id is unknown */
	uint64_t missed;		/* events lost just before this one:
					 * 0 none, UINT64_MAX unknown count */
	int32_t buffer;			/* the buffer it was recorded in (0: the top one) */
};

/* Open a trace; the kind is detected from the content.  A path that is a
 * FIFO (or a socket) is read to its end into an unnamed file in $TMPDIR
 * (else /tmp) first (devices are refused); a file that is no trace gets a hint (perf.data,
 * compressed) in ipt_errmsg(). */
struct ipt_trace *ipt_trace_open(const char *path);
/* The same for an open fd (a file, or a pipe such as standard input);
 * name is used in messages and is ipt_trace_path().  fd stays the caller's. */
struct ipt_trace *ipt_trace_open_fd(int fd, const char *name);
/* Options of ipt_trace_open_opts (sz first: sizeof the struct). */
struct ipt_open_opts {
	size_t sz;
	/* A directory where the index of a trace's kallsyms section is kept,
	 * by the section's content: the next trace with the same section (the
	 * same kernel, the same file again) is opened without decompressing
	 * and reading it; a compressed section's index is read at open, one
	 * stored as text at the first symbol looked up.  A small ref file
	 * there names the index of a section by where it lies (the file's
	 * device, inode, size, modification and change times), so that the
	 * same file opened again is not read for its key; refs are kept for
	 * files changed 2 s or more before.  Made where missing (mode 0700);
	 * at most 16 indexes of a few MB and 256 refs of 40 bytes are kept,
	 * the oldest removed.  A file there that is not whole and sound is
	 * ignored and written again; a directory that cannot be written is no
	 * error.  The answers are the same with it or without it.  NULL: none
	 * (the default). */
	const char *symbol_cache;
};
/* ipt_trace_open (fd < 0) or ipt_trace_open_fd (fd >= 0, path its name),
 * with options (NULL: the defaults). */
struct ipt_trace *ipt_trace_open_opts(const char *path, int fd, const struct ipt_open_opts *opts);
void ipt_trace_close(struct ipt_trace *t);

enum ipt_input_kind ipt_trace_kind(const struct ipt_trace *t);
const char *ipt_trace_path(const struct ipt_trace *t);
int ipt_trace_file_version(const struct ipt_trace *t);	/* 6, 7; 0 for text */
int ipt_trace_ncpus(const struct ipt_trace *t);		/* CPU streams (max cpu + 1) */
const char *ipt_trace_clock(const struct ipt_trace *t);	/* "local", ... or "" */
const char *ipt_trace_uname(const struct ipt_trace *t);	/* "" if unknown */
const char *ipt_trace_compression(const struct ipt_trace *t); /* "none", "zstd", "zlib" */
int ipt_trace_long_size(const struct ipt_trace *t);
bool ipt_trace_big_endian(const struct ipt_trace *t);
/* Per-CPU stats text from the file ("" if none) and parsed counters. */
const char *ipt_trace_cpustat(const struct ipt_trace *t, int cpu);
/*
 * Timestamps are nanoseconds: the clock counts them, or the file says how
 * to convert its TSC cycles (trace-cmd's TSC2NSEC option; `ipitrace record
 * -C x86-tsc` stores the rate it measured), and records come converted.
 */
bool ipt_trace_ts_in_ns(const struct ipt_trace *t);
/* The unit of timestamps: "ns", "cycles" (x86-tsc with no conversion) or
 * "counts" (the counter clock). */
const char *ipt_trace_time_unit(const struct ipt_trace *t);
/*
 * The isolated and nohz_full CPUs of the recording machine, as `ipitrace
 * record` stores them (sets are cleared first; nohz_full may be NULL).
 * false when the trace does not say, or says it unreadably.
 */
bool ipt_trace_cpu_isolation(const struct ipt_trace *t, struct ipt_cpuset *isolated,
			     struct ipt_cpuset *nohz_full);
/*
 * One role of the recording machine's CPUs, as `ipitrace record` stores
 * them: "isolated" and "nohz_full" (sysfs), "isolcpus" and "rcu_nocbs" (the
 * kernel command line), "online" and "possible" (sysfs).  set is cleared
 * first; false when the trace does not say (older files have only the
 * first two), or for another name.
 */
bool ipt_trace_cpu_role(const struct ipt_trace *t, const char *role, struct ipt_cpuset *set);
/* The flags of isolcpus= ("domain,managed_irq"; "" for none) copied into
 * buf, or NULL when the trace does not say. */
const char *ipt_trace_isolcpus_flags(const struct ipt_trace *t, char *buf, size_t size);

/*
 * How `ipitrace record` recorded the trace (its provenance): the value of
 * key, copied NUL-terminated into buf (cut to size); NULL when the trace
 * does not say.  Keys: "command_line" (ipitrace's, as run), "events",
 * "filter" (the kernel filter on the sends), "cpus" (target CPUs filtered
 * on), "buffer_kb", "clock", "command" (the command it ran), "start_utc"
 * (wall clock at tracing on, ISO 8601), "recorder_pids" (the recorder's
 * own process and threads, a list of ids), "recorder".
 */
const char *ipt_trace_provenance(const struct ipt_trace *t, const char *key, char *buf, size_t size);

/*
 * The kernel's interrupt counters (/proc/interrupts) that `ipitrace
 * record` stores at four points of a recording.
 */
enum ipt_irq_point {
	IPT_IRQ_BEFORE_SETUP,		/* before the tracefs instance was set up */
	IPT_IRQ_TRACING_ON,		/* right after tracing went on */
	IPT_IRQ_TRACING_OFF,		/* right after tracing went off */
	IPT_IRQ_AFTER_TEARDOWN,		/* after the instance was removed */
	IPT_IRQ__POINTS
};
/* "before_setup", "tracing_on", "tracing_off", "after_teardown" */
const char *ipt_irq_point_name(enum ipt_irq_point p);
/* Whether t holds any of them. */
bool ipt_trace_has_irq_counts(const struct ipt_trace *t);
/* The count of a row (the name before the colon: "RES", "CAL", "TLB", "IWI",
 * "IPI0", ...) on cpu at point; -1 when the trace does not hold it. */
int64_t ipt_trace_irq_count(const struct ipt_trace *t, enum ipt_irq_point point, const char *row, int cpu);

/*
 * User-space stacks (`record --user-stacks`): the senders' user addresses
 * were resolved at record time, while the processes ran, and stored in
 * the file.  In a report's stacks (struct ipt_report_stack) a user frame
 * is a token that ipt_trace_symbol() and ipt_trace_format_symbol() name
 * like a kernel address; ipt_trace_user_frame() tells it apart and gives
 * its process, address and file.
 */
enum ipt_uproc_state {
	IPT_UPROC_MAPS,		/* its maps were read while it ran */
	IPT_UPROC_GONE,		/* it exited before they could be read: unknown */
	IPT_UPROC_DENIED,	/* they could not be read (permission) */
};
const char *ipt_uproc_state_name(enum ipt_uproc_state s);	/* "maps", "gone", "denied" */
struct ipt_user_frame {
	int32_t tgid;			/* the process */
	uint64_t addr, off;		/* the address in it; off: from its function's start */
	const char *module;		/* the mapped file, NULL unknown */
	const char *function;		/* NULL unknown */
	bool cut;			/* not a frame: the stack stops short of the
					 * program's entry here ("[user stack cut short]") */
	bool skip;			/* not a frame: the frame before it is in a
					 * function that keeps no frame pointer there, so
					 * its caller is missing ("[a caller is missing: ...]") */
};
/* Whether t holds user-space symbols. */
bool ipt_trace_has_user_symbols(const struct ipt_trace *t);
/* True for a user frame of a report's stack, *uf filled; false (and *uf
 * zeroed) for a kernel address. */
bool ipt_trace_user_frame(const struct ipt_trace *t, uint64_t frame, struct ipt_user_frame *uf);
/* The address a stack frame stands for: a user frame's own, else frame. */
uint64_t ipt_trace_frame_address(const struct ipt_trace *t, uint64_t frame);
/* How the recorder fared with process tgid's maps; *known (may be NULL)
 * false when the file names no such process. */
enum ipt_uproc_state ipt_trace_user_process(const struct ipt_trace *t, int32_t tgid, bool *known);
/* A row's description ("Rescheduling interrupts"), or NULL. */
const char *ipt_trace_irq_desc(const struct ipt_trace *t, const char *row);

/*
 * Buffers: a trace.dat made with `trace-cmd record -B NAME` or `extract -B`
 * (and `trace-cmd report` text of one, lines prefixed "NAME:") holds the
 * ring buffers of tracefs instances beside the top one.  Iterators read
 * every buffer, merged in time order; ipt_trace_select_buffer() keeps one.
 * Buffer 0 is the top buffer, named "".
 */
int ipt_trace_nbuffers(const struct ipt_trace *t);
const char *ipt_trace_buffer_name(const struct ipt_trace *t, int i);	/* NULL if none */
uint64_t ipt_trace_buffer_size(const struct ipt_trace *t, int i);	/* bytes of data */
/* Keep only the buffer named name ("" or "top" for the top buffer); call
 * before making iterators.  -1 (IPT_ERR_INVALID, naming the buffers there
 * are) if the trace has none of that name. */
int ipt_trace_select_buffer(struct ipt_trace *t, const char *name);

/*
 * Text inputs: lines that were neither an event, nor a header, nor a mark
 * ipitrace knows (prose around a pasted trace, trace-cmd's summary lines),
 * and the file offset of the first (-1 when none).  0 for trace.dat.
 */
uint64_t ipt_trace_lines_skipped(const struct ipt_trace *t, long long *first_offset);

/* Event types. */
int ipt_trace_nevents(const struct ipt_trace *t);
const struct ipt_event *ipt_trace_event_at(const struct ipt_trace *t, int i);
const struct ipt_event *ipt_trace_find_event(const struct ipt_trace *t,
					      const char *system, const char *name);
const struct ipt_event *ipt_trace_event_by_id(const struct ipt_trace *t, int id);
const char *ipt_event_name(const struct ipt_event *ev);
const char *ipt_event_system(const struct ipt_event *ev);
int ipt_event_id(const struct ipt_event *ev);
const char *ipt_event_print_fmt(const struct ipt_event *ev);
int ipt_event_nfields(const struct ipt_event *ev);	/* common_* fields included */
const struct ipt_field *ipt_event_field_at(const struct ipt_event *ev, int i);
const struct ipt_field *ipt_event_field(const struct ipt_event *ev, const char *name);

enum ipt_field_flags {
	IPT_FIELD_SIGNED	= 1 << 0,
	IPT_FIELD_ARRAY		= 1 << 1,	/* fixed array: type name[N] */
	IPT_FIELD_DYNAMIC	= 1 << 2,	/* __data_loc */
	IPT_FIELD_RELATIVE	= 1 << 3,	/* __rel_loc */
	IPT_FIELD_STRING	= 1 << 4,	/* char[], __data_loc char[] */
	IPT_FIELD_POINTER	= 1 << 5,	/* void *, char *, ... */
	IPT_FIELD_CPUMASK	= 1 << 6,	/* cpumask_t or unsigned long[] bitmask */
	IPT_FIELD_LONG		= 1 << 7,	/* long / unsigned long (kernel long size) */
	IPT_FIELD_COMMON	= 1 << 8,	/* common_* */
};

const char *ipt_field_name(const struct ipt_field *f);
const char *ipt_field_type(const struct ipt_field *f);
unsigned int ipt_field_offset(const struct ipt_field *f);
unsigned int ipt_field_size(const struct ipt_field *f);
unsigned int ipt_field_flags(const struct ipt_field *f);

/* Integer value of a scalar field (sign-extended if signed).  -1 if the
 * field lies outside the record. */
int ipt_field_u64(const struct ipt_trace *t, const struct ipt_record *r,
		  const struct ipt_field *f, uint64_t *val);
/* Bytes of a field: for dynamic fields the referenced data, else the fixed
 * bytes.  -1 if outside the record. */
int ipt_field_bytes(const struct ipt_trace *t, const struct ipt_record *r,
		    const struct ipt_field *f, const uint8_t **data, uint32_t *len);
/* CPU set of a cpumask/bitmask field (IPT_FIELD_CPUMASK).  -1 on error. */
int ipt_field_cpuset(const struct ipt_trace *t, const struct ipt_record *r,
		     const struct ipt_field *f, struct ipt_cpuset *set);

/* common_pid of a record (-1 if it cannot be read). */
int ipt_record_pid(const struct ipt_trace *t, const struct ipt_record *r);
/* Task name for a pid ("<idle>" for 0, "<...>" when unknown). */
const char *ipt_trace_comm(const struct ipt_trace *t, int pid);
/* Kernel symbol for addr: the name, with *offset from its start; NULL if none. */
const char *ipt_trace_symbol(const struct ipt_trace *t, uint64_t addr, uint64_t *offset);
/* Address of a symbol name (first match); 0 if unknown. */
uint64_t ipt_trace_symbol_addr(const struct ipt_trace *t, const char *name);
/* String stored for a printk/const-string address (arm64 `reason`); NULL if none. */
const char *ipt_trace_printk_string(const struct ipt_trace *t, uint64_t addr);

/* ------------------------------------------------------------------ */
/* Iteration                                                           */
/* ------------------------------------------------------------------ */

struct ipt_iter;

/*
 * An iterator over the records of the given CPUs (NULL: all), merged in
 * timestamp order (ties: lower CPU first, as trace-cmd does).  Only one
 * CPU selected: no merge cost.
 */
struct ipt_iter *ipt_iter_new(struct ipt_trace *t, const struct ipt_cpuset *cpus);
/* 1 and *rec filled, 0 at the end, -1 on a decode error (ipt_errmsg). */
int ipt_iter_next(struct ipt_iter *it, struct ipt_record *rec);
void ipt_iter_free(struct ipt_iter *it);

/* ------------------------------------------------------------------ */
/* Rendering                                                           */
/* ------------------------------------------------------------------ */

enum ipt_render_flags {
	IPT_RENDER_RAW		= 1 << 0,	/* fields as name=value (report -R) */
	IPT_RENDER_MASK_HEX	= 1 << 1,	/* masks as hex words, not cpulists */
};

/*
 * A growing text buffer: buf holds len bytes and a NUL after them (buf is
 * NULL until something is added).  The functions that add return 0, or -1
 * when out of memory (the buffer is then unchanged).
 */
struct ipt_strbuf {
	char *buf;
	size_t len;
	size_t cap;
};
#define IPT_STRBUF_INIT { NULL, 0, 0 }
void ipt_strbuf_free(struct ipt_strbuf *sb);
/* Room for extra more bytes and the NUL: the one function that allocates. */
int ipt_strbuf_reserve(struct ipt_strbuf *sb, size_t extra);
/* The same, the common case (room enough) inline: text output makes
 * several calls per field. */
static inline int ipt_strbuf_grow(struct ipt_strbuf *sb, size_t extra)
{
	if (extra < sb->cap - sb->len)	/* cap >= len: room for extra + NUL */
		return 0;
	return ipt_strbuf_reserve(sb, extra);
}
static inline int ipt_strbuf_add(struct ipt_strbuf *sb, const char *s, size_t n)
{
	if (ipt_strbuf_grow(sb, n))
		return -1;
	if (n)
		__builtin_memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = 0;
	return 0;
}
static inline int ipt_strbuf_adds(struct ipt_strbuf *sb, const char *s)
{
	return ipt_strbuf_add(sb, s, __builtin_strlen(s));
}
static inline int ipt_strbuf_addc(struct ipt_strbuf *sb, char c)
{
	if (sb->len + 1 >= sb->cap && ipt_strbuf_reserve(sb, 1))
		return -1;
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = 0;
	return 0;
}
int ipt_strbuf_addf(struct ipt_strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int ipt_strbuf_add_u64(struct ipt_strbuf *sb, uint64_t v);	/* decimal */
int ipt_strbuf_add_i64(struct ipt_strbuf *sb, int64_t v);
int ipt_strbuf_add_hex(struct ipt_strbuf *sb, uint64_t v);	/* lower case, no 0x */
/* Blanks after the text from offset from on, up to width bytes. */
int ipt_strbuf_pad(struct ipt_strbuf *sb, size_t from, size_t width);
/* The text ("" when empty). */
const char *ipt_strbuf_str(struct ipt_strbuf *sb);
/* Empty it, keeping its memory. */
static inline void ipt_strbuf_reset(struct ipt_strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = 0;
}

/*
 * The render functions append one line (no trailing newline) for rec to
 * out, laid out as `trace-cmd report` does: comm-pid [cpu] timestamp:
 * event: fields.  0, or -1 on error (ipt_errmsg).
 */

int ipt_render_record(struct ipt_trace *t, const struct ipt_record *r,
		      unsigned int flags, struct ipt_strbuf *out);
/* Only the event's fields, from its print fmt (or name=value if RAW). */
int ipt_render_fields(struct ipt_trace *t, const struct ipt_record *r,
		      unsigned int flags, struct ipt_strbuf *out);
/* The timestamp column as trace-cmd prints it for this trace's clock. */
int ipt_render_ts(const struct ipt_trace *t, uint64_t ts, struct ipt_strbuf *out);

/* ------------------------------------------------------------------ */
/* Filters                                                             */
/* ------------------------------------------------------------------ */

/*
 * The kernel's event filter syntax plus CPU sets and symbols:
 *   cpumask & CPUS{4-7} && callsite ~ "ttwu*"
 *   target_cpu == 5 || (kind == "tlb" && !(src_cpu & CPUS{0,1}))
 * Operators: == != < <= > >= & (bitwise and; with a CPU set: intersects),
 * ~ (glob match on strings and symbol names), && || ! and parentheses.
 * Literals: decimal and 0x hex numbers, "quoted strings", CPUS{list}.
 * Names are resolved by the caller (event fields, IPI row columns).
 */
struct ipt_filter;

enum ipt_value_kind {
	IPT_VAL_NONE = 0,	/* the name has no value here: comparisons are false */
	IPT_VAL_INT,		/* i (signed if is_signed) */
	IPT_VAL_STR,		/* s, slen (not necessarily NUL-terminated) */
	IPT_VAL_CPUSET,		/* set */
	IPT_VAL_ADDR,		/* i is a kernel address; sym (may be NULL) its name,
				 * symoff the offset: matched as a number or a name */
};

struct ipt_value {
	enum ipt_value_kind kind;
	bool is_signed;
	uint64_t i;
	const char *s;
	size_t slen;
	const struct ipt_cpuset *set;
	const char *sym;
	uint64_t symoff;
};

/*
 * resolve: called once per distinct name at parse time; returns an id >= 0
 * for a known name, -1 for an unknown one (a parse error naming it).
 * lookup: called during evaluation with that id; fills *v.
 */
typedef int (*ipt_filter_resolve_fn)(void *ctx, const char *name);
typedef void (*ipt_filter_lookup_fn)(void *ctx, int id, struct ipt_value *v);

/*
 * Parse expr.  On error returns NULL and ipt_errmsg() says what and where:
 * "filter: column 12: expected ')'" (1-based column into expr).
 */
struct ipt_filter *ipt_filter_parse(const char *expr, ipt_filter_resolve_fn resolve,
				    void *resolve_ctx);
/* 1 match, 0 no match. */
int ipt_filter_eval(const struct ipt_filter *f, ipt_filter_lookup_fn lookup, void *ctx);
void ipt_filter_free(struct ipt_filter *f);

/*
 * Filters over the events of a trace (as the kernel filters events): names
 * are the fields of each event (callsite, cpu, cpumask, common_pid, ...),
 * plus CPU (the CPU that recorded the event) and COMM (its task name).
 * FIELD.function matches a pointer field's symbol, as in the kernel.  An
 * event that lacks a field compares false.
 */
struct ipt_event_filter;
struct ipt_event_filter *ipt_event_filter_new(struct ipt_trace *t, const char *expr);
/* 1 match, 0 no match */
int ipt_event_filter_match(struct ipt_event_filter *f, const struct ipt_record *rec);
void ipt_event_filter_free(struct ipt_event_filter *f);

/* ------------------------------------------------------------------ */
/* The IPI view: one row per (IPI send, target CPU)                    */
/* ------------------------------------------------------------------ */

enum ipt_ipi_kind {
	IPT_KIND_RESCHED = 0,	/* smp_send_reschedule: callback NULL */
	IPT_KIND_WAKEUP,	/* remote wakeup: csd func sched_ttwu_pending */
	IPT_KIND_CALL,		/* function call (smp_call_function*) */
	IPT_KIND_TLB,		/* TLB shootdown: flush_tlb_func and friends */
	IPT_KIND_IRQ_WORK,	/* irq_work self-IPIs */
	IPT_KIND_MEMBARRIER,	/* membarrier expedited: ipi_mb, ipi_sync_core, ... */
	IPT_KIND_TIMER,		/* timer broadcast */
	IPT_KIND_STOP,		/* CPU stop (panic, crash, reboot) */
	IPT_KIND_OTHER,
	IPT_KIND__COUNT
};
/* "resched", "wakeup", "call", "tlb", "irq_work", "membarrier", "timer", "stop", "other" */
const char *ipt_kind_name(enum ipt_ipi_kind kind);
struct ipt_ipi_row;
/* The kind of a send from its reason, function, call site and callback
 * (the rules `convert` and `report` use). */
enum ipt_ipi_kind ipt_ipi_classify(const struct ipt_ipi_row *row);
/* The kind named name, or -1. */
int ipt_kind_from_name(const char *name);

struct ipt_ipi_row {
	uint64_t ts;			/* time of the send event */
	uint64_t id;			/* sequence number of the send event (regroups a multicast) */
	int32_t src_cpu;		/* CPU that sent the IPI */
	int32_t target_cpu;		/* CPU it was sent to */
	int32_t pid;			/* task that sent it */
	uint32_t ntargets;		/* CPUs in the original event's mask */
	const char *comm;		/* its name */
	const char *event;		/* "ipi_send_cpu", "ipi_send_cpumask", "ipi_raise" */
	uint64_t callsite;		/* address; 0 if the event has none */
	const char *callsite_sym;	/* symbol or NULL */
	uint64_t callsite_off;
	uint64_t callback;		/* the IPI's callback, 0 for none */
	const char *callback_sym;
	uint64_t func;			/* function really run (csd join); 0 if unknown */
	const char *func_sym;
	const char *reason;		/* arm64 ipi_raise reason, or NULL */
	enum ipt_ipi_kind kind;
	const struct ipt_cpuset *targets;	/* the original event's targets */
};

struct ipt_ipi_stats {
	uint64_t records;		/* records read */
	uint64_t send_events;		/* ipi_send_cpu / ipi_send_cpumask / ipi_raise */
	uint64_t rows;			/* rows produced before filtering */
	uint64_t rows_out;		/* rows that passed the filter */
	uint64_t csd_queued;		/* csd_queue_cpu events */
	uint64_t csd_joined;		/* of those, tied to an IPI send */
	uint64_t csd_no_ipi;		/* queued calls that needed no IPI of their own */
	uint64_t lost_events;		/* events the kernel dropped (known counts) */
	uint64_t lost_unknown;		/* pages with drops of unknown size */
};

struct ipt_ipi_iter;

/*
 * Rows in time order from all CPUs of t.  filter (may be NULL) is an
 * expression over row columns: ts (= ts_ns), id, src_cpu, target_cpu, cpu
 * (= target), pid, comm, ntargets, event, callsite (= callsite_sym),
 * callback (= callback_sym), func (= func_sym), kind, reason, cpumask
 * (= targets), callsite_func, func_name; and what matching finds for a row
 * (struct ipt_row_match): lat_ns, handler_ns, handler_ts_ns, matched,
 * coalesced (true/false), unmatched_reason, stack (its frames as
 * "leaf;...;root", for ~ "*name*").  Those unknown for a row (an unmatched
 * send's lat_ns) compare false.  A filter that names a column from
 * matching costs a first pass over t (a report of every row).
 * NULL on error (ipt_errmsg).
 */
struct ipt_ipi_iter *ipt_ipi_iter_new(struct ipt_trace *t, const char *filter);
/*
 * The same, taking what matching found from rep (a report of t made with
 * a filter that named a column from matching: its first pass) instead of
 * a pass of its own; rep NULL, or a report without one: as
 * ipt_ipi_iter_new.  A report made with keep_rows and this same filter
 * gives its rows back instead of t being decoded again (targets NULL;
 * one thread).  rep must outlive the iterator.
 */
struct ipt_report;
struct ipt_ipi_iter *ipt_ipi_iter_new_with(struct ipt_trace *t, const char *filter,
					   const struct ipt_report *rep);
/*
 * Before the first ipt_ipi_next(): decode the CPUs' streams in up to
 * `threads` parallel threads (0: the online CPUs, at most 8, but one for
 * less than 16 MiB of CPU data), merged in time order.  Rows, their order and
 * their ids stay the same, but row->targets is NULL (ntargets is kept).
 * Where it cannot apply (a filter on id, a trace with sched events whose
 * task names are learnt on the way, one CPU) it runs in one thread.
 */
int ipt_ipi_iter_set_threads(struct ipt_ipi_iter *it, int threads);
/*
 * False where that would run in one thread whatever the CPUs (a filter on
 * id, task names learnt on the way, which all decoders of the trace share);
 * then no other decoding of t (an ipt_report_run) may run beside it either.
 */
bool ipt_ipi_iter_can_thread(const struct ipt_ipi_iter *it);
/* 1 and *row filled (valid until the next call), 0 at the end, -1 on error. */
int ipt_ipi_next(struct ipt_ipi_iter *it, struct ipt_ipi_row *row);
const struct ipt_ipi_stats *ipt_ipi_iter_stats(const struct ipt_ipi_iter *it);
void ipt_ipi_iter_free(struct ipt_ipi_iter *it);

/* ------------------------------------------------------------------ */
/* Output: rows as tables, Parquet, trace.dat, explode, counting       */
/* ------------------------------------------------------------------ */

/*
 * The columns of the IPI rows, in their order: the one description that
 * CSV and JSON lines (ipt_rows_format, ipt_rows_format_match), Parquet
 * and Python's rows() follow for names, order, types and unknown values.
 * The first IPT_COL__MATCH are a row's own; the rest (from IPT_COL_LAT_NS)
 * come with what matching found.  Not exploded (one row per send event),
 * target_cpu becomes "targets": the event's CPUs as a list.
 */
enum ipt_row_column {
	IPT_COL_TS_NS, IPT_COL_ID, IPT_COL_SRC_CPU, IPT_COL_TARGET_CPU, IPT_COL_NTARGETS,
	IPT_COL_PID, IPT_COL_COMM, IPT_COL_EVENT, IPT_COL_KIND, IPT_COL_CALLSITE,
	IPT_COL_CALLSITE_SYM, IPT_COL_CALLBACK, IPT_COL_CALLBACK_SYM, IPT_COL_FUNC,
	IPT_COL_FUNC_SYM, IPT_COL_REASON,
	IPT_COL_LAT_NS, IPT_COL_HANDLER_NS, IPT_COL_HANDLER_TS_NS, IPT_COL_MATCHED,
	IPT_COL_COALESCED, IPT_COL_UNMATCHED_REASON, IPT_COL_CALLSITE_FUNC, IPT_COL_FUNC_NAME,
	IPT_COL_STACK,
	IPT_COL__COUNT,
	IPT_COL__MATCH = IPT_COL_LAT_NS
};
enum ipt_col_type {
	IPT_COLTYPE_INT64,	/* times and durations in ns, ids */
	IPT_COLTYPE_INT32,	/* CPUs, pids, counts */
	IPT_COLTYPE_STRING,
	IPT_COLTYPE_ADDRESS,	/* a kernel address: "0x..." in text, uint64 in Python */
	IPT_COLTYPE_BOOL,
	IPT_COLTYPE_STRINGS,	/* a list of strings (JSON array; CSV: joined by ';') */
};
struct ipt_row_column_info {
	const char *name;
	enum ipt_col_type type;
	bool nullable;		/* may be unknown: null (JSON, Parquet), an empty field
				 * (CSV), a missing value (Python) */
	bool from_report;	/* needs the report's row results (row_results) */
	const char *what;	/* what it holds, in one line */
};
/* Column c (NULL for a number out of range). */
const struct ipt_row_column_info *ipt_row_column(enum ipt_row_column c);

/*
 * IPI rows as text tables.  explode: one line per row (a target_cpu
 * column); !explode: the row stands for its whole send event, and its
 * targets (row->targets) take target_cpu's place: a CPU list string in CSV
 * ("0-3,8"), an array of integers in JSON lines.  Columns, in order:
 * ts_ns, id, src_cpu, target_cpu (or targets), ntargets, pid, comm, event,
 * kind, callsite, callsite_sym, callback, callback_sym, func, func_sym,
 * reason; addresses are "0x..." strings, unknown symbols empty (CSV) or
 * null (JSON).
 */
enum ipt_row_format {
	IPT_ROWS_CSV,		/* RFC 4180 CSV with a header line */
	IPT_ROWS_JSONL,		/* one JSON object per line */
};
/* Append the header line (CSV; nothing for JSON lines).  -1 out of memory. */
int ipt_rows_header(enum ipt_row_format fmt, bool explode, struct ipt_strbuf *sb);
/* Append one row as a line, newline included.  -1 out of memory. */
int ipt_rows_format(enum ipt_row_format fmt, bool explode, const struct ipt_ipi_row *r,
		    struct ipt_strbuf *sb);

/*
 * The same with the matching columns after those, in order: lat_ns,
 * handler_ns, handler_ts_ns (send -> handler entry, entry -> exit, the
 * entry's time; integers in ns), matched, coalesced (true/false),
 * unmatched_reason (ipt_unmatched_reason_name), callsite_func (the call
 * site's symbol without +0x..), func_name (the symbol of the function
 * really run: row->func's, else the callback's), stack (the sender's
 * kernel stack, tracing frames trimmed, leaf first: "sym+0xoff" strings,
 * "0x..." for an unknown address; a JSON array, in CSV joined by ';').
 * m (from ipt_report_row_match, see below) may be NULL; the matching
 * columns follow struct ipt_row_match: lat_ns when has_latency,
 * handler_ns when has_handler, handler_ts_ns when has_handler_ts,
 * matched, coalesced and unmatched_reason when known; else, and without m,
 * they are null (JSON) or empty (CSV), as are unknown symbols and a row
 * without a stack.  With !explode the row stands for its send event: the
 * six per-target columns (lat_ns .. unmatched_reason) are given only for a
 * send to one CPU (ntargets 1), null for a multicast; callsite_func,
 * func_name and stack belong to the send and are always given.  t gives
 * the stack's symbols.
 */
int ipt_rows_header_match(enum ipt_row_format fmt, bool explode, struct ipt_strbuf *sb);
struct ipt_row_match;
struct ipt_report;
int ipt_rows_format_match(enum ipt_row_format fmt, bool explode, const struct ipt_trace *t,
			  const struct ipt_ipi_row *r, const struct ipt_row_match *m,
			  struct ipt_strbuf *sb);

/*
 * Every row left in it as ipt_rows_format_match() lines (no header),
 * handed to opts->write in the rows' order, some hundred KiB at a time.
 * rep (may be NULL: the matching columns null) is the report the rows are
 * matched against, as with ipt_report_row_match() for every row; with
 * !explode one line per send event (the rows after its first skipped).
 * The rows are read by the calling thread and formatted by it and by up to
 * threads - 1 helpers (0: one per online CPU beyond the first, at most 3;
 * 1: none), the bytes the same for any number.  0 at the end; -1 on error
 * (ipt_errmsg); a nonzero answer of write stops it and is returned as is,
 * with the errno it left.
 */
struct ipt_rows_write_opts {
	size_t sz;			/* sizeof(struct ipt_rows_write_opts) */
	enum ipt_row_format fmt;
	bool explode;
	int threads;			/* formatting threads, the caller's included */
	int (*write)(void *arg, const char *buf, size_t len);	/* 0: go on */
	void *arg;
};
int ipt_rows_write(const struct ipt_trace *t, struct ipt_ipi_iter *it, struct ipt_report *rep,
		   const struct ipt_rows_write_opts *opts);

/*
 * IPI rows as Apache Parquet files, written as a stream: rows go into
 * column pages as they come, a row group is written out when it holds
 * row_group_rows rows or row_group_bytes encoded bytes, so memory stays
 * bounded by one row group.  The file appears only when complete.
 * Columns are the CSV's (see ipt_rows_format): ts_ns INT64 (a
 * TIMESTAMP(NANOS) of the trace clock when it counts nanoseconds), id
 * INT64, src_cpu, target_cpu, ntargets, pid INT32 (!explode: targets, a
 * LIST<INT32>, in target_cpu's place), comm, event, kind and the "0x..."
 * addresses STRING, the symbols and reason STRING, NULL when unknown.
 */
enum ipt_pq_codec {
	IPT_PQ_UNCOMPRESSED = 0,	/* Parquet CompressionCodec values */
	IPT_PQ_ZSTD = 6,
};

struct ipt_parquet_opts {
	size_t sz;			/* sizeof(struct ipt_parquet_opts) */
	bool explode;			/* target_cpu (true) or a targets list */
	enum ipt_pq_codec codec;	/* default IPT_PQ_UNCOMPRESSED (0) */
	int zstd_level;			/* 0: 3 */
	uint64_t row_group_rows;	/* 0: 1048576 */
	uint64_t row_group_bytes;	/* encoded bytes; 0: 64 MiB */
	uint32_t page_rows;		/* rows per data page; 0: 32768 */
	bool ts_is_ns;			/* annotate ts_ns and handler_ts_ns as TIMESTAMP(NANOS) */
	bool numbered;			/* path is a directory (created if needed):
					 * the file becomes path/part-<n>.parquet
					 * with the lowest n not yet taken */
	/* key/value metadata stored in the footer (NULL: left out) */
	const char *source, *clock, *kernel;
	/* ipt_parquet_convert only: partition keys ("host", "date",
	 * "host,date"; NULL: none); the file goes to
	 * path/host=<uname node>/date=<UTC start date>/part-<n>.parquet */
	const char *partition_by;
	/* the matching columns after those (see ipt_rows_format_match):
	 * lat_ns, handler_ns, handler_ts_ns INT64, matched, coalesced BOOLEAN,
	 * unmatched_reason, callsite_func, func_name STRING, stack
	 * LIST<STRING>, all nullable.  trace gives the stack's symbols
	 * (ipt_parquet_convert sets it); ipt_parquet_convert takes the row
	 * results of report (made with row_results and the iterator's filter;
	 * NULL: the columns from matching are null). */
	bool match_columns;
	const struct ipt_trace *trace;
	struct ipt_report *report;
	/* an existing file at path: closing fails (ipt_errmsg), it is not replaced */
	bool no_replace;
};

struct ipt_parquet_writer;

/* path "-": standard output.  NULL on error (ipt_errmsg). */
struct ipt_parquet_writer *ipt_parquet_open(const char *path, const struct ipt_parquet_opts *opts);
/* Add one row (rows of one trace: symbol strings are cached by address).
 * With !explode the row stands for its whole send event (row->targets). */
int ipt_parquet_add(struct ipt_parquet_writer *w, const struct ipt_ipi_row *row);
/* The same with what matching found for the row (opts.match_columns; m may
 * be NULL: those columns null). */
int ipt_parquet_add_match(struct ipt_parquet_writer *w, const struct ipt_ipi_row *row,
			  const struct ipt_row_match *m);
/* Finish the file and move it into place; frees w.  -1 on error (the
 * partial file is removed). */
int ipt_parquet_close(struct ipt_parquet_writer *w);
/* Drop the partial file; frees w (NULL accepted). */
void ipt_parquet_abort(struct ipt_parquet_writer *w);
/* Rows added so far. */
uint64_t ipt_parquet_rows(const struct ipt_parquet_writer *w);

/*
 * Every row of it into the Parquet file out (one row per send event when
 * !opts->explode).  ts_is_ns, source, clock and kernel are taken from t;
 * with opts->partition_by, out is the dataset's root directory and the
 * file goes to out/<partition>/part-<n>.parquet.  opts may be NULL.
 */
int ipt_parquet_convert(struct ipt_trace *t, struct ipt_ipi_iter *it, const char *out,
			const struct ipt_parquet_opts *opts);

/* ------------------------------------------------------------------ */
/* Reports: counts, matching, distributions                            */
/* ------------------------------------------------------------------ */

/*
 * A distribution of durations in ns (latencies, handler times).  The
 * first 4096 values are kept exactly, so small samples give exact
 * quantiles; past that, values are counted in log-linear buckets (under 1%
 * relative error).  Distributions belong to the report that made them.
 * All accessors accept NULL (an empty distribution).
 */
struct ipt_dist;
uint64_t ipt_dist_count(const struct ipt_dist *d);
uint64_t ipt_dist_min(const struct ipt_dist *d);	/* 0 when empty */
uint64_t ipt_dist_max(const struct ipt_dist *d);	/* 0 when empty */
uint64_t ipt_dist_sum(const struct ipt_dist *d);
/* The value at quantile q (0..1), nearest rank; 0 when empty. */
uint64_t ipt_dist_quantile(const struct ipt_dist *d, double q);
/*
 * Log-scale bins, IPT_DIST_LOG_PER_DECADE per decade: bin 0 counts values
 * under 10 ns, bin i (1 .. IPT_DIST_LOG_NBINS-2) values from
 * ipt_dist_log_bin_low(i) to ipt_dist_log_bin_low(i+1), the last bin
 * values of 10 s and more.  Only the per-kind distributions of a report
 * (ipt_report_kind) keep these bins; the others give 0.
 */
#define IPT_DIST_LOG_PER_DECADE 5
#define IPT_DIST_LOG_NBINS (9 * IPT_DIST_LOG_PER_DECADE + 2)
uint64_t ipt_dist_log_bin(const struct ipt_dist *d, int i);
/* Lower edge of log bin i in ns (10^(1 + (i-1)/5)); 0 for bin 0. */
double ipt_dist_log_bin_low(int i);

/*
 * "Who interrupts my CPUs": one pass over a trace in time order.  Every
 * IPI row (see ipt_ipi_iter_new) is counted per target CPU and kind, per
 * sender, per (call site, function) and in a sender x target matrix, and
 * queued on its target CPU until the interrupt that serves it (x86
 * irq_vectors:<vector>_entry, arm64 ipi:ipi_entry with the same reason);
 * one interrupt may serve several queued sends (coalesced).  csd calls are
 * matched by csd pointer from csd_queue_cpu to csd_function_entry/exit.
 * Cross-CPU latencies are only computed when the trace clock is comparable
 * across CPUs (or assume_synced_clock says to).  Times are in ns.
 */
struct ipt_report;

struct ipt_report_opts {
	size_t sz;			/* sizeof(struct ipt_report_opts) */
	const char *filter;		/* count only the rows matching this expression over
					 * row columns (NULL or "": all); matching sees all */
	const struct ipt_cpuset *isolated;	/* list every IPI to these CPUs (NULL: none);
						 * read during ipt_report_run only */
	bool assume_synced_clock;	/* compute cross-CPU latencies whatever the clock */
	int threads;			/* > 1: decode the CPUs' streams in that many threads
					 * (results are the same for any number); 0: the
					 * online CPUs, at most 8, but 1 for less than 16 MiB
					 * of CPU data, and with on_row one decoding thread
					 * fewer beside the calling one (which does on_row's
					 * work), at least one; 1: one thread */
	int time_bins;			/* > 0: also count the IPIs each CPU received in that
					 * many bins of time (ipt_report_time_bins) */
	bool kind_distributions;	/* also keep latency and handler-time distributions
					 * per kind, with log bins (ipt_report_kind) */
	bool row_results;		/* keep what matching found for every counted
					 * row, for ipt_report_row_match() (16 bytes a row) */
	bool with_recorder;		/* keep the recorder's own sends in the groups
					 * (ipt_report_groups; see recorder_ipis) */
	bool no_tables;			/* leave out the senders, pairs and matrix tables
					 * (they come back empty): for a caller that wants
					 * the counts and row results, a tenth less work */
	/* on_row (may be NULL): called during ipt_report_run, in the calling
	 * thread, for every counted row in the order ipt_ipi_next() gives
	 * them, with the same contents (but targets NULL: ntargets says how
	 * many).  The row and its strings are valid during the call only
	 * (the strings until the trace is closed).  A non-zero return stops
	 * the run: ipt_report_run() then returns NULL (IPT_ERR_FAILED, "report:
	 * stopped by on_row"; the callback keeps its own reason).  With
	 * row_results, the rows
	 * and the ipt_report_row_match() answers line up: one decoding pass
	 * gives the rows and what matching found for them. */
	int (*on_row)(void *ctx, const struct ipt_ipi_row *row);
	void *on_row_ctx;
	/* keep_rows: keep every counted row (as on_row gets them) for an
	 * iterator made by ipt_ipi_iter_new_with(t, filter, report) with
	 * the report's own filter: it then gives them back in the same
	 * order and with the same contents (targets NULL, as from lanes)
	 * without decoding t again, so that one pass gives the rows and,
	 * with row_results, what matching found for them.  Kept up to 4 Mi
	 * rows (not when half of the first 4096 are of multicasts, nor for
	 * more than 64 Ki call places or 256 Ki tasks), 32 bytes each, past
	 * 1 MiB in an unnamed temporary file ($TMPDIR, else /tmp); past
	 * that, or where they cannot be kept (no such file, a full disk),
	 * the iterator decodes t as without them, with the same rows. */
	bool keep_rows;
};

/*
 * Run the report over t (which must stay open while the report is used).
 * NULL on error: IPT_ERR_INVALID for a bad filter or option, else the
 * trace's decode error.
 */
struct ipt_report *ipt_report_run(struct ipt_trace *t, const struct ipt_report_opts *opts);
void ipt_report_free(struct ipt_report *r);

/* The report's totals.  Read-only; fields may be added at the end. */
struct ipt_report_summary {
	int ncpus;			/* CPUs of the per-CPU table (0 .. ncpus-1) */
	uint64_t first_ts, last_ts;	/* of the first and last event */
	double duration_s;		/* last_ts - first_ts in s (0 for one event) */
	uint64_t events;		/* records read */
	uint64_t send_events;		/* IPI send events */
	uint64_t ipis;			/* rows: one per (send, target CPU) */
	uint64_t ipis_counted;		/* rows that matched the filter (all without one) */
	bool filtered;			/* a filter was given */
	uint64_t kinds[IPT_KIND__COUNT];	/* counted rows by kind */
	uint64_t csd_queued, csd_with_ipi, csd_without_ipi;	/* see struct ipt_ipi_stats */
	bool cross_cpu_latency;		/* latencies between CPUs were computed */
	const char *cross_cpu_missing_because;	/* if not: why (one sentence, no period) */
	/* matching */
	bool receive_events;		/* the trace has IPI receive events */
	uint64_t remote, remote_matched;	/* counted rows from another CPU; of those,
						 * matched to a handler */
	uint64_t handlers, handlers_unattributed;	/* IPI interrupts; of those, with no
							 * queued send */
	uint64_t coalesced;		/* sends served by an interrupt that served an earlier one */
	uint64_t csd_runs;		/* csd calls matched by pointer */
	/* counted sends that were never matched, by reason */
	uint64_t unmatched_trace_ended, unmatched_no_receive_events, unmatched_lost_events,
		 unmatched_no_handler;
	uint64_t csd_set_aside;		/* csd runs not paired with their queueing: events
					 * were lost on the target in between */
	bool senders_unknown;		/* the trace has no send event at all (a kernel
					 * before 6.4 recorded without dynamic probes):
					 * only the receive side is known */
	int64_t probes_missed;		/* sends from kprobes that the kernel missed
					 * (record counts them), -1: not known */
	int64_t lost_by_header;		/* events a tracefs text's header says were
					 * lost (entries written - entries in the
					 * buffer), on CPUs it does not say; -1: none */
	int64_t header_in_buffer, header_written;	/* those two counts, -1: none */
	uint64_t csd_given_up;		/* csd calls queued that were forgotten unpaired:
					 * more than 262,144 waited at once (their runs
					 * not recorded), so the memory stays bounded;
					 * runs of calls queued before are not paired */
};
const struct ipt_report_summary *ipt_report_summary(const struct ipt_report *r);

/* One target CPU.  Read-only; fields may be added at the end. */
struct ipt_report_cpu {
	uint64_t ipis;			/* counted rows to this CPU */
	uint64_t by_kind[IPT_KIND__COUNT];
	uint64_t sent;			/* counted rows this CPU sent */
	uint64_t remote;		/* counted rows to it from another CPU */
	uint64_t matched, remote_matched, coalesced;
	uint64_t handlers, handlers_unattributed;	/* IPI interrupts on this CPU */
	uint64_t csd_runs;
	uint64_t lost;			/* events lost (ring-buffer marks and the file's stats) */
	bool lost_unknown;		/* and some more of unknown number */
	const struct ipt_dist *latency;		/* send -> handler entry */
	const struct ipt_dist *handler;		/* handler entry -> exit */
	const struct ipt_dist *csd_queue_to_run;	/* csd queue -> function entry */
	const struct ipt_dist *csd_run;		/* csd function entry -> exit */
	uint64_t with_stack;		/* counted rows to it whose send has a kernel stack */
	uint64_t recorder_ipis;		/* counted rows to it sent by the recorder itself
					 * (ipt_trace_provenance "recorder_pids") */
	/* user stacks (record --user-stacks), of the rows with_stack: */
	uint64_t with_user_stack;	/* their stack goes on into user space */
	uint64_t user_in_irq;		/* sent in interrupt context: the user stack there
					 * was the interrupted task's, left out */
	uint64_t user_cut;		/* their user stack stops short of the program's
					 * entry (IPT_UFRAME_CUT: no frame pointers, or
					 * the kernel's 8-frame limit) */
};
/* CPU cpu of the table (0 <= cpu < ncpus), else NULL. */
const struct ipt_report_cpu *ipt_report_cpu(const struct ipt_report *r, int cpu);

/* Per kind (with kind_distributions; else the distributions are empty). */
struct ipt_report_kind {
	uint64_t ipis;			/* counted rows of this kind */
	const struct ipt_dist *latency;	/* send -> entry of the interrupt that served it */
	const struct ipt_dist *handler;	/* that interrupt's entry -> exit; an interrupt
					 * that served several kinds counts in each */
};
const struct ipt_report_kind *ipt_report_kind(const struct ipt_report *r, enum ipt_ipi_kind kind);

/*
 * The tables below are sorted by count, largest first, ties by target
 * CPU and then by the other columns in order.  *n is set to the number of
 * entries; the arrays belong to the report.
 */
struct ipt_report_sender {		/* a task sending from a CPU to a target CPU */
	int32_t target_cpu;		/* -1 in ipt_report_sender_tasks() */
	int32_t pid;
	int32_t src_cpu;		/* -1 in ipt_report_sender_tasks() */
	uint64_t count;
};
const struct ipt_report_sender *ipt_report_senders(const struct ipt_report *r, size_t *n);
/* The same added up per task (over target and sending CPUs). */
const struct ipt_report_sender *ipt_report_sender_tasks(const struct ipt_report *r, size_t *n);

struct ipt_report_pair {		/* a call site and the function it made run */
	int32_t target_cpu;		/* -1 in ipt_report_pairs_all() */
	uint64_t callsite;		/* address, 0 if none */
	uint64_t function;		/* the function really run, else the callback; 0 if none */
	uint64_t count;
};
const struct ipt_report_pair *ipt_report_pairs(const struct ipt_report *r, size_t *n);
/* The same added up over the target CPUs. */
const struct ipt_report_pair *ipt_report_pairs_all(const struct ipt_report *r, size_t *n);

struct ipt_report_cell {		/* the sender x target matrix, non-zero cells */
	int32_t src_cpu, target_cpu;
	uint64_t count;
};
const struct ipt_report_cell *ipt_report_matrix(const struct ipt_report *r, size_t *n);

/* One IPI to an isolated CPU (opts.isolated), in time order. */
struct ipt_report_isolated {
	uint64_t ts, id;		/* as in struct ipt_ipi_row */
	int32_t src_cpu, target_cpu, pid;
	uint64_t callsite, callback, func;
	enum ipt_ipi_kind kind;
	const char *reason;
	int64_t latency;		/* send -> handler entry, -1 unknown */
	int64_t handler;		/* handler entry -> exit, -1 unknown */
	const uint64_t *stack;		/* kernel stack recorded with the send, leaf
					 * first, the tracing frames on top trimmed
					 * (as struct ipt_report_stack); or NULL */
	uint32_t nstack;
	bool matched;			/* served by a handler */
};
const struct ipt_report_isolated *ipt_report_isolated(const struct ipt_report *r, size_t *n);

/*
 * Grouping: the counted rows to one target CPU (or to all) added up by one
 * key, as `ipitrace report --by` shows them.
 */
enum ipt_group_by {
	IPT_BY_COMM,		/* the sending task's name (its pids: npids, top_pid) */
	IPT_BY_PID,		/* the sending task */
	IPT_BY_TASK,		/* the sending task on one sending CPU */
	IPT_BY_CPU,		/* the sending CPU */
	IPT_BY_CALLSITE,	/* the call site of the send */
	IPT_BY_FUNCTION,	/* the function really run (csd), else the callback */
	IPT_BY_KIND,
	IPT_BY_STACK,		/* the sender's kernel stack, tracing frames trimmed */
	IPT_BY__COUNT
};
/* "comm", "pid", "task", "cpu", "callsite", "function", "kind", "stack" */
const char *ipt_group_by_name(enum ipt_group_by by);
/* The key named name, or -1. */
int ipt_group_by_from_name(const char *name);

enum ipt_group_sort {
	IPT_SORT_COUNT,		/* largest count first, ties by key */
	IPT_SORT_KEY,		/* by key: names, numbers, addresses ascending */
};

/* A kernel stack: frames leaf first, the tracing frames on top trimmed. */
struct ipt_report_stack {
	const uint64_t *frames;		/* leaf first: the kernel's frames, then the
					 * user frames if recorded (ipt_trace_user_frame) */
	uint32_t nframes;
	uint32_t trimmed;		/* tracing frames cut off the leaf side */
};

#define IPT_GROUP_TOP_PIDS 3
struct ipt_report_group {
	int32_t target_cpu;		/* -1: all target CPUs */
	uint64_t count;
	/* the key; the fields the key does not use are NULL, -1 or 0 */
	const char *comm;		/* comm, pid, task */
	int32_t pid;			/* pid, task */
	int32_t src_cpu;		/* task, cpu */
	uint64_t addr;			/* callsite, function (0: none) */
	int kind;			/* kind (enum ipt_ipi_kind), else -1 */
	const struct ipt_report_stack *stack;	/* stack: NULL for the rows sent
						 * with no stack recorded */
	/* comm: how many pids, and the largest of them (pid -1 past npids) */
	uint32_t npids;
	struct {
		int32_t pid;
		uint64_t count;
	} top_pids[IPT_GROUP_TOP_PIDS];
};
/*
 * The groups of the counted rows to target CPU cpu (-1: to every CPU), by
 * key by, in sort order; *n set.  The array belongs to the report (made
 * on first call, kept until ipt_report_free).  NULL on error
 * (IPT_ERR_INVALID for a bad key or CPU); an empty table is not NULL.
 */
const struct ipt_report_group *ipt_report_groups(struct ipt_report *r, enum ipt_group_by by, int cpu,
						 enum ipt_group_sort sort, size_t *n);
/* The same over the target CPUs of a set (a role: the isolated CPUs, the
 * housekeeping ones), merged; the array is the caller's to free().  NULL on
 * error (IPT_ERR_INVALID for a bad key). */
struct ipt_report_group *ipt_report_groups_on(struct ipt_report *r, enum ipt_group_by by,
					      const struct ipt_cpuset *cpus, enum ipt_group_sort sort, size_t *n);

/*
 * Roles: the counted rows to the target CPUs of a set (the isolated CPUs,
 * the housekeeping ones) as one unit, as the text report's "CPU roles"
 * and the JSON's "roles" give them.  A role's senders by a key are
 * ipt_report_groups_on() over the same set.
 */
struct ipt_report_role {		/* read-only; fields may be added at the end */
	unsigned int ncpus;		/* the set's CPUs in the table (below ncpus) */
	uint64_t ipis;			/* counted rows to them */
	uint64_t by_kind[IPT_KIND__COUNT];
	double per_s;			/* ipis per second of the trace; NAN when not
					 * known (the clock does not count ns, or the
					 * trace lasts no time) */
	double per_cpu_per_s;		/* per_s / ncpus (0 for no CPU; NAN as per_s) */
	uint64_t recorder_ipis;		/* of ipis, sent by the recorder itself
					 * (struct ipt_report_cpu) */
	uint64_t with_stack;		/* of ipis, whose send has a kernel stack */
};
/* The role of the CPUs of set, the caller's to free(); NULL on error
 * (IPT_ERR_INVALID for no set). */
struct ipt_report_role *ipt_report_role(const struct ipt_report *r, const struct ipt_cpuset *cpus);
/* The (call site, function) pairs to the CPUs of set, added up over them
 * (target_cpu -1) and sorted as ipt_report_pairs_all(); the array is the
 * caller's to free().  NULL on error (IPT_ERR_INVALID for no set); an
 * empty table is not NULL. */
struct ipt_report_pair *ipt_report_pairs_on(const struct ipt_report *r, const struct ipt_cpuset *cpus, size_t *n);

/*
 * Folded stacks ("comm;root;...;leaf COUNT" lines, as flamegraph.pl,
 * inferno and speedscope read them) of the counted rows to cpu (-1: all)
 * whose send has a kernel stack: frames are function names ("0x..." for an
 * unknown address), tracing frames trimmed; equal lines are merged; sorted
 * by count, largest first, then by text.  Appended to sb; *total (may be
 * NULL) gets the sum of the counts.  -1 on error.
 */
int ipt_report_folded(struct ipt_report *r, int cpu, struct ipt_strbuf *sb, uint64_t *total);

/*
 * Before and after: two recordings compared key by key (`ipitrace diff`).
 *
 *   struct ipt_diff_side *a = ipt_diff_read(ta, NULL), *b = ipt_diff_read(tb, NULL);
 *   struct ipt_diff_row *v = ipt_diff_table(a, b, IPT_BY_FUNCTION, &n);
 *   ... v[i].key, v[i].count[0], v[i].count[1], v[i].p, v[i].status ...
 *   free(v); ipt_diff_side_free(a); ipt_diff_side_free(b);
 *
 * A side is one pass over a recording: its counted rows (the report's,
 * the recorder's own sends left out) tallied under every key and the role
 * of their target CPU, isolated or housekeeping, in windows of time.  A
 * table row is a key and a role, with the counts and rates of both sides
 * and a two-sided test of the change of rate per CPU of the role, widened
 * by the dispersion the rows' counts in the windows show (IPIs come in
 * bursts): docs/diff.md.  Keys are text (symbol names, not addresses, so
 * that kernels built apart compare).
 */
struct ipt_diff_opts {
	size_t sz;			/* sizeof(struct ipt_diff_opts) */
	const char *filter;		/* count only the rows matching this (NULL: all) */
	const struct ipt_cpuset *isolated;	/* the isolated role (NULL: the recording's
						 * isolated and nohz_full CPUs) */
	bool with_recorder;		/* keep the recorder's own sends */
	int threads;			/* as in struct ipt_report_opts */
	bool latency;			/* also what matching found: the latency and
					 * handler time per row (ipt_diff_row), and
					 * the stacks (IPT_BY_STACK); 80 bytes a row
					 * while reading */
	bool per_cpu;			/* rows per target CPU, not per role (both
					 * sides alike) */
};
struct ipt_diff_side;
/* One recording read; NULL on error (ipt_errmsg). */
struct ipt_diff_side *ipt_diff_read(struct ipt_trace *t, const struct ipt_diff_opts *opts);
void ipt_diff_side_free(struct ipt_diff_side *s);

struct ipt_diff_info {			/* read-only; fields may be added at the end */
	bool ts_in_ns;			/* else no rates or test: cycles, not ns */
	double duration_s;		/* first to last event (NAN without a ns clock) */
	int ncpus, ncpus_isolated;	/* the recording's CPUs; of those, isolated */
	const struct ipt_cpuset *isolated;
	uint64_t ipis;			/* counted rows tallied */
	uint64_t recorder_ipis;		/* the recorder's own, left out */
	uint32_t windows;		/* complete windows of time, for the dispersion */
	double window_s;		/* their length */
	bool lost_events;		/* the kernel dropped events: counts are low by them */
	/* per role (enum ipt_cpu_role): the IPI interrupts on its CPUs, those
	 * with their exit seen, and the time in their handlers (ns) */
	uint64_t handlers[2], handler_timed[2], handler_ns[2];
	const char *cross_cpu_latency_missing_because;	/* NULL, or why latencies
							 * between CPUs are not known */
};
const struct ipt_diff_info *ipt_diff_info(const struct ipt_diff_side *s);

enum ipt_cpu_role { IPT_ROLE_HOUSEKEEPING, IPT_ROLE_ISOLATED };
/* "housekeeping", "isolated" */
const char *ipt_role_name(enum ipt_cpu_role role);

enum ipt_diff_status {
	IPT_DIFF_SAME,			/* no change at the IPT_DIFF_ALPHA level */
	IPT_DIFF_MORE, IPT_DIFF_FEWER,	/* a significant change of rate */
	IPT_DIFF_GONE, IPT_DIFF_NEW,	/* none in after (before), significantly */
	IPT_DIFF_UNTESTED,		/* no test possible: untested_because */
};
/* "same", "more", "fewer", "gone", "new", "untested" */
const char *ipt_diff_status_name(enum ipt_diff_status st);
#define IPT_DIFF_ALPHA 0.05
/* the role totals: ipt_diff_table(a, b, IPT_DIFF_BY_ROLE, &n) (key "") */
#define IPT_DIFF_BY_ROLE (-2)

struct ipt_diff_row {
	const char *key;		/* comm, pid, sending cpu, call site or function
					 * name ("0x..." unknown, "(none)"), kind name */
	enum ipt_cpu_role role;		/* of the target CPUs (per CPU: of that CPU
					 * in the side that has the row, before first) */
	int32_t target_cpu;		/* opts.per_cpu: the target CPU; else -1 */
	uint64_t count[2];		/* before (a), after (b) */
	double per_s[2];		/* rows per second of the recording */
	double per_cpu_hour[2];		/* per hour and CPU of the role (NAN: no CPU) */
	double diff_per_s;		/* per_s[1] - per_s[0] */
	double ratio;			/* of the rates per CPU: INFINITY new, 0 gone */
	double dispersion;		/* variance / mean of the window counts (1: Poisson) */
	double p;			/* two-sided p of no change (NAN: untested) */
	enum ipt_diff_status status;
	const char *untested_because;	/* NULL, or why there is no test */
	/* with opts.latency, of the rows matched: send -> handler entry, and
	 * the handler's time (ns); NULL for a side without the row */
	const struct ipt_dist *latency[2], *handler[2];
};
/*
 * The table of a and b by key (IPT_BY_COMM, _PID, _CPU, _CALLSITE,
 * _FUNCTION, _KIND, _STACK (sides read with opts.latency; the key is the
 * folded stack, "comm;root;...;leaf", or "(no stack)"), or
 * IPT_DIFF_BY_ROLE), ordered by the size of the
 * change (|diff_per_s|), largest first; the caller frees it, the strings
 * belong to the sides.  NULL on error (IPT_ERR_INVALID for another key).
 */
struct ipt_diff_row *ipt_diff_table(const struct ipt_diff_side *a, const struct ipt_diff_side *b, int by,
				    size_t *n);
/*
 * The test alone: the two-sided p that counts count_a and count_b, seen
 * over exposures exposure_a and exposure_b (CPU-seconds), come from one
 * rate, with the counts' variance dispersion times their mean (values
 * below 1 count as 1): the binomial test of count_a among the two, both
 * counts divided by the dispersion.  NAN for no counts or exposure.
 */
double ipt_diff_pvalue(uint64_t count_a, double exposure_a, uint64_t count_b, double exposure_b,
		       double dispersion);

/*
 * What matching found for a row (with opts.row_results).  Rows are asked
 * for in the order an ipt_ipi_iter with the report's filter gives them; a
 * row the report did not count (another filter, a CPU out of range) gets
 * known = false and does not move the cursor.
 */
enum ipt_unmatched_reason {
	IPT_UNMATCHED_NONE,		/* matched, or not known */
	IPT_UNMATCHED_TRACE_ENDED,	/* sent at the end: its interrupt came after */
	IPT_UNMATCHED_NO_RECEIVE_EVENTS,	/* the trace has no receive events for it */
	IPT_UNMATCHED_LOST_EVENTS,	/* events were lost on the target meanwhile */
	IPT_UNMATCHED_NO_HANDLER,	/* no interrupt served it */
};
/* "trace_ended", "no_receive_events", "lost_events", "no_handler"; NULL for NONE */
const char *ipt_unmatched_reason_name(enum ipt_unmatched_reason why);

struct ipt_row_match {
	bool known;			/* the report counted and matched this row */
	bool matched;			/* an interrupt on the target served it */
	bool coalesced;			/* ... that had served an earlier send */
	enum ipt_unmatched_reason unmatched;	/* why not, when !matched */
	bool has_latency;		/* send -> entry in ns: matched, a ns clock, and
					 * comparable across CPUs (or the same CPU) */
	uint64_t latency_ns;
	bool has_handler;		/* that interrupt's entry -> exit was seen */
	uint64_t handler_ns;
	bool has_handler_ts;		/* matched and a ns clock */
	uint64_t handler_ts_ns;		/* the interrupt's entry */
	const struct ipt_report_stack *stack;	/* the sender's stack, or NULL */
};
/* 0 and *m filled (see above), -1 on error (no row_results). */
int ipt_report_row_match(struct ipt_report *r, const struct ipt_ipi_row *row, struct ipt_row_match *m);
/*
 * The same for the i-th counted row (from 0, in opts.on_row's order), with
 * no cursor: the report is only read, so threads may ask at once.  A row
 * that is not the i-th counted one (its id or target CPU differ), or an i
 * past the last, gets known = false.  The latency is taken from the row's
 * ts and src_cpu: give the row as it came.  0, or -1 on error (no row_results).
 */
int ipt_report_row_match_nth(const struct ipt_report *r, size_t i, const struct ipt_ipi_row *row,
			     struct ipt_row_match *m);
/*
 * The results of counted rows [lo, hi) will not be asked for again: the
 * memory they hold is given back where it can be (whole pages; 16 bytes a
 * row), so that a caller moving the results elsewhere (into columns) as it
 * goes does not hold them twice.  Asked for after, a row given back gets
 * known = false.  Threads may give back ranges that do not overlap at once,
 * beside ipt_report_row_match_nth on other rows.
 */
void ipt_report_row_results_drop(struct ipt_report *r, size_t lo, size_t hi);

/*
 * Interrupts that served no traced send (an IPI interrupt on a CPU with no
 * send waiting for its vector), with the cause where it can be known.
 */
enum ipt_unsent_cause {
	IPT_UNSENT_BEFORE_START,	/* another CPU was not recording yet (its first
					 * record, not after lost events, is later): its
					 * send may predate the trace */
	IPT_UNSENT_LOST_EVENTS,		/* events were lost on a CPU in the moments
					 * before (as long as the largest latency seen):
					 * the send may be among them */
	IPT_UNSENT_FILTERED,		/* the recording filtered the send events */
	IPT_UNSENT_UNTRACED,		/* none of those: a kernel path the send events
					 * do not cover */
	IPT_UNSENT_UNKNOWN,		/* not decided: more such interrupts than the
					 * report keeps (2 M) */
	IPT_UNSENT__COUNT
};
/* "before_trace_start", "lost_events", "filtered", "untraced_path", "unknown" */
const char *ipt_unsent_cause_name(enum ipt_unsent_cause why);
/* What the cause means, in a few words for a reader ("another CPU was not
 * recording yet", ...) */
const char *ipt_unsent_cause_what(enum ipt_unsent_cause why);

struct ipt_report_unsent {		/* per CPU and vector */
	int32_t cpu;
	const char *vector;		/* x86: "reschedule", "call_function",
					 * "call_function_single", "irq_work";
					 * arm64: the ipi_entry reason */
	uint64_t count;
	uint64_t by_cause[IPT_UNSENT__COUNT];
};
/* Non-zero entries, by CPU and vector; the array belongs to the report.
 * Without a filter they add up to ipt_report_summary's
 * handlers_unattributed (with one, that also counts interrupts that served
 * only sends the filter left out). */
const struct ipt_report_unsent *ipt_report_unsent(const struct ipt_report *r, size_t *n);

/* One interrupt with no traced send on an isolated CPU (opts.isolated), in time order. */
struct ipt_report_isolated_unsent {
	uint64_t ts;
	int32_t cpu;
	int32_t pid;			/* the task it interrupted */
	const char *vector;		/* as in struct ipt_report_unsent */
	enum ipt_unsent_cause cause;
	int64_t handler;		/* entry -> exit, -1 unknown */
};
const struct ipt_report_isolated_unsent *ipt_report_isolated_unsent(const struct ipt_report *r, size_t *n);

/*
 * The kernel's own counters (/proc/interrupts, stored by `ipitrace record`)
 * beside what the trace holds, per CPU and IPI row: x86 RES (reschedule),
 * CAL (both function-call vectors), TLB (the flushes among CAL's
 * interrupts: within, never to be added), IWI (irq_work); arm64 IPIn (the
 * ipi_entry reason its description names).  Empty without the counters.
 */
struct ipt_report_kernel_irq {
	int32_t cpu;
	const char *row;		/* "RES", "CAL", "TLB", "IWI", "IPI0", ... */
	const char *desc;		/* the kernel's description, or NULL */
	int64_t kernel;			/* its count from tracing on to off; -1 unknown */
	int64_t traced;			/* IPI interrupts traced on the CPU for it;
					 * -1: the trace's events do not cover it */
	int64_t sends;			/* sends traced to the CPU that it serves; -1 as traced */
	int64_t setup, teardown;	/* counts from before setup to tracing on, and
					 * from tracing off to after teardown; -1 unknown */
	bool within;			/* counted within another row (x86 TLB in CAL) */
	enum ipt_kirq_note {		/* kernel beside traced: */
		IPT_KIRQ_EXPLAINED,	/* the trace holds what the kernel counted */
		IPT_KIRQ_MORE_COUNTED,	/* the kernel counted `unexplained` more: lost
					 * events, or interrupts before the CPU's first
					 * or after its last event */
		IPT_KIRQ_MORE_TRACED,	/* the trace holds -`unexplained` more: the
					 * counters were read a moment after tracing
					 * started or before it stopped */
		IPT_KIRQ_NOT_RECORDED,	/* the recording's --cpus left the CPU out: its
					 * interrupts are not in the trace by choice */
		IPT_KIRQ_NOT_COVERED,	/* no trace event covers the row */
		IPT_KIRQ_WITHIN,	/* counted within another row */
		IPT_KIRQ_UNKNOWN,	/* the kernel's count is unknown */
		IPT_KIRQ__COUNT
	} note;
	int64_t unexplained;		/* kernel - traced (EXPLAINED, MORE_*), kernel
					 * (NOT_COVERED); else 0 */
};
const struct ipt_report_kernel_irq *ipt_report_kernel_irqs(const struct ipt_report *r, size_t *n);
/* "explained", "more_counted", "more_traced", "not_recorded", "not_covered",
 * "within", "unknown" */
const char *ipt_kirq_note_name(enum ipt_kirq_note note);

/*
 * IPIs counted to cpu per time bin (opts.time_bins counts), or NULL
 * without time bins or for a CPU outside the table.  Bin i covers
 * [first_ts + i * span / time_bins, first_ts + (i+1) * span / time_bins)
 * with span = last_ts - first_ts + 1: the bins add up to the CPU's ipis.
 * Exact for the first 4M IPIs counted; past that, the report keeps 4096
 * finer bins per CPU instead (memory stays bounded) and gives each to the
 * bin of its middle.
 */
const uint64_t *ipt_report_time_bins(const struct ipt_report *r, int cpu);

/*
 * A kernel address as the report tables show it: "sym+0xoff" (or "sym"
 * without with_offset), "0x..." for an unknown address, "-" for 0.
 * Written NUL-terminated into buf of size bytes (cut if too long).
 */
void ipt_trace_format_symbol(const struct ipt_trace *t, uint64_t addr, bool with_offset,
			     char *buf, size_t size);

/*
 * IPT_NO_FUNCTION - the one label of an IPI that names no function: no
 * callback and no csd function queued for it.  A reschedule
 * (smp_send_reschedule) passes none, but so do irq_work's self-IPIs, timer
 * broadcasts and CPU stops on some architectures, and arm64's ipi_raise
 * (which says its reason instead): no function is not proof of a
 * reschedule, so the label does not say one (the row's kind,
 * ipt_ipi_classify(), says what it was).  report's tables (text, HTML,
 * --by function), diff and top print it.
 */
#define IPT_NO_FUNCTION "(none)"

/*
 * A function an IPI runs (its callback or csd function) as the tables show
 * it: "sym", "0x..." for an unknown address, IPT_NO_FUNCTION for 0.
 * Written NUL-terminated into buf of size bytes (cut if too long).
 */
void ipt_trace_format_function(const struct ipt_trace *t, uint64_t addr, char *buf, size_t size);

/* (end of the report section) */

/*
 * Latency spikes and what interfered inside them (`ipitrace explain`)
 *
 * A spike is a timerlat sample of the thread context (record --timerlat):
 * on its CPU the thread woke latency_ns after its timer was due, so it
 * covers [ts_ns - latency_ns, ts_ns].  Each IPI send whose interrupt (as
 * matching finds it: ipt_row_match) entered on that CPU inside the window
 * is listed under it with its sender; handler_ns counts once per
 * interrupt (coalesced sends share it).  Needs a trace in ns.
 *
 * The osnoise:* noise events (irq_noise, softirq_noise, nmi_noise,
 * thread_noise) on that CPU are the other interference.  Each is written
 * when its noise ends, so its record's time is the end (in the trace's
 * clock); its start field is in the kernel's local clock (trace_clock_local),
 * not comparable with the trace's, and is not used.  A noise is in the
 * window when its end is; one whose net duration reaches back before the
 * window's start (end - duration < start) is counted only up to the start
 * (before_window; counted_ns < duration_ns).  Durations are net of nested
 * noise, so they add up: unaccounted = latency - the sum of counted_ns.
 * An IPI interrupt is tied to its irq_noise: the first of an IPI vector
 * (call_function*, reschedule, irq_work) on that CPU ending at or after the
 * interrupt's entry and at most IPT_SPIKE_TIE_NS after its exit.  (osnoise
 * writes it from its own probe on the vector's exit tracepoint: after the
 * exit event when the events were enabled before the tracer started, as
 * `record --timerlat` does, before it otherwise, as in rtla's -t trace.)  Without noise events in the
 * trace (noise_known false) the sum is the IPI handler times.
 *
 * The structs below are the library's, read through const pointers: their
 * fields stay as they are and new ones come at the end.  Reach a spike's
 * IPIs and noise with ipt_spike_ipi_get() and ipt_spike_noise_get() (not
 * ipis[k], noise[k]), so that a program built against this header keeps
 * working when those structs grow.
 */
struct ipt_spikes_opts {
	size_t sz;			/* sizeof(struct ipt_spikes_opts) */
	uint64_t threshold_ns;		/* every thread sample over it; 0: the worst */
	int worst;			/* ... per CPU, without a threshold (0: 10) */
};
#define IPT_SPIKE_TIE_NS 100000ULL	/* an IPI's exit to its irq_noise's end, at most */
struct ipt_spike_ipi {
	uint64_t send_ns, entry_ns;	/* the send, the interrupt's entry */
	bool has_handler;
	bool coalesced;			/* its interrupt is an earlier entry's */
	uint64_t handler_ns;		/* the interrupt's entry -> exit */
	int32_t src_cpu, pid;
	enum ipt_ipi_kind kind;
	char *comm;			/* the sender */
	char *callsite;			/* symbol, or NULL */
	uint64_t callsite_off;
	char *func;			/* the function run (or the callback) as the
					 * tables name it: "sym", "0x..." (unknown
					 * symbol) or IPT_NO_FUNCTION (none) */
	int32_t noise;			/* its irq_noise in the spike's noise[], or -1 */
	uint64_t *stack;		/* the sender's stack when recorded (leaf first:
					 * kernel frames, then user frames, as struct
					 * ipt_report_stack's; ipt_trace_format_symbol
					 * names them), else NULL */
	uint32_t nstack;
};
enum ipt_spike_noise_kind {
	IPT_SPIKE_NOISE_IRQ,		/* irq_noise: name desc, num vector */
	IPT_SPIKE_NOISE_SOFTIRQ,	/* softirq_noise: name the softirq's, num vector */
	IPT_SPIKE_NOISE_NMI,		/* nmi_noise: name "nmi", num -1 */
	IPT_SPIKE_NOISE_THREAD,		/* thread_noise: name comm, num pid */
};
/* "irq", "softirq", "nmi", "thread" */
const char *ipt_spike_noise_kind_name(enum ipt_spike_noise_kind k);
struct ipt_spike_noise {
	enum ipt_spike_noise_kind kind;
	char name[32];
	int32_t num;
	uint64_t end_ns;		/* its record's time (the trace's clock) */
	uint64_t duration_ns;		/* net, as the kernel measured it */
	uint64_t counted_ns;		/* of it inside the window */
	bool before_window;		/* end - duration < the window's start */
	int32_t ipi;			/* the first IPI of ipis[] tied to it, or -1 */
};
struct ipt_spike {
	int cpu;
	uint32_t seq;			/* timerlat's; 0 for an osnoise sample */
	bool osnoise;			/* an osnoise:sample_threshold: latency_ns is
					 * its duration (the gap in the tracer's
					 * loop), else a timerlat thread sample */
	uint32_t interference;		/* osnoise: the interferences it counted */
	uint64_t ts_ns, latency_ns, start_ns;	/* start_ns = ts_ns - latency_ns */
	uint64_t ipi_ns;		/* handler time of its IPI interrupts */
	struct ipt_spike_ipi *ipis;	/* in time order of their sends */
	size_t nipis;
	struct ipt_spike_noise *noise;	/* in time order of their ends */
	size_t nnoise;
	bool noise_known;		/* the trace has the osnoise noise events */
	uint64_t listed_ns;		/* sum of noise[].counted_ns (noise_known),
					 * else ipi_ns */
	bool over;			/* listed_ns > latency_ns: no unaccounted */
	uint64_t unaccounted_ns;	/* latency_ns - listed_ns, when !over */
	uint64_t excess_ns;		/* listed_ns - latency_ns, when over */
	struct ipt_spike_csd *csd;	/* csd functions run on its CPU inside its
					 * window, in the order of their entries
					 * (ipt_spike_csd_get) */
	size_t ncsd;
	bool csd_known;			/* the trace has csd:csd_function_entry
					 * (Linux 6.5 and later) */
};
/*
 * A csd function (a function another CPU asked this one to run: smp_call_*,
 * remote wakeups, TLB flushes) that started on the spike's CPU inside its
 * window, from csd:csd_function_entry and _exit, and its queueing
 * (csd:csd_queue_cpu, paired by csd pointer and target CPU) when that was
 * recorded.  A queueing before events were lost on the target is not
 * paired (the pointer may have been reused in the gap).  The run's time is
 * inside its interrupt's handler time (or in the task that flushed the
 * queue): not more interference on top of it.
 */
struct ipt_spike_csd {
	uint64_t entry_ns;		/* csd_function_entry */
	bool has_exit;
	uint64_t run_ns;		/* entry -> its csd_function_exit */
	char *func;			/* as the tables name it (ipt_trace_format_function) */
	int32_t ipi;			/* the IPI of the spike whose interrupt ran it
					 * (entry inside that handler), or -1 */
	bool queued;			/* its csd_queue_cpu was seen and paired: */
	uint64_t queue_ns;		/* when it was queued */
	int32_t src_cpu, pid;		/* the queueing CPU and task */
	char *comm;
	char *callsite;			/* the queueing's call site, "sym+0xoff" */
};
/* The spikes of t (sorted by CPU and start), their IPIs and noise; NULL on error
 * (no timerlat samples in the trace: IPT_ERR_INVALID). */
struct ipt_spikes *ipt_spikes_explain(struct ipt_trace *t, const struct ipt_spikes_opts *opts);
size_t ipt_spikes_count(const struct ipt_spikes *sp);
/* csd calls queued to the spikes' CPUs that were forgotten unpaired: more
 * than 262,144 waited at once (their runs not recorded), so the memory
 * stays bounded; a run of one of them shows no queueing. */
uint64_t ipt_spikes_csd_given_up(const struct ipt_spikes *sp);
const struct ipt_spike *ipt_spikes_get(const struct ipt_spikes *sp, size_t i);
/* The k-th IPI of a spike (k < nipis), its k-th noise (k < nnoise); NULL past the end. */
const struct ipt_spike_ipi *ipt_spike_ipi_get(const struct ipt_spike *s, size_t k);
const struct ipt_spike_noise *ipt_spike_noise_get(const struct ipt_spike *s, size_t k);
/* The k-th csd function run of a spike (k < ncsd); NULL past the end. */
const struct ipt_spike_csd *ipt_spike_csd_get(const struct ipt_spike *s, size_t k);
void ipt_spikes_free(struct ipt_spikes *sp);


#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* IPITRACE_H */
