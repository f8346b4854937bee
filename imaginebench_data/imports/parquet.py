"""Reading the Hugging Face Parquet release of the original files (reference 0.5).

One row per trajectory of one original file: ``file_name``, ``row_index``, and for each
array key ``<key>_shape`` (text such as "(18000, 39, 17)": the shape of the WHOLE original
array), ``<key>_dtype`` and ``<key>_data`` (the little-endian bytes of that trajectory's
slice, shape ``shape[1:]``), plus ``instructions_data`` (a list of strings) and
``task_str_data`` (a list of one string). Rows are grouped by ``file_name`` back into the
original files, in ``row_index`` order; every row's byte count is checked against its shape.
The layout was read off the dataset viewer, not a specification, hence the checks.

Declared sizes are checked before they are used: each shard's row groups must fit in the
import limit uncompressed (``limits``; a scan holds one row group), the column types must be
the release's, a file's declared N must equal the rows present before any array of N is
made, each row's byte count must match its declared row shape before its bytes are decoded,
and the arrays kept of one file count against its ``Budget``. Errors of Arrow itself (a
corrupt shard) become one ``OriginalFileError`` naming the shard(s).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq
from tqdm.auto import tqdm

from .limits import Budget, max_bytes, size_text
from .names import Target, target_of
from .original import (
    NUMERIC_KINDS,
    OPTIONAL_KEYS,
    REQUIRED_KEYS,
    STATE_KEYS,
    OriginalFile,
    OriginalFileError,
    first_encodings,
    goal_vectors,
    instruction_lists,
    one_line,
    state_columns,
    task_strings,
)

ARRAY_KEYS = REQUIRED_KEYS + OPTIONAL_KEYS + ("goals",)
LIST_KEYS = ("instructions", "task_str")
BATCH_ROWS = 4096
SHAPE_TEXT = re.compile(r"^\(\s*\d{1,15}\s*(,\s*\d{1,15}\s*)*,?\s*\)$")  # (N, ...): at least N
ARROW_ERRORS = (pa.ArrowException, OSError, UnicodeError)  # UnicodeError: text columns that are not UTF-8
COLUMN_TYPES = {  # column name pattern -> (type check, what the release holds); any may be all empty
    r"file_name|.+_shape|.+_dtype": (lambda t: pa.types.is_string(t) or pa.types.is_large_string(t), "text"),
    r"row_index": (pa.types.is_integer, "integers"),
    rf"(?:{'|'.join(REQUIRED_KEYS + OPTIONAL_KEYS + ('goals',))})_data": (
        lambda t: pa.types.is_binary(t) or pa.types.is_large_binary(t), "bytes"),
    r"(?:instructions|task_str)_data": (lambda t: (pa.types.is_list(t) or pa.types.is_large_list(t)) and (
        pa.types.is_string(t.value_type) or pa.types.is_large_string(t.value_type)), "lists of text"),
}


def _shape(file_name: str, key: str, text: str) -> tuple[int, ...]:
    if not isinstance(text, str) or not SHAPE_TEXT.match(text):
        raise OriginalFileError(f"{file_name}: column '{key}_shape' is {text!r:.80}; expected a shape such "
                                "as '(18000, 39, 17)'")
    return tuple(int(part) for part in text.strip("() ").split(",") if part.strip())


def _dtype(file_name: str, key: str, text: str) -> np.dtype:
    try:
        dtype = np.dtype(text)
    except (TypeError, ValueError, SyntaxError) as error:
        raise OriginalFileError(f"{file_name}: column '{key}_dtype' is {text!r:.80}, not a numpy dtype"
                                ) from error
    if dtype.kind not in NUMERIC_KINDS:
        raise OriginalFileError(f"{file_name}: column '{key}_dtype' is {text!r}; expected a numeric dtype")
    return dtype.newbyteorder("<")


def _one_value(file_name: str, column: str, values: pa.Array, seen: str | None) -> str:
    """The single value a per-file column must hold in every row."""
    distinct = set(pc.unique(values).to_pylist()) | ({seen} if seen is not None else set())
    if len(distinct) != 1:
        raise OriginalFileError(f"{file_name}: column {column!r} differs between rows: "
                                f"{sorted(map(str, distinct))[:4]}; every row of a file must hold the same")
    return distinct.pop()


class _FileReader:
    """Accumulates the batches of one original file's rows, then assembles its arrays."""

    def __init__(self, name: str, target: Target, keys: list[str], lists: list[str]) -> None:
        self.name, self.target, self.keys, self.lists = name, target, keys, lists
        self.budget = Budget(name)
        self.shape_text: dict[str, str] = {}
        self.dtype_text: dict[str, str] = {}
        self.blocks: dict[str, list[np.ndarray]] = {key: [] for key in keys}
        self.texts: dict[str, list] = {key: [] for key in lists}
        self.row_index: list[np.ndarray] = []
        self.encodings: list[np.ndarray] = []
        self.width = 0

    def add(self, batch: pa.RecordBatch) -> None:
        if batch.num_rows == 0:
            return
        index = batch.column("row_index")
        if index.null_count:
            raise OriginalFileError(f"{self.name}: column 'row_index' is empty in {index.null_count} rows; "
                                    "expected each row's index in its original file")
        rows = np.asarray(index.to_numpy(zero_copy_only=False), np.int64)
        self.row_index.append(rows)
        for key in self.keys:
            data = batch.column(f"{key}_data")
            if data.null_count:
                empty = rows[data.is_null().to_numpy(zero_copy_only=False)]
                raise OriginalFileError(f"{self.name}: column '{key}_data' is empty in {data.null_count} "
                                        f"rows (e.g. row_index {empty[0]}) but filled in others")
            self.shape_text[key] = _one_value(self.name, f"{key}_shape", batch.column(f"{key}_shape"),
                                              self.shape_text.get(key))
            self.dtype_text[key] = _one_value(self.name, f"{key}_dtype", batch.column(f"{key}_dtype"),
                                              self.dtype_text.get(key))
            self.blocks[key].append(self._decode(key, data, rows))
        for key in self.lists:
            self.texts[key].extend(batch.column(f"{key}_data").to_pylist())

    def _decode(self, key: str, data: pa.Array, rows: np.ndarray) -> np.ndarray:
        shape = _shape(self.name, key, self.shape_text[key])
        dtype = _dtype(self.name, key, self.dtype_text[key])
        row_shape = shape[1:]
        expected = math.prod(row_shape) * dtype.itemsize  # Python integers: a huge shape cannot wrap
        found = np.asarray(pc.binary_length(data).to_numpy(zero_copy_only=False), np.int64)
        wrong = np.flatnonzero(found != expected) if expected < 1 << 62 else np.arange(len(found))
        if len(wrong):
            raise OriginalFileError(
                f"{self.name}: column '{key}_data' of row_index {rows[wrong[0]]} holds "
                f"{found[wrong[0]]} bytes; "
                f"expected {expected} = {row_shape} x {dtype.itemsize}-byte {dtype.name} "
                f"(from {key}_shape {self.shape_text[key]!r} without its leading dimension; "
                f"{len(wrong)} row(s) of this batch have the wrong size)")
        if key in STATE_KEYS:
            if len(row_shape) != 2:
                raise OriginalFileError(f"{self.name}: column '{key}_shape' is {self.shape_text[key]!r}; "
                                        "expected (N, T, D)")
            columns = state_columns(self.name, key, row_shape[1], self.target.state_dim)
            self.budget.take(key, len(rows) * row_shape[0] * columns * 4,
                             f"{len(rows)} rows of states as float32")
        else:
            self.budget.take(key, len(rows) * expected, f"{len(rows)} rows")
        values = np.frombuffer(b"".join(data.to_pylist()), dtype=dtype).reshape(len(rows), *row_shape)
        if key in STATE_KEYS:
            self.width = row_shape[1]
            encodings = first_encodings(values, self.target.state_dim) if key == "observations" else None
            if encodings is not None:
                self.budget.take(key, encodings.nbytes, f"{len(rows)} rows of first-step encodings")
                self.encodings.append(encodings)
            return values[:, :, :columns].astype(np.float32)
        return values.astype(dtype.newbyteorder("="))

    def original(self, paths: list[Path]) -> OriginalFile:
        if "observations" not in self.keys:
            raise OriginalFileError(f"{self.name}: missing key 'observations' (no observations_* values in "
                                    "its rows); expected observations, actions, rewards, masks")
        rows = np.concatenate(self.row_index)
        order = np.argsort(rows, kind="stable")
        declared = _shape(self.name, "observations", self.shape_text["observations"])[0]
        for key in self.keys:  # every key's leading dimension is the file's N, and N rows are present
            text = self.shape_text[key]
            if _shape(self.name, key, text)[0] != declared or declared != len(rows):
                raise OriginalFileError(
                    f"{self.name}: column '{key}_shape' is {text!r}: N = {_shape(self.name, key, text)[0]} "
                    f"trajectories; expected N = {len(rows)}, the rows present (observations_shape "
                    f"{self.shape_text['observations']!r})")
        if not np.array_equal(rows[order], np.arange(len(rows))):  # no larger than the rows present
            missing = np.setdiff1d(np.arange(len(rows)), rows)[:5].tolist()
            raise OriginalFileError(
                f"{self.name}: column 'row_index' holds {len(rows)} rows ({len(np.unique(rows))} distinct); "
                f"expected each of 0..{declared - 1} once (N = {declared} from observations_shape); "
                f"missing e.g. {missing}")
        arrays = {key: np.concatenate(blocks)[order] for key, blocks in self.blocks.items() if key != "goals"}
        original = OriginalFile(self.name, "parquet", paths, self.target, arrays, self.width)
        texts = {key: [values[i] for i in order] for key, values in self.texts.items()}
        if "instructions" in texts:
            original.instructions = instruction_lists(self.name, texts["instructions"])
        if "task_str" in texts:
            original.task_str = task_strings(self.name, texts["task_str"])
        if "goals" in self.blocks:
            original.goals = goal_vectors(self.name, np.concatenate(self.blocks["goals"])[order])
        if self.encodings:
            original.encodings = np.concatenate(self.encodings)[order]
        return original


def _present(dataset: pads.Dataset, columns_of: dict[str, list[str]], where: pc.Expression) -> list[str]:
    """Keys whose columns all exist and whose first (small) column is filled for the selected rows."""
    present = []
    for key, columns in columns_of.items():
        if all(column in dataset.schema.names for column in columns):
            probe = dataset.to_table(columns=columns[:1], filter=where).column(0)
            if probe.null_count < len(probe):
                present.append(key)
    return present


def _open(paths: list[Path]) -> pads.Dataset:
    """The shards as one dataset, once each shard's footer reads, its row groups fit the import limit
    uncompressed and its columns have the release's types."""
    limit = max_bytes()
    for path in paths:
        try:
            metadata = pq.read_metadata(path)
        except ARROW_ERRORS as error:
            if isinstance(error, MemoryError):
                raise
            raise OriginalFileError(f"{path.name}: not readable as Parquet: its footer does not parse "
                                    f"({type(error).__name__}: {one_line(error)})") from None
        for group in range(metadata.num_row_groups):
            size = metadata.row_group(group).total_byte_size
            if size > limit:
                raise OriginalFileError(f"{path.name}: row group {group} declares {size_text(size)} "
                                        "uncompressed; expected at most the import limit of "
                                        f"{size_text(limit)}")
        for field in metadata.schema.to_arrow_schema():
            for pattern, (fits, holds) in COLUMN_TYPES.items():
                empty = pa.types.is_null(field.type)
                if re.fullmatch(pattern, field.name) and not (fits(field.type) or empty):
                    raise OriginalFileError(f"{path.name}: column {field.name!r} has type {field.type}; "
                                            f"expected {holds}")
    dataset = pads.dataset([str(p) for p in paths], format="parquet")
    for column in ("file_name", "row_index", "observations_shape"):
        if column not in dataset.schema.names:
            raise OriginalFileError(f"{', '.join(p.name for p in paths)}: missing column {column!r}; "
                                    "expected the release layout (file_name, row_index, "
                                    "<key>_shape/_dtype/_data, ...)")
    return dataset


def _read_file(dataset: pads.Dataset, name: str, target: Target, progress: bool) -> OriginalFile:
    where = pc.field("file_name") == name
    keys = _present(dataset, {k: [f"{k}_{p}" for p in ("dtype", "shape", "data")] for k in ARRAY_KEYS}, where)
    lists = _present(dataset, {k: [f"{k}_data"] for k in LIST_KEYS}, where)
    reader = _FileReader(name, target, keys, lists)
    columns = ["row_index", *(f"{k}_{p}" for k in keys for p in ("shape", "dtype", "data")),
               *(f"{k}_data" for k in lists)]
    bar = tqdm(total=dataset.count_rows(filter=where), desc=f"read {name}", unit="row", disable=not progress)
    for batch in dataset.to_batches(columns=columns, filter=where, batch_size=BATCH_ROWS):
        reader.add(batch)
        bar.update(batch.num_rows)
    bar.close()
    shards = [Path(f.path) for f in dataset.get_fragments() if f.count_rows(filter=where)]
    return reader.original(shards)


def read_parquet_release(paths: list[Path], wanted: Callable[[str], bool],
                         progress: bool = True) -> tuple[list[OriginalFile], list[str]]:
    """The original files held in Parquet shards ``paths`` (those ``wanted`` by name, among those
    whose name is a dataset's) and every ``file_name`` the shards hold."""
    shard_names, name = ", ".join(p.name for p in paths), None
    try:
        dataset = _open(paths)
        file_names = dataset.to_table(columns=["file_name"]).column(0)
        if file_names.null_count:
            raise OriginalFileError(f"{shard_names}: column 'file_name' is empty in {file_names.null_count} "
                                    "rows; expected the original file of each row")
        names = sorted(pc.unique(file_names).to_pylist())
        originals = []
        for name in names:
            target = target_of(name)
            if target is not None and wanted(name):
                originals.append(_read_file(dataset, name, target, progress))
    except ARROW_ERRORS as error:
        if isinstance(error, MemoryError):
            raise
        what = f" (reading the rows of {name})" if name else ""
        raise OriginalFileError(f"{shard_names}: not readable as Parquet{what}: {type(error).__name__}: "
                                f"{one_line(error)}") from None
    return originals, names
