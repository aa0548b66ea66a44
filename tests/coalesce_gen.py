#!/usr/bin/python3
"""coalesce_gen.py - synthetic IPI traces with a known ground truth of which
interrupt served which send, including coalesced sends (several sends served
by one interrupt), written as trace.dat version 6 by its own writer.

  coalesce_gen.py --cpus N --seed S --coalesce FRACTION --sends K \\
                  -o OUT.dat --truth OUT.truth

The model knows nothing of ipitrace: it simulates hardware and kernel rules
only (see the "Model" comment below).  The truth is CSV, one line per send
that was really sent (an ipi_send_cpu written):

  send_ts_ns,src_cpu,target_cpu,kind,entry_ts_ns,coalesced

kind is resched or call; entry_ts_ns is the time of the entry tracepoint of
the interrupt that served the send; coalesced is false for the send whose
interrupt-controller write made the vector pending (it raised the interrupt)
and true for a send whose write found the vector already pending.  A summary
line goes to stderr.

Standard library only; deterministic for a given argument list.
"""

import argparse
import heapq
import math
import os
import random
import struct
import sys

# ---------------------------------------------------------------------------
# The kernel side: formats of a real x86_64 Linux 6.18 (copied from
# /sys/kernel/tracing/events/*/format), ring-buffer headers, symbols.

HEADER_PAGE = (
    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n")
HEADER_EVENT = (
    "# compressed entry header\n"
    "\ttype_len    :    5 bits\n"
    "\ttime_delta  :   27 bits\n"
    "\tarray       :   32 bits\n"
    "\n"
    "\tpadding     : type == 29\n"
    "\ttime_extend : type == 30\n"
    "\ttime_stamp : type == 31\n"
    "\tdata max type_len  == 28\n")

COMMON = (
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")


def fmt(name, eid, fields, pfmt):
    s = "name: %s\nID: %d\nformat:\n%s" % (name, eid, COMMON)
    for decl, off, size, signed in fields:
        s += "\tfield:%s;\toffset:%d;\tsize:%d;\tsigned:%d;\n" % (decl, off, size, signed)
    return s + "\nprint fmt: " + pfmt + "\n"


VEC_FIELDS = [("int vector", 8, 4, 1)]
VEC_PFMT = '"vector=%d", REC->vector'
CSD_FN_FIELDS = [("void * func", 8, 8, 0), ("void * csd", 16, 8, 0)]
CSD_FN_PFMT = '"func=%ps, csd=%p", REC->func, REC->csd'

# event ids (those of this 6.18 kernel)
ID_IPI_SEND_CPU = 354
ID_CSD_QUEUE_CPU = 529
ID_CSD_FN_ENTRY = 528
ID_CSD_FN_EXIT = 527
ID_RESCHED_ENTRY = 155
ID_RESCHED_EXIT = 154
ID_CFS_ENTRY = 151
ID_CFS_EXIT = 150

SYSTEMS = [
    ("ipi", [fmt("ipi_send_cpu", ID_IPI_SEND_CPU,
                 [("unsigned int cpu", 8, 4, 0), ("void * callsite", 16, 8, 0),
                  ("void * callback", 24, 8, 0)],
                 '"cpu=%u callsite=%pS callback=%pS", REC->cpu, REC->callsite, REC->callback')]),
    ("csd", [fmt("csd_queue_cpu", ID_CSD_QUEUE_CPU,
                 [("unsigned int cpu", 8, 4, 0), ("void * callsite", 16, 8, 0),
                  ("void * func", 24, 8, 0), ("void * csd", 32, 8, 0)],
                 '"cpu=%u callsite=%pS func=%ps csd=%p", REC->cpu, REC->callsite, REC->func, REC->csd'),
             fmt("csd_function_exit", ID_CSD_FN_EXIT, CSD_FN_FIELDS, CSD_FN_PFMT),
             fmt("csd_function_entry", ID_CSD_FN_ENTRY, CSD_FN_FIELDS, CSD_FN_PFMT)]),
    ("irq_vectors", [fmt("reschedule_exit", ID_RESCHED_EXIT, VEC_FIELDS, VEC_PFMT),
                     fmt("reschedule_entry", ID_RESCHED_ENTRY, VEC_FIELDS, VEC_PFMT),
                     fmt("call_function_single_exit", ID_CFS_EXIT, VEC_FIELDS, VEC_PFMT),
                     fmt("call_function_single_entry", ID_CFS_ENTRY, VEC_FIELDS, VEC_PFMT)]),
]

# kallsyms: the symbols used, each followed by its successor (so that a
# reader bounds the function), addresses of a real 6.18 x86_64 kernel
KALLSYMS = """ffffffff81000000 T _stext
ffffffff813a9e10 t nohz_csd_func
ffffffff813a9e90 t __pfx_sched_unregister_group_rcu
ffffffff813ac910 t ttwu_queue_wakelist
ffffffff813aca60 t __pfx_trace_event_raw_event_sched_process_exec
ffffffff813aeec0 T resched_curr
ffffffff813aeed0 T __pfx_resched_curr_lazy
ffffffff813af910 T wakeup_preempt
ffffffff813af9b0 T __pfx_wait_task_inactive
ffffffff813b4440 T sched_ttwu_pending
ffffffff813b45c0 T __pfx_try_to_wake_up
ffffffff813cfd60 t do_idle
ffffffff813cffa0 T __pfx_play_idle_precise
ffffffff81450610 t __flush_smp_call_function_queue
ffffffff81450a40 T __pfx_generic_smp_call_function_single_interrupt
ffffffff81450a50 T generic_smp_call_function_single_interrupt
ffffffff81450a60 T __pfx_smpcfd_prepare_cpu
ffffffff81450b80 T __smp_call_single_queue
ffffffff81450ce0 t __pfx_generic_exec_single
ffffffff81450cf0 t generic_exec_single
ffffffff81450e40 T __pfx_smp_call_function_single
ffffffff81450e50 T smp_call_function_single
ffffffff81450f90 T __pfx_smp_call_function_any
ffffffff814510c0 T flush_smp_call_function_queue
ffffffff81451130 t __pfx_groups16_to_user
ffffffff8157a300 t remote_function
ffffffff8157a370 t __pfx_is_sb_event.part.0
"""
A_WAKEUP_PREEMPT_RET = 0xffffffff813af910 + 0x92   # resched_curr inlined
A_TTWU_QUEUE_RET = 0xffffffff813ac910 + 0x11d
A_GENERIC_EXEC_RET = 0xffffffff81450cf0 + 0x9a
A_GSCFSI = 0xffffffff81450a50     # generic_smp_call_function_single_interrupt
A_SCHED_TTWU_PENDING = 0xffffffff813b4440
A_REMOTE_FUNCTION = 0xffffffff8157a300
A_NOHZ_CSD_FUNC = 0xffffffff813a9e10

RESCHEDULE_VECTOR = 0xfd
CALL_FUNCTION_SINGLE_VECTOR = 0xfb

PAGE = 4096
PAGE_DATA = PAGE - 16
BASE_NS = 100_000_000_000     # the trace starts 100 s after boot (local clock)

# ---------------------------------------------------------------------------
# Model (hardware and kernel rules only), simulated in time with a heap:
#
#  * Each CPU attempts sends at Poisson times (at least 1 us apart) to a
#    random other CPU, a reschedule or a call-function-single (half each).
#    A CPU does not send while it runs a handler or flushes its call queue
#    (nor in the last 0.5 us, csd_queue_cpu comes up to 0.4 us before the
#    send); such an attempt waits for the end.
#  * Reschedule: sent only if the target's need-resched flag is clear; the
#    send sets it.  The target clears it when it schedules: a few us after a
#    reschedule handler exits, or at a schedule() inside an irqs-off window.
#  * Call-function-single: csd_queue_cpu is written, then llist_add; the IPI
#    is sent only if the target's call-single queue was empty.  The queue is
#    emptied (llist_del_all) by the call-function-single handler shortly after
#    its entry tracepoint, or by a flush inside an irqs-off window on the
#    target (csd_function_entry/exit outside any handler).
#  * The send tracepoint fires at t; the interrupt-controller write completes
#    at t + w (50-400 ns); from then the vector is pending on the target.  A
#    vector is pending at most once: a write while it is pending adds nothing
#    (the send coalesces into the pending interrupt).
#  * The target accepts a pending vector at max(first write + delivery delay
#    (0.2-1 us), interrupts enabled): not inside an irqs-off window, not while
#    a handler runs; several pending: one after the other, reschedule first.
#    Acceptance clears the pending bit.  The entry tracepoint fires at
#    acceptance + 0.3-1.5 us, the handler runs 1-6 us (longer if it runs many
#    queued calls), then the exit tracepoint.
#  * Irqs-off windows (5-200 us, log-uniform) start at Poisson times, never
#    inside a handler nor before the vectors pending at a handler's exit are
#    taken.  Inside a window: schedule() calls (clear need-resched) and
#    call-queue flushes, a Poisson number of each (one per 25 us on average);
#    a flush running past the window's end extends it.  These are what let a
#    second IPI of the same vector be sent while the first is still pending.
#    The windows' rate is the knob that sets how many interrupts serve two or
#    more sends: taken from KNOB_TABLE, and if a trace's fraction is more than
#    25% off, the same seed is re-run with a corrected rate (up to 6 runs).
#  * Sends stop after K IPIs were sent; the trace ends when every pending
#    vector was taken and every queue drained (every CPU idle).

US = 1000.0  # ns


def ns(t):
    """The trace timestamp (ns, local clock) of model time t (float ns)."""
    return BASE_NS + int(round(t))


class Sim:
    def __init__(self, ncpus, seed, knob, target_sends):
        self.n = ncpus
        self.rng = random.Random(seed)
        self.rand = self.rng.random
        self.knob = knob                 # irqs-off windows per us per CPU
        self.target_sends = target_sends
        self.send_gap = 12 * US          # mean gap between send attempts per CPU
        self.window_events = 25 * US     # mean gap of schedule()s / flushes in a window
        self.heap = []
        self.seq = 0
        self.events = [[] for _ in range(ncpus)]   # (ts, seq, Struct, fields)
        self.sends = []      # [ts, src, tgt, kind, entry_ts, coalesced]
        self.interrupts = []  # list of send-index lists, one per interrupt
        self.nsent = 0
        self.stopped = False
        n = ncpus
        self.busy_until = [0.0] * n      # end of the handler / flush running
        self.handler_end = [0.0] * n
        self.win_start = [-1.0] * n
        self.win_end = [-1.0] * n
        self.pending = [dict() for _ in range(n)]   # vec -> [deliver_at, [send idx]]
        self.queue = [[] for _ in range(n)]          # queued csd calls
        self.need_resched = [False] * n
        self.csd_ctr = {}
        self.csd_busy = set()
        self.spare = 0
        self.pid = [3000 + c for c in range(n)]

    def push(self, t, what, *args):
        self.seq += 1
        heapq.heappush(self.heap, (t, self.seq, what, args))

    def emit(self, cpu, t, st, *fields):
        """An event on cpu at t: st packs the header and fields (see ST_*)."""
        self.seq += 1
        self.events[cpu].append((t, self.seq, st, fields))

    def u(self, a, b):
        return a + (b - a) * self.rand()

    def run(self):
        rng = self.rng
        for c in range(self.n):
            self.push(rng.expovariate(1.0 / self.send_gap), "attempt", c)
            self.push(rng.expovariate(self.knob / US) if self.knob > 0 else 1e30, "wstart", c)
        handlers = {k[3:]: getattr(self, k) for k in dir(self) if k.startswith("ev_")}
        heap = self.heap
        pop = heapq.heappop
        while heap:
            t, _, what, args = pop(heap)
            handlers[what](t, *args)

    # -- sends ------------------------------------------------------------
    def ev_attempt(self, t, s):
        if self.stopped:
            return
        rand = self.rand
        if t - 0.5 * US < self.busy_until[s]:  # csd_queue_cpu comes up to 0.4 us before
            self.push(self.busy_until[s] + (0.5 + 0.5 * rand()) * US, "attempt", s)
            return
        self.push(t + 1 * US - math.log(1.0 - rand()) * self.send_gap, "attempt", s)
        tg = int(rand() * (self.n - 1))
        if tg >= s:
            tg += 1
        if rand() < 0.5:
            if self.need_resched[tg]:
                return                       # flag already set: no IPI, no event
            self.need_resched[tg] = True
            self.emit(s, t, ST_SEND, ID_IPI_SEND_CPU, 0x01, 2, self.pid[s], tg, A_WAKEUP_PREEMPT_RET, 0)
            self.send(t, s, tg, "resched", RESCHEDULE_VECTOR)
        else:
            r = rand()
            if r < 0.7:
                site, func = A_TTWU_QUEUE_RET, A_SCHED_TTWU_PENDING
            elif r < 0.85:
                site, func = A_GENERIC_EXEC_RET, A_REMOTE_FUNCTION
            else:
                site, func = A_GENERIC_EXEC_RET, A_NOHZ_CSD_FUNC
            # a csd of this (sender, target) pair that is not queued or running
            k = self.csd_ctr.get((s, tg), 0)
            for _ in range(64):
                csd = 0xffff888100000000 + ((s * self.n + tg) * 64 + k % 64) * 64
                k += 1
                if csd not in self.csd_busy:
                    break
            else:
                self.spare += 64
                csd = 0xffff888200000000 + self.spare
            self.csd_ctr[(s, tg)] = k
            self.csd_busy.add(csd)
            self.emit(s, t - self.u(0.1, 0.4) * US, ST_QUEUE, ID_CSD_QUEUE_CPU, 0x01, 2,
                      self.pid[s], tg, site, func, csd)
            was_empty = not self.queue[tg]
            self.queue[tg].append((func, csd))
            if was_empty:
                self.emit(s, t, ST_SEND, ID_IPI_SEND_CPU, 0x01, 2, self.pid[s], tg, site, A_GSCFSI)
                self.send(t, s, tg, "call", CALL_FUNCTION_SINGLE_VECTOR)

    def send(self, t, s, tg, kind, vec):
        idx = len(self.sends)
        self.sends.append([t, s, tg, kind, None, None])
        self.push(t + self.u(50, 400), "write", tg, vec, idx)
        self.nsent += 1
        if self.nsent >= self.target_sends:
            self.stopped = True

    def ev_write(self, t, c, vec, idx):
        p = self.pending[c].get(vec)
        if p is not None:
            p[1].append(idx)                 # already pending: coalesced
            return
        at = t + self.u(0.2, 1.0) * US
        self.pending[c][vec] = [at, [idx]]
        self.push(at, "try", c)

    # -- the target -------------------------------------------------------
    def irqs_off(self, c, t):
        return t < self.handler_end[c] or self.win_start[c] <= t < self.win_end[c]

    def ev_try(self, t, c):
        if self.irqs_off(c, t):
            return                           # the exit / window end retries
        pend = self.pending[c]
        vec = None
        for v in (RESCHEDULE_VECTOR, CALL_FUNCTION_SINGLE_VECTOR):
            if v in pend and pend[v][0] <= t:
                vec = v
                break
        if vec is None:
            return                           # each pending one has its own try
        _, idxs = pend.pop(vec)
        entry = t + self.u(0.3, 1.5) * US
        # idxs are in write order: the first write raised the interrupt
        for i, si in enumerate(idxs):
            self.sends[si][4] = entry
            self.sends[si][5] = i > 0
        self.interrupts.append(idxs)
        dur = self.u(1, 6) * US
        pid = 0 if self.rng.random() < 0.5 else self.pid[c]
        if vec == RESCHEDULE_VECTOR:
            self.emit(c, entry, ST_VEC, ID_RESCHED_ENTRY, 0x09, 1, pid, RESCHEDULE_VECTOR)
            end = entry + dur
            self.emit(c, end, ST_VEC, ID_RESCHED_EXIT, 0x09, 1, pid, RESCHEDULE_VECTOR)
            self.handler_end[c] = end
            self.busy_until[c] = max(self.busy_until[c], end)
            self.push(end, "hexit", c, True)
        else:
            self.emit(c, entry, ST_VEC, ID_CFS_ENTRY, 0x09, 1, pid, CALL_FUNCTION_SINGLE_VECTOR)
            self.handler_end[c] = entry + dur       # provisional: see ev_hflush
            self.busy_until[c] = max(self.busy_until[c], entry + dur)
            self.push(entry + self.u(0.1, 0.3) * US, "hflush", c, entry, dur, pid)

    def run_queue(self, c, t, flags, pid):
        """llist_del_all at t, then run the calls; returns the end time."""
        items = self.queue[c]
        self.queue[c] = []
        for func, csd in items:
            t += self.u(0.05, 0.2) * US
            self.emit(c, t, ST_FN, ID_CSD_FN_ENTRY, flags, 1, pid, func, csd)
            t += self.u(0.3, 1.5) * US
            self.emit(c, t, ST_FN, ID_CSD_FN_EXIT, flags, 1, pid, func, csd)
            self.csd_busy.discard(csd)
        return t

    def ev_hflush(self, t, c, entry, dur, pid):
        last = self.run_queue(c, t, 0x09, pid)
        end = max(entry + dur, last + self.u(0.1, 0.3) * US)
        self.emit(c, end, ST_VEC, ID_CFS_EXIT, 0x09, 1, pid, CALL_FUNCTION_SINGLE_VECTOR)
        self.handler_end[c] = end
        self.busy_until[c] = max(self.busy_until[c], end)
        self.push(end, "hexit", c, False)

    def ev_hexit(self, t, c, resched):
        if resched:
            self.push(t + self.u(1, 4) * US, "sched", c)
        self.push(t, "try", c)               # after the iret: the next pending one

    def ev_sched(self, t, c):
        self.need_resched[c] = False

    def ev_wstart(self, t, c):
        if self.stopped:
            return
        if t < self.busy_until[c]:
            # after the handler's iret the pending vectors come first
            self.push(self.busy_until[c] + self.u(0.6, 1.0) * US, "wstart", c)
            return
        length = math.exp(self.u(math.log(5), math.log(200))) * US
        self.win_start[c] = t
        self.win_end[c] = t + length
        # schedule() calls and call-queue flushes inside the window: a
        # Poisson number of each, about one per window_events us
        for what in ("sched", "wflush"):
            k = 0
            x = self.rng.expovariate(1.0 / self.window_events)
            while x < length:
                self.push(t + x, what, c)
                x += self.rng.expovariate(1.0 / self.window_events)
        self.push(t + length, "wend", c)

    def ev_wflush(self, t, c):
        if not self.win_start[c] <= t < self.win_end[c]:
            return
        if t < self.busy_until[c]:           # the previous flush still runs
            self.push(self.busy_until[c] + 0.1 * US, "wflush", c)
            return
        if not self.queue[c]:
            return
        end = self.run_queue(c, t, 0x01, self.pid[c])
        self.busy_until[c] = max(self.busy_until[c], end)
        if end + 0.2 * US > self.win_end[c]:
            self.win_end[c] = end + 0.2 * US
            self.push(self.win_end[c], "wend", c)

    def ev_wend(self, t, c):
        if t < self.win_end[c]:
            return                           # extended by a flush: a later wend
        self.win_start[c] = self.win_end[c] = -1.0
        self.push(t, "try", c)
        self.push(t + self.rng.expovariate(self.knob / US), "wstart", c)

    def stats(self):
        ints = len(self.interrupts)
        multi = sum(1 for i in self.interrupts if len(i) > 1)
        coal = sum(len(i) - 1 for i in self.interrupts)
        return ints, multi, coal


# knob (windows per us per CPU) for a wanted coalesced fraction, from runs of
# this model (interpolated in log-log; the generator then corrects per trace)
KNOB_TABLE = [(0.005, 0.00055), (0.01, 0.0011), (0.05, 0.0056), (0.20, 0.034), (0.40, 0.1)]


def knob_for(frac):
    t = KNOB_TABLE
    if frac <= t[0][0]:
        return t[0][1] * frac / t[0][0]
    for (f0, k0), (f1, k1) in zip(t, t[1:]):
        if frac <= f1:
            a = (math.log(frac) - math.log(f0)) / (math.log(f1) - math.log(f0))
            return math.exp(math.log(k0) + a * (math.log(k1) - math.log(k0)))
    return t[-1][1] * frac / t[-1][0]


def simulate(ncpus, seed, frac, sends, tries=6, tol=0.25):
    """Run the model, re-running with a corrected window rate until the
    fraction of interrupts serving >1 send is within tol of frac."""
    knob = knob_for(frac) if frac > 0 else 0.0
    best = None
    for i in range(tries):
        sim = Sim(ncpus, seed, knob, sends)
        sim.tries = i + 1
        sim.run()
        ints, multi, _ = sim.stats()
        got = multi / ints if ints else 0.0
        err = abs(got - frac) / frac if frac > 0 else got
        if best is None or err < best[0]:
            best = (err, sim)
        if frac <= 0 or err <= tol:
            break
        # damped: a short trace's fraction is noisy
        ratio = frac / got if got > 0 else 4.0
        knob *= max(0.25, min(4.0, ratio ** 0.7))
    return best[1]


# ---------------------------------------------------------------------------
# The writer: trace.dat version 6, little endian, long size 8, page 4096.

# Each event is packed with its 4-byte ring-buffer header in front:
# type_len (length / 4, all these events are small) | time_delta << 5.
ST_SEND = struct.Struct("<IHBBiI4xQQ")      # ipi_send_cpu, 32 bytes
ST_QUEUE = struct.Struct("<IHBBiI4xQQQ")    # csd_queue_cpu, 40 bytes
ST_FN = struct.Struct("<IHBBiQQ")           # csd_function_entry/exit, 24 bytes
ST_VEC = struct.Struct("<IHBBii")           # irq_vectors *_entry/exit, 12 bytes
ST_EXTEND = struct.Struct("<II")
ST_PAGE = struct.Struct("<QQ")


def cpu_pages(events):
    """Ring-buffer pages (bytes) for one CPU's events, sorted by time:
    (ts_ns, seq, Struct, fields after the header)."""
    out = bytearray()
    buf = bytearray()
    page_ts = prev = None
    big = 1 << 27
    for ts, _, st, fields in events:
        size = st.size
        delta = 0 if prev is None else ts - prev
        need = size + (8 if delta >= big else 0)
        if page_ts is None or len(buf) + need > PAGE_DATA:
            if page_ts is not None:
                out += ST_PAGE.pack(page_ts, len(buf)) + buf + bytes(PAGE_DATA - len(buf))
            buf = bytearray()
            page_ts = ts
            delta = 0
        if delta >= big:
            buf += ST_EXTEND.pack(30 | ((delta & (big - 1)) << 5), delta >> 27)
            delta = 0
        buf += st.pack(((size - 4) >> 2) | (delta << 5), *fields)
        prev = ts
    if page_ts is not None:
        out += ST_PAGE.pack(page_ts, len(buf)) + buf + bytes(PAGE_DATA - len(buf))
    return bytes(out)


def write_dat(path, sim, seed):
    n = sim.n
    cpu_data = []
    for c in range(n):
        ev = sim.events[c]
        ev.sort()
        cpu_data.append(cpu_pages([(ns(ts), q, st, f) for ts, q, st, f in ev]))

    h = bytearray()
    h += b"\x17\x08\x44tracing6\0" + bytes([0, 8]) + struct.pack("<I", PAGE)
    for name, text in (("header_page", HEADER_PAGE), ("header_event", HEADER_EVENT)):
        b = text.encode()
        h += name.encode() + b"\0" + struct.pack("<Q", len(b)) + b
    h += struct.pack("<I", 0)                       # no ftrace event formats
    h += struct.pack("<I", len(SYSTEMS))
    for sysname, fmts in SYSTEMS:
        h += sysname.encode() + b"\0" + struct.pack("<I", len(fmts))
        for f in fmts:
            b = f.encode()
            h += struct.pack("<Q", len(b)) + b
    ks = KALLSYMS.encode()
    h += struct.pack("<I", len(ks)) + ks
    h += struct.pack("<I", 0)                       # no trace_printk formats
    cmd = "".join("%d coal-w%d\n" % (sim.pid[c], c) for c in range(n)).encode()
    h += struct.pack("<Q", len(cmd)) + cmd
    h += struct.pack("<I", n)
    h += b"options  \0"

    def opt(o, data):
        return struct.pack("<HI", o, len(data)) + data
    h += opt(4, b"local global counter uptime perf [mono] mono_raw boot tai x86-tsc\n\0")
    h += opt(5, b"Linux coalesce-gen 6.18.0 x86_64\0")
    h += opt(9, b"3.1.6 coalesce_gen\0")
    h += opt(11, struct.pack("<Q", random.Random(seed * 7919 + 1).getrandbits(64)))
    for c in range(n):
        ev = sim.events[c]
        first = ns(ev[0][0] if ev else 0) / 1e9
        last = ns(ev[-1][0] if ev else 0) / 1e9
        st = ("CPU: %d\nentries: 0\noverrun: 0\ncommit overrun: 0\nbytes: 0\n"
              "oldest event ts: %11.6f\nnow ts: %11.6f\ndropped events: 0\n"
              "read events: %d\n" % (c, first, last, len(ev))).encode() + b"\0"
        h += opt(2, st)
    h += opt(8, struct.pack("<I", n))
    h += struct.pack("<H", 0)
    h += b"flyrecord\0"
    off = len(h) + 16 * n
    off = (off + PAGE - 1) // PAGE * PAGE
    table = bytearray()
    for c in range(n):
        table += struct.pack("<QQ", off, len(cpu_data[c]))
        off += len(cpu_data[c])
    h += table
    h += bytes((-len(h)) % PAGE)
    tmp = path + ".tmp%d" % os.getpid()
    with open(tmp, "wb") as f:
        f.write(h)
        for d in cpu_data:
            f.write(d)
    os.replace(tmp, path)


def write_truth(path, sim):
    rows = sorted(sim.sends, key=lambda r: (r[0], r[1], r[2]))
    with open(path, "w") as f:
        f.write("send_ts_ns,src_cpu,target_cpu,kind,entry_ts_ns,coalesced\n")
        for t, s, tg, kind, entry, coal in rows:
            f.write("%d,%d,%d,%s,%d,%s\n" % (ns(t), s, tg, kind, ns(entry),
                                              "true" if coal else "false"))


def generate(ncpus, seed, frac, sends, out, truth, quiet=False):
    """Simulate, write OUT and TRUTH; returns the summary as a dict."""
    sim = simulate(ncpus, seed, frac, sends)
    assert all(r[4] is not None for r in sim.sends), "a send left pending"
    assert not any(sim.queue) and not any(sim.pending), "work left at the end"
    write_dat(out, sim, seed)
    if truth:
        write_truth(truth, sim)
    ints, multi, coal = sim.stats()
    s = {"sends": len(sim.sends), "interrupts": ints, "multi": multi,
         "fraction": multi / ints if ints else 0.0, "coalesced_sends": coal,
         "knob": sim.knob, "tries": sim.tries}
    if not quiet:
        print("coalesce_gen: cpus %d seed %d: %d sends, %d interrupts, "
              "%.4f of interrupts serve >1 send (wanted %.4f), %d sends coalesced"
              % (ncpus, seed, s["sends"], ints, s["fraction"], frac, coal), file=sys.stderr)
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cpus", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--coalesce", type=float, default=0.05,
                    help="wanted fraction of interrupts serving two or more sends")
    ap.add_argument("--sends", type=int, default=8000)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--truth")
    a = ap.parse_args()
    if a.cpus < 2:
        ap.error("--cpus must be at least 2")
    if not 0 <= a.coalesce < 0.9:
        ap.error("--coalesce must be in [0, 0.9)")
    generate(a.cpus, a.seed, a.coalesce, a.sends, a.output, a.truth)


if __name__ == "__main__":
    main()
