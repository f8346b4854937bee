"""The generator's correction of a predicted Meta-World state: onto the arm's state space.

A regressed state can hold numbers the simulator never reports (``checks.illegal``): a
gripper opening outside [0, 1], a tool centre beyond the box the arm reaches, an entity's
quaternion off unit norm. The projection, applied to every predicted state:

- keeps the slots empty (all zero) in the state the step started from empty
  (``layout.decode``): a scene's entities are fixed by its task;
- clips the opening into [0, 1] and the tool centre into ``WORKSPACE_LOW..WORKSPACE_HIGH``;
- scales each present entity's quaternion to unit norm (a zero one becomes the identity).

Everything else (entity positions, the target location) is kept as regressed, and rows with a
non-finite number are left as they are, for the checkers to flag.
"""

from __future__ import annotations

import numpy as np

from ...core.projection import inside_float32, unit_quaternions
from .checks import WORKSPACE_HIGH, WORKSPACE_LOW
from .layout import ENTITIES, GRIPPER, IDENTITY, OPENING, decode, present, quaternion

HAND_LOW, HAND_HIGH = inside_float32(WORKSPACE_LOW, WORKSPACE_HIGH)


def project_onto_arm(prev: np.ndarray, states: np.ndarray) -> np.ndarray:
    """``(N, 91)`` predicted next states, ``prev`` the ``(N, 91)`` states each step started from."""
    projected = decode(prev, states)
    finite = np.isfinite(projected).all(axis=1)
    rows = projected[finite].astype(np.float64)
    rows[:, OPENING] = np.clip(rows[:, OPENING], 0.0, 1.0)
    rows[:, GRIPPER] = np.clip(rows[:, GRIPPER], HAND_LOW, HAND_HIGH)
    for entity in ENTITIES:
        quat, here = quaternion(rows, entity), present(rows, entity)  # quat: a view of ``rows``
        quat[here] = unit_quaternions(quat[here], IDENTITY)
    projected[finite] = rows.astype(np.float32)
    return projected
