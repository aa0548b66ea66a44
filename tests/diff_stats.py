#!/usr/bin/python3
"""diff_stats.py - `ipitrace diff` against an independent re-implementation of
its method (scipy), on synthetic pairs of recordings whose truth is known.

  diff_stats.py --run IPITRACE [--seeds 1-48] [--min-pairs 20] [-j JOBS] [--keep DIR]

Each pair (one seed) is two tracefs `trace` texts, before and after, of 2 to
4 CPUs each (the two sides may differ), 20 s and 30 s long (either order),
with `-i LIST` giving both an isolated and a housekeeping role.  20 call sites
site_00..site_19, each sending to housekeeping CPUs, isolated ones or both:
a row (call site, role) has one rate per CPU of its role, its expected count
before drawn log-uniform in 5..3000, and its call site a burstiness: bursts
start as a Poisson process, their size is geometric with mean 1..8 (so the
window counts' dispersion index is about 2 * mean - 1), the IPIs of a burst
5..50 us apart.  Three call sites a pair change their rate per CPU by 2x or
0.5x, with at least max(50, 40 * (2 * mean - 1)) expected events in the
smaller side (the test's power at that size is about 95%, over
the 2x spread of sizes about 98%); every fourth pair has
one more call site present on one side only (gone / new).  One short pair
(4 ms: fewer than 10 windows) checks the 'untested' rows.

`IPITRACE diff -f json -g callsite -i LIST BEFORE AFTER` is checked:
  counts       every (call site, role) and role total counted as generated,
               and the sides' ipis, ncpus, ncpus_isolated, duration_s;
  windows      window_s and windows as the method gives them (the window
               width recomputed here from the rows' times, not read back);
  method       every row's dispersion, p and ratio equal those computed here
               from the generated times with scipy.special.betainc (relative
               1e-5: the JSON has 6 significant digits), and its status
               follows from them;
  untested     the short pair's rows are all 'untested', p null;
  null-rate    (>= MIN_PAIRS pairs, >= 400 no-change rows) the share of the
               no-change rows flagged (p < 0.05) is within 2%..9%;
  power-2x     (>= MIN_PAIRS pairs) >= 90% of the 2x-changed rows flagged in
               the right direction (more / fewer).
One line each, "PASS name: figures" or "FAIL name: why | figures"; "INFO ..."
lines carry figures that are not criteria (the plain Poisson test's share of
false alarms, the dispersion found against the generator's).  Exit 0
whatever the verdicts (2: a wrong command line).
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.special import betainc

NKEYS = 20
NCHANGED = 3
BINS = 64           # the method's constants (documented, not read from ipitrace)
SHIFT0 = 20
MIN_WINDOWS = 10
ALPHA = 0.05
RTOL = 1e-5         # %.6g in the JSON: at most 5e-6 relative off
ROLES = ("housekeeping", "isolated")

HEADER = """\
# tracer: nop
#
# entries-in-buffer/entries-written: {n}/{n}   #P:{ncpus}
#
#                                _-----=> irqs-off/BH-disabled
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
"""


# ---- the generator ----

def pick_isolated(rng, nb, na):
    """a CPU list for -i that leaves both roles CPUs on both sides"""
    ok = []
    for mask in range(1, 16):
        s = [c for c in range(4) if mask >> c & 1]
        if all(0 < len([c for c in s if c < n]) < n for n in (nb, na)):
            ok.append(s)
    return ok[rng.integers(len(ok))]


def gen_pair(seed, short=False):
    """the plan of a pair: sides, rows with their expected counts and factors"""
    rng = np.random.default_rng(seed)
    nb, na = (int(x) for x in rng.integers(2, 5, size=2))
    iso = pick_isolated(rng, nb, na)
    if short:
        durs = (0.004, 0.004)
    else:
        durs = (20.0, 30.0) if rng.random() < 0.5 else (30.0, 20.0)
    sides = []
    for n, dur in zip((nb, na), durs):
        isoset = [c for c in iso if c < n]
        t0 = int(rng.integers(1000, 90000)) * 1000000 + int(rng.integers(0, 999999))
        sides.append({"ncpus": n, "dur": dur, "t0_us": t0,
                      "cpus": {"isolated": isoset, "housekeeping": [c for c in range(n) if c not in isoset]}})
    changed = set(int(x) for x in rng.choice(NKEYS, size=NCHANGED, replace=False)) if not short else set()
    keys = []
    for i in range(NKEYS):
        m = float(rng.uniform(1, 8))
        u = rng.random()
        roles = ROLES[:1] if u < 0.35 else ROLES[1:] if u < 0.7 else ROLES
        f = (2.0 if rng.random() < 0.5 else 0.5) if i in changed else 1.0
        keys.append({"name": "site_%02d" % i, "burst": m, "factor": f, "rows": {}})
        for role in roles:
            nroleb = len(sides[0]["cpus"][role])
            nrolea = len(sides[1]["cpus"][role])
            if i in changed:
                # the smaller side's expected count
                small = max(50.0, 40.0 * (2 * m - 1)) * float(np.exp(rng.uniform(0, math.log(2))))
                eb = nroleb * sides[0]["dur"]
                ea = nrolea * sides[1]["dur"] * f
                rate = small / min(eb, ea)
            else:
                e = float(np.exp(rng.uniform(math.log(5), math.log(3000))))
                if short:
                    e = float(rng.uniform(1, 20))
                rate = e / (nroleb * sides[0]["dur"])
            keys[-1]["rows"][role] = rate          # per CPU of the role, per s, before
    if seed % 4 == 0 and not short:
        gone = rng.random() < 0.5
        role = ROLES[rng.integers(2)]
        side = 0 if gone else 1
        e = float(rng.uniform(100, 300))
        rate = e / (len(sides[side]["cpus"][role]) * sides[side]["dur"])
        keys.append({"name": "site_gone" if gone else "site_new", "burst": float(rng.uniform(1, 4)),
                     "factor": 0.0 if gone else math.inf, "rows": {role: rate}})
    return rng, {"seed": seed, "isolated": iso, "sides": sides, "keys": keys, "short": short}


def gen_side(rng, plan, si):
    """the sends of one side: arrays ts_us (sorted, distinct), key, role, src, target"""
    side = plan["sides"][si]
    t0, dur_us = side["t0_us"], int(round(side["dur"] * 1e6))
    ts, key, role, tgt = [], [], [], []
    for ki, k in enumerate(plan["keys"]):
        f = k["factor"]
        for ri, rname in enumerate(ROLES):
            if rname not in k["rows"]:
                continue
            rate = k["rows"][rname]
            if (f == 0.0 and si == 1) or (math.isinf(f) and si == 0):
                continue                   # site_gone, site_new: on one side only
            if si == 1 and not math.isinf(f):
                rate *= f
            cpus = side["cpus"][rname]
            total = rate * len(cpus) * side["dur"]
            m = k["burst"]
            nb = int(rng.poisson(total / m))
            # a margin at each end, the same share of either side's length
            # (exposure counts the whole of it): duration_s must be from the
            # first and last events of any kind, not the sends
            mg = max(100, dur_us // 1000)
            starts = rng.integers(t0 + mg, t0 + dur_us - mg, size=nb)
            sizes = rng.geometric(1.0 / m, size=nb) if m > 1 else np.ones(nb, dtype=np.int64)
            n = int(sizes.sum())
            if not n:
                continue
            # offsets inside each burst: cumulative gaps of 5..50 us, 0 for the first
            gaps = rng.integers(5, 51, size=n)
            first = np.zeros(n, dtype=bool)
            first[np.concatenate(([0], np.cumsum(sizes)[:-1]))] = True
            gaps[first] = 0
            cs = np.cumsum(gaps)
            base = np.repeat(cs[first], sizes)
            t = np.repeat(starts, sizes) + (cs - base)
            ts.append(t)
            key.append(np.full(n, ki))
            role.append(np.full(n, ri))
            tgt.append(np.asarray(cpus)[rng.integers(len(cpus), size=n)])
    if ts:
        ts, key, role, tgt = (np.concatenate(x) for x in (ts, key, role, tgt))
    else:
        ts = key = role = tgt = np.zeros(0, dtype=np.int64)
    o = np.argsort(ts, kind="stable")
    ts, key, role, tgt = ts[o], key[o], role[o], tgt[o]
    # distinct times: a send is one event per time and CPU in a real buffer
    if len(ts):
        idx = np.arange(len(ts))
        ts = np.maximum.accumulate(ts - idx) + idx
    # the sender: any CPU but the target
    src = (tgt + rng.integers(1, side["ncpus"], size=len(ts))) % side["ncpus"]
    first_ev = t0
    last_ev = max(t0 + dur_us, int(ts[-1]) + 1 if len(ts) else 0)
    return {"ts": ts, "key": key, "role": role, "src": src, "tgt": tgt,
            "first_ev": first_ev, "last_ev": last_ev, "ncpus": side["ncpus"]}


def fmt_ts(us):
    return "%5d.%06d" % (us // 1000000, us % 1000000)


def write_side(path, plan, ev):
    names = [k["name"] for k in plan["keys"]]
    lines = []
    sw = ("          <idle>-0       [000] d..2. %s: sched_switch: prev_comm=swapper/0 prev_pid=0 "
          "prev_prio=120 prev_state=R ==> next_comm=kworker/0:1 next_pid=41 next_prio=120\n")
    lines.append(sw % fmt_ts(ev["first_ev"]))
    ts, key, src, tgt = ev["ts"].tolist(), ev["key"].tolist(), ev["src"].tolist(), ev["tgt"].tolist()
    for t, k, s, c in zip(ts, key, src, tgt):
        lines.append("%16s-%-7d [%03d] d..2. %s: ipi_send_cpu: cpu=%d callsite=%s+0x12/0x40 callback=0x0\n"
                     % ("w%02d" % (k % 100), 2000 + k, s, fmt_ts(t), c, names[k]))
    lines.append(sw % fmt_ts(ev["last_ev"]))
    with open(path, "w") as f:
        f.write(HEADER.format(n=len(lines), ncpus=ev["ncpus"]))
        f.writelines(lines)


# ---- the method, re-implemented ----

def side_model(plan, ev):
    """window width, complete windows K, duration, and per (key, role) the
    count and window counts, keyed (name, role) with name "" for the role totals"""
    ts_ns = ev["ts"].astype(np.int64) * 1000
    first_ns, last_ns = ev["first_ev"] * 1000, ev["last_ev"] * 1000
    out = {"duration_s": (last_ns - first_ns) / 1e9, "rows": {}}
    if not len(ts_ns):
        out.update(width=1 << SHIFT0, K=0)
        return out
    origin = int(ts_ns[0])
    shift = SHIFT0
    while (int(ts_ns[-1]) - origin) >> shift >= BINS:
        shift += 1
    width = 1 << shift
    K = min(BINS, (last_ns - origin) // width) if last_ns > origin else 0
    w = (ts_ns - origin) >> shift
    out.update(width=width, K=int(K))
    names = [k["name"] for k in plan["keys"]]
    for ki in range(len(names) + 1):
        for ri, rname in enumerate(ROLES):
            sel = ev["role"] == ri
            if ki < len(names):
                sel &= ev["key"] == ki
            n = int(sel.sum())
            if n:
                out["rows"][(names[ki] if ki < len(names) else "", rname)] = (
                    n, np.bincount(w[sel], minlength=BINS)[:BINS])
    return out


def dispersion(models, key):
    x2, df = 0.0, 0
    for m in models:
        r = m["rows"].get(key)
        K = m["K"]
        if r is None or K < 2:
            continue
        x = r[1][:K].astype(float)
        s = x.sum()
        if s == 0:
            continue
        mean = s / K
        x2 += float(((x - mean) ** 2 / mean).sum())
        df += K - 1
    return x2 / df if df else 1.0


def pvalue(cb, eb, ca, ea, disp):
    phi = max(1.0, disp)
    n, k = (cb + ca) / phi, cb / phi
    p0 = eb / (eb + ea)
    ge = betainc(k, n - k + 1, p0) if k > 0 else 1.0
    le = betainc(n - k, k + 1, 1 - p0) if k < n else 1.0
    return min(1.0, 2 * min(ge, le))


def expect_row(plan, models, key):
    """count, dispersion, ratio, p, status of a row, as the method says"""
    role = key[1]
    c = [m["rows"][key][0] if key in m["rows"] else 0 for m in models]
    expo = [m["duration_s"] * len(s["cpus"][role]) for m, s in zip(models, plan["sides"])]
    disp = dispersion(models, key)
    ratio = (c[1] / expo[1]) / (c[0] / expo[0]) if c[0] else (math.inf if c[1] else math.nan)
    untested = any(m["K"] < MIN_WINDOWS for m in models)
    p = math.nan if untested else pvalue(c[0], expo[0], c[1], expo[1], disp)
    p_plain = math.nan if untested else pvalue(c[0], expo[0], c[1], expo[1], 1.0)
    if untested:
        st = "untested"
    elif p >= ALPHA:
        st = "same"
    elif not c[1]:
        st = "gone"
    elif not c[0]:
        st = "new"
    else:
        st = "more" if ratio > 1 else "fewer"
    return {"count": c, "dispersion": disp, "ratio": ratio, "p": p, "p_plain": p_plain, "status": st}


def close(a, b, rtol=RTOL):
    if a is None or b is None:
        return a is None and b is None
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= rtol * max(abs(a), abs(b))


# ---- one pair ----

def run_pair(ipt, seed, tmp, short=False):
    """check one pair; returns a dict of findings"""
    rng, plan = gen_pair(seed, short)
    evs = [gen_side(rng, plan, i) for i in range(2)]
    paths = [os.path.join(tmp, "s%d-%s.trace" % (seed, w)) for w in ("before", "after")]
    for p, ev in zip(paths, evs):
        write_side(p, plan, ev)
    iso = ",".join(str(c) for c in plan["isolated"])
    cmd = [ipt, "diff", "-f", "json", "-g", "callsite", "-i", iso] + paths
    res = {"seed": seed, "short": short, "errors": {}, "rows": [], "lines": [len(e["ts"]) + 14 for e in evs]}

    def err(check, msg):
        res["errors"].setdefault(check, []).append("seed %d: %s" % (seed, msg))

    try:
        pr = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        err("run", "%s: %s" % (ipt, e))
        return res
    if pr.returncode != 0:
        err("run", "exit %d: %s" % (pr.returncode, pr.stderr.strip()[:200]))
        return res
    try:
        js = json.loads(pr.stdout)
    except ValueError as e:
        err("run", "bad JSON: %s" % e)
        return res
    models = [side_model(plan, ev) for ev in evs]

    # the sides
    for name, m, ev, sp in zip(("before", "after"), models, evs, plan["sides"]):
        j = js[name]
        want = {"ipis": len(ev["ts"]), "ncpus": sp["ncpus"], "ncpus_isolated": len(sp["cpus"]["isolated"])}
        for k, v in want.items():
            if j.get(k) != v:
                err("counts", "%s %s = %r, generated %r" % (name, k, j.get(k), v))
        if not close(j.get("duration_s"), m["duration_s"]):
            err("counts", "%s duration_s = %r, generated %.6f" % (name, j.get("duration_s"), m["duration_s"]))
        if j.get("windows") != m["K"]:
            err("windows", "%s windows = %r, the method gives %d" % (name, j.get("windows"), m["K"]))
        if not close(j.get("window_s"), m["width"] / 1e9):
            err("windows", "%s window_s = %r, the method gives %.9g" % (name, j.get("window_s"), m["width"] / 1e9))

    # the rows
    got = {}
    for t in js.get("tables", []):
        if t.get("by") not in ("role", "callsite"):
            err("run", "a table by %r" % t.get("by"))
            continue
        for r in t["rows"]:
            k = (r["key"], r["role"])
            if (k in got) or (t["by"] == "role") != (r["key"] == ""):
                err("counts", "row %r twice or in the wrong table" % (k,))
            got[k] = r
    want_keys = set(models[0]["rows"]) | set(models[1]["rows"])
    if set(got) != want_keys:
        err("counts", "rows %s missing, %s not generated"
            % (sorted(want_keys - set(got))[:4], sorted(set(got) - want_keys)[:4]))
    kinfo = {k["name"]: k for k in plan["keys"]}
    for key in sorted(want_keys & set(got)):
        r, e = got[key], expect_row(plan, models, key)
        c = [r["count_before"], r["count_after"]]
        if c != e["count"]:
            err("counts", "%s/%s counts %s, generated %s" % (key[0] or "(role)", key[1], c, e["count"]))
            continue
        why = []
        if not close(r["dispersion"], e["dispersion"]):
            why.append("dispersion %r, expected %.9g" % (r["dispersion"], e["dispersion"]))
        rp = r["p"]
        if math.isnan(e["p"]):
            if rp is not None:
                why.append("p %r, expected null" % rp)
        elif rp is None:
            why.append("p null, expected %.9g" % e["p"])
        elif max(rp, e["p"]) < 1e-300:
            pass
        elif not close(rp, e["p"]):
            why.append("p %r, expected %.9g" % (rp, e["p"]))
        er = None if math.isnan(e["ratio"]) else e["ratio"]
        rr = r["ratio"]
        if er is not None and math.isinf(er):
            er = None        # JSON: null for infinity
        if not close(rr, er):
            why.append("ratio %r, expected %r" % (rr, er))
        border = rp is not None and not math.isnan(e["p"]) and abs(e["p"] - ALPHA) <= RTOL * ALPHA
        if r["status"] != e["status"] and not border:
            why.append("status %s, expected %s" % (r["status"], e["status"]))
        if short and (r["status"] != "untested" or rp is not None):
            err("untested", "%s/%s status %s p %r" % (key[0] or "(role)", key[1], r["status"], rp))
        if why:
            err("method", "%s/%s (counts %s): %s" % (key[0] or "(role)", key[1], c, "; ".join(why)))
        if key[0]:
            k = kinfo[key[0]]
            res["rows"].append({"factor": k["factor"], "burst": k["burst"], "status": r["status"],
                                "p": rp, "p_plain": e["p_plain"], "dispersion": r["dispersion"],
                                "counts": c})
    return res


def parse_seeds(s):
    out = []
    for part in s.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def main():
    ap = argparse.ArgumentParser(prog="diff_stats.py")
    ap.add_argument("--run", required=True, metavar="IPITRACE")
    ap.add_argument("--seeds", default="1-48")
    ap.add_argument("--min-pairs", type=int, default=20,
                    help="judge the calibration only with this many pairs (default 20)")
    ap.add_argument("-j", "--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--keep", metavar="DIR", help="keep the traces here")
    a = ap.parse_args()
    seeds = parse_seeds(a.seeds)
    tmp = a.keep or tempfile.mkdtemp(prefix="diff_stats.")
    os.makedirs(tmp, exist_ok=True)
    jobs = [(s, False) for s in seeds] + [(1000 + seeds[0], True)]
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        results = list(ex.map(lambda sj: run_pair(a.run, sj[0], tmp, sj[1]), jobs))
    if not a.keep:
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)

    errors = {}
    for r in results:
        for k, v in r["errors"].items():
            errors.setdefault(k, []).extend(v)
    full = [r for r in results if not r["short"] and "run" not in r["errors"]]
    rows = [x for r in full for x in r["rows"]]
    nrows = len(rows) + sum(len(r["rows"]) for r in results if r["short"])
    lines = [n for r in results for n in r["lines"]]

    norun = [r for r in results if "run" in r["errors"]]

    def verdict(name, figs, check=None, extra_why=None):
        why = list(errors.get(check, [])) if check else []
        if norun and name != "run":
            why.insert(0, "no result for %d of %d pairs" % (len(norun), len(results)))
        if extra_why:
            why.append(extra_why)
        if why:
            more = " (and %d more)" % (len(why) - 3) if len(why) > 3 else ""
            print("FAIL %s: %s%s | %s" % (name, "; ".join(why[:3]), more, figs))
        else:
            print("PASS %s: %s" % (name, figs))

    if errors.get("run"):
        verdict("run", "ipitrace diff on %d pairs" % len(results), "run")
    sizes = "%d pairs (+1 short), traces of %d-%d lines" % (len(full), min(lines), max(lines))
    verdict("counts", "%s; every (call site, role) and role total, ipis, CPUs and durations as generated"
            % sizes, "counts")
    verdict("windows", "window width and complete windows as the method gives them, %d sides" % (2 * len(results)),
            "windows")
    verdict("method", "%d rows: dispersion, p, ratio within %g of scipy's; statuses follow" % (nrows, RTOL), "method")
    nshort = sum(len(r["rows"]) for r in results if r["short"])
    verdict("untested", "the short pair's %d rows untested, p null" % nshort, "untested",
            None if nshort else "no row in the short pair")

    null = [x for x in rows if x["factor"] == 1.0]
    chg = [x for x in rows if x["factor"] in (2.0, 0.5)]
    go = [x for x in rows if x["factor"] in (0.0, math.inf)]
    flagged = [x for x in null if x["status"] != "same"]
    found = [x for x in chg if x["status"] == ("more" if x["factor"] > 1 else "fewer")]
    gnew = [x for x in go if x["status"] == ("gone" if x["factor"] == 0 else "new")]
    share = len(flagged) / len(null) if null else math.nan
    power = len(found) / len(chg) if chg else math.nan
    plain = [x for x in null if x["p_plain"] < ALPHA]
    fig_null = "no-change rows: %d, flagged %.1f%%" % (len(null), 100 * share)
    fig_chg = "2x rows: %d, found %.1f%%" % (len(chg), 100 * power)
    if norun:
        pass
    elif len(full) < a.min_pairs:
        print("INFO calibration not judged on %d pairs (%d wanted): %s; %s"
              % (len(full), a.min_pairs, fig_null, fig_chg))
    else:
        bad = None
        if len(null) < 400:
            bad = "fewer than 400 no-change rows"
        elif not 0.02 <= share <= 0.09:
            bad = "flagged share outside 2%..9%"
        verdict("null-rate", fig_null + " (want 2%..9%)", extra_why=bad)
        verdict("power-2x", fig_chg + " (want >= 90%)",
                extra_why=None if chg and power >= 0.9 else "fewer than 90% found in the right direction")
    if go:
        print("INFO gone/new rows: %d, %d called so" % (len(go), len(gnew)))
    if null:
        print("INFO a plain Poisson test (dispersion 1) would flag %.1f%% of the %d no-change rows"
              % (100 * len(plain) / len(null), len(null)))
    # the dispersion found against the generator's burstiness (2 * mean - 1)
    for lo, hi in ((1, 2), (2, 4), (4, 6), (6, 8)):
        sel = [x["dispersion"] / (2 * x["burst"] - 1) for x in null
               if lo <= x["burst"] < hi and sum(x["counts"]) >= 200]
        sub = [x for x in null if lo <= x["burst"] < hi]
        fl = sum(1 for x in sub if x["status"] != "same")
        if sel:
            print("INFO burst mean %d-%d: dispersion / (2 mean - 1) median %.2f over %d rows of >= 200 IPIs; "
                  "%d of %d no-change rows flagged" % (lo, hi, float(np.median(sel)), len(sel), fl, len(sub)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
