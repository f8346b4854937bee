"""LIBERO success conditions on the 44-number state, vectorised over ``(N, 44)`` batches.

A task's goal is a list of *conditions* (plain JSON, stored as the task's ``goal``); it
succeeds when all hold at once on the post-step state. Kinds (metres; "xy" = distance in
the floor plane, "z" = height difference of the body origins):

- ``near_eef``        |item - end effector| < threshold (0.05; the original's pick and reach)
- ``lifted``          item z > its rest height + height (0.02): held off the floor
- ``in_basket``       xy(item, basket) < 0.14 and |z(item) - z(basket)| < 0.155 (0.22 for
                      the tall salad dressing), as the original's place; its sequential and
                      all tasks latch "placed" at |z| < 0.22 for every item, here they use
                      this test
- ``next_to``         xy(item, other) < 0.10 and |z(item) - z(other)| < 0.22
- ``away_from_start`` xy(item, centre of its start region) > 0.10. The original's aside is
                      "3-D distance from where it started > 0.07", but the state does not
                      hold the start; every start lies within 0.036 of its region's centre,
                      so this never holds for an item within 0.064 m of its start (in the
                      floor plane), always beyond 0.136 m, and in between depending on where
                      it started and which way it went (not the same test)
- ``on_floor``        item z < its rest height + 0.02 (let go, standing or lying on the floor)
- ``far_from_basket`` |item - basket| > threshold, over ``dims`` axes (3: the original's
                      out-of-basket 0.45; 2: aside keeps clear of the basket, 0.14)

``shortfall`` is how far a condition is from holding (0 when it holds): the shaped reward's
distance. The original's pick ("near the hand and moved more than 1e-4 m since the last
step") is here near the hand and lifted 2 cm: a pushed item also moves, a held one may not.
"""

from __future__ import annotations

import numpy as np

from .layout import REST_HEIGHT, position, region_centre

NEAR_EEF = 0.05
LIFT_HEIGHT = 0.02
BASKET_XY = 0.14
BASKET_Z = 0.155
BASKET_Z_TALL = 0.22  # salad dressing (the original's exception)
NEXT_TO_XY = 0.10
NEXT_TO_Z = 0.22
AWAY_FROM_START = 0.10
FLOOR_MARGIN = 0.02
OUT_OF_BASKET = 0.45
CLEAR_OF_BASKET = 0.14


def near_eef(item: str, threshold: float = NEAR_EEF) -> dict:
    return {"kind": "near_eef", "item": item, "threshold": threshold}


def lifted(item: str, height: float = LIFT_HEIGHT) -> dict:
    return {"kind": "lifted", "item": item, "height": height}


def in_basket(item: str) -> dict:
    z = BASKET_Z_TALL if item == "salad_dressing" else BASKET_Z
    return {"kind": "in_basket", "item": item, "xy": BASKET_XY, "z": z}


def next_to(item: str, other: str) -> dict:
    return {"kind": "next_to", "item": item, "other": other, "xy": NEXT_TO_XY, "z": NEXT_TO_Z}


def away_from_start(item: str, distance: float = AWAY_FROM_START) -> dict:
    return {"kind": "away_from_start", "item": item, "distance": distance}


def on_floor(item: str, margin: float = FLOOR_MARGIN) -> dict:
    return {"kind": "on_floor", "item": item, "margin": margin}


def far_from_basket(item: str, threshold: float, dims: int) -> dict:
    return {"kind": "far_from_basket", "item": item, "threshold": threshold, "dims": dims}


def _xy(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.linalg.norm(a[:, :2] - b[:, :2], axis=-1)


def _bounds(states: np.ndarray, condition: dict) -> list[tuple[np.ndarray, float, bool]]:
    """The condition as (value (N,), limit, below) triples: each holds when value < limit
    (below) or value > limit (not below)."""
    kind, item = condition["kind"], condition["item"]
    xyz = position(states, item)
    if kind == "near_eef":
        return [(np.linalg.norm(xyz - position(states, "eef"), axis=-1), condition["threshold"], True)]
    if kind == "lifted":
        return [(xyz[:, 2] - REST_HEIGHT[item], condition["height"], False)]
    if kind == "on_floor":
        return [(xyz[:, 2] - REST_HEIGHT[item], condition["margin"], True)]
    if kind in ("in_basket", "next_to"):
        other = position(states, "basket" if kind == "in_basket" else condition["other"])
        return [(_xy(xyz, other), condition["xy"], True),
                (np.abs(xyz[:, 2] - other[:, 2]), condition["z"], True)]
    if kind == "away_from_start":
        centre = np.broadcast_to(region_centre(item), (len(states), 2))
        return [(_xy(xyz, centre), condition["distance"], False)]
    if kind == "far_from_basket":
        dims = condition["dims"]
        gap = np.linalg.norm(xyz[:, :dims] - position(states, "basket")[:, :dims], axis=-1)
        return [(gap, condition["threshold"], False)]
    raise ValueError(f"unknown LIBERO condition kind {kind!r} in {condition}")


def _batch(states: np.ndarray) -> np.ndarray:
    states = np.asarray(states, np.float64)
    return states.reshape(len(states), -1)


def holds(states: np.ndarray, condition: dict) -> np.ndarray:
    """(N,) bool: ``condition`` holds (strict inequalities, as the original's)."""
    held = np.ones(len(states), bool)
    with np.errstate(invalid="ignore"):
        for value, limit, below in _bounds(_batch(states), condition):
            held &= (value < limit) if below else (value > limit)
    return held


def shortfall(states: np.ndarray, condition: dict) -> np.ndarray:
    """(N,) metres by which ``condition`` misses holding (0 where it holds)."""
    return sum(np.maximum(value - limit if below else limit - value, 0.0)
               for value, limit, below in _bounds(_batch(states), condition))


def goal_reached(states: np.ndarray, conditions: list[dict]) -> np.ndarray:
    """(N,) bool: every condition holds; non-finite states never succeed."""
    states = _batch(states)
    reached = np.isfinite(states).all(axis=-1)
    for condition in conditions:
        reached &= holds(states, condition)
    return reached


def goal_distance(states: np.ndarray, conditions: list[dict]) -> np.ndarray:
    """(N,) summed shortfall of the conditions (metres)."""
    states = _batch(states)
    return sum(shortfall(states, condition) for condition in conditions)
