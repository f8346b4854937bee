"""Symmetric copies of CLEVR data: the colours permuted, the table mirrored in x.

Nothing in the simulator tells the balls apart but their colour (the same radius, mass and
damping), and the table, the walls and the eight push directions are symmetric about x = 0.
So an expert episode with its balls' colours permuted, or mirrored left to right, is an
episode of another task of its level: "red to the left of blue" becomes, with red and green
swapped and the table mirrored, "green to the right of blue"; "push the red ball left",
"push the green ball right". The expert's search is symmetric too (its aim points are spread
evenly about each relation's axis), and the random scenes are drawn alike for every ball in a
box symmetric about x = 0, so a copy's start state is as likely as the original's.

A copy is drawn from the 240 symmetries (5! colour orders, mirrored or not). A copied
episode's instruction is a phrasing of its new task drawn at random; a copied batch row keeps
the original's template (phrasing index). Relation tasks (train,
rephrase) and one-push tasks (easy) are copied; the hard level's tasks map to goals that are
not tasks, so their data is left as it is. Copies are made in memory, for training only: no
dataset holds them. Grounding sees them with ``TrainSettings.symmetries``, BC with
``BCSettings.symmetries``.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np

from ...core.domain import Symmetry
from ...core.episode import Episode
from ...core.task import Task
from .sim import N_BALLS, N_DIRECTIONS
from .tasks import push_id, relation_id, tasks

# Push direction d mirrored in x (+x, +y, -x, -y, +x+y, -x+y, +x-y, -x-y).
MIRRORED_DIRECTION = np.array([2, 1, 0, 3, 5, 4, 7, 6])
MIRRORED_RELATION = {"left": "right", "right": "left", "behind": "behind", "front": "front"}
COPIED_LEVELS = ("train", "rephrase", "easy")


def move_balls(states: np.ndarray, order: np.ndarray, mirror: np.ndarray | bool) -> np.ndarray:
    """``states`` (N, 10) with ball ``i`` of row ``n`` moved to slot ``order[n, i]`` (or ``order[i]``
    for every row) and x negated where ``mirror``."""
    states = np.asarray(states)
    balls = states.reshape(len(states), N_BALLS, 2)
    order = np.broadcast_to(order, (len(states), N_BALLS))
    moved = np.take_along_axis(balls, np.argsort(order, axis=1)[..., None], axis=1)  # slot j: ball argsort[j]
    mirror = np.broadcast_to(mirror, (len(states),))[:, None]
    moved[..., 0] = np.where(mirror, -moved[..., 0], moved[..., 0])
    return moved.reshape(states.shape)


def move_pushes(actions: np.ndarray, order: np.ndarray, mirror: np.ndarray | bool) -> np.ndarray:
    """``actions`` (N,) as the same symmetry moves them: the ball to its slot, the direction mirrored."""
    actions = np.asarray(actions)
    ball, direction = np.divmod(actions.astype(np.int64), N_DIRECTIONS)
    order = np.broadcast_to(order, (len(actions), N_BALLS))
    direction = np.where(mirror, MIRRORED_DIRECTION[direction], direction)
    pushes = np.take_along_axis(order, ball[:, None], axis=1)[:, 0] * N_DIRECTIONS + direction
    return pushes.astype(actions.dtype)


@cache
def _tasks(level: str) -> dict[str, Task]:
    return {task.id: task for task in tasks(level)}


@cache
def _phrasing_index() -> dict[str, tuple[str, str, int]]:
    """Every copied level's phrasing -> (level, task id, phrasing index)."""
    return {text: (level, task.id, k) for level in COPIED_LEVELS for task in tasks(level)
            for k, text in enumerate(task.phrasings)}


def copied_task(level: str, task_id: str, order: np.ndarray, mirror: bool) -> Task | None:
    """The task ``task_id`` of ``level`` becomes under the symmetry; None where it is not copied."""
    task = _tasks(level).get(task_id) if level in COPIED_LEVELS else None
    if task is None:
        return None
    goal = task.goal
    relation = MIRRORED_RELATION[goal["relation"]] if mirror else goal["relation"]
    if goal["kind"] == "relation":
        return _tasks(level)[relation_id(int(order[goal["src"]]), int(order[goal["dst"]]), relation)]
    return _tasks(level)[push_id(int(order[goal["ball"]]), relation)]


def draw(rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """One of the 240 symmetries: a colour order and whether to mirror."""
    return rng.permutation(N_BALLS), bool(rng.integers(2))


def symmetric_copy(episode: Episode, rng: np.random.Generator) -> Episode:
    """``episode`` under a symmetry drawn from ``rng``; an episode whose task is not copied
    comes back as it is (and draws nothing)."""
    if episode.level not in COPIED_LEVELS or episode.task_id not in _tasks(episode.level):
        return episode
    order, mirror = draw(rng)
    copy = copied_task(episode.level, episode.task_id, order, mirror)
    phrasing = int(rng.integers(len(copy.phrasings)))
    return replace(episode, states=move_balls(episode.states, order, mirror),
                   actions=move_pushes(episode.actions, order, mirror), task_id=copy.id,
                   instruction=copy.phrasings[phrasing], phrasing_id=phrasing)


def symmetric_rows(states: np.ndarray, actions: np.ndarray, instructions: list[str],
                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A batch of transitions (states (N, 10), actions (N,), their instructions), each row under
    its own symmetry drawn from ``rng``; rows whose instruction is not a copied task's phrasing
    stay as they are."""
    orders = np.stack([rng.permutation(N_BALLS) for _ in range(len(states))])
    mirrors = rng.integers(2, size=len(states)).astype(bool)
    index = _phrasing_index()
    copied = []
    for n, text in enumerate(instructions):
        found = index.get(text)
        if found is None:
            orders[n], mirrors[n] = np.arange(N_BALLS), False
            copied.append(text)
            continue
        level, task_id, phrasing = found
        copied.append(copied_task(level, task_id, orders[n], mirrors[n]).phrasings[phrasing])
    return move_balls(states, orders, mirrors), move_pushes(actions, orders, mirrors), copied


def copied_phrasings() -> list[str]:
    """Every phrasing a copy can carry."""
    return list(_phrasing_index())


SYMMETRY = Symmetry(episode=symmetric_copy, rows=symmetric_rows, phrasings=copied_phrasings)
