#!/usr/bin/python3
# spikes_html_check.py NAME TEXT HTML - the "Latency spikes" section of
# `ipitrace report --html` against the test's own reading of the trace-cmd
# report text (ns timestamps): the timerlat thread samples (and osnoise's
# sample_threshold ones, seq 0, covering [ts - duration, ts]), the worst 10 on
# each CPU (ties: the earlier first), then all of them by latency (then CPU,
# then time); the page draws the worst 20 in that order, each with as many
# noise bars as osnoise noise lines on its CPU end inside its window
# [ts - latency, ts], a csd bar per csd_function_entry line on its CPU
# inside it, and an IPI bar per IPI vector entry inside it when the text has
# ipi_send_* lines (the others' sends are kprobes, which a text does not
# define: no IPI joined).  Prints "PASS name" / "FAIL name: why".
import re
import sys
from html.parser import HTMLParser

from spikes_text import records

name, text, page = sys.argv[1], sys.argv[2], sys.argv[3]
samples, ends, csd, entries, has_sends = [], [], [], [], False
for cpu, ns, ev, rest in records(text):
    if ev == "timerlat":
        t = re.match(r"seq:(\d+)\s+context:(\d+)\s+timer_latency:(\d+)", rest)
        if t and t.group(2) == "1":
            samples.append((cpu, int(t.group(1)), ns, int(t.group(3))))
    elif ev == "sample_threshold":
        # an osnoise sample: seq 0, the gap [ts - duration, ts]
        t = re.match(r"start \d+\.\d{9} duration (\d+) ns interference \d+$", rest)
        if t:
            samples.append((cpu, 0, ns, int(t.group(1))))
    elif ev in ("irq_noise", "softirq_noise", "nmi_noise", "thread_noise"):
        ends.append((cpu, ns))
    elif ev == "csd_function_entry":
        csd.append((cpu, ns))
    elif ev in ("call_function_entry", "call_function_single_entry", "reschedule_entry"):
        entries.append((cpu, ns))
    elif ev.startswith("ipi_send_"):
        has_sends = True
chosen = []
for c in sorted({s[0] for s in samples}):
    chosen += sorted((s for s in samples if s[0] == c), key=lambda s: (-s[3], s[2]))[:10]
chosen.sort(key=lambda s: (-s[3], s[0], s[2]))
inside = lambda evs, c, ts, lat: sum(1 for (nc, e) in evs if nc == c and ts - lat <= e <= ts)
want = [(c, seq, lat, inside(entries, c, ts, lat) if has_sends else 0, inside(csd, c, ts, lat),
         inside(ends, c, ts, lat)) for (c, seq, ts, lat) in chosen[:20]]


class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.got, self.sec, self.ipi, self.noise = [], False, 0, 0

    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "section" and a.get("id") == "spikes":
            self.sec = True
        if not self.sec:
            return
        if tag == "svg" and a.get("class") == "spike":
            self.got.append([int(a["data-cpu"]), int(a["data-seq"]), int(a["data-latency-ns"]),
                             int(a["data-ipis"]), int(a["data-csd"]), int(a["data-noise"]), 0, 0, 0])
        elif tag == "rect" and self.got and a.get("class") in ("ipi", "csd", "noise"):
            self.got[-1][6 + ("ipi", "csd", "noise").index(a["class"])] += 1

    def handle_endtag(self, tag):
        if tag == "section":
            self.sec = False


p = P()
p.feed(open(page, errors="replace").read())
got = [tuple(g[:6]) for g in p.got]
bars = [tuple(g[6:]) for g in p.got]
ok = got == want and bars == [w[3:] for w in want] and want
print(("PASS %s: %d spikes drawn, the worst %.1f us on CPU %d, %d IPI, %d csd and %d noise bars, as read here "
       "from trace-cmd's text" % (name, len(got), want[0][2] / 1e3, want[0][0], sum(w[3] for w in want),
                                  sum(w[4] for w in want), sum(w[5] for w in want))) if ok else
      "FAIL %s: want %s, got %s (bars %s)" % (name, want[:4], got[:4], bars[:4]))
