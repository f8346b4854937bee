"""The 91-number Meta-World state: fixed entity slots, the same for every task.

Index ranges (metres; quaternions as the simulator reports them)::

    0-3    gripper: tool centre point xyz (between the fingers), opening in [0, 1]
    4-6    target location: the goal xyz of the task (of the current stage for staged tasks)
    7-13   target object (puck, mug)      xyz + quaternion
    14-20  button                         xyz + quaternion
    21-27  lock                           ...
    28-34  handle (door handle)
    35-41  window (window handle)
    42-48  faucet (faucet handle)
    49-55  wall
    56-62  coffee (coffee machine body)
    63-69  coffee-button
    70-76  hammer
    77-83  nail
    84-90  soccer (ball)

Entities absent from a task's scene are all zero. An entity whose simulator quaternion is
zero (Meta-World reports none for some handles) gets the identity (1, 0, 0, 0).
"""

from __future__ import annotations

import numpy as np

STATE_DIM = 91
GRIPPER = slice(0, 3)
OPENING = 3
TARGET = slice(4, 7)
ENTITIES = ("target_object", "button", "lock", "handle", "window", "faucet", "wall", "coffee",
            "coffee_button", "hammer", "nail", "soccer")
SLOT_START = {name: 7 + 7 * i for i, name in enumerate(ENTITIES)}
SLOT_START["gripper"] = 0
SLOT_START["target_location"] = 4
IDENTITY = np.array([1.0, 0.0, 0.0, 0.0])


def position(states: np.ndarray, entity: str) -> np.ndarray:
    """(N, 3) xyz of ``entity`` (an entity name, "gripper" or "target_location")."""
    start = SLOT_START[entity]
    return np.asarray(states)[..., start:start + 3]


def quaternion(states: np.ndarray, entity: str) -> np.ndarray:
    start = SLOT_START[entity] + 3
    return np.asarray(states)[..., start:start + 4]


def pose_slot(pos: np.ndarray, quat: np.ndarray) -> np.ndarray:
    """7 numbers of one slot; a zero quaternion becomes the identity."""
    quat = np.asarray(quat, np.float64)
    return np.concatenate([pos, quat if np.linalg.norm(quat) > 0.5 else IDENTITY])


def entity_mask(entities: tuple[str, ...]) -> np.ndarray:
    """(91,) bool: the numbers of the given entities (plus gripper and target, always present)."""
    mask = np.zeros(STATE_DIM, bool)
    mask[:7] = True
    for name in entities:
        mask[SLOT_START[name]:SLOT_START[name] + 7] = True
    return mask


def slot(entity: str) -> slice:
    """The 7 numbers (xyz + quaternion) of ``entity`` in the state."""
    return slice(SLOT_START[entity], SLOT_START[entity] + 7)


def present(states: np.ndarray, entity: str) -> np.ndarray:
    """(N,) bool: whether ``entity`` is in each state's scene (its 7 numbers not all zero)."""
    return np.any(np.asarray(states)[:, slot(entity)] != 0, axis=-1)


def decode(prev: np.ndarray, states: np.ndarray) -> np.ndarray:
    """A generator's regressed next states as dataset states: a slot empty (all zero) in the
    state the step started from stays empty. Which entities a scene has is fixed by its task
    and zeros mark the absent ones, so a generator imagines only the present entities; their
    numbers are kept as regressed."""
    prev = np.asarray(prev).reshape(-1, STATE_DIM)
    decoded = np.array(states, np.float32).reshape(-1, STATE_DIM)
    for entity in ENTITIES:
        decoded[~present(prev, entity), slot(entity)] = 0.0
    return decoded
