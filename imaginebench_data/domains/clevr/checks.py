"""CLEVR state checkers: illegal states by kind, and the distance used for transition error.

- ``off_table``: a ball centre beyond the walls (|x| or |y| > TABLE_HALF - radius + 0.02).
- ``overlap``: two balls whose centres are closer than ``2 * radius - OVERLAP_TOLERANCE``
  (MuJoCo's soft contacts leave a few millimetres of penetration; 2 cm is not physical).
- ``non_finite``: any NaN or infinity in the state.

Transition distance: the largest displacement, over the five balls, between the stored
next state and the one re-simulated from the stored (state, action). Tolerance 1 cm:
real data re-simulates exactly (the simulator is deterministic in the 10 numbers), so the
tolerance only has to absorb float32 rounding; a learned model has to land within 1 cm.
"""

from __future__ import annotations

import numpy as np

from .sim import BALL_RADIUS, N_BALLS, TABLE_HALF

ILLEGAL_KINDS = ("off_table", "overlap", "non_finite")
OFF_TABLE_LIMIT = TABLE_HALF - BALL_RADIUS + 0.02
OVERLAP_TOLERANCE = 0.02
TRANSITION_TOLERANCE = 0.01


def illegal(states: np.ndarray) -> np.ndarray:
    """(N, 3) bool: columns off_table, overlap, non_finite."""
    states = np.asarray(states, dtype=np.float64)
    non_finite = ~np.isfinite(states).all(axis=-1)
    centres = np.nan_to_num(states, nan=0.0, posinf=1e6, neginf=-1e6).reshape(-1, N_BALLS, 2)
    off_table = (np.abs(centres) > OFF_TABLE_LIMIT).any(axis=(-1, -2))
    gaps = np.linalg.norm(centres[:, :, None] - centres[:, None], axis=-1)
    pairs = np.triu_indices(N_BALLS, 1)
    overlap = (gaps[:, pairs[0], pairs[1]] < 2 * BALL_RADIUS - OVERLAP_TOLERANCE).any(axis=-1)
    return np.stack([off_table & ~non_finite, overlap & ~non_finite, non_finite], axis=-1)


def transition_distance(predicted: np.ndarray, stored: np.ndarray) -> np.ndarray:
    """(N,) largest ball displacement between two state batches; inf where either is non-finite."""
    delta = (np.asarray(predicted, np.float64) - np.asarray(stored, np.float64)).reshape(-1, N_BALLS, 2)
    distance = np.linalg.norm(delta, axis=-1).max(axis=-1)
    return np.where(np.isfinite(distance), distance, np.inf)
