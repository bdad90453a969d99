"""The data frames against the command line's files."""

import json
import subprocess

import polars as pl
import pytest

import pwa_replay as pr

# Wall-clock columns differ from run to run.
WALL = {"alloc_time_s", "sim_wall_s"}


@pytest.mark.usefixtures("real_logs")
def test_sweep_frame_equals_the_cli_summary(cli, tmp_path):
    out = tmp_path / "sweep"
    subprocess.run(
        [cli, "sweep", "--trace", "kth-sp2", "--sched", "fcfs,easy", "--alloc", "flat",
         "--loads", "0.5,1", "--quiet", "--out", out],
        check=True,
    )
    want = pl.read_csv(out / "summary.csv")
    got = pr.sweep("kth-sp2", sched=["fcfs", "easy"], alloc=["flat"], loads=[0.5, 1.0])
    assert got.columns == want.columns
    # fcfs × 2 loads once (it does not plan with estimates), easy × exact, user × 2 loads.
    assert got.height == want.height == 6
    keep = [c for c in want.columns if c not in WALL]
    for c in keep:
        g, w = got[c].to_list(), want[c].to_list()
        if got[c].dtype == pl.Float64:
            assert g == pytest.approx(w, rel=1e-12, nan_ok=True), c
        else:
            assert g == w, c


@pytest.mark.usefixtures("real_logs")
def test_run_jobs_frame_equals_the_cli_jobs_table(cli, tmp_path):
    jobs = tmp_path / "jobs.csv"
    subprocess.run(
        [cli, "run", "--trace", "sdsc-96", "--sched", "window:240", "--alloc", "mpl",
         "--load-factor", "0.8", "--jobs-out", jobs],
        check=True, capture_output=True,
    )
    want = pl.read_csv(jobs, schema_overrides={"torus": pl.String})
    r = pr.run("sdsc-96", sched="window:240", alloc="mpl", load_factor=0.8)
    got = r.jobs
    assert got.columns == want.columns
    for c in want.columns:
        g, w = got[c].to_list(), want[c].fill_null("").to_list() if c == "torus" else want[c].to_list()
        assert g == (pytest.approx(w, rel=1e-12) if got[c].dtype == pl.Float64 else w), c
    # The per-user table beside it, and Result.users, one row per user adding up to the jobs.
    users = pl.read_csv(tmp_path / "jobs.users.csv")
    assert r.users.columns == users.columns
    assert r.users["user"].to_list() == users["user"].to_list()
    assert r.users["user"].to_list() == sorted(set(got["user"].to_list()))
    assert r.users["jobs"].sum() == got.height
    assert r.users["mean_wait_s"].to_list() == pytest.approx(users["mean_wait_s"].to_list(), rel=1e-12)
    assert r.metrics["worst_user_mean_wait_s"] == pytest.approx(users["mean_wait_s"].max(), rel=1e-12)


@pytest.mark.usefixtures("real_logs")
def test_replay_options_are_keyword_arguments_named_as_the_flags(cli):
    flags = ["--kill-at-estimate", "--dilation", "linear:1"]
    out = subprocess.run(
        [cli, "run", "--trace", "sdsc-96", "--sched", "fcfs", "--alloc", "gabl", "--estimate",
         "user", "--load-factor", "0.5", "--format", "json", *flags],
        check=True, capture_output=True,
    )
    want = json.loads(out.stdout)
    got = pr.run("sdsc-96", sched="fcfs", alloc="gabl", estimate="user", load_factor=0.5,
                 kill_at_estimate=True, dilation="linear:1").metrics
    assert got["dilation"] == "linear:1" and got["kill_at_estimate"] is True
    assert want["killed_jobs"] > 0
    for k, w in want.items():
        if k not in WALL:
            assert got[k] == (pytest.approx(w, rel=1e-12) if isinstance(w, float) else w), k
    row = pr.sweep("sdsc-96", sched=["fcfs"], alloc=["gabl"], estimate=["user"], loads=[0.5],
                   kill_at_estimate=True, dilation="linear:1")
    assert row["mean_turnaround_s"].to_list() == [pytest.approx(want["mean_turnaround_s"])]
    plain = pr.run("sdsc-96", sched="fcfs", alloc="gabl", estimate="user", load_factor=0.5)
    assert "dilation" not in plain.metrics and plain.metrics["kill_at_estimate"] is False
    assert plain.metrics["killed_jobs"] == 0


def test_fair_start_times_are_an_option_and_a_jobs_column():
    w = "synth:uniform,mesh=8x8,jobs=300,rate=1,seed=3"
    r = pr.run(w, sched="easy", alloc="ff", load_factor=0.9, fairness=True)
    jobs = r.jobs
    late = [s - f for s, f in zip(jobs["start_s"], jobs["fair_start_s"]) if s > f]
    assert r.metrics["unfair_jobs"] == len(late) > 0
    assert r.metrics["unfair_delay_s"] == pytest.approx(sum(late), rel=1e-12)
    plain = pr.run(w, sched="easy", alloc="ff", load_factor=0.9)
    assert "fair_start_s" not in plain.jobs.columns and plain.metrics["unfair_jobs"] == 0
    assert plain.jobs["start_s"].to_list() == jobs["start_s"].to_list()


@pytest.mark.usefixtures("real_logs")
def test_catalog_and_stats():
    cat = pr.catalog()
    assert {"sdsc-96", "kth-sp2"} <= set(cat["name"].to_list())
    s = pr.stats("sdsc-96")
    assert s["machine"] == "mesh:22x16" and s["jobs"] > 10_000 and s["trace"] == "sdsc-96"
    assert "fcfs" in [x[0] for x in pr.labels()["schedulers"]]


EXPERIMENT = """
[[panel]]
name = "uniform"
workload = "synth:uniform,mesh=8x8,jobs=200,rate={x}"
sched = ["fcfs", "oo"]
alloc = ["ff"]
x = { name = "rate", values = [0.5, 4.0] }
replicate = { count = 2 }

[[figure]]
name = "turnaround"
panel = "uniform"
y = "mean_turnaround_s"

[[claim]]
figure = "turnaround"
statement = "Out-of-order scheduling is never worse than FCFS."
predicate = "below"
a = "oo+ff"
b = "fcfs+ff"
"""


def test_experiment_points_equal_the_cli_figure_data(cli, tmp_path):
    spec = tmp_path / "demo.toml"
    spec.write_text(EXPERIMENT)
    out = tmp_path / "out"
    subprocess.run([cli, "experiment", spec, "--out", out, "--quiet"], check=True)
    want = pl.read_csv(out / "turnaround.csv")
    got = pr.experiment(spec)
    points = got.points.filter(pl.col("figure") == "turnaround")
    assert points.select(want.columns).equals(want)
    assert points["n"].to_list() == [2] * 4
    assert got.claims["holds"].to_list() == [True]


def test_an_experiment_error_names_the_file_and_line(tmp_path):
    spec = tmp_path / "bad.toml"
    spec.write_text(EXPERIMENT.replace('"oo"]', '"nope"]'))
    with pytest.raises(pr.Error, match=r"bad\.toml.*nope"):
        pr.experiment(spec)


@pytest.mark.usefixtures("real_logs")
def test_queue_orders_are_a_dict_of_expressions_and_bad_ones_are_errors(cli):
    args = ["run", "--trace", "sdsc-96", "--sched", "easy:order=mine", "--alloc", "flat",
            "--machine", "flat:352", "--estimate", "user", "--format", "json",
            "--order-def", "mine=wait / max(estimate, 1)"]
    want = json.loads(subprocess.run([cli, *args], check=True, capture_output=True).stdout)
    got = pr.run("sdsc-96", sched="easy:order=mine", alloc="flat", machine="flat:352",
                 estimate="user", orders={"mine": "wait / max(estimate, 1)"}).metrics
    assert got["scheduler"] == "easy:order=mine"
    assert got["mean_wait_s"] == pytest.approx(want["mean_wait_s"], rel=1e-12)
    with pytest.raises(pr.Error, match="column"):
        pr.run("sdsc-96", sched="easy:order=mine", alloc="flat", machine="flat:352",
               orders={"mine": "wait +"})
    with pytest.raises(pr.Error, match="did you mean"):
        pr.run("sdsc-96", sched="easy:order=wpf3", alloc="flat", machine="flat:352")
