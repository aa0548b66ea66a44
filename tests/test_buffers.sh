# test_buffers.sh - traces whose data is in tracefs instance buffers (made
# with `trace-cmd extract -B`, as `record -B` does where ftrace may be
# used): every buffer is read, each is named, and the counts agree with
# trace-cmd's report of the same file, in binary and in text form.
# run: live
. "$(dirname "$0")/lib.sh"
LIVE_NAME=buffers
. "$(dirname "$0")/live.sh"
if [ $HAVE_TC = 0 ]; then
	skip buffers "trace-cmd is not installed"
	finish
fi
# I0 alone makes one.dat; I1 and I2 make two.dat (extract drains what it reads)
I0=ipt_test_b0_$$ I1=ipt_test_b1_$$ I2=ipt_test_b2_$$
cleanup_instances() { rmdir "$T/instances/$I0" "$T/instances/$I1" "$T/instances/$I2" 2>/dev/null; }
trap 'cleanup_instances; cleanup' EXIT
mkdir "$T/instances/$I0" "$T/instances/$I1" "$T/instances/$I2" || { fail buffers "cannot make instances"; finish; }
for i in $I0 $I1 $I2; do
	echo 1 > "$T/instances/$i/events/ipi/enable"
	echo 1 > "$T/instances/$i/events/irq_vectors/reschedule_entry/enable" 2>/dev/null
done
# the second instance sees only the sends to CPU 1
echo 'cpu == 1' > "$T/instances/$I2/events/ipi/ipi_send_cpu/filter"
for i in $I0 $I1 $I2; do echo 1 > "$T/instances/$i/tracing_on"; done
"$WL" pingpong 300 > /dev/null 2>&1
for i in $I0 $I1 $I2; do echo 0 > "$T/instances/$i/tracing_on"; done
( cd "$TMP" && trace-cmd extract -B $I0 -o one.dat > /dev/null 2>&1 &&
  trace-cmd extract -B $I1 -B $I2 -o two.dat > /dev/null 2>&1 )
if [ ! -s "$TMP/one.dat" ] || [ ! -s "$TMP/two.dat" ]; then
	fail buffers "trace-cmd extract -B made no file"
	finish
fi
trace-cmd report "$TMP/one.dat" > "$TMP/one.txt" 2>/dev/null
trace-cmd report "$TMP/two.dat" > "$TMP/two.txt" 2>/dev/null

# one instance buffer, the top one empty: the same lines as trace-cmd
n1=$(grep -c ": ipi_send_cpu:" "$TMP/one.txt")
if [ "$n1" -gt 0 ] && "$IPT" dump "$TMP/one.dat" > "$TMP/one.dump" 2>&1 &&
   cmp -s "$TMP/one.dump" "$TMP/one.txt"; then
	pass "one instance buffer: dump prints what trace-cmd report prints ($n1 sends, lines '$I0: ...')"
else
	fail "one instance buffer: dump" "$(diff "$TMP/one.dump" "$TMP/one.txt" | head -n 3 | tr '\n' ' ')"
fi
# the report counts them (each send to one CPU on this machine: one IPI)
for f in one.dat one.txt; do
	got=$("$IPT" report --format json "$TMP/$f" | $PY -c 'import json,sys; print(json.load(sys.stdin)["ipis"])')
	[ "$got" = "$n1" ] && pass "one instance buffer ($f): report counts $got IPIs = trace-cmd's sends" ||
		fail "one instance buffer ($f): report" "got '$got' IPIs, trace-cmd shows $n1 sends"
done
# two buffers: the library sees both, each with its own sends
$PY - "$TMP/two.txt" "$I1" "$I2" > "$TMP/want" <<'PY'
import sys, collections
c = collections.Counter()
for l in open(sys.argv[1]):
    if ': ipi_send_cpu:' in l:
        c[l.split(':', 1)[0] if l.split(':', 1)[0] in sys.argv[2:] else 'top'] += 1
print(' '.join('%s=%d' % (b, c[b]) for b in sys.argv[2:]))
PY
for f in two.dat two.txt; do
	got=""
	for b in $I1 $I2; do
		got="$got $b=$("$IPT" report --buffer $b --format json "$TMP/$f" 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["send_events"])')"
	done
	[ "${got# }" = "$(cat "$TMP/want")" ] && ! grep -q '=0' "$TMP/want" && pass "two buffers ($f): report --buffer NAME counts each one's sends ($got)" ||
		fail "two buffers ($f): --buffer" "got '${got# }', trace-cmd: $(cat "$TMP/want")"
done
"$IPT" dump "$TMP/two.dat" > "$TMP/two.dump" 2>&1
if cmp -s "$TMP/two.txt" "$TMP/two.dump"; then
	pass "two buffers: dump of every buffer = trace-cmd report"
else
	fail "two buffers: dump" "$(diff "$TMP/two.dump" "$TMP/two.txt" | head -n 3 | tr '\n' ' ')"
fi
# an IPI report over both would count every IPI twice: a usage error naming them
"$IPT" report "$TMP/two.dat" > /dev/null 2> "$TMP/err"
rc=$?
[ $rc = 2 ] && grep -q "$I1" "$TMP/err" && grep -q "$I2" "$TMP/err" && [ "$(wc -l < "$TMP/err")" = 1 ] &&
	pass "two buffers: report refuses to merge them (exit 2, one line naming both)" ||
	fail "two buffers: report" "exit $rc: $(head -c 200 "$TMP/err")"
"$IPT" report --buffer nosuch "$TMP/two.dat" > /dev/null 2> "$TMP/err"
rc=$?
[ $rc = 2 ] && grep -q "$I2" "$TMP/err" && pass "--buffer nosuch: exit 2 naming the buffers there are" ||
	fail "--buffer nosuch" "exit $rc: $(cat "$TMP/err")"
finish
