"""Shared fixtures: the repository root (the tests run from it so that the search path finds the
logs in ../shared/traces) and the command-line binary the comparisons run."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.fixture(scope="session")
def cli():
    """The pwa-replay binary of the ci profile (`make test` builds it before pytest runs)."""
    path = Path(os.environ.get("PWA_REPLAY_BIN", ROOT / "target" / "ci" / "pwa-replay"))
    if not path.is_file():
        pytest.skip(f"{path} not built (make build, or set PWA_REPLAY_BIN)")
    return path
