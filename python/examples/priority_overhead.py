"""Measures what a Python priority function costs: EASY with the built-in order sjf against the
same order written in Python, static (``score(job)``, asked once per job) and of the moment
(``score(job, now)``, asked at every pass), on one log with user estimates at load factor 1.
Paired runs (the four cases alternated), medians; the calls and the time inside them from
``Result``; then what one call costs when Python calls the functions itself.

    target/py-venv/bin/python python/examples/priority_overhead.py [TRACE] [N] [SCHED]
"""

import statistics
import sys
import time
import timeit

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
sims = {k: [] for k in cases}
results = {}
for _ in range(n):
    for name, (order, kw) in cases.items():
        t, results[name] = wall(order, **kw)
        times[name].append(t)
        sims[name].append(results[name].metrics["sim_wall_s"])
base = statistics.median(times["built-in sjf"])
sim_base = statistics.median(sims["built-in sjf"])
jobs = results["built-in sjf"].metrics["jobs"]
same = results["built-in sjf"].jobs["start_s"].equals(results["score(job, now)"].jobs["start_s"])
print(f"{trace}, {sched}, user estimates, load factor 1: {jobs} jobs; median of {n} paired runs; "
      f"schedules equal: {same}")
print("wall: the whole run() (loading the log too); replay: the engine's sim_wall_s")
print(f"{'order':18} {'wall s':>7} {'×':>5} {'replay s':>8} {'×':>5} {'calls':>8} "
      f"{'in calls s':>10} {'ns/call over':>12}")
for name in cases:
    t, sim = statistics.median(times[name]), statistics.median(sims[name])
    r = results[name]
    per = (sim - sim_base) / r.calls * 1e9 if r.calls else 0.0
    print(f"{name:18} {t:7.3f} {t / base:5.2f} {sim:8.3f} {sim / sim_base:5.2f} {r.calls:8d} "
          f"{r.python_s:10.3f} {per:12.0f}")

# Where a call's time goes: the same functions called from a Python loop on one Job (no engine).
seen = []
pr.run(trace, sched="fcfs:order=grab", orders={"grab": lambda job: seen.append(job) or 0.0},
       max_jobs=1)
job, k = seen[0], 400_000
jobs = [job] * k


def per_call(f) -> float:
    t = min(timeit.repeat(lambda: [f(j, 1.0) for j in jobs], number=1, repeat=5))
    return t / k * 1e9


loop = min(timeit.repeat(lambda: [j for j in jobs], number=1, repeat=5)) / k * 1e9
getter = min(timeit.repeat(lambda: [j.estimate for j in jobs], number=1, repeat=5)) / k * 1e9
print(f"from a Python loop, ns per call: empty(job, now) {per_call(empty):.0f}, "
      f"sjf_now(job, now) {per_call(sjf_now):.0f}; reading job.estimate {getter - loop:.0f}")
