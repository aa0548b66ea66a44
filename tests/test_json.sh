#!/bin/sh
# test_json.sh - a task's UTF-8 name comes out of every JSON output as it is,
# read back by an independent parser (Python's json module) and compared
# with the name's bytes:
#  (a) report -f json and convert -f jsonl of text traces written here, in
#      the `trace-cmd report` format, whose tasks are called "wörker" and
#      "日本", and in a second one "x\377y\177z" (not UTF-8, with a DEL: it
#      must come out as the rule of ipt_json_str says, "x\u00ffy\u007fz",
#      and the document stay valid UTF-8 and JSON);
#  (c) the escaper itself: tests/unit_json --emit writes what ipt_json_str
#      makes of its cases and of random bytes; each line must parse, be
#      valid UTF-8, and be byte for byte what the rule (written again in
#      Python below) gives;
#  (b) live (root, tracefs; BPF for serve): top -f json and serve's /watched
#      while the IPI workload runs under the name "wörker-日本", and a
#      recording of it read by report and convert.
# (b) runs in the live lane, (a) and (c) beside it (tests/run.sh, "run:
# split").
# run: split
# fast: no - a live script (run: split); make check runs it
# seconds: 2
. "$(dirname "$0")/lib.sh"
case $B in /*) BD=$B ;; *) BD=$TOP/$B ;; esac
IPT=$BD/ipitrace

"$PY" -c 'import json' 2>/dev/null || { skip json "no python3 json module ($PY)"; finish; }

# comms_check TAG FILE LINES NAME...: FILE (one JSON document, or LINES=lines
# of them) parses, and its "comm" values, wherever they are, are exactly the
# NAMEs (the expected strings' UTF-8 bytes in hex; "+HEX": a name that must
# also be in the text as these very bytes, unescaped)
comms_check() {
	tag=$1 file=$2 lines=$3
	shift 3
	if "$PY" - "$file" "$lines" "$@" > "$TMP/cc.out" 2>&1 <<'PY'
import json, sys
path, lines = sys.argv[1], sys.argv[2] == 'lines'
want = [bytes.fromhex(h.lstrip('+')) for h in sys.argv[3:]]
literal = [bytes.fromhex(h[1:]) for h in sys.argv[3:] if h[0] == '+']
raw = open(path, 'rb').read()
raw.decode('utf-8')	# strict: the output is UTF-8
docs = [json.loads(l) for l in raw.splitlines() if l.strip()] if lines else [json.loads(raw)]
found = []
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k == 'comm' and x is not None:
                found.append(x)
            walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)
for d in docs:
    walk(d)
# compared as bytes: what the parser gave, encoded again, against each name
got = set(s.encode('utf-8') for s in found)
if not found or got != set(want):
    print('comm values %r, want %r' % (sorted(got), sorted(want)))
    sys.exit(1)
# a UTF-8 name is in the text as its own bytes, not escaped
for w in literal:
    if b'"' + w + b'"' not in raw:
        print('%r not written as it is' % w)
        sys.exit(1)
print('%d comm values, %d names' % (len(found), len(got)))
PY
	then
		pass "$tag: $(cat "$TMP/cc.out")"
	else
		fail "$tag" "$(tail -n 3 "$TMP/cc.out" | tr '\n' ';')"
	fi
}
hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }
W=$(hex 'wörker')
J=$(hex '日本')
# what the rule makes of "x\377y\177z", decoded: x, U+00FF, y, U+007F, z
X=$(printf 'x\303\277y\177z' | od -An -tx1 | tr -d ' \n')

if offline_part; then	# (a) and (c) (the body is not indented: heredocs)
# ---- (a) report and convert of text traces: UTF-8 names, and one that is not ----
printf '%s\n' \
'          wörker-157   [000]    10.894320: ipi_send_cpu:         cpu=1 callsite=check_preempt_curr+0x37 callback=0x0' \
'          wörker-157   [000]    10.895068: ipi_send_cpu:         cpu=1 callsite=try_to_wake_up+0x29e callback=sched_ttwu_pending+0x0' \
'            日本-158   [002]    10.895069: ipi_send_cpumask:     cpumask=0-1 callsite=smp_call_function_many_cond+0x1a0 callback=do_sync_core+0x0' \
	> "$TMP/utf8.txt"
{
	head -n 1 "$TMP/utf8.txt"
	printf '        x\377y\177z-159   [002]    10.895070: ipi_send_cpu:         cpu=1 callsite=try_to_wake_up+0x29e callback=sched_ttwu_pending+0x0\n'
} > "$TMP/bytes.txt"
for t in utf8 bytes; do
	if [ $t = utf8 ]; then names="+$W +$J"; else names="+$W $X"; fi
	for v in "report -f json -i 1" "report -f json -g comm -i 1" "report -f json -g task"; do
		tag="json-$t-report${v#report -f json}"
		if $IPT $v "$TMP/$t.txt" > "$TMP/r.json" 2> "$TMP/r.err"; then
			comms_check "$tag" "$TMP/r.json" doc $names
		else
			fail "$tag" "rc: $(head -n 2 "$TMP/r.err" | tr '\n' ';')"
		fi
	done
	for v in "convert -f jsonl -o -" "convert --no-explode -f jsonl -o -"; do
		tag=json-$t-$(echo "$v" | sed 's/ -o -//; s/ -f jsonl//')
		if $IPT $v "$TMP/$t.txt" > "$TMP/c.jsonl" 2> "$TMP/c.err"; then
			comms_check "$tag" "$TMP/c.jsonl" lines $names
		else
			fail "$tag" "rc: $(head -n 2 "$TMP/c.err" | tr '\n' ';')"
		fi
	done
done

# ---- (c) the escaper, case by case and on random bytes ----
if [ ! -x "$BD/tests/unit_json" ]; then
	fail json-rule "no $BD/tests/unit_json (build first)"
elif ! "$BD/tests/unit_json" --emit > "$TMP/emit.txt" 2> "$TMP/emit.err"; then
	fail json-rule "unit_json --emit: $(head -n 2 "$TMP/emit.err" | tr '\n' ';')"
elif "$PY" - "$TMP/emit.txt" > "$TMP/rule.out" 2>&1 <<'PY'
import json, sys

def units(b):
    """(bytes, char or None): the valid UTF-8 characters of b, else single bytes"""
    i = 0
    while i < len(b):
        if b[i] >= 0x80:
            for n in (2, 3, 4):
                try:
                    s = b[i:i + n].decode('utf-8')	# strict: no overlong, surrogate, > U+10FFFF
                except UnicodeDecodeError:
                    continue
                if len(s) == 1:
                    yield b[i:i + n], s
                    i += n
                    break
            else:
                yield b[i:i + 1], None
                i += 1
        else:
            yield b[i:i + 1], None
            i += 1

def rule(b):
    """the JSON text the rule asks for, and the string it must decode to"""
    out, text = bytearray(b'"'), []
    for u, ch in units(b):
        c = u[0]
        if ch is not None:
            out += u
            text.append(ch)
        elif c in (0x22, 0x5c):
            out += b'\\' + u
            text.append(chr(c))
        elif c < 0x20 or c >= 0x7f:
            out += b'\\u%04x' % c
            text.append(chr(c))
        else:
            out += u
            text.append(chr(c))
    return bytes(out + b'"'), ''.join(text)

n = bad = 0
for line in open(sys.argv[1], 'rb'):
    h, _, got = line.rstrip(b'\n').partition(b'\t')
    b = bytes.fromhex(h.decode())
    want, text = rule(b)
    n += 1
    try:
        ok = got == want and json.loads(got.decode('utf-8')) == text
    except ValueError as e:
        ok = False
    if not ok:
        bad += 1
        if bad <= 3:
            print('input %s: got %r, want %r' % (h.decode(), got, want))
print('%d strings, %d unlike the rule' % (n, bad))
sys.exit(1 if bad or n < 1000 else 0)
PY
then
	pass "json-rule: $(tail -n 1 "$TMP/rule.out")"
else
	fail json-rule "$(tail -n 4 "$TMP/rule.out" | tr '\n' ';')"
fi

fi	# offline_part

live_part || finish
# ---- (b) live: top, serve and a recording, with the workload so named ----
LIVE_NAME=json-live
. "$(dirname "$0")/live.sh"
. "$(dirname "$0")/observer.sh"
NAME='wörker-日本'	# 14 bytes: the kernel's 15 keep it whole
N=$(hex "$NAME")
cp "$WL" "$TMP/$NAME"

# a recording: the name from the kernel's comm, through trace.dat
if "$IPT" record -q -o "$TMP/rec.dat" -- "$TMP/$NAME" --cpus 0,1 pingpong 500 > /dev/null 2> "$TMP/rec.err"; then
	"$IPT" convert -f jsonl -o - "$TMP/rec.dat" > "$TMP/rec.jsonl" 2> "$TMP/rec.err"
	"$IPT" report -f json "$TMP/rec.dat" > "$TMP/rec.json" 2>> "$TMP/rec.err"
	"$PY" - "$TMP/rec.jsonl" "$TMP/rec.json" "$N" > "$TMP/rec.out" 2>&1 <<'PY'
import json, sys
name = bytes.fromhex(sys.argv[3])
rows = [json.loads(l) for l in open(sys.argv[1], 'rb').read().decode('utf-8').splitlines()]
senders = json.loads(open(sys.argv[2], 'rb').read().decode('utf-8'))['senders']
mine = [r for r in rows if r['comm'].encode('utf-8') == name]
top = [s for s in senders if s['comm'].encode('utf-8') == name]
print('convert: %d of %d rows sent by %s; report: %d of %d senders' %
      (len(mine), len(rows), name.decode(), len(top), len(senders)))
sys.exit(0 if mine and top else 1)
PY
	[ $? = 0 ] && pass "json-record: $(cat "$TMP/rec.out")" || fail json-record "$(tail -n 2 "$TMP/rec.out" "$TMP/rec.err" | tr '\n' ';')"
else
	fail json-record "record: $(tail -n 2 "$TMP/rec.err" | tr '\n' ';')"
fi

# senders_named FILE LINES: FILE's senders (top) or rows (serve) name the workload
senders_named() {
	"$PY" - "$1" "$2" "$N" <<'PY'
import json, sys
path, lines, name = sys.argv[1], sys.argv[2] == 'lines', bytes.fromhex(sys.argv[3])
raw = open(path, 'rb').read().decode('utf-8')
docs = [json.loads(l) for l in raw.splitlines() if l.strip()] if lines else [json.loads(raw)]
comms = []
for d in docs:
    for c in d.get('cpus', []):
        comms += [s['comm'] for s in c['senders']]
    comms += [r['comm'] for r in d.get('rows', []) if r.get('event') != 'handler']
mine = [c for c in comms if c.encode('utf-8') == name]
near = sorted(set(c for c in comms if c.startswith('w') and c != name.decode()))
print('%d of %d senders named %s%s' % (len(mine), len(comms), name.decode(),
      '; near it: %r' % near if near else ''))
sys.exit(0 if mine else 1)
PY
}

# top -f json (its counts from BPF, or its tracefs fallback)
"$IPT" top --no-serve --once -d 4 -f json -t 0 > "$TMP/top.json" 2> "$TMP/top.err" &
TP=$!
PIDS="$PIDS $TP"
if ! wait_for "counting with" "$TMP/top.err"; then
	kill $TP 2>/dev/null
	wait $TP
	fail json-top "top did not start: $(head -n 2 "$TMP/top.err" | tr '\n' ';')"
else
	"$TMP/$NAME" --cpus 0,1 pingpong 2000 > /dev/null
	"$TMP/$NAME" --cpus 0,1 membarrier 200 > /dev/null
	wait $TP
	rc=$?
	src=$(grep -o 'counting with [A-Za-z]*' "$TMP/top.err" | head -n 1)
	if [ $rc != 0 ]; then
		fail json-top "rc $rc: $(head -n 2 "$TMP/top.err" | tr '\n' ';')"
	elif senders_named "$TMP/top.json" doc > "$TMP/top.out" 2>&1; then
		pass "json-top ($src): $(tail -n 1 "$TMP/top.out")"
	else
		fail json-top "($src) $(tail -n 2 "$TMP/top.out" | tr '\n' ';')"
	fi
fi

# serve's /watched (the flight recorder's rows of CPU 1)
PORT=$((40000 + $$ % 20000))
if start_serve json-serve --listen 127.0.0.1:$PORT --socket "$TMP/serve.sock" --watch 1 -H 0 -t 0; then
	"$TMP/$NAME" --cpus 0,1 pingpong 2000 > /dev/null
	"$TMP/$NAME" --cpus 0,1 membarrier 200 > /dev/null
	if "$PY" -c 'import sys, urllib.request
sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1], timeout=30).read())' \
		"http://127.0.0.1:$PORT/watched" > "$TMP/watched.json" 2> "$TMP/get.err"; then
		if senders_named "$TMP/watched.json" doc > "$TMP/serve.out" 2>&1; then
			pass "json-serve: $(tail -n 1 "$TMP/serve.out")"
		else
			fail json-serve "$(tail -n 2 "$TMP/serve.out" | tr '\n' ';')"
		fi
	else
		fail json-serve "GET /watched: $(tail -n 1 "$TMP/get.err")"
	fi
fi
kill -TERM $SP 2>/dev/null
wait $SP
finish
