"""The original's instruction-encoding files: stored 768-number encodings back to their text.

Users of the original keep its encoding dictionaries beside their data (``*_encode.npy``:
a pickled dict text -> (768,) numbers; Meta-World's ``meta_instructions_encoding.npy``: task
name -> (20, 1, 768), one row per instruction variant). Files whose observations carry only
the encoding (Meta-World's ``.h5``) name their instruction by it. ``EncodingTable`` reads
such files with the importer's restricted unpickler and within its memory budget, and maps an
encoding to the key whose vector is nearest, accepted only when every number agrees within
``ENCODING_TOLERANCE``: the same vector written as float32 (or float16) and read back, never a
neighbouring instruction (the original's encodings of different instructions differ by about
0.1 in their largest number: BERT pooler outputs with cosine similarity about 0.98).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .limits import Budget
from .names import ENCODING_DIM
from .original import OriginalFileError, short_repr
from .unpickle import load_pickled_npy

ENCODING_TOLERANCE = (
    2e-3  # largest |difference| of any number: float16 rounding of values in [-1, 1] is <= 5e-4
)
BLOCK = 4096  # encodings compared at a time


class EncodingTable:
    """Keys (instruction texts, or task names) and their encodings, from one or more files."""

    def __init__(self, paths: list[Path] | tuple[Path, ...] = ()) -> None:
        self.paths = [Path(p) for p in paths]
        keys: list[str] = []
        vectors: list[np.ndarray] = []
        for path in self.paths:
            for key, rows in _read(path):
                keys += [key] * len(rows)
                vectors.append(rows)
        self.keys = keys
        self.vectors = np.concatenate(vectors) if vectors else np.zeros((0, ENCODING_DIM), np.float32)

    def __len__(self) -> int:
        return len(self.keys)

    def lookup(self, encodings: np.ndarray) -> list[str | None]:
        """The key of each ``(N, 768)`` encoding, or None where no vector agrees within the tolerance."""
        found: list[str | None] = [None] * len(encodings)
        if not len(self.keys):
            return found
        table = self.vectors.astype(np.float64)
        squared = (table**2).sum(axis=1)
        for start in range(0, len(encodings), BLOCK):
            block = np.asarray(encodings[start : start + BLOCK], np.float64)
            distance = squared[None, :] - 2 * block @ table.T  # |a - b|^2 - |a|^2: same argmin
            nearest = np.argmin(distance, axis=1)
            finite = np.isfinite(block).all(axis=1)
            close = finite & (np.abs(block - table[nearest]).max(axis=1, initial=0) <= ENCODING_TOLERANCE)
            for offset in np.flatnonzero(close):
                found[start + offset] = self.keys[nearest[offset]]
        return found


def _read(path: Path) -> list[tuple[str, np.ndarray]]:
    """(key, (K, 768) float32 rows) of one encoding file; a clear error naming file and key otherwise."""
    if not path.is_file():
        raise OriginalFileError(
            f"{path}: no such encoding file; expected the original's *_encode.npy "
            "(a pickled dict of instruction -> 768 numbers)"
        )
    content = load_pickled_npy(path, Budget(path.name))
    if not isinstance(content, dict) or not content:
        raise OriginalFileError(
            f"{path.name}: expected a pickled dict of instruction -> {ENCODING_DIM} numbers "
            f"(the original's *_encode.npy), found {short_repr(content)}"
        )
    entries = []
    for key, value in content.items():
        rows = np.asarray(value) if isinstance(value, np.ndarray) else None
        if (
            not isinstance(key, str)
            or rows is None
            or rows.dtype.kind != "f"
            or rows.shape[-1:] != (ENCODING_DIM,)
        ):
            found = f"{type(value).__name__} {getattr(value, 'shape', '')}".strip()
            raise OriginalFileError(
                f"{path.name}: key {short_repr(key)} holds {found}; expected text keys, each "
                f"with a float array of {ENCODING_DIM} numbers, e.g. (768,) or (20, 1, 768)"
            )
        entries.append((key, rows.reshape(-1, ENCODING_DIM).astype(np.float32)))
    return entries
