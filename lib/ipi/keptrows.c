// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * keptrows.c - the counted rows a report keeps for its iterator
 * (keptrows.h): a log of fixed-size rows, a chunk in memory, the rest in
 * a temporary file
 */
#include "ipi/keptrows.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct kept_row {			/* 80 bytes */
	uint64_t ts, id, callsite, callback, func;
	int32_t pid;
	uint32_t callsite_off;		/* (wide_off: past 32 bits, looked up again) */
	uint16_t src_cpu, target_cpu, ntargets;
	uint8_t kind, wide_off;
	uint32_t comm, event, callsite_sym, callback_sym, func_sym, reason;	/* strs[]; 0: NULL */
};
_Static_assert(sizeof(struct kept_row) == 80, "a kept row's size, as keptrows.h says");

#define CHUNK_ROWS ((1u << 20) / sizeof(struct kept_row))
/* at most 256 Ki rows (20 MiB of file): past that, decoding again in
 * lanes costs less.  And not the rows of multicasts (a row per target
 * CPU, which the decoder makes at little cost each: a 6 MB synthetic
 * trace of 1 M such rows took 174 -> 195 ms to convert, dropped at 256 Ki):
 * dropped once they are half of MULTI_FROM rows or more. */
#define MAX_ROWS (256u << 10)
#define MULTI_FROM 4096u

struct str_ent {			/* a string's number, by its address */
	uint64_t tag;
	const char *s;
	uint32_t num;
};

struct ipt_kept_rows {
	struct ipt_trace *t;
	char *filter;			/* the report's ("" for none) */
	struct kept_row *chunk;		/* CHUNK_ROWS: the rows being written, then read */
	size_t n;			/* rows kept */
	size_t multi;			/* ... of multicasts (ntargets > 1) */
	size_t in_chunk;		/* ... of them in chunk, not yet written */
	int fd;				/* the file of the chunks before (-1: none) */
	bool dropped, ended;
	struct ipt_hmap smap;		/* of struct str_ent */
	const char **strs;		/* strs[num] (strs[0] NULL) */
	size_t nstrs, capstrs;
};

struct ipt_kept_rows *ipt_kept_new(struct ipt_trace *t, const char *filter)
{
	struct ipt_kept_rows *k = ipt_calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->t = t;
	k->fd = -1;
	k->filter = strdup(filter ? filter : "");
	k->chunk = ipt_malloc(CHUNK_ROWS * sizeof(*k->chunk));
	if (!k->filter || !k->chunk || IPT_GROW(k->strs, k->capstrs, 1)) {
		ipt_kept_free(k);
		return NULL;
	}
	k->strs[0] = NULL;
	k->nstrs = 1;
	return k;
}

static bool str_eq(const void *e, const void *key)
{
	return ((const struct str_ent *)e)->s == *(const char *const *)key;
}

/* str_num - the number of string s (the same address, the same number) */
static int str_num(struct ipt_kept_rows *k, const char *s, uint32_t *num)
{
	struct str_ent *e;
	bool added;

	if (!s) {
		*num = 0;
		return 0;
	}
	e = ipt_hmap_add(&k->smap, sizeof(*e), ipt_hmap_tag(ipt_hash64((uint64_t)(uintptr_t)s)), str_eq, &s,
			 &added);
	if (!e)
		return -1;
	if (added) {
		if (k->nstrs >= UINT32_MAX || IPT_GROW(k->strs, k->capstrs, k->nstrs + 1)) {
			ipt_hmap_remove(&k->smap, sizeof(*e), e);
			return -1;
		}
		e->s = s;
		e->num = (uint32_t)k->nstrs;
		k->strs[k->nstrs++] = s;
	}
	*num = e->num;
	return 0;
}

/* drop - the rows cannot be kept: the iterator decodes again */
static void drop(struct ipt_kept_rows *k)
{
	k->dropped = true;
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

/* flush - the chunk's rows to the file (made at the first) */
static void flush(struct ipt_kept_rows *k)
{
	if (!k->in_chunk || k->dropped)
		return;
	if (k->fd < 0 && (k->fd = ipt_tmpfile(NULL)) < 0) {
		drop(k);	/* not the report's error: the iterator decodes again */
		return;
	}
	if (ipt_write_at(k->fd, k->chunk, k->in_chunk * sizeof(*k->chunk),
			 (int64_t)((k->n - k->in_chunk) * sizeof(*k->chunk)))) {
		drop(k);
		return;
	}
	k->in_chunk = 0;
}

bool ipt_kept_add(struct ipt_kept_rows *k, const struct ipt_ipi_row *row)
{
	struct kept_row *kr;

	if (k->dropped)
		return false;
	if (row->src_cpu < 0 || row->src_cpu > UINT16_MAX || row->target_cpu < 0 ||
	    row->target_cpu > UINT16_MAX || row->ntargets > UINT16_MAX || k->n == MAX_ROWS ||
	    (k->n == MULTI_FROM && k->multi * 2 >= k->n)) {
		drop(k);	/* (CPUs past 65535 are not seen: IPT_CPUSET_MAX) */
		return false;
	}
	if (k->in_chunk == CHUNK_ROWS) {
		flush(k);
		if (k->dropped)
			return false;
	}
	kr = &k->chunk[k->in_chunk];
	*kr = (struct kept_row){
		.ts = row->ts, .id = row->id, .callsite = row->callsite, .callback = row->callback,
		.func = row->func, .pid = row->pid, .callsite_off = (uint32_t)row->callsite_off,
		.src_cpu = (uint16_t)row->src_cpu, .target_cpu = (uint16_t)row->target_cpu,
		.ntargets = (uint16_t)row->ntargets, .kind = (uint8_t)row->kind,
		.wide_off = row->callsite_off > UINT32_MAX,
	};
	if (str_num(k, row->comm, &kr->comm) || str_num(k, row->event, &kr->event) ||
	    str_num(k, row->callsite_sym, &kr->callsite_sym) || str_num(k, row->callback_sym, &kr->callback_sym) ||
	    str_num(k, row->func_sym, &kr->func_sym) || str_num(k, row->reason, &kr->reason)) {
		drop(k);	/* no memory for the strings' table */
		return false;
	}
	k->in_chunk++;
	k->n++;
	k->multi += row->ntargets > 1;
	return true;
}

bool ipt_kept_end(struct ipt_kept_rows *k)
{
	if (k->fd >= 0)
		flush(k);	/* the last rows beside the others: read as they are */
	k->ended = true;
	return !k->dropped;
}

bool ipt_kept_for(const struct ipt_kept_rows *k, const char *filter)
{
	return k && k->ended && !k->dropped && !strcmp(k->filter, filter ? filter : "");
}

size_t ipt_kept_count(const struct ipt_kept_rows *k)
{
	return k ? k->n : 0;
}

/* str_at - string num (read back from the file: checked) */
static const char *str_at(const struct ipt_kept_rows *k, uint32_t num)
{
	return num < k->nstrs ? k->strs[num] : NULL;
}

int ipt_kept_next(const struct ipt_kept_rows *k, struct ipt_kept_cursor *c, struct ipt_ipi_row *row)
{
	const struct kept_row *kr;

	if (c->next >= k->n)
		return 0;
	if (k->fd < 0) {	/* all in the chunk */
		kr = &k->chunk[c->next];
	} else {
		if (c->next - c->from >= c->rows) {	/* the next chunk of the file */
			size_t want = k->n - c->next < CHUNK_ROWS ? k->n - c->next : CHUNK_ROWS;

			if (!c->buf && !(c->buf = ipt_malloc(CHUNK_ROWS * sizeof(*kr))))
				return -1;
			if (ipt_read_at(k->fd, c->buf, want * sizeof(*kr), c->next * sizeof(*kr)))
				return ipt_err("report: reading its kept rows back: %s",
					       errno ? strerror(errno) : "end of file");
			c->from = c->next;
			c->rows = want;
		}
		kr = (const struct kept_row *)c->buf + (c->next - c->from);
	}
	c->next++;
	*row = (struct ipt_ipi_row){
		.ts = kr->ts, .id = kr->id, .src_cpu = kr->src_cpu, .target_cpu = kr->target_cpu,
		.pid = kr->pid, .ntargets = kr->ntargets, .comm = str_at(k, kr->comm),
		.event = str_at(k, kr->event), .callsite = kr->callsite,
		.callsite_sym = str_at(k, kr->callsite_sym), .callsite_off = kr->callsite_off,
		.callback = kr->callback, .callback_sym = str_at(k, kr->callback_sym), .func = kr->func,
		.func_sym = str_at(k, kr->func_sym), .reason = str_at(k, kr->reason),
		.kind = (enum ipt_ipi_kind)kr->kind,
	};
	if (kr->wide_off && row->callsite_sym)
		(void)ipt_trace_symbol(k->t, row->callsite, &row->callsite_off);
	return 1;
}

void ipt_kept_cursor_free(struct ipt_kept_cursor *c)
{
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

void ipt_kept_free(struct ipt_kept_rows *k)
{
	if (!k)
		return;
	if (k->fd >= 0)
		close(k->fd);
	free(k->chunk);
	free(k->filter);
	free(k->strs);
	ipt_hmap_free(&k->smap);
	free(k);
}
