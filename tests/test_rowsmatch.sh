#!/bin/sh
# test_rowsmatch.sh - convert's matching columns (lat_ns, handler_ns,
# handler_ts_ns, matched, coalesced, unmatched_reason, callsite_func,
# func_name, stack): the rows add up to the report's per-CPU and unmatched
# counts, JSON lines carry the CSV's values with JSON types, --no-explode and
# --no-match follow their documented rules (tests/rows_match_check.py), a
# few sends of busy-stacks.dat are computed by hand from `trace-cmd report
# -t`, and tests/data/latency.report.txt (timestamps stated in
# test_report.sh) gives a coalesced send and an unmatched one.  The ASan
# pass checks that its report and rows are the plain build's bytes (which
# the plain pass checks as above) instead of running the Python checks again.
#
#   sh tests/test_rowsmatch.sh [BUILD_DIR]
# seconds: 35
. "$(dirname "$0")/lib.sh"

CHK="$TOP/tests/rows_match_check.py"
PLAIN="$TOP/build/ipitrace"	# the plain build (the ASan pass compares with it)
# plain_same NAME FILE ARGS...: the plain build's `ipitrace ARGS` writes
# FILE's bytes to standard output; a FAIL NAME (and false) if not
plain_same() {
	_ps_n=$1 _ps_f=$2
	shift 2
	if ! "$PLAIN" "$@" > "$TMP/plain.out" 2> "$TMP/plain.err"; then
		fail "$_ps_n" "the plain build failed: ipitrace $* ($(head -n 1 "$TMP/plain.err"))"
		return 1
	fi
	cmp -s "$_ps_f" "$TMP/plain.out" && return 0
	fail "$_ps_n" "ipitrace $* differs from the plain build's: $(cmp "$_ps_f" "$TMP/plain.out" 2>&1 | head -n 1)"
	return 1
}
GEN="$TOP/$B/tools/gen-synth"
[ -x "$IPT" ] || { fail build "$IPT is missing (run make)"; finish; }

# (the ASan pass: one recorded trace of each kind, lib.sh `inputs`; the
# synthetic, hand-made and qemu traces in both passes)
TR=$(inputs "$TRACES"/recorded/*.dat "$TRACES"/recorded/*.trace)
if [ -x "$GEN" ]; then
	# lost events and sends with no receive events, arm64, wide masks
	"$GEN" -o "$TMP/synth-lost.dat" -e 20000 -s 3 -n 8 -m &&
	"$GEN" -o "$TMP/synth-arm64.dat" -a arm64 -e 20000 -s 2 -n 8 &&
	"$GEN" -o "$TMP/synth-wide.dat" -n 300 -e 5000 -s 5 &&
		TR="$TR $TMP/synth-lost.dat $TMP/synth-arm64.dat $TMP/synth-wide.dat"
fi
TR="$TR $TOP/tests/data/latency.report.txt"
# the qemu guests' traces: x86 6.1 with kprobes for the sends, arm64 masks
for f in "$TOP"/tests/data/qemu/*.dat; do TR="$TR $f"; done

for t in $TR; do
	n=$(basename "$t")
	o="$TMP/$n"
	if ! "$IPT" report --format json "$t" > "$o.json" 2> "$TMP/err" ||
	   ! "$IPT" convert "$t" -o "$o.csv" 2>> "$TMP/err" ||
	   ! "$IPT" convert "$t" -o "$o.jsonl" 2>> "$TMP/err" ||
	   ! "$IPT" convert "$t" --no-explode -o "$o.ne.csv" 2>> "$TMP/err" ||
	   ! "$IPT" convert "$t" --no-match -o "$o.nm.csv" 2>> "$TMP/err"; then
		fail "convert-$n" "$(head -n 1 "$TMP/err")"
		continue
	fi
	if [ "$ASAN" = 1 ]; then
		# the plain build's bytes, which the plain pass checks as below
		plain_same "plain-bytes-$n" "$o.json" report --format json "$t" &&
		plain_same "plain-bytes-$n" "$o.csv" convert "$t" -o - &&
		plain_same "plain-bytes-$n" "$o.jsonl" convert "$t" -f jsonl -o - &&
		plain_same "plain-bytes-$n" "$o.ne.csv" convert "$t" --no-explode -o - &&
		plain_same "plain-bytes-$n" "$o.nm.csv" convert "$t" --no-match -o - &&
			pass "plain-bytes-$n (report, rows, --no-explode, --no-match: the plain build's bytes)"
		set --
	else
		# totals, noexplode and nomatch: one process (a line each)
		"$PY" "$CHK" all "$o.json" "$o.csv" "$o.jsonl" "$o.ne.csv" "$o.nm.csv" > "$TMP/v" 2>&1
		set -- totals noexplode nomatch
	fi
	for k; do
		msg=$(grep "^$k " "$TMP/v" | tail -n 1)
		case $msg in
		"$k ok "*) pass "$k-$n (${msg#"$k ok "})" ;;
		"$k "*) fail "$k-$n" "${msg#"$k "}" ;;
		*) fail "$k-$n" "no verdict: $(tail -n 1 "$TMP/v")" ;;
		esac
	done
	# threads: the same rows
	bad=""
	threads_agree "$n" convert "$t" -o -
	[ -z "$bad" ] && pass "threads-$n" || fail "threads-$n" "convert differs:$bad"
done

# oracle_rows ORACLE_JSONL CSV: each row's match in CSV as tests/oracle.py's
# (its own matching of trace-cmd's text) in ORACLE_JSONL; prints "ok ..." or "bad ..."
oracle_rows() {
	"$PY" - "$1" "$2" 2>&1 <<'PY'
import collections, csv, json, sys
want, got = collections.Counter(), collections.Counter()
for l in open(sys.argv[1]):
    r = json.loads(l)
    want[(r["ts_ns"], r["src_cpu"], r["target_cpu"], r["matched"], r.get("latency_ns"))] += 1
for r in csv.DictReader(open(sys.argv[2])):
    m = r["matched"] == "true"	# the entry's offset: lat_ns is null across CPUs on this clock
    got[(int(r["ts_ns"]), int(r["src_cpu"]), int(r["target_cpu"]), m,
         int(r["handler_ts_ns"]) - int(r["ts_ns"]) if m else None)] += 1
d = (want - got) + (got - want)
print("ok %d rows, %d matched" % (sum(want.values()), sum(k[3] for k in want.elements())) if not d
      else "bad: oracle %d rows, convert %d, %d differ, e.g. %r" % (sum(want.values()), sum(got.values()), len(d), list(d.items())[:3]))
PY
}

# past IPT_SPILL_FILE_FROM (1 MiB): the row results (16 bytes a row) and
# the interrupts with no send (24 bytes each) move to unnamed files in
# $TMPDIR; the rows still add up to the report, the files are gone after,
# and with no file to be had (memory) the rows are the same
# (400 k events: 131 k rows, two stores in files; the oracle's time is
# proportional: 1 M events took it 35 CPU-s)
if [ -x "$GEN" ] && "$GEN" -o "$TMP/spill.dat" -e 400000 -s 4 -n 8 -m; then
	mkdir -p "$TMP/spilldir"
	o="$TMP/spill"
	if TMPDIR="$TMP/spilldir" "$IPT" report --format json "$TMP/spill.dat" > "$o.json" 2> "$TMP/err" &&
	   TMPDIR="$TMP/spilldir" "$IPT" convert "$TMP/spill.dat" -o "$o.csv" 2>> "$TMP/err" &&
	   TMPDIR="$TMP/spilldir" "$IPT" convert "$TMP/spill.dat" -o "$o.jsonl" 2>> "$TMP/err" &&
	   TMPDIR=/nonexistent/ipitrace "$IPT" convert "$TMP/spill.dat" -o "$o.mem.csv" 2>> "$TMP/err"; then
		rows=$(($(wc -l < "$o.csv") - 1))
		if [ "$ASAN" = 1 ]; then
			# the plain build's bytes (its pass adds them up to the report)
			plain_same spill-totals "$o.json" report --format json "$TMP/spill.dat" &&
			plain_same spill-totals "$o.csv" convert "$TMP/spill.dat" -o - &&
			plain_same spill-totals "$o.jsonl" convert "$TMP/spill.dat" -f jsonl -o - &&
				pass "spill-totals ($rows rows: the plain build's bytes)"
		elif msg=$("$PY" "$CHK" totals "$o.json" "$o.csv" "$o.jsonl" 2>&1); then
			pass "spill-totals ($rows rows, $(echo "$msg" | tail -n 1 | sed 's/^ok //'))"
		else
			fail "spill-totals" "$(echo "$msg" | tail -n 1)"
		fi
		[ "$rows" -gt 65536 ] && pass "spill-rows ($rows rows: over 1 MiB of results)" ||
			fail "spill-rows" "only $rows rows: the results stay under 1 MiB"
		# every row's match against tests/oracle.py's own matching of
		# trace-cmd's text (plain pass: the oracle is ipitrace-free and slow)
		if [ "$ASAN" != 1 ] && "$PY" "$TOP/tests/oracle.py" --rows "$o.or" "$TMP/spill.dat" > /dev/null 2> "$TMP/or.err"; then
			oracle_rows "$o.or" "$o.csv" > "$TMP/v"
			grep -q "^ok" "$TMP/v" && pass "spill-oracle (each row's match as tests/oracle.py's: $(cat "$TMP/v" | sed 's/^ok //'))" ||
				fail "spill-oracle" "$(cat "$TMP/v")"
		elif [ "$ASAN" != 1 ]; then
			fail "spill-oracle" "oracle.py: $(tail -n 1 "$TMP/or.err")"
		fi
		cmp -s "$o.csv" "$o.mem.csv" && pass "spill-memory (no temporary file: the same rows)" ||
			fail "spill-memory" "rows differ with TMPDIR unusable"
		left=$(ls -A "$TMP/spilldir" | wc -l)
		[ "$left" -eq 0 ] && pass "spill-cleanup (no file left in TMPDIR)" ||
			fail "spill-cleanup" "$left files left in TMPDIR"
	else
		fail "spill-convert" "$(head -n 1 "$TMP/err")"
	fi
	# a TMPDIR that fills up: a one-line error naming it, no output file
	# (1 M events: its files grow past 3 MiB; a first file that cannot be
	# had at all is memory instead, spill-memory above)
	mkdir -p "$TMP/tiny"
	if [ "$(id -u)" = 0 ] && "$GEN" -o "$TMP/spill1m.dat" -e 1000000 -s 4 -n 8 -m &&
	   mount -t tmpfs -o size=3m tmpfs "$TMP/tiny" 2>/dev/null; then
		TMPDIR="$TMP/tiny" "$IPT" convert "$TMP/spill1m.dat" -o "$TMP/full.csv" > /dev/null 2> "$TMP/full.err"
		rc=$?
		umount "$TMP/tiny"
		if [ $rc -eq 1 ] && [ "$(wc -l < "$TMP/full.err")" -eq 1 ] && grep -q "$TMP/tiny" "$TMP/full.err" &&
		   grep -q "No space left" "$TMP/full.err" && [ ! -e "$TMP/full.csv" ]; then
			pass "spill-full (one line, exit 1, no output: $(cat "$TMP/full.err"))"
		else
			fail "spill-full" "rc $rc, output $(ls "$TMP/full.csv" 2>&1), stderr: $(head -c 300 "$TMP/full.err")"
		fi
	else
		skip "spill-full" "cannot mount a 3 MiB tmpfs (not root, or no mount here)"
	fi
fi

# the rows convert's matching pass keeps (not mostly multicasts: 2 CPUs
# here, 43 k rows; with 8 CPUs gen-synth's rows are 60% multicasts,
# dropped at 4096): past their first MiB (32 Ki rows) in an unnamed file,
# read back and formatted by helper threads (from 32 Ki rows; -j4: three);
# with no file to be had they are dropped and the trace decoded again: the
# same bytes, adding up to the report's counts
if [ -x "$GEN" ] && "$GEN" -o "$TMP/kept.dat" -e 200000 -s 6 -n 2; then
	o="$TMP/kept"
	mkdir -p "$TMP/keptdir"
	if TMPDIR="$TMP/keptdir" "$IPT" convert "$TMP/kept.dat" -o "$o.csv" 2> "$TMP/err" &&
	   TMPDIR="$TMP/keptdir" "$IPT" convert "$TMP/kept.dat" -o "$o.jsonl" 2>> "$TMP/err" &&
	   TMPDIR="$TMP/keptdir" "$IPT" convert -j 4 "$TMP/kept.dat" -o "$o.j4.csv" 2>> "$TMP/err" &&
	   TMPDIR="$TMP/keptdir" "$IPT" convert -j 1 "$TMP/kept.dat" -o "$o.j1.csv" 2>> "$TMP/err" &&
	   TMPDIR=/nonexistent/ipitrace "$IPT" convert "$TMP/kept.dat" -o "$o.mem.csv" 2>> "$TMP/err" &&
	   "$IPT" report --format json "$TMP/kept.dat" > "$o.json" 2>> "$TMP/err"; then
		rows=$(($(wc -l < "$o.csv") - 1))
		if [ "$rows" -gt 32768 ] && msg=$("$PY" "$CHK" totals "$o.json" "$o.csv" "$o.jsonl" 2>&1) &&
		   cmp -s "$o.csv" "$o.mem.csv" && cmp -s "$o.csv" "$o.j4.csv" && cmp -s "$o.csv" "$o.j1.csv" &&
		   [ -z "$(ls -A "$TMP/keptdir")" ]; then
			pass "kept-rows ($rows rows, over 1 MiB of them kept; -j1, -j4 and decoded again the same; $(echo "$msg" | tail -n 1 | sed 's/^ok //'))"
		else
			fail "kept-rows" "$rows rows; $(echo "$msg" | tail -n 1); $(cmp "$o.csv" "$o.mem.csv" 2>&1); $(cmp "$o.csv" "$o.j4.csv" 2>&1); $(cmp "$o.csv" "$o.j1.csv" 2>&1); left: $(ls -A "$TMP/keptdir")"
		fi
		# that they were kept past a chunk (a 1 MiB write) and formatted by a
		# helper thread (a clone), seen by strace (kernel's view, not ours;
		# LeakSanitizer cannot run under ptrace)
		if ! command -v strace > /dev/null 2>&1; then
			skip "kept-rows-threads" "no strace"
		elif [ "$(nproc)" -lt 2 ]; then
			skip "kept-rows-threads" "one CPU: no helper thread by default"
		elif TMPDIR="$TMP/keptdir" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -f -e trace=pwrite64,clone,clone3 -o "$TMP/kept.st" \
			"$IPT" convert "$TMP/kept.dat" -o - > "$o.st.csv" 2>> "$TMP/err" &&
		     cmp -s "$o.csv" "$o.st.csv" && grep -q 'pwrite64(.*= 1048576$' "$TMP/kept.st" &&
		     grep -Eq '^[0-9]+ +clone3?\(' "$TMP/kept.st"; then
			pass "kept-rows-threads (a 1 MiB chunk of kept rows written, $(grep -Ec '^[0-9]+ +clone3?\(' "$TMP/kept.st") thread(s) made, by strace)"
		else
			fail "kept-rows-threads" "$(grep -c pwrite64 "$TMP/kept.st") pwrite64, $(grep -Ec 'clone3?\(' "$TMP/kept.st") clones; $(cmp "$o.csv" "$o.st.csv" 2>&1)"
		fi
		# the kept rows' matching against tests/oracle.py (plain pass)
		if [ "$ASAN" != 1 ]; then
			if "$PY" "$TOP/tests/oracle.py" --rows "$o.or" "$TMP/kept.dat" > /dev/null 2> "$TMP/or.err" &&
			   oracle_rows "$o.or" "$o.csv" > "$TMP/v" && grep -q "^ok" "$TMP/v"; then
				pass "kept-rows-oracle (each kept row's match as tests/oracle.py's: $(sed 's/^ok //' "$TMP/v"))"
			else
				fail "kept-rows-oracle" "$(cat "$TMP/v" 2>/dev/null; tail -n 1 "$TMP/or.err")"
			fi
		fi
	else
		fail "kept-rows" "$(head -n 1 "$TMP/err")"
	fi
fi

# busy-stacks.dat: sends and their reschedule_entry/exit by hand, from trace-cmd
BS="$TRACES/recorded/busy-stacks.dat"
if [ ! -f "$BS" ]; then
	skip hand-busy-stacks "no $BS"
elif ! command -v trace-cmd > /dev/null 2>&1; then
	skip hand-busy-stacks "trace-cmd is not installed"
elif tc_report -t "$BS" > "$TMP/bs.txt" 2> /dev/null &&
     msg=$("$PY" "$CHK" hand "$TMP/bs.txt" "$TMP/busy-stacks.dat.csv" 8 2>&1); then
	pass "hand-busy-stacks ($(echo "$msg" | tail -n 1 | sed 's/^ok //'))"
else
	fail hand-busy-stacks "$(echo "$msg" | tail -n 1)"
fi
# busy-stacks.dat: the first send's stack, from trace-cmd's kernel_stack
# lines (function names; trimmed of the tracing frames)
if [ -s "$TMP/bs.txt" ]; then
	want=$(awk '/ipi_send_cpu:/ { on = 1; next } on && /^=>/ { print $2; next } on && !/kernel_stack/ { exit }' "$TMP/bs.txt" |
		grep -v -e '^trace_event_raw_event_' -e '^__traceiter_' | tr '\n' ';' | sed 's/;$//')
	got=$(sed -n 2p "$TMP/busy-stacks.dat.csv" | awk -F, '{ print $NF }' | sed 's/+0x[0-9a-f]*//g')
	[ -n "$want" ] && [ "$got" = "$want" ] && pass "stack-first-send (${want%%;*}...)" ||
		fail stack-first-send "'$got', trace-cmd has '$want'"
fi

# tests/data/latency.report.txt: sends to CPU 1 at 10, 20, 23 us (resched)
# and 41 (csd call); reschedule_entry 15 (exit 18) and 27 (exit 37);
# call_function_single entry 50 (exit 60); a send to CPU 0 at 70 with no
# interrupt after it.  The text clock is not comparable across CPUs: no
# lat_ns.  The 23 send is coalesced into the 27 interrupt (which served 20).
L="$TMP/latency.report.txt.csv"
if [ -f "$L" ]; then
	got=$(cut -d, -f1,17-25 "$L" | tail -n +2 | tr '\n' ' ')
	want="100000010000,,3000,100000015000,true,false,,wakeup_preempt,, \
100000020000,,10000,100000027000,true,false,,wakeup_preempt,, \
100000023000,,10000,100000027000,true,true,,wakeup_preempt,, \
100000041000,,10000,100000050000,true,false,,ttwu_queue_wakelist,sched_ttwu_pending, \
100000070000,,,,false,,trace_ended,wakeup_preempt,, "
	[ "$got" = "$want" ] && pass "latency-by-hand (coalesced, trace_ended)" ||
		fail latency-by-hand "got '$got'"
fi

# a filter: the rows kept carry the values of the unfiltered rows (matching
# sees every event)
if [ -f "$TMP/busy-stacks.dat.csv" ]; then
	"$IPT" convert "$BS" -F 'target_cpu == 1 && kind == "resched"' -o "$TMP/f.csv" 2> "$TMP/err"
	awk -F, 'NR == 1 || ($4 == 1 && $9 == "resched")' "$TMP/busy-stacks.dat.csv" > "$TMP/f.want"
	if [ "$(wc -l < "$TMP/f.csv")" -gt 100 ] && cmp -s "$TMP/f.csv" "$TMP/f.want"; then
		pass "filtered-rows-same-values ($(($(wc -l < "$TMP/f.csv") - 1)) rows)"
	else
		fail filtered-rows-same-values "$(head -n 1 "$TMP/err") $(wc -l < "$TMP/f.csv") rows"
	fi
fi

# a filter on id with --threads: the report (and so the rows) the same as
# with one thread (ids are numbered in the merged order, not per lane)
if [ -f "$BS" ]; then
	bad=""
	threads_agree report-id report --format json -F 'kind == "resched" && id > 10' "$BS"
	threads_agree convert-id convert -F 'kind == "resched" && id > 10' "$BS" -o -
	[ -z "$bad" ] && pass "threads-id-filter" || fail threads-id-filter "differs:$bad"
fi

# a bad filter is a usage error (exit 2), with and without matching
for nm in "" --no-match; do
	# shellcheck disable=SC2086
	"$IPT" convert $nm "$TOP/tests/data/latency.report.txt" -F 'target_cpu ==' -o "$TMP/x.csv" 2> /dev/null
	rc=$?
	[ $rc -eq 2 ] && [ ! -e "$TMP/x.csv" ] && pass "bad-filter-exit-2${nm:+ $nm}" ||
		fail "bad-filter${nm:+ $nm}" "exit $rc"
done

# --help names the columns and --no-match
h=$("$IPT" convert --help)
ok=1
for w in lat_ns handler_ns handler_ts_ns matched coalesced unmatched_reason callsite_func \
	 func_name stack --no-match "16 bytes" TMPDIR; do
	echo "$h" | grep -q -- "$w" || { ok=0; fail help "convert --help does not say $w"; }
done
[ $ok = 1 ] && pass help-columns

finish
