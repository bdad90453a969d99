"""Times a sweep of Python policy series on 1 and on 2 worker processes (alternated, median of N
pairs) and checks that both give the same table.

    target/py-venv/bin/python python/examples/series_workers.py [TRACE] [N]
"""

import statistics
import sys
import time

import pwa_replay as pr
from pwa_replay.policies import Easy, Fcfs

WALL = ["alloc_time_s", "sim_wall_s"]


def timed(trace: str, workers: int):
    t0 = time.perf_counter()
    df = pr.sweep(trace, sched=[], alloc=["flat"], estimate=["user"], loads=[0.6, 0.8, 1.0, 1.2],
                  policy=[Fcfs, Easy], threads=workers)
    return time.perf_counter() - t0, df.drop(WALL)


if __name__ == "__main__":
    trace = sys.argv[1] if len(sys.argv) > 1 else "kth-sp2"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    one, two = [], []
    for _ in range(n):
        (t1, a), (t2, b) = timed(trace, 1), timed(trace, 2)
        assert a.equals(b), "the table depends on the number of workers"
        one.append(t1)
        two.append(t2)
    m1, m2 = statistics.median(one), statistics.median(two)
    print(f"{trace}: 8 cells, 1 worker {m1:.2f} s, 2 workers {m2:.2f} s, ratio {m2 / m1:.2f}")
