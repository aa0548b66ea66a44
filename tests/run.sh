#!/bin/sh
# run.sh - run every test against each build directory given, and print one
# summary line "N passed, N failed, N skipped".
#
#   sh tests/run.sh BUILD...          e.g. build build/asan
#
# Unit test binaries (BUILD/tests/unit_*) and test scripts (tests/test_*.sh)
# each end their output with "RESULT <passed> <failed>"; scripts also print
# "SKIP name: reason" lines, which count as skipped, never as passed.
#
# What a script is, it says itself in its first lines:
#   "# run: live"     it drives the live kernel (tracefs, BPF, /proc/interrupts
#                     compared with what it records): the live scripts run one
#                     at a time, so that none sees another's IPIs;
#   "# run: split"    it has live sections and offline ones: it runs as two
#                     jobs, "NAME:live" in the live lane doing only the
#                     sections under `live_part` (tests/lib.sh) and NAME
#                     beside them doing only those under `offline_part`
#                     (IPT_PART=live or offline; run by hand, a script does
#                     both);
#   "# alone: yes[ - WHY]"  its live part measures how the machine behaves
#                     (a load's IPIs compared between recordings, the
#                     observer effect): it runs after every other job,
#                     with nothing beside it;
#   "# alone: part[ - WHY]"  only some of its live sections need that: those
#                     under `alone_part` (tests/lib.sh) run as "NAME:alone"
#                     after every other job (IPT_PART=alone), the others
#                     under `live_part` in the live lane (IPT_PART=live);
#   "# asan: no WHY"  an ASan+UBSan build (a BUILD whose name has "asan") can
#                     find nothing there that the plain pass did not
#                     (WHY says why); it is left out of that pass, and said so.
#   "# fast: no WHY"  left out of FAST=1 runs (make check-fast);
#   "# suite: NAME"   it runs only when SUITE=NAME (make check-qemu: SUITE=qemu);
#                     the others only in the default suite, SUITE=check;
#   "# seconds: N"    about how long it takes, to start the longest first
#                     before a run has measured it (build/test-times).
# Everything else (unit tests, the offline scripts) runs beside them, JOBS
# at a time (default: the online CPUs), longest first; the output and the
# tally come in a fixed order whatever the timing, then the time of each.
# As each job ends, a line "[K/N] NAME SECONDSs" goes to standard error.
#
# Environment: TESTS=pattern limits the scripts run to those whose file
# name has it (e.g. TESTS=tracedat; several: TESTS='tracedat python');
# UNITS=0 leaves out the unit tests; LIVE=0 the live scripts; FAST=1 as
# above; JOBS=N.
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0 skip=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
fails=$work/fails	# the failures again at the end, where a log's tail shows them
: > "$fails"
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
start=$(date +%s)

# wanted NAME: whether the script is one TESTS names (a part of the file
# name; several, apart by spaces or |; unset: all)
wanted() {
	[ -n "${TESTS:-}" ] || return 0
	for w in $(echo "$TESTS" | tr '|' ' '); do
		case "$1" in *"$w"*) return 0 ;; esac
	done
	return 1
}

# metas SCRIPT: the values of its head comment's "# KEY: ..." lines (the
# first of each) into m_run, m_alone, m_asan, m_fast, m_suite, m_seconds;
# one sed for all (a process started costs ~6 ms of CPU on these guests)
metas() {
	m_run='' m_alone='' m_asan='' m_fast='' m_suite='' m_seconds=''
	while IFS='	' read -r _k _v; do
		case $_k in
		run) [ -n "$m_run" ] || m_run=$_v ;;
		alone) [ -n "$m_alone" ] || m_alone=$_v ;;
		asan) [ -n "$m_asan" ] || m_asan=$_v ;;
		fast) [ -n "$m_fast" ] || m_fast=$_v ;;
		suite) [ -n "$m_suite" ] || m_suite=$_v ;;
		seconds) [ -n "$m_seconds" ] || m_seconds=$_v ;;
		esac
	done <<-EOF
	$(sed -n '1{/^#!/d}; /^[^#]/q; s/^# \(run\|alone\|asan\|fast\|suite\|seconds\): */\1	/p' "$1")
	EOF
}

# Plan the jobs: one line each, "ORDER CLASS BUILD KIND PATH", in the order
# the results are printed; ORDER is the weight for starting longest first
# (the seconds the script's last run took, if known).
plan=$work/plan
: > "$plan"
: > "$work/estimates"
n=0
times=$top/build/test-times	# NAME SECONDS of the last run, for the order
for b in "$@"; do
	if [ "${UNITS:-1}" != 0 ]; then
		for t in "$top/$b"/tests/unit_*; do
			[ -x "$t" ] || continue
			n=$((n + 1))
			echo "$n offline $b unit $t" >> "$plan"
		done
	fi
	for t in "$top"/tests/test_*.sh; do
		[ -f "$t" ] || continue
		s=${t##*/}
		wanted "$s" || continue
		metas "$t"
		case $b in *asan*)
			case $m_asan in no*) echo "not in the $b pass: $s (${m_asan#no - })"; continue ;; esac ;;
		esac
		if [ "${FAST:-0}" = 1 ]; then
			case $m_fast in no*) echo "not in the fast run: $s (${m_fast#no - })"; continue ;; esac
		fi
		[ "${m_suite:-check}" = "${SUITE:-check}" ] || continue
		run=$m_run
		lane=live alone=""
		case $m_alone in yes*) lane=alone ;; part*) alone=1 ;; esac
		echo "$t ${m_seconds:-0}" >> "$work/estimates"
		if [ "$run" = live ] && [ "${LIVE:-1}" = 0 ]; then
			echo "not in this run (LIVE=0): $s drives the live kernel"
			continue
		fi
		case $run in
		live)
			n=$((n + 1))
			if [ -n "$alone" ]; then
				echo "$n live $b part-live $t" >> "$plan"
				n=$((n + 1))
				echo "$n alone $b part-alone $t" >> "$plan"
			else
				echo "$n $lane $b script $t" >> "$plan"
			fi ;;
		split)
			n=$((n + 1))
			echo "$n offline $b part-offline $t" >> "$plan"
			if [ "${LIVE:-1}" = 0 ]; then
				echo "not in this run (LIVE=0): the live sections of $s"
			else
				n=$((n + 1))
				echo "$n $lane $b part-live $t" >> "$plan"
			fi ;;
		*)
			n=$((n + 1))
			echo "$n offline $b script $t" >> "$plan" ;;
		esac
	done
done

# jobname BUILD KIND PATH: into job, the name a job is shown and timed
# under (a variable, not output: no subshell)
jobname() {
	case $2 in
	part-live) job="$1/${3##*/}:live" ;;
	part-alone) job="$1/${3##*/}:alone" ;;
	*) job="$1/${3##*/}" ;;
	esac
}

total=$(wc -l < "$plan")
echo 0 > "$work/nfin"
# cpu SEQ: CPU to the CPU seconds (user + system) this shell's waited-for
# children have used so far: the second line of `times` ("1m2.50s 0m3.25s"),
# run in this shell (a command substitution would be a new process)
cpu() {
	times > "$work/$1.cpu"
	CPU=$(sed -n 2p "$work/$1.cpu" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); s += a[1] * 60 + a[2] } printf "%d\n", s + 0.5 }')
}
# runone SEQ BUILD KIND PATH: run one job, its log to $work/SEQ.log, its
# wall time to $work/SEQ.time; then "[K/N] NAME SECONDSs" to stderr
runone() {
	t0=$(date +%s)
	cpu "$1"; c0=$CPU
	case $3 in
	unit) "$4" > "$work/$1.log" 2>&1 ;;
	part-live) IPT_PART=live sh "$4" "$2" > "$work/$1.log" 2>&1 ;;
	part-offline) IPT_PART=offline sh "$4" "$2" > "$work/$1.log" 2>&1 ;;
	part-alone) IPT_PART=alone sh "$4" "$2" > "$work/$1.log" 2>&1 ;;
	*) sh "$4" "$2" > "$work/$1.log" 2>&1 ;;
	esac
	t1=$(date +%s)
	secs=$((t1 - t0))
	cpu "$1"
	echo $secs $((CPU - c0)) $((t0 - start)) $((t1 - start)) > "$work/$1.time"
	# one job at a time counts itself (mkdir is atomic)
	until mkdir "$work/count.lock" 2> /dev/null; do sleep 0.05; done
	k=$(( $(cat "$work/nfin") + 1 ))
	echo $k > "$work/nfin"
	rmdir "$work/count.lock"
	jobname "$2" "$3" "$4"
	echo "[$k/$total] $job ${secs}s" >&2
}

mkdir -p "$top/build" 2>/dev/null
[ -f "$times" ] && cp "$times" "$times.old"
# the live lane: one at a time, in plan order
grep ' live ' "$plan" > "$work/live"
( while read -r seq class b kind path; do runone "$seq" "$b" "$kind" "$path"; done < "$work/live"
  echo $(( $(date +%s) - start )) > "$work/live.end" ) &
live_pid=$!
# the offline jobs: longest (by the last run) first, JOBS at a time
grep ' offline ' "$plan" > "$work/offline"
# each job's weight: the seconds of its last run (times.old, by its
# jobname), else its script's "# seconds: N" (estimates), else 0
while read -r seq class b kind path; do
	jobname "$b" "$kind" "$path"
	echo "$job $seq $b $kind $path"
done < "$work/offline" |
awk -v times="$times.old" -v est="$work/estimates" '
	BEGIN {
		while ((getline l < times) > 0) { split(l, f, " "); if (!(f[2] in last)) last[f[2]] = f[1] }
		while ((getline l < est) > 0) { split(l, f, " "); guess[f[1]] = f[2] }
	}
	{ print ($1 in last) ? last[$1] : (($5 in guess) ? guess[$5] : 0), $2, $3, $4, $5 }' |
	sort -k1,1nr -k2,2n > "$work/queue"
# JOBS slots are JOBS lines in a pipe: a job takes one before it starts and
# gives it back when it ends, so the loop sleeps in `read` until one is free
# (no polling: on this kind of guest every process started costs ~6 ms of CPU)
mkfifo "$work/slots"
exec 3<> "$work/slots"
i=0
while [ $i -lt "$JOBS" ]; do echo >&3; i=$((i + 1)); done
while read -r w seq b kind path; do
	read -r _ <&3
	( runone "$seq" "$b" "$kind" "$path" 3>&-; echo >&3 ) &
done < "$work/queue"
wait
exec 3>&-
lanes_end=$(( $(date +%s) - start ))
# the jobs that must run alone: one at a time, after all the others
grep ' alone ' "$plan" > "$work/alone"
while read -r seq class b kind path; do runone "$seq" "$b" "$kind" "$path"; done < "$work/alone"

tally() {	# tally NAME LOG: add its RESULT line
	res=$(grep '^RESULT ' "$2" | tail -n 1)
	s=$(grep -c '^SKIP ' "$2")
	grep -E '^(FAIL|SKIP)' "$2" | sed "s|^|  [$1] |"
	grep '^FAIL' "$2" | sed "s|^|  [$1] |" >> "$fails"
	if [ -z "$res" ]; then
		echo "  [$1] FAIL: no RESULT line (crashed?); last lines:" | tee -a "$fails"
		tail -n 5 "$2" | sed 's/^/      /'
		fail=$((fail + 1))
	else
		set -- $res
		pass=$((pass + $2))
		fail=$((fail + $3))
	fi
	skip=$((skip + s))
}

: > "$work/times"
while read -r seq class b kind path; do
	jobname "$b" "$kind" "$path"
	name=$job
	tally "$name" "$work/$seq.log"
	set -- $(cat "$work/$seq.time" 2>/dev/null || echo '? ? ? ?')
	secs=$1
	echo "ran $name: $(grep '^RESULT' "$work/$seq.log" | tail -n 1) (${secs}s, cpu ${2}s, +${3}s..+${4}s)"
	echo "$secs $name $class $2" >> "$work/times"
done < "$plan"
# the times, longest first, for the next run's order and for the reader
sort -k1,1nr "$work/times" | awk '{printf "%s %s \n", $1, $2}' > "$times" 2>/dev/null
echo "times (wall seconds, and CPU seconds used; live scripts one at a time, the rest $JOBS at a time):"
sort -k1,1nr "$work/times" | head -n 40 | awk '{printf "  %5ss %5ss cpu  %s%s\n", $1, $4, $2, $3 == "live" ? "  (live)" : $3 == "alone" ? "  (alone)" : ""}'
# where the wall time went: the lanes side by side, then the alone jobs
echo "lanes: the live one ended at +$(cat "$work/live.end" 2>/dev/null || echo '?')s, the offline jobs and it by +${lanes_end}s; the alone jobs took $(( $(date +%s) - start - lanes_end ))s"
echo "total wall time: $(( $(date +%s) - start ))s, CPU time of the tests: $(awk '{ s += $4 } END { print s + 0 }' "$work/times")s"
# the failures last, just above the summary, where a log's tail shows them
if [ -s "$fails" ]; then
	echo "failed:"
	cut -c1-400 "$fails"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
