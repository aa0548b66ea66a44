#!/usr/bin/python3
"""check.py ARCH OUTDIR IPITRACE - check one qemu guest's recording on the host.

Independent sources: `trace-cmd report -t` text of the file (parsed here) and
the guest's own /proc/interrupts snapshots (irq-a.txt, irq-b.txt) taken around
the window marked by the "ipitest-start"/"ipitest-end" trace_marker writes.
Prints "PASS name" / "FAIL name: why" lines and "FIGURE key value" lines.

x86: per target CPU, in the window, the RES and CAL deltas equal the
reschedule_entry and call_function(_single)_entry counts, and the sends of the
probes (resched: cpu; call_single: cpu; call_mask: each CPU of cpumask) and
ipitrace report's per-target IPIs (-F on the window) equal the deltas.
arm64: per target CPU, IPI0..n deltas equal the ipi_entry counts by reason,
and the ipi_raise rows (ipitrace) equal the sum of the mask weights.
"""
import json
import os
import re
import subprocess
import sys

arch, out, ipt = sys.argv[1], sys.argv[2], sys.argv[3]
extra = sys.argv[4:]
label = os.path.basename(out.rstrip("/"))	# the guest's name (x86_64-iso, ...)
fails = 0


def ok(name, cond, why=""):
    global fails
    if cond:
        print("PASS %s-%s" % (label, name))
    else:
        fails += 1
        print("FAIL %s-%s: %s" % (label, name, why))


def figure(k, v):
    print("FIGURE %s-%s %s" % (label, k, v))


def irq_table(path):
    """{row: [count per cpu]} of a /proc/interrupts text"""
    lines = open(path).read().splitlines()
    ncpu = len(lines[0].split())
    tab = {}
    for l in lines[1:]:
        parts = l.split()
        if not parts:
            continue
        name = parts[0].rstrip(":")
        vals = []
        for p in parts[1:1 + ncpu]:
            if not p.isdigit():
                break
            vals.append(int(p))
        if len(vals) == ncpu:
            tab[name] = (vals, " ".join(parts[1 + ncpu:]))
    return ncpu, tab


# irq-snap reads /proc/interrupts on both sides of each marker: the events
# between the markers number at least b - a (the readings inside the
# window) and at most b.post - a.pre; both are the same when no interrupt
# came while a marker was written
ncpu, a = irq_table(out + "/irq-a.txt")
_, b = irq_table(out + "/irq-b.txt")
_, a0 = irq_table(out + "/irq-a.txt.pre")
_, b1 = irq_table(out + "/irq-b.txt.post")
delta = {k: [b[k][0][c] - a[k][0][c] for c in range(ncpu)] for k in a if k in b}
delta_hi = {k: [b1[k][0][c] - a0[k][0][c] for c in range(ncpu)] for k in a0 if k in b1}
desc = {k: b[k][1] for k in b}
brackets = sum(sum(delta_hi[k]) - sum(delta[k]) for k in delta if k in delta_hi)


def within(got, k, slack=0):
    """got (per CPU) lies in the bracket of row k (or of rows k, a list),
    below it by at most slack in all (missed kprobe hits)"""
    ks = k if isinstance(k, list) else [k]
    lo = [sum(delta[r][c] for r in ks) for c in range(ncpu)]
    hi = [sum(delta_hi[r][c] for r in ks) for c in range(ncpu)]
    if got == lo:
        return True
    short = sum(max(0, lo[c] - got[c]) for c in range(ncpu))
    return short <= slack and all(got[c] <= hi[c] for c in range(ncpu))

tc = subprocess.run(["trace-cmd", "report", "-t", out + "/trace.dat"], capture_output=True, text=True)
ok("trace-cmd-reads", tc.returncode == 0 and tc.stdout, tc.stderr.strip()[-200:])
LINE = re.compile(r"^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\w+):\s*(.*)$")
recs = []
for l in tc.stdout.splitlines():
    m = LINE.match(l)
    if m:
        ts = int(m.group(4)) * 10**9 + int(m.group(5).ljust(9, "0")[:9])
        recs.append((int(m.group(3)), ts, m.group(6), m.group(7)))
# trace-cmd 3.1's text shows a kprobe's x64 array (the mask of a guest with
# more than 64 CPUs, x64[2]) as {0x0,0x0}; its raw output (-R) shows the
# bytes, ARRAY[fe, ff, ...]: the masks of those lines are taken from there,
# the same records in the same order
if arch == "x86_64" and any(r[2] == "call_mask" and "cpumask={" in r[3] for r in recs):
    rawtc = subprocess.run(["trace-cmd", "report", "-t", "-R", out + "/trace.dat"], capture_output=True, text=True)
    arrays = []
    for l in rawtc.stdout.splitlines():
        m = LINE.match(l)
        if m and m.group(6) == "call_mask":
            ts = int(m.group(4)) * 10**9 + int(m.group(5).ljust(9, "0")[:9])
            arrays.append((int(m.group(3)), ts, re.search(r"cpumask=(ARRAY\[[^]]*\])", m.group(7)).group(1)))
    k = 0
    for i, r in enumerate(recs):
        if r[2] == "call_mask":
            assert arrays[k][:2] == r[:2], "trace-cmd -R: call_mask %r, not %r" % (arrays[k], r)
            recs[i] = (r[0], r[1], r[2], re.sub(r"cpumask=\{[^}]*\}", "cpumask=" + arrays[k][2].replace(" ", ""), r[3]))
            k += 1
    assert k == len(arrays), "trace-cmd -R: %d call_mask lines, -t %d" % (len(arrays), k)

# the same events, as many of each, as ipitrace reads
cnt = subprocess.run([ipt, "count", out + "/trace.dat"], capture_output=True, text=True)
mine = {}
for l in cnt.stdout.splitlines():
    m = re.match(r"^(\S+):(\S+): (\d+)$", l)
    if m:
        mine[m.group(2)] = mine.get(m.group(2), 0) + int(m.group(3))
theirs = {}
for r in recs:
    theirs[r[2]] = theirs.get(r[2], 0) + 1
ok("same-events", cnt.returncode == 0 and mine == theirs,
   "ipitrace count %s, trace-cmd %s" % (sorted(mine.items()), sorted(theirs.items())))
figure("records", len(recs))

marks = {r[3].split()[-1]: r[1] for r in recs if r[2] == "print" and "ipitest-" in r[3]}
ok("markers", "ipitest-start" in marks and "ipitest-end" in marks, "markers %s" % marks)
t0, t1 = marks.get("ipitest-start", 0), marks.get("ipitest-end", 0)
win = [r for r in recs if t0 < r[1] < t1]


def field(rest, name):
    m = re.search(r"\b%s=(\S+)" % name, rest)
    return m.group(1) if m else None


def mask_cpus(text):
    """CPUs of a kprobe x64 mask (0x...) or an array {0x..,0x..} (word 0 first),
    of trace-cmd -R's bytes ARRAY[fe,ff,...] (byte 0 first), or of a %*pb
    bitmask text (comma-separated 32-bit words, highest first)"""
    if text.startswith("ARRAY["):
        octets = [int(b, 16) for b in text[6:-1].split(",")]
        return [i * 8 + bit for i, b in enumerate(octets) for bit in range(8) if b >> bit & 1]
    if text.startswith("0x") or text.startswith("{"):
        words = [int(w, 16) for w in text.strip("{}").split(",")]
        return [i * 64 + bit for i, w in enumerate(words) for bit in range(64) if w >> bit & 1]
    words = [int(w, 16) for w in text.split(",")][::-1]
    return [i * 32 + bit for i, w in enumerate(words) for bit in range(32) if w >> bit & 1]


per_target = [0] * ncpu		# what the deltas count (x86 RES+CAL, arm64 IPI0..n)
# IPIs in flight at the window's edges, from trace-cmd's text: a send just
# before the end marker is served after it, an interrupt just after the
# start marker serves a send from before it.  Per (class, target CPU), each
# interrupt serves the oldest waiting send of its class; one with none
# waiting was in flight at the start (or its send was a kprobe hit the
# kernel missed: kprobe_profile counts those); those still waiting at the
# end were in flight then.
pending, unpaired = {}, {}	# (class, cpu) -> sends waiting / interrupts with none


def flight_send(cls, c):
    pending[(cls, c)] = pending.get((cls, c), 0) + 1


def flight_recv(cls, c):
    if pending.get((cls, c), 0):
        pending[(cls, c)] -= 1
    else:
        unpaired[(cls, c)] = unpaired.get((cls, c), 0) + 1


def adjusted(sends, cls=None):
    """sends per target as the interrupts in the window count them (of
    class cls, or of all); and how many were moved"""
    def per_cpu(d):
        return [sum(v for (k, c), v in d.items() if c == cpu and cls in (None, k)) for cpu in range(ncpu)]
    end, start = per_cpu(pending), per_cpu(unpaired)
    return [sends[c] - end[c] + start[c] for c in range(ncpu)], sum(end) + sum(start)


if arch == "x86_64":
    res = delta.get("RES", [0] * ncpu)
    cal = delta.get("CAL", [0] * ncpu)
    recv_res, recv_cal = [0] * ncpu, [0] * ncpu
    send_res, send_cal = [0] * ncpu, [0] * ncpu
    wide = 0
    for cpu, ts, ev, rest in win:
        if ev == "reschedule_entry":
            recv_res[cpu] += 1
            flight_recv("RES", cpu)
        elif ev in ("call_function_entry", "call_function_single_entry"):
            recv_cal[cpu] += 1
            flight_recv("CAL", cpu)
        elif ev == "resched":
            send_res[int(field(rest, "cpu"))] += 1
            flight_send("RES", int(field(rest, "cpu")))
        elif ev == "call_single":
            send_cal[int(field(rest, "cpu"))] += 1
            flight_send("CAL", int(field(rest, "cpu")))
        elif ev == "call_mask":
            cpus = mask_cpus(field(rest, "cpumask"))
            wide += len(cpus) >= 3
            for c in cpus:
                send_cal[c] += 1
                flight_send("CAL", c)
    ok("recv-equal-res", within(recv_res, "RES"), "reschedule_entry %s, RES delta %s..%s" % (recv_res, res, delta_hi.get("RES")))
    ok("recv-equal-cal", within(recv_cal, "CAL"), "call_function*_entry %s, CAL delta %s..%s" % (recv_cal, cal, delta_hi.get("CAL")))
    # kprobe hits the kernel missed (one kprobe firing inside another on
    # a CPU) are counted in kprobe_profile: "EVENT HITS MISSES"
    missed = {}
    try:
        for l in open(out + "/kprobe_profile"):
            p = l.split()
            if len(p) == 3:
                missed[p[0].split("/")[-1]] = int(p[2])
    except OSError:
        pass
    figure("kprobe-misses", sum(missed.values()))
    m_res = missed.get("resched", 0)
    m_cal = missed.get("call_single", 0) + missed.get("call_mask", 0)
    # the sends, with those in flight at the edges moved to the side of
    # their interrupt (per class)
    adj_res, _ = adjusted(send_res, "RES")
    adj_cal, _ = adjusted(send_cal, "CAL")
    ok("send-equal-res", within(adj_res, "RES", m_res),
       "resched probe %s, RES delta %s..%s, %d misses" % (adj_res, res, delta_hi.get("RES"), m_res))
    ok("send-equal-cal", within(adj_cal, "CAL", m_cal),
       "call_single+call_mask probes %s, CAL delta %s..%s, %d misses" % (adj_cal, cal, delta_hi.get("CAL"), m_cal))
    ok("wide-masks", wide >= 100, "%d mask sends with 3 or more CPUs (want 100)" % wide)
    figure("RES-delta", sum(res))
    figure("CAL-delta", sum(cal))
    figure("TLB-delta-not-added", sum(delta.get("TLB", [0])))
    figure("mask-sends-3plus", wide)
    per_target = [res[c] + cal[c] for c in range(ncpu)]
    per_rows, slack = ["RES", "CAL"], m_res + m_cal
    oracle_sends = [send_res[c] + send_cal[c] for c in range(ncpu)]
    # the events counted into each row: ipitrace dump's, trace-cmd's
    recv_rows = {"RES": ("reschedule_entry",), "CAL": ("call_function_entry", "call_function_single_entry")}
else:
    ipis = sorted((k for k in delta if re.match(r"^IPI\d+$", k)), key=lambda k: int(k[3:]))
    tot = [sum(delta[k][c] for k in ipis) for c in range(ncpu)]
    recv = {}
    raise_rows, raise_weight, wide = 0, [0] * ncpu, 0
    for cpu, ts, ev, rest in win:
        if ev == "ipi_entry":
            reason = rest.strip().strip("()")
            recv.setdefault(reason, [0] * ncpu)[cpu] += 1
            flight_recv(reason, cpu)
        elif ev == "ipi_raise":
            m = re.match(r"target_mask=(\S+)\s+\((.*)\)", rest)
            cpus = mask_cpus(m.group(1))
            wide += len(cpus) >= 3
            for c in cpus:
                raise_weight[c] += 1
                flight_send(m.group(2), c)
    for k in ipis:
        got = recv.get(desc[k], [0] * ncpu)
        ok("recv-equal-" + k, within(got, k),
           "ipi_entry (%s) %s, %s delta %s..%s" % (desc[k], got, k, delta[k], delta_hi.get(k)))
    adj_raise, _ = adjusted(raise_weight)
    ok("raise-equal-ipis", within(adj_raise, ipis),
       "ipi_raise mask weights %s, IPI deltas %s" % (adj_raise, tot))
    per_rows, slack = ipis, 0
    oracle_sends = raise_weight
    recv_rows = {k: ("ipi_entry", desc[k]) for k in ipis}
    figure("IPI-delta", sum(tot))
    figure("raise-mask-weight", sum(raise_weight))
    figure("mask-sends-3plus", wide)
    per_target = tot

# ipitrace report, over the same window: its per-target IPIs
rep = subprocess.run([ipt, "report", "-f", "json", "-F", "ts > %d && ts < %d" % (t0, t1), out + "/trace.dat"]
                     + extra, capture_output=True, text=True)
try:
    d = json.loads(rep.stdout)
    got = [0] * ncpu
    for pc in d["per_cpu"]:
        got[pc["cpu"]] = pc["ipis"]
except (ValueError, KeyError, IndexError) as e:
    d, got = None, "unreadable: %s %s" % (e, rep.stderr.strip()[-200:])
rep_sends = list(got) if isinstance(got, list) else None	# as the report counts them
if isinstance(got, list):
    got, flying = adjusted(got)	# the report counts sends: moved as above
    figure("unpaired-at-the-edges-or-missed", flying)
ok("report-equal-deltas", isinstance(got, list) and within(got, per_rows, slack),
   "report per target %s, deltas %s (%d kprobe misses)" % (got, per_target, slack))
figure("interrupts-while-a-marker-was-written", brackets)
figure("report-ipis", sum(got) if isinstance(got, list) else got)
if d is not None:
    json.dump(d, open(out + "/report.json", "w"))
    if arch == "x86_64":
        # the misses record read from kprobe_profile at its end: at least
        # those the guest read at the end of the window
        pm = d.get("probes_missed")
        ok("probes-missed-stored", pm is not None and pm >= sum(missed.values()),
           "report probes_missed %r, kprobe_profile at the window's end %d" % (pm, sum(missed.values())))

# ---- the isolated CPUs (a guest booted with isolcpus= and nohz_full=) ----
# Independent of ipitrace: the guest's sysfs and command line, its
# /proc/interrupts deltas, trace-cmd's text, and the trace.dat's bytes.
# ipitrace's side: `ipitrace dump` (the receive events), `ipitrace report`
# (the sends per target, its list of the IPIs to the isolated CPUs, the
# isolated set it read from the file), record's "readers on CPU" line.


def cpulist(text):
    """the CPUs of a sysfs list "0-3,8" (sorted)"""
    cpus = set()
    for part in text.strip().split(","):
        if part:
            lo, _, hi = part.partition("-")
            cpus.update(range(int(lo), int(hi or lo) + 1))
    return sorted(cpus)


def sysfs(name):
    try:
        return open(out + "/" + name).read().strip()
    except OSError:
        return None


def on_set(got, rows, cpus, slack=0):
    """got (per CPU) equals the rows' deltas on cpus, or lies in their
    bracket and below them by at most slack in all"""
    lo = {c: sum(delta[r][c] for r in rows) for c in cpus}
    hi = {c: sum(delta_hi[r][c] for r in rows) for c in cpus}
    if all(got[c] == lo[c] for c in cpus):
        return True
    short = sum(max(0, lo[c] - got[c]) for c in cpus)
    return short <= slack and all(got[c] <= hi[c] for c in cpus)


iso_text = sysfs("isolated")
if iso_text:
    iso, nohz = cpulist(iso_text), cpulist(sysfs("nohz_full") or "")
    online, possible = cpulist(sysfs("online") or ""), cpulist(sysfs("possible") or "")
    want_iso = want_nohz = None
    for w in open(out + "/cmdline").read().split():
        if w.startswith("isolcpus="):	# flags first: domain,managed_irq,4-31
            want_iso = cpulist(",".join(x for x in w[9:].split(",") if x[:1].isdigit()))
        elif w.startswith("nohz_full="):
            want_nohz = cpulist(w[10:])
    ok("sysfs-cpus", iso == want_iso and nohz == want_nohz and online == possible == list(range(ncpu)),
       "isolated %s nohz_full %s online %s possible %s; command line isolcpus %s nohz_full %s, "
       "/proc/interrupts %d CPUs" % (iso_text, sysfs("nohz_full"), sysfs("online"), sysfs("possible"),
                                     want_iso, want_nohz, ncpu))
    iso_set = iso	# the set report lists by default (nohz_full too here: the same CPUs)
    figure("isolated-cpus", len(iso_set))

    # the file's own option (id 64, "isolated=LIST\nnohz_full=LIST\n..." and
    # its NUL; a u16 id and a u32 size before it), read from its bytes
    raw = open(out + "/trace.dat", "rb").read()
    m = re.search(rb"\x40\x00(....)(isolated=[0-9,-]*\nnohz_full=[0-9,-]*\n[a-z_=0-9,\n-]*)\x00", raw, re.S)
    opt = None
    if m and int.from_bytes(m.group(1), "little") == len(m.group(2)) + 1:
        opt = dict(l.split("=", 1) for l in m.group(2).decode().splitlines())
    ok("file-isolation-option", opt is not None and (cpulist(opt["isolated"]), cpulist(opt["nohz_full"])) == (iso, nohz),
       "option 64 of the file %r, the guest's sysfs %s / %s" % (m and m.group(2), iso_text, sysfs("nohz_full")))
    # the other roles it stores: the command line's isolcpus= (CPUs and
    # flags) and rcu_nocbs=, sysfs online and possible
    want = {"isolcpus": [], "isolcpus_flags": "", "rcu_nocbs": []}
    for w in open(out + "/cmdline").read().split():
        if w.startswith("isolcpus="):
            parts = w[9:].split(",")
            want["isolcpus_flags"] = ",".join(x for x in parts if x[:1].isalpha())
            want["isolcpus"] = cpulist(",".join(x for x in parts if x[:1].isdigit()))
        elif w.startswith("rcu_nocbs="):
            want["rcu_nocbs"] = cpulist(w[10:])
    def stored(k):
        return cpulist(opt[k]) if opt and k in opt else None
    got = opt and {"isolcpus": stored("isolcpus"), "isolcpus_flags": opt.get("isolcpus_flags"),
                   "rcu_nocbs": stored("rcu_nocbs"), "online": stored("online"), "possible": stored("possible")}
    want.update(online=online, possible=possible)
    ok("file-cpu-roles", got == want, "stored %r, the guest's command line and sysfs %r" % (got, want))

    # record's readers: on the housekeeping CPUs only
    err = open(out + "/record.err").read()
    m = re.search(r"readers on CPU ([0-9,-]+)\)", err)
    hk = sorted(set(range(ncpu)) - set(iso) - set(nohz))
    ok("readers-housekeeping", m is not None and cpulist(m.group(1)) == hk,
       "record says %r, housekeeping CPUs %s" % (m and m.group(0), hk))

    # ipitrace report without a filter: the isolated set it found in the
    # file, its list of IPIs to them (those in the window, per target)
    full = subprocess.run([ipt, "report", "-f", "json", out + "/trace.dat"], capture_output=True, text=True)
    try:
        fd = json.loads(full.stdout)
        riso = fd["isolated"]
        listed = [0] * ncpu
        for e in riso["ipis"]:
            if t0 < e["ts_ns"] < t1:
                listed[e["target_cpu"]] += 1
        rcpus = cpulist(riso["cpus"])
    except (ValueError, KeyError, TypeError) as e:
        fd, listed, rcpus = None, None, "unreadable: %s %s" % (e, full.stderr.strip()[-200:])
    ok("report-isolated-set", rcpus == iso_set, "report's isolated CPUs %s, sysfs %s" % (rcpus, iso_set))

    # receive: the interrupts ipitrace decodes on each isolated CPU between
    # the markers, per /proc/interrupts row, equal that row's delta
    # exactly (and trace-cmd's count)
    dump = subprocess.run([ipt, "dump", "--no-header", out + "/trace.dat"], capture_output=True, text=True)
    drecs = []
    for l in dump.stdout.splitlines():
        mm = LINE.match(l)
        if mm:
            drecs.append((int(mm.group(3)), mm.group(6), mm.group(7)))
    pos = {r[2].split()[-1]: i for i, r in enumerate(drecs) if r[1] == "print" and "ipitest-" in r[2]}
    dwin = drecs[pos.get("ipitest-start", 0) + 1:pos.get("ipitest-end", 0)]
    ok("dump-markers", dump.returncode == 0 and len(pos) == 2, "markers in ipitrace dump: %s" % pos)
    mine_recv = {row: [0] * ncpu for row in recv_rows}
    tc_recv = {row: [0] * ncpu for row in recv_rows}
    for src, dst in ((dwin, mine_recv), ([(r[0], r[2], r[3]) for r in win], tc_recv)):
        for cpu, ev, rest in src:
            for row, spec in recv_rows.items():
                if arch == "x86_64" and ev in spec:
                    dst[row][cpu] += 1
                elif arch != "x86_64" and ev == "ipi_entry" and rest.strip().strip("()") == spec[1]:
                    dst[row][cpu] += 1
    checked = ["RES", "CAL"] if arch == "x86_64" else sorted(recv_rows)
    for row in checked:
        bad = ["cpu%d: ipitrace %d, trace-cmd %d, delta %d..%d" % (c, mine_recv[row][c], tc_recv[row][c],
                                                                 delta[row][c], delta_hi[row][c])
               for c in iso_set if not mine_recv[row][c] == tc_recv[row][c] == delta[row][c]]
        ok("iso-recv-%s" % row, not bad, "%d of %d isolated CPUs differ: %s" % (len(bad), len(iso_set), "; ".join(bad[:6])))
        figure("iso-recv-%s" % row, sum(mine_recv[row][c] for c in iso_set))
        figure("iso-delta-%s" % row, sum(delta[row][c] for c in iso_set))

    # send: ipitrace report's sends to each isolated CPU in the window, and
    # its list of them, equal the oracle's count over trace-cmd's text
    # exactly; with the IPIs in flight at the window's edges moved, that
    # count equals the deltas, short by at most the kprobe misses
    bad = ["cpu%d: report %s, listed %s, trace-cmd %d" % (c, rep_sends and rep_sends[c], listed and listed[c],
                                                        oracle_sends[c])
           for c in iso_set if not (rep_sends and listed and rep_sends[c] == listed[c] == oracle_sends[c])]
    ok("iso-sends-equal-oracle", not bad, "%d of %d isolated CPUs differ: %s" % (len(bad), len(iso_set), "; ".join(bad[:6])))
    adj, _ = adjusted(oracle_sends)
    lo = sum(sum(delta[r][c] for r in per_rows) for c in iso_set)
    ok("iso-sends-equal-deltas", on_set(adj, per_rows, iso_set, slack),
       "sends to the isolated CPUs %d (edges moved), deltas %d, %d kprobe misses; per CPU: %s" %
       (sum(adj[c] for c in iso_set), lo, slack,
        "; ".join("cpu%d %d/%d" % (c, adj[c], sum(delta[r][c] for r in per_rows)) for c in iso_set
                  if adj[c] != sum(delta[r][c] for r in per_rows))[:400]))
    figure("iso-sends", sum(oracle_sends[c] for c in iso_set))
    figure("iso-sends-minus-deltas", sum(adj[c] for c in iso_set) - lo)
    # mask sends whose targets take in every isolated CPU
    figure("iso-masks-covering-all", sum(1 for r in win if r[2] in ("call_mask", "ipi_raise") and
                                         set(iso_set) <= set(mask_cpus(field(r[3], "cpumask") or field(r[3], "target_mask")))))
    # ipitrace's own reconciliation (its /proc/interrupts snapshots at
    # tracing on and off, against the whole file): counted, not asserted
    if fd is not None:
        kc = [k for k in fd.get("kernel_counters") or [] if k["cpu"] in iso_set and not k["within"]]
        figure("iso-kernel-counters-explained", "%d/%d" % (sum(k["note"] == "explained" for k in kc), len(kc)))

sys.exit(1 if fails else 0)
