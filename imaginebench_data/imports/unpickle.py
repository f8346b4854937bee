"""Reading a pickled ``.npy`` dict without running its code or trusting its sizes.

``np.load(path, allow_pickle=True)`` runs whatever the pickle names: a downloaded file can
call ``os.system``. ``load_pickled_npy`` reads the ``.npy`` header itself and unpickles the
payload with ``SafeUnpickler``, whose ``find_class`` admits only the globals that numpy
arrays, numpy scalars, dtypes, lists, dicts, strings and numbers need. Anything else is
refused before it is called.

A pickle also states sizes before their bytes (``bytearray(2000000000)``, an array's shape,
a BYTEARRAY8 length). ``SafeUnpickler`` is the pure-Python unpickler, so that it sees every
call and every array's state before they run: an object whose size exceeds what the whole
file could hold is refused, and everything it builds counts against the file's ``Budget``
(``limits``). The payload is read whole first (its size counts too).
"""

from __future__ import annotations

import _codecs
import io
import operator
import pickle
import reprlib
import struct
from pathlib import Path

import numpy as np
from numpy._core import multiarray

from .limits import Budget, declared_bytes, size_text
from .original import OriginalFileError, one_line

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
LATIN1 = frozenset({"latin1", "latin-1", "iso-8859-1", "iso8859-1", "l1"})  # _codecs.encode's only codec
_short = reprlib.Repr()
_short.maxstring = _short.maxother = 60


class UnsafePickleError(OriginalFileError):
    """A pickle names a global outside ``ALLOWED_GLOBALS``; nothing of it was run."""


def _dims(file_name: str, shape: object) -> tuple[int, ...]:
    try:
        dims = tuple(operator.index(n) for n in shape) if isinstance(shape, (tuple, list)) else (
            operator.index(shape),)
    except TypeError:
        raise OriginalFileError(f"{file_name}: the pickled payload is corrupt (array shape "
                                f"{_short.repr(shape)} is not a tuple of integers)") from None
    if any(n < 0 for n in dims):
        raise OriginalFileError(f"{file_name}: the pickled payload is corrupt (negative array shape {dims})")
    return dims


class SafeUnpickler(pickle._Unpickler):
    """An unpickler that resolves only ``ALLOWED_GLOBALS`` and checks every size before allocating.

    ``payload`` is the whole pickle; ``budget`` the file's memory budget (see ``limits``).
    """

    dispatch = dict(pickle._Unpickler.dispatch)  # the opcodes below are replaced by the checked ones

    def __init__(self, payload: bytes, file_name: str, budget: Budget) -> None:
        super().__init__(io.BytesIO(payload), encoding="latin1")  # latin1: numpy arrays pickled by Python 2
        self.file_name, self.budget, self.payload_size = file_name, budget, len(payload)

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

    # --- sizes, checked before anything of that size exists ----------------------------------
    def _allocate(self, count: int, what: str, present: bool = False) -> None:
        """Refuse ``count`` bytes for ``what`` beyond the whole file's size (unless its bytes are
        ``present`` in the pickle already), then reserve them in the budget."""
        if not present and count > self.payload_size:
            raise OriginalFileError(
                f"{self.file_name}: the pickled payload declares {what} of {size_text(count)}; expected at "
                f"most the {size_text(self.payload_size)} the whole payload holds")
        self.budget.take(None, count, f"the pickled {what}")

    def _check_call(self, func: object, args: tuple) -> None:
        first = args[0] if args else None
        if func in (bytes, bytearray) and isinstance(first, int) and not isinstance(first, bool):
            self._allocate(first, f"{func.__name__}({first})")
        elif func is np.ndarray:  # ndarray(shape, dtype=float, ...)
            dtype = np.dtype(args[1] if len(args) > 1 else float)
            self._allocate(declared_bytes(_dims(self.file_name, first), dtype.itemsize),
                           f"array of shape {first}", present=len(args) > 2)
        elif func is multiarray._reconstruct and len(args) == 3:  # _reconstruct(ndarray, shape, dtype)
            self._allocate(declared_bytes(_dims(self.file_name, args[1]), np.dtype(args[2]).itemsize),
                           f"empty array of shape {args[1]}")
        elif func is multiarray.scalar and args:
            self._allocate(np.dtype(first).itemsize, f"scalar of dtype {_short.repr(first)}")
        elif func is str and args and not isinstance(first, (str, bytes, bytearray, int, float, complex)):
            # str() of a container writes out its repr: shared references make that a memory bomb
            raise OriginalFileError(f"{self.file_name}: the pickled payload is corrupt (str() of a "
                                    f"{type(first).__name__}; expected str() of text or a number)")
        elif func in (list, tuple, set, frozenset, dict) and first is not None and hasattr(first, "__len__"):
            per_item = 48 if isinstance(first, np.ndarray) else 8  # an array's items become objects
            self._allocate(per_item * len(first), f"{func.__name__} of {len(first)} items", present=True)
        elif func is _codecs.encode and (len(args) < 2 or str(args[1]).lower() not in LATIN1):
            raise OriginalFileError(f"{self.file_name}: the pickled payload is corrupt (_codecs.encode with "
                                    f"encoding {_short.repr(args[1:2])}; expected 'latin1')")

    def _check_array_state(self, state: object) -> None:
        """An ndarray's BUILD state ``([version,] shape, dtype, fortran, data)``: an object array's
        items must all be there before numpy allocates its shape."""
        if not isinstance(state, tuple) or len(state) not in (4, 5):
            return  # numpy refuses it
        shape, dtype, _, data = state[-4:]
        dims, dtype = _dims(self.file_name, shape), np.dtype(dtype)
        count = declared_bytes(dims, 1)
        if dtype.hasobject and (not isinstance(data, list) or len(data) != count):
            found = f"{len(data)} item(s)" if isinstance(data, list) else type(data).__name__
            raise OriginalFileError(f"{self.file_name}: the pickled payload is corrupt (an object array of "
                                    f"shape {dims} holds {found}; expected {count} items)")
        self._allocate(count * dtype.itemsize, f"array of shape {dims} and dtype {dtype}",
                       present=dtype.hasobject)

    def load_reduce(self) -> None:
        self._check_call(self.stack[-2], self.stack[-1])
        super().load_reduce()

    def load_newobj(self) -> None:
        self._check_call(self.stack[-2], self.stack[-1])
        super().load_newobj()

    def load_newobj_ex(self) -> None:
        self._check_call(self.stack[-3], self.stack[-2])
        super().load_newobj_ex()

    def _instantiate(self, klass: object, args: tuple) -> None:
        self._check_call(klass, tuple(args))
        super()._instantiate(klass, args)

    def load_build(self) -> None:
        if isinstance(self.stack[-2], np.ndarray):
            self._check_array_state(self.stack[-1])
        super().load_build()

    def load_bytearray8(self) -> None:
        (length,) = struct.unpack("<Q", self.read(8))
        self._allocate(length, "a bytearray")
        self.append(bytearray(self.read(length)))


for _opcode, _load in ((pickle.REDUCE, SafeUnpickler.load_reduce),
                       (pickle.NEWOBJ, SafeUnpickler.load_newobj),
                       (pickle.NEWOBJ_EX, SafeUnpickler.load_newobj_ex),
                       (pickle.BUILD, SafeUnpickler.load_build),
                       (pickle.BYTEARRAY8, SafeUnpickler.load_bytearray8)):
    SafeUnpickler.dispatch[_opcode[0]] = _load


def _read_header(file, file_name: str) -> tuple[tuple[int, ...], np.dtype]:
    try:
        version = np.lib.format.read_magic(file)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(file)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(file)
        else:
            raise ValueError(f"format version {version} is not supported (expected 1.0 or 2.0)")
    except Exception as error:  # noqa: BLE001 - a garbled header raises ValueError, SyntaxError, TokenError...
        if isinstance(error, MemoryError):
            raise
        raise OriginalFileError(f"{file_name}: not a readable .npy file: its header does not parse "
                                f"({type(error).__name__}: {one_line(error)}); expected a .npy header such "
                                "as {'descr': '|O', 'fortran_order': False, 'shape': ()}") from None
    return shape, dtype


def load_pickled_npy(path: Path, budget: Budget | None = None) -> object:
    """The object pickled in the ``.npy`` file ``path`` (a 0-d object array is unwrapped), read within
    ``budget`` (a new one for ``path`` by default)."""
    budget = Budget(path.name) if budget is None else budget
    with open(path, "rb") as file:
        shape, dtype = _read_header(file, path.name)
        if not dtype.hasobject:
            raise OriginalFileError(f"{path.name}: expected a pickled dict (an object array), found a plain "
                                    f"{dtype} array of shape {shape}")
        budget.take(None, path.stat().st_size - file.tell(), "the pickled payload")
        payload = file.read()
    try:
        value = SafeUnpickler(payload, path.name, budget).load()
    except (OriginalFileError, MemoryError):
        raise
    except Exception as error:  # noqa: BLE001 - any failure of a corrupt stream becomes one clear error
        raise OriginalFileError(f"{path.name}: the pickled payload is corrupt "
                                f"({type(error).__name__}: {one_line(error)})") from None
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.hasobject:
        value = value.item()
    return value
