"""CLEVR success predicates and progress counts, vectorised over batches of states.

States have shape ``(N, 10)``: ``(x, y)`` of the balls red, blue, green, purple, cyan.
Axis convention (the original's): BEHIND = +y, LEFT = -x, FRONT = -y, RIGHT = +x.
"A is <relation> B" holds when the angle of ``A - B`` lies in the relation's 90-degree
sector and the centres are closer than ``RELATION_MAX_DISTANCE``.
"""

from __future__ import annotations

import numpy as np

from .sim import BALL_RADIUS, N_BALLS

RELATIONS = ("behind", "left", "front", "right")
# Half-open sectors [low, high) of the angle of (A - B), degrees in [0, 360).
RELATION_SECTORS = {"behind": (45.0, 135.0), "left": (135.0, 225.0), "front": (225.0, 315.0)}
RELATION_UNIT = {
    "behind": np.array([0.0, 1.0]),
    "left": np.array([-1.0, 0.0]),
    "front": np.array([0.0, -1.0]),
    "right": np.array([1.0, 0.0]),
}
RELATION_MAX_DISTANCE = 3 * BALL_RADIUS + 1e-3  # the original's 0.39 with its 1e-3 slack
ONE_PUSH_MIN_SHIFT = 0.04  # easy level: the ball moves at least this far along the direction
LINE_MAX_ANGLE_DEG = 30.0  # hard "line": each consecutive pair within 30 degrees of +x
GATHER_RADIUS = 2.5 * BALL_RADIUS  # hard "gather": every other ball within 0.325 of green
GREEN = 2


def ball_xy(states: np.ndarray, ball: int) -> np.ndarray:
    """(N, 2) centres of ``ball`` in a batch of states."""
    return np.asarray(states)[..., 2 * ball : 2 * ball + 2]


def relation_angle(states: np.ndarray, src: int, dst: int) -> np.ndarray:
    """Angle in degrees, in [0, 360), of the vector from ``dst`` to ``src``."""
    delta = ball_xy(states, src) - ball_xy(states, dst)
    return np.degrees(np.arctan2(delta[..., 1], delta[..., 0])) % 360.0


def relation_holds(states: np.ndarray, src: int, dst: int, relation: str) -> np.ndarray:
    """(N,) bool: ball ``src`` is ``relation`` ball ``dst``, and close to it."""
    angle = relation_angle(states, src, dst)
    if relation == "right":
        in_sector = (angle >= 315.0) | (angle < 45.0)
    else:
        low, high = RELATION_SECTORS[relation]
        in_sector = (angle >= low) & (angle < high)
    distance = np.linalg.norm(ball_xy(states, src) - ball_xy(states, dst), axis=-1)
    return in_sector & (distance < RELATION_MAX_DISTANCE)


def relations_held(states: np.ndarray, relations: list[list]) -> np.ndarray:
    """(N,) int: how many of ``relations`` ([src, dst, relation] triples) hold."""
    held = [relation_holds(states, src, dst, rel) for src, dst, rel in relations]
    return np.sum(held, axis=0).astype(np.int64)


def shift_along(prev: np.ndarray, states: np.ndarray, ball: int, relation: str) -> np.ndarray:
    """(N,) displacement of ``ball`` between two states, projected on the relation's axis."""
    return (ball_xy(states, ball) - ball_xy(prev, ball)) @ RELATION_UNIT[relation]


def line_pairs_aligned(states: np.ndarray) -> np.ndarray:
    """(N,) int: consecutive colour pairs (red-blue, ..., purple-cyan) heading within 30 deg of +x."""
    centres = np.asarray(states).reshape(*np.shape(states)[:-1], N_BALLS, 2)
    steps = np.diff(centres, axis=-2)
    norms = np.linalg.norm(steps, axis=-1)
    cosines = steps[..., 0] / np.maximum(norms, 1e-9)
    return np.sum(cosines >= np.cos(np.radians(LINE_MAX_ANGLE_DEG)), axis=-1).astype(np.int64)


def balls_gathered(states: np.ndarray) -> np.ndarray:
    """(N,) int: how many of the four non-green balls lie within GATHER_RADIUS of green."""
    centres = np.asarray(states).reshape(*np.shape(states)[:-1], N_BALLS, 2)
    distances = np.linalg.norm(centres - centres[..., GREEN : GREEN + 1, :], axis=-1)
    others = np.delete(distances, GREEN, axis=-1)
    return np.sum(others < GATHER_RADIUS, axis=-1).astype(np.int64)
