"""The HalfCheetah state: the original's 18 numbers, then 4 counters that carry the history.

Index ranges (metres, radians, seconds of simulated time; gymnasium HalfCheetah-v5)::

    0       dx      x displacement of the root during the last step (0 in a reset state)
    1       rootz   torso height relative to its initial height       (qpos[1])
    2       rooty   torso pitch                                        (qpos[2])
    3-8     joints  bthigh, bshin, bfoot, fthigh, fshin, ffoot angles  (qpos[3:9])
    9-17    qvel    root x/z/pitch velocity, then the 6 joint velocities (qvel[0:9])
    18      x       x displacement since the reset (the sum of dx)
    19      t       time since the reset, s (0.05 per step: steps = t / 0.05)
    20      peak    the largest x so far (>= 0)
    21      trough  the smallest x so far (<= 0)

0-17 are the original's state (Δx, then the usual 17 observations). The original's success
tests read the history of an episode (the sum of Δx, the step count); 18-21 carry exactly that
history, so every predicate is a function of one transition and the order of the staged
tasks (forward, then back) can be checked: ``peak`` only grows, so having come back from a
peak means having been there first. The counters are bookkeeping of 0-17, never imagined: a
generator's next state keeps its 18 physics numbers and gets its counters moved on by its
``dx`` (``decode``), so imagined success is judged, as the original's was, on the sum of the
imagined displacements. Absolute x is never in the state: it does not change the dynamics
(the floor is an infinite plane).
"""

from __future__ import annotations

import numpy as np

STATE_DIM = 22
ORIGINAL_DIM = 18
DT = 0.05  # seconds per env step (frame skip 5 x 0.01 s)
DX, ROOTZ, ROOTY = 0, 1, 2
JOINTS = slice(3, 9)
QPOS = slice(1, 9)      # qpos[1:9]
QVEL = slice(9, 18)     # qvel[0:9]
X, TIME, PEAK, TROUGH = 18, 19, 20, 21
JOINT_NAMES = ("bthigh", "bshin", "bfoot", "fthigh", "fshin", "ffoot")


def compose(dx: np.ndarray, qpos_tail: np.ndarray, qvel: np.ndarray, x: np.ndarray, time: np.ndarray,
            peak: np.ndarray, trough: np.ndarray) -> np.ndarray:
    """(N, 22) float32 states from their parts: ``dx``, ``x``, ``time`` (s), ``peak``, ``trough``
    (N,), ``qpos_tail`` = qpos[1:9] (N, 8), ``qvel`` (N, 9)."""
    columns = [np.asarray(dx)[:, None], qpos_tail, qvel, np.stack([x, time, peak, trough], -1)]
    return np.concatenate(columns, axis=-1).astype(np.float32)


def advance(prev: np.ndarray, dx: np.ndarray, qpos_tail: np.ndarray, qvel: np.ndarray) -> np.ndarray:
    """(N, 22) next states: the physics of the step (``dx``, ``qpos_tail``, ``qvel``) and the
    counters of ``prev`` (N, 22) moved on by it."""
    prev = np.asarray(prev, np.float64)
    x = prev[:, X] + dx
    return compose(dx, qpos_tail, qvel, x, prev[:, TIME] + DT,
                   np.maximum(prev[:, PEAK], x), np.minimum(prev[:, TROUGH], x))


def from_original(states: np.ndarray) -> np.ndarray:
    """(T+1, 22) states of one episode from the original's (T+1, 18) ones (an importer's step):
    the reset row's first number (the original's absolute x) becomes 0 and the counters are
    recomputed from the step displacements."""
    states = np.asarray(states, np.float64)
    if states.ndim != 2 or states.shape[1] != ORIGINAL_DIM:
        raise ValueError(f"expected one episode of ({ORIGINAL_DIM},) original states, "
                         f"got shape {states.shape}")
    dx = np.concatenate([[0.0], states[1:, DX]])
    x = np.cumsum(dx)
    return compose(dx, states[:, QPOS], states[:, QVEL], x, DT * np.arange(len(states), dtype=np.float64),
                   np.maximum.accumulate(np.maximum(x, 0.0)), np.minimum.accumulate(np.minimum(x, 0.0)))


def steps(states: np.ndarray) -> np.ndarray:
    """(N,) float: the time of each state as a count of steps (an integer in every real state)."""
    return np.asarray(states, np.float64)[..., TIME] / DT


def decode(prev: np.ndarray, states: np.ndarray) -> np.ndarray:
    """A generator's regressed next states as dataset states: its 18 physics numbers as they
    are, the counters moved on from ``prev`` by its ``dx`` (bookkeeping, never imagined)."""
    states = np.asarray(states, np.float64).reshape(-1, STATE_DIM)
    return advance(np.asarray(prev, np.float64).reshape(-1, STATE_DIM), states[:, DX], states[:, QPOS],
                   states[:, QVEL])
