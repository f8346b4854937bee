"""Tasks: reach a target on the line (one predicate per task: within 0.05 of the target)."""

from __future__ import annotations

from functools import cache, partial

import numpy as np

from imaginebench_data.core.task import Task

REACH = 0.05
HORIZON = 30
# level -> (target, phrasings)
TARGETS = {
    "train": [(0.6, ("Move the point to the right end.", "Go right.")),
              (-0.6, ("Move the point to the left end.", "Go left."))],
    "rephrase": [(0.6, ("Head for the right.",)), (-0.6, ("Head for the left.",))],
    "easy": [(0.3, ("Move the point a little to the right.",)),
             (-0.3, ("Move the point a little to the left.",))],
    "hard": [(0.0, ("Put the point in the middle.",))],
}


def reached(prev, actions, states, target):
    return np.abs(np.asarray(states, np.float64)[:, 0] - target) < REACH


def closer(prev, actions, states, target):
    before = np.abs(np.asarray(prev, np.float64)[:, 0] - target)
    return before - np.abs(np.asarray(states, np.float64)[:, 0] - target)


@cache
def tasks(level: str) -> list[Task]:
    return [Task(id=f"reach{target:+.1f}", level=level, phrasings=texts, goal={"target": target},
                 success=partial(reached, target=target), reward=partial(closer, target=target),
                 horizon=HORIZON)
            for target, texts in TARGETS[level]]
