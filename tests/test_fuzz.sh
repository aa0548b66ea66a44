#!/bin/sh
# test_fuzz.sh [BUILDDIR] - the fuzzing smoke test of `make check`
#
#  1. With BUILDDIR "build" (only then, so that the ASan pass of `make check`
#     does not fuzz again) and clang with libFuzzer installed: every fuzz
#     target of fuzz/ replays its whole seed corpus (libFuzzer runs every
#     seed before it checks the time) and fuzzes on until 1 second in all
#     (FUZZ_SMOKE_SECONDS; fuzz/run.sh, two at a time, built at -O0: the
#     build is most of the time), in a fresh build/fuzz/smoke; `make fuzz`
#     is the long run (FUZZ_SECONDS, 180 per
#     target).  PASS per target that found nothing, FAIL with the artifact
#     path otherwise.
#  2. For every BUILDDIR: each input kept in tests/fuzz-regress/ (a former
#     crash) is replayed through BUILDDIR/ipitrace (dump, convert, report for
#     trace inputs; convert -F for filter inputs; dump --on-cpus for CPU lists), and
#     each must end in success or a clean one-line error, never a signal, a
#     hang or a sanitizer report.  With the fuzz binaries built, each is
#     also replayed through its own fuzz target.
# Regression inputs are named TARGET-what-went-wrong[.ext], TARGET being a
# fuzz target (tracedat pages format text filter cpuset usyms snapshot http kallsyms symcache).
# seconds: 83
. "$(dirname "$0")/lib.sh"

REGRESS="$TOP/tests/fuzz-regress"
FBIN="$TOP/build/fuzz/bin-O0"	# the smoke run's (FUZZ_OPT=-O0: half the compile time)
SMOKE_SECS=${FUZZ_SMOKE_SECONDS:-1}
SAN='Sanitizer|runtime error|LeakSanitizer|AddressSanitizer'
# a small real trace for the filter replays
REF="$TOP/fuzz/seeds/tracedat/real-pingpong-v7-zstd.dat"

have_libfuzzer() {
	for c in clang clang-14 clang-15 clang-16; do
		command -v "$c" > /dev/null 2>&1 || continue
		printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }\n' \
			> "$TMP/probe.c"
		"$c" -fsanitize=fuzzer,address,undefined -o "$TMP/probe" "$TMP/probe.c" \
			> /dev/null 2>&1 && { CLANG=$c; return 0; }
	done
	return 1
}

# ---- 1. fuzz smoke run --------------------------------------------------
if [ "$B" = build ]; then
	if [ "${FAST:-0}" = 1 ]; then
		skip fuzz "the smoke run is left to make check (FAST=1: make check-fast)"
	elif ! have_libfuzzer; then
		skip fuzz "clang with libFuzzer not installed"
	else
		out="$TOP/build/fuzz/smoke"
		rm -rf "$out"
		FUZZ_OUT="$out" FUZZ_JOBS=${FUZZ_JOBS:-2} CLANG=$CLANG FUZZ_ARGS="" FUZZ_OPT=-O0 \
			sh "$TOP/fuzz/run.sh" "$SMOKE_SECS" > "$TMP/run.out" 2>&1
		for t in tracedat pages format text filter cpuset usyms snapshot http kallsyms symcache; do
			s="$out/logs/$t.summary"
			if [ ! -f "$s" ]; then
				fail "fuzz $t" "did not run (build failed?): $(grep -m 2 -E 'cannot|error' "$TMP/run.out" | tr '\n' ' ')"
				continue
			fi
			new=$(sed -n 's/.*new_artifacts=\([0-9]*\).*/\1/p' "$s")
			trc=$(sed -n 's/^[a-z]* rc=\([0-9]*\).*/\1/p' "$s")
			stats=$(sed -n 's/^[a-z]* rc=[0-9]* \(execs=[0-9]* cov: [0-9?]* ft: [0-9?]*\).*/\1/p' "$s")
			if [ "${new:-0}" -gt 0 ] || [ "${trc:-1}" != 0 ]; then
				arts=$(sed -n 's/.*new_artifacts=[0-9]* *//p' "$s")
				why=$(grep -m 1 -E 'ERROR: |runtime error|check failed|filter error' "$out/logs/$t.log")
				fail "fuzz $t" "${arts:-libFuzzer exit $trc, see $out/logs/$t.log} ${why}"
			else
				pass "fuzz $t ($stats)"
			fi
		done
	fi
fi

# ---- 2. regression inputs -----------------------------------------------
# clean NAME CMD...: success, or a one-line error (exit 1 runtime, 2 usage:
# a bad -F or -c argument); never a signal, a hang or a sanitizer report
clean() {
	n=$1
	shift
	timeout 120 "$@" > /dev/null 2> "$TMP/err"
	rc=$?
	lines=$(wc -l < "$TMP/err")
	if [ $rc -eq 124 ]; then
		fail "$n" "hangs (killed after 120 s): $*"
	elif [ $rc -ge 125 ]; then
		fail "$n" "killed by signal $((rc - 128)): $*"
	elif grep -q -E "$SAN" "$TMP/err"; then
		fail "$n" "sanitizer: $(grep -m 1 -E "$SAN" "$TMP/err")"
	elif [ $rc -ne 0 ] && [ "$lines" -ne 1 ]; then
		fail "$n" "exit $rc with $lines lines on stderr: $(head -c 200 "$TMP/err")"
	elif [ $rc -ne 0 ] && [ $rc -ne 1 ] && [ $rc -ne 2 ]; then
		fail "$n" "exit $rc: $(head -c 200 "$TMP/err")"
	else
		pass "$n"
	fi
}

if [ -d "$REGRESS" ] && [ ! -x "$IPT" ]; then
	skip "fuzz-regress" "no $IPT (build first)"
elif [ -d "$REGRESS" ]; then
	for f in "$REGRESS"/*; do
		[ -f "$f" ] || continue
		base=$(basename "$f")
		case "$base" in README*|*.md) continue ;; esac
		target=${base%%-*}
		case "$target" in
		tracedat|text)
			clean "regress $base: dump" "$IPT" dump "$f"
			clean "regress $base: dump -R" "$IPT" dump --raw --mask-hex "$f"
			clean "regress $base: convert" "$IPT" convert "$f" -o -
			clean "regress $base: report" "$IPT" report "$f"
			clean "regress $base: report -j 1" "$IPT" report -j 1 "$f"
			# parallel lanes fail (or not) exactly as one thread does
			for cmd in report convert; do
				out=""
				[ $cmd = convert ] && out="-o -"
				"$IPT" $cmd -j 1 "$f" $out > "$TMP/j1" 2>&1
				r1=$?
				"$IPT" $cmd -j 3 "$f" $out > "$TMP/j3" 2>&1
				r3=$?
				same=no
				[ $r1 = $r3 ] && cmp -s "$TMP/j1" "$TMP/j3" && same=yes
				check "regress $base: $cmd -j 1 and -j 3: same exit ($r1, $r3) and output" [ $same = yes ]
			done
			;;
		pages|format|kallsyms|symcache)
			# a stream, a format, a kallsyms text or index alone is no
			# trace: only the fuzz binary replays it, in the plain pass
			# (below; the ASan pass has nothing to run on it)
			if [ "$B" = build ] && [ ! -x "$FBIN/fuzz_$target" ]; then
				skip "regress $base" "needs build/fuzz/bin/fuzz_$target (fuzz/run.sh)"
			fi
			;;
		filter)
			expr=$(tr -d '\000' < "$f")
			clean "regress $base: convert -F" "$IPT" convert "$REF" -F "$expr" -o -
			;;
		cpuset)
			size=$(wc -c < "$f")
			list=$(head -c $((size / 2)) "$f" | tr -d '\000')
			clean "regress $base: dump --on-cpus" "$IPT" dump --on-cpus "$list" "$REF"
			;;
		*)
			fail "regress $base" "name does not start with a fuzz target name"
			continue
			;;
		esac
		# replay through the fuzz target itself (ASan+UBSan build of the library)
		if [ "$B" = build ] && [ -x "$FBIN/fuzz_$target" ]; then
			timeout 120 "$FBIN/fuzz_$target" "$f" > "$TMP/out" 2>&1
			rc=$?
			if [ $rc -eq 0 ]; then
				pass "regress $base: fuzz_$target"
			else
				fail "regress $base: fuzz_$target" "exit $rc: $(grep -m 1 -E "ERROR|runtime error|check failed|filter error|Timeout" "$TMP/out")"
			fi
		fi
	done
fi
# ---- 3. the seed cutter still builds and remakes the committed seeds ----
# (fuzz/mkseeds.c is built by hand, not by make: it once rotted unseen)
PP="$TRACES/recorded/pingpong.dat"
if [ "$B" != build ]; then
	:
elif [ ! -f "$PP" ]; then
	skip mkseeds "no $PP"
elif ! cc -O1 -std=gnu11 -D_GNU_SOURCE -I"$TOP/include" -I"$TOP/lib" -o "$TMP/mkseeds" "$TOP/fuzz/mkseeds.c" \
	"$TOP/build/libipitrace.a" $(make -s --no-print-directory -C "$TOP" print-ldlibs) \
	2> "$TMP/mk.err"; then
	fail mkseeds "does not build: $(grep -m 2 error "$TMP/mk.err" | tr '\n' ';')"
else
	mkdir "$TMP/seeds"
	"$TMP/mkseeds" "$PP" "$TMP/seeds/real-pingpong" > /dev/null 2>&1
	same=0 all=0
	for f in "$TMP"/seeds/real-pingpong-v*.dat; do
		all=$((all + 1))
		cmp -s "$f" "$TOP/fuzz/seeds/tracedat/$(basename "$f")" && same=$((same + 1))
	done
	for f in "$TMP"/seeds/real-pingpong-page-cpu*.bin; do
		[ -f "$f" ] || continue
		all=$((all + 1))
		cmp -s "$f" "$TOP/fuzz/seeds/pages/$(basename "$f")" && same=$((same + 1))
	done
	if [ $all -ge 4 ] && [ $same = $all ]; then
		pass "mkseeds remakes the $all committed pingpong seeds byte for byte"
	else
		fail mkseeds "$same of $all outputs equal the committed seeds"
	fi
fi

finish
