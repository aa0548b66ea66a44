#!/usr/bin/python3
"""python_check.py - the Python module against the CLI (tests/test_python.sh).

    python_check.py IPITRACE TMPDIR TRACE...      the checks of each trace
    python_check.py --bad FILE...                  bad inputs: Error or a result
    python_check.py --big IPITRACE TMPDIR TRACE    rows() of a trace large enough
                                                   for its helper threads
    python_check.py --big-sample IPITRACE TMPDIR TRACE   the same, the CSV
                                                   compared on a sample of rows
                                                   (the ASan pass; the plain
                                                   pass compares every row)
    python_check.py --big-stacks IPITRACE TMPDIR TRACE   the same, a recording
                                                   with kernel stacks (32k rows+)

Prints "PASS name", "FAIL name: why", "SKIP name: why" lines.  The module is
a second consumer of the library: its DataFrames are compared with what the
CLI writes (`convert -f csv` read by pandas.read_csv, `report --format json`,
`dump -R`), column by column and row by row.
"""
import json
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd

import ipitrace
import pyleaks

OUT = []


def say(kind, name, why=""):
    print("%s %s%s" % (kind, name, (": " + why) if why else ""), flush=True)


def check(name, ok, why="mismatch"):
    say("PASS" if ok else "FAIL", name, "" if ok else why)
    return ok


def run(*args):
    return subprocess.run(args, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout


def read_csv(path):
    # strings as they are: "" (a null in the CSV) -> NaN, and nothing else
    return pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])


def obj(series):
    """values as Python objects, None for a null"""
    return [None if (v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA) else v
            for v in series.astype(object).tolist()]


def parse_list(s):
    out = []
    if not isinstance(s, str) or not s:
        return out
    for part in s.split(","):
        if "-" in part:
            a, b = part.split("-")
            out += range(int(a), int(b) + 1)
        else:
            out.append(int(part))
    return out


INT_COLS = {"ts_ns", "id", "src_cpu", "target_cpu", "ntargets", "pid"}
ADDR_COLS = {"callsite", "callback", "func"}
NINT_COLS = {"lat_ns", "handler_ns", "handler_ts_ns"}
BOOL_COLS = {"matched", "coalesced"}


def csv_column(c, s):
    """a CSV column as the values the module's column must have"""
    if c in INT_COLS:
        return [int(v) for v in s]
    if c in ADDR_COLS:
        return [int(v, 16) for v in s]
    if c in NINT_COLS:
        return [None if not isinstance(v, str) else int(v) for v in s]
    if c in BOOL_COLS:
        return [None if not isinstance(v, str) else v == "true" for v in s]
    return obj(s)


def df_column(c, s):
    if c in INT_COLS or c in ADDR_COLS:
        return [int(v) for v in s]
    if c in NINT_COLS:
        return [None if v is pd.NA else int(v) for v in s.astype(object)]
    if c in BOOL_COLS:
        return [None if v is pd.NA else bool(v) for v in s.astype(object)]
    return obj(s)


def compare_frames(tag, df, csv, skip=()):
    """every column both have, every row"""
    if not check(tag + ":nrows", len(df) == len(csv), "%d rows, CSV %d" % (len(df), len(csv))):
        return False
    common = [c for c in csv.columns if c in df.columns and c not in skip]
    bad = []
    for c in common:
        a, b = df_column(c, df[c]), csv_column(c, csv[c])
        if a != b:
            i = next(i for i in range(len(a)) if a[i] != b[i])
            bad.append("%s (row %d: %r, CSV %r)" % (c, i, a[i], b[i]))
    check(tag + ":columns", not bad and len(common) >= 15,
          "; ".join(bad[:3]) or "only %d common columns" % len(common))
    return not bad


def dtypes_ok(tag, df, explode):
    bad = []
    for c in df.columns:
        want = ipitrace.ROW_DTYPES.get(c)
        if c == "targets" or c == "cpumask":
            if len(df) and not all(isinstance(v, (list, int)) for v in df[c].head(100)):
                bad.append(c)
            continue
        if want is None or str(df[c].dtype) != want:
            bad.append("%s %s (want %s)" % (c, df[c].dtype, want))
    want_cols = [c for c in ipitrace.ROW_COLUMNS if explode or c != "target_cpu"]
    if not explode:
        want_cols[3:3] = ["targets", "cpumask"]
    if list(df.columns) != want_cols:
        bad.append("columns %s" % list(df.columns))
    check(tag + ":dtypes", not bad, "; ".join(bad[:4]))


def check_trace(ipt, tmp, path):
    n = os.path.basename(path)
    csv_path = os.path.join(tmp, n + ".csv")
    run(ipt, "convert", "-f", "csv", "-o", csv_path, path)
    csv = read_csv(csv_path)
    df = ipitrace.rows(path)
    dtypes_ok(n + ":rows", df, True)
    compare_frames(n + ":rows", df, csv)

    # one thread and many: the same frame
    df1 = ipitrace.rows(path, threads=1)
    check(n + ":threads", df1.equals(df), "rows(threads=1) differs from the default")
    # lanes even for a small trace: the report's pass hands out the rows
    # its consumer merges from 4 decoding threads
    df4 = ipitrace.rows(path, threads=4)
    check(n + ":threads=4", df4.equals(df1), "rows(threads=4) differs from rows(threads=1)")

    # not exploded: targets and cpumask against convert --no-explode
    run(ipt, "convert", "-f", "csv", "--no-explode", "-o", csv_path + ".ne", path)
    cne = read_csv(csv_path + ".ne")
    dne = ipitrace.rows(path, explode=False)
    dtypes_ok(n + ":noexplode", dne, False)
    compare_frames(n + ":noexplode", dne, cne, skip=("targets",))
    if len(dne) == len(cne):
        want = [parse_list(s) for s in cne["targets"]]
        check(n + ":noexplode:targets", [list(v) for v in dne["targets"]] == want)
        check(n + ":noexplode:cpumask",
              [int(v) for v in dne["cpumask"]] == [sum(1 << c for c in t) for t in want] and
              all(ipitrace.explode_mask(m) == t for m, t in zip(dne["cpumask"][:500], want)))
        # the per-target columns only for a send to one CPU
        multi = dne["ntargets"] != 1
        check(n + ":noexplode:multicast-null", dne.loc[multi, "matched"].isna().all())

    # a filter: the CLI's rows for it
    flt = "target_cpu == 1 || kind == \"call\""
    run(ipt, "convert", "-f", "csv", "--filter", flt, "-o", csv_path + ".f", path)
    dff = ipitrace.rows(path, filter=flt)
    compare_frames(n + ":filter", dff, read_csv(csv_path + ".f"))

    # columns=: a subset, in the order asked, the same values
    sub = ipitrace.rows(path, columns=["kind", "ts_ns", "target_cpu"])
    check(n + ":columns=", list(sub.columns) == ["kind", "ts_ns", "target_cpu"] and
          sub.equals(df[["kind", "ts_ns", "target_cpu"]]))

    # iter_rows: the chunks add up to rows()
    chunks = list(ipitrace.iter_rows(path, chunk_rows=997))
    if chunks:
        cat = pd.concat([c.astype({k: object for k in c.columns if str(c[k].dtype) == "category"})
                         for c in chunks], ignore_index=True)
        ref = df.astype({k: object for k in df.columns if str(df[k].dtype) == "category"})
        ok = len(chunks) == (len(df) + 996) // 997 and all(len(c) <= 997 for c in chunks) and \
            cat.equals(ref)
    else:
        ok = len(df) == 0
    check(n + ":iter_rows", ok, "%d chunks" % len(chunks))

    # the matching columns against the report's tables (the JSON)
    rj = json.loads(run(ipt, "report", "--format", "json", path))
    check_match(n, df, rj)
    check_report(n, path, rj)
    check_events(ipt, n, path, dne)
    return df


def check_match(n, df, rj):
    bad = []
    s = rj.get("matching") or {}
    un = df["unmatched_reason"].value_counts()
    for reason in ("trace_ended", "no_receive_events", "lost_events", "no_handler"):
        want = s.get("unmatched", {}).get(reason) if isinstance(s.get("unmatched"), dict) else None
        if want is not None and int(un.get(reason, 0)) != want:
            bad.append("unmatched %s %d, JSON %d" % (reason, un.get(reason, 0), want))
    for pc in rj["per_cpu"]:
        sel = df[df["target_cpu"] == pc["cpu"]]
        if int(sel["matched"].sum()) != pc["matched"]:
            bad.append("cpu %d matched %d, JSON %d" % (pc["cpu"], sel["matched"].sum(), pc["matched"]))
        if int(sel["coalesced"].sum()) != pc["coalesced"]:
            bad.append("cpu %d coalesced" % pc["cpu"])
        lat = pc.get("latency")
        got = sel["lat_ns"].dropna()
        if lat:
            if len(got) != lat["count"] or int(got.min()) != lat["min_ns"] or int(got.max()) != lat["max_ns"]:
                bad.append("cpu %d latency %d/%s/%s, JSON %s" % (pc["cpu"], len(got), got.min(), got.max(), lat))
        elif len(got):
            bad.append("cpu %d has latencies, JSON none" % pc["cpu"])
        h = pc.get("handler")
        got = sel["handler_ns"].dropna()
        if len(got) and (not h or int(got.max()) > h["max_ns"] or int(got.min()) < h["min_ns"]):
            bad.append("cpu %d handler times outside the JSON's range" % pc["cpu"])
    # every matched row has its handler's entry at or after the send (same CPU clock)
    m = df[df["matched"].fillna(False) & (df["src_cpu"] == df["target_cpu"])]
    if len(m) and (m["handler_ts_ns"].dropna() < m.loc[m["handler_ts_ns"].notna(), "ts_ns"]).any():
        bad.append("handler entry before its send")
    if (df["matched"].fillna(False) & df["unmatched_reason"].notna()).any():
        bad.append("matched rows with an unmatched_reason")
    check(n + ":match-vs-report", not bad, "; ".join(bad[:3]))


def check_report(n, path, rj):
    rep = ipitrace.report(path)
    s = rep["summary"]
    bad = []
    for k in ("events", "send_events", "ipis", "ipis_counted", "cpus", "clock", "time_unit"):
        if s.get(k) != rj.get(k):
            bad.append("%s %r, JSON %r" % (k, s.get(k), rj.get(k)))
    if abs(s["duration_s"] - rj["duration_s"]) > 1e-6:
        bad.append("duration_s")
    for k, v in rj["kinds"].items():
        if s["kinds"][k] != v:
            bad.append("kind " + k)
    for k, v in rj["csd"].items():
        if s["csd_" + k] != v:
            bad.append("csd " + k)
    pc = rep["per_cpu"]
    for j in rj["per_cpu"]:
        row = pc[pc["cpu"] == j["cpu"]]
        if len(row) != 1:
            bad.append("per_cpu %d missing" % j["cpu"])
            continue
        row = row.iloc[0]
        for k in ("ipis", "sent", "remote", "matched", "remote_matched", "coalesced", "handlers",
                  "handlers_unattributed", "csd_runs", "lost"):
            if int(row[k]) != j[k]:
                bad.append("per_cpu %d %s %s, JSON %s" % (j["cpu"], k, row[k], j[k]))
        for k, v in j["by_kind"].items():
            if int(row[k]) != v:
                bad.append("per_cpu %d kind %s" % (j["cpu"], k))
        lat = rep["latency"]
        for what in ("latency", "handler", "csd_queue_to_run", "csd_run"):
            got = lat[(lat["cpu"] == j["cpu"]) & (lat["what"] == what)]
            if (j.get(what) is None) != (len(got) == 0):
                bad.append("per_cpu %d %s presence" % (j["cpu"], what))
            elif len(got):
                g = got.iloc[0]
                for f in ("count", "p50_ns", "p99_ns", "max_ns", "min_ns"):
                    if f in j[what] and int(g[f]) != j[what][f]:
                        bad.append("per_cpu %d %s %s" % (j["cpu"], what, f))
    # the JSON's tables (maybe only their top entries) are the frames' first rows
    for tab, cols in (("senders", ("target_cpu", "pid", "comm", "src_cpu", "count")),
                      ("matrix", ("src_cpu", "target_cpu", "count"))):
        js = rj[tab]
        df = rep[tab]
        if len(df) < len(js):
            bad.append("%s: %d rows, JSON %d" % (tab, len(df), len(js)))
            continue
        for i, e in enumerate(js):
            for c in cols:
                if c in e and df[c].iloc[i] != e[c]:
                    bad.append("%s row %d %s %r, JSON %r" % (tab, i, c, df[c].iloc[i], e[c]))
                    break
    js, df = rj["pairs"], rep["pairs"]
    for i, e in enumerate(js[:len(df)]):
        cs = df["callsite_sym"].iloc[i] or ("0x%x" % df["callsite"].iloc[i] if df["callsite"].iloc[i] else "-")
        if e["target_cpu"] != df["target_cpu"].iloc[i] or e["count"] != df["count"].iloc[i] or \
                e["callsite"] != cs:
            bad.append("pairs row %d %r, JSON %r" % (i, (df["target_cpu"].iloc[i], cs, df["count"].iloc[i]), e))
            break
    if len(df) < len(js):
        bad.append("pairs: fewer rows than the JSON")
    # groups by comm: per target CPU, the JSON's groups are the frame's first
    g = rep["groups"]
    for jg in rj.get("groups") or []:
        mine = g[g["target_cpu"] == jg["target_cpu"]]
        got = list(zip(mine["comm"], mine["count"]))[:len(jg["groups"])]
        want = [(e["comm"], e["count"]) for e in jg["groups"]]
        if got != want:
            bad.append("groups cpu %d %r, JSON %r" % (jg["target_cpu"], got[:2], want[:2]))
    # and they add up to the counted rows, with the recorder's own IPIs
    # (kept apart from the groups without --with-recorder; the JSON's
    # recorder_ipis lists them per target CPU)
    own = sum(e["ipis"] for e in rj.get("recorder_ipis") or [])
    if int(g[g["target_cpu"] == -1]["count"].sum()) + own != s["ipis_counted"]:
        bad.append("groups of all CPUs (+%d of the recorder) do not add up to ipis_counted" % own)
    check(n + ":report-vs-json", not bad, "; ".join(bad[:3]))


def check_events(ipt, n, path, dne):
    """events() of the send events against `dump -R` and the rows"""
    info = ipitrace.info(path)
    bad = []
    for name in ("ipi_send_cpumask", "ipi_send_cpu", "ipi_raise"):
        try:
            ev = ipitrace.events(path, name)
        except ipitrace.Error as e:
            if "no event" not in str(e):
                bad.append("%s: %s" % (name, e))
            continue
        out = subprocess.run([ipt, "dump", "-R", "--no-header", "-e", name, path],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode(errors="replace")
        lines = [l for l in out.splitlines() if (" %s: " % name) in l]
        if len(lines) != len(ev):
            bad.append("%s: %d events, dump %d" % (name, len(ev), len(lines)))
            continue
        for i, l in enumerate(lines[:2000]):
            m = re.search(r"\[(\d+)\]\s+(\d+)\.(\d+):", l)
            if not m or int(m.group(1)) != ev["common_cpu"].iloc[i]:
                bad.append("%s event %d cpu: %s" % (name, i, l))
                break
            if info["ts_in_ns"] and len(m.group(3)) == 9 and \
                    int(m.group(2)) * 10**9 + int(m.group(3)) != int(ev["ts_ns"].iloc[i]):
                bad.append("%s event %d ts" % (name, i))
                break
            mk = re.search(r"(?:cpumask|target_cpus)=(\S*)", l)
            field = "cpumask" if "cpumask" in ev.columns else ("target_cpus" if "target_cpus" in ev.columns else None)
            if mk and field and ipitrace.explode_mask(ev[field].iloc[i]) != parse_list(mk.group(1)):
                bad.append("%s event %d mask %s vs %s" % (name, i, ev[field].iloc[i], mk.group(1)))
                break
        # the rows of that event, one per send, have the same targets
        if name == "ipi_send_cpumask" and "cpumask" in ev.columns and len(ev):
            r = dne[dne["event"] == name]
            if len(r) == len(ev) and [int(v) for v in r["cpumask"]] != [int(v) for v in ev["cpumask"]]:
                bad.append("cpumask events vs rows' cpumask")
    check(n + ":events-vs-dump", not bad, "; ".join(bad[:3]))


def check_by_hand(path):
    """the first send of pingpong.dat as `trace-cmd report -t` prints it:
    git-26181 [000] 462.974920164: ipi_send_cpu: cpu=1 callsite=wakeup_preempt+0x92 callback=0x0"""
    df = ipitrace.rows(path)
    r = df.iloc[0]
    check("by-hand:pingpong-first-send",
          (int(r.ts_ns), r.src_cpu, r.target_cpu, r.pid, r.comm, r.event, r.callsite_sym, r.callback, r.kind) ==
          (462974920164, 0, 1, 26181, "git", "ipi_send_cpu", "wakeup_preempt+0x92", 0, "resched"),
          repr(r[["ts_ns", "src_cpu", "target_cpu", "pid", "comm", "event", "callsite_sym", "kind"]].tolist()))
    # 3951 sends, all to one CPU (the report's summary says as much)
    check("by-hand:pingpong-counts", len(df) == 3951 and (df.ntargets == 1).all() and
          df.groupby("target_cpu").size().to_dict() == {0: 1972, 1: 1979})
    # diff of the recording with itself, CPU 1 isolated: the role totals
    # are the counts per target CPU above, every row 'same' with p = 1,
    # and by kind the rows' own kinds
    d = ipitrace.diff(path, path, by="role", isolated="1")
    check("diff:roles", dict(zip(d.role.astype(str), d.count_before)) == {"housekeeping": 1972, "isolated": 1979}
          and (d.count_before == d.count_after).all() and (d.status == "same").all() and (d.p > 0.999).all(),
          d.to_string())
    d = ipitrace.diff(path, path, by="kind")
    want = df.groupby(df.kind.astype(str)).size().to_dict()
    check("diff:kinds", dict(zip(d.key, d.count_after)) == want and str(d.latency_p50_ns_before.dtype) == "Int64",
          "%s, rows say %s" % (dict(zip(d.key, d.count_after)), want))


def bad_inputs(files):
    """every entry point on each file: a result or ipitrace.Error, nothing else"""
    for f in files:
        n = "bad:" + os.path.basename(f)
        why = []
        for what, fn in (("rows", lambda: ipitrace.rows(f)),
                         ("rows-noexplode", lambda: ipitrace.rows(f, explode=False, threads=1)),
                         ("iter_rows", lambda: sum(len(c) for c in ipitrace.iter_rows(f, chunk_rows=100))),
                         ("report", lambda: ipitrace.report(f, by="stack")),
                         ("events", lambda: ipitrace.events(f, "ipi_send_cpumask")),
                         ("spike_parts", lambda: ipitrace.spike_parts(f, worst=1000)),
                         ("info", lambda: ipitrace.info(f))):
            try:
                fn()
            except ipitrace.Error as e:
                if not str(e) or "\n" in str(e):
                    why.append("%s: message %r" % (what, str(e)))
            except Exception as e:  # noqa: BLE001 - anything else is a bug
                why.append("%s raised %s: %s" % (what, type(e).__name__, e))
        check(n, not why, "; ".join(why))


def leaks(path):
    """each entry point, called again and again, leaves no objects behind"""
    calls = (("rows", lambda: ipitrace.rows(path)),
             ("rows-noexplode", lambda: ipitrace.rows(path, explode=False)),
             ("iter_rows", lambda: list(ipitrace.iter_rows(path, chunk_rows=100))),
             ("report", lambda: ipitrace.report(path, by="stack")),
             ("events", lambda: ipitrace.events(path, "ipi_send_cpu")),
             ("error", lambda: ipitrace.rows(path, filter="nope == 1")))
    for name, more in pyleaks.growth(calls, ipitrace.Error):
        check("leaks:" + name, more < 64 * 1024, "%d bytes more after 20 calls" % more)


def check_big(ipt, tmp, path, stacks=False, sample=False):
    """rows() where its threads start (pages faulted ahead from 256k rows, the
    join shared from 512k, the row results given back as it goes from 32k):
    the CSV's rows, and the same with threads=1.  stacks: a recording with
    kernel stacks, of 32k rows or more.  sample: the CSV compared on its
    first and last 5000 rows and every 61st between (under ASan, where
    comparing 500k rows in Python took 27 of the pass's 65 CPU-seconds and
    checks no more of the module's memory; rows() and rows(threads=1) are
    still compared whole, and the plain pass compares every row)"""
    n = ("big-stacks:" if stacks else "big:") + os.path.basename(path)
    csv_path = os.path.join(tmp, os.path.basename(path) + ".csv")
    run(ipt, "convert", "-f", "csv", "-o", csv_path, path)
    df = ipitrace.rows(path)
    least = 32 * 1024 if stacks else 512 * 1024
    check(n + ":size", len(df) >= least, "only %d rows" % len(df))
    if stacks:
        check(n + ":stacks", df["stack"].notna().sum() >= least // 2,
              "only %d rows with a stack" % df["stack"].notna().sum())
    if sample:
        total = len(df)
        picked = [i for i in range(total) if i < 5000 or i >= total - 5000 or i % 61 == 0]
        wanted = set(picked)
        last = [0]      # the CSV's last row, as the reader counts them

        def skip(r):    # the header is row 0: data row i is row i + 1
            last[0] = max(last[0], r)
            return r != 0 and (r - 1) not in wanted
        csv = pd.read_csv(csv_path, dtype=str, keep_default_na=False, na_values=[""], skiprows=skip)
        check(n + ":csv-rows", last[0] == total, "%d rows, CSV %d" % (total, last[0]))
        compare_frames(n + ":sample", df.iloc[picked].reset_index(drop=True), csv)
    else:
        compare_frames(n, df, read_csv(csv_path))
    os.unlink(csv_path)
    check(n + ":threads=1", ipitrace.rows(path, threads=1).equals(df),
          "rows(threads=1) differs from the default")


def main():
    if sys.argv[1] == "--big":
        check_big(*sys.argv[2:5])
        return
    if sys.argv[1] == "--big-sample":
        check_big(*sys.argv[2:5], sample=True)
        return
    if sys.argv[1] == "--big-stacks":
        check_big(*sys.argv[2:5], stacks=True)
        return
    if sys.argv[1] == "--leaks":
        leaks(sys.argv[2])
        return
    if sys.argv[1] == "--bad":
        bad_inputs(sys.argv[2:])
        return
    ipt, tmp = sys.argv[1], sys.argv[2]
    for p in sys.argv[3:]:
        try:
            check_trace(ipt, tmp, p)
        except Exception as e:  # noqa: BLE001
            say("FAIL", os.path.basename(p), "%s: %s" % (type(e).__name__, e))
        if os.path.basename(p) == "pingpong.dat":
            check_by_hand(p)
    # errors: the library's one-line messages
    for args, what in (((os.path.join(tmp, "none.dat"),), "No such file"),
                       (("/etc/passwd",), "not a trace"),
                       ((sys.argv[3], "foo == 1"), "unknown field")):
        try:
            ipitrace.rows(*args)
            check("error:" + what, False, "no exception")
        except ipitrace.Error as e:
            check("error:" + what, what.lower() in str(e).lower() and "\n" not in str(e), str(e))
    for fn, what in ((lambda: ipitrace.rows(sys.argv[3], columns=["nope"]), "no column"),
                     (lambda: ipitrace.report(sys.argv[3], by="nope"), "no key"),
                     (lambda: ipitrace.events(sys.argv[3], "nope"), "no event")):
        try:
            fn()
            check("error:" + what, False, "no exception")
        except ipitrace.Error as e:
            check("error:" + what, what in str(e), str(e))


if __name__ == "__main__":
    main()
