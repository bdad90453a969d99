#!/usr/bin/env python3
"""Checks an installed wheel of pwa_replay as a user would use it: run by the interpreter of a fresh
virtual environment the wheel was pip-installed into, from a directory outside the repository, it
imports the package from that environment (not from the source tree) and replays a generated
workload under a built-in scheduler and under a policy written in Python, validated.

    VENV/bin/python tools/wheel-check.py VENV
"""
import sys
from pathlib import Path

import pwa_replay as pr
import pwa_replay.policies

venv = Path(sys.argv[1]).resolve()
where = Path(pr.__file__).resolve()
assert venv in where.parents, f"pwa_replay imported from {where}, not from {venv}"

TRACE = "synth:uniform,mesh=8x8,jobs=300"
builtin = pr.run(TRACE, sched="fcfs", alloc="ff", validate=True)
python = pr.run(TRACE, policy=pr.policies.Fcfs(), alloc="ff", validate=True)
assert builtin.jobs.height == python.jobs.height == 300
assert builtin.jobs["start_s"].to_list() == python.jobs["start_s"].to_list()
print(f"wheel ok: pwa_replay from {where.parent}, {builtin.jobs.height} jobs replayed, "
      f"mean wait {builtin.metrics['mean_wait_s']:.1f} s under fcfs and its Python twin")
