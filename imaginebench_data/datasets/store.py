"""Opening stored datasets, with errors that say what exists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import minari
import numpy as np

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
