#!/bin/sh
# test_report.sh - every count in `ipitrace report` against an independent
# count of the same thing from `trace-cmd report` lines; matching rate on
# real traces; latencies against a hand computation; JSON validity and
# agreement with the text; --isolated lists exactly the IPIs to those CPUs.
# The live recording runs in the live lane, the rest beside it (tests/run.sh,
# "run: split"); the ASan pass reads one recorded trace of each kind.
# run: split
# fast: no - a live script (run: split); make check runs it
# seconds: 10
. "$(dirname "$0")/lib.sh"

command -v trace-cmd >/dev/null || { skip report "trace-cmd not installed"; finish; }
"$PY" -c 'import json' 2>/dev/null || { skip report "python3 missing"; finish; }

if offline_part; then	# (the body is not indented: heredocs)
# csd calls queued and never run: past 262,144 waiting at once (the bound
# of lib/ipi/csdq.h, docs/commands.md), all those waiting are forgotten and
# counted, by hand 262,144 here; the run of a call queued after is paired
"$PY" - "$TMP/given.txt" <<'PY'
import sys
n, base = 262144 + 5, 0xffff888100000000
with open(sys.argv[1], "w") as f:
    f.write("cpus=2\n")
    for i in range(n):
        f.write(f"            bash-100   [000]    20.{i:09d}: csd_queue_cpu:        cpu=1"
                f" callsite=smp_call_function_single+0x8a func=do_sync_core csd=0x{base + i * 64:x}\n")
    last = base + (n - 1) * 64
    f.write(f"          <idle>-0     [001]    21.000000000: csd_function_entry:   func=do_sync_core, csd=0x{last:x}\n")
    f.write(f"          <idle>-0     [001]    21.000001000: csd_function_exit:    func=do_sync_core, csd=0x{last:x}\n")
PY
if "$IPT" report -f json "$TMP/given.txt" > "$TMP/given.json" 2> "$TMP/err" &&
   "$IPT" report "$TMP/given.txt" > "$TMP/given.out" 2>> "$TMP/err"; then
	got=$("$PY" -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(d["matching"]["csd_given_up"], d["csd"]["queued"], [c["csd_runs"] for c in d["per_cpu"]])' "$TMP/given.json")
	[ "$got" = "262144 262149 [0, 1]" ] && grep -q "csd calls forgotten unpaired: 262144 " "$TMP/given.out" &&
		pass "csd calls forgotten past the bound: 262144 counted, said in the text, the later run paired" ||
		fail "csd-given-up" "json: $got (want 262144 262149 [0, 1]); text: $(grep -i forgotten "$TMP/given.out")"
else
	fail "csd-given-up" "$(head -n 1 "$TMP/err")"
fi
for f in $(inputs "$TRACES"/recorded/*.dat); do
	n=$(basename "$f")
	tc_report "$f" 2>/dev/null > "$TMP/ref.txt"
	"$IPT" report -f json --isolated 1 "$f" > "$TMP/r.json" 2> "$TMP/err" || { fail "$n report" "$(cat "$TMP/err")"; continue; }
	"$IPT" report "$f" > "$TMP/r.txt" 2>&1
	"$PY" - "$TMP/ref.txt" "$TMP/r.json" "$TMP/r.txt" > "$TMP/out" 2>&1 <<'PY'
import json, re, sys, collections
ref, js, txt = sys.argv[1], sys.argv[2], sys.argv[3]
d = json.load(open(js))
# independent counts from trace-cmd's lines: [src cpu] and cpu=target of each send
per_target = collections.Counter(); matrix = collections.Counter(); pairs = collections.Counter()
line_re = re.compile(r"^\s*(.+)-(\d+)\s+\[(\d+)\]\s+[\d.]+: ipi_send_cpu:\s+cpu=(\d+) callsite=(\S+) callback=(\S+)")
for l in open(ref):
    m = line_re.match(l)
    if m:
        src, tgt, cs = int(m.group(3)), int(m.group(4)), m.group(5)
        per_target[tgt] += 1; matrix[(src, tgt)] += 1; pairs[(tgt, cs)] += 1
fails = []
def check(name, got, want):
    if got != want: fails.append(f"{name}: report {got}, trace-cmd {want}")
for c in d["per_cpu"]:
    check(f"cpu {c['cpu']} ipis", c["ipis"], per_target.get(c["cpu"], 0))
    check(f"cpu {c['cpu']} kinds sum", sum(c["by_kind"].values()), c["ipis"])
check("total ipis", d["ipis"], sum(per_target.values()))
check("kinds total", sum(d["kinds"].values()), sum(per_target.values()))
check("matrix", {(e["src_cpu"], e["target_cpu"]): e["count"] for e in d["matrix"]}, dict(matrix))
cs = collections.Counter()
for p in d["pairs"]: cs[(p["target_cpu"], p["callsite"])] += p["count"]
check("call site pairs", dict(cs), dict(pairs))
# the kinds against the rule table's evidence in trace-cmd lines
resched = sum(1 for l in open(ref) if " ipi_send_cpu: " in l and l.rstrip().endswith("callback=0x0"))
check("resched kind", d["kinds"]["resched"], resched)
# isolated 1: exactly the IPIs to CPU 1
check("isolated 1 count", len(d["isolated"]["ipis"]), per_target.get(1, 0))
check("isolated targets", {i["target_cpu"] for i in d["isolated"]["ipis"]} or {1}, {1})
# the text shows the same per-CPU totals
t = open(txt).read()
for c in d["per_cpu"]:
    if c["ipis"] and not re.search(rf"^\s+{c['cpu']}\s+{c['ipis']}\s", t, re.M):
        fails.append(f"text lacks cpu {c['cpu']} total {c['ipis']}")
m = d["matching"]
rate = 100.0 * m["remote_matched"] / m["remote"] if m["remote"] else 100.0
print(f"rate {rate:.2f} remote {m['remote']} matched {m['remote_matched']} unmatched {m['unmatched']}")
if fails: print("FAILS " + " | ".join(fails[:4])); sys.exit(1)
PY
	if [ $? -eq 0 ]; then
		pass "$n counts, matrix, pairs, kinds, isolated list = trace-cmd counts"
		rate=$(sed -n 's/^rate \([0-9.]*\).*/\1/p' "$TMP/out")
		if [ "$("$PY" -c "print(int($rate >= 99))")" = 1 ]; then
			pass "$n remote IPIs matched: $(head -n 1 "$TMP/out")"
		else
			fail "$n matching rate" "$(head -n 1 "$TMP/out")"
		fi
	else
		fail "$n counts" "$(tail -n 2 "$TMP/out" | tr '\n' '|')"
	fi
done

# latencies by hand: tests/data/latency.report.txt states its timestamps (us):
#   sends to CPU 1 at 10, 20, 23 (resched), 41 (csd queued at 40);
#   reschedule_entry at 15 (exit 18) and 27 (exit 37); call_function_single
#   entry 50 (exit 60); csd_function entry 52, exit 58; a send to CPU 0 at 70.
# => latencies 5, 7, 4, 9 us: p50 (nearest rank 2 of 4) 5, p99 9, max 9, min 4;
#    handler times 3, 10, 10: p50 10, min 3; coalesced 1 (the 27 entry served
#    two sends); csd queue->run 12, run 6; the send at 70 is unmatched: trace ended.
"$IPT" report --assume-synced-clock -f json "$TOP/tests/data/latency.report.txt" > "$TMP/lat.json" 2> "$TMP/err"
"$PY" - "$TMP/lat.json" > "$TMP/out" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); c = d["per_cpu"][1]
want = {"latency": (4, 5000, 9000, 9000, 4000), "handler": (3, 10000, 10000, 10000, 3000),
        "csd_queue_to_run": (1, 12000, 12000, 12000, 12000), "csd_run": (1, 6000, 6000, 6000, 6000)}
bad = []
for k, (n, p50, p99, mx, mn) in want.items():
    h = c[k]
    got = (h["count"], h["p50_ns"], h["p99_ns"], h["max_ns"], h["min_ns"]) if h else None
    if got != (n, p50, p99, mx, mn): bad.append(f"{k} {got}")
if c["coalesced"] != 1: bad.append(f"coalesced {c['coalesced']}")
if d["matching"]["unmatched"]["trace_ended"] != 1: bad.append(f"unmatched {d['matching']['unmatched']}")
print("; ".join(bad) if bad else "ok"); sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] && pass "latencies, handler times, csd times, coalescing = hand computation" ||
	fail "hand-computed latencies" "$(cat "$TMP/out" "$TMP/err" | head -c 400)"
# without a cross-CPU clock, latencies are missing and the report says why
"$IPT" report "$TOP/tests/data/latency.report.txt" > "$TMP/t.txt" 2>&1
grep -q 'cross-CPU latencies are missing' "$TMP/t.txt" && pass "clock without cross-CPU order: says why latencies are missing" ||
	fail "missing-latency reason" "not stated"
# filter errors are usage errors pointing at the column
"$IPT" report --filter 'target_cpu == (' "$TOP/tests/data/latency.report.txt" > /dev/null 2> "$TMP/err"
[ $? -eq 2 ] && grep -q 'column' "$TMP/err" && pass "bad filter: exit 2, column named" || fail "bad filter" "$(cat "$TMP/err")"
# --threads: the same JSON (counts, matching, latencies, isolation lists and
# their stacks, send ids) with one thread, with the streams decoded by 2, 3 and
# 8 parallel threads, on every real trace, x86 and arm64 synthetic traces, and
# a text trace
GEN="$TOP/$B/tools/gen-synth"
set -- $(inputs "$TRACES"/recorded/*.dat "$TRACES"/public/lisa/trace.dat "$TOP"/tests/data/qemu/*.dat \
	 "$TRACES"/public/lkml-snippets/x86-hackbench-csd_queue_cpu-ipi_send_cpu-csd_function_entry-trace-cmd-report.txt)
if [ -x "$GEN" ] && "$GEN" -o "$TMP/t-x86.dat" -e 200000 -s 3 -n 8 2>/dev/null &&
   "$GEN" -o "$TMP/t-arm.dat" -a arm64 -e 50000 -s 4 -n 8 2>/dev/null; then
	set -- "$@" "$TMP/t-x86.dat" "$TMP/t-arm.dat"
fi
bad="" n=0
for f in "$@"; do
	threads_agree "$(basename "$f")" report -f json --isolated 0-3 --assume-synced-clock "$f"
	n=$((n + 1))
done
ntr=$n
check "--threads 1 and $(echo $AGREE_THREADS | tr ' ' ,) give the same JSON on $ntr traces:${bad:- ok}" [ $ntr -ge 2 -a -z "$bad" ]
# and the same text, byte for byte (what `report` prints by default)
bad=""
for f in "$@"; do
	threads_agree "$(basename "$f")" report "$f"
done
check "--threads 1 and $(echo $AGREE_THREADS | tr ' ' ,) give the same text report on $ntr traces:${bad:- ok}" [ $ntr -ge 2 -a -z "$bad" ]
# task names learnt from sched_switch, each lane apart then merged: the
# senders' comms against trace-cmd's (tests/comm_check.py: the saved
# command line, else the first sched_switch naming the pid, in trace-cmd
# report's order), on forkexec.dat with its command lines' pids zeroed
# (tests/comm_strip.py), so that the names come from sched_switch alone;
# its pids change names (fork, exec) and CPUs
FE="$TRACES/recorded/forkexec.dat"
if [ -f "$FE" ] && command -v trace-cmd > /dev/null &&
   trace-cmd convert --compression none -i "$FE" -o "$TMP/fe-none.dat" > /dev/null 2>&1 &&
   trace-cmd dump --cmd-lines "$TMP/fe-none.dat" > "$TMP/fe-cl0.txt" 2>/dev/null &&
   "$PY" "$TOP/tests/comm_strip.py" "$TMP/fe-none.dat" "$TMP/fe-strip.dat" "$TMP/fe-cl0.txt" > /dev/null &&
   trace-cmd dump --cmd-lines "$TMP/fe-strip.dat" > "$TMP/fe-cl.txt" 2>/dev/null &&
   trace-cmd report "$TMP/fe-strip.dat" > "$TMP/fe-rep.txt" 2>/dev/null; then
	bad="" got=""
	for j in 1 2 3 8; do
		"$IPT" report -j$j -f json "$TMP/fe-strip.dat" > "$TMP/fe-$j.json" 2> "$TMP/fe-$j.err" &&
			got=$("$PY" "$TOP/tests/comm_check.py" "$TMP/fe-cl.txt" "$TMP/fe-rep.txt" "$TMP/fe-$j.json" 2> "$TMP/fe-$j.why") ||
			bad="$bad -j$j: $(cat "$TMP/fe-$j.why" "$TMP/fe-$j.err" | head -n 1)"
	done
	set -- $got
	if [ -z "$bad" ] && [ "${2:-0}" -gt 0 ]; then
		pass "learnt comms: $1 senders of forkexec.dat without command lines, $2 named from sched_switch, as trace-cmd's first mention, with -j 1, 2, 3, 8"
	else
		fail "learnt comms" "${bad:- no name learnt ($got)}"
	fi
else
	skip "learnt comms" "trace-cmd, or forkexec.dat in $TRACES/recorded, missing or unreadable"
fi
fi	# offline_part

# The listing of the IPIs to isolated CPUs, bounded: on busy-stacks.dat
# with --isolated 1, the first 20 sends to CPU 1 and the 20 slowest of the
# rest, each distinct stack numbered once in order of first appearance.
# The sends, their order and their stacks from trace-cmd's text beside the
# trace; the latencies that pick the slowest from the JSON (checked against
# the oracle in test_oracle.sh); --all lists every one.
BS=$TRACES/recorded/busy-stacks.dat
if [ -f "$BS" ] && [ -f "${BS%.dat}.report.txt" ]; then
	"$IPT" report --isolated 1 "$BS" > "$TMP/iso.txt" && "$IPT" report --isolated 1 --all "$BS" > "$TMP/isoall.txt" &&
	"$IPT" report --isolated 1 -f json "$BS" > "$TMP/iso.json"
	"$PY" - "${BS%.dat}.report.txt" "$TMP/iso.txt" "$TMP/isoall.txt" "$TMP/iso.json" > "$TMP/out" <<'PY'
import json, re, sys
sends, cur = [], None		# (time text, stack addresses) of each send to CPU 1
last = {}			# per CPU: its last record, if a send to CPU 1
for l in open(sys.argv[1]):
    if l.startswith("=> "):
        if cur is not None:
            cur[1].append((l.split("(")[-1].rstrip(")\n"), l[3:].split(" ")[0]))
        continue
    m = re.match(r"\s*\S.*?\[(\d+)\]\s+(\d+\.\d+): (\w+): +(\S*)", l)
    if not m:
        continue
    cpu = int(m[1])
    if m[3] == "kernel_stack":	# the stack of the record just before on its CPU
        cur = last.pop(cpu, None)
        continue
    cur, last[cpu] = None, None
    if m[3] in ("ipi_send_cpu", "ipi_send_cpumask"):
        tg = set()
        for part in m[4].split("=", 1)[1].split(","):
            x, _, y = part.partition("-")
            tg.update(range(int(x), int(y or x) + 1))
        if 1 in tg:
            last[cpu] = (m[2], [])
            sends.append(last[cpu])
def trimmed(st):	# the tracing frames on top cut, as everywhere
    k = 0
    while k < len(st) and re.match(r"(trace_event_raw_event_|__traceiter_|perf_trace_)", st[k][1]):
        k += 1
    return tuple(a for a, _ in st[k:])
def listing(path):
    txt = open(path).read().split("\nIPIs that reached isolated CPUs", 1)[1]
    head = int(re.match(r" 1: (\d+)", txt)[1])
    rows = re.findall(r"^  +(\d+\.\d+) +0 +1 .* (\d+|-)$", txt, re.M)
    nstacks = len(re.findall(r"^    stack \d+$", txt, re.M))
    return head, rows, nstacks
def check_ids(rows):	# stack numbers in order of first appearance, equal stacks equal numbers
    seen, bad = {}, 0
    for ts, sid in rows:
        st = trimmed(by_ts[ts])
        want = seen.setdefault(st, len(seen) + 1) if st else None
        bad += str(want) != sid if want else sid != "-"
    return bad, len(seen)
by_ts = {}
for ts, st in sends:
    by_ts.setdefault(ts, st)
lat = [i["lat_ns"] for i in json.load(open(sys.argv[4]))["isolated"]["ipis"]]
bad = []
head, rows, nst = listing(sys.argv[2])
n = len(sends)
if head != n:
    bad.append(f"header {head}, trace-cmd {n} sends to CPU 1")
times = [ts for ts, _ in rows]
if times[:20] != [ts for ts, _ in sends[:20]]:
    bad.append("the first 20 rows are not the first 20 sends")
rest = sorted(range(20, n), key=lambda k: (-(lat[k] if lat[k] is not None else -1), k))[:20]
if sorted(times[20:]) != sorted(sends[k][0] for k in rest) or len(rows) != 40:
    bad.append(f"{len(rows)} rows; the last 20 are not the 20 slowest of the rest")
b, distinct = check_ids(rows)
if b or nst != distinct:
    bad.append(f"{b} rows with the wrong stack number; {nst} stacks printed, {distinct} distinct")
head_all, rows_all, nst_all = listing(sys.argv[3])
b, distinct = check_ids(rows_all)
if len(rows_all) != n or [ts for ts, _ in rows_all] != [ts for ts, _ in sends] or b or nst_all != distinct:
    bad.append(f"--all: {len(rows_all)} rows of {n}, {b} wrong stack numbers, {nst_all} stacks of {distinct}")
print("; ".join(bad) if bad else f"{n} sends: 40 rows, {nst} distinct stacks; --all {len(rows_all)} rows, {nst_all} stacks")
sys.exit(1 if bad else 0)
PY
	[ $? -eq 0 ] && pass "--isolated listing, bounded and --all, against trace-cmd's sends and stacks ($(cat "$TMP/out"))" ||
		fail "--isolated listing" "$(tail -n 3 "$TMP/out" | tr '\n' ';')"
fi

live_part || finish
# --isolated on a live recording of the generator, with --stacks
W="$TOP/$B/tools/ipi-workload"
if [ "$(id -u)" -ne 0 ] || ! mount_tracefs || [ ! -d /sys/kernel/tracing/events/ipi ] || [ ! -x "$W" ]; then
	skip "isolated list on a live recording" "needs root, tracefs with ipi events and $W"
elif "$IPT" record -q --stacks -o "$TMP/live.dat" -- "$W" pingpong 300 > /dev/null 2>&1; then
	trace-cmd report -l "$TMP/live.dat" 2>/dev/null > "$TMP/live.txt"
	"$IPT" report -f json --isolated 1 "$TMP/live.dat" > "$TMP/live.json"
	# the oracle: a send's kernel stack is the next record of the same CPU
	# and context level (the latency flags' fourth character), when the
	# kernel wrote one; a send the kernel wrote none for has none
	"$PY" - "$TMP/live.txt" "$TMP/live.json" > "$TMP/out" 2>&1 <<'PY'
import json, re, sys
LEVEL = {".": 0, "s": 1, "h": 2, "H": 2, "z": 3, "Z": 3}
pat = re.compile(r"\s(\d+)[.dX][.NnpbB]([.hsHzZ])\S*\s+\d+\.\d+: (\w+): +(.*)")
ref, pending = [], {}
for l in open(sys.argv[1]):
    m = pat.search(l)
    if not m: continue
    key = (m[1], LEVEL[m[2]])
    if m[3] == "user_stack": continue	# written before the kernel stack
    if m[3] == "kernel_stack" and key in pending: ref[pending[key]] = True
    pending.pop(key, None)
    if m[3] == "ipi_send_cpu" and m[4].startswith("cpu=1 "):
        pending[key] = len(ref); ref.append(False)
d = json.load(open(sys.argv[2]))
iso = d["isolated"]["ipis"]
bad = []
if len(iso) != len(ref): bad.append(f"{len(iso)} listed, trace-cmd has {len(ref)} sends to CPU 1")
if any(i["target_cpu"] != 1 for i in iso): bad.append("an entry not to CPU 1")
if any(not i["comm"] or i["src_cpu"] < 0 for i in iso): bad.append("an entry without sender")
got = [bool(i["stack"]) for i in iso]
if len(got) == len(ref) and got != ref:
    bad.append(f"{sum(got)} with a stack, trace-cmd shows {sum(ref)}; first differing entry {next(k for k in range(len(got)) if got[k] != ref[k])}")
print("; ".join(bad) if bad else f"ok {len(iso)}, {len(ref) - sum(ref)} the kernel wrote no stack for"); sys.exit(1 if bad else 0)
PY
	[ $? -eq 0 ] && pass "--isolated 1 lists exactly the sends to CPU 1, with sender, and the stack trace-cmd shows ($(cat "$TMP/out"))" ||
		fail "--isolated 1 on a live recording" "$(cat "$TMP/out")"
else
	fail "record --stacks" "recording failed"
fi

finish
