#!/usr/bin/python3
"""diff_check.py - a second count of `ipitrace diff`'s rows, from
`trace-cmd report` text (tests/test_diff.sh).

    diff_check.py counts BEFORE.txt AFTER.txt ISOLATED DIFF.json [per-cpu]
        the rows of every table of DIFF.json (ipitrace diff -f json
        --with-recorder -i ISOLATED -b callsite,comm,cpu) against this
        parser's counts of the IPI rows of the two texts: one per target
        CPU of each ipi_send_cpu / ipi_send_cpumask line, keyed by the call
        site's function name, the sender's comm, the sending CPU, and the
        role of the target (isolated: in the CPU list ISOLATED)
    diff_check.py live DIFF.json SAME.json [DISTURBED]
        the membarrier calls made in AFTER (BEFORE has a few, for the same
        spinning thread on CPU 1): the function ipi_mb and the call site
        membarrier_private_expedited are 'more' (or 'new'; p < 0.05) in
        the housekeeping role, ten times as many or more; the pingpong's rows (function
        sched_ttwu_pending) are not 'gone'/'new'
    diff_check.py latency ROWS.jsonl ISOLATED DIFF.json before|after ORACLE.json
        the latency count, p50, p99 and max of every (function, role)
        row of one side against tests/oracle.py --rows of that recording
        (its own matching of trace-cmd text, tests/match_rule.py)
    diff_check.py uniq SIDE_BY_SIDE.txt A.uniq B.uniq
        diff -f uniq's columns against each recording's report -f uniq
    diff_check.py folded DIFF.folded A.folded B.folded
        diff -f folded's columns against each recording's report -f folded
    diff_check.py html DIFF.html DIFF.json
        diff --html's rows (status, counts) against diff -f json's, and its
        flame graph's root against the stacks' totals
Prints "P name: figures" / "F name: why" lines.
"""
import collections
import json
import re
import sys

LINE = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+(?:\S+\s+)?([\d.]+):\s+(ipi_send_cpu|ipi_send_cpumask):\s+(.*)$')


def cpulist(text):
    out = set()
    for part in text.split(','):
        if not part:
            continue
        if '-' in part:
            a, b = part.split('-')
            out.update(range(int(a), int(b) + 1))
        else:
            out.add(int(part))
    return out


def targets(event, fields):
    """the target CPUs of a send: cpu=N, or cpumask=LIST / hex words"""
    if event == 'ipi_send_cpu':
        return [int(fields['cpu'])]
    m = fields['cpumask']
    if m.startswith('0x') or re.fullmatch(r'[0-9a-f,]+', m) and ',' in m and len(m.split(',')[0]) == 8:
        bits = int(m.replace(',', '').replace('0x', ''), 16)
        return [i for i in range(bits.bit_length()) if bits >> i & 1]
    return sorted(cpulist(m))


def func_name(v):
    return v.split('+')[0] if not v.startswith('0x') else v


def count(path, isolated, per_cpu=False):
    c = collections.Counter()
    for line in open(path, errors='replace'):
        m = LINE.match(line)
        if not m:
            continue
        comm, pid, cpu, ts, event, rest = m.groups()
        fields = dict(kv.split('=', 1) for kv in rest.split() if '=' in kv)
        for t in targets(event, fields):
            role = 'cpu%d' % t if per_cpu else 'isolated' if t in isolated else 'housekeeping'
            c[('role', '', role)] += 1
            c[('callsite', func_name(fields.get('callsite', '0')), role)] += 1
            c[('comm', comm.strip(), role)] += 1
            c[('cpu', str(int(cpu)), role)] += 1
    return c


def cmd_counts(a, b, iso, js, per_cpu=''):
    isolated = cpulist(iso)
    per_cpu = per_cpu == 'per-cpu'
    want = [count(a, isolated, per_cpu), count(b, isolated, per_cpu)]
    d = json.load(open(js))
    tables = {t['by'] for t in d['tables']}
    want = [collections.Counter({k: v for k, v in w.items() if k[0] in tables}) for w in want]
    got = [collections.Counter(), collections.Counter()]
    for t in d['tables']:
        for r in t['rows']:
            part = 'cpu%d' % r['target_cpu'] if per_cpu else r['role']
            got[0][(t['by'], r['key'], part)] += r['count_before']
            got[1][(t['by'], r['key'], part)] += r['count_after']
    for i, side in enumerate(('before', 'after')):
        g = +got[i]
        w = +want[i]
        tables = sorted({k[0] for k in w})
        if g == w:
            print("P diff-counts-%s%s: %d rows in %d keys of %s agree with the text's (%s)" %
                  (side, '-per-cpu' if per_cpu else '', sum(v for k, v in w.items() if k[0] == 'role'), len(w),
                   '/'.join(tables), a if i == 0 else b))
        else:
            bad = sorted(set(g) ^ set(w) | {k for k in g if g[k] != w.get(k)})
            print("F diff-counts-%s: %d keys differ, e.g. %s" %
                  (side, len(bad), '; '.join('%s: ipitrace %d, text %d' % (k, g.get(k, 0), w.get(k, 0))
                                             for k in bad[:4])))


def cmd_live(js, same_js, disturbed=''):
    d = json.load(open(js))
    rows = {(t['by'], r['key'], r['role']): r for t in d['tables'] for r in t['rows']}
    # the part added in AFTER: membarrier calls on CPU 0, IPIs to CPU 1 (isolated)
    for by, key in (('function', 'ipi_mb'), ('callsite', 'membarrier_private_expedited')):
        r = rows.get((by, key, 'isolated'))
        if r and r['status'] in ('new', 'more') and r['count_after'] > 10 * r['count_before']:
            print("P diff-live-%s: to the isolated CPU %s %d -> %d, %s (p %.2g)" %
                  (by, key, r['count_before'], r['count_after'], r['status'], r['p']))
        else:
            print("F diff-live-%s: to the isolated CPU %s is %s" % (by, key, r and '%d -> %d, %s (p %s)' % (
                r['count_before'], r['count_after'], r['status'], r['p'])))
    if disturbed:
        # the machine's load took the spinners' CPUs in every try: the
        # kept part's counts changed for real, and diff is right to say so
        print("S diff-live-kept: the machine's other work disturbed the load in 3 tries (%s of 450 IPIs)" % disturbed)
        print("S diff-live-untouched: the same (%s of 450)" % disturbed)
        return
    # the part in both: membarrier calls on CPU 1, IPIs to CPU 0
    r = rows.get(('function', 'ipi_mb', 'housekeeping'))
    if r and r['status'] == 'same' and min(r['count_before'], r['count_after']) >= 100:
        print("P diff-live-kept: to the housekeeping CPU ipi_mb %d -> %d, same (p %.2g)" %
              (r['count_before'], r['count_after'], r['p']))
    else:
        print("F diff-live-kept: to the housekeeping CPU ipi_mb is %s" % (r and '%d -> %d, %s (p %s)' % (
            r['count_before'], r['count_after'], r['status'], r['p'])))
    # the same load recorded twice: its rows of 100 IPIs or more are 'same'
    d = json.load(open(same_js))
    big = [(t['by'], r) for t in d['tables'] for r in t['rows'] if min(r['count_before'], r['count_after']) >= 100]
    bad = [(by, r) for by, r in big if r['status'] != 'same']
    if big and not bad:
        print("P diff-live-untouched: the same load twice: %d rows of 100 or more, all same (%s)" %
              (len(big), '; '.join('%s %s %d -> %d p %.2g' % (r['role'], r['key'], r['count_before'],
                                                              r['count_after'], r['p']) for by, r in big)))
    else:
        print("F diff-live-untouched: %s" % ('no row of 100 IPIs' if not big else '; '.join(
            '%s %s %d -> %d %s p %.2g' % (by, r['key'], r['count_before'], r['count_after'], r['status'], r['p'])
            for by, r in bad)))


def nearest_rank(vals, q):
    v = sorted(vals)
    k = max(1, -(-int(q * len(v) * 1000000) // 1000000))	# ceil(q n)
    return v[min(k, len(v)) - 1]


def cmd_latency(rows_file, iso, js, side, oracle_json):
    """the latency quantiles per (function, role) of one side of DIFF.json
    against tests/oracle.py's rows (its own matching of trace-cmd text)"""
    isolated = cpulist(iso)
    cross = json.load(open(oracle_json))['cross_cpu_latency']
    lat = collections.defaultdict(list)
    for line in open(rows_file):
        r = json.loads(line)
        if not cross and r['src_cpu'] != r['target_cpu']:
            continue	# the clock does not compare CPUs
        role = 'isolated' if r['target_cpu'] in isolated else 'housekeeping'
        if r.get('matched') and r.get('latency_ns') is not None:
            lat[(r['function'] or '(none)', role)].append(r['latency_ns'])
    d = json.load(open(js))
    got = {}
    for t in d['tables']:
        if t['by'] != 'function':
            continue
        for r in t['rows']:
            h = r['latency_' + side]
            if h:
                got[(r['key'], r['role'])] = (h['count'], h['p50_ns'], h['p99_ns'], h['max_ns'])
    want = {k: (len(v), nearest_rank(v, 0.5), nearest_rank(v, 0.99), max(v)) for k, v in lat.items()}
    if got == want and (want or not cross):
        print("P diff-latency-%s: %d rows by function and role, count/p50/p99/max as the oracle's "
              "matching (%d latencies%s)" % (side, len(want), sum(v[0] for v in want.values()),
                                             '' if cross else '; a per-CPU clock: same-CPU sends only'))
    else:
        bad = sorted(set(got) | set(want))
        bad = [k for k in bad if got.get(k) != want.get(k)]
        print("F diff-latency-%s: %d rows differ, e.g. %s" %
              (side, len(bad), '; '.join('%s: ipitrace %s, oracle %s' % (k, got.get(k), want.get(k))
                                         for k in bad[:3])))




def cmd_uniq(side_by_side, report_a, report_b):
    """diff -f uniq's two columns put back together equal each recording's
    report --format uniq (itself checked against the recipe's pipeline in
    test_uniq.sh)"""
    lines = open(side_by_side).read().split('\n')[1:]
    cols = [[], []]
    for l in lines:
        if not l:
            continue
        if l.startswith('before '):
            cols[0].append(l[7:])
        elif l.startswith('after  '):
            cols[1].append(l[7:])
        else:
            a, b = l.split(' | ', 1)
            if a.strip():
                cols[0].append(a.rstrip())
            if b:
                cols[1].append(b)
    for i, path in enumerate((report_a, report_b)):
        want = [l.rstrip() for l in open(path).read().split('\n') if l]
        side = ('before', 'after')[i]
        if cols[i] == want:
            print("P diff-uniq-%s: the %s column is report --format uniq (%d lines)" % (side, side, len(want)))
        else:
            print("F diff-uniq-%s: %s against %s" % (side, cols[i][:3], want[:3]))




def cmd_folded(diff_folded, folded_a, folded_b):
    """diff -f folded's two columns against each recording's report -f
    folded (one count a line, the same stacks)"""
    got = [collections.Counter(), collections.Counter()]
    for l in open(diff_folded):
        stack, a, b = l.rstrip('\n').rsplit(' ', 2)
        got[0][stack] += int(a)
        got[1][stack] += int(b)
    for i, path in enumerate((folded_a, folded_b)):
        want = collections.Counter()
        for l in open(path):
            stack, c = l.rstrip('\n').rsplit(' ', 1)
            want[stack] += int(c)
        side = ('before', 'after')[i]
        if +got[i] == want:
            print("P diff-folded-%s: %d stacks, %d IPIs: report -f folded's" % (side, len(want), sum(want.values())))
        else:
            bad = [k for k in set(got[i]) | set(want) if got[i][k] != want[k]]
            print("F diff-folded-%s: %d stacks differ, e.g. %s" % (side, len(bad), bad[:2]))


def cmd_html(page, js):
    """diff --html's tables (their rows' status class and counts) against
    diff -f json of the same recordings, and its flame graph's root
    against the stacks' totals"""
    import html.parser

    class P(html.parser.HTMLParser):
        def __init__(self):
            super().__init__()
            self.tables, self.cur, self.row, self.cell, self.root = {}, None, None, None, None

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if tag == 'section' and 'data-by' in a:
                self.cur = self.tables.setdefault(a['data-by'], [])
            elif tag == 'tr' and self.cur is not None and 'class' in a:
                self.row = [a['class']]
                self.cur.append(self.row)
            elif tag == 'td' and self.row is not None:
                self.cell = ''
            elif tag == 'rect' and self.root is None and 'data-after' in a:
                self.root = (int(a['data-count']), int(a['data-after']))

        def handle_data(self, d):
            if self.cell is not None:
                self.cell += d

        def handle_endtag(self, tag):
            if tag == 'td' and self.row is not None and self.cell is not None:
                self.row.append(self.cell)
                self.cell = None
            elif tag == 'tr':
                self.row = None
            elif tag == 'section':
                self.cur = None
    p = P()
    p.feed(open(page).read())
    d = json.load(open(js))
    bad, n = [], 0
    for t in d['tables']:
        rows = p.tables.get(t['by'], [])
        for i, r in enumerate(t['rows'][:len(rows)]):
            h = rows[i]
            k = 2 if t['by'] == 'role' else 3
            n += 1
            if h[0] != r['status'] or int(h[k]) != r['count_before'] or int(h[k + 1]) != r['count_after']:
                bad.append((t['by'], r['key'], h[:k + 2]))
        if not rows and t['rows']:
            bad.append((t['by'], 'no table'))
    stacks = [r for t in d['tables'] if t['by'] == 'stack' for r in t['rows'] if r['key'] != '(no stack)']
    want_root = (sum(r['count_before'] for r in stacks), sum(r['count_after'] for r in stacks))
    if not bad and n and p.root == want_root:
        print("P diff-html: %d rows of %d tables as the JSON's (status, counts); the flame graph's root "
              "%d before, %d after = the stacks'" % (n, len(p.tables), p.root[0], p.root[1]))
    else:
        print("F diff-html: %s; root %s, stacks %s" % (bad[:3], p.root, want_root))


if __name__ == '__main__':
    if sys.argv[1] == 'counts':
        cmd_counts(*sys.argv[2:7])
    elif sys.argv[1] == 'live':
        cmd_live(*sys.argv[2:5])
    elif sys.argv[1] == 'folded':
        cmd_folded(*sys.argv[2:5])
    elif sys.argv[1] == 'html':
        cmd_html(*sys.argv[2:4])
    elif sys.argv[1] == 'uniq':
        cmd_uniq(*sys.argv[2:5])
    elif sys.argv[1] == 'latency':
        cmd_latency(*sys.argv[2:7])
