"""Which kernels numpy's OpenBLAS uses, chosen before ``numpy`` is first imported.

numpy's bundled OpenBLAS picks its kernels by the CPU it finds, and they round differently:
``np.linalg.norm`` of a vector, ``@`` and ``np.dot`` go through them. LIBERO's expert and
simulator use them, so its real datasets depended on the CPU. Measured 2026-11-25 on a 2-core
AMD EPYC (AVX-512), where OpenBLAS picks its Haswell (AVX2) kernels: ``libero-train-real-v0``
built to another checksum than the card committed from an Intel Xeon, and to that card's
checksum exactly (``7c6b8fcc…``) with ``OPENBLAS_CORETYPE=SkylakeX``, the Xeon's own choice.
CLEVR, BabyAI, Meta-World and HalfCheetah built the same bytes on both CPUs.

OpenBLAS reads ``OPENBLAS_CORETYPE`` once, when numpy loads it, so the package sets it to
``Haswell`` on import (like ``MUJOCO_GL`` in ``gl.py``), and only then: on an x86-64 machine,
numpy not loaded yet, and the variable not set by the user. Haswell's AVX2 kernels run on every
x86 CPU of the last ten years, as ATen's AVX2 kernels do (``imagine/numerics.py``); on an
older one, set ``OPENBLAS_CORETYPE`` yourself and build with ``--numerics native``. A build
checks what it got (``numerics.require``).
"""

from __future__ import annotations

import os
import platform
import sys

PORTABLE_CORE = "Haswell"


def pin_openblas() -> None:
    """Ask numpy's OpenBLAS for its portable kernels on x86-64, if numpy is not loaded and nobody
    chose."""
    if platform.machine().lower() in ("x86_64", "amd64") and "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_CORETYPE", PORTABLE_CORE)


def openblas_core() -> str | None:
    """The kernels numpy's OpenBLAS runs in this process (e.g. "Haswell", "SkylakeX"), or None
    for a numpy built on another BLAS."""
    import numpy  # noqa: F401  (threadpoolctl finds only libraries already loaded)
    from threadpoolctl import threadpool_info

    cores = [info.get("architecture") for info in threadpool_info()
             if info.get("internal_api") == "openblas" and "numpy" in info.get("filepath", "")]
    return cores[0] if cores else None
