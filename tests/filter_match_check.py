#!/usr/bin/python3
"""filter_match_check.py {--oracle JSON ROWS | --truth TRUTH | --csv-only}
                        IPITRACE TRACE THREADS - filters on
what matching found (lat_ns, matched, coalesced, handler_ns,
unmatched_reason, stack, ...) and on durations with units, checked
through every front end (report -F, convert -F, report -f uniq -F; diff
-F where the oracle decides) against:

- tests/oracle.py's own matching of `trace-cmd report` text (--oracle:
  its report JSON and its --rows output: ts_ns, target_cpu, kind, matched, latency_ns; a
  latency across CPUs counts only where its report says
  the clock is comparable across CPUs, cross_cpu_latency): the
  expressions on lat_ns, matched, ts and kind are evaluated here in Python
  over those rows;
- this script's own evaluation of the expression over the unfiltered
  rows of `ipitrace convert -f csv` (for the columns the oracle does not
  give: handler_ns, coalesced, unmatched_reason, stack, func_name): the
  filter, not the matching, is what is checked there.

With --truth, a trace of tests/coalesce_gen.py (coalesced sends) is read
with its ground truth beside; its counts are shown, the CSV's decide.

Prints "P name: ..." / "F name: ..." lines.
"""
import csv
from decimal import Decimal
import io
import json
import subprocess
import sys



def run(*args):
    p = subprocess.run([ipt, *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("ipitrace %s: exit %d: %s" % (" ".join(args), p.returncode,
                                                         p.stderr.strip().splitlines()[-1:]))
    return p.stdout


oracle_json, oracle = None, []
if sys.argv[1] == "--truth":
    # --truth TRUTH: a trace of tests/coalesce_gen.py and its ground truth
    # (send_ts_ns, src_cpu, target_cpu, kind, entry_ts_ns, coalesced)
    truth = sys.argv[2]
    oracle = [{"ts_ns": int(t["send_ts_ns"]), "src_cpu": int(t["src_cpu"]),
               "target_cpu": int(t["target_cpu"]), "kind": t["kind"], "matched": True,
               "latency_ns": int(t["entry_ts_ns"]) - int(t["send_ts_ns"]),
               "coalesced": t["coalesced"] == "true"}
              for t in csv.DictReader(open(truth))]
    args = sys.argv[3:]
elif sys.argv[1] == "--oracle":
    oracle_json, oracle_rows = sys.argv[2:4]
    args = sys.argv[4:]
else:                   # --csv-only
    args = sys.argv[2:]
ipt, trace, threads = args[:3]
synced = json.load(open(oracle_json))["cross_cpu_latency"] if oracle_json else True
if oracle_json:
    oracle = [json.loads(line) for line in open(oracle_rows)]
for o in oracle:
    if not synced and o["src_cpu"] != o["target_cpu"]:
        o["latency_ns"] = None         # not comparable: unknown
rows = list(csv.DictReader(io.StringIO(run("convert", "-f", "csv", "-o", "-", trace))))
name = trace.rsplit("/", 1)[-1]


def num(v):
    return int(v) if v not in ("", None) else None


# (expression, predicate over an oracle row or None, predicate over a CSV row)
US = 1000
lat = sorted(r["latency_ns"] for r in oracle if r.get("latency_ns") is not None) or \
    sorted(num(c["lat_ns"]) for c in rows if c["lat_ns"])
mid = lat[len(lat) // 2] if lat else 50 * US     # a threshold inside the data
ts = sorted(r["ts_ns"] for r in oracle) or sorted(int(c["ts_ns"]) for c in rows) or [0]
t_lit = "%.4fs" % (ts[len(ts) // 2] / 1e9)         # the middle send, to 0.1 ms
t_mid = int(Decimal(t_lit[:-1]) * 1_000_000_000)
cases = [
    ("lat_ns > %dus" % (mid // US),
     lambda o: o.get("latency_ns") is not None and o["latency_ns"] > mid // US * US,
     lambda c: num(c["lat_ns"]) is not None and num(c["lat_ns"]) > mid // US * US),
    ("lat_ns <= %d" % mid,
     lambda o: o.get("latency_ns") is not None and o["latency_ns"] <= mid,
     lambda c: num(c["lat_ns"]) is not None and num(c["lat_ns"]) <= mid),
    ("!(lat_ns > 0.1ms)",
     lambda o: not (o.get("latency_ns") is not None and o["latency_ns"] > 100 * US),
     lambda c: not (num(c["lat_ns"]) is not None and num(c["lat_ns"]) > 100 * US)),
    ("matched == false", lambda o: not o["matched"], lambda c: c["matched"] == "false"),
    ("matched == true && kind == \"resched\"",
     lambda o: o["matched"] and o["kind"] == "resched",
     lambda c: c["matched"] == "true" and c["kind"] == "resched"),
    ("ts >= %s && cpu == 1" % t_lit,
     lambda o: o["ts_ns"] >= t_mid and o["target_cpu"] == 1,
     lambda c: int(c["ts_ns"]) >= t_mid and c["target_cpu"] == "1"),
    ("coalesced == true && lat_ns >= 1us",
     (lambda o: o["coalesced"] and o["latency_ns"] >= US) if oracle and "coalesced" in oracle[0] else None,
     lambda c: c["coalesced"] == "true" and num(c["lat_ns"]) is not None and num(c["lat_ns"]) >= US),
    ("handler_ns >= 2us || coalesced == true", None,
     lambda c: (num(c["handler_ns"]) is not None and num(c["handler_ns"]) >= 2 * US) or c["coalesced"] == "true"),
    ("unmatched_reason == \"trace_ended\" || unmatched_reason == \"lost_events\"", None,
     lambda c: c["unmatched_reason"] in ("trace_ended", "lost_events")),
    ("unmatched_reason ~ \"no_*\" && src_cpu != 0", None,
     lambda c: c["unmatched_reason"].startswith("no_") and c["src_cpu"] != "0"),
    ("stack ~ \"*flush_tlb*\"", None, lambda c: "flush_tlb" in c["stack"]),
    ("stack ~ \"*\" && func_name ~ \"*ttwu*\"", None,
     lambda c: c["stack"] != "" and "ttwu" in c["func_name"]),
]

for expr, on_oracle, on_csv in cases:
    want_csv = sum(1 for c in rows if on_csv(c))
    try:
        rep = json.loads(run("report", "-j", threads, "-f", "json", "-F", expr, trace))
        got_rep = rep["summary"]["ipis_counted"] if "summary" in rep else rep["ipis_counted"]
        got_conv = len(run("convert", "-j", threads, "-f", "csv", "-F", expr, "-o", "-", trace).splitlines()) - 1
        got_diff = None
        if on_oracle is not None:     # diff: the cases the oracle decides
            try:
                d = json.loads(run("diff", "--with-recorder", "-f", "json", "-F", expr, trace, trace))
                got_diff = d["before"]["ipis"]
            except RuntimeError as e:     # diff says so when no row is left on either side
                if "no IPI matches the filter in either recording" not in str(e):
                    raise
                got_diff = 0
    except (RuntimeError, KeyError, ValueError) as e:
        print("F %s [%s] -j %s: %s" % (name, expr, threads, e))
        continue
    if on_oracle is not None and oracle_json:
        want = sum(1 for o in oracle if on_oracle(o))
        src = "oracle.py"
        if want != want_csv:
            print("F %s [%s]: the oracle's %d rows, the CSV's %d (matching disagrees)" % (name, expr, want, want_csv))
    else:
        # the generator's truth may differ from any matching by a few
        # ambiguous sends (tests/test_coalesce.sh bounds that): here only
        # the filter is checked, the truth's count shown beside
        want, src = want_csv, "csv rows filtered here"
        if on_oracle is not None and oracle:
            src += " (ground truth %d)" % sum(1 for o in oracle if on_oracle(o))
    # report -f uniq (the recipe's tables): send events with a kept row
    uniq = run("report", "-f", "uniq", "-F", expr, trace).splitlines()[0]
    got_uniq = int(uniq.split(": ", 1)[1].split()[0]) if ": " in uniq else -1
    want_uniq = len({c["id"] for c in rows if on_csv(c)})
    if got_uniq != want_uniq:
        print("F %s [%s] report -f uniq: %d send lines, the CSV rows' send events %d" %
              (name, expr, got_uniq, want_uniq))
    ok = got_rep == want and got_conv == want and got_diff in (want, None)
    print("%s %s [%s] -j %s: report %d, convert %d%s; %s %d" %
          ("P" if ok else "F", name, expr, threads, got_rep, got_conv,
           ", diff %d" % got_diff if on_oracle is not None else "", src, want))
