"""pyleaks.py - whether calls of the Python module leave objects behind
(python_check.py, python_spikes_check.py).

    growth(calls, error) -> [(name, bytes)]

For each (name, fn) of calls: fn called 3 times, then 20 more, each call's
`error` exception swallowed; the bytes Python's traced memory grew by over
the 20 (after a collection).  A leaked frame or list per call would be
tens of KiB each time.
"""
import gc
import tracemalloc


def growth(calls, error):
    out = []
    tracemalloc.start()
    for name, fn in calls:
        def once():
            try:
                fn()
            except error:
                pass
        for _ in range(3):
            once()
        gc.collect()
        a = tracemalloc.get_traced_memory()[0]
        for _ in range(20):
            once()
        gc.collect()
        out.append((name, tracemalloc.get_traced_memory()[0] - a))
    tracemalloc.stop()
    return out
