"""A Gymnasium environment for batch scheduling on pwa-replay's engine: any catalogued log, SWF
file or synthetic model, on any machine the engine models (flat, mesh, torus, hypercube), under
any allocator.

An episode is one replay. At each instant at which something happened (after its departures and
arrivals) the agent is asked, as long as some of the first ``window`` waiting jobs fits now,
which of them to start — or to wait until the next event:

* **action** — ``Discrete(window + 1)``: ``i < window`` starts the i-th waiting job (in arrival
  order) where the run's allocator places it; ``window`` waits.
* **action mask** — ``info["action_mask"]`` (and :meth:`SchedulingEnv.action_masks`): job ``i``
  is there and the allocator finds it a place now; waiting is allowed unless the machine is idle
  (it would never be asked again). An action the mask forbids does nothing: the same decision is
  asked again, with reward 0.
* **observation** — ``Box`` of ``window * 5 + 4`` floats: per slot *present*, *nodes / machine
  nodes*, *log estimate*, *log wait*, *fits now*; then *free share*, *running share*, *log queue
  length*, *largest waiting request that fits / machine nodes* (times as ``log1p(s / 60) / 10``).
* **reward** — the change of the chosen metric since the previous decision: ``"wait"`` is minus
  the job-hours waited (the episode's rewards add up to minus the total wait), ``"utilization"``
  the node-hours used divided by the machine's nodes.

``reset(seed=…)`` picks the episode: with ``jobs=N`` a window of N consecutive jobs of a log
starting at a random job, or for a ``synth:`` label a model stream with a random seed; the same
seed gives the same episode, and the same actions the same observations and rewards.

The replay runs on a worker thread that hands each decision over and waits for the action; the
engine's state is touched only by that thread.
"""

from __future__ import annotations

import queue
import re
import threading
from typing import Any, Optional

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from . import run as _run

_FEATURES = 5
_SUMMARY = 4


def _log_time(seconds: float) -> float:
    return float(np.log1p(max(seconds, 0.0) / 60.0) / 10.0)


class _Abort(Exception):
    """Ends a replay the environment no longer needs (reset or close mid-episode)."""


class _Bridge:
    """The policy the worker's replay calls: it hands decisions to the agent."""

    def __init__(self, env: "SchedulingEnv", to_agent: queue.Queue, to_sim: queue.Queue):
        self.env = env
        self.to_agent = to_agent
        self.to_sim = to_sim
        self.last_t = 0.0
        self.waiting = 0
        self.busy = 0
        self.reward = 0.0

    def _integrate(self, now: float, nodes: int):
        dt = now - self.last_t
        if self.env.reward_metric == "wait":
            self.reward -= self.waiting * dt / 3600.0
        else:
            self.reward += self.busy * dt / 3600.0 / nodes
        self.last_t = now

    def schedule(self, state):
        nodes = state.total_nodes
        self._integrate(state.now, nodes)
        k = self.env.window
        while True:
            jobs = state.queue[:k]
            if not jobs:
                break
            places = [state.find(j) for j in jobs]
            fits = [p is not None for p in places]
            if not any(fits):
                break
            mask = np.zeros(k + 1, dtype=np.int8)
            mask[: len(fits)] = fits
            mask[k] = state.running > 0
            obs = self.env._observe(state, jobs, fits, nodes)
            self.to_agent.put(("decision", obs, mask, self.reward))
            self.reward = 0.0
            action = self.to_sim.get()
            if action is _Abort:
                raise _Abort()
            if action == k:
                break
            state.start(jobs[action], places[action])
        self.waiting = len(state.queue)
        self.busy = nodes - state.free_nodes


class SchedulingEnv(gym.Env):
    """Batch scheduling as a Gymnasium environment (see the module's documentation).

    ``trace``, ``machine``, ``alloc``, ``load_factor`` and ``estimate`` are those of
    :func:`pwa_replay.run`; ``jobs`` the episode's length in jobs (a log's whole length when
    ``None``); ``window`` the number of waiting jobs the agent sees and chooses from.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        trace: str = "kth-sp2",
        *,
        machine: Optional[str] = None,
        alloc: Optional[str] = None,
        load_factor: float = 1.0,
        estimate: str = "exact",
        jobs: Optional[int] = 1000,
        window: int = 16,
        reward: str = "wait",
    ):
        if reward not in ("wait", "utilization"):
            raise ValueError(f"reward={reward!r}: one of 'wait', 'utilization'")
        if window < 1:
            raise ValueError("window must be at least 1")
        self.trace = trace
        self.machine = machine
        self.alloc = alloc
        self.load_factor = load_factor
        self.estimate = estimate
        self.jobs = jobs
        self.window = window
        self.reward_metric = reward
        self.action_space = spaces.Discrete(window + 1)
        self.observation_space = spaces.Box(
            low=0.0, high=10.0, shape=(window * _FEATURES + _SUMMARY,), dtype=np.float32
        )
        self._synthetic = trace.strip().startswith("synth:")
        self._length: Optional[int] = None
        self._worker: Optional[threading.Thread] = None
        self._to_sim: Optional[queue.Queue] = None
        self._to_agent: Optional[queue.Queue] = None
        self._mask = np.zeros(window + 1, dtype=np.int8)
        self._last_obs = np.zeros(self.observation_space.shape, dtype=np.float32)
        self._done = True
        self.result = None

    # --- the episode's workload -------------------------------------------------------------

    def _episode(self) -> dict:
        """The run's arguments for a new episode, drawn from ``self.np_random``."""
        kw: dict[str, Any] = dict(
            machine=self.machine,
            alloc=self.alloc,
            load_factor=self.load_factor,
            estimate=self.estimate,
        )
        if self._synthetic:
            seed = int(self.np_random.integers(1, 2**31))
            label = re.sub(r",\s*seed=\d+", "", self.trace.strip())
            jobs = f",jobs={self.jobs}" if self.jobs and "jobs=" not in label else ""
            kw["trace"] = f"{label}{jobs},seed={seed}"
            return kw
        kw["trace"] = self.trace
        if self.jobs is not None:
            if self._length is None:
                from . import stats

                self._length = int(stats(self.trace, machine=self.machine)["jobs"])
            span = max(self._length - self.jobs, 0)
            kw["first_job"] = int(self.np_random.integers(0, span + 1))
            kw["max_jobs"] = self.jobs
        return kw

    def _observe(self, state, jobs, fits, nodes) -> np.ndarray:
        obs = np.zeros(self.observation_space.shape, dtype=np.float32)
        largest = 0
        for i, (job, fit) in enumerate(zip(jobs, fits)):
            obs[i * _FEATURES : (i + 1) * _FEATURES] = (
                1.0,
                job.nodes / nodes,
                _log_time(job.estimate),
                _log_time(job.wait),
                float(fit),
            )
            if fit:
                largest = max(largest, job.nodes)
        base = self.window * _FEATURES
        obs[base:] = (
            state.free_nodes / nodes,
            state.running / nodes,
            float(np.log1p(len(state.queue)) / 10.0),
            largest / nodes,
        )
        return obs

    # --- the worker -------------------------------------------------------------------------

    def _start(self, kwargs: dict):
        to_agent: queue.Queue = queue.Queue()
        to_sim: queue.Queue = queue.Queue()
        bridge = _Bridge(self, to_agent, to_sim)

        def replay():
            try:
                result = _run(policy=bridge, **kwargs)
                to_agent.put(("done", result, bridge.reward))
            except _Abort:
                to_agent.put(("aborted",))
            except BaseException as e:  # handed to the agent's thread
                to_agent.put(("error", e))

        self._to_agent, self._to_sim = to_agent, to_sim
        self._worker = threading.Thread(target=replay, name="pwa-replay-episode", daemon=True)
        self._worker.start()

    def _stop(self):
        if self._worker is None:
            return
        if not self._done:
            self._to_sim.put(_Abort)
        self._worker.join()
        self._worker = None
        self._done = True

    def _next(self):
        """Waits for the next decision (or the end): ``(obs, reward, terminated, info)``."""
        msg = self._to_agent.get()
        if msg[0] == "decision":
            _, obs, mask, reward = msg
            self._mask = mask
            self._last_obs = obs
            return obs, reward, False, {"action_mask": mask.astype(bool)}
        self._worker.join()
        self._worker = None
        self._done = True
        if msg[0] == "error":
            raise msg[1]
        _, result, reward = msg
        self.result = result
        self._mask = np.zeros(self.window + 1, dtype=np.int8)
        obs = np.zeros(self.observation_space.shape, dtype=np.float32)
        return obs, reward, True, {"action_mask": self._mask.astype(bool), "metrics": result.metrics}

    # --- Gymnasium ----------------------------------------------------------------------------

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        self._stop()
        self.result = None
        self._done = False
        self._start(self._episode())
        obs, _, terminated, info = self._next()
        if terminated:
            self._done = True
        return obs, info

    def step(self, action):
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        action = int(action)
        if not (0 <= action <= self.window) or not self._mask[action]:
            # Not allowed now (see the mask): nothing happens, the same decision is asked again.
            return self._last_obs.copy(), 0.0, False, False, {"action_mask": self.action_masks()}
        self._to_sim.put(action)
        obs, reward, terminated, info = self._next()
        return obs, float(reward), terminated, False, info

    def action_masks(self) -> np.ndarray:
        """The actions allowed now (the convention of maskable agents)."""
        return self._mask.astype(bool)

    def close(self):
        self._stop()
