// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events.c - ipitrace._ext.events(path, name, filter): every event of one
 * type as a dict of columns (lists): ts_ns, common_cpu, common_pid,
 * common_comm and the event's own fields as Python values (cpumask and
 * bitmask fields as int masks, strings as str, arrays as bytes).
 */
#include "ext.h"

#include <stdio.h>

/* a field of rec as a Python value; None where the record has no value */
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

PyObject *py_events(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "name", "filter", NULL };
	PyObject *path_obj = NULL, *d = NULL;
	const char *name, *filter = NULL, *colon;
	struct ipt_trace *t;
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
	t = open_trace(path_obj);
	if (!t)
		return NULL;
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
