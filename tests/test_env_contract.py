"""The eval-env contract every domain shares: N resets cover every task of the level N / n_tasks times."""

import gymnasium as gym
import pytest

from imaginebench_data import all_domains


@pytest.mark.parametrize("domain", all_domains(), ids=lambda domain: domain.name)
def test_env_cycles_tasks_evenly_and_observations_fit_the_space(domain):
    env = gym.make(domain.env_id, level="hard")  # registered with the domain
    n_tasks = len(domain.tasks("hard"))
    assert [t.id for t in env.unwrapped.tasks] == [t.id for t in domain.tasks("hard")]
    seen = []
    for i in range(2 * n_tasks):
        obs, info = env.reset(seed=i)
        assert env.observation_space.contains(obs)
        seen.append(info["task_id"])
    assert sorted(seen) == sorted([t.id for t in env.unwrapped.tasks] * 2)
