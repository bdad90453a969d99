"""Measures what a Python priority function costs: EASY with the built-in order sjf against the
same order written in Python, static (``score(job)``, asked once per job) and of the moment
(``score(job, now)``, asked at every pass), on one log with user estimates at load factor 1.
Paired runs (A, B, C alternated), medians; the calls and the time inside them from ``Result``.

    target/py-venv/bin/python python/examples/priority_overhead.py [TRACE] [N] [SCHED]
"""

import statistics
import sys
import time

import pwa_replay as pr

trace = sys.argv[1] if len(sys.argv) > 1 else "kth-sp2"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 7
sched = sys.argv[3] if len(sys.argv) > 3 else "easy"


def sjf(job):
    return -job.estimate


def sjf_now(job, now):
    return -job.estimate


def empty(job, now):
    return 0.0


def wall(order, **kw):
    t0 = time.perf_counter()
    r = pr.run(trace, sched=f"{sched}:order={order}", estimate="user", **kw)
    return time.perf_counter() - t0, r


cases = {
    "built-in sjf": ("sjf", {}),
    "score(job)": ("mine", {"orders": {"mine": sjf}}),
    "score(job, now)": ("mine", {"orders": {"mine": sjf_now}}),
    "empty (job, now)": ("mine", {"orders": {"mine": empty}}),
}
times = {k: [] for k in cases}
results = {}
for _ in range(n):
    for name, (order, kw) in cases.items():
        t, results[name] = wall(order, **kw)
        times[name].append(t)
base = statistics.median(times["built-in sjf"])
jobs = results["built-in sjf"].metrics["jobs"]
same = results["built-in sjf"].jobs["start_s"].equals(results["score(job, now)"].jobs["start_s"])
print(f"{trace}, {sched}, user estimates, load factor 1: {jobs} jobs; median of {n} paired runs; "
      f"schedules equal: {same}")
print(f"{'order':18} {'wall s':>8} {'× built-in':>10} {'calls':>9} {'in calls s':>10} "
      f"{'ns/call over':>12}")
for name in cases:
    t = statistics.median(times[name])
    r = results[name]
    per = (t - base) / r.calls * 1e9 if r.calls else 0.0
    print(f"{name:18} {t:8.3f} {t / base:10.2f} {r.calls:9d} {r.python_s:10.3f} {per:12.0f}")
