"""The Python FCFS and EASY against the built-in fcfs and easy, job for job, on every given log
× its catalogued allocators (up to three) × exact and user estimates × load factors 1 and 1.5.
Minutes of replays: the test suite runs a few of these cases; this is the wide check.

    target/py-venv/bin/python python/examples/compare_builtin.py [NAME ...]
"""

import sys
import time

import pwa_replay as pr
from pwa_replay.policies import Easy, Fcfs

catalog = pr.catalog()
names = sys.argv[1:] or ["ctc-sp2", "kth-sp2", "lanl-cm5", "llnl-atlas", "nasa-ipsc",
                         "sdsc-blue", "sdsc-96", "ctc-sp2-torus", "sdsc-96-torus"]
pairs = differ = 0
for name in names:
    allocs = catalog.filter(catalog["name"] == name)["allocators"][0].to_list()
    for alloc in allocs[:3]:
        for estimate in ("exact", "user"):
            for sched, policy in (("fcfs", Fcfs), ("easy", Easy)):
                for load in (1.0, 1.5):
                    t0 = time.perf_counter()
                    kw = dict(alloc=alloc, estimate=estimate, load_factor=load)
                    same = pr.run(name, sched=sched, **kw).jobs.equals(
                        pr.run(name, policy=policy(), validate=True, **kw).jobs
                    )
                    pairs += 1
                    differ += not same
                    print(f"{name} {alloc} {estimate} {sched} {load}: "
                          f"{'same' if same else 'DIFFERENT'} ({time.perf_counter() - t0:.1f} s)",
                          flush=True)
print(f"{pairs} pairs of replays, {differ} different")
sys.exit(1 if differ else 0)
