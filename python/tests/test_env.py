"""The Gymnasium environment: the interface, reproducible episodes, masks from the allocator."""

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

import pwa_replay as pr  # noqa: E402
from pwa_replay.env import SchedulingEnv  # noqa: E402


def episode(env, seed, pick):
    """Plays one episode; returns the observations, rewards and the final metrics."""
    obs, info = env.reset(seed=seed)
    observations, rewards, done = [obs], [], False
    rng = np.random.default_rng(seed)
    while not done:
        obs, reward, done, truncated, info = env.step(pick(rng, obs, info["action_mask"]))
        assert not truncated
        observations.append(obs)
        rewards.append(reward)
    return np.array(observations), np.array(rewards), info["metrics"]


# Wall-clock columns differ from run to run.
WALL = {"alloc_time_s", "sim_wall_s"}


def deterministic(metrics):
    return {k: v for k, v in metrics.items() if k not in WALL}


def random_allowed(rng, obs, mask):
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.usefixtures("real_logs")
def test_the_environment_passes_gymnasiums_checker():
    from gymnasium.utils.env_checker import check_env

    env = SchedulingEnv("kth-sp2", jobs=100, window=8)
    check_env(env, skip_render_check=True)
    env.close()


@pytest.mark.usefixtures("real_logs")
def test_episodes_with_a_fixed_seed_are_reproducible():
    env = SchedulingEnv("kth-sp2", jobs=300, window=8)
    a = episode(env, 7, random_allowed)
    b = episode(env, 7, random_allowed)
    c = episode(env, 8, random_allowed)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert deterministic(a[2]) == deterministic(b[2])
    assert a[2]["jobs"] == 300
    assert not (len(a[1]) == len(c[1]) and np.array_equal(a[1], c[1])), "another seed, another episode"
    env.close()


@pytest.mark.usefixtures("real_logs")
def test_the_wait_rewards_add_up_to_minus_the_total_wait():
    env = SchedulingEnv("kth-sp2", jobs=300, window=8, reward="wait")
    _, rewards, metrics = episode(env, 3, random_allowed)
    total_wait_h = metrics["mean_wait_s"] * metrics["jobs"] / 3600
    assert rewards.sum() == pytest.approx(-total_wait_h, rel=1e-9)
    env.close()


def test_always_starting_the_head_is_fcfs_on_a_mesh_model():
    label = "synth:uniform,mesh=8x8,jobs=200"
    env = SchedulingEnv(label, alloc="ff", jobs=200, window=4)

    def head_or_wait(rng, obs, mask):
        return 0 if mask[0] else len(mask) - 1

    _, _, metrics = episode(env, 11, head_or_wait)
    seed_label = env.result.metrics["trace"]
    assert seed_label.startswith(label) and ",seed=" in seed_label
    fcfs = pr.run(seed_label, sched="fcfs", alloc="ff")
    assert metrics["mean_wait_s"] == fcfs.metrics["mean_wait_s"]
    env.close()


@pytest.mark.usefixtures("real_logs")
def test_a_masked_action_does_nothing_and_reset_mid_episode_starts_afresh():
    env = SchedulingEnv("kth-sp2", jobs=200, window=4)
    obs, info = env.reset(seed=1)
    mask = info["action_mask"]
    assert not mask[4], "the machine is idle at the first arrival: no waiting"
    again, reward, done, _, info2 = env.step(4)
    assert np.array_equal(again, obs) and reward == 0.0 and not done
    assert np.array_equal(info2["action_mask"], mask)
    env.step(int(np.flatnonzero(mask)[0]))
    obs2, _ = env.reset(seed=1)
    assert np.array_equal(obs, obs2)
    env.close()


@pytest.mark.usefixtures("real_logs")
def test_the_utilization_rewards_add_up_to_the_node_hours_used():
    env = SchedulingEnv("sdsc-96", alloc="mpl", jobs=300, window=8, reward="utilization")
    _, rewards, metrics = episode(env, 5, random_allowed)
    jobs = env.result.jobs
    node_hours = (jobs["size"].cast(float) * (jobs["end_s"] - jobs["start_s"])).sum() / 3600
    assert rewards.sum() == pytest.approx(node_hours / (22 * 16), rel=1e-9)
    assert metrics["jobs"] == 300
    env.close()
