"""Priority functions: a Python function as the queue order of the built-in schedulers.

``easy:order=py:prio.py:score`` orders EASY's queue by ``score`` of the file ``prio.py`` (relative
to the working directory for :func:`pwa_replay.run` and :func:`pwa_replay.sweep`, to the
experiment file in an experiment); ``orders={"mine": score}`` gives a function under a name of
one's own (``easy:order=mine``), beside the expressions that dict defines. Larger values first,
ties by arrival, as for every order; the five ordered schedulers (``fcfs``, ``oo``, ``bq``,
``window``, ``easy``, ``conservative``) take them.

The rule of the calls, by the function's signature:

* ``score(job)`` — *static*: called once per job, at its arrival (again if the engine's estimates
  change), and its value kept;
* ``score(job, now)`` — called at every scheduling pass for every waiting job the pass ranks.

``job`` is a :class:`pwa_replay.Job` (``id``, ``index``, ``submit``, ``wait``, ``estimate``,
``nodes``, ``procs``, ``user``, ``group``, ``queue``, ``partition``, ``shape``) — never the run
time, which a scheduler does not know.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any, Callable, Optional

from . import _native

__all__ = ["function_ref", "is_static", "load_function", "order_functions", "order_of"]

# A priority function's name in a label: py:PATH:FUNCTION (as the library reads it).
_REF = re.compile(r"py:(?P<path>[^,;]+):(?P<func>[A-Za-z_][A-Za-z0-9_]*)")


def order_of(label: str) -> Optional[str]:
    """The value of ``label``'s ``order=`` argument (``None`` without one)."""
    _, colon, rest = label.partition(":")
    if not colon:
        return None
    for arg in re.split(r"[,;]", rest):
        key, eq, value = arg.partition("=")
        if eq and key.strip() == "order":
            return value.strip()
    return None


def function_ref(order: Optional[str]) -> Optional[tuple[str, str]]:
    """``(PATH, FUNCTION)`` of an order ``py:PATH:FUNCTION``; ``None`` for any other."""
    m = _REF.fullmatch(order or "")
    return (m["path"], m["func"]) if m else None


def is_static(func: Callable, name: str = "") -> bool:
    """Whether ``func`` is a function of the job alone (``score(job)``, called once per job)
    rather than of the job and the moment (``score(job, now)``, called at every pass)."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        raise _native.Error(f"priority function {name or func!r}: its signature cannot be read "
                            "(give a def score(job) or score(job, now))") from None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = [p for p in params if p.kind in positional and p.default is p.empty]
    if len(required) not in (1, 2):
        raise _native.Error(
            f"priority function {name or func!r}: takes (job) or (job, now), not "
            f"{len(required)} required argument(s)"
        )
    return len(required) == 1


def load_function(path: Path, name: str) -> Callable:
    """The function ``name`` of the Python file at ``path``."""
    from .series import load_class  # one loader for policies and functions

    func = load_class(path, name)
    if not callable(func):
        raise _native.Error(f"py:{path}:{name}: `{name}` is not a function")
    return func


def order_functions(sched: Optional[str], orders: Any, base: Path = Path(".")) -> tuple:
    """What :func:`pwa_replay.run` hands the engine for label ``sched`` and the ``orders`` dict:
    the expressions (name → text, or ``None``) and the priority functions (name →
    ``(function, static)``): the label's ``py:PATH:FUNCTION`` loaded from ``base / PATH``, and
    the callables of ``orders``."""
    exprs, fns = None, {}
    if orders is not None:
        if not isinstance(orders, dict):
            raise _native.Error("orders=: a dict of name → expression or function")
        exprs = {k: v for k, v in orders.items() if not callable(v)} or None
        fns = {k: (v, is_static(v, k)) for k, v in orders.items() if callable(v)}
    order = order_of(sched) if sched else None
    ref = function_ref(order)
    if ref is not None:
        func = load_function((base / ref[0]).resolve(), ref[1])
        fns[order] = (func, is_static(func, order))
    return exprs, fns
