#!/usr/bin/python3
"""bench/python.py - the Python module against the CSV route, in one run.

    PYTHONPATH=build/python /usr/bin/python3 bench/python.py IPITRACE OUTDIR TRACE...

For each trace, after one warm-up of each, best of 3, taken in turn
(each of 3 rounds runs every one of the first four once, so that a noisy
stretch of the host falls on every side rather than on one's three runs):
  rows()                      ipitrace.rows(TRACE): every column, matching included
  rows() base                 ipitrace.rows(TRACE, columns=<convert's 16 columns>)
  convert + read_csv          `ipitrace convert -f csv -o F TRACE` then
                              pandas.read_csv(F) with good dtypes (ints, categories)
  (16 cols)                   the same with `convert --no-match` (convert's 16
                              base columns, where it has the matching ones)
  LISA-style                  what a pandas user does without ipitrace, as LISA
                              does: `trace-cmd report -F ipi_send_cpu -F
                              ipi_send_cpumask` text parsed line by line with a
                              regex, its cpumask lists turned into one row per
                              target CPU, into a DataFrame (no matching).  On
                              the 10M trace it runs on the 1M one bench/run.sh
                              made with the same generator (or one made here)
                              and is extrapolated by events, marked "~"; its
                              row count is checked against rows() on the trace
                              it ran on
and the ratios: x rows() = (convert + read_csv) / rows(), x base = (16 cols) /
rows() base, x LISA = LISA-style / rows() base.  Peak memory: the growth of
ru_maxrss during one rows() call (in a fresh interpreter) against
df.memory_usage(deep=True).sum().  Prints a table and a verdict per goal of
issue 21 (memory judged on frames of 16 MiB or more); writes OUTDIR/python.json.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time

BASE = ["ts_ns", "id", "src_cpu", "target_cpu", "ntargets", "pid", "comm", "event", "kind",
        "callsite", "callsite_sym", "callback", "callback_sym", "func", "func_sym", "reason"]
CSV_DTYPES = {"ts_ns": "int64", "id": "int64", "src_cpu": "int32", "target_cpu": "int32",
              "ntargets": "int32", "pid": "int32",
              **{c: "category" for c in ("comm", "event", "kind", "callsite", "callsite_sym",
                                          "callback", "callback_sym", "func", "func_sym",
                                          "reason")}}


def best(fn, n=3):
    fn()    # warm-up
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return min(ts)


def best_in_turn(fns, n=3):
    """best of n of each of fns after a warm-up of each, the runs in turn
    (round i runs every fn once): a noisy stretch of the host falls on
    every side, not on the three runs of one"""
    for fn in fns:
        fn()    # warm-up
    ts = [[] for _ in fns]
    for _ in range(n):
        for i, fn in enumerate(fns):
            t = time.perf_counter()
            fn()
            ts[i].append(time.perf_counter() - t)
    return [min(x) for x in ts]


# trace-cmd report's line: "comm-pid [cpu] secs: event: fields"
LINE = re.compile(r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<ts>\d+\.\d+):"
                  r"\s+(?P<event>\w+):\s+(?P<fields>.*)$")
FIELD = re.compile(r"(\w+)=(\S+)")


def cpu_list(text):
    """a cpumask as trace-cmd prints it ("0,7", "0-3,6") as a list of CPUs"""
    out = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            out.extend(range(int(a), int(b) + 1))
        elif part:
            out.append(int(part))
    return out


def lisa_style(trace):
    """the sends of trace as a DataFrame, one row per target CPU, from
    trace-cmd report's text parsed with a regex (the LISA way)"""
    import pandas as pd
    text = subprocess.run(["trace-cmd", "report", "-F", "ipi_send_cpu", "-F", "ipi_send_cpumask", trace],
                          check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True).stdout
    cols = {"ts_ns": [], "src_cpu": [], "target_cpu": [], "pid": [], "comm": [], "event": [],
            "callsite": [], "callback": []}
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        f = dict(FIELD.findall(m.group("fields")))
        ev = m.group("event")
        targets = [int(f["cpu"])] if ev == "ipi_send_cpu" else cpu_list(f.get("cpumask", ""))
        ts = int(round(float(m.group("ts")) * 1e9))
        for t in targets:
            cols["ts_ns"].append(ts)
            cols["src_cpu"].append(int(m.group("cpu")))
            cols["target_cpu"].append(t)
            cols["pid"].append(int(m.group("pid")))
            cols["comm"].append(m.group("comm"))
            cols["event"].append(ev)
            cols["callsite"].append(f.get("callsite"))
            cols["callback"].append(f.get("callback"))
    df = pd.DataFrame(cols)
    for c in ("src_cpu", "target_cpu", "pid"):
        df[c] = df[c].astype("int32")
    for c in ("comm", "event", "callsite", "callback"):
        df[c] = df[c].astype("category")
    return df


def events_of(ipt, trace):
    """the events in trace, as `ipitrace count` counts them"""
    out = subprocess.run([ipt, "count", trace], check=True, stdout=subprocess.PIPE, text=True).stdout
    return sum(int(m.group(1)) for m in re.finditer(r"^cpu \d+: (\d+) events", out, re.M))


def lisa_trace(ipt, outdir, trace, n):
    """the trace the LISA-style pipeline runs on: trace itself up to 2M
    events, else the 1M synthetic one made by the same generator"""
    if n <= 2000000 or not os.path.basename(trace).startswith("synth-"):
        return trace
    small = os.path.join(outdir, "synth-1M.dat")
    gen = os.path.join(os.path.dirname(ipt), "tools", "gen-synth")
    if not os.path.exists(small):
        subprocess.run([gen, "--events", "1000000", "--nr-cpus", "8", "--version", "7",
                        "--compression", "none", "--seed", "1", "-o", small], check=True)
    return small


def peak(trace):
    """ru_maxrss growth of one rows() call and the frame's deep size, in MiB"""
    # VmHWM reset (clear_refs 5) after the imports, so that their peak does
    # not hide the call's.  VmHWM counts the trace's pages that the library
    # maps (file pages, not memory of the process's own); RssAnon, sampled
    # every 2 ms by a thread while rows() runs (it releases the GIL), does not
    code = ("import sys, threading, time, ipitrace, pandas\n"
            "def st(k):\n"
            "    for l in open('/proc/self/status'):\n"
            "        if l.startswith(k): return int(l.split()[1])\n"
            "try:\n"
            "    open('/proc/self/clear_refs', 'w').write('5')\n"
            "except OSError:\n"
            "    pass\n"
            "a, a_anon = st('VmRSS'), st('RssAnon')\n"
            "top, stop = [a_anon], []\n"
            "def sample():\n"
            "    while not stop:\n"
            "        top[0] = max(top[0], st('RssAnon')); time.sleep(0.002)\n"
            "th = threading.Thread(target=sample); th.start()\n"
            "df = ipitrace.rows(sys.argv[1])\n"
            "stop.append(1); th.join()\n"
            "b = st('VmHWM')\n"
            "print((b - a) / 1024, (top[0] - a_anon) / 1024, df.memory_usage(deep=True).sum() / 2**20, len(df))\n")
    out = subprocess.run([sys.executable, "-c", code, trace], check=True,
                         stdout=subprocess.PIPE).stdout.split()
    return float(out[0]), float(out[1]), float(out[2]), int(out[3])


def main():
    import pandas as pd
    import ipitrace

    ipt, outdir = sys.argv[1], sys.argv[2]
    res = []
    have_tc = shutil.which("trace-cmd") is not None
    print("%-24s %9s %8s %11s %13s %13s %8s %7s %13s %7s  %s" % (
        "trace", "rows", "rows() s", "rows() base", "convert+csv s", "(16 cols) s", "x rows()", "x base",
        "LISA-style s", "x LISA", "peak growth: RSS (with mapped file), anon / frame"))
    for trace in sys.argv[3:]:
        csv = os.path.join(outdir, os.path.basename(trace) + ".bench.csv")

        def via_csv():
            subprocess.run([ipt, "convert", "-f", "csv", "--force", "-o", csv, trace], check=True)
            return pd.read_csv(csv, dtype=CSV_DTYPES, keep_default_na=False, na_values=[""])

        def via_csv_base():
            subprocess.run([ipt, "convert", "-f", "csv", "--no-match", "--force", "-o", csv, trace], check=True)
            return pd.read_csv(csv, dtype=CSV_DTYPES, keep_default_na=False, na_values=[""])

        # convert's 16 columns alone, where it has the matching ones (--no-match)
        has_nm = b"--no-match" in subprocess.run([ipt, "convert", "--help"], stdout=subprocess.PIPE,
                                                 stderr=subprocess.STDOUT).stdout
        fns = [lambda: ipitrace.rows(trace), lambda: ipitrace.rows(trace, columns=BASE), via_csv]
        if has_nm:
            fns.append(via_csv_base)
        t = best_in_turn(fns)
        t_rows, t_base, t_csv = t[:3]
        t_csv_base = t[3] if has_nm else t_csv
        os.unlink(csv)
        grow, anon, size, n = peak(trace)
        # the LISA-style pipeline, on a smaller trace if this one is large
        t_lisa, lisa_note, lisa_mark = None, "", ""
        if have_tc:
            ev = events_of(ipt, trace)
            lt = lisa_trace(ipt, outdir, trace, ev)
            got = []
            t_l = best(lambda: got.append(len(lisa_style(lt))))
            want = len(ipitrace.rows(lt, columns=["ts_ns"]))
            if got[-1] != want:
                lisa_note = "LISA-style rows %d != rows() %d on %s" % (got[-1], want, lt)
            if lt != trace:
                t_lisa = t_l * ev / events_of(ipt, lt)
                lisa_mark = "~"
            else:
                t_lisa = t_l
        else:
            lisa_note = "no trace-cmd: LISA-style pipeline not run"
        r = {"trace": trace, "rows": n, "rows_s": t_rows, "rows_base_s": t_base,
             "convert_read_csv_s": t_csv, "convert_no_match_read_csv_s": t_csv_base,
             "x_rows": t_csv / t_rows, "x_base": t_csv_base / t_base,
             "peak_growth_mib": grow, "anon_peak_growth_mib": anon, "frame_mib": size,
             "peak_over_frame": grow / size if size else 0,
             "anon_over_frame": anon / size if size else 0,
             "lisa_style_s": t_lisa, "lisa_style_extrapolated": bool(lisa_mark),
             "x_lisa": t_lisa / t_base if t_lisa else None, "lisa_note": lisa_note}
        res.append(r)
        lisa = ("%s%.3f" % (lisa_mark, t_lisa), "%s%.1fx" % (lisa_mark, t_lisa / t_base)) if t_lisa else ("-", "-")
        print("%-24s %9d %8.3f %11.3f %13.3f %13.3f %7.1fx %6.1fx %13s %7s  %.1f (%.2fx), %.1f (%.2fx) / %.1f MiB" % (
            os.path.basename(trace)[:24], n, t_rows, t_base, t_csv, t_csv_base, r["x_rows"], r["x_base"],
            lisa[0], lisa[1], grow, r["peak_over_frame"], anon, r["anon_over_frame"], size), flush=True)
        if lisa_note:
            print("  note: " + lisa_note, flush=True)
    with open(os.path.join(outdir, "python.json"), "w") as f:
        json.dump(res, f, indent=1)
    verdicts(res)


# frames smaller than this are left out of the memory verdict: the call's
# fixed part (the kernel's symbols, the lanes' rings: about 12 MiB) is
# most of their growth
MEM_MIN_FRAME_MIB = 16


def verdicts(res):
    """issue 21's goals, a line each: MET / NOT MET with the figure"""
    def line(goal, ok, figure):
        print("  %-66s %-8s %s" % (goal, "met" if ok else "NOT MET", figure))

    print("Targets (issue 21; ratios of this run):")
    synth = [r for r in res if os.path.basename(r["trace"]).startswith("synth-")]
    real = [r for r in res if os.path.basename(r["trace"]).startswith("real-")]
    for r in synth:
        fig = "%.1fx (%.3f s vs %.3f s)" % (r["x_rows"], r["rows_s"], r["convert_read_csv_s"])
        if os.path.basename(r["trace"]) == "synth-10M.dat":
            line("rows() >= 10x convert + read_csv (synth-10M.dat)", r["x_rows"] >= 10, fig)
        else:	# the goal is on the 10M trace
            print("  (info: rows() against convert + read_csv on %s: %s)" % (os.path.basename(r["trace"]), fig))
    if not any(os.path.basename(r["trace"]) == "synth-10M.dat" for r in synth):
        print("  (no 10M synthetic trace in this run: the 10x goal not judged)")
    for r in real:
        line("rows() >= 3x convert + read_csv, real recording (%s)" % os.path.basename(r["trace"]),
             r["x_rows"] >= 3, "%.1fx (%.3f s vs %.3f s)" % (r["x_rows"], r["rows_s"], r["convert_read_csv_s"]))
    if not real:
        print("  (no real recording from bench/run.sh: the 3x goal not judged)")
    for r in res:
        name = os.path.basename(r["trace"])
        if r["frame_mib"] < MEM_MIN_FRAME_MIB:
            print("  (memory of %s not judged: a %.1f MiB frame, under %d MiB)" % (name, r["frame_mib"],
                                                                                MEM_MIN_FRAME_MIB))
            continue
        line("peak ru_maxrss growth <= 1.5x the DataFrame (%s)" % name, r["peak_over_frame"] <= 1.5,
             "%.2fx (%.1f MiB / %.1f MiB; anonymous %.2fx)" % (r["peak_over_frame"], r["peak_growth_mib"],
                                                              r["frame_mib"], r["anon_over_frame"]))


if __name__ == "__main__":
    main()
