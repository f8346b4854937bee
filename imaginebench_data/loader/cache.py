"""The loader's on-disk cache of flattened transitions: keyed by what it holds, checked when
read, and optional.

An entry is one file, ``<stem>.ibcache``, read with one ``readinto`` whatever the number of
arrays or episodes::

    bytes 0-31     MAGIC (8), header length H (uint64), data length L (uint64), CRC-32 (uint32), 0
    then H bytes   JSON: {"strings": {...}, "arrays": {name: [dtype, shape, offset], ...}}
    then           padding to a multiple of ALIGN, and L bytes of data: every array in C order,
                   each at ``offset`` (a multiple of ALIGN) from the start of the data

The CRC-32 covers the header and the data (SHA-256 of a 6 MB entry costs more than reading
it; the entry is guarded against damage, not against an attacker). The stem names the
dataset and a key over the cache format and the card's checksum; the loader writes an entry
only for data that hashed to that checksum while it was flattened, so data changed after it
was written is never cached under the checksum of the clean data.

- Reading: the CRC is checked the first time this process reads the file (then remembered by
  path, size and modification time); an entry that does not match, does not parse or is
  incomplete is removed and rebuilt. The arrays share one writable buffer.
- Writing: to a temporary file, then ``os.replace``; the temporary file is removed whatever
  fails. A cache that cannot be written (read-only, full disk) means a slower next load and
  one warning, never a failed load.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import warnings
import zlib
from contextlib import suppress
from pathlib import Path
from typing import Any

import numpy as np

CACHE_VERSION = 3  # 2: entries carry a content hash; 3: one file, episode table included, CRC-32
SUFFIX = ".ibcache"
MAGIC = b"IBCACHE3"
PREFIX = struct.Struct("<8sQQI4x")  # magic, header length, data length, CRC-32 of header + data
ALIGN = 64
_verified: set[tuple[str, int, int]] = set()  # (path, size, mtime_ns) of entries whose CRC matched
_warned: set[str] = set()


def cache_key(checksum: str) -> str:
    return hashlib.sha256(f"v{CACHE_VERSION}|checksum:{checksum}".encode()).hexdigest()[:20]


def _file(stem: Path, suffix: str = SUFFIX) -> Path:
    return stem.parent / (stem.name + suffix)


def _aligned(size: int) -> int:
    return -(-size // ALIGN) * ALIGN


def remove(stem: Path) -> None:
    with suppress(OSError):
        _file(stem).unlink()


def _parse(path: Path) -> tuple[bytes, bytearray, int]:
    """The header and the data of the entry at ``path`` (ValueError when it is not whole) and
    the CRC-32 it records."""
    with open(path, "rb") as f:
        prefix = f.read(PREFIX.size)
        if len(prefix) != PREFIX.size:
            raise ValueError("the file is shorter than its prefix")
        magic, header_size, data_size, crc = PREFIX.unpack(prefix)
        if magic != MAGIC:
            raise ValueError(f"the file starts with {magic!r}, not {MAGIC!r}")
        if PREFIX.size + _aligned(header_size) + data_size != os.fstat(f.fileno()).st_size:
            raise ValueError("the file's size does not match the lengths in its prefix")
        header = f.read(header_size)
        f.seek(PREFIX.size + _aligned(header_size))
        data = bytearray(data_size)
        if f.readinto(data) != data_size:
            raise ValueError("the data is incomplete")
    return header, data, crc


def read(stem: Path, names: tuple[str, ...], aligned: tuple[tuple[str, ...], ...] = ()
         ) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
    """The cached arrays ``names`` and the strings of entry ``stem``, or None when there is no
    valid entry (an invalid one is removed). The arrays of each group in ``aligned`` must have
    one length."""
    path = _file(stem)
    if not path.is_file():
        return None
    try:
        stat = path.stat()
        raw_header, data, crc = _parse(path)
        identity = (str(path), stat.st_size, stat.st_mtime_ns)
        if identity not in _verified:
            if zlib.crc32(data, zlib.crc32(raw_header)) != crc:
                raise ValueError("the entry does not match its CRC-32")
            _verified.add(identity)
        header = json.loads(raw_header)
        layout = header["arrays"]
        arrays = {}
        for name in names:
            dtype, shape, offset = np.dtype(layout[name][0]), tuple(layout[name][1]), layout[name][2]
            count = int(np.prod(shape, dtype=np.int64))
            arrays[name] = (np.frombuffer(data, dtype, count, offset) if count else np.zeros(0, dtype)
                            ).reshape(shape)
        for group in aligned:
            if len({len(arrays[name]) for name in group}) != 1:
                raise ValueError(f"the arrays {', '.join(group)} have different lengths")
    except Exception as error:  # any damage: the entry is rebuilt from the dataset
        warnings.warn(f"cache entry {stem} is damaged ({type(error).__name__}: {error}); rebuilding it",
                      stacklevel=3)
        remove(stem)
        return None
    return arrays, header["strings"]


def _encode(arrays: dict[str, np.ndarray], strings: dict[str, Any]) -> list[bytes | memoryview]:
    """The entry's bytes, in pieces (see the module docstring)."""
    layout: dict[str, list] = {}
    pieces: list[bytes | memoryview] = []
    offset = 0
    for name, array in arrays.items():
        array = np.ascontiguousarray(array)
        if array.dtype.hasobject:
            raise TypeError(f"cache array {name!r} has dtype object")
        layout[name] = [array.dtype.str, list(array.shape), offset]
        padding = _aligned(array.nbytes) - array.nbytes
        pieces += [memoryview(array).cast("B"), b"\0" * padding]
        offset += array.nbytes + padding
    header = json.dumps({"strings": strings, "arrays": layout}).encode()
    crc = zlib.crc32(header)
    for piece in pieces:
        crc = zlib.crc32(piece, crc)
    head = PREFIX.pack(MAGIC, len(header), offset, crc) + header
    return [head + b"\0" * (_aligned(len(header)) - len(header)), *pieces]


def write(stem: Path, arrays: dict[str, np.ndarray], strings: dict[str, Any]) -> bool:
    """Write entry ``stem`` atomically; False (with one warning per folder) when it cannot be."""
    temporary = _file(stem, f"{SUFFIX}.tmp-{os.getpid()}")
    try:
        stem.parent.mkdir(parents=True, exist_ok=True)
        with open(temporary, "wb") as f:
            for piece in _encode(arrays, strings):
                f.write(piece)
        os.replace(temporary, _file(stem))
        return True
    except OSError as error:
        if str(stem.parent) not in _warned:
            _warned.add(str(stem.parent))
            warnings.warn(f"cannot write the loader cache in {stem.parent} ({error.strerror or error}); "
                          "loading works without it, more slowly (set IMAGINEBENCH_CACHE to a writable "
                          "folder)", stacklevel=3)
        return False
    finally:
        with suppress(OSError):
            temporary.unlink()
