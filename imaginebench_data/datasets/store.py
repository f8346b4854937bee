"""Opening stored datasets, with errors that say what exists."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import minari
import numpy as np

from ..core.episode import Episode
from .ids import datasets_root, parse_id

CARD_KEY = "imaginebench_card"


class DatasetNotFoundError(KeyError):
    """No local dataset has this id."""

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0])


def plain_value(value: Any) -> Any:
    """An HDF5-read value (bytes, numpy scalar, 0-d array) as a plain Python value."""
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if isinstance(value, np.generic):
        return plain_value(value.item())
    return value


def local_ids(prefix: str = "imaginebench/") -> list[str]:
    return sorted(i for i in minari.list_local_datasets() if i.startswith(prefix))


def data_path(dataset_id: str) -> Path:
    """The ``data/`` folder of a local dataset; a clear error for an unknown or malformed id."""
    path = datasets_root() / str(parse_id(dataset_id)) / "data"
    if not (path / "metadata.json").is_file():
        known = ", ".join(local_ids()) or "none"
        raise DatasetNotFoundError(
            f"dataset {dataset_id!r} not found: no {path / 'metadata.json'} "
            f"(MINARI_DATASETS_PATH={datasets_root()}). Local imaginebench datasets: {known}. "
            f"Build it with `imaginebench build {dataset_id}`."
        )
    return path


def open_dataset(dataset_id: str) -> tuple[minari.MinariDataset, dict[str, Any]]:
    """The Minari dataset and its card."""
    dataset_path = data_path(dataset_id)
    dataset = minari.MinariDataset(dataset_path)
    card = dataset.storage.metadata.get(CARD_KEY)
    if card is None:
        raise DatasetNotFoundError(f"dataset {dataset_id!r} at {dataset_path} has no {CARD_KEY!r} "
                                   "metadata: it was not written by imaginebench-data")
    return dataset, card


def stored_episodes(dataset: minari.MinariDataset, domain_name: str) -> Iterator[Episode]:
    """The stored episodes of ``dataset`` as ``Episode`` objects: the arrays Minari reads back,
    in the dtypes the writer hashed, with their per-episode metadata, the checkers' per-step
    flags (``infos``) and, for scene domains, the stored simulator states."""
    from ..domains import get_domain

    domain = get_domain(domain_name)
    metadatas = dataset.storage.get_episode_metadata(dataset.episode_indices)
    for episode, metadata in zip(dataset.iterate_episodes(), metadatas):
        options = {key: plain_value(value) for key, value in metadata["options"].items()}
        infos = dict(episode.infos)
        sim_states = infos.pop("sim_state", None) if domain.sim_state_dim else None
        yield Episode(
            states=np.asarray(episode.observations["state"], domain.state_space.dtype),
            actions=np.asarray(episode.actions, domain.action_space.dtype),
            rewards=np.asarray(episode.rewards, np.float32),
            terminations=np.asarray(episode.terminations, bool),
            truncations=np.asarray(episode.truncations, bool),
            instruction=str(plain_value(episode.observations["instruction"][0])),
            task_id=str(options["task_id"]), level=str(options["level"]),
            phrasing_id=int(options["phrasing_id"]), seed=int(plain_value(metadata.get("seed", -1))),
            source=str(options["source"]),
            infos=infos, sim_states=None if sim_states is None else np.asarray(sim_states, np.float64),
        )
