"""LIBERO state checkers: illegal states by kind, and the distance used for transition error.

- ``out_of_workspace``: an item or the basket outside the floor area around the arm
  (``FLOOR_LOW``..``FLOOR_HIGH``; origins below the floor count too), or the grip site
  farther than ``ARM_REACH`` from the arm's base or below the floor.
- ``interpenetration``: two items closer (centre to centre) than the sum of their inner
  radii (half their smallest extent) less ``PENETRATION_TOLERANCE`` (5 mm), or an item
  inside the basket's footprint whose centre is below the top of the basket's floor plus
  its inner radius less ``BASKET_TOLERANCE`` (1 cm: the floor is measured in the upright
  basket's frame, and the hand sometimes tips it), or an item whose centre is lower than its
  inner radius less ``PENETRATION_TOLERANCE`` above the floor (z = 0; in every real LIBERO
  state each item's centre is at least its inner radius less 0.5 mm up): one solid inside
  another.
- ``joint_out_of_range``: a Panda joint angle more than ``JOINT_TOLERANCE`` outside its
  limits, or a finger outside [0, 0.04] m by more than 5 mm.
- ``bad_quaternion``: the hand's or an entity's quaternion norm off 1 by more than 0.1.
- ``non_finite``: any NaN or infinity.

Transition distance: the largest of the grip-site and entity position displacements
(metres), the finger displacements, 0.1 x the largest joint-angle change (rad; a 10 cm
lever) and 0.05 x the quaternion changes, between the stored next state and the
re-simulated one. Tolerance 1 cm.
"""

from __future__ import annotations

import numpy as np

from .layout import ENTITIES, FINGERS, JOINTS, OBJECTS, STATE_DIM, position, quaternion

ILLEGAL_KINDS = ("out_of_workspace", "interpenetration", "joint_out_of_range", "bad_quaternion", "non_finite")
FLOOR_LOW = np.array([-0.6, -0.6, -0.02])
FLOOR_HIGH = np.array([0.6, 0.7, 1.0])
ARM_BASE = np.array([-0.6, 0.0, 0.0])
ARM_REACH = 1.2
INNER_RADIUS = {"alphabet_soup": 0.031, "cream_cheese": 0.009, "salad_dressing": 0.018}
BASKET_HALF = np.array([0.079, 0.084])  # half footprint of the basket (m)
BASKET_FLOOR = 0.022  # top of the basket's floor above its origin (m, measured)
PENETRATION_TOLERANCE = 0.005
BASKET_TOLERANCE = 0.01  # the floor check also allows for a basket tipped a little by the hand
JOINT_LOW = np.array([-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973])
JOINT_HIGH = np.array([2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973])
JOINT_TOLERANCE = 0.05
FINGER_TOLERANCE = 0.005
QUATERNION_TOLERANCE = 0.1
TRANSITION_TOLERANCE = 0.01


def inside_each_other(states: np.ndarray, a: str, b: str) -> np.ndarray:
    """(N,) bool: items ``a`` and ``b`` closer than their inner radii less the tolerance."""
    gap = np.linalg.norm(position(states, a) - position(states, b), axis=-1)
    return gap < INNER_RADIUS[a] + INNER_RADIUS[b] - PENETRATION_TOLERANCE


def over_basket(states: np.ndarray, item: str) -> np.ndarray:
    """(N,) bool: ``item``'s centre over the basket's footprint."""
    return np.all(np.abs(position(states, item)[:, :2] - position(states, "basket")[:, :2]) < BASKET_HALF,
                  axis=-1)


def sunk_into_basket(states: np.ndarray, item: str) -> np.ndarray:
    """(N,) bool: ``item`` over the basket's footprint, its centre lower than its inner radius
    (less the tolerance) above the basket's floor."""
    depth = position(states, item)[:, 2] - position(states, "basket")[:, 2] - BASKET_FLOOR
    return over_basket(states, item) & (depth < INNER_RADIUS[item] - BASKET_TOLERANCE)


def sunk_into_floor(states: np.ndarray, item: str) -> np.ndarray:
    """(N,) bool: ``item``'s centre lower than its inner radius (less the tolerance) above the floor."""
    return position(states, item)[:, 2] < INNER_RADIUS[item] - PENETRATION_TOLERANCE


def _interpenetration(states: np.ndarray) -> np.ndarray:
    bad = np.zeros(len(states), bool)
    for i, a in enumerate(OBJECTS):
        for b in OBJECTS[i + 1:]:
            bad |= inside_each_other(states, a, b)
    for item in OBJECTS:
        bad |= sunk_into_basket(states, item) | sunk_into_floor(states, item)
    return bad


def illegal(states: np.ndarray) -> np.ndarray:
    """(N, 5) bool, columns in ``ILLEGAL_KINDS`` order."""
    raw = np.asarray(states, np.float64).reshape(-1, STATE_DIM)
    non_finite = ~np.isfinite(raw).all(axis=-1)
    states = np.nan_to_num(raw, nan=0.0, posinf=1e6, neginf=-1e6)
    outside = np.zeros(len(states), bool)
    bad_quat = np.abs(np.linalg.norm(quaternion(states, "eef"), axis=-1) - 1.0) > QUATERNION_TOLERANCE
    for entity in ENTITIES:
        xyz = position(states, entity)
        outside |= ((xyz < FLOOR_LOW) | (xyz > FLOOR_HIGH)).any(axis=-1)
        bad_quat |= np.abs(np.linalg.norm(quaternion(states, entity), axis=-1) - 1.0) > QUATERNION_TOLERANCE
    eef = position(states, "eef")
    outside |= (np.linalg.norm(eef - ARM_BASE, axis=-1) > ARM_REACH) | (eef[:, 2] < FLOOR_LOW[2])
    joints = states[:, JOINTS]
    joint_bad = ((joints < JOINT_LOW - JOINT_TOLERANCE)
                 | (joints > JOINT_HIGH + JOINT_TOLERANCE)).any(axis=-1)
    fingers = states[:, FINGERS]
    joint_bad |= (fingers[:, 0] < -FINGER_TOLERANCE) | (fingers[:, 0] > 0.04 + FINGER_TOLERANCE)
    joint_bad |= (fingers[:, 1] > FINGER_TOLERANCE) | (fingers[:, 1] < -0.04 - FINGER_TOLERANCE)
    valid = ~non_finite
    return np.stack([outside & valid, _interpenetration(states) & valid, joint_bad & valid,
                     bad_quat & valid, non_finite], axis=-1)


def transition_distance(predicted: np.ndarray, stored: np.ndarray) -> np.ndarray:
    """(N,) distance in metres (see the module docstring); inf where either is non-finite."""
    delta = (np.asarray(predicted, np.float64).reshape(-1, STATE_DIM)
             - np.asarray(stored, np.float64).reshape(-1, STATE_DIM))
    moves = [np.linalg.norm(position(delta, name), axis=-1) for name in ("eef",) + ENTITIES]
    moves.append(np.abs(delta[:, FINGERS]).max(axis=-1))
    moves.append(0.1 * np.abs(delta[:, JOINTS]).max(axis=-1))
    moves += [0.05 * np.linalg.norm(quaternion(delta, name), axis=-1) for name in ("eef",) + ENTITIES]
    distance = np.max(np.stack(moves, axis=-1), axis=-1)
    return np.where(np.isfinite(distance), distance, np.inf)
