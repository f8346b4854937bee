"""Which floating-point kernels a CPU process uses, so a checkpoint does not depend on the CPU.

Pinned threads and deterministic algorithms (``determinism.py``) make grounding repeat bit
for bit on one machine, not across machines. Three libraries inside torch pick their kernels
by the CPU they find:

- MKL, torch's BLAS, picks a code path per CPU. An Intel Xeon with AVX-512 and an AMD EPYC
  with AVX-512 get different matrix-product kernels, which round differently. CLEVR cards
  built in an earlier session on another machine could not be rebuilt on an AMD EPYC: the
  checkpoint hash and every imagined checksum differed, the real ones matched. MKL's
  conditional numerical reproducibility fixes the path with ``MKL_CBWR``. On non-Intel CPUs
  MKL accepts only ``COMPATIBLE`` (asked for the AVX2 path, it answers "unsupported
  branch"), so that is the one setting every x86 CPU shares.
- ATen, torch's own kernels (softmax, layer norm, reductions), vectorises with the widest
  instruction set present. ``ATEN_CPU_CAPABILITY=avx2`` gives a laptop without AVX-512 the
  same sums as a server with it.
- oneDNN computes torch's GELU, the activation of the MiniLM sentence encoder, so every
  instruction embedding the model is grounded on. On a CPU with AVX-512 it uses another
  approximation of erf (a minimax polynomial) than on AVX2 (Abramowitz and Stegun's, with an
  exponential). It is the difference found (2026-11-28) between an EPYC without AVX-512,
  which grounded CLEVR's default model to another checkpoint, and the EPYC with it that had
  built the cards committed until then. On the AVX2 machine ``ONEDNN_MAX_CPU_ISA=SSE41``
  moved the checkpoint too, where numpy's and MKL's own dispatch did not.
  ``ONEDNN_MAX_CPU_ISA=AVX2`` gives every x86 CPU with AVX2 the AVX2 code.

All three are read once, at torch's first operation in the process (oneDNN's at its first
primitive), so they cannot be switched for one function. A fourth library, numpy's
OpenBLAS, picks its kernels when numpy loads (``core/blas.py``); it made LIBERO's real
datasets depend on the CPU. ``portable`` numerics set all four. The ``imaginebench`` command
chooses them before torch does any work, and a build checks that it got them (a build of
real data checks OpenBLAS's alone). ``native`` leaves the CPU's own choice: grounding runs
1.85x to 2.6x faster (measured 2026-11-24 on a 2-core AMD EPYC: a training step of the
default model took 726 ms native and 1,349 ms portable; Meta-World's batches 0.87 s and
2.25 s), but its results depend on the CPU.
"""

from __future__ import annotations

import ctypes
import functools
import os
from pathlib import Path

from ..core.blas import PORTABLE_CORE, openblas_core

# torch is imported where it is used: recipes take MODES from here without loading it.
MODES = ("portable", "native")
PORTABLE_ENV = {"MKL_CBWR": "COMPATIBLE", "ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2",
                "OPENBLAS_CORETYPE": PORTABLE_CORE}
_MKL_COMPATIBLE = 3  # MKL_CBWR_COMPATIBLE in mkl_cbwr.h
_MKL_BRANCH = 1  # MKL_CBWR_BRANCH: ask mkl_cbwr_get for the code path
_MKL_NAMES = {1: "the CPU's own (MKL_CBWR unset)", 2: "AUTO", 3: "COMPATIBLE"}


class NumericsError(ValueError):
    """Portable numerics were asked for in a process that can no longer get them."""


@functools.cache
def _mkl_get():
    """MKL's ``mkl_cbwr_get`` from the libtorch that torch loaded, or None without MKL."""
    import torch

    library = Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"
    try:
        function = ctypes.CDLL(str(library)).mkl_serv_cbwr_get
    except (OSError, AttributeError):
        return None
    function.argtypes, function.restype = [ctypes.c_int], ctypes.c_int
    return function


def choose(mode: str) -> None:
    """Ask for ``mode`` in this process (and the processes it starts). Effective only before
    torch's first operation and numpy's import; ``require`` says whether it took."""
    if mode not in MODES:
        raise ValueError(f"numerics must be one of {MODES}, got {mode!r}")
    if mode == "portable":
        os.environ.update(PORTABLE_ENV)


def _kernels() -> tuple[int | None, str]:
    """MKL's code path in this process (None for a torch without MKL) and ATen's capability.

    Asking fixes ATen's choice: call it after ``choose``."""
    import torch

    get = _mkl_get()
    return (get(_MKL_BRANCH) if get else None), torch.backends.cpu.get_cpu_capability()


def _unpinned(torch: bool = True) -> list[str]:
    """What in this process computes with other kernels than portable numerics pin (empty if
    none); ``torch=False`` asks about numpy's OpenBLAS alone. A numpy on another BLAS passes."""
    found = []
    if torch:
        branch, aten = _kernels()
        if (branch, aten) != (_MKL_COMPATIBLE, "AVX2"):
            mkl = ("a torch without MKL" if branch is None
                   else f"MKL code path {_MKL_NAMES.get(branch, branch)}")
            found.append(f"{mkl}, ATen {aten}")
        # oneDNN cannot be asked what it chose: its limit is read from the environment at its
        # first primitive, which comes after torch's first operation (checked above)
        onednn = os.environ.get("ONEDNN_MAX_CPU_ISA", "")
        if onednn.upper() != PORTABLE_ENV["ONEDNN_MAX_CPU_ISA"]:
            found.append(f"oneDNN's {'kernels up to ' + onednn if onednn else 'own kernels for this CPU'}")
    core = openblas_core()
    if core not in (None, PORTABLE_CORE):
        found.append(f"numpy's OpenBLAS {core} kernels")
    return found


def current() -> str:
    """``portable`` if MKL, ATen, oneDNN and numpy's OpenBLAS use the pinned kernels in this process,
    else ``native``."""
    return "native" if _unpinned() else "portable"


def on_device(device) -> str:
    """The numerics of work on ``device``: ``current()`` on a CPU; ``native`` on a GPU, whose
    kernels are its own whatever the CPU does."""
    import torch

    return current() if torch.device(device).type == "cpu" else "native"


def require(mode: str, what: str, torch: bool = True) -> str:
    """Check that this process computes in ``mode`` for ``what`` (a dataset id); return the mode
    it has. ``native`` accepts either: it promises nothing across CPUs. ``torch=False`` (real
    data, rolled out by numpy alone) checks numpy's OpenBLAS only."""
    if mode not in MODES:
        raise ValueError(f"{what}: numerics must be one of {MODES}, got {mode!r}")
    found = _unpinned(torch)
    if mode == "portable" and found:
        in_torch = ", ".join(f"{key}={value}" for key, value in PORTABLE_ENV.items()
                             if key != "OPENBLAS_CORETYPE")
        expected = f"{in_torch}, set before torch's first operation, and " if torch else ""
        raise NumericsError(
            f"{what}: expected portable numerics ({expected}OPENBLAS_CORETYPE={PORTABLE_CORE}, set before "
            f"numpy is imported), found {'; '.join(found)}. The imaginebench command sets them where the "
            "environment does not name others; in Python, import imaginebench_data before numpy and call "
            "imaginebench_data.imagine.numerics.choose('portable') before using torch, or build with "
            "numerics='native' (its checksums then depend on this CPU)")
    return "native" if found else "portable"
