"""A point on a line: the whole state is its position, so set_state is exact."""

from __future__ import annotations

import numpy as np

from imaginebench_data.core.simulator import WholeStateSimulator
from imaginebench_data.core.task import Task

STEP = 0.1      # one action moves the point this far (m)
LIMIT = 1.0     # the line runs from -1 to 1; the point stops at its ends
LEFT, STAY, RIGHT = 0, 1, 2


def move(positions: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """(N, 1) next positions of (N, 1) positions under (N,) actions."""
    shift = STEP * (np.asarray(actions, np.float32).reshape(-1, 1) - 1)
    return np.clip(np.asarray(positions, np.float32) + shift, -LIMIT, LIMIT).astype(np.float32)


class PointSimulator(WholeStateSimulator):
    """The position is the whole state: the package's base class gives reset, step, set_state."""

    def __init__(self) -> None:
        super().__init__(1)

    def step_from(self, state: np.ndarray, action) -> np.ndarray:
        return move(np.asarray(state)[None], np.asarray([action]))[0]

    def random_state(self, rng: np.random.Generator) -> np.ndarray:
        return rng.uniform(-0.9, 0.9, size=1).astype(np.float32)


class PointExpert:
    """Steps towards the task's target until within reach."""

    def __init__(self, task: Task, rng: np.random.Generator, sim: PointSimulator) -> None:
        self.target = task.goal["target"]

    def act(self, state: np.ndarray) -> int:
        gap = self.target - float(state[0])
        return STAY if abs(gap) < STEP / 2 else (RIGHT if gap > 0 else LEFT)
