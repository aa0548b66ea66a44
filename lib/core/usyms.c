// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * usyms.c - the user-space symbols `ipitrace record --user-stacks` stores
 * (the private option IPT_OPTION_USER_SYMBOLS, see core.h): what each
 * address of a sender's user stack was, resolved at record time while the
 * process and its maps existed, so that reports work offline.
 *
 * The report's stacks hold a user frame as a token (IPT_UFRAME_TAG | the
 * index of its (process, address) entry here), so that one 64-bit frame
 * names both, and every place that shows a frame (ipt_trace_symbol) knows
 * user frames without knowing stacks.
 */
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

struct ipt_usyms {
	struct ipt_usym {
		int32_t tgid;
		uint64_t addr, off;
		const char *module, *name;	/* NULL: unknown */
		bool nofp;			/* no frame pointer kept there ("n" line) */
	} *v;				/* sorted by (tgid, addr) */
	size_t n;
	uint32_t *canon;		/* per entry: the first entry of the same file,
					 * function and offset (in another process) */
	struct ipt_uproc {
		int32_t tgid;
		enum ipt_uproc_state state;
	} *proc;
	size_t nproc;
	char *text;			/* a copy of the option: the names point into it */
	char *raw;			/* the option as stored, for rewriting (explode) */
};

void ipt_usyms_free(struct ipt_usyms *u)
{
	if (!u)
		return;
	free(u->v);
	free(u->canon);
	free(u->proc);
	free(u->text);
	free(u->raw);
	free(u);
}

static int cmp_usym(const void *a, const void *b)
{
	const struct ipt_usym *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const char *const state_names[] = {
	[IPT_UPROC_MAPS] = "maps", [IPT_UPROC_GONE] = "gone", [IPT_UPROC_DENIED] = "denied",
};

const char *ipt_uproc_state_name(enum ipt_uproc_state s)
{
	return (unsigned int)s < sizeof(state_names) / sizeof(state_names[0]) ? state_names[s] : "?";
}

/* word - the next space-separated word of [*s, e), NUL-terminated in place */
static char *word(char **s, char *e)
{
	char *w = *s, *p = *s;

	while (p < e && *p != ' ')
		p++;
	if (p == w)
		return NULL;
	if (p < e)
		*p++ = '\0';
	*s = p;
	return w;
}

static bool parse_num(const char *w, int base, uint64_t *v)
{
	char *end;

	if (!w || !*w || *w == '-' || *w == '+')
		return false;
	*v = strtoull(w, &end, base);
	return !*end;
}

static const char *name_or_null(const char *w)
{
	return w && strcmp(w, "-") ? w : NULL;
}

/* parse_line - one "p ..." or "a ..." line (NUL-terminated, at s) */
static int parse_line(struct ipt_usyms *u, char *s, char *e, size_t *capv, size_t *capp)
{
	char *kind = word(&s, e), *tgid_w = word(&s, e);
	uint64_t tgid;

	if (!kind || !parse_num(tgid_w, 10, &tgid) || tgid > INT32_MAX || kind[1])
		return -1;
	if (*kind == 'p') {
		const char *st = word(&s, e);
		size_t i;

		for (i = 0; i < sizeof(state_names) / sizeof(state_names[0]); i++)
			if (st && !strcmp(st, state_names[i]))
				break;
		if (i == sizeof(state_names) / sizeof(state_names[0]))
			return -1;
		if (IPT_GROW(u->proc, *capp, u->nproc + 1))
			return -2;
		u->proc[u->nproc++] = (struct ipt_uproc){ (int32_t)tgid, (enum ipt_uproc_state)i };
		return 0;
	}
	if (*kind == 'a') {
		uint64_t addr, off;
		const char *addr_w = word(&s, e), *off_w = word(&s, e), *mod = word(&s, e);

		/* the function is the rest of the line (a name may hold spaces) */
		if (!parse_num(addr_w, 16, &addr) || !parse_num(off_w, 16, &off) || !mod || s >= e)
			return -1;
		if (u->n >= IPT_UFRAME_MAX)
			return -1;
		if (IPT_GROW(u->v, *capv, u->n + 1))
			return -2;
		u->v[u->n++] = (struct ipt_usym){ (int32_t)tgid, addr, off, name_or_null(mod),
						  name_or_null(s), false };
		return 0;
	}
	if (*kind == 'n') {	/* the "a" line just before it: no frame pointer there */
		const char *addr_w = word(&s, e);
		uint64_t addr;

		if (!parse_num(addr_w, 16, &addr) || s < e || !u->n || u->v[u->n - 1].tgid != (int32_t)tgid ||
		    u->v[u->n - 1].addr != addr)
			return -1;
		u->v[u->n - 1].nofp = true;
		return 0;
	}
	return -1;
}

/* hash_str - h and a string (NULL: as "") */
static uint64_t hash_str(uint64_t h, const char *s)
{
	return ipt_hash_combine(h, s ? ipt_hash_bytes(s, strlen(s)) : 0);
}

struct place {			/* an entry of the table of places */
	uint64_t tag;
	size_t first;			/* the first entry at that place */
};

struct place_key {
	const struct ipt_usyms *u;
	const struct ipt_usym *e;
};

/* same_place - the place's first entry names the same file, function and
 * offset as the key's entry */
static bool same_place(const void *entry, const void *key)
{
	const struct place_key *k = key;
	const struct ipt_usym *a = &k->u->v[((const struct place *)entry)->first], *b = k->e;

	return a->off == b->off && !strcmp(a->module, b->module) && !strcmp(a->name, b->name);
}

/* canonicalize - canon[i]: the first entry at the same place as entry i
 * (itself when its function or file is unknown), so that the same code
 * path in two processes is one stack */
static int canonicalize(struct ipt_usyms *u)
{
	struct ipt_hmap places = { 0 };

	u->canon = ipt_malloc((u->n ? u->n : 1) * sizeof(*u->canon));
	if (!u->canon || ipt_hmap_reserve(&places, sizeof(struct place), u->n))
		return -1;
	for (size_t i = 0; i < u->n; i++) {
		const struct ipt_usym *e = &u->v[i];
		struct place_key k = { u, e };
		struct place *p;
		uint64_t tag;

		u->canon[i] = (uint32_t)i;
		if (!e->name || !e->module)
			continue;
		tag = ipt_hmap_tag(hash_str(hash_str(ipt_hash64(e->off), e->module), e->name));
		p = ipt_hmap_find(&places, sizeof(*p), tag, same_place, &k);
		if (ipt_hmap_used(p)) {
			u->canon[i] = (uint32_t)p->first;
		} else {
			ipt_hmap_take(&places, p, tag);
			p->first = i;
		}
	}
	ipt_hmap_free(&places);
	return 0;
}

int ipt_usyms_parse(struct ipt_trace *t, const uint8_t *d, uint32_t size, long long at)
{
	struct ipt_usyms *u = ipt_calloc(1, sizeof(*u));
	size_t capv = 0, capp = 0, len = 0;
	char *s, *end;
	long long line = 0;

	if (!u)
		return -1;
	while (len < size && d[len])
		len++;
	u->text = ipt_malloc(len + 1);
	u->raw = ipt_malloc(len + 1);
	if (!u->text || !u->raw)
		goto fail;
	memcpy(u->text, d, len);
	u->text[len] = '\0';
	memcpy(u->raw, u->text, len + 1);
	end = u->text + len;
	for (s = u->text; s < end;) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		char *e = nl ? nl : end;
		int rc;

		line++;
		*e = '\0';
		if (e > s && (rc = parse_line(u, s, e, &capv, &capp))) {
			if (rc == -1)
				ipt_err_at(t->path, at, "user symbols option: line %lld malformed", line);
			goto fail;
		}
		s = e + 1;
	}
	if (u->n)
		qsort(u->v, u->n, sizeof(*u->v), cmp_usym);
	if (canonicalize(u))
		goto fail;
	ipt_usyms_free(t->usyms);
	t->usyms = u;
	return 0;
fail:
	ipt_usyms_free(u);
	return -1;
}

/* find - the entry of (tgid, addr), NULL if none */
static const struct ipt_usym *find(const struct ipt_usyms *u, int32_t tgid, uint64_t addr)
{
	size_t lo = 0, hi = u ? u->n : 0;
	struct ipt_usym key = { .tgid = tgid, .addr = addr };

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_usym(&key, &u->v[mid]);

		if (!c)
			return &u->v[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const char *ipt_usyms_text(const struct ipt_trace *t)
{
	return t->usyms ? t->usyms->raw : NULL;
}

uint64_t ipt_usym_canonical(const struct ipt_trace *t, uint64_t frame)
{
	const struct ipt_usyms *u = t->usyms;
	uint64_t i = frame & ~IPT_UFRAME_TAG_MASK;

	if ((frame & IPT_UFRAME_TAG_MASK) != IPT_UFRAME_TAG || !u || i >= u->n)
		return frame;
	return IPT_UFRAME_TAG | u->canon[i];
}

bool ipt_usym_nofp(const struct ipt_trace *t, uint64_t frame)
{
	const struct ipt_usyms *u = t->usyms;
	uint64_t i = frame & ~IPT_UFRAME_TAG_MASK;

	return (frame & IPT_UFRAME_TAG_MASK) == IPT_UFRAME_TAG && u && i < u->n && u->v[i].nofp;
}

uint64_t ipt_usym_token(const struct ipt_trace *t, int32_t tgid, uint64_t addr)
{
	const struct ipt_usym *s = find(t->usyms, tgid, addr);

	return s ? IPT_UFRAME_TAG | (uint64_t)(s - t->usyms->v) : addr;
}

bool ipt_trace_has_user_symbols(const struct ipt_trace *t)
{
	return t && t->usyms;
}

enum ipt_uproc_state ipt_trace_user_process(const struct ipt_trace *t, int32_t tgid, bool *known)
{
	const struct ipt_usyms *u = t ? t->usyms : NULL;

	for (size_t i = 0; u && i < u->nproc; i++)
		if (u->proc[i].tgid == tgid) {
			if (known)
				*known = true;
			return u->proc[i].state;
		}
	if (known)
		*known = false;
	return IPT_UPROC_GONE;
}

bool ipt_trace_user_frame(const struct ipt_trace *t, uint64_t frame, struct ipt_user_frame *uf)
{
	const struct ipt_usyms *u = t ? t->usyms : NULL;
	uint64_t i = frame & ~IPT_UFRAME_TAG_MASK;

	memset(uf, 0, sizeof(*uf));
	if ((frame & IPT_UFRAME_TAG_MASK) != IPT_UFRAME_TAG)
		return false;
	if (frame == IPT_UFRAME_CUT) {
		uf->cut = true;
		uf->function = IPT_UFRAME_CUT_NAME;
		return true;
	}
	if (frame == IPT_UFRAME_SKIP) {
		uf->skip = true;
		uf->function = IPT_UFRAME_SKIP_NAME;
		return true;
	}
	if (!u || i >= u->n)
		return false;
	uf->tgid = u->v[i].tgid;
	uf->addr = u->v[i].addr;
	uf->off = u->v[i].off;
	uf->module = u->v[i].module;
	uf->function = u->v[i].name;
	return true;
}

const char *ipt_usym_name(const struct ipt_trace *t, uint64_t frame, uint64_t *offset)
{
	struct ipt_user_frame uf;

	if (!ipt_trace_user_frame(t, frame, &uf) || !uf.function)
		return NULL;
	if (offset)
		*offset = uf.off;
	return uf.function;
}

uint64_t ipt_trace_frame_address(const struct ipt_trace *t, uint64_t frame)
{
	struct ipt_user_frame uf;

	if (ipt_trace_user_frame(t, frame, &uf))
		return uf.addr;
	return frame;
}
