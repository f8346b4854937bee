"""Draw a Meta-World scene with MuJoCo's offscreen renderer, from metaworld's ``corner``
camera (the table, the arm and the objects of every v3 scene are in view). That camera is
mounted upside down (its image y axis points down, ``xyaxes="-1 1 0 -0.2 -0.2 -1"``), so its
image is turned by 180 degrees: upright and not mirrored."""

from __future__ import annotations

import numpy as np

from ...core.render import RenderError, mujoco_image
from .sim import MetaWorldSimulator

HEIGHT, WIDTH = 240, 320
CAMERA = "corner"


def render(sim: MetaWorldSimulator) -> np.ndarray:
    """``(240, 320, 3)`` uint8: the scene of ``sim``'s current task. A state set from the 91
    numbers alone (imagined data) shows the gripper where the state puts it and the objects
    where the scene's last reset left them (see ``sim.py``); a stored ``sim_state`` is exact."""
    if sim.env is None:
        raise RenderError("the Meta-World simulator has no scene yet: reset it or set a task's state first")
    image = mujoco_image(sim, sim.env.model, sim.env.data, CAMERA, HEIGHT, WIDTH)
    return np.ascontiguousarray(image[::-1, ::-1])
