"""The Meta-World expert: metaworld's scripted v3 policies, chained for staged tasks.

The policies read the env's own 39-number observation (kept by the simulator), not the
91-number state. A staged task runs its stages' policies in order: the stage is the number
of leading conditions that hold on the current state; from stage k >= 1 the stage's policy
sees the entity of condition k as its object (make-coffee: the machine's button,
locked-door-open: the door handle).

locked-door-open's second stage is ``locked_door.LockedDoorOpenPolicy``: door-open's policy
made to start from where door-unlock leaves the hand (under the lock, left of the handle).
"""

from __future__ import annotations

import warnings

import numpy as np

from ...core.task import Task
from .layout import position
from .predicates import stage
from .sim import MetaWorldSimulator


def _policy(name: str):
    from metaworld import policies

    if name == "LockedDoorOpenPolicy":
        from .locked_door import LockedDoorOpenPolicy

        return LockedDoorOpenPolicy()
    return getattr(policies, name)()


class MetaWorldExpert:
    """``act(state) -> (4,) float32 action`` for one episode of ``task``, stepping ``sim`` live."""

    def __init__(self, task: Task, rng: np.random.Generator, sim: MetaWorldSimulator):
        from .scenes import SCENES

        self.task = task
        self.sim = sim
        self.conditions = task.goal["conditions"]
        self.policies = [_policy(name) for name in SCENES[task.goal["scene"]].policies]

    def act(self, state: np.ndarray) -> np.ndarray:
        obs = np.array(self.sim.raw_obs, np.float64)
        current = 0
        if len(self.policies) > 1:
            current = min(int(stage(state[None], self.conditions)[0]), len(self.policies) - 1)
            if current >= 1:
                obs[4:7] = position(state, self.conditions[current]["entity"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Constant(s) may be too high"
            action = self.policies[current].get_action(obs)
        return np.clip(action, -1.0, 1.0).astype(np.float32)
