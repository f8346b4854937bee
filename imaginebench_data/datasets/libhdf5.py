"""The libhdf5 that h5py loaded, called through ctypes: the one place that declares its C
functions.

h5py wraps every HDF5 object in a Python object (a few microseconds each, and a weak
reference registered), and a Minari episode is about 25 objects: creating and reading them
one by one through h5py was most of a build's main process and most of a cold load. The
writer (``hdf5_layout``) and the reader (``hdf5_reader``) call the same library directly, with
the same arguments h5py would pass (``tests/test_storage_layout.py`` checks the bytes written
equal h5py's). ``library()`` is None where the library cannot be found; both then go through
h5py and Minari as before. Calls are made holding ``lock``, h5py's own global lock, as h5py
does for each of its calls: the library is not thread-safe, and a thread using h5py while
another reads here must wait.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
from pathlib import Path

import h5py
import h5py._objects

lock = getattr(h5py._objects, "phil", None) or contextlib.nullcontext()  # h5py's lock, re-entrant

DEFAULT = 0  # H5P_DEFAULT, and H5S_ALL
INDEX_NAME = ITER_INC = 0  # H5_INDEX_NAME, H5_ITER_INC: by name, increasing (h5py's order)
I_DATASET = 5  # H5I_DATASET
S_SCALAR, S_SIMPLE = 0, 1  # H5S_class_t
T_STRING = 3  # H5T_class_t
T_VARIABLE = ctypes.c_size_t(-1).value  # H5T_VARIABLE
CSET_UTF8 = 1
D_COMPACT = 0  # H5D_layout_t
MAX_RANK = 32  # H5S_MAX_RANK


class GroupInfo(ctypes.Structure):  # H5G_info_t
    _fields_ = [("storage_type", ctypes.c_int), ("nlinks", ctypes.c_uint64),
                ("max_corder", ctypes.c_int64), ("mounted", ctypes.c_bool)]


_hid, _herr, _str, _ptr = ctypes.c_int64, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p
_SIGNATURES = {  # name: (restype, argtypes); hid_t is int64, hsize_t uint64, herr_t/htri_t int
    # files, groups, links, objects
    "H5Fset_dset_no_attrs_hint": (_herr, [_hid, ctypes.c_bool]),
    "H5Gopen2": (_hid, [_hid, _str, _hid]),
    "H5Gclose": (_herr, [_hid]),
    "H5Gget_info": (_herr, [_hid, ctypes.POINTER(GroupInfo)]),
    "H5Lget_name_by_idx": (ctypes.c_ssize_t, [_hid, _str, ctypes.c_int, ctypes.c_int, ctypes.c_uint64,
                                              _str, ctypes.c_size_t, _hid]),
    "H5Lexists": (_herr, [_hid, _str, _hid]),
    "H5Oopen": (_hid, [_hid, _str, _hid]),
    "H5Oclose": (_herr, [_hid]),
    "H5Iget_type": (ctypes.c_int, [_hid]),
    # property lists
    "H5Pcreate": (_hid, [_hid]),
    "H5Pclose": (_herr, [_hid]),
    "H5Pset_layout": (_herr, [_hid, ctypes.c_int]),
    "H5Pset_obj_track_times": (_herr, [_hid, ctypes.c_bool]),
    "H5Pset_attr_creation_order": (_herr, [_hid, ctypes.c_uint]),
    "H5Pset_est_link_info": (_herr, [_hid, ctypes.c_uint, ctypes.c_uint]),
    # datasets
    "H5Dcreate2": (_hid, [_hid, _str, _hid, _hid, _hid, _hid, _hid]),
    "H5Dwrite": (_herr, [_hid, _hid, _hid, _hid, _hid, _ptr]),
    "H5Dclose": (_herr, [_hid]),
    "H5Dget_type": (_hid, [_hid]),
    "H5Dget_space": (_hid, [_hid]),
    "H5Dread": (_herr, [_hid, _hid, _hid, _hid, _hid, _ptr]),
    # attributes
    "H5Acreate2": (_hid, [_hid, _str, _hid, _hid, _hid, _hid]),
    "H5Awrite": (_herr, [_hid, _hid, _ptr]),
    "H5Aget_num_attrs": (ctypes.c_int, [_hid]),
    "H5Aopen_by_idx": (_hid, [_hid, _str, ctypes.c_int, ctypes.c_int, ctypes.c_uint64, _hid, _hid]),
    "H5Aexists": (_herr, [_hid, _str]),
    "H5Aopen": (_hid, [_hid, _str, _hid]),
    "H5Aget_name": (ctypes.c_ssize_t, [_hid, ctypes.c_size_t, _str]),
    "H5Aget_type": (_hid, [_hid]),
    "H5Aget_space": (_hid, [_hid]),
    "H5Aread": (_herr, [_hid, _hid, _ptr]),
    "H5Aclose": (_herr, [_hid]),
    # dataspaces and types
    "H5Screate_simple": (_hid, [ctypes.c_int, _ptr, _ptr]),
    "H5Sget_simple_extent_type": (ctypes.c_int, [_hid]),
    "H5Sget_simple_extent_dims": (ctypes.c_int, [_hid, _ptr, _ptr]),
    "H5Sclose": (_herr, [_hid]),
    "H5Tget_class": (ctypes.c_int, [_hid]),
    "H5Tget_size": (ctypes.c_size_t, [_hid]),
    "H5Tis_variable_str": (_herr, [_hid]),
    "H5Tequal": (_herr, [_hid, _hid]),
    "H5Tcopy": (_hid, [_hid]),
    "H5Tset_size": (_herr, [_hid, ctypes.c_size_t]),
    "H5Tset_cset": (_herr, [_hid, ctypes.c_int]),
    "H5Tclose": (_herr, [_hid]),
    "H5Treclaim": (_herr, [_hid, _hid, _hid, _ptr]),
    "H5free_memory": (_herr, [_ptr]),
}


class Library:
    """libhdf5's functions (attributes named as in C) and the few constants it exports."""

    def __init__(self, cdll: ctypes.CDLL) -> None:
        for name, (restype, argtypes) in _SIGNATURES.items():
            function = getattr(cdll, name)
            function.restype, function.argtypes = restype, argtypes
            setattr(self, name, function)
        self.dataset_create_class = _hid.in_dll(cdll, "H5P_CLS_DATASET_CREATE_ID_g").value
        self.vlen_utf8 = self.H5Tcopy(_hid.in_dll(cdll, "H5T_C_S1_g").value)  # what h5py reads str as
        self.H5Tset_size(self.vlen_utf8, T_VARIABLE)
        self.H5Tset_cset(self.vlen_utf8, CSET_UTF8)


def _candidates() -> list[str]:
    """Paths of the libhdf5 h5py loaded: the very copy in this process where /proc tells
    (Linux), else the copies bundled in h5py's wheel."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "/libhdf5" in line}
    except OSError:
        paths = set()
    libs = Path(h5py.__file__).parent
    paths |= {str(p) for folder in (libs.parent / "h5py.libs", libs / ".dylibs") if folder.is_dir()
              for p in folder.iterdir() if p.name.startswith("libhdf5")}
    return sorted(p for p in paths if "_hl" not in os.path.basename(p))


@functools.cache
def library() -> Library | None:
    """The library, its functions declared; None where it cannot be found or lacks one of them."""
    for path in _candidates():
        try:
            return Library(ctypes.CDLL(path))
        except (OSError, AttributeError, ValueError):
            continue
    return None
