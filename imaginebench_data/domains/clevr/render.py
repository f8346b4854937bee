"""Draw the CLEVR table from above with MuJoCo's offscreen renderer: +x right, +y up, as
``draw.py`` plots it."""

from __future__ import annotations

import mujoco
import numpy as np

from ...core.render import mujoco_image
from .sim import ClevrSimulator

HEIGHT = WIDTH = 256


def _camera() -> mujoco.MjvCamera:
    camera = mujoco.MjvCamera()
    camera.type = mujoco.mjtCamera.mjCAMERA_FREE
    camera.lookat[:] = (0.0, 0.0, 0.0)
    camera.distance = 2.9
    camera.azimuth = 90.0  # looking along +y, so +x is to the right
    camera.elevation = -90.0
    return camera


def render(sim: ClevrSimulator) -> np.ndarray:
    """``(256, 256, 3)`` uint8: the five balls (red, blue, green, purple, cyan) on the table
    at ``sim``'s state; the pusher waits off the table between pushes."""
    sim.place(sim.state)  # the live MuJoCo data follows the 10 numbers (set_state keeps only them)
    return mujoco_image(sim, sim.model, sim.data, _camera(), HEIGHT, WIDTH)
