// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * text.c - text traces: `trace-cmd report` output and tracefs `trace` text
 *
 * Text traces become the same model as binary ones, so that every later
 * stage has one decode path: each known event gets its real kernel format
 * (built in below), each line becomes the binary record the kernel would
 * have written, and the records go through the page writer into one
 * stream of ring-buffer pages per CPU.
 *
 * Accepted line shapes (leading blanks, mail quoting "> " and a trailing
 * CR are ignored):
 *
 *   report:    "   comm-pid   [CPU]  secs.usecs: event:   fields"
 *   report -l: "   comm-pid   CPUflags  secs.usecs: event:   fields"
 *   tracefs:   "   comm-pid   [CPU] flags  secs.usecs: event: fields"
 *              "   comm-pid   ( tgid) [CPU] flags  secs.usecs: ..."
 *   stacks:    "=> sym (addr)" / " => sym" lines after a kernel_stack line
 *              (tracefs writes "<stack trace>" instead of "kernel_stack:")
 *   headers:   "cpus=N", "version = N", "# ..." comments ("#P:N" gives the
 *              CPU count), "CPU:N [EVENTS DROPPED]", "CPU:N [LOST N EVENTS]"
 *
 * Any other line is skipped and counted.  A line that has the shape of an
 * event line (comm-pid, CPU, then a number) but cannot be parsed is an
 * error naming the byte offset of the line.
 *
 * Symbols: text shows names, not addresses.  Each distinct name gets a
 * synthetic address: slots are handed out downwards from the top of the
 * address space (0xffffffffffff0000), above every real kernel address, so
 * that a raw address kept from the text never falls into a synthetic
 * symbol.  "wakeup_preempt+0x92" becomes slot+0x92 and renders back the
 * same.  A slot is 4 KiB unless the text shows a larger offset or size; an
 * offset past the slot gets the name a further, larger slot (the first
 * slot stays the name's address for offset 0).  Stack lines of `trace-cmd
 * report` carry real addresses: the name is added at that address.  A raw
 * address in a %pS field ("callsite=0xffffffff81121013") stays that number;
 * it renders back as shown unless a stack line put a real symbol below it.
 *
 * arm64 reason strings ("Function call interrupts") get synthetic printk
 * string addresses.  Events not built in become a generic event of system
 * "text" holding the rest of the line in one string field.
 */
#include "input/input.h"
#include "core/hash.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------ */
/* Built-in event formats (from Linux 6.18 x86_64 and 5.10 arm64)      */
/* ------------------------------------------------------------------ */

#define COMMON_FIELDS                                                                       \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"               \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"               \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"       \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

#define F_IPI_SEND_CPU                                                                      \
	"\tfield:unsigned int cpu;\toffset:8;\tsize:4;\tsigned:0;\n"                         \
	"\tfield:void * callsite;\toffset:16;\tsize:8;\tsigned:0;\n"                         \
	"\tfield:void * callback;\toffset:24;\tsize:8;\tsigned:0;\n\n"                       \
	"print fmt: \"cpu=%u callsite=%pS callback=%pS\", REC->cpu, REC->callsite, REC->callback\n"

#define F_IPI_SEND_CPUMASK                                                                  \
	"\tfield:__data_loc cpumask_t cpumask;\toffset:8;\tsize:4;\tsigned:0;\n"             \
	"\tfield:void * callsite;\toffset:16;\tsize:8;\tsigned:0;\n"                         \
	"\tfield:void * callback;\toffset:24;\tsize:8;\tsigned:0;\n\n"                       \
	"print fmt: \"cpumask=%s callsite=%pS callback=%pS\", __get_cpumask(cpumask), "       \
	"REC->callsite, REC->callback\n"

#define F_CSD_QUEUE_CPU                                                                     \
	"\tfield:unsigned int cpu;\toffset:8;\tsize:4;\tsigned:0;\n"                         \
	"\tfield:void * callsite;\toffset:16;\tsize:8;\tsigned:0;\n"                         \
	"\tfield:void * func;\toffset:24;\tsize:8;\tsigned:0;\n"                             \
	"\tfield:void * csd;\toffset:32;\tsize:8;\tsigned:0;\n\n"                            \
	"print fmt: \"cpu=%u callsite=%pS func=%ps csd=%p\", REC->cpu, REC->callsite, "       \
	"REC->func, REC->csd\n"

#define F_CSD_FUNCTION                                                                      \
	"\tfield:void * func;\toffset:8;\tsize:8;\tsigned:0;\n"                              \
	"\tfield:void * csd;\toffset:16;\tsize:8;\tsigned:0;\n\n"                            \
	"print fmt: \"func=%ps, csd=%p\", REC->func, REC->csd\n"

#define F_VECTOR                                                                            \
	"\tfield:int vector;\toffset:8;\tsize:4;\tsigned:1;\n\n"                             \
	"print fmt: \"vector=%d\", REC->vector\n"

#define F_SCHED_SWITCH                                                                      \
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"                      \
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"                          \
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"                           \
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"                         \
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"                     \
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"                          \
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"                         \
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s " \
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "         \
	"(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | "        \
	"0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? "              \
	"__print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | "        \
	"0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), "   \
	"\"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, "        \
	"{ 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, "               \
	"{ 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", REC->prev_state & "           \
	"(((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "  \
	"0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, REC->next_pid, " \
	"REC->next_prio\n"

#define F_SCHED_WAKEUP                                                                      \
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"                           \
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"                               \
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"                                \
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"                        \
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, "        \
	"REC->prio, REC->target_cpu\n"

#define F_KERNEL_STACK                                                                      \
	"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"                                 \
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"              \
	"print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\\t=> " \
	"%ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1], " \
	"(void *)REC->caller[2], (void *)REC->caller[3], (void *)REC->caller[4], "            \
	"(void *)REC->caller[5], (void *)REC->caller[6], (void *)REC->caller[7]\n"

/* arm64 (android_raven 5.10) */
#define F_IPI_RAISE                                                                         \
	"\tfield:__data_loc unsigned long[] target_cpus;\toffset:8;\tsize:4;\tsigned:0;\n"   \
	"\tfield:const char * reason;\toffset:16;\tsize:8;\tsigned:0;\n\n"                   \
	"print fmt: \"target_mask=%s (%s)\", __get_bitmask(target_cpus), REC->reason\n"

#define F_IPI_REASON                                                                        \
	"\tfield:const char * reason;\toffset:8;\tsize:8;\tsigned:0;\n\n"                    \
	"print fmt: \"(%s)\", REC->reason\n"

#define F_TEXT                                                                              \
	"\tfield:__data_loc char[] text;\toffset:8;\tsize:4;\tsigned:0;\n\n"                 \
	"print fmt: \"%s\", __get_str(text)\n"

/* how the fields text of an event is read */
enum ev_kind {
	EK_TEXT,	/* generic: the whole text in one string field */
	EK_KV,		/* name=value pairs named after the fields */
	EK_SWITCH,	/* sched_switch: kernel name=value or trace-cmd plugin text */
	EK_WAKEUP,	/* sched_wakeup*: likewise */
	EK_STACK,	/* kernel_stack, "=>" lines follow */
	EK_RAISE,	/* arm64 ipi_raise: "target_mask=HEX (reason)" */
	EK_REASON,	/* arm64 ipi_entry/ipi_exit: "(reason)" */
};

struct builtin {
	const char *system;
	const char *name;
	int id;
	enum ev_kind kind;
	const char *body;	/* format text after the common fields */
};

static const struct builtin builtins[] = {
	{ "ipi", "ipi_send_cpu", 354, EK_KV, F_IPI_SEND_CPU },
	{ "ipi", "ipi_send_cpumask", 353, EK_KV, F_IPI_SEND_CPUMASK },
	{ "csd", "csd_queue_cpu", 529, EK_KV, F_CSD_QUEUE_CPU },
	{ "csd", "csd_function_entry", 528, EK_KV, F_CSD_FUNCTION },
	{ "csd", "csd_function_exit", 527, EK_KV, F_CSD_FUNCTION },
	{ "irq_vectors", "call_function_entry", 153, EK_KV, F_VECTOR },
	{ "irq_vectors", "call_function_exit", 152, EK_KV, F_VECTOR },
	{ "irq_vectors", "call_function_single_entry", 151, EK_KV, F_VECTOR },
	{ "irq_vectors", "call_function_single_exit", 150, EK_KV, F_VECTOR },
	{ "irq_vectors", "reschedule_entry", 155, EK_KV, F_VECTOR },
	{ "irq_vectors", "reschedule_exit", 154, EK_KV, F_VECTOR },
	{ "irq_vectors", "irq_work_entry", 157, EK_KV, F_VECTOR },
	{ "irq_vectors", "irq_work_exit", 156, EK_KV, F_VECTOR },
	{ "irq_vectors", "x86_platform_ipi_entry", 159, EK_KV, F_VECTOR },
	{ "irq_vectors", "x86_platform_ipi_exit", 158, EK_KV, F_VECTOR },
	{ "irq_vectors", "local_timer_entry", 165, EK_KV, F_VECTOR },
	{ "irq_vectors", "local_timer_exit", 164, EK_KV, F_VECTOR },
	{ "irq_vectors", "error_apic_entry", 161, EK_KV, F_VECTOR },
	{ "irq_vectors", "error_apic_exit", 160, EK_KV, F_VECTOR },
	{ "irq_vectors", "spurious_apic_entry", 163, EK_KV, F_VECTOR },
	{ "irq_vectors", "spurious_apic_exit", 162, EK_KV, F_VECTOR },
	{ "irq_vectors", "thermal_apic_entry", 149, EK_KV, F_VECTOR },
	{ "irq_vectors", "thermal_apic_exit", 148, EK_KV, F_VECTOR },
	{ "sched", "sched_switch", 372, EK_SWITCH, F_SCHED_SWITCH },
	{ "sched", "sched_wakeup", 374, EK_WAKEUP, F_SCHED_WAKEUP },
	{ "sched", "sched_waking", 375, EK_WAKEUP, F_SCHED_WAKEUP },
	{ "sched", "sched_wakeup_new", 373, EK_WAKEUP, F_SCHED_WAKEUP },
	{ "ftrace", "kernel_stack", 4, EK_STACK, F_KERNEL_STACK },
	{ "ipi", "ipi_raise", 24, EK_RAISE, F_IPI_RAISE },
	{ "ipi", "ipi_entry", 22, EK_REASON, F_IPI_REASON },
	{ "ipi", "ipi_exit", 23, EK_REASON, F_IPI_REASON },
};

#define GENERIC_ID_BASE 10000	/* ids of generic "text" events */
#define SYM_TOP 0xffffffffffff0000ULL	/* synthetic symbols grow down from here */
#define SYM_SLOT 0x1000ULL
#define PRINTK_BASE 0xfffffffffe000000ULL	/* synthetic printk string addresses */
#define MAX_PAYLOAD 4000u	/* fits a 4096-byte page with its headers */
#define MAX_STACK 400u		/* stack entries kept per record */

/* ------------------------------------------------------------------ */
/* Small hash tables                                                   */
/* ------------------------------------------------------------------ */

/* hash_bytes - never 0 (0 marks an empty slot) */
static uint32_t hash_bytes(const char *s, size_t n)
{
	uint32_t h = (uint32_t)ipt_hash_bytes(s, n);

	return h ? h : 1;
}

/* string -> int; keys point at storage that outlives the map */
struct smap_ent {
	const char *key;
	uint32_t len;
	uint32_t hash;		/* 0: empty */
	int val;
};
struct smap {
	struct smap_ent *e;
	size_t n, cap;
};

static struct smap_ent *smap_find(const struct smap *m, const char *k, size_t n, uint32_t h)
{
	if (!m->cap)
		return NULL;
	for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct smap_ent *e = &m->e[i];

		if (!e->hash)
			return NULL;
		if (e->hash == h && e->len == n && !memcmp(e->key, k, n))
			return e;
	}
}

static int smap_get(const struct smap *m, const char *k, size_t n, int *val)
{
	struct smap_ent *e = smap_find(m, k, n, hash_bytes(k, n));

	if (!e)
		return 0;
	*val = e->val;
	return 1;
}

static int smap_put(struct smap *m, const char *k, size_t n, int val)
{
	uint32_t h = hash_bytes(k, n);
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct smap_ent *ne = ipt_calloc(cap, sizeof(*ne));

		if (!ne)
			return -1;
		for (size_t j = 0; j < m->cap; j++) {
			if (!m->e[j].hash)
				continue;
			for (i = m->e[j].hash & (cap - 1); ne[i].hash; i = (i + 1) & (cap - 1))
				;
			ne[i] = m->e[j];
		}
		free(m->e);
		m->e = ne;
		m->cap = cap;
	}
	for (i = h & (m->cap - 1); m->e[i].hash; i = (i + 1) & (m->cap - 1))
		;
	m->e[i] = (struct smap_ent){ k, (uint32_t)n, h, val };
	m->n++;
	return 0;
}

/* set of addresses (0 is never stored) */
struct aset {
	uint64_t *a;
	size_t n, cap;
};

static size_t aslot(uint64_t v, size_t cap)
{
	return ipt_hash_slot(ipt_hash64(v), cap);
}

static bool aset_has(const struct aset *s, uint64_t v)
{
	if (!s->cap)
		return false;
	for (size_t i = aslot(v, s->cap);; i = (i + 1) & (s->cap - 1)) {
		if (s->a[i] == v)
			return true;
		if (!s->a[i])
			return false;
	}
}

static int aset_add(struct aset *s, uint64_t v)
{
	size_t i;

	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		uint64_t *na = ipt_calloc(cap, sizeof(*na));

		if (!na)
			return -1;
		for (size_t j = 0; j < s->cap; j++) {
			if (!s->a[j])
				continue;
			for (i = aslot(s->a[j], cap); na[i]; i = (i + 1) & (cap - 1))
				;
			na[i] = s->a[j];
		}
		free(s->a);
		s->a = na;
		s->cap = cap;
	}
	for (i = aslot(v, s->cap); s->a[i]; i = (i + 1) & (s->cap - 1))
		if (s->a[i] == v)
			return 0;
	s->a[i] = v;
	s->n++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Parser state                                                        */
/* ------------------------------------------------------------------ */

enum role { R_INT, R_SYM, R_PTR, R_MASK, R_STR, R_DSTR, R_STATE };

#define MAXF 16

struct finfo {
	const struct ipt_field *f;	/* points into the event's field array (stable) */
	enum role role;
};

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
	const char *name;	/* event name; NULL: special (see special) */
	size_t name_len;
	const char *f, *fe;	/* fields text */
};

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
	uint64_t nevents, skipped, raised;
	uint64_t prev_line_ts;	/* timestamp of the previous event line, as written */
	const char *layout;	/* a layout this reader cannot use, seen on a skipped line */
	long long layout_off;
	uint32_t same_ts;	/* event lines since with that same timestamp */
	long long first_skipped;
};

/* ------------------------------------------------------------------ */
/* Character helpers                                                   */
/* ------------------------------------------------------------------ */

static inline bool is_blank(char c) { return c == ' ' || c == '\t'; }
static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

#define hexv ipt_hex_digit

static const char *skip_blanks(const char *p, const char *e)
{
	while (p < e && is_blank(*p))
		p++;
	return p;
}

static const char *rtrim(const char *s, const char *e)
{
	while (e > s && (is_blank(e[-1]) || e[-1] == '\r'))
		e--;
	return e;
}

static bool starts(const char *p, const char *e, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(e - p) >= n && !memcmp(p, lit, n);
}

/* find lit in [p, e) */
static const char *find(const char *p, const char *e, const char *lit)
{
	size_t n = strlen(lit);

	while ((size_t)(e - p) >= n) {
		const char *q = memchr(p, lit[0], (size_t)(e - p) - n + 1);

		if (!q)
			return NULL;
		if (!memcmp(q, lit, n))
			return q;
		p = q + 1;
	}
	return NULL;
}

/* last occurrence of lit in [p, e) */
static const char *rfind(const char *p, const char *e, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(e - p) < n)
		return NULL;
	for (const char *q = e - n; q >= p; q--)
		if (*q == lit[0] && !memcmp(q, lit, n))
			return q;
	return NULL;
}

/* decimal digits [p, e) -> v; false if none or too many */
static bool parse_dec(const char *p, const char *e, uint64_t *v)
{
	uint64_t x = 0;

	if (p >= e || e - p > 19)
		return false;
	for (; p < e; p++) {
		if (!is_digit(*p))
			return false;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = x;
	return true;
}

/* hex digits [p, e) (no 0x) -> v */
static bool parse_hexn(const char *p, const char *e, uint64_t *v)
{
	uint64_t x = 0;

	if (p >= e || e - p > 16)
		return false;
	for (; p < e; p++) {
		int d = hexv(*p);

		if (d < 0)
			return false;
		x = (x << 4) | (uint64_t)d;
	}
	*v = x;
	return true;
}

/* an integer as printed: [-+]decimal or 0xhex */
static bool parse_int(const char *p, const char *e, uint64_t *v)
{
	bool neg = false;

	if (p < e && (*p == '-' || *p == '+')) {
		neg = *p == '-';
		p++;
	}
	if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		if (!parse_hexn(p + 2, e, v))
			return false;
	} else if (!parse_dec(p, e, v)) {
		return false;
	}
	if (neg)
		*v = (uint64_t)-(int64_t)*v;
	return true;
}

/* the token at p: up to a blank or ',' */
static const char *token_end(const char *p, const char *e)
{
	while (p < e && !is_blank(*p) && *p != ',')
		p++;
	return p;
}

/*
 * parse_ts - "secs.frac" -> ns; or a plain integer (raw clock counts).
 * *raw set when there is no fraction.
 */
static bool parse_ts(const char *p, const char *e, uint64_t *ns, bool *raw)
{
	const char *dot = memchr(p, '.', (size_t)(e - p));
	uint64_t secs, frac = 0;
	int nd;

	*raw = false;
	/* tracefs latency-format: microseconds, "3417894594us" and a delay mark */
	if (e - p > 2 && !dot) {
		const char *u = e;

		if (u > p && strchr("+!#*@$ ", u[-1]) && u - p > 3 && u[-2] == 's')
			u--;
		if (u - p > 2 && u[-1] == 's' && u[-2] == 'u') {
			uint64_t us;

			if (!parse_dec(p, u - 2, &us) || us > UINT64_MAX / 1000)
				return false;
			*ns = us * 1000;
			return true;
		}
	}
	if (!dot) {
		*raw = true;
		return parse_dec(p, e, ns);
	}
	if (dot == p || dot - p > 11 || !parse_dec(p, dot, &secs))
		return false;
	nd = (int)(e - dot - 1);
	if (nd < 1 || nd > 9 || !parse_dec(dot + 1, e, &frac))
		return false;
	for (int i = nd; i < 9; i++)
		frac *= 10;
	*ns = secs * 1000000000ULL + frac;
	return true;
}

/* ------------------------------------------------------------------ */
/* Line prefix: comm-pid [cpu] flags ts: event:                         */
/* ------------------------------------------------------------------ */

enum { LP_NO = 0, LP_OK = 1, LP_BAD = -1 };

/* flag characters of the irqs-off/need-resched/hardirq/preempt columns */
static bool flag_char(char c)
{
	return c == '.' || is_digit(c) || strchr("dXDbBNnpLlHhsSZz", c);
}

/* decode_flags - latency flags text into common_flags and preempt_count */
static void decode_flags(const char *p, size_t n, uint8_t *flags, uint8_t *pc)
{
	/* enum trace_flag_type (Linux 6.12+) */
	enum { IRQS_OFF = 0x01, RESCHED_LAZY = 0x02, RESCHED = 0x04, HARDIRQ = 0x08,
	       SOFTIRQ = 0x10, PREEMPT_RESCHED = 0x20, NMI = 0x40, BH_OFF = 0x80 };
	unsigned int f = 0, depth = 0, mig = 0;
	size_t i = 0;

	if (i < n) {
		switch (p[i++]) {
		case 'd': f |= IRQS_OFF; break;
		case 'D': f |= IRQS_OFF | BH_OFF; break;
		case 'b': f |= BH_OFF; break;
		case 'X': f |= RESCHED_LAZY; break;	/* irqs-off not supported (old kernels) */
		}
	}
	if (i < n) {
		switch (p[i++]) {
		case 'B': f |= RESCHED | RESCHED_LAZY | PREEMPT_RESCHED; break;
		case 'N': f |= RESCHED | PREEMPT_RESCHED; break;
		case 'L': f |= RESCHED_LAZY | PREEMPT_RESCHED; break;
		case 'b': f |= RESCHED | RESCHED_LAZY; break;
		case 'n': f |= RESCHED; break;
		case 'p': f |= PREEMPT_RESCHED; break;
		case 'l': f |= RESCHED_LAZY; break;
		}
	}
	if (n == 7 && i < n) {	/* PREEMPT_RT lazy layout: need-resched-lazy column */
		if (p[i++] != '.')
			f |= RESCHED_LAZY;
	}
	if (i < n) {
		switch (p[i++]) {
		case 'Z': f |= NMI | HARDIRQ; break;
		case 'z': f |= NMI; break;
		case 'H': f |= HARDIRQ | SOFTIRQ; break;
		case 'h': f |= HARDIRQ; break;
		case 's': f |= SOFTIRQ; break;
		}
	}
	if (i < n) {
		int v = hexv(p[i++]);

		depth = v > 0 ? (unsigned int)v : 0;
	}
	if (n == 7 && i < n)
		i++;		/* preempt-lazy-depth */
	if (i < n) {
		int v = hexv(p[i++]);

		mig = v > 0 ? (unsigned int)v : 0;
	}
	*flags = (uint8_t)f;
	*pc = (uint8_t)((depth & 0xf) | (mig & 0xf) << 4);
}

/* is [p, e) "digits[.digits]:" ? returns the end of the number */
static const char *ts_token(const char *p, const char *e)
{
	const char *q = p;

	while (q < e && is_digit(*q))
		q++;
	if (q == p)
		return NULL;
	/* tracefs latency-format: "3417894594us+:" (a delay mark, or none) */
	if (e - q >= 3 && q[0] == 'u' && q[1] == 's') {
		q += 2;
		if (q < e && *q != ':' && strchr("+!#*@$ ", *q))
			q++;
		return q < e && *q == ':' ? q : NULL;
	}
	if (q < e && *q == '.') {
		const char *d = ++q;

		while (q < e && is_digit(*q))
			q++;
		if (q == d)
			return NULL;
	}
	if (q < e && *q == ':')
		return q;
	return NULL;
}

/*
 * split_comm_pid - "comm-pid" in [s, e): comm is everything before the last
 * '-' that is followed only by digits.
 */
static bool split_comm_pid(const char *s, const char *e, struct line *ln)
{
	const char *dash;
	uint64_t pid;

	s = skip_blanks(s, e);
	e = rtrim(s, e);
	dash = e;
	while (dash > s && is_digit(dash[-1]))
		dash--;
	if (dash == e || dash == s || dash[-1] != '-' || e - dash > 10)
		return false;
	if (!parse_dec(dash, e, &pid) || pid > 0x7fffffff)
		return false;
	ln->comm = s;
	ln->comm_len = (size_t)(dash - 1 - s);
	ln->pid = (int)pid;
	return true;
}

/*
 * parse_rest - after the prefix: "ts: event: fields".  p points at the
 * timestamp.  Returns LP_OK or LP_BAD with *why set.
 */
static int parse_rest(const char *p, const char *e, struct line *ln, bool *raw,
		      const char **why)
{
	const char *te = ts_token(p, e), *n, *ne;

	if (!te) {
		*why = "bad timestamp";
		return LP_BAD;
	}
	if (!parse_ts(p, te, &ln->ts, raw)) {
		*why = "bad timestamp";
		return LP_BAD;
	}
	n = skip_blanks(te + 1, e);
	/* trace-cmd report --ts-diff: "(+71)", the ns since the previous event */
	if (n + 3 < e && n[0] == '(' && n[1] == '+' && is_digit(n[2])) {
		const char *c = n + 2;

		while (c < e && is_digit(*c))
			c++;
		if (c < e && *c == ')')
			n = skip_blanks(c + 1, e);
	}
	ln->name = NULL;
	ln->name_len = 0;
	ne = n;
	while (ne < e && (isalnum((unsigned char)*ne) || *ne == '_' || *ne == '.' || *ne == '-'))
		ne++;
	if (ne > n && ne < e && *ne == ':') {
		ln->name = n;
		ln->name_len = (size_t)(ne - n);
		ln->f = skip_blanks(ne + 1, e);
	} else if (n < e) {
		ln->f = n;	/* "<stack trace>", "func <-parent", ... */
	} else {
		*why = "no event after the timestamp";
		return LP_BAD;
	}
	ln->fe = rtrim(ln->f, e);
	return LP_OK;
}

/*
 * parse_prefix - recognise an event line.  LP_NO: not an event line;
 * LP_BAD: looks like one but is malformed (*why); LP_OK: ln filled.
 */
static int parse_prefix(const char *p, const char *e, struct line *ln, bool *raw, const char **why)
{
	const char *b;

	memset(ln, 0, sizeof(*ln));
	*why = "malformed event line";
	/* the bracket form: the first " [digits]" after a comm-pid */
	for (b = p; (b = memchr(b, '[', (size_t)(e - b))); b++) {
		const char *q = b + 1, *pre_e, *r;
		uint64_t cpu;

		if (b == p || !is_blank(b[-1]))
			continue;
		while (q < e && is_digit(*q))
			q++;
		if (q == b + 1 || q >= e || *q != ']')
			continue;
		pre_e = rtrim(p, b);
		/* tgid column: "( 2519)" or "(-----)" */
		if (pre_e > p && pre_e[-1] == ')') {
			const char *o = pre_e - 1;

			while (o > p && o[-1] != '(')
				o--;
			if (o > p && o[-1] == '(' && o - 1 > p && is_blank(o[-2])) {
				bool ok = true;

				for (const char *c = o; c < pre_e - 1; c++)
					if (!is_digit(*c) && *c != '-' && !is_blank(*c))
						ok = false;
				if (ok)
					pre_e = rtrim(p, o - 1);
			}
		}
		if (!split_comm_pid(p, pre_e, ln))
			continue;
		if (!parse_dec(b + 1, q, &cpu) || q - b - 1 > 6)
			continue;
		r = skip_blanks(q + 1, e);
		if (r >= e)
			return LP_NO;
		if (!is_digit(*r)) {
			/* a flags column, then the timestamp */
			const char *fe = r;

			while (fe < e && !is_blank(*fe))
				fe++;
			if (fe - r > 8)
				return LP_NO;
			for (const char *c = r; c < fe; c++)
				if (!flag_char(*c))
					return LP_NO;
			decode_flags(r, (size_t)(fe - r), &ln->flags, &ln->pc);
			ln->has_flags = true;
			r = skip_blanks(fe, e);
			if (r >= e || !is_digit(*r))
				return LP_NO;
		} else {
			/* "[2] 3 apples" in prose is no event line; "12.3x:" is a bad one */
			const char *te = r;

			while (te < e && !is_blank(*te) && *te != '.' && *te != ':')
				te++;
			if (te >= e || is_blank(*te))
				return LP_NO;
		}
		if (cpu >= IPT_CPUSET_MAX) {
			*why = "CPU number out of range";
			return LP_BAD;
		}
		ln->cpu = (int)cpu;
		return parse_rest(r, e, ln, raw, why);
	}
	/* the latency form of trace-cmd report -l: "comm-pid  0d..2.  ts: ..." */
	{
		const char *tok = p, *prev1 = NULL, *prev1e = NULL;

		for (;;) {
			const char *te;

			tok = skip_blanks(tok, e);
			if (tok >= e)
				return LP_NO;
			te = tok;
			while (te < e && !is_blank(*te))
				te++;
			const char *tt = ts_token(tok, e);

			/* "ts:", or latency-format's "3417901526us :" (a blank delay mark) */
			if (prev1 && tt && (tt == te - 1 || (tt == te + 1 && te[-1] == 's'))) {
				/* prev1 must be CPU digits + flags, before it comm-pid */
				const char *c = prev1;
				uint64_t cpu;

				while (c < prev1e && is_digit(*c))
					c++;
				if (c == prev1 || prev1e - c < 3 || prev1e - c > 8)
					return LP_NO;
				for (const char *f = c; f < prev1e; f++)
					if (!flag_char(*f))
						return LP_NO;
				if (!split_comm_pid(p, prev1, ln))
					return LP_NO;
				if (!parse_dec(prev1, c, &cpu) || cpu >= IPT_CPUSET_MAX)
					return LP_NO;
				ln->cpu = (int)cpu;
				decode_flags(c, (size_t)(prev1e - c), &ln->flags, &ln->pc);
				ln->has_flags = true;
				ln->latency = true;
				return parse_rest(tok, e, ln, raw, why);
			}
			prev1 = tok;
			prev1e = te;
			tok = te;
			if (tok - p > 200)
				return LP_NO;
		}
	}
}

/* strip mail quoting ("> ", ">> ") at the start of a line */
static const char *unquote(const char *p, const char *e)
{
	const char *q = skip_blanks(p, e);

	if (q >= e || *q != '>')
		return p;
	while (q < e && *q == '>') {
		q++;
		if (q < e && *q == ' ')
			q++;
	}
	return q;
}

/* ------------------------------------------------------------------ */
/* Probe                                                               */
/* ------------------------------------------------------------------ */

bool ipt_text_probe(const uint8_t *data, size_t len)
{
	const char *s = (const char *)data, *end;
	size_t scan = len < 65536 ? len : 65536;
	int lines = 0;

	if (memchr(data, 0, scan))
		return false;
	end = s + scan;
	while (s < end && lines++ < 200) {
		const char *e = memchr(s, '\n', (size_t)(end - s)), *p;
		struct line ln;
		const char *why;
		bool raw;

		if (!e)
			e = end;
		p = unquote(s, rtrim(s, e));
		if (starts(p, e, "# tracer:") || starts(p, e, "cpus=") ||
		    parse_prefix(p, rtrim(p, e), &ln, &raw, &why) != LP_NO)
			return true;
		s = e + 1;
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* Records                                                             */
/* ------------------------------------------------------------------ */

static int rec_reserve(struct tx *x, uint32_t need)
{
	if (need > x->rcap) {
		uint32_t cap = x->rcap ? x->rcap : 256;
		uint8_t *n;

		while (cap < need)
			cap *= 2;
		n = ipt_realloc(x->rec, cap);
		if (!n)
			return -1;
		x->rec = n;
		x->rcap = cap;
	}
	return 0;
}

/* rec_begin - zeroed fixed part with the common fields */
static int rec_begin(struct tx *x, const struct einfo *ei, const struct line *ln)
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

static void put_field(struct tx *x, const struct ipt_field *f, uint64_t v)
{
	unsigned int n = f->size > 8 ? 8 : f->size;

	if (f->offset + n <= x->rlen)
		ipt_put_uint(x->rec + f->offset, n, false, v);
}

/* put_dyn - append data for a __data_loc field (cut to fit a page) */
static int put_dyn(struct tx *x, const struct ipt_field *f, const void *d, uint32_t n, bool str)
{
	uint32_t room = MAX_PAYLOAD > x->rlen ? MAX_PAYLOAD - x->rlen : 0;
	uint32_t off = x->rlen;

	if (str) {
		if (room == 0)
			return 0;
		if (n + 1 > room)
			n = room - 1;
	} else if (n > room) {
		n = room & ~7u;
	}
	if (rec_reserve(x, x->rlen + n + 1))
		return -1;
	if (n)
		memcpy(x->rec + off, d, n);
	if (str)
		x->rec[off + n++] = 0;
	x->rlen += n;
	ipt_put_uint(x->rec + f->offset, 4, false, (uint64_t)n << 16 | off);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */

static bool is_sym_field(const char *name)
{
	return !strcmp(name, "callsite") || !strcmp(name, "callback") || !strcmp(name, "func");
}

/* add_event - parse a format text and register the event */
static int add_event(struct tx *x, const char *system, enum ev_kind kind, const char *text,
		     int *idx)
{
	struct ipt_trace *t = x->t;
	struct ipt_event ev;
	struct einfo *ei;
	const struct ipt_event *stored;

	if (ipt_format_parse(&ev, system, text, strlen(text), 8, "(built-in format)", 0))
		return -1;
	if (x->nei == x->capei) {
		int cap = x->capei ? x->capei * 2 : 32;
		struct einfo *n = ipt_realloc(x->ei, (size_t)cap * sizeof(*n));

		if (!n) {
			ipt_event_release(&ev);
			return -1;
		}
		x->ei = n;
		x->capei = cap;
	}
	if (ipt_trace_add_event(t, &ev)) {
		ipt_event_release(&ev);
		return -1;
	}
	stored = &t->events[t->nevents - 1];
	ei = &x->ei[x->nei];
	memset(ei, 0, sizeof(*ei));
	ei->id = stored->id;
	ei->kind = kind;
	ei->name = stored->name;
	ei->fixed = 8;
	for (int i = 0; i < stored->nfields; i++) {
		const struct ipt_field *f = &stored->fields[i];
		unsigned int end = f->offset + ((f->flags & IPT_FIELD_DYNAMIC) ? 4 : f->size);
		enum role role;

		if (kind == EK_STACK && !strcmp(f->name, "caller"))
			end = f->offset;	/* the callers follow as they come */
		if (end > ei->fixed)
			ei->fixed = end;
		if (f->flags & IPT_FIELD_COMMON)
			continue;
		if (f->flags & IPT_FIELD_CPUMASK)
			role = R_MASK;
		else if ((f->flags & IPT_FIELD_STRING) && (f->flags & IPT_FIELD_DYNAMIC))
			role = R_DSTR;
		else if (f->flags & IPT_FIELD_STRING)
			role = R_STR;
		else if (f->flags & IPT_FIELD_POINTER)
			role = is_sym_field(f->name) ? R_SYM : R_PTR;
		else if (!strcmp(f->name, "prev_state"))
			role = R_STATE;
		else
			role = R_INT;
		if (ei->nf < MAXF)
			ei->fl[ei->nf++] = (struct finfo){ f, role };
	}
	ei->fixed = (ei->fixed + 3) & ~3u;
	if (smap_put(&x->evmap, stored->name, strlen(stored->name), x->nei))
		return -1;
	*idx = x->nei++;
	return 0;
}

/* event_for - the event of a name: built in, or a new generic one */
static int event_for(struct tx *x, const char *name, size_t n, int *idx)
{
	char text[sizeof(COMMON_FIELDS) + sizeof(F_SCHED_SWITCH) + 256];

	if (smap_get(&x->evmap, name, n, idx))
		return 0;
	if (n > 100)
		return ipt_err_at(x->t->path, x->line_off, "event name too long");
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++) {
		const struct builtin *b = &builtins[i];

		if (strlen(b->name) == n && !memcmp(b->name, name, n)) {
			snprintf(text, sizeof(text), "name: %s\nID: %d\nformat:\n%s%s", b->name,
				 b->id, COMMON_FIELDS, b->body);
			return add_event(x, b->system, b->kind, text, idx);
		}
	}
	if (GENERIC_ID_BASE + x->next_generic > 0xffff)
		return ipt_err_at(x->t->path, x->line_off, "too many distinct event names");
	snprintf(text, sizeof(text), "name: %.*s\nID: %d\nformat:\n%s%s", (int)n, name,
		 GENERIC_ID_BASE + x->next_generic++, COMMON_FIELDS, F_TEXT);
	return add_event(x, "text", EK_TEXT, text, idx);
}

/* ------------------------------------------------------------------ */
/* Symbols and strings                                                 */
/* ------------------------------------------------------------------ */

/* sym_addr - the synthetic address of name+off (size: function size or 0) */
static int sym_addr(struct tx *x, const char *name, size_t n, uint64_t off, uint64_t size,
		    uint64_t *addr)
{
	int i, last = -1;
	uint64_t need;

	if (smap_get(&x->symmap, name, n, &i)) {
		for (; i >= 0; last = i, i = x->syn[i].next)
			if (off < x->syn[i].size) {
				*addr = x->syn[i].base + off;
				return 0;
			}
	}
	/* a new slot: room for the offset and the size, never the top address */
	need = (off > size ? off : size) + 2;
	need = (need + SYM_SLOT - 1) & ~(SYM_SLOT - 1);
	if (need > x->sym_top / 2)
		return ipt_err_at(x->t->path, x->line_off, "symbol offset 0x%" PRIx64 " too large", off);
	if (x->nsyn == x->capsyn) {
		int cap = x->capsyn ? x->capsyn * 2 : 256;
		struct synsym *ns = ipt_realloc(x->syn, (size_t)cap * sizeof(*ns));

		if (!ns)
			return -1;
		x->syn = ns;
		x->capsyn = cap;
	}
	x->sym_top -= need;
	if (ipt_symtab_add(&x->t->ksyms, x->sym_top, name, n))
		return -1;
	x->syn[x->nsyn] = (struct synsym){ x->sym_top, need - 1, -1 };
	if (last >= 0) {
		x->syn[last].next = x->nsyn;
	} else {
		const char *key = x->t->ksyms.syms[x->t->ksyms.n - 1].name;

		if (smap_put(&x->symmap, key, n, x->nsyn))
			return -1;
	}
	x->nsyn++;
	*addr = x->sym_top + off;
	return 0;
}

/* real_sym - name at a real address (stack lines of trace-cmd report) */
static int real_sym(struct tx *x, const char *name, size_t n, uint64_t addr)
{
	if (!addr || aset_has(&x->real, addr))
		return 0;
	if (aset_add(&x->real, addr) || ipt_symtab_add(&x->t->ksyms, addr, name, n))
		return -1;
	return 0;
}

/* unknown_at - from addr on, no name is known (an empty symbol; a real one
 * at the same address wins, see ipt_trace_symbol) */
static int unknown_at(struct tx *x, uint64_t addr)
{
	if (!addr || addr >= x->sym_top || aset_has(&x->real, addr))
		return 0;
	return ipt_symtab_add(&x->t->ksyms, addr, "", 0);
}

/* reason_addr - printk string address of an arm64 IPI reason */
static int reason_addr(struct tx *x, const char *s, size_t n, uint64_t *addr)
{
	int i;

	if (!smap_get(&x->reasonmap, s, n, &i)) {
		struct ipt_symtab *st = &x->t->printk;

		i = x->nreason;
		if (ipt_symtab_add(st, PRINTK_BASE + (uint64_t)i * 0x100, s, n) ||
		    smap_put(&x->reasonmap, st->syms[st->n - 1].name, n, i))
			return -1;
		x->nreason++;
	}
	*addr = PRINTK_BASE + (uint64_t)i * 0x100;
	return 0;
}

/*
 * parse_symval - a %pS/%ps value: "(nil)", "0x..." (raw), or
 * "name[+0xoff[/0xsize]]" (synthetic).  [p, e) is one token.
 * -1: malformed (no message), -2: failed (message set).
 */
static int parse_symval(struct tx *x, const char *p, const char *e, uint64_t *v)
{
	const char *plus, *slash, *ne;
	uint64_t off = 0, size = 0;

	if (p == e)
		return -1;
	if (starts(p, e, "(nil)") && e - p == 5) {
		*v = 0;
		return 0;
	}
	if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		return parse_hexn(p + 2, e, v) ? 0 : -1;	/* a raw address stays a number */
	}
	plus = memchr(p, '+', (size_t)(e - p));
	ne = plus ? plus : e;
	if (ne == p)
		return -1;
	for (const char *c = p; c < ne; c++)
		if (!isalnum((unsigned char)*c) && !strchr("_.$@-", *c))
			return -1;
	if (plus) {
		slash = memchr(plus, '/', (size_t)(e - plus));
		if (!starts(plus, e, "+0x") || !parse_hexn(plus + 3, slash ? slash : e, &off))
			return -1;
		if (slash && (!starts(slash, e, "/0x") || !parse_hexn(slash + 3, e, &size)))
			return -1;
	}
	return sym_addr(x, p, (size_t)(ne - p), off, size, v) ? -2 : 0;
}

/* parse_ptr - a %p value: "(nil)", "0x..." or hashed/zero-padded hex */
static bool parse_ptr(const char *p, const char *e, uint64_t *v)
{
	if (e - p == 5 && starts(p, e, "(nil)")) {
		*v = 0;
		return true;
	}
	if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return parse_hexn(p + 2, e, v);
	return parse_hexn(p, e, v);
}

/* ------------------------------------------------------------------ */
/* CPU masks                                                           */
/* ------------------------------------------------------------------ */

static void mask_clear(struct tx *x)
{
	memset(x->mask, 0, x->mask_words * sizeof(x->mask[0]));
	x->mask_words = 0;
}

static bool mask_set(struct tx *x, uint64_t bit)
{
	if (bit >= IPT_CPUSET_MAX)
		return false;
	x->mask[bit / 64] |= 1ULL << (bit % 64);
	if (bit / 64 + 1 > x->mask_words)
		x->mask_words = (unsigned int)(bit / 64 + 1);
	return true;
}

/*
 * parse_mask - "00000000,00000104" (hex words), "2,5-7" (list), "" or
 * "ARRAY[02, 00, ...]" (bytes).  prefer_hex: an ambiguous text such as "4"
 * is read as hex (bitmasks are always hex in trace-cmd).  *bits: width
 * shown by a hex text (0 for a list).
 */
static bool parse_mask(struct tx *x, const char *p, const char *e, bool prefer_hex,
		       unsigned int *bits)
{
	bool hex = prefer_hex, has_alpha = false, len8 = false, has_dash = false;
	const char *c;

	mask_clear(x);
	*bits = 0;
	p = skip_blanks(p, e);
	e = rtrim(p, e);
	if (p == e)
		return true;
	if (starts(p, e, "ARRAY[")) {
		const char *q = p + 6;
		uint64_t byte = 0;

		if (e[-1] != ']')
			return false;
		e--;
		while (q < e) {
			const char *te;
			uint64_t v;

			q = skip_blanks(q, e);
			te = q;
			while (te < e && *te != ',' && !is_blank(*te))
				te++;
			if (!parse_hexn(q, te, &v) || v > 255)
				return false;
			for (int b = 0; b < 8; b++)
				if ((v >> b & 1) && !mask_set(x, byte * 8 + (uint64_t)b))
					return false;
			byte++;
			q = skip_blanks(te, e);
			if (q < e && *q == ',')
				q++;
		}
		*bits = (unsigned int)(byte * 8 > IPT_CPUSET_MAX ? IPT_CPUSET_MAX : byte * 8);
		return true;
	}
	for (c = p; c < e; c++) {
		if (*c == '-')
			has_dash = true;
		else if (hexv(*c) >= 10)
			has_alpha = true;
		else if (*c != ',' && !is_digit(*c))
			return false;
	}
	for (const char *s = p; s < e;) {
		const char *w = memchr(s, ',', (size_t)(e - s));

		if (!w)
			w = e;
		if (w - s == 8)
			len8 = true;
		s = w + 1;
	}
	if (has_dash)
		hex = false;
	else if (has_alpha || len8)
		hex = true;
	if (has_dash && has_alpha)
		return false;
	if (hex) {
		unsigned int bit = 0;
		bool commas = memchr(p, ',', (size_t)(e - p)) != NULL;

		for (const char *we = e; we > p;) {
			const char *ws = we;

			while (ws > p && ws[-1] != ',')
				ws--;
			if (ws == we || (commas && we - ws > 8))
				return false;
			for (const char *d = we; d > ws; d--) {
				int v = hexv(d[-1]);

				for (int b = 0; b < 4; b++)
					if ((v >> b & 1) && !mask_set(x, bit + (unsigned int)b))
						return false;
				bit += 4;
				if (bit > IPT_CPUSET_MAX)
					bit = IPT_CPUSET_MAX;
			}
			if (commas)
				bit = (bit + 31) / 32 * 32;
			we = ws > p ? ws - 1 : p;
			if (ws > p && ws - 1 == p)
				return false;
		}
		*bits = bit > IPT_CPUSET_MAX ? IPT_CPUSET_MAX : bit;
		return true;
	}
	for (const char *s = p; s < e;) {
		const char *w = memchr(s, ',', (size_t)(e - s)), *d;
		uint64_t a, b;

		if (!w)
			w = e;
		d = memchr(s, '-', (size_t)(w - s));
		if (!parse_dec(s, d ? d : w, &a))
			return false;
		b = a;
		if (d && !parse_dec(d + 1, w, &b))
			return false;
		if (b < a || b >= IPT_CPUSET_MAX)
			return false;
		for (uint64_t cpu = a; cpu <= b; cpu++)
			mask_set(x, cpu);
		s = w + 1;
		if (w < e && s == e)
			return false;
	}
	return true;
}

/* put_mask - the parsed mask as a __data_loc bitmap of unsigned longs */
static int put_mask(struct tx *x, const struct ipt_field *f, unsigned int shown_bits)
{
	unsigned int bits = shown_bits, words;
	uint8_t buf[IPT_CPUSET_MAX / 8];

	if ((unsigned int)x->nr_cpus > bits)
		bits = (unsigned int)x->nr_cpus;
	if ((unsigned int)x->max_cpu + 1 > bits)
		bits = (unsigned int)x->max_cpu + 1;
	if (x->mask_words * 64 > bits)
		bits = x->mask_words * 64;
	words = (bits + 63) / 64;
	if (!words)
		words = 1;
	for (unsigned int i = 0; i < words; i++)
		ipt_put_uint(buf + i * 8, 8, false, i < x->mask_words ? x->mask[i] : 0);
	return put_dyn(x, f, buf, words * 8, false);
}

/* ------------------------------------------------------------------ */
/* Field text                                                          */
/* ------------------------------------------------------------------ */

static int bad_field(struct tx *x, const struct einfo *ei, const char *what, const char *p,
		     const char *e)
{
	int n = (int)(e - p > 60 ? 60 : e - p);

	return ipt_err_at(x->t->path, x->line_off, "%s: bad %s '%.*s'", ei->name, what, n, p);
}

/* state letters: kernel print fmt (kernel) or trace-cmd's plugin */
static bool parse_state(const char *p, const char *e, bool plugin, uint64_t *v)
{
	const char *letters = plugin ? "SDTtZXxW" : "SDTtXZPI";

	*v = 0;
	if (p == e)
		return false;
	for (; p < e; p++) {
		const char *l;

		if (*p == '|' || *p == 'R')
			continue;
		if (*p == '+') {
			*v |= 0x100;
			continue;
		}
		l = strchr(letters, *p);
		if (!l || !*p)
			return false;
		*v |= 1ULL << (l - letters);
	}
	return true;
}

/* put_value - one field from its value text [p, e) */
static int put_value(struct tx *x, const struct einfo *ei, const struct finfo *fi,
		     const char *p, const char *e)
{
	const struct ipt_field *f = fi->f;
	const char *te = token_end(p, e);
	uint64_t v;

	switch (fi->role) {
	case R_INT:
		if (!parse_int(p, te, &v))
			return bad_field(x, ei, f->name, p, e);
		put_field(x, f, v);
		return 0;
	case R_SYM:
		switch (parse_symval(x, p, te, &v)) {
		case 0:
			break;
		case -1:
			return bad_field(x, ei, f->name, p, e);
		default:
			return -1;
		}
		put_field(x, f, v);
		return 0;
	case R_PTR:
		if (!parse_ptr(p, te, &v))
			return bad_field(x, ei, f->name, p, e);
		put_field(x, f, v);
		return 0;
	case R_STATE:
		/* letters as the print fmt shows them, or the number (report -R) */
		if (!parse_dec(p, te, &v) && !parse_state(p, te, false, &v))
			return bad_field(x, ei, f->name, p, e);
		put_field(x, f, v);
		return 0;
	case R_MASK: {
		unsigned int bits;

		if (!starts(p, e, "ARRAY[")) {
			const char *me = p;

			while (me < e && !is_blank(*me))
				me++;
			e = me;
		}
		if (!parse_mask(x, p, e, false, &bits))
			return bad_field(x, ei, f->name, p, e);
		return put_mask(x, f, bits);
	}
	case R_STR: {
		size_t n = (size_t)(e - p);

		if (n > f->size - 1)
			n = f->size - 1;
		if (f->offset + f->size <= x->rlen) {
			memset(x->rec + f->offset, 0, f->size);
			memcpy(x->rec + f->offset, p, n);
		}
		return 0;
	}
	case R_DSTR:
		return put_dyn(x, f, p, (uint32_t)(e - p), true);
	}
	return 0;
}

/* fields_kv - "name=value ..." with the event's field names */
static int fields_kv(struct tx *x, const struct einfo *ei, const char *s, const char *e)
{
	struct {
		const struct finfo *fi;
		const char *key, *val;
	} found[MAXF];
	int nfound = 0;

	if (starts(s, e, "[FAILED TO PARSE]"))
		s = skip_blanks(s + 17, e);
	for (const char *p = s; p < e; p++) {
		const char *q;

		if (p > s && !is_blank(p[-1]) && p[-1] != ',')
			continue;
		q = p;
		while (q < e && (isalnum((unsigned char)*q) || *q == '_'))
			q++;
		if (q == p || q >= e || *q != '=')
			continue;
		for (int i = 0; i < ei->nf; i++) {
			const char *fn = ei->fl[i].f->name;
			bool dup = false;

			if (strlen(fn) != (size_t)(q - p) || memcmp(fn, p, (size_t)(q - p)))
				continue;
			for (int k = 0; k < nfound; k++)
				if (found[k].fi == &ei->fl[i])
					dup = true;
			if (!dup && nfound < MAXF) {
				found[nfound].fi = &ei->fl[i];
				found[nfound].key = p;
				found[nfound].val = q + 1;
				nfound++;
			}
			break;
		}
		p = q;
	}
	if (!nfound)
		return ipt_err_at(x->t->path, x->line_off, "%s: no field of the event in '%.*s'",
				  ei->name, (int)(e - s > 60 ? 60 : e - s), s);
	for (int k = 0; k < nfound; k++) {
		const char *ve = k + 1 < nfound ? found[k + 1].key : e;

		ve = rtrim(found[k].val, ve);
		if (ve > found[k].val && ve[-1] == ',' && found[k].fi->role != R_MASK)
			ve--;
		if (put_value(x, ei, found[k].fi, found[k].val, ve))
			return -1;
	}
	return 0;
}

static const struct finfo *fld(const struct einfo *ei, const char *name)
{
	for (int i = 0; i < ei->nf; i++)
		if (!strcmp(ei->fl[i].f->name, name))
			return &ei->fl[i];
	return NULL;
}

/*
 * comm_pid_prio - trace-cmd plugin text "comm:pid [prio]" ending at e;
 * fills comm/pid/prio fields named by the prefix ("prev_", "next_", "").
 */
static int comm_pid_prio(struct tx *x, const struct einfo *ei, const char *s, const char *e,
			 const char *prefix)
{
	char name[32];
	const char *lb, *colon;
	uint64_t pid, prio;
	const struct finfo *f;

	e = rtrim(s, e);
	s = skip_blanks(s, e);
	lb = rfind(s, e, " [");
	if (!lb || e[-1] != ']' || !parse_int(lb + 2, e - 1, &prio))
		return bad_field(x, ei, "task", s, e);
	colon = lb;
	while (colon > s && colon[-1] != ':')
		colon--;
	if (colon <= s || !parse_int(colon, lb, &pid))
		return bad_field(x, ei, "task", s, e);
	colon--;
	snprintf(name, sizeof(name), "%scomm", prefix);
	if ((f = fld(ei, name)) && put_value(x, ei, f, s, colon))
		return -1;
	snprintf(name, sizeof(name), "%spid", prefix);
	if ((f = fld(ei, name)))
		put_field(x, f->f, pid);
	snprintf(name, sizeof(name), "%sprio", prefix);
	if ((f = fld(ei, name)))
		put_field(x, f->f, prio);
	return 0;
}

/* sched_switch as trace-cmd's plugin prints it */
static int fields_switch(struct tx *x, const struct einfo *ei, const char *s, const char *e)
{
	const char *arrow, *st;
	const struct finfo *f;
	uint64_t state;

	if (find(s, e, "prev_comm="))
		return fields_kv(x, ei, s, e);
	/* trace-cmd report -w appends " Latency: 5.962 usecs" */
	{
		const char *lat = find(s, e, " Latency: ");

		if (lat && e - lat > 6 && !memcmp(e - 6, " usecs", 6))
			e = lat;
	}
	arrow = find(s, e, " ==> ");
	if (!arrow)
		return bad_field(x, ei, "sched_switch text", s, e);
	st = rtrim(s, arrow);
	while (st > s && !is_blank(st[-1]))
		st--;
	if (!parse_state(st, rtrim(s, arrow), true, &state))
		return bad_field(x, ei, "prev_state", st, arrow);
	if ((f = fld(ei, "prev_state")))
		put_field(x, f->f, state);
	if (comm_pid_prio(x, ei, s, st, "prev_") || comm_pid_prio(x, ei, arrow + 5, e, "next_"))
		return -1;
	return 0;
}

/* sched_wakeup* as trace-cmd's plugin prints it: "comm:pid [prio] [success=1] CPU:003" */
static int fields_wakeup(struct tx *x, const struct einfo *ei, const char *s, const char *e)
{
	const char *cpu, *te;
	const struct finfo *f;
	uint64_t v;

	if (find(s, e, "comm=") == s || find(s, e, " pid="))
		return fields_kv(x, ei, s, e);
	cpu = rfind(s, e, " CPU:");
	if (!cpu || !parse_int(cpu + 5, e, &v))
		return bad_field(x, ei, "sched_wakeup text", s, e);
	if ((f = fld(ei, "target_cpu")))
		put_field(x, f->f, v);
	te = rtrim(s, cpu);
	/* " success=1" or " failure" between the prio and CPU: */
	while (te > s && te[-1] != ']') {
		const char *w = te;

		while (w > s && !is_blank(w[-1]))
			w--;
		if (w == s)
			break;
		te = rtrim(s, w);
	}
	return comm_pid_prio(x, ei, s, te, "");
}

/* ipi_raise: "target_mask=00000000,00000004 (Function call interrupts)" */
static int fields_raise(struct tx *x, const struct einfo *ei, const char *s, const char *e)
{
	const struct finfo *mf = fld(ei, "target_cpus"), *rf = fld(ei, "reason");
	const char *p = s, *me, *rs, *re;
	unsigned int bits;
	uint64_t a;

	if (starts(p, e, "target_mask="))
		p += 12;
	else if (starts(p, e, "target_cpus="))
		p += 12;
	else
		return bad_field(x, ei, "ipi_raise text", s, e);
	me = p;
	while (me < e && !is_blank(*me))
		me++;
	if (!mf || !parse_mask(x, p, me, true, &bits))
		return bad_field(x, ei, "target_mask", p, me);
	if (put_mask(x, mf->f, bits))
		return -1;
	rs = skip_blanks(me, e);
	if (rs < e && *rs == '(')
		rs++;
	re = e;
	if (re > rs && re[-1] == ')')
		re--;
	if (rf && re > rs) {
		if (reason_addr(x, rs, (size_t)(re - rs), &a))
			return -1;
		put_field(x, rf->f, a);
	}
	return 0;
}

/* ipi_entry/ipi_exit: "(Rescheduling interrupts)" */
static int fields_reason(struct tx *x, const struct einfo *ei, const char *s, const char *e)
{
	const struct finfo *rf = fld(ei, "reason");
	uint64_t a;

	if (starts(s, e, "reason="))
		s += 7;
	if (s < e && *s == '(')
		s++;
	if (e > s && e[-1] == ')')
		e--;
	if (s == e)
		return bad_field(x, ei, "reason", s, e);
	if (rf) {
		if (reason_addr(x, s, (size_t)(e - s), &a))
			return -1;
		put_field(x, rf->f, a);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Per-CPU pages                                                       */
/* ------------------------------------------------------------------ */

static struct cpuw *cpu_writer(struct tx *x, int cpu)
{
	if (cpu >= x->ncw) {
		int n = x->ncw ? x->ncw : 8;
		struct cpuw **nw;

		while (n <= cpu)
			n *= 2;
		nw = ipt_realloc(x->cw, (size_t)n * sizeof(*nw));
		if (!nw)
			return NULL;
		memset(nw + x->ncw, 0, (size_t)(n - x->ncw) * sizeof(*nw));
		x->cw = nw;
		x->ncw = n;
	}
	if (!x->cw[cpu]) {
		struct cpuw *w = ipt_calloc(1, sizeof(*w));

		if (!w)
			return NULL;
		if (ipt_page_writer_init(&w->pw, &x->t->layout, false)) {
			free(w);
			return NULL;
		}
		x->cw[cpu] = w;
	}
	return x->cw[cpu];
}

/* emit - the record in x->rec goes to its CPU's pages */
static int emit(struct tx *x, int cpu, uint64_t ts)
{
	struct cpuw *w = cpu_writer(x, cpu);

	if (!w)
		return -1;
	if (w->used && ts < w->last_ts) {
		ts = w->last_ts;	/* pasted text out of order: keep the page valid */
		x->raised++;
	}
	if (ipt_page_writer_add(&w->pw, ts, x->rec, x->rlen)) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", ipt_errmsg());
		return ipt_err_at(x->t->path, x->line_off, "%s", msg);
	}
	w->last_ts = ts;
	w->used = true;
	x->nevents++;
	return 0;
}

static int flush_pending(struct tx *x)
{
	const struct einfo *ei;

	if (!x->pending)
		return 0;
	x->pending = false;
	ei = &x->ei[x->pend_ei];
	if (ei->kind == EK_STACK) {
		const struct finfo *f = fld(ei, "size");

		if (f)
			put_field(x, f->f, x->pend_n);
	} else if (ei->kind == EK_TEXT) {
		uint32_t n = x->rlen - x->pend_str;

		if (rec_reserve(x, x->rlen + 1))
			return -1;
		x->rec[x->rlen++] = 0;
		n++;
		ipt_put_uint(x->rec + ei->fl[0].f->offset, 4, false, (uint64_t)n << 16 | x->pend_str);
	}
	return emit(x, x->pend_cpu, x->pend_ts);
}

/* stack_line - "=> name (ffffffff8144fb7c)", " => name+0x1a/0x40", "=> ffffffffc0123456" */
static int stack_line(struct tx *x, const char *p, const char *e)
{
	const char *te, *plus, *ne;
	uint64_t addr = 0, off = 0, size = 0;
	bool have_addr = false;

	p = skip_blanks(p + 2, e);
	if (x->pend_n >= MAX_STACK)
		return 0;
	te = p;
	while (te < e && !is_blank(*te))
		te++;
	if (te == p)
		return ipt_err_at(x->t->path, x->line_off, "empty stack line");
	/* the address in parentheses or angle brackets after the name */
	{
		const char *a = skip_blanks(te, e);

		if (a < e && (*a == '(' || *a == '<')) {
			char close = *a == '(' ? ')' : '>';
			const char *c = memchr(a, close, (size_t)(e - a));
			const char *h = a + 1;

			if (c && c - h > 2 && h[0] == '0' && h[1] == 'x')
				h += 2;
			if (!c || !parse_hexn(h, c, &addr))
				return ipt_err_at(x->t->path, x->line_off, "bad address in stack line");
			have_addr = true;
		}
	}
	plus = memchr(p, '+', (size_t)(te - p));
	ne = plus ? plus : te;
	if (!plus && !have_addr && (te - p >= 8 || starts(p, te, "0x"))) {
		const char *h = starts(p, te, "0x") ? p + 2 : p;

		if (parse_hexn(h, te, &addr)) {
			/* a raw address: trace-cmd knew no name for it, nor do we */
			if (unknown_at(x, addr))
				return -1;
			goto store;
		}
	}
	if (plus) {
		const char *slash = memchr(plus, '/', (size_t)(te - plus));

		if (!starts(plus, te, "+0x") || !parse_hexn(plus + 3, slash ? slash : te, &off) ||
		    (slash && (!starts(slash, te, "/0x") || !parse_hexn(slash + 3, te, &size))))
			return ipt_err_at(x->t->path, x->line_off, "bad offset in stack line");
	}
	if (have_addr) {
		/* the name covers its start to this address (to its size when
		 * given), nothing known beyond */
		if (real_sym(x, p, (size_t)(ne - p), addr - off) ||
		    unknown_at(x, size > off ? addr - off + size : addr + 1))
			return -1;
	} else if (sym_addr(x, p, (size_t)(ne - p), off, size, &addr)) {
		return -1;
	}
store:
	if (rec_reserve(x, x->rlen + 8))
		return -1;
	ipt_put_uint(x->rec + x->rlen, 8, false, addr);
	x->rlen += 8;
	x->pend_n++;
	return 0;
}

/* continuation - a line that belongs to the pending record */
static int continuation(struct tx *x, const char *p, const char *e)
{
	const struct einfo *ei = &x->ei[x->pend_ei];

	if (ei->kind == EK_STACK)
		return stack_line(x, p, e);
	/* generic text: append as a new line of the string */
	if (x->rlen + 2 < MAX_PAYLOAD) {
		size_t n = (size_t)(e - p);

		if (n > MAX_PAYLOAD - 2 - x->rlen)
			n = MAX_PAYLOAD - 2 - x->rlen;
		if (rec_reserve(x, x->rlen + (uint32_t)n + 2))
			return -1;
		x->rec[x->rlen++] = '\n';
		memcpy(x->rec + x->rlen, p, n);
		x->rlen += (uint32_t)n;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Lines                                                               */
/* ------------------------------------------------------------------ */

static int set_comm(struct tx *x, const struct line *ln)
{
	const char *old;

	if (ln->pid == 0 || !ln->comm_len || (ln->comm_len == 5 && !memcmp(ln->comm, "<...>", 5)))
		return 0;
	old = ipt_comms_get(&x->t->comms, ln->pid);
	if (old) {
		if (strlen(old) == ln->comm_len && !memcmp(old, ln->comm, ln->comm_len))
			return 0;
		/* report -l cuts names to 8 characters: keep the longer one */
		if (ln->latency && !strncmp(old, ln->comm, ln->comm_len))
			return 0;
	}
	return ipt_comms_set(&x->t->comms, ln->pid, ln->comm, ln->comm_len);
}

static int event_line(struct tx *x, struct line *ln)
{
	const char *name = ln->name;
	size_t nlen = ln->name_len;
	const char *f = ln->f, *fe = ln->fe;
	const struct einfo *ei;
	int idx, r = 0, wid;

	if (!x->first_seen) {
		x->first_seen = true;
		x->first_flags = ln->has_flags && !ln->latency;
	}
	if (ln->cpu > x->max_cpu)
		x->max_cpu = ln->cpu;
	wid = ln->buf * IPT_CPUSET_MAX + ln->cpu;
	/*
	 * Text keeps microseconds; trace-cmd printed the lines in nanosecond
	 * order.  Lines with the same microsecond stay in the file's order
	 * (across CPUs too): the n-th one after the first gets n ns more.
	 */
	if (ln->ts == x->prev_line_ts && ln->ts % 1000 == 0 && x->nevents) {
		if (x->same_ts < 999)
			x->same_ts++;
		ln->ts += x->same_ts;
	} else {
		x->prev_line_ts = ln->ts;
		x->same_ts = 0;
	}
	if (!name) {
		if (starts(f, fe, "<stack trace")) {
			name = "kernel_stack";
			nlen = 12;
			f = fe;
		} else if (starts(f, fe, "<user stack trace")) {
			name = "user_stack";
			nlen = 10;
		} else if (find(f, fe, " <-")) {
			name = "function";
			nlen = 8;
		} else {
			return ipt_err_at(x->t->path, x->line_off, "no event name after the timestamp");
		}
	}
	if (event_for(x, name, nlen, &idx))
		return -1;
	if (set_comm(x, ln))
		return -1;
	ei = &x->ei[idx];
	if (rec_begin(x, ei, ln))
		return -1;
	switch (ei->kind) {
	case EK_KV:
		r = fields_kv(x, ei, f, fe);
		break;
	case EK_SWITCH:
		r = fields_switch(x, ei, f, fe);
		break;
	case EK_WAKEUP:
		r = fields_wakeup(x, ei, f, fe);
		break;
	case EK_RAISE:
		r = fields_raise(x, ei, f, fe);
		break;
	case EK_REASON:
		r = fields_reason(x, ei, f, fe);
		break;
	case EK_STACK:
	case EK_TEXT:
		x->pending = true;
		x->pend_cpu = wid;
		x->pend_ts = ln->ts;
		x->pend_ei = idx;
		x->pend_n = 0;
		x->pend_str = x->rlen;
		if (ei->kind == EK_TEXT) {
			size_t n = (size_t)(fe - f);

			if (n > MAX_PAYLOAD - 2 - x->rlen)
				n = MAX_PAYLOAD - 2 - x->rlen;
			if (rec_reserve(x, x->rlen + (uint32_t)n + 1))
				return -1;
			memcpy(x->rec + x->rlen, f, n);
			x->rlen += (uint32_t)n;
		}
		return 0;
	}
	if (r)
		return -1;
	return emit(x, wid, ln->ts);
}

#define MAX_TEXT_BUFFERS 64

/*
 * unreadable_layout - the tracefs trace_options layout a line is written
 * in, when it is one that carries no task, CPU and time stamp or no
 * fields as text (NULL for any other line):
 *   raw           "19900 0 3417894593797 type: 354 ..." (pid cpu ts, fields as numbers)
 *   hex           "00004dbc 00000000 0000031bca64a505 type: 354 ..." (8, 8, 16 digits)
 *   context-info  "ipi_send_cpu: cpu=1 ..." (context-info off: no task, CPU or time)
 */
static const char *unreadable_layout(const char *p, const char *e)
{
	static const size_t hex_width[3] = { 8, 8, 16 };
	const char *q = p, *type = find(p, e, " type: ");
	bool dec = true, fixed = true;
	int words = 0;

	if (type) {
		while (q < type) {
			const char *w = q;

			while (q < type && isxdigit((unsigned char)*q)) {
				dec = dec && is_digit(*q);
				q++;
			}
			if (q == w || (q < type && *q != ' ') || words == 3)
				return NULL;
			fixed = fixed && (size_t)(q - w) == hex_width[words];
			words++;
			q = skip_blanks(q, type);
		}
		if (words != 3)
			return NULL;
		/* hex writes pid, cpu, ts zero-padded to 8, 8, 16 digits, which
		 * may all be decimal digits; raw writes them unpadded */
		return dec && !fixed ? "raw" : "hex";
	}
	while (q < e && (isalnum((unsigned char)*q) || *q == '_'))
		q++;
	if (q > p && q + 1 < e && *q == ':' && q[1] == ' ' && isalpha((unsigned char)*p) &&
	    memchr(p, '_', (size_t)(q - p)) && memchr(q, '=', (size_t)(e - q)))
		return "context-info";
	return NULL;
}

/*
 * buffer_prefix - `trace-cmd report` of a file with instance buffers puts
 * "NAME: " before their lines, at the start of the line.  LP_OK and ln
 * filled (ln->buf its buffer) when p is such a line, 0 if not, -1 on error.
 */
static int buffer_prefix(struct tx *x, const char *p, const char *e, struct line *ln, bool *raw)
{
	const char *q = p, *why;
	int b;

	while (q < e && (isalnum((unsigned char)*q) || *q == '_' || *q == '-' || *q == '.'))
		q++;
	if (q == p || q + 1 >= e || *q != ':' || !is_blank(q[1]))
		return 0;
	if (parse_prefix(q + 1, e, ln, raw, &why) != LP_OK)
		return 0;
	if ((b = ipt_trace_add_buffer(x->t, p, (size_t)(q - p))) < 0)
		return -1;
	if (b >= MAX_TEXT_BUFFERS)
		return ipt_err_at(x->t->path, x->line_off, "more than %d buffers", MAX_TEXT_BUFFERS);
	ln->buf = b;
	return LP_OK;
}

/* "CPU:N [EVENTS DROPPED]", "CPU:N [123 EVENTS DROPPED]", "CPU:N [LOST 123 EVENTS]" */
static int dropped_line(struct tx *x, const char *p, const char *e, bool *handled)
{
	const char *q = p + 4, *ce;
	uint64_t cpu, count = 0;
	struct cpuw *w;

	*handled = false;
	ce = q;
	while (ce < e && is_digit(*ce))
		ce++;
	if (!parse_dec(q, ce, &cpu) || cpu >= IPT_CPUSET_MAX)
		return 0;
	q = skip_blanks(ce, e);
	if (starts(q, e, "[EVENTS DROPPED]")) {
		count = 0;
	} else if (starts(q, e, "[LOST ")) {
		const char *n = q + 6, *ne = n;

		while (ne < e && is_digit(*ne))
			ne++;
		if (!parse_dec(n, ne, &count) || !starts(ne, e, " EVENTS]"))
			return 0;
	} else if (starts(q, e, "[")) {
		const char *n = q + 1, *ne = n;

		while (ne < e && is_digit(*ne))
			ne++;
		if (!parse_dec(n, ne, &count) || !starts(ne, e, " EVENTS DROPPED]"))
			return 0;
	} else {
		return 0;
	}
	*handled = true;
	if (flush_pending(x))
		return -1;
	w = cpu_writer(x, (int)cpu);
	if (!w || ipt_page_writer_mark_missed(&w->pw, count))
		return -1;
	return 0;
}

/* header_line - cpus=, version =, # comments; true if it was one */
static bool header_line(struct tx *x, const char *p, const char *e)
{
	if (*p == '#') {
		const char *np = find(p, e, "#P:");

		const char *ew = find(p, e, "entries-in-buffer/entries-written: ");

		if (starts(p, e, "# tracer:"))
			x->saw_tracer = true;
		if (ew) {
			/* "# entries-in-buffer/entries-written: 318/318   #P:2" */
			const char *a = ew + 35, *ae = a, *b, *be;
			uint64_t in, wr;

			while (ae < e && is_digit(*ae))
				ae++;
			b = ae + 1;
			be = b;
			while (be < e && is_digit(*be))
				be++;
			if (ae < e && *ae == '/' && parse_dec(a, ae, &in) && parse_dec(b, be, &wr) &&
			    in <= INT64_MAX && wr <= INT64_MAX) {
				x->t->entries_in_buffer = (int64_t)in;
				x->t->entries_written = (int64_t)wr;
			}
		}
		if (np) {
			const char *d = np + 3, *de = d;
			uint64_t n;

			while (de < e && is_digit(*de))
				de++;
			if (parse_dec(d, de, &n) && n > 0 && n <= IPT_CPUSET_MAX)
				x->nr_cpus = (int)n;
		}
		return true;
	}
	if (starts(p, e, "cpus=")) {
		uint64_t n;

		if (parse_dec(p + 5, e, &n) && n > 0 && n <= IPT_CPUSET_MAX) {
			x->nr_cpus = (int)n;
			x->saw_cpus = true;
			return true;
		}
		return false;
	}
	if (starts(p, e, "version = ") || starts(p, e, "version=")) {
		x->saw_cpus = true;	/* trace-cmd report's header */
		return true;
	}
	if (starts(p, e, "CPU ") && (find(p, e, " is empty") || find(p, e, "is empty")))
		return true;
	return false;
}

static int do_line(struct tx *x, const char *s, const char *e)
{
	const char *p;
	struct line ln;
	const char *why;
	bool raw;
	int r;

	e = rtrim(s, e);
	p = unquote(s, e);
	p = skip_blanks(p, e);
	if (p >= e)
		return 0;
	if (starts(p, e, "=>")) {
		if (x->pending)
			return continuation(x, p, e);
		goto skip;
	}
	if (starts(p, e, "CPU:")) {
		bool handled;

		if (dropped_line(x, p, e, &handled))
			return -1;
		if (handled)
			return 0;
	}
	if (header_line(x, p, e))
		return 0;
	r = buffer_prefix(x, p, e, &ln, &raw);
	if (r < 0)
		return -1;
	if (!r)
		r = parse_prefix(p, e, &ln, &raw, &why);
	if (r == LP_BAD)
		return ipt_err_at(x->t->path, x->line_off, "%s in '%.*s'", why,
				  (int)(e - p > 80 ? 80 : e - p), p);
	if (r == LP_NO) {
		if (!x->layout && (x->layout = unreadable_layout(p, e)))
			x->layout_off = x->line_off;
		goto skip;
	}
	if (raw)
		x->raw_ts = true;
	if (flush_pending(x))
		return -1;
	return event_line(x, &ln);
skip:
	if (flush_pending(x))
		return -1;
	if (!x->skipped)
		x->first_skipped = x->line_off;
	x->skipped++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Loading                                                             */
/* ------------------------------------------------------------------ */

static int finish(struct tx *x)
{
	struct ipt_trace *t = x->t;
	char note[160];

	if (flush_pending(x))
		return -1;
	if (!x->nevents && x->layout)
		return ipt_err_at(t->path, x->layout_off,
				  !strcmp(x->layout, "context-info") ?
				  "tracefs text written with the trace option context-info off: its lines name no task, CPU or time; write it with context-info on" :
				  "tracefs text written with the trace option %s on: its records are not printed as fields; write it with %s off",
				  x->layout, x->layout);
	for (int wid = 0; wid < x->ncw; wid++) {
		struct cpuw *w = x->cw[wid];
		int cpu = wid % IPT_CPUSET_MAX;
		struct ipt_cpu_stream *s;

		if (!w)
			continue;
		if (ipt_page_writer_finish(&w->pw))
			return -1;
		if (!w->pw.out.len)
			continue;
		s = ipt_trace_add_buffer_stream(t, wid / IPT_CPUSET_MAX, cpu);
		if (!s)
			return -1;
		s->owned = (uint8_t *)w->pw.out.buf;
		s->data = s->owned;
		s->size = w->pw.out.len;
		w->pw.out.buf = NULL;
		w->pw.out.len = w->pw.out.cap = 0;
	}
	if (ipt_symtab_sort(&t->ksyms) || ipt_symtab_sort(&t->printk))
		return -1;
	t->cpucount = x->nr_cpus;
	t->kind = (x->saw_tracer || (x->first_flags && !x->saw_cpus)) ? IPT_INPUT_TRACEFS_TEXT
									 : IPT_INPUT_REPORT_TEXT;
	t->version = 0;
	{
		char *clock = ipt_strdup(x->raw_ts ? "counter" : "");

		if (!clock)
			return -1;
		free(t->clock);
		t->clock = clock;
	}
	snprintf(note, sizeof(note), "%llu events, %llu lines skipped (first at offset %lld), %llu timestamps raised",
		 (unsigned long long)x->nevents, (unsigned long long)x->skipped,
		 x->skipped ? x->first_skipped : -1LL, (unsigned long long)x->raised);
	t->lines_skipped = x->skipped;
	t->first_skipped = x->skipped ? x->first_skipped : -1;
	free(t->scratch);
	t->scratch = ipt_strdup(note);
	if (!t->scratch)
		return -1;
	return ipt_trace_finish_events(t);
}

static void release(struct tx *x)
{
	for (int i = 0; i < x->ncw; i++) {
		if (!x->cw[i])
			continue;
		ipt_page_writer_free(&x->cw[i]->pw);
		free(x->cw[i]);
	}
	free(x->cw);
	free(x->ei);
	free(x->evmap.e);
	free(x->symmap.e);
	free(x->reasonmap.e);
	free(x->syn);
	free(x->real.a);
	free(x->rec);
}

int ipt_text_load(struct ipt_trace *t)
{
	struct tx *x = ipt_calloc(1, sizeof(*x));
	const char *s, *end;
	int r = 0;

	if (!x)
		return -1;
	x->t = t;
	x->buf = (const char *)t->map;
	x->len = t->map_size;
	x->sym_top = SYM_TOP;
	x->max_cpu = -1;
	t->version = 0;
	t->big_endian = false;
	t->long_size = 8;
	t->kernel_long_size = 8;
	t->page_size = 4096;
	ipt_page_layout_default(&t->layout, 4096, 8);
	s = x->buf;
	end = x->buf + x->len;
	while (s < end) {
		const char *e = memchr(s, '\n', (size_t)(end - s));

		if (!e)
			e = end;
		x->line_off = (long long)(s - x->buf);
		if (memchr(s, 0, (size_t)(e - s))) {
			r = ipt_err_at(t->path, x->line_off, "NUL byte in a text trace");
			break;
		}
		if (do_line(x, s, e)) {
			r = -1;
			break;
		}
		s = e + 1;
	}
	if (!r)
		r = finish(x);
	release(x);
	free(x);
	return r;
}
