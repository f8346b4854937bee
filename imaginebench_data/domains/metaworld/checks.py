"""Meta-World state checkers: illegal states by kind, and the distance used for transition error.

An entity is *present* when its 7 numbers are not all zero.

- ``hand_out_of_workspace``: the gripper outside the box the Sawyer's tool centre reaches
  in every scene, ``WORKSPACE_LOW``..``WORKSPACE_HIGH`` (metaworld's widest hand space plus
  the fingers' reach below the hand), or an opening outside [0, 1].
- ``below_table``: a present entity lower than ``BELOW_TABLE`` (the table top is z = 0).
- ``floating``: a loose object (puck or mug, hammer, ball) more than ``FLOAT_HEIGHT`` above
  the table while the gripper is farther than ``HOLD_DISTANCE`` from it (nothing holds it),
  unless it is falling: ``states`` are an episode's, in order, and an object that drops by
  more than ``FALL_STEP`` from the state before to this one and from this one to the next (one
  of them at the episode's ends) is in the air on its way down, as a released puck is. Until
  2026-12-07 a falling object was floating too: the paper-scale Meta-World training set, real
  data, had 3 such states in a push the expert lifted and let fall, and failed
  ``imaginebench verify``'s floor for real data.
- ``bad_quaternion``: a present entity whose quaternion norm is off 1 by more than 0.1.
- ``non_finite``: any NaN or infinity.

Transition distance: the largest of the entity position displacements (metres), 0.1 x the
opening change (opening 1 = 0.1 m between the fingers) and 0.05 x the quaternion change
(a rotation moves a point 5 cm from the centre about that far), between the stored next state
and the re-simulated one. Tolerance 1 cm.
"""

from __future__ import annotations

import numpy as np

from .layout import ENTITIES, STATE_DIM, position, present, quaternion

ILLEGAL_KINDS = ("hand_out_of_workspace", "below_table", "floating", "bad_quaternion", "non_finite")
WORKSPACE_LOW = np.array([-0.6, 0.3, -0.2])
WORKSPACE_HIGH = np.array([0.6, 1.1, 0.8])
BELOW_TABLE = -0.05
LOOSE = ("target_object", "hammer", "soccer")
FLOAT_HEIGHT = 0.1
FALL_STEP = 0.001  # metres per step: a loose object dropping faster between neighbours is falling
HOLD_DISTANCE = 0.1
QUATERNION_TOLERANCE = 0.1
TRANSITION_TOLERANCE = 0.01
POSITION_SLOTS = ("gripper", "target_location") + ENTITIES


def illegal(states: np.ndarray) -> np.ndarray:
    """(N, 5) bool, columns in ``ILLEGAL_KINDS`` order, for an episode's ``states`` in order."""
    raw = np.asarray(states, np.float64).reshape(-1, STATE_DIM)
    non_finite = ~np.isfinite(raw).all(axis=-1)
    states = np.nan_to_num(raw, nan=0.0, posinf=1e6, neginf=-1e6)
    gripper = position(states, "gripper")
    outside = ((gripper < WORKSPACE_LOW) | (gripper > WORKSPACE_HIGH)).any(axis=-1)
    outside |= (states[:, 3] < -0.01) | (states[:, 3] > 1.01)
    below = np.zeros(len(states), bool)
    bad_quat = np.zeros(len(states), bool)
    for entity in ENTITIES:
        here = present(states, entity)
        below |= here & (position(states, entity)[:, 2] < BELOW_TABLE)
        norm = np.linalg.norm(quaternion(states, entity), axis=-1)
        bad_quat |= here & (np.abs(norm - 1.0) > QUATERNION_TOLERANCE)
    floating = np.zeros(len(states), bool)
    for entity in LOOSE:
        xyz = position(states, entity)
        free = np.linalg.norm(xyz - gripper, axis=-1) > HOLD_DISTANCE
        floating |= present(states, entity) & (xyz[:, 2] > FLOAT_HEIGHT) & free & ~falling(xyz[:, 2])
    valid = ~non_finite
    return np.stack([outside & valid, below & valid, floating & valid, bad_quat & valid, non_finite], axis=-1)


def falling(heights: np.ndarray) -> np.ndarray:
    """(N,) bool: whether each of an episode's heights, in order, is lower than the one before
    and higher than the one after by more than ``FALL_STEP`` each (a first or last state: by its
    one neighbour; a lone state has none and is not falling)."""
    if len(heights) < 2:
        return np.zeros(len(heights), bool)
    drops = heights[:-1] - heights[1:] > FALL_STEP  # (N-1,): from each state to the next
    return np.concatenate([[True], drops]) & np.concatenate([drops, [True]])


def transition_distance(predicted: np.ndarray, stored: np.ndarray) -> np.ndarray:
    """(N,) distance in metres (see the module docstring); inf where either is non-finite."""
    predicted = np.asarray(predicted, np.float64).reshape(-1, STATE_DIM)
    stored = np.asarray(stored, np.float64).reshape(-1, STATE_DIM)
    delta = predicted - stored
    moves = [np.linalg.norm(position(delta, name), axis=-1) for name in POSITION_SLOTS]
    moves.append(0.1 * np.abs(delta[:, 3]))
    moves += [0.05 * np.linalg.norm(quaternion(delta, name), axis=-1) for name in ENTITIES]
    distance = np.max(np.stack(moves, axis=-1), axis=-1)
    return np.where(np.isfinite(distance), distance, np.inf)
