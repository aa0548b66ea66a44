#!/bin/sh
# test_synth.sh - synthetic trace.dat files from build/tools/gen-synth:
# `trace-cmd report` must read every variant (v6; v7 none/zstd/zlib;
# big-endian; long size 4; cpumask widths 2, 64, 65, 256, 8192; arm64
# ipi_raise; a page with missed events) and show every event, and, when
# build/ipitrace exists, `ipitrace dump` must decode the same CPU set for
# every event as trace-cmd does.  The ASan pass checks instead that every
# variant's file and its `ipitrace dump` are byte for byte the plain
# build's (whose files and dumps the plain pass checks with trace-cmd).
#
#   sh tests/test_synth.sh [BUILD_DIR]      (default build)
#
# One line per check: "PASS name", "FAIL name: why", "SKIP name: why";
# the last line is "RESULT <passed> <failed>".
# seconds: 7
. "$(dirname "$0")/lib.sh"

GEN="$TOP/$B/tools/gen-synth"
PLAIN_GEN="$TOP/build/tools/gen-synth" PLAIN="$TOP/build/ipitrace"	# the plain build's
N=3000
SEED=7

if [ ! -x "$GEN" ]; then
	fail gen-synth "$GEN is missing (run make)"
	finish
fi

HAVE_TC=0
TC_ZLIB=0
if command -v trace-cmd >/dev/null 2>&1; then
	HAVE_TC=1
	trace-cmd list -c 2>/dev/null | grep -q zlib && TC_ZLIB=1
fi
HAVE_IPT=0
[ -x "$IPT" ] && HAVE_IPT=1

# norm: the events of a report/dump as "cpu ts event cpuset", one a line.
# The cpuset is that of the cpumask / target_mask / target_cpus field (CPU
# list or the kernel's hex words) or of the cpu= field, as a canonical CPU
# list; timestamps are cut to microseconds.  Dropped-event notes are kept.
cat > "$TMP/norm.awk" <<'EOF'
function hexval(c) { return index("0123456789abcdef", tolower(c)) - 1 }
function setbit(i) { bit[i] = 1; if (i < lo) lo = i; if (i > hi) hi = i }
function canon(v,    n, t, i, j, k, a, b, w, d, base, out, start) {
	for (k in bit) delete bit[k]
	lo = 1000000; hi = -1
	n = split(v, t, ",")
	ishex = n > 0
	for (i = 1; i <= n; i++)
		if (t[i] !~ /^[0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F]$/)
			ishex = 0
	if (ishex) {
		for (i = n; i >= 1; i--) {
			base = (n - i) * 32
			for (j = 8; j >= 1; j--) {
				d = hexval(substr(t[i], j, 1))
				for (k = 0; k < 4; k++) {
					if (d % 2) setbit(base + (8 - j) * 4 + k)
					d = int(d / 2)
				}
			}
		}
	} else {
		for (i = 1; i <= n; i++) {
			if (t[i] == "") continue
			if (split(t[i], w, "-") == 2) { a = w[1] + 0; b = w[2] + 0 }
			else { a = t[i] + 0; b = a }
			for (k = a; k <= b; k++) setbit(k)
		}
	}
	out = ""
	for (i = lo; i <= hi; i++) {
		if (!(i in bit)) continue
		start = i
		while ((i + 1) in bit) i++
		out = out (out == "" ? "" : ",") (i > start ? start "-" i : start)
	}
	return out == "" ? "(empty)" : out
}
function field(s, name,    r) {
	if (!match(s, "(^|[ ,])" name "=[^ ,(]*(,[0-9a-fA-F-]+)*")) return ""
	r = substr(s, RSTART, RLENGTH)
	sub("^[ ,]*" name "=", "", r)
	return r
}
/EVENTS DROPPED\]/ { print "dropped", $0; next }
{
	if (!match($0, /\[[0-9]+\] +[0-9]+\.[0-9]+: [A-Za-z0-9_]+:/)) next
	hdr = substr($0, RSTART, RLENGTH); rest = substr($0, RSTART + RLENGTH)
	split(hdr, h, " +")
	cpu = h[1]; gsub(/[^0-9]/, "", cpu); cpu += 0
	ts = h[2]; sub(/:$/, "", ts)
	if (match(ts, /\.[0-9]+/) && RLENGTH > 7) ts = substr(ts, 1, RSTART + 6)
	ev = h[3]; sub(/:$/, "", ev)
	set = "-"
	if (ev == "ipi_send_cpumask") set = canon(field(rest, "cpumask"))
	else if (ev == "ipi_raise") {
		v = field(rest, "target_mask"); if (v == "") v = field(rest, "target_cpus")
		set = canon(v)
	} else if (ev == "ipi_send_cpu" || ev == "csd_queue_cpu") set = canon(field(rest, "cpu"))
	print cpu, ts, ev, set
}
EOF

norm() { awk -f "$TMP/norm.awk" "$@"; }

# variants: name, gen-synth options, reference variant for ipitrace.  The
# events depend only on the seed, --events, --nr-cpus and --arch, so a file
# trace-cmd cannot read or misreads is compared with trace-cmd's report of
# its twin: zlib (not built into every trace-cmd) and big-endian masks wider
# than one long (libtraceevent prints those as one big-endian number, i.e.
# with the words of the kernel's unsigned long array in reverse order).
VARIANTS="
v6|--version 6|
v7-none|--version 7 --compression none|
v7-zstd|--compression zstd|
v7-zlib|--compression zlib|v7-none
be-v7|--big-endian|
be-v6|--big-endian --version 6|
be-zlib|--big-endian --compression zlib|be-v7
long4|--long-size 4|
long4-be-zstd|--long-size 4 --big-endian --compression zstd|
long4-v6|--long-size 4 --version 6|
width2|--nr-cpus 2|
width64|--nr-cpus 64 --compression zstd|
width65|--nr-cpus 65|
width65-long4|--nr-cpus 65 --long-size 4|
width65-long4-be|--nr-cpus 65 --long-size 4 --big-endian|width65-long4
width65-be-zstd|--nr-cpus 65 --big-endian --compression zstd|width65
width256|--nr-cpus 256 --compression zstd|
width8192|--nr-cpus 8192 --compression zstd|
width8192-v6|--nr-cpus 8192 --version 6|
width8192-be-v6|--nr-cpus 8192 --version 6 --big-endian|width8192
width256-be|--nr-cpus 256 --big-endian|width256
arm64|--arch arm64 --nr-cpus 256|
arm64-4cpu|--arch arm64 --nr-cpus 4 --compression zstd|
arm64-v6-be-long4|--arch arm64 --nr-cpus 12 --version 6 --big-endian --long-size 4|
missed|--missed|
page8k|--page-size 8192 --compression zstd|
"

echo "$VARIANTS" | while IFS='|' read -r name opts ref; do
	[ -n "$name" ] || continue
	f="$TMP/$name.dat"
	# shellcheck disable=SC2086
	if "$GEN" $opts --events $N --seed $SEED -o "$f" 2>"$TMP/$name.gen.err" && [ -s "$f" ]; then
		echo "PASS gen-$name"
	else
		echo "FAIL gen-$name: gen-synth $opts: $(head -c 200 "$TMP/$name.gen.err")"
		continue
	fi

	# the ASan pass: the file and its dump are the plain build's, byte for
	# byte (trace-cmd checks those in the plain pass)
	if [ "$ASAN" = 1 ] && [ -x "$PLAIN_GEN" ] && [ -x "$PLAIN" ]; then
		# shellcheck disable=SC2086
		"$PLAIN_GEN" $opts --events $N --seed $SEED -o "$f.plain" 2> /dev/null
		cmp -s "$f" "$f.plain" && echo "PASS asan-same-file-$name" ||
			echo "FAIL asan-same-file-$name: differs from the plain gen-synth's"
		if [ "$name" = width8192-be-v6 ]; then
			# 13 s under ASan (8192 CPUs' v6 sections); width8192-v6 and
			# be-v6 are dumped here, this one in the plain pass
			echo "asan: dump of $name in the plain build's pass"
			rm -f "$f.plain"
			continue
		fi
		"$IPT" dump "$f" > "$TMP/$name.ipt" 2>&1
		"$PLAIN" dump "$f" > "$TMP/$name.plain" 2>&1
		cmp -s "$TMP/$name.ipt" "$TMP/$name.plain" && echo "PASS asan-same-dump-$name" ||
			echo "FAIL asan-same-dump-$name: dump differs from the plain build's: $(head -c 200 "$TMP/$name.ipt")"
		rm -f "$f.plain" "$TMP/$name.plain"
		continue
	fi

	# trace-cmd, the reference reader
	tc_ok=0
	case "$opts" in *zlib*) needs_zlib=1 ;; *) needs_zlib=0 ;; esac
	if [ $HAVE_TC = 0 ]; then
		echo "SKIP tc-$name: trace-cmd is not installed"
	elif [ $needs_zlib = 1 ] && [ $TC_ZLIB = 0 ]; then
		echo "SKIP tc-$name: this trace-cmd has no zlib support (trace-cmd list -c)"
	elif ! trace-cmd report "$f" > "$TMP/$name.tc" 2>"$TMP/$name.tc.err"; then
		echo "FAIL tc-$name: trace-cmd report failed: $(head -c 200 "$TMP/$name.tc.err")"
	else
		norm "$TMP/$name.tc" > "$TMP/$name.tc.n"
		n=$(grep -vc '^dropped' "$TMP/$name.tc.n")
		bad=$(grep -c 'FAILED TO PARSE' "$TMP/$name.tc")
		if [ "$n" -ne $N ]; then
			echo "FAIL tc-$name: trace-cmd shows $n events, want $N"
		elif [ "$bad" -ne 0 ]; then
			echo "FAIL tc-$name: $bad events FAILED TO PARSE"
		elif [ -s "$TMP/$name.tc.err" ]; then
			echo "FAIL tc-$name: trace-cmd complained: $(head -c 200 "$TMP/$name.tc.err")"
		else
			echo "PASS tc-$name"
			tc_ok=1
		fi
	fi

	# ipitrace against trace-cmd, event by event
	refn="$TMP/$name.tc.n"
	[ -n "$ref" ] && refn="$TMP/$ref.tc.n"
	if [ $HAVE_IPT = 0 ]; then
		echo "SKIP ipt-$name: $IPT does not exist yet"
	elif [ ! -s "$refn" ] || { [ -z "$ref" ] && [ $tc_ok = 0 ]; }; then
		echo "SKIP ipt-$name: no trace-cmd reference"
	elif ! "$IPT" dump "$f" > "$TMP/$name.ipt" 2>"$TMP/$name.ipt.err"; then
		echo "FAIL ipt-$name: ipitrace dump failed: $(head -c 200 "$TMP/$name.ipt.err")"
	else
		norm "$TMP/$name.ipt" > "$TMP/$name.ipt.n"
		if cmp -s "$refn" "$TMP/$name.ipt.n"; then
			echo "PASS ipt-$name"
		else
			d=$(diff "$refn" "$TMP/$name.ipt.n" | grep -c '^[<>]')
			first=$(diff "$refn" "$TMP/$name.ipt.n" | grep '^[<>]' | head -n 2 | tr '\n' ' ' | cut -c1-300)
			echo "FAIL ipt-$name: $d lines differ from trace-cmd: $first"
		fi
	fi
done > "$TMP/out.txt"

# the loop ran in a subshell: count its lines here
while IFS= read -r line; do
	case "$line" in
	PASS\ *) pass "${line#PASS }" ;;
	FAIL\ *) n=${line#FAIL }; fail "${n%%:*}" "${n#*: }" ;;
	*) echo "$line" ;;
	esac
done < "$TMP/out.txt"

# the masks really are as wide as asked, and masks of every shape occur
if [ -s "$TMP/width8192.tc.n" ]; then
	if grep -q 'ipi_send_cpumask .*8191' "$TMP/width8192.tc.n" &&
	   grep -q 'ipi_send_cpumask 0-8190$\|ipi_send_cpumask [0-9,-]*-8191$' "$TMP/width8192.tc.n"; then
		pass width8192-masks
	else
		fail width8192-masks "no mask reaches CPU 8191 or no wide range"
	fi
fi
if [ -s "$TMP/width65.tc.n" ]; then
	if grep -q 'ipi_send_cpumask .*64$' "$TMP/width65.tc.n"; then
		pass width65-cpu64
	else
		fail width65-cpu64 "CPU 64 never targeted"
	fi
fi
if [ -s "$TMP/arm64.tc.n" ]; then
	r=$(grep -c ' ipi_raise ' "$TMP/arm64.tc.n")
	if [ "$r" -gt 0 ] && grep -q 'Rescheduling interrupts' "$TMP/arm64.tc"; then
		pass arm64-ipi_raise
	else
		fail arm64-ipi_raise "$r ipi_raise events, reason strings not resolved"
	fi
fi
if [ -s "$TMP/missed.tc.n" ]; then
	if [ "$(grep -c '42 EVENTS DROPPED' "$TMP/missed.tc")" -eq 1 ]; then
		pass missed-events
	else
		fail missed-events "trace-cmd does not report the 42 missed events once"
	fi
	if [ "$(grep -c '^CPU:0 \[EVENTS DROPPED\]' "$TMP/missed.tc")" -le 1 ]; then
		pass missed-events-unknown
	else
		fail missed-events-unknown "more than one page without a missed count"
	fi
fi

# time extends: gaps longer than 2^27 ns between events of one CPU
if [ -s "$TMP/v7-none.tc.n" ]; then
	g=$(awk '$1 in last { if ($2 - last[$1] > 0.135) n++ } { last[$1] = $2 } END { print n + 0 }' \
		"$TMP/v7-none.tc.n")
	if [ "$g" -gt 0 ]; then
		pass time-extend-gaps
	else
		fail time-extend-gaps "no gap over 2^27 ns in the report"
	fi
fi

# the formats are the real x86_64 6.18 ones
REC="$TRACES/recorded/pingpong.dat"
if [ $HAVE_TC = 1 ] && [ -f "$REC" ] && [ -f "$TMP/v7-none.dat" ]; then
	ext() { trace-cmd dump --events -i "$1" 2>/dev/null | awk -v want="$2" '/^name: /{p=($2==want)} p'; }
	for e in ipi_send_cpu ipi_send_cpumask csd_queue_cpu csd_function_entry csd_function_exit \
		 reschedule_entry reschedule_exit call_function_entry call_function_exit; do
		ext "$REC" $e > "$TMP/fmt.want"
		ext "$TMP/v7-none.dat" $e > "$TMP/fmt.got"
		if [ -s "$TMP/fmt.want" ] && cmp -s "$TMP/fmt.want" "$TMP/fmt.got"; then
			pass "format-$e"
		elif [ ! -s "$TMP/fmt.want" ]; then
			skip "format-$e" "not in $REC"
		else
			fail "format-$e" "differs from the recorded trace's format"
		fi
	done
else
	skip formats "no trace-cmd or no recorded trace to compare with"
fi

# determinism, seeds, stdout, file mode
"$GEN" --compression zstd --nr-cpus 65 --events 2000 --seed 11 -o "$TMP/d1.dat" &&
"$GEN" --compression zstd --nr-cpus 65 --events 2000 --seed 11 -o "$TMP/d2.dat" &&
"$GEN" --compression zstd --nr-cpus 65 --events 2000 --seed 12 -o "$TMP/d3.dat"
check same-seed-same-file cmp -s "$TMP/d1.dat" "$TMP/d2.dat"
check other-seed-other-file sh -c "! cmp -s '$TMP/d1.dat' '$TMP/d3.dat'"
"$GEN" --compression zstd --nr-cpus 65 --events 2000 --seed 11 -o - > "$TMP/d4.dat"
check stdout-output cmp -s "$TMP/d1.dat" "$TMP/d4.dat"
mode=$(stat -c %a "$TMP/d1.dat")
if [ "$mode" = 600 ]; then pass file-mode-0600; else fail file-mode-0600 "mode $mode"; fi
left=$(find "$TMP" -name '.*tmp*' -o -name '.gen-synth*' | wc -l)
if [ "$left" -eq 0 ]; then pass no-temp-files; else fail no-temp-files "$left left"; fi
if "$GEN" --version 6 --compression zstd -o "$TMP/bad.dat" 2>/dev/null; then
	fail reject-v6-zstd "gen-synth accepted a compressed v6 file"
else
	pass reject-v6-zstd
fi
if "$GEN" -o /nonexistent-dir/x.dat 2>"$TMP/err.txt"; then
	fail unwritable-dir "succeeded"
elif grep -q '/nonexistent-dir/x.dat' "$TMP/err.txt"; then
	pass unwritable-dir
else
	fail unwritable-dir "message does not name the file: $(cat "$TMP/err.txt")"
fi

# a bigger file, streamed: exact event count
if [ $HAVE_TC = 1 ]; then
	"$GEN" --compression zstd --nr-cpus 256 --events 200000 --seed 3 -o "$TMP/big.dat"
	n=$(trace-cmd report "$TMP/big.dat" 2>/dev/null | grep -c '\] *[0-9]*\.[0-9]*: ')
	if [ "$n" -eq 200000 ]; then pass big-200k; else fail big-200k "trace-cmd shows $n events"; fi
	if [ $HAVE_IPT = 1 ]; then
		m=$("$IPT" dump "$TMP/big.dat" 2>/dev/null | grep -c '\] *[0-9]*\.[0-9]*: ')
		if [ "$m" -eq 200000 ]; then pass big-200k-ipitrace; else fail big-200k-ipitrace "ipitrace shows $m events"; fi
	fi
fi

finish
