"""Reference scores of a level, as Minari's ``get_normalized_score`` reads them.

``ref_min_score`` is the mean return of uniformly random actions in the level's eval env and
``ref_max_score`` the mean return of the domain's expert on the same level, each over
``REFERENCE_EPISODES`` episodes from fixed seeds: a normalised score of 0 is random play and 1
the expert (``minari.get_normalized_score(dataset, returns)``). Every dataset of a level (real,
imaginary, verified) stores the same two numbers: they describe the task, not the data.
"""

from __future__ import annotations

import functools
import os

import numpy as np

from ..core.env import ImagineEnv
from ..domains import get_domain
from ..pipeline.rollout import expert_episode

REFERENCE_EPISODES = 10  # IMAGINEBENCH_REFERENCE_EPISODES overrides it (the tests use fewer)
REFERENCE_SEED = 777_000  # apart from every recipe's seeds


def random_return(domain_name: str, level: str, episodes: int = REFERENCE_EPISODES,
                  seed: int = REFERENCE_SEED) -> float:
    """Mean return of uniformly random actions (seeded) in the eval env of ``level``."""
    env = ImagineEnv(domain_name, level)
    env.action_space.seed(seed)
    returns = []
    try:
        for index in range(episodes):
            env.reset(seed=seed + index)
            total, done = 0.0, False
            while not done:
                _, reward, terminated, truncated, _ = env.step(env.action_space.sample())
                total, done = total + float(reward), terminated or truncated
            returns.append(total)
    finally:
        env.close()
    return float(np.mean(returns))


def expert_return(domain_name: str, level: str, episodes: int = REFERENCE_EPISODES,
                  seed: int = REFERENCE_SEED) -> float:
    """Mean return of the domain's expert on ``level``, from the same kind of starts as the data."""
    domain = get_domain(domain_name)
    sim = domain.simulator()
    return float(np.mean([np.sum(expert_episode(domain, level, index, seed, sim).rewards, dtype=np.float64)
                          for index in range(episodes)]))


def reference_scores(domain_name: str, level: str) -> dict[str, float | int]:
    """Minari's metadata keys for ``level``: ``ref_min_score``, ``ref_max_score`` and
    ``num_episodes_average_score`` (measured once per process)."""
    return _measured(domain_name, level, int(os.environ.get("IMAGINEBENCH_REFERENCE_EPISODES",
                                                            REFERENCE_EPISODES)))


@functools.cache
def _measured(domain_name: str, level: str, episodes: int) -> dict[str, float | int]:
    return {"ref_min_score": random_return(domain_name, level, episodes),
            "ref_max_score": expert_return(domain_name, level, episodes),
            "num_episodes_average_score": episodes}
