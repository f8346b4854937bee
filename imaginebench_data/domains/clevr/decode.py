"""The generator's correction of a predicted CLEVR state: projected onto the table.

A regressed state can put a ball beyond the walls or two balls into each other, states the
simulator never holds (``checks.illegal``). The projection clips every centre inside the walls
and pushes each overlapping pair apart along the line joining their centres, half each way,
until they touch, repeated until no pair overlaps (a few rounds; a ball pushed into a wall is
clipped again). Balls that do not overlap and are on the table are left where the model put
them. Rows with a non-finite number are left as they are, for the checkers to flag.
"""

from __future__ import annotations

import numpy as np

from .sim import BALL_RADIUS, N_BALLS, TABLE_HALF

LIMIT = TABLE_HALF - BALL_RADIUS  # furthest a centre may be from the table's middle, per axis
CONTACT = 2 * BALL_RADIUS         # distance between the centres of two touching balls
ROUNDS = 64
_SLACK = 1e-6                     # a pair this close to touching counts as touching
_TIE = np.array([1.0, 0.0])       # the direction coincident centres are pushed apart in


def project_onto_table(prev: np.ndarray, states: np.ndarray) -> np.ndarray:
    """``(N, 10)`` predicted states as legal table states (``prev``, the states each step started
    from, is not needed: the projection looks at the predicted state alone)."""
    states = np.asarray(states, np.float32).reshape(-1, 2 * N_BALLS)
    finite = np.isfinite(states).all(axis=1)
    centres = states[finite].astype(np.float64).reshape(-1, N_BALLS, 2)
    others = ~np.eye(N_BALLS, dtype=bool)
    for _ in range(ROUNDS):
        centres = np.clip(centres, -LIMIT, LIMIT)
        apart = centres[:, :, None] - centres[:, None]                  # (N, i, j, 2): i - j
        gap = np.linalg.norm(apart, axis=-1)
        overlap = others & (gap < CONTACT - _SLACK)
        if not overlap.any():
            break
        sign = np.where(np.arange(N_BALLS)[:, None] < np.arange(N_BALLS), 1.0, -1.0)[..., None]
        direction = np.where(gap[..., None] > 0, apart / np.maximum(gap, 1e-12)[..., None], sign * _TIE)
        push = np.where(overlap, (CONTACT - gap) / 2, 0.0)[..., None] * direction
        centres = centres + push.sum(axis=2)
    projected = states.copy()
    projected[finite] = centres.reshape(-1, 2 * N_BALLS).astype(np.float32)
    return projected
