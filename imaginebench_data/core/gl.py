"""Which OpenGL backend MuJoCo renders with, chosen before ``mujoco`` is first imported.

MuJoCo reads ``MUJOCO_GL`` once, when ``mujoco`` is imported, and without it tries GLFW, which
needs a display. On a headless machine without a GPU the software backend OSMesa
(``libosmesa6``) is what works, so the package sets ``MUJOCO_GL=osmesa`` then, and only then:
the user has not set ``MUJOCO_GL``, no display (``DISPLAY``/``WAYLAND_DISPLAY``) and no GPU
(``/dev/nvidia*``, ``/dev/dri/renderD*``) is present, libOSMesa can be found, and
``PYOPENGL_PLATFORM`` is unset or ``osmesa`` (MuJoCo refuses OSMesa otherwise). A machine
with a GPU and no display should set ``MUJOCO_GL=egl`` itself.

Setting it is harmless where nothing renders: ``import mujoco`` loads the backend but opens no
context. Setting it where libOSMesa is missing would make ``import mujoco`` fail, hence the
check.
"""

from __future__ import annotations

import ctypes.util
import glob
import os
import sys
from collections.abc import Mapping


def gpu_present() -> bool:
    """Whether a GPU device node exists (NVIDIA's, or a DRM render node)."""
    return bool(glob.glob("/dev/nvidia[0-9]*") or glob.glob("/dev/dri/renderD*"))


def osmesa_found() -> bool:
    """Whether the dynamic loader can find libOSMesa."""
    return ctypes.util.find_library("OSMesa") is not None


def default_mujoco_gl(environ: Mapping[str, str], *, gpu: bool, osmesa: bool) -> str | None:
    """The ``MUJOCO_GL`` value to set, or None to leave the environment as it is (see the
    module docstring for the rule)."""
    if "MUJOCO_GL" in environ or environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"):
        return None
    if gpu or not osmesa:
        return None
    if environ.get("PYOPENGL_PLATFORM", "osmesa").lower() != "osmesa":
        return None
    return "osmesa"


def choose_mujoco_gl() -> None:
    """Set ``MUJOCO_GL`` in this process's environment where ``default_mujoco_gl`` says so
    (nothing once ``mujoco`` is imported: it would no longer be read)."""
    if "mujoco" in sys.modules:
        return
    value = default_mujoco_gl(os.environ, gpu=gpu_present(), osmesa=osmesa_found())
    if value is not None:
        os.environ["MUJOCO_GL"] = value
