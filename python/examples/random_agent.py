"""A random agent in the scheduling environment: each decision a uniformly random allowed action.

    target/py-venv/bin/python python/examples/random_agent.py [TRACE] [EPISODES]
"""

import sys

import numpy as np

from pwa_replay.env import SchedulingEnv

trace = sys.argv[1] if len(sys.argv) > 1 else "kth-sp2"
episodes = int(sys.argv[2]) if len(sys.argv) > 2 else 3

env = SchedulingEnv(trace, jobs=500, window=16, reward="wait")
rng = np.random.default_rng(0)
for episode in range(episodes):
    obs, info = env.reset(seed=episode)
    total, steps, done = 0.0, 0, False
    while not done:
        allowed = np.flatnonzero(info["action_mask"])
        obs, reward, done, _, info = env.step(int(rng.choice(allowed)))
        total += reward
        steps += 1
    m = info["metrics"]
    print(f"episode {episode}: {steps} decisions, return {total:.1f} (job-hours waited), "
          f"mean wait {m['mean_wait_s']:.0f} s, mean bounded slowdown {m['mean_bounded_slowdown']:.2f}")
env.close()
