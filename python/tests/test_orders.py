"""Priority functions: a Python function as the queue order of the built-in schedulers, equal to
the named orders it rewrites, asked as the signature says, failing with the job and the moment,
and as a series of a sweep keyed by its file."""

from pathlib import Path

import polars as pl
import pytest

import pwa_replay as pr
from pwa_replay.series import OrderSeries, run_label

SYNTH = "synth:lublin,nodes=64,jobs=600"
LOAD = 3.0  # a queue of about 25 jobs at a pass
WALL = ["alloc_time_s", "sim_wall_s"]

PRIO = """
def sjf(job):
    return -job.estimate

def sjf_now(job, now):
    assert job.wait == now - job.submit
    return -job.estimate

def wfp3(job, now):
    r = job.wait / max(job.estimate, 1.0)
    return r * r * r * job.nodes

def fails(job, now):
    if now > 20000:
        raise ValueError("no priority for you")
    return 0.0

def text(job):
    return "high"

def three(job, now, extra):
    return 0.0
"""


@pytest.fixture
def prio(tmp_path, monkeypatch):
    """A file of priority functions, the working directory its folder."""
    (tmp_path / "prio.py").write_text(PRIO)
    monkeypatch.chdir(tmp_path)
    return tmp_path / "prio.py"


def _starts(r: pr.Result) -> list:
    return r.jobs["start_s"].to_list()


def _same_schedule(trace: str, sched: str, named: str, function: str, **kw) -> pr.Result:
    a = pr.run(trace, sched=f"{sched}:order={named}", **kw)
    b = pr.run(trace, sched=f"{sched}:order={function}", **kw)
    assert _starts(b) == _starts(a), f"{sched}: {function} against {named}"
    assert b.metrics["scheduler"] == f"{sched}:order={function}"
    return b


@pytest.mark.parametrize("sched", ["easy", "fcfs", "conservative", "window:20,", "bq:300,"])
def test_python_sjf_and_wfp3_schedule_as_the_named_orders(prio, sched):
    sched = sched.rstrip(",")
    for named, function in [("sjf", "py:prio.py:sjf"), ("sjf", "py:prio.py:sjf_now"),
                            ("wfp3", "py:prio.py:wfp3")]:
        head, _, arg = sched.partition(":")
        label = f"{head}:{arg}," if arg else f"{head}:"
        a = pr.run(SYNTH, sched=f"{label}order={named}", estimate="x3", load_factor=LOAD)
        b = pr.run(SYNTH, sched=f"{label}order={function}", estimate="x3", load_factor=LOAD)
        assert _starts(b) == _starts(a), f"{sched} {function}"


@pytest.mark.usefixtures("real_logs")
def test_python_orders_on_a_slice_of_kth_sp2(prio):
    kw = dict(estimate="user", max_jobs=4000, validate=True)
    for sched in ["easy", "fcfs"]:
        static = _same_schedule("kth-sp2", sched, "sjf", "py:prio.py:sjf", **kw)
        assert static.calls == 4000, "a static function is called once per job"
        moment = _same_schedule("kth-sp2", sched, "sjf", "py:prio.py:sjf_now", **kw)
        assert moment.calls > 4000, "a function of the moment at every pass"
        _same_schedule("kth-sp2", sched, "wfp3", "py:prio.py:wfp3", **kw)


def test_a_function_given_by_name_beside_expressions():
    def sjf(job):
        return -job.estimate

    a = pr.run(SYNTH, sched="easy:order=sjf", load_factor=LOAD)
    b = pr.run(SYNTH, sched="easy:order=mine", orders={"mine": sjf, "w": "wait"}, load_factor=LOAD)
    assert _starts(b) == _starts(a)
    c = pr.run(SYNTH, sched="easy:order=w", orders={"mine": sjf, "w": "wait"}, load_factor=LOAD)
    assert _starts(c) == _starts(pr.run(SYNTH, sched="easy:order=wait", orders={"wait": "wait"},
                                        load_factor=LOAD))


def test_the_job_tells_no_run_time():
    seen = []

    def look(job):
        seen.append(job)
        return 0.0

    pr.run(SYNTH, sched="fcfs:order=look", orders={"look": look}, max_jobs=5)
    job = seen[0]
    for field in ["id", "index", "submit", "wait", "estimate", "nodes", "procs", "user", "group",
                  "queue", "partition", "shape"]:
        getattr(job, field)
    assert not any(hasattr(job, f) for f in ["runtime", "run_time", "run", "end"])


def test_an_exception_is_raised_with_the_job_and_the_moment(prio):
    with pytest.raises(ValueError, match="no priority for you") as e:
        pr.run(SYNTH, sched="easy:order=py:prio.py:fails", load_factor=LOAD)
    assert e.value.sim_time > 20000
    assert isinstance(e.value.job, pr.Job) and e.value.job.submit <= e.value.sim_time
    assert any(fr.name == "fails" for fr in e.traceback), "the function's frame is in the traceback"
    with pytest.raises(TypeError, match="returns a number .*not 'high'"):
        pr.run(SYNTH, sched="easy:order=py:prio.py:text")


@pytest.mark.parametrize("label, message", [
    ("easy:order=py:prio.py", "order=py:PATH:FUNCTION"),
    ("easy:order=py:prio.py:2x", "order=py:PATH:FUNCTION"),
    ("easy:order=py:nowhere.py:sjf", "no such file"),
    ("easy:order=py:prio.py:absent", "has no `absent`"),
    ("easy:order=py:prio.py:three", "takes (job) or (job, now)"),
    ("lazy:order=py:prio.py:sjf", "lazy is written"),
])
def test_bad_labels_are_one_line_errors(prio, label, message):
    with pytest.raises(pr.Error) as e:
        pr.run(SYNTH, sched=label)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_a_sweep_runs_them_as_series_keyed_by_the_file(prio, tmp_path):
    kw = dict(alloc=["flat"], loads=[1.0, LOAD], estimate=["x3"], threads=2,
              cache=tmp_path / "cache")
    labels = ["easy:order=sjf", "easy:order=py:prio.py:sjf_now", "fcfs:order=py:prio.py:wfp3",
              "fcfs:order=wfp3"]
    df = pr.sweep(SYNTH, sched=labels, **kw)
    by = {s: df.filter(pl.col("scheduler") == s).drop(WALL + ["scheduler"]) for s in labels}
    assert by[labels[1]].equals(by[labels[0]]) and by[labels[2]].equals(by[labels[3]])
    before = OrderSeries.parse(labels[1]).digest
    prio.write_text(PRIO + "\n# edited\n")
    assert OrderSeries.parse(labels[1]).digest != before, "the key follows the file"


def test_run_label_is_a_workers_replay_of_any_python_label(prio, tmp_path, monkeypatch):
    monkeypatch.chdir(Path("/"))
    metrics, *_ = run_label(SYNTH, "easy:order=py:prio.py:sjf", base=tmp_path, alloc="flat")
    assert metrics["scheduler"] == "easy:order=py:prio.py:sjf"
    assert metrics["mean_wait_s"] == pr.run(SYNTH, sched="easy:order=sjf").metrics["mean_wait_s"]


def test_a_failing_function_fails_its_sweep_cells_only(prio):
    with pytest.raises(pr.CellsFailed) as e:
        pr.sweep(SYNTH, sched=["easy:order=sjf", "easy:order=py:prio.py:fails"], alloc=["flat"],
                 estimate=["exact"], loads=[1.0, LOAD], threads=1)
    assert [c for c, _, _ in e.value.failed] == [
        f"easy:order=py:prio.py:fails / flat / exact @ {lf:g}" for lf in (1.0, LOAD)
    ]
    assert all(at > 20000 and "no priority for you" in tb for _, at, tb in e.value.failed)
    assert e.value.frame["scheduler"].to_list() == ["easy:order=sjf"] * 2
