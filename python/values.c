// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * values.c - what every entry point of ipitrace._ext shares: ipitrace.Error
 * and raising it with the library's message, opening a trace with the GIL
 * released, Python values of the library's (strings, symbols, CPU masks),
 * the builders of dicts of columns, and the text of symbols and stacks as
 * convert writes them.
 */
#include "ext.h"

#include <stdio.h>
#include <stdlib.h>

PyObject *IptError;

/* raise ipitrace.Error with the library's message (or msg when given) */
PyObject *raise_ipt(const char *msg)
{
	const char *m = msg && *msg ? msg : ipt_errmsg();

	if (!m || !*m)
		m = "ipitrace: unknown error";
	if (ipt_errcode() == IPT_ERR_NOMEM && !msg)
		return PyErr_NoMemory();
	PyErr_SetString(IptError, m);
	return NULL;
}

/* open_trace - the trace at path_obj (a bytes path, released here), opened
 * with the GIL released; NULL with ipitrace.Error raised */
struct ipt_trace *open_trace(PyObject *path_obj)
{
	struct ipt_trace *t;
	char err[512] = "";

	Py_BEGIN_ALLOW_THREADS
	t = ipt_trace_open(PyBytes_AS_STRING(path_obj));
	if (!t)
		snprintf(err, sizeof(err), "%s", ipt_errmsg());
	Py_END_ALLOW_THREADS
	Py_DECREF(path_obj);
	if (!t)
		PyErr_SetString(IptError, err[0] ? err : "ipitrace: cannot open");
	return t;
}

/* d[key] = v; v is stolen (NULL: an error already raised) */
int dset(PyObject *d, const char *key, PyObject *v)
{
	int ret;

	if (!v)
		return -1;
	ret = PyDict_SetItemString(d, key, v);
	Py_DECREF(v);
	return ret;
}

/* d[key].append(v), the list created on first use; v is stolen */
int col_append(PyObject *d, const char *key, PyObject *v)
{
	PyObject *l;
	int ret;

	if (!v)
		return -1;
	l = PyDict_GetItemString(d, key);
	if (!l) {
		l = PyList_New(0);
		if (!l || PyDict_SetItemString(d, key, l)) {
			Py_XDECREF(l);
			Py_DECREF(v);
			return -1;
		}
		Py_DECREF(l);
	}
	ret = PyList_Append(l, v);
	Py_DECREF(v);
	return ret;
}

PyObject *str_or_none(const char *s)
{
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "surrogateescape");
}

/* sym_text - a symbol as its column shows it: "sym+0xoff" (written into
 * buf) with with_off, else sym itself */
const char *sym_text(char *buf, size_t size, const char *sym, uint64_t off, bool with_off)
{
	if (!with_off)
		return sym;
	snprintf(buf, size, "%s+0x%llx", sym, (unsigned long long)off);
	return buf;
}

/* the symbol of addr as str, None for 0 or an unknown address */
PyObject *sym_obj(struct ipt_trace *t, uint64_t addr, bool with_off)
{
	uint64_t off;
	const char *s = addr ? ipt_trace_symbol(t, addr, &off) : NULL;
	char b[512];

	if (!s)
		Py_RETURN_NONE;
	return str_or_none(sym_text(b, sizeof(b), s, off, with_off));
}

/* stack_text - the stack as convert writes it, "sym+0xoff" frames joined
 * by ';', appended to sb; -1 out of memory */
int stack_text(const struct ipt_trace *t, const struct ipt_report_stack *st, struct ipt_strbuf *sb)
{
	char buf[512];
	int ret = 0;

	for (uint32_t i = 0; i < st->nframes; i++) {
		ipt_trace_format_symbol(t, st->frames[i], true, buf, sizeof(buf));
		ret |= (i ? ipt_strbuf_addc(sb, ';') : 0) | ipt_strbuf_adds(sb, buf);
	}
	return ret ? -1 : 0;
}

/* a CPU set as a Python int (bit i = CPU i) */
PyObject *mask_int(const struct ipt_cpuset *s)
{
	int last = ipt_cpuset_last(s);
	size_t nb = last < 0 ? 1 : (size_t)last / 8 + 1;
	unsigned char small[64], *b = nb <= sizeof(small) ? small : calloc(nb, 1);
	PyObject *o;

	if (!b)
		return PyErr_NoMemory();
	memset(b, 0, nb);
	for (int c = ipt_cpuset_next(s, 0); c >= 0; c = ipt_cpuset_next(s, (unsigned int)c + 1))
		b[c / 8] |= (unsigned char)(1u << (c % 8));
	o = _PyLong_FromByteArray(b, nb, 1, 0);
	if (b != small)
		free(b);
	return o;
}
