#!/usr/bin/python3
"""ustacks_check.py - the independent side of test_ustacks.sh.

Reads `trace-cmd report -l` text of a recording made with
`ipitrace record --user-stacks` and counts, with its own parser, the IPI
sends by the workload whose user stack (the ftrace user_stack record that
follows the send on its CPU in the same context, task, softirq or hardirq,
raw addresses as trace-cmd prints them) holds a return address inside
run_membarrier, as the workload placed it in memory (its own printout)
and `nm -S` sizes it; sends made in interrupt
context (latency flags h/s/z) do not count: their user stack is the
interrupted task's.  Then compares with ipitrace's folded stacks.

Each run of the workload is its own process, loaded elsewhere (ASLR):
the same path in two processes must still be one stack in the report's
groups by stack (GROUPS: `report -g stack -f json`).

usage: ustacks_check.py TC_TEXT WL_ERR SIZE FOLDED GROUPS_JSON
(WL_ERR: the workloads' "addr run_membarrier 0x.. pid N" lines)
prints "P name: ..." / "F name: ..." lines.
"""
import json
import re
import sys

tc_text, wl_err, size, folded, groups = sys.argv[1:6]
place = {}          # pid -> [lo, hi) of run_membarrier in that process
with open(wl_err) as f:
    for line in f:
        m = re.match(r'addr run_membarrier 0x([0-9a-f]+) pid (\d+)', line)
        if m:
            lo = int(m.group(1), 16)
            place[int(m.group(2))] = (lo, lo + int(size, 16))

# comm-pid [cpu] or (with -l) comm-pid cpu flags ts: name: rest
rec_l = re.compile(r'^\s*(.+?)-(\d+)\s+(\d+)(\S{4,6})\s+\d+\.\d+:\s+(\w+):\s*(.*)$')
cont = re.compile(r'^\s*=> (0x[0-9a-f]+)')

events = []        # (cpu, name, pid, flags, rest, [addresses])
with open(tc_text, errors='replace') as f:
    for line in f:
        m = rec_l.match(line)
        if m:
            comm, pid, cpu, flags, name, rest = m.groups()
            addrs = []
            if name == 'user_stack':
                a = re.search(r'=> (0x[0-9a-f]+)', rest)
                if a:
                    addrs.append(int(a.group(1), 16))
            events.append([int(cpu), name, int(pid), flags, rest, addrs])
            continue
        m = cont.match(line)
        if m and events and events[-1][1] == 'user_stack':
            events[-1][5].append(int(m.group(1), 16))

def targets(name, rest):
    if name == 'ipi_send_cpu':
        return 1
    m = re.search(r'cpumask=(\S+)', rest)
    if not m:
        return 1
    v = m.group(1)
    if v.startswith('0x') or re.fullmatch(r'[0-9a-f,]+', v):
        return bin(int(v.replace(',', ''), 16)).count('1')
    n = 0                     # a CPU list
    for part in v.split(','):
        a, _, b = part.partition('-')
        n += (int(b) - int(a) + 1) if b else 1
    return n

def level(flags):
    """the context a record was written in, from its latency flags: 0 task,
    1 softirq, 2 hardirq, 3 NMI (an interrupt can come between a send and
    its user stack: its own send and user stack then sit between them)"""
    c = flags[2] if len(flags) >= 3 else '.'
    return {'s': 1, 'S': 1, 'h': 2, 'H': 2, 'z': 3, 'Z': 3}.get(c, 0)


last = {}           # (cpu, context) -> index of its last send event
want = 0
in_irq = 0
sends_by_wl = 0
for i, e in enumerate(events):
    cpu, name, pid, flags, rest, addrs = e
    key = (cpu, level(flags))
    if name in ('ipi_send_cpu', 'ipi_send_cpumask'):
        last[key] = i
        continue
    if name != 'user_stack':
        last.pop(key, None)   # the user stack comes right after its send
        continue
    j = last.pop(key, None)
    if j is None:
        continue
    s = events[j]
    if s[2] not in place:
        continue
    lo, hi = place[s[2]]
    sends_by_wl += 1
    if len(s[3]) >= 3 and s[3][2] in 'hHsSzZ':
        in_irq += 1
        continue
    # return addresses (frames after the first) point just past their call
    if any(lo < a <= hi for a in addrs[1:]) or (addrs and lo <= addrs[0] < hi):
        want += targets(s[1], s[4])

got = 0
with open(folded) as f:
    for line in f:
        stack, _, count = line.rstrip('\n').rpartition(' ')
        frames = stack.split(';')
        if 'run_membarrier' in frames[1:]:
            got += int(count)

print("# trace-cmd: %d sends by %d workload processes with a user stack, %d in interrupt "
      "context; %d rows through run_membarrier; ipitrace folded: %d"
      % (sends_by_wl, len(place), in_irq, want, got))
if want < 100:
    print("F oracle: only %d rows through run_membarrier in trace-cmd's text (want >= 100)" % want)
elif want == got:
    print("P run_membarrier rows: ipitrace %d = trace-cmd raw addresses %d" % (got, want))
else:
    print("F run_membarrier rows: ipitrace %d, trace-cmd raw addresses %d" % (got, want))

# the groups by stack: the path through run_membarrier is one group per
# target CPU, however many processes took it
with open(groups) as f:
    rep = json.load(f)
through = {}        # target CPU -> [(stack, count)] of the groups through run_membarrier
for per_cpu in rep.get("groups") or []:
    for g in per_cpu.get("groups", []):
        st = g.get("stack") or []
        if any(fr.startswith("run_membarrier+") for fr in st):
            through.setdefault(per_cpu.get("target_cpu"), []).append((tuple(st), g.get("count", 0)))
if len(place) < 2:
    print("F groups: only %d workload processes" % len(place))
else:
    ok = True
    for cpu, gs in sorted(through.items(), key=lambda kv: str(kv[0])):
        stacks = {k for k, _ in gs}
        if len(stacks) != len(gs):
            ok = False
            print("F groups: cpu %s has %d groups for %d distinct stacks through run_membarrier"
                  % (cpu, len(gs), len(stacks)))
    total = sum(c for gs in through.values() for _, c in gs)
    if ok and total == want:
        print("P groups by stack: %d processes' run_membarrier paths in %d group(s), %d rows"
              % (len(place), sum(len(g) for g in through.values()), total))
    elif ok:
        print("F groups by stack: %d rows through run_membarrier, trace-cmd %d" % (total, want))
