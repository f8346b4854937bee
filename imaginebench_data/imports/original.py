"""One original file once read, in one shape whatever its storage, and the checks all share.

Arrays of an ``OriginalFile`` (N trajectories padded to T steps; encodings already stripped)::

    observations       (N, T, D)          o_t, the state before action t (D = the domain's
                                          ``original.state_dim``: the original's state layout)
    actions            (N, T) or (N, T, A)
    rewards            (N, T)             stored as (N, T, 1) or (N, T)
    masks              (N, T)             1 on the first L_i steps, 0 after (a prefix of ones)
    next_observations  (N, T, D)          optional: the state after action t
    terminals          (N, T)             optional; not used (see convert)

``instructions`` (N lists of strings), ``goals`` (N 1-d float arrays) and ``task_str``
(N strings) are there when the file carries them; ``encodings`` ((N, 768) float32, each
trajectory's instruction encoding at its first step) where its observations carry one.
"""

from __future__ import annotations

import hashlib
import reprlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .names import ENCODING_DIM, Target

if TYPE_CHECKING:
    from .limits import Budget

REQUIRED_KEYS = ("observations", "actions", "rewards", "masks")
OPTIONAL_KEYS = ("next_observations", "terminals")
STATE_KEYS = ("observations", "next_observations")
NUMERIC_KINDS = "biuf"  # bool, signed, unsigned, float: the only dtypes an array key may have


class OriginalFileError(ValueError):
    """An original file is unreadable or inconsistent; the message names the file and the key."""


_repr = reprlib.Repr()
_repr.maxstring = _repr.maxother = 80


def short_repr(value: object) -> str:
    """A short repr for messages, safe on deep or huge values."""
    return _repr.repr(value)


def one_line(text: object, limit: int = 300) -> str:
    """``text`` (another library's message) on one line, cut to ``limit`` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[:limit - 3] + "..."


@dataclass
class OriginalFile:
    """One original file: where it came from, its target dataset and its arrays (see module doc)."""

    name: str
    format: str
    paths: list[Path]
    target: Target
    arrays: dict[str, np.ndarray]
    stored_width: int
    instructions: list[list[str]] | None = None
    goals: list[np.ndarray] | None = None
    task_str: list[str] | None = None
    encodings: np.ndarray | None = None
    lengths: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @property
    def rows(self) -> int:
        return len(self.arrays["observations"])


def state_columns(file_name: str, key: str, width: int, state_dim: int) -> int:
    """How many leading columns of a stored observation are state: ``state_dim`` (the original's
    state size; the encoding is stripped)."""
    if width not in (state_dim, state_dim + ENCODING_DIM):
        raise OriginalFileError(
            f"{file_name}: key {key!r} has observation width {width}; expected {state_dim} (the original's "
            f"state) or {state_dim + ENCODING_DIM} (state + {ENCODING_DIM}-d instruction encoding)")
    return state_dim


def first_encodings(observations: np.ndarray, state_dim: int) -> np.ndarray | None:
    """(N, 768) float32: the instruction encoding of each trajectory's first observation, or None
    when ``observations`` (N, T, W) carry no encoding (W = state_dim)."""
    if observations.shape[2] != state_dim + ENCODING_DIM or observations.shape[1] == 0:
        return None
    return np.ascontiguousarray(observations[:, 0, state_dim:], dtype=np.float32)


def numeric(file_name: str, key: str, value: object, budget: Budget | None = None) -> np.ndarray:
    """``value`` as a numeric array, or a clear error (object or string arrays are refused); nested
    lists are converted only within ``budget``."""
    if budget is not None:
        budget.take_nested(key, value)
    try:
        array = np.asarray(value)
    except (ValueError, TypeError, OverflowError) as error:  # ragged nested lists, odd objects
        raise OriginalFileError(f"{file_name}: key {key!r} is not a rectangular array "
                                f"({one_line(error)})") from error
    if array.dtype.kind not in NUMERIC_KINDS:
        raise OriginalFileError(f"{file_name}: key {key!r} has dtype {array.dtype}; expected a numeric array "
                                f"(bool, int or float) of shape (N, T, ...)")
    return array


def _entries(file_name: str, key: str, value: object) -> list | tuple | np.ndarray:
    """The per-trajectory entries of ``value``: a list, tuple or array of at least one dimension."""
    if isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim >= 1):
        return value
    raise OriginalFileError(f"{file_name}: key {key!r} is {short_repr(value)} ({type(value).__name__}); "
                            "expected one entry per trajectory (a list or an array)")


def _entry_array(file_name: str, key: str, row: int, entry: object, budget: Budget | None,
                 dtype: type | None = None) -> np.ndarray:
    if budget is not None:
        budget.take_nested(key, entry)
    try:
        return np.asarray(entry, dtype=dtype)
    except (ValueError, TypeError, OverflowError) as error:
        raise OriginalFileError(f"{file_name}: key {key!r} trajectory {row}: {short_repr(entry)} is not an "
                                f"array ({one_line(error)})") from error


def instruction_lists(file_name: str, value: object, budget: Budget | None = None) -> list[list[str]]:
    """Per-trajectory instruction strings: each entry a string or a sequence of strings."""
    lists = []
    for row, entry in enumerate(_entries(file_name, "instructions", value)):
        texts = [entry] if isinstance(entry, str) else list(
            _entry_array(file_name, "instructions", row, entry, budget, object).ravel())
        if not texts or not all(isinstance(t, str) for t in texts):
            raise OriginalFileError(f"{file_name}: key 'instructions' trajectory {row}: expected a string "
                                    f"or a non-empty list of strings, found {short_repr(entry)}")
        lists.append([str(t) for t in texts])
    return lists


def goal_vectors(file_name: str, value: object, budget: Budget | None = None) -> list[np.ndarray]:
    """Per-trajectory goal vectors as 1-d floats; a 2-d goal contributes its first row (as the original)."""
    goals = []
    for row, entry in enumerate(_entries(file_name, "goals", value)):
        goal = _entry_array(file_name, "goals", row, entry, budget)
        if goal.ndim == 2 and len(goal):
            goal = goal[0]
        if goal.ndim != 1 or goal.dtype.kind not in NUMERIC_KINDS:
            raise OriginalFileError(f"{file_name}: key 'goals' trajectory {row}: expected a numeric vector, "
                                    f"found shape {goal.shape} dtype {goal.dtype}")
        goals.append(goal.astype(np.float64))
    return goals


def task_strings(file_name: str, value: object, budget: Budget | None = None) -> list[str]:
    """Per-trajectory task strings: each entry a string or a one-string list."""
    strings = []
    for row, entry in enumerate(_entries(file_name, "task_str", value)):
        texts = _entry_array(file_name, "task_str", row, entry, budget, object).ravel()
        if len(texts) != 1 or not isinstance(texts[0], str):
            raise OriginalFileError(f"{file_name}: key 'task_str' trajectory {row}: expected one string, "
                                    f"found {short_repr(entry)}")
        strings.append(str(texts[0]))
    return strings


def take_annotations(original: OriginalFile, file_name: str, mapping: object,
                     budget: Budget | None = None) -> None:
    """Set the original's instructions, goals and task strings from the dict ``mapping``, where present."""
    if not isinstance(mapping, dict):
        raise OriginalFileError(f"{file_name}: expected a pickled dict, found {type(mapping).__name__}")
    if "instructions" in mapping:
        original.instructions = instruction_lists(file_name, mapping["instructions"], budget)
    if "goals" in mapping:
        original.goals = goal_vectors(file_name, mapping["goals"], budget)
    if "task_str" in mapping:
        original.task_str = task_strings(file_name, mapping["task_str"], budget)


def _squeeze_last(file_name: str, key: str, array: np.ndarray, rows: int, steps: int) -> np.ndarray:
    if array.ndim == 3 and array.shape[2] == 1:
        array = array[:, :, 0]
    if array.shape != (rows, steps):
        raise OriginalFileError(f"{file_name}: key {key!r} has shape {array.shape}; expected "
                                f"({rows}, {steps}) or ({rows}, {steps}, 1) to match observations "
                                f"{(rows, steps)}")
    return array


def _mask_lengths(name: str, masks: np.ndarray) -> np.ndarray:
    """(N,) valid lengths; every row must be ones then zeros."""
    if not np.isin(masks, (0, 1)).all():
        values = np.unique(masks[~np.isin(masks, (0, 1))])[:5]
        raise OriginalFileError(f"{name}: key 'masks' holds values {values.tolist()}; expected only 0 and 1")
    lengths = masks.sum(axis=1).astype(np.int64)
    prefix = np.arange(masks.shape[1]) < lengths[:, None]
    broken = np.flatnonzero((masks.astype(bool) != prefix).any(axis=1))
    if len(broken):
        row = int(broken[0])
        raise OriginalFileError(
            f"{name}: key 'masks' trajectory {row} is not a prefix of ones (valid length = masks.sum() "
            f"needs ones then zeros); found {masks[row].astype(int).tolist()} "
            f"({len(broken)} such trajectories)")
    return lengths


def _require_finite(original: OriginalFile, key: str, values: np.ndarray, valid: np.ndarray,
                    why: str) -> None:
    bad = valid & ~np.isfinite(values).reshape(*valid.shape, -1).all(axis=-1)
    if bad.any():
        row, step = (int(i) for i in np.argwhere(bad)[0])
        raise OriginalFileError(f"{original.name}: key {key!r} trajectory {row} step {step} is not finite "
                                f"({int(bad.sum())} such steps); {why}")


def check_original(original: OriginalFile) -> None:
    """Check keys, shapes, masks and finiteness; set ``original.lengths`` (the masks' sums).

    Rewards and actions must be finite on valid steps; so must observations of real files
    (imaginary ones may hold non-finite states: the checkers flag them illegal).
    """
    name, arrays = original.name, original.arrays
    missing = [key for key in REQUIRED_KEYS if key not in arrays]
    if missing:
        raise OriginalFileError(f"{name}: missing key(s) {missing}; expected {list(REQUIRED_KEYS)} "
                                f"(found {sorted(arrays)})")
    observations = arrays["observations"]
    if observations.ndim != 3:
        raise OriginalFileError(f"{name}: key 'observations' has shape {observations.shape}; "
                                "expected (N, T, D)")
    rows, steps = observations.shape[:2]
    if rows == 0 or steps == 0:
        raise OriginalFileError(f"{name}: key 'observations' has shape {observations.shape}; expected at "
                                "least one trajectory of at least one step")
    if "next_observations" in arrays and arrays["next_observations"].shape != observations.shape:
        raise OriginalFileError(f"{name}: key 'next_observations' has shape "
                                f"{arrays['next_observations'].shape}; expected {observations.shape} "
                                "like observations")
    for key in ("rewards", "masks", "terminals"):
        if key in arrays:
            arrays[key] = _squeeze_last(name, key, arrays[key], rows, steps)
    if arrays["actions"].shape[:2] != (rows, steps) or arrays["actions"].ndim > 3:
        raise OriginalFileError(f"{name}: key 'actions' has shape {arrays['actions'].shape}; expected "
                                f"({rows}, {steps}) or ({rows}, {steps}, A) to match observations")
    for key, value in (("instructions", original.instructions), ("goals", original.goals),
                       ("task_str", original.task_str)):
        if value is not None and len(value) != rows:
            raise OriginalFileError(f"{name}: key {key!r} has {len(value)} entries for {rows} trajectories")
    original.lengths = _mask_lengths(name, arrays["masks"])
    valid = np.arange(steps) < original.lengths[:, None]
    _require_finite(original, "rewards", arrays["rewards"], valid, "rewards must be finite")
    _require_finite(original, "actions", arrays["actions"], valid, "actions must be finite")
    if original.target.source == "real":
        for key in STATE_KEYS:
            if key in arrays:
                _require_finite(original, key, arrays[key], valid, "real data must hold finite states")


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
