#!/bin/sh
# demo.sh - ipitrace on the trace the repo ships (demo/pingpong.dat: x86_64,
# 2 CPUs, Linux 6.18, a pipe ping-pong across CPUs, then membarrier).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
ipt="$top/build/ipitrace"
trace="$top/demo/pingpong.dat"

echo "== ipitrace dump $trace (first 12 events)"
"$ipt" dump -n 12 "$trace"
echo
echo "== only the IPI sends, masks as CPU lists: ipitrace dump -e ipi:* -n 6"
"$ipt" dump -e 'ipi:*' -n 6 --no-header "$trace"
echo
if "$ipt" report --help >/dev/null 2>&1; then
	echo "== ipitrace report --assume-synced-clock --isolated 1 --top 3 $trace"
	echo "   (this trace used the per-CPU 'local' clock: latencies across CPUs are only"
	echo "    shown when asked for; ipitrace record uses the global 'mono' clock)"
	# the whole report, its list of IPIs to the isolated CPU cut to 5 rows
	"$ipt" report --assume-synced-clock --isolated 1 --top 3 "$trace" | awk '
		/^IPIs that reached isolated/ { iso = 1; print; next }
		iso && /^  time / { print; next }
		iso && /^  / { if (++n <= 5) print; next }
		iso { if (n > 5) printf "  (%d more)\n", n - 5; iso = 0 }
		{ print }
		END { if (iso && n > 5) printf "  (%d more)\n", n - 5 }'
else
	echo "== IPIs per target CPU and kind (ipitrace convert ... -o - | awk)"
	"$ipt" convert "$trace" -o - | awk -F, 'NR > 1 { n[$4 " " $9]++ } END { for (k in n) print "  cpu " k ": " n[k] }' | sort
fi
echo
echo "== rows for pandas: ipitrace convert $trace -o - --filter 'target_cpu == 1 && kind == \"wakeup\"' (first 3)"
"$ipt" convert "$trace" -o - --filter 'target_cpu == 1 && kind == "wakeup"' | head -n 4
