#!/bin/sh
# run.sh - build the libFuzzer targets and run each for a while
#
#   sh fuzz/run.sh [SECONDS] [TARGET...]
#
# SECONDS per target (default 180); TARGETs among tracedat pages format text
# filter cpuset usyms snapshot http (default: all).  Everything goes under build/fuzz/:
#   obj/        library objects built for fuzzing (not the main build's)
#   bin/        fuzz_NAME binaries (run one on a file to replay it)
#   corpus/NAME the working corpus, seeded from fuzz/seeds/NAME (and, for
#               tracedat, synthetic traces from build/tools/gen-synth)
#   artifacts/NAME/  crash-*, leak-*, timeout-*, oom-* inputs
#   logs/NAME.log    libFuzzer's output
# Per target it prints executions, coverage and new crashes, and exits
# non-zero if any target crashed (or did not build).
#
# Environment:
#   FUZZ_JOBS=N     targets run N at a time (default: number of CPUs)
#   FUZZ_ARGS=...   extra libFuzzer options (e.g. -fork=1 -ignore_crashes=1)
#   FUZZ_BUILD_ONLY=1  build the binaries and seed the corpora, run nothing
#   FUZZ_OUT=DIR    corpus/, artifacts/ and logs/ under DIR instead of
#                   build/fuzz (tests/test_fuzz.sh uses a fresh one)
#   CLANG=clang-14  the compiler
#   FUZZ_OPT=-O0    the optimisation level (default -O1); another level than
#                   -O1 builds into obj-LEVEL/ and bin-LEVEL/ (tests/test_fuzz.sh's
#                   smoke run: -O0, half the compile time of -O1)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
secs=${1:-180}
case "$secs" in *[!0-9]*|'') echo "run.sh: SECONDS must be a number, not '$secs'" >&2; exit 2 ;; esac
[ $# -gt 0 ] && shift
ALL="tracedat pages format text filter cpuset usyms snapshot http kallsyms symcache"
targets=${*:-$ALL}
for t in $targets; do
	case " $ALL " in *" $t "*) ;; *) echo "run.sh: unknown target '$t' (one of: $ALL)" >&2; exit 2 ;; esac
done

CLANG=${CLANG:-}
if [ -z "$CLANG" ]; then
	for c in clang clang-14 clang-15 clang-16; do
		command -v "$c" > /dev/null 2>&1 && { CLANG=$c; break; }
	done
fi
[ -n "$CLANG" ] || { echo "run.sh: clang not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }

F=build/fuzz
O=${FUZZ_OUT:-$F}
OPT=${FUZZ_OPT:--O1}
case "$OPT" in -O[0-3s]) ;; *) echo "run.sh: FUZZ_OPT must be -O0 .. -O3 or -Os, not '$OPT'" >&2; exit 2 ;; esac
OBJ=$F/obj BIN=$F/bin
[ "$OPT" = -O1 ] || { OBJ=$F/obj$OPT; BIN=$F/bin$OPT; }
mkdir -p "$OBJ" "$BIN" "$O/logs" "$O/corpus" "$O/artifacts" || exit 2
COMMON="-g $OPT -std=gnu11 -D_GNU_SOURCE -Iinclude -Ilib -fno-omit-frame-pointer -fno-sanitize-recover=undefined
	-Werror=incompatible-pointer-types -Werror=implicit-function-declaration"
LIBFLAGS="$COMMON -fsanitize=fuzzer-no-link,address,undefined"
BINFLAGS="$COMMON -fsanitize=fuzzer,address,undefined"
LIBS="-lzstd -lz -lpthread -lm"

# ---- build -----------------------------------------------------------
# Library objects: rebuilt when the source or any header is newer.  Those
# to build go to one clang per CPU (at most 4), each given its share of the
# files at once: a clang started per file cost half again as much CPU here
# (the compiler's own start, ~0.15 s of system time on these guests).  A
# batch compiles in its own directory (the library's file names are unique)
# and its objects are then renamed to obj/DIR_FILE.o.
newest_h=$(ls -t include/*.h lib/*/*.h 2>/dev/null | head -n 1)
build_failed=0
objs=""
todo=""
for src in $(make -s --no-print-directory print-lib-src); do
	o="$OBJ/$(echo "${src#lib/}" | tr / _ | sed 's/\.c$//').o"
	objs="$objs $o"
	if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ "$newest_h" -nt "$o" ]; then
		todo="$todo $src"
	fi
done
nb=$(nproc 2>/dev/null || echo 1)
[ "$nb" -le 4 ] || nb=4
pids=""
k=0
while [ -n "$todo" ] && [ $k -lt "$nb" ]; do
	# batch k: every nb-th file from the k-th
	batch=$(echo $todo | tr ' ' '\n' | awk -v n="$nb" -v k="$k" 'NR % n == k % n' | tr '\n' ' ')
	k=$((k + 1))
	[ -n "$batch" ] || continue
	d="$OBJ/batch$k.$$"
	(
		rm -rf "$d" && mkdir -p "$d" || exit 1
		srcs=""
		for src in $batch; do srcs="$srcs $top/$src"; done
		# shellcheck disable=SC2086 # (words of the flags and the files)
		if ! (cd "$d" && $CLANG $(echo $LIBFLAGS | sed "s|-Iinclude|-I$top/include|; s|-Ilib|-I$top/lib|") -c $srcs) 2> "$d.err"; then
			echo "run.sh: cannot compile the library for fuzzing:"
			head -n 20 "$d.err"
			rm -rf "$d" "$d.err"
			exit 1
		fi
		for src in $batch; do
			b=${src##*/}
			mv "$d/${b%.c}.o" "$OBJ/$(echo "${src#lib/}" | tr / _ | sed 's/\.c$//').o" || exit 1
		done
		rm -rf "$d" "$d.err"
	) &
	pids="$pids $!"
done
for p in $pids; do wait "$p" || build_failed=1; done
# objects of library files that disappeared must not linger
for o in "$OBJ"/*.o; do
	[ -f "$o" ] || continue
	case " $objs " in *" $o "*) ;; *) rm -f "$o" ;; esac
done
if [ $build_failed -ne 0 ]; then
	echo "run.sh: the library did not build for fuzzing" >&2
	exit 1
fi
for t in $targets; do
	b="$BIN/fuzz_$t"
	need=0
	[ -f "$b" ] || need=1
	for dep in fuzz/fuzz_$t.c fuzz/*.h src/http.c src/http.h $objs; do
		[ "$dep" -nt "$b" ] && need=1
	done
	if [ $need -eq 1 ]; then
		if ! $CLANG $BINFLAGS -o "$b.tmp$$" "fuzz/fuzz_$t.c" $objs $LIBS 2> "$O/logs/build-$t.err"; then
			echo "run.sh: cannot build fuzz_$t:" >&2
			head -n 20 "$O/logs/build-$t.err" >&2
			rm -f "$b.tmp$$"
			build_failed=1
			continue
		fi
		mv "$b.tmp$$" "$b"
	fi
done
[ $build_failed -eq 0 ] || exit 1

# ---- corpora ---------------------------------------------------------
seed_corpus() {	# seed_corpus NAME
	c="$O/corpus/$1"
	mkdir -p "$c" "$O/artifacts/$1"
	if [ -d "fuzz/seeds/$1" ]; then
		for s in fuzz/seeds/"$1"/*; do
			[ -f "$s" ] || continue
			cmp -s "$s" "$c/seed-$(basename "$s")" || cp "$s" "$c/seed-$(basename "$s")"
		done
	fi
}

synth_seeds() {	# small synthetic trace.dat files of every layout
	c="$O/corpus/tracedat"
	gen=build/tools/gen-synth
	if [ ! -x "$gen" ]; then
		make -s "$gen" > /dev/null 2>&1 || { echo "run.sh: no $gen: synthetic seeds skipped" >&2; return 0; }
	fi
	i=0
	while read -r opts; do
		i=$((i + 1))
		out="$c/synth-$i.dat"
		[ -f "$out" ] && continue
		# shellcheck disable=SC2086
		"$gen" $opts -o "$out" 2> /dev/null || { rm -f "$out"; echo "run.sh: gen-synth $opts failed" >&2; }
	done <<-EOF
	-V 6 -e 50
	-V 7 -c none -e 50
	-V 7 -c zstd -e 50
	-V 7 -c zlib -e 50
	-B -e 50
	-B -V 6 -e 40 -n 100
	-L 4 -e 50
	-L 4 -B -c zlib -e 40
	-a arm64 -e 50
	-a arm64 -B -L 4 -e 40 -n 70
	-m -e 1500 -c zstd
	-n 65 -e 40 -s 3
	-n 256 -c zstd -e 40 -s 4
	-n 8192 -e 8 -s 5
	-P 1024 -e 60 -s 6
	-P 256 -V 6 -e 30 -s 7
	-a arm64 -m -c zlib -e 1500 -s 8
	EOF
}

for t in $targets; do
	seed_corpus "$t"
	[ "$t" = tracedat ] && synth_seeds
done
[ "${FUZZ_BUILD_ONLY:-}" = 1 ] && exit 0

# ---- run -------------------------------------------------------------
max_len() {
	case $1 in
	tracedat) echo 262144 ;;
	format|text|snapshot) echo 65536 ;;
	pages) echo 16384 ;;		# 4 sub-buffers of 4096, 256 of 64 bytes
	filter|cpuset|usyms) echo 8192 ;;
	kallsyms) echo 16384 ;;		# its naive reader is quadratic
	symcache) echo 65536 ;;
	http) echo 9000 ;;		# serve reads at most 8192
	esac
}

jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1

run_one() {	# run_one NAME: runs libFuzzer, writes $F/logs/NAME.summary
	t=$1
	a="$O/artifacts/$t"
	before=$(ls "$a" | wc -l)
	dict=""
	[ -f "fuzz/dicts/$t.dict" ] && dict="-dict=fuzz/dicts/$t.dict"
	start=$(date +%s)
	# shellcheck disable=SC2086
	"$BIN/fuzz_$t" "$O/corpus/$t" -max_total_time="$secs" -max_len="$(max_len "$t")" \
		-rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$a/" $dict ${FUZZ_ARGS:-} > "$O/logs/$t.log" 2>&1
	rc=$?
	end=$(date +%s)
	after=$(ls "$a" | wc -l)
	execs=$(grep -E '^stat::number_of_executed_units:' "$O/logs/$t.log" | tail -n 1 | awk '{print $2}')
	[ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$O/logs/$t.log" | tail -n 1 | tr -d '#')
	cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$O/logs/$t.log" | tail -n 1)
	new=$((after - before))
	newest=$(ls -t "$a" | head -n "$new" | sed "s|^|$a/|" | tr '\n' ' ')
	echo "$t rc=$rc execs=${execs:-0} ${cov:-cov: ? ft: ?} time=$((end - start))s new_artifacts=$new $newest" \
		> "$O/logs/$t.summary"
}

running=0
pids=""
for t in $targets; do
	run_one "$t" &
	pids="$pids $!"
	running=$((running + 1))
	if [ $running -ge "$jobs" ]; then
		for p in $pids; do wait "$p"; done
		pids=""
		running=0
	fi
done
for p in $pids; do wait "$p"; done

status=0
for t in $targets; do
	s=$(cat "$O/logs/$t.summary" 2>/dev/null)
	set -- $s
	# fields: name rc=N execs=N cov: C ft: F time=T new_artifacts=N paths...
	rc=${2#rc=}
	new=$(echo "$s" | sed -n 's/.*new_artifacts=\([0-9]*\).*/\1/p')
	arts=$(echo "$s" | sed -n 's/.*new_artifacts=[0-9]* *//p')
	printf '%-9s executions %-10s %s %s  %s\n' "$t" "${3#execs=}" "$4 $5" "$6 $7" "${8}"
	if [ "${new:-0}" -gt 0 ] || [ "$rc" != 0 ]; then
		status=1
		echo "  CRASH in $t (libFuzzer exit $rc): ${arts:-see $O/logs/$t.log}"
		grep -m 3 -E 'ERROR: |runtime error|SUMMARY|cpuset check failed|filter error|gives' "$O/logs/$t.log" |
			sed 's/^/    /'
	else
		echo "  new crashes: 0"
	fi
done
exit $status
