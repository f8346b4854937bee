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

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import minari
import numpy as np
import pandas as pd

from ..datasets.store import data_path as local_data_path
from ..datasets.store import plain_value as _plain

CACHE_VERSION = 1
_ARRAYS = ("observations", "next_observations", "actions", "rewards", "terminals", "timeouts",
           "episode_ids", "steps", "instruction_ids", "legal", "transition_ok", "success",
           "goal_consistent")
_EPISODE_COLUMNS = ("episode_id", "task_id", "level", "phrasing_id", "source", "seed", "length", "return")
_CHUNK = 512  # episodes read from Minari at a time


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
    Compared by identity, so it can key a ``Sampler``'s sources.
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
    card: dict[str, Any] = field(default_factory=dict)

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


def load(dataset_id: str, *, cache_dir: str | os.PathLike | None = None) -> Transitions:
    """Load ``dataset_id`` (e.g. ``"imaginebench/clevr-train-real-v0"``) as flat transitions.

    The dataset is read from ``$MINARI_DATASETS_PATH`` (default ``~/.minari/datasets``) once,
    flattened, and cached in ``cache_dir`` (default ``default_cache_dir()``) as a ``.npz``
    plus a JSON for strings, keyed by the card's checksum (or by the HDF5 file's size and
    mtime when the dataset has no card). Later loads read the cache without Minari.

    Raises ``DatasetNotFoundError`` (a ``KeyError``) naming the id, the folder searched and
    the locally available imaginebench ids.
    """
    data_path = local_data_path(dataset_id)
    card = _read_card(data_path)
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    stem = cache / f"{re.sub(r'[^A-Za-z0-9._-]+', '_', dataset_id)}-{_cache_key(data_path, card)}"
    cached = _read_cache(stem, dataset_id, card)
    if cached is not None:
        return cached
    transitions = _flatten(dataset_id, minari.load_dataset(dataset_id), card)
    _write_cache(stem, transitions)
    return transitions


def _read_card(data_path: Path) -> dict[str, Any]:
    with open(data_path / "metadata.json") as f:
        card = json.load(f).get("imaginebench_card") or {}
    return json.loads(card) if isinstance(card, str) else dict(card)


def _cache_key(data_path: Path, card: dict[str, Any]) -> str:
    if card.get("checksum"):
        basis = f"checksum:{card['checksum']}"
    else:
        files = sorted(p for p in data_path.iterdir() if p.name != "metadata.json")
        basis = ";".join(f"{p.name}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in files)
    return hashlib.sha256(f"v{CACHE_VERSION}|{basis}".encode()).hexdigest()[:20]


def _flag(infos: dict[str, Any], key: str, length: int, default: bool) -> np.ndarray:
    if key not in infos:
        return np.full(length, default, dtype=bool)
    return np.asarray(infos[key], dtype=bool).reshape(length)


def _flatten(dataset_id: str, dataset: Any, card: dict[str, Any]) -> Transitions:
    indices = [int(i) for i in dataset.episode_indices]
    parts: dict[str, list[np.ndarray]] = {name: [] for name in _ARRAYS if name != "instruction_ids"}
    texts: list[np.ndarray] = []
    rows: list[dict[str, Any]] = []
    for start in range(0, len(indices), _CHUNK):
        chunk = indices[start : start + _CHUNK]
        metas = list(dataset.storage.get_episode_metadata(chunk))
        for index, episode, meta in zip(chunk, dataset.storage.get_episodes(chunk), metas):
            rows.append(_append_episode(parts, texts, index, episode, meta))
    arrays = {k: (np.concatenate(v) if v else np.zeros(0)) for k, v in parts.items()}
    all_texts = np.concatenate(texts) if texts else np.zeros(0, dtype=object)
    instructions, instruction_ids = np.unique(all_texts.astype(str), return_inverse=True)
    episodes = pd.DataFrame(rows, columns=list(_EPISODE_COLUMNS))
    episodes["seed"] = episodes["seed"].astype("Int64")
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
        instruction_ids=instruction_ids.reshape(-1).astype(np.int64),
        instructions=[str(s) for s in instructions],
        legal=arrays["legal"].astype(bool, copy=False),
        transition_ok=arrays["transition_ok"].astype(bool, copy=False),
        success=arrays["success"].astype(bool, copy=False),
        goal_consistent=arrays["goal_consistent"].astype(bool, copy=False),
        episodes=episodes,
        card=card,
    )


def _append_episode(parts: dict[str, list[np.ndarray]], texts: list[np.ndarray], index: int,
                    episode: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    """Append one episode's T rows to ``parts``/``texts``; return its ``episodes`` row."""
    states = np.asarray(episode["observations"]["state"], dtype=np.float32)
    length = len(episode["rewards"])
    instruction = [_plain(s) for s in episode["observations"]["instruction"]]
    infos = episode.get("infos") or {}
    legal = _flag(infos, "legal", length + 1, True)
    success = _flag(infos, "success", length + 1, False)
    parts["observations"].append(states[:-1])
    parts["next_observations"].append(states[1:])
    parts["actions"].append(np.asarray(episode["actions"]))
    parts["rewards"].append(np.asarray(episode["rewards"], dtype=np.float32))
    parts["terminals"].append(np.asarray(episode["terminations"], dtype=bool))
    parts["timeouts"].append(np.asarray(episode["truncations"], dtype=bool))
    parts["episode_ids"].append(np.full(length, index, dtype=np.int64))
    parts["steps"].append(np.arange(length, dtype=np.int64))
    parts["legal"].append(legal[:-1] & legal[1:])
    parts["transition_ok"].append(_flag(infos, "transition_ok", length + 1, True)[1:])
    parts["success"].append(success[1:])
    parts["goal_consistent"].append(np.full(length, bool(success[-1])))
    texts.append(np.asarray(instruction[:length], dtype=object))
    options = {k: _plain(v) for k, v in (meta.get("options") or {}).items()}
    seed = _plain(meta.get("seed"))
    return {
        "episode_id": index,
        "task_id": options.get("task_id"),
        "level": options.get("level"),
        "phrasing_id": options.get("phrasing_id"),
        "source": options.get("source"),
        "seed": None if seed is None else int(seed),
        "length": length,
        "return": float(np.sum(episode["rewards"], dtype=np.float64)),
    }


def _read_cache(stem: Path, dataset_id: str, card: dict[str, Any]) -> Transitions | None:
    """The cached arrays, or None; ``card`` is the current one (its metadata may have changed)."""
    npz, meta = _file(stem, ".npz"), _file(stem, ".json")
    if not (npz.exists() and meta.exists()):
        return None
    try:
        with open(meta) as f:
            strings = json.load(f)
        with np.load(npz, allow_pickle=False) as data:
            arrays = {name: data[name] for name in _ARRAYS}
    except (OSError, ValueError, KeyError):
        return None  # a broken cache is rebuilt
    episodes = pd.DataFrame(strings["episodes"], columns=list(_EPISODE_COLUMNS))
    episodes["seed"] = episodes["seed"].astype("Int64")
    return Transitions(dataset_id=dataset_id, instructions=strings["instructions"], episodes=episodes,
                       card=card, **arrays)


def _write_cache(stem: Path, transitions: Transitions) -> None:
    stem.parent.mkdir(parents=True, exist_ok=True)
    episodes = transitions.episodes.astype(object).where(transitions.episodes.notna(), None)
    strings = {"dataset_id": transitions.dataset_id, "instructions": transitions.instructions,
               "card": transitions.card, "episodes": episodes.to_dict(orient="records")}
    tmp = f".tmp-{os.getpid()}"
    with open(_file(stem, ".npz" + tmp), "wb") as f:
        np.savez(f, **{name: getattr(transitions, name) for name in _ARRAYS})
    with open(_file(stem, ".json" + tmp), "w") as f:
        json.dump(strings, f, default=_plain)
    for suffix in (".npz", ".json"):
        os.replace(_file(stem, suffix + tmp), _file(stem, suffix))


def _file(stem: Path, suffix: str) -> Path:
    return stem.parent / (stem.name + suffix)
