#!/bin/sh
# test_diff_stats.sh - `ipitrace diff`'s significance against an independent
# re-implementation of its method, and the method against a known truth:
# tests/diff_stats.py writes pairs of tracefs text recordings (2-4 CPUs a
# side, 20 s and 30 s, an isolated and a housekeeping role by -i; 20 call
# sites with their own rate per CPU and burstiness: Poisson bursts of
# geometric size, mean 1-8; three call sites a pair changed 2x up or down),
# runs `ipitrace diff -f json -b callsite -i LIST` on each and checks
#   counts    every (call site, role) and role total as generated, and the
#             sides' IPIs, CPUs and durations;
#   windows   the window width and the complete windows, recomputed;
#   method    dispersion, p and ratio of every row as computed again with
#             scipy.special.betainc from the generated times (relative 1e-5:
#             the JSON's 6 digits), the status following from them;
#   untested  a 4 ms pair (fewer than 10 windows): every row untested;
#   null-rate 48 pairs: the share of the ~1000 no-change rows flagged at
#             p < 0.05 is within 2%..9% (seeds 1-480 give 3.7% on average,
#             2.7%-4.9% per 48 pairs);
#   power-2x  >= 90% of the ~190 rows changed 2x found, in the right
#             direction (each with >= max(50, 40 x its dispersion) expected
#             IPIs on the smaller side: ~98% on average).
# INFO lines: what a plain Poisson test (dispersion 1) would flag (~40% of
# the no-change rows), and the dispersion found against the generator's.
# ASan pass: seeds 1-3 and the short pair, the counts, windows, method and
# untested checks (memory errors in the tallies, the window merging and
# the p-value); the calibration wants the plain pass's 48 pairs.
# No trace-cmd, no kernel: the traces are text.  Time: ~5 CPU-seconds
# (generation ~0.05 s, diff ~0.05 s a pair), 2 at a time.
# seconds: 8
. "$(dirname "$0")/lib.sh"

SEEDS=1-48
case $B in *asan*) SEEDS=1-3; echo "ASan build: seeds $SEEDS only, the calibration not judged" ;; esac

if [ ! -x "$IPT" ]; then
	fail build "$IPT is missing (run make)"
	finish
fi
# scipy: Debian's python3-scipy (make deps installs it; as root, installed
# now if missing, as on a fresh machine)
if ! "$PY" -c 'import numpy, scipy.special' > /dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null 2>&1; then
		echo "installing python3-scipy (apt-get install -y python3-scipy)" >&2
		DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -q python3-scipy > "$TMP/apt.log" 2>&1
	fi
	if ! "$PY" -c 'import numpy, scipy.special' > /dev/null 2>&1; then
		skip diff-stats "$PY has no numpy and scipy (apt-get install python3-scipy)"
		finish
	fi
fi
# a copy: the same binary for the whole run, even if it is relinked meanwhile
cp "$IPT" "$TMP/ipitrace" || { fail build "cannot copy $IPT"; finish; }

J=$(nproc 2>/dev/null || echo 2)
[ "$J" -gt 4 ] && J=4
"$PY" "$TOP/tests/diff_stats.py" --run "$TMP/ipitrace" --seeds "$SEEDS" -j "$J" \
	> "$TMP/out" 2> "$TMP/err"
rc=$?
n=0
while IFS= read -r l; do
	case $l in
	"PASS "*) pass "diff-stats ${l#PASS }"; n=$((n + 1)) ;;
	"FAIL "*)
		x=${l#FAIL }
		fail "diff-stats ${x%%: *}" "${x#*: }"; n=$((n + 1)) ;;
	"INFO "*) echo "$l" ;;
	esac
done < "$TMP/out"
if [ $rc != 0 ] || [ $n = 0 ]; then
	fail diff-stats "diff_stats.py exited $rc: $(tail -n 3 "$TMP/err" | tr '\n' ' ' | cut -c1-300)"
fi
finish
