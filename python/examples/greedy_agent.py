"""A greedy agent in the scheduling environment: start the shortest (estimated) job that fits,
and wait only when nothing does — shortest-job-first by hand, as a baseline for learning agents.

    target/py-venv/bin/python python/examples/greedy_agent.py [TRACE] [EPISODES]
"""

import sys

import numpy as np

from pwa_replay.env import SchedulingEnv

trace = sys.argv[1] if len(sys.argv) > 1 else "kth-sp2"
episodes = int(sys.argv[2]) if len(sys.argv) > 2 else 3

env = SchedulingEnv(trace, jobs=500, window=16, reward="wait")
F = 5  # features per waiting job: present, nodes, log estimate, log wait, fits now


def shortest_that_fits(obs, mask):
    k = len(mask) - 1
    estimates = obs[: k * F].reshape(k, F)[:, 2]
    candidates = [i for i in range(k) if mask[i]]
    if not candidates:
        return k
    return min(candidates, key=lambda i: (estimates[i], i))


for episode in range(episodes):
    obs, info = env.reset(seed=episode)
    total, steps, done = 0.0, 0, False
    while not done:
        obs, reward, done, _, info = env.step(shortest_that_fits(obs, info["action_mask"]))
        total += reward
        steps += 1
    m = info["metrics"]
    print(f"episode {episode}: {steps} decisions, return {total:.1f} (job-hours waited), "
          f"mean wait {m['mean_wait_s']:.0f} s, mean bounded slowdown {m['mean_bounded_slowdown']:.2f}")
env.close()
