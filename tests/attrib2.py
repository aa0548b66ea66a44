"""attrib2.py - the independent side of test_attrib2.sh (issue 16).

Reads what the test gathered itself (/proc/interrupts before and after,
`trace-cmd report` text and --stat, the recorder's thread ids from /proc)
and the ipitrace report's JSON / text, and prints one verdict per line:
"P name" (pass), "F name: why" (fail), "S name: why" (skip), else a line
of figures.  Usage: python3 attrib2.py MODE ARGS...  (see the modes below)
"""
import json
import re
import shlex
import sys
from datetime import datetime, timezone

LINE = re.compile(r'^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<ts>[\d.]+):\s+'
                  r'(?P<ev>\w+):\s*(?P<rest>.*)$')


def entries(path, cpu):
    """trace-cmd text: (ts_ns, vector, pid, handler_ns or None) per *_entry on cpu"""
    res, open_ = [], None
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m or int(m["cpu"]) != cpu:
                continue
            ev = m["ev"]
            a, b = m["ts"].split(".")
            ts = int(a) * 1000000000 + int(b.ljust(9, "0"))
            if ev.endswith("_entry") and ev[:-6] in ("reschedule", "call_function", "call_function_single",
                                                     "irq_work"):
                res.append([ts, ev[:-6], int(m["pid"]), None])
                open_ = (ev[:-6], len(res) - 1)
            elif ev.endswith("_exit") and open_ and open_[0] == ev[:-5]:
                res[open_[1]][3] = ts - res[open_[1]][0]
                open_ = None
    return res


def out(s):
    print(s)


def verdict(name, ok, why=""):
    out("P %s" % name if ok else "F %s: %s" % (name, why))


def events(path):
    """trace-cmd report text: (comm, pid, cpu, event, fields) per event"""
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                yield m["comm"], int(m["pid"]), int(m["cpu"]), m["ev"], m["rest"]


def cpulist(s):
    cpus = set()
    for part in s.split(","):
        if "-" in part:
            a, b = part.split("-")
            cpus.update(range(int(a), int(b) + 1))
        elif part:
            cpus.add(int(part))
    return cpus


def sends(path):
    """traced sends: (pid, src cpu, target cpu, fields) per target"""
    for comm, pid, cpu, ev, rest in events(path):
        if ev == "ipi_send_cpu":
            m = re.search(r'\bcpu=(\d+)', rest)
            yield pid, cpu, int(m[1]), rest
        elif ev == "ipi_send_cpumask":
            m = re.search(r'\bcpumask=([\d,-]+)', rest)
            for t in sorted(cpulist(m[1])):
                yield pid, cpu, t, rest


def proc_interrupts(path):
    """/proc/interrupts text: {row: [count per cpu]}"""
    with open(path) as f:
        lines = f.read().splitlines()
    ncpu = len(lines[0].split())
    rows = {}
    for line in lines[1:]:
        f = line.split()
        if not f or not f[0].endswith(":"):
            continue
        vals = f[1:1 + ncpu]
        if len(vals) == ncpu and all(v.isdigit() for v in vals):
            rows[f[0][:-1]] = [int(v) for v in vals]
    return rows


def lost_per_cpu(stat_path, text_path):
    """events lost per CPU, from trace-cmd's --stat (the kernel's stats stored
    in the file) and the [LOST N EVENTS] marks of its report text"""
    lost, cpu = {}, None
    with open(stat_path) as f:
        for line in f:
            m = re.match(r'CPU: (\d+)', line)
            if m:
                cpu = int(m[1])
                lost.setdefault(cpu, 0)
            m = re.match(r'(overrun|commit overrun|dropped events): (\d+)', line)
            if m and cpu is not None:
                lost[cpu] += int(m[2])
    with open(text_path, errors="replace") as f:
        for line in f:
            m = re.search(r'CPU:(\d+) \[LOST (\d+|\?+) EVENTS\]', line)
            if m:
                lost[int(m[1])] = lost.get(int(m[1]), 0) + (int(m[2]) if m[2].isdigit() else 1)
    return lost


RECV = {"reschedule_entry": "RES", "call_function_entry": "CAL",
        "call_function_single_entry": "CAL", "irq_work_entry": "IWI"}


def receipts(path):
    """{(row, cpu): interrupts traced} from the *_entry events"""
    n = {}
    for comm, pid, cpu, ev, rest in events(path):
        if ev in RECV:
            n[(RECV[ev], cpu)] = n.get((RECV[ev], cpu), 0) + 1
    return n


def kernel_rows(j):
    return {(k["row"], k["cpu"]): k for k in j["kernel_counters"]}


# ---- modes ----

def span_s(text):
    """seconds from the first to the last event of a trace-cmd text"""
    ts = [float(m["ts"]) for m in map(LINE.match, open(text, errors="replace")) if m]
    return max(ts) - min(ts) if ts else 0.0


def recon(before, after, jpath, text, stat, ncpu, bg1a, bg1b, bg2a, bg2b, wall):
    """1: the kernel counters stored against the test's own deltas and the
    interrupts in trace-cmd's text.  The difference is what arrived while
    the test read and the recorder did not: at most the machine's background
    rate (the test's own 0.3 s samples before and after) over the time
    record ran outside the events' span"""
    b, a = proc_interrupts(before), proc_interrupts(after)
    s1a, s1b, s2a, s2b = map(proc_interrupts, (bg1a, bg1b, bg2a, bg2b))
    outside = max(float(wall) - span_s(text), 0.0)
    out("  record ran %.3f s, its events span %.3f s: %.3f s outside" % (float(wall), span_s(text), outside))
    j = json.load(open(jpath))
    k = kernel_rows(j)
    ncpu = int(ncpu)
    if not k:
        verdict("recon-stored", False, "no kernel_counters in the report")
        return
    bad = []
    for row in ("RES", "CAL", "TLB", "IWI"):
        for c in range(ncpu):
            e = k.get((row, c))
            if row not in a or row not in b:
                continue
            delta = a[row][c] - b[row][c]
            if not e or e["kernel"] is None or e["setup"] is None or e["teardown"] is None:
                bad.append("%s cpu%d: missing in the report" % (row, c))
                continue
            s = e["kernel"] + e["setup"] + e["teardown"]
            rate = max(s1b[row][c] - s1a[row][c], s2b[row][c] - s2a[row][c]) / 0.3
            bound = 20 + delta // 50 + int(2 * rate * outside)
            out("  %s cpu%d: test's delta %d; report kernel %d + setup %d + teardown %d = %d;"
                " difference (outside the recorder's reads) %d (background %.0f/s: bound %d)"
                % (row, c, delta, e["kernel"], e["setup"], e["teardown"], s, delta - s, rate, bound))
            if row in ("RES", "CAL") and not (0 <= delta - s <= bound):
                bad.append("%s cpu%d: delta %d, kernel+setup+teardown %d, bound %d" % (row, c, delta, s, bound))
    verdict("recon-kernel-within-test-delta (RES, CAL: kernel+setup+teardown <= delta, the difference"
            " within 20 + 2% + twice the background rate outside the events' span)", not bad, "; ".join(bad))
    lost = lost_per_cpu(stat, text)
    out("  lost per CPU (trace-cmd --stat, LOST marks): %s" % lost)
    if any(lost.values()):
        out("S recon-kernel-equals-trace: events were lost (%s), the equality does not hold" % lost)
        return
    rc = receipts(text)
    for row in ("RES", "CAL", "IWI"):
        bad = []
        for c in range(ncpu):
            e = k.get((row, c))
            got = rc.get((row, c), 0)
            # the recorder reads /proc/interrupts just after tracing on and
            # just after tracing off: what lands in those gaps is traced but
            # not counted, or counted but not traced (2 in 10 runs on a busy
            # machine: 1 to 5); RES and CAL get that slack, IWI none
            slack = 0 if row == "IWI" else 5 + got // 500
            if e and e["kernel"] != got:
                out("  %s cpu%d: kernel %d, trace-cmd lines %d: %+d (slack %d)"
                    % (row, c, e["kernel"], got, e["kernel"] - got, slack))
            if not e or abs(e["kernel"] - got) > slack:
                bad.append("cpu%d kernel %s, trace-cmd %s lines %d"
                           % (c, e and e["kernel"], "irq_work_entry" if row == "IWI" else
                              "reschedule_entry" if row == "RES" else
                              "call_function(_single)_entry", got))
            elif e["kernel"] == got:
                out("  %s cpu%d: kernel %d = trace-cmd lines %d" % (row, c, e["kernel"], got))
        what = {"RES": "reschedule_entry", "CAL": "call_function_entry + call_function_single_entry",
                "IWI": "irq_work_entry"}[row]
        verdict("recon-kernel-equals-trace %s (= %s lines per CPU, no loss%s)"
                % (row, what, "" if row == "IWI" else ", +-5 + 0.2%"),
                not bad, "; ".join(bad))


def recv_minus_sends(text, cpu):
    """per vector on cpu: interrupts traced minus sends traced to it, as the
    kernel routes them on x86 (reschedule: callback 0; call_function_single:
    ipi_send_cpu with a callback; call_function: ipi_send_cpumask; irq_work:
    irq_work_queue's self-IPI)"""
    recv = {"reschedule": 0, "call_function_single": 0, "call_function": 0, "irq_work": 0}
    sent = dict.fromkeys(recv, 0)
    for comm, pid, c, ev, rest in events(text):
        if c == cpu and ev.endswith("_entry") and ev[:-6] in recv:
            recv[ev[:-6]] += 1
    for pid, src, tgt, rest in sends(text):
        if tgt != cpu:
            continue
        if "ipi_send_cpumask" in rest or "cpumask=" in rest:
            sent["call_function"] += 1
        elif re.search(r'callsite=irq_work_queue', rest):
            sent["irq_work"] += 1
        elif re.search(r'callback=(0x0|\(nil\)|0)\s*$', rest):
            sent["reschedule"] += 1
        else:
            sent["call_function_single"] += 1
    return recv, sent


def filtered(jpath, text, given, ijpath, textrep):
    """2: interrupts on CPU 0 left without a send by -F 'cpu != 0'; with
    --isolated 0 (ijpath) each is listed with its time, vector, task"""
    j = json.load(open(jpath))
    prov = j.get("provenance") or {}
    verdict("filter-provenance (filter = %r)" % given, prov.get("filter") == given,
            "provenance filter %r" % prov.get("filter"))
    to0 = [r for p, s, t, r in sends(text) if t == 0 and "cpumask" not in r]
    verdict("filter-hides-ipi_send_cpu-to-cpu0 (trace-cmd: %d ipi_send_cpu lines with cpu=0)" % len(to0),
            not to0, "first: %s" % (to0[:1],))
    mask0 = [(s, r) for p, s, t, r in sends(text) if "cpumask" in r]
    out("  ipi_send_cpumask lines kept: %d, from CPUs %s" % (len(mask0), sorted({s for s, r in mask0})))
    recv, sent = recv_minus_sends(text, 0)
    un = {u["vector"]: u for u in j["unsent"] if u["cpu"] == 0}
    total_ind = 0
    bad, notfiltered = [], []
    for v in recv:
        ind = recv[v] - sent[v]
        u = un.get(v)
        cnt = u["count"] if u else 0
        causes = {c: n for c, n in (u["by_cause"].items() if u else []) if n}
        out("  cpu0 %-21s trace-cmd: %d interrupts - %d sends = %d; report unsent %d %s"
            % (v, recv[v], sent[v], ind, cnt, causes))
        total_ind += max(ind, 0)
        if cnt != max(ind, 0):
            bad.append("%s: trace-cmd %d, report %d" % (v, ind, cnt))
        other = {c: n for c, n in causes.items() if c not in ("filtered", "before_trace_start")}
        if other or (u and causes.get("filtered", 0) < cnt - causes.get("before_trace_start", 0)):
            notfiltered.append("%s %s" % (v, causes))
    if total_ind == 0:
        verdict("filter-unsent-cpu0", False, "the workload left no interrupt on CPU 0 without a send")
        return
    verdict("filter-unsent-counts (cpu0 per vector: report unsent = trace-cmd interrupts - sends)",
            not bad, "; ".join(bad))
    verdict("filter-unsent-cause-filtered (cpu0: every one 'filtered', but a few before_trace_start)",
            not notfiltered, "; ".join(notfiltered))
    said, bad = {}, []
    for m in re.finditer(r'^ +cpu (\d+) +(\w+) +(\d+): (.*)$', open(textrep).read(), re.M):
        if m[1] != "0":
            continue
        causes = dict((c, int(n)) for c, n in re.findall(r'(\w+) (\d+)', m[4]))
        said[m[2]] = int(m[3])
        if set(causes) - {"filtered", "before_trace_start"} or sum(causes.values()) != int(m[3]):
            bad.append("%s: %s" % (m[2], m[4]))
    want = {v: recv[v] - sent[v] for v in recv if recv[v] > sent[v]}
    verdict("filter-text-unsent ('interrupts with no traced send': cpu 0 per vector = trace-cmd,"
            " causes filtered (before_trace_start))", said == want and not bad,
            "text %s, trace-cmd %s %s" % (said, want, bad))
    rest = [u for u in j["unsent"] if u["cpu"] != 0]
    out("  unsent on other CPUs: %s" % [(u["cpu"], u["vector"], u["count"]) for u in rest])
    iso = json.load(open(ijpath))["isolated"]
    lst = (iso or {}).get("unsent") or []
    # vectors no traced send reached CPU 0 for: every interrupt of theirs is unsent
    whole = {v for v in recv if sent[v] == 0}
    want = sorted((ts, v, pid, h) for ts, v, pid, h in entries(text, 0) if v in whole)
    got = sorted((e["ts_ns"], e["vector"], e["pid"], e["handler_ns"]) for e in lst if e["vector"] in whole)
    out("  --isolated 0: %d interrupts listed without a send (%d of the vectors no send reached);"
        " trace-cmd has %d of those vectors on CPU 0" % (len(lst), len(got), len(want)))
    diff = [x for x in want if x not in set(got)][:2] + [x for x in got if x not in set(want)][:2]
    verdict("filter-isolated-unsent (--isolated 0: time, vector, interrupted pid, handler time"
            " = trace-cmd's entry/exit lines on CPU 0)", want == got and len(lst) == total_ind,
            "listed %d, count %d, trace-cmd %d; differing: %s" % (len(lst), total_ind, len(want), diff))


def lossfree(jpath, text):
    """3: a loss-free recording: causes only before_trace_start / untraced_path"""
    j = json.load(open(jpath))
    bad = []
    for u in j["unsent"]:
        causes = {c: n for c, n in u["by_cause"].items() if n}
        out("  unsent cpu%d %s %d %s" % (u["cpu"], u["vector"], u["count"], causes))
        if set(causes) - {"before_trace_start", "untraced_path"}:
            bad.append("cpu%d %s %s" % (u["cpu"], u["vector"], causes))
    if not j["unsent"]:
        out("  no interrupt without a traced send")
    iw_s, iw_r = {}, {}
    for p, s, t, r in sends(text):
        if "callsite=irq_work_queue" in r:
            iw_s[t] = iw_s.get(t, 0) + 1
    for comm, pid, c, ev, rest in events(text):
        if ev == "irq_work_entry":
            iw_r[c] = iw_r.get(c, 0) + 1
    out("  irq_work self-IPIs: traced sends (ipi_send_cpu callsite irq_work_queue) per CPU %s,"
        " irq_work_entry per CPU %s" % (iw_s, iw_r))
    verdict("lossfree-unsent-causes (only before_trace_start / untraced_path)", not bad, "; ".join(bad))
    unexpl = []
    for k in j["kernel_counters"]:
        if k["within"] or k["traced"] is None or k["kernel"] is None:
            continue
        slack = 0 if k["row"] == "IWI" else 5 + k["traced"] // 500	# as in recon
        if k["kernel"] != k["traced"]:
            out("  report: cpu%d %s kernel %d, traced %d: unexplained %d"
                % (k["cpu"], k["row"], k["kernel"], k["traced"], k["kernel"] - k["traced"]))
        if abs(k["kernel"] - k["traced"]) > slack:
            unexpl.append("cpu%d %s kernel %d traced %d" % (k["cpu"], k["row"], k["kernel"], k["traced"]))
    verdict("lossfree-kernel-counters-explained (kernel = traced for every row with trace events;"
            " RES, CAL +-5 + 0.2%)",
            not unexpl, "; ".join(unexpl))


def recorder(jpath, text, tids, textrep, pidrep, withrep):
    """4: the recorder's own sends"""
    j = json.load(open(jpath))
    tids = {int(t) for t in tids.split()}
    per = {}
    for p, s, t, r in sends(text):
        if p in tids:
            per[t] = per.get(t, 0) + 1
    got = {r["target_cpu"]: r["ipis"] for r in j["recorder_ipis"]}
    out("  sends by the recorder's threads %s per target CPU (trace-cmd): %s; report recorder_ipis %s"
        % (sorted(tids), per, got))
    prov = (j.get("provenance") or {}).get("recorder_pids") or ""
    stored = {int(x) for x in prov.split(",") if x}
    verdict("recorder-pids (provenance recorder_pids = /proc/PID/task seen while recording)",
            stored == tids, "stored %s, seen %s" % (sorted(stored), sorted(tids)))
    if not per:
        out("S recorder-ipis: the recorder's threads sent no IPI (tries: see above)")
        return
    verdict("recorder-ipis (JSON recorder_ipis = sends by its tids per target, trace-cmd)", got == per,
            "report %s, trace-cmd %s" % (got, per))
    txt = open(textrep).read()
    said = {int(m[1]): int(m[2]) for m in
            re.finditer(r'cpu (\d+) +(\d+) +[\d.]+%  sent by the recorder itself', txt)}
    verdict("recorder-text-says-so ('sent by the recorder itself' per target = trace-cmd)", said == per,
            "text %s, trace-cmd %s" % (said, per))
    top = txt.split("Top senders per target CPU", 1)[-1].split("\n\n", 1)[0]
    named = [line for line in top.splitlines() if "recorder itself" not in line
             and any(re.search(r'\b%d\b' % t, line) for t in tids)]
    ptop = open(pidrep).read().split("Top senders per target CPU", 1)[-1].split("\n\n", 1)[0]
    pnamed = [line for line in ptop.splitlines() if any(line.rstrip().endswith("-%d" % t) for t in tids)]
    verdict("recorder-not-among-senders (by comm and by pid, -t 0)", not named and not pnamed,
            "listed: %s" % (named + pnamed)[:3])
    wtop = open(withrep).read().split("Top senders per target CPU", 1)[-1].split("\n\n", 1)[0]
    wnamed = {}
    for line in wtop.splitlines():
        m = re.match(r'\s*cpu (\d+) +(\d+) .*-(\d+)\s*$', line)
        if m and int(m[3]) in tids:
            wnamed[int(m[1])] = wnamed.get(int(m[1]), 0) + int(m[2])
    verdict("recorder-with-recorder (--with-recorder -g pid lists them: per target = trace-cmd)",
            wnamed == per, "listed %s, trace-cmd %s" % (wnamed, per))


def provenance(jpath, argv_file, t0, command, tag=""):
    """5: command line, start time, command (names suffixed with tag)"""
    j = json.load(open(jpath))
    p = j.get("provenance") or {}
    argv = open(argv_file).read().split("\0")[:-1]
    cl = p.get("command_line") or ""
    try:
        words = shlex.split(cl)
    except ValueError as e:
        words = ["(unparsable: %s)" % e]
    ok = len(words) > 0 and words[0].rsplit("/", 1)[-1] == argv[0].rsplit("/", 1)[-1] and words[1:] == argv[1:]
    verdict("provenance-command-line%s (" % tag + "shell words = the argv run, program path aside)", ok,
            "stored %r, ran %r" % (cl, argv))
    st = p.get("start_utc")
    try:
        s = datetime.strptime(st, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp()
        d = s - float(t0)
    except (TypeError, ValueError):
        d = None
    out("  start_utc %s, the test's date -u before running %s: %s s apart"
        % (st, datetime.fromtimestamp(float(t0), timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), d))
    verdict("provenance-start-utc%s (" % tag + "within 3 s after the test's date -u)", d is not None and -1 <= d <= 3,
            "start_utc %r, test %s" % (st, t0))
    verdict("provenance-command%s (= the -- CMD given)" % tag, p.get("command") == command,
            "stored %r, given %r" % (p.get("command"), command))


if __name__ == "__main__":
    globals()[sys.argv[1]](*sys.argv[2:])
