"""Reading Minari's HDF5 episodes straight through libhdf5's C calls.

``EpisodeReader(path).read(index)`` gives what Minari 0.5.4's ``HDF5Storage.get_episodes`` and
``get_episode_metadata`` give for one episode (``_storages/hdf5_storage.py``): the same arrays
in the same dtypes and byte orders, the same metadata, ``infos`` as a dict of arrays. Minari
reaches every group, dataset and attribute through h5py's high-level objects, about 1.9 ms per
episode whatever its length, which made most of a cold load (135 s for paper-scale CLEVR
easy); even h5py's low-level objects cost about 1 ms. Here each object is opened, read and
closed by the library h5py itself loaded, called through ctypes (``libhdf5``); h5py only
names the numpy dtype of each HDF5 type the first time it is met.

Nothing is parsed here: libhdf5 reads the file. What the reader does not expect (a nested
``infos`` group, an empty dataspace, a compound type, an array of variable-length strings as
an attribute, a space that is not ``Dict(state, instruction)``) raises ``NotHandled``, and the
caller reads that episode with Minari's reader; ``tests/test_hdf5_reader.py`` checks both give
equal episodes, for our compact layout and for episodes Minari itself appended (chunked
arrays, variable-length strings). So does damage (an object missing, a metadata checksum that
fails): Minari's reader then names it in HDF5's own words.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from . import libhdf5
from .libhdf5 import DEFAULT, I_DATASET, INDEX_NAME, ITER_INC, MAX_RANK, S_SCALAR, S_SIMPLE, T_STRING

_ARRAYS = {"actions": b"actions", "rewards": b"rewards", "terminations": b"terminations",
           "truncations": b"truncations"}


class NotHandled(Exception):
    """An episode this reader does not read exactly as Minari would, or cannot read at all:
    read it with Minari (which reads it, or says what is wrong)."""


def available() -> bool:
    """Whether the libhdf5 h5py loaded can be called (else every episode goes through Minari)."""
    return libhdf5.library() is not None


class EpisodeReader:
    """The episodes of one Minari ``main_data.hdf5``, read one by one (``read(index)``); a
    context manager that closes the file. Requires ``available()``.

    ``attributes``: the names of the episode attributes to read where present (e.g.
    ``options/task_id``); None, all of them, as ``get_episode_metadata``. Each attribute costs
    about as much as an array, and readers of ours need 6 of Minari's 8."""

    def __init__(self, path: Path, attributes: Sequence[str] | None = None) -> None:
        if not available():
            raise NotHandled("libhdf5 cannot be called through ctypes here")
        self._h5 = libhdf5.library()
        self._file = h5py.h5f.open(str(path).encode(), h5py.h5f.ACC_RDONLY)  # h5py's object keeps it open
        # (class, size) -> [(a copy of a type met, its dtype)]
        self._types: dict[tuple[int, int], list[tuple[int, np.dtype]]] = {}
        self._dims = (ctypes.c_uint64 * MAX_RANK)()
        self._name = ctypes.create_string_buffer(1024)
        self._info = libhdf5.GroupInfo()
        self._wanted = None if attributes is None else [name.encode("utf-8") for name in attributes]
        self._last: dict[bytes, tuple[int, np.dtype]] = {}  # link -> the type it had last, and its dtype

    def __enter__(self) -> EpisodeReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for entries in self._types.values():
            for type_id, _ in entries:
                self._h5.H5Tclose(type_id)
        self._types, self._last = {}, {}
        self._file.close()

    def read(self, index: int) -> tuple[dict[str, Any], dict[str, Any]]:
        """Episode ``index``: (``get_episodes``' dict, ``get_episode_metadata``'s dict). The
        instruction comes back as the stored strings (``bytes``; Minari decodes them to ``str``)."""
        with libhdf5.lock:
            return self._read(index)

    def _read(self, index: int) -> tuple[dict[str, Any], dict[str, Any]]:
        h5 = self._h5
        name = f"episode_{index}".encode()
        episode = h5.H5Gopen2(self._file.id, name, DEFAULT)
        if episode < 0:
            raise NotHandled(f"no group {name.decode()}")
        try:
            if self._links(episode, b"observations") != [b"instruction", b"state"]:
                raise NotHandled(f"{name.decode()}/observations is not (instruction, state)")
            stored: dict[str, Any] = {"id": index, "observations": {
                "state": self._dataset(episode, b"observations/state", name),
                "instruction": self._dataset(episode, b"observations/instruction", name)}}
            stored["infos"] = None
            if h5.H5Lexists(episode, b"infos", DEFAULT) > 0:
                stored["infos"] = {key.decode(): self._dataset(episode, b"infos/" + key, name)
                                   for key in self._links(episode, b"infos")}
            for key, link in _ARRAYS.items():
                stored[key] = self._dataset(episode, link, name)
            attributes = (self._attributes(episode, name) if self._wanted is None
                          else self._named_attributes(episode, name))
            return stored, _metadata(attributes)
        finally:
            h5.H5Gclose(episode)

    def _links(self, location: int, group_name: bytes) -> list[bytes]:
        """The link names of a group, in name order."""
        h5 = self._h5
        group = h5.H5Gopen2(location, group_name, DEFAULT)
        if group < 0:
            raise NotHandled(f"no group {group_name.decode()}")
        try:
            if h5.H5Gget_info(group, ctypes.byref(self._info)) < 0:
                raise NotHandled(f"cannot list group {group_name.decode()}")
            names = []
            for position in range(self._info.nlinks):
                length = h5.H5Lget_name_by_idx(group, b".", INDEX_NAME, ITER_INC, position, self._name,
                                               len(self._name), DEFAULT)
                if length < 0 or length >= len(self._name):
                    raise NotHandled(f"a link name in {group_name.decode()} is too long")
                names.append(self._name.value)
            return names
        finally:
            h5.H5Gclose(group)

    def _shape(self, space: int, what: bytes) -> tuple[int, ...]:
        h5 = self._h5
        kind = h5.H5Sget_simple_extent_type(space)
        if kind == S_SCALAR:
            return ()
        if kind != S_SIMPLE:
            raise NotHandled(f"{what.decode()}: an empty (null) dataspace")
        rank = h5.H5Sget_simple_extent_dims(space, self._dims, None)
        return tuple(self._dims[:rank])

    def _dtype(self, type_id: int, describe) -> tuple[int, np.dtype]:
        """A copy of HDF5 type ``type_id`` kept open until ``close``, and the numpy dtype h5py
        gives it (``describe()`` asks h5py, once per type)."""
        h5 = self._h5
        key = (h5.H5Tget_class(type_id), h5.H5Tget_size(type_id))
        entries = self._types.setdefault(key, [])
        for known, dtype in entries:
            if h5.H5Tequal(type_id, known) > 0:
                return known, dtype
        try:
            dtype = describe()
        except (KeyError, OSError, ValueError) as error:
            raise NotHandled(f"h5py cannot describe the type: {error}") from None
        if dtype.hasobject or dtype.subdtype is not None or dtype.names is not None:
            raise NotHandled(f"HDF5 type read as {dtype}")
        entries.append((h5.H5Tcopy(type_id), dtype))
        return entries[-1]

    def _dataset(self, episode: int, link: bytes, group: bytes) -> np.ndarray:
        """The whole of dataset ``link`` of the episode group, as ``Dataset[()]`` reads it: in the
        stored type (h5py's dtype for it), no conversion."""
        h5 = self._h5
        dataset = h5.H5Oopen(episode, link, DEFAULT)
        if dataset < 0:
            raise NotHandled(f"no dataset {link.decode()}")
        try:
            if h5.H5Iget_type(dataset) != I_DATASET:
                raise NotHandled(f"{group.decode()}/{link.decode()} is not a dataset")
            type_id, space = h5.H5Dget_type(dataset), h5.H5Dget_space(dataset)
            try:
                path = group + b"/" + link
                shape = self._shape(space, path)
                if h5.H5Tget_class(type_id) == T_STRING and h5.H5Tis_variable_str(type_id) > 0:
                    return self._strings(dataset, space, shape, path)
                last = self._last.get(link)
                if last is None or h5.H5Tequal(type_id, last[0]) <= 0:
                    last = self._last[link] = self._dtype(
                        type_id, lambda: h5py.h5d.open(self._file, path).dtype)
                array = np.empty(shape, dtype=last[1])
                if array.size and h5.H5Dread(dataset, type_id, DEFAULT, DEFAULT, DEFAULT,
                                             array.ctypes.data) < 0:
                    raise NotHandled(f"cannot read dataset {link.decode()}")
                return array
            finally:
                h5.H5Tclose(type_id)
                h5.H5Sclose(space)
        finally:
            h5.H5Oclose(dataset)

    def _strings(self, dataset: int, space: int, shape: tuple[int, ...], path: bytes) -> np.ndarray:
        """A dataset of variable-length strings (Minari's writer's), as h5py reads it: an object
        array of ``bytes``."""
        h5 = self._h5
        count = int(np.prod(shape))
        pointers = (ctypes.c_char_p * count)()
        if count and h5.H5Dread(dataset, h5.vlen_utf8, DEFAULT, DEFAULT, DEFAULT, pointers) < 0:
            raise NotHandled(f"cannot read dataset {path.decode()}")
        try:
            array = np.empty(count, dtype=h5py.string_dtype("utf-8"))
            array[:] = [value or b"" for value in pointers]
            return array.reshape(shape)
        finally:
            if count:
                h5.H5Treclaim(h5.vlen_utf8, space, DEFAULT, pointers)

    def _attributes(self, episode: int, group: bytes) -> dict[str, Any]:
        """The group's attributes as ``dict(group.attrs)`` gives them (variable-length strings as
        ``str``, other scalars as numpy scalars)."""
        h5 = self._h5
        values: dict[str, Any] = {}
        for position in range(h5.H5Aget_num_attrs(episode)):
            attribute = h5.H5Aopen_by_idx(episode, b".", INDEX_NAME, ITER_INC, position, DEFAULT, DEFAULT)
            if attribute < 0:
                raise NotHandled(f"cannot open attribute {position}")
            try:
                length = h5.H5Aget_name(attribute, len(self._name), self._name)
                if length < 0 or length >= len(self._name):
                    raise NotHandled("an attribute name is too long")
                name = self._name.value.decode("utf-8")
                values[name] = self._attribute(attribute, group + b":" + self._name.value)
            finally:
                h5.H5Aclose(attribute)
        return values

    def _named_attributes(self, episode: int, group: bytes) -> dict[str, Any]:
        """The attributes named in ``attributes`` that the group has."""
        h5 = self._h5
        values: dict[str, Any] = {}
        for name in self._wanted:
            if h5.H5Aexists(episode, name) <= 0:
                continue
            attribute = h5.H5Aopen(episode, name, DEFAULT)
            if attribute < 0:
                raise NotHandled(f"cannot open attribute {name.decode()}")
            try:
                values[name.decode("utf-8")] = self._attribute(attribute, group + b":" + name)
            finally:
                h5.H5Aclose(attribute)
        return values

    def _attribute(self, attribute: int, where: bytes) -> Any:
        h5 = self._h5
        type_id, space = h5.H5Aget_type(attribute), h5.H5Aget_space(attribute)
        try:
            shape = self._shape(space, where)
            if h5.H5Tget_class(type_id) == T_STRING and h5.H5Tis_variable_str(type_id) > 0:
                if shape != ():
                    raise NotHandled(f"{where.decode()}: an array of variable-length strings")
                pointer = ctypes.c_char_p()
                if h5.H5Aread(attribute, h5.vlen_utf8, ctypes.byref(pointer)) < 0:
                    raise NotHandled(f"cannot read attribute {where.decode()}")
                try:
                    return (pointer.value or b"").decode("utf-8", "surrogateescape")
                finally:
                    h5.H5free_memory(pointer)
            group, _, name = where.partition(b":")
            _, dtype = self._dtype(
                type_id, lambda: h5py.h5a.open(h5py.h5g.open(self._file, group), name).dtype)
            array = np.zeros(shape, dtype=dtype)
            if h5.H5Aread(attribute, type_id, array.ctypes.data) < 0:
                raise NotHandled(f"cannot read attribute {where.decode()}")
            return array[()] if array.ndim == 0 else array
        finally:
            h5.H5Tclose(type_id)
            h5.H5Sclose(space)


def _metadata(attributes: dict[str, Any]) -> dict[str, Any]:
    """``get_episode_metadata``'s dict: ``a/b`` names nested, ``seed`` as an int."""
    metadata: dict[str, Any] = {}
    for name, value in attributes.items():
        *parents, leaf = name.split("/")
        node = metadata
        for parent in parents:
            node = node.setdefault(parent, {})
        node[leaf] = value
    if metadata.get("seed") is not None:
        metadata["seed"] = int(metadata["seed"])
    return metadata
