#!/usr/bin/python3
# attrib_cmp.py - compares ipitrace's issue-15 outputs for one trace, kept in
# DIR by tests/test_attrib.sh, with tests/attrib_oracle.py's JSON.  Prints
# "PASS name: what" / "FAIL name: the first differences" lines, one per
# group: by-KEY for each KEY, stacks, folded, folded-cpu1, csv, jsonl.
#
#   attrib_cmp.py MODE ORACLE.json DIR      MODE: dat | text
#
# DIR holds, for each part, OUT (stdout), OUT.err and OUT.rc (exit status):
#   by-KEY.json   report --format json --by KEY --top 0
#   folded.txt    report --format folded
#   folded1.txt   report --format folded --filter 'target_cpu == 1'
#   rows.csv      convert --format csv --output ...   (rc and err beside)
#   rows.jsonl    convert --format jsonl --output ...
# text MODE: addresses ("callsite", "func") are synthetic in ipitrace's text
# reader, so only their presence is compared, not their value.
import csv
import json
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attrib_oracle as A  # noqa: E402

MODE, OJ, D = sys.argv[1], sys.argv[2], sys.argv[3]
O = json.load(open(OJ))
ROWS = O["rows"]
OLD_COLS = ["ts_ns", "id", "src_cpu", "target_cpu", "ntargets", "pid", "comm", "event", "kind",
            "callsite", "callsite_sym", "callback", "callback_sym", "func", "func_sym", "reason"]
NEW_COLS = ["lat_ns", "handler_ns", "handler_ts_ns", "matched", "coalesced", "unmatched_reason",
            "callsite_func", "func_name", "stack"]
MAXSHOW = 4


def out(ok, name, msg):
    print(("PASS " if ok else "FAIL ") + name + ": " + msg)


def part(name):
    p = os.path.join(D, name)
    rc = open(p + ".rc").read().strip() if os.path.exists(p + ".rc") else "?"
    err = open(p + ".err", errors="replace").read().strip() if os.path.exists(p + ".err") else ""
    return p, rc, err


def ran(name, label):
    """the part's file, or None after a FAIL line if the run failed"""
    p, rc, err = part(name)
    if rc != "0":
        out(False, label, f"exit {rc}: {err.splitlines()[0][:200] if err else '(no message)'}")
        return None
    return p


def addr_ok(got, want):
    """an address field: the oracle's value where it knows it ("?" / text: presence only)"""
    if MODE == "text" or want == "?":
        return (got is None) == (want is None)
    return got == want


def gkey(by, g):
    """the identity of a group, from the fields the oracle also has"""
    if by == "comm":
        return (g.get("comm"),)
    if by == "pid":
        return (g.get("pid"), g.get("comm"))
    if by == "task":
        return (g.get("pid"), g.get("comm"), g.get("src_cpu"))
    if by == "cpu":
        return (g.get("src_cpu"),)
    if by == "callsite":
        return (g.get("callsite_sym"), g.get("callsite_func"))
    if by == "function":
        return (g.get("func_name"),)
    if by == "kind":
        return (g.get("kind"),)
    if by == "stack":
        s = g.get("stack")
        return (tuple(s) if isinstance(s, list) else s,)
    raise ValueError(by)


def short(k):
    """a group key for a message: a stack by its first frames"""
    if len(k) == 1 and isinstance(k[0], tuple):
        return "[" + ", ".join(k[0][:3]) + (f", ... {len(k[0])} frames]" if len(k[0]) > 3 else "]")
    return str(k)


def tie_key(by, g):
    """for the order check where the key order is plain: ties ascending (a
    kind: in the order of the kinds table, resched wakeup call tlb ...)"""
    return {"comm": lambda: g["comm"], "pid": lambda: g["pid"], "cpu": lambda: g["src_cpu"],
            "kind": lambda: A.base.KINDS.index(g["kind"]) if g["kind"] in A.base.KINDS else None,
            "task": lambda: (g["pid"], g["src_cpu"])}.get(by, lambda: None)()


def cmp_groups(by):
    label = f"by-{by}"
    p = ran(f"by-{by}.json", label)
    if p is None:
        return None
    try:
        r = json.load(open(p))
    except ValueError as e:
        out(False, label, f"not JSON: {e}")
        return None
    bad = []
    n = 0
    if r.get("by") != by:
        bad.append(f'"by": {r.get("by")!r}, want {by!r}')
    rg = {t["target_cpu"]: t for t in (r.get("groups") or [])}
    og = {t["target_cpu"]: t for t in O["groups"][by]}
    if list(rg) != sorted(rg):
        bad.append(f"targets not ascending: {list(rg)}")
    if set(rg) != set(og):
        bad.append(f"target CPUs {sorted(rg)}, oracle {sorted(og)}")
    for t in sorted(set(rg) & set(og)):
        a, b = rg[t], og[t]
        n += 1
        if a.get("ipis") != b["ipis"]:
            bad.append(f"cpu {t} ipis: ipitrace {a.get('ipis')}, oracle {b['ipis']}")
        ga = {}
        for g in a.get("groups", []):
            k = gkey(by, g)
            if k in ga:
                bad.append(f"cpu {t} group {short(k)} listed twice")
            ga[k] = g
        gb = {gkey(by, g): g for g in b["groups"]}
        for k in sorted(set(ga) | set(gb), key=lambda k: -(gb.get(k) or ga.get(k))["count"]):
            x, y = ga.get(k), gb.get(k)
            n += 1
            if x is None:
                bad.append(f"cpu {t} {by} {short(k)}: missing (oracle count {y['count']})")
                continue
            if y is None:
                bad.append(f"cpu {t} {by} {short(k)}: ipitrace count {x['count']}, not in the oracle")
                continue
            diffs = []
            if x.get("count") != y["count"]:
                diffs.append(f"count {x.get('count')} vs {y['count']}")
            if not isinstance(x.get("share"), (int, float)) or abs(x["share"] - y["share"]) > 1.5e-6:
                diffs.append(f"share {x.get('share')} vs {y['share']}")
            if by == "comm":
                for f in ("npids", "top_pids"):
                    if x.get(f) != y[f]:
                        diffs.append(f"{f} {x.get(f)} vs {y[f]}")
            if by == "callsite" and not addr_ok(x.get("callsite"), y["callsite"]):
                diffs.append(f"callsite {x.get('callsite')} vs {y['callsite']}")
            if by == "function" and not addr_ok(x.get("func"), y["func"]):
                diffs.append(f"func {x.get('func')} vs {y['func']}")
            if diffs:
                bad.append(f"cpu {t} {by} {short(k)}: ipitrace vs oracle: " + ", ".join(diffs))
        # order: count desc; ties by key ascending (where the key order is plain)
        gl = a.get("groups", [])
        for u, v in zip(gl, gl[1:]):
            if u.get("count", 0) < v.get("count", 0):
                bad.append(f"cpu {t} order: {short(gkey(by, u))} {u.get('count')} before {short(gkey(by, v))} {v.get('count')}")
                break
            if u.get("count") == v.get("count"):
                ku, kv = tie_key(by, u), tie_key(by, v)
                if ku is not None and kv is not None and ku > kv:
                    bad.append(f"cpu {t} tie order: {ku} before {kv}")
                    break
    out(not bad, label, f"{n} groups agree" if not bad else
        f"{len(bad)} differences: " + " | ".join(bad[:MAXSHOW]))
    return r


def cmp_stacks(r):
    """the "stacks" table of the JSON (any --by: taken from by-comm)"""
    if r is None:
        return
    bad = []
    rs, os_ = r.get("stacks", "absent"), O["stacks"]
    if os_ is None or rs is None or rs == "absent":
        if rs != os_:
            bad.append(f'"stacks": ipitrace {str(rs)[:80]}, oracle {os_}')
        out(not bad, "stacks", "null as the oracle's (no send has a stack)" if not bad else bad[0])
        return
    ra = {t["target_cpu"]: t for t in rs}
    ob = {t["target_cpu"]: t for t in os_}
    n = 0
    if set(ra) != set(ob):
        bad.append(f"target CPUs {sorted(ra)}, oracle {sorted(ob)}")
    for t in sorted(set(ra) & set(ob)):
        a, b = ra[t], ob[t]
        for f in ("ipis", "with_stack"):
            n += 1
            if a.get(f) != b[f]:
                bad.append(f"cpu {t} {f}: ipitrace {a.get(f)}, oracle {b[f]}")
        sa = {tuple(s["frames"]): s for s in a.get("stacks", [])}
        sb = {tuple(s["frames"]): s for s in b["stacks"]}
        for k in set(sa) | set(sb):
            n += 1
            x, y = sa.get(k), sb.get(k)
            if x is None or y is None or x["count"] != y["count"] or abs(x["share"] - y["share"]) > 1.5e-6:
                bad.append(f"cpu {t} stack {';'.join(k[:3])};...: ipitrace "
                           f"{x and (x['count'], x['share'])}, oracle {y and (y['count'], y['share'])}")
        cl = [s["count"] for s in a.get("stacks", [])]
        if cl != sorted(cl, reverse=True):
            bad.append(f"cpu {t}: stacks not by count desc")
    out(not bad, "stacks", f"{n} numbers agree" if not bad else
        f"{len(bad)} differences: " + " | ".join(bad[:MAXSHOW]))


def read_folded(path):
    """Brendan Gregg's folded stacks: "frame;frame;...;frame COUNT" per line,
    the count after the last space, frames root first.  -> (Counter of
    stack tuples, list of problems)"""
    st = Counter()
    problems = []
    for i, l in enumerate(open(path, errors="replace").read().split("\n")):
        if l == "":
            continue
        sp = l.rfind(" ")
        if sp <= 0 or not l[sp + 1:].isdigit() or int(l[sp + 1:]) <= 0:
            problems.append(f"line {i + 1} is not 'stack count': {l[:80]!r}")
            continue
        frames = tuple(l[:sp].split(";"))
        if any(f == "" for f in frames):
            problems.append(f"line {i + 1}: an empty frame")
        st[frames] += int(l[sp + 1:])
    return st, problems


def cmp_folded(name, rows):
    want_lines = A.folded(rows)
    with_stack = sum(1 for r in rows if r["stack"] is not None)
    p, rc, err = part(name)
    if with_stack == 0:
        body = open(p).read() if os.path.exists(p) else ""
        ok = rc == "1" and body == "" and len(err.splitlines()) == 1
        out(ok, name.replace(".txt", ""), "no stack: exit 1, one-line error, nothing on stdout"
            if ok else f"no stack in the trace: want exit 1, one error line, empty stdout; got exit "
            f"{rc}, {len(err.splitlines())} error lines, {len(body)} bytes on stdout")
        return
    if rc != "0":
        out(False, name.replace(".txt", ""), f"exit {rc}: {err[:200]}")
        return
    got = open(p, errors="replace").read()
    got_lines = [l for l in got.split("\n") if l != ""]
    bad = []
    if got and not got.endswith("\n"):
        bad.append("no newline at the end")
    gs, ws = Counter(got_lines), Counter(want_lines)
    if gs != ws:
        extra = sorted(gs - ws, key=lambda l: -int(l.rsplit(" ", 1)[-1]))
        miss = sorted(ws - gs, key=lambda l: -int(l.rsplit(" ", 1)[-1]))
        bad.append(f"{len(extra)} lines not in the oracle's, {len(miss)} of the oracle's missing; "
                   f"first extra: {extra[:2]}; first missing: {miss[:2]}")
    elif got_lines != want_lines:
        bad.append("lines not sorted by count desc, then text")
    # the folded reader: totals overall, per comm and per leaf function,
    # against the oracle's rows (not its folded lines)
    st, problems = read_folded(p)
    bad += problems[:2]
    tot = sum(st.values())
    if tot != with_stack:
        bad.append(f"folded total {tot}, oracle rows with a stack {with_stack}")
    pc = Counter()
    pl = Counter()
    for k, c in st.items():
        pc[k[0]] += c
        pl[k[-1]] += c
    wc = Counter(r["comm"].replace(";", "_") for r in rows if r["stack"] is not None)
    wl = Counter((r["stack_funcs"][0] if r["stack_funcs"] else r["comm"].replace(";", "_"))
                 for r in rows if r["stack"] is not None)
    if pc != wc:
        bad.append(f"per-comm totals differ: {sorted((pc - wc).items())[:3]} vs {sorted((wc - pc).items())[:3]}")
    if pl != wl:
        bad.append(f"per-leaf totals differ: {sorted((pl - wl).items())[:3]} vs {sorted((wl - pl).items())[:3]}")
    out(not bad, name.replace(".txt", ""),
        f"{len(got_lines)} lines agree, total {tot} = rows with a stack; reader totals per comm/leaf agree"
        if not bad else " | ".join(bad[:MAXSHOW]))


def want_new(r):
    return {"lat_ns": r["lat_ns"], "handler_ns": r["handler_ns"], "handler_ts_ns": r["handler_ts_ns"],
            "matched": r["matched"], "coalesced": r["coalesced"],
            "unmatched_reason": r["unmatched_reason"], "callsite_func": r["callsite_func"],
            "func_name": r["func_name"], "stack": r["stack"]}


def cmp_rows(name, kind):
    p = ran(name, kind)
    if p is None:
        return
    bad = []
    got = {}
    cols = None
    if kind == "csv":
        rd = csv.reader(open(p, newline=""))
        cols = next(rd, [])
        if cols != OLD_COLS + NEW_COLS:
            bad.append(f"header {','.join(cols[len(OLD_COLS) - 1:])} after the old columns, want "
                       f"...,{OLD_COLS[-1]},{','.join(NEW_COLS)}")
        for v in rd:
            d = dict(zip(cols, v))

            def num(s):
                return int(s) if s != "" else None

            def boo(s):
                return {"true": True, "false": False, "": None}.get(s, s)
            try:
                got[(int(d["id"]), int(d["target_cpu"]))] = {
                    "lat_ns": num(d.get("lat_ns", "")), "handler_ns": num(d.get("handler_ns", "")),
                    "handler_ts_ns": num(d.get("handler_ts_ns", "")),
                    "matched": boo(d.get("matched", "")), "coalesced": boo(d.get("coalesced", "")),
                    "unmatched_reason": d.get("unmatched_reason") or None,
                    "callsite_func": d.get("callsite_func") or None,
                    "func_name": d.get("func_name") or None,
                    "stack": d["stack"].split(";") if d.get("stack") else None}
            except (ValueError, KeyError) as e:
                bad.append(f"row {v[:3]}: {e}")
                break
    else:
        for i, l in enumerate(open(p)):
            try:
                d = json.loads(l)
            except ValueError as e:
                bad.append(f"line {i + 1}: not JSON: {e}")
                break
            if cols is None:
                cols = list(d)
                if cols != OLD_COLS + NEW_COLS:
                    bad.append(f"keys ...{cols[len(OLD_COLS) - 1:]}, want ...{[OLD_COLS[-1]] + NEW_COLS}")
            s = d.get("stack")
            if s == []:
                s = None
            got[(d["id"], d["target_cpu"])] = {k: d.get(k) for k in NEW_COLS} | {"stack": s}
    missing = [c for c in NEW_COLS if c not in (cols or [])]
    if missing:
        out(False, kind, f"no column {', '.join(missing)} (after {', '.join((cols or [])[-2:])})")
        return
    want = {(r["id"], r["target_cpu"]): want_new(r) for r in ROWS}
    if set(got) != set(want):
        bad.append(f"{len(got)} rows, oracle {len(want)}; first missing "
                   f"{sorted(set(want) - set(got))[:3]}, first extra {sorted(set(got) - set(want))[:3]}")
    ndiff = Counter()
    shown = []
    for k in sorted(set(got) & set(want)):
        a, b = got[k], want[k]
        for c in NEW_COLS:
            if a.get(c) != b[c]:
                ndiff[c] += 1
                if len(shown) < MAXSHOW:
                    r = next(x for x in ROWS if (x["id"], x["target_cpu"]) == k)
                    v = a.get(c)
                    shown.append(f"id {k[0]} (ts {r['ts_ns']}, cpu {r['src_cpu']}->{k[1]}) {c}: "
                                 f"ipitrace {str(v)[:60]}, oracle {str(b[c])[:60]}")
    if ndiff:
        bad.append("differing values per column " + str(dict(ndiff)) + ": " + " | ".join(shown))
    out(not bad, kind, f"{len(want)} rows x {len(NEW_COLS)} new columns agree" if not bad
        else " | ".join(bad[:MAXSHOW]))


rby = {}
for by in A.KEYS:
    rby[by] = cmp_groups(by)
cmp_stacks(rby.get("comm"))
cmp_folded("folded.txt", ROWS)
if any(r["target_cpu"] == 1 for r in ROWS):
    cmp_folded("folded1.txt", [r for r in ROWS if r["target_cpu"] == 1])
cmp_rows("rows.csv", "csv")
cmp_rows("rows.jsonl", "jsonl")
