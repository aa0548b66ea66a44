#!/usr/bin/python3
"""manycpus_check.py - the text report at many CPUs against a second count
made here from `trace-cmd report` text (no ipitrace code, output or library).

  manycpus_check.py TRACECMD.txt OPTIONS.txt NAME:ISOLATED:TOP:REPORT.txt...
  manycpus_check.py TRACECMD.txt OPTIONS.txt < SPECS   (one NAME:... a line)

TRACECMD.txt is `trace-cmd report FILE`, OPTIONS.txt `trace-cmd dump
--options FILE`; each NAME:ISOLATED:TOP:REPORT.txt is one `ipitrace report`
of the same FILE (ISOLATED: the --isolated list, empty for none; TOP: its
-t N, default 5).  The trace is read once for all the reports.  Prints one
"PASS NAME: CHECK: figures" or "FAIL NAME: CHECK: what differs" per check.

The count: one IPI per target CPU of each send event: ipi_send_cpu (cpu=N),
ipi_send_cpumask (cpumask=LIST) and arm64's ipi_raise (target_mask=HEX
words, the most significant first), and on kernels before 6.4 the send
kprobes of `ipitrace record` (resched and call_single: cpu=N; call_mask:
cpumask=, a 64-bit word or an array of them, word 0 first); the sending
CPU is the line's [NNN], the sender's comm and pid its task column.
trace-cmd 3.1's text shows a kprobe's array of more than one word as
{0x0,0x0}: with RAW_REPORT (environment) naming `trace-cmd report -R FILE`,
those masks are taken from its bytes (ARRAY[..], byte 0 first), the
call_mask lines of both in the same order.  Lost events per CPU: overrun +
commit overrun + dropped events of the CPU's CPUSTAT option, else (a CPU
without one) the trace's drop marks ("CPU:N [LOST K EVENTS]"), else unknown.

The checks, on the report cut before the listing of every IPI that reached
the isolated CPUs ("IPIs that reached isolated CPUs" / "IPI interrupts on
isolated CPUs", not bounded yet):
  bounds      every line <= 160 characters, at most 200 lines;
  total       "IPIs (one per target CPU) N";
  lost        the "lost events:" groups partition CPUs 0..ncpus-1 and each
              CPU's value is the one computed here (a list cut to
              "...,... (N CPUs)": its CPUs listed and its N);
  roles       the "CPU roles:" sets, each role's "IPIs to the ... CPUs LIST:
              N" (isolated, housekeeping; or all CPUs), and its "by comm:"
              rows: count, percentage of the role, pids, the largest ones
              shown (ties allowed), "(K more)";
  per-cpu     every row's CPU or range: each of its CPUs has the row's ipis
              (and "iso" exactly on isolated CPUs); beyond 16 CPUs with
              TOP > 0, at most TOP rows per role, none left out busier than
              one shown of its role (ties allowed), "(K more CPUs with
              IPIs)" = the CPUs with IPIs in no row; else (TOP 0, or at most
              16 CPUs) one row per CPU with IPIs, no ranges;
  senders     (when the per-CPU senders table is there) each "cpu N COUNT
              PCT% COMM" row and "(K more)";
  matrix      each cell: the IPIs from the row's sending group to the
              column's target group; the sending groups left out are those
              without IPIs, and say how many;
  by role     beyond 16 CPUs with isolated CPUs (TOP > 0), the roles x roles
              cells (rows: the sending CPU's role); else no such table;
  pairs       "the busiest pairs": counts, none left out busier, "(K more
              pairs)", "(isolated)" exactly on the pairs to isolated CPUs.

RECORDER_PIDS (environment, a comma list): the recorder's own pids, whose
sends the "by comm" rows leave out and count in the row "sent by the
recorder itself: left out".
"""
import os
import re
import sys
from collections import defaultdict

SEND = re.compile(r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+[\d.]+:\s+"
                  r"(?P<ev>ipi_send_cpu|ipi_send_cpumask|ipi_raise|resched|call_single|call_mask):\s+(?P<rest>.*)$")
MARK = re.compile(r"^\s*CPU:\s*(\d+)\s+\[(?:LOST (\d+) EVENTS|(\d+) EVENTS DROPPED|EVENTS DROPPED)\]")
WIDTH, LINES = 160, 200
# the pids of the recorder (ipitrace record) itself: the report leaves their
# sends out of its "by comm" rows, in a row of their own (the qemu harness
# reads them from the trace file's bytes, "recorder_pids=LIST")
RECORDER = frozenset(int(x) for x in os.environ.get("RECORDER_PIDS", "").split(",") if x.strip())
WIDE_ABOVE = 16		# beyond this many CPUs: roles, ranges and the busiest


def hex_ranges(s):
    """(first, last) runs of set bits of comma-separated hex words"""
    v = int(s.replace(",", "").replace("0x", ""), 16)
    bits = bin(v)[:1:-1]	# bit 0 first
    return [(m.start(), m.end() - 1) for m in re.finditer("1+", bits)]


def word_ranges(s):
    """(first, last) runs of a kprobe's mask: one 64-bit word (0x..), an
    array of them ({0x..,0x..}, word 0 first) or trace-cmd -R's bytes
    (ARRAY[fe,ff,...], byte 0 first)"""
    if s.startswith("ARRAY["):
        v = sum(int(b, 16) << (8 * i) for i, b in enumerate(s[6:-1].split(",")))
    else:
        v = sum(int(w, 16) << (64 * i) for i, w in enumerate(s.strip("{}").split(",")))
    bits = bin(v)[:1:-1] if v else ""
    return [(m.start(), m.end() - 1) for m in re.finditer("1+", bits)]


def raw_masks(path):
    """the call_mask masks of `trace-cmd report -R` text, in order"""
    out = []
    for line in open(path, errors="replace"):
        m = SEND.match(line)
        if m and m.group("ev") == "call_mask":
            out.append(re.search(r"\bcpumask=(ARRAY\[[^]]*\])", m.group("rest")).group(1).replace(" ", ""))
    return out


def list_ranges(s):
    """(first, last) of a CPU list "0-3,8"; hex words (all 8 digits) too"""
    s = s.strip().rstrip(",")
    words = s.split(",")
    if s.startswith("0x") or ("-" not in s and all(re.fullmatch(r"[0-9a-fA-F]{8}", w) for w in words)):
        return hex_ranges(s)
    out = []
    for w in words:
        if "-" in w:
            a, b = w.split("-")
            out.append((int(a), int(b)))
        elif w:
            out.append((int(w), int(w)))
    return out


def cpus_of(s):
    return {c for a, b in list_ranges(s) for c in range(a, b + 1)}


def short_list(s):
    """a report's CPU list, maybe cut ("0-2,5,... (N CPUs)"): (CPUs listed, N or None)"""
    m = re.fullmatch(r"(.*?),?\.\.\. \((\d+) CPUs\)", s)
    if m:
        return cpus_of(m.group(1)) if m.group(1) else set(), int(m.group(2))
    return cpus_of(s), None


def fmt_list(cpus):
    out, run = [], None
    for c in sorted(cpus):
        if run and c == run[1] + 1:
            run[1] = c
        else:
            run = [c, c]
            out.append(run)
    return ",".join(f"{a}-{b}" if b > a else f"{a}" for a, b in out)


class Trace:
    """the counts of one trace, from trace-cmd's text"""

    def __init__(self, report_txt, options_txt):
        self.ncpus = 0
        diffs = {}		# (src, comm, pid) -> difference array over targets
        marks = defaultdict(int)
        marks_unknown = set()
        n = 0
        raw = os.environ.get("RAW_REPORT")
        raw = raw_masks(raw) if raw else None
        nmask = 0
        with open(report_txt, errors="replace") as f:
            for line in f:
                if not n:
                    m = re.match(r"^cpus=(\d+)", line)
                    if m:
                        n = self.ncpus = int(m.group(1))
                    continue
                m = SEND.match(line)
                if not m:
                    d = MARK.match(line)
                    if d:
                        if d.group(2) or d.group(3):
                            marks[int(d.group(1))] += int(d.group(2) or d.group(3))
                        else:
                            marks_unknown.add(int(d.group(1)))
                    continue
                ev, rest = m.group("ev"), m.group("rest")
                if ev in ("ipi_send_cpu", "resched", "call_single"):
                    c = int(re.search(r"\bcpu=(\d+)", rest).group(1))
                    rr = [(c, c)]
                elif ev == "call_mask":
                    w = re.search(r"\bcpumask=(\{[^}]*\}|\S+)", rest).group(1)
                    if raw is not None:
                        w = raw[nmask]
                    elif w.startswith("{"):
                        sys.exit(f"{report_txt}: a call_mask array ({w}): RAW_REPORT needed")
                    nmask += 1
                    rr = word_ranges(w)
                elif ev == "ipi_send_cpumask":
                    rr = list_ranges(re.search(r"\bcpumask=(\S+)", rest).group(1))
                else:
                    rr = hex_ranges(re.search(r"\btarget_mask=(\S+)", rest).group(1))
                key = (int(m.group("cpu")), m.group("comm"), int(m.group("pid")))
                dd = diffs.get(key)
                if dd is None:
                    dd = diffs[key] = [0] * (n + 1)
                for a, b in rr:
                    dd[a] += 1
                    dd[b + 1] -= 1
        if raw is not None and nmask != len(raw):
            sys.exit(f"RAW_REPORT: {len(raw)} call_mask lines, the text {nmask}")
        # per key, IPIs per target CPU
        self.counts = {}
        for key, dd in diffs.items():
            run, out = 0, [0] * n
            for c in range(n):
                run += dd[c]
                out[c] = run
            self.counts[key] = out
        self.ipis = [0] * n
        self.pair = defaultdict(lambda: [0] * n)	# src -> per target
        for (src, _, _), v in self.counts.items():
            p = self.pair[src]
            for c in range(n):
                if v[c]:
                    self.ipis[c] += v[c]
                    p[c] += v[c]
        self.total = sum(self.ipis)
        # lost events per CPU, as text ("0", "42", "unknown")
        stat = {}
        opts = open(options_txt, errors="replace").read()
        for blk in re.finditer(r"\[Option CPUSTAT[^\n]*\n(.*?)(?=\n\s*\[Option|\Z)", opts, re.S):
            cm = re.search(r"^CPU:\s*(\d+)", blk.group(1), re.M)
            if cm:
                stat[int(cm.group(1))] = sum(int(x) for x in re.findall(
                    r"^(?:overrun|commit overrun|dropped events):\s*(\d+)", blk.group(1), re.M))
        has_marks = bool(marks) or bool(marks_unknown)
        self.lost = []
        for c in range(n):
            if c in stat:
                self.lost.append(str(stat[c]))
            elif has_marks:
                self.lost.append("unknown" if c in marks_unknown and not marks[c] else
                                 str(marks[c]) + ("+" if c in marks_unknown else ""))
            else:
                self.lost.append("unknown")

    def by_comm(self, cpus, skip=frozenset()):
        """comm -> (IPIs to the CPUs, set of pids), the pids of skip left out"""
        out = {}
        for (src, comm, pid), v in self.counts.items():
            if pid in skip:
                continue
            k = sum(v[c] for c in cpus)
            if k:
                e = out.setdefault(comm, [0, set()])
                e[0] += k
                e[1].add(pid)
        return out


class Checker:
    def __init__(self, name):
        self.name = name

    def result(self, check, bad, figures):
        if bad:
            bad = [b if len(b) <= 160 else b[:150] + "..." for b in bad]
            print(f"FAIL {self.name}: {check}: {'; '.join(bad[:4])}" + (f" (+{len(bad) - 4} more)" if len(bad) > 4 else ""))
        else:
            print(f"PASS {self.name}: {check}: {figures}")


def section(lines, start, stop=lambda l: l == ""):
    """the lines after the first one starting with start, up to stop"""
    for i, l in enumerate(lines):
        if l.startswith(start):
            out = []
            for m in lines[i + 1:]:
                if stop(m):
                    break
                out.append(m)
            return i, out
    return None, []


def check_comm_rows(bad, rows, more, oracle, total, where):
    """"by comm" rows [(count, pct, comm, npids)] and "(K more)" against oracle {comm: (n, pids)}"""
    for count, pct, comm, npids in rows:
        o = oracle.get(comm)
        if not o:
            bad.append(f"{where}: {comm} {count}, here none")
            continue
        if o[0] != count:
            bad.append(f"{where}: {comm} {count}, here {o[0]}")
        if total and abs(pct - 100.0 * o[0] / total) > 0.051:
            bad.append(f"{where}: {comm} {pct}%, here {100.0 * o[0] / total:.2f}%")
        if npids != len(o[1]):
            bad.append(f"{where}: {comm} {npids} pids, here {len(o[1])}")
    shown = {r[2] for r in rows}
    if rows:
        low = min(r[0] for r in rows)
        over = [f"{c} {v[0]}" for c, v in oracle.items() if c not in shown and v[0] > low]
        if over:
            bad.append(f"{where}: left out but more than the least shown ({low}): {', '.join(over[:3])}")
    if len(oracle) - len(shown) != more:
        bad.append(f"{where}: ({more} more), here {len(oracle) - len(shown)} more comms")


COMM_ROW = re.compile(r"^\s+(\d+)\s+([\d.]+)%\s+(.*) \((\d+) pids?\b.*\)$")


def check_report(tr, name, iso_arg, top, path):
    ck = Checker(name)
    n = tr.ncpus
    full = open(path, errors="replace").read().split("\n")
    lines = []
    for l in full:
        if l.startswith(("IPIs that reached isolated CPUs", "IPI interrupts on isolated CPUs")):
            break
        lines.append(l)
    while lines and lines[-1] == "":
        lines.pop()
    iso = cpus_of(iso_arg) if iso_arg else set()
    wide = n > WIDE_ABOVE
    wide_tables = wide and top > 0

    # 1. bounds
    widest = max((len(l) for l in lines), default=0)
    bad = []
    if widest > WIDTH:
        i = max(range(len(lines)), key=lambda i: len(lines[i]))
        bad.append(f"line {i + 1} is {widest} characters: {lines[i][:60]}...")
    if len(lines) > LINES:
        bad.append(f"{len(lines)} lines (> {LINES})")
    if not lines:
        bad.append("empty report")
    if top > 0:		# -t 0 is the old layout: everything, unbounded
        ck.result("bounds", bad, f"{len(lines)} lines (<= {LINES}), widest {widest} (<= {WIDTH})")

    # 2. total
    m = next((re.search(r"IPIs \(one per target CPU\) (\d+)", l) for l in lines
              if "IPIs (one per target CPU)" in l), None)
    got = int(m.group(1)) if m else None
    ck.result("total", [] if got == tr.total else [f"report {got}, here {tr.total}"], f"{tr.total} IPIs")

    # 3. lost events (wrapped lines: ",\n    " goes on)
    bad = []
    i = next((i for i, l in enumerate(lines) if l.startswith("  lost events:")), None)
    if i is None:
        bad.append("no lost events line")
    else:
        text = lines[i][len("  lost events:"):]
        while text.endswith(",") and i + 1 < len(lines):
            i += 1
            text += " " + lines[i].strip()
        parts = [p.strip() for p in re.split(r",\s+", text.strip())]
        seen = set()
        ncount = 0
        groups = []
        for p in parts:
            pm = re.fullmatch(r"(\S+|other values) on (.*?)( \(--format json gives each CPU\))?", p)
            if not pm:
                bad.append(f"cannot read {p!r}")
                continue
            cpus, cnt = short_list(pm.group(2))
            if seen & cpus:
                bad.append(f"{fmt_list(seen & cpus)} in two groups")
            seen |= cpus
            ncount += cnt if cnt is not None else len(cpus)
            groups.append((pm.group(1), cpus, cnt))
        named = {v for v, _, _ in groups if v != "other values"}
        for val, cpus, cnt in groups:
            if val == "other values":
                want = {c for c in range(n) if tr.lost[c] not in named}
            else:
                want = {c for c in range(n) if tr.lost[c] == val}
            if not cpus <= want:
                bad.append(f"{val} on {fmt_list(cpus - want)[:40]}: here " +
                           ", ".join(sorted({tr.lost[c] for c in cpus - want})))
            if cnt is None and cpus != want:
                bad.append(f"{val} on {fmt_list(cpus)[:40]}, here on {fmt_list(want)[:40]}")
            if cnt is not None and cnt != len(want):
                bad.append(f"{val}: {cnt} CPUs, here {len(want)}")
        if ncount != n or any(c >= n for c in seen):
            bad.append(f"the groups cover {ncount} CPUs, not 0-{n - 1}")
    ck.result("lost events", bad, f"{len(groups) if i is not None else 0} groups over CPUs 0-{n - 1}: " +
              ", ".join(f"{v} x{c if c is not None else len(s)}" for v, s, c in (groups if i is not None else [])))

    # 4. roles
    roles = []		# (title, CPUs)
    if iso:
        roles = [("isolated", iso), ("housekeeping", set(range(n)) - iso)]
    elif wide_tables:		# -t 0: the old layout, no roles
        roles = [("all", set(range(n)))]
    bad = []
    rl = next((l for l in lines if l.startswith("CPU roles:")), None)
    if iso:
        rm = rl and re.match(r"CPU roles: isolated (\S+) \((\d+) CPUs, [^)]*\), housekeeping (\S+) \((\d+) CPUs\)", rl)
        if not rm:
            bad.append(f"roles line {rl!r}")
        else:
            for lst, cnt, want in ((rm.group(1), rm.group(2), roles[0][1]), (rm.group(3), rm.group(4), roles[1][1])):
                cpus, cut = short_list(lst)
                if (cut is None and cpus != want) or not cpus <= want or int(cnt) != len(want):
                    bad.append(f"role {lst} ({cnt} CPUs), here {fmt_list(want)} ({len(want)})")
    figs = []
    for title, cpus in roles:
        head = "IPIs to all CPUs " if title == "all" else f"IPIs to the {title} CPUs "
        j = next((j for j, l in enumerate(lines) if l.startswith(head)), None)
        want = sum(tr.ipis[c] for c in cpus)
        oc = tr.by_comm(cpus, RECORDER)
        rec = sum(v[c] for (_, _, pid), v in tr.counts.items() if pid in RECORDER for c in cpus)
        if j is None:
            bad.append(f"no line {head}...")
            continue
        hm = re.match(re.escape(head) + r"(.*?): (\d+)", lines[j])
        lcpus, cut = short_list(hm.group(1))
        if (cut is None and lcpus != cpus) or not lcpus <= cpus or (cut is not None and cut != len(cpus)):
            bad.append(f"{title}: CPUs {hm.group(1)}, here {fmt_list(cpus)}")
        if int(hm.group(2)) != want:
            bad.append(f"{title}: {hm.group(2)} IPIs, here {want}")
        rows, more, k, rec_row = [], 0, j + 1, None
        while k < len(lines) and lines[k].startswith("  ") and not lines[k].startswith("  by comm:"):
            k += 1
        if k >= len(lines) or not lines[k].startswith("  by comm:"):
            if oc:
                bad.append(f"{title}: no by comm rows")
        else:
            k += 1
            while k < len(lines) and lines[k].startswith("    "):
                cm = COMM_ROW.match(lines[k])
                mm = re.match(r"^\s+\((\d+) more\)", lines[k])
                rm = re.match(r"^\s+(\d+)\s+[\d.]+%\s+sent by the recorder itself: left out", lines[k])
                if rm:
                    rec_row = int(rm.group(1))
                elif cm:
                    rows.append((int(cm.group(1)), float(cm.group(2)), cm.group(3), int(cm.group(4))))
                elif mm:
                    more = int(mm.group(1))
                k += 1
            check_comm_rows(bad, rows, more, oc, want, title)
            if (rec_row or 0) != rec:
                bad.append(f"{title}: the recorder's own {rec_row}, here {rec} (pids {fmt_list(RECORDER)[:40]})")
        figs.append(f"{title} {want}, {len(rows)} comms shown" + (f" +{more}" if more else ""))
    if not iso and not wide and rl:	# README: roles with isolated CPUs or beyond 16
        bad.append(f"a roles section at {n} CPUs without isolated CPUs: {rl}")
    if roles or rl:
        ck.result("roles", bad, "; ".join(figs) or "none")

    # 5. per-CPU table
    bad = []
    i, tab = section(lines, "IPIs received per target CPU")
    rows = []		# (first, last, iso tag, ipis)
    more = 0
    for l in tab:
        rm = re.match(r"^\s+(\d+)(?:-(\d+))?\s+(iso\s+)?(\d+)\s+[\d.]+\s", l)
        mm = re.match(r"^\s+\((\d+) more CPUs with IPIs", l)
        if rm:
            a = int(rm.group(1))
            rows.append((a, int(rm.group(2) or a), bool(rm.group(3)), int(rm.group(4))))
        elif mm:
            more = int(mm.group(1))
    shown = set()
    for a, b, tag, v in rows:
        for c in range(a, b + 1):
            if c in shown:
                bad.append(f"cpu {c} in two rows")
            shown.add(c)
            if tr.ipis[c] != v:
                bad.append(f"cpu {c} (row {a}-{b}): {v} IPIs, here {tr.ipis[c]}")
        if iso and wide and any((c in iso) != tag for c in range(a, b + 1)):
            bad.append(f"row {a}-{b}: iso tag {tag}, isolated here: {fmt_list(set(range(a, b + 1)) & iso) or 'none'}")
    with_ipis = {c for c in range(n) if tr.ipis[c]}
    if not rows:
        bad.append("no per-CPU rows")
    elif wide_tables:
        for title, cpus in (roles if iso else [("all", set(range(n)))]):
            rr = [r for r in rows if r[0] in cpus]
            if len(rr) > top:
                bad.append(f"{title}: {len(rr)} rows > -t {top}")
            if rr:
                low = min(r[3] for r in rr)
                over = [c for c in cpus - shown if tr.ipis[c] > low]
                if over:
                    c = max(over, key=lambda c: tr.ipis[c])
                    bad.append(f"{title}: cpu {c} left out with {tr.ipis[c]} IPIs > {low} shown")
        if more != len(with_ipis - shown):
            bad.append(f"({more} more CPUs with IPIs), here {len(with_ipis - shown)}")
    else:
        ranges = [f"{a}-{b}" for a, b, _, _ in rows if b > a]
        if ranges:
            bad.append(f"ranges in the every-CPU layout: {', '.join(ranges[:3])}")
        if with_ipis - shown:
            bad.append(f"CPUs with IPIs and no row: {fmt_list(with_ipis - shown)[:60]}")
        if more:
            bad.append(f"({more} more CPUs with IPIs) in the every-CPU layout")
    ck.result("per-cpu ipis", bad, f"{len(rows)} rows, {len(shown)} CPUs shown ({sum(tr.ipis[c] for c in shown)} IPIs)"
              + (f", {more} more with IPIs" if more else ", every CPU with IPIs its own row"))

    # 6. per-CPU senders (the every-CPU layout)
    i, tab = section(lines, "Top senders per target CPU, by command")
    crow = [l for l in tab if re.match(r"^  cpu \d+ ", l)]
    if crow:
        bad = []
        per = defaultdict(lambda: ([], [0]))
        for l in crow:
            cm = re.match(r"^  cpu (\d+)\s+(.*)$", l)
            c, r = int(cm.group(1)), "    " + cm.group(2)
            rm = COMM_ROW.match(r)
            mm = re.match(r"^\s+\((\d+) more\)", r)
            if rm:
                per[c][0].append((int(rm.group(1)), float(rm.group(2)), rm.group(3), int(rm.group(4))))
            elif mm:
                per[c][1][0] = int(mm.group(1))
        for c, (rr, mo) in sorted(per.items()):
            check_comm_rows(bad, rr, mo[0], tr.by_comm([c]), tr.ipis[c], f"cpu {c}")
        missing = with_ipis - set(per)
        if missing:
            bad.append(f"no senders for CPUs {fmt_list(missing)[:60]}")
        ck.result("per-cpu senders", bad, f"{len(crow)} rows over {len(per)} CPUs")

    # 7. the matrix (grouped or per CPU)
    bad = []
    i, tab = section(lines, "Sender x target matrix", lambda l: l.startswith("  by role") or
                     l.startswith("  the busiest pairs") or l == "")
    g = 1
    cols, mrows, left_out = None, {}, 0
    for l in tab:
        gm = re.match(r"^\s+\(groups of (\d+) CPUs", l)
        lm = re.match(r"^\s+\((\d+) sending CPU groups? with no IPI left out", l)
        if gm:
            g = int(gm.group(1))
        elif lm:
            left_out = int(lm.group(1))
        elif cols is None and re.fullmatch(r"[\s\d]+", l) and l.strip():
            cols = [int(x) for x in l.split()]
        elif cols is not None and re.fullmatch(r"[\s\d]+", l) and l.strip():
            v = [int(x) for x in l.split()]
            mrows[v[0]] = v[1:]
    if cols is None:
        bad.append("no matrix")
    else:
        ngroups = -(-n // g)
        sent = defaultdict(lambda: [0] * ngroups)	# sending group -> per target group
        for src, p in tr.pair.items():
            row = sent[src // g]
            for c in range(n):
                if p[c]:
                    row[c // g] += p[c]
        cells = 0
        for rg, vals in mrows.items():
            want = sent[rg] if rg in sent else [0] * ngroups
            for col, v in zip(cols, vals):
                cells += 1
                if want[col] != v:
                    bad.append(f"group {rg} -> group {col}: {v}, here {want[col]}")
            if len(vals) != len(cols):
                bad.append(f"row {rg}: {len(vals)} cells, {len(cols)} columns")
        if cols != list(range(ngroups)):
            bad.append(f"columns {cols[:3]}...{cols[-1:]}, here 0..{ngroups - 1}")
        nonzero = {rg for rg, v in sent.items() if any(v)}
        if nonzero - set(mrows):
            bad.append(f"sending groups with IPIs left out: {sorted(nonzero - set(mrows))[:5]}")
        if left_out != ngroups - len(mrows):
            bad.append(f"({left_out} left out), {ngroups - len(mrows)} groups not shown")
        if wide_tables and (set(mrows) - nonzero or len(cols) > 16):
            bad.append(f"{len(cols)} columns, empty rows {sorted(set(mrows) - nonzero)[:5]}")
        ck.result("matrix", bad, f"groups of {g}: {len(mrows)} rows x {len(cols)} columns, {cells} cells, "
                  f"{left_out} empty sending groups left out")

    # 8. roles x roles
    i, tab = section(lines, "  by role (rows: sending, columns: target)", lambda l: l.startswith("  the busiest") or l == "")
    if iso and wide_tables:
        bad = []
        names = tab[0].split() if tab else []
        role_of = {"isolated": iso, "housekeeping": set(range(n)) - iso}
        got = {}
        for l in tab[1:]:
            p = l.split()
            if len(p) == len(names) + 1:
                got[p[0]] = [int(x) for x in p[1:]]
        if set(names) != set(role_of) or set(got) != set(role_of):
            bad.append(f"roles x roles table: columns {names}, rows {sorted(got)}")
        else:
            for sr, vals in got.items():
                for tr_, v in zip(names, vals):
                    tg = role_of[tr_]
                    want = sum(sum(p[c] for c in tg) for s, p in tr.pair.items() if s in role_of[sr])
                    if want != v:
                        bad.append(f"{sr} -> {tr_}: {v}, here {want}")
        ck.result("roles x roles", bad, ", ".join(f"{s}->{t} {v}" for s, vals in got.items() for t, v in zip(names, vals)))
    elif i is not None:
        ck.result("roles x roles", ["a roles table without isolated CPUs, or in the every-CPU layout"], "")

    # 9. the busiest pairs
    i, tab = section(lines, "  the busiest pairs (sending CPU -> target CPU)")
    if wide_tables or i is not None:
        bad = []
        pairs, more = [], 0
        for l in tab:
            pm = re.match(r"^\s+(\d+)\s+cpu (\d+) -> cpu (\d+)( \(isolated\))?$", l)
            mm = re.match(r"^\s+\((\d+) more pairs", l)
            if pm:
                pairs.append((int(pm.group(1)), int(pm.group(2)), int(pm.group(3))))
                if bool(pm.group(4)) != (int(pm.group(3)) in iso):
                    bad.append(f"cpu {pm.group(2)} -> cpu {pm.group(3)}: '(isolated)' {'shown' if pm.group(4) else 'missing'}")
            elif mm:
                more = int(mm.group(1))
        allp = {(s, c): p[c] for s, p in tr.pair.items() for c in range(n) if p[c]}
        for v, s, c in pairs:
            if allp.get((s, c), 0) != v:
                bad.append(f"cpu {s} -> cpu {c}: {v}, here {allp.get((s, c), 0)}")
        if not pairs:
            bad.append("no busiest pairs")
        else:
            low = min(v for v, _, _ in pairs)
            sp = {(s, c) for _, s, c in pairs}
            over = [(v, k) for k, v in allp.items() if k not in sp and v > low]
            if over:
                v, k = max(over)
                bad.append(f"cpu {k[0]} -> cpu {k[1]} left out with {v} > {low} shown")
            if top and len(pairs) > top:
                bad.append(f"{len(pairs)} pairs > -t {top}")
            if more != len(allp) - len(pairs):
                bad.append(f"({more} more pairs), here {len(allp) - len(pairs)}")
        ck.result("busiest pairs", bad, f"{len(pairs)} shown ({', '.join(str(v) for v, _, _ in pairs[:5])}), "
                  f"{more} more of {len(allp)}")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tr = Trace(sys.argv[1], sys.argv[2])
    for spec in sys.argv[3:] or [l.rstrip("\n") for l in sys.stdin if l.strip()]:
        name, iso, top, path = spec.split(":", 3)
        check_report(tr, name, iso, int(top or 5), path)


if __name__ == "__main__":
    main()
