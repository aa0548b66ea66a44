#!/bin/sh
# test_filter.sh - filters from the command line: (1) a table of expressions
# with hand-checked counts on tests/data/latency.report.txt; (2) userspace
# filtering of an unfiltered recording selects the same IPI sends as the
# kernel's own filter on the same workload run (root + tracefs; SKIP otherwise).
# run: live
. "$(dirname "$0")/lib.sh"

FIX="$TOP/tests/data/latency.report.txt"
# The fixture's sends (see the file): ipi_send_cpu to CPU 1 at 10, 20, 23 us
# (wakeup_preempt, no callback) and 41 us (ttwu_queue_wakelist, generic
# handler, after csd_queue_cpu cpu=1 at 40); one to CPU 0 at 70 (wakeup_preempt).
# dump counts events, convert counts rows.
while IFS='#' read -r cmd expr want; do
	[ -n "$cmd" ] || continue
	if [ "$cmd" = dump ]; then
		got=$("$IPT" dump --no-header -F "$expr" "$FIX" 2>&1 | wc -l)
	else
		got=$(($("$IPT" convert -o - --filter "$expr" "$FIX" 2>&1 | wc -l) - 1))
	fi
	[ "$got" = "$want" ] && pass "$cmd '$expr' = $want" || fail "$cmd '$expr'" "got $got, want $want"
done <<'TABLE'
dump#cpu == 1#5
dump#cpu & CPUS{1}#5
dump#cpu == 0#1
dump#CPU == 1#9
dump#callsite ~ "wakeup*"#4
dump#callsite.function == "ttwu_queue_wakelist"#2
dump#func == "sched_ttwu_pending"#3
dump#callback == 0 && cpu == 1#3
dump#vector == 253#4
dump#COMM == "recv"#9
convert#target_cpu == 1#4
convert#cpumask & CPUS{0}#1
convert#kind == "wakeup"#1
convert#kind == "resched" && src_cpu == 0#3
convert#func ~ "sched_*" || target_cpu == 0#2
convert#!(target_cpu == 1)#1
convert#ts >= 100000020000 && ts < 100000041000#2
TABLE
# errors point at the column
"$IPT" dump -F 'cpu == 1 &&' "$FIX" > /dev/null 2> "$TMP/err"
[ $? -eq 2 ] && grep -q 'column 12' "$TMP/err" && pass "incomplete expression: exit 2 at column 12" ||
	fail "incomplete expression" "$(cat "$TMP/err")"

# kernel filter vs userspace filter on the same run (two recorders at once)
W="$TOP/$B/tools/ipi-workload"
if [ "$(id -u)" -ne 0 ] || ! mount_tracefs || [ ! -d /sys/kernel/tracing/events/ipi ] || [ ! -x "$W" ]; then
	skip "kernel vs userspace filter" "needs root, tracefs with ipi events and $W"
	finish
fi
# the workload under a name of its own: another ipi-workload running on the
# machine meanwhile is not this test's
WN="ipiwl-$$"
cp "$W" "$TMP/$WN" && W="$TMP/$WN"
for expr in 'cpu == 1' 'cpu & CPUS{1}' 'callback != 0'; do
	# both record until told to stop, after the workload: a slow machine
	# cannot push its last sends past either window
	# (and the workload starts once both say they record: under ASan and
	# beside other jobs, starting takes more than a second)
	"$IPT" record --force -o "$TMP/all.dat" -d 60 > /dev/null 2> "$TMP/a.err" &
	a=$!
	"$IPT" record --force --filter "$expr" -o "$TMP/k.dat" -d 60 > /dev/null 2> "$TMP/k.err" &
	k=$!
	i=0
	until grep -q "recording on" "$TMP/a.err" 2> /dev/null && grep -q "recording on" "$TMP/k.err" 2> /dev/null; do
		i=$((i + 1))
		[ $i -gt 300 ] && break
		sleep 0.1
	done
	sleep 0.2
	# function calls too: a callback in every send ('callback != 0' has
	# nothing to compare when a busy machine gave pingpong no wakelist
	# send); beside the pingpong, not after it, so that a slow machine
	# still runs it while both record
	"$W" --rate 300 membarrier 300 > /dev/null 2>&1 &
	m=$!
	"$W" pingpong 1500 > /dev/null 2>&1
	wait $m
	sleep 0.5
	kill -INT $a $k
	wait $a; ra=$?; wait $k; rk=$?
	if [ $ra -ne 0 ] || [ $rk -ne 0 ]; then
		fail "kernel filter '$expr'" "record failed ($ra, $rk)"; continue
	fi
	# the workload's sends, compared without timestamps (two instances stamp
	# a few us apart; and they start and stop at slightly different times,
	# so only the workload's own events, all inside both windows, count)
	strip() { sed -E 's/^(.*\]) +[0-9.]+: /\1 /' | squeeze | sort; }
	"$IPT" dump --no-header -e ipi:ipi_send_cpu -F "COMM == \"$WN\"" "$TMP/k.dat" | strip > "$TMP/k.txt"
	"$IPT" dump --no-header -e ipi:ipi_send_cpu -F "($expr) && COMM == \"$WN\"" "$TMP/all.dat" | strip > "$TMP/u.txt"
	n=$(wc -l < "$TMP/k.txt")
	if [ "$n" = 0 ] && [ ! -s "$TMP/u.txt" ] && [ "$expr" = 'callback != 0' ]; then
		# nothing to compare: neither recording holds a function call of
		# the workload (a membarrier IPI goes out only while its spinner
		# runs; on a machine this busy it did not)
		skip "kernel filter '$expr'" "the workload sent no function call in either recording: nothing to compare"
	elif [ "$n" -gt 0 ] && cmp -s "$TMP/k.txt" "$TMP/u.txt"; then
		pass "kernel filter '$expr' = userspace filter ($n sends)"
	else
		fail "kernel filter '$expr'" "kernel $n, userspace $(wc -l < "$TMP/u.txt"): $(diff "$TMP/k.txt" "$TMP/u.txt" | head -n 2 | tr '\n' '|')"
	fi
done
finish
