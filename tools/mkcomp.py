"""mkcomp.py - the bash completion of ipitrace, made from its --help texts
(imported by tools/mkman.py, which writes it out).

Every value it offers comes from the --help text of the command at hand
(report's --format values are not convert's) or from the machine and the
trace at completion time:
  option names          each command's option lines; the default command's
                        from `ipitrace --help` (its usage line, and the
                        options table's entries marked "default")
  listed values         an option whose description lists its words plainly,
                        "w1, w2 or w3" ahead of a '.', ';' or ':' (text in
                        parentheses aside): --format, --by, --sort,
                        --backend, --compression; KEYS (comma-separated) one
                        word after another
  --clock               the kernel's trace_clock when it can be read, else
                        the clocks record --help lists
  CPU lists             options with a LIST of CPUs: the online CPUs of the
                        machine (and the isolated, nohz_full ones), or the
                        CPUs of the traces on the line (`ipitrace dump -n 1`
                        prints "cpus=N" first) for report, diff, convert, dump
  files                 traces (*.dat, *.txt, directories) as the commands'
                        operands; FILE, OUT and PATH arguments any file;
                        --html *.html
"""
import re

# an option line of a --help text: "  -x, --long ARG  text", or a long-only
# one indented to the long names' column ("      --long ARG  text")
OPT = re.compile(r'^(?:  |      )(-\S.*?)(?:\s{2,}(\S.*))?$')

# commands whose operands are traces; the CPUs of those on the line count
TRACE_OPERANDS = ('report', 'diff', 'dump', 'convert', 'count', 'explode')
TRACE_CPUS = ('report', 'diff', 'dump', 'convert')
# commands that take `-- COMMAND [ARGS]`
RUNS_COMMAND = ('record', 'default')
FILE_ARGS = ('FILE', 'OUT', 'PATH', 'DIR', 'OUT.dat')


def parse_options(text):
    """[(names, ARG or None, description)] of the option lines of a --help text"""
    out, lines, i = [], text.split('\n'), 0
    while i < len(lines):
        line = lines[i]
        m = OPT.match(line)
        i += 1
        if not m or (line.startswith('   ') and not line.startswith('      -')):
            continue
        desc = [m.group(2) or '']
        while i < len(lines) and lines[i].startswith('    ') and not OPT.match(lines[i]):
            desc.append(lines[i].strip())
            i += 1
        # "--name[=ARG]": a value only attached to it, so a flag to complete
        words = [re.sub(r'^(--[A-Za-z0-9][\w-]*)\[=\w+\]$', r'\1', w)
                 for w in m.group(1).replace(',', ' ').split()]
        names = [w for w in words if re.fullmatch(r'--?[A-Za-z0-9][\w-]*', w)]
        args = [w for w in words if not w.startswith('-')]
        if names:
            out.append((names, args[0] if args else None, ' '.join(d for d in desc if d)))
    return out


def unparen(s):
    """s without its parenthesized asides (nested ones too)"""
    while True:
        t = re.sub(r'\([^()]*\)', '', s)
        if t == s:
            return s
        s = t


def listed_values(desc):
    """the words a description lists as an option's values: the first run
    'w1, w2, or w3' that makes up a whole clause (between '.', ';' or ':' and a
    blank) once the asides in parentheses are left out; None if it lists none"""
    for clause in re.split(r'[.;:](?=\s|$)', unparen(desc)):
        items = [x.strip() for x in re.split(r',\s*(?:or\s+)?|\s+or\s+', clause.strip())]
        if len(items) >= 2 and all(re.fullmatch(r'[a-z][a-z0-9_-]*', x) for x in items):
            return items
    return None


def default_options(main_help):
    """the default command's options: the usage line's, and those of the
    options table marked 'default', as (names, ARG, description)"""
    table = main_help.split('\nOptions mean the same', 1)
    table = table[1] if len(table) > 1 else ''
    rows = parse_options(table.split('\nLong only:')[0])
    marked = [(n, a, d) for n, a, d in rows
              if 'default' in re.findall(r'[\w-]+', ' '.join(re.findall(r'\(([^()]*)\)', d)))
              or 'every command' in d]
    # the long-only prose: "--name [ARG] ... (cmd, cmd), --other ..."
    prose = table.split('\nLong only:', 1)[1].split('\n\n')[0] if '\nLong only:' in table else ''
    pending = []
    for m in re.finditer(r'(--[A-Za-z0-9][\w-]*)(?: ([A-Z][A-Z:]*)\b)?|\(([^()]*)\)', prose):
        if m.group(1):
            pending.append((m.group(1), m.group(2)))
            continue
        if 'default' in re.findall(r'[\w-]+', m.group(3)):
            marked += [([n], a, '') for n, a in pending]
        pending = []
    # the usage line(s) of the default command: "ipitrace [-d TIME] [--force] ..."
    usage = re.search(r'\n  ipitrace (\[-.*?)\n(?!\s*\[)', main_help + '\n', re.S)
    for m in re.finditer(r'\[(--?[A-Za-z0-9][\w-]*)(?: ([A-Z][A-Z:]*))?\]', usage.group(1) if usage else ''):
        if not any(m.group(1) in n for n, _, _ in marked):
            marked.append(([m.group(1)], m.group(2), ''))
    return marked


def value_action(cmd, names, arg, desc):
    """the bash that completes this option's argument, or None (nothing)"""
    if arg is None:
        return None
    if '--html' in names:
        return '_ipitrace_files html'
    if arg in FILE_ARGS:
        return '_ipitrace_files'
    if arg == 'LIST' and 'CPU' in desc:
        extra = ' none' if re.search(r'\bnone:', desc) else ''
        src = 'trace' if cmd in TRACE_CPUS else 'machine'
        return '_ipitrace_cpus %s "%s"' % (src, extra.strip())
    vals = listed_values(desc)
    if '--clock' in names:
        return '_ipitrace_clock "%s"' % ' '.join(vals or [])
    if vals:
        many = arg.endswith('S') or 'comma-separated' in desc
        return '_ipitrace_words "%s"%s' % (' '.join(vals), ' ,' if many else '')
    return None


LIB = r'''
# _ipitrace_words "W..." [,]: the words for $cur; with ',' a comma-separated
# list of them, completed after its last comma
_ipitrace_words()
{
	local pre='' w words=''
	if [ -n "$2" ] && [[ $cur == *,* ]]; then
		pre=${cur%,*},
		for w in $1; do
			[[ ,$pre == *,$w,* ]] || words="$words $w"
		done
	else
		words=$1
	fi
	COMPREPLY=($(compgen -P "$pre" -W "$words" -- "${cur##*,}"))
}

# _ipitrace_expand LIST: the CPUs of a CPU list (0-3,8), one a word
_ipitrace_expand()
{
	local r a b out=''
	local IFS=,
	for r in $1; do
		case $r in
		*[!0-9-]*|'') continue ;;
		*-*) a=${r%%-*} b=${r#*-} ;;
		*) a=$r b=$r ;;
		esac
		case $a$b in *[!0-9]*|'') continue ;; esac
		a=$((10#$a)) b=$((10#$b))
		[ $((b - a)) -le 8192 ] || continue
		while [ "$a" -le "$b" ]; do out="$out $a"; a=$((a + 1)); done
	done
	echo "$out"
}

# _ipitrace_cpus machine|trace EXTRA: a CPU list for $cur: the whole lists
# (online, isolated, nohz_full), and each CPU; after a comma each CPU not
# given yet.  trace: the CPUs of the traces on the line ($_ipitrace_traces)
# if their headers say, else the machine's.  EXTRA: words such as none.
_ipitrace_cpus()
{
	local d=/sys/devices/system/cpu lists='' cpus='' words='' f l n=0 t=''
	if [ "$1" = trace ]; then
		command -v timeout > /dev/null 2>&1 && t="timeout 2"
		for f in "${_ipitrace_traces[@]}"; do
			[ -f "$f" ] && [ -r "$f" ] || continue
			l=$($t "${COMP_WORDS[0]}" dump -n 1 -- "$f" 2> /dev/null | head -n 1)
			l=${l#cpus=}
			case $l in ''|*[!0-9]*) continue ;; esac
			[ ${#l} -le 5 ] && [ $((10#$l)) -gt "$n" ] && n=$((10#$l))
		done
	fi
	if [ "$n" -gt 0 ]; then
		lists=0
		[ "$n" -gt 1 ] && lists=0-$((n - 1))
		cpus=$(_ipitrace_expand "$lists")
	else
		for f in online isolated nohz_full; do
			[ -r $d/$f ] && read -r l < $d/$f 2> /dev/null || continue
			case $l in ''|*[!0-9,-]*) continue ;; esac
			lists="$lists $l"
		done
		[ -r $d/online ] && read -r l < $d/online 2> /dev/null && cpus=$(_ipitrace_expand "$l")
	fi
	if [[ $cur == *,* ]]; then
		_ipitrace_words "$cpus" ,
	else
		for f in $lists $cpus $2; do
			[[ " $words " == *" $f "* ]] || words="$words $f"
		done
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
	fi
}

# _ipitrace_clock "CLOCKS": the kernel's trace clocks if it says, else CLOCKS
_ipitrace_clock()
{
	local c=''
	[ -r /sys/kernel/tracing/trace_clock ] && read -r c < /sys/kernel/tracing/trace_clock 2> /dev/null
	c=${c//[\[\]]/}
	COMPREPLY=($(compgen -W "${c:-$1}" -- "$cur"))
}

# _ipitrace_files [html|trace]: files for $cur: any, *.html, or traces
# (*.dat, *.txt); directories too
_ipitrace_files()
{
	local f
	compopt -o filenames 2> /dev/null
	while IFS= read -r f; do
		case $1:$f in
		:*|html:*.html|trace:*.dat|trace:*.txt) COMPREPLY+=("$f") ;;
		*) [ -d "$f" ] && COMPREPLY+=("$f") ;;
		esac
	done < <(compgen -f -- "$cur")
}
'''

MAIN = r'''
_ipitrace()
{
	local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]} opts args
	local i=2 j w opt='' dashdash='' n=${#COMP_WORDS[@]}
	local -a _ipitrace_traces=()
	COMPREPLY=()
	if [ "$COMP_CWORD" -eq 1 ]; then
		case $cur in
		-*) COMPREPLY=($(compgen -W "%(default_opts)s -V --version" -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W "%(cmds)s help --help --version" -- "$cur")) ;;
		esac
		return
	fi
	case $cmd in
	help)
		[ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "%(cmds)s filters" -- "$cur"))
		return ;;
	%(cmd_alts)s) ;;
	-*) cmd=default i=1 ;;
	*) return ;;
	esac
	case $cmd in
%(opt_cases)s
	esac
	# the words before and after $cur: options, their arguments ("--by
	# KEY", "--by=KEY": bash splits at '='), operands, and "--"
	while [ "$i" -lt "$n" ]; do
		w=${COMP_WORDS[i]}
		if [ "$w" = -- ] && [ "$i" -lt "$COMP_CWORD" ] && [ -z "$dashdash" ]; then
			dashdash=$i
		elif [ -z "$dashdash" ] && [ "$i" -ne "$COMP_CWORD" ] && [[ " $args " == *" $w "* ]]; then
			j=1
			[ "${COMP_WORDS[i+1]}" = "=" ] && j=2
			if [ "$COMP_CWORD" -gt "$i" ] && [ "$COMP_CWORD" -le $((i + j)) ]; then
				opt=$w
			fi
			i=$((i + j))
		elif [ "$i" -ne "$COMP_CWORD" ] && { [ -n "$dashdash" ] || [[ $w != -?* ]]; }; then
			_ipitrace_traces+=("$w")
		fi
		i=$((i + 1))
	done
	[ "$cur" = "=" ] && cur=
	if [ -n "$opt" ]; then
		case "$cmd $opt" in
%(value_cases)s
		esac
		return
	fi
	if [ -n "$dashdash" ]; then
		case $cmd in
		%(runs_command)s)
			if [ "$COMP_CWORD" -eq $((dashdash + 1)) ]; then
				while IFS= read -r w; do COMPREPLY+=("$w"); done < <(compgen -c -- "$cur")
			else
				_ipitrace_files
			fi
			return ;;
		esac
	elif [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	case $cmd in
	%(trace_operands)s) _ipitrace_files trace ;;
	esac
}
complete -F _ipitrace ipitrace
'''


def completion(run, binary, cmds, main_help):
    """the bash completion script; run(binary, *args) gives a command's stdout"""
    names = [n for n, _ in cmds]
    per = [(n, parse_options(run(binary, n, '--help'))) for n in names]
    per.append(('default', default_options(main_help)))
    opt_cases, value_cases = [], []
    for cmd, opts in per:
        allnames = sorted({x for n, _, _ in opts for x in n})
        takes = sorted({x for n, a, _ in opts if a for x in n})
        opt_cases.append('\t%s) opts="%s"\n\t\targs="%s" ;;' % (cmd, ' '.join(allnames), ' '.join(takes)))
        for n, a, d in opts:
            act = value_action(cmd, n, a, d)
            if act:
                value_cases.append('\t\t%s) %s ;;' % ('|'.join('"%s %s"' % (cmd, x) for x in n), act))
    default_opts = sorted({x for n, _, _ in per[-1][1] for x in n})
    o = ['# bash completion for ipitrace (made by tools/mkcomp.py from --help)', LIB.strip('\n'),
         MAIN.rstrip('\n') % {
             'cmds': ' '.join(names),
             'cmd_alts': '|'.join(names),
             'default_opts': ' '.join(default_opts),
             'opt_cases': '\n'.join(opt_cases),
             'value_cases': '\n'.join(value_cases),
             'runs_command': '|'.join(RUNS_COMMAND),
             'trace_operands': '|'.join(c for c in TRACE_OPERANDS if c in names)}]
    return '\n'.join(o) + '\n'
