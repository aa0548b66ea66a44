// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rows.c - the Python type Rows (ipitrace._ext.Rows), the reader behind
 * ipitrace.rows() and iter_rows(): its arguments (the columns asked
 * for), next(n) with the GIL released, and its end.
 *
 *   Rows(path, filter, explode, threads, columns)
 *       .next(n) -> dict name -> array / (codes, categories) / (values, mask)
 *       of up to n rows (0: all), None at the end
 */
#include "ext.h"

#include <stdlib.h>

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
		rows_set_err(r);
	Py_END_ALLOW_THREADS
	r->busy = false;
	Py_DECREF(path_obj);
	if (ret) {
		PyErr_SetString(IptError, r->err[0] ? r->err : "ipitrace: cannot open");
		return -1;
	}
	return 0;
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
		rows_set_err(r);
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

PyTypeObject RowsType = {
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
