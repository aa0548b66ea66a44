#!/usr/bin/python3
"""schema_validate.py - ipitrace's JSON outputs against docs/schema/, with
the jsonschema module (Debian's python3-jsonschema), for tests/test_schema.sh.
Each command prints verdict lines: "P name: figures", "F name: why".

  meta SCHEMA...             each schema is a valid JSON Schema (its
                             metaschema, jsonschema's check_schema), strict
                             (every object of it closed: additionalProperties
                             false) and pins its "schema" member with a const
  valid NAME SCHEMA FILE...  every document (a .jsonl file: every line) follows
                             SCHEMA
  doctored NAME SCHEMA FILE  the first document of FILE, doctored in ways the
                             schema must refuse (a required member taken out,
                             a member of the wrong type, an unknown member,
                             another version; deeper ones by the document's
                             kind), is refused each time
  fake-serve SOCK LOG        answer GET /snapshot on the unix socket SOCK as
                             `ipitrace serve` does, with counts known here
                             (see SENDS), logging the CLOCK_MONOTONIC time of
                             each answer to LOG; until killed
  top-fake NAME JSONL LOG    top's intervals read from fake-serve: their
                             start_ns/end_ns are the fake's times, chained,
                             their counts and addresses the fake's
"""
import copy
import json
import os
import socket
import sys
import time

try:
    import jsonschema
except ImportError:
    jsonschema = None


def validator(path):
    s = json.load(open(path))
    cls = jsonschema.validators.validator_for(s)
    return s, cls(s)


def docs(path):
    text = open(path, 'rb').read().decode('utf-8')
    if path.endswith('.jsonl'):
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return [json.loads(text)]


def open_objects(s, where='$'):
    """the object schemas in s that are not closed (additionalProperties
    false), other than those left open on purpose (no "properties")"""
    out = []
    if isinstance(s, dict):
        if s.get('properties') is not None and s.get('additionalProperties') is not False \
                and 'type' in s:
            out.append(where)
        for k, v in s.items():
            out += open_objects(v, where + '/' + k)
    elif isinstance(s, list):
        for i, v in enumerate(s):
            out += open_objects(v, '%s/%d' % (where, i))
    return out


def meta(paths):
    for p in paths:
        name = 'schema-meta-' + os.path.basename(p).replace('.json', '')
        try:
            s = json.load(open(p))
            cls = jsonschema.validators.validator_for(s)
            cls.check_schema(s)
        except Exception as e:  # a bad schema, whatever jsonschema raised
            print('F %s: %s' % (name, str(e).splitlines()[0]))
            continue
        opn = open_objects(s)
        ver = s.get('properties', {}).get('schema', {}).get('const')
        if opn:
            print('F %s: objects without additionalProperties false: %s' % (name, ', '.join(opn[:3])))
        elif not ver or 'schema' not in s.get('required', []):
            print('F %s: no required "schema" member pinned by a const' % name)
        else:
            print('P %s: %s, %s, %s' % (name, cls.__name__, s['$schema'].split('/')[-2], ver))


def valid(name, schema, files):
    _, v = validator(schema)
    n, bad, what = 0, [], {}
    for f in files:
        for i, d in enumerate(docs(f)):
            n += 1
            # what they hold, for the figures: rows by event, senders
            for r in d.get('rows', []):
                what[r['event']] = what.get(r['event'], 0) + 1
            for c in d.get('cpus', []) if isinstance(d.get('cpus'), list) else []:
                what['senders'] = what.get('senders', 0) + len(c.get('senders', []))
            e = jsonschema.exceptions.best_match(v.iter_errors(d))
            if e is not None:
                bad.append('%s#%d at %s: %s' % (os.path.basename(f), i, '/'.join(map(str, e.absolute_path)),
                                                e.message[:200]))
    if not n:
        print('F %s: no document' % name)
    elif bad:
        print('F %s: %d of %d documents do not follow %s: %s' % (name, len(bad), n, os.path.basename(schema),
                                                             bad[0]))
    else:
        print('P %s: %d document%s follow%s %s%s' % (
            name, n, 's' if n > 1 else '', '' if n > 1 else 's', os.path.basename(schema),
            ' (%s)' % ', '.join('%d %s' % (x, k) for k, x in sorted(what.items())) if what else ''))


def find(v, path):
    """the first place at path in v, as (container, key): keys, '*' any
    item of a list; the last key must be there unless it starts with
    "bogus" (a member to add); None when there is none"""
    k = path[0]
    if len(path) == 1:
        if k == '*':
            return (v, 0) if isinstance(v, list) and v else None
        return (v, k) if isinstance(v, dict) and (k in v or k.startswith('bogus')) else None
    items = v if k == '*' and isinstance(v, list) else [v[k]] if isinstance(v, dict) and k in v else []
    for x in items:
        r = find(x, path[1:])
        if r:
            return r
    return None


def doctored(name, schema, path):
    """the ways to break a document, by the document's kind: (what, path,
    action, value); action 'del' removes the member, 'set' sets it, 'add'
    adds an unknown member to the object at path"""
    s, v = validator(schema)
    doc = docs(path)[0]
    kind = s['properties']['schema']['const'].split('/')[0]
    ways = [
        ('no "schema"', ['schema'], 'del', None),
        ('another version', ['schema'], 'set', kind + '/999'),
        ('an unknown member', [], 'add', None),
    ]
    if kind == 'ipitrace-report':
        ways += [('no per_cpu', ['per_cpu'], 'del', None),
                 ('cpus a string', ['cpus'], 'set', '2'),
                 ('a CPU without ipis', ['per_cpu', '*', 'ipis'], 'del', None),
                 ('a latency p50 as a float', ['per_cpu', '*', 'handler', 'p50_ns'], 'set', 1.5),
                 ('a kind unknown', ['kinds', 'bogus'], 'set', 1),
                 ('a group of another key', ['groups', '*', 'groups', '*', 'bogus_pid'], 'set', 7),
                 ('a group count negative', ['groups', '*', 'groups', '*', 'count'], 'set', -1),
                 ('a role without ipis', ['roles', 'isolated', 'ipis'], 'del', None),
                 ('a role from elsewhere', ['roles', 'isolated', 'from'], 'set', 'guessed'),
                 ('a role sender of another key', ['roles', 'housekeeping', 'senders', '*', 'bogus_pid'], 'set', 7),
                 ('a machine role a number', ['roles', 'machine', 'online'], 'set', 4)]
    elif kind == 'ipitrace-diff':
        ways += [('no alpha', ['alpha'], 'del', None),
                 ('alpha a string', ['alpha'], 'set', '0.05'),
                 ('a row status unknown', ['tables', '*', 'rows', '*', 'status'], 'set', 'bigger')]
    elif kind == 'ipitrace-top':
        ways += [('no end_ns', ['end_ns'], 'del', None),
                 ('start_ns a float', ['start_ns'], 'set', 1.5),
                 ('a sender without its callback', ['cpus', '*', 'senders', '*', 'callback'], 'del', None),
                 ('a callback named, not an address', ['cpus', '*', 'senders', '*', 'callback'], 'set',
                  'sched_ttwu_pending'),
                 ('a CPU without senders', ['cpus', '*', 'senders'], 'del', None)]
    elif kind == 'ipitrace-explain':
        ways += [('no summary', ['summary'], 'del', None),
                 ('a spike without unaccounted_ns', ['spikes', '*', 'unaccounted_ns'], 'del', None),
                 ('a latency a float', ['spikes', '*', 'latency_ns'], 'set', 1.5),
                 ('a noise of an unknown kind', ['spikes', '*', 'interference', '*', 'kind'], 'set', 'hardirq'),
                 ('a noise duration negative', ['spikes', '*', 'interference', '*', 'duration_ns'], 'set', -1),
                 ('a window without its start', ['spikes', '*', 'window', 'start_ns'], 'del', None)]
    elif kind == 'ipitrace-watched':
        ways += [('no rows_total', ['rows_total'], 'del', None),
                 ('kept a string', ['kept'], 'set', '3'),
                 ('a row of an unknown event', ['rows', '*', 'event'], 'set', 'ipi_bogus'),
                 ('a row without ts_ns', ['rows', '*', 'ts_ns'], 'del', None),
                 ('an address negative', ['rows', '*', 'callsite'], 'set', -1)]
    refused, missed, n = [], [], 0
    if list(v.iter_errors(doc)):
        print('F %s: the document to doctor does not follow the schema in the first place' % name)
        return
    for what, p, action, value in ways:
        d = copy.deepcopy(doc)
        if action == 'add':
            d['bogus'] = 1
        else:
            place = find(d, p)
            if not place:
                continue        # the document has no such place (an empty list)
            c, k = place
            if action == 'del':
                del c[k]
            else:
                c[k] = value
        n += 1
        (refused if list(v.iter_errors(d)) else missed).append(what)
    if missed or n < 4:
        print('F %s: %d doctored documents, accepted: %s' % (name, n, ', '.join(missed) or '(none)'))
    else:
        print('P %s: %d doctored documents refused (%s)' % (name, n, ', '.join(refused)))


# ---- a fake serve: snapshots with counts known here ----
# target, src, event (0 ipi_send_cpu, 2 csd_queue_cpu), callsite, addr2, count
# per answer: the k-th answer holds k times these counts, so every interval
# between two answers holds them once
KSYMS = None


def kallsyms():
    """four text symbols of this kernel [(name, address)], or made-up
    addresses (names None) when /proc/kallsyms hides them; and every
    symbol's names by address"""
    global KSYMS
    if KSYMS:
        return KSYMS
    want = ['try_to_wake_up', 'sched_ttwu_pending', 'generic_exec_single', 'smp_call_function_single']
    got, by_addr = {}, {}
    try:
        for line in open('/proc/kallsyms'):
            a, t, n = line.split()[:3]
            a = int(a, 16)
            if a:
                by_addr.setdefault(a, set()).add(n)
            if n in want and t in 'Tt' and a:
                got.setdefault(n, a)
    except OSError:
        pass
    if all(n in got for n in want):
        KSYMS = ([(n, got[n]) for n in want], by_addr)
    else:
        KSYMS = ([(None, 0x7fff0000 + 0x1000 * i) for i in range(len(want))], {})
    return KSYMS


def sends():
    k = kallsyms()[0]
    return [
        # a send with no callback (as smp_send_reschedule makes): 3 a time
        (1, 0, 0, k[0][1] + 0x10, 0, 3),
        # one with a callback: 2 a time
        (1, 0, 0, k[2][1] + 0x20, k[1][1], 2),
        # a csd call queued for CPU 0: 1 a time
        (0, 1, 2, k[3][1] + 0x30, k[1][1], 1),
    ]


def fake_serve(sock, log):
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(sock)
    srv.listen(8)
    comm = b'schemawl'.hex()
    n = 0
    while True:
        c, _ = srv.accept()
        req = b''
        while b'\r\n\r\n' not in req:
            b = c.recv(4096)
            if not b:
                break
            req += b
        n += 1
        t = time.clock_gettime(time.CLOCK_MONOTONIC)
        body = ['ipitrace-bpf-snapshot 2', 'pid 4242', 'time %.9f' % t,
                'attached ipi:ipi_send_cpu,csd:csd_queue_cpu', 'skipped -', 'pinned 0',
                'errors 8 0 0 0 0 0 0 0 0', 'recursion 0']
        for tg, src, ev, cs, a2, cnt in sends():
            body.append('s %d %d %d %x %x 0 %d %s' % (tg, src, ev, cs, a2, cnt * n, comm))
        body.append('h 1 0 %d %d 4000 3 0 0 %d' % (5 * n, 5000 * n, 5 * n))
        body.append('end')
        c.sendall(b'HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n' + ('\n'.join(body) + '\n').encode())
        c.close()
        with open(log, 'a') as f:
            f.write('%.9f\n' % t)


def top_fake(name, jsonl, log):
    served = [round(float(x) * 1e9) for x in open(log).read().split()]
    ivs = docs(jsonl)
    known = kallsyms()[0][0][0] is not None
    by_addr = kallsyms()[1]
    bad = []
    if len(ivs) < 2:
        print('F %s: %d intervals, want at least 2' % (name, len(ivs)))
        return
    for i, d in enumerate(ivs):
        # the interval is bounded by two consecutive answers of the fake
        j = min(range(len(served)), key=lambda x: abs(served[x] - d['start_ns']))
        if abs(served[j] - d['start_ns']) > 2 or j + 1 >= len(served) or \
                abs(served[j + 1] - d['end_ns']) > 2:
            bad.append('interval %d: %d..%d is not between two answers' % (i, d['start_ns'], d['end_ns']))
        if abs((d['end_ns'] - d['start_ns']) / 1e9 - d['interval_s']) > 1e-6:
            bad.append('interval %d: interval_s %s, end_ns - start_ns %d' % (i, d['interval_s'],
                                                                            d['end_ns'] - d['start_ns']))
        if i and d['start_ns'] != ivs[i - 1]['end_ns']:
            bad.append('interval %d starts at %d, the last ended at %d' % (i, d['start_ns'], ivs[i - 1]['end_ns']))
        cpus = {c['cpu']: c for c in d['cpus']}
        got = sorted((c, s['src_cpu'], s['event'], s['callsite'], s.get('callback', s.get('func')), s['count'])
                     for c in cpus for s in cpus[c]['senders'])
        want = sorted((tg, src, ['ipi_send_cpu', '', 'csd_queue_cpu'][ev], '0x%x' % cs,
                       '0x%x' % a2 if a2 else None, cnt) for tg, src, ev, cs, a2, cnt in sends())
        if got != want:
            bad.append('interval %d: senders %r, want %r' % (i, got, want))
        if cpus[1]['sends'] != 5 or cpus[0]['csd'] != 1 or cpus[1]['received']['reschedule']['count'] != 5:
            bad.append('interval %d: counts %d/%d/%d, want 5/1/5' % (
                i, cpus[1]['sends'], cpus[0]['csd'], cpus[1]['received']['reschedule']['count']))
        # the send without a callback: no address, no symbol, and the
        # top function says there is none (not that it was a reschedule)
        if cpus[1]['top_function'] != '(none)':
            bad.append('interval %d: top_function %r of the sends without a callback' % (
                i, cpus[1]['top_function']))
        for c in cpus.values():
            for s in c['senders']:
                fn = s.get('callback_sym', s.get('func_name'))
                addr = s.get('callback', s.get('func'))
                site = s['callsite_sym']
                cs = int(s['callsite'], 16)
                if not addr and fn is not None:
                    bad.append('interval %d: no callback, but a name %r' % (i, fn))
                if known:
                    # the fake's addresses are functions' + 0x10..0x30: the
                    # name is one kallsyms gives the address less the offset
                    n_, _, off = (site or '').partition('+0x')
                    if not site or not off or n_ not in by_addr.get(cs - int(off, 16), ()):
                        bad.append('interval %d: callsite %s named %r' % (i, s['callsite'], site))
                    if addr and fn not in by_addr.get(int(addr, 16), ()):
                        bad.append('interval %d: %s named %r' % (i, addr, fn))
    if bad:
        print('F %s: %s' % (name, '; '.join(bad[:3])))
    else:
        print('P %s: %d intervals chained from the fake serve\'s %d answers; senders, counts, '
              'addresses%s as served' % (name, len(ivs), len(served),
                                         ' and symbols (kallsyms)' if known else ''))


def main():
    cmd, a = sys.argv[1], sys.argv[2:]
    if cmd == 'fake-serve':
        fake_serve(*a)
        return
    if jsonschema is None:
        print('S schema: no jsonschema module in %s' % sys.executable)
        return
    if cmd == 'meta':
        meta(a)
    elif cmd == 'valid':
        valid(a[0], a[1], a[2:])
    elif cmd == 'doctored':
        doctored(*a)
    elif cmd == 'top-fake':
        top_fake(*a)
    else:
        sys.exit('unknown command ' + cmd)


main()
