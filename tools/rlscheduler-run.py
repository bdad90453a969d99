#!/usr/bin/env python3
"""Runs RLScheduler's heuristic scheduler over a whole log, for the comparison of docs/ALGORITHMS.md
("Queue orders: agreement with independent simulators"): HPCSimPickJobs.HPCEnv.
schedule_curr_sequence_reset of github.com/DIR-LAB/deep-batch-scheduler (commit cd433e3), its code
imported unmodified from a checkout (job.py, cluster.py, HPCSimPickJobs.py; needs numpy; the
learning modules it imports, tensorflow, scipy and gym, are stubbed: the heuristics use none).

    tools/rlscheduler-run.py CHECKOUT SWF strict|easy ORDER OUT.csv [--swf-out SAME.swf]
                             [--pwa-scores] [--wait-now]
  ORDER: fcfs sjf wfp3 unicep f1 f2 f3 f4 (RLScheduler's fcfs_score, sjf_score, wfp_score,
         uni_score, f1_score …)
  --swf-out: writes the jobs as RLScheduler reads them (size max(fields 5, 8), estimate field 9 or
             the run time, jobs of run time 0 dropped) for pwa-replay to replay the same input
  --pwa-scores: every order's value as pwa-replay computes it (order-reference.py's key: wait
             now - submit, submit from the first submission, the guards), ties by submit then id,
             in RLScheduler's loop
  --wait-now: wfp3/unicep measure the wait as now - submit (RLScheduler's scores read
             scheduled_time - submit, and scheduled_time is -1 while a job waits)
OUT.csv: job_id, submit_s, start_s, run_s, size with times from the first submit.
"""
import csv
import importlib.util
import sys
import types
from pathlib import Path

sys.path.insert(0, sys.argv[1])
# HPCSimPickJobs imports tensorflow, scipy and gym for its learning parts; the heuristic scheduler
# needs none of them.
for name in ["tensorflow", "scipy", "scipy.signal", "gym", "gym.spaces", "gym.utils",
             "gym.utils.seeding"]:
    sys.modules[name] = types.ModuleType(name)


class _Env:
    pass


sys.modules["gym"].Env = _Env
sys.modules["gym"].spaces = sys.modules["gym.spaces"]
sys.modules["gym.spaces"].Discrete = lambda *a, **k: None
sys.modules["gym.spaces"].Box = lambda *a, **k: None
sys.modules["gym.utils"].seeding = sys.modules["gym.utils.seeding"]
import numpy as np  # noqa: E402
import HPCSimPickJobs as H  # noqa: E402


def write_swf(loads, path):
    """The jobs as RLScheduler holds them, as SWF for pwa-replay."""
    with open(path, "w") as f:
        f.write(f"; MaxNodes: {loads.max_nodes}\n; MaxProcs: {loads.max_procs}\n")
        for j in loads.all_jobs:
            n = j.request_number_of_processors
            f.write(f"{j.job_id} {j.submit_time} -1 {j.run_time} {n} -1 -1 {n} {j.request_time} "
                    f"-1 1 {j.user_id} {j.group_id} -1 1 1 -1 -1\n")


def wait_now(env):
    """RLScheduler's WFP3 and UNICEP with the wait measured at the current time."""
    def wfp(job):
        w = env.current_timestamp - job.submit_time
        return -np.power(float(w) / job.request_time, 3) * job.request_number_of_processors

    def uni(job):
        w = env.current_timestamp - job.submit_time
        n = job.request_number_of_processors
        return -(w + 1e-15) / (np.log2(n + 1e-15) * job.request_time)
    env.wfp_score, env.uni_score = wfp, uni


def pwa_scores(env, loads):
    """Every order's value as order-reference.py (and pwa-replay) computes it."""
    spec = importlib.util.spec_from_file_location(
        "ref", Path(__file__).with_name("order-reference.py"))
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    t0 = loads[0].submit_time

    def score(order):
        def f(job):
            j = dict(id=job.job_id, submit=job.submit_time - t0, est=job.request_time,
                     size=job.request_number_of_processors)
            return (-ref.key(order, j, env.current_timestamp - t0), job.submit_time, job.job_id)
        return f
    for o in ["fcfs", "sjf", "wfp3", "unicep", "f1", "f2", "f3", "f4"]:
        setattr(env, {"wfp3": "wfp", "unicep": "uni"}.get(o, o) + "_score", score(o))


def schedule_all(env, loads, score):
    """reset_for_test with the whole log as the sequence, from its first job; the start times."""
    starts = {}
    job_score = env.job_score

    def record(job):
        starts[job.job_id] = job.scheduled_time
        return job_score(job)
    env.job_score = record
    env.cluster.reset()
    loads.reset()
    env.job_queue, env.running_jobs, env.visible_jobs, env.pairs = [], [], [], []
    env.scheduled_rl, env.penalty, env.pivot_job, env.scheduled_scores = {}, 0, False, []
    env.start = env.start_idx_last_reset = 0
    env.num_job_in_batch = env.last_job_in_batch = loads.size()
    env.current_timestamp = loads[0].submit_time
    env.job_queue.append(loads[0])
    env.next_arriving_job_idx = 1
    env.schedule_curr_sequence_reset(score)
    return starts


def main():
    swf, sched, order, out = sys.argv[2:6]
    args = sys.argv[6:]
    env = H.HPCEnv(backfil=(sched == "easy"), job_score_type=0)
    env.my_init(workload_file=swf)
    loads = env.loads
    if "--swf-out" in args:
        write_swf(loads, args[args.index("--swf-out") + 1])
    if "--wait-now" in args:
        wait_now(env)
    if "--pwa-scores" in args:
        pwa_scores(env, loads)
    score = {"fcfs": env.fcfs_score, "sjf": env.sjf_score, "wfp3": env.wfp_score,
             "unicep": env.uni_score, "f1": env.f1_score, "f2": env.f2_score,
             "f3": env.f3_score, "f4": env.f4_score}[order]
    starts = schedule_all(env, loads, score)
    t0 = loads[0].submit_time
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["job_id", "submit_s", "start_s", "run_s", "size"])
        for j in loads.all_jobs:
            w.writerow([j.job_id, j.submit_time - t0, starts[j.job_id] - t0, j.run_time,
                        j.request_number_of_processors])


main()
