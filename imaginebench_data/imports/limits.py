"""How much memory reading one original file may take, and checks of declared sizes.

A file declares the sizes of what it holds (an HDF5 dataspace, a Parquet ``<key>_shape``, a
pickle's byte counts and array shapes) before the bytes themselves. The importer trusts no
declared size: each is checked against the bytes actually present (``storage``) before
anything of that size is allocated, and all arrays read from one file together must fit
in ``max_bytes()``:

    MAX_BYTES = 4 GiB                      arrays of one file (declared sizes, as read)
    IMAGINEBENCH_IMPORT_MAX_BYTES=<bytes>  overrides it (e.g. 536870912 or 512MiB)

The limit counts the arrays a reader materialises (the file's arrays as read, the state
columns cut to float32, a pickle's payload); converting them to episodes makes about one
more copy of the kept states, so the importer's peak is a small multiple of it.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable

from .original import OriginalFileError

MAX_BYTES = 4 << 30  # 4 GiB of arrays per file; well under the 24 GB of the machines we run on
MAX_BYTES_ENV = "IMAGINEBENCH_IMPORT_MAX_BYTES"
UNITS = {"": 1, "B": 1, "KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "KB": 10 ** 3, "MB": 10 ** 6,
         "GB": 10 ** 9}
_SIZE_TEXT = re.compile(r"^\s*(\d{1,15})\s*([A-Za-z]*)\s*$")


def max_bytes() -> int:
    """The limit in bytes: ``IMAGINEBENCH_IMPORT_MAX_BYTES`` where set (a number of bytes, or with
    a unit: KiB, MiB, GiB, KB, MB, GB), else ``MAX_BYTES``."""
    text = os.environ.get(MAX_BYTES_ENV, "").strip()
    if not text:
        return MAX_BYTES
    match = _SIZE_TEXT.match(text)
    if match is None or match[2].upper() not in UNITS or int(match[1]) == 0:
        raise ValueError(f"{MAX_BYTES_ENV}={text!r}: expected a positive number of bytes such as "
                         f"4294967296 or 4GiB")
    return int(match[1]) * UNITS[match[2].upper()]


def size_text(count: int) -> str:
    """``count`` bytes for a message, e.g. '10,000,000,000 bytes (9.3 GiB)'."""
    return f"{count:,} bytes ({count / (1 << 30):.3g} GiB)" if count >= 1 << 20 else f"{count:,} bytes"


def declared_bytes(shape: Iterable[int], itemsize: int) -> int:
    """The bytes an array of ``shape`` and ``itemsize`` takes, in Python integers (never overflows)."""
    return math.prod(int(n) for n in shape) * int(itemsize)


class Budget:
    """The memory one file's reading may still take; ``take`` refuses what would exceed it."""

    def __init__(self, file_name: str, limit: int | None = None) -> None:
        self.file_name = file_name
        self.limit = max_bytes() if limit is None else limit
        self.used = 0

    def take(self, key: str | None, count: int, what: str) -> None:
        """Reserve ``count`` bytes for ``what`` (of ``key``), or raise before anything is allocated."""
        if self.used + count > self.limit:
            where = "" if key is None else f" key {key!r}:"
            raise OriginalFileError(
                f"{self.file_name}:{where} {what} needs {size_text(count)}; with the "
                f"{size_text(self.used)} already read, that exceeds the import limit of "
                f"{size_text(self.limit)} per file (set {MAX_BYTES_ENV} to raise it)")
        self.used += count

    def take_nested(self, key: str, value: object, itemsize: int = 8) -> None:
        """Reserve what turning nested lists ``value`` into an array takes (nothing for an array)."""
        if isinstance(value, (list, tuple)):
            self.take(key, nested_count(value) * itemsize, "its nested lists as an array")


def nested_count(value: object, depth: int = 0) -> int:
    """How many elements ``np.asarray(value)`` makes of nested lists/tuples, from the first element
    of each level (as numpy finds the shape of a rectangular nest); shared references count each
    time, as numpy copies them."""
    count = 1
    while isinstance(value, (list, tuple)) and depth < 64:
        count *= len(value)
        if not value:
            return count
        value, depth = value[0], depth + 1
    size = getattr(value, "size", 1)
    return count * (size if isinstance(size, int) else 1)

