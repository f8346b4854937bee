"""Reading the original's pickled ``.npy`` dicts (the data files that have no HDF5 file).

Each file is one dict: ``observations`` (N, T, D_state; no encoding, which the original
adds at load time), ``actions``, ``rewards``, ``masks``, ``instructions`` (N lists of
strings), and in some files ``next_observations``, ``terminals`` and ``task_str``. The dict
is unpickled with ``unpickle.SafeUnpickler``: only numpy arrays, lists, dicts, strings
and numbers can come out of it, none larger than the file could hold, and all of them together
within the file's memory budget (``limits``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .limits import Budget
from .names import Target
from .original import (
    OPTIONAL_KEYS,
    REQUIRED_KEYS,
    STATE_KEYS,
    OriginalFile,
    OriginalFileError,
    first_encodings,
    numeric,
    state_columns,
    take_annotations,
)
from .unpickle import load_pickled_npy


def read_pickled(path: Path, target: Target) -> OriginalFile:
    """Read a pickled ``.npy`` data file (see module docstring)."""
    budget = Budget(path.name)
    content = load_pickled_npy(path, budget)
    original = OriginalFile(path.name, "pickled-npy", [path], target, {}, 0)
    take_annotations(original, path.name, content, budget)
    for key in REQUIRED_KEYS + OPTIONAL_KEYS:
        if key not in content:
            continue
        array = numeric(path.name, key, content[key], budget)
        if key in STATE_KEYS:
            if array.ndim != 3:
                raise OriginalFileError(f"{path.name}: key {key!r} has shape {array.shape}; "
                                        "expected (N, T, D)")
            original.stored_width = array.shape[2]
            if key == "observations":
                original.encodings = first_encodings(array, target.state_dim)
            array = array[:, :, :state_columns(path.name, key, array.shape[2], target.state_dim)]
            budget.take(key, array.size * 4, f"its states {array.shape} as float32")
            array = np.ascontiguousarray(array, dtype=np.float32)
        original.arrays[key] = array
    return original
