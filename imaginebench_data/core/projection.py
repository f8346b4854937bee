"""Pieces the domains' projections of predicted states share (``Domain.decode_state``).

States are stored as float32, and a float32 bound can lie outside the float64 bound it rounds
(float32(-0.6) is below -0.6): a number clipped there would still fail a checker that reads
the bound in float64. ``inside_float32`` gives the nearest float32 bounds inside.
"""

from __future__ import annotations

import numpy as np


def inside_float32(low, high) -> tuple[np.ndarray, np.ndarray]:
    """The float32 bounds nearest to ``low``..``high`` that lie inside it."""
    low, high = np.asarray(low, np.float64), np.asarray(high, np.float64)
    low32, high32 = low.astype(np.float32), high.astype(np.float32)
    low32 = np.where(low32 < low, np.nextafter(low32, np.float32(np.inf)), low32)
    high32 = np.where(high32 > high, np.nextafter(high32, np.float32(-np.inf)), high32)
    return low32, high32


def unit_quaternions(quat: np.ndarray, identity: np.ndarray) -> np.ndarray:
    """``(N, 4)`` quaternions scaled to unit norm; a (near) zero one becomes ``identity``."""
    norm = np.linalg.norm(quat, axis=-1, keepdims=True)
    return np.where(norm > 1e-6, quat / np.maximum(norm, 1e-12), identity)
