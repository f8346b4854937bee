"""What must be pinned for grounding and imagining to give the same bits on every run.

Seeds alone are not enough. A CPU matrix product splits its sums over the intra-op threads,
and the split changes the last bits of the result. Greedy decoding then amplifies those bits
into different rollouts. By default torch uses one thread per core, so the same seed gave
another checkpoint hash on a machine with another core count. So grounding and imagining run
under ``pinned()``:

- ``COMPUTE_THREADS`` intra-op threads, whatever the machine has. It is 2, the core count of
  the machine the committed cards were built on, so their checkpoint hashes did not change;
- torch's deterministic algorithms (``warn_only``: an op without a deterministic kernel
  warns rather than fails, which only happens on GPUs);
- cuBLAS's fixed workspace, where a GPU is used.

The data order is seeded separately (``TrainSettings.seed``). The test in
``tests/test_reproducible.py`` grounds and imagines twice, in separate processes with
different thread settings and worker counts, and compares the hashes and arrays.
"""

from __future__ import annotations

import contextlib
import os

import torch

COMPUTE_THREADS = 2


class intra_op_threads(contextlib.ContextDecorator):  # noqa: N801 - used as a decorator, like a function
    """Within: ``count`` intra-op threads, whatever the machine has; the count before restored on exit."""

    def __init__(self, count: int):
        self.count = count

    def __enter__(self) -> intra_op_threads:
        self._before = torch.get_num_threads()
        torch.set_num_threads(self.count)
        return self

    def __exit__(self, *exc) -> None:
        torch.set_num_threads(self._before)


class pinned(contextlib.ContextDecorator):  # noqa: N801 - used as a decorator, like a function
    """Within: ``COMPUTE_THREADS`` threads and deterministic algorithms; restored on exit."""

    def __enter__(self) -> pinned:
        self._threads = intra_op_threads(COMPUTE_THREADS).__enter__()
        self._deterministic = torch.are_deterministic_algorithms_enabled()
        self._warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True, warn_only=True)
        return self

    def __exit__(self, *exc) -> None:
        self._threads.__exit__(*exc)
        torch.use_deterministic_algorithms(self._deterministic, warn_only=self._warn_only)
