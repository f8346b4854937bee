"""Minari's HDF5 layout, written compactly: the same groups, datasets and attributes that
``minari.load_dataset`` reads (Minari 0.5.4, ``_storages/hdf5_storage.py``), at about 2.5 KB of
HDF5 metadata per episode instead of Minari's ~31 KB (``benchmarks/storage_layout.py`` measures
every option; the README has its table).

One group per episode, as Minari writes it::

    episode_{i}/                 attrs: id, seed, options/<key> (the episode metadata), total_steps
        observations/state       (T+1, D)   the state space's dtype
        observations/instruction (T+1,)     fixed-length UTF-8 strings (Minari decodes them to str)
        actions                  (T, ...)
        rewards, terminations, truncations  (T,)
        infos/<key>              (T+1, ...) the checkers' per-step flags (and sim_state)

Where the bytes go and what changes (each measured; none changes a value read back):

- Minari makes every array a chunked, resizable dataset (a chunk index each, ~2 KB) in an
  HDF5 1.6-format file (a B-tree and a local heap per group). Here arrays are compact (the
  data inside the dataset's object header) up to ``COMPACT_BYTES``, contiguous above, and the
  file has the HDF5 1.8 format (``libver`` v108: links kept in the group's header).
- HDF5 reserves 256 bytes for every dataset header, room for attributes nobody writes;
  ``H5Fset_dset_no_attrs_hint`` sizes each header to its content (``minimize_headers``).
- No modification time in each header (``track_times=False``): smaller, and the same
  episodes give the same bytes.
- The instruction is stored as fixed-length strings, not variable-length ones (a 16-byte
  reference each plus a global-heap object).

Appending with Minari (``update_dataset_from_buffer``) works on these files: Minari opens them
and adds its own groups.
"""

from __future__ import annotations

import ctypes
import functools
import warnings
from collections.abc import Iterable
from pathlib import Path

import h5py
import numpy as np
from minari.data_collector import EpisodeBuffer

from . import libhdf5

MAIN_FILE = "main_data.hdf5"  # the one file of Minari's HDF5 storage
LIBVER = ("v108", "latest")  # readable by HDF5 1.8 and later (every h5py 3)
COMPACT_BYTES = 16 * 1024  # arrays up to this size live in their object header (HDF5 allows < 64 KiB)


def minimize_headers(file: h5py.File) -> bool:
    """Size every dataset header created in ``file`` to its content (HDF5 >= 1.10.5); False,
    with one warning, where the library cannot be reached (the file is then larger, not wrong)."""
    library = libhdf5.library()
    if library is not None and library.H5Fset_dset_no_attrs_hint(file.id.id, True) >= 0:
        return True
    warnings.warn("imaginebench: cannot reach libhdf5's H5Fset_dset_no_attrs_hint; datasets are "
                  "written with full-size headers (about 2 KB more per episode)", stacklevel=2)
    return False


def _create(group: h5py.Group, name: str, data: np.ndarray, settings: dict) -> None:
    if settings.get("dataset_options"):  # the benchmark's chunked/compressed comparisons
        group.create_dataset(name, data=data, track_times=False, **settings["dataset_options"])
        return
    compact = 0 < data.nbytes <= settings["compact_bytes"]
    library = libhdf5.library()
    if data.ndim and not data.dtype.hasobject and library is not None:
        with libhdf5.lock:
            _create_directly(library, group.id.id, name, data, compact)
        return
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    if compact:
        dcpl.set_layout(h5py.h5d.COMPACT)
    group.create_dataset(name, data=data, dcpl=dcpl, track_times=False)


def _create_directly(library: libhdf5.Library, group: int, name: str, data: np.ndarray,
                     compact: bool) -> None:
    """What ``group.create_dataset(name, data=data, dcpl=dcpl, track_times=False)`` does for a
    C-contiguous array (h5py 3, ``_hl/dataset.py`` ``make_new_dset``): the same calls with the
    same properties and types, so the same bytes, made on libhdf5 itself. Building h5py's
    objects was the larger part of a build's main process per episode. The data is written
    in the file's type (no conversion)."""
    dcpl = library.H5Pcreate(library.dataset_create_class)
    space = dataset = -1
    try:
        if compact:
            library.H5Pset_layout(dcpl, libhdf5.D_COMPACT)
        library.H5Pset_obj_track_times(dcpl, False)
        library.H5Pset_attr_creation_order(dcpl, _track_order_flags())
        space = library.H5Screate_simple(data.ndim, (ctypes.c_uint64 * data.ndim)(*data.shape), None)
        file_type = _file_type(data.dtype)  # kept alive until the data is written
        dataset = library.H5Dcreate2(group, name.encode(), file_type.id, space, libhdf5.DEFAULT, dcpl,
                                     libhdf5.DEFAULT)
        if dataset < 0 or library.H5Dwrite(dataset, file_type.id, libhdf5.DEFAULT, libhdf5.DEFAULT,
                                           libhdf5.DEFAULT, data.ctypes.data) < 0:
            raise OSError(f"libhdf5 could not write dataset {name!r}")
    finally:
        for close, handle in ((library.H5Dclose, dataset), (library.H5Sclose, space),
                              (library.H5Pclose, dcpl)):
            if handle >= 0:
                close(handle)


def _track_order_flags() -> int:
    """h5py's attribute creation order flags for a new dataset (``h5py.get_config().track_order``)."""
    return h5py.h5p.CRT_ORDER_TRACKED | h5py.h5p.CRT_ORDER_INDEXED if h5py.get_config().track_order else 0


_INT64 = (-(2 ** 63), 2 ** 63)


def _set_attribute(group: h5py.Group, name: str, value: object) -> None:
    """``group.attrs[name] = value``: a Python ``str`` (h5py: a scalar variable-length UTF-8
    string) or ``int`` (a scalar int64) straight through the library, with h5py's types; any
    other value through h5py. The group is new: no attribute to replace."""
    library = libhdf5.library()
    kind = type(value)
    if library is None or not (kind is str or (kind is int and _INT64[0] <= value < _INT64[1])):
        group.attrs[name] = value
        return
    file_type = _VLEN_STR_TYPE if kind is str else _INT64_TYPE
    if kind is str:
        buffer = ctypes.c_char_p(value.encode("utf-8"))
        pointer = ctypes.cast(ctypes.byref(buffer), ctypes.c_void_p)
    else:
        number = np.array(value, np.int64)
        pointer = number.ctypes.data
    with libhdf5.lock:
        _create_attribute(library, group.id.id, name, file_type, pointer)


def _create_attribute(library: libhdf5.Library, group: int, name: str, file_type: h5py.h5t.TypeID,
                      pointer: object) -> None:
    """What h5py's ``AttributeManager.create`` does for a scalar of ``file_type``, on libhdf5."""
    space = library.H5Screate_simple(0, None, None)  # scalar
    attribute = -1
    try:
        attribute = library.H5Acreate2(group, name.encode(), file_type.id, space, libhdf5.DEFAULT,
                                       libhdf5.DEFAULT)
        if attribute < 0 or library.H5Awrite(attribute, file_type.id, pointer) < 0:
            raise OSError(f"libhdf5 could not write attribute {name!r}")
    finally:
        if attribute >= 0:
            library.H5Aclose(attribute)
        library.H5Sclose(space)


# h5py's types for a Python str and int attribute (``h5t.py_create(dtype, logical=True)``)
_VLEN_STR_TYPE = h5py.h5t.py_create(h5py.string_dtype("utf-8"), logical=True)
_INT64_TYPE = h5py.h5t.py_create(np.dtype(np.int64), logical=True)


def _file_type(dtype: np.dtype) -> h5py.h5t.TypeID:
    """The HDF5 type h5py stores ``dtype`` as (``h5t.py_create(dtype, logical=True)``), made
    once per plain dtype (``H5Dcreate`` copies it). Not cached: dtypes with metadata (h5py's
    string encodings), which numpy's equality ignores."""
    return h5py.h5t.py_create(dtype, logical=True) if dtype.metadata else _plain_file_type(dtype)


@functools.lru_cache(maxsize=64)
def _plain_file_type(dtype: np.dtype) -> h5py.h5t.TypeID:
    return h5py.h5t.py_create(dtype, logical=True)


def _group(parent: h5py.Group, name: str, names: list[str]) -> h5py.Group:
    """A new group sized for links ``names`` (HDF5 otherwise reserves room for 4 links of 8
    characters, and a modification time)."""
    library = libhdf5.library()
    if library is None:
        return parent.create_group(name)
    gcpl = h5py.h5p.create(h5py.h5p.GROUP_CREATE)
    gcpl.set_obj_track_times(False)
    if library.H5Pset_est_link_info(gcpl.id, len(names), max([1, *map(len, names)])) < 0:
        return parent.create_group(name)
    return h5py.Group(h5py.h5g.create(parent.id, name.encode(), gcpl=gcpl))


def _texts(texts: list[str]) -> np.ndarray:
    encoded = [text.encode("utf-8") for text in texts]
    return np.array(encoded, dtype=h5py.string_dtype("utf-8", max([1, *map(len, encoded)])))


def _write_tree(group: h5py.Group, data: dict, settings: dict) -> None:
    for key, value in data.items():
        if isinstance(value, dict):
            _write_tree(_group(group, key, list(value)), value, settings)
        elif isinstance(value, list) and all(isinstance(entry, str) for entry in value):
            _create(group, key, _texts(value), settings)
        else:
            _create(group, key, np.ascontiguousarray(value), settings)


def write_episode(file: h5py.File, buffer: EpisodeBuffer, compact_bytes: int = COMPACT_BYTES,
                  dataset_options: dict | None = None) -> int:
    """Write ``buffer`` as group ``episode_{buffer.id}`` (Minari's attributes and arrays, see the
    module docstring); return its number of steps. ``options`` must be flat (ours are)."""
    tree = {"observations": buffer.observations, "actions": buffer.actions, "rewards": buffer.rewards,
            "terminations": buffer.terminations, "truncations": buffer.truncations,
            "infos": buffer.infos or {}}
    group = file.create_group(f"episode_{buffer.id}")  # its attributes outgrow any estimate
    _set_attribute(group, "id", buffer.id)
    if buffer.seed is not None:
        _set_attribute(group, "seed", buffer.seed)
    for key, value in (buffer.options or {}).items():
        _set_attribute(group, f"options/{key}", value)
    steps = len(buffer.rewards)
    _set_attribute(group, "total_steps", steps)
    _write_tree(group, tree, {"compact_bytes": compact_bytes, "dataset_options": dataset_options})
    return steps


def write_file(path: Path, buffers: Iterable[EpisodeBuffer], *, compact_bytes: int = COMPACT_BYTES,
               libver: str | tuple[str, str] = LIBVER, minimized: bool = True,
               dataset_options: dict | None = None) -> tuple[int, int]:
    """Write ``buffers`` (ids 0, 1, ...) as Minari's ``main_data.hdf5`` at ``path``, replacing
    it; return (episodes, steps). The keyword arguments exist for the benchmark's comparisons
    (``dataset_options``: h5py ``create_dataset`` options, e.g. chunks and compression)."""
    episodes = steps = 0
    with h5py.File(path, "w", libver=libver) as file:
        if minimized:
            minimize_headers(file)
        for buffer in buffers:
            steps += write_episode(file, buffer, compact_bytes, dataset_options)
            episodes += 1
    return episodes, steps
