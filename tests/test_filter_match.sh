#!/bin/sh
# test_filter_match.sh - filters on what matching found (lat_ns, handler_ns,
# handler_ts_ns, matched, coalesced, unmatched_reason, stack) and on
# durations with units (100us, 1391.5s), through report -F, report -f uniq
# -F, convert -F, diff -F and Python's rows(filter=):
# tests/filter_match_check.py counts the rows each gives against tests/oracle.py's own matching of trace-cmd's
# text (the recorded traces), against its own evaluation of the expression
# over the unfiltered CSV rows (the columns the oracle lacks; a synthetic
# trace with lost events and unmatched sends), and shows the ground truth
# of a tests/coalesce_gen.py trace (coalesced sends) beside.  Then the
# errors: a bad duration, true with <, an unknown reason.
# Under ASan: the synthetic traces only, 2 threads.
# seconds: 28
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
CHK="$TOP/tests/filter_match_check.py"
R="$TRACES/recorded"

# the recorded traces, against the oracle (it reads trace-cmd's text)
if command -v trace-cmd > /dev/null 2>&1 && [ -d "$R" ]; then
	# decoding threads: 1 and 3 on busy-stacks, 2 on forkexec (a per-CPU
	# clock: no latencies across CPUs) and stacks; under ASan none: the
	# oracle's side is Python and trace-cmd, the synthetic traces below
	# run the same code of ipitrace
	if [ "$ASAN" = 1 ]; then set --; else set -- busy-stacks forkexec stacks; fi
	for t in "$@"; do
		js=2
		[ "$t" = busy-stacks ] && [ "$ASAN" = 0 ] && js="1 3"
		if ! $PY "$TOP/tests/oracle.py" --rows "$TMP/$t.rows" "$R/$t.dat" > "$TMP/$t.json" 2> "$TMP/or.err"; then
			fail "oracle $t" "$(tail -n 1 "$TMP/or.err")"
			continue
		fi
		for j in $js; do
			$PY "$CHK" --oracle "$TMP/$t.json" "$TMP/$t.rows" "$IPT" "$R/$t.dat" "$j" > "$TMP/v.txt" 2>&1
			verdicts "$TMP/v.txt"
		done
	done
else
	skip filter-match-oracle "no trace-cmd, or no recorded traces in $R"
fi

# synthetic: lost events and unmatched sends (gen-synth -m), coalesced sends (coalesce_gen)
if "$TOP/$B/tools/gen-synth" -n 4 -e 20000 -m -s 2 -o "$TMP/m4.dat" 2> "$TMP/g.err"; then
	$PY "$CHK" --csv-only "$IPT" "$TMP/m4.dat" 2 > "$TMP/v.txt" 2>&1
	verdicts "$TMP/v.txt"
else
	fail gen-synth "$(head -n 1 "$TMP/g.err")"
fi
if $PY "$TOP/tests/coalesce_gen.py" --cpus 4 --seed 5 --coalesce 0.3 --sends 3000 \
	-o "$TMP/co.dat" --truth "$TMP/co.truth" 2> "$TMP/g.err"; then
	$PY "$CHK" --truth "$TMP/co.truth" "$IPT" "$TMP/co.dat" 2 > "$TMP/v.txt" 2>&1
	verdicts "$TMP/v.txt"
else
	fail coalesce_gen "$(head -n 1 "$TMP/g.err")"
fi

# Python's rows(filter=) gives the rows convert -F gives (the plain pass:
# test_python.sh runs the module under ASan, with the runtime preloaded)
if [ "$ASAN" = 1 ]; then
	echo "python rows(filter=): in the plain build's pass"
elif [ -f "$TOP/$B/python/ipitrace/__init__.py" ] && $PY -c 'import pandas' 2> /dev/null; then
	for expr in 'lat_ns > 2us' 'matched == false || coalesced == true' 'unmatched_reason == "lost_events"'; do
		want=$(($("$IPT" convert -f csv -F "$expr" -o - "$TMP/m4.dat" | wc -l) - 1))
		got=$(PYTHONPATH="$TOP/$B/python" $PY -c 'import sys, ipitrace
print(len(ipitrace.rows(sys.argv[1], filter=sys.argv[2], explode=True)))' "$TMP/m4.dat" "$expr" 2>&1)
		[ "$got" = "$want" ] && pass "python rows(filter='$expr') = convert -F: $want" ||
			fail "python rows(filter='$expr')" "got $got, convert -F $want"
	done
else
	skip filter-match-python "the Python module of $B is not built, or no pandas"
fi

# errors: one line naming what is wrong, exit 2
while IFS='#' read -r expr want; do
	[ -n "$expr" ] || continue
	"$IPT" report -F "$expr" "$TMP/m4.dat" > /dev/null 2> "$TMP/e.err"
	rc=$?
	if [ $rc = 2 ] && grep -q -- "$want" "$TMP/e.err" && [ "$(wc -l < "$TMP/e.err")" = 1 ]; then
		pass "report -F '$expr': exit 2, '$want'"
	else
		fail "report -F '$expr'" "exit $rc: $(head -n 2 "$TMP/e.err" | tr '\n' ' ')"
	fi
done <<'TABLE'
lat_ns > 1.5ns#finer than 1 ns
lat_ns > 1.s#a duration is decimal with a unit
lat_ns > 10xs#invalid number '10xs'
matched < true#cannot compare true or false
unmatched_reason == "late"#matches no reason (trace_ended, no_receive_events, lost_events, no_handler)
no_such_column > 1#unknown field 'no_such_column'
TABLE
finish
