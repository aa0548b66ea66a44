# test_trust2.sh - no answer that quietly drops what it cannot explain
# (issue "Trust II"), on live recordings: each expected value comes from the
# kernel (its /proc/interrupts counters, read by this script) or from how
# the recording was made, never from ipitrace's own output.
# run: live
# seconds: 35
. "$(dirname "$0")/lib.sh"

WL="$TOP/$B/tools/ipi-workload"
if [ "$(id -u)" != 0 ] || ! mount_tracefs; then
	skip trust2 "needs root and tracefs"
	finish
fi
[ "$(nproc)" -ge 2 ] || { skip trust2 "needs 2 CPUs"; finish; }

# cal CPU: the kernel's function-call interrupt count on CPU (/proc/interrupts CAL)
cal() { awk -v c=$(($1 + 2)) '$1 == "CAL:" { print $c }' /proc/interrupts; }

# 3. a recording's own --cpus in the kernel counters: record only what
# targets CPU 1 while membarrier sends function calls from CPU 1 to CPU 0.
# CPU 0's counters must say "not recorded", with the number the kernel
# counted, not "unexplained" and a footnote that blames lost events.
# record_c1: one try; $res is "ok ...", or what is wrong.  The spinning
# thread on CPU 0 can be preempted on a busy machine (the other test jobs),
# and membarrier then has no CPU to interrupt: up to 3 tries.
record_c1() {
before=$(cal 0)
"$IPT" record --force -c 1 -o "$TMP/c1.dat" -- "$WL" --cpus 1,0 membarrier 3000 > "$TMP/rec.out" 2>&1
rc=$?
after=$(cal 0)
if [ $rc != 0 ]; then
	res="exit $rc: $(tail -n 3 "$TMP/rec.out" | tr '\n' ';')"
else
	"$IPT" report -f json "$TMP/c1.dat" > "$TMP/c1.json" && "$IPT" report "$TMP/c1.dat" > "$TMP/c1.txt"
	$PY - "$TMP/c1.json" "$TMP/c1.txt" "$before" "$after" > "$TMP/check" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1])); text = open(sys.argv[2]).read()
before, after = int(sys.argv[3]), int(sys.argv[4])
rows = [k for k in d["kernel_counters"] if k["cpu"] == 0 and k["kernel"] is not None and not k["within"]]
cal0 = [k for k in rows if k["row"] == "CAL"]
bad = [k for k in rows if k["note"] != "not_recorded" or k["unexplained"] != 0]
total = sum(k["kernel"] for k in rows)
m = re.search(r"not recorded: (\d+) interrupts on CPUs that the recording's --cpus 1 left out", text)
problems = []
if not cal0 or cal0[0]["kernel"] < 100:
    problems.append("CPU 0 took too few function calls to tell: %s" % cal0)
elif cal0[0]["kernel"] > after - before:
    problems.append("the file's CAL count %d exceeds the kernel's delta around the run %d" % (cal0[0]["kernel"], after - before))
if bad:
    problems.append("CPU 0 rows not marked not_recorded: %s" % bad)
if not m or int(m.group(1)) != total:
    problems.append("footnote %s, want %d" % (m.group(0) if m else None, total))
if re.search(r"^\s+0 CAL .*\s\d+\s+Function call interrupts$", text, re.M):
    problems.append("CPU 0's CAL counted as unexplained in the text")
print("; ".join(problems) if problems else "ok %d %d" % (cal0[0]["kernel"], after - before))
PY
	res=$(cat "$TMP/check")
fi
}
for try in 1 2 3; do
	record_c1
	case $res in "CPU 0 took too few"*) echo "record -c 1: try $try: $res" ;; *) break ;; esac
done
case $res in
ok*) pass "record -c 1: CPU 0's counters say not recorded, by the number (kernel CAL, delta around the run: ${res#ok })" ;;
*) fail "record -c 1: CPU 0's counters" "$res" ;;
esac

# 1. coalescing on a real, loss-free recording: where the kernel counted
# fewer reschedule interrupts than there were sends, and every interrupt it
# counted is in the trace, sends - interrupts coalesced, and no interrupt
# lacks a send (perf bench sched messaging: dense reschedules).  Except the
# reschedule interrupts no traced send can have raised, found in `trace-cmd
# report -t` text: none to their CPU since its previous one, nor in the
# millisecond before (a write to the APIC that late after its tracepoint:
# no machine here; on a busy VM a few in a run): those, and no other, lack
# a send, and each makes one more send coalesced.
# On a machine busy with other jobs a run has, two times in six here, come
# out one send off: one coalesced send or one function-call interrupt with
# no send too many (most likely a function-call send while its target's
# handler ran, taken by that handler because its vCPU was held between its
# entry and its taking the queue, which no trace shows; not confirmed).  A
# run that is off is followed by one more, and both are said.
msg_run() {	# msg_run: one recording and its check, into $res
	"$IPT" record --force -o "$TMP/msg.dat" -- perf bench sched messaging -l 200 > "$TMP/rec.out" 2>&1
	if grep -q "events lost" "$TMP/rec.out"; then
		res="skip events were lost"
		return
	fi
	"$IPT" report -f json "$TMP/msg.dat" > "$TMP/msg.json"
	trace-cmd report -t "$TMP/msg.dat" > "$TMP/msg.txt" 2> /dev/null
	res=$($PY - "$TMP/msg.json" "$TMP/msg.txt" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
res = [k for k in d["kernel_counters"] if k["row"] == "RES" and k["kernel"] is not None]
# reschedule interrupts no traced send can have raised, per CPU
line = re.compile(r"\[(\d+)\]\s+(?:\S+\s+)?(\d+)\.(\d+):\s+(\w+):\s*(.*)$")
last_send, prev, none = {}, {}, {}
for l in open(sys.argv[2], errors="replace"):
    m = line.search(l)
    if not m:
        continue
    cpu, ev, rest = int(m.group(1)), m.group(4), m.group(5)
    ts = int(m.group(2)) * 10**9 + int(m.group(3).ljust(9, "0")[:9])
    if ev == "ipi_send_cpu" and re.search(r"callback=(0x0|\(nil\))(\s|$)", rest):
        last_send[int(re.search(r"\bcpu=(\d+)", rest).group(1))] = ts
    elif ev == "reschedule_entry":
        s = last_send.get(cpu)
        if s is None or s < min(prev.get(cpu, 0), ts - 10**6):
            none[cpu] = none.get(cpu, 0) + 1
        prev[cpu] = ts
if not res or any(k["kernel"] != k["traced"] for k in res):
    print("skip the trace lacks some interrupts the kernel counted: %s" % [(k["cpu"], k["kernel"], k["traced"]) for k in res])
elif any(k["sends"] < k["kernel"] - none.get(k["cpu"], 0) for k in res):
    print("skip more interrupts than sends (untraced sends): %s" % [(k["cpu"], k["sends"], k["kernel"]) for k in res])
else:
    want = sum(k["sends"] - k["kernel"] + none.get(k["cpu"], 0) for k in res)
    got = sum(c["coalesced"] for c in d["per_cpu"])
    unsent = {}
    for u in d["unsent"]:
        key = u["cpu"] if u["vector"] == "reschedule" else (u["cpu"], u["vector"])
        unsent[key] = unsent.get(key, 0) + u["count"]
    print("%s coalesced %d, kernel says %d (sends - interrupts %s, + %d no traced send can have raised); "
          "interrupts with no send %s, the trace says %s" %
          ("ok" if got == want and unsent == none else "bad", got, want,
           ", ".join("%d-%d" % (k["sends"], k["kernel"]) for k in res), sum(none.values()),
           unsent or 0, none or 0))
PY
)
}
if command -v perf > /dev/null 2>&1; then
	msg_run
	first=
	case $res in bad*) first=${res#bad }; msg_run ;; esac
	case $res in
	ok*) pass "perf bench sched messaging: ${res#ok }${first:+ (the run before was off: $first)}" ;;
	skip*) skip "coalescing on perf bench sched messaging" "${res#skip }" ;;
	*) fail "coalescing on perf bench sched messaging" "$res${first:+ (and the run before: $first)}" ;;
	esac
else
	skip "coalescing on perf bench sched messaging" "no perf (Debian linux-perf)"
fi

# 5. the HTML says what the text says of clocks that count no ns: an
# x86-tsc recording without its TSC2NSEC conversion (the option's id made
# unknown, as test_trust.sh does) and a counter-clock recording; expected:
# the clock's unit named, no seconds, no rates per second, no latency
# figures (the text report says "cycles, not ns: no times, rates or
# latencies")
html_clock() {	# html_clock NAME FILE UNIT
	"$IPT" report --force --html "$TMP/c.html" "$2" > /dev/null 2>&1 || { fail "$1" "report --html failed"; return; }
	$PY - "$TMP/c.html" "$3" > "$TMP/c.check" <<'PY'
import re, sys
h = open(sys.argv[1]).read(); unit = sys.argv[2]
bad = []
if "%s, not ns: no times, rates or latencies" % unit not in h:
    bad.append("no '%s, not ns' in the header" % unit)
for pat, what in ((r"&middot; \d+\.\d{6} s &middot;", "a duration in s"),
                  (r"[0-9.]+[kMG]?/s<", "a rate per second"),
                  (r"p50 [0-9.]+ (ns|\xb5s|ms|s)\b", "a latency"),
                  (r"<td>\d+\.\d</td><td>\d+\.\d</td><td>\d+\.\d</td><td>\d+\.\d</td>", "per-CPU latencies")):
    if re.search(pat, h):
        bad.append(what)
print("; ".join(bad) if bad else "ok")
PY
	[ "$(cat "$TMP/c.check")" = ok ] && pass "$1: the HTML names $3, shows no seconds, rates or latencies" ||
		fail "$1" "$(cat "$TMP/c.check")"
}
if grep -q 'x86-tsc' /sys/kernel/tracing/trace_clock; then
	"$IPT" record -q -Z none -C x86-tsc -o "$TMP/tsc.dat" -- "$WL" pingpong 300 > /dev/null 2>&1
	$PY - "$TMP/tsc.dat" "$TMP/tsc-raw.dat" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.find(b'\x0e\x00\x10\x00\x00\x00')      # TSC2NSEC (id 14, 16 bytes)
assert i > 0 and d.find(b'\x0e\x00\x10\x00\x00\x00', i + 1) < 0
d[i] = 0x63
open(sys.argv[2], 'wb').write(d)
PY
	html_clock "x86-tsc without a conversion" "$TMP/tsc-raw.dat" cycles
else
	skip "HTML of an x86-tsc recording" "this kernel offers no x86-tsc clock"
fi
if grep -q 'counter' /sys/kernel/tracing/trace_clock; then
	"$IPT" record -q -Z none -C counter -o "$TMP/cnt.dat" -- "$WL" pingpong 300 > /dev/null 2>&1
	html_clock "counter clock" "$TMP/cnt.dat" counts
else
	skip "HTML of a counter-clock recording" "this kernel offers no counter clock"
fi

# 6. causes of interrupts with no traced send, against a second
# implementation of the rule over `trace-cmd report -t` text: a loss window
# of a CPU runs from its record before a drop mark to its record after (from
# 0 before its first record); lost_events when one meets [entry - the largest
# latency matched, entry], else before_trace_start when a CPU whose first
# record follows no drop mark starts after the entry, else untraced_path
# (docs/matching.md).  The largest latency: entry - send of every matched
# send, across CPUs too whatever the clock (the rows' lat_ns leave out
# those a per-CPU clock cannot compare: the tracefs text's local clock
# leaves none).  A text's microsecond stamps: lines with the same one get
# +1, +2, ... ns in file order, as ipitrace reads them.
cat > "$TMP/causes.py" <<'PY'
import csv, json, re, sys
kind, path, rep_json, rows_csv = sys.argv[1:5]
d = json.load(open(rep_json))
unsent = d["isolated"]["unsent"]
maxlat = 0
for r in csv.DictReader(open(rows_csv)):
    if r["handler_ts_ns"]:
        maxlat = max(maxlat, int(r["handler_ts_ns"]) - int(r["ts_ns"]))
windows, first, lost_first, last, pending = [], {}, set(), {}, set()
rec = re.compile(r"\[(\d+)\]\s+(?:\S+\s+)?(\d+)\.(\d+):")
header_loss = False
prev_ts, same = None, 0
for line in open(sys.argv[5]):
    if kind == "text" and "entries-in-buffer/entries-written:" in line:
        a, b = map(int, re.search(r"(\d+)/(\d+)", line).groups())
        header_loss = b > a
    m = re.match(r"CPU:(\d+) \[", line)
    if m:
        pending.add(int(m.group(1)))
        continue
    m = rec.search(line)
    if not m or line.startswith("=>"):
        continue
    cpu, ts = int(m.group(1)), int(m.group(2)) * 10**9 + int(m.group(3).ljust(9, "0")[:9])
    if kind == "text":
        if ts == prev_ts and ts % 1000 == 0:
            same = min(same + 1, 999)
            ts += same
        else:
            prev_ts, same = ts, 0
    if cpu not in first:
        first[cpu] = ts
        if header_loss:
            pending.add(cpu)
    if cpu in pending:
        windows.append((last.get(cpu, 0), ts))
        if cpu not in last:
            lost_first.add(cpu)
        pending.discard(cpu)
    last[cpu] = ts
not_recording = max([t for c, t in first.items() if c not in lost_first] or [0])
bad = []
count = {}
for u in unsent:
    ts = u["ts_ns"]
    lo = ts - maxlat
    if any(f < ts and t > lo for f, t in windows):
        want = "lost_events"
    elif ts < not_recording:
        want = "before_trace_start"
    else:
        want = "untraced_path"
    count[want] = count.get(want, 0) + 1
    if u["cause"] != want:
        bad.append((ts, u["cpu"], u["cause"], want))
print("bad %d of %d: %s" % (len(bad), len(unsent), bad[:3]) if bad else
      "ok %d interrupts, %d loss windows, %s" % (len(unsent), len(windows), count))
PY
causes() {	# causes NAME KIND FILE
	"$IPT" report -f json -i "0-$(($(nproc) - 1))" "$3" > "$TMP/u.json" 2> "$TMP/u.err" &&
		"$IPT" convert --force -f csv -o "$TMP/u.csv" "$3" 2>> "$TMP/u.err" ||
		{ fail "$1" "ipitrace failed: $(head -c 200 "$TMP/u.err")"; return; }
	if [ "$2" = text ]; then cp "$3" "$TMP/u.txt"; else trace-cmd report -t "$3" > "$TMP/u.txt" 2> /dev/null; fi
	res=$($PY "$TMP/causes.py" "$2" "$3" "$TMP/u.json" "$TMP/u.csv" "$TMP/u.txt")
	case $res in
	ok*) pass "$1: every cause as a second implementation decides ($res)" ;;
	*) fail "$1" "$res" ;;
	esac
}
# a recording whose buffers overflow: 8 KiB per CPU
"$IPT" record -b 8 -o "$TMP/lossy.dat" -- "$WL" pingpong 20000 > "$TMP/rec.out" 2>&1
if grep -q "events lost" "$TMP/rec.out"; then
	causes "record -b 8 (events lost)" dat "$TMP/lossy.dat"
else
	fail "record -b 8" "no loss reported: $(tail -n 2 "$TMP/rec.out" | tr '\n' ';')"
fi
# and one without loss: no cause may claim lost events
"$IPT" record -o "$TMP/clean.dat" -- "$WL" pingpong 20000 > "$TMP/rec.out" 2>&1
if grep -q "events lost" "$TMP/rec.out"; then
	skip "a recording without loss" "events were lost with the default buffer on this machine"
else
	causes "a recording without loss" dat "$TMP/clean.dat"
fi
# a tracefs text whose header says entries were overwritten
I=/sys/kernel/tracing/instances/ipitrace-trust2-$$
if mkdir "$I" 2> /dev/null; then
	echo 8 > "$I/buffer_size_kb"
	for e in ipi/enable irq_vectors/reschedule_entry/enable irq_vectors/reschedule_exit/enable \
		 irq_vectors/call_function_single_entry/enable irq_vectors/call_function_single_exit/enable; do
		[ -e "$I/events/$e" ] && echo 1 > "$I/events/$e"
	done
	"$WL" pingpong 20000 > /dev/null 2>&1
	echo 0 > "$I/tracing_on"
	cat "$I/trace" > "$TMP/lossy.trace"
	rmdir "$I"
	ab=$(sed -n 's/.*entries-in-buffer\/entries-written: \([0-9]*\)\/\([0-9]*\).*/\1 \2/p' "$TMP/lossy.trace")
	set -- $ab
	want=$(($2 - $1))
	got=$("$IPT" report -f json "$TMP/lossy.trace" | $PY -c 'import json,sys; print(json.load(sys.stdin)["lost_by_header"])')
	text=$("$IPT" report "$TMP/lossy.trace" | grep -c "lost events by the text's header: $want ")
	[ "$want" -gt 0 ] && [ "$got" = "$want" ] && [ "$text" = 1 ] &&
		pass "a tracefs text says the loss its header states ($1/$2: $want lost)" ||
		fail "a tracefs text's header loss" "header $1/$2, JSON $got, text lines $text"
	causes "a tracefs text whose header says entries were lost" text "$TMP/lossy.trace"
else
	skip "tracefs text with loss" "cannot make an instance"
fi
finish
