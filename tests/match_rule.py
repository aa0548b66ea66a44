#!/usr/bin/python3
# match_rule.py - the matching rule of docs/matching.md ("How ipitrace ties a
# send to the interrupt that served it"), for the test oracles
# (tests/oracle.py, tests/attrib_oracle.py): which interrupt served each
# send, whether it coalesced, and why an interrupt served none.  Written
# from the document, not from lib/ipi/match.c; the oracles feed it the
# events they parse from `trace-cmd report` text.  Standard library only.
#
#   m = Matcher(cross_ok)       cross_ok: the clock compares across CPUs (or
#                               --assume-synced-clock): a send from another
#                               CPU may then count as a quickest delivery
#   s = m.send(target, cls, ts, src, obj)   a send queued on its target
#   i = m.entry(cpu, cls, ts) / m.exit(cpu, cls, ts)   an interrupt
#   m.drop(cpu, prev_ts, ts)    events lost on cpu between its records at
#                               prev_ts (0: it had none before) and ts
#   m.end(reason)               reason(send): why a send left waiting at the
#                               end was never served
#   m.causes(first, lost_first) the cause of each interrupt with no send
#
# A send is a dict: ts, src, target, cls, obj (the caller's), intr (the
# interrupt that served it, or None), coalesced, reason (unmatched).  An
# interrupt is a dict: cpu, cls, ts, exit (None: not seen), served (sends
# it served; the sends coalesced into it at the end are not counted there:
# whether an interrupt had a send is decided during the trace), unsent
# (it found no send).
CHAIN_MAX = 16		# sends in one chain of guesses
SOLE_MIN = 64		# quickest deliveries seen before "too late" applies
UNDECIDED_MAX = 256 << 20	# interrupts with no send whose cause is decided (2 M where
			# no temporary file can be made: docs/matching.md)
QUEUE_MAX = 1024	# sends waiting on one CPU for one class
CALLS = ("call", "call_single")	# function-call vectors; "call_any": either serves


class Matcher:
    def __init__(self, cross_ok):
        self.cross_ok = cross_ok
        self.queue = {}		# (cpu, cls) -> [send], oldest first
        self.chain = {}		# (cpu, interrupt cls) -> [(send, interrupt)]
        self.last = {}		# (cpu, cls) -> the last interrupt of that class
        self.open = {}		# (cpu, cls) -> the interrupt running
        self.sends = []
        self.intrs = []
        self.unsent = []	# interrupts that found no send, in trace order
        self.windows = []	# (from, to): events lost between two records
        self.quickest = None	# the smallest delivery of a send alone
        self.nquick = 0		# ... of so many sends
        self.gave_up = []	# sends dropped from a full queue (no_handler)

    # -- the rule's pieces --
    def late_bound(self):
        """rule 1: a send traced less than this before an entry came too
        late for it: half the quickest delivery seen so far, once SOLE_MIN
        were seen"""
        return self.quickest // 2 if self.nquick >= SOLE_MIN else 0

    def serve(self, s, intr, coalesced, count=True):
        s["intr"] = intr
        s["coalesced"] = coalesced
        if count:
            intr["served"] += 1

    def keep(self, chain):
        """a guess decided "no": each send of the chain stays with its
        interrupt (the first coalesced into it, the others raised theirs)"""
        for k, (s, intr) in enumerate(chain):
            self.serve(s, intr, k == 0)

    def move(self, chain, intr):
        """a guess decided "yes": each send of the chain raised the
        interrupt after its own, the last one intr"""
        later = [i for _, i in chain[1:]] + [intr]
        for (s, _), i in zip(chain, later):
            self.serve(s, i, False)

    # -- events --
    def send(self, target, cls, ts, src, obj):
        s = {"ts": ts, "src": src, "target": target, "cls": cls, "obj": obj,
             "intr": None, "coalesced": None, "reason": None}
        self.sends.append(s)
        q = self.queue.setdefault((target, cls), [])
        q.append(s)
        if len(q) > QUEUE_MAX:
            old = q.pop(0)
            old["reason"] = "no_handler"
            self.gave_up.append(old)
        return s

    def entry(self, cpu, cls, ts):
        # late: rule 1's bound for this interrupt, as it stood at its entry
        intr = {"cpu": cpu, "cls": cls, "ts": ts, "exit": None, "served": 0, "unsent": False,
                "late": self.late_bound()}
        self.intrs.append(intr)
        key = (cpu, cls)
        if cls in CALLS and not self.queue.get(key) and self.queue.get((cpu, "call_any")):
            key = (cpu, "call_any")		# its own class has nothing waiting
        if cls in CALLS:
            self.last[(cpu, "call_any")] = intr
        self.last[(cpu, cls)] = intr
        self.open[(cpu, cls)] = intr
        q = self.queue.get(key, [])
        n = 0				# rule 1: the sends not too late for it
        while n < len(q) and ts - q[n]["ts"] >= intr["late"]:
            n += 1
        if not n and not self.chain.get((cpu, cls)):
            n = len(q)			# rule 1's exception: nothing else raised it
        found, self.queue[key] = q[:n], q[n:]
        chain = self.chain.pop((cpu, cls), None)
        if chain:
            if not found:		# nothing else sent: the newest raised this one
                self.move(chain, intr)
                return intr
            if len(found) == 1 and len(chain) < CHAIN_MAX:
                chain.append((found[0], intr))	# the guess goes on
                self.chain[(cpu, cls)] = chain
                return intr
            self.keep(chain)
        if not found:
            intr["unsent"] = True
            self.unsent.append(intr)
            return intr
        # rule 2: the oldest raised it, the others coalesced
        for k, s in enumerate(found[:-1]):
            self.serve(s, intr, k > 0)
        if len(found) > 1:		# rule 3: the newest of several is held
            self.chain[(cpu, cls)] = [(found[-1], intr)]
            return intr
        s = found[0]
        self.serve(s, intr, False)
        if s["src"] == cpu or self.cross_ok:	# alone: a delivery time
            d = ts - s["ts"]
            self.quickest = d if self.quickest is None else min(self.quickest, d)
            self.nquick += 1
        return intr

    def exit(self, cpu, cls, ts):
        intr = self.open.pop((cpu, cls), None)
        if intr is not None:
            intr["exit"] = ts

    def drop(self, cpu, prev_ts, ts):
        """events were lost on cpu: held sends stay with their interrupts,
        waiting sends may have had their interrupt in the gap (unmatched),
        its open handlers and last interrupts are forgotten"""
        self.windows.append((prev_ts, ts))
        for key in [k for k in self.chain if k[0] == cpu]:
            self.keep(self.chain.pop(key))
        for key in [k for k in self.queue if k[0] == cpu]:
            for s in self.queue.pop(key):
                s["reason"] = "lost_events"
        for d in (self.last, self.open):
            for key in [k for k in d if k[0] == cpu]:
                del d[key]

    @staticmethod
    def unmatched_reason(s, have_recv, last_ts, lost_cpus):
        """why send s, still waiting at the end, found no interrupt:
        no receive event of its vector (or nothing recorded on the target),
        events lost on the target, sent after the target's last record, or
        none came (have_recv: the classes with receive events; last_ts: each
        CPU's last record; lost_cpus: the CPUs that lost events)"""
        cpu, cls = s["target"], s["cls"]
        if cls not in have_recv or cpu not in last_ts:
            return "no_receive_events"
        if cpu in lost_cpus:
            return "lost_events"
        if s["ts"] >= last_ts.get(cpu, -1):
            return "trace_ended"
        return "no_handler"

    def end(self, reason):
        """the end of the trace: held sends stay with their interrupts; a
        send still waiting that the last interrupt of its class could have
        served (traced before its entry and not too late for it, by the
        quickest delivery seen up to that interrupt, as rule 1 judged then)
        coalesced into it; the rest: reason(send)"""
        for key in list(self.chain):
            self.keep(self.chain.pop(key))
        for key, q in self.queue.items():
            last = self.last.get(key)
            for s in q:
                if last is not None and s["ts"] <= last["ts"] and last["ts"] - s["ts"] >= last["late"]:
                    self.serve(s, last, True, count=False)
                else:
                    s["reason"] = reason(s)
        self.queue = {}

    def causes(self, first, lost_first):
        """[(interrupt, cause)] for the interrupts with no send.  first: each
        CPU's first record; lost_first: the CPUs whose first record follows
        lost events (a drop mark, or a tracefs header's loss)"""
        lat = [max(0, s["intr"]["ts"] - s["ts"]) for s in self.sends if s["intr"] is not None]
        largest = max(lat, default=0)
        starts = max([t for c, t in first.items() if c not in lost_first], default=0)
        out = []
        for k, intr in enumerate(self.unsent):
            ts = intr["ts"]
            if k >= UNDECIDED_MAX:
                why = "unknown"
            elif any(f < ts and t > ts - largest for f, t in self.windows):
                why = "lost_events"
            elif ts < starts:
                why = "before_trace_start"
            else:
                why = "untraced_path"
            out.append((intr, why))
        return out
