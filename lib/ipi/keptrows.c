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

/*
 * A row is 32 bytes: what the rows of a send share and what they share
 * with the sends of the same place (the event, the kind, the addresses
 * and their symbols, the reason) is a site, numbered in a table; the task
 * (pid and name) too.  A trace of many places or tasks (more than
 * MAX_SITES or MAX_TASKS) is not kept.
 */
struct kept_row {
	uint64_t ts, id;
	uint32_t site, task;		/* sites[], tasks[] */
	uint16_t src_cpu, target_cpu, ntargets, pad;
};
_Static_assert(sizeof(struct kept_row) == 32, "a kept row's size, as keptrows.h says");

struct kept_site {
	uint64_t callsite, callsite_off, callback, func;
	const char *event, *callsite_sym, *callback_sym, *func_sym, *reason;
	enum ipt_ipi_kind kind;
};
struct kept_task {
	int32_t pid;
	const char *comm;
};

#define CHUNK_ROWS ((1u << 20) / sizeof(struct kept_row))
/* at most 4 Mi rows (128 MiB of file): $TMPDIR's room is not asked for
 * more (a trace of more rows has them dropped at the cap, and is decoded
 * again).  And not the rows of
 * multicasts (a row per target CPU, which the decoder makes at little
 * cost each: a 6 MB synthetic trace of 1 M such rows took 174 -> 195 ms
 * to convert, dropped at 256 Ki): dropped once they are half of
 * MULTI_FROM rows or more. */
#define MAX_ROWS (4u << 20)
#define MULTI_FROM 4096u
#define MAX_SITES (1u << 16)
#define MAX_TASKS (1u << 18)

struct num_ent {			/* a site's or task's number, by its fields */
	uint64_t tag;
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
	struct ipt_hmap smap, tmap;	/* of struct num_ent: sites, tasks */
	struct kept_site *sites;
	size_t nsites, capsites;
	struct kept_task *tasks;
	size_t ntasks, captasks;
	uint32_t last_site, last_task;	/* the last row's (a run of the same is common) */
};

struct ipt_kept_rows *ipt_kept_new(struct ipt_trace *t, const char *filter)
{
	struct ipt_kept_rows *k = ipt_calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->t = t;
	k->fd = -1;
	k->filter = strdup(filter ? filter : "");
	k->chunk = ipt_malloc_table(CHUNK_ROWS * sizeof(*k->chunk));	/* a huge page: one fault, not 256 */
	k->last_site = k->last_task = UINT32_MAX;
	if (!k->filter || !k->chunk) {
		ipt_kept_free(k);
		return NULL;
	}
	return k;
}

static bool same_site(const struct kept_site *a, const struct ipt_ipi_row *r)
{
	return a->callsite == r->callsite && a->callsite_off == r->callsite_off && a->callback == r->callback &&
	       a->func == r->func && a->event == r->event && a->callsite_sym == r->callsite_sym &&
	       a->callback_sym == r->callback_sym && a->func_sym == r->func_sym && a->reason == r->reason &&
	       a->kind == r->kind;
}

/* the key compared is the row; the entry's number indexes k->sites */
struct site_key {
	const struct ipt_kept_rows *k;
	const struct ipt_ipi_row *r;
};

static bool site_eq(const void *e, const void *key)
{
	const struct site_key *sk = key;

	return same_site(&sk->k->sites[((const struct num_ent *)e)->num], sk->r);
}

static uint64_t site_hash(const struct ipt_ipi_row *r)
{
	uint64_t h = ipt_hash64(r->callsite);

	h = ipt_hash_combine(h, r->callsite_off);
	h = ipt_hash_combine(h, r->callback);
	h = ipt_hash_combine(h, r->func);
	h = ipt_hash_combine(h, (uint64_t)(uintptr_t)r->event ^ ((uint64_t)(uintptr_t)r->callsite_sym << 1));
	h = ipt_hash_combine(h, (uint64_t)(uintptr_t)r->callback_sym ^ ((uint64_t)(uintptr_t)r->func_sym << 1));
	return ipt_hash_combine(h, (uint64_t)(uintptr_t)r->reason ^ (uint64_t)r->kind);
}

/* site_num - the number of the row's site; -1 past MAX_SITES or without
 * memory */
static int site_num(struct ipt_kept_rows *k, const struct ipt_ipi_row *r, uint32_t *num)
{
	struct site_key key = { k, r };
	struct num_ent *e;
	bool added;

	if (k->last_site != UINT32_MAX && same_site(&k->sites[k->last_site], r)) {
		*num = k->last_site;
		return 0;
	}
	e = ipt_hmap_add(&k->smap, sizeof(*e), ipt_hmap_tag(site_hash(r)), site_eq, &key, &added);
	if (!e)
		return -1;
	if (added) {
		if (k->nsites >= MAX_SITES || IPT_GROW(k->sites, k->capsites, k->nsites + 1)) {
			ipt_hmap_remove(&k->smap, sizeof(*e), e);
			return -1;
		}
		e->num = (uint32_t)k->nsites;
		k->sites[k->nsites++] = (struct kept_site){
			.callsite = r->callsite, .callsite_off = r->callsite_off, .callback = r->callback,
			.func = r->func, .event = r->event, .callsite_sym = r->callsite_sym,
			.callback_sym = r->callback_sym, .func_sym = r->func_sym, .reason = r->reason,
			.kind = r->kind,
		};
	}
	*num = k->last_site = e->num;
	return 0;
}

struct task_key {
	const struct ipt_kept_rows *k;
	int32_t pid;
	const char *comm;
};

static bool task_eq(const void *e, const void *key)
{
	const struct task_key *tk = key;
	const struct kept_task *t = &tk->k->tasks[((const struct num_ent *)e)->num];

	return t->pid == tk->pid && t->comm == tk->comm;
}

/* task_num - the number of the row's task (pid and name), as site_num */
static int task_num(struct ipt_kept_rows *k, const struct ipt_ipi_row *r, uint32_t *num)
{
	struct task_key key = { k, r->pid, r->comm };
	struct num_ent *e;
	bool added;

	if (k->last_task != UINT32_MAX && k->tasks[k->last_task].pid == r->pid &&
	    k->tasks[k->last_task].comm == r->comm) {
		*num = k->last_task;
		return 0;
	}
	e = ipt_hmap_add(&k->tmap, sizeof(*e),
			 ipt_hmap_tag(ipt_hash_combine(ipt_hash64((uint64_t)(uint32_t)r->pid),
						       (uint64_t)(uintptr_t)r->comm)),
			 task_eq, &key, &added);
	if (!e)
		return -1;
	if (added) {
		if (k->ntasks >= MAX_TASKS || IPT_GROW(k->tasks, k->captasks, k->ntasks + 1)) {
			ipt_hmap_remove(&k->tmap, sizeof(*e), e);
			return -1;
		}
		e->num = (uint32_t)k->ntasks;
		k->tasks[k->ntasks++] = (struct kept_task){ .pid = r->pid, .comm = r->comm };
	}
	*num = k->last_task = e->num;
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
		.ts = row->ts, .id = row->id, .src_cpu = (uint16_t)row->src_cpu,
		.target_cpu = (uint16_t)row->target_cpu, .ntargets = (uint16_t)row->ntargets,
	};
	if (site_num(k, row, &kr->site) || task_num(k, row, &kr->task)) {
		drop(k);	/* many places or tasks, or no memory for their tables */
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

int ipt_kept_next(const struct ipt_kept_rows *k, struct ipt_kept_cursor *c, struct ipt_ipi_row *row)
{
	const struct kept_row *kr;
	const struct kept_site *site;
	const struct kept_task *task;

	if (c->next >= k->n || (c->until && c->next >= c->until))
		return 0;
	if (k->fd < 0) {	/* all in the chunk */
		kr = &k->chunk[c->next];
	} else {
		if (c->next - c->from >= c->rows) {	/* the next chunk of the file */
			size_t end = c->until && c->until < k->n ? c->until : k->n;
			size_t want = end - c->next < CHUNK_ROWS ? end - c->next : CHUNK_ROWS;

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
	if (kr->site >= k->nsites || kr->task >= k->ntasks)
		return ipt_err("report: its kept rows read back wrong (a site or task out of range)");
	site = &k->sites[kr->site];
	task = &k->tasks[kr->task];
	*row = (struct ipt_ipi_row){
		.ts = kr->ts, .id = kr->id, .src_cpu = kr->src_cpu, .target_cpu = kr->target_cpu,
		.pid = task->pid, .ntargets = kr->ntargets, .comm = task->comm, .event = site->event,
		.callsite = site->callsite, .callsite_sym = site->callsite_sym,
		.callsite_off = site->callsite_off, .callback = site->callback,
		.callback_sym = site->callback_sym, .func = site->func, .func_sym = site->func_sym,
		.reason = site->reason, .kind = site->kind,
	};
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
	free(k->sites);
	free(k->tasks);
	ipt_hmap_free(&k->smap);
	ipt_hmap_free(&k->tmap);
	free(k);
}
