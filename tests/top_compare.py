#!/usr/bin/env python3
"""top_compare.py - compare `ipitrace top --once --format json -t 0` with a
tracefs instance's `trace` text over the same window, for the sends of tasks
whose command starts with PREFIX: per (event, target CPU) and per (event,
target CPU, call site, callback or function).  Prints the differences (none:
one line "same: N sends, M keys") and exits 1 if there are any.

Which pids are the workload is read from the instance's own fork and exec
events (their comm and filename fields are recorded with the event), not
from the names the text prints: those come from the kernel's saved
cmdlines, a cache the kernel fills when it can, at read time.  A pid is
the workload's from its sched_process_exec of a file named PREFIX..., and a
task it forks (sched_process_fork child_comm PREFIX...) for all its life.
A trace without such events (a text of ipitrace's own) is read by name.

BPF takes the command at the send; exec changes it a little before the
exec event fires, so a send of the workload's pid just before its exec
event may be named either way: those are counted as unsure, and a count
between the sure sends and the sure plus the unsure ones is accepted (and
said)."""
import json
import re
import sys
from collections import Counter

LINE = re.compile(r'^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\S+)\s+[\d.]+: '
                  r'(ipi_send_cpu|ipi_send_cpumask|csd_queue_cpu|sched_process_exec|sched_process_fork): (.*)$')
EXEC = re.compile(r'filename=(.*) pid=(\d+) old_pid=\d+$')
FORK = re.compile(r'comm=.* pid=\d+ child_comm=(.*) child_pid=(\d+)$')


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


def trace_counts(trace, prefix, join=False, unsure=None):
    """the sends of the workload (tasks whose command starts with prefix)
    in a trace text: Counters per (event, target) and per (event, target,
    callsite, addr2); join: addr2 of a send with a callback is the function
    of the csd_queue_cpu queued before it from the same CPU for the same
    target (if any; taken once), as `convert` joins them; a pid's sends
    before its exec are not the workload's (BPF names the sender at the
    send); unsure: a pair of Counters, filled with those sends, which BPF
    may have named either way"""
    pending = {}
    per_cpu, per_site = Counter(), Counter()
    lines = open(trace, errors='replace').readlines()
    by_pid = False          # the workload's pids known from fork and exec events
    forked, execed = set(), set()
    for line in lines:
        m = LINE.match(line)
        if not m or m.group(5) not in ('sched_process_exec', 'sched_process_fork'):
            continue
        if m.group(5) == 'sched_process_exec':
            e = EXEC.match(m.group(6))
            if e and e.group(1).rsplit('/', 1)[-1].startswith(prefix):
                execed.add(e.group(2))
                by_pid = True
        else:
            f = FORK.match(m.group(6))
            if f and f.group(1).startswith(prefix):
                forked.add(f.group(2))
                by_pid = True
    exec_seen = set()
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        ev, rest, pid, cpu = m.group(5), m.group(6), m.group(2), int(m.group(3))
        if ev == 'sched_process_fork':
            continue
        if ev == 'sched_process_exec':
            e = EXEC.match(rest)
            if e and e.group(2) in execed:
                exec_seen.add(e.group(2))
            continue
        if by_pid:
            mine = pid in forked or (pid in execed and pid in exec_seen)
            maybe = not mine and pid in execed
        else:
            mine = m.group(1).strip().startswith(prefix)
            maybe = False
        f = dict(kv.split('=', 1) for kv in rest.split() if '=' in kv)
        addr2 = norm(f.get('func', f.get('callback', '0')))
        targets = cpulist(f['cpumask']) if ev == 'ipi_send_cpumask' else [int(f['cpu'])]
        if join and ev == 'csd_queue_cpu':
            pending[(cpu, targets[0])] = addr2
        for t in targets:
            a2 = addr2
            if join and ev != 'csd_queue_cpu' and addr2 != '0' and (cpu, t) in pending:
                a2 = pending.pop((cpu, t))
            key_cpu, key_site = (ev, t), (ev, t, norm(f['callsite']), a2)
            if mine:
                per_cpu[key_cpu] += 1
                per_site[key_site] += 1
            elif maybe and unsure is not None:
                unsure[0][key_cpu] += 1
                unsure[1][key_site] += 1
    return per_cpu, per_site


def nameless(trace):
    """the send lines the text names '<...>' (the saved cmdlines had no name)"""
    n = 0
    for line in open(trace, errors='replace'):
        m = LINE.match(line)
        n += bool(m and m.group(1).strip() == '<...>' and m.group(5).startswith(('ipi', 'csd')))
    return n


def differences(title, want, got, unsure, name):
    """lines for the keys where got is not within [want, want + unsure]"""
    out = []
    for k in sorted(set(want) | set(got), key=str):
        if not want[k] <= got[k] <= want[k] + unsure[k]:
            out.append('%s %s: tracefs %d%s, %s %d' % (
                title, k, want[k], ' (+%d unsure)' % unsure[k] if unsure[k] else '', name, got[k]))
    return out


def main():
    top, trace, prefix = sys.argv[1], sys.argv[2], sys.argv[3]
    unsure = (Counter(), Counter())
    per_cpu, per_site = trace_counts(trace, prefix, unsure=unsure)
    b_cpu, b_site = Counter(), Counter()
    d = json.load(open(top))
    for c in d['cpus']:
        for s in c['senders']:
            if not s['comm'].startswith(prefix):
                continue
            # top gives each address ("0x...", null: none) and its symbol apart
            f2 = ('func', 'func_name') if s['event'] == 'csd_queue_cpu' else ('callback', 'callback_sym')
            addr2 = norm(s[f2[1]] or s[f2[0]] or '0')
            site = norm(s['callsite_sym'] or s['callsite'] or '0')
            b_cpu[(s['event'], c['cpu'])] += s['count']
            b_site[(s['event'], c['cpu'], site, addr2)] += s['count']
    bad = differences('per target CPU', per_cpu, b_cpu, unsure[0], 'top')
    bad += differences('per call site', per_site, b_site, unsure[1], 'top')
    if bad:
        print('\n'.join(bad))
        print('(sends in the text without a name: %d; top: %d sends of %s, %d in all)' % (
            nameless(trace), sum(b_cpu.values()), prefix,
            sum(s['count'] for c in d['cpus'] for s in c['senders'])))
        sys.exit(1)
    u = sum(unsure[0].values())
    taken = sum(b_cpu.values()) - sum(per_cpu.values())
    print('same: %d sends, %d keys%s' % (sum(per_cpu.values()), len(per_site),
          '; of %d sends just before an exec, top named %d the workload\'s' % (u, taken) if u else ''))


if __name__ == '__main__':
    main()
