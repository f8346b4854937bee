"""The loader's on-disk cache of flattened transitions: keyed by what it holds, checked when
read, and optional.

An entry is two files, ``<stem>.npz`` (every array, the episode table's columns included)
and ``<stem>.json`` (a few short string tables and ``npz_sha256``, the content hash of the
``.npz``), so a reload is mostly one ``np.load`` whatever the number of episodes. The stem names the dataset and a
key over the cache format and the card's checksum; the loader writes an entry only for data
that hashed to that checksum while it was flattened, so data changed after it was written is
never cached under the checksum of the clean data.

- Reading: the ``.npz`` is hashed and compared with the JSON's ``npz_sha256`` the first time
  this process reads it (then remembered by path, size and modification time); an entry
  that does not match, does not parse or is incomplete is removed and rebuilt.
- Writing: to temporary files, then ``os.replace``; temporary files are removed whatever
  fails. A cache that cannot be written (read-only, full disk) means a slower next load and
  one warning, never a failed load.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

import numpy as np

CACHE_VERSION = 3  # 2: entries carry the content hash of their arrays; 3: the episode table in the .npz
_verified: dict[tuple[str, int, int], str] = {}  # (npz path, size, mtime_ns) -> its sha256
_warned: set[str] = set()


def cache_key(checksum: str) -> str:
    return hashlib.sha256(f"v{CACHE_VERSION}|checksum:{checksum}".encode()).hexdigest()[:20]


def _file(stem: Path, suffix: str) -> Path:
    return stem.parent / (stem.name + suffix)


def _sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def remove(stem: Path) -> None:
    for suffix in (".npz", ".json"):
        with suppress(OSError):
            _file(stem, suffix).unlink()


def read(stem: Path, names: tuple[str, ...], aligned: tuple[tuple[str, ...], ...] = ()
         ) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
    """The cached arrays ``names`` and the JSON of entry ``stem``, or None when there is no
    valid entry (an invalid one is removed). The arrays of each group in ``aligned`` must have
    one length."""
    npz, meta = _file(stem, ".npz"), _file(stem, ".json")
    if not (npz.is_file() and meta.is_file()):
        return None
    try:
        strings = json.loads(meta.read_text())
        stat = npz.stat()
        identity = (str(npz), stat.st_size, stat.st_mtime_ns)
        if identity not in _verified:
            if _sha256(npz) != strings["npz_sha256"]:
                raise ValueError("the arrays do not hash to the entry's npz_sha256")
            _verified[identity] = strings["npz_sha256"]
        with np.load(npz, allow_pickle=False) as data:
            arrays = {name: data[name] for name in names}
        for group in aligned:
            if len({len(arrays[name]) for name in group}) != 1:
                raise ValueError(f"the arrays {', '.join(group)} have different lengths")
    except Exception as error:  # any damage: the entry is rebuilt from the dataset
        warnings.warn(f"cache entry {stem} is damaged ({type(error).__name__}: {error}); rebuilding it",
                      stacklevel=3)
        remove(stem)
        return None
    return arrays, strings


def write(stem: Path, arrays: dict[str, np.ndarray], strings: dict[str, Any],
          default: Callable[[Any], Any] | None = None) -> bool:
    """Write entry ``stem`` atomically; False (with one warning per folder) when it cannot be."""
    temporary = [_file(stem, f"{suffix}.tmp-{os.getpid()}") for suffix in (".npz", ".json")]
    try:
        stem.parent.mkdir(parents=True, exist_ok=True)
        with open(temporary[0], "wb") as f:
            np.savez(f, **arrays)
        strings = {**strings, "npz_sha256": _sha256(temporary[0])}
        with open(temporary[1], "w") as f:
            json.dump(strings, f, default=default)
        os.replace(temporary[0], _file(stem, ".npz"))  # the arrays first: the JSON commits the entry
        os.replace(temporary[1], _file(stem, ".json"))
        return True
    except OSError as error:
        if str(stem.parent) not in _warned:
            _warned.add(str(stem.parent))
            warnings.warn(f"cannot write the loader cache in {stem.parent} ({error.strerror or error}); "
                          "loading works without it, more slowly (set IMAGINEBENCH_CACHE to a writable "
                          "folder)", stacklevel=3)
        return False
    finally:
        for path in temporary:
            with suppress(OSError):
                path.unlink()
