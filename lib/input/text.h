/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * input/text.h - the text reader's state and the functions its files
 * share (not installed)
 *
 * A text trace is read line by line (text_load.c).  An event line is cut
 * into its prefix (text_line.c), its event is found or made
 * (text_events.c), its fields text becomes the binary record the kernel
 * would have written (text_fields.c, with text_syms.c for symbols and
 * printk strings and text_mask.c for CPU masks), and the record goes into
 * its CPU's ring-buffer pages (text_record.c).  Stack lines and continued
 * text complete a pending record (text_stack.c); header lines and loss
 * marks say what the trace says of itself (text_header.c).
 *
 * Calls go one way, down this list: text_load, text_header, text_fields,
 * text_stack, text_mask, text_syms, text_events, text_record, text_line.
 */
#ifndef IPT_INPUT_TEXT_H
#define IPT_INPUT_TEXT_H

#include "input/input.h"
#include "input/text_maps.h"
#include "input/text_scan.h"

#define SYM_TOP 0xffffffffffff0000ULL	/* synthetic symbols grow down from here */
#define MAX_PAYLOAD 4000u	/* fits a 4096-byte page with its headers */

/* how the fields text of an event is read */
enum ev_kind {
	EK_TEXT,	/* generic: the whole text in one string field */
	EK_KV,		/* name=value pairs named after the fields */
	EK_SWITCH,	/* sched_switch: kernel name=value or trace-cmd plugin text */
	EK_WAKEUP,	/* sched_wakeup*: likewise */
	EK_STACK,	/* kernel_stack, "=>" lines follow */
	EK_RAISE,	/* arm64 ipi_raise: "target_mask=HEX (reason)" */
	EK_REASON,	/* arm64 ipi_entry/ipi_exit: "(reason)" */
	EK_TIMERLAT,	/* ftrace's timerlat sample (text_spikes.c) */
	EK_NOISE,	/* osnoise:*_noise, sample_threshold (text_spikes.c) */
	EK_OSNOISE,	/* ftrace's osnoise summary (text_spikes.c) */
	EK_KPROBE,	/* the recorder's dynamic probes: "(function+0x0/0xN) name=value ..." */
};

/* how a field's value text is read: a number, a %pS symbol, a %p pointer, a
 * CPU mask, a char array, a __data_loc string, sched_switch state letters,
 * a kprobe's array of words ("{0x6,0x0}": a mask fetched as x64[N]) */
enum role { R_INT, R_SYM, R_PTR, R_MASK, R_STR, R_DSTR, R_STATE, R_WORDS };

#define MAXF 16		/* fields of an event read from text */

/* a non-common field of an event and how its value text is read */
struct finfo {
	const struct ipt_field *f;	/* points into the event's field array (stable) */
	enum role role;
};

/* an event of the trace as the reader sees it (x->ei) */
struct einfo {
	int id;
	enum ev_kind kind;
	const char *name;	/* the event's own name string */
	unsigned int fixed;	/* bytes before dynamic data */
	struct finfo fl[MAXF];
	int nf;
};

/* one synthetic address slot of a symbol name */
struct synsym {
	uint64_t base;
	uint64_t size;
	int next;		/* further slot of the same name, -1 none */
};

/* the pages of one buffer's CPU */
struct cpuw {
	struct ipt_page_writer pw;
	uint64_t last_ts;
	bool used;
};

/* a parsed event line */
struct line {
	const char *comm;
	size_t comm_len;
	int pid;
	int cpu;
	int buf;		/* the trace's buffer ("NAME: " before the line), 0 the top one */
	uint8_t flags, pc;
	bool has_flags, latency;
	uint64_t ts;
	const char *name;	/* event name; NULL: none ("<stack trace>", see event_line) */
	size_t name_len;
	const char *f, *fe;	/* fields text */
};

/* the reader of one text trace */
struct tx {
	struct ipt_trace *t;
	const char *buf;
	size_t len;
	long long line_off;	/* offset of the current line */

	struct einfo *ei;
	int nei, capei;
	struct smap evmap;	/* event name -> einfo index */
	int next_generic;

	struct smap symmap;	/* symbol name -> synsym index */
	struct synsym *syn;
	int nsyn, capsyn;
	uint64_t sym_top;
	struct aset real;	/* addresses with a real or raw symbol */

	struct smap reasonmap;	/* printk string -> index */
	int nreason;

	struct cpuw **cw;
	int ncw;

	uint8_t *rec;		/* the record being built */
	uint32_t rlen, rcap;

	/* a record waiting for continuation lines */
	bool pending;
	int pend_cpu;
	uint64_t pend_ts;
	int pend_ei;
	uint32_t pend_str;	/* EK_TEXT: offset of the string */
	uint32_t pend_n;	/* EK_STACK: entries */

	uint64_t mask[IPT_CPUSET_MAX / 64];
	unsigned int mask_words;	/* words possibly non-zero */

	int nr_cpus;		/* from cpus=N or #P:N, 0 unknown */
	int max_cpu;
	bool saw_tracer, saw_cpus, first_flags, first_seen, raw_ts;
	char clock[16];		/* a header comment's "clock: NAME" ("": none) */
	uint64_t nevents, skipped, raised;
	uint64_t prev_line_ts;	/* timestamp of the previous event line, as written */
	const char *layout;	/* a layout this reader cannot use, seen on a skipped line */
	long long layout_off;
	uint32_t same_ts;	/* event lines since with that same timestamp */
	long long first_skipped;
};

/* what ipt_text_parse_prefix and ipt_text_buffer_prefix make of a line */
enum { LP_NO = 0, LP_OK = 1, LP_BAD = -1 };

/* ---- the record being built (x->rec): small, on every line ---- */

static inline int rec_reserve(struct tx *x, uint32_t need)
{
	return IPT_GROW(x->rec, x->rcap, need);
}

/* rec_begin - zeroed fixed part with the common fields */
static inline int rec_begin(struct tx *x, const struct einfo *ei, const struct line *ln)
{
	if (rec_reserve(x, ei->fixed + 64))
		return -1;
	memset(x->rec, 0, ei->fixed);
	ipt_put_uint(x->rec, 2, false, (uint64_t)ei->id);
	x->rec[2] = ln->flags;
	x->rec[3] = ln->pc;
	ipt_put_uint(x->rec + 4, 4, false, (uint64_t)(uint32_t)ln->pid);
	x->rlen = ei->fixed;
	return 0;
}

/* put_field - a number into a fixed field of the record */
static inline void put_field(struct tx *x, const struct ipt_field *f, uint64_t v)
{
	unsigned int n = f->size > 8 ? 8 : f->size;

	if (f->offset + n <= x->rlen)
		ipt_put_uint(x->rec + f->offset, n, false, v);
}

/* fld - the field of ei named name, NULL if none */
static inline const struct finfo *fld(const struct einfo *ei, const char *name)
{
	for (int i = 0; i < ei->nf; i++)
		if (!strcmp(ei->fl[i].f->name, name))
			return &ei->fl[i];
	return NULL;
}

/* ---- text_line.c: the prefix of an event line ---- */

/*
 * Recognise an event line in [p, e).  LP_NO: not an event line; LP_BAD:
 * looks like one but is malformed (*why); LP_OK: ln filled.  *raw: the
 * timestamp has no fraction (raw clock counts).
 */
int ipt_text_parse_prefix(const char *p, const char *e, struct line *ln, bool *raw,
			  const char **why);
/* An event line of an instance buffer, "NAME: " before it: LP_OK with
 * ln->buf its buffer, 0 if p is no such line, -1 on error. */
int ipt_text_buffer_prefix(struct tx *x, const char *p, const char *e, struct line *ln,
			   bool *raw);
/* p past mail quoting ("> ", ">> ") at the start of a line */
const char *ipt_text_unquote(const char *p, const char *e);
/* The tracefs layout ("raw", "hex", "context-info") of a line this reader
 * cannot use, NULL for any other line. */
const char *ipt_text_unreadable_layout(const char *p, const char *e);

/* ---- text_events.c ---- */

/* The index in x->ei of the event of a name: built in, or a new generic one. */
int ipt_text_event_for(struct tx *x, const char *name, size_t n, int *idx);
/* A line of a name not yet seen whose fields text [f, fe) begins with a
 * probed function the recorder probes under that name: its event
 * registered as the recorder's probe (0, also when it is none), -1 on error. */
int ipt_text_kprobe_event(struct tx *x, const char *name, size_t n, const char *f, const char *fe);

/* ---- text_record.c: records into per-CPU pages ---- */

/* Append data for a __data_loc field (cut to fit a page); str: add a NUL. */
int ipt_text_put_dyn(struct tx *x, const struct ipt_field *f, const void *d, uint32_t n,
		     bool str);
/* The pages of a writer id (buffer * IPT_CPUSET_MAX + CPU), made on first use. */
struct cpuw *ipt_text_cpu_writer(struct tx *x, int cpu);
/* The record in x->rec to the pages of writer id cpu. */
int ipt_text_emit(struct tx *x, int cpu, uint64_t ts);

/* ---- text_syms.c: symbols and printk strings ---- */

/* The synthetic address of name+off (size: the function's size or 0). */
int ipt_text_sym_addr(struct tx *x, const char *name, size_t n, uint64_t off, uint64_t size,
		      uint64_t *addr);
/* The name at a real address (stack lines of trace-cmd report). */
int ipt_text_real_sym(struct tx *x, const char *name, size_t n, uint64_t addr);
/* From addr on, no name is known. */
int ipt_text_unknown_at(struct tx *x, uint64_t addr);
/* The printk string address of an arm64 IPI reason. */
int ipt_text_reason_addr(struct tx *x, const char *s, size_t n, uint64_t *addr);
/* A %pS/%ps value, one token: 0; -1 malformed (no message); -2 failed
 * (message set). */
int ipt_text_parse_symval(struct tx *x, const char *p, const char *e, uint64_t *v);

/* ---- text_mask.c: CPU masks ---- */

/* Parse a mask's text into x->mask; *bits: the width a hex text shows. */
bool ipt_text_parse_mask(struct tx *x, const char *p, const char *e, bool prefer_hex,
			 unsigned int *bits);
/* x->mask as the __data_loc bitmap of field f. */
int ipt_text_put_mask(struct tx *x, const struct ipt_field *f, unsigned int shown_bits);

/* ---- text_stack.c: records continued on later lines ---- */

/* Write the pending record, if any. */
int ipt_text_flush_pending(struct tx *x);
/* A line ("=> ...", or more text) that belongs to the pending record. */
int ipt_text_continuation(struct tx *x, const char *p, const char *e);

/* ---- text_fields.c ---- */

/* The fields text [s, e) of an event line into x->rec, one function for
 * each way of reading it (enum ev_kind). */
int ipt_text_fields_kv(struct tx *x, const struct einfo *ei, const char *s, const char *e);
/* a dynamic probe's line: "(function+0x0/0xN)" into __probe_ip, then name=value */
int ipt_text_fields_kprobe(struct tx *x, const struct einfo *ei, const char *s, const char *e);
int ipt_text_fields_switch(struct tx *x, const struct einfo *ei, const char *s, const char *e);
int ipt_text_fields_wakeup(struct tx *x, const struct einfo *ei, const char *s, const char *e);
int ipt_text_fields_raise(struct tx *x, const struct einfo *ei, const char *s, const char *e);
int ipt_text_fields_reason(struct tx *x, const struct einfo *ei, const char *s, const char *e);

/* ---- text_spikes.c: the latency tracers' lines ---- */
int ipt_text_fields_timerlat(struct tx *x, const struct einfo *ei, const char *s, const char *e);
int ipt_text_fields_noise(struct tx *x, const struct einfo *ei, const char *s, const char *e);
int ipt_text_fields_osnoise(struct tx *x, const struct einfo *ei, const char *s, const char *e);
/* [s, e) is tracefs's nine-column osnoise summary (no event name) */
bool ipt_text_osnoise_columns(const char *s, const char *e);

/* ---- text_header.c: header lines and loss marks ---- */

/* A "CPU:N [... DROPPED]" or "CPU:N [LOST N EVENTS]" line: *handled set
 * if it was one. */
int ipt_text_dropped_line(struct tx *x, const char *p, const char *e, bool *handled);
/* cpus=, version =, # comments: true if the line was one. */
bool ipt_text_header_line(struct tx *x, const char *p, const char *e);

#endif /* IPT_INPUT_TEXT_H */
