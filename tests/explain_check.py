#!/usr/bin/python3
# explain_check.py NAME TEXT JSON EXPLAIN_TEXT THRESHOLD_NS - `ipitrace
# explain` of a trace-cmd report text (ns timestamps) against a join of its
# own over that text (spikes_join.py, shared with python_spikes_check.py):
# the timerlat thread samples over the threshold (and
# the osnoise sample_threshold lines over it, each covering [ts - duration,
# ts]), and for each, the osnoise noise events on its CPU whose line (the noise's end)
# is inside [ts - latency, ts], each counted for its net duration or, when
# that reaches back before the window, up to the window's start; the sum
# and what is left (unaccounted, or by how much the sum exceeds the
# latency); a CPU with no noise lines at all: interference unknown.  Then
# the text output's unaccounted lines against the JSON's.
# Prints "PASS name" / "FAIL name: why".
import json
import re
import sys

from spikes_join import spikes


def result(n, ok, why):
    print("PASS " + n if ok else "FAIL %s: %s" % (n, why))


name, text, jpath, tpath, thr = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
want = {}
for s in spikes(text, threshold_ns=thr):
    rows = [(r["kind"], r["name"], r["end"], r["duration"], r["counted"]) for r in s["noise"]]
    total = s["listed"] if s["noise_known"] else 0
    want[(s["cpu"], s["ts"])] = (s["noise_known"], rows, total, s["unaccounted"], s["excess"])
d = json.load(open(jpath))
got = {}
for s in d["spikes"]:
    rows = [(r["kind"], r["name"], r["end_ns"], r["duration_ns"], r["counted_ns"]) for r in s["interference"]]
    got[(s["cpu"], s["ts_ns"])] = (s["noise_known"], rows, s["listed_ns"] - s["ipi_ns"] * (not s["noise_known"]),
                                 s["unaccounted_ns"], s["excess_ns"])
bad = [(k, want.get(k), got.get(k)) for k in sorted(set(want) | set(got)) if want.get(k) != got.get(k)]
nrows = sum(len(w[1]) for w in want.values())
over = sum(1 for w in want.values() if w[4] is not None)
before = sum(1 for w in want.values() for r in w[1] if r[4] != r[3])
unknown = sum(1 for w in want.values() if not w[0])
ok = bool(want) and not bad
result("explain-noise-" + name, ok, "%d spikes, mismatches %r" % (len(want), bad[:3]))
print("FIGURE explain-noise-%s spikes %d, noise rows %d, before the window %d, over %d, unknown %d" %
      (name, len(want), nrows, before, over, unknown))
# the text's unaccounted lines, spike by spike, say the JSON's
tx, cur = {}, None
for l in open(tpath):
    m = re.match(r"^spike cpu (\d+) (?:seq \d+|osnoise) at (\d+)\.(\d{9}):", l)
    if m:
        cur = (int(m.group(1)), int(m.group(2)) * 10**9 + int(m.group(3)))
    m = re.match(r"^  unaccounted (\d+\.\d{3}) us", l)
    if m and cur:
        tx[cur] = round(float(m.group(1)) * 1000)
    m = re.match(r"^  unaccounted: none; .* by (\d+\.\d{3}) us", l)
    if m and cur:
        tx[cur] = -round(float(m.group(1)) * 1000)
js = {(s["cpu"], s["ts_ns"]): s["unaccounted_ns"] if s["unaccounted_ns"] is not None else -s["excess_ns"]
      for s in d["spikes"]}
ok = tx == js and len(tx) == len(want)	# %.3f us is the ns exactly
result("explain-text-" + name, ok, "text %r json %r" % (sorted(tx.items())[:3], sorted(js.items())[:3]))
