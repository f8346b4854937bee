"""Reading the original's HDF5 files and their side ``.npy``.

An HDF5 file holds ``observations`` (N, T, D_state + 768), ``actions`` (N, T) or (N, T, A),
``rewards`` (N, T, 1) and ``masks`` (N, T, 1) or (N, T). Observations are read in blocks of
trajectories and cut to the state columns as they are read, so the 768-d encoding never
sits in memory whole. A side file (same stem, ``.npy``), where there is one, is a pickled
dict whose ``instructions`` and ``goals`` give each trajectory's text and goal vector.
"""

from __future__ import annotations

from pathlib import Path

import h5py
import numpy as np
from tqdm.auto import tqdm

from .names import Target
from .original import (
    OPTIONAL_KEYS,
    REQUIRED_KEYS,
    STATE_KEYS,
    OriginalFile,
    OriginalFileError,
    numeric,
    state_columns,
    take_annotations,
)
from .unpickle import load_pickled_npy

BLOCK_ROWS = 2048  # trajectories per read of an observation array


def _dataset(file: h5py.File, name: str, key: str) -> h5py.Dataset:
    node = file[key]
    if not isinstance(node, h5py.Dataset) or node.dtype.kind not in "biuf":
        kind = type(node).__name__ if not isinstance(node, h5py.Dataset) else f"dtype {node.dtype}"
        raise OriginalFileError(f"{name}: key {key!r} is a {kind}; expected a numeric array")
    return node


def _states(dataset: h5py.Dataset, name: str, key: str, state_dim: int, progress: bool) -> np.ndarray:
    if dataset.ndim != 3:
        raise OriginalFileError(f"{name}: key {key!r} has shape {dataset.shape}; expected (N, T, D)")
    columns = state_columns(name, key, dataset.shape[2], state_dim)
    states = np.empty(dataset.shape[:2] + (columns,), np.float32)
    starts = range(0, dataset.shape[0], BLOCK_ROWS)
    bar = tqdm(starts, desc=f"read {name}:{key}", unit="block", disable=not progress or len(starts) < 4)
    for start in bar:
        states[start:start + BLOCK_ROWS] = dataset[start:start + BLOCK_ROWS, :, :columns]
    return states


def read_hdf5(path: Path, side: Path | None, target: Target, progress: bool = True) -> OriginalFile:
    """Read an HDF5 data file and, if given, its side ``.npy`` (see module docstring)."""
    arrays: dict[str, np.ndarray] = {}
    width = 0
    try:
        file = h5py.File(path, "r")
    except OSError as error:
        raise OriginalFileError(f"{path.name}: not a readable HDF5 file ({error})") from error
    with file:
        for key in REQUIRED_KEYS + OPTIONAL_KEYS:
            if key not in file:
                continue
            dataset = _dataset(file, path.name, key)
            if key in STATE_KEYS:
                width = dataset.shape[-1]
                arrays[key] = _states(dataset, path.name, key, target.state_dim, progress)
            else:
                arrays[key] = numeric(path.name, key, dataset[()])
    original = OriginalFile(path.name, "hdf5", [path], target, arrays, width)
    if side is not None:
        original.paths.append(side)
        take_annotations(original, side.name, load_pickled_npy(side))
    return original
