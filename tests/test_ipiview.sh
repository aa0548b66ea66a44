#!/bin/sh
# test_ipiview.sh - the IPI view against independent counts from trace-cmd:
# rows = sum of the mask weights of the send events; explode's output, read
# by trace-cmd, has in - masks + sum(weights) events, and trace-cmd's text
# of it has per CPU the same IPIs as convert's rows for that target (and
# trace-cmd's own filter -F finds them on one CPU);
# csd joins name the real function; pandas loads the CSV; JSONL parses.
# The ASan pass reads one recorded trace of each kind (lib.sh `inputs`:
# busy-stacks, v6, v7 uncompressed) and every synthetic width, and compares
# -j 1 with 3 and 8; the plain pass reads every trace with 2, 3, 4 and 8.
# There its explode and convert outputs must be byte for byte the plain
# build's, which trace-cmd checks in the plain pass (not trace-cmd again).
# seconds: 33
. "$(dirname "$0")/lib.sh"

command -v trace-cmd >/dev/null || { skip ipiview "trace-cmd not installed"; finish; }
GEN="$TOP/$B/tools/gen-synth"
PLAIN="$TOP/build/ipitrace"	# the plain build (the ASan pass compares with it)

# weights_ref TEXT: sum of target counts of the send events, from the text of
# trace-cmd report (each trace is reported once, into $TMP/tc)
weights_ref() {
	awk '
	/ ipi_send_cpu: / { n++ }
	/ ipi_send_cpumask: / {
		m = $0; sub(/.*cpumask=/, "", m); sub(/ .*/, "", m)
		k = split(m, parts, ",")
		for (i = 1; i <= k; i++) {
			if (parts[i] == "") continue
			if (split(parts[i], ab, "-") == 2) n += ab[2] - ab[1] + 1; else n++
		}
	}
	END { print n + 0 }' "$1"
}

inputs=$(inputs "$TRACES"/recorded/*.dat)
# trace-cmd -F per target CPU: the first 6 CPUs (make check-fast: 2)
ncpus=6
[ "${FAST:-0}" = 1 ] && ncpus=2
if [ -x "$GEN" ]; then
	for w in 2 64 65 256 8192; do
		"$GEN" --nr-cpus $w --events 1500 --seed $w -o "$TMP/synth-$w.dat" 2>/dev/null &&
			inputs="$inputs $TMP/synth-$w.dat"
	done
else
	skip "synthetic traces" "$GEN not built"
fi

for f in $inputs; do
	n=$(basename "$f")
	"$IPT" convert --force "$f" -o "$TMP/rows.csv" 2> "$TMP/err" || { fail "$n convert" "$(cat "$TMP/err")"; continue; }
	rows=$(($(wc -l < "$TMP/rows.csv") - 1))
	tc_report "$f" > "$TMP/tc" 2>/dev/null
	ref=$(weights_ref "$TMP/tc")
	[ "$rows" -eq "$ref" ] && pass "$n rows = sum of mask weights ($rows)" ||
		fail "$n rows" "convert $rows, trace-cmd weights $ref"

	# explode: event count and per-CPU agreement with trace-cmd -F; under
	# ASan, the file and the CSV byte for byte the plain build's, which the
	# plain pass checks so against trace-cmd on the same inputs (reading
	# the 224k exploded events of synth-8192 with trace-cmd seven times was
	# most of this pass's time)
	if [ "$ASAN" = 1 ] && [ -x "$PLAIN" ] &&
	   "$IPT" explode --force "$f" -o "$TMP/x.dat" 2> "$TMP/err" &&
	   "$PLAIN" explode --force "$f" -o "$TMP/xp.dat" 2> "$TMP/err" &&
	   "$PLAIN" convert --force "$f" -o "$TMP/rowsp.csv" 2> "$TMP/err"; then
		cmp -s "$TMP/x.dat" "$TMP/xp.dat" && cmp -s "$TMP/rows.csv" "$TMP/rowsp.csv" &&
			pass "$n explode and convert: byte for byte the plain build's ($rows rows)" ||
			fail "$n explode/convert" "differ from the plain build's ($PLAIN)"
	elif "$IPT" explode --force "$f" -o "$TMP/x.dat" 2> "$TMP/err"; then
		in=$(grep -vc -e '^cpus=' -e '^=>' "$TMP/tc")
		masks=$(grep -c ' ipi_send_cpumask: ' "$TMP/tc")
		sw=$ref
		single=$(grep -c ' ipi_send_cpu: ' "$TMP/tc")
		wsum=$((sw - single))
		trace-cmd report "$TMP/x.dat" > "$TMP/x.tc" 2>/dev/null
		out=$(grep -vc -e '^cpus=' -e '^=>' "$TMP/x.tc")
		want=$((in - masks + wsum))
		[ "$out" -eq "$want" ] && pass "$n explode events ($in - $masks + $wsum = $out)" ||
			fail "$n explode events" "got $out, want $in - $masks + $wsum = $want"
		# per CPU from trace-cmd's text of the exploded file; trace-cmd's
		# own filter (-F) on its first CPU too (once: a run per CPU was
		# most of this script's time, and says nothing more)
		bad=0 first=1
		for c in $(cut -d, -f4 "$TMP/rows.csv" | tail -n +2 | sort -un | head -n $ncpus); do
			a=$(grep -cE " ipi_send_cpu: +cpu=$c( |$)" "$TMP/x.tc")
			b=$(awk -F, -v c="$c" 'NR > 1 && $4 == c' "$TMP/rows.csv" | wc -l)
			[ "$a" -eq "$b" ] || { bad=1; echo "  cpu $c: trace-cmd $a, convert $b"; }
			if [ $first = 1 ]; then
				first=0
				a=$(trace-cmd report -F "ipi_send_cpu: cpu == $c" "$TMP/x.dat" 2>/dev/null |
					grep -c ' ipi_send_cpu: ')
				[ "$a" -eq "$b" ] || { bad=1; echo "  cpu $c: trace-cmd -F $a, convert $b"; }
			fi
		done
		[ $bad -eq 0 ] && pass "$n explode + trace-cmd -F per CPU = convert rows" ||
			fail "$n explode per CPU" "counts differ"
	else
		fail "$n explode" "$(cat "$TMP/err")"
	fi
done

# csd join: on 6.18 traces every function-call IPI names the real function
for f in $(inputs "$TRACES"/recorded/*.dat); do
	[ -f "$f" ] || continue
	n=$(basename "$f")
	"$IPT" convert --force "$f" -o "$TMP/rows.csv" 2>/dev/null
	gen=$(awk -F, 'NR > 1 && $13 == "generic_smp_call_function_single_interrupt"' "$TMP/rows.csv" | wc -l)
	named=$(awk -F, 'NR > 1 && $13 == "generic_smp_call_function_single_interrupt" && $15 != "" && $15 != $13' "$TMP/rows.csv" | wc -l)
	queued=$(tc_report "$f" 2>/dev/null | grep -c ' csd_queue_cpu: ')
	if [ "$queued" -gt 0 ]; then
		[ "$gen" -eq "$named" ] && pass "$n csd join names the function ($named of $gen)" ||
			fail "$n csd join" "$named of $gen generic-handler rows name the function"
	fi
done

# pandas and JSON
f="$TRACES/recorded/pingpong.dat"
if [ -f "$f" ] && "$PY" -c "import pandas" 2>/dev/null; then
	"$IPT" convert "$f" -o "$TMP/p.csv"
	"$IPT" convert "$f" -o "$TMP/p.jsonl"
	"$IPT" convert --no-explode "$f" -o "$TMP/pn.jsonl"
	want=$(tc_report "$f" 2>/dev/null | grep -c ' ipi_send_cpu: ')
	"$PY" - "$TMP/p.csv" "$TMP/p.jsonl" "$TMP/pn.jsonl" "$want" > "$TMP/py" 2>&1 <<'PY'
import sys, json, pandas as pd
csv, jl, jn, want = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
df = pd.read_csv(csv)
assert len(df) == want, (len(df), want)
assert str(df["target_cpu"].dtype).startswith("int"), df["target_cpu"].dtype
assert str(df["src_cpu"].dtype).startswith("int")
rows = [json.loads(l) for l in open(jl)]
assert len(rows) == want
assert all(isinstance(r["target_cpu"], int) for r in rows)
ev = [json.loads(l) for l in open(jn)]
assert all(isinstance(r["targets"], list) and all(isinstance(c, int) for c in r["targets"]) for r in ev)
print("ok", len(df))
PY
	grep -q '^ok' "$TMP/py" && pass "pandas reads the CSV with integer CPUs; JSONL parses ($(cat "$TMP/py"))" ||
		fail "pandas/json" "$(tail -n 3 "$TMP/py" | tr '\n' '|')"
else
	skip "pandas" "python3-pandas or recorded traces missing"
fi

# convert --threads: the same CSV (rows, order, ids) with 1 thread and with the
# streams decoded by 2, 3, 4 and 8 parallel threads, with and without filters
set -- $(inputs "$TRACES"/recorded/*.dat "$TRACES"/public/lisa/trace.dat)
GEN="$TOP/$B/tools/gen-synth"
[ -x "$GEN" ] && "$GEN" -o "$TMP/j-x86.dat" -e 100000 -s 5 -n 8 2>/dev/null && set -- "$@" "$TMP/j-x86.dat"
bad="" n=0
for f in "$@"; do
	for flt in "" 'target_cpu == 1' 'kind == "resched" && id > 10'; do
		threads_agree "$(basename "$f"):'$flt'" convert ${flt:+-F "$flt"} "$f" -o -
	done
	n=$((n + 1))
done
check "convert --threads 1 and $(echo $AGREE_THREADS | tr ' ' ,) give the same CSV on $n traces, 3 filters:${bad:- ok}" \
	[ $n -ge 2 -a -z "$bad" ]

# explode's memory at 8192 CPUs: within 64 MiB whatever the output's size
# (it took 2.7-3.8 GB for the arm64 trace once); peak RSS by /usr/bin/time
# (the plain pass: ASan's own memory is not explode's), the output's events
# by trace-cmd above (synth-8192)
if [ "$ASAN" != 1 ] && [ -x "$GEN" ] && [ -x /usr/bin/time ]; then
	for a in x86_64 arm64; do
		"$GEN" -a $a -n 8192 -e 12000 -s 7 -o "$TMP/w-$a.dat" 2> /dev/null || { fail "explode-memory $a" "gen-synth failed"; continue; }
		kb=$(/usr/bin/time -f %M "$IPT" explode --force "$TMP/w-$a.dat" -o "$TMP/w-$a.x.dat" 2>&1 > /dev/null | tail -n 1)
		sz=$(wc -c < "$TMP/w-$a.x.dat" 2> /dev/null || echo 0)
		if [ "$kb" -le 65536 ] 2> /dev/null && [ "$sz" -gt 1000000 ]; then
			pass "explode-memory $a 8192 CPUs, 12,000 events: peak $kb KB for a $sz-byte output"
		else
			fail "explode-memory $a" "peak '$kb' KB (at most 65536) for a $sz-byte output"
		fi
		rm -f "$TMP/w-$a.dat" "$TMP/w-$a.x.dat"
	done
fi
finish
