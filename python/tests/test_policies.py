"""Policies written in Python against the built-in ones, job for job, on real logs."""

import time

import pytest

import pwa_replay as pr
from pwa_replay.policies import Easy, Fcfs

# (trace, allocator, estimate): a mesh log under MPL and a flat one, with exact and user estimates.
CASES = [
    ("sdsc-96", "mpl", "exact"),
    ("sdsc-96", "ff", "exact"),
    ("kth-sp2", "flat", "exact"),
    ("kth-sp2", "flat", "user"),
]


@pytest.mark.parametrize("trace,alloc,estimate", CASES)
@pytest.mark.parametrize("sched,policy", [("fcfs", Fcfs), ("easy", Easy)])
def test_python_policy_gives_the_builtin_schedule(trace, alloc, estimate, sched, policy):
    builtin = pr.run(trace, sched=sched, alloc=alloc, estimate=estimate)
    python = pr.run(trace, policy=policy(), alloc=alloc, estimate=estimate, validate=True)
    assert python.jobs.height == builtin.jobs.height > 1000
    assert python.jobs.equals(builtin.jobs), f"{sched} on {trace}/{alloc} differs"
    for name in ("mean_wait_s", "backfilled_jobs", "mean_reservation_error_s", "utilization"):
        assert python.metrics[name] == builtin.metrics[name], name
    assert python.metrics["scheduler"] == f"python:{policy.__name__}"
    assert python.calls > 0


def test_python_fcfs_replays_kth_sp2_within_three_seconds():
    t0 = time.perf_counter()
    r = pr.run("kth-sp2", policy=Fcfs())
    wall = time.perf_counter() - t0
    assert r.metrics["jobs"] == 28_476 or r.metrics["jobs"] > 28_000
    assert wall <= 3.0, f"{wall:.2f} s"


class Greedy:
    """Starts any waiting job that fits, and records what the hooks saw."""

    def __init__(self):
        self.arrived = 0
        self.departed = 0

    def on_arrival(self, state, job):
        self.arrived += 1
        assert job.wait == 0.0 and state.now == job.submit

    def on_departure(self, state, jobs):
        self.departed += len(jobs)

    def schedule(self, state):
        for job in state.queue:
            state.start(job)


def test_hooks_see_every_arrival_and_departure_and_the_schedule_is_valid():
    g = Greedy()
    r = pr.run("synth:uniform,mesh=8x8,jobs=300,seed=3", policy=g, alloc="ff", validate=True)
    assert g.arrived == g.departed == r.metrics["jobs"] == 300
    oo = pr.run("synth:uniform,mesh=8x8,jobs=300,seed=3", sched="oo", alloc="ff")
    assert r.jobs["start_s"].to_list() == oo.jobs["start_s"].to_list()


class Overlapping:
    """Asks to start a job on the placement it just gave another of the same shape: the engine
    refuses it (False) and nothing changes."""

    def __init__(self):
        self.refused = 0

    def schedule(self, state):
        queue = state.queue
        if not queue:
            return
        first = queue[0]
        where = state.find(first)
        if where is not None and state.start(first, where):
            twin = next((j for j in queue[1:] if j.shape == first.shape), None)
            if twin is not None:
                assert not state.start(twin, where)
                self.refused += 1
        for job in state.queue:
            state.start(job)


def test_a_busy_placement_is_refused_and_the_schedule_stays_valid():
    p = Overlapping()
    r = pr.run("synth:uniform,mesh=8x8,jobs=200,seed=5", policy=p, alloc="ff", validate=True)
    assert r.metrics["jobs"] == 200
    assert p.refused > 0
