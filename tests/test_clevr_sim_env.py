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


def _one_try_at_a_time(rng):
    """The random scene as drawn before issue 16: one try of 5 centres at a time, until every
    two balls' surfaces are SPAWN_GAP apart."""
    from imaginebench_data.domains.clevr import sim

    while True:
        centres = rng.uniform(sim.SPAWN_LOW, sim.SPAWN_HIGH, size=(sim.N_BALLS, 2))
        gaps = np.linalg.norm(centres[:, None] - centres[None], axis=-1)
        if np.all(gaps[np.triu_indices(sim.N_BALLS, 1)] >= 2 * sim.BALL_RADIUS + sim.SPAWN_GAP):
            return centres.reshape(-1).astype(np.float32)


def test_random_scenes_and_every_later_draw_are_those_of_one_try_at_a_time():
    """Tries are drawn and checked in blocks, then the generator is wound back: the scene, the
    generator's state (its buffered 32-bit half included) and all later draws are unchanged."""
    sim = ClevrSimulator()
    for seed in range(150):
        before, after = np.random.default_rng(seed), np.random.default_rng(seed)
        assert before.integers(7) == after.integers(7)  # leaves half a 64-bit step buffered
        for _ in range(3):
            assert np.array_equal(_one_try_at_a_time(before), sim.random_state(after)), seed
            assert before.integers(5) == after.integers(5)
        assert before.bit_generator.state == after.bit_generator.state
        assert before.random() == after.random()
    # A generator that cannot skip ahead is drawn one try at a time.
    before, after = (np.random.Generator(np.random.MT19937(3)) for _ in range(2))
    assert np.array_equal(_one_try_at_a_time(before), sim.random_state(after))
    assert before.random() == after.random()


def test_the_first_train_episodes_have_the_checksum_they_had(minari_root, tmp_path):
    """Eight episodes of the train set hash as they did before resets drew tries in blocks."""
    from imaginebench_data.datasets.checksum import DatasetChecksum
    from imaginebench_data.datasets.read import open_dataset, stored_episodes
    from imaginebench_data.domains import get_domain
    from imaginebench_data.pipeline.build import build

    build("imaginebench/clevr-train-real-v0", episodes=8, workers=1, cards_dir=tmp_path / "cards",
          progress=False)
    dataset, _ = open_dataset("imaginebench/clevr-train-real-v0")
    arrays = DatasetChecksum(everything=False)  # the checksum of that commit's cards (schema 2)
    for episode in stored_episodes(dataset, get_domain("clevr")):
        arrays.update(episode)
    assert arrays.hexdigest() == EIGHT_TRAIN_EPISODES


# The checksum of `imaginebench build imaginebench/clevr-train-real-v0 --episodes 8` at commit 85e700c
# (card schema 2: arrays, instructions and simulator states).
EIGHT_TRAIN_EPISODES = "7d8b85fccdabaa56f659a2f1a8b25d89081b0abe1764d5cc8c1444fb74949e0e"


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
