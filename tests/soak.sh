# soak.sh BUILD SECONDS - `ipitrace serve` under the workload for SECONDS
# (make soak: 600; test_serve.sh: 20), scraped every second; every 5 s its
# RSS, the send map's entries (all, and those of the soak's own workload,
# from /snapshot), the series and the drop counters.  Fails if, after the
# first 10 s and the ring of kept rows full, RSS grows by more than 256 KiB plus 512 bytes for each entry
# the map gained (serve keeps each key's series: other commands run on a
# shared machine and add keys, bounded by the map's size; an hour beside
# builds and tests measured about 360 bytes a key), the workload's entries by
# more than 10 (rare paths add a key now and then: a tick's reschedule, a
# migration; 10 minutes showed none) (the map as a whole may grow: other commands run on a shared
# machine; it must stay below 90% full), anything was dropped, or a counter
# went down; with --top 3, no target CPU may show more than 3 named series.
# The kernel's recursion misses (a send in an interrupt that came while a
# program ran on that CPU: not counted, and counted as such) are shown, not
# failed: a second attachment beside it (another serve with --stacks) made 3
# in 1.3 million rows.
# Needs root and BPF; it uses a socket and port of its own.
B=${1:-build}
SECS=${2:-600}
TOP=$(cd "$(dirname "$0")/.." && pwd)
case $B in /*) BD=$B ;; *) BD=$TOP/$B ;; esac
IPT=$BD/ipitrace
TMP=$(mktemp -d)
PORT=$((40000 + $$ % 20000))
SP="" WP=""
trap '[ -n "$WP" ] && kill $WP 2>/dev/null; [ -n "$SP" ] && kill -TERM $SP 2>/dev/null; wait; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP
WLN=soakwl$$
cp "$BD/tools/ipi-workload" "$TMP/$WLN"
WL=$TMP/$WLN
KEEP=2000	# rows kept: the ring's pages are touched as it fills (see rss0)
"$IPT" serve --listen 127.0.0.1:$PORT --socket "$TMP/s.sock" --watch 1 -H 0 -t 3 --keep $KEEP \
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
hex=$(printf '%s' "$WLN" | od -An -tx1 | tr -d ' \n')
t0=$(date +%s)
n=0 bad=""
: > "$TMP/prev"
echo "soak: t_s rss_kb send_map_entries workload_entries series dropped rows_total recursion_misses"
while [ $(($(date +%s) - t0)) -lt "$SECS" ]; do
	for k in 1 2 3 4 5; do
		curl -sf "http://127.0.0.1:$PORT/metrics" > "$TMP/m"
		# every counter only grows; at most 3 named series per target CPU
		grep -E '^ipitrace_(ipis|csd_queued)_total' "$TMP/m" > "$TMP/cur"
		awk '{ k = substr($0, 1, length($0) - length($NF) - 1) }
			NR == FNR { v[k] = $NF; next }
			(k in v) && $NF + 0 < v[k] + 0 { print "down: " $0 " from " v[k] }' \
			"$TMP/prev" "$TMP/cur" >> "$TMP/bad"
		grep '^ipitrace_ipis_total' "$TMP/cur" | grep -v 'callsite="other"' |
			sed 's/^ipitrace_ipis_total{target_cpu="\([0-9]*\)".*/\1/' | sort | uniq -c |
			awk '$1 > 3 { print "cpu " $2 ": " $1 " named series" }' >> "$TMP/bad"
		cp "$TMP/cur" "$TMP/prev"
		sleep 1
	done
	curl -sf --unix-socket "$TMP/s.sock" http://serve/snapshot > "$TMP/snap"
	rss=$(awk '/^VmRSS/ {print $2}' /proc/$SP/status)
	ent=$(grep -c '^s ' "$TMP/snap")
	went=$(grep -c "^s .* $hex\$" "$TMP/snap")
	ser=$(grep '^ipitrace_series' "$TMP/m" | awk '{print $2}')
	drop=$(grep '^ipitrace_dropped_total' "$TMP/m" | grep -v -e exit_without_entry -e recursion_miss |
		awk '{s += $2} END {print s + 0}')
	miss=$(grep '^ipitrace_dropped_total{reason="recursion_miss"}' "$TMP/m" | awk '{print $2 + 0}')
	rows=$(grep '^ipitrace_watched_rows_total' "$TMP/m" | awk '{print $2}')
	t=$(($(date +%s) - t0))
	echo "soak: $t $rss $ent $went $ser $drop $rows ${miss:-0}"
	n=$((n + 1))
	# the base: from the second sample on, once the watched CPU's rows
	# have filled the ring (its pages, touched as rows come, are then all
	# there: a busy machine's slow workload filled 20,000 rows only after
	# the second sample, and its 2.6 MB looked like growth)
	if [ $n -ge 2 ] && [ -z "$rss0" ] && [ "${rows:-0}" -ge $KEEP ]; then rss0=$rss went0=$went ent0=$ent; fi
done
kill $WP 2>/dev/null
wait $WP 2>/dev/null
WP=""
kill -TERM $SP
wait $SP
rc=$?
SP=""
[ -z "$rss0" ] && { echo "soak: too short to compare (the ring of $KEEP rows not full after the first sample: ${rows:-0} rows)"; exit 1; }
grow=$((rss - rss0))
wgrow=$((went - went0))
[ -s "$TMP/bad" ] && head -n 5 "$TMP/bad"
echo "soak: ${SECS} s: RSS ${rss0} -> ${rss} KiB (+${grow}; map entries ${ent0} -> ${ent}), the workload's map entries ${went0} -> ${went}, all ${ent} of 16384, dropped ${drop}, rows ${rows}, recursion misses ${miss:-0} (counted), $(wc -l < "$TMP/bad") counter/series faults, serve rc ${rc}"
[ $((grow * 1024)) -le $((256 * 1024 + 512 * (ent - ent0))) ] && [ $wgrow -le 10 ] && [ "$ent" -lt 14745 ] && [ "$drop" = 0 ] && [ "$rc" = 0 ] &&
	[ "${rows:-0}" -gt 0 ] && [ ! -s "$TMP/bad" ]
