"""spikes_text.py - the records of a trace-cmd report text with ns
timestamps, or of tracefs's text with us ones (rtla's saved trace), as the
spikes checkers read them (explain_check.py, spikes_html_check.py,
spikes_join.py): (cpu, ns, event, the rest of the line); lines() gives the
task's comm and pid too, parse() the same of one line.  A timerlat sample in tracefs's form ("#SEQ
context thread timer_latency N ns") is event "timerlat", its rest from "#".

    python3 spikes_text.py many FILE    writes many_text() to FILE
"""
import random
import re
import sys

LINE = re.compile(r"^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+(?:\S+\s+)?(\d+)\.(\d{9}|\d{6}):\s+(?:(\w+):\s*)?(.*)$")


def parse(line):
    """(comm, pid, cpu, ns, event, rest) of an event line, else None"""
    m = LINE.match(line)
    if not m:
        return None
    ev, rest = m.group(6), m.group(7)
    if ev is None:
        if not rest.startswith("#"):
            return None
        ev = "timerlat"
    frac = m.group(5)
    ns = int(m.group(4)) * 10**9 + int(frac) * 10**(9 - len(frac))
    return m.group(1).strip(), int(m.group(2)), int(m.group(3)), ns, ev, rest


def lines(path):
    """(comm, pid, cpu, ns, event, rest) of each event line of the text"""
    for l in open(path):
        r = parse(l)
        if r:
            yield r


def records(path):
    for _, _, cpu, ns, ev, rest in lines(path):
        yield cpu, ns, ev, rest


def many_text(seed=7):
    """3 CPUs of 15 timerlat thread samples each (more than 10 per CPU, more
    than 20 in all), with irq noise inside and outside their windows"""
    rnd = random.Random(seed)
    out = ["cpus=3"]
    t = 20_000_000_000
    for seq in range(1, 16):
        for cpu in range(3):
            lat = rnd.randrange(5_000, 400_000)
            t += 1_000_000
            for _ in range(rnd.randrange(0, 4)):	# noise ending inside, or before the window
                end = t - rnd.randrange(0, lat + 50_000)
                out.append((end, "        spin-70        [%03d] %d.%09d: irq_noise:            local_timer:236 start %d.%09d duration %d ns"
                            % (cpu, end // 10**9, end % 10**9, (end - 3000) // 10**9, (end - 3000) % 10**9, 3000)))
            out.append((t, "      timerlat/%d-5%d    [%03d] %d.%09d: timerlat:             seq:%d\tcontext:1\ttimer_latency:%d"
                        % (cpu, cpu, cpu, t // 10**9, t % 10**9, seq, lat)))
    return "\n".join([out[0]] + [l for _, l in sorted(out[1:], key=lambda x: x[0])]) + "\n"


if __name__ == "__main__" and sys.argv[1:2] == ["many"]:
    with open(sys.argv[2], "w") as f:
        f.write(many_text())
