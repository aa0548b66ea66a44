#!/usr/bin/python3
"""mkman.py IPITRACE HEADER MANDIR COMPLETION

Makes the man pages and the bash completion from their one source each, so
that they cannot disagree with what they describe:
  ipitrace.1         from `ipitrace --help` and every `ipitrace CMD --help`
  ipitrace-filter.7  from `ipitrace help filters`
  libipitrace.3      from include/ipitrace.h (its comments and declarations),
                     its EXAMPLE from examples/count-events.c
  COMPLETION         the commands and each command's options, from --help
The EXAMPLES sections of ipitrace.1 and ipitrace-filter.7 come from
docs/man-examples.txt (its head says the format).
"""
import os, re, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import api

def run(binary, *args):
    r = subprocess.run([binary] + list(args), capture_output=True, text=True)
    return r.stdout

def esc(s):
    """roff text: backslashes, leading dots and quotes made harmless"""
    s = s.replace('\\', '\\e').replace('-', '\\-')
    if s.startswith('.') or s.startswith("'"):
        s = '\\&' + s
    return s

# an option line: "  -x, --long ARG  text", or a long-only one indented to
# the long names' column ("      --long ARG  text")
OPT = re.compile(r'^(?:  |      )(-\S.*?)(?:\s{2,}(\S.*))?$')

def help_to_roff(text):
    """a --help text as roff: usage lines, paragraphs, option lists"""
    out, lines, i = [], text.rstrip('\n').split('\n'), 0
    while i < len(lines):
        l = lines[i]
        if not l.strip():
            i += 1
            continue
        m = OPT.match(l)
        if m and (not l.startswith('   ') or l.startswith('      -')):
            out.append('.TP')
            out.append('.B ' + esc(m.group(1).strip()))
            desc = [m.group(2)] if m.group(2) else []
            i += 1
            while i < len(lines) and lines[i].startswith('    ') and not OPT.match(lines[i]):
                desc.append(lines[i].strip())
                i += 1
            out.append(esc(' '.join(desc)))
            continue
        if l.startswith('  '):		# an indented block: keep it as it is
            out.append('.PP\n.nf')
            while i < len(lines) and lines[i].startswith('  ') and not OPT.match(lines[i]):
                out.append(esc(lines[i]))
                i += 1
            out.append('.fi')
            continue
        para = []
        while i < len(lines) and lines[i].strip() and not lines[i].startswith('  '):
            para.append(lines[i])
            i += 1
        if para[0].startswith('usage:') or para[0].startswith('       ipitrace'):
            out.append('.PP\n.nf')
            out += [esc(p.replace('usage: ', '', 1).strip()) for p in para]
            out.append('.fi')
        else:
            out.append('.PP')
            out += [esc(p) for p in para]
    return '\n'.join(out)

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'docs', 'man-examples.txt')

def read_examples(path):
    """{(page, command or None): [(typed lines, text lines)]} from man-examples.txt"""
    groups, key, cur = {}, None, None
    for n, l in enumerate(open(path).read().split('\n'), 1):
        if l.startswith('#'):
            continue
        m = re.match(r'^\[(\S+)(?: (\S+))?\]$', l)
        if m:
            key, cur = (m.group(1), m.group(2)), None
            groups.setdefault(key, [])
        elif not l.strip():
            cur = None
        elif key is None:
            sys.exit('%s:%d: an example before any [PAGE] line' % (path, n))
        elif l.startswith('$ '):
            if cur is None or cur[1]:
                cur = ([], [])
                groups[key].append(cur)
            cur[0].append(l[2:])
        elif cur is None:
            sys.exit('%s:%d: text with no "$ " line before it' % (path, n))
        else:
            cur[1].append(l)
    return groups

def examples_roff(items):
    """examples as roff: the typed lines indented, in bold, then what they do"""
    o = []
    for typed, text in items:
        o += ['.PP', '.RS 4', '.nf'] + ['\\fB%s\\fP' % esc(t) for t in typed] + ['.fi', '.RE']
        o += [esc(t) for t in text]
    return o

def commands(main_help):
    """(name, summary) of the commands listed by `ipitrace --help`"""
    cmds, on = [], False
    for l in main_help.split('\n'):
        if l.startswith('Commands:'):
            on = True
            continue
        if on:
            m = re.match(r'^  (\S+)\s+(.*)$', l)
            if not m:
                break
            cmds.append((m.group(1), m.group(2)))
    return cmds

def page_ipitrace(binary, version, cmds, main_help, filters, examples):
    o = ['.TH IPITRACE 1 "" "ipitrace %s" "User Commands"' % version,
         '.SH NAME', 'ipitrace \\- which inter\\-processor interrupts hit which CPUs',
         '.SH SYNOPSIS', '.nf', '.B ipitrace', '.B ipitrace \\fICOMMAND\\fP [\\fIOPTIONS\\fP] [\\fIARGS\\fP]',
         '.B ipitrace help filters', '.fi', '.SH DESCRIPTION']
    desc = main_help.split('\nCommands:')[0].split('\n', 1)[1]
    o.append(help_to_roff(desc))
    o.append('.SH COMMANDS')
    for n, summary in cmds:
        o += ['.TP', '.B ' + n, esc(summary)]
    tail = main_help.split('\nCommands:')[1].split('\n\n', 1)
    if len(tail) > 1:
        o.append(help_to_roff(tail[1]))
    for n, _ in cmds:
        o.append('.SH "IPITRACE %s"' % n.upper())
        o.append(help_to_roff(run(binary, n, '--help')))
    o += ['.SH FILTERS', help_to_roff(filters)]
    o.append('.SH EXAMPLES')
    for n in ['-'] + [c for c, _ in cmds]:
        items = examples.get(('ipitrace.1', n))
        if items:
            o.append('.SS "%s"' % ('ipitrace with no command' if n == '-' else 'ipitrace ' + n))
            o += examples_roff(items)
    o += ['.SH EXIT STATUS', '0 on success, 1 on a runtime error (one line on standard error:',
          '\\fBipitrace: FILE: offset N: what went wrong\\fP), 2 on a usage error.',
          '.SH SEE ALSO', '.BR ipitrace\\-filter (7),', '.BR libipitrace (3),',
          '.BR trace\\-cmd (1)']
    return '\n'.join(o) + '\n'

def page_filter(version, filters, examples):
    return '\n'.join(['.TH IPITRACE-FILTER 7 "" "ipitrace %s" "Miscellaneous"' % version,
                      '.SH NAME', 'ipitrace\\-filter \\- the filter language of ipitrace and libipitrace',
                      '.SH DESCRIPTION', help_to_roff(filters),
                      '.SH EXAMPLES'] + examples_roff(examples.get(('ipitrace-filter.7', None), [])) +
                     ['.SH SEE ALSO', '.BR ipitrace (1),', '.BR libipitrace (3)']) + '\n'

def page_lib(version, header):
    """libipitrace(3): each section of the header, its comments and declarations"""
    text = open(header).read()
    body = text.split('#pragma GCC visibility push(default)', 1)[1].split('#pragma GCC visibility pop')[0]
    o = ['.TH LIBIPITRACE 3 "" "ipitrace %s" "Library Functions"' % version,
         '.SH NAME', 'libipitrace \\- read kernel traces, CPU masks as CPU sets, IPI rows and reports',
         '.SH SYNOPSIS', '.nf', '.B #include <ipitrace.h>', '.PP',
         'cc prog.c $(pkg\\-config \\-\\-cflags \\-\\-libs ipitrace)', '.fi',
         '.SH DESCRIPTION']
    head = text.split('#ifndef IPITRACE_H')[0]
    intro = re.sub(r'^/\*|\*/$', '', head.split('\n', 1)[1].strip(), flags=re.M)
    o.append('.nf')
    o += [esc(re.sub(r'^ ?\* ?', '', l)) for l in intro.split('\n')]
    o.append('.fi')
    # sections start at banner comments: /* ---- */ /* Title */ /* ---- */
    parts = re.split(r'/\* -{20,} \*/\n/\* (.*?)\s*\*/\n/\* -{20,} \*/\n', body)
    o.append('.SH "VERSION AND ERRORS"')
    o += ['.nf'] + [esc(l) for l in parts[0].strip('\n').split('\n')] + ['.fi']
    for k in range(1, len(parts), 2):
        o.append('.SH "%s"' % esc(parts[k].upper()))
        o += ['.nf'] + [esc(l) for l in parts[k + 1].strip('\n').split('\n')] + ['.fi']
    o.append('.SH FUNCTIONS')
    o.append('.nh\n.ad l')
    o.append('Every function the library exports, each declared and described above:')
    o.append('.PP')
    o.append(', '.join('\\fB%s\\fP()' % esc(n) for n in api.declared(header)) + '.')
    # the shortest program of examples/, read from the file: they cannot drift
    ex = os.path.join(os.path.dirname(os.path.abspath(header)), '..', 'examples', 'count-events.c')
    o += ['.SH EXAMPLE', 'examples/count\\-events.c of the source tree (beside two more, and a',
          'Makefile that builds them with pkg\\-config):', '.PP', '.nf', '.ta 8n 16n 24n 32n 40n 48n 56n 64n']
    o += [esc(l) for l in open(ex).read().rstrip('\n').split('\n')] + ['.fi']
    o += ['.SH SEE ALSO', '.BR ipitrace (1),', '.BR ipitrace\\-filter (7)']
    return '\n'.join(o) + '\n'

def completion(binary, cmds):
    """bash completion: commands, options and their values (tools/mkcomp.py)"""
    import mkcomp
    return mkcomp.completion(run, binary, cmds, run(binary, '--help'))

def main():
    binary, header, mandir, comp = sys.argv[1:5]
    version = run(binary, '--version').split('\n')[0].split()[-1]  # its first line: 'ipitrace M.m.p'
    main_help = run(binary, '--help')
    filters = run(binary, 'help', 'filters')
    cmds = commands(main_help)
    if not cmds or not filters:
        sys.exit('mkman.py: %s --help lists no command' % binary)
    examples = read_examples(EXAMPLES)
    known = [('ipitrace.1', n) for n in ['-'] + [c for c, _ in cmds]] + [('ipitrace-filter.7', None)]
    for k in examples:
        if k not in known:
            sys.exit('mkman.py: %s: no page or command [%s]' % (EXAMPLES, ' '.join(x for x in k if x)))
    pages = {'ipitrace.1': page_ipitrace(binary, version, cmds, main_help, filters, examples),
             'ipitrace-filter.7': page_filter(version, filters, examples),
             'libipitrace.3': page_lib(version, header)}
    for name, text in pages.items():
        with open(os.path.join(mandir, name) + '.tmp', 'w') as f:
            f.write(text)
        os.replace(os.path.join(mandir, name) + '.tmp', os.path.join(mandir, name))
    with open(comp + '.tmp', 'w') as f:
        f.write(completion(binary, cmds))
    os.replace(comp + '.tmp', comp)

main()
