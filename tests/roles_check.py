#!/usr/bin/python3
"""roles_check.py - the CPU roles of `ipitrace report -f json` (and the
per-CPU table of `report --html` at many CPUs) against second counts made
from `trace-cmd report` text, with no ipitrace code, output or library.

  roles_check.py json NAME TRACECMD.txt OPTIONS.txt ORACLE_ROWS FILE.dat ISOLATED FROM REPORT.json
  roles_check.py html NAME TRACECMD.txt OPTIONS.txt ISOLATED TOP REPORT.html

TRACECMD.txt is `trace-cmd report FILE.dat`, OPTIONS.txt `trace-cmd dump
--options FILE.dat`; ORACLE_ROWS the --rows output of tests/oracle.py over
FILE.dat (one line per IPI: its target CPU, kind, call site, callback and
the function it ran, each classified by oracle.py's own rules); ISOLATED
the --isolated list given ("" for none); FROM the "from" the report must
say.  Prints "PASS NAME: CHECK: figures" or "FAIL NAME: CHECK: what
differs" lines.

json: for roles.isolated (the ISOLATED CPUs) and roles.housekeeping (the
others): the CPU lists, ncpus, ipis (counted here twice: from the send
events' targets, tests/manycpus_check.py's count, and from the oracle's
rows), by_kind (the oracle's kinds), every sender by comm (count, pids,
share, the largest pids, the order) from the text's task column, every
call site -> function pair (call sites without their offset, as the
oracle keeps them; function: the csd function run, else the callback, else
"(none)"), per_s and per_cpu_per_s from the first and last event of the
text; and roles.machine against the roles `ipitrace record` wrote into the
file (its "key=list" lines, read from FILE.dat's bytes here): null for a
role the file does not hold.

html: the per-target-CPU table (section "cpus"): beyond 16 CPUs its first
table holds at most TOP ranges of isolated CPUs and TOP of the others, every
CPU of a range with the IPIs counted here, none left out busier than the
least shown of its role, "K more CPUs" the CPUs with IPIs in no row; its
<details> table one row per CPU with IPIs, each with the count here.
"""
import json
import math
import os
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manycpus_check import Trace, cpus_of, fmt_list  # noqa: E402

TS = re.compile(r"^\s*.*?-\d+\s+\[\d+\]\s+(?:\S+\s+)?([\d.]+):")
KINDS = ["resched", "wakeup", "call", "tlb", "irq_work", "membarrier", "timer", "stop", "other"]
ROLE_KEYS = ["isolated", "nohz_full", "isolcpus", "rcu_nocbs", "online", "possible"]


def result(name, check, bad, figures):
    if bad:
        print(f"FAIL {name}: {check}: {'; '.join(b[:200] for b in bad[:4])}" +
              (f" (+{len(bad) - 4} more)" if len(bad) > 4 else ""))
    else:
        print(f"PASS {name}: {check}: {figures}")


def duration(tc):
    """first to last event of the text, in s"""
    first = last = None
    with open(tc, errors="replace") as f:
        for line in f:
            m = TS.match(line)
            if m:
                t = float(m.group(1))
                first = t if first is None else first
                last = t
    return (last - first) if first is not None else 0.0


def file_roles(dat):
    """the roles `ipitrace record` stored, as "key=list" lines in the file"""
    raw = open(dat, "rb").read()
    out = {}
    for k in ROLE_KEYS:
        m = re.search(rb"(?:^|[\n\0])" + k.encode() + rb"=([0-9,\-a-z_]*)\n", raw)
        if m:
            out[k] = m.group(1).decode()
    return out


def check_json(name, tc, opts, rows_path, dat, iso_arg, want_from, path):
    tr = Trace(tc, opts)
    n = tr.ncpus
    rep = json.load(open(path))
    roles = rep.get("roles")
    if not isinstance(roles, dict):
        result(name, "roles", ["no roles object"], "")
        return
    iso = cpus_of(iso_arg) if iso_arg else set()
    hk = set(range(n)) - iso
    d = duration(tc)
    rows = [json.loads(line) for line in open(rows_path)]
    by_target_kind = defaultdict(lambda: defaultdict(int))
    pairs_to = defaultdict(lambda: defaultdict(int))
    for r in rows:
        by_target_kind[r["target_cpu"]][r["kind"]] += 1
        fn = r["function"] or r["callback"] or "(none)"
        pairs_to[r["target_cpu"]][(r["callsite"] or "-", fn)] += 1
    for title, cpus in (("isolated", iso), ("housekeeping", hk)):
        ro = roles.get(title) or {}
        want = sum(tr.ipis[c] for c in cpus)
        orc = sum(sum(by_target_kind[c].values()) for c in cpus)
        # the sets
        bad = []
        if ro.get("cpus") != fmt_list(cpus):
            bad.append(f"cpus {ro.get('cpus')!r}, here {fmt_list(cpus)!r}")
        if ro.get("ncpus") != len(cpus):
            bad.append(f"ncpus {ro.get('ncpus')}, here {len(cpus)}")
        if title == "isolated" and ro.get("from") != want_from:
            bad.append(f"from {ro.get('from')!r}, here {want_from!r}")
        if title == "housekeeping" and "from" in ro:
            bad.append("housekeeping has a from")
        result(name, f"{title} set", bad, f"{fmt_list(cpus)[:40] or 'none'} ({len(cpus)} CPUs)")
        # the totals and the kinds
        bad = []
        if want != orc:
            bad.append(f"the two counts here differ: {want} by targets, {orc} by the oracle's rows")
        if ro.get("ipis") != want:
            bad.append(f"ipis {ro.get('ipis')}, here {want}")
        kinds = {k: sum(by_target_kind[c][k] for c in cpus) for k in KINDS}
        if ro.get("by_kind") != kinds:
            bad.append(f"by_kind {ro.get('by_kind')}, here {kinds}")
        result(name, f"{title} ipis and kinds", bad,
               ", ".join([f"{want} IPIs"] + [f"{k} {v}" for k, v in kinds.items() if v]))
        # rates
        bad = []
        if d > 0:
            ps = want / d
            pc = ps / len(cpus) if cpus else 0.0
            for k, v, tol in (("per_s", ps, 1e-4), ("per_cpu_per_s", pc, 1e-4)):
                g = ro.get(k)
                if not isinstance(g, (int, float)) or abs(g - v) > tol * max(v, 1.0) + 0.002:
                    bad.append(f"{k} {g}, here {v:.6f}")
        result(name, f"{title} rates", bad, f"{want / d if d > 0 else 0:.3f}/s over {d:.6f} s")
        # senders by comm: every one
        bad = []
        oc = tr.by_comm(cpus)
        pid_counts = defaultdict(lambda: defaultdict(int))
        for (src, comm, pid), v in tr.counts.items():
            k = sum(v[c] for c in cpus)
            if k:
                pid_counts[comm][pid] += k
        senders = ro.get("senders") or []
        seen = set()
        for i, s in enumerate(senders):
            c = s.get("comm")
            o = oc.get(c)
            if c in seen:
                bad.append(f"{c} twice")
            seen.add(c)
            if not o:
                bad.append(f"{c} {s.get('count')}, here none")
                continue
            if s.get("count") != o[0] or s.get("npids") != len(o[1]):
                bad.append(f"{c} {s.get('count')} from {s.get('npids')} pids, here {o[0]} from {len(o[1])}")
            if abs(s.get("share", -1) - o[0] / want) > 2e-6:
                bad.append(f"{c} share {s.get('share')}, here {o[0] / want:.6f}")
            top = sorted(pid_counts[c].values(), reverse=True)[:3]
            got = [p.get("count") for p in s.get("top_pids", [])]
            if got != top or any(pid_counts[c].get(p.get("pid")) != p.get("count") for p in s.get("top_pids", [])):
                bad.append(f"{c} top pids {s.get('top_pids')}, here counts {top}")
            pc, pn = senders[i - 1]["count"], senders[i - 1]["comm"] if i else None
            if i and not (pc > s["count"] or (pc == s["count"] and pn < c)):	# --sort count: ties by comm
                bad.append(f"{c} {s['count']} after {senders[i - 1]['comm']} {senders[i - 1]['count']}")
        missing = [f"{c} {v[0]}" for c, v in oc.items() if c not in seen]
        if missing:
            bad.append("left out: " + ", ".join(missing[:4]))
        rec = ro.get("recorder_ipis")
        if sum(s.get("count", 0) for s in senders) + (rec or 0) != want:
            bad.append(f"senders add up to {sum(s.get('count', 0) for s in senders)} + {rec} of the recorder, not {want}")
        result(name, f"{title} senders by comm", bad, f"{len(oc)} comms, the largest " +
               ", ".join(f"{c} {v[0]}" for c, v in sorted(oc.items(), key=lambda kv: -kv[1][0])[:3]))
        # call site -> function pairs, call sites without their offset
        bad = []
        here = defaultdict(int)
        for c in cpus:
            for k, v in pairs_to[c].items():
                here[k] += v
        got = defaultdict(int)
        for p in ro.get("pairs") or []:
            got[(p["callsite"].split("+", 1)[0], p["function"])] += p["count"]
            if abs(p.get("share", -1) - p["count"] / want) > 2e-6:
                bad.append(f"share of {p['callsite']} -> {p['function']}: {p.get('share')}")
        cnts = [p["count"] for p in ro.get("pairs") or []]
        if cnts != sorted(cnts, reverse=True):
            bad.append("pairs not the largest first")
        for k in set(here) | set(got):
            if here.get(k) != got.get(k):
                bad.append(f"{k[0]} -> {k[1]}: {got.get(k)}, here {here.get(k)}")
        result(name, f"{title} call site -> function", bad, f"{len(here)} pairs, {sum(here.values())} IPIs")
    # the machine's roles
    bad = []
    stored = file_roles(dat)
    mach = roles.get("machine") or {}
    for k in ROLE_KEYS:
        v = mach.get(k, "missing")
        if k not in stored:
            if v is not None:
                bad.append(f"{k} {v!r}, the file holds none")
        elif v is None or cpus_of(v) != cpus_of(stored[k].split(",", 1)[-1] if k == "isolcpus" and
                                                 re.match(r"[a-z]", stored[k]) else stored[k]):
            bad.append(f"{k} {v!r}, the file says {stored[k]!r}")
    result(name, "machine roles", bad, ", ".join(f"{k}={stored[k]!r}" for k in stored) or "none stored: all null")


def html_int(s):
    return int(s.replace(",", ""))


def check_html(name, tc, opts, iso_arg, top, path):
    tr = Trace(tc, opts)
    n = tr.ncpus
    iso = cpus_of(iso_arg) if iso_arg else set()
    html = open(path, encoding="utf-8").read()
    m = re.search(r'<section id="cpus">(.*?)</section>', html, re.S)
    if not m:
        result(name, "per-CPU table", ["no section cpus"], "")
        return
    sec = m.group(1)
    det = re.search(r"<details.*?</details>", sec, re.S)
    main = sec[:det.start()] + sec[det.end():] if det else sec
    # the first table: ranges of CPUs
    rows = re.findall(r'<tr( class="iso")?><td>(\d+)(?:-(\d+))?</td><td>([\d,]+)</td>', main)
    bad = []
    shown = {}
    for tag, a, b, v in rows:
        a, b = int(a), int(b or a)
        for c in range(a, b + 1):
            if c in shown:
                bad.append(f"cpu {c} in two rows")
            shown[c] = (bool(tag), html_int(v))
            if tr.ipis[c] != html_int(v):
                bad.append(f"cpu {c} (row {a}-{b}): {v} IPIs, here {tr.ipis[c]}")
            if (c in iso) != bool(tag):
                bad.append(f"cpu {c}: iso tag {bool(tag)}, isolated here {c in iso}")
    if n > 16:
        for role, cpus in (("isolated", iso), ("other", set(range(n)) - iso)):
            nrows = sum(1 for tag, a, b, v in rows if bool(tag) == (role == "isolated"))
            if nrows > top:
                bad.append(f"{nrows} {role} rows, more than {top}")
            least = min((tr.ipis[c] for c in shown if c in cpus), default=None)
            over = [c for c in cpus if c not in shown and least is not None and tr.ipis[c] > least]
            if over:
                bad.append(f"{role} CPUs left out busier than the least shown ({least}): {fmt_list(over)[:40]}")
        mm = re.search(r"(\d+) more CPUs with IPIs", main)
        more = int(mm.group(1)) if mm else 0
        want_more = sum(1 for c in range(n) if tr.ipis[c] and c not in shown)
        if more != want_more:
            bad.append(f"{more} more CPUs with IPIs, here {want_more}")
        if len(rows) > 2 * top:
            bad.append(f"{len(rows)} rows")
    result(name, "per-CPU table", bad, f"{len(rows)} rows over {len(shown)} CPUs (of {n}), top {top}")
    # the full table, in <details>
    bad = []
    if n > 16 and not det:
        bad.append("no <details> with every CPU")
    if det:
        full = {int(c): html_int(v) for c, v in re.findall(r"<tr><td>(\d+)</td><td>([\d,]+)</td>", det.group(0))}
        want = {c for c in range(n) if tr.ipis[c]}
        if not want <= set(full):
            bad.append(f"CPUs with IPIs not listed: {fmt_list(want - set(full))[:40]}")
        for c, v in full.items():
            if tr.ipis[c] != v:
                bad.append(f"cpu {c}: {v} IPIs, here {tr.ipis[c]}")
        result(name, "per-CPU details", bad, f"{len(full)} CPUs, {sum(full.values())} IPIs")
    elif bad:
        result(name, "per-CPU details", bad, "")


def main():
    a = sys.argv[1:]
    if a and a[0] == "json" and len(a) == 9:
        check_json(*a[1:])
    elif a and a[0] == "html" and len(a) == 7:
        check_html(a[1], a[2], a[3], a[4], int(a[5]), a[6])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
