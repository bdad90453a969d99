#!/usr/bin/env python3
"""Coscheduling Fig. 4.3 under three readings of its service distribution (issue 31, docs/PAPER.md
"Statements that differ"): a normal N(m, m²) ("CV 1") whose negative draws are redrawn (the
model's `dist=normal`, m = 1), clipped to 0 (m = 1.075) or folded (|x|, m = 1.066), m chosen so that
75% of the jobs need at most 1.8 time units, the caption's figure. The report's 8×8 squares model
(1, 4, 16, 64 nodes equally likely, Poisson arrivals, ρ from each distribution's own mean) is
written as SWF at 1000 s per time unit and replayed under `gang:slice=median` and
`largest-first:16` with FF; prints mean response (end − submit, time units) and gang / LF.

    tools/cosched-normal-readings.py BIN [JOBS] [REPLICAS]   (default 20000 jobs, 5 replicas)
"""
import csv
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

MEANS = {"redraw": 1.0, "clip": 1.0749, "fold": 1.0661}
UNIT = 1000.0


def draw(mode, m, rng):
    x = rng.gauss(m, m)
    if mode == "clip":
        return max(x, 0.0)
    if mode == "fold":
        return abs(x)
    while x <= 0:
        x = rng.gauss(m, m)
    return x


def mean_service(mode):
    rng = random.Random(11)
    return statistics.fmean(draw(mode, MEANS[mode], rng) for _ in range(400_000))


def write_swf(path, mode, rho, seed, jobs, es):
    lam = rho * 64 / (21.25 * es)
    rng = random.Random(seed)
    t = 0.0
    with open(path, "w") as f:
        for j in range(1, jobs + 1):
            t += rng.expovariate(lam)
            size = 4 ** rng.randrange(4)
            s = draw(mode, MEANS[mode], rng)
            f.write(f"{j} {round(t * UNIT)} -1 {round(s * UNIT)} {size} -1 -1 {size} "
                    "-1 -1 1 1 1 -1 1 1 -1 -1\n")


def mean_response(binary, swf, sched, out):
    subprocess.run([binary, "run", "--trace", str(swf), "--machine", "mesh:8x8", "--sched", sched,
                    "--alloc", "ff", "--jobs-out", str(out)], check=True, capture_output=True)
    rows = list(csv.DictReader(open(out)))
    return statistics.fmean(float(r["end_s"]) - float(r["submit_s"]) for r in rows) / UNIT


def main():
    binary = sys.argv[1]
    jobs = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    with tempfile.TemporaryDirectory() as tmp:
        swf, out = Path(tmp) / "w.swf", Path(tmp) / "jobs.csv"
        for mode in MEANS:
            es = mean_service(mode)
            for rho in (0.1, 0.2, 0.3, 0.4):
                gang, lf = [], []
                for seed in range(1, reps + 1):
                    write_swf(swf, mode, rho, seed, jobs, es)
                    gang.append(mean_response(binary, swf, "gang:slice=median", out))
                    lf.append(mean_response(binary, swf, "largest-first:16", out))
                g, l = statistics.fmean(gang), statistics.fmean(lf)
                print(f"{mode:6} rho {rho}: gang {g:.3f}  largest-first {l:.3f}  ratio {g / l:.3f}")


if __name__ == "__main__":
    main()
