"""Details of the Python API: stats as the command line's, argument checks in Python terms, a
state kept after its replay, shaken runs."""

import json
import subprocess

import pytest

import pwa_replay as pr

SYNTH = "synth:uniform,mesh=8x8,jobs=200"


def test_stats_has_the_keys_and_values_of_the_cli_json(cli):
    for args in ([], ["--load-factor", "0.8", "--estimate", "x2"]):
        out = subprocess.run(
            [cli, "stats", "--trace", SYNTH, "--format", "json", *args],
            check=True, capture_output=True,
        )
        want = json.loads(out.stdout)
        kw = {"load_factor": 0.8, "estimate": "x2"} if args else {}
        got = pr.stats(SYNTH, **kw)
        assert list(got) == list(want)
        assert got == want
    for key in ("path", "computer", "no_requested_time", "overrun_estimate", "skipped_lines"):
        assert key in got


def test_stats_refuses_a_bad_load_factor():
    with pytest.raises(ValueError, match="load factor"):
        pr.stats(SYNTH, load_factor=-1)


@pytest.mark.parametrize("n", [0, -5])
def test_max_jobs_below_one_is_a_value_error(n):
    with pytest.raises(ValueError, match=f"max_jobs={n}: must be 1 or more"):
        pr.run(SYNTH, sched="fcfs", alloc="ff", max_jobs=n)


def test_a_negative_first_job_is_a_value_error():
    with pytest.raises(ValueError, match="first_job=-1"):
        pr.run(SYNTH, sched="fcfs", alloc="ff", first_job=-1)


def test_max_jobs_keeps_that_many_jobs():
    assert pr.run(SYNTH, sched="fcfs", alloc="ff", max_jobs=7).jobs.height == 7


def test_a_state_kept_after_its_replay_raises_on_every_access():
    class Keeps:
        def schedule(self, state):
            self.state, self.queue = state, state.queue
            for job in state.queue:
                if not state.start(job):
                    return

    k = Keeps()
    pr.run(SYNTH, policy=k, alloc="ff")
    accesses = [
        lambda s: len(s.queue),
        lambda s: s.now,
        lambda s: s.waiting,
        lambda s: s.free_nodes,
        lambda s: s.total_nodes,
        lambda s: s.running,
        lambda s: s.running_jobs(),
        lambda s: list(s.queue),
        lambda s: s.queue.fitting(),
        lambda s: k.queue[0],
        lambda s: len(k.queue),
        lambda s: list(k.queue),
    ]
    for access in accesses:
        with pytest.raises(RuntimeError, match="only valid during the call"):
            access(k.state)


def test_a_shaken_run_is_a_function_of_its_seed():
    def wait(**kw):
        return pr.run(SYNTH, sched="easy", alloc="ff", **kw).metrics

    plain = wait()
    a, b = wait(shake=True, seed=1), wait(shake=True, seed=1)
    assert a["mean_wait_s"] == b["mean_wait_s"] and a["seed"] == 1
    assert wait(shake=True, seed=2)["mean_wait_s"] != a["mean_wait_s"]
    assert a["mean_wait_s"] != plain["mean_wait_s"]
    # No offset and no run-time change: the workload as it was.
    assert wait(shake=True, shake_submit=0, seed=3)["mean_wait_s"] == plain["mean_wait_s"]
    runtime = wait(shake=True, shake_submit=0, shake_runtime=0.5, seed=3)
    assert runtime["mean_wait_s"] != plain["mean_wait_s"]


def test_shake_parameters_need_shake_and_valid_values():
    with pytest.raises(ValueError, match="need shake=True"):
        pr.run(SYNTH, sched="fcfs", alloc="ff", seed=1)
    with pytest.raises(ValueError, match="shake_runtime"):
        pr.run(SYNTH, sched="fcfs", alloc="ff", shake=True, shake_runtime=1.5)
