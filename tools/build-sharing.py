#!/usr/bin/env python3
"""Checks that `make replay` (cargo build --bin pwa-replay) and `make test` (cargo test --workspace)
share every compiled unit of the binary: each unit of the binary's build — package, target, mode,
features, profile and, recursively, its dependencies — must also be in the test build. A unit that
is not means the second command compiles it (and everything above it) again, usually because a
dev-dependency turns on a feature of a crate polars uses (pin it in cli/Cargo.toml).

The test build is `make test`'s: the workspace without the Python extension (maturin builds it
apart, with pyo3's syn features).

Uses cargo's unit graph (`--unit-graph`, unstable: RUSTC_BOOTSTRAP=1 on stable). Compiles nothing.

    tools/build-sharing.py [PROFILE]     (default: ci)
"""
import json
import os
import subprocess
import sys

profile = sys.argv[1] if len(sys.argv) > 1 else "ci"
env = dict(os.environ, RUSTC_BOOTSTRAP="1")


def graph(*args):
    cmd = ["cargo", *args, "--locked", "--profile", profile, "--unit-graph", "-Z", "unstable-options"]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["units"]


def identities(units):
    """A recursive identity per unit: its own description and its dependencies' identities."""
    memo = {}

    def ident(i):
        if i not in memo:
            u = units[i]
            own = (u["pkg_id"], u["target"]["name"], u["target"]["kind"][0], u["mode"],
                   tuple(u["features"]), json.dumps(u["profile"], sort_keys=True))
            memo[i] = hash((own, tuple(sorted(ident(d["index"]) for d in u["dependencies"]))))
        return memo[i]

    return {ident(i): u for i, u in enumerate(units)}


binary = identities(graph("build", "-p", "pwa-replay-cli", "--bin", "pwa-replay"))
tests = identities(graph("test", "--workspace", "--exclude", "pwa-replay-py", "--no-run"))
missing = sorted({u["pkg_id"].split("#")[-1] for k, u in binary.items() if k not in tests})
if missing:
    print(f"build-sharing: {len(missing)} package(s) of the binary compile twice: {' '.join(missing)}")
    sys.exit(1)
print(f"build-sharing: all {len(binary)} units of the binary are reused by the tests")
