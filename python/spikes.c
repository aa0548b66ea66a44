// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * spikes.c - ipitrace._ext.spikes(path, threshold_ns, worst, parts): the
 * latency spikes of ipt_spikes_explain as a dict of lists (columns), one
 * row per spike, or with parts one row per part of a spike (its IPIs, its
 * csd runs, its noise, then what is left unaccounted), and the categories of its fixed
 * string columns; the Python side turns them into DataFrames (spikes(),
 * spike_parts()).  A value is None where `ipitrace explain -f json`
 * (src/cmd_explain.c) writes null.
 */
#include "ext.h"

#include <stdio.h>

/* the columns of spike_parts(), in their order: one value each per row */
enum part_col {
	P_SPIKE, P_CPU, P_SOURCE, P_SEQ, P_SPIKE_TS, P_LATENCY, P_PART, P_COUNTED, P_TS, P_NS,
	P_DURATION, P_NAME, P_NUM, P_BEFORE, P_KIND, P_COALESCED, P_SEND, P_SRC_CPU, P_PID, P_COMM,
	P_CALLSITE_SYM, P_FUNC_NAME, P_STACK, P__COUNT
};

static const char *const part_names[P__COUNT] = {
	"spike", "cpu", "source", "seq", "spike_ts_ns", "latency_ns", "part", "counted", "ts_ns", "ns",
	"duration_ns", "name", "num", "before_window", "kind", "coalesced", "send_ns", "src_cpu", "pid",
	"comm", "callsite_sym", "func_name", "stack",
};

/* the value v, or None when !has */
static PyObject *u64_if(bool has, uint64_t v)
{
	if (!has)
		Py_RETURN_NONE;
	return U64(v);
}

static PyObject *i64_if(bool has, int64_t v)
{
	if (!has)
		Py_RETURN_NONE;
	return I64(v);
}

static const char *source_name(const struct ipt_spike *s)
{
	return s->osnoise ? "osnoise" : "timerlat";
}

/* spike_row - the row of spike i (the columns of spikes()) */
static int spike_row(PyObject *d, size_t i, const struct ipt_spike *s)
{
	return col_append(d, "spike", U64(i)) || col_append(d, "cpu", I64(s->cpu)) ||
	       col_append(d, "source", PyUnicode_FromString(source_name(s))) ||
	       col_append(d, "seq", u64_if(!s->osnoise, s->seq)) || col_append(d, "ts_ns", U64(s->ts_ns)) ||
	       col_append(d, "start_ns", U64(s->start_ns)) || col_append(d, "latency_ns", U64(s->latency_ns)) ||
	       col_append(d, "interferences", u64_if(s->osnoise, s->interference)) ||
	       col_append(d, "ipis", U64(s->nipis)) || col_append(d, "ipi_ns", U64(s->ipi_ns)) ||
	       col_append(d, "noise_known", PyBool_FromLong(s->noise_known)) ||
	       col_append(d, "listed_ns", U64(s->listed_ns)) ||
	       col_append(d, "unaccounted_ns", u64_if(!s->over, s->unaccounted_ns)) ||
	       col_append(d, "excess_ns", u64_if(s->over, s->excess_ns)) ? -1 : 0;
}

/*
 * part_row - one row of spike_parts() appended: v[P_TS ..] holds the
 * part's own values (None where it has none; NULL: an error was raised),
 * v[.. P_TS) is filled here with what every part of spike i has.  Every
 * value is stolen.
 */
static int part_row(PyObject *d, size_t i, const struct ipt_spike *s, const char *part, bool counted,
		    PyObject *v[P__COUNT])
{
	int ret = 0;

	v[P_SPIKE] = U64(i);
	v[P_CPU] = I64(s->cpu);
	v[P_SOURCE] = PyUnicode_FromString(source_name(s));
	v[P_SEQ] = u64_if(!s->osnoise, s->seq);
	v[P_SPIKE_TS] = U64(s->ts_ns);
	v[P_LATENCY] = U64(s->latency_ns);
	v[P_PART] = PyUnicode_FromString(part);
	v[P_COUNTED] = PyBool_FromLong(counted);
	for (int c = 0; c < P__COUNT; c++)
		if (!v[c])
			ret = -1;
	for (int c = 0; c < P__COUNT; c++) {
		if (!ret)
			ret = col_append(d, part_names[c], v[c]);	/* steals */
		else
			Py_XDECREF(v[c]);
		v[c] = NULL;
	}
	return ret;
}

/* none - v[from..to) None */
static void none(PyObject *v[P__COUNT], int from, int to)
{
	for (int c = from; c < to; c++) {
		Py_INCREF(Py_None);
		v[c] = Py_None;
	}
}

/* noise_name - a noise's name (its array NUL-ended or not) as str */
static PyObject *noise_name(const struct ipt_spike_noise *nz)
{
	return PyUnicode_DecodeUTF8(nz->name, (Py_ssize_t)strnlen(nz->name, sizeof(nz->name)), "surrogateescape");
}

/* stack_obj - an IPI's sender's stack as the frames' "sym+0xoff" joined
 * by ';' (as `explain -f csv` and rows() write it), or None without one */
static PyObject *stack_obj(const struct ipt_trace *t, const struct ipt_spike_ipi *ip)
{
	struct ipt_report_stack st = { .frames = ip->stack, .nframes = ip->nstack };
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	PyObject *o;

	if (!ip->stack || !ip->nstack)
		Py_RETURN_NONE;
	if (stack_text(t, &st, &sb)) {
		ipt_strbuf_free(&sb);
		return PyErr_NoMemory();
	}
	o = str_or_none(ipt_strbuf_str(&sb));
	ipt_strbuf_free(&sb);
	return o;
}

/* callsite_text - "sym+0xoff" of an IPI's call site, or NULL */
static const char *callsite_text(const struct ipt_spike_ipi *ip, char *buf, size_t n)
{
	return ip->callsite ? sym_text(buf, n, ip->callsite, ip->callsite_off, true) : NULL;
}

static int ipi_part(PyObject *d, const struct ipt_trace *t, size_t i, const struct ipt_spike *s,
		    const struct ipt_spike_ipi *ip)
{
	const struct ipt_spike_noise *tied = ip->noise >= 0 ? ipt_spike_noise_get(s, (size_t)ip->noise) : NULL;
	PyObject *v[P__COUNT] = { NULL };
	char cs[512];

	none(v, P_TS, P__COUNT);
	Py_SETREF(v[P_TS], U64(ip->entry_ns));
	Py_SETREF(v[P_NS], u64_if(ip->has_handler && !ip->coalesced, ip->handler_ns));
	Py_SETREF(v[P_NAME], tied ? noise_name(tied) : str_or_none(NULL));
	Py_SETREF(v[P_KIND], str_or_none(ipt_kind_name(ip->kind)));
	Py_SETREF(v[P_COALESCED], PyBool_FromLong(ip->coalesced));
	Py_SETREF(v[P_SEND], U64(ip->send_ns));
	Py_SETREF(v[P_SRC_CPU], I64(ip->src_cpu));
	Py_SETREF(v[P_PID], I64(ip->pid));
	Py_SETREF(v[P_COMM], str_or_none(ip->comm));
	Py_SETREF(v[P_CALLSITE_SYM], str_or_none(callsite_text(ip, cs, sizeof(cs))));
	Py_SETREF(v[P_FUNC_NAME], str_or_none(ip->func));
	Py_SETREF(v[P_STACK], stack_obj(t, ip));
	return part_row(d, i, s, "ipi", !s->noise_known, v);
}

/* csd_part - a csd function run: its entry, run time, function and (when
 * recorded) its queueing in the sender's columns */
static int csd_part(PyObject *d, size_t i, const struct ipt_spike *s, const struct ipt_spike_csd *c)
{
	PyObject *v[P__COUNT] = { NULL };

	none(v, P_TS, P__COUNT);
	Py_SETREF(v[P_TS], U64(c->entry_ns));
	Py_SETREF(v[P_NS], u64_if(c->has_exit, c->run_ns));
	Py_SETREF(v[P_SEND], u64_if(c->queued, c->queue_ns));
	Py_SETREF(v[P_SRC_CPU], i64_if(c->queued, c->src_cpu));
	Py_SETREF(v[P_PID], i64_if(c->queued, c->pid));
	Py_SETREF(v[P_COMM], str_or_none(c->queued ? c->comm : NULL));
	Py_SETREF(v[P_CALLSITE_SYM], str_or_none(c->queued ? c->callsite : NULL));
	Py_SETREF(v[P_FUNC_NAME], str_or_none(c->func));
	return part_row(d, i, s, "csd", false, v);
}

static int noise_part(PyObject *d, size_t i, const struct ipt_spike *s, const struct ipt_spike_noise *nz)
{
	PyObject *v[P__COUNT] = { NULL };

	none(v, P_TS, P__COUNT);
	Py_SETREF(v[P_TS], U64(nz->end_ns));
	Py_SETREF(v[P_NS], U64(nz->counted_ns));
	Py_SETREF(v[P_DURATION], U64(nz->duration_ns));
	Py_SETREF(v[P_NAME], noise_name(nz));
	Py_SETREF(v[P_NUM], i64_if(nz->kind != IPT_SPIKE_NOISE_NMI, nz->num));
	Py_SETREF(v[P_BEFORE], PyBool_FromLong(nz->before_window));
	return part_row(d, i, s, ipt_spike_noise_kind_name(nz->kind), s->noise_known, v);
}

static int unaccounted_part(PyObject *d, size_t i, const struct ipt_spike *s)
{
	PyObject *v[P__COUNT] = { NULL };

	none(v, P_TS, P__COUNT);
	Py_SETREF(v[P_NS], u64_if(!s->over, s->unaccounted_ns));
	return part_row(d, i, s, "unaccounted", true, v);
}

/* parts_rows - the rows of spike i: its IPIs, its csd runs, its noise,
 * what is left */
static int parts_rows(PyObject *d, const struct ipt_trace *t, size_t i, const struct ipt_spike *s)
{
	for (size_t k = 0; k < s->nipis; k++)
		if (ipi_part(d, t, i, s, ipt_spike_ipi_get(s, k)))
			return -1;
	for (size_t k = 0; k < s->ncsd; k++)
		if (csd_part(d, i, s, ipt_spike_csd_get(s, k)))
			return -1;
	for (size_t k = 0; k < s->nnoise; k++)
		if (noise_part(d, i, s, ipt_spike_noise_get(s, k)))
			return -1;
	return unaccounted_part(d, i, s);
}

/* add_str - s appended to list l; -1 on error */
static int add_str(PyObject *l, const char *s)
{
	PyObject *o = PyUnicode_FromString(s);
	int ret = o ? PyList_Append(l, o) : -1;

	Py_XDECREF(o);
	return ret;
}

/* categories - the fixed categories of the string columns: source, part
 * ("ipi", "csd", the noise kinds, "unaccounted") and kind (the library's
 * kinds) */
static PyObject *categories(void)
{
	PyObject *d = PyDict_New(), *src = PyList_New(0), *part = PyList_New(0), *kind = PyList_New(0);
	int bad = !d || !src || !part || !kind;

	bad = bad || add_str(src, "timerlat") || add_str(src, "osnoise") || add_str(part, "ipi") ||
	      add_str(part, "csd");
	for (int k = IPT_SPIKE_NOISE_IRQ; !bad && k <= IPT_SPIKE_NOISE_THREAD; k++)
		bad = add_str(part, ipt_spike_noise_kind_name((enum ipt_spike_noise_kind)k));
	bad = bad || add_str(part, "unaccounted");
	for (int k = 0; !bad && k < IPT_KIND__COUNT; k++)
		bad = add_str(kind, ipt_kind_name((enum ipt_ipi_kind)k));
	bad = bad || PyDict_SetItemString(d, "source", src) || PyDict_SetItemString(d, "part", part) ||
	      PyDict_SetItemString(d, "kind", kind);
	Py_XDECREF(src);
	Py_XDECREF(part);
	Py_XDECREF(kind);
	if (bad)
		Py_CLEAR(d);
	return d;
}

/*
 * spikes(path, threshold_ns=0, worst=0, parts=False) -> (columns, categories)
 * threshold_ns: every sample over it (0: the worst per CPU); worst: that
 * many per CPU (0: 10); parts: the rows of spike_parts(), else of spikes()
 */
PyObject *py_spikes(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "threshold_ns", "worst", "parts", NULL };
	PyObject *path_obj = NULL, *columns = NULL, *cats = NULL, *out = NULL;
	unsigned long long threshold_ns = 0;
	int worst = 0, parts = 0;
	struct ipt_spikes *sp = NULL;
	struct ipt_trace *t;
	char err[768] = "";

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|Kip", kwlist, PyUnicode_FSConverter, &path_obj,
					 &threshold_ns, &worst, &parts))
		return NULL;
	if (worst < 0) {
		Py_DECREF(path_obj);
		return PyErr_Format(PyExc_ValueError, "worst: at least 1, not %d", worst);
	}
	t = open_trace(path_obj);
	if (!t)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	{
		struct ipt_spikes_opts so = { .sz = sizeof(so), .threshold_ns = threshold_ns, .worst = worst };
		const char *path = ipt_trace_path(t), *msg;

		sp = ipt_spikes_explain(t, &so);
		msg = ipt_errmsg();
		/* as `ipitrace explain` says it: the file first (once) */
		if (!sp && !strncmp(msg, path, strlen(path)) && msg[strlen(path)] == ':')
			snprintf(err, sizeof(err), "%s", msg);
		else if (!sp)
			snprintf(err, sizeof(err), "%s: %s", path, msg);
	}
	Py_END_ALLOW_THREADS
	if (!sp) {
		if (ipt_errcode() == IPT_ERR_NOMEM)
			PyErr_NoMemory();
		else
			PyErr_SetString(IptError, err);
		goto out;
	}
	columns = PyDict_New();
	if (!columns)
		goto out;
	for (size_t i = 0; i < ipt_spikes_count(sp); i++) {
		const struct ipt_spike *s = ipt_spikes_get(sp, i);

		if (parts ? parts_rows(columns, t, i, s) : spike_row(columns, i, s))
			goto out;
	}
	cats = categories();
	if (cats)
		out = PyTuple_Pack(2, columns, cats);
out:
	Py_XDECREF(columns);
	Py_XDECREF(cats);
	ipt_spikes_free(sp);
	ipt_trace_close(t);
	return out;
}
