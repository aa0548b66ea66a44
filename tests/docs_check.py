#!/usr/bin/python3
"""docs_check.py [--only KIND] TOP IPITRACE MANPAGE... : the docs name only what
the program has.

TOP holds README.md, docs/*.md and the Makefile; IPITRACE is the binary whose
--help outputs say what exists; each MANPAGE's EXAMPLES section (roff) is
read too.  Prints one verdict line per check, "P name: figures" or
"F name: why" (tests/lib.sh `verdicts` reads them).  KIND (length, commands,
links, make) runs one check alone.

  length    README.md is under 400 lines.
  commands  every `ipitrace CMD ...` in the docs' shell and plain code blocks,
            their code spans and the man pages' EXAMPLES names a command that
            `ipitrace --help` lists, and every option given to it is one that
            `ipitrace CMD --help` lists (for no command: the usage line of
            `ipitrace --help` and the options its table gives "default");
            likewise a code span that starts with a command name and an
            option (`report --by stack`), and the option tables of each
            command's section in docs/commands.md.
  links     every relative link [text](path#anchor) outside code leads to a
            file, and an anchor into a .md file to one of its headings (as
            GitHub makes them).
  make      every `make TARGET` is a target of the Makefile.

The lists of commands and options come from the program's --help texts,
read here on their own terms (option lines of the form "  -x, --long ARG
text" or "      --long ARG text"), not from the docs.
"""
import glob, os, re, shlex, subprocess, sys

def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True).stdout

# ---- what the program has, from its --help texts ----

OPTLINE = re.compile(r'^ {2,8}(-[A-Za-z0-9])?(?:, )?(--[a-z0-9][a-z0-9-]*)?(?=[ =\[]|$)')

def help_options(text):
    """the options of one --help text: its option lines' short and long names"""
    opts = set()
    for l in text.split('\n'):
        m = OPTLINE.match(l)
        if m and (m.group(1) or m.group(2)):
            opts.update(x for x in m.groups() if x)
    return opts

def program(binary):
    """({command: options}, the default command's options)"""
    main = run(binary, '--help')
    cmds, on = {}, False
    for l in main.split('\n'):
        if l.startswith('Commands:'):
            on = True
            continue
        if on:
            m = re.match(r'^  ([a-z]+)\s', l)
            if not m:
                break
            cmds[m.group(1)] = help_options(run(binary, m.group(1), '--help'))
    # no command: the usage lines "ipitrace [-d TIME] ..." (up to the blank
    # line after them), the table rows whose commands include "default",
    # the long-only list's entries marked "default", and -h/-V
    dflt = set()
    lines = main.split('\n')
    for i, l in enumerate(lines):
        if re.match(r'^\s+ipitrace \[', l):
            j = i
            while j < len(lines) and lines[j].strip().startswith(('ipitrace [', '[')):
                dflt.update(re.findall(r'\[(--?[A-Za-z][\w-]*)', lines[j]))
                j += 1
    entry = ''
    for l in lines + ['']:
        if re.match(r'^  -', l) or not l.strip() or not l.startswith('   '):
            if re.search(r'\([^)]*\bdefault\b[^)]*\)', entry):
                m = OPTLINE.match(entry)
                if m:
                    dflt.update(x for x in m.groups() if x)
            entry = l if re.match(r'^  -', l) else ''
        else:
            entry += ' ' + l.strip()
    longonly = main.split('Long only:', 1)[-1].split('\n\n')[0].replace('\n', ' ')
    for names, where in re.findall(r'((?:--[\w-]+(?: [A-Z]+)?, )*--[\w-]+(?: [A-Z]+)?) \(([^)]*)\)', longonly):
        if re.search(r'\bdefault\b', where):
            dflt.update(re.findall(r'--[\w-]+', names))
    dflt.update(o for o in help_options(main) if o in ('-h', '--help', '-V', '--version'))
    return cmds, dflt

# ---- what the docs say ----

def md_parts(path):
    """(line number, kind, text) of a markdown file: kind 'code:LANG' for a
    line of a fenced block, 'text' for a line outside"""
    out, fence = [], None
    for n, l in enumerate(open(path, encoding='utf-8').read().split('\n'), 1):
        m = re.match(r'^\s*```\s*(\S*)', l)
        if m:
            fence = None if fence is not None else (m.group(1) or 'plain')
            continue
        out.append((n, 'text' if fence is None else 'code:' + fence, l))
    return out

def spans(line):
    return re.findall(r'`([^`]+)`', line)

def strip_comment(l):
    """a shell line without its comment (a # after a blank, outside quotes)"""
    q = None
    for i, c in enumerate(l):
        if q:
            if c == q:
                q = None
        elif c in '\'"':
            q = c
        elif c == '#' and (i == 0 or l[i - 1] in ' \t'):
            return l[:i]
    return l

def words(s):
    """shell words of s up to the end of its first command (| ; & > < ( ))"""
    lx = shlex.shlex(s, posix=True, punctuation_chars=True)
    lx.whitespace_split = True
    out = []
    try:
        for t in lx:
            if t and all(c in '|;&<>()' for c in t):
                break
            out.append(t)
    except ValueError:		# an unclosed quote in an excerpt
        out = s.split()
    return out

INVOKE = re.compile(r'(?:^|(?<=[\s/(|`\'"$]))ipitrace(?=\s|$)')

def invocations(s):
    """(command or None, [options]) of each `ipitrace ...` in s"""
    res = []
    for m in INVOKE.finditer(s):
        rest = s[m.end():]
        if re.search(r'<[a-z_]+>', rest.split('\n')[0]):	# a template: `ipitrace version <version>`
            continue
        w = [t.strip('[]') for t in words(rest)]
        w = [t for t in w if t]
        if w and re.match(r'^[A-Z]', w[0]):	# a placeholder: `ipitrace COMMAND --help`
            continue
        cmd = None
        if w and re.match(r'^[a-z][a-z-]*$', w[0]):
            cmd, w = w[0], w[1:]
        elif w and not w[0].startswith('-'):
            continue			# not an invocation ("ipitrace: ..." output)
        opts = []
        for t in w:
            if t == '--' or t.startswith('[--'):
                break
            if re.match(r'^--[A-Za-z]', t):
                opts.append(t.split('=')[0])
            elif re.match(r'^-[A-Za-z]+$', t):	# -s, or a cluster: -sq
                opts += ['-' + c for c in t[1:]]
            elif re.match(r'^-[A-Za-z]', t):	# an argument attached: -j2
                opts.append(t[:2])
        res.append((cmd, opts))
    return res

def man_examples(page):
    """the typed lines of a roff man page's EXAMPLES section, unescaped"""
    text = open(page, encoding='utf-8').read()
    m = re.search(r'^\.SH "?EXAMPLES"?\n(.*?)(?=^\.SH |\Z)', text, re.S | re.M)
    if not m:
        return None
    out = []
    for l in m.group(1).split('\n'):
        b = re.match(r'^\\fB(.*)\\fP$', l)
        if b:
            out.append(b.group(1).replace('\\-', '-').replace('\\&', '').replace('\\e', '\\'))
    return out

def slug(h):
    h = re.sub(r'[^\w\- ]', '', h.strip().lower())
    return h.replace(' ', '-')

def anchors(path):
    seen, out = {}, set()
    for n, kind, l in md_parts(path):
        m = re.match(r'^#{1,6} (.*)', l) if kind == 'text' else None
        if m:
            s = slug(m.group(1))
            k = seen.get(s, 0)
            out.add(s if k == 0 else '%s-%d' % (s, k))
            seen[s] = k + 1
    return out

def make_targets(makefile):
    t = set()
    for l in open(makefile).read().split('\n'):
        m = re.match(r'^([^\s#:=$][^:=#]*?)\s*&?::?(?!=)', l)
        if m:
            t.update(m.group(1).split())
        m = re.match(r'^\.PHONY\s*:(.*)', l)
        if m:
            t.update(m.group(1).split())
    return t

def main():
    args = sys.argv[1:]
    only = None
    if args[:1] == ['--only']:
        only, args = args[1], args[2:]
    top, binary, manpages = args[0], args[1], args[2:]
    readme = os.path.join(top, 'README.md')
    mds = [readme] + sorted(glob.glob(os.path.join(top, 'docs', '*.md')))
    rel = lambda p: os.path.relpath(p, top)
    verdicts = []

    if only in (None, 'length'):
        n = len(open(readme, encoding='utf-8').read().split('\n')) - 1
        verdicts.append(('P' if n < 400 else 'F', 'docs-readme-length',
                         'README.md has %d lines%s' % (n, '' if n < 400 else ', not under 400')))

    if only in (None, 'commands'):
        cmds, dflt = program(binary)
        if not cmds or not dflt:
            verdicts.append(('F', 'docs-commands', '%s --help lists no command or option' % binary))
        seen, bad = 0, []
        def judge(where, text):
            nonlocal seen
            for cmd, opts in invocations(text):
                seen += 1
                if cmd == 'help':
                    continue
                if cmd is not None and cmd not in cmds:
                    bad.append('%s: no command "ipitrace %s"' % (where, cmd))
                    continue
                have = dflt if cmd is None else cmds[cmd]
                for o in opts:
                    if o not in have:
                        bad.append('%s: ipitrace%s has no option %s' % (where, '' if cmd is None else ' ' + cmd, o))
        def judge_bare(where, text):	# `report --by stack`: a command and an option
            nonlocal seen
            w = words(text)
            if len(w) >= 2 and w[0] in cmds and re.match(r'^--?[A-Za-z]', w[1]):
                seen += 1
                for t in w[1:]:
                    t = t.strip('[]')
                    if t == '--':
                        break
                    o = t.split('=')[0] if t.startswith('--') else t[:2]
                    if re.match(r'^--?[A-Za-z]', t) and o not in cmds[w[0]]:
                        bad.append('%s: ipitrace %s has no option %s' % (where, w[0], o))
        for p in mds:
            section = None
            for n, kind, l in md_parts(p):
                where = '%s:%d' % (rel(p), n)
                if kind == 'text':
                    h = re.match(r'^#{1,6} `ipitrace ([a-z]+)', l)
                    if re.match(r'^#{1,6} ', l):
                        section = h.group(1) if h else None
                    for s in spans(l):
                        judge(where, s)
                        judge_bare(where, s)
                    # an option table row under a command's heading
                    row = re.match(r'^\|\s*(`-[^|]*)\|', l)
                    if row and section in cmds and p.endswith('commands.md'):
                        seen += 1
                        for o in re.findall(r'`(--?[A-Za-z][\w-]*)', row.group(1)):
                            if o not in cmds[section]:
                                bad.append('%s: ipitrace %s has no option %s' % (where, section, o))
                    # the table of letters: | `-x` | `--long ARG` | meaning | commands |
                    row = re.match(r'^\|\s*`(-[A-Za-z])`\s*\|\s*`(--[\w-]+)[^|]*\|[^|]*\|([^|]*)\|\s*$', l)
                    if row:
                        seen += 1
                        for c in re.split(r'[,\s]+', row.group(3).strip()):
                            have = dflt if c == 'default' else cmds.get(c)
                            if c == 'all':
                                continue
                            if have is None:
                                bad.append('%s: no command "%s"' % (where, c))
                            elif row.group(1) not in have or row.group(2) not in have:
                                bad.append('%s: %s does not take %s, %s' % (where, c, row.group(1), row.group(2)))
                elif kind in ('code:sh', 'code:plain', 'code:console', 'code:shell', 'code:bash'):
                    judge(where, strip_comment(l) if kind != 'code:plain' else l)
        for page in manpages:
            ex = man_examples(page)
            if ex is None:
                bad.append('%s: no EXAMPLES section' % os.path.basename(page))
                continue
            for k, l in enumerate(ex, 1):
                judge('%s EXAMPLES, example line %d' % (os.path.basename(page), k), l)
        if bad:
            verdicts.append(('F', 'docs-commands', '; '.join(bad)))
        else:
            verdicts.append(('P', 'docs-commands', '%d commands, options and option tables in %d files and %d man pages '
                             'are what `ipitrace --help` and its %d commands\' --help list' % (seen, len(mds), len(manpages), len(cmds))))

    if only in (None, 'links'):
        n, bad = 0, []
        for p in mds:
            for ln, kind, l in md_parts(p):
                if kind != 'text':
                    continue
                l = re.sub(r'`[^`]*`', '', l)		# not in code spans
                for target in re.findall(r'\]\(([^)\s]+)\)', l):
                    if re.match(r'^[a-z]+:', target):
                        continue
                    n += 1
                    path, _, anchor = target.partition('#')
                    f = os.path.normpath(os.path.join(os.path.dirname(p), path)) if path else p
                    where = '%s:%d' % (rel(p), ln)
                    if not os.path.exists(f):
                        bad.append('%s: %s: no such file' % (where, target))
                    elif anchor and f.endswith('.md') and anchor not in anchors(f):
                        bad.append('%s: %s: no heading #%s in %s' % (where, target, anchor, rel(f)))
        verdicts.append(('F', 'docs-links', '; '.join(bad)) if bad else
                        ('P', 'docs-links', '%d relative links in %d files lead to files and headings' % (n, len(mds))))

    if only in (None, 'make'):
        targets = make_targets(os.path.join(top, 'Makefile'))
        n, bad = 0, []
        for p in mds:
            for ln, kind, l in md_parts(p):
                texts = spans(l) if kind == 'text' else [strip_comment(l)] if kind.startswith('code:') and kind != 'code:python' else []
                for s in texts:
                    for m in re.finditer(r'(?:^|(?<=[\s(`;&|]))make(?=\s|$)', s):
                        for t in words(s[m.end():]):
                            if t.startswith('-') or '=' in t:
                                continue
                            if t.isupper():	# a placeholder: `make TARGET`
                                break
                            if not re.match(r'^[A-Za-z][\w.-]*$', t):
                                break
                            n += 1
                            if t not in targets:
                                bad.append('%s:%d: make %s: no such target' % (rel(p), ln, t))
        verdicts.append(('F', 'docs-make', '; '.join(bad)) if bad else
                        ('P', 'docs-make', '%d `make TARGET`s in %d files are targets of the Makefile' % (n, len(mds))))

    for v in verdicts:
        print('%s %s: %s' % v)

main()
