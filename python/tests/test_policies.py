"""Policies written in Python against the built-in ones, job for job, on real logs."""

import time

import pytest

import pwa_replay as pr
from pwa_replay.policies import Easy, Fcfs

# (trace, allocator, estimate, load factor): a mesh log under MPL and first fit, a flat one with
# exact and user estimates, and overloaded (thousands waiting).
CASES = [
    ("sdsc-96", "mpl", "exact", 1.0),
    ("sdsc-96", "ff", "exact", 1.0),
    ("kth-sp2", "flat", "exact", 1.0),
    ("kth-sp2", "flat", "user", 1.0),
    ("kth-sp2", "flat", "user", 1.5),
]


@pytest.mark.usefixtures("real_logs")
@pytest.mark.parametrize("trace,alloc,estimate,load", CASES)
@pytest.mark.parametrize("sched,policy", [("fcfs", Fcfs), ("easy", Easy)])
def test_python_policy_gives_the_builtin_schedule(trace, alloc, estimate, load, sched, policy):
    kw = dict(alloc=alloc, estimate=estimate, load_factor=load)
    builtin = pr.run(trace, sched=sched, **kw)
    python = pr.run(trace, policy=policy(), validate=True, **kw)
    assert python.jobs.height == builtin.jobs.height > 1000
    assert python.jobs.equals(builtin.jobs), f"{sched} on {trace}/{alloc} differs"
    for name in ("mean_wait_s", "backfilled_jobs", "mean_reservation_error_s", "utilization"):
        assert python.metrics[name] == builtin.metrics[name], name
    assert python.metrics["scheduler"] == f"python:{policy.__name__}"
    assert python.calls > 0


@pytest.mark.usefixtures("real_logs")
def test_python_fcfs_replays_kth_sp2_within_three_seconds():
    t0 = time.perf_counter()
    r = pr.run("kth-sp2", policy=Fcfs())
    wall = time.perf_counter() - t0
    assert r.metrics["jobs"] == pr.stats("kth-sp2")["jobs"]
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


class Probe:
    """Checks the queue view's sequence behaviour at every call, then runs out of order
    (every job that fits, in arrival order) while iterating over the live view."""

    def __init__(self):
        self.checked = 0

    def schedule(self, state):
        queue = state.queue
        snapshot = list(queue)
        assert len(queue) == len(snapshot) == state.waiting
        if snapshot:
            assert queue[0] is snapshot[0] and queue[-1] is snapshot[-1]
            assert queue[1:3] == snapshot[1:3] and queue[::-1] == snapshot[::-1]
            assert all(a.submit <= b.submit for a, b in zip(snapshot, snapshot[1:]))
            self.checked += 1
        with pytest.raises(IndexError):
            queue[len(snapshot)]
        visited, started = [], []
        for job in queue:
            visited.append(job)
            if state.start(job):
                started.append(job)
        assert visited == snapshot, "iterating while starting visits every job once"
        assert list(queue) == [j for j in snapshot if j not in started]


def test_the_queue_is_a_live_sequence_that_iterates_safely_while_jobs_start():
    p = Probe()
    label = "synth:uniform,mesh=8x8,jobs=400,seed=2"
    r = pr.run(label, policy=p, alloc="ff", validate=True, load_factor=2.0)
    oo = pr.run(label, sched="oo", alloc="ff", load_factor=2.0)
    assert p.checked > 100
    assert r.jobs.equals(oo.jobs), "start every job that fits, in arrival order: out of order"


class FittingProbe(Easy):
    """EASY, checking at every pass that queue.fitting gives exactly the jobs a plain filter
    keeps (before any start of the pass)."""

    def __init__(self):
        self.checked = 0

    def schedule(self, state):
        queue = state.queue
        if len(queue) > 1:
            free, now = state.free_nodes, state.now
            assert list(queue.fitting()) == [j for j in queue if j.nodes <= free]
            head = queue[0]
            res = state.earliest_start(head)
            if res is not None:
                extra = max(res.free_nodes - head.nodes, 0)
                want = [
                    j
                    for j in list(queue)[1:]
                    if j.nodes <= free and (now + j.estimate <= res.start or j.nodes <= extra)
                ]
                assert list(queue.fitting(after=head, reservation=res)) == want
                self.checked += 1
        super().schedule(state)


@pytest.mark.usefixtures("real_logs")
def test_fitting_skips_exactly_the_jobs_a_plain_filter_drops():
    p = FittingProbe()
    r = pr.run("kth-sp2", policy=p, estimate="user", max_jobs=3000, load_factor=1.5)
    assert p.checked > 500
    easy = pr.run("kth-sp2", sched="easy", estimate="user", max_jobs=3000, load_factor=1.5)
    assert r.jobs.equals(easy.jobs)
