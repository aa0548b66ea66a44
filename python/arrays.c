// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * arrays.c - the numpy side of ipitrace._ext (the one file that uses
 * numpy's C API): the column buffers handed over as numpy arrays without
 * a copy (a capsule frees them), a frame's columns as a dict for the
 * Python side (ipitrace/__init__.py), and targets(), the flat CPU lists
 * of rows(explode=False) as lists or masks.
 */
#include "ext.h"

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

/* numpy's C API, from the module's init */
int arrays_init(void)
{
	import_array1(-1);
	return 0;
}

static void free_buf(PyObject *cap)
{
	cb_free(PyCapsule_GetPointer(cap, "ipitrace.buf"));
}

/* a 1-D numpy array over buf (n elements of type), owning it; buf is taken
 * (a column buffer, freed on failure) */
static PyObject *wrap(void *buf, size_t n, int type)
{
	npy_intp dim = (npy_intp)n;
	PyObject *a, *cap;

	if (!buf)
		buf = cb_realloc(NULL, 1);
	if (!buf)
		return PyErr_NoMemory();
	a = PyArray_SimpleNewFromData(1, &dim, type, buf);
	if (!a) {
		cb_free(buf);
		return NULL;
	}
	cap = PyCapsule_New(buf, "ipitrace.buf", free_buf);
	if (!cap) {
		cb_free(buf);
		Py_DECREF(a);
		return NULL;
	}
	if (PyArray_SetBaseObject((PyArrayObject *)a, cap)) {
		Py_DECREF(a);
		return NULL;
	}
	return a;
}

static void *shrink(void *p, size_t bytes)
{
	void *q = cb_realloc(p, bytes ? bytes : 1);

	return q ? q : p;
}

static int npy_type(enum col_type t)
{
	switch (t) {
	case T_U64: return NPY_UINT64;
	case T_I64: case T_NI64: return NPY_INT64;
	case T_I32: case T_CAT: return NPY_INT32;
	case T_NBOOL: return NPY_BOOL;
	case T_TARGETS: return NPY_INT64;
	}
	return NPY_INT64;
}

/* the categories of kind and unmatched_reason: the library's names, the
 * codes the enums' values */
static PyObject *fixed_cats(int which)
{
	int n = which == C_KIND ? IPT_KIND__COUNT : 4;
	PyObject *l = PyList_New(n);

	if (!l)
		return NULL;
	for (int i = 0; i < n; i++) {
		const char *s = which == C_KIND ? ipt_kind_name((enum ipt_ipi_kind)i)
						: ipt_unmatched_reason_name((enum ipt_unmatched_reason)(i + 1));
		PyObject *o = PyUnicode_FromString(s ? s : "?");

		if (!o) {
			Py_DECREF(l);
			return NULL;
		}
		PyList_SET_ITEM(l, i, o);
	}
	return l;
}

/* the buffers as a dict of columns; the buffers are handed over */
PyObject *rows_take(struct rows *r)
{
	PyObject *d = PyDict_New(), *v = NULL;
	size_t n = r->n;

	if (!d)
		return NULL;
	for (int i = 0; i < C__COUNT; i++) {
		struct col *c = &r->c[i];
		enum col_type t = cols[i].type;

		v = NULL;

		if (!c->on)
			continue;
		if (r->forced[i]) {	/* kept for the join only */
			cb_free(c->data);
			c->data = NULL;
			continue;
		}
		if (i == C_TGT && !r->explode)
			t = T_TARGETS;
		if (t == T_TARGETS) {
			/* (offsets int64[n+1], cpus int32[]) */
			PyObject *off, *cp;

			if (!c->data && (c->data = cb_realloc(NULL, 8)))
				memset(c->data, 0, 8);
			if (!c->data)
				goto nomem;
			off = wrap(shrink(c->data, (n + 1) * 8), n + 1, NPY_INT64);
			c->data = NULL;
			cp = wrap(shrink(r->cpus, r->ncpus * 4), r->ncpus, NPY_INT32);
			r->cpus = NULL;
			if (off && cp)
				v = PyTuple_Pack(2, off, cp);
			Py_XDECREF(off);
			Py_XDECREF(cp);
			if (!v)
				goto fail;
			if (PyDict_SetItemString(d, "targets", v))
				goto fail_v;
			Py_DECREF(v);
			continue;
		}
		v = wrap(shrink(c->data, n * col_elsize(c, i)), n,
			 t == T_CAT ? (col_elsize(c, i) == 1 ? NPY_INT8 : col_elsize(c, i) == 2 ? NPY_INT16
							       : NPY_INT32) : npy_type(t));
		c->data = NULL;
		if (!v)
			goto fail;
		if (t == T_CAT) {
			PyObject *cats = (i == C_KIND || i == C_UNM) ? fixed_cats(i) : cat_list(&c->cat);
			PyObject *tu = cats ? PyTuple_Pack(2, v, cats) : NULL;

			Py_XDECREF(cats);
			Py_DECREF(v);
			if (!tu)
				goto fail;
			v = tu;
		} else if (t == T_NI64 || t == T_NBOOL) {
			PyObject *mk = wrap(shrink(c->mask, n), n, NPY_BOOL);
			PyObject *tu = mk ? PyTuple_Pack(2, v, mk) : NULL;

			c->mask = NULL;
			Py_XDECREF(mk);
			Py_DECREF(v);
			if (!tu)
				goto fail;
			v = tu;
		}
		if (PyDict_SetItemString(d, cols[i].name, v))
			goto fail_v;
		Py_DECREF(v);
	}
	rows_free_bufs(r);
	return d;
fail_v:
	Py_DECREF(v);
	goto fail;
nomem:
	PyErr_NoMemory();
fail:
	rows_free_bufs(r);
	Py_DECREF(d);
	return NULL;
}

/* masks(offsets, cpus) -> list of Python ints, lists(offsets, cpus) -> list of lists */
PyObject *py_targets(PyObject *self, PyObject *args)
{
	PyArrayObject *off, *cpu;
	int as_mask;
	npy_intp n;
	PyObject *l;

	if (!PyArg_ParseTuple(args, "O!O!p", &PyArray_Type, &off, &PyArray_Type, &cpu, &as_mask))
		return NULL;
	if (PyArray_TYPE(off) != NPY_INT64 || PyArray_TYPE(cpu) != NPY_INT32 || PyArray_NDIM(off) != 1 ||
	    PyArray_NDIM(cpu) != 1 || !PyArray_ISCARRAY_RO(off) || !PyArray_ISCARRAY_RO(cpu) ||
	    PyArray_DIM(off, 0) < 1) {
		PyErr_SetString(PyExc_TypeError, "targets: int64 offsets and int32 cpus");
		return NULL;
	}
	n = PyArray_DIM(off, 0) - 1;
	l = PyList_New(n);
	if (!l)
		return NULL;
	{
		const int64_t *o = PyArray_DATA(off);
		const int32_t *c = PyArray_DATA(cpu);
		int64_t nc = PyArray_DIM(cpu, 0);

		for (npy_intp i = 0; i < n; i++) {
			int64_t a = o[i], b = o[i + 1];
			PyObject *v;

			if (a < 0 || b < a || b > nc) {
				Py_DECREF(l);
				PyErr_SetString(PyExc_ValueError, "targets: bad offsets");
				return NULL;
			}
			if (as_mask) {
				struct ipt_cpuset s = IPT_CPUSET_INIT;

				ipt_cpuset_init(&s);
				for (int64_t j = a; j < b; j++)
					ipt_cpuset_add(&s, (unsigned int)c[j]);
				v = mask_int(&s);
				ipt_cpuset_free(&s);
			} else {
				v = PyList_New(b - a);
				for (int64_t j = a; v && j < b; j++)
					PyList_SET_ITEM(v, j - a, PyLong_FromLong(c[j]));
			}
			if (!v) {
				Py_DECREF(l);
				return NULL;
			}
			PyList_SET_ITEM(l, i, v);
		}
	}
	return l;
}
