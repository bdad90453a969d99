"""The worker process of the command line: ``python -m pwa_replay.worker`` replays one replica of
a series whose label has a ``py:`` part (a Python policy ``py:PATH:Class[:key=value,…]``, or a
built-in scheduler with a Python queue order), which the ``pwa-replay`` binary cannot run itself.

It reads from stdin one JSON line, ``{"policy": LABEL, "schedule": BOOL}``, then the replica's
instance (the workload as that replica replays it, the machine, the allocator and the replay
options, as the binary wrote it), and writes to stdout one JSON object: ``{"metrics": {column:
exact text}}`` (with ``"outcome"``, the replica's schedule, when ``schedule`` is true: the binary
writes a sweep's per-user and per-job tables from it), or ``{"error": message, "sim_time": seconds
or null, "traceback": text}`` when the policy raised. Paths in the label are relative to the
working directory, which the binary sets to the experiment file's folder (a sweep's: the current
directory). Every replica builds its policy anew, from the file as it is now.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

from . import _native
from .series import external_digest, series_of


def replay(label: str, instance: bytes, schedule: bool = False) -> str:
    """One replica's reply as JSON text: its metrics (and schedule), or the policy's (or
    function's) error with its traceback."""
    try:
        kw = series_of(label, Path.cwd()).replay_kw()  # a fresh policy, or the order's function
        return _native.replay_instance(instance, schedule=schedule, **kw)
    except Exception as e:  # the replica fails; the binary reports it with the cell
        return json.dumps(
            {
                "error": f"{type(e).__name__}: {e}",
                "sim_time": getattr(e, "sim_time", None),
                "traceback": traceback.format_exc(),
            }
        )


def digests(labels: list) -> dict:
    """The digests of ``labels``, or the first error."""
    try:
        return {"digests": [external_digest(label, ".") for label in labels]}
    except (_native.Error, OSError) as e:
        return {"error": str(e)}


def main() -> int:
    if sys.argv[1:2] == ["--digest"]:
        print(json.dumps(digests(sys.argv[2:])))
        return 0
    stdin = sys.stdin.buffer
    header = json.loads(stdin.readline())
    reply, sys.stdout = sys.stdout, sys.stderr  # what a policy prints does not mix with the reply
    out = replay(header["policy"], stdin.read(), bool(header.get("schedule", False)))
    reply.write(out)
    reply.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
