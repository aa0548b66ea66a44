# SPDX-License-Identifier: LGPL-2.1-or-later
"""ipitrace - IPI traces as pandas DataFrames (over libipitrace, in C).

    import ipitrace
    df = ipitrace.rows("trace.dat")            # one row per (send, target CPU)
    rep = ipitrace.report("trace.dat")          # summary dict + DataFrames
    ev = ipitrace.events("trace.dat", "ipi:ipi_send_cpumask")
    sp = ipitrace.spikes("timerlat.dat")        # latency spikes (`ipitrace explain`)
    parts = ipitrace.spike_parts("timerlat.dat")  # their IPIs, noise, unaccounted time
    for chunk in ipitrace.iter_rows("big.dat", chunk_rows=1_000_000): ...

Errors (a file that is no trace, a bad filter) raise ipitrace.Error with the
library's one-line message.

Columns of rows() (as `ipitrace convert` writes them, see ROW_DTYPES):
ts_ns, id int64; src_cpu, target_cpu, ntargets, pid int32; callsite,
callback, func uint64 (the addresses as numbers: 0 for none); comm, event,
kind, callsite_sym ("sym+0xoff"), callback_sym, func_sym, reason,
unmatched_reason, callsite_func, func_name, stack (frames joined by ';')
pandas.Categorical (NaN when unknown); lat_ns, handler_ns, handler_ts_ns
pandas Int64 (nullable); matched, coalesced pandas boolean (nullable).
With explode=False: one row per send event, `targets` (a list of CPUs)
and `cpumask` (a Python int, bit i = CPU i) in target_cpu's place.
"""
import inspect as _inspect
import operator as _operator
import sys as _sys

from . import _built

try:
    import numpy as _np
    import pandas as _pd

    from . import _ext
    from ._ext import Error
except ImportError as _e:
    # a python3 other than the one the module was built for (a pyenv or a
    # venv first on PATH) lacks Debian's numpy and pandas, or the ABI: say so
    if _sys.executable == _built.PYTHON:
        raise
    raise ImportError(
        "ipitrace: this module was built for %s (Python %s, with its numpy and pandas); "
        "this is %s (Python %d.%d): %s.  Run the script with %s, or build the module for "
        "this interpreter: make PYTHON=%s (it needs that Python's headers, numpy and pandas)"
        % (_built.PYTHON, _built.VERSION, _sys.executable, _sys.version_info[0],
           _sys.version_info[1], _e, _built.PYTHON, _sys.executable)) from _e

__all__ = ["rows", "iter_rows", "report", "diff", "events", "spikes", "spike_parts", "info",
           "explode_mask", "ts_datetime", "Error", "ROW_COLUMNS", "ROW_DTYPES", "SPIKE_COLUMNS",
           "SPIKE_DTYPES", "SPIKE_PART_COLUMNS", "SPIKE_PART_DTYPES"]

ROW_COLUMNS = ["ts_ns", "id", "src_cpu", "target_cpu", "ntargets", "pid", "comm", "event",
               "kind", "callsite", "callsite_sym", "callback", "callback_sym", "func",
               "func_sym", "reason", "lat_ns", "handler_ns", "handler_ts_ns", "matched",
               "coalesced", "unmatched_reason", "callsite_func", "func_name", "stack"]

ROW_DTYPES = {
    "ts_ns": "int64", "id": "int64", "src_cpu": "int32", "target_cpu": "int32",
    "ntargets": "int32", "pid": "int32", "callsite": "uint64", "callback": "uint64",
    "func": "uint64", "lat_ns": "Int64", "handler_ns": "Int64", "handler_ts_ns": "Int64",
    "matched": "boolean", "coalesced": "boolean",
    **{c: "category" for c in ("comm", "event", "kind", "callsite_sym", "callback_sym",
                               "func_sym", "reason", "unmatched_reason", "callsite_func",
                               "func_name", "stack")},
}

# spikes() and spike_parts(): `ipitrace explain`'s spikes, nulls where its
# JSON has them (nullable Int64, Int32, boolean; categories NaN)
SPIKE_COLUMNS = ["spike", "cpu", "source", "seq", "ts_ns", "start_ns", "latency_ns",
                 "interferences", "ipis", "ipi_ns", "noise_known", "listed_ns",
                 "unaccounted_ns", "excess_ns"]

SPIKE_DTYPES = {
    "spike": "int64", "cpu": "int32", "source": "category", "seq": "Int64", "ts_ns": "int64",
    "start_ns": "int64", "latency_ns": "int64", "interferences": "Int64", "ipis": "int64",
    "ipi_ns": "int64", "noise_known": "bool", "listed_ns": "int64", "unaccounted_ns": "Int64",
    "excess_ns": "Int64",
}

SPIKE_PART_COLUMNS = ["spike", "cpu", "source", "seq", "spike_ts_ns", "latency_ns", "part",
                      "counted", "ts_ns", "ns", "duration_ns", "name", "num", "before_window",
                      "kind", "coalesced", "send_ns", "src_cpu", "pid", "comm", "callsite_sym",
                      "func_name", "stack"]

SPIKE_PART_DTYPES = {
    "spike": "int64", "cpu": "int32", "source": "category", "seq": "Int64",
    "spike_ts_ns": "int64", "latency_ns": "int64", "part": "category", "counted": "bool",
    "ts_ns": "Int64", "ns": "Int64", "duration_ns": "Int64", "name": "category", "num": "Int32",
    "before_window": "boolean", "kind": "category", "coalesced": "boolean", "send_ns": "Int64",
    "src_cpu": "Int32", "pid": "Int32", "comm": "category", "callsite_sym": "category",
    "func_name": "category", "stack": "category",
}

version = _ext.version()

# pandas 2.1 gave from_codes a validate flag (and deprecated the
# constructor's fastpath, which is all older ones have)
_FROM_CODES_VALIDATE = "validate" in _inspect.signature(_pd.Categorical.from_codes).parameters


def _categorical(codes, cats):
    """A Categorical over codes the C code wrote: each is in -1 ..
    len(cats) - 1 by construction, so pandas' own check (a pass over the
    codes for their min and max, 4-5 ms a 3.3M-row column) is left out."""
    dtype = _pd.CategoricalDtype(_pd.Index(cats, dtype=object))
    if _FROM_CODES_VALIDATE:
        return _pd.Categorical.from_codes(codes, dtype=dtype, validate=False)
    return _pd.Categorical(codes, dtype=dtype, fastpath=True)


def _column(name, v):
    if isinstance(v, tuple):
        a, b = v
        if a.dtype in (_np.int8, _np.int16, _np.int32):   # category codes (as narrow as
            # their categories allow, the width pandas keeps) and the categories
            return _categorical(a, b)
        if a.dtype == _np.bool_:
            return _pd.arrays.BooleanArray(a, b)
        return _pd.arrays.IntegerArray(a, b)
    return v


def _frame(d, explode, order):
    cols = {}
    for name in order:
        if name == "target_cpu" and not explode:
            if "targets" in d:
                off, cpus = d["targets"]
                cols["targets"] = _ext.targets(off, cpus, False)
                cols["cpumask"] = _ext.targets(off, cpus, True)
            continue
        if name in d:
            cols[name] = _column(name, d[name])
    n = len(next(iter(cols.values()))) if cols else 0
    return _pd.DataFrame(cols, index=_pd.RangeIndex(n), copy=False)


def _order(columns, explode):
    if columns is None:
        return ROW_COLUMNS
    out = []
    for c in columns:
        if not explode and c in ("targets", "cpumask"):
            c = "target_cpu"
        if c not in out:
            out.append(c)
    return out


def _wanted(columns, explode):
    if columns is None:
        return None
    return list(_order(columns, explode))


def rows(path, filter=None, explode=True, threads=None, columns=None):
    """The IPI rows of a trace as a DataFrame (see the module's doc).

    filter: an expression over row columns as `ipitrace convert --filter`
    takes it; threads: decoding threads (None: the online CPUs, at most 8,
    but one for a trace with less than 16 MiB of CPU data, and with the
    matching columns one fewer beside the calling thread, which fills the
    columns; explode=False runs in one); columns: a list of the columns
    wanted.  With the
    matching columns the rows come from the report's own pass over the
    trace, which then fills those columns."""
    r = _ext.Rows(path, filter, bool(explode), int(threads or 0), _wanted(columns, explode))
    d = r.next(0)
    order = _order(columns, explode)
    if d is None:
        d = _empty(order, explode)
    return _frame(d, explode, order)


def _empty(order, explode):
    z = {}
    for c in order:
        dt = ROW_DTYPES.get(c, "int32")
        if c == "target_cpu" and not explode:
            z["targets"] = (_np.zeros(1, _np.int64), _np.zeros(0, _np.int32))
        elif dt == "category":
            z[c] = (_np.zeros(0, _np.int32), [])
        elif dt == "Int64":
            z[c] = (_np.zeros(0, _np.int64), _np.zeros(0, _np.bool_))
        elif dt == "boolean":
            z[c] = (_np.zeros(0, _np.bool_), _np.zeros(0, _np.bool_))
        else:
            z[c] = _np.zeros(0, dt)
    return z


def iter_rows(path, chunk_rows=1 << 20, filter=None, explode=True, threads=None, columns=None):
    """rows() chunk by chunk: DataFrames of at most chunk_rows rows each.

    A chunk's categorical columns have every category seen so far.  The
    matching columns need the report's row results (16 bytes a row, kept
    until the end); leave them out with columns= for constant memory."""
    if chunk_rows < 1:
        raise ValueError("chunk_rows must be at least 1")
    r = _ext.Rows(path, filter, bool(explode), int(threads or 0), _wanted(columns, explode))
    order = _order(columns, explode)
    while True:
        d = r.next(int(chunk_rows))
        if d is None:
            return
        yield _frame(d, explode, order)


def report(path, filter=None, by="comm", threads=None, assume_synced_clock=False):
    """The report of `ipitrace report`: a dict with "summary" (a dict, with
    "kinds"), and DataFrames "per_cpu" (a row per target CPU, its counts
    and counts per kind), "latency" (per CPU: distributions of latency,
    handler time, csd queue-to-run and csd run: count, min, p50, p99, max,
    sum, in ns), "senders", "pairs", "matrix" and "groups" (the counted rows
    by `by`: comm, pid, task, cpu, callsite, function, kind, stack; per
    target CPU and for all, target_cpu -1).  threads: as `report
    --threads` (None: the online CPUs, but one for a trace with less than
    16 MiB of CPU data)."""
    d = _ext.report(path, filter, by, int(threads or 0), bool(assume_synced_clock))
    out = {"summary": d["summary"]}
    cols = {"per_cpu": None, "senders": ["target_cpu", "pid", "comm", "src_cpu", "count"],
            "pairs": ["target_cpu", "callsite", "callsite_sym", "function", "function_sym", "count"],
            "matrix": ["src_cpu", "target_cpu", "count"],
            "groups": ["target_cpu", by, "addr", "count"]}
    for k, c in cols.items():
        df = _pd.DataFrame(d[k], columns=c) if c else _pd.DataFrame(d[k])
        for col in df.columns:
            if col in ("callsite", "function", "addr"):
                df[col] = df[col].astype("uint64")
            elif col in ("target_cpu", "src_cpu", "cpu", "pid"):
                df[col] = df[col].astype("int32")
            elif col == "count" or (k == "per_cpu" and df[col].dtype == object and col != "lost_unknown"):
                df[col] = df[col].astype("uint64")
        out[k] = df
    lat = []
    for cpu, dd in zip(d["dists"].get("cpu", []), d["dists"].get("dists", [])):
        for what, v in dd.items():
            if v:
                lat.append({"cpu": cpu, "what": what, **v})
    out["latency"] = _pd.DataFrame(lat, columns=["cpu", "what", "count", "min_ns", "p50_ns",
                                                 "p99_ns", "max_ns", "sum_ns"])
    return out


def diff(before, after, by="function", filter=None, isolated=None, threads=None, per_cpu=False):
    """The table of `ipitrace diff BEFORE AFTER --by BY` as a DataFrame: a
    row per key and role of the target CPUs ("isolated", "housekeeping"),
    with count_before, count_after, per_s_*, per_cpu_hour_* (NaN: the role
    has no CPU), diff_per_s, ratio, dispersion, p (NaN: untested) and
    status ("same", "more", "fewer", "gone", "new", "untested"), then
    latency (send to handler entry) and handler time, p50 and p99 in ns
    before and after (pandas Int64, null where not known), ordered by the
    size of the change.  by: function, callsite, comm, pid, cpu, kind
    or role (the roles' totals).  filter: a row filter for both sides;
    isolated: a CPU list, the isolated role on both (None: each
    recording's own); per_cpu: a row per key and target CPU (target_cpu;
    -1 without).  The method: docs/diff.md."""
    d = _ext.diff(before, after, by, filter, isolated, int(threads or 0), bool(per_cpu))
    cols = ["key", "role", "target_cpu", "count_before", "count_after", "per_s_before", "per_s_after",
            "per_cpu_hour_before", "per_cpu_hour_after", "diff_per_s", "ratio", "dispersion",
            "p", "status", "untested_because"]
    lat = [w + "_" + q + "_ns_" + side for w in ("latency", "handler") for q in ("p50", "p99")
           for side in ("before", "after")]
    cols += lat
    df = _pd.DataFrame({c: d.get(c, []) for c in cols}, columns=cols)
    for c in lat:
        df[c] = df[c].astype("Int64")
    for c in ("count_before", "count_after"):
        df[c] = df[c].astype("uint64")
    df["target_cpu"] = df["target_cpu"].astype("int32")
    for c in cols[5:13]:
        df[c] = df[c].astype("float64")
    for c in ("role", "status"):
        df[c] = df[c].astype("category")
    return df


def events(path, name, filter=None):
    """Every event of type name ("system:name" or "name") as a DataFrame:
    ts_ns, common_cpu (the CPU that recorded it), common_pid, common_comm,
    then the event's own fields (integers; strings;
    cpumask and bitmask fields as Python ints, bit i = CPU i; other arrays
    as bytes).  filter: an event filter over its fields (as the kernel's)."""
    d = _ext.events(path, name, filter)
    df = _pd.DataFrame(d)
    if len(df):
        for c, dt in (("ts_ns", "int64"), ("common_cpu", "int32"), ("common_pid", "int32")):
            df[c] = df[c].astype(dt)
        df["common_comm"] = df["common_comm"].astype("category")
    return df


def _spikes_options(threshold, worst):
    """(threshold_ns, worst) for _ext.spikes: 0 where not given"""
    if threshold is not None and worst is not None:
        raise ValueError("threshold and worst: give one (worst: the worst N per CPU, "
                         "without a threshold)")
    threshold_ns = 0
    if threshold is not None:
        if isinstance(threshold, bool):
            raise TypeError("threshold: microseconds, not a bool")
        us = float(threshold)
        # `explain -t US` takes 1 us to 1e9 us; fractions here, down to 1 ns
        threshold_ns = int(round(us * 1000)) if 0 < us <= 1e9 else 0
        if threshold_ns < 1:
            raise ValueError("threshold: microseconds, more than 0 and at most 1e9, not %r"
                             % (threshold,))
    n = 0
    if worst is not None:
        if isinstance(worst, bool):
            raise TypeError("worst: an int, not a bool")
        n = _operator.index(worst)
        if not 1 <= n <= 1000000:
            raise ValueError("worst: a number from 1 to 1000000, not %d" % n)
    return threshold_ns, n


def _spikes_frame(d, cats, order, dtypes):
    cols = {}
    for c in order:
        v, dt = d.get(c, []), dtypes[c]
        if dt == "category":
            cols[c] = _pd.Categorical(v, categories=cats.get(c))
        elif dt in ("Int64", "Int32", "boolean"):
            cols[c] = _pd.array(v, dtype=dt)
        else:
            cols[c] = _np.asarray(v, dtype=dt)
    n = len(next(iter(cols.values())))
    return _pd.DataFrame(cols, index=_pd.RangeIndex(n), copy=False)


def spikes(path, threshold=None, worst=None):
    """The latency spikes of a timerlat (or osnoise) recording, as `ipitrace
    explain` finds them: a row per spike, by CPU then start (spike: its
    index in that order).  threshold: every sample over it, in
    microseconds (float ok); worst: the worst N per CPU; neither: the worst
    10 per CPU; both: ValueError.  Columns (SPIKE_COLUMNS, dtypes
    SPIKE_DTYPES): cpu, source ("timerlat", "osnoise"), seq (null for
    osnoise), ts_ns (the sample), start_ns (ts_ns - latency_ns),
    latency_ns, interferences (osnoise's count; null for timerlat), ipis
    (the IPI sends inside), ipi_ns (their handler time), noise_known (the
    trace has osnoise noise events on that CPU), listed_ns (the noise's
    counted time, or ipi_ns without it), unaccounted_ns (latency_ns -
    listed_ns; null when listed_ns is over the latency), excess_ns (by how
    much it is over; else null).  A trace not in ns, or with no timerlat
    samples, raises ipitrace.Error."""
    threshold_ns, n = _spikes_options(threshold, worst)
    d, cats = _ext.spikes(path, threshold_ns, n, False)
    return _spikes_frame(d, cats, SPIKE_COLUMNS, SPIKE_DTYPES)


def spike_parts(path, threshold=None, worst=None):
    """What makes up each spike of spikes(path, threshold, worst): a row
    per part, spike by spike: its IPIs (part "ipi"), its osnoise noise
    ("irq", "softirq", "nmi", "thread"), then one "unaccounted".  Columns
    (SPIKE_PART_COLUMNS, dtypes SPIKE_PART_DTYPES; null where a part has
    no such value): spike, cpu, source, seq, spike_ts_ns, latency_ns (the
    spike's); part; counted (ns is in the sum that makes up the latency:
    the noise and unaccounted rows when the spike's noise is known, else
    the IPI and unaccounted rows); ts_ns (an IPI's interrupt entry, a
    noise's end); ns (an IPI's handler time, null when coalesced or not
    seen; a noise's time inside the window; the unaccounted time, null
    when the counted parts exceed the latency); duration_ns (a noise's
    net duration); name (a noise's, an IPI's tied irq_noise's); num (a
    noise's vector or pid; null for nmi); before_window (a noise reaching
    back before the window); kind, coalesced, send_ns, src_cpu, pid,
    comm, callsite_sym ("sym+0xoff"), func_name ("(none)" for none),
    stack (the sender's frames, "sym+0xoff" joined by ';', when recorded):
    an IPI's and its sender's.  For each spike, ns summed over the counted rows is
    latency_ns when unaccounted is not null."""
    threshold_ns, n = _spikes_options(threshold, worst)
    d, cats = _ext.spikes(path, threshold_ns, n, True)
    return _spikes_frame(d, cats, SPIKE_PART_COLUMNS, SPIKE_PART_DTYPES)


def info(path):
    """What the trace says about itself: ncpus, clock, time_unit, ts_in_ns,
    kernel, file_version, compression, start_utc (or None)."""
    return _ext.info(path)


def explode_mask(mask):
    """The CPUs of a Python int mask, ascending (bit i = CPU i)."""
    out, i = [], 0
    mask = int(mask)
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return out


def ts_datetime(ts_ns, path_or_info):
    """ts_ns as datetime64[ns], when the trace's clock is wall-like
    (realtime, tai); else ValueError (trace clocks such as local or mono
    count from boot, not from the epoch)."""
    inf = path_or_info if isinstance(path_or_info, dict) else info(path_or_info)
    if inf.get("clock") not in ("realtime", "tai") or not inf.get("ts_in_ns"):
        raise ValueError("the trace clock '%s' is not wall-like (realtime, tai)" % inf.get("clock"))
    return _pd.to_datetime(_np.asarray(ts_ns, dtype="int64"), unit="ns")
