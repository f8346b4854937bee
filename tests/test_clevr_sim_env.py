"""The CLEVR simulator and the registered eval env."""

import gymnasium as gym
import numpy as np
from conftest import scene

import imaginebench_data  # noqa: F401  (registers the envs)
from imaginebench_data.domains.clevr.sim import BALL_RADIUS, ClevrSimulator


def test_push_moves_only_the_pushed_ball_and_is_deterministic():
    sim = ClevrSimulator()
    start = scene()
    after = sim.step_from(start, 0)  # red, +x
    moved = (after - start).reshape(5, 2)
    assert moved[0, 0] > 0.05 and abs(moved[0, 1]) < 1e-3
    assert np.abs(moved[1:]).max() < 1e-6
    assert np.array_equal(sim.step_from(start, 0), after)


def test_simulator_takes_any_state():
    sim = ClevrSimulator()
    state = scene(red=(0.31, -0.27))
    sim.place(state)
    assert np.array_equal(sim.get_state(), state)


def test_random_scenes_keep_balls_apart():
    sim = ClevrSimulator()
    rng = np.random.default_rng(0)
    for _ in range(20):
        centres = sim.random_state(rng).reshape(5, 2)
        gaps = np.linalg.norm(centres[:, None] - centres[None], axis=-1)[np.triu_indices(5, 1)]
        assert gaps.min() >= 2 * BALL_RADIUS + 0.1 - 1e-6


def test_easy_episode_lasts_one_step():
    env = gym.make("imaginebench/Clevr-v0", level="easy", task="push-blue-right")
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(8)  # blue, +x
    assert terminated and not truncated and info["success"] and reward == 1.0
    env.reset(seed=1)
    _, reward, terminated, truncated, info = env.step(10)  # blue, -x: wrong way
    assert truncated and not terminated and not info["success"] and reward == 0.0


def test_train_episode_truncates_at_fifty_steps():
    env = gym.make("imaginebench/Clevr-v0", level="train", task="red-left-of-blue")
    env.reset(seed=0)
    steps, done = 0, False
    while not done:
        _, _, terminated, truncated, _ = env.step(24)  # push purple +x forever: never solves it
        steps += 1
        done = terminated or truncated
    assert steps == 50 and truncated and not terminated


def test_unknown_task_is_a_clear_error():
    try:
        gym.make("imaginebench/Clevr-v0", level="train", task="red-on-top-of-blue")
    except KeyError as error:
        assert "red-on-top-of-blue" in str(error)
    else:
        raise AssertionError("expected a KeyError")
