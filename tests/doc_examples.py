#!/usr/bin/python3
# doc_examples.py - run every example of README.md, docs/man-examples.txt and
# the --help texts, and check what each prints against a computation of its
# own (trace-cmd's text, tests/oracle.py), never against ipitrace's output.
#
#   doc_examples.py PART TOP BUILD TRACES WORK
#     PART   offline (the examples that read traces) or live (the ones that
#            record: "# as root", record, top, serve; root and tracefs)
#   prints "P name: figures", "F name: why", "S name: why" (tests/lib.sh
#   verdicts).
#
# The examples are extracted from the documents; REGISTRY below maps each
# one to its check.  An extracted example with no entry fails, so does an
# entry whose example is gone: the documents and this test cannot drift.
# Commands run as written, with `./build/ipitrace`, `demo/` and
# `../shared/traces/` reached through links in WORK/co (a checkout's shape);
# man pages' `ipitrace` is BUILD/ipitrace on PATH, in WORK/man, where the
# traces they name are copies of recorded ones (MAN_FILES).  Recording
# examples are shortened (-d 30 -> -d 2 and so on; the PASS line says so).
import collections
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

PART, TOP, BUILD, TRACES, WORK = sys.argv[1:6]
IPT = os.path.join(TOP, BUILD, "ipitrace")
REC = os.path.join(TRACES, "recorded")
PY = "/usr/bin/python3"

# the files the man pages' examples name, and the recorded traces standing
# for them (now.dat: the one with stacks and both kinds of CSD call)
MAN_FILES = {"now.dat": "busy-stacks.dat", "before.dat": "pingpong.dat",
             "after.dat": "busy-stacks.dat", "x.dat": "pingpong.dat",
             "ipitrace.dat": "pingpong.dat"}

out = []


def nm(name):
    return name.replace(": ", " - ")	# verdicts splits at the first ": "


def P(name, fig):
    out.append("P %s: %s" % (nm(name), fig))


def F(name, why):
    out.append("F %s: %s" % (nm(name), why))


def S(name, why):
    out.append("S %s: %s" % (nm(name), why))


# ---- extraction ---------------------------------------------------------

def readme_examples():
    ex = []
    lang = None
    block = []
    with open(os.path.join(TOP, "README.md")) as f:
        for line in f:
            line = line.rstrip("\n")
            if lang is None:
                m = re.match(r"^```(\w*)\s*$", line)
                if m:
                    lang = m.group(1) or "text"
                    block = []
                continue
            if line.startswith("```"):
                if lang == "sh":
                    ex += [("README", l.strip()) for l in block if l.strip()]
                elif lang == "python":
                    text = "\n".join(block) + "\n"
                    ex.append(("README", "python:" +
                               hashlib.sha1(text.encode()).hexdigest()[:12]))
                    PYBLOCKS.append(text)
                lang = None
                continue
            block.append(line)
    return ex


PYBLOCKS = []


def man_examples():
    ex = []
    cur = []
    with open(os.path.join(TOP, "docs", "man-examples.txt")) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("$ "):
                cur.append(line[2:])
                continue
            if cur:
                ex.append(("man", "\n".join(cur)))
                cur = []
    if cur:
        ex.append(("man", "\n".join(cur)))
    return ex


def help_text(*args):
    return subprocess.run([IPT] + list(args), capture_output=True,
                          text=True).stdout


def help_examples():
    ex = []
    top = help_text("--help")
    cmds = re.findall(r"^  ([a-z]+)  ", top.split("Commands:")[1].split("\n\n")[0], re.M)
    for c in [""] + cmds:
        t = help_text(c, "--help") if c else top
        flat = re.sub(r"\s+", " ", t)
        for m in re.finditer(r"e\.g\. ((?:'[^']*'(?:,? (?:or )?)?)+)", flat):
            for q in re.findall(r"'([^']*)'", m.group(1)):
                ex.append(("help " + (c or "-"), q))
        for m in re.finditer(r"e\.g\. `([^`]*)`", flat):
            ex.append(("help " + (c or "-"), m.group(1)))
    hf = help_text("help", "filters")
    for line in hf.split("\n\n")[1].splitlines():
        ex.append(("help filters", re.split(r"\s{3,}", line.strip())[0]))
    return ex


# ---- the independent model: trace-cmd's text, oracle.py's matching ------

MODEL = {}
ORACLE = {}


def model(name):
    """rows of a recorded trace: one per IPI (sends are single-CPU in the
    recordings), from `trace-cmd report -t` (sender, call site, stack) and
    tests/oracle.py --rows (kind, function, latency), joined on time"""
    if name in MODEL:
        return MODEL[name]
    path = os.path.join(REC, name)
    txt = subprocess.run(["trace-cmd", "report", "-t", path], capture_output=True,
                         text=True, check=True).stdout
    ev = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\w+):\s*(.*)$")
    sends = []
    events = []
    last = None
    for line in txt.splitlines():
        if line.startswith("=> "):
            if last is not None:
                last["stack"].append(line[3:].split(" (")[0])
            continue
        m = ev.match(line)
        if not m:
            continue
        comm, pid, cpu, s, ns, name_, rest = m.groups()
        ts = int(s) * 1000000000 + int(ns.ljust(9, "0"))
        events.append((int(cpu), ts, name_, rest, comm))
        if name_ == "ipi_send_cpu":
            f = dict(kv.split("=", 1) for kv in rest.split())
            sends.append({"ts_ns": ts, "src_cpu": int(cpu), "target_cpu": int(f["cpu"]),
                          "comm": comm, "pid": int(pid), "callsite": f["callsite"],
                          "callback": f["callback"], "stack": []})
            last = None
        elif name_ == "kernel_stack":
            # the stack of the last send on this CPU
            last = None
            for x in reversed(sends[-8:]):
                if x["src_cpu"] == int(cpu):
                    last = x if not x["stack"] else None
                    break
        else:
            last = None
    rowsf = os.path.join(WORK, name + ".rows")
    oj = json.loads(subprocess.run([PY, os.path.join(TOP, "tests", "oracle.py"), "--rows",
                                    rowsf, path], capture_output=True, check=True).stdout)
    ORACLE[name] = oj
    orows = {}
    with open(rowsf) as f:
        for l in f:
            r = json.loads(l)
            orows[(r["ts_ns"], r["src_cpu"], r["target_cpu"])] = r
    for s in sends:
        r = orows.pop((s["ts_ns"], s["src_cpu"], s["target_cpu"]))
        s["kind"] = r["kind"]
        s["function"] = r["function"]
        s["latency_ns"] = r.get("latency_ns")
        s["matched"] = r["matched"]
        # tracing frames trimmed, as the report says
        st = s["stack"]
        while st and (st[0].startswith("trace_event_raw_event_") or
                      st[0].startswith("__traceiter_") or st[0].startswith("trace_")):
            st.pop(0)
        s["stack"] = tuple(st)
        s["callsite_func"] = s["callsite"].split("+")[0]
    assert not orows, "oracle rows without a send line"
    MODEL[name] = (sends, events)
    return MODEL[name]


def rows(name, pred=lambda r: True):
    return [r for r in model(name)[0] if pred(r)]


# ---- running ------------------------------------------------------------

def setup_dirs():
    co = os.path.join(WORK, "co")
    man = os.path.join(WORK, "man")
    for d in (co, man):
        os.makedirs(d, exist_ok=True)
    os.symlink(os.path.join(TOP, BUILD), os.path.join(co, "build"))
    os.symlink(os.path.join(TOP, "demo"), os.path.join(co, "demo"))
    os.symlink(os.path.dirname(TRACES.rstrip("/")), os.path.join(WORK, "shared"))
    for n, src in MAN_FILES.items():
        shutil.copy(os.path.join(REC, src), os.path.join(man, n))
    return co, man


def sh(cmd, cwd, timeout=120):
    env = dict(os.environ)
    env["PATH"] = os.path.join(TOP, BUILD) + ":" + env["PATH"]
    env["PYTHONPATH"] = os.path.join(TOP, BUILD, "python")
    p = subprocess.run(["bash", "-c", "set -o pipefail; " + cmd], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0 and "| head" not in cmd:
        raise AssertionError("exit %d: %s" % (p.returncode, p.stderr.strip()[-300:]))
    return p.stdout


# ---- reading what ipitrace printed --------------------------------------

def fname(r):
    return r["function"] or "(none)"   # IPT_NO_FUNCTION: no function named


KINDS = ("resched", "wakeup", "call", "tlb")


def report_numbers(text):
    """the IPIs counted (after a filter), the per-target-CPU table, and the
    "Top ... per target CPU" lists of a text report"""
    m = re.search(r"IPIs \(one per target CPU\) (\d+)(?:, (\d+) matching the filter)?", text)
    total = int(m.group(2) or m.group(1))
    table = {}
    lines = text.splitlines()
    for i, l in enumerate(lines):
        if l.startswith("IPIs received per target CPU"):
            head = lines[i + 1].split()
            for l2 in lines[i + 2:]:
                if not l2.strip():
                    break
                if l2.split()[0].isdigit():
                    table[int(l2.split()[0])] = dict(zip(head, l2.split()))
            break
    tops = {}
    sec = None
    for l in lines:
        if l.startswith("Top "):
            sec = l
            tops[sec] = []
            continue
        if not l.strip():
            sec = None
            continue
        m = re.match(r"^  cpu (\d+)\s+(\d+)\s+(?:[\d.]+%\s+)?(.*)$", l)
        if sec and m:
            tops[sec].append([int(m.group(1)), int(m.group(2)), m.group(3).strip(), []])
        elif sec and tops[sec] and re.match(r"^ {20,}\S", l):
            tops[sec][-1][3].append(l.strip().split("+")[0])
    return total, table, tops


def check_table(rs, total, table, ncpus=2):
    bad = []
    if total != len(rs):
        bad.append("IPIs %d, trace-cmd %d" % (total, len(rs)))
    for c in range(ncpus):
        want = [r for r in rs if r["target_cpu"] == c]
        got = table.get(c)
        if got is None:
            if want:
                bad.append("cpu %d missing" % c)
            continue
        if int(got["ipis"]) != len(want):
            bad.append("cpu %d ipis %s, trace-cmd %d" % (c, got["ipis"], len(want)))
        for k in KINDS:
            if k in got and int(got[k]) != sum(r["kind"] == k for r in want):
                bad.append("cpu %d %s %s" % (c, k, got[k]))
    return bad


def check_top(entries, rs, key, label=lambda s: s):
    """each printed (cpu, count, label) has that count in the model, and the
    counts are the largest of that CPU (ties in any order)"""
    bad = []
    by = collections.defaultdict(collections.Counter)
    for r in rs:
        by[r["target_cpu"]][key(r)] += 1
    seen = collections.Counter()
    for cpu, n, lab, frames in entries:
        k = tuple(frames) if frames else label(lab)
        if by[cpu][k] != n:
            bad.append("cpu %d %s: %d, trace-cmd %d" % (cpu, lab[:40], n, by[cpu][k]))
        seen[cpu] += 1
    for cpu, k in seen.items():
        want = sorted(by[cpu].values(), reverse=True)[:k]
        got = [n for c, n, _, _ in entries if c == cpu]
        if got != want:
            bad.append("cpu %d top counts %s, trace-cmd %s" % (cpu, got, want))
    return bad


def section(tops, prefix):
    for k, v in tops.items():
        if k.startswith(prefix):
            return v
    raise AssertionError("no section %r" % prefix)


def csv_rows(text):
    import csv
    import io
    return list(csv.DictReader(io.StringIO(text)))


def verdict(name, bad, fig):
    if bad:
        F(name, "; ".join(bad[:4]))
    else:
        P(name, fig)


# ---- the checks ---------------------------------------------------------
# each: fn(name, example, cwd) -> None, adding a verdict

BS = "busy-stacks.dat"
PP = "pingpong.dat"


def c_report(trace, pred=lambda r: True, iso=None, extra=None, ncpus=2):
    """a text report: its IPI count and per-CPU table equal trace-cmd's
    (after the filter, given as pred); extra(tops, rows, text) -> bad"""
    def run(name, ex, cwd):
        text = sh(ex, cwd)
        rs = rows(trace, pred)
        total, table, tops = report_numbers(text)
        bad = check_table(rs, total, table, ncpus)
        if iso is not None:
            m = re.search(r"IPIs to the isolated CPUs %d: (\d+)" % iso, text)
            n = sum(r["target_cpu"] == iso for r in rs)
            if not m or int(m.group(1)) != n:
                bad.append("to isolated %d: %s, trace-cmd %d" % (iso, m and m.group(1), n))
        if extra:
            bad += extra(tops, rs, text)
        verdict(name, bad, "%d IPIs, per CPU %s, as trace-cmd's text" % (
            total, [int(table[c]["ipis"]) for c in sorted(table)]))
    return run


def by_function(tops, rs, text):
    return check_top(section(tops, "Top senders per target CPU, by function"), rs, fname)


def by_comm(tops, rs, text):
    return check_top(section(tops, "Top senders per target CPU, by command"), rs,
                     lambda r: r["comm"], lambda s: s.split(" (")[0])


def by_stack(tops, rs, text):
    return check_top(section(tops, "Top senders per target CPU, by kernel stack"), rs,
                     lambda r: r["stack"])


def by_site(tops, rs, text):
    return check_top(section(tops, "Top (call site, function)"), rs,
                     lambda r: r["callsite"] + " -> " + fname(r))


def both(*fs):
    return lambda tops, rs, text: sum((f(tops, rs, text) for f in fs), [])


def no_send(tops, rs, text):
    """the interrupts with no traced send, per CPU and cause: the oracle's"""
    bad = []
    oj = ORACLE[BS]
    for pc in oj["per_cpu"]:
        m = re.search(r"cpu %d\s+reschedule\s+(\d+): (.*)" % pc["cpu"], text)
        if pc["handlers_unattributed"] == 0:
            continue
        if not m or int(m.group(1)) != pc["handlers_unattributed"]:
            bad.append("cpu %d with no send: %s, oracle %d" % (
                pc["cpu"], m and m.group(1), pc["handlers_unattributed"]))
    return bad


def c_folded(trace, pred, outfile):
    def run(name, ex, cwd):
        sh(ex, cwd)
        rs = rows(trace, pred)
        got = collections.Counter()
        with open(os.path.join(cwd, outfile)) as f:
            for l in f:
                st, n = l.rstrip("\n").rsplit(" ", 1)
                got[st] += int(n)
        # folded: "comm;root;...;leaf count", offsets dropped
        want = collections.Counter((r["comm"],) + r["stack"][::-1] for r in rs if r["stack"])
        gotk = collections.Counter()
        for st, n in got.items():
            gotk[tuple(st.split(";"))] += n
        bad = []
        tot = sum(got.values())
        nst = sum(want.values())
        if tot != nst:
            bad.append("folded total %d, trace-cmd %d IPIs with a stack" % (tot, nst))
        for k, n in want.most_common(3):
            if gotk.get(k) != n:
                bad.append("%s ... %s: %s, trace-cmd %d" % (k[0], k[-1], gotk.get(k), n))
        verdict(name, bad, "%d IPIs in %d stacks, as trace-cmd's text" % (tot, len(got)))
    return run


def c_html(trace, outfile, word="ipis"):
    def run(name, ex, cwd):
        sh(ex, cwd)
        with open(os.path.join(cwd, outfile)) as f:
            h = f.read()
        n = len(rows(trace))
        bad = []
        if not h.lstrip().lower().startswith("<!doctype html"):
            bad.append("not HTML")
        if "{:,} IPIs (".format(n) not in h:
            bad.append("no '{:,} IPIs' (trace-cmd's count)".format(n))
        for c in (0, 1):
            k = sum(r["target_cpu"] == c for r in rows(trace))
            if "CPU {}: {:,} IPIs".format(c, k) not in h:
                bad.append("no 'CPU {}: {:,} IPIs'".format(c, k))
        verdict(name, bad, "%s: HTML, with trace-cmd's %d IPIs, and per target CPU" % (outfile, n))
    return run


def c_csv(trace, outfile, pred=lambda r: True, head=None):
    def run(name, ex, cwd):
        text = sh(ex, cwd)
        if outfile:
            with open(os.path.join(cwd, outfile)) as f:
                text = f.read()
        got = csv_rows(text)
        rs = rows(trace, pred)
        bad = []
        if head is not None:
            if len(got) != head - 1 or any(int(g["target_cpu"]) != 1 for g in got):
                bad.append("rows %d, targets %s" % (len(got), [g["target_cpu"] for g in got]))
            want = [r["ts_ns"] for r in sorted(rs, key=lambda r: r["ts_ns"])[:head - 1]]
            if [int(g["ts_ns"]) for g in got] != want:
                bad.append("first rows' ts %s, trace-cmd %s" % ([g["ts_ns"] for g in got], want))
            return verdict(name, bad, "header and %d rows, the first sends to CPU 1 in trace-cmd's text" % len(got))
        if len(got) != len(rs):
            bad.append("rows %d, trace-cmd %d" % (len(got), len(rs)))
        gk = collections.Counter((int(g["target_cpu"]), g["kind"]) for g in got)
        wk = collections.Counter((r["target_cpu"], r["kind"]) for r in rs)
        if gk != wk:
            bad.append("per (cpu, kind) %s, trace-cmd %s" % (dict(gk), dict(wk)))
        verdict(name, bad, "%d rows, per (CPU, kind) as trace-cmd's text" % len(got))
    return run


def pq_counts(paths):
    """rows per "target_cpu kind" of Parquet files, read by DuckDB (the
    npm package tests/test_parquet.sh installs into BUILD/js-cache) or by
    pandas with pyarrow; None if neither is here"""
    nm = os.path.join(TOP, BUILD, "js-cache", "node_modules", "@duckdb", "node-api")
    if os.path.isdir(nm) and shutil.which("node"):
        js = ("const d = require(process.argv[1]); (async () => {"
              "const i = await d.DuckDBInstance.create(':memory:'); const c = await i.connect();"
              "const r = await c.runAndReadAll(\"select cast(target_cpu as int), cast(kind as varchar), "
              "cast(count(*) as int) from read_parquet([\" + process.argv.slice(2).map(f => \"'\" + f + \"'\")"
              ".join(',') + \"]) group by all\");"
              "console.log(JSON.stringify(r.getRows())); })();")
        p = subprocess.run(["node", "-e", js, nm] + paths, capture_output=True, text=True)
        if p.returncode == 0:
            return {"%d %s" % (c, k): n for c, k, n in json.loads(p.stdout)}
    code = ("import pandas as pd, json, sys\n"
            "d = pd.concat([pd.read_parquet(f) for f in sys.argv[1:]])\n"
            "print(json.dumps({'%d %s' % k: int(v) for k, v in "
            "d.groupby(['target_cpu', d['kind'].astype(str)]).size().items() if v}))\n")
    p = subprocess.run([PY, "-c", code] + paths, capture_output=True, text=True)
    if p.returncode == 0:
        return json.loads(p.stdout)
    if "pyarrow" in p.stderr or "fastparquet" in p.stderr:
        return None
    raise AssertionError("pandas: " + p.stderr[-200:])


def c_parquet(trace, outfile, pred=lambda r: True):
    def run(name, ex, cwd):
        sh(ex, cwd)
        per = pq_counts([os.path.join(cwd, outfile)])
        if per is None:
            return S(name, "no Parquet reader here (no DuckDB in build/js-cache, no pyarrow)")
        rs = rows(trace, pred)
        want = collections.Counter("%d %s" % (r["target_cpu"], r["kind"]) for r in rs)
        n = sum(per.values())
        verdict(name, [] if per == dict(want) else ["per (cpu, kind) %s, trace-cmd %s" % (per, dict(want))],
                "%d rows, per (CPU, kind) as trace-cmd's text" % n)
    return run


def c_dump_first(trace, n):
    def run(name, ex, cwd):
        text = sh(ex, cwd)
        got = re.findall(r"\[(\d+)\]\s+(\d+\.\d+):\s+(\w+):", text)
        evs = [e for e in sorted(model(trace)[1], key=lambda e: e[1])
               if e[2].startswith("ipi_")][:n]
        want = [(int(c), "%.6f" % (ts / 1e9), ev) for c, ts, ev, _, _ in evs]
        gotn = [(int(c), "%.6f" % float(t), ev) for c, t, ev in got]
        verdict(name, [] if gotn == want else ["%s, trace-cmd %s" % (gotn, want)],
                "the first %d ipi: events as trace-cmd's" % len(got))
    return run


def c_explode(trace, out, tc_filter=None, cpu=None):
    def run(name, ex, cwd):
        text = sh(ex, cwd)
        if tc_filter:
            n = len(re.findall(r"ipi_send_cpu:", text))
            want = sum(r["target_cpu"] == cpu for r in rows(trace))
            return verdict(name, [] if n == want else ["%d sends, trace-cmd on the input %d" % (n, want)],
                           "trace-cmd -F finds %d sends to CPU %d in the exploded trace" % (n, cpu))
        t = subprocess.run(["trace-cmd", "report", os.path.join(cwd, out)],
                           capture_output=True, text=True).stdout
        n = len(re.findall(r"ipi_send_cpu:", t))
        m = len(re.findall(r"ipi_send_cpumask:", t))
        want = len(rows(trace))
        verdict(name, [] if (n, m) == (want, 0) else ["%d/%d sends, want %d" % (n, m, want)],
                "trace-cmd reads %d single-CPU sends, as the input's IPIs" % n)
    return run


def c_diff(fmt="text", outfile=None, by=("function",)):
    def run(name, ex, cwd):
        text = sh(ex, cwd)
        b, a = rows(PP), rows(BS)
        bad = []
        key = {"function": lambda r: r["function"] or "(none)",
               "comm": lambda r: r["comm"], "callsite": lambda r: r["callsite_func"]}
        if fmt == "csv":
            with open(os.path.join(cwd, outfile)) as f:
                got = csv_rows(f.read())
            role = [g for g in got if g["table"] == "role"]
            if (int(role[0]["count_before"]), int(role[0]["count_after"])) != (len(b), len(a)):
                bad.append("role counts %s/%s" % (role[0]["count_before"], role[0]["count_after"]))
            tabs = {}
            for g in got:
                tabs.setdefault(g["table"], {})[g["key"]] = (int(g["count_before"]), int(g["count_after"]))
            for t in by:
                cb, ca = collections.Counter(map(key[t], b)), collections.Counter(map(key[t], a))
                for k, v in tabs.get(t, {}).items():
                    if v != (cb[k], ca[k]):
                        bad.append("%s %s %s, trace-cmd %s" % (t, k, v, (cb[k], ca[k])))
            return verdict(name, bad, "%d CSV rows, counts before/after as trace-cmd's text" % len(got))
        if fmt == "html":
            with open(os.path.join(cwd, outfile)) as f:
                h = f.read()
            if not h.lstrip().lower().startswith("<!doctype html") or \
                    "&middot; %d IPIs" % len(b) not in h or "&middot; %d IPIs" % len(a) not in h:
                bad.append("not HTML with %d" % len(b))
            return verdict(name, bad, "%s: HTML with the %d and %d IPIs" % (outfile, len(b), len(a)))
        m = re.findall(r"^(before|after)\s.*, (\d+) IPIs$", text, re.M)
        if [int(x[1]) for x in m] != [len(b), len(a)]:
            bad.append("IPIs %s, trace-cmd %d/%d" % (m, len(b), len(a)))
        for t in by:
            cb, ca = collections.Counter(map(key[t], b)), collections.Counter(map(key[t], a))
            blk = re.search(r"^by %s: (.*?)\n\n" % t, text + "\n\n", re.M | re.S)
            if not blk:
                bad.append("no table by %s" % t)
                continue
            n = 0
            for l in blk.group(1).splitlines()[2:]:
                f = l.split()
                if len(f) < 4 or not f[2].isdigit():
                    continue
                n += 1
                if (int(f[2]), int(f[3])) != (cb[f[1]], ca[f[1]]):
                    bad.append("%s %s %s/%s, trace-cmd %d/%d" % (t, f[1], f[2], f[3], cb[f[1]], ca[f[1]]))
            if not n:
                bad.append("table by %s empty" % t)
        verdict(name, bad, "%d and %d IPIs, tables by %s as trace-cmd's text" % (len(b), len(a), ",".join(by)))
    return run


def c_count(trace):
    def run(name, ex, cwd):
        text = sh(ex, cwd)
        evs = model(trace)[1]
        bad = []
        for c in sorted({e[0] for e in evs}):
            m = re.search(r"^cpu %d: (\d+) events" % c, text, re.M)
            n = sum(e[0] == c for e in evs)
            if not m or int(m.group(1)) != n:
                bad.append("cpu %d: %s, trace-cmd %d" % (c, m and m.group(1), n))
        per = collections.Counter(e[2] for e in evs)
        for ev, n in re.findall(r"^\w+:(\w+): (\d+)$", text, re.M):
            if per[ev] != int(n):
                bad.append("%s %s, trace-cmd %d" % (ev, n, per[ev]))
        verdict(name, bad, "%d events, per CPU and type as trace-cmd's" % len(evs))
    return run


def c_dump_lines(trace, pred):
    """dump's event lines: as many, per event name, as trace-cmd's text has
    events for which pred(cpu, ts, name, fields, comm) holds"""
    def run(name, ex, cwd):
        text = sh(ex, cwd)
        got = collections.Counter(re.findall(r"^\s*.*?\[\d+\]\s+\d+\.\d+:\s+(\w+):", text, re.M))
        want = collections.Counter(e[2] for e in model(trace)[1] if pred(*e))
        verdict(name, [] if got == want else ["%s, trace-cmd %s" % (dict(got), dict(want))],
                "%d events, per name as trace-cmd's text" % sum(got.values()))
    return run


def c_jsonl(trace, pred=lambda r: True, sends=False):
    def run(name, ex, cwd):
        text = sh(ex, cwd)
        got = [json.loads(l) for l in text.splitlines() if l.strip()]
        rs = rows(trace, pred)
        bad = [] if len(got) == len(rs) else ["%d lines, trace-cmd %d" % (len(got), len(rs))]
        verdict(name, bad, "%d JSON lines, as trace-cmd's %s" % (len(got), "sends" if sends else "IPIs"))
    return run


def c_partition(trace):
    def run(name, ex, cwd):
        sh(ex, cwd)
        files = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(cwd, "dataset"))
                 for f in fs if f.endswith(".parquet")]
        if not files or not all("host=" in f and "date=" in f for f in files):
            return F(name, "no host=/date= partitions: %s" % files)
        per = pq_counts(files)
        if per is None:
            return S(name, "no Parquet reader here (no DuckDB in build/js-cache, no pyarrow)")
        want = collections.Counter("%d %s" % (r["target_cpu"], r["kind"]) for r in rows(trace))
        verdict(name, [] if per == dict(want) else ["per (cpu, kind) %s, trace-cmd %s" % (per, dict(want))],
                "%d rows in host=/date= partitions, per (CPU, kind) as trace-cmd's" % sum(per.values()))
    return run


def c_make(target):
    def run(name, ex, cwd):
        p = subprocess.run(["make", "-n", "-C", TOP] + target.split(), capture_output=True, text=True)
        verdict(name, [] if p.returncode == 0 else ["make -n: " + p.stderr[-200:]],
                "not run (builds, installs or runs the suite): `make -n %s` knows it" % target)
    return run


def c_tests_named(word):
    def run(name, ex, cwd):
        n = [f for f in os.listdir(os.path.join(TOP, "tests")) if f.startswith("test_") and word in f]
        verdict(name, [] if n else ["no tests/test_*%s*.sh" % word],
                "not run (a part of the suite): it names %s" % " ".join(sorted(n)))
    return run


def c_python(name, ex, cwd):
    text = PYBLOCKS[0]
    with open(os.path.join(cwd, "ex.py"), "w") as f:
        f.write(text)
    o = sh(PY + " ex.py", cwd)
    rs = rows(BS)
    bad = []
    # 1: IPIs per target CPU per kind
    for c in (0, 1):
        m = re.search(r"^%d\s+([\d ]+)$" % c, o, re.M)
        hdr = re.search(r"^kind\s+(.*)$", o, re.M).group(1).split()
        want = [sum(r["target_cpu"] == c and r["kind"] == k for r in rs) for k in hdr]
        if not m or [int(x) for x in m.group(1).split()] != want:
            bad.append("cpu %d kinds %s, trace-cmd %s" % (c, m and m.group(1), want))
    # 2: the top (call site, function) paths to CPU 1
    cnt = collections.Counter((r["callsite_func"], r["function"] or "(reschedule)")
                              for r in rs if r["target_cpu"] == 1)
    for (site, fn), n in cnt.most_common(3):
        if not re.search(r"^%s\s+%s\s+%d$" % (re.escape(site), re.escape(fn), n), o, re.M):
            bad.append("path %s %s %d not printed" % (site, fn, n))
    # 3: the most frequent stacks to CPU 1
    st = collections.Counter(r["stack"] for r in rs if r["target_cpu"] == 1 and r["stack"])
    got3 = [int(x) for x in re.findall(r"^\S+;\S*\s+(\d+)$", o, re.M)][:3]
    if got3 != [n for _, n in st.most_common(3)]:
        bad.append("top stacks %s, trace-cmd %s" % (got3, [n for _, n in st.most_common(3)]))
    # the output the block shows in its comments: trace-cmd's numbers too
    hdr = re.search(r"^# kind\s+(.*)$", text, re.M).group(1).split()
    shown = 0
    for c, nums in re.findall(r"^# (\d+)\s+([\d ]+)$", text, re.M):
        want = [sum(r["target_cpu"] == int(c) and r["kind"] == k for r in rs) for k in hdr]
        shown += 1
        if [int(x) for x in nums.split()] != want:
            bad.append("README's comment: cpu %s kinds %s, trace-cmd %s" % (c, nums.split(), want))
    for site, fn, n in re.findall(r"^# (\w+)\s+(\S+)\s+(\d+)$", text, re.M):
        shown += 1
        if cnt[(site, fn)] != int(n):
            bad.append("README's comment: %s %s %s, trace-cmd %d" % (site, fn, n, cnt[(site, fn)]))
    if shown < 5:
        bad.append("README's comments show %d result lines, 5 expected" % shown)
    # 4: handler medians by kind: one line per kind seen
    for k in {r["kind"] for r in rs}:
        if not re.search(r"^%s\s+\d" % k, o, re.M):
            bad.append("no median for %s" % k)
    verdict(name, bad, "kinds per CPU, top 3 paths and stacks to CPU 1, and the numbers in the block's comments, as trace-cmd's text")


def c_filter(pred, cmd="report", trace=BS, events=False):
    """a filter of the help texts, run as report -F (dump -F for event
    filters) on a recorded trace: as many rows (events) as pred finds"""
    def run(name, ex, cwd):
        path = os.path.join(REC, trace)
        if events:
            return c_dump_lines(trace, pred)(name, "ipitrace dump --no-header -F '%s' %s" % (ex, path), cwd)
        return c_report(trace, pred)(name, "ipitrace report -F '%s' %s" % (ex.replace("'", "'\\''"), path), cwd)
    return run


def st_has(r, sub):
    return any(sub in f for f in r["stack"])


# ---- live examples: run shortened, in WORK/live ---------------------------

def c_live(short, trace=None, report=False, every=None):
    """a recording example, run as `short` (the documented one with a shorter
    duration): the trace is written, trace-cmd reads as many events as
    `ipitrace count`, and the IPIs the report prints are tests/oracle.py's
    count from trace-cmd's text"""
    def run(name, ex, cwd):
        for f in os.listdir(cwd):
            if f.endswith(".dat") or f.endswith(".txt"):
                os.unlink(os.path.join(cwd, f))
        text = sh(short, cwd, timeout=60)
        dats = [f for f in os.listdir(cwd) if f.endswith(".dat")]
        if trace:
            dats = [trace] if trace in dats else []
        if not dats:
            return F(name, "no trace written by `%s`" % short)
        path = os.path.join(cwd, dats[0])
        t = subprocess.run(["trace-cmd", "report", path], capture_output=True, text=True).stdout
        ntc = len(re.findall(r"^\s*.*\[\d+\]\s+\d+\.\d+:\s+\w+:", t, re.M))
        cnt = sh("ipitrace count %s" % path, cwd)
        nip = sum(int(x) for x in re.findall(r"^cpu \d+: (\d+) events", cnt, re.M))
        oj = json.loads(subprocess.run([PY, os.path.join(TOP, "tests", "oracle.py"), path],
                                       capture_output=True, text=True, check=True).stdout)
        bad = [] if ntc == nip else ["trace-cmd %d events, ipitrace count %d" % (ntc, nip)]
        note = ""
        if every:
            what, rx = every
            sends = re.findall(r"^\s*(.*)-\d+\s+\[\d+\].*?ipi_send_cpu:\s+(.*)$", t, re.M)
            off = [x for x in sends if not re.search(rx, x[0] + " " + x[1])]
            if off:
                bad.append("%d of %d sends not %s: %s" % (len(off), len(sends), what, off[0]))
            note = ", every send %s (%d)" % (what, len(sends))
        if report or "report" in short or not short.split("ipitrace")[1].strip().startswith("record"):
            rep = text if "IPIs (one per target CPU)" in text else sh("ipitrace report %s" % path, cwd)
            m = re.search(r"IPIs \(one per target CPU\) (\d+)", rep)
            if not m or int(m.group(1)) != oj["ipis"]:
                bad.append("report IPIs %s, oracle %d" % (m and m.group(1), oj["ipis"]))
        verdict(name, bad, "run as `%s`: %s, %d events as trace-cmd's, %d IPIs as the oracle's%s" % (
            short, dats[0], ntc, oj["ipis"], note))
    return run


def c_top(short, js=False):
    def run(name, ex, cwd):
        p = subprocess.run(["bash", "-c", short], cwd=cwd, capture_output=True, text=True,
                           env=dict(os.environ, PATH=os.path.join(TOP, BUILD) + ":" + os.environ["PATH"]))
        o = p.stdout
        if "bpf" in p.stderr.lower() and not o:
            return S(name, "no BPF here: " + p.stderr.strip()[-120:])
        if js:
            try:
                d = json.loads(o)
            except ValueError:
                return F(name, "not JSON: %s" % (o[:100] or p.stderr[-200:]))
            return verdict(name, [], "run as `%s`: one JSON interval (%s)" % (short, ",".join(sorted(d)[:5])))
        ncpu = os.cpu_count()
        rowsn = len(re.findall(r"^\s*\d+\s+\d+", o, re.M))
        verdict(name, [] if rowsn >= 1 else ["no CPU rows: " + (o[-200:] or p.stderr[-200:])],
                "run as `%s`: %d rows for %d CPUs" % (short, rowsn, ncpu))
    return run


SERVE = []


def c_serve(short, port=9464):
    def run(name, ex, cwd):
        import time
        env = dict(os.environ, PATH=os.path.join(TOP, BUILD) + ":" + os.environ["PATH"])
        serve_stop()
        s = subprocess.Popen(["bash", "-c", "exec " + short], cwd=cwd, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        SERVE.append(s)
        for _ in range(50):
            time.sleep(0.2)
            p = subprocess.run(["curl", "-s", "127.0.0.1:%d/metrics" % port], capture_output=True, text=True)
            if p.returncode == 0 and "ipitrace_ipis_total" in p.stdout:
                break
        else:
            s.terminate()
            return F(name, "no metrics on %d: %s" % (port, s.stderr.read()[-200:] if s.poll() is not None else ""))
        verdict(name, [], "run as `%s &`: metrics on 127.0.0.1:%d" % (short, port))
    return run


def c_curl(name, ex, cwd):
    if not SERVE:
        return S(name, "serve did not start")
    o = sh(ex.split("#")[0], cwd)
    m = re.findall(r'^ipitrace_ipis_total\{target_cpu="1"[^}]*\} (\d+)', o, re.M)
    verdict(name, [] if m else ["no series: " + o[:200]], "%d series for CPU 1 from the running serve" % len(m))


def c_from_serve(short):
    def run(name, ex, cwd):
        if not SERVE:
            return S(name, "serve did not start")
        if os.path.exists(os.path.join(cwd, "window.txt")):
            os.unlink(os.path.join(cwd, "window.txt"))
        sh(short, cwd, timeout=30)
        w = os.path.join(cwd, "window.txt")
        n = os.path.getsize(w) if os.path.exists(w) else 0
        verdict(name, [] if n else ["window.txt not written"],
                "run as `%s` beside the serve started above: window.txt, %d bytes" % (short, n))
    return run


def serve_stop():
    for s in SERVE:
        if s.poll() is None:
            s.terminate()
            s.wait()


def c_nosend(name, ex, cwd):
    """the lines grep keeps: the interrupts with no traced send, in all and
    per CPU, as tests/oracle.py finds them in trace-cmd's text"""
    o = sh(ex, cwd)
    model(BS)
    oj = ORACLE[BS]
    want = sum(pc["handlers_unattributed"] for pc in oj["per_cpu"])
    m = re.search(r"with no traced send (\d+)", o)
    bad = [] if m and int(m.group(1)) == want else ["no send %s, oracle %d" % (m and m.group(1), want)]
    bad += no_send({}, [], o)
    verdict(name, bad, "%d interrupts with no traced send, per CPU as the oracle's" % want)


# ---- the registry: example -> (part, check) --------------------------------

RB = "../shared/traces/recorded/busy-stacks.dat"
RP = "../shared/traces/recorded/pingpong.dat"
T1 = lambda r: r["target_cpu"] == 1
OFF, LIVE = "offline", "live"

REGISTRY = {
    # README
    "make demo     # installs only what building needs, builds, runs ipitrace on the shipped trace": (OFF, c_make("demo")),
    "make check    # installs what it needs, builds, runs every test (plain, then ASan+UBSan)": (OFF, c_make("check")),
    "make                          # build/ipitrace, build/libipitrace.{a,so*}, build/man/*, build/python/": (OFF, c_make("all")),
    "make install PREFIX=/usr      # also DESTDIR=...; make uninstall removes it all again": (OFF, c_make("install PREFIX=/usr")),
    "./build/ipitrace                      # as root: 10 s of every IPI, the report, the trace kept": (LIVE, c_live("./build/ipitrace -d 2")),
    "./build/ipitrace -d 30 -i 1 -s        # as root: 30 s, CPU 1 as the isolated one, with stacks": (LIVE, c_live("./build/ipitrace -d 2 -i 1 -s")),
    "./build/ipitrace record -d 10 -o sleep.dat -- sleep 5   # as root: while a command runs (the whole machine)": (LIVE, c_live("./build/ipitrace record -d 2 -o sleep.dat -- sleep 1", "sleep.dat")),
    "./build/ipitrace report --isolated 1 " + RB: (OFF, c_report(BS, iso=1)),
    "./build/ipitrace report --isolated 1 --by function --top 3 " + RB: (OFF, c_report(BS, iso=1, extra=by_function)),
    "./build/ipitrace report --by comm -F 'target_cpu == 1 && kind != \"resched\"' " + RB: (OFF, c_report(BS, lambda r: r["target_cpu"] == 1 and r["kind"] != "resched", extra=both(by_comm, by_site))),
    "./build/ipitrace record --stacks -d 10 -o stacks.dat     # as root": (LIVE, c_live("./build/ipitrace record --stacks -d 2 -o stacks.dat", "stacks.dat")),
    "./build/ipitrace report --by stack --top 3 " + RB: (OFF, c_report(BS, extra=by_stack)),
    "./build/ipitrace report --format folded -F 'target_cpu == 1' " + RB + " > cpu1.folded": (OFF, c_folded(BS, T1, "cpu1.folded")),
    "./build/ipitrace report --html busy.html --force " + RB: (OFF, c_html(BS, "busy.html")),
    "./build/ipitrace report " + RB: (OFF, c_report(BS, extra=by_site)),
    "./build/ipitrace report --assume-synced-clock --isolated 1 --top 3 demo/pingpong.dat": (OFF, c_report(PP, iso=1, extra=by_site)),
    "./build/ipitrace report -F 'lat_ns > 100us' --by function " + RB + "   # the IPIs that waited over 100 us": (OFF, c_report(BS, lambda r: (r["latency_ns"] or 0) > 100000, extra=by_function)),
    "./build/ipitrace convert " + RB + " -o rows.csv --force": (OFF, c_csv(BS, "rows.csv")),
    "./build/ipitrace record -d 10 -o now.dat && ./build/ipitrace report now.dat   # as root": (LIVE, c_live("./build/ipitrace record -d 2 -o now.dat && ./build/ipitrace report now.dat", "now.dat")),
    "./build/ipitrace report --isolated 1 " + RB + " | grep -A 6 'with no traced send'": (OFF, c_nosend),
    "./build/ipitrace diff " + RP + " " + RB: (OFF, c_diff(by=("function", "callsite", "comm"))),
    "./build/ipitrace diff --by function,comm --latency " + RP + " " + RB: (OFF, c_diff(by=("function", "comm"))),
    "./build/ipitrace diff -f csv " + RP + " " + RB + " > diff.csv": (OFF, c_diff("csv", "diff.csv", by=("function", "callsite"))),
    "./build/ipitrace diff --html diff.html --force " + RP + " " + RB: (OFF, c_diff("html", "diff.html")),
    "./build/ipitrace top                            # as root: live, every second": (LIVE, c_top("timeout -s INT 3 ipitrace top; true")),
    "./build/ipitrace top --once --watch 1 -f json   # as root: one interval as JSON": (LIVE, c_top("ipitrace top --once --watch 1 -f json", js=True)),
    "./build/ipitrace serve --watch 1 &              # as root: metrics on 127.0.0.1:9464": (LIVE, c_serve("ipitrace serve --watch 1")),
    "curl -s 127.0.0.1:9464/metrics | grep 'ipitrace_ipis_total{target_cpu=\"1\"'   # as root, serve running": (LIVE, c_curl),
    "./build/ipitrace record --from-serve -d 10 -o window.txt   # as root: serve's counts and rows of 10 s": (LIVE, c_from_serve("ipitrace record --from-serve -d 2 -o window.txt")),
    "./build/ipitrace convert " + RB + " -o rows.parquet --force": (OFF, c_parquet(BS, "rows.parquet")),
    "./build/ipitrace convert " + RB + " -o - -F 'target_cpu == 1' | head -n 3": (OFF, c_csv(BS, None, T1, head=3)),
    "./build/ipitrace dump -e 'ipi:*' -n 5 demo/pingpong.dat": (OFF, c_dump_first(PP, 5)),
    "./build/ipitrace explode demo/pingpong.dat -o exploded.dat --force": (OFF, c_explode(PP, "exploded.dat")),
    "make check-fast      # the inner loop: unit tests and offline scripts, plain build (about 4 min on a 2-core VM)": (OFF, c_make("check-fast")),
    "make check           # everything, plain and ASan+UBSan (12-16 min with the build on a 2-core VM)": (OFF, c_make("check")),
    "make check-qemu      # Debian's x86_64 and arm64 kernels under qemu, 8 to 96 CPUs (3-5 min)": (OFF, c_make("check-qemu")),
    "make bench           # the speed and memory figures, against trace-cmd and perf (up to about 15 min)": (OFF, c_make("bench")),
    "TESTS=report sh tests/run.sh build    # the scripts whose name has \"report\"": (OFF, c_tests_named("report")),
}

def c_diffjson(name, ex, cwd):
    sh(ex, cwd)
    with open(os.path.join(cwd, "diff.json")) as f:
        txt = f.read()
    json.loads(txt)
    b, a = len(rows(PP)), len(rows(BS))
    m = re.search(r'"count_before":\s*(\d+),\s*"count_after":\s*(\d+)', txt)
    verdict(name, [] if m and (int(m.group(1)), int(m.group(2))) == (b, a) else
            ["first counts %s, trace-cmd %d/%d" % (m and m.groups(), b, a)],
            "JSON, its first row %d before, %d after, as trace-cmd's text" % (b, a))


def c_zcat(name, ex, cwd):
    subprocess.run("gzip -c %s > x.dat.gz" % os.path.join(REC, PP), shell=True, cwd=cwd, check=True)
    c_report(PP)(name + " (x.dat.gz: pingpong.dat gzipped)", ex, cwd)


REGISTRY["python:%s" % "bef3c76d8ad0"] = (OFF, c_python)
def c_fails(msg):
    """the recorded traces have CPUs 0-1 only: the example's CPUs 2-3 are
    refused with the documented error"""
    def run(name, ex, cwd):
        p = subprocess.run(["bash", "-c", ex], cwd=cwd, capture_output=True, text=True,
                           env=dict(os.environ, PATH=os.path.join(TOP, BUILD) + ":" + os.environ["PATH"]))
        verdict(name, [] if p.returncode and msg in p.stderr else ["rc %d: %s" % (p.returncode, p.stderr[-200:])],
                "on a 2-CPU trace: refused, %r (no recorded trace has CPUs 2-3)" % msg)
    return run


def c_clock(name, ex, cwd):
    h = help_text("record", "--help")
    verdict(name, [] if re.search(r"clock NAME.*\blocal\b", re.sub(r"\s+", " ", h)) else ["not in record's clocks"],
            "a clock name (not a filter): one of `record --clock`'s")


T2 = lambda r: r["target_cpu"] == 2
NONE = lambda r: False
MAN = {
    "ipitrace": (LIVE, c_live("ipitrace -d 2")),
    "ipitrace -d 30 -i 2-3 -s": (LIVE, c_live("ipitrace -d 2 -i 1 -s")),
    # make -n: a make that runs while recording but builds nothing (a real
    # build here would race the other tests' makes, and may outlast -d)
    "ipitrace -o build.dat -- make -j8": (LIVE, c_live("ipitrace -o build.dat -- make -s -n -j8 -C %s %s/ipitrace" % (TOP, BUILD), "build.dat")),
    "ipitrace record -d 10 -o now.dat": (LIVE, c_live("ipitrace record -d 2 -o now.dat", "now.dat")),
    "ipitrace record --stacks -c 2-3 -d 5m -o iso.dat": (LIVE, c_live("ipitrace record --stacks -c 1 -d 2 -o iso.dat", "iso.dat", every=("to CPU 1", r"\bcpu=1\b"))),
    "ipitrace record --comm 'fx-*' --user-stacks -o fx.dat -- ./fx-storm": (LIVE, c_live("ipitrace record --comm 'sleep*' --user-stacks -d 2 -o fx.dat -- sleep 1", "fx.dat", every=("from a task sleep*", r"^sleep"))),
    "ipitrace record --from-serve -d 10 -o window.txt": (LIVE, c_from_serve("ipitrace record --from-serve -d 2 -o window.txt")),
    "ipitrace report": (OFF, c_report(PP)),
    "ipitrace report --isolated 2-3 --by function now.dat": (OFF, c_fails("no such CPU")),
    "ipitrace report --by stack --top 3 -F 'target_cpu == 2' now.dat": (OFF, c_report(BS, T2)),
    "ipitrace report --format folded now.dat > ipis.folded": (OFF, c_folded(BS, lambda r: True, "ipis.folded")),
    "ipitrace report --html now.html now.dat": (OFF, c_html(BS, "now.html")),
    "trace-cmd report x.dat | ipitrace report -": (OFF, c_report(PP)),
    "ipitrace diff before.dat after.dat": (OFF, c_diff(by=("function", "callsite", "comm"))),
    "ipitrace diff --by function,comm --latency -i 2-3 before.dat after.dat": (OFF, c_diff(by=("function", "comm"))),
    "ipitrace diff -f json before.dat after.dat > diff.json": (OFF, c_diffjson),
    "ipitrace dump -e 'ipi:*' -n 20 now.dat": (OFF, c_dump_first(BS, 20)),
    "ipitrace dump -F 'cpumask & CPUS{2-3}' --raw now.dat": (OFF, c_dump_lines(BS, lambda *e: False)),
    "ipitrace dump --on-cpus 0 --no-header now.dat": (OFF, c_dump_lines(BS, lambda c, *e: c == 0)),
    "ipitrace count -j 2 now.dat": (OFF, c_count(BS)),
    "ipitrace convert now.dat -o rows.csv": (OFF, c_csv(BS, "rows.csv")),
    "ipitrace convert now.dat -o rows.parquet -F 'target_cpu == 2'": (OFF, c_parquet(BS, "rows.parquet", T2)),
    "ipitrace convert now.dat -o dataset --partition-by host,date": (OFF, c_partition(BS)),
    "ipitrace convert now.dat -o - --no-explode --no-match -f jsonl": (OFF, c_jsonl(BS, sends=True)),
    "ipitrace explode now.dat -o exploded.dat\ntrace-cmd report -F 'ipi_send_cpu: cpu == 5' exploded.dat": (OFF, c_explode(BS, "exploded.dat", True, 5)),
    "ipitrace top": (LIVE, c_top("timeout -s INT 3 ipitrace top; true")),
    "ipitrace top --once --watch 2-3 -f json": (LIVE, c_top("ipitrace top --once --watch 0-1 -f json", js=True)),
    "ipitrace top --backend tracefs -d 5 -c 0-3": (LIVE, c_top("timeout -s INT 3 ipitrace top --backend tracefs -d 1 -c 0-3; true")),
    "ipitrace serve --watch 2-3 --stacks": (LIVE, c_serve("ipitrace serve --watch 1 --stacks")),
    "ipitrace serve --listen 9465 --top 20": (LIVE, c_serve("ipitrace serve --listen 9465 --top 20", 9465)),
    "ipitrace serve --dump watched.txt": (LIVE, c_from_serve("ipitrace serve --dump window.txt")),
    "ipitrace report -F 'target_cpu == 5' now.dat": (OFF, c_report(BS, lambda r: r["target_cpu"] == 5)),
    "ipitrace convert now.dat -o - -F 'cpumask & CPUS{4-7} && callsite ~ \"ttwu*\"'": (OFF, c_csv(BS, None, NONE)),
    "ipitrace report -F 'kind == \"tlb\" && !(src_cpu & CPUS{0,1})' now.dat": (OFF, c_report(BS, NONE)),
    "ipitrace report -F 'func == \"sched_ttwu_pending\" && comm ~ \"fx-*\"' now.dat": (OFF, c_report(BS, lambda r: r["function"] == "sched_ttwu_pending" and r["comm"].startswith("fx-"))),
    "ipitrace convert now.dat -o slow.csv -F 'lat_ns > 100us && cpu & CPUS{2-3}'": (OFF, c_csv(BS, "slow.csv", NONE)),
    "ipitrace report -F 'stack ~ \"*flush_tlb*\"' now.dat": (OFF, c_report(BS, lambda r: st_has(r, "flush_tlb"))),
    "ipitrace dump -F 'CPU == 1 && callsite.function == \"ttwu_queue_wakelist\"' now.dat": (OFF, c_dump_lines(BS, lambda c, ts, n, f, comm: c == 1 and "callsite=ttwu_queue_wakelist+" in f)),
}
HELP = {
    # record's kernel filters: run as `record -F` in the live part
    "callback == 0": (LIVE, c_live("ipitrace record -d 1 -F 'callback == 0' -o cb.dat", "cb.dat", every=("with callback=0x0", r"callback=0x0\b"))),
    "common_pid != 0": (LIVE, c_live("ipitrace record -d 1 -F 'common_pid != 0' -o pid.dat", "pid.dat")),
    "zcat x.dat.gz | ipitrace report -": (OFF, c_zcat),
    "local": (OFF, c_clock),
    "cpu == 1": (OFF, c_filter(lambda c, ts, n, f, comm: re.search(r"\bcpu=1\b", f) is not None, events=True)),
    "cpumask & CPUS{4-7}": (OFF, c_filter(lambda *e: False, events=True)),
    "callsite ~ \"ttwu*\"": (OFF, c_filter(lambda c, ts, n, f, comm: re.search(r"callsite=ttwu", f) is not None, events=True)),
    "callsite.function == \"ttwu_queue_wakelist\"": (OFF, c_filter(lambda c, ts, n, f, comm: "callsite=ttwu_queue_wakelist+" in f, events=True)),
    "target_cpu == 3": (OFF, c_filter(lambda r: r["target_cpu"] == 3)),
    "cpumask & CPUS{4-7} && callsite ~ \"ttwu*\"": (OFF, c_filter(NONE)),
    "lat_ns > 100us": (OFF, c_filter(lambda r: (r["latency_ns"] or 0) > 100000)),
    "target_cpu == 5 || (kind == \"tlb\" && !(src_cpu & CPUS{0,1}))": (OFF, c_filter(NONE)),
    "func == \"sched_ttwu_pending\" && comm ~ \"fx-*\"": (OFF, c_filter(lambda r: r["function"] == "sched_ttwu_pending" and r["comm"].startswith("fx-"), trace=PP)),
    "lat_ns > 100us && cpu & CPUS{2-3}": (OFF, c_filter(NONE)),
    "stack ~ \"*flush_tlb*\" || unmatched_reason == \"lost_events\"": (OFF, c_filter(lambda r: st_has(r, "flush_tlb"))),
    "ts >= 1391.5s && ts < 1392s": (OFF, c_filter(lambda r: 1391500000000 <= r["ts_ns"] < 1392000000000)),
}


def main():
    found = readme_examples() + man_examples() + help_examples()
    reg = {}
    for src, table in (("README", REGISTRY), ("man", MAN), ("help", HELP)):
        for k, v in table.items():
            reg[(src, k)] = v
    seen = set()
    co, man = setup_dirs()
    live = os.path.join(WORK, "live")
    os.makedirs(live, exist_ok=True)
    os.symlink(os.path.join(TOP, BUILD), os.path.join(live, "build"))
    if PART == "offline":
        for src, ex in found:
            key = (src.split()[0], ex)
            if key in seen:
                continue
            seen.add(key)
            if key not in reg:
                F("docex-unregistered", "%s example with no check: %r" % (src, ex))
        for key in reg:
            if key not in seen:
                F("docex-stale", "registry entry whose example is gone: %r" % (key,))
        P("docex-registry", "%d examples extracted (README %d, man %d, help %d), each with a check"
          % (len(seen), sum(k[0] == "README" for k in seen), sum(k[0] == "man" for k in seen),
             sum(k[0] == "help" for k in seen)))
    n = 0
    for src, ex in found:
        key = (src.split()[0], ex)
        if key not in reg or key in [k for k in reg if k == key and reg[k] is None]:
            continue
        part, chk = reg[key]
        if part != PART or chk is None:
            continue
        n += 1
        name = "docex-%s-%d" % (key[0], n)
        cwd = {"README": co, "man": man, "help": co}[key[0]]
        if part == LIVE:
            cwd = live
        try:
            chk(name + " " + ex.split("\n")[0][:70], ex, cwd)
        except Exception as e:
            F(name, "%s: %s" % (ex.split("\n")[0][:70], str(e)[:300]))
    if PART == "live":
        serve_stop()


try:
    main()
finally:
    print("\n".join(out))
