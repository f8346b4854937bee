"""What a task is: a goal, its phrasings, and the one predicate every component calls."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

LEVELS = ("train", "rephrase", "easy", "hard")
# The task id of an imported episode whose task could not be resolved (see
# ``imports.resolve``): it has no goal and no predicate, is never goal-consistent and is left
# out of goal consistency; its states and transitions are still checked.
UNRESOLVED = "unresolved"

# Vectorised over a batch of N transitions: prev_states (N, D), actions (N, ...),
# states (N, D) -> (N,) array. Every component (env, expert, generator, checkers) calls
# the task's functions, never a copy of a threshold.
TransitionFn = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Task:
    """One task of one level.

    ``success(prev, a, s)`` tells whether the transition reaches the goal; ``reward`` is
    the level's shaped reward for it. ``phrasings`` are the instruction texts of this
    level for this goal (phrasing id = index into it). ``goal`` is plain JSON describing
    the goal, stored in cards and episode metadata.
    """

    id: str
    level: str
    phrasings: tuple[str, ...]
    goal: dict[str, Any]
    success: TransitionFn
    reward: TransitionFn
    horizon: int
    kind: str = field(default="")

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"task {self.id!r}: level must be one of {LEVELS}, got {self.level!r}")
        if not self.phrasings:
            raise ValueError(f"task {self.id!r}: needs at least one phrasing")

    def succeeded(self, prev: np.ndarray, action: Any, state: np.ndarray) -> bool:
        """The predicate on one transition."""
        return bool(self.success(prev[None], np.asarray([action]), state[None])[0])

    def step_reward(self, prev: np.ndarray, action: Any, state: np.ndarray) -> float:
        return float(self.reward(prev[None], np.asarray([action]), state[None])[0])
