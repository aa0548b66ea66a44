#!/bin/sh
# bench/python.sh - the Python module's part of `make bench` (issue 21):
# bench/python.py on the same traces, side by side, in one run:
#   synth N   build/tools/gen-synth --events N --nr-cpus 8 --version 7
#             --compression none --seed 1, as bench/run.sh makes it (the same
#             file, bench/out/synth-N.dat, reused when its stamp matches);
#             N = 10M (BENCH_SCALE=small: 1M; BENCH_PY_EVENTS overrides)
#   real      bench/out/real-*.dat that bench/run.sh recorded, if any, and the
#             largest recording of ../shared/traces/recorded
# Output: one table (rows() and rows() with convert's 16 columns against
# `convert -f csv` + pandas.read_csv, and against a LISA-style pipeline:
# `trace-cmd report` text parsed with a regex, run on the 1M synthetic
# trace for the 10M one and extrapolated, marked "~"; as ratios; peak
# memory growth against the DataFrame's size), a verdict per goal of issue
# 21, and bench/out/python.json.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/bench/out
gen=$root/build/tools/gen-synth
py=/usr/bin/python3
mkdir -p "$out"
if ! ls "$root"/build/python/ipitrace/_ext*.so > /dev/null 2>&1; then
	echo "bench/python.sh: no Python module in build/python (python3-dev, python3-numpy): skipped"
	exit 0
fi
case ${BENCH_SCALE:-full} in small) n=1000000 ;; *) n=10000000 ;; esac
n=${BENCH_PY_EVENTS:-$n}
case $n in
*000000) name=$((n / 1000000))M ;;
*000) name=$((n / 1000))k ;;
*) name=$n ;;
esac
f=$out/synth-$name.dat
stamp="$(cksum < "$gen") --events $n --nr-cpus 8 --version 7 --compression none --seed 1"
if ! [ -f "$f" ] || [ "$(cat "$f.stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -f "$f" "$f.stamp"
	"$gen" --events "$n" --nr-cpus 8 --version 7 --compression none --seed 1 -o "$f.tmp" &&
		mv "$f.tmp" "$f" && printf '%s\n' "$stamp" > "$f.stamp"
fi
tr="$f"
for r in "$out"/real-*.dat; do
	[ -f "$r" ] && tr="$tr $r"
done
big=$(ls -S "$root"/../shared/traces/recorded/*.dat 2>/dev/null | head -n 1)
[ -n "$big" ] && tr="$tr $big"
echo "== Python module: rows() against convert -f csv + pandas.read_csv (best of 3 after a warm-up, the runs in turn)"
PYTHONPATH=$root/build/python $py "$root/bench/python.py" "$root/build/ipitrace" "$out" $tr
