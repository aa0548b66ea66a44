#!/bin/sh
# test_record_tracer.sh - `record --timerlat/--osnoise` on this machine
# (issue 39): the usage errors of the options; where the kernel has no such
# tracer (available_tracers, read here), one line that says so, exit 1, no
# file, no instance left and tracefs's top level (current_tracer,
# tracing_thresh, osnoise/ if any) as it was.  The recording with the
# tracer itself runs in the PREEMPT_RT guest (test_qemu_spikes.sh).
# run: live
# seconds: 3
. "$(dirname "$0")/lib.sh"
LIVE_NAME=record-tracer
. "$(dirname "$0")/live.sh"

# usage errors: exit 2, one line naming the option, nothing touched
usage() {	# usage NAME WANT ARGS...
	name=$1 want=$2
	shift 2
	"$IPT" record -o "$TMP/u.dat" "$@" > "$TMP/u.out" 2> "$TMP/u.err"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l < "$TMP/u.err")" = 1 ] && grep -q -- "$want" "$TMP/u.err" && [ ! -e "$TMP/u.dat" ]; then
		pass "$name"
	else
		fail "$name" "rc $rc: $(cat "$TMP/u.err")"
	fi
}
usage tracer-usage-zero "--timerlat: bad threshold '0'" --timerlat=0
usage tracer-usage-word "--osnoise: bad threshold 'x'" --osnoise=x
usage tracer-usage-two "one tracer at a time" --timerlat --osnoise=5
usage tracer-usage-period "--tracer-period: only with" --tracer-period 1000
usage tracer-usage-period-range "--tracer-period: bad period '5'" --timerlat --tracer-period 5
usage tracer-usage-runtime "--tracer-period: bad period '1000,2000'" --osnoise --tracer-period 1000,2000
usage tracer-usage-runtime-timerlat "a RUNTIME only with --osnoise" --timerlat --tracer-period 1000,500
usage tracer-usage-serve "not with --from-serve" --from-serve --timerlat

state() {	# the top-level settings a tracer could touch
	cat $T/current_tracer $T/tracing_thresh $T/tracing_on
	for f in $T/osnoise/*; do [ -f "$f" ] && echo "$f=$(cat "$f" 2>/dev/null)"; done
	ls $T/instances
}
for tr in timerlat osnoise; do
	if grep -qw $tr $T/available_tracers; then
		skip "tracer-missing-$tr" "this kernel has the $tr tracer (test_qemu_spikes.sh covers it)"
		continue
	fi
	state > "$TMP/before"
	"$IPT" record --$tr=100 -d 1 -o "$TMP/$tr.dat" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	state > "$TMP/after"
	if [ $rc = 1 ] && [ "$(wc -l < "$TMP/err")" = 1 ] &&
	   grep -q "^ipitrace: --$tr: this kernel has no $tr tracer" "$TMP/err" &&
	   [ ! -e "$TMP/$tr.dat" ] && cmp -s "$TMP/before" "$TMP/after"; then
		pass "tracer-missing-$tr"
	else
		fail "tracer-missing-$tr" "rc $rc: $(cat "$TMP/err" | tr '\n' ';') $(diff "$TMP/before" "$TMP/after" | tr '\n' ' ')"
	fi
done
finish
