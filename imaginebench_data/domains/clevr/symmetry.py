"""Symmetric copies of CLEVR training episodes: the colours permuted, the table mirrored in x.

Nothing in the simulator tells the balls apart but their colour (the same radius, mass and
damping), and the table, the walls and the eight push directions are symmetric about x = 0.
So an expert episode with its balls' colours permuted, or mirrored left to right, is an
episode of another training task: "red to the left of blue" becomes, with red and green
swapped and the table mirrored, "green to the right of blue". The expert's search is
symmetric too (its aim points are spread evenly about each relation's axis), and the random
scenes are drawn alike for every ball in a box symmetric about x = 0, so a copy's start
state is as likely as the original's.

Grounding with ``TrainSettings.symmetries`` sees each training episode, every epoch, as one
copy drawn from the 240 (5! colour orders, mirrored or not): the same number of sequences
and optimiser steps as without it, each a new view. Only the training level's relation
tasks are copied (the data grounding reads); the copy's instruction is one of its task's
training phrasings. Copies are made in memory, for grounding only: no dataset holds them.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...core.episode import Episode
from .sim import N_BALLS, N_DIRECTIONS
from .tasks import relation_id, tasks

# Push direction d mirrored in x (+x, +y, -x, -y, +x+y, -x+y, +x-y, -x-y).
MIRRORED_DIRECTION = np.array([2, 1, 0, 3, 5, 4, 7, 6])
MIRRORED_RELATION = {"left": "right", "right": "left", "behind": "behind", "front": "front"}


def transform(states: np.ndarray, actions: np.ndarray, order: np.ndarray,
              mirror: bool) -> tuple[np.ndarray, np.ndarray]:
    """``states`` (T+1, 10) and ``actions`` (T,) with ball ``i`` moved to slot ``order[i]``, and
    x negated if ``mirror``."""
    balls = np.asarray(states).reshape(len(states), N_BALLS, 2)
    moved = np.empty_like(balls)
    moved[:, order] = balls
    if mirror:
        moved[..., 0] = -moved[..., 0]
    ball, direction = np.divmod(np.asarray(actions, np.int64), N_DIRECTIONS)
    if mirror:
        direction = MIRRORED_DIRECTION[direction]
    pushes = order[ball] * N_DIRECTIONS + direction
    return moved.reshape(len(states), -1), pushes.astype(np.asarray(actions).dtype)


def symmetric_copy(episode: Episode, rng: np.random.Generator) -> Episode:
    """``episode`` under a colour order and mirror drawn from ``rng``; any episode that is not
    of a training relation task comes back as it is (and draws nothing)."""
    train = {task.id: task for task in tasks("train")}
    task = train.get(episode.task_id)
    if episode.level != "train" or task is None:
        return episode
    order = rng.permutation(N_BALLS)
    mirror = bool(rng.integers(2))
    states, actions = transform(episode.states, episode.actions, order, mirror)
    goal = task.goal
    relation = MIRRORED_RELATION[goal["relation"]] if mirror else goal["relation"]
    copy = train[relation_id(int(order[goal["src"]]), int(order[goal["dst"]]), relation)]
    phrasing = int(rng.integers(len(copy.phrasings)))
    return replace(episode, states=states.astype(episode.states.dtype), actions=actions, task_id=copy.id,
                   instruction=copy.phrasings[phrasing], phrasing_id=phrasing)
