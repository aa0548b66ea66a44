// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * report.c - ipitrace._ext.report(path, filter, by, threads,
 * assume_synced_clock): the report's tables as a dict of dicts of lists
 * (columns), which the Python side turns into DataFrames: summary,
 * per_cpu, dists, senders, pairs, matrix, groups.
 */
#include "ext.h"

#include <stdio.h>

/* a dict of a distribution's figures, or None when empty */
static PyObject *dist_obj(const struct ipt_dist *d, bool ns)
{
	PyObject *o;

	if (!ns || !ipt_dist_count(d))
		Py_RETURN_NONE;
	o = PyDict_New();
	if (!o)
		return NULL;
	if (dset(o, "count", U64(ipt_dist_count(d))) || dset(o, "min_ns", U64(ipt_dist_min(d))) ||
	    dset(o, "p50_ns", U64(ipt_dist_quantile(d, 0.5))) ||
	    dset(o, "p99_ns", U64(ipt_dist_quantile(d, 0.99))) ||
	    dset(o, "max_ns", U64(ipt_dist_max(d))) || dset(o, "sum_ns", U64(ipt_dist_sum(d)))) {
		Py_DECREF(o);
		return NULL;
	}
	return o;
}

/* the tables of a report as dicts of lists (columns) */
static int report_tables(struct ipt_trace *t, struct ipt_report *r, enum ipt_group_by by, PyObject *out)
{
	const struct ipt_report_summary *s = ipt_report_summary(r);
	bool ns = ipt_trace_ts_in_ns(t);
	PyObject *sum = PyDict_New(), *pc = PyDict_New(), *snd = PyDict_New(), *pr = PyDict_New();
	PyObject *mx = PyDict_New(), *gr = PyDict_New(), *kinds = PyDict_New(), *lat = PyDict_New();
	size_t n;
	int ret = -1;

	if (!sum || !pc || !snd || !pr || !mx || !gr || !kinds || !lat)
		goto out;
	if (dset(sum, "file", str_or_none(ipt_trace_path(t))) ||
	    dset(sum, "clock", str_or_none(ipt_trace_clock(t))) ||
	    dset(sum, "kernel", str_or_none(ipt_trace_uname(t))) ||
	    dset(sum, "time_unit", str_or_none(ipt_trace_time_unit(t))) ||
	    dset(sum, "cpus", I64(s->ncpus)) || dset(sum, "first_ts", U64(s->first_ts)) ||
	    dset(sum, "last_ts", U64(s->last_ts)) || dset(sum, "duration_s", PyFloat_FromDouble(s->duration_s)) ||
	    dset(sum, "events", U64(s->events)) || dset(sum, "send_events", U64(s->send_events)) ||
	    dset(sum, "ipis", U64(s->ipis)) || dset(sum, "ipis_counted", U64(s->ipis_counted)) ||
	    dset(sum, "filtered", PyBool_FromLong(s->filtered)) ||
	    dset(sum, "csd_queued", U64(s->csd_queued)) || dset(sum, "csd_with_ipi", U64(s->csd_with_ipi)) ||
	    dset(sum, "csd_without_ipi", U64(s->csd_without_ipi)) ||
	    dset(sum, "cross_cpu_latency", PyBool_FromLong(s->cross_cpu_latency)) ||
	    dset(sum, "cross_cpu_latency_missing_because", str_or_none(s->cross_cpu_latency ? NULL :
									s->cross_cpu_missing_because)) ||
	    dset(sum, "receive_events", PyBool_FromLong(s->receive_events)) ||
	    dset(sum, "remote", U64(s->remote)) || dset(sum, "remote_matched", U64(s->remote_matched)) ||
	    dset(sum, "handlers", U64(s->handlers)) ||
	    dset(sum, "handlers_unattributed", U64(s->handlers_unattributed)) ||
	    dset(sum, "coalesced", U64(s->coalesced)) || dset(sum, "csd_runs", U64(s->csd_runs)) ||
	    dset(sum, "unmatched_trace_ended", U64(s->unmatched_trace_ended)) ||
	    dset(sum, "unmatched_no_receive_events", U64(s->unmatched_no_receive_events)) ||
	    dset(sum, "unmatched_lost_events", U64(s->unmatched_lost_events)) ||
	    dset(sum, "unmatched_no_handler", U64(s->unmatched_no_handler)) ||
	    dset(sum, "csd_set_aside", U64(s->csd_set_aside)) ||
	    dset(sum, "csd_given_up", U64(s->csd_given_up)))
		goto out;
	for (int k = 0; k < IPT_KIND__COUNT; k++)
		if (dset(kinds, ipt_kind_name((enum ipt_ipi_kind)k), U64(s->kinds[k])))
			goto out;
	if (PyDict_SetItemString(sum, "kinds", kinds))
		goto out;
	for (int c = 0; c < s->ncpus; c++) {
		const struct ipt_report_cpu *cp = ipt_report_cpu(r, c);
		PyObject *row;

		if (!cp)
			continue;
		if (col_append(pc, "cpu", I64(c)) || col_append(pc, "ipis", U64(cp->ipis)) ||
		    col_append(pc, "sent", U64(cp->sent)) || col_append(pc, "remote", U64(cp->remote)) ||
		    col_append(pc, "matched", U64(cp->matched)) ||
		    col_append(pc, "remote_matched", U64(cp->remote_matched)) ||
		    col_append(pc, "coalesced", U64(cp->coalesced)) ||
		    col_append(pc, "handlers", U64(cp->handlers)) ||
		    col_append(pc, "handlers_unattributed", U64(cp->handlers_unattributed)) ||
		    col_append(pc, "csd_runs", U64(cp->csd_runs)) || col_append(pc, "lost", U64(cp->lost)) ||
		    col_append(pc, "lost_unknown", PyBool_FromLong(cp->lost_unknown)) ||
		    col_append(pc, "with_stack", U64(cp->with_stack)) ||
		    col_append(pc, "recorder_ipis", U64(cp->recorder_ipis)))
			goto out;
		for (int k = 0; k < IPT_KIND__COUNT; k++)
			if (col_append(pc, ipt_kind_name((enum ipt_ipi_kind)k), U64(cp->by_kind[k])))
				goto out;
		row = PyDict_New();
		if (!row)
			goto out;
		if (dset(row, "latency", dist_obj(cp->latency, ns)) ||
		    dset(row, "handler", dist_obj(cp->handler, ns)) ||
		    dset(row, "csd_queue_to_run", dist_obj(cp->csd_queue_to_run, ns)) ||
		    dset(row, "csd_run", dist_obj(cp->csd_run, ns))) {
			Py_DECREF(row);
			goto out;
		}
		if (col_append(lat, "cpu", I64(c)) || col_append(lat, "dists", row))
			goto out;
	}
	{
		const struct ipt_report_sender *v = ipt_report_senders(r, &n);

		for (size_t i = 0; i < n; i++)
			if (col_append(snd, "target_cpu", I64(v[i].target_cpu)) ||
			    col_append(snd, "pid", I64(v[i].pid)) ||
			    col_append(snd, "comm", str_or_none(ipt_trace_comm(t, v[i].pid))) ||
			    col_append(snd, "src_cpu", I64(v[i].src_cpu)) ||
			    col_append(snd, "count", U64(v[i].count)))
				goto out;
	}
	{
		const struct ipt_report_pair *v = ipt_report_pairs(r, &n);

		for (size_t i = 0; i < n; i++)
			if (col_append(pr, "target_cpu", I64(v[i].target_cpu)) ||
			    col_append(pr, "callsite", U64(v[i].callsite)) ||
			    col_append(pr, "callsite_sym", sym_obj(t, v[i].callsite, true)) ||
			    col_append(pr, "function", U64(v[i].function)) ||
			    col_append(pr, "function_sym", sym_obj(t, v[i].function, false)) ||
			    col_append(pr, "count", U64(v[i].count)))
				goto out;
	}
	{
		const struct ipt_report_cell *v = ipt_report_matrix(r, &n);

		for (size_t i = 0; i < n; i++)
			if (col_append(mx, "src_cpu", I64(v[i].src_cpu)) ||
			    col_append(mx, "target_cpu", I64(v[i].target_cpu)) ||
			    col_append(mx, "count", U64(v[i].count)))
				goto out;
	}
	for (int c = -1; c < s->ncpus; c++) {
		const struct ipt_report_group *g = ipt_report_groups(r, by, c, IPT_SORT_COUNT, &n);

		if (!g) {
			raise_ipt(NULL);
			goto out;
		}
		for (size_t i = 0; i < n; i++) {
			PyObject *key;

			switch (by) {
			case IPT_BY_COMM: key = str_or_none(g[i].comm); break;
			case IPT_BY_PID: key = I64(g[i].pid); break;
			case IPT_BY_TASK: key = Py_BuildValue("(isi)", g[i].pid, g[i].comm ? g[i].comm : "",
							     g[i].src_cpu); break;
			case IPT_BY_CPU: key = I64(g[i].src_cpu); break;
			case IPT_BY_CALLSITE: key = sym_obj(t, g[i].addr, false); break;
			case IPT_BY_FUNCTION: key = sym_obj(t, g[i].addr, false); break;
			case IPT_BY_KIND: key = str_or_none(ipt_kind_name((enum ipt_ipi_kind)g[i].kind)); break;
			case IPT_BY_STACK: {
				struct ipt_strbuf sb = IPT_STRBUF_INIT;
				const struct ipt_report_stack *st = g[i].stack;

				if (st)
					(void)stack_text(t, st, &sb);	/* cut short: as far as it got */
				key = st ? str_or_none(ipt_strbuf_str(&sb)) : str_or_none(NULL);
				ipt_strbuf_free(&sb);
				break;
			}
			default: key = str_or_none(NULL); break;
			}
			if (col_append(gr, "target_cpu", I64(c)) ||
			    col_append(gr, ipt_group_by_name(by), key) ||
			    col_append(gr, "addr", U64(g[i].addr)) ||
			    col_append(gr, "count", U64(g[i].count)))
				goto out;
		}
	}
	if (PyDict_SetItemString(out, "summary", sum) || PyDict_SetItemString(out, "per_cpu", pc) ||
	    PyDict_SetItemString(out, "dists", lat) || PyDict_SetItemString(out, "senders", snd) ||
	    PyDict_SetItemString(out, "pairs", pr) || PyDict_SetItemString(out, "matrix", mx) ||
	    PyDict_SetItemString(out, "groups", gr))
		goto out;
	ret = 0;
out:
	Py_XDECREF(sum);
	Py_XDECREF(pc);
	Py_XDECREF(snd);
	Py_XDECREF(pr);
	Py_XDECREF(mx);
	Py_XDECREF(gr);
	Py_XDECREF(kinds);
	Py_XDECREF(lat);
	return ret;
}

PyObject *py_report(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "filter", "by", "threads", "assume_synced_clock", NULL };
	PyObject *path_obj = NULL, *out = NULL;
	const char *filter = NULL, *byname = "comm";
	int threads = 0, synced = 0, by;
	struct ipt_trace *t;
	struct ipt_report *r = NULL;
	char err[512] = "";

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|zsip", kwlist, PyUnicode_FSConverter, &path_obj,
					 &filter, &byname, &threads, &synced))
		return NULL;
	by = ipt_group_by_from_name(byname);
	if (by < 0) {
		Py_DECREF(path_obj);
		return PyErr_Format(IptError, "by: no key '%s' (comm, pid, task, cpu, callsite, function, "
				    "kind, stack)", byname);
	}
	if (threads < 0)
		threads = 0;	/* the library's choice: the online CPUs, one for a small trace */
	t = open_trace(path_obj);
	if (!t)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	{
		struct ipt_report_opts ro = { .sz = sizeof(ro), .filter = filter, .threads = threads,
					      .assume_synced_clock = synced };

		r = ipt_report_run(t, &ro);
	}
	if (!r)
		snprintf(err, sizeof(err), "%s", ipt_errmsg());
	Py_END_ALLOW_THREADS
	if (!r) {
		ipt_trace_close(t);
		PyErr_SetString(IptError, err[0] ? err : "ipitrace: report failed");
		return NULL;
	}
	out = PyDict_New();
	if (out && report_tables(t, r, (enum ipt_group_by)by, out)) {
		Py_CLEAR(out);
	}
	ipt_report_free(r);
	ipt_trace_close(t);
	return out;
}

