"""Python policies and priority functions as series of a sweep, beside the built-in schedulers.

A policy series is named by a label, ``py:PATH:Class`` or ``py:PATH:Class:key=value,…`` (the
class ``Class`` of the Python file ``PATH``, built with those keyword arguments: values are Python
literals, else strings), or given as an object or a class (:func:`pwa_replay.sweep`'s
``policy=``). A priority-function series is a built-in scheduler whose order is a Python function
(:mod:`pwa_replay.orders`): ``easy:order=py:PATH:FUNCTION``, or ``easy:order=NAME`` with the
function given in ``orders={NAME: function}``. Each series carries a digest — the sha256 of its
code: the file, with the class and arguments or the function and label, and the local modules the
file imports (:mod:`pwa_replay.imports`; :attr:`PolicySeries.digest`, :attr:`OrderSeries.digest`)
— what a cache of results keys the series by.

:func:`run_label` replays one cell of a label: the entry point of a worker process given such a
label.

Every cell (series × allocator × estimate model × load factor) replays a fresh copy of the policy
(unpickled from the same bytes, so no state passes from one cell to the next), in a pool of worker
processes: Python holds one interpreter lock per process, so processes, not threads, are what
runs policies side by side. The results do not depend on the number of workers: each cell is one
deterministic replay, and rows are put in grid order whatever finishes first. A policy that raises
fails its cell only: the others finish, and :class:`CellsFailed` names the failed cells with each
one's Python traceback and the simulated time of the exception.

An experiment file's ``py:`` series (:func:`pwa_replay.experiment`) run through
:func:`external_digest` (the key of their cells, as the command line computes it) and
:func:`replay_external` (one replica in a :mod:`pwa_replay.worker` process).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import importlib.util
import inspect
import json
import multiprocessing
import os
import pickle
import subprocess
import sys
import traceback
import types
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

from . import _native
from .imports import code_digest, local_modules
from .orders import function_ref, is_static, load_function, order_of

__all__ = ["CellsFailed", "OrderSeries", "PolicySeries", "external_digest", "is_python_label",
           "load_class", "replay_external", "run_label", "series_of"]


class CellsFailed(_native.Error):
    """Cells of a sweep whose policy raised: ``failed`` lists ``(cell, sim_time, traceback)``;
    ``frame`` holds the rows of the cells that finished."""

    def __init__(self, failed: list, frame: Any):
        self.failed = failed
        self.frame = frame
        lines = [f"{len(failed)} cell(s) failed: " + "; ".join(c for c, _, _ in failed)]
        for cell, at, tb in failed:
            when = "" if at is None else f" at simulated time {at:g} s"
            lines.append(f"--- {cell}{when}:\n{tb.rstrip()}")
        super().__init__("\n".join(lines))


def is_python_label(label: str) -> bool:
    """Whether ``label`` names a Python policy (``py:…``) or a built-in scheduler whose order is
    a Python function (``…:order=py:PATH:FUNCTION``)."""
    return label.strip().startswith("py:") or function_ref(order_of(label)) is not None


def load_class(path: Path, name: str) -> type:
    """The class ``name`` of the Python file at ``path``, run as a script's file would be: its
    folder first on ``sys.path`` (``from helpers import …`` finds ``helpers.py`` beside it), and
    as a module of a package that is that folder (``from . import helpers`` finds it too). The
    local modules it imports (:func:`pwa_replay.imports.local_modules`) are imported anew, as
    they are now: an earlier import of a module of that name (an older text, or another
    policy's folder) is forgotten."""
    if not path.is_file():
        raise _native.Error(f"py:{path}:{name}: no such file")
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    package = f"pwa_replay_policy_{hashlib.sha256(folder.encode()).hexdigest()[:16]}"
    _forget(path, package)
    sys.modules[package] = types.ModuleType(package)
    sys.modules[package].__path__ = [folder]
    spec = importlib.util.spec_from_file_location(f"{package}.{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    try:
        return getattr(mod, name)
    except AttributeError:
        raise _native.Error(f"py:{path}:{name}: {path} has no `{name}`") from None


def _forget(path: Path, package: str) -> None:
    """Removes from ``sys.modules`` the modules of the top-level names of the local modules of
    the file at ``path`` (in its folder, then the working directory) and the folder's package."""
    folder, here = path.resolve().parent, Path.cwd().resolve()
    tops = {package}
    for module in local_modules(path, here):
        root = folder if folder in module.parents else here
        tops.add(module.relative_to(root).parts[0].removesuffix(".py"))
    tops.discard(__package__)  # this package itself, run from its source tree, stays
    for name in [n for n in sys.modules if n.partition(".")[0] in tops]:
        del sys.modules[name]


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _pickled(obj: Any, where: str, what: str, define: str) -> bytes:
    """``obj`` pickled for the worker processes, or an error saying why it must pickle."""
    try:
        return pickle.dumps(obj)
    except Exception as e:
        raise _native.Error(
            f"{where}: the cells run in worker processes, so {what} must pickle "
            f"(define {define} at module level): {e}"
        ) from e


@dataclass(frozen=True)
class PolicySeries:
    """A Python policy series: its label, and what a worker needs to build the policy — the
    pickled object (``blob``), or the file, class and arguments of a ``py:`` label."""

    label: str
    blob: Optional[bytes] = None
    path: Optional[Path] = None
    cls: Optional[str] = None
    args: dict = field(default_factory=dict)
    digest: str = ""

    @staticmethod
    def parse(label: str, base: Path = Path(".")) -> "PolicySeries":
        """``py:PATH:Class[:key=value,…]`` (or ``;`` between the arguments, as on the command
        line, where ``,`` separates labels), ``PATH`` relative to ``base``."""
        parts = label.strip()[3:].split(":")
        if len(parts) not in (2, 3) or not parts[0] or not parts[1].isidentifier():
            raise _native.Error(
                f"sched={label!r}: a Python policy is py:PATH:Class or py:PATH:Class:key=value,…"
            )
        args = {}
        for kv in filter(None, (parts[2].replace(";", ",").split(",") if len(parts) == 3 else [])):
            key, eq, value = kv.partition("=")
            if not eq or not key.strip().isidentifier():
                raise _native.Error(f"sched={label!r}: `{kv}` is not key=value")
            args[key.strip()] = _literal(value.strip())
        path = (base / parts[0]).resolve()
        load_class(path, parts[1])  # fail here, once, rather than in every cell
        digest = code_digest(path, base, f"\0{parts[1]}\0{sorted(args.items())!r}".encode())
        return PolicySeries(label.strip(), path=path, cls=parts[1], args=args, digest=digest)

    @staticmethod
    def of(policy: Any) -> "PolicySeries":
        """A policy object (each cell gets a copy) or a class (each cell builds one); its digest
        is the pickle's with its class's source file and the local modules that imports."""
        cls = policy if isinstance(policy, type) else type(policy)
        blob = _pickled(policy, f"policy {cls.__name__}", "a policy", "its class")
        return PolicySeries(f"py:{cls.__name__}", blob=blob, digest=_source_digest(cls, blob))

    def build(self) -> Any:
        """A fresh policy for one cell."""
        if self.blob is not None:
            made = pickle.loads(self.blob)
            return made() if isinstance(made, type) else made
        return load_class(self.path, self.cls)(**self.args)

    def replay_kw(self) -> dict:
        """The arguments of ``_native.run`` for one cell: a fresh policy."""
        return {"policy": self.build()}


@dataclass(frozen=True)
class OrderSeries:
    """A built-in scheduler whose queue order is a Python function: its label, and what a worker
    needs to load the function — the file and function of ``order=py:PATH:FUNCTION``, or the
    pickled function given under the order's name."""

    label: str
    order: str
    path: Optional[Path] = None
    func: str = ""
    blob: Optional[bytes] = None
    digest: str = ""

    @staticmethod
    def parse(label: str, base: Path = Path(".")) -> "OrderSeries":
        """``SCHED:order=py:PATH:FUNCTION``, ``PATH`` relative to ``base``."""
        order = order_of(label)
        ref = function_ref(order)
        if ref is None:
            raise _native.Error(f"sched={label!r}: a priority function is order=py:PATH:FUNCTION")
        path = (base / ref[0]).resolve()
        is_static(load_function(path, ref[1]), order)  # fail here, once, rather than in every cell
        digest = code_digest(path, base, f"\0{ref[1]}\0{label.strip()}".encode())
        return OrderSeries(label.strip(), order, path=path, func=ref[1], digest=digest)

    @staticmethod
    def of(label: str, func: Any) -> "OrderSeries":
        """``label`` whose order names ``func`` (``orders={NAME: func}``): the function must
        pickle (defined at module level); its digest is its source file's sha256 when it has one
        (with its qualified name, the label and the local modules the file imports), else the
        pickle's."""
        order = order_of(label)
        is_static(func, order)
        blob = _pickled(func, f"orders={{{order!r}: …}}", "a priority function", "it")
        tail = f"\0{getattr(func, '__qualname__', '')}\0{label.strip()}".encode()
        return OrderSeries(label.strip(), order, blob=blob, digest=_source_digest(func, tail, blob))

    def replay_kw(self) -> dict:
        """The arguments of ``_native.run`` for one cell: the label and its function."""
        func = pickle.loads(self.blob) if self.blob is not None else load_function(self.path, self.func)
        return {"sched": self.label, "order_fns": {self.order: (func, is_static(func, self.order))}}


def _source_digest(obj: Any, tail: bytes, fallback: Optional[bytes] = None) -> str:
    """The code digest (:func:`pwa_replay.imports.code_digest`) of the file ``obj`` is defined in,
    with ``tail``; without such a file (an interactive session), the sha256 of ``fallback``, else
    of ``tail``."""
    try:
        source = Path(inspect.getsourcefile(obj))
        return code_digest(source, source.parent, tail)
    except (TypeError, OSError):
        return hashlib.sha256(tail if fallback is None else fallback).hexdigest()


def series_of(label: str, base: Path = Path("."), functions: Optional[dict] = None) -> Any:
    """The series of a Python label (:func:`is_python_label`, or a label whose order names one of
    ``functions``, name → function), its files relative to ``base``."""
    order = order_of(label)
    if functions and order in functions:
        return OrderSeries.of(label, functions[order])
    if label.strip().startswith("py:"):
        return PolicySeries.parse(label, base)
    return OrderSeries.parse(label, base)


def run_label(trace: str, label: str, base: Path = Path("."), **run_kw: Any) -> list:
    """One replay of ``trace`` under a Python label (``py:PATH:Class[:key=value,…]``, or a
    built-in scheduler with ``order=py:PATH:FUNCTION``), ``PATH`` relative to ``base``, with the
    arguments of :func:`pwa_replay.run` (``alloc``, ``estimate``, ``load_factor``, ``shake``,
    ``seed``, replay options): what ``_native.run`` returns, ``[metrics, jobs, users, extra]``.
    A worker process that runs the cells of such labels calls this."""
    return _native.run(trace, **series_of(label, Path(base)).replay_kw(), **run_kw)


@dataclass(frozen=True)
class _Cell:
    series: Any  # PolicySeries or OrderSeries
    alloc: str
    estimate: str
    load_factor: float

    def __str__(self) -> str:
        return f"{self.series.label} / {self.alloc} / {self.estimate} @ {self.load_factor:g}"


def _replay(trace: str, cell: _Cell, run_kw: dict):
    """One cell in a worker: ``("ok", metrics)`` or ``("error", cell, sim_time, traceback)``."""
    try:
        metrics, *_ = _native.run(
            trace, **cell.series.replay_kw(), alloc=cell.alloc, estimate=cell.estimate,
            load_factor=cell.load_factor, **run_kw,
        )
        return ("ok", metrics)
    except Exception as e:  # the cell fails, the sweep goes on
        return ("error", str(cell), getattr(e, "sim_time", None), traceback.format_exc())


try:
    _VERSION = importlib.metadata.version("pwa-replay")
except importlib.metadata.PackageNotFoundError:  # imported from a source tree
    _VERSION = "source"


def _key(trace: str, cell: _Cell, run_kw: dict) -> str:
    """What a cell's results depend on, hashed: the workload, the policy's digest (its code:
    file, class and arguments, local modules; or the pickled object with its class's code), the
    cell, the replay options and the package's version (the engine's)."""
    what = repr((trace, cell.series.digest, cell.alloc, cell.estimate, cell.load_factor,
                 sorted(run_kw.items()), _VERSION))
    return hashlib.sha256(what.encode()).hexdigest()


def _replay_all(trace: str, cells: list, workers: int, run_kw: dict) -> list:
    """The cells' results in order, on ``workers`` processes (in this one for 1)."""
    if workers <= 1 or len(cells) <= 1:
        return [_replay(trace, c, run_kw) for c in cells]
    # Spawned, not forked: a fork of a process with the engine's and polars' thread pools
    # running can inherit a held lock.
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(min(workers, len(cells)), mp_context=ctx) as pool:
        return list(pool.map(_replay, [trace] * len(cells), cells, [run_kw] * len(cells)))


def run_cells(
    trace: str,
    series: Sequence[Any],
    grid: tuple,
    workers: int,
    run_kw: dict,
    cache: Optional[Path] = None,
) -> tuple[list, list, int]:
    """Every cell of the Python series over ``grid`` (allocators, estimates, loads): the rows'
    metrics in grid order (series, allocator, estimate, load) with the series label as scheduler,
    the failures, and the number of cells simulated. With a ``cache`` folder, a cell whose key
    (:func:`_key`) has a result there is read, not replayed, and every cell that finishes is
    written there: a sweep run again replays the cells it failed and those of edited policies."""
    allocs, estimates, loads = grid
    cells = [_Cell(s, a, e, lf) for s in series for a in allocs for e in estimates for lf in loads]
    stored = [cache / f"{_key(trace, c, run_kw)}.json" if cache else None for c in cells]
    todo = [i for i, p in enumerate(stored) if p is None or not p.is_file()]
    out = dict(zip(todo, _replay_all(trace, [cells[i] for i in todo], workers, run_kw)))
    rows, failed = [], []
    for i, (cell, path) in enumerate(zip(cells, stored)):
        result = out.get(i) or ("ok", json.loads(path.read_text()))
        if result[0] != "ok":
            failed.append(result[1:])
            continue
        metrics = result[1]
        if path is not None and i in out:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(metrics))
        metrics["scheduler"] = cell.series.label
        rows.append(metrics)
    return rows, failed, len(todo)


def _named_file(label: str, base: Path) -> Path:
    """The file a label's ``py:`` part names: ``py:PATH:…`` at its start or after an ``=``."""
    label = label.strip()
    rest = label[3:] if label.startswith("py:") else label.partition("=py:")[2]
    path = rest.split(":")[0]
    if not path:
        raise _native.Error(f"{label}: a Python label is py:PATH:Class[:key=value,…]")
    return base / path


def external_digest(label: str, base: str) -> str:
    """The digest an experiment keys a ``py:`` series by (the command line asks a worker,
    ``python -m pwa_replay.worker --digest``, for this one): the sha256 of the file its ``py:``
    part names (relative to ``base``), of the label and of every local module the file imports
    (:func:`pwa_replay.imports.code_digest`)."""
    path = _named_file(label, Path(base))
    if not path.is_file():
        raise _native.Error(f"{label}: {path}: no such file")
    return code_digest(path, Path(base), b"\0" + label.strip().encode())


def replay_external(label: str, base: str, instance: bytes) -> str:
    """One replica of an experiment's ``py:`` series in a worker process (``python -m
    pwa_replay.worker`` in ``base``, as the command line runs it): its metrics as JSON text, or
    :class:`Error` with the policy's traceback and the simulated time."""
    header = json.dumps({"policy": label}).encode() + b"\n"
    done = subprocess.run([sys.executable, "-m", "pwa_replay.worker"], input=header + instance,
                          cwd=base, capture_output=True, check=False)
    try:
        reply = json.loads(done.stdout)
    except ValueError:
        raise _native.Error(f"the Python worker failed: {done.stderr.decode().strip()}") from None
    if "metrics" in reply:
        return json.dumps(reply["metrics"])
    at = reply["sim_time"]
    when = "" if at is None else f" at simulated time {at:g} s"
    raise _native.Error(f"{reply['error']}{when}\n{reply['traceback'].rstrip()}")


def default_workers(threads: Optional[int]) -> int:
    """``threads``, or the number of cores."""
    return threads if threads is not None else (os.cpu_count() or 1)
