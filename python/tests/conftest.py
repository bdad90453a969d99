"""Shared fixtures: the repository root (the tests run from it so that the search path finds the
logs in ../shared/traces), the real logs and the command-line binary the comparisons run."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The real logs these tests read (catalog names sdsc-96 and kth-sp2).
REAL_LOGS = ("SDSC-Par-1996-3.1-cln.swf.gz", "KTH-SP2-1996-2.1-cln.swf.gz")


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


@pytest.fixture(scope="session")
def real_logs():
    """The directory of the real logs, as the Rust tests find it (tests/it/real_logs.rs): the first
    of $PWA_TRACES's directories when it is set, else of traces/ and ../shared/traces, that holds
    them all. Missing, a test that uses this fixture fails, or is skipped (and counted by pytest)
    under PWA_SKIP_TRACE_TESTS=1."""
    if os.environ.get("PWA_SKIP_TRACE_TESTS") == "1":
        pytest.skip("reads the real logs (PWA_SKIP_TRACE_TESTS=1)")
    given = os.environ.get("PWA_TRACES")
    if given:
        dirs = [Path(d) for d in given.split(os.pathsep)]
    else:
        dirs = [ROOT / "traces", ROOT.parent / "shared" / "traces"]
    for d in dirs:
        if all((d / f).is_file() for f in REAL_LOGS):
            return d
    pytest.fail(
        f"the real logs {', '.join(REAL_LOGS)} are not in {' or '.join(map(str, dirs))}: put them "
        "there or point $PWA_TRACES at them, or set PWA_SKIP_TRACE_TESTS=1 to skip the tests that "
        "read them",
        pytrace=False,
    )
