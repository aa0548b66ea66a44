// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * module.c - the module ipitrace._ext, the C part of the Python module
 * `ipitrace`: its functions, its init, and the two small ones, info()
 * and version().
 *
 * Over the stable API of libipitrace only (include/ipitrace.h).  The
 * decoding loops run with the GIL released and fill plain C buffers
 * (integers, category codes, null masks); the buffers then become numpy
 * arrays without a copy, and the Python side (ipitrace/__init__.py) wraps
 * them as pandas columns.  Strings that repeat are interned: each column
 * keeps its own table of distinct strings, and rows hold codes into it
 * (-1: null), for pandas.Categorical.from_codes.
 *
 *   Rows(path, filter, explode, threads, columns)   a reader of rows (rows.c)
 *   report(path, filter, by, threads, assume_synced_clock) -> dict of tables
 *   events(path, name, filter) -> dict of columns
 *   spikes(path, threshold_ns, worst, parts) -> (dict of columns, categories)
 *   info(path) -> dict
 *   targets(offsets, cpus, as_mask) -> list of CPU lists or masks
 *   version() -> str
 *   Error: the library's errors
 */
#include "ext.h"

static PyObject *py_info(PyObject *self, PyObject *args)
{
	PyObject *path_obj = NULL, *d;
	struct ipt_trace *t;
	char buf[256];

	if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_obj))
		return NULL;
	t = open_trace(path_obj);
	if (!t)
		return NULL;
	d = PyDict_New();
	if (d && (dset(d, "path", str_or_none(ipt_trace_path(t))) ||
		  dset(d, "ncpus", I64(ipt_trace_ncpus(t))) ||
		  dset(d, "clock", str_or_none(ipt_trace_clock(t))) ||
		  dset(d, "time_unit", str_or_none(ipt_trace_time_unit(t))) ||
		  dset(d, "ts_in_ns", PyBool_FromLong(ipt_trace_ts_in_ns(t))) ||
		  dset(d, "kernel", str_or_none(ipt_trace_uname(t))) ||
		  dset(d, "file_version", I64(ipt_trace_file_version(t))) ||
		  dset(d, "compression", str_or_none(ipt_trace_compression(t))) ||
		  dset(d, "start_utc", str_or_none(ipt_trace_provenance(t, "start_utc", buf, sizeof(buf))))))
		Py_CLEAR(d);
	ipt_trace_close(t);
	return d;
}

static PyObject *py_version(PyObject *self, PyObject *unused)
{
	return PyUnicode_FromString(ipt_version());
}

static PyMethodDef methods[] = {
	{ "report", (PyCFunction)(void (*)(void))py_report, METH_VARARGS | METH_KEYWORDS,
	  "report(path, filter=None, by='comm', threads=0, assume_synced_clock=False)" },
	{ "diff", (PyCFunction)(void (*)(void))py_diff, METH_VARARGS | METH_KEYWORDS,
	  "diff(before, after, by='function', filter=None, isolated=None, threads=0, per_cpu=False)" },
	{ "events", (PyCFunction)(void (*)(void))py_events, METH_VARARGS | METH_KEYWORDS,
	  "events(path, name, filter=None)" },
	{ "spikes", (PyCFunction)(void (*)(void))py_spikes, METH_VARARGS | METH_KEYWORDS,
	  "spikes(path, threshold_ns=0, worst=0, parts=False)" },
	{ "info", py_info, METH_VARARGS, "info(path)" },
	{ "targets", py_targets, METH_VARARGS, "targets(offsets, cpus, as_mask)" },
	{ "version", py_version, METH_NOARGS, "the library's version" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef moddef = {
	PyModuleDef_HEAD_INIT, "ipitrace._ext", "libipitrace for Python (the C part)", -1, methods,
	NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__ext(void)
{
	PyObject *m;

	cols_init();
	if (arrays_init())
		return NULL;
	if (PyType_Ready(&RowsType) < 0)
		return NULL;
	m = PyModule_Create(&moddef);
	if (!m)
		return NULL;
	IptError = PyErr_NewException("ipitrace.Error", PyExc_Exception, NULL);
	if (!IptError || PyModule_AddObject(m, "Error", IptError)) {
		Py_XDECREF(IptError);
		Py_DECREF(m);
		return NULL;
	}
	Py_INCREF(IptError);
	Py_INCREF(&RowsType);
	if (PyModule_AddObject(m, "Rows", (PyObject *)&RowsType)) {
		Py_DECREF(&RowsType);
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
