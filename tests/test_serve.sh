# test_serve.sh - `ipitrace serve` against independent sources: its counters
# equal a tracefs instance's recording over the same window (per target CPU
# and per call site, on the workload's modes), read from two /metrics
# answers and through a real Prometheus server (raw samples and increase());
# the flight recorder's rows of the watched CPU equal the instance's sends
# to it, and `report` reads them; the observer effect with serve watching
# CPU 1 from CPU 0, scraped every second (alone); `top` reuses serve's
# attachment (no new programs, no text-patching IPIs), and so does
# `record --from-serve`, whose counts and rows equal the instance's; a second serve
# refuses; bad HTTP requests do not hurt it; SIGTERM detaches; a 20 s soak.
# BPF runs once per `make check`: in the plain build's pass only.
# run: live
# alone: part - the observer effect (IPIs from serve's task to CPU 1 in six 5 s windows, scraped every second) is measured with nothing else running (IPT_PART=alone): beside the offline tests, a task of theirs on CPU 1 that serve's task wakes (a lock it released) is counted as serve's (two runs of make check saw 4 of 6 quiet); the rest runs in the live lane
# asan: no - BPF programs attached once, in the plain pass (the script says so itself)
. "$(dirname "$0")/lib.sh"
if [ "$B" != build ]; then
	echo "(serve's BPF tests run in the plain build's pass)"
	finish
fi
LIVE_NAME=serve
. "$(dirname "$0")/live.sh"
. "$(dirname "$0")/observer.sh"

SOCK=$TMP/serve.sock
PORT=$((20000 + $$ % 20000))
URL=http://127.0.0.1:$PORT
PROM_PID=""

if live_part; then	# (the bodies are not indented: heredocs)
"$IPT" serve --listen bad:addr:x --socket "$TMP/u.sock" > /dev/null 2>&1; r1=$?
"$IPT" serve --top -1 > /dev/null 2>&1; r2=$?
"$IPT" serve --ring-kb 3 > /dev/null 2>&1; r3=$?
if [ $r1 = 2 ] && [ $r2 = 2 ] && [ $r3 = 2 ]; then pass serve-usage; else fail serve-usage "rc $r1 $r2 $r3"; fi

nprogs() { bpftool prog show 2>/dev/null | grep -c ' name ipt_'; }
progs0=$(nprogs)

start_serve serve --listen 127.0.0.1:$PORT --socket "$SOCK" --watch 1 -H 0 -t 0 --keep 200000 --stacks ||
	finish
progs1=$(nprogs)

# ---- a second serve refuses, naming the first ----
"$IPT" serve --listen 127.0.0.1:$((PORT + 1)) --socket "$SOCK" > /dev/null 2> "$TMP/second.err"; rc=$?
if [ $rc = 1 ] && grep -q "another ipitrace serve runs (pid $SP" "$TMP/second.err"; then
	pass serve-second-refuses
else
	fail serve-second-refuses "rc $rc: $(cat "$TMP/second.err")"
fi

# ---- bad requests: garbage, too large, NUL bytes, slow, many at once ----
if $PY - "$PORT" > "$TMP/bad.txt" 2>&1 <<'EOF'
import socket, sys, threading, time
port = int(sys.argv[1])
def ask(data, wait=3):
    s = socket.create_connection(('127.0.0.1', port), timeout=wait)
    try:
        if data:
            s.sendall(data)
        out = b''
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except (socket.timeout, ConnectionResetError, BrokenPipeError):
        pass
    s.close()
    return out.split(b'\r\n', 1)[0].decode(errors='replace')
# a request never finished is dropped after 10 s (asked beside the others)
res = {}
def slow():
    t = time.time()
    res['slow'] = ask(b'GET /metr', wait=15)
    res['slow_s'] = round(time.time() - t)
th = threading.Thread(target=slow)
th.start()
res.update({
 'garbage': ask(b'\x00\xff garbage\r\n\r\n'),
 'line': ask(b'HELLO\r\n\r\n'),
 'post': ask(b'POST /metrics HTTP/1.1\r\n\r\n'),
 'huge': ask(b'GET /' + b'a' * 20000 + b' HTTP/1.1\r\n\r\n'),
 'nohdr': ask(b'GET /metrics HTTP/1.1\r\n' + b'X: y\r\n' * 2000),
 'notfound': ask(b'GET /nope HTTP/1.0\r\n\r\n'),
 'snapshot_tcp': ask(b'GET /snapshot HTTP/1.0\r\n\r\n'),
})
# more connections than it serves at once, then a real request still answered
idle = [socket.create_connection(('127.0.0.1', port)) for _ in range(40)]
time.sleep(0.5)
for s in idle:
    s.close()
res['after'] = ask(b'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n')
th.join()
print(res)
ok = (res['garbage'].startswith('HTTP/1.1 400') and res['line'].startswith('HTTP/1.1 400') and
      res['post'].startswith('HTTP/1.1 405') and res['huge'].startswith('HTTP/1.1 431') and
      res['nohdr'].startswith('HTTP/1.1 431') and res['notfound'].startswith('HTTP/1.1 404') and
      res['snapshot_tcp'].startswith('HTTP/1.1 404') and res['slow'] == '' and 8 <= res['slow_s'] <= 13 and
      res['after'].startswith('HTTP/1.1 200'))
sys.exit(0 if ok else 1)
EOF
then
	pass "serve-bad-requests: $(tr -d '\n' < "$TMP/bad.txt" | cut -c1-300)"
else
	fail serve-bad-requests "$(tr -d '\n' < "$TMP/bad.txt")"
fi
kill -0 $SP 2>/dev/null || fail serve-alive "serve died on bad requests"

# ---- counts equal a tracefs instance over the same window ----
WLC=wlsrv$$
cp "$WL" "$TMP/$WLC"
CNT=$T/instances/ipitrace-test-serve-$$
make_send_counter 16384
run_workload() {	# run_workload NAME: the workload's modes under that command name
	"$TMP/$1" pingpong 3000 > /dev/null
	"$TMP/$1" membarrier 500 > /dev/null
	"$TMP/$1" tlb 200 > /dev/null
	"$TMP/$1" --rate 2000 pingpong 1000 > /dev/null
}
curl -sf "$URL/metrics" > "$TMP/before.prom"
echo 1 > "$CNT/tracing_on"
run_workload "$WLC"
# the shell's wait returns when the last workload is reaped, which can be
# before that task's last schedule on its CPU (whose idle balancing may
# still send, in its name): let it end
sleep 0.2
echo 0 > "$CNT/tracing_on"
curl -sf "$URL/metrics" > "$TMP/after.prom"
cp "$CNT/trace" "$TMP/trace.txt"
if $PY "$TOP/tests/serve_compare.py" scrape "$TMP/before.prom" "$TMP/after.prom" "$TMP/trace.txt" "$WLC" \
	> "$TMP/cmp" 2>&1; then
	pass "serve-equal: $(cat "$TMP/cmp")"
else
	fail serve-equal "$(head -n 6 "$TMP/cmp" | tr '\n' ';')"
fi
if grep -q 'ipitrace_dropped_total{reason="send_map_full"} 0' "$TMP/after.prom" &&
   grep -q 'ipitrace_dropped_total{reason="ring_full"} 0' "$TMP/after.prom"; then
	pass serve-no-loss
else
	fail serve-no-loss "$(grep dropped "$TMP/after.prom" | tr '\n' ';')"
fi
if grep -q '^ipitrace_ipi_handler_seconds_bucket{cpu="1",vector="reschedule",le="+Inf"}' "$TMP/after.prom" &&
   grep -q '^ipitrace_interrupts_total{cpu="1",vector="reschedule"}' "$TMP/after.prom"; then
	pass serve-histogram
else
	fail serve-histogram "no handler histogram for CPU 1"
fi

# ---- the flight recorder: the rows of the watched CPU 1 ----
"$IPT" serve --dump "$TMP/watched.txt" --socket "$SOCK" 2> "$TMP/dump.err"
# it names tasks and call paths: for the owner only (like the socket)
mode=$(stat -c %a "$TMP/watched.txt" 2> /dev/null)
[ "$mode" = 600 ] && pass "serve-dump-mode: the flight recorder's file is 0600" ||
	fail serve-dump-mode "mode $mode"
(cd "$TOP/tests" && $PY - "$TMP/trace.txt" "$TMP/watched.txt" "$WLC" "$TMP/before.prom" "$TMP/after.prom") \
	> "$TMP/rows.cmp" 2>&1 <<'EOF'
# the sends to CPU 1 (a mask that holds CPU 1 once), each side read as top_compare reads a trace
# (and the sends just before an exec, which may be named either way: as many rows more at most)
import sys
from collections import Counter
from top_compare import trace_counts
from serve_compare import misses_in
unsure = (Counter(), Counter())
a = sum(n for (ev, t), n in trace_counts(sys.argv[1], sys.argv[3], unsure=unsure)[0].items() if t == 1)
u = sum(n for (ev, t), n in unsure[0].items() if t == 1)
b = sum(n for (ev, t), n in trace_counts(sys.argv[2], sys.argv[3])[0].items() if t == 1)
# a send the programs did not run for is a recursion miss (counted): as many rows fewer at most
missed = misses_in(sys.argv[5]) - misses_in(sys.argv[4])
print('tracefs %d, serve rows %d%s%s' % (a, b, ' (recursion misses in the window: %d)' % missed if missed else '',
                                         ' (sends just before an exec: %d)' % u if u else ''))
sys.exit(0 if a > 0 and -u <= a - b <= missed else 1)
EOF
if [ $? = 0 ]; then pass "serve-rows: sends of the workload targeting CPU 1: $(cat "$TMP/rows.cmp")"
else fail serve-rows "$(cat "$TMP/rows.cmp" "$TMP/dump.err" | head -n 3 | tr '\n' ';')"; fi
# --stacks: each row of the workload's membarrier sends carries its stack,
# which must pass through the membarrier system call (known by construction)
stacks_check() {	# stacks_check DUMP: exit 0 when every membarrier row has its stack
$PY - "$1" "$WLC" > "$TMP/stk.txt" 2>&1 <<'EOF'
import sys
lines = open(sys.argv[1], errors='replace').read().split('\n')
rows = ok = 0
for i, l in enumerate(lines):
    if sys.argv[2] in l and 'callsite=membarrier_private_expedited' in l:
        rows += 1
        st = []
        if i + 1 < len(lines) and lines[i + 1].endswith('<stack trace>'):
            j = i + 2
            while j < len(lines) and lines[j].startswith(' => '):
                st.append(lines[j][4:])
                j += 1
        ok += any('sys_membarrier' in f for f in st) and not any(f.startswith('bpf_prog_') for f in st)
print('%d of %d membarrier rows with a stack through sys_membarrier' % (ok, rows))
sys.exit(0 if rows and ok == rows else (2 if not rows else 1))
EOF
}
stacks_check "$TMP/watched.txt"; rc=$?
# membarrier interrupts CPU 1 only while the spinner is current there: on a
# machine busy with the other test jobs a run can draw none; then again, paced
# over half a second so that the spinner is current there for part of it
tries=1
while [ $rc = 2 ] && [ $tries -lt 5 ]; do
	tries=$((tries + 1))
	"$TMP/$WLC" --rate 600 membarrier 300 > /dev/null
	sleep 0.2
	"$IPT" serve --dump "$TMP/watched2.txt" --socket "$SOCK" 2>> "$TMP/dump.err"
	stacks_check "$TMP/watched2.txt"; rc=$?
	echo " (membarrier run $tries: the runs before drew no IPI to CPU 1)" >> "$TMP/stk.txt"
done
[ $rc = 0 ] && pass "serve-stacks: $(tr -d '\n' < "$TMP/stk.txt")" ||
	fail serve-stacks "$(tr -d '\n' < "$TMP/stk.txt")"
# the dump reads back with its clock and with sends matched to the handlers kept
"$IPT" report "$TMP/watched.txt" > "$TMP/report.txt" 2>&1 && grep -q 'IPIs (one per target CPU)' "$TMP/report.txt" &&
	grep -q 'clock CLOCK_MONOTONIC\|clock mono' "$TMP/report.txt" &&
	grep -Eq 'remote IPIs matched to a handler: [1-9]' "$TMP/report.txt" &&
	pass "serve-dump-report: $(grep -o 'remote IPIs matched to a handler: [^(]*' "$TMP/report.txt")" ||
	fail serve-dump-report "$(grep -E 'duration|matched to a handler' "$TMP/report.txt" | head -n 3 | tr '\n' ';')"
# /watched: the sends to CPU 1, and the IPI handlers that ran there (their
# entry and time, so that what comes out has latencies)
curl -sf "$URL/watched" | $PY -c 'import json, sys
d = json.load(sys.stdin)
rows = d["rows"][-200:]
hdl = [r for r in rows if r.get("event") == "handler"]
ipis = [r for r in rows if r.get("event") != "handler"]
assert d["watch"] == "1" and ipis, "no IPI rows"
bad = [r for r in ipis if 1 not in [int(c) for c in r["targets"].split(",") if c.isdigit()]]
assert not bad, "rows not to CPU 1: %r" % bad[:2]
assert hdl, "no handler rows among %d" % len(rows)
bad = [r for r in hdl if r["cpu"] != 1 or not r["handler_ns"] or not r["vector"]]
assert not bad, "handler rows not of CPU 1: %r" % bad[:2]
print("%d IPI rows to CPU 1, %d handler rows on it" % (len(ipis), len(hdl)))' \
	> "$TMP/w.out" 2> "$TMP/w.err" && pass "serve-watched-json: $(cat "$TMP/w.out")" ||
	fail serve-watched-json "$(tail -n 1 "$TMP/w.err")"
kill -USR1 $SP
wait_for "rows written to $TMP/watched.txt" "$TMP/serve.err"	# symbolizing stacks takes a while
[ -s "$TMP/watched.txt" ] && grep -q "rows written to $TMP/watched.txt" "$TMP/serve.err" &&
	pass serve-sigusr1-dump || fail serve-sigusr1-dump "$(tail -n 1 "$TMP/serve.err")"
rmdir "$CNT"

# ---- a real Prometheus server scraping serve ----
PROM=$(command -v prometheus || ls /usr/bin/prometheus 2>/dev/null)
PPORT=$((PORT + 2))
if [ -z "$PROM" ]; then
	skip serve-prometheus "no prometheus (Debian package prometheus)"
else
	mkdir "$TMP/prom"
	cat > "$TMP/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: ipitrace
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
	taskset -c 0 "$PROM" --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/prom" \
		--web.listen-address=127.0.0.1:$PPORT > "$TMP/prom.log" 2>&1 &
	PROM_PID=$!
	PIDS="$PIDS $PROM_PID"
	i=0
	until curl -sf "http://127.0.0.1:$PPORT/-/ready" > /dev/null 2>&1 || [ $i -gt 100 ]; do
		sleep 0.2; i=$((i + 1))
	done
	# Prometheus applies its targets on a 5 s tick: wait for its first scrapes
	i=0
	until curl -sf "http://127.0.0.1:$PPORT/api/v1/query?query=ipitrace_scrapes_total" 2>/dev/null |
		grep -q '"value"' || [ $i -gt 100 ]; do
		sleep 0.2; i=$((i + 1))
	done
	WLP=wlprm$$
	cp "$WL" "$TMP/$WLP"
	run_workload "$WLP"	# warm-up: the series exist before the window
	sleep 3
	make_send_counter 16384
	t_on=$(date +%s.%N)
	echo 1 > "$CNT/tracing_on"
	sleep 0.3
	run_workload "$WLP"
	sleep 0.3
	echo 0 > "$CNT/tracing_on"
	t_off=$(date +%s.%N)
	cp "$CNT/trace" "$TMP/trace2.txt"
	rmdir "$CNT"
	sleep 3
	if (cd "$TOP/tests" && $PY serve_compare.py prom "http://127.0.0.1:$PPORT" "$t_on" "$t_off" \
		"$TMP/trace2.txt" "$WLP") > "$TMP/pcmp" 2>&1; then
		pass "serve-prometheus: $(cat "$TMP/pcmp")"
	else
		fail serve-prometheus "$(head -n 6 "$TMP/pcmp" | tr '\n' ';') $(tail -n 2 "$TMP/prom.log" | tr '\n' ';')"
	fi
fi

if [ -n "$PROM_PID" ]; then
	kill -TERM $PROM_PID
	wait $PROM_PID 2>/dev/null
fi

# ---- top reuses serve's attachment: no new programs, no text-patching IPIs ----
mkfifo "$TMP/go"
cmd_ipis() {	# cmd_ipis NAME ARGS: IPIs to CPU 1 sent by `ipitrace ARGS` from task context (out and err
		# in $TMP/NAME.out, .err), and the programs loaded during it
	name=$1
	shift
	(read x < "$TMP/go"; exec "$IPT" "$@" > "$TMP/$name.out" 2> "$TMP/$name.err") &
	TP=$!
	make_counter "common_pid == $TP"
	echo 1 > "$CNT/tracing_on"
	echo go > "$TMP/go"
	# the most programs loaded while it runs (sampled: a busy machine may
	# attach late, or be done early)
	during=$(nprogs)
	while kill -0 $TP 2> /dev/null; do
		p=$(nprogs)
		[ "$p" -gt "$during" ] && during=$p
		sleep 0.1
	done
	wait $TP
	echo 0 > "$CNT/tracing_on"
	# from task context only: a softirq or an interrupt that came while the
	# task was current (flag h or s: a timer's wakeup, the tick's nohz kick)
	# is not its doing
	grep -v '^#' "$CNT/trace" | grep -E 'ipi_send_cpu: cpu=1 |ipi_send_cpumask: cpumask=([^ ]*,)?(1|0-[1-9][0-9]*)[, ]' |
		grep -vE '\] ..[hsHz]' > "$TMP/$name.ipis"
	sent=$(grep -c . "$TMP/$name.ipis")
	rmdir "$CNT"
}
top_ipis() { cmd_ipis top top --once -d 1 -f json --socket "$SOCK" "$@"; }
top_ipis
shared_sent=$sent shared_progs=$during
grep -q "the attachment of ipitrace serve (pid $SP" "$TMP/top.err"; shared_msg=$?
top_ipis --no-serve
own_sent=$sent own_progs=$during
echo "top --once with serve: $shared_sent IPIs to CPU 1, programs $progs1 -> $shared_progs; with --no-serve: $own_sent IPIs, programs $own_progs"
if [ $shared_msg = 0 ] && [ "$shared_progs" = "$progs1" ] && [ "$shared_sent" -le 10 ] && [ "$own_sent" -gt 30 ] &&
   [ "$own_progs" -gt "$progs1" ]; then
	pass "serve-top-shares: top --once attaches nothing ($shared_sent IPIs to CPU 1 vs $own_sent attaching itself; programs $progs1 stay $shared_progs vs $own_progs)"
else
	fail serve-top-shares "msg $shared_msg; progs $progs1 -> $shared_progs (own $own_progs); IPIs $shared_sent (own $own_sent); $(head -n 2 "$TMP/top.err" | tr '\n' ';')"
fi

# ---- record --from-serve: serve's counts and rows over the window, nothing attached ----
WLR=wlrec$$
cp "$WL" "$TMP/$WLR"
make_send_counter 16384
echo 1 > "$CNT/tracing_on"
# (the sleep: the last workload's last schedule, as above, inside record's window)
"$IPT" record --from-serve --socket "$SOCK" -o "$TMP/fromserve.txt" -- sh -c \
	"'$TMP/$WLR' pingpong 2000 > /dev/null; '$TMP/$WLR' membarrier 300 > /dev/null; '$TMP/$WLR' tlb 100 > /dev/null; sleep 0.2" \
	2> "$TMP/fromserve.err"
rc=$?
echo 0 > "$CNT/tracing_on"
cp "$CNT/trace" "$TMP/trace3.txt"
rmdir "$CNT"
if [ $rc = 0 ] && (cd "$TOP/tests" && $PY serve_compare.py recfile "$TMP/fromserve.txt" "$TMP/trace3.txt" "$WLR") \
	> "$TMP/rcmp" 2>&1; then
	pass "record-from-serve-counts: $(cat "$TMP/rcmp")"
else
	fail record-from-serve-counts "rc $rc: $(head -n 6 "$TMP/rcmp" "$TMP/fromserve.err" | tr '\n' ';')"
fi
(cd "$TOP/tests" && $PY - "$TMP/trace3.txt" "$TMP/fromserve.txt" "$WLR") > "$TMP/rrows" 2>&1 <<'EOF'
# the workload's sends to CPU 1 (serve watches CPU 1): the file's rows against the instance's
import re, sys
from collections import Counter
from top_compare import trace_counts
unsure = (Counter(), Counter())
a = sum(n for (ev, t), n in trace_counts(sys.argv[1], sys.argv[3], unsure=unsure)[0].items() if t == 1 and ev != 'csd_queue_cpu')
u = sum(n for (ev, t), n in unsure[0].items() if t == 1 and ev != 'csd_queue_cpu')
b = sum(n for (ev, t), n in trace_counts(sys.argv[2], sys.argv[3])[0].items() if t == 1 and ev != 'csd_queue_cpu')
m = re.search(r'^# not counted recursion_misses=(\d+)$', open(sys.argv[2]).read(), re.M)
missed = int(m.group(1)) if m else 0
print('tracefs %d, rows %d%s%s' % (a, b, ' (recursion misses in the window: %d)' % missed if missed else '',
                                   ' (sends just before an exec: %d)' % u if u else ''))
sys.exit(0 if a > 0 and -u <= a - b <= missed else 1)
EOF
if [ $? = 0 ]; then pass "record-from-serve-rows: the workload's IPIs to CPU 1: $(cat "$TMP/rrows")"
else fail record-from-serve-rows "$(head -n 3 "$TMP/rrows" | tr '\n' ';')"; fi
"$IPT" report "$TMP/fromserve.txt" > "$TMP/rreport.txt" 2>&1 && grep -q 'IPIs (one per target CPU)' "$TMP/rreport.txt" &&
	pass record-from-serve-report || fail record-from-serve-report "$(head -n 3 "$TMP/rreport.txt" | tr '\n' ';')"
# attaching nothing: no program loaded, no text-patching IPIs, where a
# plain `record` (a tracefs instance of its own) sends dozens
cmd_ipis rec record --from-serve --socket "$SOCK" -q -d 1 -o "$TMP/fs-quiet.txt"
shared_sent=$sent shared_progs=$during
cmd_ipis rec record -q -d 1 -o "$TMP/own.dat"
own_sent=$sent
if [ "$shared_progs" = "$progs1" ] && [ "$shared_sent" -le 10 ] && [ "$own_sent" -gt 30 ]; then
	pass "record-from-serve-attaches-nothing: $shared_sent IPIs to CPU 1 (a plain record: $own_sent); programs $progs1 stay $shared_progs"
else
	fail record-from-serve-attaches-nothing "progs $progs1 -> $shared_progs; IPIs $shared_sent (plain record $own_sent); $(head -n 2 "$TMP/rec.err" | tr '\n' ';'); $(sed 's/^.*: ipi_send/ipi_send/' "$TMP/rec.ipis" | sort | uniq -c | sort -rn | head -n 3 | tr '\n' ';')"
fi
"$IPT" record --from-serve --socket "$TMP/none.sock" -d 0.1 -o "$TMP/none.txt" 2> "$TMP/none.err"; rc=$?
"$IPT" record --from-serve --socket "$SOCK" --stacks -o "$TMP/none.txt" 2> "$TMP/none2.err"; rc2=$?
if [ $rc = 1 ] && [ $rc2 = 2 ] && [ ! -e "$TMP/none.txt" ] && grep -q "no ipitrace serve answers" "$TMP/none.err" &&
   grep -q -- "--stacks: not with --from-serve" "$TMP/none2.err"; then
	pass "record-from-serve-errors: $(head -n 1 "$TMP/none.err")"
else
	fail record-from-serve-errors "rc $rc $rc2: $(cat "$TMP/none.err" "$TMP/none2.err" | tr '\n' ';')"
fi

# ---- a malformed answer on the socket: one line naming it, then top attaches itself ----
$PY - "$TMP/fake.sock" > /dev/null 2>&1 <<'EOF' &
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(4)
s.settimeout(20)
for answer in (b'HTTP/1.0 200 OK\r\n\r\nipitrace-bpf-snapshot 2\npid 1\ns 1 2 9 zz\nend\n',):
    c, _ = s.accept()
    c.recv(4096)
    c.sendall(answer)
    c.close()
EOF
FP=$!
PIDS="$PIDS $FP"
i=0
while [ ! -S "$TMP/fake.sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
"$IPT" top --once -d 0.2 -q --socket "$TMP/fake.sock" > /dev/null 2> "$TMP/fake.err"; rc=$?
wait $FP 2>/dev/null
if [ $rc = 0 ] && grep -q "warning: $TMP/fake.sock: malformed snapshot at line 3; attaching instead" "$TMP/fake.err"; then
	pass "serve-bad-snapshot: $(head -n 1 "$TMP/fake.err")"
else
	fail serve-bad-snapshot "rc $rc: $(head -n 2 "$TMP/fake.err" | tr '\n' ';')"
fi

# ---- SIGTERM detaches cleanly ----
stop $SP TERM
if [ "$RC" = 0 ] && [ ! -e "$SOCK" ] && [ "$(nprogs)" = "$progs0" ] && grep -q "SIGTERM, detaching" "$TMP/serve.err"; then
	pass "serve-sigterm: rc 0, socket removed, programs back to $progs0"
else
	fail serve-sigterm "rc $RC, socket $(ls "$SOCK" 2>&1), programs $(nprogs) (before $progs0)"
fi

# ---- the soak, 20 s (make soak: 10 minutes; CI runs that) ----
if sh "$TOP/tests/soak.sh" "$B" 20 > "$TMP/soak.txt" 2>&1; then
	pass "serve-soak-20s: $(tail -n 1 "$TMP/soak.txt")"
else
	fail serve-soak-20s "$(tail -n 3 "$TMP/soak.txt" | tr '\n' ';')"
fi
fi	# live_part

alone_part || finish
# ---- the observer effect: serve watching CPU 1 from CPU 0, scraped every second ----
# (a scraper on the housekeeping CPU, as Prometheus would run there: an HTTP
# GET of /metrics every second; Prometheus itself is checked in the live part)
start_serve serve-observer --listen 127.0.0.1:$PORT --socket "$SOCK" --watch 1 -H 0 -t 0 --keep 200000 --stacks ||
	finish
taskset -c 0 sh -c "while :; do curl -sf $URL/metrics > /dev/null || echo scrape failed; sleep 1; done" > "$TMP/scrape.log" 2>&1 &
SCRAPER=$!
PIDS="$PIDS $SCRAPER"
sleep 2
observe_quiet "$SP" serve
kill $SCRAPER
wait $SCRAPER 2>/dev/null
if grep -q 'scrape failed' "$TMP/scrape.log"; then
	fail serve-observer "a scrape of $URL/metrics failed: $(head -n 2 "$TMP/serve.err" | tr '\n' ';')"
elif [ $quiet -ge 5 ]; then
	pass "serve-observer: $quiet of 6 windows without an IPI to CPU 1 from serve (scraped every 1 s)${first_fig:+ (the run before: $first_fig)}"
else
	fail serve-observer "only $quiet of 6 windows quiet (task/irq/irq_work:$fig; the run before: $first_fig; sends to CPU 1: $sends_seen)"
fi
stop $SP TERM
finish
