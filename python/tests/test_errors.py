"""Errors reach Python as exceptions carrying the library's message."""

import pytest

import pwa_replay as pr


def test_a_malformed_log_names_file_line_and_field(tmp_path):
    log = tmp_path / "bad.swf"
    log.write_text(
        "; MaxProcs: 8\n"
        "1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\n"
        "2 5 0 x 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\n"
    )
    with pytest.raises(pr.Error) as e:
        pr.run(str(log), sched="fcfs", alloc="flat")
    assert f"{log}:3" in str(e.value) and "run time" in str(e.value)


def test_bad_labels_and_names_are_errors():
    with pytest.raises(pr.Error, match="scheduler `nope` is not one of fcfs"):
        pr.run("sdsc-96", sched="nope")
    with pytest.raises(pr.Error, match="neither a catalogued trace"):
        pr.run("no-such-log", sched="fcfs")
    with pytest.raises(pr.Error, match="exactly one of sched= .* and policy="):
        pr.run("sdsc-96")
    with pytest.raises(pr.Error, match="load factor"):
        pr.sweep("kth-sp2", sched=["fcfs"], alloc=["flat"], loads=[-1])
    # One rule for run and sweep: what a sweep refuses, a run refuses too.
    for lf in [1e9, -1, 0.0001]:
        with pytest.raises(pr.Error, match=r"is not a decimal in \(0, 1000\]"):
            pr.run("synth:uniform,mesh=8x8,jobs=20", sched="fcfs", alloc="ff", load_factor=lf)
    with pytest.raises(pr.Error, match="unknown field `dilatation`.*`dilation`"):
        pr.run("kth-sp2", sched="fcfs", alloc="flat", dilatation="linear:1")
    with pytest.raises(pr.Error, match="linear:α"):
        pr.sweep("kth-sp2", sched=["fcfs"], alloc=["flat"], loads=[1], dilation="linear:-1")


@pytest.mark.usefixtures("real_logs")
def test_a_policy_exception_is_raised_by_run():
    class Broken:
        def schedule(self, state):
            raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        pr.run("kth-sp2", policy=Broken())


@pytest.mark.usefixtures("real_logs")
def test_a_policy_needs_schedule_and_a_state_is_valid_only_during_its_call():
    with pytest.raises(TypeError, match="schedule"):
        pr.run("kth-sp2", policy=object())

    class Keeps:
        def schedule(self, state):
            self.state = state
            for job in state.queue:
                if not state.start(job):
                    return

    k = Keeps()
    pr.run("synth:uniform,mesh=8x8,jobs=50", policy=k, alloc="ff")
    with pytest.raises(RuntimeError, match="only valid during the call"):
        k.state.free_nodes


def test_an_invalid_start_is_a_scheduler_error():
    class Twice:
        def schedule(self, state):
            for job in state.queue:
                if state.start(job):
                    state.start(job)

    with pytest.raises(pr.Error, match="already started"):
        pr.run("synth:uniform,mesh=8x8,jobs=50", policy=Twice(), alloc="ff")
