# soak.sh BUILD SECONDS - `ipitrace serve` under the workload for SECONDS
# (make soak: 600; test_serve.sh: 30), scraped every second: its RSS, the
# BPF map entries, the series and the drop counters, every 5 s.  Fails if
# RSS grows by more than 256 KiB or the send map by more than 5% of its
# 16384 entries after the first 10 s (a shared machine may add commands),
# or anything was dropped.  Needs root and BPF; no other serve running.
B=${1:-build}
SECS=${2:-600}
TOP=$(cd "$(dirname "$0")/.." && pwd)
case $B in /*) BD=$B ;; *) BD=$TOP/$B ;; esac
IPT=$BD/ipitrace
WL=$BD/tools/ipi-workload
TMP=$(mktemp -d)
PORT=$((40000 + $$ % 20000))
SP="" WP=""
trap '[ -n "$WP" ] && kill $WP 2>/dev/null; [ -n "$SP" ] && kill -TERM $SP 2>/dev/null; wait; rm -rf "$TMP"' EXIT
"$IPT" serve --listen 127.0.0.1:$PORT --socket "$TMP/s.sock" --watch 1 -H 0 -t 5 --keep 20000 \
	2> "$TMP/serve.err" &
SP=$!
i=0
until grep -q "counting with BPF" "$TMP/serve.err" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 $SP 2>/dev/null; then
		echo "soak: serve did not start: $(head -n 2 "$TMP/serve.err")"
		exit 1
	fi
	sleep 0.1
done
# the load: pingpong paced at 5000 round trips/s (about 10k IPIs/s), and
# TLB and membarrier rounds now and then
( while :; do
	"$WL" --rate 5000 pingpong 25000 > /dev/null
	"$WL" membarrier 200 > /dev/null
	"$WL" tlb 50 > /dev/null
done ) &
WP=$!
metric() { grep "^$1 " "$TMP/m" | awk '{s += $NF} END {print s + 0}'; }
t0=$(date +%s)
n=0
echo "soak: t_s rss_kb send_map_entries series dropped rows_total"
while [ $(($(date +%s) - t0)) -lt "$SECS" ]; do
	for k in 1 2 3 4 5; do curl -sf "http://127.0.0.1:$PORT/metrics" > "$TMP/m"; sleep 1; done
	rss=$(awk '/^VmRSS/ {print $2}' /proc/$SP/status)
	ent=$(grep '^ipitrace_map_entries{map="sends"}' "$TMP/m" | awk '{print $2}')
	ser=$(grep '^ipitrace_series' "$TMP/m" | awk '{print $2}')
	drop=$(grep '^ipitrace_dropped_total' "$TMP/m" | grep -v exit_without_entry | awk '{s += $2} END {print s + 0}')
	rows=$(grep '^ipitrace_watched_rows_total' "$TMP/m" | awk '{print $2}')
	t=$(($(date +%s) - t0))
	echo "soak: $t $rss $ent $ser $drop $rows"
	n=$((n + 1))
	if [ $n = 2 ]; then rss0=$rss ent0=$ent; fi
done
kill $WP 2>/dev/null
wait $WP 2>/dev/null
WP=""
kill -TERM $SP
wait $SP
rc=$?
SP=""
[ -z "$rss0" ] && { echo "soak: too short to compare"; exit 1; }
grow=$((rss - rss0))
egrow=$((ent - ent0))
echo "soak: ${SECS} s: RSS ${rss0} -> ${rss} KiB (+${grow}), send map ${ent0} -> ${ent} entries, dropped ${drop}, rows ${rows}, serve rc ${rc}"
[ $grow -le 256 ] && [ $egrow -le 819 ] && [ "$drop" = 0 ] && [ "$rc" = 0 ] && [ "${rows:-0}" -gt 0 ]
