#!/bin/sh
# bench/run.sh - the benchmark behind `make bench`.
#
# Makes large traces reproducibly, runs trace-cmd, perf and ipitrace side by
# side on them in one run, and prints one table (also bench/out/results.json),
# then the target verdicts.  Everything large goes to bench/out/ (gitignored).
#
# Traces (the "trace" and "input" columns):
#   synth N   build/tools/gen-synth --events N --nr-cpus 8 --seed 1, as
#             trace.dat v7 uncompressed ("v7 none") and v7 zstd ("v7 zstd").
#             Same seed, same bytes on every run (kept between runs, remade
#             when gen-synth changes).  N = 1M, 10M, 100M (BENCH_SCALE=small:
#             100k, 1M).
#   real N    `ipitrace record -- ipi-workload pingpong R` on this machine
#             (root + tracefs; falls back to trace-cmd record), about N events;
#             v7 zstd as recorded, and "v7 none" made from it with
#             `trace-cmd convert --compression none`.  The workload makes only
#             ~50k events/s, so real traces stop at BENCH_REAL_MAX events
#             (default 1M; small: 100k).  Skipped with a note without tracefs.
#   kinds     real recordings of four kinds (BENCH_KINDS, default all four,
#             in this order), each `ipitrace record` on this machine (root +
#             tracefs; trace-cmd record cannot enable ftrace here) into
#             bench/out/rec-KIND.dat (v7 zstd), with rec-KIND.none.dat
#             from `trace-cmd convert --compression none`.  The recipes
#             (BENCH_SCALE=small in brackets):
#     messaging   ipitrace record -e sched -- perf bench sched messaging
#                 -g 2 -l 3000 [-l 500]  (Debian's linux-perf; ~4 s [~1 s])
#     compile     make -C bench/out/src clean, then ipitrace record -e sched
#                 -- make -C bench/out/src -j2 build/ipitrace
#                 [build/libipitrace.a]; bench/out/src is a git clone of
#                 this tree made once (~12 s [~7 s])
#     tlb storm   ipitrace record -- ipi-workload --cpus 0,1 tlb 30000 [5000]
#                 && ipi-workload --cpus 0,1 membarrier 30000 [5000]; where
#                 the hypervisor flushes remote TLBs itself there are no TLB
#                 IPIs, and the notes say which happened (~2 s)
#     quiet+stack ipitrace record --stacks -d 20 [-d 5]: nothing run, only
#                 the machine's own background (other work on the host is
#                 in it: the notes give the load average)
#             Kept between runs: rec-KIND.dat.stamp holds the recipe and a
#             checksum of the recording code (src/cmd_record.c, lib/live/,
#             lib/output/tracedat_write.*, lib/core/compress.c; with
#             BENCH_IPITRACE, the binary); a change remakes the recording.
#             The notes give each one's events, IPIs, sends, kinds and lost
#             events (also "recordings" in results.json).  Recording and
#             measuring the kinds stop at half of BENCH_BUDGET (the rest
#             is skipped with a note).
#   perf.data `perf record -a` of the same workload (ipi:*, csd:* and the IPI
#             irq_vectors), read by `perf script`.
#   recorded  busy-stacks.dat from BENCH_RECORDED (default
#             ../shared/traces/recorded): 12.8k events with the full
#             kallsyms, for start-up; its "ipitrace report (start-up)" row
#             is the best wall time of 20 runs (build/tools/bench-time), the
#             kallsyms index kept (IPITRACE_CACHE_DIR: bench/out/symcache
#             unless set), beside the same without an index and writing it.
#
# Rows (the "command" column), each with stdout to /dev/null:
#   trace-cmd report              text output: the reference for "x tc".
#   trace-cmd report -F ...       with an IPI filter ('ipi_send_cpu: cpu == 1').
#   perf script                   on the perf.data of the same workload.
#   ipitrace dump                 every event as text, like trace-cmd report.
#   ipitrace convert (csv)        one CSV row per (IPI, target CPU), to stdout.
#   ipitrace report               the full analysis.
#   ipitrace count (decode-only)  decode every record, count them.  Taken from
#                                 $IPITRACE_BENCH_DECODE_CMD (FILE appended, or
#                                 put where {} is), else `ipitrace count` or
#                                 `ipitrace stat` if --help lists one, else
#                                 `ipitrace report` stands in (marked proxy).
#   ipitrace count --threads 1    decoding with one thread, on every trace:
#                                 report and convert are held to 3x of it.
#   (kinds: only trace-cmd report, ipitrace report, convert (csv) and
#    count --threads 1, on v7 zstd and v7 none.)
#   ... --threads 1 / 2           report (and count) with one and two threads,
#                                 on the largest synth trace, if supported
#                                 (--threads in --help, or IPITRACE_THREADS);
#                                 dump too, uncompressed (slices of time in
#                                 threads; a compressed trace takes one).
#   floor: read (dd bs=1M)        reading the uncompressed bytes once from the
#                                 page cache: the memory-speed limit.
#   floor: zstd -dc               decompressing a .zst of those same bytes:
#                                 the zstd limit (shown with the zstd input).
#   ipitrace --version            exec, the dynamic loader and exit (best of
#                                 20): what any command costs before it
#                                 reads a byte; each kind's lines say what
#                                 report time its ratios allow beside it.
#
# Columns: wall time (best of up to 5 runs while the runs add up to < 1 s,
# and of at least 3 for runs under 8 s), events/s (events in the trace / wall time), "x tc" (events/s
# divided by trace-cmd report's on the same trace and input), peak RSS
# (ru_maxrss, by build/tools/bench-time, which times the command alone;
# /usr/bin/time %M without it; it counts the file pages a reader has mapped).
# trace-cmd rows above BENCH_TC_MAX events (default 10M) are extrapolated
# linearly from the two largest measured sizes and marked with '~'.
#
# Targets (printed after the table, met / NOT MET / n/a with the measured
# value): the "x tc" ones (report and convert 100x on v7 none and 30x on
# zstd, dump 20x) and "within 3x of count --threads 1" use the largest synth
# size trace-cmd really ran on (never a '~' row); the real-recording ones
# (50x none, 25x zstd) the largest real recording; each recording of a
# kind has its own: report 50x none and 25x zstd, convert 25x none and 15x
# zstd, report within 3x of count --threads 1 (v7 none); start-up is report on
# busy-stacks.dat under 15 ms; the floor and threads ones use the largest synth size;
# peak RSS compares the largest synth size with the smallest; "linear" checks
# that each step in size grows the time at most 1.25x the event ratio.
#
# Time budget: BENCH_BUDGET seconds (default 840, i.e. 14 min).  Before each
# synth size the run predicts its cost from the previous size; if it would
# not fit, the size is scaled down (and the output says so).
#
# Environment: BENCH_SCALE=full|small, BENCH_SIZES="N ..." (override),
# BENCH_REAL_MAX, BENCH_KINDS ("messaging compile tlb quiet", or a part;
# empty: none), BENCH_TC_MAX, BENCH_BUDGET, BENCH_IPITRACE (the binary to
# measure; default build/ipitrace), BENCH_CLEAN=1 (start from an
# empty bench/out), IPITRACE_BENCH_DECODE_CMD.
set -u
# bash (when there is one) gives $EPOCHREALTIME: timestamps without forking
# date(1) twice per run; the script itself is POSIX sh.
export LC_ALL=C
if [ -z "${BASH_VERSION:-}" ] && command -v bash >/dev/null 2>&1; then exec bash "$0" "$@"; fi

root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/bench/out
# the kallsyms indexes (ipitrace(1), IPITRACE_CACHE_DIR): the bench's own,
# so that its figures do not depend on the user's; set empty: none
IPITRACE_CACHE_DIR=${IPITRACE_CACHE_DIR-$out/symcache}
export IPITRACE_CACHE_DIR
ipitrace=${BENCH_IPITRACE:-$root/build/ipitrace}
gensynth=$root/build/tools/gen-synth
workload=$root/build/tools/ipi-workload
# times each row: the command's own wall time and peak memory (before it,
# `date` and /usr/bin/time around each run added two execs, 4-8 ms here)
benchtime=$root/build/tools/bench-time
tsv=$out/results.tsv
notes=$out/notes.txt
tc_filter='ipi_send_cpu: cpu == 1'

scale=${BENCH_SCALE:-full}
case $scale in
small)	sizes=${BENCH_SIZES:-"100000 1000000"}
	real_max=${BENCH_REAL_MAX:-100000}
	tc_max=${BENCH_TC_MAX:-1000000} ;;
full)	sizes=${BENCH_SIZES:-"1000000 10000000 100000000"}
	real_max=${BENCH_REAL_MAX:-1000000}
	tc_max=${BENCH_TC_MAX:-10000000} ;;
*)	echo "bench: BENCH_SCALE must be full or small, not '$scale'" >&2; exit 2 ;;
esac
budget=${BENCH_BUDGET:-840}
start_s=$(date +%s)

# now_us: microseconds since the epoch, in $r_us (no subshell)
if [ -n "${EPOCHREALTIME:-}" ]; then
	now_us() { r_now=$EPOCHREALTIME; r_us=${r_now%.*}${r_now#*.}; }
else
	now_us() { r_now=$(date +%s%N); r_us=${r_now%???}; }
fi
log() { printf 'bench: %s\n' "$*" >&2; }
note() { printf '%s\n' "$*" >>"$notes"; log "note: $*"; }
elapsed() { echo $(( $(date +%s) - start_s )); }

# 1000000 -> 1M, 100000 -> 100k, 25000000 -> 25M
human() {
	awk -v n="$1" 'BEGIN {
		if (n >= 1e9 && n % 1e9 == 0) printf "%dG", n / 1e9
		else if (n >= 1e6 && n % 1e6 == 0) printf "%dM", n / 1e6
		else if (n >= 1e6) printf "%.1fM", n / 1e6
		else if (n >= 1e3 && n % 1e3 == 0) printf "%dk", n / 1e3
		else printf "%d", n }'
}

# ---------------------------------------------------------------- setup
if [ "${BENCH_CLEAN:-0}" = 1 ]; then rm -rf "$out"; fi
mkdir -p "$out" || exit 1
: >"$tsv"
: >"$notes"

# Packages: the bench set (hyperfine, linux-perf, valgrind + base), then
# /usr/bin/time and zstd, which that list does not have.
IPITRACE_DEPS=bench sh "$root/tools/install-deps.sh" || log "install-deps failed; going on with what is installed"
missing=""
[ -x /usr/bin/time ] || missing="$missing time"
command -v zstd >/dev/null 2>&1 || missing="$missing zstd"
if [ -n "$missing" ]; then
	if [ "$(id -u)" -eq 0 ]; then
		log "installing$missing"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1 ||
			{ apt-get update -q >/dev/null 2>&1; DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >/dev/null; }
	else
		echo "bench: missing packages:$missing (apt-get install$missing as root)" >&2
		exit 1
	fi
fi
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing" >&2; exit 1; }
if [ ! -x "$ipitrace" ] || [ ! -x "$gensynth" ]; then
	log "building (make all)"
	make -C "$root" -s all >&2 || { echo "bench: build failed" >&2; exit 1; }
fi
have_tc=0; command -v trace-cmd >/dev/null 2>&1 && have_tc=1
[ $have_tc = 1 ] || note "trace-cmd not found: no trace-cmd rows and no 'x tc' ratios"

# Decode-only command.
decode_cmd='' decode_label='' decode_proxy=0
if [ -n "${IPITRACE_BENCH_DECODE_CMD:-}" ]; then
	decode_cmd=$IPITRACE_BENCH_DECODE_CMD
	decode_label="decode-only (IPITRACE_BENCH_DECODE_CMD)"
elif "$ipitrace" --help 2>&1 | grep -Eq '^ +count( |$)'; then
	decode_cmd="$ipitrace count"; decode_label="ipitrace count (decode-only)"
elif "$ipitrace" --help 2>&1 | grep -Eq '^ +stat( |$)'; then
	decode_cmd="$ipitrace stat"; decode_label="ipitrace stat (decode-only)"
else
	decode_proxy=1; decode_label="decode-only = report (proxy)"
	note "no decode-only command (ipitrace count/stat, IPITRACE_BENCH_DECODE_CMD): the decode-only row is ipitrace report"
fi

# Threads: report --threads N (or -j N), else IPITRACE_THREADS if the binary
# knows it; the decode command's own --threads is measured too when it has one.
dump_threads=0
"$ipitrace" dump --help 2>&1 | grep -q -- '--threads' && dump_threads=1
report_threads=
if "$ipitrace" report --help 2>&1 | grep -q -- '--threads'; then report_threads=flag
elif grep -q IPITRACE_THREADS "$ipitrace" 2>/dev/null; then report_threads='env'
fi
decode_threads=0
if [ -z "${IPITRACE_BENCH_DECODE_CMD:-}" ] && [ -n "$decode_cmd" ] && $decode_cmd --help 2>&1 | grep -q -- '--threads'; then decode_threads=1; fi

# ---------------------------------------------------------------- measuring
# row GROUP TRACE EVENTS INPUT KEY LABEL CMD [ARGS...]
# Runs CMD with stdout to /dev/null under build/tools/bench-time (else
# /usr/bin/time, with `date` around it); appends one line to
# results.tsv: group trace events input key label seconds rss_kb flag note.
row() {
	r_group=$1 r_trace=$2 r_events=$3 r_input=$4 r_key=$5 r_label=$6
	shift 6
	r_best='' r_rss=0 r_runs=0 r_spent=0 r_flag='' r_note=''
	while :; do
		if [ -x "$benchtime" ]; then
			# the wall time and peak memory of the command alone
			"$benchtime" "$out/.time" "$@" >/dev/null 2>"$out/.stderr"
			r_rc=$?
			read -r r_ns r_kb r_x < "$out/.time" 2>/dev/null || { [ $r_rc -ne 0 ] || r_rc=1; }
		else
			now_us; r_t0=$r_us
			/usr/bin/time -f '%M' -o "$out/.time" "$@" >/dev/null 2>"$out/.stderr"
			r_rc=$?
			now_us; r_t1=$r_us
			r_ns=$(((r_t1 - r_t0) * 1000))
			r_kb=$(tail -n 1 "$out/.time")
		fi
		if [ $r_rc -ne 0 ]; then
			r_flag=FAIL
			r_note="exit $r_rc: $(grep -v '^Command exited' "$out/.stderr" | head -n 1 | tr '\t' ' ' | cut -c 1-120)"
			break
		fi
		[ -z "$r_best" ] || [ $r_ns -lt $r_best ] && r_best=$r_ns
		[ "$r_kb" -gt "$r_rss" ] 2>/dev/null && r_rss=$r_kb
		r_runs=$((r_runs + 1)); r_spent=$((r_spent + r_ns))
		# best of 5, or of what fits in a second; at least 3 for runs
		# under 8 s: one run of a multi-second command (trace-cmd on the
		# big traces) swung 2.9-5.0 s on this VM from one hour to the next
		[ $r_runs -ge 5 ] && break
		[ $r_spent -ge 1000000000 ] && { [ $r_runs -ge 3 ] || [ $((r_spent / r_runs)) -ge 8000000000 ]; } && break
	done
	if [ "$r_key" = perf ] && [ -z "$r_flag" ] && grep -q '__get_cpumask' "$out/.stderr"; then
		r_note="perf's libtraceevent: __get_cpumask not defined (ipi_send_cpumask masks not decoded)"
	fi
	r_secs=$(awk -v ns="${r_best:-0}" 'BEGIN { printf "%.4f", ns / 1e9 }')
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r_group" "$r_trace" "$r_events" \
		"$r_input" "$r_key" "$r_label" "$r_secs" "$r_rss" "$r_flag" "$r_note" >>"$tsv"
	if [ "$r_flag" = FAIL ]; then
		log "  $r_trace $r_input $r_label: FAILED ($r_note)"
	else
		log "  $r_trace $r_input $r_label: ${r_secs}s, $((r_rss / 1024)) MiB (${r_runs} run(s))"
	fi
}

# extrapolate TRACE EVENTS INPUT KEY LABEL: linear fit through the two
# largest measured synth sizes of KEY/INPUT (one point: proportional).
extrapolate() {
	awk -F '\t' -v n="$2" -v input="$3" -v key="$4" '
		$1 == "synth" && $4 == input && $5 == key && $9 == "" && $3 + 0 < n + 0 {
			e[++k] = $3 + 0; s[k] = $7 + 0 }
		END {
			# two largest sizes
			a = 0; b = 0
			for (i = 1; i <= k; i++) if (!b || e[i] > e[b]) b = i
			for (i = 1; i <= k; i++) if (i != b && (!a || e[i] > e[a])) a = i
			if (!b) exit 1
			if (a && e[a] < e[b]) t = s[b] + (s[b] - s[a]) * (n - e[b]) / (e[b] - e[a])
			else t = s[b] * n / e[b]
			if (t < s[b] * n / e[b] * 0.5) t = s[b] * n / e[b]
			printf "%.4f\n", t
		}' "$tsv" >"$out/.extra" || return 0
	printf 'synth\t%s\t%s\t%s\t%s\t%s\t%s\t\t~\textrapolated from smaller traces\n' \
		"$1" "$2" "$3" "$4" "$5" "$(cat "$out/.extra")" >>"$tsv"
	log "  $1 $3 $5: ~$(cat "$out/.extra")s (extrapolated)"
}

# The rows every trace gets.  rows_for GROUP TRACE EVENTS INPUT FILE TC(0/1)
rows_for() {
	g=$1 t=$2 n=$3 in=$4 f=$5 tc=$6
	if [ $have_tc = 1 ]; then
		if [ "$tc" = 1 ]; then
			row "$g" "$t" "$n" "$in" tc "trace-cmd report" trace-cmd report "$f"
			row "$g" "$t" "$n" "$in" tcF "trace-cmd report -F '$tc_filter'" trace-cmd report -F "$tc_filter" "$f"
		else
			extrapolate "$t" "$n" "$in" tc "trace-cmd report"
			extrapolate "$t" "$n" "$in" tcF "trace-cmd report -F '$tc_filter'"
		fi
	fi
	row "$g" "$t" "$n" "$in" dump "ipitrace dump" "$ipitrace" dump "$f"
	row "$g" "$t" "$n" "$in" convert "ipitrace convert (csv)" "$ipitrace" convert --format csv -o - "$f"
	row "$g" "$t" "$n" "$in" report "ipitrace report" "$ipitrace" report "$f"
	if [ $decode_proxy = 1 ]; then
		# same program as the report row: copy it rather than run it again
		tail -n 1 "$tsv" | awk -F '\t' -v OFS='\t' -v l="$decode_label" \
			'{ $5 = "decode"; $6 = l; $10 = ""; print }' >>"$tsv"
	else
		case $decode_cmd in
		*'{}'*) # shellcheck disable=SC2046 # split into words on purpose
			row "$g" "$t" "$n" "$in" decode "$decode_label" $(printf '%s' "$decode_cmd" | sed "s|{}|$f|g") ;;
		*)	row "$g" "$t" "$n" "$in" decode "$decode_label" $decode_cmd "$f" ;;
		esac
		# one decoding thread: what report and convert are held to (3x)
		[ $decode_threads = 0 ] ||
			row "$g" "$t" "$n" "$in" decode1 "${decode_label%% (*} --threads 1" $decode_cmd --threads 1 "$f"
	fi
}

# Threads rows: one and two threads.  threads_rows GROUP TRACE EVENTS INPUT FILE
threads_rows() {
	case $report_threads in
	flag)	row "$1" "$2" "$3" "$4" rep_t1 "ipitrace report --threads 1" "$ipitrace" report --threads 1 "$5"
		row "$1" "$2" "$3" "$4" rep_t2 "ipitrace report --threads 2" "$ipitrace" report --threads 2 "$5" ;;
	env)	row "$1" "$2" "$3" "$4" rep_t1 "IPITRACE_THREADS=1 ipitrace report" env IPITRACE_THREADS=1 "$ipitrace" report "$5"
		row "$1" "$2" "$3" "$4" rep_t2 "IPITRACE_THREADS=2 ipitrace report" env IPITRACE_THREADS=2 "$ipitrace" report "$5" ;;
	esac
	if [ $decode_threads = 1 ]; then
		row "$1" "$2" "$3" "$4" dec_t1 "${decode_label%% (*} --threads 1" $decode_cmd --threads 1 "$5"
		row "$1" "$2" "$3" "$4" dec_t2 "${decode_label%% (*} --threads 2" $decode_cmd --threads 2 "$5"
	fi
	# dump renders slices of time in threads; compressed traces take one
	if [ $dump_threads = 1 ] && [ "$4" = "v7 none" ]; then
		row "$1" "$2" "$3" "$4" dump_t1 "ipitrace dump --threads 1" "$ipitrace" dump --threads 1 "$5"
		row "$1" "$2" "$3" "$4" dump_t2 "ipitrace dump --threads 2" "$ipitrace" dump --threads 2 "$5"
	fi
}

# gen N COMPRESSION FILE: gen-synth, unless FILE is already that output.
gen() {
	g_stamp="$(cksum <"$gensynth") --events $1 --nr-cpus 8 --version 7 --compression $2 --seed 1"
	if [ -f "$3" ] && [ "$(cat "$3.stamp" 2>/dev/null)" = "$g_stamp" ]; then return 0; fi
	rm -f "$3" "$3.stamp" "$3.zst" "$3.zst.stamp"
	"$gensynth" --events "$1" --nr-cpus 8 --version 7 --compression "$2" --seed 1 -o "$3.tmp" &&
		mv "$3.tmp" "$3" && printf '%s\n' "$g_stamp" >"$3.stamp"
}

load_start=$(cut -d ' ' -f 1 /proc/loadavg)
log "BENCH_SCALE=$scale sizes: $sizes; budget ${budget}s; $(nproc) CPUs; load $(cut -d ' ' -f 1-3 /proc/loadavg)"

# ---------------------------------------------------------------- real traces
tracefs=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -d "$d/events" ] && { tracefs=$d; break; }
done
if [ -z "$tracefs" ] && [ "$(id -u)" -eq 0 ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null && [ -d /sys/kernel/tracing/events ] && tracefs=/sys/kernel/tracing
fi
real_sizes=
for n in $sizes; do [ "$n" -le "$real_max" ] && real_sizes="$real_sizes $n"; done
if [ "$(id -u)" -ne 0 ] || [ -z "$tracefs" ]; then
	note "real recording skipped: needs root and tracefs"
	real_sizes=
elif [ ! -x "$workload" ]; then
	note "real recording skipped: build/tools/ipi-workload is missing"
	real_sizes=
elif [ -z "$real_sizes" ]; then
	note "real recording skipped: BENCH_REAL_MAX=$real_max is below every size"
else
	note "real recordings stop at $(human "$real_max") events (BENCH_REAL_MAX): ipi-workload pingpong makes ~50k events/s, so 10M would take minutes"
fi
# the IPI events this kernel has, for trace-cmd record and perf record
ev_list=
for e in ipi/ipi_send_cpu ipi/ipi_send_cpumask csd/csd_queue_cpu csd/csd_function_entry \
	csd/csd_function_exit irq_vectors/reschedule_entry irq_vectors/reschedule_exit \
	irq_vectors/call_function_entry irq_vectors/call_function_exit \
	irq_vectors/call_function_single_entry irq_vectors/call_function_single_exit \
	irq_vectors/irq_work_entry irq_vectors/irq_work_exit; do
	[ -n "$tracefs" ] && [ -d "$tracefs/events/$e" ] && ev_list="$ev_list ${e%/*}:${e#*/}"
done
for n in $real_sizes; do
	h=$(human "$n"); f=$out/real-$h.dat; p=$out/perf-$h.data
	rounds=$((n / 6))	# pingpong: ~6 events per round trip
	rm -f "$f" "$f.none" "$p"
	log "recording real $h: ipi-workload pingpong $rounds"
	how=
	if "$ipitrace" --help 2>&1 | grep -Eq '^ +record( |$)' &&
		"$ipitrace" record --force -o "$f" -- "$workload" pingpong "$rounds" >/dev/null 2>"$out/record.log" && [ -s "$f" ]; then
		how="ipitrace record"
	elif [ $have_tc = 1 ] && [ -n "$ev_list" ]; then
		log "ipitrace record failed ($(tail -n 1 "$out/record.log")); trying trace-cmd record"
		set --; for e in $ev_list; do set -- "$@" -e "$e"; done
		if trace-cmd record -q --file-version 7 --compression zstd "$@" -o "$f" \
			"$workload" pingpong "$rounds" >/dev/null 2>>"$out/record.log" && [ -s "$f" ]; then
			how="trace-cmd record (ipitrace record failed: $(head -n 1 "$out/record.log" | cut -c 1-100))"
		fi
	fi
	if [ -z "$how" ]; then
		note "real $h skipped: recording failed ($(tail -n 1 "$out/record.log" | cut -c 1-120))"
		continue
	fi
	ev=$("$ipitrace" dump --no-header "$f" 2>/dev/null | wc -l)
	[ "$ev" -gt 0 ] || ev=$(trace-cmd report "$f" 2>/dev/null | grep -vc '^cpus=')
	note "real $h: $ev events from $how of ipi-workload pingpong $rounds"
	rows_for real "real $h" "$ev" "v7 zstd" "$f" 1
	if [ $have_tc = 1 ] && trace-cmd convert -i "$f" -o "$f.none" --compression none >/dev/null 2>&1; then
		rows_for real "real $h" "$ev" "v7 none" "$f.none" 1
	else
		note "real $h: no uncompressed copy (trace-cmd convert failed)"
	fi
	# perf on the same workload
	if command -v perf >/dev/null 2>&1 && [ -n "$ev_list" ]; then
		# perf may refuse some events (perf 6.1: irq_vectors:irq_work_exit):
		# keep those it can enable on its own
		perf_ev='' perf_bad=''
		set --; for e in $ev_list; do set -- "$@" -e "$e"; done
		if ! perf record -q "$@" -a -o "$out/.probe.data" -- true >/dev/null 2>&1; then
			for e in $ev_list; do
				if perf record -q -e "$e" -a -o "$out/.probe.data" -- true >/dev/null 2>&1; then
					perf_ev="$perf_ev $e"
				else
					perf_bad="$perf_bad $e"
				fi
			done
			[ -z "$perf_bad" ] || note "perf record cannot enable$perf_bad; recorded without"
			set --; for e in $perf_ev; do set -- "$@" -e "$e"; done
		fi
		rm -f "$out/.probe.data" "$out/.probe.data.old"
		if [ $# -gt 0 ] && perf record -q "$@" -a -o "$p" -- "$workload" pingpong "$rounds" >/dev/null 2>"$out/perf-record.log"; then
			pev=$(perf report -i "$p" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
			row real "real $h" "${pev:-0}" "perf.data" perf "perf script" perf script -i "$p"
		else
			note "perf record failed: $(tail -n 1 "$out/perf-record.log" | cut -c 1-120)"
		fi
	else
		note "perf not available: no perf script row"
	fi
done

# ---------------------------------------------------------------- recordings of kinds
# Real recordings of different kinds (the recipes are in the header), each
# made with `ipitrace record` into bench/out/rec-KIND.dat (v7 zstd) and
# rec-KIND.none.dat (trace-cmd convert --compression none).  They are kept
# between runs: rec-KIND.dat.stamp holds the recipe and a checksum of the
# recording code (rec_src; the binary itself when BENCH_IPITRACE names
# another), and a recording is made again when that changes.
rec_src="src/cmd_record.c lib/live/*.[ch] lib/output/tracedat_write.[ch] lib/core/compress.c"
# shellcheck disable=SC2086 # rec_src: globs on purpose
rec_sum=$(cd "$root" && cat $rec_src 2>/dev/null | cksum)
[ -z "${BENCH_IPITRACE:-}" ] || rec_sum="$rec_sum binary $(cksum <"$ipitrace")"
kinds=${BENCH_KINDS-messaging compile tlb quiet}
rec_tsv=$out/recordings.tsv
: >"$rec_tsv"
src=$out/src

# kind_recipe KIND: the recording's recipe, in k_label (the trace column),
# k_opts (record options), k_cmd (the command recorded, run by sh -c; none:
# -d alone ends it), k_pre (run before, not recorded), k_secs (about how long
# it records) and k_sum (a checksum of what it runs from this tree).
kind_recipe() {
	k_pre='' k_cmd='' k_opts='' k_sum=''
	case $1 in
	messaging)
		k_label=messaging k_opts='-e sched'
		if [ "$scale" = small ]; then k_cmd='perf bench sched messaging -g 2 -l 500' k_secs=2
		else k_cmd='perf bench sched messaging -g 2 -l 3000' k_secs=6; fi ;;
	compile)
		k_label=compile k_opts='-e sched'
		if [ "$scale" = small ]; then k_cmd="make -s -C $src -j2 build/libipitrace.a" k_secs=15
		else k_cmd="make -s -C $src -j2 build/ipitrace" k_secs=30; fi
		k_pre="make -s -C $src clean"
		k_sum="src $(git -C "$src" rev-parse HEAD 2>/dev/null)" ;;
	tlb)
		k_label='tlb storm'
		if [ "$scale" = small ]; then k_n=5000 k_secs=3; else k_n=30000 k_secs=15; fi
		k_cmd="$workload --cpus 0,1 tlb $k_n && $workload --cpus 0,1 membarrier $k_n"
		k_sum="ipi-workload $(cksum <"$workload")" ;;
	quiet)
		k_label='quiet+stack'
		if [ "$scale" = small ]; then k_secs=5; else k_secs=20; fi
		k_opts="--stacks -d $k_secs" ;;
	*)	return 1 ;;
	esac
	k_what="ipitrace record${k_opts:+ $k_opts}${k_cmd:+ -- $k_cmd}"
	return 0
}

# the budget: the kinds leave the synthetic traces at least half of it
kinds_end=$((budget / 2))
if [ "$(id -u)" -ne 0 ] || [ -z "$tracefs" ]; then
	[ -z "$kinds" ] || note "recordings of kinds ($kinds) skipped: need root and tracefs"
	kinds=
fi
for kind in $kinds; do
	kind_recipe "$kind" || { note "BENCH_KINDS: unknown kind '$kind' (messaging compile tlb quiet)"; continue; }
	f=$out/rec-$kind.dat fn=$out/rec-$kind.none.dat
	case $kind in
	compile)
		if [ ! -f "$src/Makefile" ]; then
			rm -rf "$src"
			git clone -q "$root" "$src" 2>"$out/rec-$kind.log" ||
				{ note "compile skipped: git clone of the tree into bench/out/src failed ($(tail -n 1 "$out/rec-$kind.log"))"; continue; }
			kind_recipe "$kind"
		fi ;;
	tlb)	[ -x "$workload" ] || { note "tlb storm skipped: build/tools/ipi-workload is missing"; continue; } ;;
	messaging)
		perf bench sched messaging -g 1 -l 1 >/dev/null 2>&1 || { note "messaging skipped: no 'perf bench sched messaging' (Debian linux-perf)"; continue; } ;;
	esac
	k_stamp="$k_what${k_pre:+ (after: $k_pre)}; $k_sum; recording code $rec_sum"
	made="kept from an earlier run"
	if [ ! -f "$f" ] || [ ! -f "$fn" ] || [ "$(cat "$f.stamp" 2>/dev/null)" != "$k_stamp" ]; then
		if [ $(( $(elapsed) + k_secs )) -gt $kinds_end ]; then
			note "$k_label skipped: recording it (~${k_secs}s) would pass ${kinds_end}s, half the ${budget}s budget ($(elapsed)s used)"
			continue
		fi
		rm -f "$f" "$fn" "$f.stamp" "$f.load"
		[ -z "$k_pre" ] || $k_pre >/dev/null 2>&1
		log "recording $k_label: $k_what"
		now_us; k_t0=$r_us
		# shellcheck disable=SC2086 # k_opts: words on purpose
		if [ -n "$k_cmd" ]; then
			"$ipitrace" record --force $k_opts -o "$f" -- sh -c "$k_cmd" >/dev/null 2>"$out/rec-$kind.log"
		else
			"$ipitrace" record --force $k_opts -o "$f" >/dev/null 2>"$out/rec-$kind.log"
		fi
		k_rc=$?
		now_us; k_took=$(( (r_us - k_t0) / 100000 )); k_took=$((k_took / 10)).$((k_took % 10))
		if [ $k_rc -ne 0 ] || [ ! -s "$f" ]; then
			note "$k_label skipped: ipitrace record failed (exit $k_rc: $(grep -v '^ipitrace:   cpu' "$out/rec-$kind.log" | tail -n 1 | cut -c 1-120))"
			rm -f "$f"; continue
		fi
		if [ $have_tc = 0 ] || ! trace-cmd convert -i "$f" -o "$fn.tmp" --compression none >/dev/null 2>&1; then
			note "$k_label: no uncompressed copy (trace-cmd convert failed)"
			rm -f "$fn.tmp"; continue
		fi
		cut -d ' ' -f 1 /proc/loadavg >"$f.load"
		mv "$fn.tmp" "$fn" && printf '%s\n' "$k_stamp" >"$f.stamp"
		made="recorded in ${k_took}s"
	fi
	# events: count's per-CPU lines; IPIs, sends, lost and kinds: report's head
	ev=$("$ipitrace" count "$f" 2>/dev/null | awk '/^cpu [0-9]+: [0-9]+ events/ { n += $3 } END { print n + 0 }')
	"$ipitrace" report "$f" 2>/dev/null | awk '
		/^  events [0-9]+, IPI send events/ { gsub(/,/, ""); s = $6; i = $NF }
		/^  lost events:/ { l = $3 }
		/^  kinds:/ { sub(/^  kinds: /, ""); k = $0 }
		/^  duration / { d = sprintf("%.1f", $2) }
		END { printf "%s\t%s\t%s\t%s\t%s\n", s + 0, i + 0, l == "" ? "?" : l, k, d }' >"$out/.kinfo"
	IFS='	' read -r k_sends k_ipis k_lost k_kinds k_dur <"$out/.kinfo"
	k_what=$(printf '%s' "$k_what" | sed "s|$root/||g")
	note "$k_label: $ev events, $k_ipis IPIs ($k_sends sends; ${k_kinds:-no IPIs}), $k_lost lost, ${k_dur}s; $made; $k_what"
	if [ "$kind" = tlb ]; then
		tlbn=$(printf '%s\n' "$k_kinds" | awk '{ for (i = 1; i < NF; i++) if ($i == "tlb") print $(i + 1) }')
		if [ "${tlbn:-0}" -eq 0 ]; then
			note "tlb storm: no TLB IPIs: the hypervisor flushes remote TLBs itself here; the IPIs are the membarrier ones and the wakeups"
		else
			note "tlb storm: $tlbn TLB IPIs: this VM's kernel sends the remote TLB flushes as IPIs (the hypervisor does not take them)"
		fi
	fi
	if [ "$kind" = quiet ]; then
		note "quiet+stack: nothing run but the machine's own background (load average $(cat "$f.load" 2>/dev/null || echo '?') at the recording's end: other work on this host is in it)"
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$k_label" "$ev" "$k_sends" "$k_ipis" "$k_lost" "$k_dur" "$made" "$k_what" >>"$rec_tsv"
	# measuring: about 10 us an event (trace-cmd report twice, ~2-3 us an
	# event each, the rest ipitrace) plus the runs' start-ups
	need=$((ev / 100000 + 8))
	if [ $(( $(elapsed) + need )) -gt $kinds_end ]; then
		note "$k_label: not measured: ~${need}s would pass ${kinds_end}s, half the ${budget}s budget ($(elapsed)s used)"
		continue
	fi
	for kin in "v7 zstd" "v7 none"; do
		[ "$kin" = "v7 zstd" ] && kf=$f || kf=$fn
		[ $have_tc = 0 ] || row kinds "$k_label" "$ev" "$kin" tc "trace-cmd report" trace-cmd report "$kf"
		row kinds "$k_label" "$ev" "$kin" report "ipitrace report" "$ipitrace" report "$kf"
		row kinds "$k_label" "$ev" "$kin" convert "ipitrace convert (csv)" "$ipitrace" convert --format csv -o - "$kf"
		# shellcheck disable=SC2086 # decode_cmd: words on purpose
		[ $decode_threads = 0 ] ||
			row kinds "$k_label" "$ev" "$kin" decode1 "${decode_label%% (*} --threads 1" $decode_cmd --threads 1 "$kf"
	done
done
rm -f "$out/.kinfo"
[ -n "$kinds" ] && [ $decode_threads = 0 ] && note "recordings of kinds: no 'count --threads 1' rows (the decode command has no --threads)"

# ---------------------------------------------------------------- recorded traces
# The shared recordings (BENCH_RECORDED, default ../shared/traces/recorded):
# busy-stacks.dat is the start-up case (12.8k events, full kallsyms).
recorded=${BENCH_RECORDED:-$root/../shared/traces/recorded}
for f in "$recorded"/busy-stacks.dat; do
	if [ ! -f "$f" ]; then
		note "start-up: $f not found (BENCH_RECORDED): no start-up row"
		continue
	fi
	# events: count's per-CPU lines (dump prints a stack on several lines)
	ev=$("$ipitrace" count "$f" 2>/dev/null | awk '/^cpu [0-9]+: [0-9]+ events/ { n += $3 } END { print n + 0 }')
	if head -c 64 "$f" | grep -aq zstd; then in="v7 zstd"; else in="v7 none"; fi
	t=$(basename "$f" .dat)
	rows_for recorded "$t" "$ev" "$in" "$f" 1
	# start-up: wall time best of 20 (build/tools/bench-time);
	# with the kallsyms index kept (as a user's second run), without one
	# (IPITRACE_CACHE_DIR empty), and a first run writing it
	for how in kept none first; do
		best=''
		for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
			case $how in
			kept) cdir=$IPITRACE_CACHE_DIR ;;
			none) cdir= ;;
			first) cdir=$out/symcache-first; rm -rf "$cdir" ;;
			esac
			if [ -x "$benchtime" ]; then
				IPITRACE_CACHE_DIR=$cdir "$benchtime" "$out/.time" "$ipitrace" report "$f" >/dev/null 2>&1 || break
				read -r d _ _ < "$out/.time"
				d=$((d / 1000))
			else
				now_us; t0=$r_us
				IPITRACE_CACHE_DIR=$cdir "$ipitrace" report "$f" >/dev/null 2>&1 || break
				now_us; d=$((r_us - t0))
			fi
			[ -z "$best" ] || [ $d -lt $best ] && best=$d
		done
		case $how in
		kept) k=startup l="ipitrace report (start-up)" ;;
		none) k=startup_none l="ipitrace report (start-up, no kallsyms index)" ;;
		first) k=startup_first l="ipitrace report (start-up, writing the index)" ;;
		esac
		[ -z "$best" ] || printf 'recorded\t%s\t%s\t%s\t%s\t%s\t%s\t0\t\tbest of 20\n' "$t" "$ev" "$in" \
			"$k" "$l" "$(awk -v us="$best" 'BEGIN { printf "%.4f", us / 1e6 }')" >>"$tsv"
	done
	rm -rf "$out/symcache-first"
done

# ---------------------------------------------------------------- the floor
# what any command of this binary costs before it reads a byte: exec, the
# dynamic loader, exit (ipitrace --version, best of 20); the goals on small
# recordings are judged against it (a ratio needing less is not reachable)
best='' kb=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	if [ -x "$benchtime" ]; then
		"$benchtime" "$out/.time" "$ipitrace" --version >/dev/null 2>&1 || break
		read -r d kb _ < "$out/.time"
		d=$((d / 1000))
	else
		now_us; t0=$r_us
		"$ipitrace" --version >/dev/null 2>&1 || break
		now_us; d=$((r_us - t0))
	fi
	[ -z "$best" ] || [ $d -lt $best ] && best=$d
done
[ -z "$best" ] || printf 'floor\texec\t0\t-\texec_floor\t%s\t%s\t%s\t\tbest of 20\n' \
	"ipitrace --version (exec, loader, exit)" "$(awk -v us="$best" 'BEGIN { printf "%.4f", us / 1e6 }')" "$kb" >>"$tsv"

# ---------------------------------------------------------------- synth traces
prev_n='' prev_cost='' prev_tc='' prev_thr=''
last=''; for n in $sizes; do last=$n; done
for n in $sizes; do
	# Budget: predict this size from the previous one, scale down if needed.
	if [ -n "$prev_n" ]; then
		tc_here=0; [ "$n" -le "$tc_max" ] && tc_here=1
		left=$((budget - $(elapsed) - 20))
		# the last size also gets the threads rows after the loop
		thr=0; [ "$n" = "$last" ] && thr=$prev_thr
		res=$(awk -v n="$n" -v p="$prev_n" -v c="$prev_cost" -v tc="$prev_tc" -v h="$tc_here" -v thr="$thr" -v left="$left" 'BEGIN {
			per = (c - (h ? 0 : tc) + thr) / p * 1.15	# seconds per event, with margin
			need = int(n * per)
			if (per <= 0 || n * per <= left) { print n, need; exit }
			m = int(left / per / p) * p		# a multiple of the previous size
			print (m > p ? m : 0), need }')
		fit=${res% *} need=${res#* }
		if [ "$fit" != "$n" ]; then
			log "synth $(human "$n") would take ~${need}s; ${left}s are left"
			if [ "$fit" -eq 0 ]; then
				note "synth $(human "$n") and larger skipped: they would not fit the ${budget}s budget ($(elapsed)s used)"
				break
			fi
			note "synth $(human "$n") scaled down to $(human "$fit") events to fit the ${budget}s budget ($(human "$n") would need ~${need}s more, ${left}s were left)"
			n=$fit
		fi
	fi
	h=$(human "$n")
	# disk: about 26 bytes/event uncompressed, plus the zstd copies
	need_kb=$((n / 1024 * 26 * 16 / 10))
	free_kb=$(df -Pk "$out" | awk 'NR == 2 { print $4 }')
	if [ "$free_kb" -lt "$need_kb" ]; then
		note "synth $h skipped: needs ~$((need_kb / 1024)) MiB free in bench/out, has $((free_kb / 1024))"
		continue
	fi
	size_t0=$(date +%s)
	fn=$out/synth-$h.dat; fz=$out/synth-$h.zstd.dat
	log "generating synth $h (v7 none and v7 zstd)"
	gen "$n" none "$fn" & p1=$!
	gen "$n" zstd "$fz" & p2=$!
	wait $p1 || { note "gen-synth failed for $h"; continue; }
	wait $p2 || { note "gen-synth failed for $h (zstd)"; continue; }
	if [ "$(cat "$fn.zst.stamp" 2>/dev/null)" != "$(cat "$fn.stamp")" ]; then
		zstd -q -f -T0 "$fn" -o "$fn.zst" && cp "$fn.stamp" "$fn.zst.stamp"
	fi
	tc=0; [ "$n" -le "$tc_max" ] && tc=1
	rows_for synth "synth $h" "$n" "v7 none" "$fn" $tc
	cat "$fn" >/dev/null	# page cache
	row synth "synth $h" "$n" "v7 none" floor_read "floor: read (dd bs=1M)" dd if="$fn" of=/dev/null bs=1M
	rows_for synth "synth $h" "$n" "v7 zstd" "$fz" $tc
	row synth "synth $h" "$n" "v7 zstd" floor_zstd "floor: zstd -dc (same bytes)" zstd -dc -q "$fn.zst"
	prev_tc=$(awk -F '\t' -v t="synth $h" '$2 == t && ($5 == "tc" || $5 == "tcF") && $9 == "" { s += $7 } END { print s + 0 }' "$tsv")
	prev_cost=$(( $(date +%s) - size_t0 ))
	# what the threads rows cost: two runs each of report and/or decode
	prev_thr=$(awk -F '\t' -v t="synth $h" -v r="${report_threads:+1}" -v d="$decode_threads" -v u="$dump_threads" '
		$2 == t && $9 == "" && (($5 == "report" && r) || ($5 == "decode" && d == 1)) { s += 2 * $7 }
		$2 == t && $9 == "" && $5 == "dump" && $4 == "v7 none" && u == 1 { s += 3 * $7 }
		END { print int(s + 0.5) }' "$tsv")
	prev_n=$n
done
# one vs two threads, on the largest synth trace
if [ -n "$prev_n" ]; then
	h=$(human "$prev_n")
	threads_rows synth "synth $h" "$prev_n" "v7 none" "$out/synth-$h.dat"
	threads_rows synth "synth $h" "$prev_n" "v7 zstd" "$out/synth-$h.zstd.dat"
fi
[ -n "$report_threads" ] || note "report threads: n/a (single-threaded): no --threads in 'ipitrace report --help', no IPITRACE_THREADS"

# ---------------------------------------------------------------- many CPUs
# Wide masks: gen-synth's masks reach every CPU, so one send event is up to
# N IPIs, and the per-target work shows (report, convert) as does the
# output's size (explode: its memory must stay bounded).
for spec in "256 2000000" "1024 500000"; do
	set -- $spec
	c=$1 n=$2
	[ "$scale" = small ] && n=$((n / 10))
	f=$out/cpus$c.dat
	c_stamp="$(cksum <"$gensynth") --events $n --nr-cpus $c --seed 5"
	if [ "$(cat "$f.stamp" 2>/dev/null)" != "$c_stamp" ]; then
		log "generating synth $(human "$n") on $c CPUs"
		"$gensynth" --events "$n" --nr-cpus "$c" --seed 5 -o "$f.tmp" && mv "$f.tmp" "$f" &&
			printf '%s\n' "$c_stamp" >"$f.stamp" || { note "gen-synth failed for $c CPUs"; continue; }
	fi
	t="$(human "$n") ${c}cpu"
	row cpus "$t" "$n" "v7 none" tc "trace-cmd report" trace-cmd report "$f"
	row cpus "$t" "$n" "v7 none" report "ipitrace report" "$ipitrace" report "$f"
	row cpus "$t" "$n" "v7 none" convert "ipitrace convert (csv)" "$ipitrace" convert --format csv -o - "$f"
	row cpus "$t" "$n" "v7 none" explode "ipitrace explode" "$ipitrace" explode --force "$f" -o "$out/cpus$c.exploded.dat"
	rm -f "$out/cpus$c.exploded.dat"
done

# ---------------------------------------------------------------- output
load_end=$(cut -d ' ' -f 1 /proc/loadavg)
awk -v a="$load_start" -v b="$load_end" -v c="$(nproc)" 'BEGIN { exit !(a > c / 2 || b > c / 2) }' &&
	note "busy machine: load average $load_start at the start, $load_end at the end, on $(nproc) CPUs: other work shares the CPUs, so times are noisy (rerun on an idle machine for firm numbers)"
rm -f "$out/.time" "$out/.stderr" "$out/.extra"
total=$(elapsed)
info="BENCH_SCALE=$scale, $(nproc) CPUs, $(uname -sr), load avg $(cut -d ' ' -f 1-3 /proc/loadavg), total ${total}s"

awk -F '\t' -v info="$info" -v notes="$notes" -v json="$out/results.json" -v rec="$rec_tsv" \
	-v scale="$scale" -v total="$total" -v tcmax="$tc_max" '
function evs(v) {
	if (v >= 1e9) return sprintf("%.2fG", v / 1e9)
	if (v >= 1e6) return sprintf("%.2fM", v / 1e6)
	if (v >= 1e3) return sprintf("%.1fk", v / 1e3)
	return sprintf("%.0f", v)
}
function jstr(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); gsub(/\t/, " ", s); return "\"" s "\"" }
function get(t, in_, k) { return ((t SUBSEP in_ SUBSEP k) in secs) ? secs[t, in_, k] : "" }
function ratio_evs(t, in_, k, base,   a, b) {	# events/s of k over events/s of base
	a = get(t, in_, k); b = get(t, in_, base)
	if (a == "" || b == "" || a <= 0) return ""
	return b / a
}
function verdict(name, ok, text) {
	v = ok == "" ? "n/a" : (ok ? "met" : "NOT MET")
	printf "  %-68s %-8s %s\n", name, v, text
	tj = tj (tj == "" ? "" : ",\n") sprintf("    {\"target\": %s, \"verdict\": %s, \"measured\": %s}", jstr(name), jstr(v), jstr(text))
}
{
	nr++; G[nr] = $1; T[nr] = $2; E[nr] = $3; I[nr] = $4; K[nr] = $5; L[nr] = $6
	S[nr] = $7; R[nr] = $8; F[nr] = $9; N[nr] = $10
	if ($9 != "FAIL") { secs[$2, $4, $5] = $7 + 0; rss[$2, $4, $5] = $8 + 0; xt[$2, $4, $5] = ($9 == "~") }
	if ($4 != "perf.data") ev[$2] = $3 + 0
	if ($1 == "synth" && !($2 in seen)) { seen[$2] = 1; ns++; sz[ns] = $2 }
	if ($5 == "tc" && $9 == "") tcm[$2] = 1
}
END {
	if (nr == 0) { print "bench: no results"; exit 1 }
	# baseline for "x tc": trace-cmd report on the same trace and input;
	# perf.data rows compare with the uncompressed real trace
	hdr = sprintf("%-11s %11s %-9s %-45s %10s %10s %9s %10s", "trace", "events", "input", "command", "wall s", "events/s", "x tc", "peak RSS")
	print "ipitrace benchmark: " info
	print ""
	print hdr
	gsub(/./, "-", hdr); print hdr
	rows = ""
	for (pass = 1; pass <= 2; pass++)
	for (i = 1; i <= nr; i++) {
		if ((pass == 1) != (G[i] == "synth")) continue
		bi = I[i] == "perf.data" ? "v7 none" : I[i]
		tilde = F[i] == "~" ? "~" : ""
		if (F[i] == "FAIL") {
			printf "%-11s %11d %-9s %-45s %10s %10s %9s %10s\n", T[i], E[i], I[i], L[i], "FAILED", "-", "-", "-"
			wall = "null"; eps = "null"; rt = "null"; rk = "null"
		} else {
			e = E[i] + 0; s = S[i] + 0
			eps_v = s > 0 ? e / s : 0
			b = get(T[i], bi, "tc")
			bt = (b != "" && xt[T[i], bi, "tc"]) ? "~" : ""
			rt_v = (b != "" && s > 0 && e > 0) ? (eps_v / (ev[T[i]] / b)) : ""
			if (I[i] == "perf.data" && b != "") rt_v = eps_v / (ev[T[i]] / b)
			rt_s = rt_v == "" ? "-" : sprintf("%s%.2f", (tilde bt != "" ? "~" : ""), rt_v)
			rss_s = tilde != "" ? "-" : sprintf("%.1f MiB", R[i] / 1024)
			printf "%-11s %11d %-9s %-45s %10s %10s %9s %10s\n", T[i], e, I[i], L[i], tilde sprintf("%.3f", s), tilde evs(eps_v), rt_s, rss_s
			wall = sprintf("%.4f", s); eps = sprintf("%.0f", eps_v)
			rt = rt_v == "" ? "null" : sprintf("%.3f", rt_v)
			rk = tilde != "" ? "null" : R[i] + 0
		}
		rows = rows (rows == "" ? "" : ",\n") sprintf("    {\"group\": %s, \"trace\": %s, \"events\": %d, \"input\": %s, \"key\": %s, \"command\": %s, \"wall_s\": %s, \"events_per_s\": %s, \"ratio_to_trace_cmd_report\": %s, \"peak_rss_kib\": %s, \"extrapolated\": %s, \"failed\": %s, \"note\": %s}",
			jstr(G[i]), jstr(T[i]), E[i], jstr(I[i]), jstr(K[i]), jstr(L[i]), wall, eps, rt, rk,
			F[i] == "~" ? "true" : "false", F[i] == "FAIL" ? "true" : "false", jstr(N[i]))
	}
	# notes: the script notes, then the per-row notes (deduplicated)
	print ""
	k = 0
	while ((getline line < notes) > 0) { nn[++k] = line }
	for (i = 1; i <= nr; i++) if (N[i] != "" && F[i] != "~" && !((N[i]) in dup)) { dup[N[i]] = 1; nn[++k] = L[i] ": " N[i] }
	nn[++k] = "~ = extrapolated from the measured smaller traces (trace-cmd above " evs(tcmax) " events)"
	nn[++k] = "peak RSS counts the file pages ipitrace maps (its metadata; CPU data is read with pread)"
	print "Notes:"
	for (i = 1; i <= k; i++) { print "  - " nn[i]; nj = nj (nj == "" ? "" : ",\n") "    " jstr(nn[i]) }

	# ---- targets
	small = sz[1]; big = sz[ns]
	ref = ""; for (i = 1; i <= ns; i++) if (sz[i] in tcm) ref = sz[i]
	print ""
	print "Targets (ratios on " (ref == "" ? "-" : ref) ", the largest trace trace-cmd really ran on; sizes " small " -> " big "):"
	x = ratio_evs(ref, "v7 none", "report", "tc")
	verdict("report >= 100x trace-cmd report events/s (v7 none)", x == "" ? "" : x >= 100, x == "" ? "no data" : sprintf("x%.1f", x))
	x = ratio_evs(ref, "v7 zstd", "report", "tc")
	verdict("report >= 30x trace-cmd report events/s (v7 zstd)", x == "" ? "" : x >= 30, x == "" ? "no data" : sprintf("x%.1f", x))
	wc = ""; for (i = 1; i <= nr; i++) if (G[i] == "cpus" && T[i] ~ / 256cpu$/) wc = T[i]
	x = ratio_evs(wc, "v7 none", "report", "tc")
	verdict("report >= 20x trace-cmd report at 256 CPUs, wide masks (" (wc == "" ? "-" : wc) ")",
		x == "" ? "" : x >= 20, x == "" ? "no data" : sprintf("x%.1f, peak %.0f MiB", x, rss[wc, "v7 none", "report"] / 1024))
	a = get(big, "v7 none", "decode"); b = get(big, "v7 none", "floor_read")
	x = (a != "" && b != "" && b > 0) ? a / b : ""
	verdict("decode-only within 3x the memory-speed floor (v7 none, " big ")", x == "" ? "" : x <= 3,
		x == "" ? "no data" : sprintf("%.2fx the floor (%.3fs vs %.3fs)", x, a, b))
	a = get(big, "v7 zstd", "decode"); b = get(big, "v7 zstd", "floor_zstd")
	if (a != "" && b != "" && b > 0) printf "  %-68s %-8s %s\n", "  (info: decode-only vs the zstd floor, v7 zstd, " big ")", "", sprintf("%.2fx (%.3fs vs %.3fs)", a / b, a, b)
	x = ratio_evs(ref, "v7 none", "convert", "tc")
	verdict("convert csv >= 100x trace-cmd report events/s (v7 none)", x == "" ? "" : x >= 100, x == "" ? "no data" : sprintf("x%.1f", x))
	x = ratio_evs(ref, "v7 zstd", "convert", "tc")
	verdict("convert csv >= 30x trace-cmd report events/s (v7 zstd)", x == "" ? "" : x >= 30, x == "" ? "no data" : sprintf("x%.1f", x))
	# within 3x of decoding alone with one thread, on the same file
	for (j = 1; j <= 2; j++) {
		k = j == 1 ? "report" : "convert"
		for (f = 1; f <= 2; f++) {
			in_ = f == 1 ? "v7 none" : "v7 zstd"
			a = get(ref, in_, k); b = get(ref, in_, "decode1")
			x = (a != "" && b != "" && b > 0) ? a / b : ""
			verdict(k " within 3x of count --threads 1 (" in_ ", " ref ")", x == "" ? "" : x <= 3,
				x == "" ? "no data" : sprintf("%.2fx (%.3fs vs %.3fs)", x, a, b))
		}
	}
	for (f = 1; f <= 2; f++) {
		in_ = f == 1 ? "v7 none" : "v7 zstd"
		x = ratio_evs(ref, in_, "dump", "tc")
		verdict("dump >= 20x trace-cmd report events/s (" in_ ")", x == "" ? "" : x >= 20, x == "" ? "no data" : sprintf("x%.1f", x))
	}
	# real recordings: the largest one trace-cmd ran on
	rr = ""; for (i = 1; i <= nr; i++) if (G[i] == "real" && K[i] == "tc" && F[i] == "" && (rr == "" || E[i] + 0 > ev[rr])) rr = T[i]
	for (j = 1; j <= 2; j++) {
		k = j == 1 ? "report" : "convert"
		x = rr == "" ? "" : ratio_evs(rr, "v7 none", k, "tc")
		verdict(k " >= 50x trace-cmd report on a real recording (v7 none" (rr == "" ? "" : ", " rr) ")", x == "" ? "" : x >= 50, x == "" ? "no data (no real recording)" : sprintf("x%.1f", x))
		x = rr == "" ? "" : ratio_evs(rr, "v7 zstd", k, "tc")
		verdict(k " >= 25x trace-cmd report on a real recording (v7 zstd" (rr == "" ? "" : ", " rr) ")", x == "" ? "" : x >= 25, x == "" ? "no data (no real recording)" : sprintf("x%.1f", x))
	}
	# recordings of kinds: each one against trace-cmd and count --threads 1
	nkt = 0
	for (i = 1; i <= nr; i++) if (G[i] == "kinds" && !(T[i] in kseen)) { kseen[T[i]] = 1; kt[++nkt] = T[i] }
	for (j = 1; j <= nkt; j++) {
		t = kt[j]
		for (m = 1; m <= 2; m++) {
			k = m == 1 ? "report" : "convert"
			for (f = 1; f <= 2; f++) {
				in_ = f == 1 ? "v7 none" : "v7 zstd"
				g = k == "report" ? (f == 1 ? 50 : 25) : (f == 1 ? 25 : 15)
				x = ratio_evs(t, in_, k, "tc")
				verdict(t ": " k " >= " g "x trace-cmd report (" in_ ")", x == "" ? "" : x >= g, x == "" ? "no data" : sprintf("x%.1f", x))
			}
		}
		a = get(t, "v7 none", "report"); b = get(t, "v7 none", "decode1")
		x = (a != "" && b != "" && b > 0) ? a / b : ""
		verdict(t ": report within 3x of count --threads 1 (v7 none)", x == "" ? "" : x <= 3,
			x == "" ? "no data" : sprintf("%.2fx (%.3fs vs %.3fs)", x, a, b))
		# the bound on a small recording: the time the 50x and 35x
		# ratios leave, against count alone and the process floor
		c = get(t, "v7 none", "tc"); d = get("exec", "-", "exec_floor")
		if (c != "" && b != "" && d != "")
			printf "  %-68s %-8s %s\n", "  (info: " t ", report time the ratios allow, v7 none)", "",
				sprintf("50x: %.1f ms, 35x: %.1f ms; count --threads 1 %.1f ms, ipitrace --version %.1f ms",
					c / 50 * 1000, c / 35 * 1000, b * 1000, d * 1000)
		a = get(t, "v7 zstd", "report"); b = get(t, "v7 zstd", "decode1")
		if (a != "" && b != "" && b > 0) printf "  %-68s %-8s %s\n", "  (info: " t ", report against count --threads 1, v7 zstd)", "", sprintf("%.2fx (%.3fs vs %.3fs)", a / b, a, b)
	}
	# start-up: a short recording with the full kallsyms
	a = b = c = ""
	for (i = 1; i <= nr; i++) if (G[i] == "recorded" && T[i] == "busy-stacks" && F[i] == "") {
		if (K[i] == "startup") a = S[i] + 0
		if (K[i] == "startup_none") b = S[i] + 0
		if (K[i] == "startup_first") c = S[i] + 0
	}
	verdict("start-up: report on busy-stacks.dat (12.8k events) < 15 ms wall", a == "" ? "" : a < 0.015,
		a == "" ? "no data" : sprintf("%.1f ms (kallsyms index kept; none: %s ms, writing it: %s ms)", a * 1000,
					      b == "" ? "-" : sprintf("%.1f", b * 1000), c == "" ? "-" : sprintf("%.1f", c * 1000)))
	for (f = 1; f <= 2; f++) {
		in_ = f == 1 ? "v7 none" : "v7 zstd"
		a = get(big, in_, "rep_t1"); b = get(big, in_, "rep_t2")
		dt = ""
		c = get(big, in_, "dec_t1"); d = get(big, in_, "dec_t2")
		if (c != "" && d != "" && d > 0) dt = sprintf(" (decode-only: 2 threads x%.2f of 1)", c / d)
		if (a != "" && b != "" && b > 0)
			verdict("report: 2 threads >= 1.7x 1 thread (" in_ ", " big ")", a / b >= 1.7, sprintf("x%.2f", a / b) dt)
		else
			verdict("report: 2 threads >= 1.7x 1 thread (" in_ ", " big ")", "", "n/a (single-threaded)" dt)
	}
	a = get(big, "v7 none", "dump_t1"); b = get(big, "v7 none", "dump_t2")
	if (a != "" && b != "" && b > 0)
		printf "  %-68s %-8s %s\n", "  (info: dump, 2 threads against 1, v7 none, " big ")", "", sprintf("x%.2f (%.3fs vs %.3fs)", a / b, b, a)
	nk = split("report dump convert decode", keys, " ")
	for (j = 1; j <= nk; j++) {
		txt = ""; ok = ""
		for (f = 1; f <= 2; f++) {
			in_ = f == 1 ? "v7 none" : "v7 zstd"
			if ((big SUBSEP in_ SUBSEP keys[j]) in rss && (small SUBSEP in_ SUBSEP keys[j]) in rss && rss[small, in_, keys[j]] > 0) {
				q = rss[big, in_, keys[j]] / rss[small, in_, keys[j]]
				txt = txt sprintf("%s%s: %.1f -> %.1f MiB (x%.2f)", txt == "" ? "" : "; ", substr(in_, 4), rss[small, in_, keys[j]] / 1024, rss[big, in_, keys[j]] / 1024, q)
				ok = (ok == "" ? 1 : ok) && q <= 1.5 && rss[big, in_, keys[j]] < 64 * 1024
			}
		}
		if (ns < 2) { ok = ""; txt = "n/a (one size only)" }
		verdict("peak RSS at " big " within 1.5x of " small ", under 64 MiB: " keys[j], ok, txt == "" ? "no data" : txt)
	}
	for (j = 1; j <= nk; j++) {
		txt = ""; ok = ""
		for (f = 1; f <= 2; f++) {
			in_ = f == 1 ? "v7 none" : "v7 zstd"
			for (i = 2; i <= ns; i++) {
				a = get(sz[i - 1], in_, keys[j]); b = get(sz[i], in_, keys[j])
				if (a == "" || b == "" || a <= 0) continue
				g = (b / a) / (ev[sz[i]] / ev[sz[i - 1]])	# 1 = linear, > 1 super-linear
				txt = txt sprintf("%s%s %s->%s x%.1f", txt == "" ? "" : ", ", substr(in_, 4), substr(sz[i - 1], 7), substr(sz[i], 7), b / a)
				ok = (ok == "" ? 1 : ok) && g <= 1.25
			}
		}
		verdict("time grows linearly with events (<= 1.25x linear): " keys[j], ok, txt == "" ? "n/a (one size only)" : txt)
	}

	# the recordings of kinds: what each is (bench/out/recordings.tsv)
	while ((getline line < rec) > 0) {
		split(line, r, "\t")
		rj = rj (rj == "" ? "" : ",\n") sprintf("    {\"kind\": %s, \"trace\": %s, \"events\": %d, \"ipi_sends\": %d, \"ipis\": %d, \"lost\": %s, \"duration_s\": %s, \"made\": %s, \"recipe\": %s}",
			jstr(r[1]), jstr(r[2]), r[3], r[4], r[5], r[6] ~ /^[0-9]+$/ ? r[6] : "null", r[7] ~ /^[0-9.]+$/ ? r[7] : "null", jstr(r[8]), jstr(r[9]))
	}
	printf "{\n  \"scale\": %s,\n  \"info\": %s,\n  \"total_s\": %d,\n  \"rows\": [\n%s\n  ],\n  \"recordings\": [\n%s\n  ],\n  \"targets\": [\n%s\n  ],\n  \"notes\": [\n%s\n  ]\n}\n",
		jstr(scale), jstr(info), total, rows, rj, tj, nj > json
}' "$tsv"
rc=$?
log "results: $out/results.json (raw: $tsv); ${total}s"
exit $rc
