#!/usr/bin/python3
"""comm_strip.py IN OUT CMDLINES - OUT: the trace file IN (its sections not
compressed) with every pid of its saved command lines made 0, the names and
every offset kept, so that task names can come only from sched events.
CMDLINES is `trace-cmd dump --cmd-lines IN`, whose text is found in the
file by its bytes.  Exits 1 if the text is not found once."""
import re
import sys

data = bytearray(open(sys.argv[1], "rb").read())
lines = [l for l in open(sys.argv[3], errors="replace").read().splitlines() if re.match(r"^\d+ ", l)]
text = ("\n".join(lines) + "\n").encode()
at = data.find(text)
if at < 0 or data.find(text, at + 1) >= 0 or not lines:
    sys.exit("comm_strip: the command lines were not found once in the file")
out = re.sub(rb"(?m)^\d+", lambda m: b"0" * len(m.group(0)), bytes(text))
data[at:at + len(text)] = out
open(sys.argv[2], "wb").write(data)
print(len(lines))
