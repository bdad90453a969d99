"""Python policies as series of a sweep: equal to the built-in schedulers they reimplement, the
same whatever the number of worker processes, keyed by their file, and failing cell by cell."""

from pathlib import Path

import polars as pl
import pytest

import pwa_replay as pr
from pwa_replay.policies import Easy, Fcfs
from pwa_replay.series import PolicySeries

WALL = ["alloc_time_s", "sim_wall_s"]
SYNTH = "synth:uniform,mesh=16x16,jobs=400,rate=0.9"
POLICIES = Path(pr.__file__).with_name("policies.py")


def _metrics(df: pl.DataFrame) -> pl.DataFrame:
    return df.drop(WALL + ["scheduler"])


def test_python_series_equal_the_builtin_ones_at_every_point():
    df = pr.sweep(SYNTH, sched=["fcfs", "easy", f"py:{POLICIES}:Fcfs"], alloc=["ff"],
                  loads=[0.6, 1.0], policy=[Easy()], threads=2)
    assert df["scheduler"].to_list() == (
        ["fcfs"] * 2 + ["easy"] * 2 + [f"py:{POLICIES}:Fcfs"] * 2 + ["py:Easy"] * 2
    )
    builtin, python = df[:4], df[4:]
    assert python.columns == builtin.columns
    assert _metrics(python).equals(_metrics(builtin))


@pytest.mark.usefixtures("real_logs")
def test_python_series_on_a_real_log_with_user_estimates():
    df = pr.sweep("kth-sp2", sched=["easy"], alloc=["flat"], estimate=["user"], loads=[1.2],
                  policy={"easy-py": Easy}, threads=1)
    assert df["scheduler"].to_list() == ["easy", "py:easy-py"]
    assert _metrics(df[1:]).equals(_metrics(df[:1]))


def test_results_do_not_depend_on_the_number_of_workers():
    kw = dict(sched=[], alloc=["ff", "mbs"], loads="0.5,1.5", policy=[Fcfs, Easy])
    one, two = pr.sweep(SYNTH, threads=1, **kw), pr.sweep(SYNTH, threads=2, **kw)
    assert one.height == 8
    assert one.drop(WALL).equals(two.drop(WALL))


def test_a_label_names_a_file_a_class_and_arguments(tmp_path):
    f = tmp_path / "limit.py"
    f.write_text(
        "class Limited:\n"
        "    def __init__(self, most=1):\n"
        "        self.most = most\n"
        "    def schedule(self, state):\n"
        "        for job in list(state.queue)[: self.most]:\n"
        "            if not state.start(job):\n"
        "                return\n"
    )
    one = PolicySeries.parse(f"py:{f}:Limited:most=1")
    assert one.args == {"most": 1} and one.build().most == 1
    df = pr.sweep(SYNTH, sched=[f"py:{f}:Limited:most=1", f"py:{f}:Limited:most=1000", "fcfs"],
                  alloc=["ff"], loads=[1.0], threads=1)
    waits = dict(zip(df["scheduler"], df["mean_wait_s"]))
    assert waits[f"py:{f}:Limited:most=1000"] == waits["fcfs"]
    assert waits[f"py:{f}:Limited:most=1"] > waits["fcfs"]
    # The series is keyed by the file's bytes, the class and the arguments.
    other = PolicySeries.parse(f"py:{f}:Limited:most=2")
    assert other.digest != one.digest
    f.write_text(f.read_text() + "\n# edited\n")
    assert PolicySeries.parse(f"py:{f}:Limited:most=1").digest != one.digest
    # A path is relative to the base given (the experiment file's folder).
    assert PolicySeries.parse("py:limit.py:Limited", base=tmp_path).path == f


def test_bad_labels_and_auto_loads_are_errors(tmp_path):
    with pytest.raises(pr.Error, match="py:PATH:Class"):
        pr.sweep(SYNTH, sched=["py:nothing"], alloc=["ff"], loads=[1])
    with pytest.raises(pr.Error, match="no such file"):
        pr.sweep(SYNTH, sched=[f"py:{tmp_path}/none.py:X"], alloc=["ff"], loads=[1])
    with pytest.raises(pr.Error, match="has no `Nope`"):
        pr.sweep(SYNTH, sched=[f"py:{POLICIES}:Nope"], alloc=["ff"], loads=[1])
    with pytest.raises(ValueError, match="give a list"):
        pr.sweep(SYNTH, sched=[], alloc=["ff"], policy=[Fcfs])
    with pytest.raises(pr.Error, match="name them with a dict"):
        pr.sweep(SYNTH, sched=[], alloc=["ff"], loads=[1], policy=[Fcfs(), Fcfs()])


def test_a_failing_policy_fails_its_cells_only(tmp_path):
    f = tmp_path / "late.py"
    f.write_text(
        "from pwa_replay.policies import Fcfs\n"
        "class Late(Fcfs):\n"
        "    def schedule(self, state):\n"
        "        if state.now > 200:\n"
        "            raise RuntimeError('too late')\n"
        "        super().schedule(state)\n"
    )
    label = f"py:{f}:Late"
    with pytest.raises(pr.CellsFailed) as e:
        pr.sweep(SYNTH, sched=["fcfs", label], alloc=["ff"], loads=[1.0, 1.5],
                 policy=[Fcfs], threads=2)
    failed = e.value.failed
    assert [c for c, _, _ in failed] == [f"{label} / ff / exact @ 1", f"{label} / ff / exact @ 1.5"]
    for _, at, tb in failed:
        assert 200 < at < 460 and "RuntimeError: too late" in tb and "late.py" in tb
    text = str(e.value)
    assert "2 cell(s) failed" in text and "at simulated time" in text
    # The other cells finished: the built-in series and the other Python one.
    assert e.value.frame["scheduler"].to_list() == ["fcfs", "fcfs", "py:Fcfs", "py:Fcfs"]


def test_a_cache_replays_only_failed_cells_and_edited_policies(tmp_path):
    log = tmp_path / "built.txt"
    source = (
        "from pwa_replay.policies import Fcfs\n"
        "class Counted(Fcfs):\n"
        "    def __init__(self, fail=False):\n"
        f"        open({str(log)!r}, 'a').write('x')\n"
        "        self.fail = fail\n"
        "    def schedule(self, state):\n"
        "        if self.fail and state.now > 200:\n"
        "            raise ValueError('broken')\n"
        "        super().schedule(state)\n"
    )
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text(source)
    b.write_text(source.replace("fail=False", "fail=True"))
    kw = dict(sched=[f"py:{a}:Counted", f"py:{b}:Counted", "fcfs"], alloc=["ff"],
              loads=[0.8, 1.2], threads=1, cache=tmp_path / "cache")

    def built():
        n = len(log.read_text()) if log.exists() else 0
        log.write_text("")
        return n

    with pytest.raises(pr.CellsFailed):
        pr.sweep(SYNTH, **kw)
    assert built() == 4
    b.write_text(source + "# fixed\n")  # its two cells run again, a's come from the cache
    first = pr.sweep(SYNTH, **kw)
    assert built() == 2
    assert pr.sweep(SYNTH, **kw).drop(WALL).equals(first.drop(WALL)) and built() == 0
    a.write_text(source + "\n# edited\n")
    pr.sweep(SYNTH, **kw)
    assert built() == 2
    fcfs = first.filter(pl.col("scheduler") == "fcfs").drop(WALL + ["scheduler"])
    for label in (f"py:{a}:Counted", f"py:{b}:Counted"):
        assert first.filter(pl.col("scheduler") == label).drop(WALL + ["scheduler"]).equals(fcfs)


def _study(tmp_path, policy: str) -> Path:
    (tmp_path / "policies").mkdir(exist_ok=True)
    (tmp_path / "policies" / "sjf.py").write_text(
        (Path(__file__).parents[2] / "experiments" / "policies" / "sjf.py").read_text()
    )
    f = tmp_path / "study.toml"
    f.write_text(
        "[[panel]]\nname = \"u\"\n"
        f"workload = \"{SYNTH}\"\n"
        f"sched = [\"fcfs:order=sjf\", \"{policy}\"]\n"
        "alloc = [\"ff\"]\nx = { values = [0.6, 1.2] }\nreplicate = { count = 2 }\n"
        "[[figure]]\nname = \"wait\"\npanel = \"u\"\ny = \"mean_wait_s\"\n"
    )
    return f


def test_an_experiment_file_runs_its_python_series_in_workers(tmp_path):
    points = pr.experiment(_study(tmp_path, "py:policies/sjf.py:Sjf"), threads=2).points
    builtin = points.filter(pl.col("series") == "fcfs:order=sjf+ff")
    python = points.filter(pl.col("series") == "py:policies/sjf.py:Sjf+ff")
    assert python.height == 2 and python["n"].to_list() == [2, 2]
    cols = ["x", "y", "ci_low", "ci_high"]
    assert python.select(cols).equals(builtin.select(cols))


def test_an_experiment_names_a_failing_python_series_with_its_traceback(tmp_path):
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "late.py").write_text(
        "class Late:\n    def schedule(self, state):\n        raise KeyError('late')\n"
    )
    with pytest.raises(pr.Error, match=r"(?s)2 cell\(s\) failed.*KeyError: 'late' at simulated "
                                        r"time.*late\.py\", line 3, in schedule"):
        pr.experiment(_study(tmp_path, "py:policies/late.py:Late"), threads=2)
