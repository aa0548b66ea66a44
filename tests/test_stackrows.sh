#!/bin/sh
# test_stackrows.sh - a live recording with kernel stacks, large enough for
# the threaded paths (issue 41): 26 k round trips, about 50 k rows (18 k
# gave 36 k here, and 32 k on a busy run: too close to the line), over the
# 32 Ki from which convert's helper threads format the kept rows (their
# stacks' text kept per thread), and a report in two decoding lanes
# (stack records from each lane's ring).  Checked against tests/attrib_oracle.py, the second
# implementation that reads only `trace-cmd report` text: convert's nine
# matching columns row by row (CSV and JSON lines, the stack column among
# them), the report's groups by every key, its stacks table and folded
# stacks; the helper thread seen by strace (the kernel's view); the same
# bytes with --threads 1.  (needs root, tracefs, trace-cmd; SKIP lines
# otherwise)
# The ASan pass records the same way and checks that the ASan build's
# convert (CSV, JSON lines, --threads 1 and 2) and report (--threads 1 and
# 2, JSON) give the plain build's bytes, which the plain pass checks
# against the oracle: the helpers and the lanes' stack rings under ASan.
# run: live
. "$(dirname "$0")/lib.sh"
LIVE_NAME=stackrows
. "$(dirname "$0")/live.sh"
if [ $HAVE_TC = 0 ]; then
	skip stackrows "trace-cmd not installed (the independent reader)"
	finish
fi
D=$TMP/stk.dat
O=$TMP/out
mkdir -p "$O"

"$IPT" record --stacks -o "$D" -- "$WL" pingpong 26000 > /dev/null 2> "$TMP/rec.err" ||
	{ fail "record --stacks" "$(tail -n 2 "$TMP/rec.err")"; finish; }
"$IPT" convert --format csv --output "$O/rows.csv" "$D" > /dev/null 2> "$O/rows.csv.err"
echo $? > "$O/rows.csv.rc"
rows=$(($(wc -l < "$O/rows.csv") - 1))
if [ "$rows" -lt 32768 ]; then
	fail "rows" "$rows rows: fewer than the 32 Ki the helpers start from (a slower machine?)"
	finish
fi
pass "recording: $rows rows with their stacks, over 32 Ki"
if [ "$ASAN" = 1 ]; then
	PLAIN="$TOP/build/ipitrace"
	bad=
	for a in "convert --format csv -o - $D" "convert --threads 2 --format csv -o - $D" \
		 "convert --threads 1 --format jsonl -o - $D" "convert --format jsonl -o - $D" \
		 "report --threads 2 --format json $D" "report --threads 1 --format json $D"; do
		# shellcheck disable=SC2086 # (the words of a)
		"$IPT" $a > "$TMP/a.out" 2> "$TMP/a.err" && "$PLAIN" $a > "$TMP/p.out" 2> /dev/null &&
			cmp -s "$TMP/a.out" "$TMP/p.out" || bad="$bad [$a: $(cmp "$TMP/a.out" "$TMP/p.out" 2>&1; head -n 1 "$TMP/a.err")]"
	done
	[ -z "$bad" ] && pass "plain-bytes (convert and report, 1 and 2 threads: the plain build's bytes)" ||
		fail "plain-bytes" "$bad"
	finish
fi
"$IPT" convert --format jsonl --output "$O/rows.jsonl" "$D" > /dev/null 2> "$O/rows.jsonl.err"
echo $? > "$O/rows.jsonl.rc"

# the report's tables in two lanes; the recorder's own sends kept, as the
# oracle counts them
for k in comm pid task cpu callsite function kind stack; do
	"$IPT" report --threads 2 --with-recorder --format json --by "$k" --top 0 "$D" \
		> "$O/by-$k.json" 2> "$O/by-$k.json.err"
	echo $? > "$O/by-$k.json.rc"
done
"$IPT" report --threads 2 --format folded "$D" > "$O/folded.txt" 2> "$O/folded.txt.err"
echo $? > "$O/folded.txt.rc"
"$IPT" report --threads 2 --format folded --filter 'target_cpu == 1' "$D" > "$O/folded1.txt" 2> "$O/folded1.txt.err"
echo $? > "$O/folded1.txt.rc"

if ! "$PY" "$TOP/tests/attrib_oracle.py" "$D" > "$TMP/oracle.json" 2> "$TMP/oracle.err"; then
	fail "oracle" "$(tail -n 2 "$TMP/oracle.err")"
	finish
fi
ATTRIB_TESTS="$TOP/tests" "$PY" "$TOP/tests/attrib_cmp.py" dat "$TMP/oracle.json" "$O" > "$TMP/cmp" 2>&1
verdict_lines "stacks trace" "$TMP/cmp" || fail "compare" "$(tail -n 3 "$TMP/cmp")"

# the same bytes formatted in one thread; the helper thread was there
"$IPT" convert --threads 1 --format csv --output "$O/rows.j1.csv" "$D" 2> "$TMP/j1.err" &&
	cmp -s "$O/rows.csv" "$O/rows.j1.csv" && pass "convert --threads 1: the same bytes" ||
	fail "convert --threads 1" "$(cmp "$O/rows.csv" "$O/rows.j1.csv" 2>&1; head -n 1 "$TMP/j1.err")"
if ! command -v strace > /dev/null 2>&1; then
	skip "helper thread" "no strace"
elif [ "$(nproc)" -lt 2 ]; then
	skip "helper thread" "one CPU: no helper thread by default"
elif strace -f -e trace=clone,clone3 -o "$TMP/st" "$IPT" convert --threads 2 "$D" -o - > "$O/rows.st.csv" 2>> "$TMP/j1.err" &&
     strace -f -e trace=clone,clone3 -o "$TMP/st.rep" "$IPT" report --threads 2 "$D" > /dev/null 2>> "$TMP/j1.err" &&
     cmp -s "$O/rows.csv" "$O/rows.st.csv"; then
	# convert's threads: its report pass's (the lanes) and the helper
	nc=$(grep -Ec '^[0-9]+ +clone3?\(' "$TMP/st") nr=$(grep -Ec '^[0-9]+ +clone3?\(' "$TMP/st.rep")
	[ "$nc" -gt "$nr" ] && pass "helper thread made (strace: convert $nc threads, its report pass $nr), the same bytes" ||
		fail "helper thread" "strace: convert made $nc threads, report $nr: no helper"
else
	fail "helper thread" "$(cmp "$O/rows.csv" "$O/rows.st.csv" 2>&1; tail -n 1 "$TMP/j1.err")"
fi
finish
