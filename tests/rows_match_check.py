#!/usr/bin/env python3
"""rows_match_check.py - convert's matching columns against the report's totals
and against a trace-cmd report of the same trace.

  rows_match_check.py totals REPORT.json ROWS.csv ROWS.jsonl
      The exploded rows add up to the report (JSON): per target CPU the rows,
      matched, coalesced, lat_ns / handler_ns counts and min/max equal
      per_cpu's ipis, matched, coalesced and latency / handler distributions
      (the handler one counts an interrupt once: the rows not coalesced);
      the rows with a stack equal stacks[].with_stack; unmatched_reason
      counts equal matching.unmatched.  The JSON lines carry the same values
      as the CSV, with their JSON types (int, bool, string, list).
  rows_match_check.py noexplode ROWS.csv NE.csv
      --no-explode rows: one per send (id); a send to one CPU carries its
      exploded row's per-target values, a multicast none; callsite_func,
      func_name and stack are the exploded rows'.
  rows_match_check.py nomatch ROWS.csv
      --no-match: the columns exist; those of the matching are empty.
  rows_match_check.py all REPORT.json ROWS.csv ROWS.jsonl NE.csv NM.csv
      The three above in one process (each CSV read once): a line per
      check, "totals ok ...", "noexplode ok ...", "nomatch ok ..." or NAME
      followed by what differs; exits 1 if any differs.
  rows_match_check.py hand TRACECMD_REPORT.txt ROWS.csv N
      N sends picked from `trace-cmd report -t` (ns stamps): a resched send
      (ipi_send_cpu, callback=0x0) to another CPU, the only one to that CPU
      since its last reschedule_entry, and the next reschedule_entry /
      reschedule_exit there: lat_ns = entry - send, handler_ns = exit - entry,
      handler_ts_ns = entry, matched true, coalesced false.
Prints "ok ..." and exits 0, or prints what differs and exits 1.
"""
import contextlib
import csv
import functools
import io
import json
import re
import sys

MATCH_COLS = ['lat_ns', 'handler_ns', 'handler_ts_ns', 'matched', 'coalesced',
              'unmatched_reason', 'callsite_func', 'func_name', 'stack']
PER_TARGET = MATCH_COLS[:6]


def die(msg):
    print(msg)
    sys.exit(1)


@functools.lru_cache(maxsize=None)
def read_csv(path):
    """the header and the rows (dicts: read, never changed by a check)"""
    with open(path, newline='') as f:
        r = list(csv.reader(f))
    head, rows = r[0], r[1:]
    if head[-len(MATCH_COLS):] != MATCH_COLS:
        die(f'{path}: last columns {head[-len(MATCH_COLS):]}, expected {MATCH_COLS}')
    return head, [dict(zip(head, x)) for x in rows]


def totals(report, rows_csv, rows_jsonl):
    rep = json.load(open(report))
    _, rows = read_csv(rows_csv)
    per = {}
    reasons = {}
    for r in rows:
        c = per.setdefault(int(r['target_cpu']), {'ipis': 0, 'matched': 0, 'coalesced': 0,
                                                  'lat': [], 'hdl': [], 'stack': 0})
        c['ipis'] += 1
        if r['matched'] not in ('true', 'false'):
            die(f'matched {r["matched"]!r} (id {r["id"]}): the report matched every row')
        c['matched'] += r['matched'] == 'true'
        c['coalesced'] += r['coalesced'] == 'true'
        if r['lat_ns']:
            c['lat'].append(int(r['lat_ns']))
        if r['handler_ns'] and r['coalesced'] != 'true':	# the report: once an interrupt
            c['hdl'].append(int(r['handler_ns']))
        c['stack'] += r['stack'] != ''
        if r['unmatched_reason']:
            if r['matched'] != 'false':
                die(f'id {r["id"]}: unmatched_reason with matched {r["matched"]}')
            reasons[r['unmatched_reason']] = reasons.get(r['unmatched_reason'], 0) + 1
        elif r['matched'] == 'false':
            die(f'id {r["id"]}: not matched and no unmatched_reason')
        if r['matched'] != 'true' and (r['lat_ns'] or r['handler_ns'] or r['handler_ts_ns']):
            die(f'id {r["id"]}: times for an unmatched row')
        if r['lat_ns'] and r['handler_ts_ns'] and \
                int(r['handler_ts_ns']) - int(r['ts_ns']) != int(r['lat_ns']):
            die(f'id {r["id"]}: lat_ns {r["lat_ns"]} != handler_ts_ns - ts_ns')
    for pc in rep['per_cpu']:
        c = per.get(pc['cpu'], {'ipis': 0, 'matched': 0, 'coalesced': 0, 'lat': [], 'hdl': [],
                                'stack': 0})
        for k in ('ipis', 'matched', 'coalesced'):
            if c[k] != pc[k]:
                die(f'cpu {pc["cpu"]}: {c[k]} rows {k}, the report says {pc[k]}')
        for mine, key in ((c['lat'], 'latency'), (c['hdl'], 'handler')):
            d = pc.get(key) or {}
            if len(mine) != d.get('count', 0):
                die(f'cpu {pc["cpu"]}: {len(mine)} rows with {key}, the report counts {d.get("count")}')
            if mine and (min(mine) != d['min_ns'] or max(mine) != d['max_ns']):
                die(f'cpu {pc["cpu"]}: {key} {min(mine)}..{max(mine)}, report {d["min_ns"]}..{d["max_ns"]}')
    ws = {s['target_cpu']: s['with_stack'] for s in (rep['stacks'] or [])}
    for cpu, c in per.items():
        if c['stack'] != ws.get(cpu, 0):
            die(f'cpu {cpu}: {c["stack"]} rows with a stack, the report says {ws.get(cpu, 0)}')
    um = rep['matching']['unmatched']
    for k, v in um.items():
        if reasons.get(k, 0) != v:
            die(f'unmatched {k}: {reasons.get(k, 0)} rows, the report says {v}')
    if set(reasons) - set(um):
        die(f'unknown reasons {set(reasons) - set(um)}')
    # the JSON lines: same values, JSON types
    js = [json.loads(x) for x in open(rows_jsonl)]
    if len(js) != len(rows):
        die(f'{len(js)} JSON lines, {len(rows)} CSV rows')
    for r, j in zip(rows, js):
        if list(j)[-len(MATCH_COLS):] != MATCH_COLS:
            die(f'JSON keys {list(j)}')
        for k in ('lat_ns', 'handler_ns', 'handler_ts_ns'):
            want = int(r[k]) if r[k] else None
            if j[k] != want or (want is not None and type(j[k]) is not int):
                die(f'id {r["id"]} {k}: JSON {j[k]!r}, CSV {r[k]!r}')
        for k in ('matched', 'coalesced'):
            want = {'true': True, 'false': False, '': None}[r[k]]
            if j[k] is not want:
                die(f'id {r["id"]} {k}: JSON {j[k]!r}, CSV {r[k]!r}')
        for k in ('unmatched_reason', 'callsite_func', 'func_name'):
            if j[k] != (r[k] or None):
                die(f'id {r["id"]} {k}: JSON {j[k]!r}, CSV {r[k]!r}')
        want = r['stack'].split(';') if r['stack'] else None
        if j['stack'] != want and not (j['stack'] == [] and want is None):
            die(f'id {r["id"]} stack: JSON {j["stack"]!r}, CSV {r["stack"]!r}')
        # callsite_func: callsite_sym without its +0x..
        cs = r['callsite_sym'].rsplit('+0x', 1)[0] if r['callsite_sym'] else ''
        if r['callsite_func'] != cs:
            die(f'id {r["id"]}: callsite_func {r["callsite_func"]!r}, callsite_sym {r["callsite_sym"]!r}')
        fn = r['func_sym'] if r['func'] != '0x0' else r['callback_sym']
        if r['func_name'] != fn:
            die(f'id {r["id"]}: func_name {r["func_name"]!r}, expected {fn!r}')
    print(f'ok {len(rows)} rows, {sum(c["matched"] for c in per.values())} matched, '
          f'{sum(c["coalesced"] for c in per.values())} coalesced, unmatched {reasons}, '
          f'{sum(c["stack"] for c in per.values())} with a stack')


def noexplode(rows_csv, ne_csv):
    _, rows = read_csv(rows_csv)
    _, ne = read_csv(ne_csv)
    by_id = {}
    for r in rows:
        by_id.setdefault(r['id'], []).append(r)
    if [r['id'] for r in ne] != list(by_id):
        die('--no-explode ids are not the exploded rows\' ids in order')
    single = 0
    for r in ne:
        ex = by_id[r['id']]
        for k in PER_TARGET:
            want = ex[0][k] if r['ntargets'] == '1' else ''
            if r['ntargets'] == '1' and len(ex) != 1:
                die(f'id {r["id"]}: one target, {len(ex)} rows')
            if r[k] != want:
                die(f'id {r["id"]} {k}: {r[k]!r}, expected {want!r} (ntargets {r["ntargets"]})')
        for k in ('callsite_func', 'func_name', 'stack'):
            if r[k] != ex[0][k]:
                die(f'id {r["id"]} {k}: {r[k]!r}, the exploded row has {ex[0][k]!r}')
        single += r['ntargets'] == '1'
    print(f'ok {len(ne)} sends, {single} to one CPU')


def nomatch(rows_csv):
    _, rows = read_csv(rows_csv)
    for r in rows:
        for k in PER_TARGET + ['stack']:
            if r[k]:
                die(f'id {r["id"]} {k}: {r[k]!r} with --no-match')
        cs = r['callsite_sym'].rsplit('+0x', 1)[0] if r['callsite_sym'] else ''
        if r['callsite_func'] != cs:
            die(f'id {r["id"]}: callsite_func {r["callsite_func"]!r}')
    print(f'ok {len(rows)} rows without matching')


LINE = re.compile(r'^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(?:\S+\s+)?(\d+)\.(\d{9}):\s+(\w+):\s*(.*)$')


def hand(report_txt, rows_csv, n):
    ev = []	# (ts_ns, cpu, name, fields)
    for line in open(report_txt, errors='replace'):
        m = LINE.match(line)
        if m:
            ev.append((int(m[4]) * 10**9 + int(m[5]), int(m[3]), m[6], m[7]))
    sends = []	# (ts, src, target, resched?)
    for ts, cpu, name, f in ev:
        if name == 'ipi_send_cpu':
            t = int(re.search(r'\bcpu=(\d+)', f)[1])
            sends.append((ts, cpu, t, 'callback=0x0' in f))
        elif name == 'ipi_send_cpumask':
            for part in re.search(r'cpumask=(\S+)', f)[1].split(','):
                a, _, b = part.partition('-')
                for t in range(int(a), int(b or a) + 1):
                    sends.append((ts, cpu, t, 'callback=0x0' in f))
    entries = {}	# cpu -> [(entry ts, exit ts or None)]
    for i, (ts, cpu, name, f) in enumerate(ev):
        if name == 'reschedule_entry':
            ex = next((e[0] for e in ev[i + 1:] if e[1] == cpu and e[2] == 'reschedule_exit'), None)
            entries.setdefault(cpu, []).append((ts, ex))
    _, rows = read_csv(rows_csv)
    byrow = {(int(r['ts_ns']), int(r['src_cpu']), int(r['target_cpu'])): r for r in rows}
    done = 0
    for ts, src, tgt, resched in sends:
        if not resched or src == tgt:
            continue
        ent = entries.get(tgt, [])
        prev = max((e[0] for e in ent if e[0] < ts), default=-1)
        nxt = min((e for e in ent if e[0] > ts), default=None)
        if not nxt or nxt[1] is None:
            continue
        # the only send of any kind to tgt between its previous entry and the next
        if sum(1 for s in sends if s[2] == tgt and prev < s[0] <= nxt[0]) != 1:
            continue
        r = byrow.get((ts, src, tgt))
        if r is None:
            die(f'no row for the send at {ts} from {src} to {tgt}')
        want = {'lat_ns': str(nxt[0] - ts), 'handler_ns': str(nxt[1] - nxt[0]),
                'handler_ts_ns': str(nxt[0]), 'matched': 'true', 'coalesced': 'false',
                'unmatched_reason': ''}
        for k, v in want.items():
            if r[k] != v:
                die(f'send at {ts} cpu {src} -> {tgt}: {k} {r[k]!r}, trace-cmd says {v!r}')
        print(f'  send {ts} cpu{src}->cpu{tgt}: entry {nxt[0]} exit {nxt[1]}: '
              f'lat {want["lat_ns"]} handler {want["handler_ns"]}')
        done += 1
        if done == n:
            break
    if done < n:
        die(f'only {done} unambiguous sends found, {n} wanted')
    print(f'ok {done} sends computed by hand')


def all_checks(report, rows_csv, rows_jsonl, ne_csv, nm_csv):
    bad = 0
    for name, fn, args in (('totals', totals, (report, rows_csv, rows_jsonl)),
                           ('noexplode', noexplode, (rows_csv, ne_csv)),
                           ('nomatch', nomatch, (nm_csv,))):
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                fn(*args)
        except SystemExit as e:
            bad += e.code != 0
        lines = out.getvalue().strip().splitlines() or ['no verdict']
        print(name, lines[-1])
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    a = sys.argv[1:]
    if a and a[0] == 'all' and len(a) == 6:
        all_checks(*a[1:])
    elif a and a[0] == 'totals' and len(a) == 4:
        totals(*a[1:])
    elif a and a[0] == 'noexplode' and len(a) == 3:
        noexplode(*a[1:])
    elif a and a[0] == 'nomatch' and len(a) == 2:
        nomatch(a[1])
    elif a and a[0] == 'hand' and len(a) == 4:
        hand(a[1], a[2], int(a[3]))
    else:
        die(__doc__)
