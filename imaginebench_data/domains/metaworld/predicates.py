"""Meta-World success predicates on the 91-number state, vectorised over ``(N, 91)`` batches.

Every task's goal is one or more *conditions* (plain JSON, stored as the task's ``goal``)::

    {"entity": "button", "reference": "target_location", "reference_offset": [0, 0, 0],
     "offset": [0, 0, 0], "weights": [0, 1, 0], "threshold": 0.02, "one_sided": false}

distance = || weights * (entity_xyz + offset - (reference_xyz + reference_offset)) ||, and the
condition holds when distance <= threshold. ``one_sided`` (hammer) counts only a shortfall:
the nail must be driven at least to within ``threshold`` of the target along the weighted
axis. The thresholds and weights are Meta-World v3's ``evaluate_state`` checks restated on
the state (see tasks.py); a task succeeds when all its conditions hold at once. Staged tasks
(make-coffee) list their stages' conditions in order; ``stage`` counts the leading ones held.
"""

from __future__ import annotations

import numpy as np

from .layout import position


def condition_distance(states: np.ndarray, condition: dict) -> np.ndarray:
    """(N,) weighted distance of one condition (metres)."""
    states = np.asarray(states, np.float64)
    entity = position(states, condition["entity"]) + np.asarray(condition.get("offset", (0, 0, 0)))
    reference = position(states, condition["reference"]) + np.asarray(condition.get("reference_offset",
                                                                                   (0, 0, 0)))
    delta = np.asarray(condition["weights"], np.float64) * (entity - reference)
    if condition.get("one_sided"):
        return np.maximum(-delta.sum(axis=-1), 0.0)
    return np.linalg.norm(delta, axis=-1)


def condition_holds(states: np.ndarray, condition: dict) -> np.ndarray:
    return condition_distance(states, condition) <= condition["threshold"]


def goal_reached(states: np.ndarray, conditions: list[dict]) -> np.ndarray:
    """(N,) bool: every condition holds."""
    held = np.ones(np.shape(states)[0], bool)
    for condition in conditions:
        held &= condition_holds(states, condition)
    return held


def stage(states: np.ndarray, conditions: list[dict]) -> np.ndarray:
    """(N,) int: how many leading conditions hold (the current stage of a staged task)."""
    count = np.zeros(np.shape(states)[0], np.int64)
    running = np.ones(np.shape(states)[0], bool)
    for condition in conditions:
        running &= condition_holds(states, condition)
        count += running
    return count


def goal_distance(states: np.ndarray, conditions: list[dict], upto: np.ndarray | None = None) -> np.ndarray:
    """(N,) sum of the conditions' distances beyond their thresholds (metres): 0 once reached.

    ``upto`` ((N,) int, optional): count only conditions ``0..upto[i]`` in row ``i`` (the
    stages reached so far and the one under way): a later stage's distance can be measured
    against a target location that only shows that stage's goal once it is under way.
    """
    total = np.zeros(np.shape(states)[0])
    for index, condition in enumerate(conditions):
        beyond = np.maximum(condition_distance(states, condition) - condition["threshold"], 0.0)
        total += beyond if upto is None else np.where(index <= upto, beyond, 0.0)
    return total
