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


@pytest.mark.parametrize("domain", [d for d in all_domains() if not d.discrete],
                         ids=lambda domain: domain.name)
def test_a_float64_action_in_range_steps_as_its_float32_twin(domain):
    """gymnasium's Box refuses a float64 array that is in range (found 2026-12-06: `env.step(
    np.zeros(4))` raised); it now steps exactly as the float32 array of the same numbers."""
    import numpy as np

    twins = []
    for dtype in (np.float64, np.float32):
        env = gym.make(domain.env_id, level="rephrase")
        env.reset(seed=0)
        action = np.linspace(-0.5, 0.5, env.action_space.shape[0]).astype(dtype)
        twins.append(env.step(action)[0]["state"])
        for bad, shown in ((np.full(env.action_space.shape, 2.0, dtype), "is not in Box"),
                           (np.zeros(env.action_space.shape[0] + 1, dtype), "an array of shape")):
            with pytest.raises(ValueError, match=shown):
                env.step(bad)
    np.testing.assert_array_equal(*twins)
