// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report_uniq.c - `ipitrace report --format uniq`: the two tables kernel
 * developers make from `trace-cmd report` when they take IPIs off isolated
 * CPUs, as the shell makes them:
 *
 *   trace-cmd report | grep callback  | awk '{ print $(NF) }'   | sort | uniq -c | sort -nr
 *   trace-cmd report | grep csd_queue | awk '{ print $(NF-1) }' | sort | uniq -c | sort -nr
 *
 * Every record is rendered as trace-cmd prints it (ipt_render_record, the
 * text of `ipitrace dump`) and each of its lines goes through the grep and
 * the awk.  Table 1 counts the lines of ipi_send_cpu and ipi_send_cpumask
 * events (one line per event, whatever its number of targets), table 2
 * those of csd_queue_cpu events.  Other lines the grep matches are left
 * out and counted in the table's header line: the frames of a kernel stack
 * ("=> ep_poll_callback+0x119 (...)"), and any other line (a csd_queue_cpu
 * whose function's name holds "callback", a comm that does).  With a row
 * filter only the events of the recipe's three whose rows the filter keeps
 * (a send: any of its rows; a queued call: its row to its cpu) and the
 * stacks recorded right after them are looked at, as a recording with the
 * kernel filter would hold.
 *
 * Order: `sort -nr` in the C locale, counts largest first and equal counts
 * by the last-resort comparison of the whole line, which -r reverses too:
 * bytes descending.  Lines are uniq -c's: the count right-aligned in 7
 * columns, a blank, the text.
 */
#include "commands.h"
#include "report_out.h"

#include <stdlib.h>
#include <string.h>

/* one distinct field text and how many lines gave it */
struct uent {
	uint64_t tag;		/* the map's (ipt_hmap) */
	size_t off, len;	/* the text, in the table's keys */
	uint64_t count;
};

struct table {
	const char *pattern;	/* what grep looks for */
	int back;		/* awk's $(NF - back) */
	struct ipt_hmap map;	/* of struct uent */
	struct ipt_strbuf keys;	/* the texts, back to back */
	uint64_t lines;		/* lines counted */
	uint64_t stack_lines;	/* lines the grep matches, left out: stack frames */
	uint64_t other_lines;	/* ... and the others */
	uint64_t events;	/* the table's events looked at (after the filter) */
	uint64_t events_all;	/* ... before it */
};

struct ukey {
	const struct ipt_strbuf *keys;
	const char *s;
	size_t n;
};

static bool uent_eq(const void *entry, const void *key)
{
	const struct uent *e = entry;
	const struct ukey *k = key;

	return e->len == k->n && !memcmp(k->keys->buf + e->off, k->s, k->n);
}

static int table_add(struct table *tb, const char *s, size_t n)
{
	struct ukey k = { &tb->keys, s, n };
	uint64_t tag = ipt_hmap_tag(ipt_hash_bytes(s, n));
	struct uent *e;
	bool added;

	e = ipt_hmap_add(&tb->map, sizeof(*e), tag, uent_eq, &k, &added);
	if (!e)
		return -1;
	if (added) {
		e->off = tb->keys.len;
		e->len = n;
		e->count = 0;
		if (ipt_strbuf_add(&tb->keys, s, n)) {
			ipt_hmap_remove(&tb->map, sizeof(*e), e);
			return -1;
		}
	}
	e->count++;
	tb->lines++;
	return 0;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * awk_field - awk's $(NF - back) of the line s[0..n) with the default
 * field separator (runs of blanks; blanks at either end ignored): *f and
 * *fn; $0 (the whole line) when NF - back is 0
 */
static void awk_field(const char *s, size_t n, int back, const char **f, size_t *fn)
{
	size_t end = n;

	for (int i = 0;; i++) {
		size_t start;

		while (end > 0 && blank(s[end - 1]))
			end--;
		if (!end)
			break;	/* fewer fields than that */
		start = end;
		while (start > 0 && !blank(s[start - 1]))
			start--;
		if (i == back) {
			*f = s + start;
			*fn = end - start;
			return;
		}
		end = start;
	}
	*f = s;
	*fn = n;
}

/*
 * grep_line - one line of a rendered record through a table's grep and
 * awk: counted when it is the first line of one of the table's events
 * (mine), else left out and counted as a stack frame or another line
 */
static int grep_line(struct table *tb, const char *s, size_t n, bool mine)
{
	const char *f;
	size_t fn;

	if (!memmem(s, n, tb->pattern, strlen(tb->pattern)))
		return 0;
	if (!mine) {
		if (n >= 2 && s[0] == '=' && s[1] == '>')
			tb->stack_lines++;
		else
			tb->other_lines++;
		return 0;
	}
	awk_field(s, n, tb->back, &f, &fn);
	return table_add(tb, f, fn);
}

/* by count, largest first, then by text, bytes descending (sort -nr);
 * ctx: the texts */
static int uent_cmp(const void *a, const void *b, void *ctx)
{
	const struct uent *x = *(const struct uent *const *)a, *y = *(const struct uent *const *)b;
	const char *sort_keys = ctx;
	int d;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	d = memcmp(sort_keys + x->off, sort_keys + y->off, x->len < y->len ? x->len : y->len);
	if (!d)
		d = (x->len > y->len) - (x->len < y->len);
	return -d;
}

static int table_print(struct table *tb, int n, const char *what, const char *event_names,
		       const char *filter, FILE *out)
{
	struct uent **v = NULL;
	size_t cap = 0, k = 0;
	const char *keys;

	fprintf(out, "# table %d, grep %s | awk '{ print $(NF%s) }': %llu %s lines", n, tb->pattern,
		tb->back ? "-1" : "", (unsigned long long)tb->lines, what);
	if (!tb->events_all)
		fprintf(out, ": the trace has no %s event", event_names);
	else if (filter)
		fprintf(out, " (the filter keeps %llu of %llu events)", (unsigned long long)tb->events,
			(unsigned long long)tb->events_all);
	fprintf(out, "; left out: %llu stack lines, %llu other lines\n", (unsigned long long)tb->stack_lines,
		(unsigned long long)tb->other_lines);
	if (tb->map.n && IPT_GROW(v, cap, tb->map.n))
		return -1;
	for (size_t i = 0; i < tb->map.cap; i++) {
		struct uent *e = ipt_hmap_at(&tb->map, sizeof(*e), i);

		if (ipt_hmap_used(e))
			v[k++] = e;
	}
	keys = ipt_strbuf_str(&tb->keys);
	if (k)	/* (v is NULL for an empty table) */
		qsort_r(v, k, sizeof(*v), uent_cmp, (void *)keys);
	for (size_t i = 0; i < k; i++)
		fprintf(out, "%7llu %.*s\n", (unsigned long long)v[i]->count, (int)v[i]->len,
			keys + v[i]->off);
	free(v);
	return 0;
}

static bool is_stack_event(const struct ipt_event *ev)
{
	return !strcmp(ipt_event_system(ev), "ftrace") &&
	       (!strcmp(ipt_event_name(ev), "kernel_stack") || !strcmp(ipt_event_name(ev), "user_stack"));
}

int report_uniq(struct ipt_trace *t, const char *filter, FILE *out)
{
	struct table tb[2] = {
		{ .pattern = "callback", .back = 0 },
		{ .pattern = "csd_queue", .back = 1 },
	};
	struct ipt_strbuf line = IPT_STRBUF_INIT;
	struct ipt_rec_rows *rr = NULL;
	struct ipt_iter *it = NULL;
	struct ipt_record rec;
	bool *kept_last = NULL;	/* per CPU: its last event was one the filter keeps */
	int ncpus = ipt_trace_ncpus(t), ret = 1, rc;
	uint64_t records = 0;

	if (filter && !*filter)
		filter = NULL;
	rr = ipt_rec_rows_new(t, filter);
	if (!rr) {
		return lib_err("report");
	}
	it = ipt_iter_new(t, NULL);
	kept_last = calloc(ncpus > 0 ? (size_t)ncpus : 1, sizeof(*kept_last));
	if (!it || !kept_last) {
		err_msg("%s", it ? "out of memory" : ipt_errmsg());
		goto out;
	}
	while ((rc = ipt_iter_next(it, &rec)) > 0) {
		struct ipt_rec_rows_out ro;
		const char *name = rec.event ? ipt_event_name(rec.event) : "";
		int which = -1;		/* the table whose event it is */
		bool in = true, on_cpu = rec.cpu >= 0 && rec.cpu < ncpus;

		records++;
		if (ipt_rec_rows_feed(rr, &rec, &ro))
			goto fail;
		if (!rec.event)
			continue;
		if (ro.role == IPT_REC_SEND && (!strcmp(name, "ipi_send_cpu") || !strcmp(name, "ipi_send_cpumask")))
			which = 0;
		else if (ro.role == IPT_REC_QUEUE && !strcmp(name, "csd_queue_cpu"))
			which = 1;
		if (which >= 0) {
			tb[which].events_all++;
			in = !filter || ro.kept > 0;
			tb[which].events += in;
		}
		if (filter) {	/* only the recipe's events the filter keeps, and their stacks */
			if (is_stack_event(rec.event)) {
				in = on_cpu && kept_last[rec.cpu];
			} else {
				in = in && which >= 0;
				if (on_cpu)
					kept_last[rec.cpu] = in;
			}
		}
		if (!in)
			continue;
		ipt_strbuf_reset(&line);
		if (ipt_render_record(t, &rec, 0, &line))
			goto fail;
		for (size_t at = 0; at <= line.len;) {	/* each of its lines */
			const char *s = ipt_strbuf_str(&line) + at;
			const char *nl = memchr(s, '\n', line.len - at);
			size_t n = nl ? (size_t)(nl - s) : line.len - at;

			for (int k = 0; k < 2; k++)
				if (grep_line(&tb[k], s, n, !at && which == k))
					goto nomem;
			at += n + 1;
		}
	}
	if (rc < 0)
		goto fail;
	if (!records) {
		err_msg("%s: no events: nothing to count", ipt_trace_path(t));
		goto out;
	}
	if (table_print(&tb[0], 1, "send", "ipi_send_cpu or ipi_send_cpumask", filter, out) ||
	    table_print(&tb[1], 2, "csd_queue_cpu", "csd_queue_cpu", filter, out))
		goto nomem;
	ret = 0;
	goto out;
nomem:
	err_msg("out of memory");
	goto out;
fail:
	err_msg("%s", ipt_errmsg());
out:
	for (int k = 0; k < 2; k++) {
		ipt_hmap_free(&tb[k].map);
		ipt_strbuf_free(&tb[k].keys);
	}
	ipt_strbuf_free(&line);
	free(kept_last);
	ipt_iter_free(it);
	ipt_rec_rows_free(rr);
	return ret;
}
