"""Copies of LIBERO's training episodes with other items already in the basket, for training only.

Every pick-{item} episode of the training set starts with the three items on the floor, and
every place-{item} episode with the two others there. A task that fills the basket item by
item (``tasks.subgoals``) asks the model to pick the second item up with the first in the
basket, a scene it was never shown: from there it left the second item where it stood, even
with the hand put back at its home pose (``experiments/libero_probes/second_pick.py``).

A copy puts each item the episode's task does not move in the basket, each with probability
1/2, at every state of the episode, where the expert's place leaves it (``IN_BASKET``) and at
the height the projection settles an item over the basket's floor to (``decode.resting_height``). The
copied item lies out of the hand's reach throughout (the hand works at the task's item and
at that item's own spot in the basket), so a simulator would have left it where it is, as
``decode.keep_untouched`` keeps it in imagined rollouts. The task, its instruction and the
actions are the episode's. Grounding sees each training episode, every epoch, as a copy drawn
for it (``TrainSettings.symmetries``, as CLEVR's symmetric copies); BC with
``BCSettings.symmetries`` sees each batch row as one.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np

from ...core.domain import Symmetry
from ...core.episode import Episode
from .decode import resting_height
from .layout import OBJECTS, position, quaternion
from .tasks import tasks

COPIED_LEVELS = ("train", "rephrase")
# Where the expert's place-{item} leaves the item (the mean over the 30 such episodes of the
# demo training set, last state, 2026-12-05): its xy offset from the basket's origin (spread
# under 1 mm) and its quaternion (xyzw, unit norm; spread under 0.013).
IN_BASKET = {
    "alphabet_soup": ((-0.0244, -0.0247), (0.005, 0.715, 0.699, -0.008)),
    "cream_cheese": ((0.0052, 0.0446), (0.027, 0.009, 1.0, 0.001)),
    "salad_dressing": ((0.036, -0.0294), (0.498, 0.509, 0.497, 0.496)),
}


@cache
def _task_item() -> dict[str, str]:
    """Each training task's id -> the item it moves (rephrase has the same ids)."""
    return {task.id: task.goal["items"][0] for task in tasks("train")}


@cache
def _phrasing_index() -> dict[str, str]:
    """Each training and rephrase phrasing -> the item its task moves."""
    return {text: task.goal["items"][0] for level in COPIED_LEVELS for task in tasks(level)
            for text in task.phrasings}


def put_in_basket(states: np.ndarray, item: str) -> None:
    """``item`` resting in the basket, where the expert's place leaves it, in every row of
    ``states`` (in place)."""
    offset, quat = IN_BASKET[item]
    basket = position(states, "basket")
    xyz = position(states, item)
    xyz[..., :2] = basket[..., :2] + np.asarray(offset)
    xyz[..., 2] = resting_height(states, item, True)
    quaternion(states, item)[...] = np.asarray(quat) / np.linalg.norm(quat)


def _others_drawn(item: str, rng: np.random.Generator) -> list[str]:
    others = [other for other in OBJECTS if other != item]
    return [other for other, chosen in zip(others, rng.random(len(others)) < 0.5) if chosen]


def basket_copy(episode: Episode, rng: np.random.Generator) -> Episode:
    """``episode`` with each item its task does not move in the basket with probability 1/2 (two
    draws from ``rng``); an episode of another level or task (an imported episode whose task
    was not resolved) comes back as it is and draws nothing."""
    item = _task_item().get(episode.task_id)
    if episode.level not in COPIED_LEVELS or item is None:
        return episode
    chosen = _others_drawn(item, rng)
    if not chosen:
        return episode
    states = np.array(episode.states, copy=True)
    for other in chosen:
        put_in_basket(states, other)
    return replace(episode, states=states)


def basket_rows(states: np.ndarray, actions: np.ndarray, instructions: list[str],
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A batch of transitions (states (N, 44), actions, instructions), each row with the items
    its task does not move in the basket with probability 1/2 each; rows whose instruction is
    not a training or rephrase phrasing stay as they are. Actions and instructions are kept."""
    copied = np.array(states, copy=True)
    moved = np.array([_phrasing_index().get(text) for text in instructions], dtype=object)
    chosen = rng.random((len(instructions), len(OBJECTS))) < 0.5
    for column, other in enumerate(OBJECTS):
        rows = chosen[:, column] & (moved != None) & (moved != other)  # noqa: E711 (elementwise)
        picked = copied[rows]
        put_in_basket(picked, other)
        copied[rows] = picked
    return copied, actions, list(instructions)


def copied_phrasings() -> list[str]:
    """Every instruction a copy carries: the training and rephrase phrasings."""
    return list(_phrasing_index())


COPIES = Symmetry(episode=basket_copy, rows=basket_rows, phrasings=copied_phrasings)
