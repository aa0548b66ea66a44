#!/usr/bin/env python3
"""top_compare.py - compare `ipitrace top --once --format json -t 0` with a
tracefs instance's `trace` text over the same window, for the sends of tasks
whose command starts with PREFIX: per (event, target CPU) and per (event,
target CPU, call site, callback or function).  Prints the differences (none:
one line "same: N sends, M keys") and exits 1 if there are any.

The trace names a task by its pid as it is at the end (saved cmdlines), so
the sends of a forked child before it execs the workload would be named
after the workload; the trace's sched_process_exec events say from when
each such pid is the workload (BPF takes the command at the send)."""
import json
import re
import sys
from collections import Counter

LINE = re.compile(r'^\s*(.*)-(\d+)\s+\[(\d+)\]\s+\S+\s+[\d.]+: '
                  r'(ipi_send_cpu|ipi_send_cpumask|csd_queue_cpu|sched_process_exec): (.*)$')


def norm(sym):
    """'f+0x1d/0x60' -> 'f+0x1d', 'f+0x0/0x10' -> 'f', '0x0' -> '0'"""
    sym = re.sub(r'/0x[0-9a-f]+$', '', sym)
    sym = re.sub(r'\+0x0$', '', sym)
    return '0' if sym in ('0x0', '(nil)') else sym


def cpulist(s):
    out = []
    for part in s.split(','):
        if '-' in part:
            a, b = part.split('-')
            out += range(int(a), int(b) + 1)
        elif part:
            out.append(int(part))
    return out


def trace_counts(trace, prefix, join=False, exec_fix=True):
    """the sends of tasks whose command starts with prefix in a trace text:
    Counters per (event, target) and per (event, target, callsite, addr2);
    join: addr2 of a send with a callback is the function of the
    csd_queue_cpu queued before it from the same CPU for the same target
    (if any; taken once), as `convert` joins them; exec_fix: a pid's sends
    before its sched_process_exec are not the workload's (BPF names the
    sender at the send), else as the trace names them"""
    pending = {}
    per_cpu, per_site = Counter(), Counter()
    lines = open(trace, errors='replace').readlines()
    execs = set()
    for line in lines:
        m = LINE.match(line)
        if m and m.group(4) == 'sched_process_exec':
            execs.add(m.group(2))
    exec_seen = set()
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        ev, rest, pid, cpu = m.group(4), m.group(5), m.group(2), int(m.group(3))
        mine = m.group(1).strip().startswith(prefix)
        if ev == 'sched_process_exec':
            if mine:
                exec_seen.add(pid)
            continue
        f = dict(kv.split('=', 1) for kv in rest.split() if '=' in kv)
        addr2 = norm(f.get('func', f.get('callback', '0')))
        targets = cpulist(f['cpumask']) if ev == 'ipi_send_cpumask' else [int(f['cpu'])]
        if join and ev == 'csd_queue_cpu':
            pending[(cpu, targets[0])] = addr2
        for t in targets:
            a2 = addr2
            if join and ev != 'csd_queue_cpu' and addr2 != '0' and (cpu, t) in pending:
                a2 = pending.pop((cpu, t))
            if not mine or (exec_fix and pid in execs and pid not in exec_seen):
                continue    # another task, or before the exec: not yet the workload
            per_cpu[(ev, t)] += 1
            per_site[(ev, t, norm(f['callsite']), a2)] += 1
    return per_cpu, per_site


def main():
    top, trace, prefix = sys.argv[1], sys.argv[2], sys.argv[3]
    # --names-as-saved: top read tracefs text too (the fallback)
    per_cpu, per_site = trace_counts(trace, prefix, exec_fix='--names-as-saved' not in sys.argv[4:])
    b_cpu, b_site = Counter(), Counter()
    d = json.load(open(top))
    for c in d['cpus']:
        for s in c['senders']:
            if not s['comm'].startswith(prefix):
                continue
            addr2 = norm(s.get('func', s.get('callback', '0')))
            b_cpu[(s['event'], c['cpu'])] += s['count']
            b_site[(s['event'], c['cpu'], norm(s['callsite']), addr2)] += s['count']
    bad = 0
    for name, a, b in (('per target CPU', per_cpu, b_cpu), ('per call site', per_site, b_site)):
        for k in sorted(set(a) | set(b), key=str):
            if a[k] != b[k]:
                bad += 1
                print('%s %s: tracefs %d, top %d' % (name, k, a[k], b[k]))
    if bad:
        sys.exit(1)
    print('same: %d sends, %d keys' % (sum(per_cpu.values()), len(per_site)))


if __name__ == '__main__':
    main()
