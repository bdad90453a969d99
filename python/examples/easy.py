"""EASY backfilling written in Python, replayed on a real log and compared with the built-in one.

    target/py-venv/bin/python python/examples/easy.py [TRACE] [ALLOC]

The policy is pwa_replay.policies.Easy (read it there: ~40 lines); this script shows how to run
a Python policy, validate its schedule, and compare it job for job with the engine's own.
"""

import sys
import time

import pwa_replay as pr
from pwa_replay.policies import Easy

trace = sys.argv[1] if len(sys.argv) > 1 else "kth-sp2"
alloc = sys.argv[2] if len(sys.argv) > 2 else None

t0 = time.perf_counter()
python = pr.run(trace, policy=Easy(), alloc=alloc, estimate="user", validate=True)
t1 = time.perf_counter()
builtin = pr.run(trace, sched="easy", alloc=alloc, estimate="user")
t2 = time.perf_counter()

m = python.metrics
print(f"{trace} on {m['machine']} / {m['allocator']}, {m['jobs']} jobs, user estimates")
print(f"  Python EASY:   mean wait {m['mean_wait_s']:.1f} s, {m['backfilled_jobs']} backfilled, "
      f"{t1 - t0:.2f} s ({python.calls} calls, {python.python_s:.2f} s in Python)")
print(f"  built-in easy: mean wait {builtin.metrics['mean_wait_s']:.1f} s, {t2 - t1:.2f} s")
print(f"  same schedule, job for job: {python.jobs.equals(builtin.jobs)}")
