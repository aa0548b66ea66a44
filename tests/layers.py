#!/usr/bin/python3
"""layers.py BUILD [EXTRA.o ...]: the dependency rules of lib/README.md, on objects.

Edges come from nm: a symbol undefined in object A and defined (global) in
object B is an edge A -> B.  Checked over every object of BUILD/lib and
BUILD/src (plus EXTRA objects, named by their path below a lib/ or src/
folder, for the negative tests):
  1. no cycle between files;
  2. a lib/ file calls only its own folder and folders of lower rank;
  3. a src/ file calls into lib/ only through functions declared in
     include/ipitrace.h (the stable tier) or include/ipitrace-private.h
     (the private tier, for the CLI, tests, fuzz targets and tools);
  4. a python/ file (BUILD/python/obj) calls only the stable tier.
Prints one line per violation and "layers: N files, N edges, N violations".
Exit 1 on any violation.
"""
import os, re, subprocess, sys

RANK = {'core': 0, 'ringbuf': 1, 'input': 2, 'render': 3, 'filter': 4,
        'ipi': 5, 'output': 6, 'live': 7, 'bpf': 8}

def rel(path):
    """'lib/core/model' or 'src/main' from any path of an object"""
    p = path.replace(os.sep, '/')
    m = re.search(r'(?:^|/)((?:lib/[^/]+|src)/[^/]+)\.o$', p)
    if m:
        return m.group(1)
    m = re.search(r'(?:^|/)python/obj/([^/]+)\.o$', p)
    return 'python/' + m.group(1) if m else None

def objects(build):
    out = []
    for top in ('lib', 'src', 'python/obj'):
        for dirpath, _, files in os.walk(os.path.join(build, top)):
            out += [os.path.join(dirpath, f) for f in files if f.endswith('.o')]
    return sorted(out)

def nm_all(objs):
    """{object: (defined, undefined)} from one nm run over all of them"""
    r = subprocess.run(['nm', '-A'] + objs, capture_output=True, text=True, check=True)
    out = {o: (set(), set()) for o in objs}
    for line in r.stdout.splitlines():
        path, _, rest = line.partition(': ')
        if path not in out:
            path, _, rest = line.partition(':')
        f = rest.split()
        d, u = out[path]
        if len(f) == 2 and f[0] == 'U':
            u.add(f[1])
        elif len(f) == 3 and f[1] in 'TDBRCVWG':
            d.add(f[2])
    return out

def public_functions(header):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(header))), 'tools'))
    import api
    return set(api.declared(header))

def main():
    build, extra = sys.argv[1], sys.argv[2:]
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    objs = objects(build) + extra
    names, defs, undef = {}, {}, {}
    syms = nm_all([o for o in objs if rel(o)])
    for o in objs:
        n = rel(o)
        if not n:
            continue
        names[o] = n
        d, u = syms[o]
        undef[n] = u
        for s in d:
            defs[s] = n
    stable = public_functions(os.path.join(top, 'include', 'ipitrace.h'))
    private_tier = public_functions(os.path.join(top, 'include', 'ipitrace-private.h'))
    edges = {}
    bad = []
    for n, u in undef.items():
        e = edges.setdefault(n, {})
        for s in u:
            t = defs.get(s)
            if t and t != n:
                e.setdefault(t, set()).add(s)
    nedges = sum(len(e) for e in edges.values())
    for a, e in sorted(edges.items()):
        for b, syms in sorted(e.items()):
            sy = ', '.join(sorted(syms)[:4])
            if a.startswith('lib/'):
                fa, fb = a.split('/')[1], b.split('/')[1] if b.startswith('lib/') else None
                if fb is None:
                    bad.append('%s calls %s (%s): the library calls the CLI' % (a, b, sy))
                elif fa not in RANK or fb not in RANK:
                    bad.append('%s -> %s: folder not in lib/README.md' % (a, b))
                elif RANK[fb] > RANK[fa]:
                    bad.append('%s calls %s (%s): %s/ (rank %d) calls up to %s/ (rank %d)'
                               % (a, b, sy, fa, RANK[fa], fb, RANK[fb]))
            elif b.startswith('lib/') and a.startswith('python/'):
                other = sorted(s for s in syms if s not in stable)
                if other:
                    bad.append('%s calls %s (%s): not in the stable tier (include/ipitrace.h)'
                               % (a, b, ', '.join(other[:6])))
            elif b.startswith('lib/'):
                other = sorted(s for s in syms if s not in stable and s not in private_tier)
                if other:
                    bad.append('%s calls %s (%s): not declared in include/ipitrace.h '
                               'nor include/ipitrace-private.h' % (a, b, ', '.join(other[:6])))
    # cycles: Tarjan's strongly connected components
    index, low, stack, on, sccs = {}, {}, [], set(), []
    sys.setrecursionlimit(10000)
    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v); on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    for c in sccs:
        bad.append('call circle: ' + ' <-> '.join(c))
    for b in bad:
        print('layers: ' + b)
    print('layers: %d files, %d edges, %d violations' % (len(edges), nedges, len(bad)))
    return 1 if bad else 0

sys.exit(main())
