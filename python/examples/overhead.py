"""Measures what a Python policy costs per instant: Python FCFS against the built-in fcfs on the
same log (median of N paired runs), divided by the number of calls into Python.

    target/py-venv/bin/python python/examples/overhead.py [TRACE] [N]
"""

import statistics
import sys
import time

import pwa_replay as pr
from pwa_replay.policies import Fcfs

trace = sys.argv[1] if len(sys.argv) > 1 else "kth-sp2"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 5


class Count:
    """FCFS through the on_arrival hook only when the queue is empty, else in schedule: the same
    schedule; here only to time an empty hook call."""

    def on_arrival(self, state, job):
        pass

    def schedule(self, state):
        for job in state.queue:
            if not state.start(job):
                return


def wall(**kw):
    t0 = time.perf_counter()
    r = pr.run(trace, **kw)
    return time.perf_counter() - t0, r


builtin, python, hooked = [], [], []
for _ in range(n):
    builtin.append(wall(sched="fcfs")[0])
    t, r = wall(policy=Fcfs())
    python.append(t)
    th, rh = wall(policy=Count())
    hooked.append(th)
b, p, h = (statistics.median(x) for x in (builtin, python, hooked))
calls = r.calls
jobs = r.metrics["jobs"]
print(f"{trace}: {jobs} jobs, {calls} calls of schedule()")
print(f"  built-in fcfs      {b:.3f} s")
print(f"  Python FCFS        {p:.3f} s  ({r.python_s:.3f} s inside the calls)")
print(f"  per instant        {(p - b) / calls * 1e6:.2f} µs over the built-in "
      f"({r.python_s / calls * 1e6:.2f} µs inside a call)")
print(f"  + empty on_arrival {(h - p) / jobs * 1e6:.2f} µs per arrival")
