#!/bin/sh
# test_uniq.sh - `report --format uniq` against the kernel developers' recipe
# run as the shell pipeline it is, over `trace-cmd report` of every recorded
# trace (or the report text itself):
#   grep callback  | awk '{ print $(NF) }'   | sort | uniq -c | sort -nr
#   grep csd_queue | awk '{ print $(NF-1) }' | sort | uniq -c | sort -nr
# each table byte for byte once the stack lines are taken out of the
# recipe's input, and the header's count of the lines left out equal to what
# the raw recipe counts more; a hand-written trace for masks (one line per
# send), other lines the grep matches and the order of equal counts; a
# filter on the target CPUs against an independent awk selection of
# trace-cmd's lines; the empty cases.
# ASan pass: one input of each kind (tests/lib.sh `inputs`).
# seconds: 15
. "$(dirname "$0")/lib.sh"

command -v trace-cmd >/dev/null || { skip uniq "trace-cmd not installed"; finish; }

# recipe PATTERN NF-EXPR: the recipe's half on standard input
recipe() {
	grep -- "$1" | awk "{ print \$($2) }" | LC_ALL=C sort | uniq -c | LC_ALL=C sort -nr
}
# table N FILE: table N of an output, without its header
table() { awk -v n="$1," '/^# table / { on = ($3 == n); next } on' "$2"; }
# head_counts N FILE: "COUNTED STACK OTHER" from table N's header
head_counts() {
	sed -n "s/^# table $1, .*': \([0-9]*\) .*left out: \([0-9]*\) stack lines, \([0-9]*\) other lines\$/\1 \2 \3/p" "$2"
}
# sum of a uniq -c table's counts
total() { awk '{ s += $1 } END { print s + 0 }' "$1"; }

# compare NAME REF OUT [EVENTS]: both tables of OUT (ipitrace) against the
# recipe over REF (trace-cmd's text); EVENTS, a grep -E pattern of the
# tables' event lines, also takes the other lines out when the header says
# there are some
compare() {
	cname=$1 ref=$2 out=$3
	bad=""
	grep -v '^=>' "$ref" > "$TMP/nostack"
	grep '^=>' "$ref" > "$TMP/stack"
	for k in 1 2; do
		if [ $k = 1 ]; then pat=callback nf=NF ev='ipi_send_cpu(mask)?'; else pat=csd_queue nf=NF-1 ev=csd_queue_cpu; fi
		table $k "$out" > "$TMP/got$k"
		set -- $(head_counts $k "$out")
		[ $# = 3 ] || { bad="$bad table $k: no header"; continue; }
		counted=$1 stacks=$2 others=$3
		if [ "$others" = 0 ]; then
			recipe $pat $nf < "$TMP/nostack" > "$TMP/want$k"
		else
			grep -E " $ev: " "$TMP/nostack" | recipe $pat $nf > "$TMP/want$k"
		fi
		cmp -s "$TMP/want$k" "$TMP/got$k" || bad="$bad table $k: $(diff "$TMP/want$k" "$TMP/got$k" | head -n 3 | tr '\n' ' ')"
		# the header's figures against the raw recipe's
		raw=$(recipe $pat $nf < "$ref" > "$TMP/raw$k"; total "$TMP/raw$k")
		rawstack=$(grep -c -- $pat "$TMP/stack")
		[ "$counted" = "$(total "$TMP/got$k")" ] || bad="$bad table $k: header says $counted lines, table $(total "$TMP/got$k")"
		[ "$stacks" = "$rawstack" ] || bad="$bad table $k: header says $stacks stack lines, recipe $rawstack"
		[ $((raw - counted - stacks)) = "$others" ] ||
			bad="$bad table $k: raw recipe $raw lines = $counted + $stacks stack + $others other?"
		LINES=$((LINES + $(wc -l < "$TMP/got$k")))
		[ "$stacks" = 0 ] || STACKS=$((STACKS + stacks))
	done
	if [ -z "$bad" ]; then
		NCMP=$((NCMP + 1))
		pass "$cname ($(wc -l < "$TMP/got1")+$(wc -l < "$TMP/got2") lines, $(head_counts 1 "$out" | cut -d' ' -f2)+$(head_counts 2 "$out" | cut -d' ' -f2) stack lines left out)"
	else
		fail "$cname" "$bad"
	fi
}

# reftext FILE: trace-cmd's text of FILE into $TMP/ref (false: it cannot
# read it, said); kept for the filtered cases below
reftext() {
	case $1 in
	*.dat)	_rt=$TMP/tc.$(basename "$1")
		[ -f "$_rt" ] || trace-cmd report -i "$1" > "$_rt" 2> "$TMP/tcerr" ||
			{ rm -f "$_rt"; skip "uniq $(basename "$1")" "trace-cmd cannot read it: $(head -n 1 "$TMP/tcerr")"; return 1; }
		cp "$_rt" "$TMP/ref" ;;
	*)	cp "$1" "$TMP/ref" ;;
	esac
}

NCMP=0 LINES=0 STACKS=0
for f in $(inputs "$TRACES"/recorded/*.dat "$TRACES"/recorded/*.report.txt "$TOP"/tests/data/*.dat \
		"$TOP"/tests/data/*/*.dat "$TOP"/tests/data/*.report.txt \
		"$TRACES"/public/lkml-snippets/*trace-cmd-report.txt); do
	n=$(basename "$f")
	if grep -q 'FAILED TO PARSE' "$f" 2>/dev/null; then
		# ipitrace counts its own rendering of the fields it recovers
		skip "uniq $n" "trace-cmd could not parse some lines (docs/recipe.md: not compared)"
		continue
	fi
	reftext "$f" || continue
	"$IPT" report --format uniq "$f" > "$TMP/out" 2> "$TMP/err" || { fail "uniq $n" "exit $?: $(cat "$TMP/err")"; continue; }
	compare "uniq $n" "$TMP/ref" "$TMP/out"
done

# A hand-written trace: a mask send counted once, a comm and a csd function
# holding "callback" (other lines), stacks, equal counts in both tables.
cat > "$TMP/hand.txt" <<'EOF'
cpus=4
      callbackd-10    [000]   100.000001: ipi_send_cpumask:     cpumask=1-3 callsite=smp_call_function_many_cond+0x1a1 callback=flush_tlb_func+0x0
      callbackd-10    [000]   100.000002: kernel_stack:         <stack trace >
=> trace_event_raw_event_ipi_send_cpumask (ffffffff8139ca06)
=> ep_poll_callback (ffffffff8172fbc9)
          bash-20    [001]   100.000003: csd_queue_cpu:        cpu=2 callsite=generic_exec_single+0x30 func=rcu_barrier_callback csd=0xffff888100f02db8
          bash-20    [001]   100.000004: kernel_stack:         <stack trace >
=> trace_event_raw_event_csd_queue_cpu (ffffffff8144fa8e)
=> __traceiter_csd_queue_cpu (ffffffff8144fa00)
          bash-20    [001]   100.000005: ipi_send_cpu:         cpu=2 callsite=generic_exec_single+0x30 callback=generic_smp_call_function_single_interrupt+0x0
          bash-20    [001]   100.000006: ipi_send_cpu:         cpu=3 callsite=wakeup_preempt+0x92 callback=0x0
     callbackd-10    [002]   100.000007: reschedule_entry:     vector=253
          bash-20    [001]   100.000008: ipi_send_cpu:         cpu=0 callsite=wakeup_preempt+0x92 callback=0x0
          bash-20    [001]   100.000009: csd_queue_cpu:        cpu=0 callsite=ttwu_queue_wakelist+0x11d func=sched_ttwu_pending csd=0xffff888100f02db8
          bash-20    [001]   100.000010: ipi_send_cpu:         cpu=0 callsite=ttwu_queue_wakelist+0x11d callback=generic_smp_call_function_single_interrupt+0x0
          bash-20    [003]   100.000011: csd_queue_cpu:        cpu=1 callsite=smp_call_function_many_cond+0x1a1 func=flush_tlb_func csd=0xffff888100f02000
          bash-20    [003]   100.000012: ipi_send_cpumask:     cpumask=0-1,3 callsite=smp_call_function_many_cond+0x1a1 callback=flush_tlb_func+0x0
          bash-20    [003]   100.000013: ipi_send_cpumask:     cpumask=1 callsite=smp_call_function_many_cond+0x1a1 callback=do_sync_core+0x0
          bash-20    [003]   100.000014: kernel_stack:         <stack trace >
=> ep_poll_callback (ffffffff8172fbc9)
EOF
"$IPT" report --format uniq "$TMP/hand.txt" > "$TMP/out" 2> "$TMP/err" || fail "uniq hand-written" "$(cat "$TMP/err")"
compare "uniq hand-written trace" "$TMP/hand.txt" "$TMP/out"
# what that trace must give, written out: the mask sends once each, the
# equal counts in reverse byte order, the lines left out (other lines: the
# reschedule_entry and kernel_stack lines of callbackd, the csd call of
# rcu_barrier_callback)
cat > "$TMP/want" <<'EOF'
# table 1, grep callback | awk '{ print $(NF) }': 7 send lines; left out: 2 stack lines, 3 other lines
      2 callback=generic_smp_call_function_single_interrupt+0x0
      2 callback=flush_tlb_func+0x0
      2 callback=0x0
      1 callback=do_sync_core+0x0
# table 2, grep csd_queue | awk '{ print $(NF-1) }': 3 csd_queue_cpu lines; left out: 2 stack lines, 0 other lines
      1 func=sched_ttwu_pending
      1 func=rcu_barrier_callback
      1 func=flush_tlb_func
EOF
cmp -s "$TMP/want" "$TMP/out" && pass "uniq hand-written: as written out" ||
	fail "uniq hand-written: as written out" "$(diff "$TMP/want" "$TMP/out" | head -n 6 | tr '\n' ' ')"

# A filter on the target CPUs: the recipe over trace-cmd's lines that a
# recording with the kernel filter (cpu & CPUS{SET}, cpumask & CPUS{SET})
# would hold, chosen here by awk: the three events whose target (a mask:
# any of its CPUs) is in SET, and the stack recorded after each of them.
select_cpus() {	# select_cpus SET(a,b,..) < text
	awk -v set="$1" '
	function inset(list,   n, p, i, r, lo, hi, c) {
		n = split(list, p, ",")
		for (i = 1; i <= n; i++) {
			if (split(p[i], r, "-") == 2) { lo = r[1] + 0; hi = r[2] + 0 } else { lo = p[i] + 0; hi = lo }
			for (c in want) if (c + 0 >= lo && c + 0 <= hi) return 1
		}
		return 0
	}
	BEGIN { n = split(set, s, ","); for (i = 1; i <= n; i++) want[s[i]] = 1 }
	/^=>/ { if (cur) print; next }
	{
		if (!match($0, /\[[0-9]+\]/)) { cur = 0; next }
		cpu = substr($0, RSTART + 1, RLENGTH - 2) + 0
		ev = ""
		for (i = 1; i <= NF; i++)
			if ($i ~ /^(ipi_send_cpu|ipi_send_cpumask|csd_queue_cpu|kernel_stack):$/) { ev = $i; break }
		if (ev == "kernel_stack:") { cur = last[cpu]; if (cur) print; next }
		keep = 0
		for (i = 1; i <= NF && ev != ""; i++) {
			if (ev == "ipi_send_cpumask:" && $i ~ /^cpumask=/) keep = inset(substr($i, 9))
			if (ev != "ipi_send_cpumask:" && $i ~ /^cpu=/) keep = inset(substr($i, 5))
		}
		last[cpu] = keep; cur = keep
		if (keep) print
	}'
}
for spec in "$TRACES/recorded/stacks.dat 1" "$TRACES/recorded/busy-stacks.report.txt 0" \
	    "$TRACES/recorded/pingpong.dat 0" "$TMP/hand.txt 3" "$TMP/hand.txt 0,2"; do
	set -- $spec
	f=$1 set=$2
	[ "$ASAN" = 1 ] && [ "$f" = "$TRACES/recorded/pingpong.dat" ] && continue
	n="uniq -F 'cpu & CPUS{$set}' $(basename "$f")"
	[ -f "$f" ] || { skip "$n" "no such trace"; continue; }
	reftext "$f" || continue
	select_cpus "$set" < "$TMP/ref" > "$TMP/sel"
	"$IPT" report --format uniq -F "cpu & CPUS{$set}" "$f" > "$TMP/out" 2> "$TMP/err" ||
		{ fail "$n" "$(cat "$TMP/err")"; continue; }
	compare "$n" "$TMP/sel" "$TMP/out"
	# -c LIST is the same row filter; 'cpumask & CPUS{}' keeps a mask that meets the set
	"$IPT" report --format uniq -c "$set" "$f" > "$TMP/out.c" 2>&1
	"$IPT" report --format uniq -F "cpumask & CPUS{$set}" "$f" > "$TMP/out.m" 2>&1
	if cmp -s "$TMP/out" "$TMP/out.c" && cmp -s "$TMP/out" "$TMP/out.m"; then
		pass "$n: -c $set and 'cpumask & CPUS{$set}' the same"
	else
		fail "$n: -c $set and 'cpumask & CPUS{$set}' the same" "$(diff "$TMP/out" "$TMP/out.c" | head -n 3 | tr '\n' ' ')"
	fi
done

# The empty cases: a trace with events but none of these is two headers
# saying so (exit 0); one with no event at all is an error (exit 1); a
# filter that keeps nothing gives two headers and empty tables.
f=$TOP/tests/data/qemu/arm64-6.1.dat
if [ -f "$f" ]; then
	"$IPT" report --format uniq "$f" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	[ $rc = 0 ] && [ "$(wc -l < "$TMP/out")" = 2 ] && grep -q '^# table 1, .*: 0 send lines: the trace has no ipi_send_cpu or ipi_send_cpumask event' "$TMP/out" &&
		grep -q '^# table 2, .*: 0 csd_queue_cpu lines: the trace has no csd_queue_cpu event' "$TMP/out" &&
		pass "uniq: no send or csd event, two headers saying so" ||
		fail "uniq: no send or csd event" "exit $rc: $(cat "$TMP/out" "$TMP/err" | tr '\n' ' ')"
fi
printf 'cpus=2\n' > "$TMP/empty.txt"
"$IPT" report --format uniq "$TMP/empty.txt" > "$TMP/out" 2> "$TMP/err"
rc=$?
[ $rc = 1 ] && [ ! -s "$TMP/out" ] && grep -q 'no events' "$TMP/err" && pass "uniq: a trace with no event is an error" ||
	fail "uniq: a trace with no event" "exit $rc: $(cat "$TMP/out" "$TMP/err" | tr '\n' ' ')"
"$IPT" report --format uniq -F 'cpu & CPUS{5}' "$TMP/hand.txt" > "$TMP/out" 2> "$TMP/err"
rc=$?
[ $rc = 0 ] && [ "$(wc -l < "$TMP/out")" = 2 ] && grep -q '^# table 1, .*: 0 send lines (the filter keeps 0 of 7 events)' "$TMP/out" &&
	pass "uniq: a filter that keeps nothing, two headers" ||
	fail "uniq: a filter that keeps nothing" "exit $rc: $(cat "$TMP/out" "$TMP/err" | tr '\n' ' ')"
"$IPT" report --format uniq -F 'cpu &&' "$TMP/hand.txt" > /dev/null 2> "$TMP/err"
rc=$?
[ $rc = 2 ] && pass "uniq: a bad filter is a usage error" || fail "uniq: a bad filter" "exit $rc: $(cat "$TMP/err")"

echo "compared $NCMP traces byte for byte: $LINES table lines; $STACKS stack lines left out as the headers say"
finish
