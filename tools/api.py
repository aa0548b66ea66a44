#!/usr/bin/python3
"""api.py HEADER [--map MAJOR]: the functions include/ipitrace.h declares.

One line per exported function (static inline functions are left out: they
are not in the library).  With --map MAJOR: a linker version script that
exports exactly those, under the version node IPITRACE_MAJOR.  Used by the
build (the version script), tests/layers.py and tests/test_install.sh.
"""
import re, sys

def declared(path):
    """the exported functions declared in the header, in order"""
    text = open(path).read()
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    # drop preprocessor lines (macros may hold ipt_ calls)
    text = '\n'.join(l for l in text.split('\n') if not l.lstrip().startswith('#'))
    # drop the bodies and heads of static inline functions
    inline = set(re.findall(r'static\s+inline[^;{]*?\b(ipt_\w+)\s*\(', text))
    names = []
    for m in re.finditer(r'\b(ipt_\w+)\s*\(', text):
        n = m.group(1)
        # a declaration: the name follows a type, not a '(' of a call or a typedef
        before = text[max(0, m.start() - 2):m.start()]
        if n in inline or '(*' in text[max(0, m.start() - 3):m.start()]:
            continue
        if n not in names:
            names.append(n)
    return names

def main():
    names = declared(sys.argv[1])
    if len(sys.argv) > 3 and sys.argv[2] == '--map':
        print('IPITRACE_%s {' % sys.argv[3])
        print('\tglobal:')
        for n in names:
            print('\t\t%s;' % n)
        print('\tlocal:\n\t\t*;\n};')
    else:
        for n in names:
            print(n)

if __name__ == '__main__':
    main()
