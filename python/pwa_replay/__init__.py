"""pwa-replay from Python: replays of Parallel Workloads Archive logs, sweeps, and scheduling
policies written in Python, on the same engine as the ``pwa-replay`` command line.

>>> import pwa_replay as pr
>>> r = pr.run(trace="sdsc-96", sched="easy", alloc="flat")      # doctest: +SKIP
>>> r.metrics["mean_wait_s"], r.jobs.shape                        # doctest: +SKIP

* :func:`run` — one replay under a built-in scheduler (``sched="easy"``) or a policy object
  (``policy=MyPolicy()``, see :mod:`pwa_replay.policies` and docs/PYTHON.md); returns a
  :class:`Result` with ``.metrics`` (the run's summary columns) and ``.jobs`` (the per-job table
  as a polars DataFrame, the columns of ``pwa-replay run --jobs-out``).
* :func:`sweep` — a scheduler × allocator × load-factor grid as a polars DataFrame (the columns
  and rows of the command line's ``summary.csv``).
* :func:`experiment` — an experiment file (docs/EXPERIMENTS.md): its figures' points and
  its claims' verdicts.
* :func:`catalog`, :func:`stats` — the catalogued logs; a workload's statistics.
* :mod:`pwa_replay.env` — a Gymnasium environment (``pip install pwa-replay[gym]``).

Errors are :class:`Error` exceptions carrying the library's message (file, line and field for a
malformed log).
"""

from __future__ import annotations

import json
from pathlib import Path
from dataclasses import dataclass, field, replace
from typing import Any, Optional, Sequence, Union

import polars as pl

from . import _native
from ._native import Error, Job, Placement, Reservation, State
from .orders import order_functions, order_of
from .series import (CellsFailed, PolicySeries, default_workers, external_digest, is_python_label,
                     replay_external, run_cells, series_of)

__all__ = [
    "CellsFailed",
    "Error",
    "Job",
    "Placement",
    "Reservation",
    "Result",
    "State",
    "Experiment",
    "catalog",
    "experiment",
    "labels",
    "run",
    "stats",
    "sweep",
]


@dataclass
class Result:
    """One replay: ``metrics`` (labels, then every summary column), ``jobs`` (one row per job,
    in arrival order), ``users`` (one row per user, by user number: who won and who lost), and
    for a Python policy ``calls`` (calls made into it) and ``python_s`` (wall time spent in
    them)."""

    metrics: dict
    jobs: pl.DataFrame
    users: pl.DataFrame
    calls: int = 0
    python_s: float = 0.0
    extra: dict = field(default_factory=dict)


def run(
    trace: str,
    machine: Optional[str] = None,
    sched: Optional[str] = None,
    policy: Any = None,
    alloc: Optional[str] = None,
    load_factor: float = 1.0,
    estimate: str = "exact",
    validate: bool = False,
    lenient: bool = False,
    first_job: int = 0,
    max_jobs: Optional[int] = None,
    shake: bool = False,
    shake_submit: Optional[float] = None,
    shake_runtime: Optional[float] = None,
    seed: Optional[int] = None,
    **options: Any,
) -> Result:
    """Replays ``trace`` (a catalog name, an SWF path, or a ``synth:`` label) on ``machine``
    (default: the trace's) under the built-in scheduler ``sched`` or the Python ``policy``, with
    the allocator ``alloc`` (default: the trace's first). ``validate`` checks the schedule with
    the independent validator and raises :class:`Error` when it is invalid. ``first_job`` and
    ``max_jobs`` (at least 1) replay a window of the workload (its first arrival shifted to 0).
    ``shake=True`` replays the workload shaken with ``seed`` (default 0) as one replica of
    ``sweep --shake`` is: submit times moved by up to ``shake_submit`` s (default 10), run times
    scaled by up to 1 ± ``shake_runtime`` (default 0). The replay
    ``options`` are the command line's replay flags, named with underscores
    (``kill_at_estimate=True``, ``dilation="linear:0.5"``; docs/PYTHON.md lists them).

    A queue order may be a Python function (:mod:`pwa_replay.orders`):
    ``sched="easy:order=py:prio.py:score"`` (the file relative to the working directory), or
    ``sched="easy:order=mine", orders={"mine": score}``. An exception it raises is raised here
    with ``sim_time`` and ``job`` attributes."""
    exprs, fns = order_functions(sched, options.pop("orders", None))
    metrics, jobs, users, extra = _native.run(
        trace,
        machine=machine,
        sched=sched,
        policy=policy,
        order_fns=fns or None,
        orders=exprs,
        alloc=alloc,
        load_factor=load_factor,
        estimate=estimate,
        validate=validate,
        lenient=lenient,
        first_job=first_job,
        max_jobs=max_jobs,
        shake=shake,
        shake_submit=shake_submit,
        shake_runtime=shake_runtime,
        seed=seed,
        **options,
    )
    return Result(
        metrics=metrics,
        jobs=_job_frame(jobs),
        users=_job_frame(users),
        calls=extra.get("calls", 0),
        python_s=extra.get("python_s", 0.0),
        extra=extra,
    )


_JOB_TYPES = {
    "job_id": pl.UInt64,
    "size": pl.UInt32,
    "asked_procs": pl.UInt32,
    "torus_dims": pl.UInt32,
    "jobs": pl.UInt64,
}


def _job_frame(columns: dict) -> pl.DataFrame:
    return pl.DataFrame(
        {k: pl.Series(k, v, dtype=_JOB_TYPES.get(k)) for k, v in columns.items()}
    )


def sweep(
    trace: str,
    sched: Optional[Sequence[str]] = None,
    alloc: Optional[Sequence[str]] = None,
    loads: Union[None, str, Sequence[float]] = None,
    machine: Optional[str] = None,
    estimate: Optional[Sequence[str]] = None,
    validate: bool = False,
    lenient: bool = False,
    threads: Optional[int] = None,
    policy: Any = None,
    cache: Union[None, str, Path] = None,
    **options: Any,
) -> pl.DataFrame:
    """Replays every scheduler × allocator × estimate model × load factor of ``trace`` in
    parallel; ``None`` lists take the trace's default grid, ``loads`` a list or a spec
    (``"0.5,1"``, ``"0.1:1:0.1"``, ``"auto"``, the default). The replay ``options`` are those of
    :func:`run`. One row per cell, the columns of ``summary.csv``.

    Python policies are series too: ``sched`` labels ``py:PATH:Class[:key=value,…]`` and the
    objects or classes of ``policy`` (one or a list; a dict names them), their cells replayed on
    ``threads`` worker processes (:mod:`pwa_replay.series`), after the built-in series' rows.
    So are built-in schedulers whose queue order is a Python function
    (``easy:order=py:prio.py:score``, or ``easy:order=mine`` with ``orders={"mine": score}``;
    :mod:`pwa_replay.orders`). They need a fixed list of loads. :class:`CellsFailed` reports
    cells whose policy or function raised. With a ``cache`` folder, the Python cells' results
    are kept there by what they depend on (the policy's or the function's file's sha256, class
    or function and arguments among it): run again, the sweep replays only the cells that failed
    or whose code changed."""
    labels_given = _as_list(sched)
    orders = options.pop("orders", None)
    functions = {k: v for k, v in (orders or {}).items() if callable(v)}
    if orders and len(functions) < len(orders):
        options["orders"] = {k: v for k, v in orders.items() if not callable(v)}

    def is_python(label: str) -> bool:
        return is_python_label(label) or order_of(label) in functions

    py_series = [series_of(l, functions=functions) for l in labels_given or [] if is_python(l)]
    py_series += _policy_series(policy)
    if not py_series:
        return _builtin_sweep(trace, labels_given, alloc, loads, machine, estimate, validate,
                              lenient, threads, options)
    grid = None
    if labels_given is None or alloc is None or estimate is None:
        grid = _native.default_grid(trace, machine=machine, lenient=lenient)
    builtin = [l for l in labels_given if not is_python(l)] if labels_given is not None else grid[0]
    allocs = _as_list(alloc) or grid[1]
    estimates = _as_list(estimate) or grid[2] or ["exact"]
    load_list = _native.load_list(loads)
    frames = []
    if builtin:
        frames.append(_builtin_sweep(trace, builtin, allocs, load_list, machine, estimates,
                                     validate, lenient, threads, options))
    run_kw = dict(machine=machine, validate=validate, lenient=lenient, **options)
    rows, failed, _ = run_cells(trace, py_series, (allocs, estimates, load_list),
                                default_workers(threads), run_kw, cache and Path(cache))
    if rows:
        frames.append(_summary_rows(rows, any(e != "exact" for e in estimates)))
    frame = pl.concat(frames, how="vertical") if frames else pl.DataFrame()
    if failed:
        raise CellsFailed(failed, frame)
    return frame


def _builtin_sweep(trace, sched, alloc, loads, machine, estimate, validate, lenient, threads,
                   options) -> pl.DataFrame:
    cols = _native.sweep(
        trace,
        sched=sched,
        alloc=_as_list(alloc),
        loads=loads,
        machine=machine,
        estimate=_as_list(estimate),
        validate=validate,
        lenient=lenient,
        threads=threads,
        **options,
    )
    return pl.DataFrame(cols)


def _policy_series(policy: Any) -> list:
    """The series of ``policy=``: one object or class, a list of them, or a dict by label."""
    if policy is None:
        return []
    if isinstance(policy, dict):
        return [replace(PolicySeries.of(p), label=f"py:{name}") for name, p in policy.items()]
    given = list(policy) if isinstance(policy, (list, tuple)) else [policy]
    series = [PolicySeries.of(p) for p in given]
    labels = [s.label for s in series]
    if len(set(labels)) < len(labels):
        raise Error(f"policy=: two policies of one class ({', '.join(labels)}): name them with a dict")
    return series


def _summary_rows(rows: list, with_estimate: bool) -> pl.DataFrame:
    """The rows of Python series as the summary's columns (the labels, then every metric)."""
    keys = list(rows[0])
    metrics = keys[keys.index("skipped_lines") + 1:]
    labels = ["trace", "machine", "scheduler", "allocator", "load_factor"]
    labels += ["estimate"] if with_estimate else []
    return pl.DataFrame({k: [r[k] for r in rows] for k in labels + metrics})


def _as_list(v: Union[None, str, Sequence[str]]) -> Optional[list]:
    if v is None:
        return None
    if isinstance(v, str):
        return [v]
    return list(v)


@dataclass
class Experiment:
    """An experiment's outcome: ``points`` (one row per figure point: figure, title, x_label,
    y_label, series, x, y, ci_low, ci_high, n) and ``claims`` (figure, statement, holds,
    measured; ``holds`` is null when the figure has no points)."""

    points: pl.DataFrame
    claims: pl.DataFrame


def experiment(
    path: str, quick: bool = False, threads: Optional[int] = None, **options: Any
) -> Experiment:
    """Runs the experiment file at ``path`` (docs/EXPERIMENTS.md) — ``quick`` for its short
    budget — and checks its claims, as ``pwa-replay experiment`` does (without writing files).
    The replay ``options`` (those of :func:`run`) apply where the file gives no value. A series
    labelled ``py:PATH:Class`` (the path relative to the file) is replayed replica by replica in
    ``python -m pwa_replay.worker`` processes of this interpreter, up to ``threads`` at once; a
    policy that raises fails its cells, and :class:`Error` names them all with their tracebacks."""
    points, claims = _native.experiment(str(path), quick=quick, threads=threads,
                                        digest=external_digest, replay=replay_external, **options)
    return Experiment(
        points=pl.DataFrame(points, schema_overrides={"n": pl.UInt64}),
        claims=pl.DataFrame(claims, schema_overrides={"holds": pl.Boolean}),
    )


def catalog() -> pl.DataFrame:
    """The catalogued logs, one row each."""
    return pl.DataFrame(_native.catalog())


def stats(
    trace: str,
    machine: Optional[str] = None,
    lenient: bool = False,
    load_factor: Optional[float] = None,
    estimate: str = "exact",
) -> dict:
    """The report ``pwa-replay stats --format json`` prints (the same keys and values), as a
    dict; ``load_factor`` and ``estimate`` as its ``--load-factor`` and ``--estimate``."""
    return json.loads(
        _native.stats(
            trace, machine=machine, lenient=lenient, load_factor=load_factor, estimate=estimate
        )
    )


def labels() -> dict:
    """The scheduler labels (syntax, example, meaning) and allocator labels the engine knows."""
    return _native.labels_known()
