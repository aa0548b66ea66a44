// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ipitrace_ext.c - the C part of the Python module `ipitrace` (ipitrace._ext)
 *
 * Over the public API of libipitrace only.  The decoding loops run with the
 * GIL released and fill plain C buffers (integers, category codes, null
 * masks); the buffers then become numpy arrays without a copy (a capsule
 * frees them), and the Python side (ipitrace/__init__.py) wraps them as
 * pandas columns.  Strings that repeat are interned here: each column keeps
 * its own table of distinct strings, and rows hold int32 codes into it
 * (-1: null), for pandas.Categorical.from_codes.
 *
 *   _Rows(path, filter, explode, threads, match, stack)   a reader of rows
 *       .next(n) -> dict name -> array / (codes, categories) / (values, mask)
 *       of up to n rows, None at the end
 *   report(path, filter, by, threads, assume_synced_clock) -> dict of tables
 *   events(path, name) -> dict of columns
 *   info(path) -> dict
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <ipitrace.h>

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static PyObject *IptError;

/* raise ipitrace.Error with the library's message (or msg when given) */
static PyObject *raise_ipt(const char *msg)
{
	const char *m = msg && *msg ? msg : ipt_errmsg();

	if (!m || !*m)
		m = "ipitrace: unknown error";
	if (ipt_errcode() == IPT_ERR_NOMEM && !msg)
		return PyErr_NoMemory();
	PyErr_SetString(IptError, m);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* interning: string -> code, address -> code                          */
/* ------------------------------------------------------------------ */

static uint64_t hash_bytes(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

#define PCACHE 256
struct cat {
	char **strs;		/* code -> string (owned) */
	int32_t n, cap;
	int32_t *slots;		/* open addressing on content: code + 1, 0 empty */
	uint32_t nslots;
	/* pointer cache: a pointer seen before, checked against its copy */
	const char *pc_ptr[PCACHE];
	int32_t pc_code[PCACHE];
	/* address -> code map (symbol columns) */
	uint64_t *akeys;
	int32_t *avals;		/* code + 2 (1: no symbol), 0 empty */
	uint32_t naslots, nakeys;
};

static void cat_free(struct cat *c)
{
	for (int32_t i = 0; i < c->n; i++)
		free(c->strs[i]);
	free(c->strs);
	free(c->slots);
	free(c->akeys);
	free(c->avals);
	memset(c, 0, sizeof(*c));
}

static int cat_rehash(struct cat *c)
{
	uint32_t ns = c->nslots ? c->nslots * 2 : 64;
	int32_t *sl = calloc(ns, sizeof(*sl));

	if (!sl)
		return -1;
	for (int32_t i = 0; i < c->n; i++) {
		uint32_t h = (uint32_t)hash_bytes(c->strs[i]) & (ns - 1);

		while (sl[h])
			h = (h + 1) & (ns - 1);
		sl[h] = i + 1;
	}
	free(c->slots);
	c->slots = sl;
	c->nslots = ns;
	return 0;
}

/*
 * cat_str_in - the code of s (added if new); -1 for NULL, -2 out of memory.
 * fixed: s is one of the trace's own strings (a comm, an event name, a
 * reason), which stay as they are until the trace is closed, so a pointer
 * seen before needs no comparison of its text.
 */
static int32_t cat_str_in(struct cat *c, const char *s, bool fixed)
{
	uintptr_t p = (uintptr_t)s;
	unsigned int pi = (unsigned int)((p >> 3) ^ (p >> 11)) & (PCACHE - 1);
	uint32_t h;

	if (!s)
		return -1;
	if (c->pc_ptr[pi] == s && (fixed || !strcmp(c->strs[c->pc_code[pi]], s)))
		return c->pc_code[pi];
	if ((uint32_t)c->n * 2 >= c->nslots && cat_rehash(c))
		return -2;
	h = (uint32_t)hash_bytes(s) & (c->nslots - 1);
	while (c->slots[h]) {
		int32_t code = c->slots[h] - 1;

		if (!strcmp(c->strs[code], s)) {
			c->pc_ptr[pi] = s;
			c->pc_code[pi] = code;
			return code;
		}
		h = (h + 1) & (c->nslots - 1);
	}
	if (c->n == c->cap) {
		int32_t nc = c->cap ? c->cap * 2 : 32;
		char **ns = realloc(c->strs, (size_t)nc * sizeof(*ns));

		if (!ns)
			return -2;
		c->strs = ns;
		c->cap = nc;
	}
	c->strs[c->n] = strdup(s);
	if (!c->strs[c->n])
		return -2;
	c->slots[h] = c->n + 1;
	c->pc_ptr[pi] = s;
	c->pc_code[pi] = c->n;
	return c->n++;
}

static int32_t cat_str(struct cat *c, const char *s)
{
	return cat_str_in(c, s, false);
}

static int32_t cat_str_fixed(struct cat *c, const char *s)
{
	return cat_str_in(c, s, true);
}

/* the code cached for addr: >= -1, or -3 when not cached yet */
static int32_t cat_addr_get(const struct cat *c, uint64_t addr)
{
	uint32_t h;

	if (!c->naslots)
		return -3;
	h = (uint32_t)hash_u64(addr) & (c->naslots - 1);
	while (c->avals[h]) {
		if (c->akeys[h] == addr)
			return c->avals[h] - 2;
		h = (h + 1) & (c->naslots - 1);
	}
	return -3;
}

static int cat_addr_put(struct cat *c, uint64_t addr, int32_t code)
{
	uint32_t h;

	if (c->nakeys * 2 >= c->naslots) {
		uint32_t ns = c->naslots ? c->naslots * 2 : 64;
		uint64_t *k = calloc(ns, sizeof(*k));
		int32_t *v = calloc(ns, sizeof(*v));

		if (!k || !v) {
			free(k);
			free(v);
			return -1;
		}
		for (uint32_t i = 0; i < c->naslots; i++) {
			if (!c->avals[i])
				continue;
			h = (uint32_t)hash_u64(c->akeys[i]) & (ns - 1);
			while (v[h])
				h = (h + 1) & (ns - 1);
			k[h] = c->akeys[i];
			v[h] = c->avals[i];
		}
		free(c->akeys);
		free(c->avals);
		c->akeys = k;
		c->avals = v;
		c->naslots = ns;
	}
	h = (uint32_t)hash_u64(addr) & (c->naslots - 1);
	while (c->avals[h])
		h = (h + 1) & (c->naslots - 1);
	c->akeys[h] = addr;
	c->avals[h] = code + 2;
	c->nakeys++;
	return 0;
}

/* the categories so far as a list of str (new reference) */
static PyObject *cat_list(const struct cat *c)
{
	PyObject *l = PyList_New(c->n);

	if (!l)
		return NULL;
	for (int32_t i = 0; i < c->n; i++) {
		PyObject *s = PyUnicode_DecodeUTF8(c->strs[i], (Py_ssize_t)strlen(c->strs[i]),
						   "surrogateescape");

		if (!s) {
			Py_DECREF(l);
			return NULL;
		}
		PyList_SET_ITEM(l, i, s);
	}
	return l;
}

/* ------------------------------------------------------------------ */
/* column buffers that become numpy arrays                             */
/* ------------------------------------------------------------------ */

enum col_type {
	T_U64, T_I64, T_I32, T_CAT, T_NI64, T_NBOOL, T_TARGETS,
};

enum col_id {
	C_TS, C_ID, C_SRC, C_TGT, C_NT, C_PID, C_COMM, C_EVENT, C_KIND,
	C_CS, C_CSSYM, C_CB, C_CBSYM, C_FUNC, C_FUNCSYM, C_REASON,
	C_LAT, C_HND, C_HTS, C_MATCHED, C_COAL, C_UNM, C_CSFUNC, C_FNAME, C_STACK,
	C__COUNT
};

static const struct {
	const char *name;
	enum col_type type;
	bool match;		/* needs the report's row results */
} cols[C__COUNT] = {
	[C_TS] = { "ts_ns", T_I64, false },
	[C_ID] = { "id", T_I64, false },
	[C_SRC] = { "src_cpu", T_I32, false },
	[C_TGT] = { "target_cpu", T_I32, false },
	[C_NT] = { "ntargets", T_I32, false },
	[C_PID] = { "pid", T_I32, false },
	[C_COMM] = { "comm", T_CAT, false },
	[C_EVENT] = { "event", T_CAT, false },
	[C_KIND] = { "kind", T_CAT, false },
	[C_CS] = { "callsite", T_U64, false },
	[C_CSSYM] = { "callsite_sym", T_CAT, false },
	[C_CB] = { "callback", T_U64, false },
	[C_CBSYM] = { "callback_sym", T_CAT, false },
	[C_FUNC] = { "func", T_U64, false },
	[C_FUNCSYM] = { "func_sym", T_CAT, false },
	[C_REASON] = { "reason", T_CAT, false },
	[C_LAT] = { "lat_ns", T_NI64, true },
	[C_HND] = { "handler_ns", T_NI64, true },
	[C_HTS] = { "handler_ts_ns", T_NI64, true },
	[C_MATCHED] = { "matched", T_NBOOL, true },
	[C_COAL] = { "coalesced", T_NBOOL, true },
	[C_UNM] = { "unmatched_reason", T_CAT, true },
	[C_CSFUNC] = { "callsite_func", T_CAT, false },
	[C_FNAME] = { "func_name", T_CAT, false },
	[C_STACK] = { "stack", T_CAT, true },
};

static size_t elsize(enum col_type t)
{
	switch (t) {
	case T_U64: case T_I64: case T_NI64: return 8;
	case T_I32: case T_CAT: return 4;
	case T_NBOOL: return 1;
	case T_TARGETS: return 8;	/* offsets into the CPU list */
	}
	return 8;
}

struct col {
	bool on;
	void *data;
	uint8_t *mask;		/* nullable columns: 1 = null */
	struct cat cat;
	uint8_t cw;		/* categories: bytes per code (1, 2, 4; 0: 1), the
				 * width pandas keeps, widened as codes grow */
};

/* the bytes per element of column i's buffer */
static size_t col_elsize(const struct col *c, int i);

/*
 * Column buffers: from 256 KiB each is a mapping of its own, grown and
 * shrunk by mremap, so never copied and never on malloc's heap, whatever
 * thresholds the rest of the process has moved malloc to (glibc raises
 * them each time a mapped chunk is freed, and heap blocks then grow by
 * copying: for a moment twice the column).  Room asked for but not
 * written costs nothing.  A header before the data says which it is.
 */
#define CB_HEAD 64		/* keeps the data 64-byte aligned */
#define CB_MAP (256u << 10)

struct cb_head {
	size_t maplen;		/* length of the mapping; 0: from malloc */
	size_t size;		/* bytes asked for */
};

#define CB_HUGE (2u << 20)
#define CB_HUGE_FRAME (64u << 20)

/*
 * The columns of a frame from 64 MiB (all its columns together) are whole
 * huge pages from 2 MiB each, asked for with MADV_HUGEPAGE: a fault per
 * 2 MiB instead of per 4 KiB.  On a VM where a fault is dear (about 3 us
 * here) a 300 MB frame's faults cost more than filling it: rows() of 3.3 M
 * rows went from 2.5 s to 1.6-1.9 s.  Room not written costs nothing, but
 * a column's last huge page is whole once touched: up to 2 MiB of some
 * thirty columns, which a small frame cannot carry (a 330k-row frame of
 * 31 MiB peaked at 1.84x its size).
 */
static size_t cb_maplen(size_t n, bool huge)
{
	size_t len = (n + CB_HEAD + 4095) & ~(size_t)4095;

	if (huge && len >= CB_HUGE)
		len = (len + CB_HUGE - 1) & ~(size_t)(CB_HUGE - 1);
	return len;
}

static void cb_huge(void *m, size_t len, bool huge)
{
#ifdef MADV_HUGEPAGE
	if (huge && len >= CB_HUGE)
		(void)madvise(m, len, MADV_HUGEPAGE);	/* a hint: refused where THP is off */
#else
	(void)m;
	(void)len;
	(void)huge;
#endif
}

static void cb_free(void *p)
{
	struct cb_head *h;

	if (!p)
		return;
	h = (struct cb_head *)(void *)((char *)p - CB_HEAD);
	if (h->maplen)
		munmap(h, h->maplen);
	else
		free(h);
}

/* cb_realloc_in - realloc for column buffers (p NULL: new), in huge pages
 * if huge (see cb_maplen); NULL if out of memory */
static void *cb_realloc_in(void *p, size_t n, bool huge)
{
	struct cb_head *h = p ? (struct cb_head *)(void *)((char *)p - CB_HEAD) : NULL;
	size_t old = h ? h->maplen : 0;

	if (n + CB_HEAD < n)
		return NULL;
	if (n < CB_MAP && !old) {	/* small: malloc's */
		h = realloc(h, n + CB_HEAD);
		if (!h)
			return NULL;
		h->maplen = 0;
		h->size = n;
		return (char *)h + CB_HEAD;
	}
	if (old) {
		void *m = mremap(h, old, cb_maplen(n, huge), MREMAP_MAYMOVE);

		if (m == MAP_FAILED)
			return NULL;
		h = m;
		cb_huge(m, cb_maplen(n, huge), huge);
	} else {
		void *m = mmap(NULL, cb_maplen(n, huge), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			return NULL;
		cb_huge(m, cb_maplen(n, huge), huge);
		if (p) {	/* from malloc's: what it held (less than n) */
			memcpy((char *)m + CB_HEAD, p, h->size);
			free(h);
		}
		h = m;
	}
	h->maplen = cb_maplen(n, huge);
	h->size = n;
	return (char *)h + CB_HEAD;
}

static void *cb_realloc(void *p, size_t n)
{
	return cb_realloc_in(p, n, false);
}

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
	struct ahead {		/* faulting the columns' pages ahead (rows_fill_one_pass) */
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

static void rows_free_bufs(struct rows *r)
{
	for (int i = 0; i < C__COUNT; i++) {
		cb_free(r->c[i].data);
		cb_free(r->c[i].mask);
		r->c[i].data = NULL;
		r->c[i].mask = NULL;
	}
	cb_free(r->cpus);
	r->cpus = NULL;
	r->n = r->cap = r->ncpus = r->capcpus = 0;
	r->huge = false;
}

static size_t col_elsize(const struct col *c, int i)
{
	if (cols[i].type == T_CAT)
		return c->cw ? c->cw : 1;
	return elsize(cols[i].type);
}

/* cat_widen - codes of rows [0, r->n) of c to nw bytes each, in place
 * (back to front: a wider code never overwrites one not yet moved) */
static void bufs_lock(struct rows *r)
{
	if (r->ah.on)
		pthread_mutex_lock(&r->ah.bufs);
}

static void bufs_unlock(struct rows *r)
{
	if (r->ah.on)
		pthread_mutex_unlock(&r->ah.bufs);
}

static int cat_widen(struct rows *r, struct col *c, uint8_t nw)
{
	uint8_t ow = c->cw ? c->cw : 1;
	void *p;

	bufs_lock(r);
	p = cb_realloc_in(c->data, (r->cap ? r->cap : 1) * nw, r->huge);
	bufs_unlock(r);

	if (!p)
		return -1;
	for (size_t i = r->n; i-- > 0;) {
		int32_t v = ow == 1 ? ((int8_t *)p)[i] : ow == 2 ? ((int16_t *)p)[i] : ((int32_t *)p)[i];

		if (nw == 2)
			((int16_t *)p)[i] = (int16_t)v;
		else
			((int32_t *)p)[i] = v;
	}
	c->data = p;
	c->cw = nw;
	return 0;
}

/* cat_put_wide - cat_put for a code that may need wider codes first */
static __attribute__((noinline)) int cat_put_wide(struct rows *r, struct col *c, size_t k, int32_t code)
{
	uint8_t w = c->cw ? c->cw : 1;

	/* as pandas chooses: int8 below 127 categories, int16 below 32767 */
	if ((w == 1 && code >= INT8_MAX - 1) || (w == 2 && code >= INT16_MAX - 1)) {
		if (cat_widen(r, c, code >= INT16_MAX - 1 ? 4 : 2))
			return -1;
		w = c->cw;
	}
	if (w == 2)
		((int16_t *)c->data)[k] = (int16_t)code;
	else
		((int32_t *)c->data)[k] = code;
	return 0;
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

static int rows_grow_locked(struct rows *r);

static int rows_grow(struct rows *r)
{
	int ret;

	bufs_lock(r);
	ret = rows_grow_locked(r);
	bufs_unlock(r);
	return ret;
}

static int rows_grow_locked(struct rows *r)
{
	/* the first time, room for the rows the report counted (or the chunk):
	 * one allocation; then 1.5x (large blocks grow by mremap, no copy) */
	size_t nc = r->cap ? r->cap + r->cap / 2 : 4096;

	if (!r->cap && r->hint) {
		nc = r->hint + 1;
		if (r->chunk && r->chunk < nc)
			nc = r->chunk;
	} else if (!r->cap && r->chunk && r->chunk < nc) {
		nc = r->chunk;
	}
	if (nc < 16)
		nc = 16;
	if (!r->huge) {	/* the frame's size at this room: huge pages from CB_HUGE_FRAME */
		size_t row = 0;

		for (int i = 0; i < C__COUNT; i++)
			if (r->c[i].on)
				row += col_elsize(&r->c[i], i) +
				       (cols[i].type == T_NI64 || cols[i].type == T_NBOOL);	/* the mask */
		r->huge = nc >= CB_HUGE_FRAME / (row ? row : 1);
	}
	for (int i = 0; i < C__COUNT; i++) {
		struct col *c = &r->c[i];
		void *p;

		if (!c->on)
			continue;
		if (i == C_TGT && !r->explode)	/* offsets into r->cpus, n + 1 of them */
			p = cb_realloc_in(c->data, (nc + 1) * elsize(T_TARGETS), r->huge);
		else
			p = cb_realloc_in(c->data, nc * col_elsize(c, i), r->huge);
		if (!p)
			return -1;
		c->data = p;
		if (cols[i].type == T_NI64 || cols[i].type == T_NBOOL) {
			p = cb_realloc_in(c->mask, nc, r->huge);
			if (!p)
				return -1;
			c->mask = p;
		}
	}
	r->cap = nc;
	return 0;
}

static int add_cpu(struct rows *r, int32_t cpu)
{
	if (r->ncpus == r->capcpus) {
		size_t nc = r->capcpus ? r->capcpus * 2 : 4096;
		int32_t *p = cb_realloc_in(r->cpus, nc * sizeof(*p), r->huge);

		if (!p)
			return -1;
		r->cpus = p;
		r->capcpus = nc;
	}
	r->cpus[r->ncpus++] = cpu;
	return 0;
}

/* "sym+0xoff" / "sym" of an address for a symbol column, by address */
static int32_t sym_code(struct rows *r, struct cat *c, uint64_t addr, const char *sym, uint64_t off,
			bool with_off)
{
	int32_t code = addr ? cat_addr_get(c, addr) : -1;
	char buf[512];

	if (code != -3)
		return code;
	if (!sym) {
		code = -1;
	} else if (with_off) {
		snprintf(buf, sizeof(buf), "%s+0x%llx", sym, (unsigned long long)off);
		code = cat_str(c, buf);
	} else {
		code = cat_str(c, sym);
	}
	if (code == -2 || cat_addr_put(c, addr, code))
		return -2;
	return code;
}

/* the stack as convert writes it: "sym+0xoff" frames joined by ';' */
static int32_t stack_code(struct rows *r, struct cat *c, const struct ipt_report_stack *st)
{
	int32_t code;
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	char buf[512];
	int ret = 0;

	if (!st)
		return -1;
	code = cat_addr_get(c, (uint64_t)(uintptr_t)st);
	if (code != -3)
		return code;
	for (uint32_t i = 0; i < st->nframes; i++) {
		ipt_trace_format_symbol(r->t, st->frames[i], true, buf, sizeof(buf));
		ret |= (i ? ipt_strbuf_addc(&sb, ';') : 0) | ipt_strbuf_adds(&sb, buf);
	}
	code = ret ? -2 : (sb.len ? cat_str(c, sb.buf) : -1);
	ipt_strbuf_free(&sb);
	if (code == -2 || cat_addr_put(c, (uint64_t)(uintptr_t)st, code))
		return -2;
	return code;
}

#define SET(i, T, v) do { if (r->c[i].on) ((T *)r->c[i].data)[k] = (v); } while (0)

static int put_match(struct rows *r, size_t k, const struct ipt_row_match *pt, const struct ipt_row_match *m);

/* one row into the buffers at index r->n; -1 out of memory */
static int put_row(struct rows *r, const struct ipt_ipi_row *row, const struct ipt_row_match *m)
{
	size_t k = r->n;
	const struct ipt_row_match *pt = m && m->known && (r->explode || row->ntargets == 1) ? m : NULL;
	struct sym_memo *mo = &r->memo;
	int32_t code;

	if (k == r->cap && rows_grow(r))
		return -1;
	SET(C_TS, int64_t, (int64_t)row->ts);
	SET(C_ID, int64_t, (int64_t)row->id);
	SET(C_SRC, int32_t, row->src_cpu);
	if (r->explode) {
		SET(C_TGT, int32_t, row->target_cpu);
	} else if (r->c[C_TGT].on) {
		int64_t *off = r->c[C_TGT].data;

		off[k] = (int64_t)r->ncpus;
		if (row->targets) {
			for (int cpu = ipt_cpuset_next(row->targets, 0); cpu >= 0;
			     cpu = ipt_cpuset_next(row->targets, (unsigned int)cpu + 1))
				if (add_cpu(r, cpu))
					return -1;
		} else if (add_cpu(r, row->target_cpu)) {
			return -1;
		}
		off[k + 1] = (int64_t)r->ncpus;
	}
	SET(C_NT, int32_t, (int32_t)row->ntargets);
	SET(C_PID, int32_t, row->pid);
#define CAT(i, expr) do { if (r->c[i].on) { code = (expr); if (code == -2 || \
		cat_put(r, &r->c[i], k, code)) return -1; } } while (0)
	CAT(C_COMM, cat_str_fixed(&r->c[C_COMM].cat, row->comm));
	CAT(C_EVENT, cat_str_fixed(&r->c[C_EVENT].cat, row->event));
	CAT(C_KIND, (int32_t)row->kind < IPT_KIND__COUNT ? (int32_t)row->kind : -1);
	SET(C_CS, uint64_t, row->callsite);
	SET(C_CB, uint64_t, row->callback);
	SET(C_FUNC, uint64_t, row->func);
	CAT(C_REASON, cat_str_fixed(&r->c[C_REASON].cat, row->reason));
	/* a symbol column's code follows from the address alone */
	if (!mo->ok || mo->callsite != row->callsite || mo->callback != row->callback ||
	    mo->func != row->func) {
		struct sym_memo nm = { row->callsite, row->callback, row->func, -1, -1, -1, -1, -1, true };

#define SYM(i, f, expr) do { if (r->c[i].on && (nm.f = (expr)) == -2) return -1; } while (0)
		SYM(C_CSSYM, cssym, sym_code(r, &r->c[C_CSSYM].cat, row->callsite, row->callsite_sym,
					     row->callsite_off, true));
		SYM(C_CBSYM, cbsym, sym_code(r, &r->c[C_CBSYM].cat, row->callback, row->callback_sym, 0,
					     false));
		SYM(C_FUNCSYM, funcsym, sym_code(r, &r->c[C_FUNCSYM].cat, row->func, row->func_sym, 0,
						 false));
		SYM(C_CSFUNC, csfunc, sym_code(r, &r->c[C_CSFUNC].cat, row->callsite, row->callsite_sym,
					       0, false));
		SYM(C_FNAME, fname, row->func ? sym_code(r, &r->c[C_FNAME].cat, row->func, row->func_sym,
							 0, false)
					      : sym_code(r, &r->c[C_FNAME].cat, row->callback,
							 row->callback_sym, 0, false));
#undef SYM
		*mo = nm;
	}
	CAT(C_CSSYM, mo->cssym);
	CAT(C_CBSYM, mo->cbsym);
	CAT(C_FUNCSYM, mo->funcsym);
	CAT(C_CSFUNC, mo->csfunc);
	CAT(C_FNAME, mo->fname);
	if (!r->match_later && put_match(r, k, pt, m))
		return -1;
	r->n++;
	return 0;
}

/* the matching columns of row k but the stack: what pt says (NULL: not known) */
static void put_match_values(struct rows *r, size_t k, const struct ipt_row_match *pt)
{
#define NUL(i, T, has, v) do { if (r->c[i].on) { ((T *)r->c[i].data)[k] = (has) ? (T)(v) : 0; \
		r->c[i].mask[k] = !(has); } } while (0)
	NUL(C_LAT, int64_t, pt && pt->has_latency, pt ? pt->latency_ns : 0);
	NUL(C_HND, int64_t, pt && pt->has_handler, pt ? pt->handler_ns : 0);
	NUL(C_HTS, int64_t, pt && pt->has_handler_ts, pt ? pt->handler_ts_ns : 0);
	NUL(C_MATCHED, uint8_t, pt, pt && pt->matched);
	NUL(C_COAL, uint8_t, pt && pt->matched, pt && pt->coalesced);	/* of a served send only */
	/* a fixed category of 4: never widened, so threads may fill it */
	if (r->c[C_UNM].on)
		((int8_t *)r->c[C_UNM].data)[k] = pt && !pt->matched && pt->unmatched != IPT_UNMATCHED_NONE ?
						 (int8_t)(pt->unmatched - 1) : -1;
}

/* the stack column of row k; -1 out of memory */
static int put_stack(struct rows *r, size_t k, const struct ipt_report_stack *st)
{
	int32_t code;

	CAT(C_STACK, stack_code(r, &r->c[C_STACK].cat, st));
	return 0;
}

/* the matching columns of row k: what pt says (NULL: not known); the
 * stack from m; -1 out of memory */
static int put_match(struct rows *r, size_t k, const struct ipt_row_match *pt, const struct ipt_row_match *m)
{
	put_match_values(r, k, pt);
	return put_stack(r, k, m ? m->stack : NULL);
}

static void rows_dealloc(struct rows *r)
{
	rows_free_bufs(r);
	for (int i = 0; i < C__COUNT; i++)
		cat_free(&r->c[i].cat);
	ipt_ipi_iter_free(r->it);
	ipt_report_free(r->rep);
	ipt_trace_close(r->t);
	free(r->filter);
	Py_TYPE(r)->tp_free((PyObject *)r);
}

/* run_report - the report whose row results fill the matching columns */
static struct ipt_report *run_report(struct rows *r, int threads)
{
	/* the counts and the row results: not the report's tables */
	struct ipt_report_opts ro = { .sz = sizeof(ro), .filter = r->filter, .row_results = true,
				      .threads = threads, .no_tables = true };

	return ipt_report_run(r->t, &ro);
}

/* report_first - the report before the rows (the row count known): for
 * chunks, one thread, or where decoders may not run side by side */
static int report_first(struct rows *r)
{
	r->deferred = false;
	r->rep = run_report(r, r->threads);
	if (!r->rep)
		return -1;
	/* every counted row comes once (one per send with !explode) */
	r->hint = (size_t)ipt_report_summary(r->rep)->ipis_counted;
	if (!r->explode && !r->filter)
		r->hint = (size_t)ipt_report_summary(r->rep)->send_events;
	if (r->explode && r->threads != 1 && ipt_ipi_iter_set_threads(r->it, r->threads))
		return -1;
	return 0;
}

/* open the trace and make the iterator; the report (match) now, or with
 * the rows when one next() takes them all (rows_fill_one_pass); GIL released */
static int rows_open(struct rows *r, const char *path, int threads, bool match)
{
	r->t = ipt_trace_open(path);
	if (!r->t)
		return -1;
	r->it = ipt_ipi_iter_new(r->t, r->filter);
	if (!r->it)
		return -1;
	r->threads = threads;
	if (match && r->explode) {
		r->deferred = true;	/* one pass for all rows, else report_first */
		return 0;
	}
	if (match)
		return report_first(r);
	if (r->explode && threads != 1 && ipt_ipi_iter_set_threads(r->it, threads))
		return -1;
	return 0;
}

static int rows_init(struct rows *r, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "filter", "explode", "threads", "columns", NULL };
	PyObject *path_obj = NULL, *columns = Py_None;
	const char *filter = NULL;
	int explode = 1, threads = 0, ret;
	bool match = false;

	if (r->t || r->busy) {
		PyErr_SetString(PyExc_RuntimeError, "ipitrace: reader already initialised");
		return -1;
	}
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|zpiO", kwlist, PyUnicode_FSConverter,
					 &path_obj, &filter, &explode, &threads, &columns))
		return -1;
	r->explode = explode;
	if (columns == Py_None) {
		for (int i = 0; i < C__COUNT; i++)
			r->c[i].on = true;
	} else {
		PyObject *seq = PySequence_Fast(columns, "columns: a list of column names");

		if (!seq) {
			Py_DECREF(path_obj);
			return -1;
		}
		for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(seq); j++) {
			PyObject *o = PySequence_Fast_GET_ITEM(seq, j);
			const char *s = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
			int i;

			if (!s) {
				if (!PyErr_Occurred())
					PyErr_SetString(PyExc_TypeError, "columns: names are str");
				Py_DECREF(seq);
				Py_DECREF(path_obj);
				return -1;
			}
			if (!explode && (!strcmp(s, "targets") || !strcmp(s, "cpumask")))
				s = "target_cpu";
			for (i = 0; i < C__COUNT && strcmp(cols[i].name, s); i++)
				;
			if (i == C__COUNT) {
				PyErr_Format(IptError, "columns: no column '%s'", s);
				Py_DECREF(seq);
				Py_DECREF(path_obj);
				return -1;
			}
			r->c[i].on = true;
		}
		Py_DECREF(seq);
	}
	for (int i = 0; i < C__COUNT; i++)
		if (r->c[i].on && cols[i].match)
			match = true;
	if (threads < 0) {
		PyErr_SetString(IptError, "threads: a number from 1 to 8 (None: as the library chooses)");
		Py_DECREF(path_obj);
		return -1;
	}
	threads = threads > 8 ? 8 : threads;	/* 0: as the library chooses */
	if (filter && !(r->filter = strdup(filter))) {
		Py_DECREF(path_obj);
		PyErr_NoMemory();
		return -1;
	}
	r->busy = true;
	Py_BEGIN_ALLOW_THREADS
	ret = rows_open(r, PyBytes_AS_STRING(path_obj), threads, match);
	if (ret)
		snprintf(r->err, sizeof(r->err), "%s", ipt_errmsg());
	Py_END_ALLOW_THREADS
	r->busy = false;
	Py_DECREF(path_obj);
	if (ret) {
		PyErr_SetString(IptError, r->err[0] ? r->err : "ipitrace: cannot open");
		return -1;
	}
	return 0;
}

static void free_buf(PyObject *cap)
{
	cb_free(PyCapsule_GetPointer(cap, "ipitrace.buf"));
}

/* a 1-D numpy array over buf (n elements of type), owning it; buf is taken
 * (a column buffer, freed on failure) */
static PyObject *wrap(void *buf, size_t n, int type)
{
	npy_intp dim = (npy_intp)n;
	PyObject *a, *cap;

	if (!buf)
		buf = cb_realloc(NULL, 1);
	if (!buf)
		return PyErr_NoMemory();
	a = PyArray_SimpleNewFromData(1, &dim, type, buf);
	if (!a) {
		cb_free(buf);
		return NULL;
	}
	cap = PyCapsule_New(buf, "ipitrace.buf", free_buf);
	if (!cap) {
		cb_free(buf);
		Py_DECREF(a);
		return NULL;
	}
	if (PyArray_SetBaseObject((PyArrayObject *)a, cap)) {
		Py_DECREF(a);
		return NULL;
	}
	return a;
}

static void *shrink(void *p, size_t bytes)
{
	void *q = cb_realloc(p, bytes ? bytes : 1);

	return q ? q : p;
}

static int npy_type(enum col_type t)
{
	switch (t) {
	case T_U64: return NPY_UINT64;
	case T_I64: case T_NI64: return NPY_INT64;
	case T_I32: case T_CAT: return NPY_INT32;
	case T_NBOOL: return NPY_BOOL;
	case T_TARGETS: return NPY_INT64;
	}
	return NPY_INT64;
}

static PyObject *fixed_cats(int which)
{
	int n = which == C_KIND ? IPT_KIND__COUNT : 4;
	PyObject *l = PyList_New(n);

	if (!l)
		return NULL;
	for (int i = 0; i < n; i++) {
		const char *s = which == C_KIND ? ipt_kind_name((enum ipt_ipi_kind)i)
						: ipt_unmatched_reason_name((enum ipt_unmatched_reason)(i + 1));
		PyObject *o = PyUnicode_FromString(s ? s : "?");

		if (!o) {
			Py_DECREF(l);
			return NULL;
		}
		PyList_SET_ITEM(l, i, o);
	}
	return l;
}

/* the buffers as a dict of columns; the buffers are handed over */
static PyObject *rows_take(struct rows *r)
{
	PyObject *d = PyDict_New(), *v = NULL;
	size_t n = r->n;

	if (!d)
		return NULL;
	for (int i = 0; i < C__COUNT; i++) {
		struct col *c = &r->c[i];
		enum col_type t = cols[i].type;

		v = NULL;

		if (!c->on)
			continue;
		if (r->forced[i]) {	/* kept for the join only */
			cb_free(c->data);
			c->data = NULL;
			continue;
		}
		if (i == C_TGT && !r->explode)
			t = T_TARGETS;
		if (t == T_TARGETS) {
			/* (offsets int64[n+1], cpus int32[]) */
			PyObject *off, *cp;

			if (!c->data && (c->data = cb_realloc(NULL, 8)))
				memset(c->data, 0, 8);
			if (!c->data)
				goto nomem;
			off = wrap(shrink(c->data, (n + 1) * 8), n + 1, NPY_INT64);
			c->data = NULL;
			cp = wrap(shrink(r->cpus, r->ncpus * 4), r->ncpus, NPY_INT32);
			r->cpus = NULL;
			if (off && cp)
				v = PyTuple_Pack(2, off, cp);
			Py_XDECREF(off);
			Py_XDECREF(cp);
			if (!v)
				goto fail;
			if (PyDict_SetItemString(d, "targets", v))
				goto fail_v;
			Py_DECREF(v);
			continue;
		}
		v = wrap(shrink(c->data, n * col_elsize(c, i)), n,
			 t == T_CAT ? (col_elsize(c, i) == 1 ? NPY_INT8 : col_elsize(c, i) == 2 ? NPY_INT16
							       : NPY_INT32) : npy_type(t));
		c->data = NULL;
		if (!v)
			goto fail;
		if (t == T_CAT) {
			PyObject *cats = (i == C_KIND || i == C_UNM) ? fixed_cats(i) : cat_list(&c->cat);
			PyObject *tu = cats ? PyTuple_Pack(2, v, cats) : NULL;

			Py_XDECREF(cats);
			Py_DECREF(v);
			if (!tu)
				goto fail;
			v = tu;
		} else if (t == T_NI64 || t == T_NBOOL) {
			PyObject *mk = wrap(shrink(c->mask, n), n, NPY_BOOL);
			PyObject *tu = mk ? PyTuple_Pack(2, v, mk) : NULL;

			c->mask = NULL;
			Py_XDECREF(mk);
			Py_DECREF(v);
			if (!tu)
				goto fail;
			v = tu;
		}
		if (PyDict_SetItemString(d, cols[i].name, v))
			goto fail_v;
		Py_DECREF(v);
	}
	rows_free_bufs(r);
	return d;
fail_v:
	Py_DECREF(v);
	goto fail;
nomem:
	PyErr_NoMemory();
fail:
	rows_free_bufs(r);
	Py_DECREF(d);
	return NULL;
}

/* decode up to max rows (0: all) into the buffers; GIL released.  0 done or
 * chunk full, -1 library error (r->err), -2 out of memory */
static int rows_fill(struct rows *r, size_t max)
{
	struct ipt_ipi_row row;
	struct ipt_row_match m;
	int rc;

	while (!max || r->n < max) {
		rc = ipt_ipi_next(r->it, &row);
		if (rc == 0) {
			/* the row results are no longer needed: memory back now */
			ipt_report_free(r->rep);
			r->rep = NULL;
			r->done = true;
			return 0;
		}
		if (rc < 0)
			goto err;
		/* the report is asked for every row, in the iterator's order */
		if (r->rep && ipt_report_row_match(r->rep, &row, &m))
			goto err;
		if (!r->explode) {
			if (r->have_last && row.id == r->last_id)
				continue;
			r->last_id = row.id;
			r->have_last = true;
		}
		if (put_row(r, &row, r->rep ? &m : NULL))
			return -2;
	}
	return 0;
err:
	snprintf(r->err, sizeof(r->err), "%s", ipt_errmsg());
	if (!r->err[0])
		snprintf(r->err, sizeof(r->err), "ipitrace: decode error");
	r->done = true;
	return -1;
}

/* the row of index k into row, as the join needs it (the columns it
 * reads; the other fields stay as they are: zeroed once, not a whole
 * 136-byte row zeroed for each of millions) */
static void join_row(const struct rows *r, size_t k, struct ipt_ipi_row *row)
{
	row->ts = (uint64_t)((int64_t *)r->c[C_TS].data)[k];
	row->id = (uint64_t)((int64_t *)r->c[C_ID].data)[k];
	row->src_cpu = ((int32_t *)r->c[C_SRC].data)[k];
	row->target_cpu = ((int32_t *)r->c[C_TGT].data)[k];
}

/* one thread's share of the join: rows [lo, hi), all but the stacks */
struct join_part {
	struct rows *r;
	struct ipt_report *rep;
	size_t lo, hi;
	bool stacks, failed;
	pthread_t th;
};

/*
 * The join goes JOIN_DROP rows at a time: the matching columns' pages for
 * them asked for at once (the pass's thread ahead left them: the results
 * and those columns were never held together), then the results of those
 * rows given back, the columns being twice their size (a 565k-row frame's
 * peak went from 1.48x its size to 1.33x, a 3.3M-row one's from 1.27x to
 * 1.11x).  Not the results of rows with a stack, which the stack pass
 * after reads again.  128k rows is 2 MiB of results, a huge page, and the
 * threads' shares start at a multiple of it: each window given back is
 * whole huge pages, which the kernel hands straight to the next window's
 * columns, instead of split pages while the columns take fresh ones (on
 * this VM the host zeroes memory given back to it again: about 1 ns a
 * byte).  rows() of 3.3M rows, interleaved, 64k unaligned against 128k
 * aligned: best 0.853 -> 0.783 s and 0.786 -> 0.762 s, medians 0.968 ->
 * 0.851 s and 0.835 -> 0.778 s.
 */
#define JOIN_DROP (1u << 17)

static void ahead_populate(struct rows *r, size_t from, size_t to, bool match);

static void *join_part_run(void *arg)
{
	struct join_part *jp = arg;
	struct rows *r = jp->r;
	size_t from = jp->lo;		/* rows since the last drop */
	bool stack_since = false;	/* ... one of which has a stack */
	struct ipt_ipi_row row = { 0 };

	for (size_t k = jp->lo; k < jp->hi; k++) {
		struct ipt_row_match m;

		join_row(r, k, &row);
		if (k == from)
			ahead_populate(r, from, k + JOIN_DROP < jp->hi ? k + JOIN_DROP : jp->hi, true);
		if (ipt_report_row_match_nth(jp->rep, k, &row, &m)) {
			jp->failed = true;
			break;
		}
		put_match_values(r, k, m.known ? &m : NULL);
		if (m.stack)
			jp->stacks = stack_since = true;
		else if (r->c[C_STACK].on)
			((int8_t *)r->c[C_STACK].data)[k] = -1;	/* 1-byte codes until a stack */
		if (k + 1 - from >= JOIN_DROP || k + 1 == jp->hi) {
			if (!stack_since)
				ipt_report_row_results_drop(jp->rep, from, k + 1);
			from = k + 1;
			stack_since = false;
		}
	}
	return NULL;
}

/* join_threads - how many threads share the join of n rows */
static int join_threads(const struct rows *r)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = r->n / (1u << 18);	/* a thread for each 256k rows */

	if (r->threads == 1 || cpus < 2 || n < 2)
		return 1;
	if (n > (size_t)cpus)
		n = (size_t)cpus;
	return n > 4 ? 4 : (int)n;
}

/*
 * join_matches - the report's row results into the matching columns, row
 * k from counted row k (the rows came from the report's own pass), in
 * parallel: the results are only read, and each thread writes its own
 * rows.  The stacks' category grows as it goes, so it is filled after, by
 * this thread, if there are any.  -1 library error (r->err), -2 out of
 * memory.
 */
static int join_matches(struct rows *r, struct ipt_report *rep)
{
	struct join_part parts[4];
	struct ipt_ipi_row row = { 0 };
	int nt = join_threads(r), started = 0;
	bool stacks = false, failed = false;

	for (int i = 0; i < nt; i++) {
		/* shares from a multiple of JOIN_DROP rows (see there) */
		parts[i] = (struct join_part){
			.r = r, .rep = rep,
			.lo = r->n * (size_t)i / (size_t)nt / JOIN_DROP * JOIN_DROP,
			.hi = r->n * (size_t)(i + 1) / (size_t)nt / JOIN_DROP * JOIN_DROP,
		};
		if (i == nt - 1 || pthread_create(&parts[i].th, NULL, join_part_run, &parts[i]))
			break;
		started++;
	}
	/* this thread takes what no thread was started for */
	parts[started].hi = r->n;
	join_part_run(&parts[started]);
	for (int i = 0; i <= started; i++) {
		if (i < started)
			pthread_join(parts[i].th, NULL);
		stacks |= parts[i].stacks;
		failed |= parts[i].failed;
	}
	if (failed) {
		snprintf(r->err, sizeof(r->err), "%s", ipt_errmsg());
		return -1;
	}
	for (size_t k = 0; stacks && r->c[C_STACK].on && k < r->n; k++) {
		struct ipt_row_match m;

		join_row(r, k, &row);
		if (ipt_report_row_match_nth(rep, k, &row, &m)) {
			snprintf(r->err, sizeof(r->err), "%s", ipt_errmsg());
			return -1;
		}
		if (put_stack(r, k, m.stack))
			return -2;
	}
	return 0;
}

/*
 * Faulting ahead.  On a VM a page fault is dear (3 us for 4 KiB, about
 * 1 ms to zero a 2 MiB huge page at worst), and the thread that fills the
 * columns is the one the report's pass waits on: a quarter of its time
 * went to faulting the columns in.  A thread beside it asks the kernel
 * for their pages (MADV_POPULATE_WRITE: the fault without the write) a
 * window of rows ahead of the filling, on the core the report's lanes
 * leave idle.  It holds ah.bufs while it populates, and the buffers move
 * (rows_grow, cat_widen) only under it.  Pages it populates hold zeros,
 * as a fault would give them, so a row filled before it gets there loses
 * nothing.  The window is a 32nd of the rows so far, up to 256k rows
 * (25 MB of a full frame): at most that is populated past the last row,
 * in vain (a quarter took a 330k-row frame's peak memory past 1.5x its
 * size; a 32nd adds 1 MiB to it).  It runs as SCHED_IDLE: on a machine
 * with as many busy threads as CPUs it took the filling thread's CPU now
 * and then (rows() of 3.3M rows on 2 CPUs, interleaved: median 1.005 s ->
 * 0.908 s, best 0.885 s -> 0.874 s; in a later run of 8 rounds the same,
 * 0.853 s against 0.848 s, and nice 19 worse, 0.992 s: the host's noise
 * moves medians as much).
 */
#define AHEAD_START (1u << 15)	/* rows before the thread starts */
#define AHEAD_WINDOW (1u << 18)	/* rows populated ahead of the filling, at most */
#define AHEAD_STEP (1u << 16)	/* rows populated at once, at most */

/* ahead_window - rows populated ahead of row n: a 32nd of n (so that at
 * most that is populated in vain), up to AHEAD_WINDOW */
static size_t ahead_window(size_t n)
{
	return n / 32 < AHEAD_WINDOW ? n / 32 : AHEAD_WINDOW;
}

/* ahead_populate - the pages of rows [from, to) of the columns the pass
 * fills (match false), or of those the join fills after (true) */
static void ahead_populate(struct rows *r, size_t from, size_t to, bool match)
{
#ifdef MADV_POPULATE_WRITE
	for (int i = 0; i < C__COUNT; i++) {
		const struct col *c = &r->c[i];
		size_t es = i == C_TGT && !r->explode ? 8 : col_elsize(c, i);

		if (cols[i].match != match)
			continue;
		for (int m = 0; m < 2; m++) {
			char *d = m ? c->mask : c->data;
			struct cb_head *h;
			uintptr_t a, e;

			if (!c->on || !d)
				continue;
			if (m)
				es = 1;
			h = (struct cb_head *)(void *)(d - CB_HEAD);
			if (!h->maplen)
				continue;
			a = (uintptr_t)(d + from * es) & ~(uintptr_t)4095;
			e = ((uintptr_t)(d + to * es) + 4095) & ~(uintptr_t)4095;
			if (e > (uintptr_t)h + h->maplen)
				e = (uintptr_t)h + h->maplen;
			if (e > a)
				(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);	/* a hint */
		}
	}
#else
	(void)r;
	(void)from;
	(void)to;
	(void)match;
#endif
}

static void *ahead_run(void *arg)
{
	struct rows *r = arg;
	struct ahead *ah = &r->ah;

#ifdef SCHED_IDLE
	{
		/* only what the decoding and the filling leave: a hint to
		 * the kernel, the filling faults its own pages if this
		 * thread falls behind */
		struct sched_param sp = { 0 };

		(void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	}
#endif
	for (;;) {
		size_t to;

		pthread_mutex_lock(&ah->mu);
		while (!ah->stop && ah->want <= ah->done)
			pthread_cond_wait(&ah->cv, &ah->mu);
		to = ah->want;
		pthread_mutex_unlock(&ah->mu);
		if (ah->stop)
			break;
		while (ah->done < to && !ah->stop) {
			size_t end = to - ah->done > AHEAD_STEP ? ah->done + AHEAD_STEP : to;

			pthread_mutex_lock(&ah->bufs);
			ahead_populate(r, ah->done, end, false);
			pthread_mutex_unlock(&ah->bufs);
			ah->done = end;
		}
	}
	return NULL;
}

/* ahead_ask - the filling is at row r->n: the window ahead of it asked for
 * (the thread started the first time) */
static void ahead_ask(struct rows *r)
{
	struct ahead *ah = &r->ah;
	size_t want = r->n + ahead_window(r->n) < r->cap ? r->n + ahead_window(r->n) : r->cap;

	/* asked again a quarter window on (at least 4096 rows: a wake-up each) */
	ah->next = r->n + (ahead_window(r->n) / 4 > 4096 ? ahead_window(r->n) / 4 : 4096);
	if (!ah->on) {
		ah->want = ah->done = r->n;
		ah->stop = false;
		if (pthread_mutex_init(&ah->mu, NULL) || pthread_mutex_init(&ah->bufs, NULL) ||
		    pthread_cond_init(&ah->cv, NULL)) {
			ah->next = SIZE_MAX;	/* not to be had: the filling faults its own */
			return;
		}
		ah->on = true;
		if (pthread_create(&ah->th, NULL, ahead_run, r)) {
			ah->on = false;
			ah->next = SIZE_MAX;
			return;
		}
	}
	pthread_mutex_lock(&ah->mu);
	if (want > ah->want) {
		ah->want = want;
		pthread_cond_signal(&ah->cv);
	}
	pthread_mutex_unlock(&ah->mu);
}

/* ahead_stop - the thread stopped and gone (if it was started) */
static void ahead_stop(struct rows *r)
{
	struct ahead *ah = &r->ah;

	if (ah->on) {
		pthread_mutex_lock(&ah->mu);
		ah->stop = true;
		pthread_cond_signal(&ah->cv);
		pthread_mutex_unlock(&ah->mu);
		pthread_join(ah->th, NULL);
		pthread_mutex_destroy(&ah->mu);
		pthread_mutex_destroy(&ah->bufs);
		pthread_cond_destroy(&ah->cv);
		ah->on = false;
	}
	ah->next = 0;
}

/* a counted row from the report's pass (rows_fill_one_pass) */
static int take_row(void *ctx, const struct ipt_ipi_row *row)
{
	struct rows *r = ctx;

	if (put_row(r, row, NULL)) {
		r->nomem = true;
		return -1;
	}
	if (r->n >= r->ah.next)
		ahead_ask(r);
	return 0;
}

#define ONE_PASS_ROOM (1u << 16)	/* rows_fill_one_pass's first room, in rows */

/*
 * rows_fill_one_pass - every row at once, from one decoding pass: the
 * report (its threads decoding the CPUs' streams) hands each counted row
 * to take_row in order, and its row results then fill the matching
 * columns.  The join needs ts, id, src_cpu and target_cpu: kept for it
 * if not asked for.  GIL released; as rows_fill returns.
 */
static int rows_fill_one_pass(struct rows *r)
{
	static const int join[] = { C_TS, C_ID, C_SRC, C_TGT };
	struct ipt_report_opts ro = { .sz = sizeof(ro), .filter = r->filter, .row_results = true,
				      .threads = r->threads, .no_tables = true,
				      .on_row = take_row, .on_row_ctx = r };
	struct ipt_report *rep;
	int rc;

	r->deferred = false;
	r->done = true;
	for (size_t j = 0; j < sizeof(join) / sizeof(join[0]); j++)
		if (!r->c[join[j]].on)
			r->c[join[j]].on = r->forced[join[j]] = true;
	r->match_later = true;
	r->ah.next = AHEAD_START;
	/* the count is not known before the pass: room for 64k rows to
	 * start with, so that the wide columns are mappings of their own
	 * from the first row (room not written costs nothing) instead of
	 * malloc blocks copied into one at 256 KiB, the copy faulting its
	 * pages on this thread (about 1900 faults; rows() of 3.3M rows,
	 * interleaved: best 0.838 -> 0.819 s and 0.871 -> 0.813 s) */
	if (!r->hint)
		r->hint = ONE_PASS_ROOM - 1;
	rep = ipt_report_run(r->t, &ro);
	ahead_stop(r);
	r->match_later = false;
	if (!rep) {
		if (r->nomem)
			return -2;
		snprintf(r->err, sizeof(r->err), "%s", ipt_errmsg());
		return -1;
	}
	rc = join_matches(r, rep);
	ipt_report_free(rep);
	return rc;
}

static PyObject *rows_next(struct rows *r, PyObject *args)
{
	Py_ssize_t max = 0;
	int rc;

	if (!PyArg_ParseTuple(args, "|n", &max))
		return NULL;
	if (!r->it) {
		PyErr_SetString(IptError, "ipitrace: reader not open");
		return NULL;
	}
	if (r->busy) {
		PyErr_SetString(PyExc_RuntimeError, "ipitrace: reader in use by another thread");
		return NULL;
	}
	if (r->done)
		Py_RETURN_NONE;
	r->busy = true;
	r->chunk = max > 0 ? (size_t)max : 0;
	Py_BEGIN_ALLOW_THREADS
	if (r->deferred && !r->chunk) {
		rc = rows_fill_one_pass(r);
	} else if (r->deferred && report_first(r)) {
		snprintf(r->err, sizeof(r->err), "%s", ipt_errmsg());
		r->done = true;
		rc = -1;
	} else {
		rc = rows_fill(r, r->chunk);
	}
	Py_END_ALLOW_THREADS
	r->busy = false;
	if (rc == -1) {
		rows_free_bufs(r);
		PyErr_SetString(IptError, r->err);
		return NULL;
	}
	if (rc == -2) {
		rows_free_bufs(r);
		return PyErr_NoMemory();
	}
	if (!r->n && r->done)
		Py_RETURN_NONE;
	return rows_take(r);
}

static PyObject *rows_ts_in_ns(struct rows *r, PyObject *unused)
{
	if (!r->t)
		Py_RETURN_NONE;
	return PyBool_FromLong(ipt_trace_ts_in_ns(r->t));
}

static PyMethodDef rows_methods[] = {
	{ "next", (PyCFunction)rows_next, METH_VARARGS, "next(n=0): a dict of up to n rows' columns (0: all), None at the end" },
	{ "ts_in_ns", (PyCFunction)rows_ts_in_ns, METH_NOARGS, "timestamps are ns" },
	{ NULL, NULL, 0, NULL },
};

static PyTypeObject RowsType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "ipitrace._ext.Rows",
	.tp_basicsize = sizeof(struct rows),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Rows(path, filter=None, explode=True, threads=0, columns=None): a reader of IPI rows",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)rows_init,
	.tp_dealloc = (destructor)rows_dealloc,
	.tp_methods = rows_methods,
};

/* ------------------------------------------------------------------ */
/* small builders for dicts of columns (report, events)                */
/* ------------------------------------------------------------------ */

/* d[key].append(v), the list created on first use; v is stolen */
static int col_append(PyObject *d, const char *key, PyObject *v)
{
	PyObject *l;
	int ret;

	if (!v)
		return -1;
	l = PyDict_GetItemString(d, key);
	if (!l) {
		l = PyList_New(0);
		if (!l || PyDict_SetItemString(d, key, l)) {
			Py_XDECREF(l);
			Py_DECREF(v);
			return -1;
		}
		Py_DECREF(l);
	}
	ret = PyList_Append(l, v);
	Py_DECREF(v);
	return ret;
}

static int dset(PyObject *d, const char *key, PyObject *v)
{
	int ret;

	if (!v)
		return -1;
	ret = PyDict_SetItemString(d, key, v);
	Py_DECREF(v);
	return ret;
}

static PyObject *str_or_none(const char *s)
{
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "surrogateescape");
}

static PyObject *sym_obj(struct ipt_trace *t, uint64_t addr, bool with_off)
{
	uint64_t off;
	const char *s = addr ? ipt_trace_symbol(t, addr, &off) : NULL;
	char b[512];

	if (!s || !with_off)
		return str_or_none(s);
	snprintf(b, sizeof(b), "%s+0x%llx", s, (unsigned long long)off);
	return str_or_none(b);
}

#define U64(x) PyLong_FromUnsignedLongLong((unsigned long long)(x))
#define I64(x) PyLong_FromLongLong((long long)(x))

/* a dict of a distribution's figures, or None when empty */
static PyObject *dist_obj(const struct ipt_dist *d, bool ns)
{
	PyObject *o;

	if (!ns || !ipt_dist_count(d))
		Py_RETURN_NONE;
	o = PyDict_New();
	if (!o)
		return NULL;
	if (dset(o, "count", U64(ipt_dist_count(d))) || dset(o, "min_ns", U64(ipt_dist_min(d))) ||
	    dset(o, "p50_ns", U64(ipt_dist_quantile(d, 0.5))) ||
	    dset(o, "p99_ns", U64(ipt_dist_quantile(d, 0.99))) ||
	    dset(o, "max_ns", U64(ipt_dist_max(d))) || dset(o, "sum_ns", U64(ipt_dist_sum(d)))) {
		Py_DECREF(o);
		return NULL;
	}
	return o;
}

/* the tables of a report as dicts of lists (columns) */
static int report_tables(struct ipt_trace *t, struct ipt_report *r, enum ipt_group_by by, PyObject *out)
{
	const struct ipt_report_summary *s = ipt_report_summary(r);
	bool ns = ipt_trace_ts_in_ns(t);
	PyObject *sum = PyDict_New(), *pc = PyDict_New(), *snd = PyDict_New(), *pr = PyDict_New();
	PyObject *mx = PyDict_New(), *gr = PyDict_New(), *kinds = PyDict_New(), *lat = PyDict_New();
	size_t n;
	int ret = -1;

	if (!sum || !pc || !snd || !pr || !mx || !gr || !kinds || !lat)
		goto out;
	if (dset(sum, "file", str_or_none(ipt_trace_path(t))) ||
	    dset(sum, "clock", str_or_none(ipt_trace_clock(t))) ||
	    dset(sum, "kernel", str_or_none(ipt_trace_uname(t))) ||
	    dset(sum, "time_unit", str_or_none(ipt_trace_time_unit(t))) ||
	    dset(sum, "cpus", I64(s->ncpus)) || dset(sum, "first_ts", U64(s->first_ts)) ||
	    dset(sum, "last_ts", U64(s->last_ts)) || dset(sum, "duration_s", PyFloat_FromDouble(s->duration_s)) ||
	    dset(sum, "events", U64(s->events)) || dset(sum, "send_events", U64(s->send_events)) ||
	    dset(sum, "ipis", U64(s->ipis)) || dset(sum, "ipis_counted", U64(s->ipis_counted)) ||
	    dset(sum, "filtered", PyBool_FromLong(s->filtered)) ||
	    dset(sum, "csd_queued", U64(s->csd_queued)) || dset(sum, "csd_with_ipi", U64(s->csd_with_ipi)) ||
	    dset(sum, "csd_without_ipi", U64(s->csd_without_ipi)) ||
	    dset(sum, "cross_cpu_latency", PyBool_FromLong(s->cross_cpu_latency)) ||
	    dset(sum, "cross_cpu_latency_missing_because", str_or_none(s->cross_cpu_latency ? NULL :
									s->cross_cpu_missing_because)) ||
	    dset(sum, "receive_events", PyBool_FromLong(s->receive_events)) ||
	    dset(sum, "remote", U64(s->remote)) || dset(sum, "remote_matched", U64(s->remote_matched)) ||
	    dset(sum, "handlers", U64(s->handlers)) ||
	    dset(sum, "handlers_unattributed", U64(s->handlers_unattributed)) ||
	    dset(sum, "coalesced", U64(s->coalesced)) || dset(sum, "csd_runs", U64(s->csd_runs)) ||
	    dset(sum, "unmatched_trace_ended", U64(s->unmatched_trace_ended)) ||
	    dset(sum, "unmatched_no_receive_events", U64(s->unmatched_no_receive_events)) ||
	    dset(sum, "unmatched_lost_events", U64(s->unmatched_lost_events)) ||
	    dset(sum, "unmatched_no_handler", U64(s->unmatched_no_handler)) ||
	    dset(sum, "csd_set_aside", U64(s->csd_set_aside)))
		goto out;
	for (int k = 0; k < IPT_KIND__COUNT; k++)
		if (dset(kinds, ipt_kind_name((enum ipt_ipi_kind)k), U64(s->kinds[k])))
			goto out;
	if (PyDict_SetItemString(sum, "kinds", kinds))
		goto out;
	for (int c = 0; c < s->ncpus; c++) {
		const struct ipt_report_cpu *cp = ipt_report_cpu(r, c);
		PyObject *row;

		if (!cp)
			continue;
		if (col_append(pc, "cpu", I64(c)) || col_append(pc, "ipis", U64(cp->ipis)) ||
		    col_append(pc, "sent", U64(cp->sent)) || col_append(pc, "remote", U64(cp->remote)) ||
		    col_append(pc, "matched", U64(cp->matched)) ||
		    col_append(pc, "remote_matched", U64(cp->remote_matched)) ||
		    col_append(pc, "coalesced", U64(cp->coalesced)) ||
		    col_append(pc, "handlers", U64(cp->handlers)) ||
		    col_append(pc, "handlers_unattributed", U64(cp->handlers_unattributed)) ||
		    col_append(pc, "csd_runs", U64(cp->csd_runs)) || col_append(pc, "lost", U64(cp->lost)) ||
		    col_append(pc, "lost_unknown", PyBool_FromLong(cp->lost_unknown)) ||
		    col_append(pc, "with_stack", U64(cp->with_stack)) ||
		    col_append(pc, "recorder_ipis", U64(cp->recorder_ipis)))
			goto out;
		for (int k = 0; k < IPT_KIND__COUNT; k++)
			if (col_append(pc, ipt_kind_name((enum ipt_ipi_kind)k), U64(cp->by_kind[k])))
				goto out;
		row = PyDict_New();
		if (!row)
			goto out;
		if (dset(row, "latency", dist_obj(cp->latency, ns)) ||
		    dset(row, "handler", dist_obj(cp->handler, ns)) ||
		    dset(row, "csd_queue_to_run", dist_obj(cp->csd_queue_to_run, ns)) ||
		    dset(row, "csd_run", dist_obj(cp->csd_run, ns))) {
			Py_DECREF(row);
			goto out;
		}
		if (col_append(lat, "cpu", I64(c)) || col_append(lat, "dists", row))
			goto out;
	}
	{
		const struct ipt_report_sender *v = ipt_report_senders(r, &n);

		for (size_t i = 0; i < n; i++)
			if (col_append(snd, "target_cpu", I64(v[i].target_cpu)) ||
			    col_append(snd, "pid", I64(v[i].pid)) ||
			    col_append(snd, "comm", str_or_none(ipt_trace_comm(t, v[i].pid))) ||
			    col_append(snd, "src_cpu", I64(v[i].src_cpu)) ||
			    col_append(snd, "count", U64(v[i].count)))
				goto out;
	}
	{
		const struct ipt_report_pair *v = ipt_report_pairs(r, &n);

		for (size_t i = 0; i < n; i++)
			if (col_append(pr, "target_cpu", I64(v[i].target_cpu)) ||
			    col_append(pr, "callsite", U64(v[i].callsite)) ||
			    col_append(pr, "callsite_sym", sym_obj(t, v[i].callsite, true)) ||
			    col_append(pr, "function", U64(v[i].function)) ||
			    col_append(pr, "function_sym", sym_obj(t, v[i].function, false)) ||
			    col_append(pr, "count", U64(v[i].count)))
				goto out;
	}
	{
		const struct ipt_report_cell *v = ipt_report_matrix(r, &n);

		for (size_t i = 0; i < n; i++)
			if (col_append(mx, "src_cpu", I64(v[i].src_cpu)) ||
			    col_append(mx, "target_cpu", I64(v[i].target_cpu)) ||
			    col_append(mx, "count", U64(v[i].count)))
				goto out;
	}
	for (int c = -1; c < s->ncpus; c++) {
		const struct ipt_report_group *g = ipt_report_groups(r, by, c, IPT_SORT_COUNT, &n);
		char buf[512];

		if (!g) {
			raise_ipt(NULL);
			goto out;
		}
		for (size_t i = 0; i < n; i++) {
			PyObject *key;

			switch (by) {
			case IPT_BY_COMM: key = str_or_none(g[i].comm); break;
			case IPT_BY_PID: key = I64(g[i].pid); break;
			case IPT_BY_TASK: key = Py_BuildValue("(isi)", g[i].pid, g[i].comm ? g[i].comm : "",
							     g[i].src_cpu); break;
			case IPT_BY_CPU: key = I64(g[i].src_cpu); break;
			case IPT_BY_CALLSITE: key = sym_obj(t, g[i].addr, false); break;
			case IPT_BY_FUNCTION: key = sym_obj(t, g[i].addr, false); break;
			case IPT_BY_KIND: key = str_or_none(ipt_kind_name((enum ipt_ipi_kind)g[i].kind)); break;
			case IPT_BY_STACK: {
				struct ipt_strbuf sb = IPT_STRBUF_INIT;
				const struct ipt_report_stack *st = g[i].stack;

				for (uint32_t f = 0; st && f < st->nframes; f++) {
					ipt_trace_format_symbol(t, st->frames[f], true, buf, sizeof(buf));
					if (f)
						ipt_strbuf_addc(&sb, ';');
					ipt_strbuf_adds(&sb, buf);
				}
				key = st ? str_or_none(ipt_strbuf_str(&sb)) : str_or_none(NULL);
				ipt_strbuf_free(&sb);
				break;
			}
			default: key = str_or_none(NULL); break;
			}
			if (col_append(gr, "target_cpu", I64(c)) ||
			    col_append(gr, ipt_group_by_name(by), key) ||
			    col_append(gr, "addr", U64(g[i].addr)) ||
			    col_append(gr, "count", U64(g[i].count)))
				goto out;
		}
	}
	if (PyDict_SetItemString(out, "summary", sum) || PyDict_SetItemString(out, "per_cpu", pc) ||
	    PyDict_SetItemString(out, "dists", lat) || PyDict_SetItemString(out, "senders", snd) ||
	    PyDict_SetItemString(out, "pairs", pr) || PyDict_SetItemString(out, "matrix", mx) ||
	    PyDict_SetItemString(out, "groups", gr))
		goto out;
	ret = 0;
out:
	Py_XDECREF(sum);
	Py_XDECREF(pc);
	Py_XDECREF(snd);
	Py_XDECREF(pr);
	Py_XDECREF(mx);
	Py_XDECREF(gr);
	Py_XDECREF(kinds);
	Py_XDECREF(lat);
	return ret;
}

static PyObject *py_report(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "filter", "by", "threads", "assume_synced_clock", NULL };
	PyObject *path_obj = NULL, *out = NULL;
	const char *filter = NULL, *byname = "comm";
	int threads = 0, synced = 0, by;
	struct ipt_trace *t = NULL;
	struct ipt_report *r = NULL;
	char err[512] = "";

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|zsip", kwlist, PyUnicode_FSConverter, &path_obj,
					 &filter, &byname, &threads, &synced))
		return NULL;
	by = ipt_group_by_from_name(byname);
	if (by < 0) {
		Py_DECREF(path_obj);
		return PyErr_Format(IptError, "by: no key '%s' (comm, pid, task, cpu, callsite, function, "
				    "kind, stack)", byname);
	}
	if (threads < 0)
		threads = 0;	/* the library's choice: the online CPUs, one for a small trace */
	Py_BEGIN_ALLOW_THREADS
	t = ipt_trace_open(PyBytes_AS_STRING(path_obj));
	if (t) {
		struct ipt_report_opts ro = { .sz = sizeof(ro), .filter = filter, .threads = threads,
					      .assume_synced_clock = synced };

		r = ipt_report_run(t, &ro);
	}
	if (!r)
		snprintf(err, sizeof(err), "%s", ipt_errmsg());
	Py_END_ALLOW_THREADS
	Py_DECREF(path_obj);
	if (!r) {
		ipt_trace_close(t);
		PyErr_SetString(IptError, err[0] ? err : "ipitrace: report failed");
		return NULL;
	}
	out = PyDict_New();
	if (out && report_tables(t, r, (enum ipt_group_by)by, out)) {
		Py_CLEAR(out);
	}
	ipt_report_free(r);
	ipt_trace_close(t);
	return out;
}

/* ------------------------------------------------------------------ */
/* events(path, name)                                                  */
/* ------------------------------------------------------------------ */

/* a CPU set as a Python int (bit i = CPU i) */
static PyObject *mask_int(const struct ipt_cpuset *s)
{
	int last = ipt_cpuset_last(s);
	size_t nb = last < 0 ? 1 : (size_t)last / 8 + 1;
	unsigned char small[64], *b = nb <= sizeof(small) ? small : calloc(nb, 1);
	PyObject *o;

	if (!b)
		return PyErr_NoMemory();
	memset(b, 0, nb);
	for (int c = ipt_cpuset_next(s, 0); c >= 0; c = ipt_cpuset_next(s, (unsigned int)c + 1))
		b[c / 8] |= (unsigned char)(1u << (c % 8));
	o = _PyLong_FromByteArray(b, nb, 1, 0);
	if (b != small)
		free(b);
	return o;
}

static PyObject *field_obj(struct ipt_trace *t, const struct ipt_record *rec, const struct ipt_field *f,
			   struct ipt_cpuset *set)
{
	unsigned int fl = ipt_field_flags(f);
	const uint8_t *data;
	uint32_t len;
	uint64_t v;

	if (fl & IPT_FIELD_CPUMASK) {
		if (ipt_field_cpuset(t, rec, f, set))
			Py_RETURN_NONE;
		return mask_int(set);
	}
	if (fl & IPT_FIELD_STRING) {
		if (ipt_field_bytes(t, rec, f, &data, &len))
			Py_RETURN_NONE;
		return PyUnicode_DecodeUTF8((const char *)data, (Py_ssize_t)strnlen((const char *)data, len),
					    "surrogateescape");
	}
	if (fl & (IPT_FIELD_ARRAY | IPT_FIELD_DYNAMIC | IPT_FIELD_RELATIVE) || ipt_field_size(f) > 8) {
		if (ipt_field_bytes(t, rec, f, &data, &len))
			Py_RETURN_NONE;
		return PyBytes_FromStringAndSize((const char *)data, len);
	}
	if (ipt_field_u64(t, rec, f, &v))
		Py_RETURN_NONE;
	if (fl & IPT_FIELD_SIGNED)
		return I64((int64_t)v);
	return U64(v);
}

static PyObject *py_events(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "name", "filter", NULL };
	PyObject *path_obj = NULL, *d = NULL;
	const char *name, *filter = NULL, *colon;
	struct ipt_trace *t = NULL;
	const struct ipt_event *ev = NULL;
	struct ipt_event_filter *ef = NULL;
	struct ipt_iter *it = NULL;
	struct ipt_record rec;
	struct ipt_cpuset set = IPT_CPUSET_INIT;
	char err[512] = "";
	int rc, nf;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&s|z", kwlist, PyUnicode_FSConverter, &path_obj,
					 &name, &filter))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	t = ipt_trace_open(PyBytes_AS_STRING(path_obj));
	if (!t)
		snprintf(err, sizeof(err), "%s", ipt_errmsg());
	Py_END_ALLOW_THREADS
	Py_DECREF(path_obj);
	if (!t)
		return PyErr_SetString(IptError, err), NULL;
	colon = strchr(name, ':');
	if (colon) {
		char sys[128];

		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - name), name);
		ev = ipt_trace_find_event(t, sys, colon + 1);
	} else {
		for (int i = 0; i < ipt_trace_nevents(t) && !ev; i++)
			if (!strcmp(ipt_event_name(ipt_trace_event_at(t, i)), name))
				ev = ipt_trace_event_at(t, i);
	}
	if (!ev) {
		PyErr_Format(IptError, "%s: no event '%s' in this trace", ipt_trace_path(t), name);
		goto out;
	}
	if (filter && *filter) {
		ef = ipt_event_filter_new(t, filter);
		if (!ef) {
			raise_ipt(NULL);
			goto out;
		}
	}
	it = ipt_iter_new(t, NULL);
	if (!it) {
		raise_ipt(NULL);
		goto out;
	}
	ipt_cpuset_init(&set);
	d = PyDict_New();
	if (!d)
		goto out;
	nf = ipt_event_nfields(ev);
	/* the columns exist even with no row */
	{
		static const char *const base[] = { "ts_ns", "common_cpu", "common_pid", "common_comm" };

		for (size_t i = 0; i < 4; i++)
			if (dset(d, base[i], PyList_New(0)))
				goto fail;
		for (int i = 0; i < nf; i++) {
			const struct ipt_field *f = ipt_event_field_at(ev, i);

			if (!(ipt_field_flags(f) & IPT_FIELD_COMMON) &&
			    dset(d, ipt_field_name(f), PyList_New(0)))
				goto fail;
		}
	}
	for (;;) {
		Py_BEGIN_ALLOW_THREADS
		do {
			rc = ipt_iter_next(it, &rec);
		} while (rc == 1 && (rec.event != ev || (ef && !ipt_event_filter_match(ef, &rec))));
		if (rc < 0)
			snprintf(err, sizeof(err), "%s", ipt_errmsg());
		Py_END_ALLOW_THREADS
		if (rc < 0) {
			PyErr_SetString(IptError, err[0] ? err : "ipitrace: decode error");
			goto fail;
		}
		if (rc == 0)
			break;
		{
			int pid = ipt_record_pid(t, &rec);

			if (col_append(d, "ts_ns", U64(rec.ts)) || col_append(d, "common_cpu", I64(rec.cpu)) ||
			    col_append(d, "common_pid", I64(pid)) ||
			    col_append(d, "common_comm", str_or_none(ipt_trace_comm(t, pid))))
				goto fail;
		}
		for (int i = 0; i < nf; i++) {
			const struct ipt_field *f = ipt_event_field_at(ev, i);

			if (ipt_field_flags(f) & IPT_FIELD_COMMON)
				continue;
			if (col_append(d, ipt_field_name(f), field_obj(t, &rec, f, &set)))
				goto fail;
		}
	}
	goto out;
fail:
	Py_CLEAR(d);
out:
	ipt_cpuset_free(&set);
	ipt_iter_free(it);
	ipt_event_filter_free(ef);
	ipt_trace_close(t);
	return d;
}

/* ------------------------------------------------------------------ */
/* info(path), targets -> cpumask ints                                 */
/* ------------------------------------------------------------------ */

static PyObject *py_info(PyObject *self, PyObject *args)
{
	PyObject *path_obj = NULL, *d;
	struct ipt_trace *t;
	char err[512] = "", buf[256];

	if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_obj))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	t = ipt_trace_open(PyBytes_AS_STRING(path_obj));
	if (!t)
		snprintf(err, sizeof(err), "%s", ipt_errmsg());
	Py_END_ALLOW_THREADS
	Py_DECREF(path_obj);
	if (!t)
		return PyErr_SetString(IptError, err), NULL;
	d = PyDict_New();
	if (d && (dset(d, "path", str_or_none(ipt_trace_path(t))) ||
		  dset(d, "ncpus", I64(ipt_trace_ncpus(t))) ||
		  dset(d, "clock", str_or_none(ipt_trace_clock(t))) ||
		  dset(d, "time_unit", str_or_none(ipt_trace_time_unit(t))) ||
		  dset(d, "ts_in_ns", PyBool_FromLong(ipt_trace_ts_in_ns(t))) ||
		  dset(d, "kernel", str_or_none(ipt_trace_uname(t))) ||
		  dset(d, "file_version", I64(ipt_trace_file_version(t))) ||
		  dset(d, "compression", str_or_none(ipt_trace_compression(t))) ||
		  dset(d, "start_utc", str_or_none(ipt_trace_provenance(t, "start_utc", buf, sizeof(buf))))))
		Py_CLEAR(d);
	ipt_trace_close(t);
	return d;
}

/* masks(offsets, cpus) -> list of Python ints, lists(offsets, cpus) -> list of lists */
static PyObject *py_targets(PyObject *self, PyObject *args)
{
	PyArrayObject *off, *cpu;
	int as_mask;
	npy_intp n;
	PyObject *l;

	if (!PyArg_ParseTuple(args, "O!O!p", &PyArray_Type, &off, &PyArray_Type, &cpu, &as_mask))
		return NULL;
	if (PyArray_TYPE(off) != NPY_INT64 || PyArray_TYPE(cpu) != NPY_INT32 || PyArray_NDIM(off) != 1 ||
	    PyArray_NDIM(cpu) != 1 || !PyArray_ISCARRAY_RO(off) || !PyArray_ISCARRAY_RO(cpu) ||
	    PyArray_DIM(off, 0) < 1) {
		PyErr_SetString(PyExc_TypeError, "targets: int64 offsets and int32 cpus");
		return NULL;
	}
	n = PyArray_DIM(off, 0) - 1;
	l = PyList_New(n);
	if (!l)
		return NULL;
	{
		const int64_t *o = PyArray_DATA(off);
		const int32_t *c = PyArray_DATA(cpu);
		int64_t nc = PyArray_DIM(cpu, 0);

		for (npy_intp i = 0; i < n; i++) {
			int64_t a = o[i], b = o[i + 1];
			PyObject *v;

			if (a < 0 || b < a || b > nc) {
				Py_DECREF(l);
				PyErr_SetString(PyExc_ValueError, "targets: bad offsets");
				return NULL;
			}
			if (as_mask) {
				struct ipt_cpuset s = IPT_CPUSET_INIT;

				ipt_cpuset_init(&s);
				for (int64_t j = a; j < b; j++)
					ipt_cpuset_add(&s, (unsigned int)c[j]);
				v = mask_int(&s);
				ipt_cpuset_free(&s);
			} else {
				v = PyList_New(b - a);
				for (int64_t j = a; v && j < b; j++)
					PyList_SET_ITEM(v, j - a, PyLong_FromLong(c[j]));
			}
			if (!v) {
				Py_DECREF(l);
				return NULL;
			}
			PyList_SET_ITEM(l, i, v);
		}
	}
	return l;
}

static PyObject *py_version(PyObject *self, PyObject *unused)
{
	return PyUnicode_FromString(ipt_version());
}

static PyMethodDef methods[] = {
	{ "report", (PyCFunction)(void (*)(void))py_report, METH_VARARGS | METH_KEYWORDS,
	  "report(path, filter=None, by='comm', threads=0, assume_synced_clock=False)" },
	{ "events", (PyCFunction)(void (*)(void))py_events, METH_VARARGS | METH_KEYWORDS,
	  "events(path, name, filter=None)" },
	{ "info", py_info, METH_VARARGS, "info(path)" },
	{ "targets", py_targets, METH_VARARGS, "targets(offsets, cpus, as_mask)" },
	{ "version", py_version, METH_NOARGS, "the library's version" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef moddef = {
	PyModuleDef_HEAD_INIT, "ipitrace._ext", "libipitrace for Python (the C part)", -1, methods,
	NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__ext(void)
{
	PyObject *m;

	import_array();
	if (PyType_Ready(&RowsType) < 0)
		return NULL;
	m = PyModule_Create(&moddef);
	if (!m)
		return NULL;
	IptError = PyErr_NewException("ipitrace.Error", PyExc_Exception, NULL);
	if (!IptError || PyModule_AddObject(m, "Error", IptError)) {
		Py_XDECREF(IptError);
		Py_DECREF(m);
		return NULL;
	}
	Py_INCREF(IptError);
	Py_INCREF(&RowsType);
	if (PyModule_AddObject(m, "Rows", (PyObject *)&RowsType)) {
		Py_DECREF(&RowsType);
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
