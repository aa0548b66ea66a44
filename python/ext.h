/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ext.h - what the files of the Python module's C part (ipitrace._ext)
 * share: the columns of rows() and their table, the reader's state
 * (struct rows), the categoricals, and the few helpers the per-row loops
 * of two files need inline.  Not installed; the module sees libipitrace
 * through include/ipitrace.h alone.
 *
 * Who calls whom (no two files call each other, directly or in a circle):
 *
 *   module.c   -> rows.c, report.c, events.c, spikes.c, arrays.c, values.c
 *   rows.c     -> fill.c, arrays.c, cat.c, columns.c, values.c
 *   fill.c     -> join.c, cat.c, columns.c
 *   join.c     -> cat.c, columns.c
 *   arrays.c   -> cat.c, columns.c, values.c
 *   cat.c      -> columns.c, values.c
 *   report.c, events.c, spikes.c -> values.c
 *   columns.c, values.c: the library only
 */
#ifndef IPT_PYEXT_H
#define IPT_PYEXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <ipitrace.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- values.c: errors and Python values of the library's ---- */

extern PyObject *IptError;	/* ipitrace.Error */

PyObject *raise_ipt(const char *msg);
struct ipt_trace *open_trace(PyObject *path_obj);
int dset(PyObject *d, const char *key, PyObject *v);
int col_append(PyObject *d, const char *key, PyObject *v);
PyObject *str_or_none(const char *s);
PyObject *sym_obj(struct ipt_trace *t, uint64_t addr, bool with_off);
PyObject *mask_int(const struct ipt_cpuset *s);
const char *sym_text(char *buf, size_t size, const char *sym, uint64_t off, bool with_off);
int stack_text(const struct ipt_trace *t, const struct ipt_report_stack *st, struct ipt_strbuf *sb);

#define U64(x) PyLong_FromUnsignedLongLong((unsigned long long)(x))
#define I64(x) PyLong_FromLongLong((long long)(x))

/* ---- the columns of rows() (the table is in columns.c) ---- */

enum col_type {
	T_U64, T_I64, T_I32, T_CAT, T_NI64, T_NBOOL, T_TARGETS,
};

/* the columns: the rows' (ipt_row_column), in their order */
enum col_id {
	C_TS = IPT_COL_TS_NS, C_ID = IPT_COL_ID, C_SRC = IPT_COL_SRC_CPU, C_TGT = IPT_COL_TARGET_CPU,
	C_NT = IPT_COL_NTARGETS, C_PID = IPT_COL_PID, C_COMM = IPT_COL_COMM, C_EVENT = IPT_COL_EVENT,
	C_KIND = IPT_COL_KIND, C_CS = IPT_COL_CALLSITE, C_CSSYM = IPT_COL_CALLSITE_SYM,
	C_CB = IPT_COL_CALLBACK, C_CBSYM = IPT_COL_CALLBACK_SYM, C_FUNC = IPT_COL_FUNC,
	C_FUNCSYM = IPT_COL_FUNC_SYM, C_REASON = IPT_COL_REASON, C_LAT = IPT_COL_LAT_NS,
	C_HND = IPT_COL_HANDLER_NS, C_HTS = IPT_COL_HANDLER_TS_NS, C_MATCHED = IPT_COL_MATCHED,
	C_COAL = IPT_COL_COALESCED, C_UNM = IPT_COL_UNMATCHED_REASON, C_CSFUNC = IPT_COL_CALLSITE_FUNC,
	C_FNAME = IPT_COL_FUNC_NAME, C_STACK = IPT_COL_STACK,
	C__COUNT = IPT_COL__COUNT
};

struct col_spec {
	const char *name;
	enum col_type type;
	bool match;		/* needs the report's row results */
};
/* filled by cols_init from the rows' description */
extern struct col_spec cols[C__COUNT];
void cols_init(void);

/*
 * A column's distinct strings (categories): code -> string, and two maps
 * to codes, one from the text (by its hash) and one from an address (the
 * symbol columns and the stacks, whose text follows from it).
 */
struct codemap {		/* open addressing: 64-bit key -> code */
	uint64_t *keys;
	int32_t *vals;		/* code + 2 (codes from -1), 0 empty */
	uint32_t nslots, n;
};

#define PCACHE 256
struct cat {
	char **strs;		/* code -> string (owned) */
	int32_t n, cap;
	struct codemap bytext;	/* hash of the text -> code */
	/* pointer cache: a pointer seen before, checked against its copy */
	const char *pc_ptr[PCACHE];
	int32_t pc_code[PCACHE];
	struct codemap byaddr;	/* address -> code (-1: no symbol) */
};

struct col {
	bool on;
	void *data;
	uint8_t *mask;		/* nullable columns: 1 = null */
	struct cat cat;
	uint8_t cw;		/* categories: bytes per code (1, 2, 4; 0: 1), the
				 * width pandas keeps, widened as codes grow */
};

/* the reader of rows: the Python type Rows (rows.c) */
struct rows {
	PyObject_HEAD
	struct ipt_trace *t;
	struct ipt_ipi_iter *it;
	struct ipt_report *rep;
	bool explode, busy, done;
	uint64_t last_id;
	bool have_last;
	struct col c[C__COUNT];
	size_t n, cap;		/* rows in the buffers, room */
	size_t hint;		/* rows expected (the report's count), 0 unknown */
	size_t chunk;		/* the rows asked for by this next(), 0 all */
	/* !explode: the targets as a flat CPU list, offsets per row */
	int32_t *cpus;
	size_t ncpus, capcpus;
	char err[512];
	/* the matching columns of rows() (one next() for all rows): the
	 * report's pass gives the rows too, and its results fill those
	 * columns at the end */
	bool deferred;		/* the report is not run yet */
	int threads;
	char *filter;
	bool forced[C__COUNT];	/* on for the join only: not handed out */
	bool match_later;	/* put_row leaves the matching columns to the join */
	bool nomem;		/* take_row ran out of memory */
	bool huge;		/* the columns are large: huge pages (cb_maplen) */
	/* the symbol columns' codes of the last row's addresses: the rows of
	 * one send (and most sends from one place) have the same */
	struct sym_memo {
		uint64_t callsite, callback, func;
		int32_t cssym, cbsym, funcsym, csfunc, fname;
		bool ok;
	} memo;
	struct ahead {		/* faulting the columns' pages ahead (columns.c) */
		pthread_t th;
		pthread_mutex_t mu;	/* want, stop; the wake-ups */
		pthread_cond_t cv;
		pthread_mutex_t bufs;	/* held while populating: the buffers stay put */
		size_t want;		/* rows [0, want) populated, asked for (<= cap) */
		size_t done;		/* rows populated (the thread's own) */
		size_t next;		/* r->n at which to ask for more */
		bool on, stop;
	} ah;
};

/* rows.c */
extern PyTypeObject RowsType;

/* rows_set_err - the library's last message as the reader's error */
static inline void rows_set_err(struct rows *r)
{
	snprintf(r->err, sizeof(r->err), "%s", ipt_errmsg());
}

/* ---- columns.c: the columns' memory ---- */

#define CB_HEAD 64		/* keeps the data 64-byte aligned */

struct cb_head {
	size_t maplen;		/* length of the mapping; 0: from malloc */
	size_t size;		/* bytes asked for */
};

void *cb_realloc_in(void *p, size_t n, bool huge);
void *cb_realloc(void *p, size_t n);
void cb_free(void *p);
int rows_grow(struct rows *r);
int add_cpu(struct rows *r, int32_t cpu);
void rows_free_bufs(struct rows *r);
void ahead_populate(struct rows *r, size_t from, size_t to, bool match);
void ahead_ask(struct rows *r);
void ahead_stop(struct rows *r);

#define AHEAD_START (1u << 15)	/* rows before the thread starts */

static inline bool col_nullable(int i)
{
	return cols[i].type == T_NI64 || cols[i].type == T_NBOOL;
}

/* the bytes per element of column i's buffer */
static inline size_t col_elsize(const struct col *c, int i)
{
	switch (cols[i].type) {
	case T_CAT: return c->cw ? c->cw : 1;
	case T_I32: return 4;
	case T_NBOOL: return 1;
	default: return 8;	/* T_U64, T_I64, T_NI64; T_TARGETS: offsets */
	}
}

/* ... and per row of the frame: without explode, target_cpu holds the
 * offsets into r->cpus */
static inline size_t row_elsize(const struct rows *r, int i)
{
	return i == C_TGT && !r->explode ? 8 : col_elsize(&r->c[i], i);
}

/* the buffers move (rows_grow, cat_widen) only under ah.bufs, while the
 * thread that faults them ahead runs */
static inline void bufs_lock(struct rows *r)
{
	if (r->ah.on)
		pthread_mutex_lock(&r->ah.bufs);
}

static inline void bufs_unlock(struct rows *r)
{
	if (r->ah.on)
		pthread_mutex_unlock(&r->ah.bufs);
}

/* ---- cat.c: categoricals ---- */

int32_t cat_str_slow(struct cat *c, const char *s, unsigned int pi);
int cat_put_wide(struct rows *r, struct col *c, size_t k, int32_t code);
void cat_free(struct cat *c);
PyObject *cat_list(const struct cat *c);
int32_t sym_code(struct cat *c, uint64_t addr, const char *sym, uint64_t off, bool with_off);
int put_stack(struct rows *r, size_t k, const struct ipt_report_stack *st);

/*
 * cat_str_in - the code of s (added if new); -1 for NULL, -2 out of memory.
 * fixed: s is one of the trace's own strings (a comm, an event name, a
 * reason), which stay as they are until the trace is closed, so a pointer
 * seen before needs no comparison of its text.
 */
static inline int32_t cat_str_in(struct cat *c, const char *s, bool fixed)
{
	uintptr_t p = (uintptr_t)s;
	unsigned int pi = (unsigned int)((p >> 3) ^ (p >> 11)) & (PCACHE - 1);

	if (!s)
		return -1;
	if (c->pc_ptr[pi] == s && (fixed || !strcmp(c->strs[c->pc_code[pi]], s)))
		return c->pc_code[pi];
	return cat_str_slow(c, s, pi);
}

static inline int32_t cat_str(struct cat *c, const char *s)
{
	return cat_str_in(c, s, false);
}

static inline int32_t cat_str_fixed(struct cat *c, const char *s)
{
	return cat_str_in(c, s, true);
}

/* cat_put - code at row k of category column c (-1: null); -1 out of memory */
static inline int cat_put(struct rows *r, struct col *c, size_t k, int32_t code)
{
	if (c->cw <= 1 && code < INT8_MAX - 1) {	/* the usual case */
		((int8_t *)c->data)[k] = (int8_t)code;
		return 0;
	}
	return cat_put_wide(r, c, k, code);
}

/* ---- fill.c: the rows into the columns ---- */

int rows_open(struct rows *r, const char *path, int threads, bool match);
int report_first(struct rows *r);
int rows_fill(struct rows *r, size_t max);
int rows_fill_one_pass(struct rows *r);

/* the matching columns of row k but the stack: what pt says (NULL: not
 * known); the pass (put_row) and the join's threads fill them */
static inline void put_match_values(struct rows *r, size_t k, const struct ipt_row_match *pt)
{
#define NUL(i, T, has, v) do { if (r->c[i].on) { ((T *)r->c[i].data)[k] = (has) ? (T)(v) : 0; \
		r->c[i].mask[k] = !(has); } } while (0)
	NUL(C_LAT, int64_t, pt && pt->has_latency, pt ? pt->latency_ns : 0);
	NUL(C_HND, int64_t, pt && pt->has_handler, pt ? pt->handler_ns : 0);
	NUL(C_HTS, int64_t, pt && pt->has_handler_ts, pt ? pt->handler_ts_ns : 0);
	NUL(C_MATCHED, uint8_t, pt, pt && pt->matched);
	NUL(C_COAL, uint8_t, pt && pt->matched, pt && pt->coalesced);	/* of a served send only */
#undef NUL
	/* a fixed category of 4: never widened, so threads may fill it */
	if (r->c[C_UNM].on)
		((int8_t *)r->c[C_UNM].data)[k] = pt && !pt->matched && pt->unmatched != IPT_UNMATCHED_NONE ?
						 (int8_t)(pt->unmatched - 1) : -1;
}

/* ---- join.c: the report's row results into the matching columns ---- */

int join_matches(struct rows *r, struct ipt_report *rep);

/* ---- arrays.c: the columns as numpy arrays ---- */

int arrays_init(void);
PyObject *rows_take(struct rows *r);
PyObject *py_targets(PyObject *self, PyObject *args);

/* ---- report.c, events.c, diff.c, spikes.c ---- */

PyObject *py_report(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_events(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_diff(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_spikes(PyObject *self, PyObject *args, PyObject *kw);

#endif
