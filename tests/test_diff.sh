#!/bin/sh
# test_diff.sh - `ipitrace diff` (docs/diff.md) against sources independent
# of it:
#  1 counts: pairs of the shared recordings, every row of the tables by
#    role, call site, comm and sending CPU (roles split at CPU 1) against
#    tests/diff_check.py's count of the `trace-cmd report` texts beside them
#    and the latency quantiles per function and role against
#    tests/oracle.py's own matching of `trace-cmd report` text
#    and the JSON against docs/schema/diff.json (tests/schema_check.py)
#    and -f uniq's columns against each recording's report -f uniq, and
#    -f folded's against each one's report -f folded; --html's rows and
#    flame graph against -f json
#  2 a recording against itself: every row 'same', p = 1; the usage errors
#  3 live, twice: membarrier calls on CPU 1 (IPIs to CPU 0) recorded, the
#    same again, then with calls on CPU 0 (IPIs to CPU 1, "isolated" by
#    -i 1) added: diff must call the added part 'new' (or 'more') and the
#    kept part 'same', and between the two recordings of one load every
#    row of 100 IPIs or more 'same'
# (The significance itself is checked against scipy in test_diff_stats.sh.)
# run: split
# alone: yes
# seconds: 10
. "$(dirname "$0")/lib.sh"
# DC WHAT ARGS: diff_check.py, a crash of it a failure too
DC() { $PY "$TOP/tests/diff_check.py" "$@" || echo "F diff-check-$1: diff_check.py $1 failed"; }
R=$TRACES/recorded


if offline_part; then
	if [ ! -f "$R/idle.dat" ]; then
		skip diff-counts "no shared recordings at $R"
	else
		for p in idle:forkexec pingpong:busy-stacks stacks:pingpong; do
			a=${p%%:*} b=${p#*:}
			if "$IPT" diff --with-recorder -i 1 -g callsite,comm,cpu -f json "$R/$a.dat" "$R/$b.dat" \
				> "$TMP/d.json" 2> "$TMP/d.err"; then
				DC counts "$R/$a.report.txt" "$R/$b.report.txt" 1 "$TMP/d.json" > "$TMP/v.txt"
				verdicts "$TMP/v.txt"
			else
				fail "diff-counts-$a" "$(head -n 2 "$TMP/d.err" | tr '\n' ' ')"
			fi
		done
		# per target CPU
		"$IPT" diff --per-cpu --with-recorder -g callsite,comm -f json "$R/idle.dat" "$R/busy-stacks.dat" \
			> "$TMP/d.json" 2> "$TMP/d.err" || fail diff-counts-per-cpu "$(head -n 1 "$TMP/d.err")"
		DC counts "$R/idle.report.txt" "$R/busy-stacks.report.txt" 1 "$TMP/d.json" per-cpu > "$TMP/v.txt"
		verdicts "$TMP/v.txt"
		# latencies per function and role against the oracle's own matching
		if command -v trace-cmd > /dev/null 2>&1; then
			"$IPT" diff --with-recorder -i 1 -g function -f json "$R/busy-stacks.dat" "$R/forkexec.dat" \
				> "$TMP/lat.json" 2> "$TMP/lat.err" || fail diff-latency "$(head -n 1 "$TMP/lat.err")"
			for side in before:busy-stacks after:forkexec; do
				if $PY "$TOP/tests/oracle.py" --rows "$TMP/rows.jsonl" "$R/${side#*:}.dat" > "$TMP/or.json" 2> "$TMP/or.err"; then
					DC latency "$TMP/rows.jsonl" 1 "$TMP/lat.json" "${side%%:*}" "$TMP/or.json" > "$TMP/v.txt"
					verdicts "$TMP/v.txt"
				else
					fail diff-latency "oracle.py: $(tail -n 1 "$TMP/or.err")"
				fi
			done
		else
			skip diff-latency "no trace-cmd (the oracle reads its text)"
		fi
		# the JSON against its schema (docs/schema/diff.json)
		cp "$TMP/lat.json" "$TMP/diff-lat.json" 2> /dev/null
		"$IPT" diff -f json -i 1 -g function,callsite,comm,pid,cpu,kind "$R/pingpong.dat" "$R/idle.dat" \
			> "$TMP/diff-all.json" 2> /dev/null
		$PY "$TOP/tests/schema_check.py" "$TOP/docs/schema/diff.json" "$TMP/diff-all.json" \
			$( [ -s "$TMP/diff-lat.json" ] && echo "$TMP/diff-lat.json") | sed 's/^\([PF]\) schema [^:]*:/\1 diff-schema:/' > "$TMP/v.txt"
		verdicts "$TMP/v.txt"
		# the recipe's tables side by side (-c 1: as recorded with the kernel filter on CPU 1)
		"$IPT" diff -f uniq -c 1 "$R/busy-stacks.dat" "$R/stacks.report.txt" > "$TMP/sbs.txt" 2> "$TMP/sbs.err" &&
		"$IPT" report -f uniq -c 1 "$R/busy-stacks.dat" > "$TMP/a.uniq" 2>> "$TMP/sbs.err" &&
		"$IPT" report -f uniq -c 1 "$R/stacks.report.txt" > "$TMP/b.uniq" 2>> "$TMP/sbs.err" ||
			fail diff-uniq "$(head -n 1 "$TMP/sbs.err")"
		DC uniq "$TMP/sbs.txt" "$TMP/a.uniq" "$TMP/b.uniq" > "$TMP/v.txt"
		verdicts "$TMP/v.txt"
		# stacks: folded with two counts, and the HTML page
		"$IPT" diff -f folded "$R/busy-stacks.dat" "$R/stacks.dat" > "$TMP/d.folded" 2> "$TMP/f.err" &&
		"$IPT" report -f folded "$R/busy-stacks.dat" > "$TMP/a.folded" 2>> "$TMP/f.err" &&
		"$IPT" report -f folded "$R/stacks.dat" > "$TMP/b.folded" 2>> "$TMP/f.err" ||
			fail diff-folded "$(head -n 1 "$TMP/f.err")"
		DC folded "$TMP/d.folded" "$TMP/a.folded" "$TMP/b.folded" > "$TMP/v.txt"
		verdicts "$TMP/v.txt"
		"$IPT" diff --html "$TMP/d.html" -g function,callsite,comm,kind,stack "$R/busy-stacks.dat" "$R/stacks.dat" \
			2> "$TMP/h.err" &&
		"$IPT" diff -f json -g function,callsite,comm,kind,stack "$R/busy-stacks.dat" "$R/stacks.dat" \
			> "$TMP/h.json" 2>> "$TMP/h.err" || fail diff-html "$(head -n 1 "$TMP/h.err")"
		DC html "$TMP/d.html" "$TMP/h.json" > "$TMP/v.txt"
		verdicts "$TMP/v.txt"
		# the page as Chromium lays it out: tables and the flame graph with a size
		if [ -s "$TMP/d.html" ] && find_chromium; then
			sed 's|</body>|<script>var t = document.querySelectorAll("table"), g = document.querySelector("svg.flame"), r = g ? g.getBoundingClientRect() : {width: 0, height: 0}, p = document.createElement("pre"); p.textContent = "LAYOUT " + t.length + " " + Math.round(r.width) + " " + Math.round(r.height) + " " + document.querySelectorAll("tr").length; document.body.appendChild(p);</script></body>|' \
				"$TMP/d.html" > "$TMP/dm.html"
			timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
				--user-data-dir="$TMP/profile" --virtual-time-budget=3000 --dump-dom "file://$TMP/dm.html" \
				> "$TMP/dm.dom" 2> /dev/null
			set -- $(sed -n 's/.*LAYOUT \([0-9]*\) \([0-9]*\) \([0-9]*\) \([0-9]*\).*/\1 \2 \3 \4/p' "$TMP/dm.dom") 0 0 0 0
			if [ "$1" = 6 ] && [ "$2" -ge 1000 ] && [ "$3" -ge 50 ] && [ "$4" -gt 40 ]; then
				pass "diff-html-chromium: $1 tables, $4 rows, the flame graph laid out at $2 x $3 px"
			else
				fail diff-html-chromium "tables $1, flame $2 x $3, rows $4"
			fi
		else
			skip diff-html-chromium "no page or no chromium (apt-get install chromium)"
		fi
		"$IPT" diff -f folded "$R/idle.dat" "$R/pingpong.dat" > /dev/null 2> "$TMP/f.err"
		rc=$?
		[ $rc = 1 ] && grep -q "kernel stack" "$TMP/f.err" && pass "diff-folded-none: no stacks: exit 1, says so" ||
			fail diff-folded-none "exit $rc: $(cat "$TMP/f.err")"
		# the recorder's own IPIs left out, as many as report counts
		# (recordings of the qemu guests, whose recorder sent some)
		for f in "$TOP"/tests/data/qemu/*.dat; do
			"$IPT" diff -f json -g kind "$f" "$f" > "$TMP/q.json" 2> "$TMP/q.err" &&
			"$IPT" report -f json "$f" > "$TMP/qr.json" 2>> "$TMP/q.err" || { fail diff-recorder "$(head -n 1 "$TMP/q.err")"; continue; }
			$PY - "$TMP/q.json" "$TMP/qr.json" "${f##*/}" > "$TMP/v.txt" <<'PYEOF'
import json, sys
d, r = json.load(open(sys.argv[1]))["before"], json.load(open(sys.argv[2]))
rec = sum(c["ipis"] for c in r["recorder_ipis"])
ok = rec > 0 and d["recorder_ipis"] == rec and d["ipis"] + d["recorder_ipis"] == r["ipis_counted"]
print("%s diff-recorder: %s: %d IPIs of the recorder left out, report says %d; %d + %d = report's %d counted" %
      ("P" if ok else "F", sys.argv[3], d["recorder_ipis"], rec, d["ipis"], d["recorder_ipis"], r["ipis_counted"]))
PYEOF
			verdicts "$TMP/v.txt"
		done
		# all gone: an after side with no row still has its windows (idle.dat
		# has no membarrier call)
		"$IPT" diff -f json -F 'callsite ~ "membarrier*"' -g function "$R/stacks.dat" "$R/idle.dat" \
			> "$TMP/g.json" 2> "$TMP/g.err"
		st=$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join("%s:%d->%d:%s" % (t["by"], r["count_before"], r["count_after"], r["status"]) for t in d["tables"] for r in t["rows"]), d["after"]["windows"])' "$TMP/g.json" 2>&1)
		case $st in
		"role:133->0:gone function:133->0:gone "[1-9]*) pass "diff-all-gone: $st (windows after)" ;;
		*) fail diff-all-gone "$st $(head -n 1 "$TMP/g.err")" ;;
		esac
		# the text of one and the trace.dat of the other: the same recording
		"$IPT" diff -f csv "$R/pingpong.dat" "$R/pingpong.report.txt" > "$TMP/self.csv" 2> "$TMP/self.err"
		n=$(tail -n +2 "$TMP/self.csv" | wc -l)
		odd=$(tail -n +2 "$TMP/self.csv" | awk -F, '$5 != $6 || $15 != "same" || $14 < 0.999' | head -n 3)
		if [ "$n" -gt 10 ] && [ -z "$odd" ]; then
			pass "diff-self: pingpong.dat against its trace-cmd text: $n rows, all same, p = 1"
		else
			fail diff-self "$n rows; not same: $odd $(head -n 1 "$TMP/self.err")"
		fi
		# usage errors: exit 2 and one line naming diff
		for args in "$R/idle.dat" "-g task $R/idle.dat $R/idle.dat" "--html x.html -f json $R/idle.dat $R/idle.dat" "-f yaml $R/idle.dat $R/idle.dat"; do
			# shellcheck disable=SC2086
			"$IPT" diff $args > /dev/null 2> "$TMP/u.err"
			rc=$?
			if [ $rc = 2 ] && [ "$(wc -l < "$TMP/u.err")" = 1 ] && grep -q "ipitrace diff" "$TMP/u.err"; then
				pass "diff-usage: '$args' -> 2: $(cat "$TMP/u.err")"
			else
				fail diff-usage "'$args' -> $rc: $(cat "$TMP/u.err")"
			fi
		done
		"$IPT" diff /nonexistent "$R/idle.dat" > /dev/null 2> "$TMP/u.err"
		rc=$?
		if [ $rc = 1 ] && grep -q "/nonexistent" "$TMP/u.err"; then
			pass "diff-missing: exit 1, names the file"
		else
			fail diff-missing "exit $rc: $(cat "$TMP/u.err")"
		fi
	fi
fi

if live_part; then
	LIVE_NAME=diff-live
	. "$(dirname "$0")/live.sh"
	# twice in the plain pass; not under ASan: the recorder's live paths
	# run under ASan in the other live scripts, and diff's on recordings
	# in the offline part above
	runs="1 2"
	if [ "$ASAN" = 1 ]; then
		runs=""
		echo "the live pairs: in the plain pass"
	fi
	# membarrier calls on CPU 1 (IPIs to CPU 0, its spinner there) in
	# every recording (a, then the same again: a2); in b, calls on CPU 0
	# (IPIs to CPU 1) too.  (A pingpong beside them would not do: on 2
	# CPUs their IPIs change each other's, and the scheduler's choice of
	# wake-up path changes between runs.)  A membarrier call sends its IPI
	# only while the spinner runs on the other CPU: when the machine's
	# other work takes that CPU, a part sends fewer and diff rightly says
	# so: this part runs alone (tests/run.sh, "alone: yes"), and a pair in which a
	# part sent fewer than 427 of its 450 IPIs is recorded again (3 times
	# at most; then the kept part's verdicts are SKIPs that say why: only
	# the added part's can be judged).
	load() { echo "\"$WL\" --cpus 1,0 --rate 300 membarrier 450 > /dev/null & $1 wait"; }
	added="\"$WL\" --cpus 0,1 --rate 300 membarrier 450 > /dev/null &"
	for run in $runs; do
		for try in 1 2 3; do
			if ! "$IPT" record --force -o "$TMP/a.dat" -- sh -c "$(load)" > /dev/null 2> "$TMP/a.err" ||
			   ! "$IPT" record --force -o "$TMP/a2.dat" -- sh -c "$(load)" > /dev/null 2> "$TMP/a.err" ||
			   ! "$IPT" record --force -o "$TMP/b.dat" -- sh -c "$(load "$added")" > /dev/null 2> "$TMP/b.err"; then
				fail "diff-live-record-$run" "$(tail -n 1 "$TMP/a.err" "$TMP/b.err" | tr '\n' ' ')"
				continue 2
			fi
			"$IPT" diff -f json -i 1 -g function,callsite "$TMP/a.dat" "$TMP/b.dat" > "$TMP/l.json" 2> "$TMP/l.err" &&
			"$IPT" diff -f json -i 1 -g function,callsite "$TMP/a.dat" "$TMP/a2.dat" > "$TMP/s.json" 2>> "$TMP/l.err" ||
				{ fail "diff-live-$run" "$(head -n 1 "$TMP/l.err")"; continue 2; }
			sent=$($PY - "$TMP/l.json" "$TMP/s.json" <<'PYEOF'
import json, sys
def mb(path, role, side):
    for t in json.load(open(path))["tables"]:
        for r in t["rows"]:
            if t["by"] == "function" and r["key"] == "ipi_mb" and r["role"] == role:
                return r["count_" + side]
    return 0
print(mb(sys.argv[1], "housekeeping", "before"), mb(sys.argv[2], "housekeeping", "after"),
      mb(sys.argv[1], "housekeeping", "after"), mb(sys.argv[1], "isolated", "after"))
PYEOF
)
			echo "  run $run, try $try: ipi_mb sent by the parts (a, a2, b kept, b added): $sent of 450 each"
			undisturbed=1
			for n in $sent; do [ "$n" -ge 427 ] || undisturbed=0; done
			[ $undisturbed = 1 ] && break
		done
		# the recorder's own IPIs: left out, as many as report counts
		"$IPT" report -f json "$TMP/b.dat" > "$TMP/r.json" 2>> "$TMP/l.err"
		$PY - "$TMP/l.json" "$TMP/r.json" > "$TMP/rec.txt" <<'PYEOF'
import json, sys
d, r = json.load(open(sys.argv[1]))["after"], json.load(open(sys.argv[2]))
rec = sum(c["ipis"] for c in r["recorder_ipis"])
ok = d["recorder_ipis"] == rec and d["ipis"] + d["recorder_ipis"] == r["ipis_counted"]
print("%s diff-live-recorder: %d IPIs of the recorder left out, report says %d; %d + %d = report's %d counted" %
      ("P" if ok else "F", d["recorder_ipis"], rec, d["ipis"], d["recorder_ipis"], r["ipis_counted"]))
PYEOF
		verdicts "$TMP/rec.txt"
		disturbed=""
		[ $undisturbed = 1 ] || disturbed=$(echo $sent | tr ' ' '/')
		DC live "$TMP/l.json" "$TMP/s.json" $disturbed | sed "s/^\([PFS] diff-live-[a-z]*\)/\1-$run/" > "$TMP/v.txt"
		verdicts "$TMP/v.txt"
		[ $run = 1 ] && "$IPT" diff -i 1 -g function -t 5 "$TMP/a.dat" "$TMP/b.dat" 2>&1 | sed 's/^/  /'
	done
fi
finish
