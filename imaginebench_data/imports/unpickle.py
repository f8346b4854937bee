"""Reading a pickled ``.npy`` dict without running its code.

``np.load(path, allow_pickle=True)`` runs whatever the pickle names: a downloaded file can
call ``os.system``. ``load_pickled_npy`` reads the ``.npy`` header itself and unpickles the
payload with ``SafeUnpickler``, whose ``find_class`` admits only the globals that numpy
arrays, numpy scalars, dtypes, lists, dicts, strings and numbers need. Anything else is
refused before it is called.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np

from .original import OriginalFileError

# (module, name) pairs a pickled dict of numpy arrays and strings may need. Files written
# by numpy 1.x name ``numpy.core``, which numpy 2 calls ``numpy._core``; old protocols
# name ``builtins`` ``__builtin__``. Both are translated before the check.
ALLOWED_GLOBALS = frozenset({
    ("numpy._core.multiarray", "_reconstruct"),  # ndarray.__reduce__
    ("numpy._core.multiarray", "scalar"),  # numpy scalars, e.g. np.float32(1.0), np.str_("a")
    ("numpy._core.numeric", "_frombuffer"),  # arrays pickled with protocol 5
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
    ("_codecs", "encode"),  # how protocol 2 stores bytes (an array's data)
    *(("builtins", name) for name in ("list", "dict", "tuple", "set", "frozenset", "str", "bytes",
                                      "bytearray", "int", "float", "complex", "bool")),
})


class UnsafePickleError(OriginalFileError):
    """A pickle names a global outside ``ALLOWED_GLOBALS``; nothing of it was run."""


class SafeUnpickler(pickle.Unpickler):
    """An unpickler that resolves only ``ALLOWED_GLOBALS`` and refuses every other global."""

    def __init__(self, file, file_name: str) -> None:
        super().__init__(file, encoding="latin1")  # latin1: numpy arrays pickled by Python 2
        self.file_name = file_name

    def find_class(self, module: str, name: str) -> object:
        if module == "numpy.core" or module.startswith("numpy.core."):
            module = "numpy._core" + module[len("numpy.core"):]
        if module == "__builtin__":  # protocol 0-2 pickles name builtins the Python 2 way
            module = "builtins"
        if (module, name) not in ALLOWED_GLOBALS:
            raise UnsafePickleError(
                f"{self.file_name}: refused to unpickle global '{module}.{name}': a pickled .npy may hold "
                "only numpy arrays, scalars, lists, dicts, strings and numbers (other globals can run "
                "code when loaded; nothing was run)")
        return super().find_class(module, name)


def _read_header(file, file_name: str) -> tuple[tuple[int, ...], np.dtype]:
    try:
        version = np.lib.format.read_magic(file)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(file)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(file)
        else:
            raise ValueError(f"format version {version} is not supported (expected 1.0 or 2.0)")
    except ValueError as error:
        raise OriginalFileError(f"{file_name}: not a readable .npy file ({error})") from error
    return shape, dtype


def load_pickled_npy(path: Path) -> object:
    """The object pickled in the ``.npy`` file ``path`` (a 0-d object array is unwrapped)."""
    with open(path, "rb") as file:
        shape, dtype = _read_header(file, path.name)
        if not dtype.hasobject:
            raise OriginalFileError(f"{path.name}: expected a pickled dict (an object array), found a plain "
                                    f"{dtype} array of shape {shape}")
        try:
            value = SafeUnpickler(file, path.name).load()
        except OriginalFileError:
            raise
        except Exception as error:  # any failure of a corrupt stream becomes one clear error
            raise OriginalFileError(f"{path.name}: the pickled payload is corrupt "
                                    f"({type(error).__name__}: {error})") from error
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.hasobject:
        value = value.item()
    return value
