"""Which OpenGL backend MuJoCo renders with, chosen before ``mujoco`` is first imported.

MuJoCo reads ``MUJOCO_GL`` once, when ``mujoco`` is imported, and without it tries GLFW, which
needs a display. So on a headless machine the package sets it, unless the user has (or a
display, ``DISPLAY``/``WAYLAND_DISPLAY``, is present):

- ``egl`` where a GPU is present (``/dev/nvidia*``, ``/dev/dri/renderD*``), libEGL can be
  found and ``PYOPENGL_PLATFORM`` is unset or ``egl``: the GPU renders. Seen on an H200
  machine without a display (2026-11-28): left unset, GLFW failed ("The DISPLAY environment
  variable is missing") and the cards had no episode picture;
- otherwise ``osmesa``, the software backend (``libosmesa6``), where libOSMesa can be found
  and ``PYOPENGL_PLATFORM`` is unset or ``osmesa`` (MuJoCo refuses OSMesa otherwise);
- otherwise nothing: setting a backend whose library is missing would make ``import mujoco``
  fail.

Setting it is harmless where nothing renders: ``import mujoco`` loads the backend but opens no
context.
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


def egl_found() -> bool:
    """Whether the dynamic loader can find libEGL."""
    return ctypes.util.find_library("EGL") is not None


def default_mujoco_gl(environ: Mapping[str, str], *, gpu: bool, osmesa: bool,
                      egl: bool) -> str | None:
    """The ``MUJOCO_GL`` value to set, or None to leave the environment as it is (see the
    module docstring for the rule)."""
    if "MUJOCO_GL" in environ or environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"):
        return None
    platform = environ.get("PYOPENGL_PLATFORM", "").lower()
    if gpu and egl and platform in ("", "egl"):
        return "egl"
    if osmesa and platform in ("", "osmesa"):
        return "osmesa"
    return None


def choose_mujoco_gl() -> None:
    """Set ``MUJOCO_GL`` in this process's environment where ``default_mujoco_gl`` says so
    (nothing once ``mujoco`` is imported: it would no longer be read)."""
    if "mujoco" in sys.modules:
        return
    gpu = gpu_present()
    # libEGL matters only with a GPU; a lookup that finds nothing costs about 36 ms per import.
    value = default_mujoco_gl(os.environ, gpu=gpu, osmesa=osmesa_found(), egl=gpu and egl_found())
    if value is not None:
        os.environ["MUJOCO_GL"] = value
