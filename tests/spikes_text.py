"""spikes_text.py - the records of a trace-cmd report text with ns
timestamps, as the spikes checkers read them (explain_check.py,
spikes_html_check.py): (cpu, ns, event, the rest of the line)."""
import re

LINE = re.compile(r"^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+(?:\S+\s+)?(\d+)\.(\d{9}):\s+(\w+):\s*(.*)$")


def records(path):
    for l in open(path):
        m = LINE.match(l)
        if m:
            yield int(m.group(3)), int(m.group(4)) * 10**9 + int(m.group(5)), m.group(6), m.group(7)
