"""The small interface every domain meets. A new domain is one folder that builds a ``Domain``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import gymnasium as gym
import numpy as np

from .task import Task


class Simulator(Protocol):
    """Puts the domain's simulator in any dataset state and steps it."""

    def step_from(self, state: np.ndarray, action: Any) -> np.ndarray: ...

    def random_state(self, rng: np.random.Generator) -> np.ndarray: ...


class Expert(Protocol):
    def act(self, state: np.ndarray) -> Any: ...


@dataclass(frozen=True)
class Domain:
    """A domain: its spaces, tasks per level, simulator, expert and state checkers.

    - ``tasks(level)`` lists the level's tasks in the order the eval env cycles them.
    - ``simulator()`` makes a fresh simulator (one per process or env).
    - ``expert(task, rng, sim)`` makes an expert for one episode.
    - ``illegal(states)`` maps ``(N, D)`` states to an ``(N, K)`` bool array, one column per
      name in ``illegal_kinds`` (non-finite values are always a kind).
    - ``transition_distance(predicted, stored)`` maps two ``(N, D)`` state batches to the
      ``(N,)`` distance that is compared with ``transition_tolerance``.
    """

    name: str
    env_id: str
    state_space: gym.spaces.Box
    action_space: gym.Space
    tasks: Callable[[str], list[Task]]
    simulator: Callable[[], Simulator]
    expert: Callable[[Task, np.random.Generator, Simulator], Expert]
    illegal_kinds: tuple[str, ...]
    illegal: Callable[[np.ndarray], np.ndarray]
    transition_distance: Callable[[np.ndarray, np.ndarray], np.ndarray]
    transition_tolerance: float
    notes: dict[str, str]

    def task(self, level: str, task_id: str) -> Task:
        for task in self.tasks(level):
            if task.id == task_id:
                return task
        known = ", ".join(t.id for t in self.tasks(level)[:5])
        raise KeyError(f"{self.name} level {level!r} has no task {task_id!r} (tasks include {known}, ...)")

    def reset_state(self, task: Task, rng: np.random.Generator, sim: Simulator) -> np.ndarray:
        """A random start state in which ``task`` is not already solved."""
        noop = np.zeros((1,) + (self.action_space.shape or ()), dtype=self.action_space.dtype)
        while True:
            state = sim.random_state(rng)
            if not task.success(state[None], noop, state[None])[0]:
                return state
