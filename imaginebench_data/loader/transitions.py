"""Flat, aligned transitions of one dataset, cached on disk: ``load(dataset_id)``.

Alignment (an episode of T steps becomes T rows; ``i`` is a row, ``t`` its ``steps[i]``)::

    Minari episode e         s_0    s_1    s_2   ...  s_{T-1}   s_T
                               \\ a_0  \\ a_1        ...   \\ a_{T-1}
    observations[i]          s_0    s_1    s_2   ...  s_{T-1}
    next_observations[i]     s_1    s_2    s_3   ...  s_T
    actions[i]               a_0    a_1    a_2   ...  a_{T-1}
    rewards[i]               r_0    r_1    r_2   ...  r_{T-1}      r_t = r(s_t, a_t, s_{t+1})
    terminals[i]             F      F      F     ...  d_{T-1}      goal reached at s_T
    timeouts[i]              F      F      F     ...  u_{T-1}      time limit at s_T
    episode_ids[i]           e      e      e     ...  e
    steps[i]                 0      1      2     ...  T-1

``observations[i]`` is paired with ``actions[i]`` and ``next_observations[i]`` is the next
observation of the same episode, so the final observation ``s_T`` of an episode appears only
as a next observation (never as an observation). Rows of one episode are contiguous and in
step order; episodes follow Minari's episode order. Per-row quality flags, from the stored
``infos`` (index 0 describes the reset state, index t+1 the transition t):

- ``legal[i]``: states s_t and s_{t+1} are both legal (``infos["legal"][t] & [t+1]``).
- ``transition_ok[i]``: the transition re-simulates within tolerance (``infos[...][t+1]``).
- ``success[i]``: the task predicate holds on the transition (``infos["success"][t+1]``).
- ``goal_consistent[i]``: the episode's final transition satisfies its predicate
  (``infos["success"][T]``), repeated on every row of the episode.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..cards.card import Card
from ..core.episode import Episode
from ..datasets.checksum import DatasetChecksum
from ..datasets.ids import DatasetId
from ..datasets.read import CHUNK, open_dataset, read_card, stored_episodes
from ..domains import get_domain
from ..pipeline.executors import LocalPool
from . import cache

_ARRAYS = ("observations", "next_observations", "actions", "rewards", "terminals", "timeouts",
           "episode_ids", "steps", "instruction_ids", "legal", "transition_ok", "success",
           "goal_consistent")
# The episode table's columns and dtypes (``str``: pandas' string dtype; ``Int64``: nullable).
_EPISODE_DTYPES = {"episode_id": "int64", "task_id": "str", "level": "str", "phrasing_id": "int64",
                   "source": "str", "seed": "Int64", "length": "int64", "return": "float64"}
_EPISODE_COLUMNS = tuple(_EPISODE_DTYPES)
_STRING_COLUMNS = tuple(name for name, dtype in _EPISODE_DTYPES.items() if dtype == "str")
PARALLEL_EPISODES = 4 * CHUNK  # a cold load of this many episodes or more reads on every core
MAX_READERS = 4
_EPISODE_PREFIX = "episodes__"  # the episode table's columns among the cache entry's arrays


@dataclass(eq=False)
class Transitions:
    """All transitions of one dataset as aligned arrays (see the module docstring).

    N rows, state dimension D. ``observations``/``next_observations`` (N, D) float32;
    ``actions`` (N,) int64 for discrete action spaces or (N, A) float32; ``rewards`` (N,)
    float32; ``terminals``, ``timeouts``, ``legal``, ``transition_ok``, ``success``,
    ``goal_consistent`` (N,) bool; ``episode_ids``, ``steps``, ``instruction_ids`` (N,) int64,
    with ``instructions[instruction_ids[i]]`` the instruction of row i (``instructions`` is
    sorted and unique). ``episodes`` has one row per episode (columns episode_id, task_id,
    level, phrasing_id, source, seed, length, return), ``card`` is the dataset card.
    Compared by identity, so it can key a ``Sampler``'s datasets.
    """

    dataset_id: str
    observations: np.ndarray
    next_observations: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    terminals: np.ndarray
    timeouts: np.ndarray
    episode_ids: np.ndarray
    steps: np.ndarray
    instruction_ids: np.ndarray
    instructions: list[str]
    legal: np.ndarray
    transition_ok: np.ndarray
    success: np.ndarray
    goal_consistent: np.ndarray
    episodes: pd.DataFrame
    card: Card | None = None

    def __len__(self) -> int:
        return len(self.rewards)

    def __repr__(self) -> str:
        return (f"Transitions({self.dataset_id!r}, {len(self)} transitions, {len(self.episodes)} episodes, "
                f"{len(self.instructions)} instructions)")

    @property
    def instruction_texts(self) -> np.ndarray:
        """(N,) object array: the instruction string of every row."""
        return np.asarray(self.instructions, dtype=object)[self.instruction_ids]


def default_cache_dir() -> Path:
    """``$IMAGINEBENCH_CACHE`` or ``~/.cache/imaginebench``."""
    return Path(os.environ.get("IMAGINEBENCH_CACHE") or Path.home() / ".cache" / "imaginebench")


def load(dataset_id: str | DatasetId, *, cache_dir: str | os.PathLike | None = None) -> Transitions:
    """Load ``dataset_id`` (e.g. ``"imaginebench/clevr-train-real-v0"``) as flat transitions.

    The dataset is read from ``$MINARI_DATASETS_PATH`` (default ``~/.minari/datasets``) once
    (from 2,048 episodes on, by a forked process per core), flattened, and cached in
    ``cache_dir`` (default ``default_cache_dir()``) as one ``.ibcache`` file (every array, the
    episode table's columns included, and the strings), keyed by the card's checksum (see
    ``loader/cache.py``: entries are checked when read and rebuilt when damaged; a cache that
    cannot be written only makes loading slower). Later loads read the cache without Minari.

    Raises ``DatasetNotFoundError`` (a ``KeyError``) naming the id, the folder searched and
    the locally available imaginebench ids, and ``DatasetChangedError`` (a ``ValueError``)
    when the stored episodes no longer hash to the card's checksum: such data is neither
    served nor cached.
    """
    dataset_id = DatasetId.parse(dataset_id)
    card = read_card(dataset_id)
    folder = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    cached = _read_cache(_cache_stem(folder, dataset_id, card), str(dataset_id), card)
    if cached is not None:
        return cached
    dataset, card = open_dataset(dataset_id)  # the card again: a build may have replaced both since
    transitions, checksum = _flatten(str(dataset_id), dataset, card)
    if checksum != card.checksum:
        raise DatasetChangedError(
            f"dataset {dataset_id}: its episodes hash to {checksum[:12]}, its card says "
            f"{card.checksum[:12]}: "
            f"the data changed after it was written (`imaginebench verify {dataset_id}` says which of its "
            "checks fail; "
            "rebuild it with --force)")
    _write_cache(_cache_stem(folder, dataset_id, card), transitions)  # under the checksum checked
    return transitions


def _cache_stem(folder: Path, dataset_id: DatasetId, card: Card) -> Path:
    """Where ``dataset_id``'s flattened data with ``card``'s checksum is cached."""
    return folder / f"{dataset_id.namespace}_{dataset_id.name}-{cache.cache_key(card.checksum)}"


class DatasetChangedError(ValueError):
    """A dataset whose episodes no longer hash to its card's checksum: never served, never cached."""


def _flatten(dataset_id: str, dataset: Any, card: Card) -> tuple[Transitions, str]:
    """The dataset's transitions, and the checksum its episodes hash to (as the writer's).

    Chunks of ``CHUNK`` episodes are read and flattened by ``_flatten_chunk``; from
    ``PARALLEL_EPISODES`` episodes on, in forked processes on every core (at most
    ``MAX_READERS``), their results joined here in episode order (the checksum hashes one
    stream, so it is the same however the chunks were read)."""
    parts: dict[str, list[np.ndarray]] = {name: [] for name in _ARRAYS if name != "instruction_ids"}
    texts: list[str] = []
    lengths: list[int] = []
    rows: list[dict[str, Any]] = []
    checksum = DatasetChecksum.for_card(card)
    count = dataset.total_episodes
    chunks = [range(start, min(start + CHUNK, count)) for start in range(0, count, CHUNK)]
    workers = min(MAX_READERS, os.cpu_count() or 1) if count >= PARALLEL_EPISODES else 1
    setup = (_set_reading, (dataset, card.domain, checksum.everything))
    for chunk in LocalPool(workers).map(_flatten_chunk, chunks, setup):
        for name, arrays in chunk["parts"].items():
            parts[name].append(arrays)
        checksum.update_bytes(chunk["hashed"], episodes=len(chunk["rows"]))
        rows += chunk["rows"]
        texts += chunk["texts"]
        lengths += chunk["lengths"]
    arrays = {k: (np.concatenate(v) if v else np.zeros(0)) for k, v in parts.items()}
    instructions, text_ids = np.unique(np.asarray(texts, dtype=str), return_inverse=True)
    instruction_ids = np.repeat(text_ids.reshape(-1), lengths).astype(np.int64)
    frame = _episode_frame({name: [row[name] for row in rows] for name in _EPISODE_COLUMNS})
    return Transitions(
        dataset_id=dataset_id,
        observations=arrays["observations"].astype(np.float32, copy=False),
        next_observations=arrays["next_observations"].astype(np.float32, copy=False),
        actions=arrays["actions"],
        rewards=arrays["rewards"].astype(np.float32, copy=False),
        terminals=arrays["terminals"].astype(bool, copy=False),
        timeouts=arrays["timeouts"].astype(bool, copy=False),
        episode_ids=arrays["episode_ids"].astype(np.int64, copy=False),
        steps=arrays["steps"].astype(np.int64, copy=False),
        instruction_ids=instruction_ids,
        instructions=[str(s) for s in instructions],
        legal=arrays["legal"].astype(bool, copy=False),
        transition_ok=arrays["transition_ok"].astype(bool, copy=False),
        success=arrays["success"].astype(bool, copy=False),
        goal_consistent=arrays["goal_consistent"].astype(bool, copy=False),
        episodes=frame,
        card=card,
    ), checksum.hexdigest()


_reading: tuple[Any, Any, bool] | None = None  # what _flatten_chunk reads, set once per process


def _set_reading(dataset: Any, domain_name: str, everything: bool) -> None:
    global _reading
    _reading = (dataset, get_domain(domain_name), everything)


def _flatten_chunk(positions: range) -> dict[str, Any]:
    """The episodes at ``positions`` (of Minari's order) flattened: each array's rows, the
    episode table's rows, the instructions, the lengths and the bytes the checksum hashes."""
    dataset, domain, everything = _reading
    parts: dict[str, list[np.ndarray]] = {name: [] for name in _ARRAYS if name != "instruction_ids"}
    rows, texts, lengths, hashed = [], [], [], []
    checksum = DatasetChecksum(everything)
    indices = dataset.episode_indices
    for position, episode in zip(positions, stored_episodes(dataset, domain, positions)):
        hashed.append(checksum.episode_bytes(episode))
        rows.append(_append_episode(parts, int(indices[position]), episode))
        texts.append(episode.instruction)
        lengths.append(len(episode))
    return {"parts": {name: np.concatenate(arrays) for name, arrays in parts.items()},
            "rows": rows, "texts": texts, "lengths": lengths, "hashed": b"".join(hashed)}


def _flag(infos: dict[str, np.ndarray], key: str, length: int, default: bool) -> np.ndarray:
    if key not in infos:
        return np.full(length, default, dtype=bool)
    return np.asarray(infos[key], dtype=bool).reshape(length)


def _append_episode(parts: dict[str, list[np.ndarray]], index: int, episode: Episode) -> dict[str, Any]:
    """Append one episode's T rows to ``parts``; return its ``episodes`` row."""
    length = len(episode)
    legal = _flag(episode.infos, "legal", length + 1, True)
    success = _flag(episode.infos, "success", length + 1, False)
    parts["observations"].append(episode.states[:-1])
    parts["next_observations"].append(episode.states[1:])
    parts["actions"].append(episode.actions)
    parts["rewards"].append(episode.rewards)
    parts["terminals"].append(episode.terminations)
    parts["timeouts"].append(episode.truncations)
    parts["episode_ids"].append(np.full(length, index, dtype=np.int64))
    parts["steps"].append(np.arange(length, dtype=np.int64))
    parts["legal"].append(legal[:-1] & legal[1:])
    parts["transition_ok"].append(_flag(episode.infos, "transition_ok", length + 1, True)[1:])
    parts["success"].append(success[1:])
    parts["goal_consistent"].append(np.full(length, bool(success[-1])))
    return {
        "episode_id": index,
        "task_id": episode.task_id,
        "level": episode.level,
        "phrasing_id": episode.phrasing_id,
        "source": episode.source,
        "seed": episode.seed,
        "length": length,
        "return": float(np.sum(episode.rewards, dtype=np.float64)),
    }


def _episode_frame(columns: dict[str, Any]) -> pd.DataFrame:
    """The ``episodes`` table from one sequence per column, in ``_EPISODE_DTYPES`` (one
    constructor for flattened and cached data, so both give the same dtypes)."""
    return pd.DataFrame({name: pd.Series(columns[name], dtype=dtype)
                         for name, dtype in _EPISODE_DTYPES.items()})


def _episode_arrays(episodes: pd.DataFrame) -> tuple[dict[str, np.ndarray], dict[str, list[str]]]:
    """The episode table as cache arrays (strings as int32 codes into the returned tables,
    ``seed`` as values and a missing mask) and the string tables."""
    arrays: dict[str, np.ndarray] = {}
    tables: dict[str, list[str]] = {}
    for name, dtype in _EPISODE_DTYPES.items():
        column = episodes[name]
        if dtype == "str":
            table, codes = np.unique(column.to_numpy(dtype=str), return_inverse=True)
            tables[name] = [str(text) for text in table]
            arrays[name] = codes.reshape(-1).astype(np.int32)
        elif dtype == "Int64":
            arrays[name] = column.to_numpy(dtype=np.int64, na_value=0)
            arrays[name + "_missing"] = column.isna().to_numpy()
        else:
            arrays[name] = column.to_numpy(dtype=dtype)
    return {_EPISODE_PREFIX + name: array for name, array in arrays.items()}, tables


def _episode_names() -> tuple[str, ...]:
    names = [name + "_missing" for name, dtype in _EPISODE_DTYPES.items() if dtype == "Int64"]
    return tuple(_EPISODE_PREFIX + name for name in (*_EPISODE_COLUMNS, *names))


def _read_cache(stem: Path, dataset_id: str, card: Card) -> Transitions | None:
    """The cached transitions, or None; ``card`` is the current one (its metadata may have changed)."""
    episode_names = _episode_names()
    entry = cache.read(stem, _ARRAYS + episode_names, aligned=(_ARRAYS, episode_names))
    if entry is None:
        return None
    arrays, strings = entry
    columns = {name: arrays.pop(_EPISODE_PREFIX + name) for name in _EPISODE_COLUMNS}
    for name in _STRING_COLUMNS:
        columns[name] = np.asarray(strings["episode_strings"][name], dtype=object)[columns[name]]
    for name, dtype in _EPISODE_DTYPES.items():
        if dtype == "Int64":
            missing = arrays.pop(_EPISODE_PREFIX + name + "_missing")
            columns[name] = pd.arrays.IntegerArray(columns[name], missing)
    return Transitions(dataset_id=dataset_id, instructions=strings["instructions"],
                       episodes=_episode_frame(columns), card=card, **arrays)


def _write_cache(stem: Path, transitions: Transitions) -> None:
    episode_arrays, tables = _episode_arrays(transitions.episodes)
    strings = {"dataset_id": transitions.dataset_id, "instructions": transitions.instructions,
               "episode_strings": tables}
    arrays = {name: getattr(transitions, name) for name in _ARRAYS}
    cache.write(stem, {**arrays, **episode_arrays}, strings)
