#!/usr/bin/env python3
"""idioms.py - one way to do each small thing, checked on the sources.

    python3 tests/idioms.py ROOT

Reads lib/ and src/ under ROOT and fails (exit 1, one line a finding) where
code does by hand what one helper does (include/ipitrace-private.h):
  - an array grown by hand (realloc, or a capacity doubled) instead of
    IPT_GROW / IPT_GROW_ZERO (ipt_grow, lib/core/alloc.c);
  - a hash table probed by hand instead of the one hash map (ipt_hmap_*,
    lib/core/hashmap.c);
  - a JSON string escaped by hand instead of ipt_json_str, or JSON
    written by hand instead of the JSON writer ipt_jw_* (lib/core/json.c);
  - an options struct's sz read instead of ipt_opts_copy (lib/core/opts.c).
A line may say why it is the exception: "not ipt_grow: WHY" in a comment on
it or on one of the 15 lines before it.  python/ is a client of the stable
tier (ipitrace.h) and has its own allocator: not checked.
"""
import os
import re
import sys

HELPERS = {"lib/core/alloc.c", "lib/core/hashmap.c", "lib/core/json.c", "lib/core/opts.c"}

RULES = [
    ("an array grown by hand (use IPT_GROW)",
     re.compile(r"(?<!\*)\b(ipt_)?realloc\s*\((?!void)")),
    ("a capacity doubled by hand (use IPT_GROW)",
     re.compile(r"cap\w*\s*\?[^:;]*\*\s*2\s*:|\b\w*cap\w*\s*\*=\s*2\b|"
                r"\b\w*cap\w*\s*<<=\s*1\b|\bn\s*\*=\s*2\s*;")),
    ("a hash table probed by hand (use ipt_hmap)",
     re.compile(r"\(\s*\w+\s*\+\s*1\s*\)\s*&\s*\(?[\w>.-]*(cap|nslots|size|mask)\w*")),
    ("a JSON string escaped by hand (use ipt_json_str)",
     re.compile(r'\\\\u00|\\\\u%0?4')),
    ("JSON written by hand (use the JSON writer, ipt_jw_*)",
     re.compile(r'\\"[A-Za-z_%][\w%]*\\":')),
    ("an options struct's sz read by hand (use ipt_opts_copy)",
     re.compile(r"(->|\.)sz\s*(?:[<>]=?|[!=]=)|sizeof\(\*?\w+\)\s*[<>]=?\s*\w+(->|\.)sz\b")),
]


def findings(root):
    out = []
    for top in ("lib", "src"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                if rel in HELPERS:
                    continue
                with open(path, encoding="utf-8", errors="replace") as fh:
                    lines = fh.read().split("\n")
                for i, line in enumerate(lines):
                    code = re.sub(r"/\*.*?\*/|//.*$", "", line)
                    if code.lstrip().startswith("*"):
                        continue	# inside a block comment
                    for what, rx in RULES:
                        if not rx.search(code):
                            continue
                        ctx = "\n".join(lines[max(0, i - 15):i + 1])
                        if "not ipt_grow:" in ctx or "not ipt_hmap:" in ctx:
                            continue
                        out.append("%s:%d: %s: %s" % (rel, i + 1, what, line.strip()))
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    bad = findings(root)
    for b in bad:
        print(b)
    print("idioms: %d finding(s)" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
