"""Reference scores of a level, as Minari's ``get_normalized_score`` reads them.

``ref_min_score`` is the mean return of uniformly random actions in the level's eval env and
``ref_max_score`` the mean return of the domain's expert on the same level, each from fixed
seeds over whole passes through the level's tasks (episode k plays task k mod n), at least
``REFERENCE_EPISODES``: every task weighs the same, as it does in the datasets and in
``evaluate``. A normalised score of 0 is random play and 1 the expert
(``minari.get_normalized_score(dataset, returns)``). Every dataset of a level (real, imaginary,
verified) stores the same two numbers: they describe the task, not the data.

Until 2026-12-07 the references were 10 episodes whatever the level, so on a level of more than
10 tasks they saw its first 10 alone (BabyAI's 84 training and rephrase tasks: 10 of its 24
"go to" tasks and none of the others; its expert's data normalised to 1.34).
"""

from __future__ import annotations

import functools
import os

import numpy as np

from ..core.env import ImagineEnv
from ..domains import get_domain
from ..pipeline.rollout import expert_episode

REFERENCE_EPISODES = 10  # at least, in whole passes through the level's tasks
# IMAGINEBENCH_REFERENCE_EPISODES=k plays exactly k episodes instead, whole passes or not: the
# tests' shortcut (2), which on a level of more tasks sees its first k alone.
REFERENCE_SEED = 777_000  # apart from every recipe's seeds


def random_return(domain_name: str, level: str, episodes: int | None = None,
                  seed: int = REFERENCE_SEED) -> float:
    """Mean return of uniformly random actions (seeded) in the eval env of ``level``, over
    ``episodes`` (default: ``reference_episodes`` of the level's tasks), tasks cycled."""
    episodes = episodes or level_episodes(domain_name, level)
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


def expert_return(domain_name: str, level: str, episodes: int | None = None,
                  seed: int = REFERENCE_SEED) -> float:
    """Mean return of the domain's expert on ``level``, from the same kind of starts as the data,
    over ``episodes`` as ``random_return``'s."""
    domain = get_domain(domain_name)
    episodes = episodes or level_episodes(domain_name, level)
    sim = domain.simulator()
    return float(np.mean([np.sum(expert_episode(domain, level, index, seed, sim).rewards, dtype=np.float64)
                          for index in range(episodes)]))


def reference_episodes(tasks: int, at_least: int = REFERENCE_EPISODES) -> int:
    """The fewest whole passes through ``tasks`` tasks that play at least ``at_least`` episodes."""
    return tasks * -(-at_least // tasks)


def level_episodes(domain_name: str, level: str) -> int:
    """``reference_episodes`` of ``level``'s tasks."""
    return reference_episodes(len(get_domain(domain_name).tasks(level)))


def reference_scores(domain_name: str, level: str) -> dict[str, float | int]:
    """Minari's metadata keys for ``level``: ``ref_min_score``, ``ref_max_score`` and
    ``num_episodes_average_score`` (measured once per process)."""
    exactly = os.environ.get("IMAGINEBENCH_REFERENCE_EPISODES")
    return _measured(domain_name, level, int(exactly) if exactly else level_episodes(domain_name, level))


@functools.cache
def _measured(domain_name: str, level: str, episodes: int) -> dict[str, float | int]:
    return {"ref_min_score": random_return(domain_name, level, episodes),
            "ref_max_score": expert_return(domain_name, level, episodes),
            "num_episodes_average_score": episodes}
