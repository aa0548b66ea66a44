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

#include <stdlib.h>

static const char *const cols_exploded[] = {
	"ts_ns", "id", "src_cpu", "target_cpu", "ntargets", "pid", "comm", "event", "kind",
	"callsite", "callsite_sym", "callback", "callback_sym", "func", "func_sym", "reason",
};

static int hexaddr(struct ipt_strbuf *sb, uint64_t a, bool json)
{
	return (json && ipt_strbuf_addc(sb, '"')) || ipt_strbuf_add(sb, "0x", 2) || ipt_strbuf_add_hex(sb, a) ||
	       (json && ipt_strbuf_addc(sb, '"'));
}

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
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
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
	for (i = 0; i < len; i++) {
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

/* csv_row - one CSV line for a row (or an event's targets when !explode) */
static int csv_row(bool explode, const struct ipt_ipi_row *r, struct ipt_strbuf *sb, bool nl)
{
	size_t lc = slen(r->comm), le = slen(r->event), lcs = slen(r->callsite_sym);
	size_t lcb = slen(r->callback_sym), lf = slen(r->func_sym), lr = slen(r->reason);
	const char *kind = ipt_kind_name(r->kind);
	char small[256], *list = NULL;
	size_t ll = 0;
	char *p;

	if (!explode) {
		list = targets_list(r, small, sizeof(small));
		if (!list)
			return -1;
		ll = strlen(list);
	}
	if (ipt_strbuf_grow(sb, 320 + 2 * (lc + le + lcs + lcb + lf + lr) + strlen(kind) + ll)) {
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
	if (nl)
		*p++ = '\n';
	*p = 0;
	sb->len = (size_t)(p - sb->buf);
	return 0;
}

/* ipt_rows_header - the CSV header line (nothing for JSON lines) */
int ipt_rows_header(enum ipt_row_format fmt, bool explode, struct ipt_strbuf *sb)
{
	if (fmt != IPT_ROWS_CSV)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(cols_exploded); i++) {
		const char *c = cols_exploded[i];

		if (!explode && !strcmp(c, "target_cpu"))
			c = "targets";
		if ((i && ipt_strbuf_addc(sb, ',')) || ipt_strbuf_adds(sb, c))
			return -1;
	}
	return ipt_strbuf_addc(sb, '\n');
}

/* row_base - the base columns of a row; the line is ended (newline) when end */
static int row_base(enum ipt_row_format fmt, bool explode, const struct ipt_ipi_row *r,
		    struct ipt_strbuf *sb, bool end)
{
	char cs[256];
	const char *callsite;
	int ret = 0;

	if (fmt != IPT_ROWS_JSONL)
		return csv_row(explode, r, sb, end);
	callsite = sym_off(cs, sizeof(cs), r->callsite_sym, r->callsite_off);
	{
		ret |= ipt_strbuf_adds(sb, "{\"ts_ns\":") | ipt_strbuf_add_u64(sb, r->ts);
		ret |= ipt_strbuf_adds(sb, ",\"id\":") | ipt_strbuf_add_u64(sb, r->id);
		ret |= ipt_strbuf_adds(sb, ",\"src_cpu\":") | ipt_strbuf_add_i64(sb, r->src_cpu);
		if (explode) {
			ret |= ipt_strbuf_adds(sb, ",\"target_cpu\":") | ipt_strbuf_add_i64(sb, r->target_cpu);
		} else {
			bool first = true;

			ret |= ipt_strbuf_adds(sb, ",\"targets\":[");
			for (int c = ipt_cpuset_next(r->targets, 0); c >= 0;
			     c = ipt_cpuset_next(r->targets, (unsigned int)c + 1)) {
				ret |= (first ? 0 : ipt_strbuf_addc(sb, ',')) | ipt_strbuf_add_i64(sb, c);
				first = false;
			}
			ret |= ipt_strbuf_addc(sb, ']');
		}
		ret |= ipt_strbuf_adds(sb, ",\"ntargets\":") | ipt_strbuf_add_u64(sb, r->ntargets);
		ret |= ipt_strbuf_adds(sb, ",\"pid\":") | ipt_strbuf_add_i64(sb, r->pid);
		ret |= ipt_strbuf_adds(sb, ",\"comm\":") | ipt_json_strz(sb, r->comm);
		ret |= ipt_strbuf_adds(sb, ",\"event\":") | ipt_json_strz(sb, r->event);
		ret |= ipt_strbuf_adds(sb, ",\"kind\":") | ipt_json_strz(sb, ipt_kind_name(r->kind));
		ret |= ipt_strbuf_adds(sb, ",\"callsite\":") | hexaddr(sb, r->callsite, true);
		ret |= ipt_strbuf_adds(sb, ",\"callsite_sym\":") | ipt_json_strz(sb, callsite);
		ret |= ipt_strbuf_adds(sb, ",\"callback\":") | hexaddr(sb, r->callback, true);
		ret |= ipt_strbuf_adds(sb, ",\"callback_sym\":") | ipt_json_strz(sb, r->callback_sym);
		ret |= ipt_strbuf_adds(sb, ",\"func\":") | hexaddr(sb, r->func, true);
		ret |= ipt_strbuf_adds(sb, ",\"func_sym\":") | ipt_json_strz(sb, r->func_sym);
		ret |= ipt_strbuf_adds(sb, ",\"reason\":") | ipt_json_strz(sb, r->reason);
		if (end)
			ret |= ipt_strbuf_adds(sb, "}\n");
		return ret ? -1 : 0;
	}
}

/* ipt_rows_format - one row (or one event when !explode) as a line */
int ipt_rows_format(enum ipt_row_format fmt, bool explode, const struct ipt_ipi_row *r,
		    struct ipt_strbuf *sb)
{
	return row_base(fmt, explode, r, sb, true);
}

/* ---- the matching columns (ipt_rows_format_match) ---- */

static const char *const cols_match[] = {
	"lat_ns", "handler_ns", "handler_ts_ns", "matched", "coalesced", "unmatched_reason",
	"callsite_func", "func_name", "stack",
};

/* ipt_rows_header_match - the header with the matching columns */
int ipt_rows_header_match(enum ipt_row_format fmt, bool explode, struct ipt_strbuf *sb)
{
	if (fmt != IPT_ROWS_CSV)
		return 0;
	if (ipt_rows_header(fmt, explode, sb))
		return -1;
	sb->len--;	/* the newline */
	for (size_t i = 0; i < ARRAY_SIZE(cols_match); i++)
		if (ipt_strbuf_addc(sb, ',') || ipt_strbuf_adds(sb, cols_match[i]))
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

/* a field (name for JSON, "" for CSV) */
static int field(struct ipt_strbuf *sb, bool json, const char *name)
{
	if (!json)
		return ipt_strbuf_addc(sb, ',');
	return ipt_strbuf_adds(sb, ",\"") || ipt_strbuf_adds(sb, name) || ipt_strbuf_adds(sb, "\":");
}

static int opt_u64(struct ipt_strbuf *sb, bool json, const char *name, bool has, uint64_t v)
{
	if (field(sb, json, name))
		return -1;
	if (has)
		return ipt_strbuf_add_u64(sb, v);
	return json ? ipt_strbuf_adds(sb, "null") : 0;
}

static int opt_bool(struct ipt_strbuf *sb, bool json, const char *name, bool has, bool v)
{
	if (field(sb, json, name))
		return -1;
	if (has)
		return ipt_strbuf_adds(sb, v ? "true" : "false");
	return json ? ipt_strbuf_adds(sb, "null") : 0;
}

static int opt_str(struct ipt_strbuf *sb, bool json, const char *name, const char *s)
{
	if (field(sb, json, name))
		return -1;
	return json ? ipt_json_strz(sb, s) : csv_field(sb, s);
}

/* the stack: a JSON array of "sym+0xoff" strings, or the frames joined by ';' */
static int stack_col(struct ipt_strbuf *sb, bool json, const struct ipt_trace *t,
		     const struct ipt_report_stack *st)
{
	struct ipt_strbuf fr = IPT_STRBUF_INIT;
	char buf[512];
	int ret = 0;

	if (field(sb, json, "stack"))
		return -1;
	if (!st)
		return json ? ipt_strbuf_adds(sb, "null") : 0;
	if (json)
		ret |= ipt_strbuf_addc(sb, '[');
	for (uint32_t i = 0; i < st->nframes; i++) {
		ipt_trace_format_symbol(t, st->frames[i], true, buf, sizeof(buf));
		if (json)
			ret |= (i ? ipt_strbuf_addc(sb, ',') : 0) | ipt_json_strz(sb, buf);
		else
			ret |= (i ? ipt_strbuf_addc(&fr, ';') : 0) | ipt_strbuf_adds(&fr, buf);
	}
	if (json)
		ret |= ipt_strbuf_addc(sb, ']');
	else if (fr.len)
		ret |= csv_field(sb, fr.buf);
	ipt_strbuf_free(&fr);
	return ret ? -1 : 0;
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
	const struct ipt_row_match *pt = m && m->known && (explode || r->ntargets == 1) ? m : NULL;
	bool json = fmt == IPT_ROWS_JSONL;
	int ret = 0;

	if (row_base(fmt, explode, r, sb, false))
		return -1;
	ret |= opt_u64(sb, json, "lat_ns", pt && pt->has_latency, pt ? pt->latency_ns : 0);
	ret |= opt_u64(sb, json, "handler_ns", pt && pt->has_handler, pt ? pt->handler_ns : 0);
	ret |= opt_u64(sb, json, "handler_ts_ns", pt && pt->has_handler_ts,
		       pt ? pt->handler_ts_ns : 0);
	ret |= opt_bool(sb, json, "matched", pt, pt && pt->matched);
	ret |= opt_bool(sb, json, "coalesced", pt && pt->matched, pt && pt->coalesced);	/* of a served send only */
	ret |= opt_str(sb, json, "unmatched_reason",
		       pt && !pt->matched ? ipt_unmatched_reason_name(pt->unmatched) : NULL);
	ret |= opt_str(sb, json, "callsite_func", r->callsite_sym);
	ret |= opt_str(sb, json, "func_name", r->func ? r->func_sym : r->callback_sym);
	ret |= stack_col(sb, json, t, m ? m->stack : NULL);
	ret |= json ? ipt_strbuf_adds(sb, "}\n") : ipt_strbuf_addc(sb, '\n');
	return ret ? -1 : 0;
}
