#!/usr/bin/python3
"""comm_check.py CMDLINES REPORT_TXT JSON - the task names of a report
against trace-cmd's: a sender's comm is its saved command line (trace-cmd
dump --cmd-lines), else the name of its first sched_switch mention in
`trace-cmd report` order (prev before next), else "<...>"; pid 0 is
"<idle>".  Prints the number of senders checked and of names learnt from
sched_switch; exits 1 with the first difference."""
import json
import re
import sys

cmdlines = {}
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"^(\d+) (.*)$", line.rstrip("\n"))
    if m:
        cmdlines[int(m.group(1))] = m.group(2)
first = {}
sw = re.compile(r"sched_switch:\s+(.*):(\d+) \[\d+\] \S+ ==> (.*):(\d+) \[\d+\]")
for line in open(sys.argv[2], errors="replace"):
    m = sw.search(line)
    if not m:
        continue
    for name, pid in ((m.group(1), int(m.group(2))), (m.group(3), int(m.group(4)))):
        if pid > 0 and pid not in cmdlines and pid not in first:
            first[pid] = name
rep = json.load(open(sys.argv[3]))
checked = learnt = 0
for s in rep.get("senders", []):
    pid, comm = s["pid"], s["comm"]
    want = "<idle>" if pid == 0 else cmdlines.get(pid, first.get(pid, "<...>"))
    if comm != want:
        sys.exit(f"pid {pid}: report says {comm!r}, trace-cmd's cmdlines and sched_switch say {want!r}")
    checked += 1
    learnt += pid in first
print(checked, learnt)
