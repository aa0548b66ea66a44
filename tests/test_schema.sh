#!/bin/sh
# test_schema.sh - every JSON output against its JSON Schema in docs/schema/
# (docs/schema/README.md), validated by Debian's python3-jsonschema
# (installed here if missing and root; tests/schema_validate.py):
#  - each schema is a valid Draft 2020-12 schema (jsonschema's check_schema
#    against its metaschema), strict (every object closed), and pins the
#    document's "schema" member (name and version) with a const;
#  - report -f json of the real traces (tests/data/qemu/*.dat, the recorded
#    ones in ../shared/traces) with every --by key and an isolated CPU, and
#    diff -f json of pairs of them (plain and --per-cpu), follow theirs;
#  - top -f json, offline: top reads its counts from a fake `ipitrace
#    serve` (tests/schema_validate.py fake-serve answers GET /snapshot on a
#    unix socket with counts and CLOCK_MONOTONIC times it logs): its
#    intervals follow top.json, their start_ns/end_ns are the fake's times
#    of two consecutive answers, chained, and their senders, counts and
#    addresses (callback null for none, top_function "(none)") the fake's,
#    their symbols those /proc/kallsyms gives the addresses;
#  - explain.json against its metaschema (explain -f json of real texts:
#    tests/test_explain.sh);
#  - /watched, offline: a document written here from docs/schema/README.md's
#    description follows watched.json;
#  - each schema refuses doctored documents (a required member taken out, a
#    wrong type, an unknown member, another version, deeper ones), so that
#    passing it means something;
#  - live (root, BPF): serve's /watched and top -f json reading serve's
#    counts while the IPI workload runs follow theirs.
# run: split
# seconds: 21
# asan: no - it checks the documents' shape; the JSON writers, top and serve run
# under ASan in test_json, test_report, test_diff, test_top and test_serve
. "$(dirname "$0")/lib.sh"
case $B in /*) BD=$B ;; *) BD=$TOP/$B ;; esac
IPT=$BD/ipitrace
S=$TOP/docs/schema
V="$TOP/tests/schema_validate.py"

if ! "$PY" -c 'import jsonschema' 2> /dev/null; then
	apt_install python3-jsonschema 2> /dev/null
	if ! "$PY" -c 'import jsonschema' 2> /dev/null; then
		skip schema "no jsonschema module in $PY (apt-get install python3-jsonschema)"
		finish
	fi
fi
[ -x "$IPT" ] || { fail schema "$IPT is missing (run make)"; finish; }

if offline_part; then
# ---- the schemas themselves ----
"$PY" "$V" meta "$S"/diff.json "$S"/explain.json "$S"/report.json "$S"/top.json "$S"/watched.json > "$TMP/v" 2>&1
verdicts "$TMP/v"
for s in diff explain report top watched; do
	grep -q "schema-meta-$s:" "$TMP/v" || fail "schema-meta-$s" "$(tail -n 2 "$TMP/v" | tr '\n' ';')"
done

# ---- report -f json of real traces, every --by key ----
mkdir -p "$TMP/rep"
TR=$(inputs "$TOP"/tests/data/qemu/*.dat "$TRACES"/recorded/*.dat)
nrep=0
for t in $TR; do
	n=$(basename "$t" .dat)
	if ! "$IPT" report -f json "$t" > "$TMP/rep/$n.json" 2> "$TMP/rep/$n.err"; then
		fail "schema-report-$n" "report: $(tail -n 1 "$TMP/rep/$n.err")"
		continue
	fi
	nrep=$((nrep + 1))
	# the --by keys in turn, CPU 1 isolated; a trace with stacks every key
	set -- comm pid task cpu callsite function kind stack
	keys=$(eval echo "\${$((nrep % 8 + 1))}")
	case $n in *stacks*) keys="$*" ;; esac
	for by in $keys; do
		"$IPT" report -f json -g $by -i 1 -t 0 "$t" > "$TMP/rep/$n-$by.json" 2>> "$TMP/rep/$n.err" ||
			fail "schema-report-$n-$by" "report: $(tail -n 1 "$TMP/rep/$n.err")"
	done
done
if [ $nrep = 0 ]; then
	fail schema-report "no trace in tests/data/qemu or $TRACES/recorded"
else
	"$PY" "$V" valid schema-report "$S/report.json" "$TMP"/rep/*.json > "$TMP/v" 2>&1
	verdicts "$TMP/v"
	# doctored: the biggest document, and one grouped by call site
	big=$(ls -S "$TMP"/rep/*.json | head -n 1)
	"$PY" "$V" doctored schema-report-doctored "$S/report.json" "$big" > "$TMP/v" 2>&1
	cs=$(ls -S "$TMP"/rep/*-callsite.json 2> /dev/null | head -n 1)
	[ -n "$cs" ] && "$PY" "$V" doctored schema-report-doctored-callsite "$S/report.json" "$cs" >> "$TMP/v" 2>&1
	verdicts "$TMP/v"
fi

# ---- diff -f json of two traces ----
set -- $TR
if [ $# -ge 2 ]; then
	a=$1 b=$2
	shift $(($# - 1))
	c=$1
	"$IPT" diff -f json "$a" "$b" > "$TMP/diff1.json" 2> "$TMP/diff.err" &&
	"$IPT" diff -f json --per-cpu "$b" "$c" > "$TMP/diff2.json" 2>> "$TMP/diff.err" &&
	"$IPT" diff -f json -L "$c" "$a" > "$TMP/diff3.json" 2>> "$TMP/diff.err" ||
		fail schema-diff "diff: $(tail -n 1 "$TMP/diff.err")"
	"$PY" "$V" valid schema-diff "$S/diff.json" "$TMP"/diff[123].json > "$TMP/v" 2>&1
	"$PY" "$V" doctored schema-diff-doctored "$S/diff.json" "$TMP/diff1.json" >> "$TMP/v" 2>&1
	verdicts "$TMP/v"
else
	skip schema-diff "fewer than two traces"
fi

# ---- top -f json from a fake serve ----
# (its unix socket path must fit sun_path: under /tmp, not $TMP's depth)
SOCK=$(mktemp -u /tmp/ipitrace-schema-XXXXXX.sock)
"$PY" "$V" fake-serve "$SOCK" "$TMP/fake.log" 2> "$TMP/fake.err" &
FP=$!
i=0
while [ ! -S "$SOCK" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
: > "$TMP/top.jsonl"
"$IPT" top --socket "$SOCK" -d 0.2 -f json -t 0 -q > "$TMP/top.jsonl" 2> "$TMP/top.err" &
TP=$!
# three intervals (a few seconds at most: the fake reads kallsyms once)
i=0
while [ "$(wc -l < "$TMP/top.jsonl")" -lt 3 ] && [ $i -lt 150 ] && kill -0 $TP 2> /dev/null; do
	sleep 0.1
	i=$((i + 1))
done
kill -INT $TP 2> /dev/null
wait $TP
rc=$?
kill $FP 2> /dev/null
wait $FP 2> /dev/null
rm -f "$SOCK"
if [ $rc != 0 ] || [ ! -s "$TMP/top.jsonl" ]; then
	fail schema-top "top rc $rc: $(head -n 2 "$TMP/top.err" "$TMP/fake.err" | tr '\n' ';')"
else
	# the JSON lines as one file each too, for the doctoring
	head -n 1 "$TMP/top.jsonl" > "$TMP/top1.jsonl"
	"$PY" "$V" valid schema-top "$S/top.json" "$TMP/top.jsonl" > "$TMP/v" 2>&1
	"$PY" "$V" top-fake schema-top-fake "$TMP/top.jsonl" "$TMP/fake.log" >> "$TMP/v" 2>&1
	"$PY" "$V" doctored schema-top-doctored "$S/top.json" "$TMP/top1.jsonl" >> "$TMP/v" 2>&1
	verdicts "$TMP/v"
fi

# ---- /watched: a document as the README describes one ----
cat > "$TMP/watched.json" <<'EOF'
{"schema":"ipitrace-watched/1","watch":"1","rows_total":3,"kept":3,"clock":"CLOCK_MONOTONIC","rows":[
{"ts_ns":1000,"src_cpu":0,"pid":42,"comm":"w","event":"ipi_send_cpu","targets":"1","ntargets":1,"callsite":"0xffffffff81000010","callsite_sym":"try_to_wake_up+0x10","callback":null,"callback_sym":null,"kind":"resched"},
{"ts_ns":1100,"src_cpu":0,"pid":42,"comm":"w","event":"csd_queue_cpu","targets":"1","ntargets":1,"callsite":"0xffffffff81000020","callsite_sym":null,"func":"0xffffffff81000030","func_name":"sched_ttwu_pending","stack":["a+0x1","0xffffffff81000040"]},
{"ts_ns":1200,"cpu":1,"event":"handler","vector":"reschedule","handler_ns":800}]}
EOF
"$PY" "$V" valid schema-watched-example "$S/watched.json" "$TMP/watched.json" > "$TMP/v" 2>&1
"$PY" "$V" doctored schema-watched-doctored "$S/watched.json" "$TMP/watched.json" >> "$TMP/v" 2>&1
verdicts "$TMP/v"
fi	# offline_part

live_part || finish
# ---- live: serve's /watched and top reading serve's counts ----
if [ "$B" != build ]; then
	echo "(the live part runs in the plain build's pass: BPF attached once)"
	finish
fi
LIVE_NAME=schema-live
. "$(dirname "$0")/live.sh"
. "$(dirname "$0")/observer.sh"	# start_serve
SOCK=$TMP/serve.sock
PORT=$((30000 + $$ % 20000))
start_serve schema-live --listen 127.0.0.1:$PORT --socket "$SOCK" --watch 1 -H 0 -t 0 || finish
"$IPT" top --socket "$SOCK" --once -d 2 -f json -t 0 -q > "$TMP/live-top.jsonl" 2> "$TMP/top.err" &
TP=$!
"$WL" --cpus 0,1 pingpong 2000 > /dev/null
"$WL" --cpus 0,1 membarrier 200 > /dev/null
wait $TP || fail schema-live-top "top: $(head -n 2 "$TMP/top.err" | tr '\n' ';')"
if "$PY" -c 'import sys, urllib.request
sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1], timeout=30).read())' \
	"http://127.0.0.1:$PORT/watched" > "$TMP/live-watched.json" 2> "$TMP/get.err"; then
	"$PY" "$V" valid schema-live-watched "$S/watched.json" "$TMP/live-watched.json" > "$TMP/v" 2>&1
	verdicts "$TMP/v"
else
	fail schema-live-watched "GET /watched: $(tail -n 1 "$TMP/get.err")"
fi
[ -s "$TMP/live-top.jsonl" ] && "$PY" "$V" valid schema-live-top "$S/top.json" "$TMP/live-top.jsonl" > "$TMP/v" 2>&1 &&
	verdicts "$TMP/v"
kill -TERM $SP 2> /dev/null
wait $SP
finish
