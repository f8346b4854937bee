"""Draw the cheetah with MuJoCo's offscreen renderer, from the model's own ``track`` camera
(it follows the torso, so the chequered floor shows the motion)."""

from __future__ import annotations

import numpy as np

from ...core.render import mujoco_image
from .sim import HalfCheetahSimulator

HEIGHT, WIDTH = 240, 320
CAMERA = "track"


def render(sim: HalfCheetahSimulator) -> np.ndarray:
    """``(240, 320, 3)`` uint8: the cheetah at ``sim``'s state, absolute x = the displacement
    since the reset for a state set from the 22 numbers."""
    return mujoco_image(sim, sim.model, sim.data, CAMERA, HEIGHT, WIDTH)
