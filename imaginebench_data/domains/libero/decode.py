"""The generator's correction of a predicted LIBERO state: onto the scene's state space.

A regressed state can hold numbers the simulator never reports (``checks.illegal``): joint
angles past the Panda's limits, fingers opened past 4 cm or crossed, a grip site below the
floor or beyond the arm's reach, an item sunk into the floor, the basket or another item,
quaternions off unit norm. In free-running rollouts these grow with every step. The
projection, applied to every predicted state:

- clips the joint angles into the Panda's limits and each finger into its travel (0..0.04 m
  and -0.04..0 m);
- puts the grip site above the floor and within ``ARM_REACH`` of the arm's base (moved onto
  the sphere along the line from the base);
- clips every item's and the basket's origin into the floor area of the checkers;
- keeps every item and the basket that no part of the hand can touch, in the state the step
  started from and in the predicted one, where it was (``keep_untouched``): its centre farther
  sideways from the grip site than ``UNTOUCHED``, half the hand's 21 cm span plus the body's
  half-width (4.5 cm for an item, 11.5 cm, half the diagonal of the footprint, for the basket).
  The simulator leaves such a body still: in the 32,032 transitions of the four real demo sets
  the soup moved 0.03 mm at most, the others less than 0.001 mm. The model lets them drift: a soup put
  in the basket slid out of it at 1 cm every 10 steps while the hand, 20 cm away, went for the
  next item;
- settles every item out of the hand whose centre is more than ``PENETRATION_TOLERANCE`` (5 mm)
  off its resting height onto what is under it: the basket's floor where it is over the
  basket's footprint, else the floor (``settle``). Out of the hand: its centre farther than
  ``NEAR_EEF`` (5 cm) sideways from the grip site, or more than 5 cm above it (a held item
  hangs under the grip site, the salad dressing's centre 4.4 cm under it, and a released one
  falls from there). The model lets resting items drift into the floor (by 5.8 cm, the soup's
  median in its rejected transitions) or float above it, which no simulator step does: in one
  step the simulator lifts such an item out, or lets it fall up to 11.8 mm (a 50 ms free
  fall). Of the 32,421 states of the four real demo sets it moves two items' heights, by 7.5
  mm at most;
- pushes two items that are one inside the other (``checks``: closer than their inner radii
  less the tolerance) apart along the line joining their centres, half each way, until their
  inner radii touch, and lifts an item sunk into the basket's floor or the floor until its
  centre is its inner radius above it; a few rounds, as one push can cause another;
- scales every quaternion to unit norm (a zero one becomes the identity).

Everything else is kept as regressed (the grip site is not recomputed from the joints), and
rows with a non-finite number are left as they are, for the checkers to flag.
"""

from __future__ import annotations

import numpy as np

from ...core.projection import inside_float32, unit_quaternions
from .checks import (
    ARM_BASE,
    ARM_REACH,
    BASKET_FLOOR,
    BASKET_HALF,
    FLOOR_HIGH,
    FLOOR_LOW,
    INNER_RADIUS,
    JOINT_HIGH,
    JOINT_LOW,
    PENETRATION_TOLERANCE,
    inside_each_other,
    over_basket,
    sunk_into_basket,
    sunk_into_floor,
)
from .layout import ENTITIES, FINGERS, JOINTS, OBJECTS, REST_HEIGHT, STATE_DIM, position, quaternion
from .predicates import NEAR_EEF

IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])  # xyzw
JOINT_MIN, JOINT_MAX = inside_float32(JOINT_LOW, JOINT_HIGH)
ORIGIN_MIN, ORIGIN_MAX = inside_float32(FLOOR_LOW, FLOOR_HIGH)
FINGER_MIN, FINGER_MAX = np.array([0.0, -0.04]), np.array([0.04, 0.0])
REACH = ARM_REACH * (1 - 1e-6)  # inside the reach once rounded to float32
ROUNDS = 16
UP = np.array([0.0, 0.0, 1.0])
HAND_HALF_SPAN = 0.105  # the Panda hand is 21 cm across its fingers' axis
UNTOUCHED = {**{item: HAND_HALF_SPAN + 0.045 for item in OBJECTS},
             "basket": HAND_HALF_SPAN + float(np.linalg.norm(BASKET_HALF))}  # keep_untouched


def _separate(rows: np.ndarray) -> bool:
    """One round of pushes (in place); whether anything moved."""
    moved = False
    for i, a in enumerate(OBJECTS):
        for b in OBJECTS[i + 1:]:
            overlap = inside_each_other(rows, a, b)
            if overlap.any():
                apart = position(rows, a) - position(rows, b)
                gap = np.linalg.norm(apart, axis=1)
                contact = INNER_RADIUS[a] + INNER_RADIUS[b]
                unit = apart / np.maximum(gap, 1e-12)[:, None]
                direction = np.where(gap[:, None] > 1e-9, unit, UP)  # coincident centres: one goes up
                push = np.where(overlap, (contact - gap) / 2, 0.0)[:, None] * direction
                position(rows, a)[:] += push  # the layout's slices are views of ``rows``
                position(rows, b)[:] -= push
                moved = True
    for item in OBJECTS:
        sunk = sunk_into_basket(rows, item)
        if sunk.any():
            floor = position(rows, "basket")[sunk, 2] + BASKET_FLOOR
            position(rows, item)[sunk, 2] = floor + INNER_RADIUS[item]
            moved = True
        sunk = sunk_into_floor(rows, item)
        if sunk.any():
            position(rows, item)[sunk, 2] = INNER_RADIUS[item]
            moved = True
    return moved


def _onto_floor_area(rows: np.ndarray) -> None:
    """Every item's and the basket's origin clipped into the checkers' floor area (in place)."""
    for name in ENTITIES:
        np.clip(position(rows, name), ORIGIN_MIN, ORIGIN_MAX, out=position(rows, name))


def _sideways(rows: np.ndarray, item: str) -> np.ndarray:
    return np.linalg.norm(position(rows, item)[:, :2] - position(rows, "eef")[:, :2], axis=-1)


def keep_untouched(prev: np.ndarray, rows: np.ndarray) -> None:
    """Every body out of the hand's reach before and after the step put back where it was
    (in place; see the module's docstring)."""
    for name, reach in UNTOUCHED.items():
        still = (_sideways(prev, name) > reach) & (_sideways(rows, name) > reach)
        position(rows, name)[still] = position(prev, name)[still]
        quaternion(rows, name)[still] = quaternion(prev, name)[still]


def resting_height(rows: np.ndarray, item: str, on_basket: np.ndarray | bool) -> np.ndarray:
    """The height of ``item``'s centre at rest in each row: on the floor, or where ``on_basket``
    on the basket's floor."""
    return REST_HEIGHT[item] + np.where(on_basket, position(rows, "basket")[..., 2] + BASKET_FLOOR, 0.0)


def settle(rows: np.ndarray) -> None:
    """Every item out of the hand and off its resting height put at it (in place; see the
    module's docstring)."""
    eef = position(rows, "eef")
    for item in OBJECTS:
        xyz = position(rows, item)
        rest = resting_height(rows, item, over_basket(rows, item))
        in_hand = (_sideways(rows, item) <= NEAR_EEF) & (xyz[:, 2] < eef[:, 2] + NEAR_EEF)
        off = ~in_hand & (np.abs(xyz[:, 2] - rest) > PENETRATION_TOLERANCE)
        xyz[off, 2] = rest[off]


def project_onto_scene(prev: np.ndarray | None, states: np.ndarray) -> np.ndarray:
    """``(N, 44)`` predicted next states as states of the scene; ``prev``: the states each step
    started from (None: items out of reach are not kept still)."""
    projected = np.array(states, np.float32).reshape(-1, STATE_DIM)
    finite = np.isfinite(projected).all(axis=1)
    rows = projected[finite].astype(np.float64)
    rows[:, JOINTS] = np.clip(rows[:, JOINTS], JOINT_MIN, JOINT_MAX)
    rows[:, FINGERS] = np.clip(rows[:, FINGERS], FINGER_MIN, FINGER_MAX)
    eef = position(rows, "eef")
    eef[:, 2] = np.maximum(eef[:, 2], ORIGIN_MIN[2])
    offset = eef - ARM_BASE
    reach = np.linalg.norm(offset, axis=1, keepdims=True)
    eef[:] = np.where(reach > REACH, ARM_BASE + offset * (REACH / np.maximum(reach, 1e-12)), eef)
    _onto_floor_area(rows)
    if prev is not None:
        before = np.asarray(prev, np.float64).reshape(-1, STATE_DIM)[finite]
        keep_untouched(np.where(np.isfinite(before), before, rows), rows)
    settle(rows)
    for _ in range(ROUNDS):
        _onto_floor_area(rows)
        if not _separate(rows):
            break
    for name in ("eef",) + ENTITIES:
        quaternion(rows, name)[:] = unit_quaternions(quaternion(rows, name), IDENTITY)
    projected[finite] = rows.astype(np.float32)
    return projected
