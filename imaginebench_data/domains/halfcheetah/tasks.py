"""HalfCheetah tasks of the four levels, each with its predicate and reward.

- train: run-forward, run-backward, jump-forward, jump-backward (training phrasings);
- rephrase: the same four goals and predicates, phrasings never used in training;
- easy: run-forward-fast, run-backward-fast;
- hard: forward-then-backward, backward-then-forward (order checked), jump-in-place.

Success (predicates.py, the original's thresholds): run x > 7 m after 99 steps, fast
x > 8.5 m after 99 steps, jump x > 0 m after 5 steps (signs flipped backward), in place
abs(x) < 1.05 m after 15 steps, staged: more than 3 m one way, then 3 m back from the
furthest point.

Reward (the original's, from the state: ``run = dx / DT`` is the step's mean x velocity,
m/s, exactly gymnasium's ``reward_run``; ``ctrl = -0.1 * |a|^2``): forward tasks
``run + ctrl``, backward tasks ``-run + ctrl``, jump-in-place ``-|run| + ctrl``. Staged tasks
reward the direction of the current stage, ``+-run + ctrl`` (the original's ``|run| + ctrl``
rewarded either direction at any time, like its order-blind predicate). Horizon 200 steps.
"""

from __future__ import annotations

from functools import cache, partial

import numpy as np

from ...core.task import Task
from .layout import DT, DX
from .phrasings import EASY, HARD, TRAIN, level_phrasings
from .predicates import first_stage_done, stayed, went, went_and_returned

HORIZON = 200
CTRL_COST = 0.1
# id: goal (plain JSON); "test" names the predicate, the other keys are its arguments.
GOALS = {
    "run-forward": {"test": "went", "direction": 1, "distance": 7.0, "min_steps": 99},
    "run-backward": {"test": "went", "direction": -1, "distance": 7.0, "min_steps": 99},
    "jump-forward": {"test": "went", "direction": 1, "distance": 0.0, "min_steps": 5},
    "jump-backward": {"test": "went", "direction": -1, "distance": 0.0, "min_steps": 5},
    "run-forward-fast": {"test": "went", "direction": 1, "distance": 8.5, "min_steps": 99},
    "run-backward-fast": {"test": "went", "direction": -1, "distance": 8.5, "min_steps": 99},
    "forward-then-backward": {"test": "went_and_returned", "direction": 1, "distance": 3.0},
    "backward-then-forward": {"test": "went_and_returned", "direction": -1, "distance": 3.0},
    "jump-in-place": {"test": "stayed", "radius": 1.05, "min_steps": 15},
}
LEVEL_TASKS = {"train": tuple(TRAIN), "rephrase": tuple(TRAIN), "easy": tuple(EASY), "hard": tuple(HARD)}
PREDICATES = {"went": went, "stayed": stayed, "went_and_returned": went_and_returned}


def run_velocity(states: np.ndarray) -> np.ndarray:
    """(N,) the step's mean x velocity (m/s) from post-step states."""
    return np.asarray(states, np.float64)[:, DX] / DT


def ctrl_cost(actions: np.ndarray) -> np.ndarray:
    actions = np.asarray(actions, np.float64)
    return CTRL_COST * np.square(actions).reshape(len(actions), -1).sum(axis=-1)


def _success(prev, actions, states, goal):
    arguments = {key: value for key, value in goal.items() if key != "test"}
    return PREDICATES[goal["test"]](states, **arguments)


def _reward(prev, actions, states, goal):
    run = run_velocity(states)
    if goal["test"] == "stayed":
        gain = -np.abs(run)
    elif goal["test"] == "went":
        gain = goal["direction"] * run
    else:  # staged: the direction of the stage the step starts in
        turned = first_stage_done(prev, goal["direction"], goal["distance"])
        gain = np.where(turned, -1.0, 1.0) * goal["direction"] * run
    return gain - ctrl_cost(actions)


def _task(name: str, level: str) -> Task:
    goal = {"kind": name, **GOALS[name]}
    return Task(id=name, level=level, phrasings=level_phrasings(name, level), goal=goal,
                success=partial(_success, goal=GOALS[name]), reward=partial(_reward, goal=GOALS[name]),
                horizon=HORIZON, kind=name)


@cache
def _tasks(level: str) -> tuple[Task, ...]:
    if level not in LEVEL_TASKS:
        raise ValueError(f"unknown HalfCheetah level {level!r}; expected one of {', '.join(LEVEL_TASKS)}")
    return tuple(_task(name, level) for name in LEVEL_TASKS[level])


def tasks(level: str) -> list[Task]:
    """The tasks of ``level``, in a fixed order (the order the eval env cycles through)."""
    return list(_tasks(level))

