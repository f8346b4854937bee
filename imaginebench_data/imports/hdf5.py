"""Reading the original's HDF5 files and their side ``.npy``.

An HDF5 file holds ``observations`` (N, T, D_state + 768), ``actions`` (N, T) or (N, T, A),
``rewards`` (N, T, 1) and ``masks`` (N, T, 1) or (N, T). Observations are read in blocks of
trajectories and cut to the state columns as they are read, so the 768-d encoding never
sits in memory whole. A side file (same stem, ``.npy``), where there is one, is a pickled
dict whose ``instructions`` and ``goals`` give each trajectory's text and goal vector.

Only data stored in the file itself is read. Each key must be a hard link to a dataset
(external and soft links are refused, so nothing outside the file is followed), not
virtual and without external raw storage, and its declared size (shape x itemsize) must be
stored: every chunk of a chunked dataset written, a contiguous one's storage as large as its
shape and inside the file. What is read counts against the file's ``Budget`` (``limits``).
Errors of HDF5 itself (a corrupt file) become one ``OriginalFileError`` naming file and key.
"""

from __future__ import annotations

import math
from pathlib import Path

import h5py
import numpy as np
from tqdm.auto import tqdm

from .limits import Budget, declared_bytes, size_text
from .names import ENCODING_DIM, Target
from .original import (
    OPTIONAL_KEYS,
    REQUIRED_KEYS,
    STATE_KEYS,
    OriginalFile,
    OriginalFileError,
    numeric,
    one_line,
    state_columns,
    take_annotations,
)
from .unpickle import load_pickled_npy

BLOCK_ROWS = 2048  # trajectories per read of an observation array
HDF5_ERRORS = (OSError, KeyError, RuntimeError, TypeError, ValueError, IndexError, OverflowError)


def _link(file: h5py.File, name: str, key: str) -> h5py.Dataset | None:
    """The dataset ``key`` names, or None; refused unless a hard link to a dataset."""
    link = file.get(key, getlink=True)
    if link is None:
        return None
    if isinstance(link, h5py.ExternalLink):
        raise OriginalFileError(f"{name}: key {key!r} is an external link to {link.filename!r}:"
                                f"{link.path!r}; expected a dataset stored in the file (links to other files "
                                "are not followed)")
    if not isinstance(link, h5py.HardLink):
        target = getattr(link, "path", None)
        raise OriginalFileError(f"{name}: key {key!r} is a {type(link).__name__} to {target!r}; expected a "
                                "dataset stored in the file (links are not followed)")
    node = file[key]
    if not isinstance(node, h5py.Dataset) or node.dtype.kind not in "biuf":
        kind = type(node).__name__ if not isinstance(node, h5py.Dataset) else f"dtype {node.dtype}"
        raise OriginalFileError(f"{name}: key {key!r} is a {kind}; expected a numeric array")
    return node


def check_stored(dataset: h5py.Dataset, name: str, key: str, file_size: int) -> None:
    """Refuse a dataset whose declared size is not stored in the file (see module docstring)."""
    declared = declared_bytes(dataset.shape or (), dataset.dtype.itemsize)
    where = (f"{name}: key {key!r} declares shape {dataset.shape} x {dataset.dtype.itemsize}-byte "
             f"{dataset.dtype}")
    if dataset.is_virtual:
        sources = sorted({source.file_name for source in dataset.virtual_sources()})
        raise OriginalFileError(f"{where} as a virtual dataset of {sources}; expected its data stored in "
                                "the file (virtual datasets are not followed)")
    if dataset.external:
        files = [str(entry[0]) for entry in dataset.external]
        raise OriginalFileError(f"{where} with its data in external file(s) {files}; expected its data "
                                "stored in the file")
    if declared == 0:
        return
    if dataset.chunks is not None:
        expected = math.prod(math.ceil(n / c) for n, c in zip(dataset.shape, dataset.chunks))
        found = dataset.id.get_num_chunks()
        if found != expected:
            raise OriginalFileError(f"{where} = {size_text(declared)} in {expected} chunks of "
                                    f"{dataset.chunks}; found {found} chunk(s) written (the rest was never "
                                    "written: only fill values)")
        return
    stored = dataset.id.get_storage_size()
    offset = dataset.id.get_offset()
    if stored != declared or (offset is not None and offset + stored > file_size):
        found = "nothing stored (never written)" if stored == 0 else (
            f"{size_text(stored)} stored at byte {offset} of a {size_text(file_size)} file")
        raise OriginalFileError(f"{where} = {size_text(declared)}; found {found}")


def _encodings(dataset: h5py.Dataset, name: str, state_dim: int, budget: Budget) -> np.ndarray | None:
    """(N, 768) float32: each trajectory's first encoding, or None when the file stores none."""
    rows, steps, width = dataset.shape
    if width != state_dim + ENCODING_DIM or steps == 0:
        return None
    budget.take("observations", declared_bytes((rows, ENCODING_DIM), 4), "the first step's encodings")
    encodings = np.empty((rows, ENCODING_DIM), np.float32)
    for start in range(0, rows, BLOCK_ROWS):
        encodings[start:start + BLOCK_ROWS] = dataset[start:start + BLOCK_ROWS, 0, state_dim:]
    return encodings


def _states(dataset: h5py.Dataset, name: str, key: str, state_dim: int, budget: Budget,
            progress: bool) -> np.ndarray:
    if dataset.ndim != 3:
        raise OriginalFileError(f"{name}: key {key!r} has shape {dataset.shape}; expected (N, T, D)")
    columns = state_columns(name, key, dataset.shape[2], state_dim)
    budget.take(key, declared_bytes(dataset.shape[:2] + (columns,), 4), "its state columns as float32")
    if dataset.chunks is not None:  # a read decompresses whole chunks
        budget.take(key, declared_bytes(dataset.chunks, dataset.dtype.itemsize), "one chunk")
    states = np.empty(dataset.shape[:2] + (columns,), np.float32)
    starts = range(0, dataset.shape[0], BLOCK_ROWS)
    bar = tqdm(starts, desc=f"read {name}:{key}", unit="block", disable=not progress or len(starts) < 4)
    for start in bar:
        states[start:start + BLOCK_ROWS] = dataset[start:start + BLOCK_ROWS, :, :columns]
    return states


def _read(file: h5py.File, path: Path, target: Target, budget: Budget, progress: bool,
          arrays: dict[str, np.ndarray]) -> int:
    """Fill ``arrays`` with the file's keys (and ``_encodings`` with the first step's encodings);
    the stored observation width."""
    width, file_size = 0, path.stat().st_size
    for key in REQUIRED_KEYS + OPTIONAL_KEYS:
        try:
            dataset = _link(file, path.name, key)
            if dataset is None:
                continue
            check_stored(dataset, path.name, key, file_size)
            if key in STATE_KEYS:
                arrays[key] = _states(dataset, path.name, key, target.state_dim, budget, progress)
                width = dataset.shape[2]
                if key == "observations":
                    arrays["_encodings"] = _encodings(dataset, path.name, target.state_dim, budget)
            else:
                budget.take(key, declared_bytes(dataset.shape, dataset.dtype.itemsize), "its array")
                arrays[key] = numeric(path.name, key, dataset[()])
        except OriginalFileError:
            raise
        except HDF5_ERRORS as error:
            raise OriginalFileError(f"{path.name}: key {key!r} could not be read; expected a readable HDF5 "
                                    f"dataset, found {type(error).__name__}: {one_line(error)}") from None
    return width


def read_hdf5(path: Path, side: Path | None, target: Target, progress: bool = True) -> OriginalFile:
    """Read an HDF5 data file and, if given, its side ``.npy`` (see module docstring)."""
    arrays: dict[str, np.ndarray] = {}
    budget = Budget(path.name)
    try:
        file = h5py.File(path, "r")
    except HDF5_ERRORS as error:
        raise OriginalFileError(f"{path.name}: not a readable HDF5 file ({one_line(error)})") from None
    with file:
        width = _read(file, path, target, budget, progress, arrays)
    encodings = arrays.pop("_encodings", None)
    original = OriginalFile(path.name, "hdf5", [path], target, arrays, width, encodings=encodings)
    if side is not None:
        original.paths.append(side)
        side_budget = Budget(side.name)
        take_annotations(original, side.name, load_pickled_npy(side, side_budget), side_budget)
    return original
