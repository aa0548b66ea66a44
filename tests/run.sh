#!/bin/sh
# run.sh - run every test against each build directory given, and print one
# summary line "N passed, N failed, N skipped".
#
# Unit test binaries (BUILD/tests/unit_*) and test scripts (tests/test_*.sh)
# each end their output with "RESULT <passed> <failed>"; scripts also print
# "SKIP name: reason" lines, which count as skipped, never as passed.
# TESTS=pattern limits the scripts run (e.g. TESTS=tracedat).
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0 skip=0
log=$(mktemp)
fails=$(mktemp)	# the failures again at the end, where a log's tail shows them
trap 'rm -f "$log" "$fails"' EXIT

tally() {	# tally NAME: read $log, add its RESULT line
	res=$(grep '^RESULT ' "$log" | tail -n 1)
	s=$(grep -c '^SKIP ' "$log")
	grep -E '^(FAIL|SKIP)' "$log" | sed "s|^|  [$1] |"
	grep '^FAIL' "$log" | sed "s|^|  [$1] |" >> "$fails"
	if [ -z "$res" ]; then
		echo "  [$1] FAIL: no RESULT line (crashed?); last lines:" | tee -a "$fails"
		tail -n 5 "$log" | sed 's/^/      /'
		fail=$((fail + 1))
	else
		set -- $res
		pass=$((pass + $2))
		fail=$((fail + $3))
	fi
	skip=$((skip + s))
}

for b in "$@"; do
	for t in "$top/$b"/tests/unit_*; do
		[ -x "$t" ] || continue
		name="$b/$(basename "$t")"
		"$t" > "$log" 2>&1
		tally "$name"
		echo "ran $name: $(grep '^RESULT' "$log" | tail -n 1)"
	done
	for t in "$top"/tests/test_*.sh; do
		[ -f "$t" ] || continue
		case "$t" in *"${TESTS:-}"*) ;; *) continue ;; esac
		name="$b/$(basename "$t")"
		sh "$t" "$b" > "$log" 2>&1
		tally "$name"
		echo "ran $name: $(grep '^RESULT' "$log" | tail -n 1)"
	done
done
if [ -s "$fails" ]; then
	echo "failed:"
	cut -c1-400 "$fails"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
