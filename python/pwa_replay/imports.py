"""The code a policy file runs, as far as its text says: the file and every local module it
imports, transitively — what a series' digest covers, so that a cache keyed by it follows an edit
of a helper module as it follows an edit of the policy file.

Local means found in the policy file's folder (which the loader puts first on ``sys.path``, see
:func:`pwa_replay.series.load_class`) or in the base folder its label is relative to (an
experiment file's folder: the worker's working directory, also on its path), searched in that
order as Python's import system would: a module ``m`` is ``m.py`` or the package ``m/`` (its
``__init__.py`` when it has one), a dotted name descends into packages, a relative import
(``from . import m``, ``from ..pkg import m``) starts from the importing module's package — for
the policy file itself, its folder. A name found in neither folder is the standard library's or
an installed package's, and is not followed: a policy importing numpy costs no more than one
importing nothing.

The walk reads the files' syntax trees (:mod:`ast`), not their execution, so it sees every
``import`` statement wherever it stands (in a function, under ``try`` or ``if``), and misses what
only running tells: ``importlib.import_module`` or ``__import__`` with a computed name, files the
policy opens (data, configuration), compiled extension modules. A file that does not parse is
covered by its bytes, and not followed further.
"""

from __future__ import annotations

import ast
import hashlib
import os
import site
import sysconfig
from pathlib import Path
from typing import Iterator, Optional, Sequence

__all__ = ["code_digest", "local_modules"]


class _Module:
    """A local module: its file (``None`` for a namespace package's folder) and the folder its
    relative imports start from (a package's own folder, a module file's folder)."""

    def __init__(self, file: Optional[Path], package: Path):
        self.file = file
        self.package = package

    @property
    def is_package(self) -> bool:
        return self.file is None or self.file.name == "__init__.py"


def _find(folder: Path, name: str) -> Optional[_Module]:
    """The module ``name`` (one component) in ``folder``: a regular package, a module file, or a
    namespace package's folder."""
    pkg = folder / name
    init = pkg / "__init__.py"
    if init.is_file():
        return _Module(init, pkg)
    file = folder / f"{name}.py"
    if file.is_file():
        return _Module(file, folder)
    if pkg.is_dir():
        return _Module(None, pkg)
    return None


def _descend(start: Path, parts: Sequence[str]) -> list[_Module]:
    """The modules a dotted name imports from ``start``: each package on the way, then the
    module; it stops where a part is not found or follows a module file (an attribute)."""
    found = []
    folder = start
    for part in parts:
        module = _find(folder, part)
        if module is None:
            break
        found.append(module)
        if not module.is_package:
            break
        folder = module.package
    return found


def _absolute(parts: Sequence[str], roots: Sequence[Path]) -> list[_Module]:
    """The local modules of an absolute dotted name: from the first root that has its first part
    (none when no root has it: the standard library's or an installed package)."""
    for root in roots:
        if _find(root, parts[0]) is not None:
            return _descend(root, parts)
    return []


def _resolve(node: ast.stmt, here: _Module, roots: Sequence[Path]) -> list[_Module]:
    """The local modules one import statement of module ``here`` imports."""
    if isinstance(node, ast.Import):
        return [m for alias in node.names for m in _absolute(alias.name.split("."), roots)]
    parts = node.module.split(".") if node.module else []
    if node.level == 0:
        found = _absolute(parts, roots)
        target = found[-1] if len(found) == len(parts) else None
    else:
        start = here.package
        for _ in range(node.level - 1):
            start = start.parent
        if not any(start == r or r in start.parents for r in roots):
            return []  # beyond the local folders: it fails when run
        found = _descend(start, parts)
        target = (found[-1] if found else _Module(None, start)) if len(found) == len(parts) else None
    if target is not None and target.is_package:
        # ``from package import name``: a name may be a submodule.
        found += [m for a in node.names if a.name != "*"
                  for m in [_find(target.package, a.name)] if m is not None]
    return found


def _imports(file: Path) -> Iterator[ast.stmt]:
    """Every import statement of ``file`` (none when it does not parse)."""
    try:
        tree = ast.parse(file.read_bytes(), filename=str(file))
    except (SyntaxError, ValueError):
        return
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node


def _installed() -> set:
    """The standard library's and the installed packages' folders: never local (a function
    defined in a module installed at the top of site-packages does not make numpy local)."""
    folders = set(sysconfig.get_paths().values()) | {site.getusersitepackages()}
    folders |= set(getattr(site, "getsitepackages", list)())  # not in some virtualenvs
    return {Path(f).resolve() for f in folders}


def local_modules(path: Path, base: Path) -> list[Path]:
    """The files of the local modules the Python file ``path`` imports, transitively (not
    ``path`` itself), in the policy's folder then ``base``: resolved paths, sorted."""
    path = Path(path).resolve()
    installed = _installed()
    roots = [r for r in dict.fromkeys([path.parent, Path(base).resolve()]) if r not in installed]
    seen = set()
    todo = [_Module(path, path.parent)]
    while todo:
        here = todo.pop()
        for node in _imports(here.file):
            for module in _resolve(node, here, roots):
                if module.file is not None and module.file != path and module.file not in seen:
                    seen.add(module.file)
                    todo.append(module)
    return sorted(seen)


def code_digest(path: Path, base: Path, tail: bytes) -> str:
    """The sha256 of the Python file ``path``, ``tail`` (what else the series is: class,
    arguments, label) and every local module it imports (:func:`local_modules`), each named by
    its path relative to ``base``. Without local modules, the sha256 of the file and ``tail``
    alone."""
    path = Path(path)
    digest = hashlib.sha256(path.read_bytes() + tail)
    base = Path(base).resolve()
    for module in local_modules(path, base):
        name = Path(os.path.relpath(module, base)).as_posix()
        digest.update(b"\0" + name.encode() + b"\0" + hashlib.sha256(module.read_bytes()).digest())
    return digest.hexdigest()
