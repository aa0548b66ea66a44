# test_examples.sh - examples/ built as a user builds them: `make install`
# into a DESTDIR, then examples/Makefile with pkg-config pointed there,
# shared (run with LD_LIBRARY_PATH) and static, with -Werror; what the
# programs print on real traces checked against `trace-cmd report` (the
# texts beside the recorded traces, or trace-cmd run now) by a parser of
# its own below; libipitrace(3)'s EXAMPLE is examples/count-events.c.
# Runs on the plain build only (an install of the ASan build is not made).
# asan: no - it builds against the installed plain library
# seconds: 26
. "$(dirname "$0")/lib.sh"
if [ "$B" != build ]; then
	echo "(the examples are built against the install of the plain build only)"
	finish
fi
D=$TMP/dest
inst() { make -C "$TOP" -s install DESTDIR="$D" PREFIX=/usr > "$TMP/inst" 2>&1; }
# (test_install.sh may make build/ipitrace.pc at the same moment: once more
# if the copy installed was caught empty)
if ! inst || { ! grep -q '^Libs:' "$D/usr/lib/pkgconfig/ipitrace.pc" && ! { inst &&
     grep -q '^Libs:' "$D/usr/lib/pkgconfig/ipitrace.pc"; }; }; then
	fail "make install" "$(tail -n 3 "$TMP/inst" | tr '\n' ';')"
	finish
fi
export PKG_CONFIG_PATH="$D/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D"
unset PKG_CONFIG_LIBDIR
PROGS="count-events ipi-rows report"
STRICT="-std=gnu11 -O2 -g -Wall -Wextra -Werror"
mkdir -p "$TMP/shared" "$TMP/static" "$TMP/asan"
if make -C "$TOP/examples" -s O="$TMP/shared" CFLAGS="$STRICT" > "$TMP/mk" 2>&1; then
	pass "examples/Makefile: built with pkg-config against the DESTDIR, $STRICT"
else
	fail "examples build (shared)" "$(head -n 5 "$TMP/mk" | tr '\n' ';')"
	finish
fi
nodyn=""
for p in $PROGS; do
	ldd "$TMP/shared/$p" | grep -q 'libipitrace.so.0 => ' || nodyn="$nodyn $p"
done
[ -z "$nodyn" ] && pass "the shared examples need libipitrace.so.0" || fail "dynamic link" "$nodyn"
export LD_LIBRARY_PATH="$D/usr/lib"
STATIC=0
if make -C "$TOP/examples" -s O="$TMP/static" STATIC=1 CFLAGS="$STRICT" > "$TMP/mk" 2>&1; then
	STATIC=1
	pass "examples/Makefile STATIC=1: built with pkg-config --static"
else
	fail "examples build (static)" "$(grep -v '^make' "$TMP/mk" | head -n 5 | tr '\n' ';')"
fi
# an ASan+UBSan build of the examples over the plain library: LeakSanitizer
# sees every allocation, the library's too, so a leak of the examples (or
# of what they free through the API) ends the run with an error
ASANOK=0
if make -C "$TOP/examples" -s O="$TMP/asan" \
	CFLAGS="-std=gnu11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	LDFLAGS="-fsanitize=address,undefined" > "$TMP/mk" 2>&1; then
	ASANOK=1
else
	skip "examples under ASan" "no ASan build: $(grep -v '^make' "$TMP/mk" | head -n 2 | tr '\n' ';')"
fi

# the EXAMPLE section of the installed libipitrace(3) is count-events.c,
# line for line (its roff source, unescaped)
"$PY" -c '
import re, sys
src = open(sys.argv[1]).read().split("\n.SH EXAMPLE\n", 1)[1].split("\n.SH ", 1)[0]
body = src.split("\n.nf\n", 1)[1].split("\n.fi", 1)[0]
body = re.sub(r"^\.ta .*\n", "", body)		# the tab stops, set every 8 columns
print(re.sub(r"\\(e|-|&)", lambda m: {"e": "\\", "-": "-", "&": ""}[m.group(1)], body))
' "$D/usr/share/man/man3/libipitrace.3" > "$TMP/man-example" 2> "$TMP/man-err"
if [ -s "$TMP/man-example" ] && cmp -s "$TMP/man-example" "$TOP/examples/count-events.c"; then
	pass "libipitrace(3) EXAMPLE = examples/count-events.c ($(wc -l < "$TOP/examples/count-events.c") lines)"
else
	fail "libipitrace(3) EXAMPLE" "differs from examples/count-events.c: $(cat "$TMP/man-err") $(diff "$TOP/examples/count-events.c" "$TMP/man-example" | head -n 4 | tr '\n' ' ')"
fi

# errors: a missing file (1, the library's message), a bad filter (2, the
# column named), a bad key, no argument (2)
out=$("$TMP/shared/count-events" "$TMP/nonexistent.dat" 2>&1); rc=$?
[ $rc = 1 ] && case $out in *nonexistent.dat*) true ;; *) false ;; esac &&
	pass "count-events on a missing file: exit 1, '$out'" || fail "count-events, missing file" "exit $rc: $out"
out=$("$TMP/shared/ipi-rows" "$TOP/tests/data/qemu/arm64-6.1.dat" 'cpu == ' 2>&1); rc=$?
[ $rc = 2 ] && case $out in *"filter: column"*) true ;; *) false ;; esac &&
	pass "ipi-rows with a bad filter: exit 2, '$out'" || fail "ipi-rows, bad filter" "exit $rc: $out"
"$TMP/shared/report" "$TOP/tests/data/qemu/arm64-6.1.dat" nokey > /dev/null 2>&1; rc1=$?
"$TMP/shared/report" > /dev/null 2>&1; rc2=$?
[ $rc1 = 2 ] && [ $rc2 = 2 ] && pass "report with a bad key, with no argument: exit 2" ||
	fail "report usage" "exit $rc1 and $rc2"

# The checker: the outputs of one trace against its `trace-cmd report` text.
cat > "$TMP/check.py" <<'PY'
import collections, re, sys
name, ref, outdir = sys.argv[1:4]
EV = re.compile(r'^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{6}):\s+(\w+):\s*(.*)$')
events = []                     # (comm, cpu, us, event, fields)
for l in open(ref, errors='replace'):
    m = EV.match(l.rstrip('\n'))
    if m:
        events.append((m.group(1), int(m.group(3)), int(m.group(4)) * 1000000 + int(m.group(5)),
                       m.group(6), m.group(7)))
def out(n):
    return open('%s/%s' % (outdir, n)).read().split('\n')
def verdict(what, bad, figures):
    print(('F %s %s: %s' % (name, what, bad)) if bad else ('P %s %s: %s' % (name, what, figures)))

# count-events: per event name, per CPU, in all
want_ev = collections.Counter(e[3] for e in events)
want_cpu = collections.Counter(e[1] for e in events)
got_ev, got_cpu, got_total = collections.Counter(), collections.Counter(), None
for l in out('count-events'):
    m = re.match(r'^\s*(\d+)  (.*)$', l)
    if not m:
        continue
    n, what = int(m.group(1)), m.group(2)
    if what.startswith('on cpu '):
        got_cpu[int(what[7:])] += n
    elif what == 'events in all':
        got_total = n
    else:
        got_ev[what.split(':', 1)[-1]] += n
bad = []
if got_ev != want_ev:
    bad.append('per event %s' % sorted(set((got_ev - want_ev).items()) | set((want_ev - got_ev).items()))[:4])
if +got_cpu != +want_cpu:
    bad.append('per cpu %s, want %s' % (dict(got_cpu), dict(want_cpu)))
if got_total != len(events):
    bad.append('in all %s, want %d' % (got_total, len(events)))
verdict('count-events', '; '.join(bad), '%d events, %d types, %d CPUs' % (len(events), len(want_ev), len(want_cpu)))

# the IPI rows of the send tracepoints: ipi_send_cpu, one row; ipi_raise
# (arm64), a row per bit of target_mask, lowest first
sends = [e for e in events if e[3] in ('ipi_send_cpu', 'ipi_send_cpumask', 'ipi_raise')]
rows = []
skipwhy = None
for comm, cpu, us, ev, f in sends:
    if ev == 'ipi_send_cpu':
        m = re.match(r'cpu=(\d+) callsite=(\S+) callback=(\S+)$', f)
        cb = re.sub(r'\+0x0$', '', m.group(3))
        rows.append((us, cpu, int(m.group(1)), m.group(2), '-' if cb == '0x0' else cb, comm))
    elif ev == 'ipi_raise':
        m = re.match(r'target_mask=([0-9a-f,]+) \((.*)\)$', f)
        mask = int(m.group(1).replace(',', ''), 16)
        for t in range(mask.bit_length()):
            if mask >> t & 1:
                rows.append((us, cpu, t, '-', '(%s)' % m.group(2), comm))
    else:
        skipwhy = 'ipi_send_cpumask: its mask text is not parsed here'
got_rows = [l for l in out('ipi-rows') if l]
if not sends and len(got_rows) > 2:
    skipwhy = 'sends from kprobes, not tracepoints: not parsed here'
if skipwhy:
    print('S %s ipi-rows, report senders: %s' % (name, skipwhy))
    rows = None

RW = re.compile(r'^\s*(\d+)\.(\d{9})\s+(\d+) -> (\d+)\s+(\S+)\s+(\S+)\s+(.*)$')
def check_rows(fname, keep, what):
    got, stats, per = [], None, collections.Counter()
    for l in out(fname):
        m = RW.match(l)
        if m:
            ns = int(m.group(1)) * 10**9 + int(m.group(2))
            # trace-cmd prints microseconds rounded to the nearest
            got.append(((ns + 500) // 1000, int(m.group(3)), int(m.group(4)), m.group(6),
                        m.group(7).split(' -> ')[0]))
            continue
        m = re.match(r'^(\d+) send events, (\d+) rows, (\d+) kept$', l)
        if m:
            stats = tuple(int(x) for x in m.groups())
        m = re.match(r'^\s*(\d+)  to cpu (\d+)$', l)
        if m:
            per[int(m.group(2))] = int(m.group(1))
    want = [r[:5] for r in rows if keep(r)]
    bad = []
    if got != want:
        i = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]), min(len(got), len(want)))
        bad.append('%d rows, want %d; row %d: %s, want %s' % (len(got), len(want), i,
                   got[i] if i < len(got) else None, want[i] if i < len(want) else None))
    if stats != (len(sends), len(rows), len(want)):
        bad.append('stats %s, want %s' % (stats, (len(sends), len(rows), len(want))))
    if per != collections.Counter(r[2] for r in want):
        bad.append('per target %s' % dict(per))
    verdict('ipi-rows %s' % what, '; '.join(bad),
            '%d of %d rows (time, sender, target, call site, callback) to %d CPUs' % (len(want), len(rows), len(per)))
if rows is not None:
    check_rows('ipi-rows', lambda r: True, '(all)')
    check_rows('ipi-rows-cpu1', lambda r: r[2] == 1, "'cpu == 1'")
    check_rows('ipi-rows-src0', lambda r: r[1] == 0 and r[2] != 0, "'src_cpu == 0 && target_cpu != 0'")

# report: totals; per CPU: IPIs received, sent, IPI interrupts (the
# handlers' entry events); the top 10 senders by comm
HANDLERS = ('reschedule_entry', 'call_function_entry', 'call_function_single_entry',
            'irq_work_entry', 'ipi_entry')
want_h = collections.Counter(e[1] for e in events if e[3] in HANDLERS)
rep = out('report')
bad = []
m = re.match(r'^(\d+) events, (\d+) IPI send events, (\d+) IPIs', rep[0])
tot = tuple(int(x) for x in m.groups()) if m else None
want_tot = (len(events), len(sends), len(rows)) if rows is not None else None
if not tot or (tot != want_tot if want_tot else tot[0] != len(events)):
    bad.append('totals %s, want %s' % (tot, want_tot))
kinds = re.findall(r' \w+ (\d+)', rep[1]) if rep[1].startswith('kinds:') else []
if tot and sum(int(k) for k in kinds) != tot[2]:
    bad.append('kinds add up to %d, not %d' % (sum(int(k) for k in kinds), tot[2]))
table = {}
for l in rep:
    m = re.match(r'^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)$', l)
    if m:
        table[int(m.group(1))] = tuple(int(x) for x in m.groups()[1:5])
for c in sorted(set(table) | set(want_h)):
    ipis, sent, handlers, matched = table.get(c, (0, 0, 0, 0))
    if handlers != want_h[c]:
        bad.append('cpu %d: %d handlers, want %d' % (c, handlers, want_h[c]))
    if matched > ipis:
        bad.append('cpu %d: %d matched of %d' % (c, matched, ipis))
    if rows is not None:
        w = (sum(1 for r in rows if r[2] == c), sum(1 for r in rows if r[1] == c))
        if (ipis, sent) != w:
            bad.append('cpu %d: ipis, sent %s, want %s' % (c, (ipis, sent), w))
top = []
ntop = None
for l in rep:
    m = re.match(r'^top comm of (\d+), all target CPUs$', l)
    if m:
        ntop = int(m.group(1))
        continue
    m = re.match(r'^\s*(\d+)  (.*)$', l)
    if ntop is not None and m:
        top.append((int(m.group(1)), m.group(2)))
if rows is not None:
    by_comm = collections.Counter(r[5] for r in rows)
    wrong = [(n, c, by_comm[c]) for n, c in top if by_comm[c] != n]
    if ntop != len(by_comm) or wrong or [n for n, _ in top] != sorted(by_comm.values(), reverse=True)[:10]:
        bad.append('top comm: of %s, want %d; %s; counts %s, want %s' % (ntop, len(by_comm), wrong[:3],
                   [n for n, _ in top], sorted(by_comm.values(), reverse=True)[:10]))
verdict('report', '; '.join(bad), '%s%d CPUs (%s)%s' % (
    'events, send events, IPIs %s; ' % (tot,) if rows is not None else '%d events; ' % len(events),
    len(table), 'IPIs, sent, handlers' if rows is not None else 'handlers',
    ', top %d of %d comms' % (len(top), ntop) if rows is not None else ''))
PY

# every trace: the qemu ones of the tree, the recorded ones of ../shared
set -- "$TOP"/tests/data/qemu/*.dat
if [ -d "$TRACES/recorded" ]; then
	set -- "$@" "$TRACES"/recorded/*.dat
else
	skip "recorded traces" "$TRACES/recorded is missing (../shared not there): the qemu traces only"
fi
n=0
for f in "$@"; do
	base=$(basename "$f"); base=${base%%.*}
	ref=$(dirname "$f")/$base.report.txt
	if [ ! -f "$ref" ]; then
		if ! command -v trace-cmd > /dev/null 2>&1; then
			skip "$(basename "$f")" "no $base.report.txt beside it, and no trace-cmd"
			continue
		fi
		trace-cmd report -i "$f" > "$TMP/ref.txt" 2> /dev/null || { fail "trace-cmd report $f" "exit $?"; continue; }
		ref=$TMP/ref.txt
	fi
	o=$TMP/out; rm -rf "$o"; mkdir -p "$o"
	ran=1
	for dir in shared static; do
		[ "$dir" = static ] && [ "$STATIC" = 0 ] && continue
		x=$TMP/$dir; s=""; [ "$dir" = static ] && s=.static
		"$x/count-events" "$f" > "$o/count-events$s" &&
		"$x/ipi-rows" "$f" > "$o/ipi-rows$s" &&
		"$x/ipi-rows" "$f" 'cpu == 1' > "$o/ipi-rows-cpu1$s" &&
		"$x/ipi-rows" "$f" 'src_cpu == 0 && target_cpu != 0' > "$o/ipi-rows-src0$s" &&
		"$x/report" "$f" > "$o/report$s" 2> "$o/err" || { fail "examples ($dir) on $f" "$(cat "$o/err")"; ran=0; }
	done
	[ $ran = 1 ] || continue
	n=$((n + 1))
	if [ "$STATIC" = 1 ]; then
		diffs=""
		for p in count-events ipi-rows ipi-rows-cpu1 ipi-rows-src0 report; do
			cmp -s "$o/$p" "$o/$p.static" || diffs="$diffs $p"
		done
		[ -z "$diffs" ] && pass "$(basename "$f"): static = shared output" || fail "$(basename "$f"): static differs" "$diffs"
	fi
	"$PY" "$TMP/check.py" "$(basename "$f")" "$ref" "$o" > "$TMP/verdicts" 2>&1 || echo "F $(basename "$f") checker: $(tail -n 1 "$TMP/verdicts")" >> "$TMP/verdicts"
	verdicts "$TMP/verdicts"
done
[ $n -gt 0 ] || fail "traces" "none read"

# under ASan: each program on one trace of each kind, with every key of report
if [ "$ASANOK" = 1 ]; then
	bad="" na=0
	for f in "$TOP/tests/data/qemu/arm64-6.1.dat" "$TOP/tests/data/qemu/x86_64-6.1-kprobes.dat" \
		 $(inputs "$TRACES/recorded/busy-stacks.dat" "$TRACES/recorded/busy-stacks.report.txt"); do
		[ -f "$f" ] || continue
		na=$((na + 1))
		"$TMP/asan/count-events" "$f" > /dev/null 2> "$TMP/aerr" || bad="$bad count-events:$(basename "$f")"
		"$TMP/asan/ipi-rows" "$f" 'kind == "resched" || cpu == 1' > /dev/null 2>> "$TMP/aerr" ||
			bad="$bad ipi-rows:$(basename "$f")"
		for k in comm pid task cpu callsite function kind stack; do
			"$TMP/asan/report" "$f" $k > /dev/null 2>> "$TMP/aerr" || bad="$bad report-$k:$(basename "$f")"
		done
	done
	"$TMP/asan/ipi-rows" "$TOP/tests/data/qemu/arm64-6.1.dat" 'cpu ==' > /dev/null 2>&1
	[ $? = 2 ] || bad="$bad ipi-rows:bad-filter"
	# damaged inputs: cut short (inside the data, inside the headers), and
	# not a trace: exit 0 or 1 with a message, and no sanitizer error
	head -c 40000 "$TOP/tests/data/qemu/arm64-6.1.dat" > "$TMP/cut.dat"
	head -c 3000 "$TOP/tests/data/qemu/arm64-6.1.dat" > "$TMP/cut2.dat"
	head -c 3000 /dev/urandom > "$TMP/noise.dat"
	for f in "$TMP/cut.dat" "$TMP/cut2.dat" "$TMP/noise.dat"; do
		for p in count-events ipi-rows report; do
			ASAN_OPTIONS=exitcode=86 UBSAN_OPTIONS=exitcode=86 "$TMP/asan/$p" "$f" > /dev/null 2> "$TMP/aerr1"
			rc=$?
			cat "$TMP/aerr1" >> "$TMP/aerr"
			if [ $rc -gt 1 ] || grep -q 'ERROR: \|runtime error' "$TMP/aerr1"; then
				bad="$bad $p:$(basename "$f"):exit$rc"
			fi
		done
	done
	[ -z "$bad" ] && pass "ASan+UBSan builds of the examples: no leak, no error (3 programs on $na inputs, 8 keys; 3 damaged ones)" ||
		fail "examples under ASan" "$(echo $bad | cut -d' ' -f1-4) ($(echo $bad | wc -w) in all): $(grep -m 1 'ERROR\|runtime error' "$TMP/aerr")"
fi
finish
