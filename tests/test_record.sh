#!/bin/sh
# test_record.sh - `ipitrace record` against the live kernel (needs root and
# tracefs; prints SKIP lines otherwise).  Usage: sh tests/test_record.sh [BUILD]
#
#  1 record -- ipi-workload pingpong: trace-cmd reads it; the sends recorded
#    cover the IPIs the kernel counted (/proc/interrupts RES, CAL); dump agrees
#  2 SIGINT / SIGTERM leave a complete file and no instance; after SIGKILL the
#    next run removes the stale instance and no file has the final name
#  2b -d ending before COMMAND: the signal and when, said on stderr and stored
#    (provenance command_end); SIGKILL 5 s later if it ignores SIGTERM
#  3 a full filesystem: clear message, non-zero exit, no instance, no file
#  4 two recorders at once get the same events; top-level tracefs unchanged
#  5 no loss with the default buffer at full rate; with --buffer-kb 4 the loss
#    is reported and stored in the file's cpustat
#  6 an idle recording (readers on CPU 0) adds no irq_work IPIs on CPU 1
#  7 --cpus 1 records only sends to CPU 1, none missing next to an unfiltered
#    recorder on the same run
# run: live
# asan: no - live recordings, run in the plain pass; under ASan the recorder runs in test_faults and test_everyday
. "$(dirname "$0")/lib.sh"
LIVE_NAME=record
. "$(dirname "$0")/live.sh"

# report FILE: trace-cmd report text (empty if trace-cmd is missing)
report() { [ $HAVE_TC = 1 ] && trace-cmd report "$1" 2>/dev/null; }
# count REGEX FILE: lines of FILE matching REGEX
count() { grep -cE "$1" "$2"; }
# events_of FILE: "ts pid [cpu] event: fields" per event of a report text, no comm
events_of() {
	sed -n 's/^ *.*-\([0-9][0-9]*\) *\(\[[0-9]*\]\) *\([0-9.]*\): *\(.*\)$/\3 \1 \2 \4/p' "$1" | squeeze
}
# span A B: sets LO and HI, the time span both event lists (events_of form) cover
span() {
	LO=$(for f in "$1" "$2"; do head -n 1 "$f" | cut -d' ' -f1; done | sort -n | tail -n 1)
	HI=$(for f in "$1" "$2"; do tail -n 1 "$f" | cut -d' ' -f1; done | sort -n | head -n 1)
}
# missing_in A B: events of A inside [LO+1ms, HI-1ms] that B lacks inside
# [LO-1ms, HI+1ms], timestamps ignored (two instances stamp the same event
# a few microseconds apart); prints the count
missing_in() {
	awk -v lo="$LO" -v hi="$HI" -v s=0.001 '
		NR == FNR { if ($1 >= lo - s && $1 <= hi + s) { $1 = ""; big[$0]++ } next }
		$1 >= lo + s && $1 <= hi - s { n++; $1 = ""; if (big[$0]-- <= 0) miss++ }
		END { print miss + 0 }' "$2" "$1"
}
# inside A: events of A inside [LO+1ms, HI-1ms]
inside() { awk -v lo="$LO" -v hi="$HI" -v s=0.001 '$1 >= lo + s && $1 <= hi - s' "$1" | wc -l; }
# irq SYM: total of a /proc/interrupts row (RES, CAL, ...)
irq() { awk -v s="$1:" '$1 == s { n = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; print n }' /proc/interrupts; }

# ---- 1: record a generator run; trace-cmd and dump read it ----
test_pingpong() {
	cat > "$TMP/gen.sh" <<EOF
irq() { awk -v s="\$1:" '\$1 == s { n = 0; for (i = 2; i <= NF && \$i ~ /^[0-9]+\$/; i++) n += \$i; print n }' /proc/interrupts; }
r0=\$(irq RES); c0=\$(irq CAL)
"$WL" pingpong 2000 || exit 1
r1=\$(irq RES); c1=\$(irq CAL)
echo "\$((r1 - r0)) \$((c1 - c0))" > "$TMP/irqs"
EOF
	# pp_counts: record a generator run and count it (trace-cmd's text),
	# into $counts ("ok ..." or "bad ..."); 1 when record or trace-cmd failed
	pp_counts() {
		if ! "$IPT" record -o "$TMP/pp.dat" --force -- sh "$TMP/gen.sh" > "$TMP/pp.out" 2> "$TMP/pp.err"; then
			fail record-pingpong "record failed: $(tail -n 1 "$TMP/pp.err")"
			return 1
		fi
		if ! trace-cmd report "$TMP/pp.dat" > "$TMP/pp.txt" 2> "$TMP/pp.tcerr"; then
			fail record-tracecmd "trace-cmd report failed: $(head -n 1 "$TMP/pp.tcerr")"
			return 1
		fi
		gen=$(count 'ipi_send_cpu: .*callsite=(ttwu_queue_wakelist|wakeup_preempt)|csd_queue_cpu: .*func=sched_ttwu_pending' "$TMP/pp.txt")
		res_sent=$(count 'ipi_send_cpu: .*callback=(0x0|\(nil\)|0)$' "$TMP/pp.txt")
		cal_sent=$(count 'ipi_send_cpu: .*callback=generic_smp_call_function_single_interrupt|ipi_send_cpumask:' "$TMP/pp.txt")
		res_recv=$(count 'reschedule_entry:' "$TMP/pp.txt")
		cal_recv=$(count 'call_function(_single)?_entry:' "$TMP/pp.txt")
		read dres dcal < "$TMP/irqs"
		counts="generator lines $gen; kernel counted RES $dres CAL $dcal; recorded sends RES $res_sent CAL $cal_sent, receipts RES $res_recv CAL $cal_recv; $(grep -i 'lost' "$TMP/pp.err" | head -n 1)"
		if [ "$gen" -ge 2000 ] && [ "$res_sent" -ge "$dres" ] && [ "$cal_sent" -ge "$dcal" ] &&
		   [ "$res_recv" -ge "$dres" ] && [ "$cal_recv" -ge "$dcal" ]; then
			counts="ok $counts"
		else
			counts="bad $counts"
		fi
	}
	if [ $HAVE_TC = 0 ]; then
		if ! "$IPT" record -o "$TMP/pp.dat" -- sh "$TMP/gen.sh" > "$TMP/pp.out" 2> "$TMP/pp.err"; then
			fail record-pingpong "record failed: $(tail -n 1 "$TMP/pp.err")"
			return
		fi
		skip record-tracecmd "trace-cmd not installed"
		return
	fi
	pp_counts || return
	first=
	# on a busy machine the two tasks of a round trip may share a CPU (a
	# wakeup there sends no IPI): a run that comes out short is followed
	# by one more, and both are said
	case $counts in bad*) first=${counts#bad }; pp_counts || return ;; esac
	echo "  ${counts#* }"
	check record-pingpong-summary grep -q "pingpong: 2000 round trips" "$TMP/pp.out"
	if [ "$(stat -c %a "$TMP/pp.dat")" = 600 ]; then pass record-mode-0600
	else fail record-mode-0600 "mode $(stat -c %a "$TMP/pp.dat")"; fi
	case $counts in
	ok*) pass "record-tracecmd-counts${first:+ (the run before came out short: $first)}" ;;
	*) fail record-tracecmd-counts "fewer IPIs recorded than the kernel counted, or < 2000 generator lines: ${counts#bad }${first:+; the run before: $first}" ;;
	esac
	if [ $HAVE_DUMP = 0 ]; then
		skip record-dump-agrees "ipitrace dump not available"
	else
		n_tc=$(grep -vc '^cpus=' "$TMP/pp.txt")
		n_ipt=$("$IPT" dump "$TMP/pp.dat" 2>/dev/null | grep -vc '^cpus=')
		if [ "$n_tc" = "$n_ipt" ]; then pass record-dump-agrees
		else fail record-dump-agrees "trace-cmd $n_tc events, ipitrace dump $n_ipt"; fi
	fi
}

# ---- 2: signals ----
test_signals() {
	for sig in INT TERM; do
		bg_record "$TMP/sig$sig.err" -o "$TMP/sig$sig.dat"
		p=$RPID
		wait_recording "$TMP/sig$sig.err"
		"$WL" membarrier 200 > /dev/null
		stop $p $sig
		rc=$RC
		if [ $rc = 0 ] && [ -s "$TMP/sig$sig.dat" ] && no_instance $p &&
		   { [ $HAVE_TC = 0 ] || trace-cmd report "$TMP/sig$sig.dat" > /dev/null 2>&1; }; then
			pass "record-sig$sig"
		else
			fail "record-sig$sig" "rc $rc, file or instance wrong: $(tail -n 1 "$TMP/sig$sig.err")"
		fi
	done
	bg_record "$TMP/kill.err" -o "$TMP/kill.dat"
	p=$RPID
	wait_recording "$TMP/kill.err"
	stop $p KILL
	if [ -d "$T/instances/ipitrace-$p" ] && [ ! -e "$TMP/kill.dat" ]; then
		"$IPT" record -q -o "$TMP/after.dat" -d 0.2 2> "$TMP/after.err"
		if no_instance $p && [ ! -e "$TMP/kill.dat" ] && [ -s "$TMP/after.dat" ]; then
			pass record-sigkill-stale
		else
			fail record-sigkill-stale "stale instance ipitrace-$p or a file left"
		fi
	else
		fail record-sigkill-stale "no stale instance after SIGKILL, or kill.dat exists"
	fi
	rmdir "$T/instances/ipitrace-$p" 2>/dev/null
}

# ---- 3: full filesystem ----
test_enospc() {
	MNT=$TMP/full
	mkdir -p "$MNT"
	if ! mount -t tmpfs -o size=64k tmpfs "$MNT" 2>/dev/null; then
		skip record-enospc "cannot mount a tmpfs"
		MNT=""
		return
	fi
	"$IPT" record -o "$MNT/x.dat" -- "$WL" pingpong 5000 > /dev/null 2> "$TMP/full.err" &
	p=$!
	PIDS="$PIDS $p"
	i=0
	while kill -0 $p 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	stop $p TERM
	rc=$RC
	if [ $rc != 0 ] && grep -q "No space left on device" "$TMP/full.err" &&
	   no_instance $p && [ ! -e "$MNT/x.dat" ]; then
		pass record-enospc
	else
		fail record-enospc "rc $rc, $(tail -n 1 "$TMP/full.err"); file: $(ls "$MNT")"
	fi
	umount "$MNT"
	MNT=""
}

# snapshot: top-level tracefs settings
snapshot() {
	for f in tracing_on current_tracer trace_clock buffer_size_kb buffer_subbuf_size_kb \
		 set_event tracing_cpumask trace_options saved_cmdlines_size events/enable; do
		[ -e "$T/$f" ] && echo "$f: $(cat "$T/$f" | tr '\n' ' ')"
	done
	for d in ipi csd irq_vectors ftrace; do
		[ -d "$T/events/$d" ] || continue
		echo "$d: $(cat "$T/events/$d/enable" 2>/dev/null) | $(cat "$T/events/$d/filter" 2>/dev/null | tr '\n' ' ')"
		for e in "$T/events/$d"/*/; do
			[ -e "$e/enable" ] || continue
			echo "$e: $(cat "$e/enable") | $(cat "$e/filter" | tr '\n' ' ') |" \
			     "$(grep -v '^#' "$e/trigger" 2>/dev/null | tr '\n' ' ')"
		done
	done
}

# ---- 4: two recorders at once; top level untouched ----
test_two() {
	snapshot > "$TMP/snap0"
	bg_record "$TMP/a.err" -o "$TMP/a.dat"
	pa=$RPID
	bg_record "$TMP/b.err" -o "$TMP/b.dat"
	pb=$RPID
	wait_recording "$TMP/a.err" && wait_recording "$TMP/b.err"
	"$WL" pingpong 1000 > /dev/null
	stop $pa; ra=$RC
	stop $pb; rb=$RC
	snapshot > "$TMP/snap1"
	if [ $ra = 0 ] && [ $rb = 0 ] && no_instance $pa && no_instance $pb; then
		pass record-two-at-once
	else
		fail record-two-at-once "rc $ra $rb or instances left"
	fi
	if cmp -s "$TMP/snap0" "$TMP/snap1"; then
		pass record-toplevel-unchanged
	else
		fail record-toplevel-unchanged "$(diff "$TMP/snap0" "$TMP/snap1" | head -n 3 | tr '\n' ' ')"
	fi
	if [ $HAVE_TC = 1 ]; then
		report "$TMP/a.dat" > "$TMP/a.txt"
		report "$TMP/b.dat" > "$TMP/b.txt"
		events_of "$TMP/a.txt" > "$TMP/a.ev"
		events_of "$TMP/b.txt" > "$TMP/b.ev"
		span "$TMP/a.ev" "$TMP/b.ev"
		na=$(inside "$TMP/a.ev")
		nb=$(inside "$TMP/b.ev")
		ma=$(missing_in "$TMP/a.ev" "$TMP/b.ev")
		mb=$(missing_in "$TMP/b.ev" "$TMP/a.ev")
		echo "  events while both recorded: recorder A $na ($ma not in B), B $nb ($mb not in A)"
		if [ "$na" -gt 0 ] && [ "$ma" = 0 ] && [ "$mb" = 0 ]; then
			pass record-two-same-events
		else
			fail record-two-same-events "A has $ma events B lacks, B has $mb A lacks"
		fi
	fi
}

# lost LOG: sum of the lost counts the recorder printed
lost() { sed -n 's/.*cpu[0-9]*: [0-9]* events, \([0-9]*\) lost.*/\1/p' "$1" | awk '{ n += $1 } END { print n + 0 }'; }

# ---- 5: loss ----
test_loss() {
	"$IPT" record -o "$TMP/fast.dat" -- "$WL" pingpong 20000 > /dev/null 2> "$TMP/fast.err"
	rc1=$?
	"$IPT" record -o "$TMP/fastmb.dat" -- "$WL" membarrier 20000 > /dev/null 2> "$TMP/fastmb.err"
	rc2=$?
	l1=$(lost "$TMP/fast.err")
	l2=$(lost "$TMP/fastmb.err")
	echo "  default buffer: lost $l1 (pingpong), $l2 (membarrier)"
	if [ $rc1 = 0 ] && [ $rc2 = 0 ] && [ "$l1" = 0 ] && [ "$l2" = 0 ] &&
	   [ "$(grep -c ' 0 lost' "$TMP/fast.err")" -ge 2 ]; then
		pass record-no-loss
	else
		fail record-no-loss "rc $rc1/$rc2, lost $l1/$l2"
	fi
	"$IPT" record --buffer-kb 4 -o "$TMP/tiny.dat" -- "$WL" pingpong 20000 > /dev/null 2> "$TMP/tiny.err"
	l3=$(lost "$TMP/tiny.err")
	echo "  --buffer-kb 4: lost $l3"
	if [ "$l3" -gt 0 ] && grep -q "events lost" "$TMP/tiny.err"; then
		pass record-loss-reported
	else
		fail record-loss-reported "lost $l3 not reported"
	fi
	if [ $HAVE_TC = 1 ]; then
		ov=$(trace-cmd report --stat "$TMP/tiny.dat" 2>/dev/null |
		     awk '/^overrun:/ { n += $2 } END { print n + 0 }')
		if [ "$ov" -gt 0 ]; then pass record-loss-in-cpustat
		else fail record-loss-in-cpustat "no overrun in the file's cpustat"; fi
	fi
}

# count_irq_work SECONDS: irq_work_entry events on CPU 1 in a counting instance
count_irq_work() {
	mkdir "$CNT" || return 1
	echo 0 > "$CNT/tracing_on"
	echo 1 > "$CNT/events/irq_vectors/irq_work_entry/enable"
	echo 1 > "$CNT/tracing_on"
	sleep "$1"
	echo 0 > "$CNT/tracing_on"
	awk '/^entries:/ { print $2 }' "$CNT/per_cpu/cpu1/stats"
	rmdir "$CNT"
}

# ---- 6: no irq_work self-noise on the watched CPU ----
test_noise() {
	if [ ! -d $T/events/irq_vectors/irq_work_entry ]; then
		skip record-no-irq-work "no irq_vectors:irq_work_entry here"
		return
	fi
	CNT=$T/instances/ipitrace-test-count-$$
	base=$(count_irq_work 5)
	bg_record "$TMP/idle.err" -o "$TMP/idle.dat" --housekeeping 0
	p=$RPID
	wait_recording "$TMP/idle.err"
	with=$(count_irq_work 5)
	stop $p
	echo "  irq_work on CPU 1 in 5 s: $base without recording, $with while recording"
	if [ -n "$base" ] && [ -n "$with" ] && [ "$with" -le $((base + base / 2 + 5)) ]; then
		pass record-no-irq-work
	else
		fail record-no-irq-work "irq_work on CPU 1: $base without, $with with the recorder"
	fi
}

# sends_to CPU FILE: send events (events_of form) whose target is CPU
sends_to() { grep -E " (ipi_send_cpu|csd_queue_cpu): cpu=$1 " "$2"; }

# ---- 7: --cpus 1 next to an unfiltered recorder ----
test_cpus() {
	bg_record "$TMP/all.err" -o "$TMP/all.dat"
	pa=$RPID
	bg_record "$TMP/one.err" -o "$TMP/one.dat" --cpus 1
	pb=$RPID
	wait_recording "$TMP/all.err" && wait_recording "$TMP/one.err"
	"$WL" pingpong 1000 > /dev/null
	"$WL" membarrier 1000 > /dev/null
	stop $pa
	stop $pb
	if grep -q "rejected" "$TMP/one.err"; then
		skip record-cpus "this kernel rejects cpumask filters: $(grep rejected "$TMP/one.err" | head -n 1)"
		return
	fi
	[ $HAVE_TC = 1 ] || { skip record-cpus "trace-cmd not installed"; return; }
	report "$TMP/all.dat" > "$TMP/all.txt"
	report "$TMP/one.dat" > "$TMP/one.txt"
	events_of "$TMP/all.txt" > "$TMP/all.ev"
	events_of "$TMP/one.txt" > "$TMP/one.ev"
	other=$(grep -E ' (ipi_send_cpu|csd_queue_cpu): ' "$TMP/one.ev" | grep -cv ': cpu=1 ')
	mask=$(grep ' ipi_send_cpumask: ' "$TMP/one.ev" | grep -cvE 'cpumask=([0-9,-]*[^0-9])?1([^0-9][0-9,-]*)? ')
	if [ "$other" = 0 ] && [ "$mask" = 0 ]; then
		pass record-cpus-only-targets
	else
		fail record-cpus-only-targets "$other sends to other CPUs, $mask masks without CPU 1"
	fi
	span "$TMP/all.ev" "$TMP/one.ev"
	sends_to 1 "$TMP/all.ev" > "$TMP/all.to1"
	sends_to 1 "$TMP/one.ev" > "$TMP/one.to1"
	na=$(inside "$TMP/all.to1")
	nb=$(inside "$TMP/one.to1")
	ma=$(missing_in "$TMP/all.to1" "$TMP/one.to1")
	mb=$(missing_in "$TMP/one.to1" "$TMP/all.to1")
	echo "  sends to CPU 1 while both recorded: unfiltered $na ($ma not in --cpus 1)," \
	     "--cpus 1 $nb ($mb not in unfiltered)"
	if [ "$na" -gt 0 ] && [ "$ma" = 0 ] && [ "$mb" = 0 ]; then
		pass record-cpus-none-missing
	else
		fail record-cpus-none-missing "--cpus 1 lacks $ma sends to CPU 1 of the unfiltered recording"
	fi
}

# ---- the duration ends before COMMAND: said, stored, and the exit status is the signal's ----
test_command_end() {
	t0=$(date +%s.%N)
	"$IPT" record -q -d 0.5 -o "$TMP/ce.dat" -- sleep 30 > /dev/null 2> "$TMP/ce.err"; rc=$?
	el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
	# 143 = 128 + SIGTERM (15), as a shell reports a command killed so
	if [ $rc = 143 ] && awk -v e="$el" 'BEGIN { exit !(e < 4) }' &&
	   grep -q 'warning: COMMAND was still running when the recording ended: sent SIGTERM after 0\.[5-9][0-9] s (-d 0\.5 s reached).*exit status 143 (128 + SIGTERM' "$TMP/ce.err" &&
	   "$IPT" report "$TMP/ce.dat" 2> /dev/null | grep -q 'command_end.*SIGTERM after 0\.[5-9][0-9] s (-d 0\.5 s reached)'; then
		pass "record -d 0.5 -- sleep 30: exit 143 after $el s, said on stderr and kept in the file's provenance"
	else
		fail record-command-end "rc $rc after $el s: $(tr '\n' ';' < "$TMP/ce.err")"
	fi
	# a command that ignores SIGTERM gets SIGKILL 5 s later: 137 = 128 + 9
	"$IPT" record -q -d 0.3 -o "$TMP/ck.dat" -- sh -c 'trap "" TERM; sleep 8' > /dev/null 2> "$TMP/ck.err"; rc=$?
	[ $rc = 137 ] && grep -q 'SIGKILL 5 s later.*exit status 137 (128 + SIGKILL' "$TMP/ck.err" &&
		pass "record -- a command ignoring SIGTERM: SIGKILL 5 s later, exit 137, said" ||
		fail record-command-kill "rc $rc: $(tr '\n' ';' < "$TMP/ck.err")"
	# a command that ends first: no word, its own status
	"$IPT" record -q -d 5 -o "$TMP/cf.dat" -- sh -c 'exit 7' > /dev/null 2> "$TMP/cf.err"; rc=$?
	[ $rc = 7 ] && ! grep -q 'still running' "$TMP/cf.err" &&
		pass "record -- a command that ends first: its exit status (7), nothing said" ||
		fail record-command-first "rc $rc: $(tr '\n' ';' < "$TMP/cf.err")"
}

test_pingpong
test_signals
test_command_end
test_enospc
test_two
test_loss
test_noise
test_cpus
ls "$T/instances" | grep -q "^ipitrace-test-" && fail record-cleanup "test instance left"
finish
