#!/bin/sh
# test_cpulists.sh - a CPU list that names no CPU of the trace (or, for top
# and serve, of this machine) is a usage error in every command: exit 2,
# one line ending "(see `ipitrace CMD --help`)"; a list naming some CPUs
# that are not there warns, names the CPUs kept, and gives what the list of
# those CPUs alone gives.  The trace's CPUs come from `trace-cmd report`'s
# header (cpus=N), the machine's from /sys/devices/system/cpu/possible.
# seconds: 5
. "$(dirname "$0")/lib.sh"

F="$TRACES/recorded/pingpong.dat"
[ -f "$F" ] || { skip cpulists "no $F"; finish; }
if command -v trace-cmd > /dev/null 2>&1; then
	NCPU=$(trace-cmd report "$F" 2>/dev/null | sed -n 's/^cpus=//p' | head -n 1)
else
	NCPU=2	# pingpong.dat was recorded on a 2-CPU machine (its report.txt says cpus=2)
fi
OUT=$NCPU		# the first CPU number past the trace's
LAST=$((NCPU - 1))

# usage_error NAME CMD ARGS...: exit 2, one line, the --help pointer, no output file
usage_error() {
	n=$1 cmd=$2
	shift 2
	rm -f "$TMP/out.csv"
	"$IPT" "$cmd" "$@" > "$TMP/o" 2> "$TMP/e"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l < "$TMP/e")" = 1 ] && grep -q "no such CPU" "$TMP/e" &&
	   grep -q "(see \`ipitrace $cmd --help\`)\$" "$TMP/e" && [ ! -s "$TMP/o" ] && [ ! -e "$TMP/out.csv" ]; then
		pass "$n"
	else
		fail "$n" "exit $rc, stderr: $(head -c 300 "$TMP/e" | tr '\n' ';') stdout bytes $(wc -c < "$TMP/o")"
	fi
}

usage_error "report -c naming no CPU of the trace" report -c "$OUT" "$F"
usage_error "report -c past the trace, a range" report -c "$OUT-$((OUT + 5))" "$F"
usage_error "report -i naming no CPU of the trace" report -i "$((OUT + 5))" "$F"
usage_error "convert -c naming no CPU of the trace" convert -c "$OUT" -o "$TMP/out.csv" "$F"
usage_error "dump --on-cpus naming no CPU of the trace" dump --on-cpus "$((OUT + 7))" "$F"
usage_error "report -f json -c naming no CPU" report -f json -c "$OUT" "$F"

# partly valid: a warning naming what is kept, and the output of the kept list
partly() {
	n=$1
	shift
	"$IPT" "$@" > "$TMP/a" 2> "$TMP/e"
	rc=$?
	if [ $rc = 0 ] && grep -q "warning: .*keeping $LAST\$" "$TMP/e"; then
		pass "$n: warns and names CPU $LAST as kept"
	else
		fail "$n: warns and names what it keeps" "exit $rc: $(head -c 300 "$TMP/e")"
	fi
}
partly "report -c $LAST,$OUT" report -c "$LAST,$OUT" "$F"
"$IPT" report -c "$LAST" "$F" > "$TMP/b" 2> /dev/null
cmp -s "$TMP/a" "$TMP/b" && pass "report -c $LAST,$OUT = report -c $LAST" ||
	fail "report -c $LAST,$OUT = report -c $LAST" "the reports differ"
partly "convert -c $LAST,$OUT" convert -c "$LAST,$OUT" -o - "$F"
"$IPT" convert -c "$LAST" -o - "$F" > "$TMP/b" 2> /dev/null
cmp -s "$TMP/a" "$TMP/b" && pass "convert -c $LAST,$OUT = convert -c $LAST" ||
	fail "convert -c $LAST,$OUT = convert -c $LAST" "the rows differ"
partly "dump --on-cpus $LAST,$OUT" dump --on-cpus "$LAST,$OUT" "$F"

# the machine's CPUs, for the commands that watch this machine (the lists
# are checked before anything is attached or recorded)
if [ -r /sys/devices/system/cpu/possible ]; then
	P=$(cat /sys/devices/system/cpu/possible)
	PAST=$(($(echo "$P" | tr ',' '\n' | sed 's/.*-//' | sort -n | tail -n 1) + 1))
	usage_error "top -c naming no CPU of this machine" top -c "$PAST" --once
	usage_error "top --watch naming no CPU of this machine" top --watch "$PAST" --once
	usage_error "serve --watch naming no CPU of this machine" serve --watch "$PAST"
else
	skip "top/serve CPU lists" "/sys/devices/system/cpu/possible cannot be read"
fi
finish
