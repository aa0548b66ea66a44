#!/bin/sh
# test_text.sh - text traces (`trace-cmd report` output, tracefs `trace` text)
# decode to the same events as the binary traces they came from.
#
# What is compared, and why:
#
# 1. recorded/X.report.txt is `trace-cmd report X.dat`.  `ipitrace dump` of
#    the text and of the .dat must give the same number of events, the same
#    count for every event name, the same kernel_stack "=>" lines, and, for
#    ipi_*, csd_* and irq_vectors (NAME_entry/NAME_exit: vector=N) events,
#    identical lines once runs of blanks are collapsed, in the same order on
#    each CPU.  Both sides go through the same renderer, so this holds
#    whatever that renderer prints.  The order ACROSS CPUs is not compared:
#    the text has microseconds only, so events of two CPUs in the same
#    microsecond come out lowest CPU first, while the .dat orders them by
#    their nanoseconds.  Timestamps are compared at microsecond precision
#    (what the text has; dump prints microseconds for both).
#
# 2. recorded/tracefs-text.trace is the kernel's own text.  If a .dat of the
#    recorded set covers its time span, its ipi/csd/irq_vectors events are
#    compared field by field with that .dat's.  Otherwise (the case for the
#    stored traces: the text was taken after the .dat files) the dump is
#    compared with what the kernel text itself shows: the entry count of the
#    "# entries-in-buffer" header, the count per event name, and for every
#    ipi/csd/irq_vectors event its CPU, pid, timestamp and fields (cpu=,
#    vector=, call site, callback and func symbols with their offsets, csd
#    pointers, masks).  Not comparable: the task names of the text column
#    for a pid that changed its name (the model keeps one name per pid), the
#    "/0xSIZE" part of %pS (trace-cmd does not print it), and hashed %p
#    values other than as numbers.
#
# 3. public/lkml-snippets/*: pasted text, some with mail quoting.  Each must
#    load without error, and give the number of ipi_* events that an
#    independent grep counts in it (lines with task-pid, [CPU] and a
#    timestamp; a fragment posted without them cannot be placed and does
#    not count); their fields (CPU lists of masks, call sites, callbacks,
#    arm64 reasons when the renderer prints them as text) must match the
#    text; their kernel_stack "=>" lines must come back as they were.
#
# Field comparisons use a small Python parser (canon.py below), written
# independently of lib/text.c, that reduces a line of either side to
# "cpu ts pid event field=value...".
# seconds: 5
. "$(dirname "$0")/lib.sh"

[ -x "$IPT" ] || { skip text "no $IPT (build first)"; finish; }
[ -d "$TRACES/recorded" ] || { skip text "no traces under $TRACES"; finish; }
command -v "$PY" >/dev/null 2>&1 || PY=""

# is lib/text.c linked in?  (a weak fallback in a static archive can win)
printf '  a-1 [000] 1.000001: reschedule_entry: vector=253\n' > "$TMP/probe.txt"
if ! "$IPT" dump "$TMP/probe.txt" > /dev/null 2> "$TMP/err"; then
	fail "text support in $B/ipitrace" "$(head -c 200 "$TMP/err") (the weak stub of lib/zz_stub_text.c linked instead of lib/text.c?)"
	finish
fi

# ipi/csd/irq_vectors lines of a dump, squeezed, prefixed by the CPU and
# sorted by CPU only (stable): the per-CPU order stays as it was
percpu() {
	squeeze | awk '{
		for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) break
		if (i > NF) next
		ev = $(i + 2); sub(/:$/, "", ev)
		if (ev ~ /^(ipi_|csd_)/ || ($(i + 3) ~ /^vector=/ && ev ~ /_(entry|exit)$/)) {
			c = $i; gsub(/[^0-9]/, "", c); print c + 0 "\t" $0
		}
	}' | sort -s -n -k1,1
}

# event names and their counts of a dump (the word after the timestamp)
evcounts() {
	squeeze | awk '{
		for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) break
		if (i > NF) next
		ev = $(i + 2); sub(/:$/, "", ev); n[ev]++
	} END { for (e in n) print e, n[e] }' | sort
}

first_diff() { diff "$1" "$2" | head -n 4 | tr '\n' '|'; }

cat > "$TMP/canon.py" <<'EOF'
# canon.py [--reasons] FILE: one line per ipi/csd/irq_vectors event of a
# trace text or dump: "cpu ts pid event k=v ...", stably sorted by CPU.
import re, sys

args = sys.argv[1:]
reasons = "--reasons" in args
path = [a for a in args if not a.startswith("--")][0]
LINE = re.compile(r"^(?:\s*>+)*\s*(?P<comm>.*?)-(?P<pid>\d+)\s+(?:\(\s*[\d-]+\)\s+)?"
                  r"\[(?P<cpu>\d+)\]\s+(?:(?P<flags>\S+)\s+)?(?P<ts>\d+\.\d+):\s+"
                  r"(?P<ev>[\w.-]+):\s*(?P<rest>.*?)\s*$")
KEYS = {"ipi_send_cpu": ["cpu", "callsite", "callback"],
        "ipi_send_cpumask": ["cpumask", "callsite", "callback"],
        "csd_queue_cpu": ["cpu", "callsite", "func", "csd"],
        "csd_function_entry": ["func", "csd"], "csd_function_exit": ["func", "csd"],
        "ipi_raise": ["targets"], "ipi_entry": [], "ipi_exit": []}

def cpus_of(v):
    v = v.strip()
    if v.startswith("ARRAY["):
        bs = [int(b, 16) for b in v[6:].rstrip("]").replace(",", " ").split()]
        return [i * 8 + j for i, b in enumerate(bs) for j in range(8) if b >> j & 1]
    if not v:
        return []
    words = v.split(",")
    if "-" not in v and all(len(w) == 8 for w in words):
        n = int("".join(words), 16)
        return [i for i in range(len(words) * 32) if n >> i & 1]
    out = []
    for w in words:
        a, _, b = w.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out

def sym(v):
    v = v.rstrip(",")
    if v in ("(nil)", "0x0", ""):
        return "0x0"
    return re.sub(r"/0x[0-9a-f]+$", "", v)

def ptr(v):
    v = v.rstrip(",")
    if v in ("(nil)", ""):
        return "0x0"
    return hex(int(v, 16))

out = []
for line in open(path, errors="replace"):
    m = LINE.match(line)
    if not m:
        continue
    ev, rest = m.group("ev"), m.group("rest")
    if ev not in KEYS and not (re.match(r"\w+_(entry|exit)$", ev) and rest.startswith("vector=")):
        continue
    rest = rest.replace("[FAILED TO PARSE]", "")
    kv = {}
    am = re.search(r"cpumask=(ARRAY\[[^\]]*\])", rest)
    if am:
        kv["cpumask"] = am.group(1)
        rest = rest.replace(am.group(1), "")
    for k, v in re.findall(r"(\w+)=(\S*)", rest):
        kv.setdefault(k, v)
    f = {}
    if ev in KEYS:
        for k in KEYS[ev]:
            if k == "targets":
                v = kv.get("target_mask", kv.get("target_cpus", ""))
                f[k] = ",".join(map(str, cpus_of(v)))
            elif k == "cpumask":
                f[k] = ",".join(map(str, cpus_of(kv.get(k, ""))))
            elif k == "cpu":
                f[k] = str(int(kv.get(k, "0")))
            elif k == "csd":
                f[k] = ptr(kv.get(k, "0"))
            else:
                f[k] = sym(kv.get(k, "0x0"))
        r = re.search(r"\(([^()]*)\)\s*$", rest)
        if reasons and ev.startswith("ipi_") and ev not in ("ipi_send_cpu", "ipi_send_cpumask"):
            f["reason"] = r.group(1) if r else "?"
    else:
        f["vector"] = str(int(kv.get("vector", "0")))
    out.append((int(m.group("cpu")), "%d %s %s %s %s" % (
        int(m.group("cpu")), m.group("ts"), m.group("pid"), ev,
        " ".join("%s=%s" % kv2 for kv2 in sorted(f.items())))))
out.sort(key=lambda x: x[0])
for _, l in out:
    print(l)
EOF

canon() {	# canon FILE [--reasons]
	"$PY" "$TMP/canon.py" "$@"
}

# ---- 1. trace-cmd report text against its .dat ----
for r in "$TRACES"/recorded/*.report.txt; do
	[ -f "$r" ] || continue
	n=$(basename "$r")
	d=${r%.report.txt}.dat
	[ -f "$d" ] || { skip "$n" "no $(basename "$d") beside it"; continue; }
	if ! "$IPT" dump "$r" > "$TMP/t" 2> "$TMP/err" || [ -s "$TMP/err" ]; then
		fail "$n loads" "$(head -c 300 "$TMP/err")"; continue
	fi
	pass "$n loads"
	"$IPT" dump "$d" > "$TMP/d" 2> "$TMP/err" || { fail "$n: dump of the .dat" "$(head -c 300 "$TMP/err")"; continue; }
	head -n 1 "$TMP/t" > "$TMP/t.h"; head -n 1 "$TMP/d" > "$TMP/d.h"
	cmp -s "$TMP/t.h" "$TMP/d.h" && pass "$n CPU count ($(cat "$TMP/t.h"))" ||
		fail "$n CPU count" "text $(cat "$TMP/t.h"), .dat $(cat "$TMP/d.h")"
	a=$(grep -vc '^=>' "$TMP/t"); b=$(grep -vc '^=>' "$TMP/d")
	[ "$a" = "$b" ] && pass "$n events ($a)" || fail "$n events" "text $a, .dat $b"
	evcounts < "$TMP/t" > "$TMP/t.c"; evcounts < "$TMP/d" > "$TMP/d.c"
	cmp -s "$TMP/t.c" "$TMP/d.c" && pass "$n events per name ($(wc -l < "$TMP/t.c") names)" ||
		fail "$n events per name" "$(first_diff "$TMP/t.c" "$TMP/d.c")"
	percpu < "$TMP/t" > "$TMP/t.i"; percpu < "$TMP/d" > "$TMP/d.i"
	if [ ! -s "$TMP/d.i" ]; then
		fail "$n ipi/csd/irq_vectors lines" "none in the .dat"
	elif cmp -s "$TMP/t.i" "$TMP/d.i"; then
		pass "$n ipi/csd/irq_vectors lines per CPU ($(wc -l < "$TMP/t.i"))"
	else
		fail "$n ipi/csd/irq_vectors lines" "$(first_diff "$TMP/t.i" "$TMP/d.i")"
	fi
	grep '^=>' "$TMP/t" > "$TMP/t.s"; grep '^=>' "$TMP/d" > "$TMP/d.s"
	if [ -s "$TMP/d.s" ]; then
		# stacks follow their event: compare them as one sorted multiset
		# (ties across CPUs may reorder whole stacks)
		sort "$TMP/t.s" > "$TMP/t.ss"; sort "$TMP/d.s" > "$TMP/d.ss"
		cmp -s "$TMP/t.ss" "$TMP/d.ss" && pass "$n stack lines ($(wc -l < "$TMP/t.s"))" ||
			fail "$n stack lines" "$(first_diff "$TMP/t.ss" "$TMP/d.ss")"
	fi
done

# ---- 2. tracefs text ----
tf="$TRACES/recorded/tracefs-text.trace"
if [ ! -f "$tf" ]; then
	skip tracefs-text "no $tf"
elif ! "$IPT" dump "$tf" > "$TMP/f" 2> "$TMP/err" || [ -s "$TMP/err" ]; then
	fail "tracefs-text loads" "$(head -c 300 "$TMP/err")"
else
	pass "tracefs-text loads"
	first=$(grep -m1 -oE ' [0-9]+\.[0-9]{6}: ' "$tf" | tr -d ' :')
	last=$(grep -oE ' [0-9]+\.[0-9]{6}: ' "$tf" | tail -n 1 | tr -d ' :')
	match=""
	for d in "$TRACES"/recorded/*.dat; do
		[ -f "$d" ] || continue
		"$IPT" dump "$d" 2>/dev/null | grep -oE ' [0-9]+\.[0-9]{6}: ' | tr -d ' :' > "$TMP/ts"
		a=$(head -n 1 "$TMP/ts"); b=$(tail -n 1 "$TMP/ts")
		[ -n "$a" ] || continue
		if awk -v a="$a" -v b="$b" -v f="$first" -v l="$last" 'BEGIN { exit !(a <= f && l <= b) }'; then
			match=$d
			break
		fi
	done
	if [ -n "$match" ] && [ -n "$PY" ]; then
		n="tracefs-text vs $(basename "$match")"
		"$IPT" dump "$match" > "$TMP/m"
		canon "$TMP/f" > "$TMP/f.c"
		canon "$TMP/m" | awk -v f="$first" -v l="$last" '$2 >= f && $2 <= l' > "$TMP/m.c"
		cmp -s "$TMP/f.c" "$TMP/m.c" && pass "$n ipi/csd/irq_vectors fields ($(wc -l < "$TMP/f.c"))" ||
			fail "$n" "$(first_diff "$TMP/f.c" "$TMP/m.c")"
	else
		n="tracefs-text"
		[ -z "$match" ] && echo "# $n: no recorded .dat covers $first..$last: checking against the text itself"
		want=$(sed -nE 's/^# entries-in-buffer\/entries-written: ([0-9]+)\/.*/\1/p' "$tf")
		got=$(grep -vc -e '^=>' -e '^cpus=' -e '^CPU:' "$TMP/f")
		[ "$want" = "$got" ] && pass "$n entries ($got, as the header says)" ||
			fail "$n entries" "header says $want, dump has $got"
		grep -v '^#' "$tf" | awk '{
			for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break
			if (i < NF) { ev = $(i + 1); sub(/:$/, "", ev); n[ev]++ }
		} END { for (e in n) print e, n[e] }' | sort > "$TMP/f.tc"
		evcounts < "$TMP/f" > "$TMP/f.dc"
		cmp -s "$TMP/f.tc" "$TMP/f.dc" && pass "$n events per name ($(wc -l < "$TMP/f.tc") names)" ||
			fail "$n events per name" "$(first_diff "$TMP/f.tc" "$TMP/f.dc")"
		if [ -n "$PY" ]; then
			canon "$tf" > "$TMP/f.t"; canon "$TMP/f" > "$TMP/f.d"
			if [ -s "$TMP/f.t" ] && cmp -s "$TMP/f.t" "$TMP/f.d"; then
				pass "$n ipi/csd/irq_vectors fields per CPU ($(wc -l < "$TMP/f.t"))"
			else
				fail "$n ipi/csd/irq_vectors fields" "$(first_diff "$TMP/f.t" "$TMP/f.d")"
			fi
		else
			skip "$n fields" "no python3"
		fi
	fi
fi

# ---- 3. LKML snippets ----
# an event line: [mail quoting] task-pid [tgid] [CPU] [flags] secs.usecs: event:
ev_re='^[> ]*[^ ].*-[0-9]+ +(\( *[-0-9]+\) +)?\[[0-9]+\] +([^ ]+ +)?[0-9]+\.[0-9]+: +'
for s in "$TRACES"/public/lkml-snippets/*.txt; do
	[ -f "$s" ] || continue
	n=$(basename "$s" .txt)
	# stderr may only count the lines that are no event (prose around a paste)
	if ! "$IPT" dump "$s" > "$TMP/s" 2> "$TMP/err" ||
	   grep -v ' no event skipped (the first at offset [0-9]*)$' "$TMP/err" | grep -q .; then
		fail "$n loads" "$(head -c 300 "$TMP/err")"; continue
	fi
	want=$(grep -cE "${ev_re}ipi_[a-z_]+:" "$s")
	got=$(evcounts < "$TMP/s" | awk '$1 ~ /^ipi_/ { n += $2 } END { print n + 0 }')
	[ "$want" = "$got" ] && pass "$n: $got ipi events" || fail "$n ipi events" "grep counts $want, dump has $got"
	all=$(grep -cE "${ev_re}[A-Za-z0-9_.-]+:" "$s")
	got=$(grep -vc -e '^=>' -e '^cpus=' -e '^CPU:' "$TMP/s")
	[ "$all" = "$got" ] && pass "$n: $got events" || fail "$n events" "grep counts $all, dump has $got"
	if [ -n "$PY" ]; then
		r=""
		grep -qE ' \([A-Za-z ]+ interrupts\)$' "$TMP/s" && r=--reasons
		canon "$s" $r > "$TMP/s.t"; canon "$TMP/s" $r > "$TMP/s.d"
		if cmp -s "$TMP/s.t" "$TMP/s.d"; then
			pass "$n: fields of $(wc -l < "$TMP/s.t") ipi/csd/irq_vectors events${r:+ and reasons}"
		else
			fail "$n fields" "$(first_diff "$TMP/s.t" "$TMP/s.d")"
		fi
	fi
	if grep -qE '^[> ]*=>' "$s"; then
		# sorted: a snippet may paste its events out of time order
		sed -nE 's/^[> ]*(=>.*)/\1/p' "$s" | squeeze | sort > "$TMP/s.st"
		grep '^=>' "$TMP/s" | squeeze | sort > "$TMP/s.sd"
		cmp -s "$TMP/s.st" "$TMP/s.sd" && pass "$n: $(wc -l < "$TMP/s.st") stack lines" ||
			fail "$n stack lines" "$(first_diff "$TMP/s.st" "$TMP/s.sd")"
	fi
done

# ---- other public text traces: they load, with the ipi events grep finds ----
for s in "$TRACES"/public/developtools_smartperf_host/*.txt; do
	[ -f "$s" ] || continue
	n=$(basename "$s" .txt)
	# stderr may only count the lines that are no event (prose around a paste)
	if ! "$IPT" dump "$s" > "$TMP/s" 2> "$TMP/err" ||
	   grep -v ' no event skipped (the first at offset [0-9]*)$' "$TMP/err" | grep -q .; then
		fail "$n loads" "$(head -c 300 "$TMP/err")"; continue
	fi
	want=$(grep -cE "${ev_re}ipi_[a-z_]+:" "$s")
	got=$(evcounts < "$TMP/s" | awk '$1 ~ /^ipi_/ { n += $2 } END { print n + 0 }')
	[ "$want" = "$got" ] && pass "$n: $got ipi events" || fail "$n ipi events" "grep counts $want, dump has $got"
	all=$(grep -cE "${ev_re}[A-Za-z0-9_.-]+:" "$s")
	got=$(grep -vc -e '^=>' -e '^cpus=' -e '^CPU:' "$TMP/s")
	[ "$all" = "$got" ] && pass "$n: $got events" || fail "$n events" "grep counts $all, dump has $got"
done

# ---- a handler time too long for the row results' 32 bits (5.5 s), beside a short one ----
# (by hand: entry 100.000010, exit 105.500010; entry 106.000010, exit 106.000030)
cat > "$TMP/long.txt" <<'EOF'
# tracer: nop
#P:2
   ipi-workload-100     [000] d..2.   100.000000: ipi_send_cpu: cpu=1 callsite=ttwu_queue_wakelist+0x11d/0x150 callback=generic_smp_call_function_single_interrupt+0x0/0x10
          <idle>-0       [001] d.h1.   100.000010: call_function_single_entry: vector=251
          <idle>-0       [001] d.h1.   105.500010: call_function_single_exit: vector=251
   ipi-workload-100     [000] d..2.   106.000000: ipi_send_cpu: cpu=1 callsite=ttwu_queue_wakelist+0x11d/0x150 callback=generic_smp_call_function_single_interrupt+0x0/0x10
          <idle>-0       [001] d.h1.   106.000010: call_function_single_entry: vector=251
          <idle>-0       [001] d.h1.   106.000030: call_function_single_exit: vector=251
EOF
got=$("$IPT" convert -f csv -o - "$TMP/long.txt" 2> "$TMP/err" |
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "handler_ns") h = i; next } { printf "%s ", $h }')
[ "$got" = "5500000000 20000 " ] && pass "handler time of 5.5 s and of 20 us in the rows" ||
	fail "long handler time" "handler_ns: '$got' $(head -c 200 "$TMP/err")"

# ---- malformed text: one line naming the file and the line's offset ----
printf 'cpus=2\n  a-1 [000] 1.000001: ipi_send_cpu: cpu=1 callsite=f+0x1 callback=0x0\n  a-1 [000] 1.00000x: ipi_send_cpu: cpu=1\n' > "$TMP/bad.txt"
if "$IPT" dump "$TMP/bad.txt" > /dev/null 2> "$TMP/err"; then
	fail "malformed line" "accepted"
elif [ "$(wc -l < "$TMP/err")" = 1 ] && grep -q "bad.txt: offset 77: " "$TMP/err"; then
	pass "malformed line: error at its offset"
else
	fail "malformed line" "$(head -c 300 "$TMP/err")"
fi
finish
