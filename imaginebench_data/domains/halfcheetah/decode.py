"""The generator's correction of a predicted HalfCheetah state: onto the cheetah's state space.

A regressed state can hold numbers the simulator never reports (``checks.illegal``): a leg
joint bent far past its limit, a torso under the floor, a speed no rollout reaches. The
projection, applied to the 18 physics numbers of every predicted state before its counters are
moved on (``layout.decode``):

- clips each leg joint into its ``jnt_range`` widened by ``JOINT_OVERSHOOT``, the most the
  simulator was measured to pass it (MuJoCo's limits are soft);
- keeps the torso at or above ``LYING_FLAT``, the lowest height measured (lying on the floor);
- clips the velocities into ``SPEED_BOUND`` and the step's ``dx`` into what such a speed
  covers in one step.

The torso's pitch and everything else are kept as regressed, and rows with a non-finite number
are left as they are, for the checkers to flag.
"""

from __future__ import annotations

import numpy as np

from ...core.projection import inside_float32
from .checks import JOINT_OVERSHOOT, JOINT_RANGE, LYING_FLAT, MAX_STEP_DISPLACEMENT, SPEED_BOUND
from .layout import DX, JOINTS, QVEL, ROOTZ, STATE_DIM, decode

JOINT_MIN, JOINT_MAX = inside_float32(JOINT_RANGE[:, 0] - JOINT_OVERSHOOT,
                                      JOINT_RANGE[:, 1] + JOINT_OVERSHOOT)
SPEED_MIN, SPEED_MAX = inside_float32(-SPEED_BOUND, SPEED_BOUND)
DX_MIN, DX_MAX = inside_float32(-MAX_STEP_DISPLACEMENT, MAX_STEP_DISPLACEMENT)
FLOOR_MIN = inside_float32(LYING_FLAT, np.inf)[0]


def project_onto_cheetah(prev: np.ndarray, states: np.ndarray) -> np.ndarray:
    """``(N, 22)`` predicted next states, ``prev`` the ``(N, 22)`` states each step started from."""
    rows = np.asarray(states, np.float64).reshape(-1, STATE_DIM).copy()
    finite = np.isfinite(rows).all(axis=1)
    physics = rows[finite]
    physics[:, JOINTS] = np.clip(physics[:, JOINTS], JOINT_MIN, JOINT_MAX)
    physics[:, ROOTZ] = np.maximum(physics[:, ROOTZ], FLOOR_MIN)
    physics[:, QVEL] = np.clip(physics[:, QVEL], SPEED_MIN, SPEED_MAX)
    physics[:, DX] = np.clip(physics[:, DX], DX_MIN, DX_MAX)
    rows[finite] = physics
    return decode(prev, rows)
