"""The eval-env contract every domain shares: N resets cover every task of the level N / n_tasks times."""

import gymnasium as gym
import pytest

import imaginebench_data  # noqa: F401 - registers the envs


@pytest.mark.parametrize("env_id, n_tasks", [
    ("imaginebench/Clevr-v0", 12), ("imaginebench/BabyAI-v0", 3), ("imaginebench/MetaWorld-v0", 4),
    ("imaginebench/HalfCheetah-v0", 3), ("imaginebench/Libero-v0", 13),
])
def test_env_cycles_tasks_evenly_and_observations_fit_the_space(env_id, n_tasks):
    env = gym.make(env_id, level="hard")
    assert len(env.unwrapped.tasks) == n_tasks
    seen = []
    for i in range(2 * n_tasks):
        obs, info = env.reset(seed=i)
        assert env.observation_space.contains(obs)
        seen.append(info["task_id"])
    assert sorted(seen) == sorted([t.id for t in env.unwrapped.tasks] * 2)
