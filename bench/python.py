#!/usr/bin/python3
"""bench/python.py - the Python module against the CSV route, in one run.

    PYTHONPATH=build/python /usr/bin/python3 bench/python.py IPITRACE OUTDIR TRACE...

For each trace, after one warm-up, best of 3:
  rows()                      ipitrace.rows(TRACE): every column, matching included
  rows() base                 ipitrace.rows(TRACE, columns=<convert's 16 columns>)
  convert + read_csv          `ipitrace convert -f csv -o F TRACE` then
                              pandas.read_csv(F) with good dtypes (ints, categories)
  (16 cols)                   the same with `convert --no-match` (convert's 16
                              base columns, where it has the matching ones)
and the ratios: x rows() = (convert + read_csv) / rows(), x base = (16 cols) /
rows() base.  Peak memory: the growth of
ru_maxrss during one rows() call (in a fresh interpreter) against
df.memory_usage(deep=True).sum().  Prints a table; writes OUTDIR/python.json.
"""
import json
import os
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
    print("%-24s %9s %8s %11s %13s %13s %8s %7s  %s" % ("trace", "rows", "rows() s", "rows() base",
                                                  "convert+csv s", "(16 cols) s", "x rows()", "x base",
                                                  "peak growth: RSS (with mapped file), anon / frame"))
    for trace in sys.argv[3:]:
        csv = os.path.join(outdir, os.path.basename(trace) + ".bench.csv")

        def via_csv():
            subprocess.run([ipt, "convert", "-f", "csv", "-o", csv, trace], check=True)
            return pd.read_csv(csv, dtype=CSV_DTYPES, keep_default_na=False, na_values=[""])

        def via_csv_base():
            subprocess.run([ipt, "convert", "-f", "csv", "--no-match", "-o", csv, trace], check=True)
            return pd.read_csv(csv, dtype=CSV_DTYPES, keep_default_na=False, na_values=[""])

        t_rows = best(lambda: ipitrace.rows(trace))
        t_base = best(lambda: ipitrace.rows(trace, columns=BASE))
        t_csv = best(via_csv)
        # convert's 16 columns alone, where it has the matching ones (--no-match)
        has_nm = b"--no-match" in subprocess.run([ipt, "convert", "--help"], stdout=subprocess.PIPE,
                                                 stderr=subprocess.STDOUT).stdout
        t_csv_base = best(via_csv_base) if has_nm else t_csv
        os.unlink(csv)
        grow, anon, size, n = peak(trace)
        r = {"trace": trace, "rows": n, "rows_s": t_rows, "rows_base_s": t_base,
             "convert_read_csv_s": t_csv, "convert_no_match_read_csv_s": t_csv_base,
             "x_rows": t_csv / t_rows, "x_base": t_csv_base / t_base,
             "peak_growth_mib": grow, "anon_peak_growth_mib": anon, "frame_mib": size,
             "peak_over_frame": grow / size if size else 0,
             "anon_over_frame": anon / size if size else 0}
        res.append(r)
        print("%-24s %9d %8.3f %11.3f %13.3f %13.3f %7.1fx %6.1fx  %.1f (%.2fx), %.1f (%.2fx) / %.1f MiB" % (
            os.path.basename(trace)[:24], n, t_rows, t_base, t_csv, t_csv_base, r["x_rows"], r["x_base"],
            grow, r["peak_over_frame"], anon, r["anon_over_frame"], size), flush=True)
    with open(os.path.join(outdir, "python.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
