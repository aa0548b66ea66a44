// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rows.c - IPI rows as CSV and JSON lines (declared in ipitrace.h)
 *
 * Columns (exploded: one row per target CPU):
 *   ts_ns,id,src_cpu,target_cpu,ntargets,pid,comm,event,kind,
 *   callsite,callsite_sym,callback,callback_sym,func,func_sym,reason
 * Not exploded (one row per send event), the target_cpu column becomes targets: a CPU list
 * string in CSV ("0-3,8") and an array of integers in JSON.
 * Addresses are "0x..." strings; unknown symbols are empty (CSV) or null.
 * JSON strings are escaped as ipt_json_str says (core/json.c).
 */
#include "core/core.h"
#include "output/rows.h"

#include <stdlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* the name of column c (ipt_row_column: the one description of the rows) */
#define COL(c) (ipt_row_column(IPT_COL_##c)->name)

/* sym_off - "sym+0xoff" into tmp (callsite), or NULL */
static const char *sym_off(char *tmp, size_t n, const char *sym, uint64_t off)
{
	if (!sym)
		return NULL;
	snprintf(tmp, n, "%s+0x%llx", sym, (unsigned long long)off);
	return tmp;
}

/* targets_list - the CPU list of the row's targets (small buffer or heap) */
static char *targets_list(const struct ipt_ipi_row *r, char *small, size_t n)
{
	size_t need = ipt_cpuset_format_list(r->targets, small, n);
	char *big;

	if (need < n)
		return small;
	big = ipt_malloc(need + 1);
	if (big)
		ipt_cpuset_format_list(r->targets, big, need + 1);
	return big;
}

/* ---- the CSV hot path: one reservation per row, digits written by hand ---- */

static char *put_u64(char *p, uint64_t v)
{
	return ipt_put_decimal(p, v);
}

static char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

static char *put_bool(char *p, bool v)
{
	memcpy(p, v ? "true" : "false", v ? 4 : 5);
	return p + (v ? 4 : 5);
}

static char *put_hex(char *p, uint64_t v)
{
	static const char hx[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;

	*p++ = '0';
	*p++ = 'x';
	do {
		tmp[n++] = hx[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* put_csv - a CSV field (quoted when it must be); room for 2 * len + 2 given.
 * One pass: copied as is until a byte that needs quoting shows up. */
static char *put_csv(char *p, const char *s, size_t len)
{
	static const bool special[256] = { [','] = true, ['"'] = true, ['\n'] = true,
					   ['\r'] = true };
	size_t i;

	if (!s)
		return p;
	i = 0;
#ifdef __SSE2__
	/* 16 bytes at a time while no byte needs quoting */
	for (; i + 16 <= len; i += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(',')),
						      _mm_cmpeq_epi8(x, _mm_set1_epi8('"'))),
					 _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\n')),
						      _mm_cmpeq_epi8(x, _mm_set1_epi8('\r'))));

		if (_mm_movemask_epi8(m))
			break;
		_mm_storeu_si128((__m128i *)(void *)(p + i), x);
	}
#endif
	for (; i < len; i++) {
		if (special[(unsigned char)s[i]])
			break;
		p[i] = s[i];
	}
	if (i == len)
		return p + len;
	*p++ = '"';
	for (i = 0; i < len; i++) {
		if (s[i] == '"')
			*p++ = '"';
		*p++ = s[i];
	}
	*p++ = '"';
	return p;
}

static size_t slen(const char *s)
{
	return s ? strlen(s) : 0;
}

/* same_names - what the columns event .. reason are made of is the same
 * in both rows (names by pointer: they stay put for the trace's life) */
static bool same_names(const struct ipt_ipi_row *k, const struct ipt_ipi_row *r)
{
	return k->event == r->event && k->kind == r->kind && k->callsite == r->callsite &&
	       k->callsite_sym == r->callsite_sym && k->callsite_off == r->callsite_off &&
	       k->callback == r->callback && k->callback_sym == r->callback_sym && k->func == r->func &&
	       k->func_sym == r->func_sym && k->reason == r->reason;
}

/*
 * The columns after the target CPU of the last exploded row, kept for the
 * next row of the same send: a send to many CPUs is as many rows that
 * differ only in that column (its other targets come one after another),
 * and formatting the names again was most of what a wide mask's rows cost.
 * Reused only when every field the text is made of is the same (per thread).
 */
struct csv_tail {
	bool valid;
	struct ipt_ipi_row row;		/* the fields of the row it was made of */
	size_t len;
	char text[1024];
};
static __thread struct csv_tail last_tail;

static bool same_tail(const struct csv_tail *t, const struct ipt_ipi_row *r)
{
	const struct ipt_ipi_row *k = &t->row;

	return t->valid && k->id == r->id && k->ts == r->ts && k->src_cpu == r->src_cpu &&
	       k->ntargets == r->ntargets && k->pid == r->pid && k->comm == r->comm && same_names(k, r);
}

static void keep_tail(struct csv_tail *t, const struct ipt_ipi_row *r, const char *text, size_t len)
{
	t->valid = len <= sizeof(t->text);
	if (!t->valid)
		return;
	t->row = *r;	/* (its pointers are only compared) */
	memcpy(t->text, text, len);
	t->len = len;
}

/*
 * The text of the columns comm .. reason, by what it is made of: a
 * trace's rows repeat a few (task, event, kind, call site, callback,
 * function, reason) over and over, and formatting their names was most of
 * what a row cost.  Direct-mapped, per thread.  The task name is compared
 * by its bytes (a name's memory may be freed and used for another), the
 * rest by value or by pointer: the names of events, symbols and reasons
 * stay where they are for the trace's life, and a different pointer to
 * the same text is only a miss.
 */
#define MID_SLOTS 32
struct csv_mid {
	bool valid;
	uint8_t lc;			/* the task name's length */
	uint16_t len;			/* of text */
	char comm[32];			/* the task name's bytes */
	struct ipt_ipi_row row;		/* the rest it was made of (same_names) */
	char text[448];
};
static __thread struct csv_mid mid_memo[MID_SLOTS];

static struct csv_mid *mid_slot(const struct ipt_ipi_row *r)
{
	/* the pid for the task name (its bytes are compared in mid_same) */
	uint64_t h = (r->callsite ^ (uint64_t)(uint32_t)r->pid << 20) * 0x9e3779b97f4a7c15ULL ^
		     r->func * 31 ^ r->callback * 7 ^ (uintptr_t)r->event ^ (uint64_t)r->kind << 7;

	return &mid_memo[(h ^ h >> 29) % MID_SLOTS];
}

static bool mid_same(const struct csv_mid *m, const struct ipt_ipi_row *r, size_t lc)
{
	return m->valid && m->lc == lc && same_names(&m->row, r) && (!lc || !memcmp(m->comm, r->comm, lc));
}

static void mid_keep(struct csv_mid *m, const struct ipt_ipi_row *r, size_t lc, const char *text, size_t len)
{
	m->valid = lc < sizeof(m->comm) && len <= sizeof(m->text);
	if (!m->valid)
		return;
	m->lc = (uint8_t)lc;
	if (lc)
		memcpy(m->comm, r->comm, lc);
	m->row = *r;	/* (its pointers are only compared) */
	memcpy(m->text, text, len);
	m->len = (uint16_t)len;
}

/* csv_row_full - csv_row formatting every column (those from comm to
 * reason from the memo when they are there) */
static int csv_row_full(bool explode, const struct ipt_ipi_row *r, struct ipt_strbuf *sb, bool nl)
{
	size_t lc = slen(r->comm), le = 0, lcs = 0, lcb = 0, lf = 0, lr = 0;
	const char *kind = NULL;
	struct csv_mid *m = mid_slot(r);
	bool hit = mid_same(m, r, lc);
	char small[256], *list = NULL, *tail = NULL, *mid;
	size_t ll = 0, room;
	char *p;

	if (!explode) {
		list = targets_list(r, small, sizeof(small));
		if (!list)
			return -1;
		ll = strlen(list);
	}
	if (hit) {
		room = 128 + m->len + ll;
	} else {
		le = slen(r->event);
		lcs = slen(r->callsite_sym);
		lcb = slen(r->callback_sym);
		lf = slen(r->func_sym);
		lr = slen(r->reason);
		kind = ipt_kind_name(r->kind);
		room = 320 + 2 * (lc + le + lcs + lcb + lf + lr) + strlen(kind) + ll;
	}
	if (ipt_strbuf_grow(sb, room)) {
		if (list && list != small)
			free(list);
		return -1;
	}
	p = sb->buf + sb->len;
	p = put_u64(p, r->ts);
	*p++ = ',';
	p = put_u64(p, r->id);
	*p++ = ',';
	p = put_i64(p, r->src_cpu);
	*p++ = ',';
	if (explode) {
		p = put_i64(p, r->target_cpu);
		tail = p;
	} else {
		*p++ = '"';
		memcpy(p, list, ll);
		p += ll;
		*p++ = '"';
		if (list != small)
			free(list);
	}
	*p++ = ',';
	p = put_u64(p, r->ntargets);
	*p++ = ',';
	p = put_i64(p, r->pid);
	*p++ = ',';
	mid = p;
	if (hit) {
		memcpy(p, m->text, m->len);
		p += m->len;
	} else {
		p = put_csv(p, r->comm, lc);
		*p++ = ',';
		p = put_csv(p, r->event, le);
		*p++ = ',';
		p = put_csv(p, kind, strlen(kind));
		*p++ = ',';
		p = put_hex(p, r->callsite);
		*p++ = ',';
		if (r->callsite_sym) {
			p = put_csv(p, r->callsite_sym, lcs);
			*p++ = '+';
			p = put_hex(p, r->callsite_off);
		}
		*p++ = ',';
		p = put_hex(p, r->callback);
		*p++ = ',';
		p = put_csv(p, r->callback_sym, lcb);
		*p++ = ',';
		p = put_hex(p, r->func);
		*p++ = ',';
		p = put_csv(p, r->func_sym, lf);
		*p++ = ',';
		p = put_csv(p, r->reason, lr);
		mid_keep(m, r, lc, mid, (size_t)(p - mid));
	}
	if (tail && r->ntargets > 1)	/* (other rows of the send follow) */
		keep_tail(&last_tail, r, tail, (size_t)(p - tail));
	if (nl)
		*p++ = '\n';
	*p = 0;
	sb->len = (size_t)(p - sb->buf);
	return 0;
}

/* csv_row - one CSV line for a row (or an event's targets when !explode) */
static int csv_row(bool explode, const struct ipt_ipi_row *r, struct ipt_strbuf *sb, bool nl)
{
	if (explode && same_tail(&last_tail, r)) {
		char *q;

		if (ipt_strbuf_grow(sb, 64 + last_tail.len))
			return -1;
		q = sb->buf + sb->len;
		q = put_u64(q, r->ts);
		*q++ = ',';
		q = put_u64(q, r->id);
		*q++ = ',';
		q = put_i64(q, r->src_cpu);
		*q++ = ',';
		q = put_i64(q, r->target_cpu);
		memcpy(q, last_tail.text, last_tail.len);
		q += last_tail.len;
		if (nl)
			*q++ = '\n';
		*q = 0;
		sb->len = (size_t)(q - sb->buf);
		return 0;
	}
	return csv_row_full(explode, r, sb, nl);
}

/* ipt_rows_header - the CSV header line (nothing for JSON lines) */
int ipt_rows_header(enum ipt_row_format fmt, bool explode, struct ipt_strbuf *sb)
{
	if (fmt != IPT_ROWS_CSV)
		return 0;
	for (int i = 0; i < IPT_COL__MATCH; i++) {
		const char *c = ipt_row_column((enum ipt_row_column)i)->name;

		if (!explode && i == IPT_COL_TARGET_CPU)
			c = "targets";
		if ((i && ipt_strbuf_addc(sb, ',')) || ipt_strbuf_adds(sb, c))
			return -1;
	}
	return ipt_strbuf_addc(sb, '\n');
}

/* json_base - the base columns of a row, members of the open object */
static void json_base(struct ipt_jw *j, bool explode, const struct ipt_ipi_row *r)
{
	char cs[256];

	ipt_jw_ku64(j, COL(TS_NS), r->ts);
	ipt_jw_ku64(j, COL(ID), r->id);
	ipt_jw_ki64(j, COL(SRC_CPU), r->src_cpu);
	if (explode) {
		ipt_jw_ki64(j, COL(TARGET_CPU), r->target_cpu);
	} else {
		ipt_jw_key(j, "targets");
		ipt_jw_arr(j);
		for (int c = ipt_cpuset_next(r->targets, 0); c >= 0;
		     c = ipt_cpuset_next(r->targets, (unsigned int)c + 1))
			ipt_jw_i64(j, c);
		ipt_jw_end(j);
	}
	ipt_jw_ku64(j, COL(NTARGETS), r->ntargets);
	ipt_jw_ki64(j, COL(PID), r->pid);
	ipt_jw_kstr(j, COL(COMM), r->comm);
	ipt_jw_kstr(j, COL(EVENT), r->event);
	ipt_jw_kstr(j, COL(KIND), ipt_kind_name(r->kind));
	ipt_jw_khex(j, COL(CALLSITE), r->callsite);
	ipt_jw_kstr(j, COL(CALLSITE_SYM), sym_off(cs, sizeof(cs), r->callsite_sym, r->callsite_off));
	ipt_jw_khex(j, COL(CALLBACK), r->callback);
	ipt_jw_kstr(j, COL(CALLBACK_SYM), r->callback_sym);
	ipt_jw_khex(j, COL(FUNC), r->func);
	ipt_jw_kstr(j, COL(FUNC_SYM), r->func_sym);
	ipt_jw_kstr(j, COL(REASON), r->reason);
}

/* ipt_rows_format - one row (or one event when !explode) as a line */
int ipt_rows_format(enum ipt_row_format fmt, bool explode, const struct ipt_ipi_row *r,
		    struct ipt_strbuf *sb)
{
	struct ipt_jw j;

	if (fmt != IPT_ROWS_JSONL)
		return csv_row(explode, r, sb, true);
	ipt_jw_init(&j, sb, NULL);
	ipt_jw_obj(&j);
	json_base(&j, explode, r);
	ipt_jw_end(&j);
	ipt_jw_raw(&j, "\n");
	return ipt_jw_finish(&j);
}

/* ---- the matching columns (ipt_rows_format_match) ---- */

/* ipt_rows_header_match - the header with the matching columns */
int ipt_rows_header_match(enum ipt_row_format fmt, bool explode, struct ipt_strbuf *sb)
{
	if (fmt != IPT_ROWS_CSV)
		return 0;
	if (ipt_rows_header(fmt, explode, sb))
		return -1;
	sb->len--;	/* the newline */
	for (int i = IPT_COL__MATCH; i < IPT_COL__COUNT; i++)
		if (ipt_strbuf_addc(sb, ',') || ipt_strbuf_adds(sb, ipt_row_column((enum ipt_row_column)i)->name))
			return -1;
	return ipt_strbuf_addc(sb, '\n');
}

/* csv_field - s as a CSV field, quoted when it must be (NULL: empty) */
static int csv_field(struct ipt_strbuf *sb, const char *s)
{
	size_t n = slen(s);
	char *p;

	if (ipt_strbuf_grow(sb, 2 * n + 3))
		return -1;
	p = put_csv(sb->buf + sb->len, s, n);
	*p = 0;
	sb->len = (size_t)(p - sb->buf);
	return 0;
}

/* JSON: an unknown value is null */
static void jopt_u64(struct ipt_jw *j, const char *name, bool has, uint64_t v)
{
	ipt_jw_key(j, name);
	if (has)
		ipt_jw_u64(j, v);
	else
		ipt_jw_null(j);
}

static void jopt_bool(struct ipt_jw *j, const char *name, bool has, bool v)
{
	ipt_jw_key(j, name);
	if (has)
		ipt_jw_bool(j, v);
	else
		ipt_jw_null(j);
}

/*
 * The memo of stacks' columns: a slot per stack address (direct-mapped),
 * its text in an arena; all forgotten when the arena would pass MEMO_BYTES
 * (a trace of as many stacks as rows stays bounded, formatted again).
 */
#define MEMO_SLOTS 4096u
#define MEMO_BYTES (4u << 20)

struct memo_slot {
	const struct ipt_report_stack *st;
	uint32_t off, len;
};
struct ipt_stack_memo {
	struct memo_slot *slot;		/* MEMO_SLOTS, made at the first stack */
	struct ipt_strbuf text;
};

struct ipt_stack_memo *ipt_stack_memo_new(void)
{
	return ipt_calloc(1, sizeof(struct ipt_stack_memo));
}

void ipt_stack_memo_free(struct ipt_stack_memo *memo)
{
	if (!memo)
		return;
	ipt_strbuf_free(&memo->text);
	free(memo->slot);
	free(memo);
}

static struct memo_slot *memo_slot(struct ipt_stack_memo *memo, const struct ipt_report_stack *st)
{
	return &memo->slot[ipt_hash64((uint64_t)(uintptr_t)st) & (MEMO_SLOTS - 1)];
}

/* memo_add - the column's text of st is sb's from byte from on */
static void memo_add(struct ipt_stack_memo *memo, const struct ipt_report_stack *st, const struct ipt_strbuf *sb,
		     size_t from)
{
	size_t len = sb->len - from;
	struct memo_slot *ms;

	if (len > MEMO_BYTES / 4 || (!memo->slot && !(memo->slot = calloc(MEMO_SLOTS, sizeof(*memo->slot)))))
		return;	/* (not remembered: formatted again next time) */
	if (memo->text.len + len > MEMO_BYTES) {
		memset(memo->slot, 0, MEMO_SLOTS * sizeof(*memo->slot));
		ipt_strbuf_reset(&memo->text);
	}
	ms = memo_slot(memo, st);
	if (ipt_strbuf_add(&memo->text, sb->buf + from, len))
		return;	/* (not remembered: formatted again next time) */
	*ms = (struct memo_slot){ st, (uint32_t)(memo->text.len - len), (uint32_t)len };
}

/* memo_put - st's remembered text appended to sb: 1, 0 when not there,
 * -1 out of memory */
static int memo_put(struct ipt_stack_memo *memo, const struct ipt_report_stack *st, struct ipt_strbuf *sb)
{
	const struct memo_slot *ms;

	if (!memo || !st || !memo->slot)
		return 0;
	ms = memo_slot(memo, st);
	if (ms->st != st)
		return 0;
	return ipt_strbuf_add(sb, memo->text.buf + ms->off, ms->len) ? -1 : 1;
}

/* stack_csv - the stack column: its frames, leaf first, as "sym+0xoff"
 * strings joined by ';' */
static int stack_csv(struct ipt_strbuf *sb, const struct ipt_trace *t, const struct ipt_report_stack *st,
		     struct ipt_stack_memo *memo)
{
	struct ipt_strbuf fr = IPT_STRBUF_INIT;
	char buf[512];
	int ret = ipt_strbuf_addc(sb, ',');
	size_t from = sb->len;

	if (ret || (ret = memo_put(memo, st, sb)))
		return ret < 0 ? -1 : 0;
	for (uint32_t i = 0; st && i < st->nframes; i++) {
		ipt_trace_format_symbol(t, st->frames[i], true, buf, sizeof(buf));
		ret |= (i ? ipt_strbuf_addc(&fr, ';') : 0) | ipt_strbuf_adds(&fr, buf);
	}
	if (fr.len)
		ret |= csv_field(sb, fr.buf);
	ipt_strbuf_free(&fr);
	if (!ret && memo && st)
		memo_add(memo, st, sb, from);
	return ret ? -1 : 0;
}

/* stack_json - the stack member, the object's last (a remembered array
 * is written as it is, after the key) */
static void stack_json(struct ipt_jw *j, const struct ipt_trace *t, const struct ipt_report_stack *st,
		       struct ipt_stack_memo *memo, struct ipt_strbuf *sb)
{
	char buf[512];
	size_t from;
	int r;

	ipt_jw_key(j, COL(STACK));
	if (!st) {
		ipt_jw_null(j);
		return;
	}
	if ((r = memo_put(memo, st, sb))) {
		if (r < 0)
			j->err = 1;	/* out of memory: the row fails */
		return;
	}
	from = sb->len;
	ipt_jw_arr(j);
	for (uint32_t i = 0; i < st->nframes; i++) {
		ipt_trace_format_symbol(t, st->frames[i], true, buf, sizeof(buf));
		ipt_jw_str(j, buf);
	}
	ipt_jw_end(j);
	if (memo)
		memo_add(memo, st, sb, from);
}

/*
 * ipt_rows_format_match - a row with the matching columns.  m NULL: they
 * are null (but callsite_func and func_name, taken from the row).  With
 * !explode the row stands for its send event: the per-target columns
 * (lat_ns .. unmatched_reason) are given only for a send to one CPU.
 */
int ipt_rows_format_match(enum ipt_row_format fmt, bool explode, const struct ipt_trace *t,
			  const struct ipt_ipi_row *r, const struct ipt_row_match *m,
			  struct ipt_strbuf *sb)
{
	return ipt_rows_format_match_memo(fmt, explode, t, r, m, NULL, sb);
}

int ipt_rows_format_match_memo(enum ipt_row_format fmt, bool explode, const struct ipt_trace *t,
			       const struct ipt_ipi_row *r, const struct ipt_row_match *m,
			       struct ipt_stack_memo *memo, struct ipt_strbuf *sb)
{
	const struct ipt_row_match *pt = m && m->known && (explode || r->ntargets == 1) ? m : NULL;
	const char *unmatched = pt && !pt->matched ? ipt_unmatched_reason_name(pt->unmatched) : NULL;
	const char *func_name = r->func ? r->func_sym : r->callback_sym;
	struct ipt_jw j;
	int ret = 0;

	if (fmt != IPT_ROWS_JSONL) {
		size_t lu = slen(unmatched), lcs = slen(r->callsite_sym), lfn = slen(func_name);
		char *p;

		/* one reservation: three numbers, two booleans, three fields
		 * (an unknown value is an empty field) */
		if (csv_row(explode, r, sb, false) || ipt_strbuf_grow(sb, 3 * 21 + 2 * 6 + 3 * 3 + 2 * (lu + lcs + lfn) + 3))
			return -1;
		p = sb->buf + sb->len;
		*p++ = ',';
		if (pt && pt->has_latency)
			p = put_u64(p, pt->latency_ns);
		*p++ = ',';
		if (pt && pt->has_handler)
			p = put_u64(p, pt->handler_ns);
		*p++ = ',';
		if (pt && pt->has_handler_ts)
			p = put_u64(p, pt->handler_ts_ns);
		*p++ = ',';
		if (pt)
			p = put_bool(p, pt->matched);
		*p++ = ',';
		if (pt && pt->matched)
			p = put_bool(p, pt->coalesced);	/* of a served send only */
		*p++ = ',';
		p = put_csv(p, unmatched, lu);
		*p++ = ',';
		p = put_csv(p, r->callsite_sym, lcs);
		*p++ = ',';
		p = put_csv(p, func_name, lfn);
		if (!m || !m->stack) {	/* an empty stack column, the line's end */
			*p++ = ',';
			*p++ = '\n';
		}
		*p = 0;
		sb->len = (size_t)(p - sb->buf);
		if (!m || !m->stack)
			return 0;
		ret |= stack_csv(sb, t, m->stack, memo) | ipt_strbuf_addc(sb, '\n');
		return ret ? -1 : 0;
	}
	ipt_jw_init(&j, sb, NULL);
	ipt_jw_obj(&j);
	json_base(&j, explode, r);
	jopt_u64(&j, COL(LAT_NS), pt && pt->has_latency, pt ? pt->latency_ns : 0);
	jopt_u64(&j, COL(HANDLER_NS), pt && pt->has_handler, pt ? pt->handler_ns : 0);
	jopt_u64(&j, COL(HANDLER_TS_NS), pt && pt->has_handler_ts, pt ? pt->handler_ts_ns : 0);
	jopt_bool(&j, COL(MATCHED), pt, pt && pt->matched);
	jopt_bool(&j, COL(COALESCED), pt && pt->matched, pt && pt->coalesced);	/* of a served send only */
	ipt_jw_kstr(&j, COL(UNMATCHED_REASON), unmatched);
	ipt_jw_kstr(&j, COL(CALLSITE_FUNC), r->callsite_sym);
	ipt_jw_kstr(&j, COL(FUNC_NAME), func_name);
	stack_json(&j, t, m ? m->stack : NULL, memo, sb);
	ipt_jw_end(&j);
	ipt_jw_raw(&j, "\n");
	return ipt_jw_finish(&j);
}
