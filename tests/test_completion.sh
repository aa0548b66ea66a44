#!/bin/sh
# test_completion.sh - the bash completion (BUILD/ipitrace.bash-completion,
# made by tools/mkcomp.py) driven as bash drives it: COMP_WORDS and
# COMP_CWORD set, _ipitrace called, COMPREPLY compared with what it should
# be, found here on another way:
#  1 commands, and each command's options: the option lines of its --help;
#    the default command's (no command word): the getopt table of
#    src/cmd_default.c
#  2 the values of --format, --by, --sort, --backend, --clock, --compression
#    for each command that has them: read from that command's --help by a
#    parser of this test (a regular expression, not mkcomp.py's clause
#    splitting); --clock from /sys/kernel/tracing/trace_clock when it can be
#    read; each value of report, diff, convert and explode run through the
#    command, which accepts it (no usage error, where a made-up one is);
#    --by=, KEYS after a comma; every other option with an argument offers
#    nothing
#  3 CPU lists (-c, -i, -H, --on-cpus, --watch): the machine's from
#    /sys/devices/system/cpu (online, isolated, nohz_full); with traces on
#    the line (report, diff, convert, dump) their CPUs: a trace.dat whose
#    first line of `trace-cmd report` says cpus=8, a trace text written here
#    with cpus=6, the larger of two; after "1," the others
#  4 files in a directory made here: traces (*.dat, *.txt, directories) as
#    operands, any file for -o and other FILE/OUT/PATH arguments, *.html for
#    --html, nothing for record/top/serve operands; after --, commands
# asan: no - it tests shell text
# seconds: 10
. "$(dirname "$0")/lib.sh"
COMP="$TOP/$B/ipitrace.bash-completion"
if [ ! -f "$COMP" ] || ! command -v bash > /dev/null 2>&1; then
	skip completion "no bash or no $COMP (make man makes it)"
	finish
fi
cat > "$TMP/check.py" <<'EOF'
import os, re, shlex, subprocess, sys

IPT, COMP, TOP, TMP = sys.argv[1:5]
out = []
def P(name): out.append('P ' + name)
def F(name, why): out.append('F %s: %s' % (name, why))
def S(name, why): out.append('S %s: %s' % (name, why))

def helptext(*args):
    return subprocess.run([IPT] + list(args), capture_output=True, text=True).stdout

# ---- the test's own reading of --help ----
main_help = helptext('--help')
cmds = []
m = re.search(r'\nCommands:\n((?:  \S.*\n)+)', main_help)
for line in (m.group(1) if m else '').splitlines():
    cmds.append(line.split()[0])

# "--name[=ARG]": a value attached or none, so a flag to complete
OPTLINE = re.compile(r'^(?: {2}(?:-([A-Za-z0-9]), )?|\s{6})(--[a-z0-9][a-z0-9-]*)(?:\[=[A-Z]+\])?(?: ([A-Z][A-Z:.]*))?(?=\s|$)')

def entries(text):
    """[(short or None, long, ARG or None, description block)] of a --help"""
    res, cur = [], None
    for line in text.split('\n'):
        m = OPTLINE.match(line)
        if m:
            cur = [m.group(1) and '-' + m.group(1), m.group(2), m.group(3), line[m.end():]]
            res.append(cur)
        elif cur is not None and line.startswith('        '):
            cur[3] += ' ' + line.strip()
        else:
            cur = None
    return [tuple(e) for e in res]

def drop_parens(s):
    o, depth = [], 0
    for ch in s:
        if ch == '(':
            depth += 1
        elif ch == ')' and depth:
            depth -= 1
        elif not depth:
            o.append(ch)
    return ''.join(o)

WORD = r'[a-z][a-z0-9_-]*'
LISTED = re.compile(r'(?:^|:\s)\s*(%s(?:\s*,\s*(?:or\s+)?%s|\s+or\s+%s)+)\s*(?:[.;](?:\s|$)|$)' % (WORD, WORD, WORD))

def listed(block):
    m = LISTED.search(drop_parens(block).strip())
    return re.findall(WORD, re.sub(r'\bor\b', ' ', m.group(1))) if m else []

helps = {c: helptext(c, '--help') for c in cmds}
opts = {c: entries(helps[c]) for c in cmds}

# the default command: the getopt table of src/cmd_default.c
src = open(os.path.join(TOP, 'src/cmd_default.c')).read()
body = src[src.index('int cmd_default('):]
dlong = re.findall(r'\{ "([a-z-]+)", (no|required)_argument, NULL, \'(.)\' \}', body)
dshort = re.search(r'getopt_long\(argc, argv, "([^"]*)"', body).group(1)
default_names = {'--' + n for n, _, _ in dlong} | {'-' + ch for ch in dshort if ch != ':'}
letters = {ch for ch in dshort if ch != ':'}
# (-o FILE names the trace: any file; the other arguments as their names say)
default_opts = [('-' + l if l in letters else None, '--' + n,
                 ('FILE' if n == 'output' else 'ARG') if a == 'required' else None, '')
                for n, a, l in dlong]

# ---- the queries, run by bash in one go ----
queries = []
SECTION = 'commands and options'
def q(words, cword=None, cwd=TMP + '/files'):
    words = [IPT] + words
    queries.append((SECTION, cwd, len(words) - 1 if cword is None else cword, words))
    return len(queries) - 1

def cw(c):	# the command word: none for the default command
    return [] if c == 'default' else [c]

def expect(name, k, want):
    queries[k] = queries[k] + ((name, sorted(set(want))),)

# files for section 4, and traces for section 3
os.makedirs(TMP + '/files/sub')
FILES = ['a.dat', 'b.txt', 'c.csv', 'd.html', 'e.json', 'sp ace.dat', 'sub']
for f in FILES[:-1]:
    open(os.path.join(TMP, 'files', f), 'w').close()
TEXT6 = TMP + '/six.txt'
with open(TEXT6, 'w') as f:
    f.write('cpus=6\n          <idle>-0     [003]   100.000100: ipi_send_cpu:         '
            'cpu=5 callsite=generic_exec_single+0x3c callback=nohz_csd_func+0x0\n')
ARM = os.path.join(TOP, 'tests/data/qemu/arm64-6.1.dat')

def sysread(name):
    try:
        return open('/sys/devices/system/cpu/' + name).read().strip()
    except OSError:
        return ''

def expand(lst):
    cpus = []
    for part in lst.split(','):
        a, _, b = part.partition('-')
        if a.isdigit():
            cpus += [str(x) for x in range(int(a), int(b or a) + 1)]
    return cpus

online = sysread('online')
machine = set(expand(online)) | {online}
for extra in ('isolated', 'nohz_full'):
    v = sysread(extra)
    if re.fullmatch(r'[0-9,-]+', v):
        machine.add(v)

def trace_cpus(n):
    return {str(x) for x in range(n)} | {'0-%d' % (n - 1) if n > 1 else '0'}

# 1: commands, options
expect('commands at the first word', q(['']), cmds + ['help', '--help', '--version'])
expect('help: the commands and filters', q(['help', '']), cmds + ['filters'])
expect('default command: options at the first word (src/cmd_default.c)', q(['-']),
       default_names | {'-V', '--version'})
expect('default command: options after -d 5', q(['-d', '5', '-']), default_names)
expect('default command: --u', q(['-q', '--u']), [n for n in default_names if n.startswith('--u')])
for c in cmds:
    names = {e[1] for e in opts[c]} | {e[0] for e in opts[c] if e[0]}
    if len(names) < 2:
        F('%s: options in --help' % c, 'only %s read' % sorted(names))
    expect('%s: its %d option names' % (c, len(names)), q(cw(c) + ['-']), names)

# 2, 3: the arguments of each option of each command
SECTION = 'option arguments (values, CPU lists, files, nothing)'
VALUES = ('--format', '--by', '--sort', '--backend', '--clock', '--compression')
CPULISTS = ('--cpus', '--isolated', '--housekeeping', '--on-cpus', '--watch')
TRACE_CMDS = ('report', 'diff', 'convert', 'dump')
try:
    clocks = open('/sys/kernel/tracing/trace_clock').read().replace('[', '').replace(']', '').split()
except OSError:
    clocks = None
if clocks:	# record --help's list stands in where trace_clock cannot be read
    named = [listed(b) for s, l, a, b in opts.get('record', []) if l == '--clock']
    missing = set(clocks) - set(named[0] if named else [])
    if missing:
        F('record --help names the kernel\'s clocks', 'not %s' % sorted(missing))
    else:
        P('record --help names the %d clocks of this kernel\'s trace_clock' % len(clocks))
accept = []		# (cmd, option, value) to run through the command
covered = {}
for c in cmds + ['default']:
    for short, long, arg, block in (opts[c] if c != 'default' else default_opts):
        if not arg:
            continue
        names = [n for n in (short, long) if n]
        if long in VALUES:
            vals = listed(block)
            if long == '--clock' and clocks:
                vals = clocks
            if len(vals) < 2:
                F('%s %s: values in --help' % (c, long), 'none read from: ' + block[:80])
                continue
            covered.setdefault(long, []).append(c)
            for n in names:
                expect('%s %s: %s' % (c, n, ' '.join(vals)), q(cw(c) + [n, '']), vals)
            expect('%s %s=' % (c, long), q(cw(c) + [long, '=', '']), vals)
            expect('%s %s=%s' % (c, long, vals[-1][:2]), q(cw(c) + [long, '=', vals[-1][:2]]),
                   [v for v in vals if v.startswith(vals[-1][:2])])
            expect('%s %s %s' % (c, long, vals[0][:1]), q(cw(c) + [names[0], vals[0][:1]]),
                   [v for v in vals if v.startswith(vals[0][:1])])
            if arg.endswith('S'):	# KEYS: a comma-separated list
                expect('%s %s %s,: the others after the comma' % (c, long, vals[0]),
                       q(cw(c) + [long, vals[0] + ',']), [vals[0] + ',' + v for v in vals[1:]])
            if c in ('report', 'diff', 'convert', 'explode'):
                accept += [(c, names[0], v) for v in vals]
        elif long in CPULISTS:
            want = machine | ({'none'} if re.search(r'\bnone:', block) else set())
            covered.setdefault(long, []).append(c)
            for n in names:
                expect('%s %s: the machine\'s CPUs' % (c, n), q(cw(c) + [n, '']), want)
            if c in TRACE_CMDS:
                tw = trace_cpus(6) | (want - machine)
                expect('%s %s with a 6-CPU text trace' % (c, long), q(cw(c) + [TEXT6, long, '']), tw)
                expect('%s %s 1, with a 6-CPU text trace' % (c, long),
                       q(cw(c) + [names[0], '1,', TEXT6], cword=3), ['1,' + x for x in '02345'])
                expect('%s %s with a missing trace: the machine\'s' % (c, long),
                       q(cw(c) + [long, '', TMP + '/none.dat'], cword=3), want)
                if c == 'diff':
                    expect('diff %s with traces of 6 and 2 CPUs: 6' % long,
                           q(cw(c) + [TEXT6, long, '', TMP + '/two.txt'], cword=4), tw)
        elif long == '--html':
            expect('%s --html: *.html and directories' % c, q(cw(c) + ['--html', '']), ['d.html', 'sub'])
        elif arg in ('FILE', 'OUT', 'PATH'):
            for n in names:
                expect('%s %s %s: any file' % (c, n, arg), q(cw(c) + [n, '']), FILES)
        else:
            for n in names:
                expect('%s %s %s: nothing' % (c, n, arg), q(cw(c) + [n, '']), [])
with open(TMP + '/two.txt', 'w') as f:
    f.write(open(TEXT6).read().replace('cpus=6', 'cpus=2').replace('[003]', '[001]').replace('cpu=5', 'cpu=0'))
for long in VALUES + CPULISTS:
    if long in covered:
        P('%s covered in: %s' % (long, ' '.join(covered[long])))
    else:
        F('%s covered' % long, 'no command has it')

# the CPUs of a trace.dat, as trace-cmd reads them
SECTION = 'CPUs of a trace.dat'
try:
    r = subprocess.run('trace-cmd report %s | head -n 1' % shlex.quote(ARM), shell=True,
                       capture_output=True, text=True)
    n = int(r.stdout.strip().split('=')[1]) if r.stdout.startswith('cpus=') else None
except OSError:
    n = None
if n:
    for c in TRACE_CMDS:
        long = '--on-cpus' if c == 'dump' else '--cpus'
        expect('%s %s with %s: trace-cmd\'s cpus=%d' % (c, long, os.path.basename(ARM), n),
               q(cw(c) + [long, '', ARM], cword=3), trace_cpus(n))
    expect('diff -c with traces of 6 and %d CPUs: %d' % (n, max(n, 6)),
           q(['diff', ARM, TEXT6, '-c', '']), trace_cpus(max(n, 6)))
else:
    S('trace.dat CPUs', 'no trace-cmd to read them')

# 4: files
SECTION = 'operands: traces, commands after --'
traces = ['a.dat', 'b.txt', 'sp ace.dat', 'sub']
for c in ('report', 'dump', 'convert', 'count', 'explode', 'diff'):
    expect('%s: traces and directories as operands' % c, q(cw(c) + ['']), traces)
    expect('%s: traces after options' % c, q(cw(c) + ['-j', '2', 's']), ['sp ace.dat', 'sub'])
expect('diff: the second operand', q(['diff', 'a.dat', '']), traces)
expect('report -- : an operand', q(['report', '--', '']), traces)
expect('report: in sub/', q(['report', 'sub/']), [])
for c in ('record', 'top', 'serve'):
    expect('%s: no operands' % c, q(cw(c) + ['']), [])
expect('default command -- COMMAND: commands', q(['-d', '5', '--', 'slee']), ['sleep'])
expect('record -- COMMAND: commands', q(['record', '-q', '--', 'slee']), ['sleep'])
expect('default command -- COMMAND ARG: files', q(['--', 'sleep', '']), FILES)

# ---- run them ----
lines = ['. %s' % shlex.quote(COMP),
         'q() { local d=$1 k=$2; shift 2; (cd "$d" || exit; COMP_WORDS=("$@"); COMP_CWORD=$k; '
         'COMPREPLY=(); _ipitrace; [ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\\n" "${COMPREPLY[@]}"); '
         'echo "@@END $?"; }']
for _, cwd, k, words, _ in queries:
    lines.append('q %s %d %s' % (shlex.quote(cwd), k, ' '.join(shlex.quote(w) for w in words)))
open(TMP + '/drive.bash', 'w').write('\n'.join(lines) + '\n')
r = subprocess.run(['bash', TMP + '/drive.bash'], capture_output=True, text=True, timeout=300)
blocks = r.stdout.split('@@END ')
if r.stderr:
    F('no errors from the completion', r.stderr.strip().replace('\n', '; ')[:300])
else:
    P('no errors from the completion in %d queries' % len(queries))
if len(blocks) != len(queries) + 1:
    F('completion runs', '%d answers to %d queries' % (len(blocks) - 1, len(queries)))
    print('\n'.join(out))
    sys.exit(0)
tally = {}
for i, (section, cwd, k, words, (name, want)) in enumerate(queries):
    text = blocks[i] if i == 0 else blocks[i].split('\n', 1)[1] if '\n' in blocks[i] else ''
    got = sorted(set(l for l in text.split('\n') if l))
    t = tally.setdefault(section, [0, 0])
    t[0] += 1
    if got != want:
        t[1] += 1
        F(name, 'words %s: got %s, want %s' % (words[1:], got, want))
for section, (n, bad) in tally.items():
    if not bad:
        P('%s: %d completions as expected' % (section, n))
print('\n'.join(out))

# the values offered are the values the commands take
tr = ARM
bad, n = [], 0
for c, opt, v in accept:
    if c == 'report':
        args = [c, opt, v, tr]
    elif c == 'diff':
        args = [c, opt, v, tr, tr]
    elif c == 'convert':
        args = [c, '-f', 'parquet', opt, v, '--force', '-o', TMP + '/x.parquet', tr] if opt == '-Z' else \
               [c, opt, v, '--force', '-o', TMP + '/x.out', tr]
    else:
        args = [c, opt, v, '--force', '-o', TMP + '/x.dat', tr]
    rc = subprocess.run([IPT] + args, capture_output=True).returncode
    n += 1
    if rc == 2:
        bad.append(' '.join(args[:3]))
for c, opt in sorted({(c, opt) for c, opt, _ in accept}):
    args = [c, opt, 'no-such-value', tr] + ([tr] if c == 'diff' else []) + \
           (['-o', TMP + '/y.out'] if c in ('convert', 'explode') else [])
    if subprocess.run([IPT] + args, capture_output=True).returncode != 2:
        bad.append('%s %s no-such-value accepted' % (c, opt))
if bad:
    print('F the commands take the values offered: ' + '; '.join(bad))
elif n < 20:
    print('F the commands take the values offered: only %d tried' % n)
else:
    print('P the commands take the %d values offered (report, diff, convert, explode), and refuse a made-up one' % n)
EOF
"$PY" "$TMP/check.py" "$IPT" "$COMP" "$TOP" "$TMP" > "$TMP/verdicts" 2>&1 || echo "F check.py: exit $?" >> "$TMP/verdicts"
verdicts "$TMP/verdicts"
finish
