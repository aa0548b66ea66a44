// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * diff.c - ipitrace._ext.diff(before, after, by, filter, isolated,
 * threads): one table of ipt_diff_table as a dict of lists (columns),
 * which the Python side turns into a DataFrame
 */
#include "ext.h"

#include <math.h>
#include <string.h>

static PyObject *num(double v)
{
	if (isnan(v))
		Py_RETURN_NONE;
	return PyFloat_FromDouble(v);
}

/* a quantile in ns, or None */
static PyObject *quant(const struct ipt_dist *d, double q)
{
	if (!d || !ipt_dist_count(d))
		Py_RETURN_NONE;
	return U64(ipt_dist_quantile(d, q));
}

/* the rows as columns */
static int diff_columns(const struct ipt_diff_row *v, size_t n, PyObject *out)
{
	for (size_t i = 0; i < n; i++) {
		const struct ipt_diff_row *d = &v[i];

		if (col_append(out, "key", PyUnicode_DecodeUTF8(d->key, (Py_ssize_t)strlen(d->key), "replace")) ||
		    col_append(out, "role", PyUnicode_FromString(ipt_role_name(d->role))) ||
		    col_append(out, "target_cpu", I64(d->target_cpu)) ||
		    col_append(out, "count_before", U64(d->count[0])) ||
		    col_append(out, "count_after", U64(d->count[1])) ||
		    col_append(out, "per_s_before", num(d->per_s[0])) ||
		    col_append(out, "per_s_after", num(d->per_s[1])) ||
		    col_append(out, "per_cpu_hour_before", num(d->per_cpu_hour[0])) ||
		    col_append(out, "per_cpu_hour_after", num(d->per_cpu_hour[1])) ||
		    col_append(out, "diff_per_s", num(d->diff_per_s)) || col_append(out, "ratio", num(d->ratio)) ||
		    col_append(out, "dispersion", num(d->dispersion)) || col_append(out, "p", num(d->p)) ||
		    col_append(out, "status", PyUnicode_FromString(ipt_diff_status_name(d->status))) ||
		    col_append(out, "untested_because", str_or_none(d->untested_because)) ||
		    col_append(out, "latency_p50_ns_before", quant(d->latency[0], 0.5)) ||
		    col_append(out, "latency_p50_ns_after", quant(d->latency[1], 0.5)) ||
		    col_append(out, "latency_p99_ns_before", quant(d->latency[0], 0.99)) ||
		    col_append(out, "latency_p99_ns_after", quant(d->latency[1], 0.99)) ||
		    col_append(out, "handler_p50_ns_before", quant(d->handler[0], 0.5)) ||
		    col_append(out, "handler_p50_ns_after", quant(d->handler[1], 0.5)) ||
		    col_append(out, "handler_p99_ns_before", quant(d->handler[0], 0.99)) ||
		    col_append(out, "handler_p99_ns_after", quant(d->handler[1], 0.99)))
			return -1;
	}
	return 0;
}

PyObject *py_diff(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "before", "after", "by", "filter", "isolated", "threads", "per_cpu", NULL };
	PyObject *paths[2] = { NULL, NULL }, *out = NULL;
	const char *byname = "function", *filter = NULL, *iso_list = NULL;
	struct ipt_trace *t[2] = { NULL, NULL };
	struct ipt_diff_side *s[2] = { NULL, NULL };
	struct ipt_cpuset iso = IPT_CPUSET_INIT;
	struct ipt_diff_row *v = NULL;
	int threads = 0, per_cpu = 0, by;
	size_t n = 0;
	char err[512] = "";

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&|szzip", kwlist, PyUnicode_FSConverter, &paths[0],
					 PyUnicode_FSConverter, &paths[1], &byname, &filter, &iso_list, &threads,
					 &per_cpu)) {
		Py_XDECREF(paths[0]);
		return NULL;
	}
	by = !strcmp(byname, "role") ? IPT_DIFF_BY_ROLE : ipt_group_by_from_name(byname);
	ipt_cpuset_init(&iso);
	if (iso_list && ipt_cpuset_parse_list(&iso, iso_list, strlen(iso_list))) {
		PyErr_Format(IptError, "isolated: bad CPU list '%s'", iso_list);
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		t[i] = open_trace(paths[i]);
		paths[i] = NULL;	/* open_trace took it */
		if (!t[i])
			goto out;
	}
	Py_BEGIN_ALLOW_THREADS
	{
		struct ipt_diff_opts o = { .sz = sizeof(o), .filter = filter, .isolated = iso_list ? &iso : NULL,
					   .threads = threads > 0 ? threads : 0, .latency = true,
					   .per_cpu = per_cpu };

		for (int i = 0; i < 2 && !err[0]; i++)
			if (!(s[i] = ipt_diff_read(t[i], &o)))
				snprintf(err, sizeof(err), "%s: %s", ipt_trace_path(t[i]), ipt_errmsg());
		if (!err[0] && !(v = ipt_diff_table(s[0], s[1], by, &n)))
			snprintf(err, sizeof(err), "%s", ipt_errmsg());
	}
	Py_END_ALLOW_THREADS
	if (err[0]) {
		PyErr_SetString(IptError, err);
		goto out;
	}
	out = PyDict_New();
	if (out && diff_columns(v, n, out))
		Py_CLEAR(out);
out:
	free(v);
	for (int i = 0; i < 2; i++) {
		Py_XDECREF(paths[i]);
		ipt_diff_side_free(s[i]);
		if (t[i])
			ipt_trace_close(t[i]);
	}
	ipt_cpuset_free(&iso);
	return out;
}
