#!/usr/bin/python3
"""python_spikes_check.py IPITRACE TMPDIR SPIKES_DIR - ipitrace.spikes() and
ipitrace.spike_parts() (tests/test_python.sh) on the texts of SPIKES_DIR
(tests/data/spikes) and texts made from them here, against this test's own
join of each text (spikes_join.py, which explain_check.py shares): every
spike (CPU, source, seq, time, window, latency, interferences, its IPIs'
count and time, whether its noise is known, the listed, unaccounted and
excess time), and every part of each, row by row and column by column
(the IPIs of rtla's text and of stacks.txt joined to their senders, with
the sender's stack; csd.txt's csd runs with their run times and
queueing; each noise's kind, name, number, end, net and counted
time and whether it reaches back before the window; the unaccounted row);
the sum of the counted parts is the latency; the worst N per CPU (the
default 10) on a text with 15 samples per CPU; a threshold in fractions of
a microsecond.  Then, as a consistency check between two renderings of
the same structs (not an oracle), the frames against `ipitrace explain -f
json`: the IPIs' kinds, which the join here does not name, and every
field both have; and spike_parts() against `explain -f csv`, which writes
the same table.  Then the errors, and that repeated calls leave no
objects behind.

    python_spikes_check.py --doc-example TOP    docs/python.md's spikes
                                                example prints what it shows

Prints "PASS name", "FAIL name: why" lines.
"""
import csv
import io
import json
import math
import os
import subprocess
import sys

import pandas as pd

import ipitrace
import pyleaks
from spikes_join import spikes as joined
from spikes_text import many_text

SPIKE_COLUMNS = ["spike", "cpu", "source", "seq", "ts_ns", "start_ns", "latency_ns", "interferences",
                 "ipis", "ipi_ns", "noise_known", "listed_ns", "unaccounted_ns", "excess_ns"]
PART_COLUMNS = ["spike", "cpu", "source", "seq", "spike_ts_ns", "latency_ns", "part", "counted", "ts_ns",
                "ns", "duration_ns", "name", "num", "before_window", "kind", "coalesced", "send_ns",
                "src_cpu", "pid", "comm", "callsite_sym", "func_name", "stack"]
# the texts and the threshold each is read with (as test_explain.sh does)
TEXTS = {"edges": 1000, "osnoise": 1000, "x86_64-rt-6.1-tcg": 1000, "rtla-6.1-tcg": 100000, "stacks": 1000,
         "csd": 1000}


def check(name, ok, why="mismatch"):
    print("PASS " + name if ok else "FAIL %s: %s" % (name, why), flush=True)
    return ok


def py(v):
    """a frame's value as plain Python: None for a null"""
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return None
    if hasattr(v, "item"):
        return v.item()
    return v


def rows_of(df, cols):
    return [tuple(py(v) for v in r) for r in df[cols].astype(object).itertuples(index=False, name=None)]


def first_diff(got, want):
    for k, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return "row %d: got %r, want %r" % (k, g, w)
    return "%d rows, want %d" % (len(got), len(want))


def want_spikes(sp):
    return [(i, s["cpu"], s["source"], s["seq"], s["ts"], s["start"], s["latency"], s["interferences"],
             len(s["ipis"]), sum(p["handler_ns"] for p in s["ipis"]), s["noise_known"], s["listed"],
             s["unaccounted"], s["excess"]) for i, s in enumerate(sp)]


def frame_names(stack):
    """the function names of a stack column's frames ("sym+0xoff;..."; a
    text trace's frames have no offsets), None for none"""
    return None if stack is None else [f.rsplit("+0x", 1)[0] for f in stack.split(";")]


def want_parts(sp):
    """the rows of spike_parts() by the join (a stack as its frames' names),
    but kind (None: the join does not name an IPI's kind; compared with
    explain's after)"""
    out = []
    for i, s in enumerate(sp):
        head = (i, s["cpu"], s["source"], s["seq"], s["ts"], s["latency"])
        known = s["noise_known"]
        for p in s["ipis"]:
            tied = s["noise"][p["noise"]]["name"] if p["noise"] is not None else None
            out.append(head + ("ipi", not known, p["entry_ns"], p["handler_ns"], None, tied, None, None, None,
                               False, p["send_ns"], p["src_cpu"], p["pid"], p["comm"], p["callsite_sym"],
                               p["func_name"], p["stack"]))
        for c in s["csd"]:
            q = c["queued"] or {}
            out.append(head + ("csd", False, c["entry_ns"], c["run_ns"]) + (None,) * 6 +
                       (q.get("queue_ns"), q.get("src_cpu"), q.get("pid"), q.get("comm"), q.get("callsite_sym"),
                        c["func_name"], None))
        for n in s["noise"]:
            out.append(head + (n["kind"], known, n["end"], n["counted"], n["duration"], n["name"], n["num"],
                               n["before_window"]) + (None,) * 9)
        out.append(head + ("unaccounted", True, None, s["unaccounted"]) + (None,) * 13)
    return out


def compare(tag, path, sp, **kw):
    """spikes() and spike_parts() of path (kw: threshold, worst) against
    the join's spikes sp; the frames, for more checks"""
    df = ipitrace.spikes(path, **kw)
    parts = ipitrace.spike_parts(path, **kw)
    check(tag + ":columns", list(df.columns) == SPIKE_COLUMNS and list(parts.columns) == PART_COLUMNS,
          "%s / %s" % (list(df.columns), list(parts.columns)))
    check(tag + ":dtypes", {c: str(t) for c, t in df.dtypes.items()} == ipitrace.SPIKE_DTYPES and
          {c: str(t) for c, t in parts.dtypes.items()} == ipitrace.SPIKE_PART_DTYPES,
          "%s / %s" % (dict(df.dtypes), dict(parts.dtypes)))
    got, want = rows_of(df, SPIKE_COLUMNS), want_spikes(sp)
    check(tag + ":spikes", got == want and list(df.index) == list(range(len(df))), first_diff(got, want))
    cols = [c for c in PART_COLUMNS if c != "kind"]
    got = [r[:-1] + (frame_names(r[-1]),) for r in rows_of(parts, cols)]
    want = [w[:14] + w[15:] for w in want_parts(sp)]
    check(tag + ":parts", got == want, first_diff(got, want))
    kinds = [py(k) for k, p in zip(parts["kind"].astype(object), parts["part"].astype(object)) if p != "ipi"]
    check(tag + ":parts-kind-null", kinds == [None] * len(kinds), "kind %r on a row not an IPI" % kinds[:3])
    # the parts that count make up the latency (or exceed it by excess_ns)
    bad = []
    for (i, g), (_, s) in zip(parts.groupby("spike", sort=True), df.iterrows()):
        counted = g[g.counted]
        rest = py(g[g.part == "unaccounted"].ns.iloc[0])
        total = int(counted.ns.sum(skipna=True))
        if rest is not None and total != s.latency_ns:
            bad.append("spike %d: counted %d, latency %d" % (i, total, s.latency_ns))
        if rest is None and total - s.latency_ns != py(s.excess_ns):
            bad.append("spike %d: counted %d over latency %d, excess %r" % (i, total, s.latency_ns, py(s.excess_ns)))
    check(tag + ":counted-sum", not bad and parts.spike.nunique() == len(df), "; ".join(bad[:3]))
    return df, parts


def csv_text(v):
    """a frame's value as `explain -f csv` writes it"""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def consistency(ipt, tag, path, us, parts, df):
    """consistency of two renderings of the same structs: spike_parts() and
    spikes() against `ipitrace explain -t US -f json`, field by field"""
    d = json.loads(subprocess.run([ipt, "explain", "-t", str(us), "-f", "json", path], check=True,
                                  stdout=subprocess.PIPE).stdout)
    want_s, want_p = [], []
    for i, s in enumerate(d["spikes"]):
        want_s.append((i, s["cpu"], s["source"], s["seq"], s["ts_ns"], s["window"]["start_ns"], s["latency_ns"],
                       s["interferences"], len(s["ipis"]), s["ipi_ns"], s["noise_known"], s["listed_ns"],
                       s["unaccounted_ns"], s["excess_ns"]))
        for p in s["ipis"]:
            want_p.append((i, "ipi", p["entry_ns"], p["handler_ns"], p["vector"], p["kind"], p["coalesced"],
                           p["send_ns"], p["sender"]["cpu"], p["sender"]["pid"], p["sender"]["comm"],
                           p["callsite_sym"], p["func_name"], ";".join(p["stack"]) if p["stack"] is not None else None,
                           None, None, None))
        for c in s["csd"]:
            q = c["queued"] or {}
            want_p.append((i, "csd", c["entry_ns"], c["run_ns"], None, None, None, q.get("ts_ns"), q.get("cpu"),
                           q.get("pid"), q.get("comm"), q.get("callsite_sym"), c["func_name"], None, None, None, None))
        for n in s["interference"]:
            want_p.append((i, n["kind"], n["end_ns"], n["counted_ns"], n["name"], None, None, None, None, None,
                           None, None, None, None, n["duration_ns"], n["num"], n["before_window"]))
        want_p.append((i, "unaccounted", None, s["unaccounted_ns"]) + (None,) * 13)
    cols = ["spike", "part", "ts_ns", "ns", "name", "kind", "coalesced", "send_ns", "src_cpu", "pid", "comm",
            "callsite_sym", "func_name", "stack", "duration_ns", "num", "before_window"]
    got_s, got_p = rows_of(df, SPIKE_COLUMNS), rows_of(parts, cols)
    check("consistency:explain-json:" + tag, got_s == want_s and got_p == want_p,
          first_diff(got_s, want_s) if got_s != want_s else first_diff(got_p, want_p))
    # `explain -f csv` writes the table of spike_parts(): its header and
    # every field as text (null: empty; booleans true, false)
    text = subprocess.run([ipt, "explain", "-t", str(us), "-f", "csv", path], check=True,
                          stdout=subprocess.PIPE, text=True).stdout
    table = list(csv.reader(io.StringIO(text)))
    got = [[csv_text(v) for v in r] for r in rows_of(parts, PART_COLUMNS)]
    check("consistency:explain-csv:" + tag, table and table[0] == PART_COLUMNS and table[1:] == got,
          "header %s" % table[:1] if not table or table[0] != PART_COLUMNS else first_diff(got, table[1:]))
    return sum(1 for p in want_p if p[1] == "ipi")


def errors(tmp, spikes_dir):
    edges = os.path.join(spikes_dir, "edges.txt")
    none = os.path.join(tmp, "spikes-none.txt")
    with open(none, "w") as f:
        f.write("cpus=1\n     sh-1 [000] 1.000000000: call_function_entry: vector=251\n")
    notrace = os.path.join(tmp, "spikes-notrace.txt")
    with open(notrace, "w") as f:
        f.write("not a trace at all\n")
    # edges.txt with raw clock counts for timestamps: the counter clock, not ns
    raw = os.path.join(tmp, "spikes-counts.txt")
    with open(edges) as f, open(raw, "w") as o:
        for l in f:
            o.write(l.replace(".", "", 1) if "]" in l else l)
    for fn in (ipitrace.spikes, ipitrace.spike_parts):
        n = "spikes-error:" + fn.__name__
        for what, path, says in (("not-a-trace", notrace, "not a trace"),
                                 ("missing", os.path.join(tmp, "no-such.txt"), "No such file"),
                                 ("no-timerlat", none, none + ": the trace has no timerlat samples"),
                                 ("not-ns", raw, "not in nanoseconds")):
            try:
                fn(path)
                check(n + ":" + what, False, "no exception")
            except ipitrace.Error as e:
                check(n + ":" + what, says in str(e) and "\n" not in str(e), str(e))
        for what, kw, exc in (("both", dict(threshold=1, worst=3), ValueError),
                              ("threshold-0", dict(threshold=0), ValueError),
                              ("threshold-negative", dict(threshold=-5), ValueError),
                              ("threshold-nan", dict(threshold=float("nan")), ValueError),
                              ("threshold-under-1ns", dict(threshold=0.0004), ValueError),
                              ("worst-0", dict(worst=0), ValueError),
                              ("worst-float", dict(worst=2.5), TypeError),
                              ("worst-bool", dict(worst=True), TypeError)):
            try:
                fn(edges, **kw)
                check(n + ":" + what, False, "no exception")
            except exc as e:
                check(n + ":" + what, bool(str(e)), "no message")
            except Exception as e:  # noqa: BLE001 - any other is a bug
                check(n + ":" + what, False, "%s: %s" % (type(e).__name__, e))


def leaks(path, none):
    """repeated calls, results and errors, leave no Python objects behind"""
    calls = (("spikes", lambda: ipitrace.spikes(path, threshold=1)),
             ("spike_parts", lambda: ipitrace.spike_parts(path, threshold=1)),
             ("spikes-error", lambda: ipitrace.spike_parts(none)))
    for name, more in pyleaks.growth(calls, ipitrace.Error):
        check("spikes-leaks:" + name, more < 32 * 1024, "%d bytes more after 20 calls" % more)


def doc_example(top):
    """docs/python.md's spikes example, run from the top of the checkout,
    prints the lines its comments show (in their order; it leaves out some)"""
    doc = open(os.path.join(top, "docs", "python.md")).read()
    at = doc.index("```python", doc.index("## Latency spikes"))
    code = doc[at + len("```python\n"):doc.index("```", at + 1)]
    shown, prev = [], ""
    for line in code.splitlines():
        if line.startswith("#") and (shown and shown[-1][0] == prev or prev and not prev.startswith("#")):
            shown.append((line, line[2:].rstrip()))
        prev = line if line.strip() else ""
    r = subprocess.run([sys.executable, "-c", code], cwd=top, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    printed = iter(l.rstrip() for l in r.stdout.splitlines())
    missing = [want for _, want in shown if not any(got == want for got in printed)]
    check("spikes:doc-example", r.returncode == 0 and shown and not missing,
          "exit %d %s; not printed: %r" % (r.returncode, r.stderr.strip()[-300:], missing[:2]))


def main():
    if sys.argv[1] == "--doc-example":
        doc_example(sys.argv[2])
        return
    ipt, tmp, spikes_dir = sys.argv[1:4]
    nipis = 0
    for name, thr in TEXTS.items():
        path = os.path.join(spikes_dir, name + ".txt")
        tag = "spikes:" + name
        try:
            df, parts = compare(tag, path, joined(path, threshold_ns=thr), threshold=thr / 1000)
            nipis += consistency(ipt, name, path, thr // 1000, parts, df)
            # the default: the worst 10 per CPU
            compare(tag + ":worst-default", path, joined(path))
        except Exception as e:  # noqa: BLE001
            check(tag, False, "%s: %s" % (type(e).__name__, e))
    check("spikes:ipis-joined", nipis > 0, "no IPI part in any text: the senders go unchecked")
    # rtla's text without its noise lines: the IPI handler times are what is counted
    rtla = os.path.join(spikes_dir, "rtla-6.1-tcg.txt")
    quiet = os.path.join(tmp, "rtla-no-noise.txt")
    with open(rtla) as f, open(quiet, "w") as o:
        o.writelines(l for l in f if "_noise:" not in l)
    sp = joined(quiet, threshold_ns=100000)
    compare("spikes:rtla-no-noise", quiet, sp, threshold=100)
    check("spikes:rtla-no-noise:ipis-counted", any(s["ipis"] for s in sp) and not any(s["noise_known"] for s in sp),
          "no spike with IPIs and without noise")
    # more than 10 samples per CPU: the default keeps 10, worst=N that many
    many = os.path.join(tmp, "spikes-many.txt")
    with open(many, "w") as f:
        f.write(many_text())
    for kw, n in (({}, 10), ({"worst": 3}, 3), ({"worst": 15}, 15)):
        sp = joined(many, worst=n)
        df, _ = compare("spikes:many:worst-%d" % n, many, sp, **kw)
        check("spikes:many:worst-%d:per-cpu" % n, df.groupby("cpu").size().tolist() == [n] * 3,
              "per CPU %s" % df.groupby("cpu").size().tolist())
    # a threshold in fractions of a microsecond: over 69.999 us holds the 70 us sample, over 70 us not
    edges = os.path.join(spikes_dir, "edges.txt")
    for us, ns in ((69.999, 69999), (70, 70000)):
        compare("spikes:edges:threshold-%s" % us, edges, joined(edges, threshold_ns=ns), threshold=us)
    df = ipitrace.spikes(edges, threshold=69.999)
    check("spikes:edges:threshold-strict", 70000 in df.latency_ns.tolist() and
          70000 not in ipitrace.spikes(edges, threshold=70).latency_ns.tolist(), "latencies %s" % df.latency_ns.tolist())
    # none over the threshold: empty frames, with their columns and dtypes
    compare("spikes:edges:none-over", edges, [], threshold=1e6)
    errors(tmp, spikes_dir)
    leaks(rtla, os.path.join(tmp, "spikes-none.txt"))


if __name__ == "__main__":
    main()
