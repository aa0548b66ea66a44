#!/usr/bin/python3
"""pair_check.py OUTDIR IPITRACE RUN... - the before/after pairs of the
x86_64-iso guest (init.sh, ipitest=pair) through `ipitrace diff`, on the host.

OUTDIR/pairRUN-before.dat: membarrier calls on CPU 0, a spinner on CPU 1
(ipi_mb IPIs to CPU 1, housekeeping); OUTDIR/pairRUN-after.dat: the same and
a second process calling from CPU 4 with its spinner on the isolated CPU 2.
For each pair, `ipitrace diff -f json -g function,callsite` (the isolated role
from the recordings: 2-3) against a second count over `trace-cmd report`
text: the sends of the probes (resched and call_single: cpu=, call_mask: each
CPU of cpumask=) per target role, the recorder's own pids (its provenance)
left out as diff leaves them out; and those sent by smp_call_function_many_cond
for the `many` probe's function ipi_mb (its callsite
membarrier_private_expedited), the last `many` event on the sending CPU.
Then the statuses: ipi_mb to the isolated CPUs new (or more, ten times),
ipi_mb to the housekeeping CPUs (the kept part) same.
Prints "PASS name", "FAIL name: why" and "FIGURE key value" lines.
"""
import json
import re
import subprocess
import sys

out, ipt, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
ISO = {2, 3}
LINE = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+[\d.]+:\s+(\w+):\s*(.*)$")


def verdict(name, cond, why=""):
    print(("PASS %s" % name) if cond else ("FAIL %s: %s" % (name, why)))


def role(cpu):
    return "isolated" if cpu in ISO else "housekeeping"


def text_counts(dat):
    """{role: IPIs}, {role: ipi_mb IPIs} of trace-cmd's text, the recorder's left out"""
    rep = json.loads(subprocess.run([ipt, "report", "-f", "json", dat], check=True,
                                    stdout=subprocess.PIPE).stdout)
    rec = {int(p) for p in (rep["provenance"].get("recorder_pids") or "").split(",") if p}
    txt = subprocess.run(["trace-cmd", "report", dat], check=True, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, universal_newlines=True).stdout
    total = {"housekeeping": 0, "isolated": 0}
    mb = {"housekeeping": 0, "isolated": 0}
    nested = 0
    many = {}	# sending CPU -> (func, callsite) of its last `many` event
    slot = {}	# sending CPU -> (func, callsite, target or -1) of its last caller probe
    for l in txt.splitlines():
        m = LINE.match(l)
        if not m:
            continue
        pid, cpu, ev, rest = int(m.group(2)), int(m.group(3)), m.group(4), m.group(5)
        if ev in ("many", "exec_single", "queue"):
            f = re.search(r"func=(\S+)", rest).group(1).split("+")[0]
            c = re.search(r"callsite=(\S+)", rest).group(1).split("+")[0]
            slot[cpu] = (f, c, int(re.search(r"cpu=(\d+)", rest).group(1)) if ev != "many" else -1)
            if ev == "many":
                many[cpu] = (f, c)
            continue
        if ev in ("resched", "call_single"):
            targets = [int(re.search(r"cpu=(\d+)", rest).group(1))]
        elif ev == "call_mask":
            w = int(re.search(r"cpumask=(0x[0-9a-f]+)", rest).group(1), 16)
            targets = [c for c in range(64) if w >> c & 1]
        else:
            continue
        # a function-call send takes the CPU's last caller probe: a
        # `many` stays for the sends after it, a queued call (a target)
        # is taken by the send to its target (ipitrace's rule)
        caller = None
        if ev != "resched":
            c = slot.get(cpu)
            one = targets[0] if ev == "call_single" else -1
            if c and (c[2] < 0 or c[2] == one):
                caller = c[:2]
                if c[2] >= 0:
                    del slot[cpu]
        if pid in rec:
            continue
        via_many = re.search(r"callsite=smp_call_function_many_cond\+", rest) is not None
        for t in targets:
            total[role(t)] += 1
            if caller == ("ipi_mb", "membarrier_private_expedited"):
                mb[role(t)] += 1
            elif via_many and many.get(cpu) == ("ipi_mb", "membarrier_private_expedited"):
                # sent by the membarrier, but an interrupt's queued call came
                # between its `many` and its send: the one slot lost it
                nested += 1
    return total, mb, nested


def rowtext(r):
    return r and "%d -> %d, %s (p %s)" % (r["count_before"], r["count_after"], r["status"],
                                          "%.2g" % r["p"] if r["p"] is not None else "-")


for run in runs:
    tag = "qemu-pair%s" % run
    b, a = "%s/pair%s-before.dat" % (out, run), "%s/pair%s-after.dat" % (out, run)
    d = json.loads(subprocess.run([ipt, "diff", "-f", "json", "-g", "function,callsite", b, a],
                                  check=True, stdout=subprocess.PIPE).stdout)
    verdict(tag + "-isolated", d["before"]["isolated"] == "2-3" and d["after"]["isolated"] == "2-3",
            "isolated before %r after %r" % (d["before"]["isolated"], d["after"]["isolated"]))
    rows = {(t["by"], r["key"], r["role"]): r for t in d["tables"] for r in t["rows"]}
    want = {"before": text_counts(b), "after": text_counts(a)}
    # the counts: per role, and ipi_mb / membarrier_private_expedited per role
    bad = []
    for side in ("before", "after"):
        total, mb, nested = want[side]
        for rl in ("housekeeping", "isolated"):
            for by, key, w in (("role", "", total[rl]), ("function", "ipi_mb", mb[rl]),
                               ("callsite", "membarrier_private_expedited", mb[rl])):
                r = rows.get((by, key, rl))
                got = r["count_" + side] if r else 0
                if got != w:
                    bad.append("%s %s %s %s: diff %d, text %d" % (side, rl, by, key, got, w))
        if d[side]["ipis"] != total["housekeeping"] + total["isolated"]:
            bad.append("%s: diff %d IPIs, text %d" % (side, d[side]["ipis"], sum(total.values())))
    verdict(tag + "-counts", not bad, "; ".join(bad))
    for side in ("before", "after"):
        total, mb, nested = want[side]
        print("FIGURE %s-%s-text housekeeping %d (ipi_mb %d) isolated %d (ipi_mb %d); "
              "membarrier sends with an interrupt's call between the probes (function unknown) %d" % (
                  tag, side, total["housekeeping"], mb["housekeeping"], total["isolated"], mb["isolated"],
                  nested))
    # the added part: new (or ten times more) to the isolated CPUs
    for by, key in (("function", "ipi_mb"), ("callsite", "membarrier_private_expedited")):
        r = rows.get((by, key, "isolated"))
        verdict("%s-added-%s" % (tag, by), r and r["status"] in ("new", "more") and
                r["count_after"] > 10 * r["count_before"] and r["count_after"] >= 100,
                "isolated %s is %s" % (key, rowtext(r)))
        print("FIGURE %s-isolated-%s %s" % (tag, key, rowtext(r)))
    # the kept part: the same to the housekeeping CPUs
    for by, key in (("function", "ipi_mb"), ("callsite", "membarrier_private_expedited")):
        r = rows.get((by, key, "housekeeping"))
        verdict("%s-kept-%s" % (tag, by), r and r["status"] == "same" and
                min(r["count_before"], r["count_after"]) >= 100,
                "housekeeping %s is %s" % (key, rowtext(r)))
        print("FIGURE %s-housekeeping-%s %s" % (tag, key, rowtext(r)))
    print("FIGURE %s-duration-s before %.3f after %.3f" % (tag, d["before"]["duration_s"],
                                                          d["after"]["duration_s"]))
