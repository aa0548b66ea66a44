#!/usr/bin/python3
# attrib_oracle.py - an independent implementation of ipitrace's attribution
# (report --by KEY, the "stacks" table, report --format folded) and of the
# per-row matching columns of `convert` (issue 15), from trace-cmd's text
# only: no ipitrace code or output is used.
#
#   attrib_oracle.py [OPTS] FILE.dat   runs `trace-cmd report -t FILE`,
#                                      `trace-cmd report -f FILE` (the
#                                      function map, for addresses and the
#                                      +0xOFF of stack frames) and
#                                      `trace-cmd dump --options FILE`
#   attrib_oracle.py [OPTS] FILE       any other name: `trace-cmd report` text
#   OPTS: --options DUMP.txt           `trace-cmd dump --options` of a text trace
#         --assume-synced-clock        latencies across CPUs on any clock
#         --folded                     print only the folded lines
#
# Prints one JSON object:
#   rows:   one per IPI (send event x target CPU), in trace order, each
#           {id (send ordinal, 1-based), ts_ns, src_cpu, target_cpu, pid,
#           comm, kind, callsite (hex|null; "?" when the address is not
#           known: text, or a name the function map has twice),
#           callsite_sym, callsite_func, func (hex|null|"?", as callsite),
#           func_name, stack (trimmed "sym+0xoff" frames leaf first|null),
#           stack_funcs (the frames' function names), lat_ns, handler_ns,
#           handler_ts_ns, matched, coalesced, unmatched_reason}
#   groups: {KEY: [{target_cpu, ipis, groups: [{KEY FIELDS, count, share}]}]}
#           for KEY in comm pid task cpu callsite function kind stack,
#           sorted count desc (ties by the key, Python order, None first)
#   stacks: null, or [{target_cpu, ipis, with_stack, stacks: [{count, share, frames}]}]
#   folded: ["comm;root;...;leaf COUNT", ...] sorted count desc, then text
#   cross_cpu_latency, ns (timestamps are nanoseconds)
#
# Rules, from the issue 15 text and ipitrace's README:
#   - comm: the name trace-cmd prints (the saved cmdlines; "<idle>" for 0);
#   - function: a send with a callback takes the func of the last
#     csd_queue_cpu from its CPU for that target (consumed; a drop mark on
#     the sending CPU forgets it, as tests/oracle.py); else the callback
#     symbol, whatever it is (the issue: "csd func joined, else the
#     callback; as the pairs table"; so a generic_smp_call_function_single_
#     interrupt callback with no csd_queue_cpu is its own function here,
#     while convert's older func/func_sym columns leave it empty); else null;
#   - stack: the kernel_stack line that is the next event line of the
#     send's CPU (no other event line of that CPU, and no drop mark of it,
#     in between) belongs to every row of that send, but for an interrupt
#     taken between the two (the kernel writes the stack after the send,
#     in its context): its lines are nested, a traced interrupt's from its
#     vector's _entry to its _exit line (x86 irq_vectors, arm64
#     ipi_entry/ipi_exit), an untraced one's a send and its stack; stacks
#     pair with sends last in, first out; leading tracing frames
#     are trimmed (the list of the issue); .dat: "sym+0x(addr - start)"
#     with start the function map's entry at or below addr; text: the name
#     as printed plus its "+0x.." if the text has one, else "+0x0" (the
#     text shows no offset);  a frame without a name is "0x<hex>";
#   - matching: docs/matching.md's rule (tests/match_rule.py, shared with
#     tests/oracle.py: the sends waiting for an interrupt's class that are
#     not too late for it are served, the newest of several held for the
#     next interrupt of the class, ...), keeping, for each row, the
#     interrupt that served it: handler_ts_ns is its entry, handler_ns its
#     exit - entry (null if no exit was seen: a drop mark closes open
#     handlers; handler_ts_ns null too if the timestamps are not ns),
#     lat_ns entry - send (null when unmatched, or src != target on a
#     clock that is not cross-CPU, or timestamps not ns); coalesced: the
#     send did not raise its interrupt (another one served by it did;
#     coalesced at the interrupt, a held send the next interrupt did not
#     take, or coalesced at the end of the trace); unmatched_reason for the
#     rest.
import json
import os
import re
import subprocess
import sys
from collections import defaultdict, Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle as base  # noqa: E402  (tests/oracle.py: parsing helpers and kind rules)
import match_rule  # noqa: E402  (tests/match_rule.py: the rule of docs/matching.md)

GENERIC_SINGLE = "generic_smp_call_function_single_interrupt"
TRACING_PREFIXES = ("trace_event_raw_event_", "__traceiter_", "perf_trace_", "__bpf_trace_",
                    "__probestub_")
TRACING_NAMES = {"event_triggers_call", "__event_trigger_test_discard",
                 "trace_event_buffer_commit", "trace_buffer_unlock_commit_regs", "__trace_stack",
                 "__ftrace_trace_stack", "ftrace_trace_stack", "stacktrace_trigger",
                 "stacktrace_count_trigger", "trace_event_buffer_lock_reserve",
                 "ring_buffer_lock_reserve"}
KEYS = ["comm", "pid", "task", "cpu", "callsite", "function", "kind", "stack"]
STACK_LINE = re.compile(r"^\s*=>\s*(\S+)(?:\s+[(<](?:0x)?([0-9a-fA-F]+)[)>])?\s*$")


def is_tracing(fn):
    return fn.startswith(TRACING_PREFIXES) or fn in TRACING_NAMES


class FuncMap:
    """`trace-cmd report -f`: address -> name, name -> addresses"""

    def __init__(self, text):
        self.addrs = []
        self.names = []
        self.by_name = defaultdict(set)
        pairs = []
        for l in text.splitlines():
            p = l.split()
            if len(p) >= 2 and re.fullmatch(r"[0-9a-fA-F]+", p[0]):
                pairs.append((int(p[0], 16), p[1]))
        pairs.sort()
        for a, n in pairs:
            self.addrs.append(a)
            self.names.append(n)
            self.by_name[n].add(a)

    def addr_of(self, name):
        a = self.by_name.get(name)
        return next(iter(a)) if a and len(a) == 1 else None

    def start_of(self, addr, name):
        """start of the entry named name at or below addr"""
        import bisect
        i = bisect.bisect_right(self.addrs, addr) - 1
        while i >= 0 and self.addrs[i] <= addr:
            if self.names[i] == name:
                return self.addrs[i]
            # aliases at the same address: look at all of them
            if i > 0 and self.addrs[i - 1] == self.addrs[i]:
                i -= 1
                continue
            break
        return None


def symoff(s):
    """"sym+0xoff" -> (sym, off) ; None for NULL"""
    if s is None:
        return None
    s = s.rstrip(",")
    if s in ("0x0", "0", "(nil)", "0x0000000000000000"):
        return None
    if "+" in s:
        n, o = s.split("+", 1)
        o = o.split("/", 1)[0]
        try:
            return n, int(o, 16)
        except ValueError:
            return n, 0
    if re.fullmatch(r"0x[0-9a-fA-F]+", s):
        return s, None		# a raw address
    return s, 0


def run(args):
    rows_only = False
    opts_file = None
    synced = False
    folded_only = False
    while args and args[0].startswith("--"):
        if args[0] == "--options":
            opts_file = args[1]
            args = args[2:]
        elif args[0] == "--assume-synced-clock":
            synced = True
            args = args[1:]
        elif args[0] == "--folded":
            folded_only = True
            args = args[1:]
        else:
            sys.exit(f"attrib_oracle.py: unknown option {args[0]}")
    if len(args) != 1:
        sys.exit("usage: attrib_oracle.py [--options DUMP] [--assume-synced-clock] [--folded] FILE")
    f = args[0]
    is_text = not f.endswith(".dat")
    fmap = None
    if is_text:
        text = open(f, errors="replace").read().splitlines()
        opts = open(opts_file).read() if opts_file else ""
    else:
        text = subprocess.run(["trace-cmd", "report", "-t", f], capture_output=True,
                              text=True, errors="replace", check=True).stdout.splitlines()
        opts = subprocess.run(["trace-cmd", "dump", "--options", f], capture_output=True,
                              text=True, errors="replace").stdout
        fmap = FuncMap(subprocess.run(["trace-cmd", "report", "-f", f], capture_output=True,
                                      text=True, errors="replace").stdout)
    clock, stat_lost = base.parse_options(opts)
    header_loss = False
    for l in text[:20]:
        hm = re.search(r"entries-in-buffer/entries-written: (\d+)/(\d+)", l)
        if hm:
            header_loss = is_text and int(hm.group(2)) > int(hm.group(1))
    synced = synced or clock in base.CROSS_CPU_CLOCKS
    ns = clock != "x86-tsc" and clock != "counter"

    rows = []
    send_no = 0
    # matching state: tests/match_rule.py
    M = match_rule.Matcher(synced)
    have_recv = set()
    csd_func = {}		# (sending cpu, target) -> func name
    marked = set()
    marks_lost = defaultdict(int)
    drop_pending = set()
    last_ts = {}
    # cpu -> the sends waiting there for their stack, innermost last (rows),
    # with None for a traced interrupt opened after them (its _exit's name)
    stack_wait = defaultdict(list)
    prev_line_ts, same_ts, events = None, 0, 0

    def drop(cpu, prev, ts):
        M.drop(cpu, prev, ts)
        for key in [k for k in csd_func if k[0] == cpu]:
            del csd_func[key]

    def entry(cpu, cls, ts):
        have_recv.add(cls)
        if cls in match_rule.CALLS:
            have_recv.add("call_any")
        M.entry(cpu, cls, ts)

    def exit_(cpu, cls, ts):
        M.exit(cpu, cls, ts)

    def frame_str(name, addr):
        """a stack frame as "sym+0xoff" (or "0x<hex>"), and its function name"""
        so = symoff(name)
        if so is None:
            return "0x0", "0x0"
        n, off = so
        if off is None:			# "=> ffffffff..." / "=> 0x...": no symbol
            h = "0x%x" % int(n, 16)
            return h, h
        if re.fullmatch(r"[0-9a-fA-F]{8,}", n) and addr is None:
            h = "0x%x" % int(n, 16)
            return h, h
        if fmap is not None and addr is not None:
            st = fmap.start_of(addr, n)
            if st is not None:
                off = addr - st
        return f"{n}+0x{off:x}", n

    def send(src, ts, pid, comm, targets, callback, callsite, reason=None):
        nonlocal send_no
        send_no += 1
        cb = symoff(callback)
        cs = symoff(callsite)
        cb_sym = cb[0] if cb else None
        cs_sym = cs[0] if cs else None
        out = []
        for t in targets:
            func = None
            joined = False
            if cb_sym is not None and (src, t) in csd_func:
                func = csd_func.pop((src, t))
                joined = True
            k = base.classify(reason, func, cb_sym, cs_sym)
            fname = func if joined else cb_sym
            if reason is not None:
                cls = "arm:" + reason
            elif k == "irq_work" and src == t:
                cls = "irq_work"
            elif cb_sym is None:
                cls = "resched"
            elif cb_sym == "generic_smp_call_function_interrupt":
                cls = "call"
            elif cb_sym == GENERIC_SINGLE:
                cls = "call_single"
            else:
                cls = "call_any"
            cs_hex = None
            if cs and cs[1] is None:		# a raw address: no symbol
                cs_hex = "0x%x" % int(cs[0], 16)
            elif cs and fmap is not None:
                a = fmap.addr_of(cs[0])
                cs_hex = "0x%x" % (a + cs[1]) if a is not None else "?"
            elif cs:
                cs_hex = "?"
            f_hex = None
            if fname and re.fullmatch(r"0x[0-9a-fA-F]+", fname):	# raw: no symbol
                f_hex, fname = "0x%x" % int(fname, 16), None
            elif fname and fmap is not None:
                a = fmap.addr_of(fname)
                f_hex = "0x%x" % a if a is not None else "?"
            elif fname:
                f_hex = "?"
            r = {"id": send_no, "ts_ns": ts, "src_cpu": src, "target_cpu": t, "pid": pid,
                 "comm": comm, "kind": k, "callsite": cs_hex,
                 "callsite_sym": f"{cs[0]}+0x{cs[1]:x}" if cs and cs[1] is not None else None,
                 "callsite_func": cs_sym if cs and cs[1] is not None else None,
                 "func": f_hex, "func_name": fname, "stack": None, "stack_funcs": None,
                 "matched": False, "coalesced": None, "unmatched_reason": None,
                 "_send": None}
            rows.append(r)
            out.append(r)
            r["_send"] = M.send(t, cls, ts, src, r)
        stack_wait[src].append((out, None))
        del stack_wait[src][:-16]

    i = 0
    n = len(text)
    while i < n:
        l = text[i]
        i += 1
        m = base.LINE.match(l)
        if not m:
            d = base.DROP.match(l)
            if d:
                cpu = int(d.group(1))
                if d.group(2) or d.group(3):
                    marks_lost[cpu] += int(d.group(2) or d.group(3))
                marked.add(cpu)
                drop_pending.add(cpu)
                stack_wait.pop(cpu, None)
            continue
        events += 1
        cpu = int(m.group("cpu"))
        frac = m.group("frac") or ""
        ts = int(m.group("sec")) * 10 ** 9 + int((frac + "0" * 9)[:9]) if frac else int(m.group("sec"))
        if is_text:
            if ts == prev_line_ts and ts % 1000 == 0 and events > 1:
                same_ts = min(same_ts + 1, 999)
                ts += same_ts
            else:
                prev_line_ts, same_ts = ts, 0
        if cpu not in last_ts and header_loss:
            # a tracefs text whose header says entries were overwritten:
            # each CPU's first event may follow a loss (tests/oracle.py)
            marked.add(cpu)
            drop_pending.add(cpu)
        if cpu in drop_pending:
            drop_pending.discard(cpu)
            drop(cpu, last_ts.get(cpu, 0), ts)
        last_ts[cpu] = ts
        ev = m.group("ev")
        rest = m.group("rest").strip()
        fl = dict(base.FIELD.findall(rest))
        comm, pid = m.group("comm").strip(), int(m.group("pid"))
        waits = stack_wait[cpu]
        waiting_rows = None
        if ev == "kernel_stack":
            if waits and waits[-1][0] is not None:
                waiting_rows = waits.pop()[0]
        elif ev == "ipi_entry" or (ev.endswith("_entry") and ev[:-6] in base.X86_RECV):
            waits.append((None, ev[:-6] + "_exit"))	# an interrupt opens
            del waits[:-16]
        elif waits and waits[-1][0] is None and ev == waits[-1][1]:
            waits.pop()		# it closes: the sends before it wait on
        elif ev not in ("ipi_send_cpu", "ipi_send_cpumask", "ipi_raise"):
            # another event: the sends of this level had no stack (a
            # send may be an untraced interrupt's, its stack first)
            while waits and waits[-1][0] is not None:
                waits.pop()
        if ev == "kernel_stack":
            frames = []
            while i < n and re.match(r"^\s*=>", text[i]):
                sm = STACK_LINE.match(text[i])
                i += 1
                if sm:
                    frames.append(frame_str(sm.group(1), int(sm.group(2), 16) if sm.group(2) else None))
            while frames and is_tracing(frames[0][1]):
                frames.pop(0)
            if waiting_rows:
                for r in waiting_rows:
                    r["stack"] = [a for a, _ in frames]
                    r["stack_funcs"] = [b for _, b in frames]
            continue
        if ev == "ipi_send_cpu":
            send(cpu, ts, pid, comm, [int(fl["cpu"])], fl.get("callback"), fl.get("callsite"))
        elif ev == "ipi_send_cpumask":
            send(cpu, ts, pid, comm, base.cpulist(fl["cpumask"]), fl.get("callback"),
                 fl.get("callsite"))
        elif ev == "ipi_raise":
            rm = re.match(r"target_mask=(\S+)\s+\((.*)\)\s*$", rest)
            if rm:
                send(cpu, ts, pid, comm, base.cpulist(rm.group(1)), None, None, rm.group(2))
        elif ev in ("ipi_entry", "ipi_exit"):
            rm = re.match(r"\((.*)\)\s*$", rest)
            cls = "arm:" + (rm.group(1) if rm else rest)
            (entry if ev == "ipi_entry" else exit_)(cpu, cls, ts)
        elif ev.endswith("_entry") and ev[:-6] in base.X86_RECV:
            entry(cpu, base.X86_RECV[ev[:-6]], ts)
        elif ev.endswith("_exit") and ev[:-5] in base.X86_RECV:
            exit_(cpu, base.X86_RECV[ev[:-5]], ts)
        elif ev == "csd_queue_cpu":
            csd_func[(cpu, int(fl["cpu"]))] = base.sym(fl.get("func"))

    # end of the trace: held sends stay, sends the last interrupt of their
    # class could have served coalesce into it, else a reason
    lost_cpus = {c for c in set(stat_lost) | set(marks_lost) | marked
                 if stat_lost.get(c, marks_lost.get(c, 0)) or c in marked}
    M.end(lambda x: M.unmatched_reason(x, have_recv, last_ts, lost_cpus))

    for r in rows:
        x = r.pop("_send")
        intr = x["intr"]
        r["matched"] = intr is not None
        r["coalesced"] = x["coalesced"]
        r["unmatched_reason"] = x["reason"]
        if intr is not None:
            r["handler_ts_ns"] = intr["ts"] if ns else None
            r["handler_ns"] = intr["exit"] - intr["ts"] if intr["exit"] is not None else None
            comparable = ns and (synced or r["src_cpu"] == r["target_cpu"])
            r["lat_ns"] = intr["ts"] - r["ts_ns"] if comparable else None
        else:
            r["handler_ts_ns"] = r["handler_ns"] = r["lat_ns"] = None
            r["coalesced"] = None

    out = {"clock": clock, "cross_cpu_latency": synced, "ns": ns,
           "groups": groups(rows), "stacks": stacks(rows), "folded": folded(rows),
           "rows": rows}
    return out


def key_of(by, r):
    """(sort key, JSON fields) of a row for --by"""
    if by == "comm":
        return (r["comm"],), {"comm": r["comm"]}
    if by == "pid":
        return (r["pid"],), {"pid": r["pid"], "comm": r["comm"]}
    if by == "task":
        return (r["pid"], r["src_cpu"]), {"pid": r["pid"], "comm": r["comm"], "src_cpu": r["src_cpu"]}
    if by == "cpu":
        return (r["src_cpu"],), {"src_cpu": r["src_cpu"]}
    if by == "callsite":
        return (r["callsite_sym"],), {"callsite": r["callsite"], "callsite_sym": r["callsite_sym"],
                                      "callsite_func": r["callsite_func"]}
    if by == "function":
        return (r["func_name"],), {"func": r["func"], "func_name": r["func_name"]}
    if by == "kind":
        return (r["kind"],), {"kind": r["kind"]}
    if by == "stack":
        s = tuple(r["stack"]) if r["stack"] is not None else None
        return (s,), {"stack": r["stack"]}
    raise ValueError(by)


def sortable(k):
    return tuple((0, "") if v is None else (1, v) for v in k)


def groups(rows):
    res = {}
    per_t = Counter(r["target_cpu"] for r in rows)
    for by in KEYS:
        tabs = []
        for t in sorted(per_t):
            cnt = Counter()
            fields = {}
            pids = defaultdict(Counter)
            for r in rows:
                if r["target_cpu"] != t:
                    continue
                k, fj = key_of(by, r)
                cnt[k] += 1
                fields[k] = fj
                pids[k][r["pid"]] += 1
            gl = []
            for k in sorted(cnt, key=lambda k: (-cnt[k], sortable(k))):
                g = dict(fields[k])
                if by == "comm":
                    pc = pids[k]
                    g["npids"] = len(pc)
                    g["top_pids"] = [{"pid": p, "count": c}
                                     for p, c in sorted(pc.items(), key=lambda x: (-x[1], x[0]))[:3]]
                g["count"] = cnt[k]
                g["share"] = round(cnt[k] / per_t[t], 6)
                gl.append(g)
            tabs.append({"target_cpu": t, "ipis": per_t[t], "groups": gl})
        res[by] = tabs
    return res


def stacks(rows):
    if not any(r["stack"] is not None for r in rows):
        return None
    res = []
    for t in sorted({r["target_cpu"] for r in rows}):
        rs = [r for r in rows if r["target_cpu"] == t]
        ws = [r for r in rs if r["stack"] is not None]
        cnt = Counter(tuple(r["stack"]) for r in ws)
        st = [{"count": c, "share": round(c / len(ws), 6), "frames": list(k)}
              for k, c in sorted(cnt.items(), key=lambda x: (-x[1], x[0]))]
        res.append({"target_cpu": t, "ipis": len(rs), "with_stack": len(ws), "stacks": st})
    return res


def folded(rows):
    cnt = Counter()
    for r in rows:
        if r["stack"] is None:
            continue
        line = ";".join([r["comm"].replace(";", "_")] + list(reversed(r["stack_funcs"])))
        cnt[line] += 1
    return [f"{l} {c}" for l, c in sorted(cnt.items(), key=lambda x: (-x[1], x[0]))]


def main():
    out = run(sys.argv[1:])
    if "--folded" in sys.argv:
        for l in out["folded"]:
            print(l)
        return
    # dumps, not dump: json.dump to a stream encodes in Python, chunk by
    # chunk (19 of 31 CPU-s on a 50 k-row stacks trace); dumps in C
    sys.stdout.write(json.dumps(out, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
