#!/usr/bin/python3
"""top_keys.py - drives `ipitrace top`'s live view through a pseudo-terminal,
as a user at a terminal would, and checks what each key shows.

usage: top_keys.py IPITRACE NCPUS
The expectations are computed here, from the keys pressed and the CPU count
(not from ipitrace's own output):
  start          a row for every CPU, in CPU order, CPU 1 marked '*' (--watch 1)
  w              only the watched CPU's row
  w, c 0 Enter   every CPU again; then only CPU 0's row
  Enter alone    after c: every CPU
  s              the status line says sort (sends), rows ordered by sends
  c x Enter      typing ignores what is no CPU list character
  q              exits 0
prints "P name: ..." / "F name: ..." lines.
"""
import os
import pty
import re
import select
import sys
import time

ipt, ncpus = sys.argv[1], int(sys.argv[2])
pid, fd = pty.fork()
if pid == 0:
    os.execv(ipt, [ipt, "top", "--no-serve", "--watch", "1", "-d", "0.3", "-q"])

buf = b""


def read_for(secs):
    global buf
    end = time.time() + secs
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                d = os.read(fd, 65536)
            except OSError:
                return
            if not d:
                return
            buf += d


def last_screen():
    """The rows and status line of the last complete screen."""
    text = buf.decode("utf-8", "replace")
    screens = text.split("\x1b[H\x1b[2J")
    for s in reversed(screens):
        if "q: quit" in s or "Enter: apply" in s:
            lines = s.replace("\r", "").split("\n")
            rows = [l for l in lines if re.match(r"^\d+\*? ", l)]
            status = [l for l in lines if "q: quit" in l or "Enter: apply" in l]
            return rows, status[-1] if status else ""
    return [], ""


def key(k, wait=0.8):
    global buf
    buf = b""
    os.write(fd, k)
    read_for(wait)
    return last_screen()


def cpus_of(rows):
    return [int(re.match(r"^(\d+)", r).group(1)) for r in rows]


def check(name, ok, why):
    print("P %s" % name if ok else "F %s: %s" % (name, why))


read_for(3.0)
rows, status = last_screen()
check("keys-start", cpus_of(rows) == list(range(ncpus)) and any(r.startswith("1* ") for r in rows),
      "rows %s (want every CPU, 1 marked)" % cpus_of(rows))
rows, status = key(b"w")
check("keys-w", cpus_of(rows) == [1] and "watched only (on)" in status,
      "rows %s, status %r" % (cpus_of(rows), status))
key(b"w")
rows, status = key(b"c")
check("keys-c-prompt", "CPUs to show" in status, "status %r" % status)
key(b"0x")
rows, status = key(b"\r")
check("keys-c-list", cpus_of(rows) == [0] and "CPUs (0)" in status,
      "rows %s, status %r" % (cpus_of(rows), status))
key(b"c")
rows, status = key(b"\r")
check("keys-c-all", cpus_of(rows) == list(range(ncpus)) and "CPUs (all)" in status,
      "rows %s, status %r" % (cpus_of(rows), status))
rows, status = key(b"s")
sends = [int(r.split()[1]) for r in rows]
check("keys-s", "sort (sends)" in status and sends == sorted(sends, reverse=True),
      "status %r, sends %s" % (status, sends))
os.write(fd, b"q")
end = time.time() + 5
rc = None
while time.time() < end:
    p, st = os.waitpid(pid, os.WNOHANG)
    if p:
        rc = os.waitstatus_to_exitcode(st)
        break
    read_for(0.1)
check("keys-q", rc == 0, "exit %s" % rc)
if rc is None:
    os.kill(pid, 9)
