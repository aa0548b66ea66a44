#!/bin/sh
# test_promrules.sh - the Prometheus rules shipped in contrib/prometheus/
# (docs/prometheus.md), checked with Debian's promtool:
#  (a) `promtool check rules` on ipitrace-rules.yml and `promtool check
#      config` on prometheus-example.yml (which loads it);
#  (b) `promtool test rules tests/promrules_test.yml`: input series as serve
#      exports them, the recording rules' values and the alerts that fire
#      (and those that must not) as worked out by hand in that file;
#  (c) the unit tests are sharp: eight rules files broken on purpose
#      (a threshold, a `for:`, the isolated matcher, an excluded reason, the
#      job, a summed label, the map's size, the recursion alert's `for:`)
#      each fail them;
#  (d) every metric name the rules and their annotations use is one serve
#      exports (the HELP lines and metric names of src/cmd_serve.c, with a
#      histogram's _bucket/_sum/_count), every recorded name they read is
#      recorded in the file, every label and label value they match is one
#      serve writes (reasons: lib/bpf/handle.c) or job/instance/isolated,
#      16384 is IPTK_MAX_SENDS, every rule has a unit test and a line in
#      docs/prometheus.md, and the docs' example is the shipped one;
#  (e) with Debian's prometheus: a real server scrapes a static page in
#      serve's format with prometheus-example.yml; its relabeling marks
#      exactly the series of CPUs 2 and 3 isolated (not 12 or 23) and the
#      recording rules see them.
# promtool missing: installed with apt-get as root, else SKIP.
# asan: no - it checks the rules files, not the code
# seconds: 10
. "$(dirname "$0")/lib.sh"
RULES=$TOP/contrib/prometheus/ipitrace-rules.yml
EXAMPLE=$TOP/contrib/prometheus/prometheus-example.yml
UNIT=$TOP/tests/promrules_test.yml
PROM_PID="" HTTP_PID=""
trap 'for p in $PROM_PID $HTTP_PID; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT

# find_promtool: PROMTOOL set, Debian's package prometheus installed now if
# it is missing and this is root (tools/install-deps.sh installs it)
find_promtool() {
	PROMTOOL=$(command -v promtool || ls /usr/bin/promtool 2>/dev/null)
	[ -n "$PROMTOOL" ] && return 0
	apt_install prometheus || return 1
	PROMTOOL=$(command -v promtool)
}
if ! find_promtool; then
	skip promrules "no promtool (Debian package prometheus; not root, or apt-get failed)"
	finish
fi
echo "$("$PROMTOOL" --version 2>&1 | head -n 1)"

# ---- (a) the files load ----
if "$PROMTOOL" check rules "$RULES" > "$TMP/check" 2>&1; then
	nrules=$(sed -n 's/.*SUCCESS: \([0-9]*\) rules found.*/\1/p' "$TMP/check" | head -n 1)
	pass "promtool check rules ipitrace-rules.yml: $nrules rules"
else
	nrules=""
	fail "promtool check rules" "$(tr '\n' ' ' < "$TMP/check")"
fi
if "$PROMTOOL" check config "$EXAMPLE" > "$TMP/checkc" 2>&1; then
	pass "promtool check config prometheus-example.yml (loads the rules)"
else
	fail "promtool check config" "$(tr '\n' ' ' < "$TMP/checkc")"
fi

# ---- (b) the unit tests ----
if "$PROMTOOL" test rules "$UNIT" > "$TMP/unit" 2>&1; then
	pass "promtool test rules promrules_test.yml: $(grep -c 'eval_time:' "$UNIT") evaluations as computed by hand"
else
	fail "promtool test rules" "$(grep -v '^ *$' "$TMP/unit" | head -n 12 | tr '\n' ' ')"
fi

# ---- (c) broken rules fail the unit tests ----
# mutant NAME SED-SCRIPT: the rules edited so, beside a copy of the tests
mutant() {
	rm -rf "$TMP/m"
	mkdir -p "$TMP/m/contrib/prometheus" "$TMP/m/tests"
	cp "$UNIT" "$TMP/m/tests/"
	sed "$2" "$RULES" > "$TMP/m/contrib/prometheus/ipitrace-rules.yml"
	if cmp -s "$RULES" "$TMP/m/contrib/prometheus/ipitrace-rules.yml"; then
		unchanged="$unchanged $1"
	elif "$PROMTOOL" test rules "$TMP/m/tests/promrules_test.yml" > /dev/null 2>&1; then
		missed="$missed $1"
	fi
	nmut=$((nmut + 1))
}
unchanged="" missed="" nmut=0
mutant threshold '/IpitraceIsolatedCpuIpis/,/for:/s/rate5m > 1$/rate5m > 0.5/'
mutant for '/IpitraceIsolatedCpuIpis/,/for:/s/for: 10m/for: 4m/'
mutant isolated-matcher 's/rate5m{isolated="yes"}/rate5m/'
mutant reasons 's/reason!~"exit_without_entry|recursion_miss"/reason!="recursion_miss"/'
mutant job 's/up{job="ipitrace"}/up/'
mutant summed-labels '/ipitrace_ipis:rate5m$/,/expr:/s/function, comm)/function)/'
mutant map-size 's/0\.9 \* 16384/0.95 * 16384/'
mutant recursion-for '/IpitraceRecursionMisses/,/for:/s/for: 15m/for: 5m/'
if [ -z "$unchanged$missed" ]; then
	pass "the unit tests fail each of $nmut rules files broken on purpose"
else
	fail "broken rules" "${unchanged:+edit did not apply:$unchanged; }${missed:+unit tests still pass:$missed}"
fi

# ---- (d) names, labels and values against serve's source ----
if "$PY" - "$TOP" "$RULES" "$UNIT" "$TOP/docs/prometheus.md" "$EXAMPLE" "${nrules:-}" > "$TMP/names" 2>&1 <<'PY'
import re, sys
top, rules_path, unit_path, doc_path, example_path, nrules = sys.argv[1:7]
src = open(top + '/src/cmd_serve.c').read()
handle = open(top + '/lib/bpf/handle.c').read()
bpf_h = open(top + '/lib/bpf/progs/ipitrace.bpf.h').read()
rules = open(rules_path).read().splitlines()
unit = open(unit_path).read()
doc = open(doc_path).read()

def out(verdict, name, why):
    print('%s %s: %s' % (verdict, name, why))

# what serve exports: the names of its HELP lines (two come from a
# variable: the string literals of metric names), with a histogram's series
exported = set(re.findall(r'# HELP (ipitrace_[a-z_]+)', src))
exported |= set(re.findall(r'"(ipitrace_[a-z_]+)"', src))
for h in re.findall(r'# TYPE (ipitrace_[a-z_]+) histogram', src):
    exported |= {h + '_bucket', h + '_sum', h + '_count'}
# the labels it writes: name=\"...\" in its formats, and add_label's names
labels = set(re.findall(r'([a-z_]+)=\\"', src)) | set(re.findall(r'add_label\(\w+, "([a-z_]+)"', src))
# label values written as constants, and the drop reasons of the library
values = {}
for k, v in re.findall(r'([a-z_]+)=\\"([a-z_]+)\\"', src):
    values.setdefault(k, set()).add(v)
m = re.search(r'error_names\[\] = \{([^}]*)\}', handle)
values.setdefault('reason', set()).update(re.findall(r'"([a-z_]+)"', m.group(1)))
extra = {'job', 'instance', 'isolated'}	# Prometheus's, and the scrape config's
ok = True
if len(exported) < 10 or not {'target_cpu', 'reason', 'cpu'} <= labels or len(values['reason']) < 8:
    out('F', 'promrules-names', 'could not read serve\'s metrics from the source: %s %s %s'
        % (sorted(exported), sorted(labels), values))
    sys.exit(1)

# the rules: a line parser (the file keeps to `expr: ONE LINE`; the rule
# count is checked against promtool's)
records, alerts, exprs, texts = [], [], [], []
i = 0
while i < len(rules):
    line = rules[i]
    m = re.match(r'\s*- (record|alert): (\S+)$', line)
    if m:
        (records if m.group(1) == 'record' else alerts).append(m.group(2))
    m = re.match(r'\s*expr: (.*)$', line)
    if m:
        if m.group(1).strip() in ('|', '>', '|-', '>-', ''):
            out('F', 'promrules-names', 'line %d: an expr on several lines; keep each on one' % (i + 1))
            ok = False
        exprs.append((i + 1, m.group(1)))
    m = re.match(r'\s*(summary|description): "(.*)"$', line)
    if m:
        texts.append((i + 1, m.group(2).replace('\\"', '"')))
    i += 1
nr = len(records) + len(alerts)
if nr != len(exprs) or (nrules and int(nrules) != nr):
    out('F', 'promrules-names', '%d rules, %d exprs, promtool counted %s' % (nr, len(exprs), nrules))
    ok = False

WORDS = {'sum', 'rate', 'by', 'without', 'and', 'or', 'unless', 'on', 'ignoring',
         'group_left', 'group_right', 'bool', 'max', 'min', 'avg', 'count', 'increase',
         'histogram_quantile', 'offset', 'irate', 'absent', 'topk', 'clamp_min'}
used_metrics, used_records, bad = set(), set(), []

def labels_of(where, text):
    """the matchers {a="v", b=~"x|y"} and by/without lists of text"""
    for body in re.findall(r'\{([^}]*)\}', text):
        for name, op, val in re.findall(r'(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"', body):
            if name not in labels | extra:
                bad.append('%s: label %s' % (where, name))
            if name in values:
                vals = val.split('|') if '~' in op else [val]
                for v in vals:
                    if v not in values[name] and v != 'TEMPLATE':
                        bad.append('%s: %s="%s" (serve writes %s)' % (where, name, v, sorted(values[name])))
    for lst in re.findall(r'\b(?:by|without)\s*\(([^)]*)\)', text):
        for name in re.findall(r'\w+', lst):
            if name not in labels | extra:
                bad.append('%s: label %s' % (where, name))

def names_of(where, text, strict):
    """metric names in text; strict (an expr): every word must be known"""
    t = re.sub(r'"[^"]*"', '""', text)
    t = re.sub(r'\{[^}]*\}', '', t)
    t = re.sub(r'\[[^\]]*\]', '', t)
    t = re.sub(r'\b(by|without)\s*\([^)]*\)', '', t)
    for w in re.findall(r'[A-Za-z_:][A-Za-z0-9_:]*', t):
        if w.startswith('ipitrace_'):
            used_metrics.add(w)
            if w not in exported:
                bad.append('%s: %s is not a metric serve exports' % (where, w))
        elif ':' in w and w.count(':') == 2:
            used_records.add(w)
            if w not in records:
                bad.append('%s: %s is not recorded in the file' % (where, w))
        elif strict and w not in WORDS and w != 'up':
            bad.append('%s: unknown word %s' % (where, w))

for ln, e in exprs:
    labels_of('line %d' % ln, e)
    names_of('line %d' % ln, e, True)
for ln, s in texts:
    for lab in re.findall(r'\$labels\.(\w+)', s):
        if lab not in labels | extra:
            bad.append('line %d: $labels.%s' % (ln, lab))
    s = re.sub(r'\{\{.*?\}\}', 'TEMPLATE', s)
    labels_of('line %d' % ln, s)
    names_of('line %d' % ln, s, False)
for ln, e in exprs:
    if re.search(r'\bup\b', e) and 'up{job="ipitrace"}' not in e:
        bad.append('line %d: up without job="ipitrace"' % ln)
# the send map's size
size = re.search(r'#define IPTK_MAX_SENDS\s+(\d+)', bpf_h).group(1)
for n in set(re.findall(r'\b(\d{4,})\b', '\n'.join(rules))):
    if n != size:
        bad.append('the number %s in the rules is not IPTK_MAX_SENDS (%s)' % (n, size))
if bad:
    for b in bad:
        out('F', 'promrules-names', b)
    ok = False
else:
    out('P', 'promrules-names', '%d metric names serve exports (%s), %d recorded names read, labels and values as serve writes them, map size %s'
        % (len(used_metrics), ' '.join(sorted(used_metrics)), len(used_records), size))

# every rule tested: each recorded name an expr of the unit tests, each
# alert tested firing and not firing
miss = [r for r in records if not re.search(r'- expr: %s\n' % re.escape(r), unit)]
for a in alerts:
    blocks = re.findall(r'alertname: %s\n\s*exp_alerts:(.*)' % re.escape(a), unit)
    if '[]' not in [b.strip() for b in blocks]:
        miss.append(a + ' (not firing)')
    if '' not in [b.strip() for b in blocks]:
        miss.append(a + ' (firing)')
if miss:
    out('F', 'promrules-tested', 'no unit test: ' + ', '.join(miss))
    ok = False
else:
    out('P', 'promrules-tested', 'every rule has a unit test: %d recorded series, %d alerts firing and not' % (len(records), len(alerts)))
# documented, and the docs' example is the shipped file
undoc = [r for r in records + alerts if '`%s`' % r not in doc]
if undoc:
    out('F', 'promrules-docs', 'not in docs/prometheus.md: ' + ', '.join(undoc))
    ok = False
else:
    out('P', 'promrules-docs', 'docs/prometheus.md names every rule')
blocks = re.findall(r'```yaml\n(.*?)```', doc, re.S)
if open(example_path).read() not in blocks:
    out('F', 'promrules-docs-example', 'docs/prometheus.md does not show prometheus-example.yml as it is')
    ok = False
else:
    out('P', 'promrules-docs-example', 'docs/prometheus.md shows prometheus-example.yml as it is')
sys.exit(0 if ok else 1)
PY
then :; fi
verdicts "$TMP/names"

# ---- (e) a real Prometheus: the example's relabeling and the rules ----
PROM=$(command -v prometheus || ls /usr/bin/prometheus 2>/dev/null)
if [ -z "$PROM" ]; then
	skip promrules-prometheus "no prometheus server (Debian package prometheus)"
	finish
fi
mkdir "$TMP/web" "$TMP/tsdb"
# a page as serve writes it (names, labels, order), CPUs 0-3, 12 and 23
{
	printf '# HELP ipitrace_ipis_total IPIs sent.\n# TYPE ipitrace_ipis_total counter\n'
	for c in 0 1 2 3 12 23; do
		printf 'ipitrace_ipis_total{target_cpu="%s",kind="resched",callsite="other",function="other",comm="other"} %s\n' $c $((c + 5))
	done
	printf '# HELP ipitrace_interrupts_total IPI handlers run.\n# TYPE ipitrace_interrupts_total counter\n'
	for c in 0 1 2 3 12 23; do
		printf 'ipitrace_interrupts_total{cpu="%s",vector="reschedule"} %s\n' $c $((c + 5))
	done
	printf '# HELP ipitrace_watched_rows_total Rows.\n# TYPE ipitrace_watched_rows_total counter\nipitrace_watched_rows_total 7\n'
} > "$TMP/web/metrics"
# free ports: the page's server says its own; one for Prometheus
nice "$PY" -c '
import http.server, os, sys
os.chdir(sys.argv[1])
class Q(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), Q)
open(sys.argv[2], "w").write(str(s.server_address[1]))
s.serve_forever()' "$TMP/web" "$TMP/webport" 2> "$TMP/web.err" &
HTTP_PID=$!
PPORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
i=0
until [ -s "$TMP/webport" ] || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
WPORT=$(cat "$TMP/webport" 2>/dev/null)
# the example as shipped; only the target, the intervals and the rules' path moved
cp "$RULES" "$TMP/ipitrace-rules.yml"
sed -e "s/127\.0\.0\.1:9464/127.0.0.1:$WPORT/" -e 's/_interval: 15s/_interval: 1s/' "$EXAMPLE" > "$TMP/prom.yml"
nice "$PROM" --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address=127.0.0.1:$PPORT > "$TMP/prom.log" 2>&1 &
PROM_PID=$!
# query Q: the labels of each series of the instant query Q, one a line
query() {
	"$PY" - "http://127.0.0.1:$PPORT" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
url = sys.argv[1] + '/api/v1/query?' + urllib.parse.urlencode({'query': sys.argv[2]})
for r in json.load(urllib.request.urlopen(url, timeout=5))['data']['result']:
    m = r['metric']
    print(' '.join('%s=%s' % (k, m[k]) for k in sorted(m) if k not in ('job', 'instance')))
PY
}
# Prometheus applies its targets on a 5 s tick; then 1 s scrapes and rules
i=0
until query 'instance_target_cpu:ipitrace_ipis:rate1m' 2>/dev/null | grep -q . || [ $i -gt 120 ]; do
	sleep 0.5; i=$((i + 1))
done
query 'ipitrace_ipis_total{isolated="yes"}' > "$TMP/q1" 2>&1
query 'ipitrace_interrupts_total{isolated="yes"}' > "$TMP/q2" 2>&1
query 'instance_target_cpu:ipitrace_ipis_isolated:rate5m' > "$TMP/q3" 2>&1
query '{__name__=~"ipitrace_.*",isolated=""}' > "$TMP/q4" 2>&1
want1=$(printf '%s\n' 2 3 | sed 's/.*/__name__=ipitrace_ipis_total callsite=other comm=other function=other isolated=yes kind=resched target_cpu=&/')
want2=$(printf '%s\n' 2 3 | sed 's/.*/__name__=ipitrace_interrupts_total cpu=& isolated=yes vector=reschedule/')
want3=$(printf '%s\n' 2 3 | sed 's/.*/__name__=instance_target_cpu:ipitrace_ipis_isolated:rate5m isolated=yes target_cpu=&/')
# the rest unmarked: CPUs 0, 1, 12, 23 of each counter, and the rows
nrest=$(grep -c -e 'target_cpu=\(0\|1\|12\|23\)$' -e 'cpu=\(0\|1\|12\|23\) vector' -e '^__name__=ipitrace_watched_rows_total$' "$TMP/q4")
if [ "$(sort "$TMP/q1")" = "$want1" ] && [ "$(sort "$TMP/q2")" = "$want2" ] && [ "$(sort "$TMP/q3")" = "$want3" ] &&
   [ "$nrest" = 9 ] && [ "$(wc -l < "$TMP/q4")" = 9 ]; then
	pass "promrules-prometheus: the example's relabeling marks CPUs 2 and 3 isolated (of 0-3, 12, 23), for IPIs and handlers, and nothing else; the rules see them"
else
	fail promrules-prometheus "isolated IPIs: $(tr '\n' ';' < "$TMP/q1") handlers: $(tr '\n' ';' < "$TMP/q2") rule: $(tr '\n' ';' < "$TMP/q3") unmarked: $(tr '\n' ';' < "$TMP/q4") log: $(tail -n 3 "$TMP/prom.log" | tr '\n' ';')"
fi
finish
