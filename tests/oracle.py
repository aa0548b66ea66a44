#!/usr/bin/python3
# oracle.py - a second, independent implementation of ipitrace's counting and
# matching, from trace-cmd's text only (no ipitrace code or library).
#
#   oracle.py [OPTS] FILE.dat     runs `trace-cmd report -t FILE` and
#                                 `trace-cmd dump --options FILE` itself
#   oracle.py [OPTS] FILE         any other name: a text trace (the output of
#                                 `trace-cmd report`, or tracefs `trace`)
#   OPTS: --options DUMP.txt      `trace-cmd dump --options` of a text trace
#         --assume-synced-clock   latencies even on a per-CPU clock
#         --probes KPROBE_EVENTS  a trace recorded with kprobes standing for
#                                 the send events (kernels before 6.4): the
#                                 kernel's kprobe_events text of that
#                                 recording; each probe's role comes from the
#                                 function it is on (PROBE_ROLES below)
#         --rows OUT              one JSON line per IPI (when, where, kind,
#                                 function, vector, matched, latency)
#
# Prints JSON with the numbers of `ipitrace report --format json` that it
# recomputes: events, send_events, ipis, kinds, matrix, csd {queued,
# with_ipi, without_ipi}, matching {remote, remote_matched, unmatched{...},
# csd_set_aside}, cross_cpu_latency, and per_cpu [{cpu, ipis, sent, remote,
# matched, remote_matched, coalesced, handlers, handlers_unattributed,
# csd_runs, lost, lost_unknown, by_kind, latency, handler, csd_run,
# csd_queue_to_run}].  Standard library only.
#
# The rules: docs/matching.md, implemented in tests/match_rule.py (shared
# with tests/attrib_oracle.py): at an interrupt, the sends waiting for its
# class on its CPU that are not too late for it are served (the oldest
# raised it, the others coalesced), the newest of several is held for the
# next interrupt of the class, which decides (chains of such guesses); at
# the end, held sends stay, sends traced before the last interrupt of their
# class (not too late for it) coalesce into it, the rest are unmatched (no
# receive events of the vector in the trace / target lost events / sent at
# or after the target's last event / no handler).  A drop mark on a CPU
# sets the sends waiting there aside (lost_events), keeps its held sends
# with their interrupts, closes its open handlers, forgets its last
# interrupts and the csd calls queued for it.  Interrupts with no send get
# their cause at the end (lost_events / before_trace_start / untraced_path
# / unknown past 256 M of them), from the loss windows and the largest
# latency matched.
#
# Definitions taken from ipitrace's documentation and output where the rules
# above leave them open (each checked against its JSON):
#   - sent: IPIs sent by a CPU, one per target (the row of the matrix);
#   - handler: one time (exit - entry) per interrupt that served a send
#     (as decided during the trace: a send coalesced into the last
#     interrupt at the end does not make it one);
#   - latency: entry - send for every matched send (coalesced too), on any
#     clock for a send to its own CPU, across CPUs only on a cross-CPU
#     clock (or --assume-synced-clock); quantiles are nearest-rank;
#   - the function of a function-call send (callback not NULL): the last
#     csd_queue_cpu from its CPU for its target; a drop mark on the sending
#     CPU forgets it (as ipitrace does since; synth-senderdrop checks it);
#   - a drop mark takes effect at the next event of its CPU (the events
#     were lost before it), in time order;
#   - lost: overrun + commit overrun + dropped events of the file's per-CPU
#     stats, else the marks (unknown for "[EVENTS DROPPED]" without a
#     count); with neither, unknown (tracefs text: known if its header says
#     entries-in-buffer = entries-written);
#   - at most 1024 sends wait on one CPU for one vector: the oldest beyond
#     are given up on (no_handler); a target with no event at all in the
#     trace counts as no_receive_events;
#   - a tracefs text whose header says entries-written > entries-in-buffer
#     lost events before each CPU's first record (a drop mark there);
#   - text with microsecond stamps: consecutive lines with the same whole
#     microsecond get +1, +2, ... ns, keeping the file's order.
import fnmatch
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import match_rule  # noqa: E402  (tests/match_rule.py: the rule of docs/matching.md)

KINDS = ["resched", "wakeup", "call", "tlb", "irq_work", "membarrier", "timer", "stop", "other"]
QUEUE_MAX = match_rule.QUEUE_MAX	# sends waiting on one CPU for one vector
CROSS_CPU_CLOCKS = {"global", "mono", "mono_raw", "boot", "tai", "counter", "x86-tsc"}

# x86 receive events -> vector class
X86_RECV = {
    "reschedule": "resched",
    "call_function": "call",
    "call_function_single": "call_single",
    "irq_work": "irq_work",
}

# the kind rules, in order: the first that matches wins
FUNC_RULES = [
    ("sched_ttwu_pending", "wakeup"),
    ("flush_tlb_func*", "tlb"),
    ("*tlb*", "tlb"),
    ("ipi_mb", "membarrier"),
    ("ipi_sync_core", "membarrier"),
    ("ipi_rseq", "membarrier"),
    ("ipi_sync_rq_state", "membarrier"),
    ("stop_this_cpu", "stop"),
    ("*tick_broadcast*", "timer"),
]
CALLSITE_RULES = [
    ("*irq_work*", "irq_work"),
    ("*tick_broadcast*", "timer"),
    ("*broadcast_timer*", "timer"),
    ("*send_stop*", "stop"),
    ("*stop_other_cpus*", "stop"),
    ("*membarrier*", "membarrier"),
    ("*flush_tlb*", "tlb"),
]
REASON_RULES = [
    ("Rescheduling*", "resched"),
    ("*unction call*", "call"),
    ("IRQ work*", "irq_work"),
    ("Timer broadcast*", "timer"),
    ("CPU stop*", "stop"),
    ("*", "other"),
]

# kprobes on the send paths (ipitrace record on kernels without the send
# events), by the kernel function they sit on: a send hook (targets from
# cpu= or cpumask=, a 64-bit word list) or a caller giving the call site and
# function to the next function-call send hook on its CPU: a queued call for
# one CPU (flags 0x30 in the csd type bits: a task wakeup, which runs
# sched_ttwu_pending) or a call for a mask.
PROBE_ROLES = {
    "native_smp_send_reschedule": "resched", "smp_send_reschedule": "resched",
    "native_send_call_func_single_ipi": "call_single",
    "arch_send_call_function_single_ipi": "call_single",
    "native_send_call_func_ipi": "call_mask", "arch_send_call_function_ipi_mask": "call_mask",
    "__smp_call_single_queue": "queue", "generic_exec_single": "queue",
    "smp_call_function_many_cond": "many",
}


def probe_mask(s):
    """CPUs of a kprobe mask: 0x... (one u64) or {0x..,0x..} (word 0 first)"""
    words = [int(w, 16) for w in s.strip("{}").split(",")]
    return [i * 64 + b for i, w in enumerate(words) for b in range(64) if w >> b & 1]


LINE = re.compile(r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?:[^\s]+\s+)??"
                  r"(?P<sec>\d+)(?:\.(?P<frac>\d+))?:\s+(?P<ev>[\w:.-]+?):\s?(?P<rest>.*)$")
# trace-cmd's drop marks: "CPU:N [LOST K EVENTS]", "CPU:N [K EVENTS DROPPED]",
# "CPU:N [EVENTS DROPPED]" (count unknown)
DROP = re.compile(r"^\s*CPU:\s*(\d+)\s+\[(?:LOST (\d+) EVENTS|(\d+) EVENTS DROPPED|EVENTS DROPPED)\]")
FIELD = re.compile(r"(\w+)=(\([^)]*\)|\S+)")


def sym(s):
    """a symbol without its +0xOFF, None for a NULL pointer"""
    if s is None:
        return None
    s = s.rstrip(",")
    if s in ("0x0", "0", "(nil)", "0x0000000000000000"):
        return None
    return s.split("+", 1)[0]


def csd_ptr(v):
    """a csd pointer as a number, None if NULL or absent"""
    if not v:
        return None
    v = v.rstrip(",")
    try:
        n = int(v, 16)
    except ValueError:
        return None
    return n or None


def cpulist(s):
    """CPUs of a cpumask field: a list (0-3,8) or hex words (00000000,0000000f)"""
    s = s.strip().rstrip(",")
    if s.startswith("0x"):
        s = s[2:]
        words = [s]
    else:
        words = s.split(",")
    hexwords = "-" not in s and all(re.fullmatch(r"[0-9a-fA-F]{8}", w) for w in words)
    if s.startswith(("0x",)) or hexwords:
        v = int("".join(words), 16)
        return [i for i in range(v.bit_length()) if v >> i & 1]
    out = []
    for part in words:
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


def glob_first(rules, s):
    if s is None:
        return None
    for g, k in rules:
        if fnmatch.fnmatchcase(s, g):
            return k
    return None


def classify(reason, func, callback, callsite):
    if reason is not None:
        return glob_first(REASON_RULES, reason) or "other"
    k = glob_first(FUNC_RULES, func if func is not None else callback)
    if k:
        return k
    k = glob_first(CALLSITE_RULES, callsite)
    if k:
        return k
    if callback is None and func is None:
        return "resched"
    return "call"


def quant(vals):
    """nearest rank on the sorted exact values: p = v[ceil(q n) - 1]"""
    if not vals:
        return None
    v = sorted(vals)
    n = len(v)

    def rank(num, den):		# ceil(num/den * n), 1-based, integer arithmetic
        r = -(-num * n // den)
        return v[max(1, min(n, r)) - 1]
    return {"count": n, "p50_ns": rank(50, 100), "p99_ns": rank(99, 100),
            "max_ns": v[-1], "min_ns": v[0]}


def parse_options(text):
    """(clock, {cpu: lost}) from `trace-cmd dump --options`"""
    clock = None
    lost = {}
    m = re.search(r"^\s*\"([\w-]*)\" \[clock\]", text, re.M)
    if m:
        clock = m.group(1)
    if clock is None:
        m = re.search(r"\[Option TRACECLOCK[^\n]*\n[^\n]*\[([\w-]+)\]", text)
        if m:
            clock = m.group(1)
    for blk in re.finditer(r"\[Option CPUSTAT[^\n]*\n(.*?)(?=\n\s*\[Option|\Z)", text, re.S):
        b = blk.group(1)
        cm = re.search(r"^CPU:\s*(\d+)", b, re.M)
        if not cm:
            continue
        tot = 0
        for key in ("overrun", "commit overrun", "dropped events"):
            km = re.search(rf"^{key}:\s*(\d+)", b, re.M)
            if km:
                tot += int(km.group(1))
        lost[int(cm.group(1))] = tot
    return clock, lost


def main():
    args = sys.argv[1:]
    rows_file = opts_file = None
    synced = False
    probes = {}			# event name -> role (--probes)
    while len(args) > 1 and args[0].startswith("--"):
        if args[0] == "--rows":
            rows_file = args[1]
            args = args[2:]
        elif args[0] == "--options":
            opts_file = args[1]
            args = args[2:]
        elif args[0] == "--assume-synced-clock":
            synced = True
            args = args[1:]
        elif args[0] == "--probes":
            for l in open(args[1]):
                pm = re.match(r"^[pr]:[\w]+/(\w+)\s+(\S+)", l)
                if pm and pm.group(2) in PROBE_ROLES:
                    probes[pm.group(1)] = PROBE_ROLES[pm.group(2)]
            args = args[2:]
        else:
            sys.exit(f"oracle.py: unknown option {args[0]}")
    if len(args) != 1:
        sys.exit("usage: oracle.py [--rows OUT] [--options DUMP] [--assume-synced-clock] FILE")
    f = args[0]
    is_text = not f.endswith(".dat")
    prev_line_ts, same_ts = None, 0
    if is_text:
        text = open(f, errors="replace").read().splitlines()
        opts = open(opts_file).read() if opts_file else ""
    else:
        text = subprocess.run(["trace-cmd", "report", "-t", f], capture_output=True,
                              text=True, errors="replace", check=True).stdout.splitlines()
        opts = subprocess.run(["trace-cmd", "dump", "--options", f], capture_output=True,
                              text=True, errors="replace").stdout
    clock, stat_lost = parse_options(opts)
    cross = clock in CROSS_CPU_CLOCKS
    synced = synced or cross		# latencies are computed

    ncpus = 0
    for l in text[:20]:
        m = re.match(r"^cpus=(\d+)", l) or re.search(r"#P:(\d+)", l)
        if m:
            ncpus = int(m.group(1))
    # a tracefs text's header: entries-in-buffer/entries-written A/B; B > A:
    # the oldest B - A were overwritten
    tracefs_complete = None
    header_loss = False
    for l in text[:20]:
        hm = re.search(r"entries-in-buffer/entries-written: (\d+)/(\d+)", l)
        if hm:
            tracefs_complete = int(hm.group(2)) <= int(hm.group(1))
            header_loss = is_text and not tracefs_complete

    # --- per-CPU counters
    ipis = defaultdict(int)
    sent = defaultdict(int)
    remote = defaultdict(int)
    handlers = defaultdict(int)
    first_ts = {}		# first event of each CPU
    lost_first = set()		# CPUs whose first event follows lost events
    csd_runs = defaultdict(int)
    by_kind = defaultdict(lambda: defaultdict(int))
    csd_run_t = defaultdict(list)
    csd_q2r = defaultdict(list)
    marks_lost = defaultdict(int)
    marked = set()		# CPUs with a drop mark
    marks_unknown = set()	# CPUs with a drop mark of unknown size
    drop_pending = set()	# CPUs whose drop mark waits for their next event
    last_ts = {}		# last event of each CPU
    matrix = defaultdict(int)
    kinds = defaultdict(int)
    unmatched = defaultdict(int)
    events = send_events = 0
    csd_queued = csd_with_ipi = 0
    csd_set_aside = 0
    rows = []			# one per IPI, for --rows

    # --- matching state: tests/match_rule.py
    M = match_rule.Matcher(synced)
    have_recv = set()		# classes with a receive event anywhere in the trace
    # the function a function-call send runs: the csd_queue_cpu traced just
    # before it in the sender's program order, i.e. the last one on that CPU
    # for that target (events in between come from interrupts); forgotten
    # when the sending CPU lost events (the right one may be among them)
    csd_func = {}		# (sending cpu, target) -> func
    caller = {}			# probes: sending cpu -> [callsite, func, target or -1]
    csd_pending = {}		# (target, csd) -> queue ts
    csd_stale = set()		# (target, csd) queued before a drop on the target
    csd_open = {}		# (cpu, csd) -> entry ts, for a counted csd run

    def drop(cpu, prev, ts):
        nonlocal csd_set_aside
        M.drop(cpu, prev, ts)
        for key in [k for k in csd_open if k[0] == cpu]:
            del csd_open[key]
        for key in [k for k in csd_pending if k[0] == cpu]:
            del csd_pending[key]
            csd_stale.add(key)
        for key in [k for k in csd_func if k[0] == cpu]:
            del csd_func[key]
        caller.pop(cpu, None)

    def entry(cpu, cls, ts):
        have_recv.add(cls)
        if cls in match_rule.CALLS:
            have_recv.add("call_any")	# either function-call vector serves those
        handlers[cpu] += 1
        M.entry(cpu, cls, ts)

    def exit_(cpu, cls, ts):
        M.exit(cpu, cls, ts)

    def send(src, ts, targets, ev, callback, callsite, reason=None, joined=None):
        nonlocal send_events, csd_with_ipi
        send_events += 1
        for t in targets:
            # only a function-call send (one with a callback) takes the
            # queued function: a reschedule IPI (callback NULL) has no csd
            func = None
            if joined is not None:
                func = joined
            elif callback is not None and (src, t) in csd_func:
                func = csd_func.pop((src, t))
                csd_with_ipi += 1
            k = classify(reason, func, callback, callsite)
            ipis[t] += 1
            sent[src] += 1		# IPIs sent (one per target), the matrix row
            by_kind[t][k] += 1
            kinds[k] += 1
            matrix[(src, t)] += 1
            if t != src:
                remote[t] += 1
            if reason is not None:
                cls = "arm:" + reason
            elif k == "irq_work" and src == t:
                cls = "irq_work"
            elif callback is None:
                cls = "resched"
            elif ev == "ipi_send_cpumask":
                # a mask send is the call-function vector's (since 6.5 its
                # callback names the single-call handler, which it shares)
                cls = "call"
            elif callback == "generic_smp_call_function_interrupt":
                cls = "call"
            elif callback == "generic_smp_call_function_single_interrupt":
                cls = "call_single"
            else:
                # the callback is the function itself (6.4, or an exploded
                # mask send): either function-call vector serves it
                cls = "call_any"
            row = {"ts_ns": ts, "src_cpu": src, "target_cpu": t, "kind": k,
                   "function": func, "callback": callback, "callsite": callsite,
                   "class": cls, "matched": False}
            rows.append(row)
            # at most QUEUE_MAX sends wait on one CPU for one vector: the
            # oldest beyond are given up on (no_handler)
            M.send(t, cls, ts, src, row)

    for l in text:
        m = LINE.match(l)
        if not m:
            d = DROP.match(l)
            if d:
                # the events were lost before the next event of that CPU
                # (trace-cmd prints the mark just before it): the drop
                # takes effect there, in time order
                cpu = int(d.group(1))
                if d.group(2) or d.group(3):
                    marks_lost[cpu] += int(d.group(2) or d.group(3))
                else:
                    marks_unknown.add(cpu)
                marked.add(cpu)
                drop_pending.add(cpu)
            continue
        events += 1
        cpu = int(m.group("cpu"))
        frac = m.group("frac") or ""
        # sec.nsec (report -t); a raw counter has no fraction
        ts = int(m.group("sec")) * 10 ** 9 + int((frac + "0" * 9)[:9]) if frac else int(m.group("sec"))
        if is_text:
            # a text trace keeps microseconds: lines with the same whole
            # microsecond keep the file's order, the n-th after the first
            # one n ns later (as ipitrace reads text, lib/input/text.c)
            if ts == prev_line_ts and ts % 1000 == 0 and events > 1:
                same_ts = min(same_ts + 1, 999)
                ts += same_ts
            else:
                prev_line_ts, same_ts = ts, 0
        prev = last_ts.get(cpu, 0)	# the loss window: from its event before (0: none)
        last_ts[cpu] = ts
        if cpu not in first_ts:
            first_ts[cpu] = ts
            if header_loss:
                # the oldest events were overwritten, on CPUs the header
                # does not say: each CPU's first event may follow a loss
                marked.add(cpu)
                drop_pending.add(cpu)
            if cpu in drop_pending:
                lost_first.add(cpu)
        if cpu in drop_pending:
            drop_pending.discard(cpu)
            drop(cpu, prev, ts)
        ev = m.group("ev")
        rest = m.group("rest").strip()
        f = dict(FIELD.findall(rest))
        role = probes.get(ev)
        if role == "resched":
            send(cpu, ts, [int(f["cpu"])], "ipi_send_cpu", None, sym(f.get("callsite")))
        elif role in ("call_single", "call_mask"):
            targets = [int(f["cpu"])] if role == "call_single" else probe_mask(f["cpumask"])
            site, func = sym(f.get("callsite")), None
            c = caller.get(cpu)
            if c and (c[2] < 0 or (role == "call_single" and c[2] == targets[0])):
                site, func = c[0], c[1]
                if c[2] >= 0:		# a queued call rides one IPI
                    csd_with_ipi += 1
                    del caller[cpu]
            send(cpu, ts, targets, "ipi_send_cpu" if role == "call_single" else "ipi_send_cpumask",
                 "generic_smp_call_function_single_interrupt", site, joined=func)
        elif role in ("queue", "many"):
            if role == "queue":
                func = "sched_ttwu_pending" if int(f["flags"]) & 0xf0 == 0x30 else sym(f.get("func"))
                c = caller.get(cpu)
                # generic_exec_single and the __smp_call_single_queue it
                # calls for the same call: counted once, the outer call site
                if not (c and c[2] == int(f["cpu"]) and c[1] == func):
                    csd_queued += 1
                    caller[cpu] = [sym(f.get("callsite")), func, int(f["cpu"])]
            else:
                caller[cpu] = [sym(f.get("callsite")), sym(f.get("func")), -1]
        elif ev == "ipi_send_cpu":
            send(cpu, ts, [int(f["cpu"])], ev, sym(f.get("callback")), sym(f.get("callsite")))
        elif ev == "ipi_send_cpumask":
            send(cpu, ts, cpulist(f["cpumask"]), ev, sym(f.get("callback")),
                 sym(f.get("callsite")))
        elif ev == "ipi_raise":
            rm = re.match(r"target_mask=(\S+)\s+\((.*)\)\s*$", rest)
            if rm:
                send(cpu, ts, cpulist(rm.group(1)), ev, None, None, rm.group(2))
        elif ev == "ipi_entry" or ev == "ipi_exit":
            rm = re.match(r"\((.*)\)\s*$", rest)
            cls = "arm:" + (rm.group(1) if rm else rest)
            if ev == "ipi_entry":
                entry(cpu, cls, ts)
            else:
                exit_(cpu, cls, ts)
        elif ev.endswith("_entry") and ev[:-6] in X86_RECV:
            entry(cpu, X86_RECV[ev[:-6]], ts)
        elif ev.endswith("_exit") and ev[:-5] in X86_RECV:
            exit_(cpu, X86_RECV[ev[:-5]], ts)
        elif ev == "csd_queue_cpu":
            csd_queued += 1
            t = int(f["cpu"])
            csd_func[(cpu, t)] = sym(f.get("func"))
            c = csd_ptr(f.get("csd"))
            if c is not None:		# a NULL csd pairs with nothing
                csd_pending[(t, c)] = (ts, cpu)
                csd_stale.discard((t, c))
        elif ev == "csd_function_entry":
            c = csd_ptr(f.get("csd"))
            q = csd_pending.pop((cpu, c), None)
            if (cpu, c) in csd_stale:	# queued before a drop here: not paired
                csd_stale.discard((cpu, c))
                csd_set_aside += 1
            if q is not None:
                csd_runs[cpu] += 1
                if synced or q[1] == cpu:
                    csd_q2r[cpu].append(ts - q[0])
                csd_open[(cpu, c)] = ts
        elif ev == "csd_function_exit":
            c = csd_ptr(f.get("csd"))
            e = csd_open.pop((cpu, c), None)
            if e is not None:
                csd_run_t[cpu].append(ts - e)

    # --- end of trace
    lost_cpus = {c for c in set(stat_lost) | set(marks_lost) | marked
                 if stat_lost.get(c, marks_lost.get(c, 0)) or c in marked}
    M.end(lambda x: M.unmatched_reason(x, have_recv, last_ts, lost_cpus))
    # what each send and interrupt came to
    matched = defaultdict(int)
    remote_matched = defaultdict(int)
    coalesced = defaultdict(int)
    unattributed = defaultdict(int)
    lat = defaultdict(list)
    hnd = defaultdict(list)
    for s in M.sends:
        row, intr = s["obj"], s["intr"]
        if intr is None:
            unmatched[s["reason"]] += 1
            continue
        cpu, src, d = s["target"], s["src"], max(0, intr["ts"] - s["ts"])
        row["matched"] = True
        row["latency_ns"] = d
        matched[cpu] += 1
        if src != cpu:
            remote_matched[cpu] += 1
        if s["coalesced"]:
            coalesced[cpu] += 1
        if synced or src == cpu:	# same CPU: any clock compares
            lat[cpu].append(d)
    for intr in M.intrs:
        # handler time: one value per interrupt that served a send (an
        # unattributed interrupt is no IPI's handler)
        if not intr["served"]:
            unattributed[intr["cpu"]] += 1
        elif intr["exit"] is not None:
            hnd[intr["cpu"]].append(intr["exit"] - intr["ts"])

    cpus = range(max([ncpus] + [c + 1 for c in list(ipis) + list(sent) + list(last_ts)]))
    # lost events: the file's per-CPU stats where it has them, else the
    # drop marks (unknown for a mark without a count); with neither stats
    # nor marks, unknown (tracefs text: known if its header says every
    # entry written is in the buffer)
    has_marks = any(marks_lost.values()) or bool(marks_unknown)
    # the causes of the interrupts without a send (docs/matching.md)
    vector_names = {"resched": "reschedule", "call": "call_function",
                    "call_single": "call_function_single", "irq_work": "irq_work"}
    unsent_by = defaultdict(lambda: defaultdict(int))
    for intr, cause in M.causes(first_ts, lost_first):
        cls = intr["cls"]
        vec = vector_names.get(cls, cls[4:] if cls.startswith("arm:") else cls)
        unsent_by[(intr["cpu"], vec)][cause] += 1
    per_cpu = []
    for c in cpus:
        if c in stat_lost:
            lost, unknown = stat_lost[c], False
        elif has_marks:
            lost, unknown = marks_lost.get(c, 0), c in marks_unknown
        else:
            lost, unknown = 0, not tracefs_complete
        per_cpu.append({
            "cpu": c, "ipis": ipis[c], "sent": sent[c], "remote": remote[c],
            "matched": matched[c], "remote_matched": remote_matched[c],
            "coalesced": coalesced[c], "handlers": handlers[c],
            "handlers_unattributed": unattributed[c], "csd_runs": csd_runs[c],
            "lost": lost, "lost_unknown": unknown,
            "by_kind": {k: by_kind[c][k] for k in KINDS},
            "latency": quant(lat[c]),
            "handler": quant(hnd[c]),
            "csd_run": quant(csd_run_t[c]),
            "csd_queue_to_run": quant(csd_q2r[c]),
        })
    out = {
        "clock": clock, "cross_cpu_latency": synced, "cpus": len(cpus),
        "events": events, "send_events": send_events, "ipis": sum(ipis.values()),
        "kinds": {k: kinds[k] for k in KINDS},
        "csd": {"queued": csd_queued, "with_ipi": csd_with_ipi,
                "without_ipi": csd_queued - csd_with_ipi},
        "matrix": [{"src_cpu": s, "target_cpu": t, "count": n}
                   for (s, t), n in sorted(matrix.items())],
        "matching": {
            "remote": sum(remote.values()), "remote_matched": sum(remote_matched.values()),
            "unmatched": {k: unmatched[k] for k in
                          ("trace_ended", "no_receive_events", "lost_events", "no_handler")},
            "csd_set_aside": csd_set_aside,
        },
        "per_cpu": per_cpu,
        "unsent": [{"cpu": c, "vector": v, "count": sum(by.values()),
                    "by_cause": {k: by.get(k, 0) for k in
                                 ("before_trace_start", "lost_events", "filtered", "untraced_path",
                                  "unknown")}}
                   for (c, v), by in sorted(unsent_by.items())],
    }
    if rows_file:
        with open(rows_file, "w") as rf:
            for row in rows:
                rf.write(json.dumps(row) + "\n")
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
