#!/bin/sh
# test_html.sh - `ipitrace report --html`: one self-contained HTML file.
#
# For a real trace (with --isolated) and synthetic ones (x86, arm64, 256
# CPUs): the report is written, has no script, no external resource and no
# http(s) URL (xmlns attributes aside), its SVG blocks are well-formed XML,
# and its numbers agree with `ipitrace report --format json`: the kinds,
# the per-CPU table (beyond 16 CPUs its table of every CPU: IPIs, kinds,
# sent, latency and handler p50/p99/max,
# lost events), the heatmap's cells, the matching section, IPIs per CPU
# over time adding up to the IPIs counted, per-kind latency samples adding
# up to the per-CPU ones.  Both printers read one result of the library's
# report, so this checks the HTML printer against the JSON one, on every
# trace under traces/recorded and tests/data too.  Headless Chromium (Debian's; installed if missing) then loads
# the page: no console error, and the heatmap, the time chart and the
# histograms are laid out with a non-zero size; a screenshot is kept in
# BUILD_DIR/html-report/.  A 2M-event trace's report must stay under 2 MB.
# The ASan pass writes and checks the reports of one trace of each kind
# (lib.sh `inputs`) and of the synthetic ones; the 2M-event page and
# Chromium's layout it leaves to the plain pass: the page is the same file
# in both builds (the plain pass lays out every page it writes), and
# neither the page's size nor Chromium is what ASan checks.
#
#   sh tests/test_html.sh [BUILD_DIR]      (default build)
#
# One line per check: "PASS name", "FAIL name: why", "SKIP name: why";
# the last line is "RESULT <passed> <failed>".
# seconds: 45
. "$(dirname "$0")/lib.sh"

GEN="$TOP/$B/tools/gen-synth"
SHOTS="$TOP/$B/html-report"
MAX_BYTES=2097152

if [ ! -x "$IPT" ]; then
	fail build "$IPT is missing (run make)"
	finish
fi
mkdir -p "$TMP/h" "$SHOTS"

# ---- reports: NAME TRACE [OPTIONS] ----
REPORTS=""	# all: checked statically and against the JSON
SHOWN=""	# these also in Chromium
add_report() {	# add_report NAME TRACE OPTIONS...
	name=$1 trace=$2
	shift 2
	if "$IPT" report --html "$TMP/h/$name.html" "$@" "$trace" 2> "$TMP/err" &&
	   [ -s "$TMP/h/$name.html" ]; then
		pass "report-$name"
		REPORTS="$REPORTS $name"
		case "$name" in all-*) ;; *) SHOWN="$SHOWN $name" ;; esac
		echo "$trace" > "$TMP/h/$name.trace"
		"$IPT" report --format json "$@" "$trace" > "$TMP/h/$name.json" 2> /dev/null
	else
		fail "report-$name" "exit status or empty file: $(head -n 1 "$TMP/err")"
	fi
}

REC="$TRACES/recorded/pingpong.dat"
if [ -f "$REC" ]; then
	add_report pingpong "$REC" --isolated 1
else
	skip report-pingpong "no $REC"
fi
if [ -x "$GEN" ]; then
	"$GEN" -o "$TMP/x86.dat" -e 20000 -s 3 -n 8 &&
	"$GEN" -o "$TMP/arm64.dat" -a arm64 -e 20000 -s 4 -n 8 &&
	"$GEN" -o "$TMP/wide.dat" -n 256 -e 100000 -s 2 ||
		fail gen-synth "could not write synthetic traces"
	[ -f "$TMP/x86.dat" ] && add_report synth-x86 "$TMP/x86.dat" --assume-synced-clock --isolated 3-4
	[ -f "$TMP/arm64.dat" ] && add_report synth-arm64 "$TMP/arm64.dat" --assume-synced-clock
	[ -f "$TMP/wide.dat" ] && add_report synth-256cpus "$TMP/wide.dat" --assume-synced-clock \
		-F 'kind != "resched"'
else
	skip gen-synth "$GEN is missing: synthetic reports not checked"
fi
# every shared trace, and the text trace of tests/data
for f in $(inputs "$TRACES"/recorded/* "$TOP/tests/data/latency.report.txt"); do
	add_report "all-$(basename "$f" | tr -c 'A-Za-z0-9\n' '-')" "$f"
done

# option handling
if "$IPT" report --help | grep -q -- '--html'; then
	pass help-text
else
	fail help-text "report --help does not mention --html"
fi
if [ -n "$REPORTS" ]; then
	t1=$(cat "$TMP/h/$(echo $REPORTS | cut -d' ' -f1).trace")
	if "$IPT" report --html "$TMP/nodir/x.html" "$t1" > /dev/null 2>&1; then
		fail html-bad-path "exit 0 for an unwritable path"
	else
		pass html-bad-path
	fi
	if "$IPT" report --html - "$t1" 2> /dev/null | grep -q '</html>'; then
		pass html-stdout
	else
		fail html-stdout "--html - did not write the page to standard output"
	fi
	ls -a "$TMP/h" | grep -q 'tmp' && fail no-temp-files "$(ls -a "$TMP/h" | grep tmp)" || pass no-temp-files
fi

# ---- static checks of each file ----
for n in $REPORTS; do
	f="$TMP/h/$n.html"
	# no URL but the SVG namespace, no script, no external resource of any kind
	urls=$(sed -E 's/xmlns(:[a-z]+)?="https?:[^"]*"//g' "$f" | grep -o -E 'https?://[^"<> ]*' | head -n 3)
	ext=$(grep -o -i -E '<script|<link|<img|<iframe|<object|<embed|@import|@font-face|url\([^#)]' "$f" | head -n 3)
	if [ -n "$urls" ]; then
		fail "self-contained-$n" "URLs: $(echo $urls)"
	elif [ -n "$ext" ]; then
		fail "self-contained-$n" "external resource or script: $(echo $ext)"
	else
		pass "self-contained-$n"
	fi
	# SVG blocks are well-formed XML; the numbers agree with the JSON report
	if msg=$("$PY" - "$f" "$TMP/h/$n.json" 2>&1 <<'EOF'
import json, re, sys
import xml.etree.ElementTree as ET
from html import unescape as html_unescape
html = open(sys.argv[1], encoding='utf-8').read()
rep = json.load(open(sys.argv[2]))
svgs = re.findall(r'<svg\b.*?</svg>', html, re.S)
assert svgs, 'no <svg> element'
for s in svgs:
    try:
        ET.fromstring(s)
    except ET.ParseError as e:
        raise SystemExit('SVG not well-formed: %s: %s' % (e, s[:120]))
ids = set(re.findall(r'<svg id="([^"]+)"', html))
if rep['ipis_counted']:
    for need in ('heatmap-svg', 'time-svg'):
        assert need in ids, 'no svg#' + need
tot = sum(int(x) for x in re.findall(r'data-total="(\d+)"', html))
assert tot == rep['ipis_counted'], 'time chart rows add up to %d IPIs, the report counts %d' % (tot, rep['ipis_counted'])
lat = sum(int(x) for x in re.findall(r'data-lat-n="(\d+)"', html))
jl = sum(c['latency']['count'] for c in rep['per_cpu'] if c['latency'])
assert lat == jl, 'latency samples by kind %d, by CPU (lib/report.c) %d' % (lat, jl)
hdl = [int(x) for x in re.findall(r'data-hdl-n="(\d+)"', html)]
jh = sum(c['handler']['count'] for c in rep['per_cpu'] if c['handler'])
assert max(hdl + [0]) <= jh <= sum(hdl), 'handler samples by kind %s vs %d by CPU' % (hdl, jh)
for k, v in rep['kinds'].items():
    if v:
        assert ('data-kind="%s"' % k) in html, 'no histogram panel for kind ' + k
        if jh:
            assert ('id="hdl-%s"' % k) in html or 'data-hdl-n="0"' in html, 'no handler histogram for ' + k
def n(s):
    return int(s.replace(',', ''))
# the kinds
pills = {k: n(v) for k, v in re.findall(r'<span class="pill">(\w+) ([\d,]+)</span>', html)}
assert pills == {k: v for k, v in rep['kinds'].items() if v}, 'kinds %s, JSON %s' % (pills, rep['kinds'])
# the per-CPU table, row by row
def us3(h):
    return ['-'] * 3 if not h else ['%.1f' % (h[q] / 1e3) for q in ('p50_ns', 'p99_ns', 'max_ns')]
kinds = [k for k, v in rep['kinds'].items() if v]
sec = html[html.index('<section id="cpus">'):]
sec = sec[:sec.index('</section>')]
if '<details>' in sec:	# beyond 16 CPUs: the busiest first (test_roles checks them), then every CPU
    sec = sec[sec.index('<details>'):sec.index('</details>')]
rows = [re.findall(r'<td>([^<]*)</td>', r) for r in re.findall(r'<tr><td>.*?</tr>', sec)]
want = []
for c in rep['per_cpu']:
    if not (c['ipis'] or c['handlers'] or c['sent']):
        continue
    want.append([str(c['cpu']), '{:,}'.format(c['ipis'])] + ['{:,}'.format(c['by_kind'][k]) for k in kinds] +
                ['{:,}'.format(c['sent'])] + us3(c['latency']) + us3(c['handler']) +
                ['%d%s' % (c['lost'], '+' if c['lost_unknown'] else '')])
got = [r[:2] + r[3:] for r in rows]	# per s: rounded differently
assert got == want[:512], 'per-CPU table %s, JSON %s' % (got[:3], want[:3])
# the heatmap's cells add up to the matrix
cells = sum(n(x) for x in re.findall(r': ([\d,]+) IPIs</title></rect>', html))
assert cells == sum(e['count'] for e in rep['matrix']), 'heatmap %d, matrix %d' % (cells, sum(e['count'] for e in rep['matrix']))
# the matching section
m = rep['matching']
if m['receive_events']:
    got = re.search(r'Remote IPIs matched to a handler: ([\d,]+) of ([\d,]+)', html)
    assert got and (n(got.group(1)), n(got.group(2))) == (m['remote_matched'], m['remote']), 'remote matched'
    got = re.search(r'Unmatched: trace ended ([\d,]+), receive events not recorded ([\d,]+), lost events ([\d,]+), no handler seen ([\d,]+)', html)
    u = m['unmatched']
    assert got and [n(x) for x in got.groups()] == [u['trace_ended'], u['no_receive_events'], u['lost_events'], u['no_handler']], 'unmatched %s, JSON %s' % (got and got.groups(), u)
else:
    assert 'No receive events in this trace' in html, 'receive events'
# per target CPU: the senders by comm (the JSON's groups) and the flame
# graph of their stacks (its root and first level add up to the IPIs with a
# stack of the JSON)
jg = {g['target_cpu']: g for g in rep['groups']}
tables = re.findall(r'<table class="senders" data-cpu="(\d+)" data-by="comm">(.*?)</table>', html, re.S)
assert len(tables) == min(64, len(jg)), 'senders tables for %d CPUs, JSON groups for %d' % (len(tables), len(jg))
for cpu, body in tables:
    got = [(html_unescape(a), int(c)) for c, a in re.findall(r'<tr data-count="(\d+)"><td class="l">([^<]*)</td>', body)]
    want = [(g['comm'], g['count']) for g in jg[int(cpu)]['groups']]
    k = min(len(got), len(want))	# the JSON has the top -n, the HTML at least 10
    assert k and got[:k] == want[:k], 'CPU %s senders %s, JSON %s' % (cpu, got[:3], want[:3])
stacks = {s['target_cpu']: s['with_stack'] for s in (rep['stacks'] or [])}
flames = re.findall(r'<svg class="flame" data-cpu="(\d+)" data-stacks="(\d+)".*?</svg>', html, re.S)
for m in re.finditer(r'<svg class="flame" data-cpu="(\d+)" data-stacks="(\d+)"(.*?)</svg>', html, re.S):
    cpu, total, body = int(m.group(1)), int(m.group(2)), m.group(3)
    assert total == stacks.get(cpu), 'flame graph of CPU %d: %d IPIs, JSON with_stack %s' % (cpu, total, stacks.get(cpu))
    d0 = [int(c) for c in re.findall(r'data-count="(\d+)" data-depth="0"', body)]
    d1 = sum(int(c) for c in re.findall(r'data-count="(\d+)" data-depth="1"', body))
    assert d0 == [total] and abs(d1 - total) <= total // 100 + 1, 'flame CPU %d: root %s, commands %d of %d' % (cpu, d0, d1, total)
assert len(flames) == len([c for c, v in stacks.items() if v and c in jg]), 'flame graphs %d, CPUs with stacks %s' % (len(flames), stacks)
print('%d svgs, %d IPIs, %d latency samples, %d CPU rows, %d senders tables, %d flame graphs' % (len(svgs), tot, lat, len(rows), len(tables), len(flames)))
EOF
	); then
		pass "content-$n ($msg)"
	else
		fail "content-$n" "$(echo "$msg" | tail -n 1)"
	fi
done

# ---- size: a large trace stays small ----
if [ "$ASAN" = 1 ]; then
	echo "size-2M-events and Chromium: in the plain build's pass"
	finish
fi
if [ -x "$GEN" ]; then
	"$GEN" -o "$TMP/big.dat" -e 2000000 -s 11 -n 16 &&
	"$IPT" report --html "$TMP/h/big.html" --isolated 5 "$TMP/big.dat" 2> "$TMP/err"
	sz=$(wc -c < "$TMP/h/big.html" 2> /dev/null || echo 0)
	if [ "$sz" -gt 0 ] && [ "$sz" -lt $MAX_BYTES ]; then
		pass "size-2M-events ($sz bytes)"
		SHOWN="$SHOWN big"
	else
		fail size-2M-events "$sz bytes (limit $MAX_BYTES) $(head -n 1 "$TMP/err")"
	fi
	rm -f "$TMP/big.dat"
fi

# ---- headless Chromium ----
if ! find_chromium; then
	skip chromium "chromium is not installed and could not be installed (apt-get install chromium)"
	finish
fi

# chrome ARGS... : headless, offline, throwaway profile
chrome() {
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-default-apps --disable-extensions --mute-audio --hide-scrollbars \
		--user-data-dir="$TMP/profile" "$@"
}

# The page has no script of its own; the test adds one to a copy, which
# measures the laid-out charts and writes the sizes into the DOM.
cat > "$TMP/measure.js" <<'EOF'
<script>
(function () {
	var out = [];
	var list = document.querySelectorAll('svg[id]');
	for (var i = 0; i < list.length; i++) {
		var r = list[i].getBoundingClientRect();
		out.push(list[i].id + ' ' + Math.round(r.width) + ' ' + Math.round(r.height));
	}
	var p = document.createElement('pre');
	p.id = 'ipt-measure';
	p.textContent = 'MEASURE' + '-BEGIN\n' + out.join('\n') + '\nMEASURE' + '-END';
	document.body.appendChild(p);
})();
</script>
EOF
for n in $SHOWN; do
	f="$TMP/h/$n.html"
	sed '/<\/body>/{
r '"$TMP/measure.js"'
}' "$f" > "$TMP/h/$n.measure.html"
	chrome --enable-logging=stderr --v=0 --virtual-time-budget=3000 --dump-dom \
		"file://$TMP/h/$n.measure.html" > "$TMP/h/$n.dom" 2> "$TMP/h/$n.log"
	if grep -q -E 'Uncaught|:CONSOLE[:(]|Failed to load resource|net::ERR_' "$TMP/h/$n.log"; then
		fail "chromium-console-$n" "$(grep -E 'Uncaught|:CONSOLE[:(]|Failed to load|net::ERR_' "$TMP/h/$n.log" | head -n 2 | tr '\n' ' ')"
	elif ! grep -q 'MEASURE-END' "$TMP/h/$n.dom"; then
		fail "chromium-load-$n" "no DOM dump: $(tail -n 2 "$TMP/h/$n.log" | tr '\n' ' ')"
		continue
	else
		pass "chromium-console-$n"
	fi
	sed -n '/MEASURE-BEGIN/,/MEASURE-END/p' "$TMP/h/$n.dom" | grep -v MEASURE > "$TMP/h/$n.sizes"
	bad=$(awk '$2 < 50 || $3 < 50 { print $1 " " $2 "x" $3 }' "$TMP/h/$n.sizes" | head -n 3)
	have=$(cut -d' ' -f1 "$TMP/h/$n.sizes" | tr '\n' ' ')
	missing=""
	for id in heatmap-svg time-svg; do
		grep -q "^$id " "$TMP/h/$n.sizes" || missing="$missing $id not laid out (have: $have)"
	done
	if ! grep -q -E '^(hdl|lat)-' "$TMP/h/$n.sizes"; then
		missing="$missing no histogram svg (have: $have)"
	fi
	if [ -n "$bad" ]; then
		fail "chromium-layout-$n" "charts with no size: $bad"
	elif [ -n "$missing" ]; then
		fail "chromium-layout-$n" "$missing"
	else
		pass "chromium-layout-$n ($(wc -l < "$TMP/h/$n.sizes") charts, heatmap $(grep '^heatmap-svg' "$TMP/h/$n.sizes" | cut -d' ' -f2,3 | tr ' ' x))"
	fi
done

# screenshots of the real pages (they have no script: see self-contained-*)
for n in $SHOWN; do
	case "$n" in pingpong|synth-x86|big) ;; *) continue ;; esac
	rm -f "$SHOTS/$n.png"
	chrome --window-size=1400,3000 \
		--screenshot="$SHOTS/$n.png" "file://$TMP/h/$n.html" > /dev/null 2> "$TMP/h/$n.shot.log"
	cp "$TMP/h/$n.html" "$SHOTS/$n.html"
	# a PNG of the requested size, and not blank (a blank page compresses to a few KB)
	if [ -s "$SHOTS/$n.png" ] && [ "$(head -c 8 "$SHOTS/$n.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
	   [ "$(wc -c < "$SHOTS/$n.png")" -gt 30000 ]; then
		pass "screenshot-$n ($SHOTS/$n.png, $(wc -c < "$SHOTS/$n.png") bytes)"
	else
		fail "screenshot-$n" "no usable PNG: $(tail -n 1 "$TMP/h/$n.shot.log")"
	fi
done

finish
