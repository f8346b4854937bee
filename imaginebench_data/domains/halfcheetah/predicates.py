"""HalfCheetah success predicates, vectorised over ``(N, 22)`` post-step states.

Each reads only the counters of the state (see layout.py): ``x`` (m since the reset), the
time as ``steps`` (t / 0.05 s, rounded), ``peak`` and ``trough`` (the extremes of x so far).
The thresholds are the original's (ImagineBench ``Mujoco-v0``), with ``steps`` in place of its
step count t:

| predicate | holds when |
|---|---|
| ``went(+1, d, n)`` (run / jump forward) | x > d and steps >= n |
| ``went(-1, d, n)`` (run / jump backward) | x < -d and steps >= n |
| ``stayed(r, n)`` (jump in place) | abs(x) < r and steps >= n |
| ``went_and_returned(+1, d)`` (forward then backward) | peak > d and x < peak - d |
| ``went_and_returned(-1, d)`` (backward then forward) | trough < -d and x > trough + d |

``went_and_returned`` checks the order, which the original did not (it counted forward and
backward steps over a whole 200-step episode, in any order): the peak only grows, so being
``d`` behind the peak means the cheetah first got ``d`` ahead of the start and then came back
``d`` from its furthest point. Non-finite states never satisfy a predicate.
"""

from __future__ import annotations

import numpy as np

from .layout import PEAK, TROUGH, X, steps


def _columns(states: np.ndarray) -> tuple[np.ndarray, ...]:
    states = np.asarray(states, np.float64)
    return states[:, X], np.rint(steps(states)), states[:, PEAK], states[:, TROUGH]


def went(states: np.ndarray, direction: int, distance: float, min_steps: int) -> np.ndarray:
    """(N,) bool: more than ``distance`` m in ``direction`` (+1 forward, -1 backward) of the
    start after at least ``min_steps`` steps."""
    x, taken, _, _ = _columns(states)
    return (direction * x > distance) & (taken >= min_steps)


def stayed(states: np.ndarray, radius: float, min_steps: int) -> np.ndarray:
    """(N,) bool: within ``radius`` m of the start after at least ``min_steps`` steps."""
    x, taken, _, _ = _columns(states)
    return (np.abs(x) < radius) & (taken >= min_steps)


def first_stage_done(states: np.ndarray, direction: int, distance: float) -> np.ndarray:
    """(N,) bool: the cheetah has been more than ``distance`` m in ``direction`` of the start."""
    _, _, peak, trough = _columns(states)
    return (peak > distance) if direction > 0 else (trough < -distance)


def went_and_returned(states: np.ndarray, direction: int, distance: float) -> np.ndarray:
    """(N,) bool: first more than ``distance`` m in ``direction``, then back more than
    ``distance`` m from the furthest point reached."""
    x, _, peak, trough = _columns(states)
    back = (x < peak - distance) if direction > 0 else (x > trough + distance)
    return first_stage_done(states, direction, distance) & back
