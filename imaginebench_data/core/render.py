"""Drawing states: what every domain's ``render`` hook shares.

A domain's ``render(sim)`` draws what its simulator shows now as an ``(H, W, 3)`` uint8 RGB
image (the size is the domain's, the same for every state). ``draw_state`` first puts the
simulator in any stored state, real or imagined (``Simulator.set_state``: exact from a stored
``sim_state``, rebuilt from the dataset state otherwise), so a state that never came from the
simulator is drawn the same way.

MuJoCo domains render offscreen with ``mujoco.Renderer`` (``mujoco_image``), one renderer per
simulator and model, kept on the simulator. The OpenGL backend is ``MUJOCO_GL``
(``core/gl.py``: on a headless machine EGL with a GPU, OSMesa without).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .simulator import Simulator
from .task import Task


class RenderError(RuntimeError):
    """A state cannot be drawn: the domain has no renderer, MuJoCo has no OpenGL backend, or the
    scene is unknown (an imported episode of an unresolved task, where the scene depends on it)."""


def mujoco_image(sim: Simulator, model: Any, data: Any, camera: Any, height: int, width: int) -> np.ndarray:
    """``(height, width, 3)`` uint8: ``model``/``data`` seen from ``camera`` (a camera name or
    a ``mujoco.MjvCamera``), rendered offscreen by a renderer cached on ``sim``."""
    import mujoco

    renderers = sim.__dict__.setdefault("_renderers", {})
    key = (id(model), height, width)
    if key not in renderers:
        try:
            renderers[key] = mujoco.Renderer(model, height, width)
        except Exception as error:  # the backend's own errors vary (GLFW, EGL, OSMesa, PyOpenGL)
            raise RenderError(f"MuJoCo cannot render offscreen: {type(error).__name__}: {error}. "
                              f"{backend_hint()}") from error
    renderer = renderers[key]
    renderer.update_scene(data, camera=camera)
    return renderer.render().copy()


def close_renderers(sim: Simulator | None) -> None:
    """Free the OpenGL contexts of the renderers cached on ``sim`` (if any)."""
    for renderer in (sim.__dict__.pop("_renderers", {}) if sim is not None else {}).values():
        renderer.close()


def backend_hint() -> str:
    """What to do about a missing OpenGL backend, naming the one in use."""
    import os

    return (f"MUJOCO_GL is {os.environ.get('MUJOCO_GL', 'unset (GLFW, which needs a display)')}; "
            "without a display use MUJOCO_GL=osmesa (apt-get install libosmesa6) or, with a GPU, "
            "MUJOCO_GL=egl, set before mujoco is imported.")


@functools.lru_cache(maxsize=1)
def mujoco_rendering_problem() -> str | None:
    """None when MuJoCo renders offscreen in this process; otherwise why not (one line).
    Tried once, on a one-body model."""
    import mujoco

    model = mujoco.MjModel.from_xml_string("<mujoco><worldbody><geom size='1'/></worldbody></mujoco>")
    try:
        renderer = mujoco.Renderer(model, 8, 8)
    except Exception as error:
        return f"{type(error).__name__}: {error}. {backend_hint()}"
    renderer.close()
    return None


def draw_state(domain: Any, sim: Simulator, task: Task | None, state: np.ndarray,
               sim_state: np.ndarray | None = None) -> np.ndarray:
    """``(H, W, 3)`` uint8: ``domain`` drawing ``state`` of ``task``'s scene, with ``sim`` put
    in that state first (exactly from ``sim_state`` when given)."""
    if domain.render is None:
        raise RenderError(f"domain {domain.name!r} has no renderer (its Domain.render is None)")
    sim.set_state(task, np.asarray(state, domain.state_space.dtype), sim_state)
    return domain.render(sim)
