"""A sixth domain that lives only in tests/: a point on a line that must reach a target.

Everything the package needs is declared here; ``register_domain`` adds it to the registry
(an installed package would name ``DOMAIN`` in an ``imaginebench.domains`` entry point).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from imaginebench_data import register_domain
from imaginebench_data.core.domain import Domain, OriginalLayout

from .sim import LIMIT, PointExpert, PointSimulator
from .tasks import tasks

ILLEGAL_KINDS = ("off_line", "non_finite")


def illegal(states: np.ndarray) -> np.ndarray:
    states = np.asarray(states, np.float64)
    finite = np.isfinite(states).all(axis=1)
    off = np.zeros(len(states), bool)
    off[finite] = np.abs(states[finite, 0]) > LIMIT
    return np.stack([off, ~finite], axis=1)


DOMAIN = register_domain(Domain(
    name="point",
    env_id="imaginebench/Point-v0",
    state_space=gym.spaces.Box(-np.inf, np.inf, (1,), np.float32),
    action_space=gym.spaces.Discrete(3),
    tasks=tasks,
    simulator=PointSimulator,
    expert=PointExpert,
    illegal_kinds=ILLEGAL_KINDS,
    illegal=illegal,
    transition_distance=lambda predicted, stored: np.abs(np.asarray(predicted) - np.asarray(stored))[:, 0],
    transition_tolerance=1e-6,
    original=OriginalLayout(prefix="point", state_dim=1),
    notes={"state": "1 number: the point's position on the line [-1, 1].",
           "action": "Discrete(3): left, stay, right by 0.1."},
    recipe_module="point_domain.recipes",
))
