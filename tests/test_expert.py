"""The expert solves every level; the full rates are measured in the cards of the real datasets."""

import numpy as np
import pytest

from imaginebench_data import get_domain
from imaginebench_data.pipeline.rollout import expert_episode

CLEVR = get_domain("clevr")


@pytest.mark.parametrize("level, episodes, floor", [("train", 40, 0.95), ("rephrase", 20, 0.95),
                                                    ("easy", 20, 0.95), ("hard", 12, 0.75)])
def test_expert_success(level, episodes, floor):
    sim = CLEVR.simulator()
    results = [expert_episode(CLEVR, level, i, recipe_seed=99, sim=sim).terminations[-1]
               for i in range(episodes)]
    assert np.mean(results) >= floor


def test_rollouts_are_deterministic_for_a_seed():
    sim = CLEVR.simulator()
    a = expert_episode(CLEVR, "hard", 5, recipe_seed=1, sim=sim)
    b = expert_episode(CLEVR, "hard", 5, recipe_seed=1, sim=CLEVR.simulator())
    c = expert_episode(CLEVR, "hard", 5, recipe_seed=2, sim=sim)
    assert np.array_equal(a.states, b.states) and np.array_equal(a.actions, b.actions)
    assert not (a.states.shape == c.states.shape and np.array_equal(a.states, c.states))
