// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * evfilter.c - the filter language over the fields of events
 *
 * Names are resolved once to ids in a table of distinct names; for each
 * event type the field each id refers to is found on first use and kept.
 */
#include "core/core.h"

#include <stdlib.h>

#define MAX_NAMES 128

enum special { SP_NONE, SP_CPU, SP_COMM, SP_FUNCTION };

struct ipt_event_filter {
	struct ipt_trace *t;
	struct ipt_filter *f;
	char *names[MAX_NAMES];
	enum special special[MAX_NAMES];
	int nnames;
	/* per event id: field for each name id (NULL: none), resolved lazily */
	const struct ipt_field ***fields;
	int nids;
	/* evaluation context */
	const struct ipt_record *rec;
	struct ipt_cpuset set[4];	/* scratch sets for mask fields */
	int nset;
};

/* resolve - a name to an id; the field must exist in at least one event */
static int resolve(void *ctx, const char *name)
{
	struct ipt_event_filter *ef = ctx;
	enum special sp = SP_NONE;
	size_t len = strlen(name);
	bool known = false;

	if (!strcmp(name, "CPU") || !strcmp(name, "common_cpu"))
		sp = SP_CPU;
	else if (!strcmp(name, "COMM") || !strcmp(name, "common_comm"))
		sp = SP_COMM;
	else if (len > 9 && !strcmp(name + len - 9, ".function")) {
		sp = SP_FUNCTION;
		len -= 9;
	}
	for (int i = 0; i < ef->nnames; i++)
		if (ef->special[i] == sp && strlen(ef->names[i]) == len &&
		    !memcmp(ef->names[i], name, len))
			return i;
	if (ef->nnames == MAX_NAMES)
		return -1;
	if (sp == SP_CPU || sp == SP_COMM)
		known = true;
	for (int i = 0; !known && i < ef->t->nevents; i++) {
		const struct ipt_event *ev = &ef->t->events[i];

		for (int k = 0; k < ev->nfields; k++)
			if (strlen(ev->fields[k].name) == len && !memcmp(ev->fields[k].name, name, len))
				known = true;
	}
	if (!known)
		return -1;
	ef->names[ef->nnames] = ipt_strndup(name, sp == SP_FUNCTION ? len : strlen(name));
	if (!ef->names[ef->nnames])
		return -1;
	ef->special[ef->nnames] = sp;
	return ef->nnames++;
}

/* field_for - the field name id refers to in this record's event */
static const struct ipt_field *field_for(struct ipt_event_filter *ef, const struct ipt_event *ev, int id)
{
	const struct ipt_field **row;

	if (ev->id < 0 || ev->id >= ef->nids)
		return NULL;
	row = ef->fields[ev->id];
	if (!row) {
		row = ipt_calloc((size_t)ef->nnames + 1, sizeof(*row));
		if (!row)
			return NULL;
		for (int i = 0; i < ef->nnames; i++)
			row[i] = ipt_event_field(ev, ef->names[i]);
		ef->fields[ev->id] = row;
	}
	return row[id];
}

static void lookup(void *ctx, int id, struct ipt_value *v)
{
	struct ipt_event_filter *ef = ctx;
	const struct ipt_record *r = ef->rec;
	const struct ipt_field *f;
	uint64_t x;

	memset(v, 0, sizeof(*v));
	if (ef->special[id] == SP_CPU) {
		v->kind = IPT_VAL_INT;
		v->i = (uint64_t)r->cpu;
		return;
	}
	if (ef->special[id] == SP_COMM) {
		v->kind = IPT_VAL_STR;
		v->s = ipt_trace_comm(ef->t, ipt_record_pid(ef->t, r));
		v->slen = strlen(v->s);
		return;
	}
	if (!r->event || !(f = field_for(ef, r->event, id)))
		return;	/* IPT_VAL_NONE */
	if (f->flags & IPT_FIELD_CPUMASK) {
		struct ipt_cpuset *set;

		if (ef->nset == ARRAY_SIZE(ef->set))
			return;
		set = &ef->set[ef->nset];
		if (ipt_field_cpuset(ef->t, r, f, set))
			return;
		ef->nset++;
		v->kind = IPT_VAL_CPUSET;
		v->set = set;
		return;
	}
	if (f->flags & IPT_FIELD_STRING) {
		const uint8_t *d;
		uint32_t n;

		if (ipt_field_bytes(ef->t, r, f, &d, &n))
			return;
		v->kind = IPT_VAL_STR;
		v->s = (const char *)d;
		v->slen = strnlen((const char *)d, n);
		return;
	}
	if (f->flags & (IPT_FIELD_ARRAY | IPT_FIELD_DYNAMIC))
		return;
	if (ipt_field_u64(ef->t, r, f, &x))
		return;
	if ((f->flags & IPT_FIELD_POINTER) || ef->special[id] == SP_FUNCTION) {
		v->kind = IPT_VAL_ADDR;
		v->i = x;
		v->sym = x ? ipt_trace_symbol(ef->t, x, &v->symoff) : NULL;
		return;
	}
	v->kind = IPT_VAL_INT;
	v->i = x;
	v->is_signed = (f->flags & IPT_FIELD_SIGNED) != 0;
}

struct ipt_event_filter *ipt_event_filter_new(struct ipt_trace *t, const char *expr)
{
	struct ipt_event_filter *ef = ipt_calloc(1, sizeof(*ef));

	if (!ef)
		return NULL;
	ef->t = t;
	for (size_t i = 0; i < ARRAY_SIZE(ef->set); i++)
		ipt_cpuset_init(&ef->set[i]);
	ef->f = ipt_filter_parse(expr, resolve, ef);
	if (!ef->f)
		goto fail;
	ef->nids = t->max_id + 1;
	ef->fields = ipt_calloc((size_t)ef->nids + 1, sizeof(*ef->fields));
	if (!ef->fields)
		goto fail;
	return ef;
fail:
	ipt_event_filter_free(ef);
	return NULL;
}

int ipt_event_filter_match(struct ipt_event_filter *ef, const struct ipt_record *rec)
{
	ef->rec = rec;
	ef->nset = 0;
	return ipt_filter_eval(ef->f, lookup, ef);
}

void ipt_event_filter_free(struct ipt_event_filter *ef)
{
	if (!ef)
		return;
	ipt_filter_free(ef->f);
	for (int i = 0; i < ef->nnames; i++)
		free(ef->names[i]);
	for (int i = 0; ef->fields && i < ef->nids; i++)
		free(ef->fields[i]);
	free(ef->fields);
	for (size_t i = 0; i < ARRAY_SIZE(ef->set); i++)
		ipt_cpuset_free(&ef->set[i]);
	free(ef);
}
