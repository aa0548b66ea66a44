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
# The rules (README, "Matching"): an IPI vector is pending at most once per
# CPU and the send is traced before the interrupt-controller write, so an
# interrupt serves the oldest waiting send of its vector on its CPU; sends
# traced at or before the previous interrupt of that vector cannot wait for
# a later one: the oldest of those is served, the rest coalesced into this
# interrupt.  At the end, sends traced at or before the last interrupt of
# their vector coalesce into it; the rest are unmatched (no receive events
# of the vector in the trace / target lost events / sent at or after the
# target's last event / no handler).  A drop mark on a CPU sets the sends
# waiting there aside (lost_events), forgets its previous-interrupt times,
# closes its open handlers and forgets the csd calls queued for it.
#
# Definitions taken from ipitrace's documentation and output where the rules
# above leave them open (each checked against its JSON):
#   - sent: IPIs sent by a CPU, one per target (the row of the matrix);
#   - handler: one time (exit - entry) per interrupt that served a send;
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
#   - text with microsecond stamps: consecutive lines with the same whole
#     microsecond get +1, +2, ... ns, keeping the file's order.
import fnmatch
import json
import re
import subprocess
import sys
from collections import defaultdict

KINDS = ["resched", "wakeup", "call", "tlb", "irq_work", "membarrier", "timer", "stop", "other"]
QUEUE_MAX = 1024	# sends waiting on one CPU for one vector (as lib/ipi/report.c)
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

    # --- per-CPU counters
    ipis = defaultdict(int)
    sent = defaultdict(int)
    remote = defaultdict(int)
    matched = defaultdict(int)
    remote_matched = defaultdict(int)
    coalesced = defaultdict(int)
    handlers = defaultdict(int)
    unattributed = defaultdict(int)
    # interrupts that served no send: (cpu, cls, ts, previous interrupt of the
    # vector here or None, the last drop mark anywhere so far or None); the
    # cause is decided at the end, once every CPU's first event is known
    unsent = []
    first_ts = {}		# first event of each CPU
    last_drop = None		# time of the last drop mark taking effect
    csd_runs = defaultdict(int)
    by_kind = defaultdict(lambda: defaultdict(int))
    lat = defaultdict(list)
    hnd = defaultdict(list)
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

    # --- matching state
    waiting = defaultdict(list)	# (cpu, cls) -> [(ts, src)]
    prev_entry = {}		# (cpu, cls) -> ts of the previous interrupt (forgotten on drop)
    last_entry = {}		# (cpu, cls) -> ts of the last interrupt
    have_recv = set()		# classes with a receive event anywhere in the trace
    open_h = {}			# (cpu, cls) -> [entry ts, sends it served]
    # the function a function-call send runs: the csd_queue_cpu traced just
    # before it in the sender's program order, i.e. the last one on that CPU
    # for that target (events in between come from interrupts); forgotten
    # when the sending CPU lost events (the right one may be among them)
    csd_func = {}		# (sending cpu, target) -> func
    caller = {}			# probes: sending cpu -> [callsite, func, target or -1]
    csd_pending = {}		# (target, csd) -> queue ts
    csd_stale = set()		# (target, csd) queued before a drop on the target
    csd_open = {}		# (cpu, csd) -> entry ts, for a counted csd run

    def drop(cpu, ts):
        nonlocal csd_set_aside, last_drop
        last_drop = ts
        for key in [k for k in waiting if k[0] == cpu]:
            unmatched["lost_events"] += len(waiting[key])
            del waiting[key]
        for key in [k for k in prev_entry if k[0] == cpu]:
            del prev_entry[key]
        for key in [k for k in open_h if k[0] == cpu]:
            del open_h[key]
        for key in [k for k in csd_open if k[0] == cpu]:
            del csd_open[key]
        for key in [k for k in csd_pending if k[0] == cpu]:
            del csd_pending[key]
            csd_stale.add(key)
        for key in [k for k in csd_func if k[0] == cpu]:
            del csd_func[key]
        caller.pop(cpu, None)

    def serve(cpu, s, ts, is_coal):
        sts, src, row = s
        row["matched"] = True
        row["latency_ns"] = ts - sts
        matched[cpu] += 1
        if src != cpu:
            remote_matched[cpu] += 1
        if is_coal:
            coalesced[cpu] += 1
        if synced or src == cpu:	# same CPU: any clock compares
            lat[cpu].append(ts - sts)

    def entry(cpu, cls, ts):
        have_recv.add(cls)
        handlers[cpu] += 1
        key = (cpu, cls)
        if cls in ("call", "call_single"):
            # a function-call vector serves its own sends, else those of
            # either vector ("call_any"), whose previous interrupt is the
            # last of either
            have_recv.add("call_any")
            anykey = (cpu, "call_any")
            if not waiting.get(key) and waiting.get(anykey):
                key = anykey
            prev_any = prev_entry.get(anykey)
            prev_entry[anykey] = ts
            last_entry[anykey] = ts
        w = waiting.get(key, [])
        p = prev_entry.get(key) if key[1] != "call_any" else prev_any
        old = [s for s in w if p is not None and s[0] <= p] if w else []
        if old:
            serve(cpu, old[0], ts, False)
            for s in old[1:]:
                serve(cpu, s, ts, True)
            waiting[key] = w[len(old):]
            n = len(old)
        elif w:
            serve(cpu, w[0], ts, False)
            waiting[key] = w[1:]
            n = 1
        else:
            unattributed[cpu] += 1
            n = 0
            if not w:
                unsent.append((cpu, cls, ts, prev_entry.get((cpu, cls)), last_drop))
        vkey = (cpu, cls)		# the interrupt's own vector
        prev_entry[vkey] = ts
        last_entry[vkey] = ts
        open_h[vkey] = [ts, n]

    def exit_(cpu, cls, ts):
        key = (cpu, cls)
        if key in open_h:
            # handler time: one value per interrupt that served a send (an
            # unattributed interrupt is no IPI's handler)
            e, n = open_h.pop(key)
            if n:
                hnd[cpu].append(ts - e)

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
                   "function": func, "class": cls, "matched": False}
            rows.append(row)
            w = waiting[(t, cls)]
            w.append((ts, src, row))
            if len(w) > QUEUE_MAX:
                # ipitrace keeps at most QUEUE_MAX sends waiting on one CPU
                # for one vector and gives up on the oldest (no handler):
                # a real handler serves them within microseconds
                w.pop(0)
                unmatched["no_handler"] += 1

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
        last_ts[cpu] = ts
        first_ts.setdefault(cpu, ts)
        if cpu in drop_pending:
            drop_pending.discard(cpu)
            drop(cpu, ts)
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
    for (cpu, cls), w in waiting.items():
        le = last_entry.get((cpu, cls))
        for s in w:
            s[2]["end"] = True
            if le is not None and s[0] <= le:
                serve(cpu, s, le, True)
            elif cls not in have_recv or cpu not in last_ts:
                # no receive event of that vector, or nothing at all
                # recorded on the target CPU
                unmatched["no_receive_events"] += 1
            elif stat_lost.get(cpu, marks_lost.get(cpu, 0)) or cpu in marked:
                unmatched["lost_events"] += 1
            elif s[0] >= last_ts.get(cpu, -1):
                unmatched["trace_ended"] += 1
            else:
                unmatched["no_handler"] += 1

    cpus = range(max([ncpus] + [c + 1 for c in list(ipis) + list(sent) + list(last_ts)]))
    # lost events: the file's per-CPU stats where it has them, else the
    # drop marks (unknown for a mark without a count); with neither stats
    # nor marks, unknown (tracefs text: known if its header says every
    # entry written is in the buffer)
    has_marks = any(marks_lost.values()) or bool(marks_unknown)
    tracefs_complete = None
    for l in text[:20]:
        hm = re.search(r"entries-in-buffer/entries-written: (\d+)/(\d+)", l)
        if hm:
            tracefs_complete = int(hm.group(2)) <= int(hm.group(1))
    # the causes of the interrupts without a send: another CPU not recording
    # yet; else a drop mark since the previous interrupt of the vector here
    # (or ever, with none); else a path the send events do not cover
    vector_names = {"resched": "reschedule", "call": "call_function",
                    "call_single": "call_function_single", "irq_work": "irq_work"}
    unsent_by = defaultdict(lambda: defaultdict(int))
    for cpu, cls, ts, prev, drop_ts in unsent:
        if any(c != cpu and t0 > ts for c, t0 in first_ts.items()):
            cause = "before_trace_start"
        elif drop_ts is not None and (prev is None or drop_ts >= prev):
            cause = "lost_events"
        else:
            cause = "untraced_path"
        vec = vector_names.get(cls, cls[4:] if cls.startswith("arm:") else cls)
        unsent_by[(cpu, vec)][cause] += 1
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
                                 ("before_trace_start", "lost_events", "filtered", "untraced_path")}}
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
