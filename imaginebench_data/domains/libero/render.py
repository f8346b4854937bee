"""Draw the LIBERO floor scene with MuJoCo's offscreen renderer, from robosuite's
``agentview`` camera (the view LIBERO's policies are trained on)."""

from __future__ import annotations

import numpy as np

from ...core.render import mujoco_image
from .sim import LiberoSimulator

HEIGHT, WIDTH = 240, 320
CAMERA = "agentview"


def render(sim: LiberoSimulator) -> np.ndarray:
    """``(240, 320, 3)`` uint8: the Panda, the items and the basket at ``sim``'s state (a state
    set from the 44 numbers alone is the approximate rebuild of ``sim.py``)."""
    return mujoco_image(sim, sim.model, sim.data, CAMERA, HEIGHT, WIDTH)
