"""spikes_join.py - the latency spikes of a trace-cmd report text (ns) or
of tracefs's text as rtla saves it (us), by this test's own reading of the
text (spikes_text.py), not ipitrace's: what `ipitrace explain` and the
Python module's spikes()/spike_parts() must find in it (explain_check.py,
python_spikes_check.py, test_explain.sh).

    spikes(path, threshold_ns=None, worst=None) -> list of spike dicts

The samples: the timerlat thread samples (context 1) and the osnoise
sample_threshold lines, each covering [ts - latency, ts] (an osnoise
sample's latency: its duration); every one over threshold_ns, or without a
threshold the worst N per CPU (worst, default 10; ties: the earlier
first); by CPU, then start.  For each:
  - noise: the osnoise noise lines (irq, softirq, nmi, thread) on its CPU
    whose line (the noise's end) is inside the window, in the order of
    their ends, each counted for its net duration or, when that reaches
    back before the window's start, up to the start (before_window);
  - noise_known: its CPU has noise lines at all;
  - ipis: the IPI interrupts on its CPU that entered inside the window,
    each joined to the last send to that CPU before its entry that its
    vector serves: a call_function interrupt to a call_mask probe line
    (rtla's text: the recorder's kprobes; the last `many:` probe line on
    the sender's CPU before it gives the call site and function), a
    call_function_single one to an ipi_send_cpu event with a callback, a
    reschedule one to an ipi_send_cpu event without (function "(none)");
    the send's line gives the sender's comm, pid, CPU and send time, the
    kernel stack after it its frames (names, the tracing frame on top left
    out: the recorder trims it); the handler time is entry to exit.  Each
    with the irq_noise it is tied to: the
    first noise of an IPI vector (call_function*, reschedule, irq_work,
    IPI*) in the spike's noise ending at or after its entry and at most
    100 us after its exit;
  - csd: the csd function runs on its CPU whose csd_function_entry line is
    inside the window, in the order of their entries: the run time to the
    next csd_function_exit line of that csd pointer on that CPU (None
    without one), the IPI (index in ipis) whose handler holds the entry,
    and the csd_queue_cpu line that queued it (by csd pointer and target
    CPU, the last before the run): its time, CPU, task and call site;
    csd_known: the text has csd_function_entry lines at all.  A function
    call's function is the csd_queue_cpu line just before its send on the
    sender's CPU, to the same target, when there is one (Linux 6.5+);
  - listed: the sum of the counted noise (noise_known), else of the IPI
    handler times; unaccounted = latency - listed, or excess = listed -
    latency when it is over (the other None).
"""
import re

from spikes_text import lines, parse

NOISE = re.compile(r"^(?:\s*(.*):(-?\d+) )?start \d+\.\d{9} duration (\d+) ns")
KINDS = {"irq_noise": "irq", "softirq_noise": "softirq", "nmi_noise": "nmi", "thread_noise": "thread"}
TIE_NS = 100_000
THREAD_SAMPLE = (re.compile(r"seq:(\d+)\s+context:(\d+)\s+timer_latency:(\d+)"),
                 re.compile(r"#(\d+)\s+context\s+(\w+)\s+timer_latency\s+(\d+) ns"))
OSNOISE_SAMPLE = re.compile(r"start \d+\.\d{9} duration (\d+) ns interference (\d+)$")
MANY = re.compile(r"\(smp_call_function_many_cond\+0x0/0x[0-9a-f]+\) func=(\w+)\+\S+ callsite=(\S+)/0x")
CALL_MASK = re.compile(r"\(native_send_call_func_ipi\+0x0/0x[0-9a-f]+\) cpumask=0x([0-9a-f]+) ")
SEND_CPU = re.compile(r"cpu=(\d+) callsite=(\S+) callback=(\S+)$")
CSD_QUEUE = re.compile(r"cpu=(\d+) callsite=(\S+) func=(\S+) csd=(\S+)$")
CSD_RUN = re.compile(r"func=(\S+), csd=(\S+)$")
NO_FUNCTION = "(none)"	# the label of a send that runs no function (IPT_NO_FUNCTION)
# the sends each IPI vector's interrupt serves
SERVES = {"call_function": "call_mask", "call_function_single": "single", "reschedule": "resched"}
ENTRY_EXIT = re.compile(r"(%s)_(entry|exit)$" % "|".join(SERVES))


def send_stacks(path):
    """{send time: [frame names]} of the ipi_send_cpu events followed by a
    kernel stack ("=> name (addr)" lines), the tracing frame left out"""
    out, cur = {}, None
    for l in open(path):
        if l.startswith("=> "):
            name = l[3:].split()[0]
            if cur is not None and not name.startswith("trace_event_raw_event_"):
                out.setdefault(cur, []).append(name)
            continue
        r = parse(l)
        if r and r[4] == "ipi_send_cpu":
            cur = r[3]
        elif r and r[4] != "kernel_stack":
            cur = None
    return out


def read(path):
    """(samples, noise, noisy CPUs, IPI interrupts, csd runs or None) of
    the text"""
    samples, noise, noisy = [], [], set()
    last_many, sends, entries, interrupts = {}, [], {}, []
    queued, last_queue, open_runs, runs, has_runs = {}, {}, {}, [], False
    stacks = send_stacks(path)
    for comm, pid, cpu, ns, ev, rest in lines(path):
        if ev == "timerlat":
            for pat in THREAD_SAMPLE:
                t = pat.match(rest)
                if t and t.group(2) in ("1", "thread"):
                    samples.append(dict(cpu=cpu, source="timerlat", seq=int(t.group(1)), ts=ns,
                                        latency=int(t.group(3)), interferences=None))
        elif ev == "sample_threshold":
            t = OSNOISE_SAMPLE.match(rest)
            if not t:
                raise ValueError("%s: an osnoise sample unread: %r" % (path, rest))
            samples.append(dict(cpu=cpu, source="osnoise", seq=None, ts=ns, latency=int(t.group(1)),
                                interferences=int(t.group(2))))
        elif ev in KINDS:
            n = NOISE.match(rest)
            if not n:
                raise ValueError("%s: a noise line unread: %r" % (path, rest))
            noisy.add(cpu)
            nmi = ev == "nmi_noise"
            noise.append(dict(cpu=cpu, end=ns, kind=KINDS[ev], name="nmi" if nmi else n.group(1).strip(),
                              num=None if nmi else int(n.group(2)), duration=int(n.group(3))))
        elif ev == "many" and MANY.match(rest):
            last_many[cpu] = MANY.match(rest).groups()
        elif ev == "call_mask" and CALL_MASK.match(rest):
            func, callsite = last_many.get(cpu, (None, None))
            sends.append(dict(form="call_mask", send_ns=ns, mask=int(CALL_MASK.match(rest).group(1), 16),
                              comm=comm, pid=pid, src_cpu=cpu, callsite_sym=callsite, func_name=func, stack=None))
        elif ev == "csd_queue_cpu" and CSD_QUEUE.match(rest):
            target, callsite, func, csd = CSD_QUEUE.match(rest).groups()
            queued[(csd, int(target))] = dict(queue_ns=ns, src_cpu=cpu, pid=pid, comm=comm, callsite_sym=callsite)
            last_queue[cpu] = (int(target), func)
        elif ev in ("csd_function_entry", "csd_function_exit") and CSD_RUN.match(rest):
            func, csd = CSD_RUN.match(rest).groups()
            if ev == "csd_function_entry":
                has_runs = True
                open_runs[(cpu, csd)] = dict(cpu=cpu, entry_ns=ns, run_ns=None, func_name=func,
                                             queued=queued.pop((csd, cpu), None))
            elif (cpu, csd) in open_runs:
                r = open_runs.pop((cpu, csd))
                runs.append(dict(r, run_ns=ns - r["entry_ns"]))
        elif ev == "ipi_send_cpu" and SEND_CPU.match(rest):
            target, callsite, callback = SEND_CPU.match(rest).groups()
            func = NO_FUNCTION if callback == "0x0" else re.sub(r"\+0x[0-9a-f]+$", "", callback)
            q = last_queue.pop(cpu, None)
            if func != NO_FUNCTION and q and q[0] == int(target):
                func = q[1]
            sends.append(dict(form="resched" if func == NO_FUNCTION else "single", send_ns=ns, mask=1 << int(target),
                              comm=comm, pid=pid, src_cpu=cpu, callsite_sym=callsite, func_name=func,
                              stack=stacks.get(ns)))
        elif ENTRY_EXIT.match(ev):
            vector, edge = ENTRY_EXIT.match(ev).groups()
            at = entries.get((cpu, vector))
            if edge == "entry":
                entries[(cpu, vector)] = [ns, None]
            elif at and at[1] is None:
                at[1] = ns
                sent = [s for s in sends if s["form"] == SERVES[vector] and s["send_ns"] < at[0] and
                        s["mask"] >> cpu & 1]
                if sent:
                    interrupts.append(dict(sent[-1], cpu=cpu, entry_ns=at[0], handler_ns=ns - at[0]))
    return samples, noise, noisy, interrupts, runs + list(open_runs.values()) if has_runs else None


def chosen(samples, threshold_ns, worst):
    if threshold_ns:
        out = [s for s in samples if s["latency"] > threshold_ns]
    else:
        out = []
        for c in sorted({s["cpu"] for s in samples}):
            out += sorted((s for s in samples if s["cpu"] == c),
                          key=lambda s: (-s["latency"], s["ts"]))[:worst or 10]
    return sorted(out, key=lambda s: (s["cpu"], s["ts"] - s["latency"]))


def ipi_vector(name):
    return name.startswith("call_function") or name in ("reschedule", "irq_work") or name.startswith("IPI")


def spikes(path, threshold_ns=None, worst=None):
    samples, noise, noisy, interrupts, runs = read(path)
    out = []
    for s in chosen(samples, threshold_ns, worst):
        start = s["ts"] - s["latency"]
        rows = []
        for n in noise:
            if n["cpu"] == s["cpu"] and start <= n["end"] <= s["ts"]:
                before = n["end"] - n["duration"] < start
                rows.append(dict(n, before_window=before, counted=n["end"] - start if before else n["duration"]))
        ipis = [dict(i) for i in interrupts if i["cpu"] == s["cpu"] and start <= i["entry_ns"] <= s["ts"]]
        ipis.sort(key=lambda i: i["send_ns"])
        tied = set()
        for i in ipis:
            i["noise"] = None
            for k, n in enumerate(rows):
                exit_ns = i["entry_ns"] + i["handler_ns"]
                if (n["kind"] == "irq" and ipi_vector(n["name"]) and k not in tied and
                        i["entry_ns"] <= n["end"] <= exit_ns + TIE_NS):
                    i["noise"] = k
                    tied.add(k)
                    break
        csd = sorted((dict(r, ipi=None) for r in runs or [] if r["cpu"] == s["cpu"] and start <= r["entry_ns"] <= s["ts"]),
                     key=lambda r: r["entry_ns"])
        for r in csd:
            r["ipi"] = next((k for k, i in enumerate(ipis)
                             if i["entry_ns"] <= r["entry_ns"] <= i["entry_ns"] + i["handler_ns"]), None)
        known = s["cpu"] in noisy
        listed = sum(r["counted"] for r in rows) if known else sum(i["handler_ns"] for i in ipis)
        out.append(dict(s, start=start, noise=rows, ipis=ipis, csd=csd, csd_known=runs is not None,
                        noise_known=known, listed=listed,
                        unaccounted=s["latency"] - listed if listed <= s["latency"] else None,
                        excess=listed - s["latency"] if listed > s["latency"] else None))
    return out
