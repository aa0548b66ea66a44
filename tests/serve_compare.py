#!/usr/bin/env python3
"""serve_compare.py - compare `ipitrace serve`'s counters with a tracefs
instance's `trace` text over the same window, for the sends of tasks whose
command starts with PREFIX: per target CPU and per (target CPU, call site,
function), the IPIs (ipitrace_ipis_total: ipi_send_cpu and each target of
ipi_send_cpumask; function: the csd call queued before it from the same CPU
for the target, joined here from the trace, else the callback) and the
queued function calls (ipitrace_csd_queued_total).

  serve_compare.py scrape BEFORE AFTER TRACE PREFIX
      two /metrics answers taken before and after the window
  serve_compare.py prom URL T_ON T_OFF TRACE PREFIX
      a Prometheus server that scraped serve: the raw samples of the last
      scrape before T_ON (A) and the first after T_OFF (B), read through
      its HTTP API, and PromQL increase() over exactly [A, B] evaluated at
      B (samples at both ends of the range: no extrapolation)
  serve_compare.py recfile FILE TRACE PREFIX
      the "# count" lines of a `record --from-serve` file (function: the
      function= word if there is one, else the callback; csd: func)

Prints one line "same: ..." and exits 0, or the differences and exits 1."""
import json
import re
import sys
import urllib.parse
import urllib.request
from collections import Counter

from top_compare import trace_counts, norm, differences

METRICS = ('ipitrace_ipis_total', 'ipitrace_csd_queued_total')
SAMPLE = re.compile(r'^(ipitrace_ipis_total|ipitrace_csd_queued_total)\{(.*)\} (\S+)$')
LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def key_of(metric, labels):
    """('ipi'|'csd', target, callsite, function) of a series"""
    fn = labels.get('function', '')
    return ('csd' if metric == 'ipitrace_csd_queued_total' else 'ipi', int(labels['target_cpu']),
            norm(labels['callsite']), norm(fn) if fn else '0')


def trace_keys(trace, prefix):
    """the workload's sends in the trace per ('ipi'|'csd', target,
    callsite, function), and those just before an exec (unsure: see
    top_compare)"""
    unsure = (Counter(), Counter())
    _, per_site = trace_counts(trace, prefix, join=True, unsure=unsure)
    out, maybe = Counter(), Counter()
    for src, dst in ((per_site, out), (unsure[1], maybe)):
        for (ev, t, cs, a2), n in src.items():
            dst[('csd' if ev == 'csd_queue_cpu' else 'ipi', t, cs, a2)] += n
    return out, maybe


def scrape_file(path, prefix):
    out = Counter()
    for line in open(path, errors='replace'):
        m = SAMPLE.match(line.strip())
        if not m:
            continue
        labels = dict(LABEL.findall(m.group(2)))
        if labels.get('comm', '').startswith(prefix):
            out[key_of(m.group(1), labels)] += int(float(m.group(3)))
    return out


def compare(want, got, name, missed=0, unsure=None):
    """the differences; a send the programs did not run for (the kernel's
    recursion protection: a send from an interrupt that came while a
    program ran on that CPU, e.g. while it took a stack) is counted in
    ipitrace_dropped_total{reason="recursion_miss"}: up to `missed` sends
    fewer than tracefs are accepted, and said (never more, never a surplus);
    unsure: the sends just before an exec, which may be counted or not"""
    unsure = unsure or Counter()
    cpu_w, cpu_g, cpu_u = Counter(), Counter(), Counter()
    for src, dst in ((want, cpu_w), (got, cpu_g), (unsure, cpu_u)):
        for k, n in src.items():
            dst[k[:2]] += n
    short = sum(max(0, cpu_w[k] - cpu_g[k]) for k in cpu_w)
    surplus = any(cpu_g[k] > cpu_w[k] + cpu_u[k] for k in cpu_g)
    if short and not surplus and short <= missed:
        NOTES.append('%s: %d fewer than tracefs, within the %d recursion misses it counted' % (name, short, missed))
        return []
    bad = differences('per target CPU', cpu_w, cpu_g, cpu_u, name)
    bad += differences('per call site', want, got, unsure, name)
    if bad and missed:
        bad.append('(recursion misses in the window: %d)' % missed)
    if not bad and cpu_u:
        NOTES.append('%s: of %d sends just before an exec, it named %d the workload\'s' % (
            name, sum(cpu_u.values()), sum(cpu_g.values()) - sum(cpu_w.values())))
    return bad


NOTES = []
MISS = re.compile(r'^ipitrace_dropped_total\{reason="recursion_miss"\} (\S+)$', re.M)


def misses_in(path):
    m = MISS.search(open(path, errors='replace').read())
    return int(float(m.group(1))) if m else 0


def query(url, q, t):
    u = url + '/api/v1/query?' + urllib.parse.urlencode({'query': q, 'time': '%.3f' % t})
    d = json.load(urllib.request.urlopen(u, timeout=10))
    if d.get('status') != 'success':
        raise SystemExit('prometheus: %s: %s' % (q, d))
    return d['data']['result']


def prom(url, t_on, t_off, trace, prefix):
    now = t_off + 30
    stamps = sorted(float(v[0]) for r in query(url, 'ipitrace_scrapes_total[5m]', now) for v in r['values'])
    before = [s for s in stamps if s <= t_on]
    after = [s for s in stamps if s >= t_off]
    if not before or not after:
        raise SystemExit('no scrape before %.3f and after %.3f: %s' % (t_on, t_off, stamps))
    a, b = before[-1], after[0]
    sel = '{comm=~"%s.*"}' % re.escape(prefix)
    raw, inc, born = Counter(), Counter(), []
    for metric in METRICS:
        for r in query(url, '%s%s[5m]' % (metric, sel), now):
            k = key_of(metric, r['metric'])
            vals = {float(t): float(v) for t, v in r['values']}
            va = vals.get(a)
            if b not in vals:
                raise SystemExit('series %s has no sample at B %.3f' % (k, b))
            raw[k] += int(vals[b] - (va or 0))
            if va is None:
                born.append((k, int(vals[b])))
        rng = int(round((b - a) * 1000))
        for r in query(url, 'increase(%s%s[%dms])' % (metric, sel, rng), b):
            k = key_of(metric, r['metric'])
            v = float(r['value'][1])
            # a series born in the window has no sample at A: its increase()
            # is extrapolated, as PromQL does, and left out below
            if k not in {bk for bk, _ in born} and abs(v - round(v)) > 1e-6:
                raise SystemExit('increase() of %s is %r, not a whole number: extrapolated?' % (k, v))
            inc[k] += int(round(v))
    want, unsure = trace_keys(trace, prefix)
    miss = {float(t): float(v) for r in query(url, 'ipitrace_dropped_total{reason="recursion_miss"}[5m]', now)
            for t, v in r['values']}
    missed = int(miss.get(b, 0) - miss.get(a, 0))
    bad = compare(want, raw, 'prometheus raw samples', missed, unsure)
    # a series born inside the window has no sample at A: increase() starts
    # from its first sample, so its first value is not in it
    born_keys = {k for k, _ in born}
    want_old = Counter({k: n for k, n in want.items() if k not in born_keys})
    inc_old = Counter({k: n for k, n in inc.items() if k not in born_keys})
    unsure_old = Counter({k: n for k, n in unsure.items() if k not in born_keys})
    bad += compare(want_old, inc_old, 'increase()', missed, unsure_old)
    if bad:
        print('\n'.join(bad))
        sys.exit(1)
    print(' '.join(NOTES) + ('; ' if NOTES else '') + 'same: %d IPIs and %d csd in %d keys; raw samples at A=%.3f B=%.3f (%.3f s), increase() over '
          '[%dms] equal for the %d keys present at A; %d keys born in the window (%s)' % (
              sum(n for k, n in want.items() if k[0] == 'ipi'),
              sum(n for k, n in want.items() if k[0] == 'csd'), len(want), a, b, b - a,
              int(round((b - a) * 1000)), len(want_old), len(born),
              ', '.join('%s=%d' % (k, n) for k, n in born) or 'none'))


COUNT = re.compile(r'^# count target=(\d+) from=\d+ event=(\S+) callsite=(\S+) (callback|func)=(\S+)'
                   r'(?: function=(\S+))? n=(\d+) comm=(.*)$')
RECMISS = re.compile(r'^# not counted recursion_misses=(\d+)$', re.M)


def recfile(path, trace, prefix):
    got = Counter()
    text = open(path, errors='replace').read()
    for line in text.split('\n'):
        m = COUNT.match(line)
        if m and m.group(8).startswith(prefix):
            ev = 'csd' if m.group(2) == 'csd_queue_cpu' else 'ipi'
            got[(ev, int(m.group(1)), norm(m.group(3)), norm(m.group(6) or m.group(5)))] += int(m.group(7))
    m = RECMISS.search(text)
    verdict(trace_keys(trace, prefix), got, 'record --from-serve', int(m.group(1)) if m else 0)


def verdict(keys, got, name, missed):
    """compare with keys (the trace's: sure, unsure), print the differences
    and exit 1, or one line "same: ..." """
    want, unsure = keys
    bad = compare(want, got, name, missed, unsure)
    if bad:
        print('\n'.join(bad))
        sys.exit(1)
    print(' '.join(NOTES) + ('; ' if NOTES else '') + 'same: %d IPIs and %d csd, %d keys' % (
        sum(n for k, n in want.items() if k[0] == 'ipi'),
        sum(n for k, n in want.items() if k[0] == 'csd'), len(want)))


def main():
    if sys.argv[1] == 'scrape':
        before, after, trace, prefix = sys.argv[2:6]
        got = scrape_file(after, prefix)
        got.subtract(scrape_file(before, prefix))
        got = Counter({k: n for k, n in got.items() if n})
        verdict(trace_keys(trace, prefix), got, 'serve', misses_in(after) - misses_in(before))
    elif sys.argv[1] == 'prom':
        url, t_on, t_off, trace, prefix = sys.argv[2:7]
        prom(url, float(t_on), float(t_off), trace, prefix)
    elif sys.argv[1] == 'recfile':
        recfile(*sys.argv[2:5])
    else:
        raise SystemExit(__doc__)


if __name__ == '__main__':
    main()
