"""Reading stored datasets: the one reader of cards and the one reader of episodes.

``read_card(id)`` reads a dataset's card from its ``metadata.json`` (no HDF5 opened);
``open_dataset(id)`` gives the Minari dataset and its card; ``stored_episodes(dataset, domain)``
gives its episodes back as ``Episode`` objects, in the dtypes the writer hashed (read through
libhdf5's own calls, ``hdf5_reader``: the values Minari's reader gives, 5x faster). Verify, the
loader, the quality frame and grounding all read through these.

``data_path`` and ``local_ids`` first settle what an interrupted install left in the Minari
folder (``install.recover``: nearly free when there is nothing to settle), so every reader of
ours sees a complete version of each dataset.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import minari
import numpy as np

from ..cards.card import Card, CardError
from ..core.domain import Domain
from ..core.episode import Episode
from . import hdf5_layout, hdf5_reader
from .ids import NAMESPACE, DatasetId, DatasetIdError, GivenText, datasets_root
from .install import recover

CARD_KEY = "imaginebench_card"
LISTED = 12  # local datasets a not-found error names, at most
CHUNK = 512  # episodes read at a time (by Minari, or by one process of a parallel cold load)
# The episode attributes ``stored_episodes`` reads (Minari also stores id, total_steps and the
# instruction among the options, which the arrays already give).
EPISODE_ATTRIBUTES = ("seed", "options/task_id", "options/level", "options/phrasing_id", "options/source",
                      "options/resolved_by")


class StoredEpisodeError(ValueError):
    """A stored episode that cannot be read (a damaged or edited file), named with its place."""


class DatasetNotFoundError(GivenText, KeyError):
    """No local dataset has this id (``given``, where known, for a "did you mean")."""


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
    """The local datasets whose id starts with ``prefix`` and is one of ours in form (others,
    e.g. another package's datasets in the same Minari folder, are left out)."""
    recover(datasets_root())
    with warnings.catch_warnings():  # its "Misconfigured dataset" lines: `unlisted_ids` finds those
        warnings.filterwarnings("ignore", message="Misconfigured dataset", category=UserWarning)
        listed = minari.list_local_datasets()
    ids = []
    for dataset_id in listed:
        try:
            if dataset_id.startswith(prefix):
                ids.append(str(DatasetId.parse(dataset_id)))
        except DatasetIdError:
            continue
    return sorted(ids)


def _how_to_make(dataset_id: DatasetId) -> str:
    """How the dataset could be made: the build of its recipe, or the import of the original files."""
    from ..pipeline.recipe import load_recipes

    if str(dataset_id) in load_recipes():
        return f"Build it with `imaginebench build {dataset_id}`."
    if dataset_id.namespace != NAMESPACE:
        return "Import it with `imaginebench import FOLDER` (the original release's files)."
    return "No recipe builds it (`imaginebench list` shows those that do)."


def unlisted_ids(listed: Sequence[str], prefix: str = "imaginebench/") -> list[str]:
    """Folders of the Minari root named as one of our ids whose id starts with ``prefix``, but not
    in ``listed`` (``local_ids(prefix)``'s): a dataset whose ``metadata.json`` is missing or
    malformed, which ``minari.list_local_datasets`` skips with a warning (``verify`` reports them
    broken)."""
    listed = set(listed)
    found = []
    for folder in sorted(datasets_root().glob("*/*")):
        candidate = f"{folder.parent.name}/{folder.name}"
        if not folder.is_dir() or not candidate.startswith(prefix) or candidate in listed:
            continue
        try:
            found.append(str(DatasetId.parse(candidate)))
        except DatasetIdError:  # a staging folder, or another package's
            continue
    return found


def _local_like(dataset_id: DatasetId) -> str:
    """The local datasets of ``dataset_id``'s namespace, of its domain where it has some, at
    most ``LISTED`` of them."""
    local = local_ids(f"{dataset_id.namespace}/")
    mine = [i for i in local if DatasetId.parse(i).domain == dataset_id.domain]
    if not mine and len(local) > LISTED:
        return (f"No local {dataset_id.namespace} {dataset_id.domain} datasets ({len(local)} of other "
                "domains: `imaginebench list` shows them)")
    shown = mine or local
    which = f"{dataset_id.namespace} {dataset_id.domain}" if mine else dataset_id.namespace
    if not shown:
        return f"No local {dataset_id.namespace} datasets"
    more = f" and {len(shown) - LISTED} more (`imaginebench list` shows them)" if len(shown) > LISTED else ""
    return f"Local {which} datasets: {', '.join(shown[:LISTED])}{more}"


def data_path(dataset_id: str | DatasetId) -> Path:
    """The ``data/`` folder of a local dataset; a clear error for an unknown or malformed id."""
    dataset_id = DatasetId.parse(dataset_id)
    recover(datasets_root())
    path = datasets_root() / str(dataset_id) / "data"
    if not (path / "metadata.json").is_file():
        raise DatasetNotFoundError(
            f"dataset {str(dataset_id)!r} not found: no {path / 'metadata.json'} "
            f"(MINARI_DATASETS_PATH={datasets_root()}). {_local_like(dataset_id)}. "
            f"{_how_to_make(dataset_id)}", given=str(dataset_id)
        )
    return path


def _stored_card(folder: Path) -> Any:
    """The card JSON in the metadata of the dataset whose ``data/`` folder is ``folder``
    (None when the dataset has none: another package wrote it)."""
    path = folder / "metadata.json"
    try:
        return json.loads(path.read_text()).get(CARD_KEY)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: expected Minari's metadata as JSON, found a file that is not "
                         f"({error.msg} at line {error.lineno} column {error.colno})") from None


def _card_at(folder: Path, dataset_id: str | DatasetId) -> Card:
    stored = _stored_card(folder)
    if stored is None:
        raise DatasetNotFoundError(f"dataset {str(dataset_id)!r} at {folder} has no {CARD_KEY!r} "
                                   "metadata: it was not written by imaginebench-data")
    where = f"{folder / 'metadata.json'} key {CARD_KEY!r}"
    try:
        card = Card.from_json(stored, where=where)
    except CardError as error:
        raise DatasetNotFoundError(str(error)) from None
    asked = DatasetId.parse(dataset_id)
    stated = (card.id, card.domain, card.level, card.source)
    if stated != (str(asked), asked.domain, asked.level, asked.source):
        raise CardError(f"{where}: expected the card of {asked}, found one of {card.id!r} (domain "
                        f"{card.domain!r}, level {card.level!r}, source {card.source!r}): a dataset folder "
                        "copied or renamed, or its metadata edited? Build the id itself instead")
    return card


def read_card(dataset_id: str | DatasetId) -> Card:
    """The card stored in a local dataset's metadata."""
    return _card_at(data_path(dataset_id), dataset_id)


def written_by_us(dataset_id: str | DatasetId) -> bool:
    """Whether a local dataset carries our card (another package's datasets may share the
    Minari folder); an unreadable one counts as ours, so that ``verify`` reports it."""
    try:
        return _stored_card(data_path(dataset_id)) is not None
    except (OSError, ValueError, DatasetNotFoundError):  # no metadata.json: unlisted_ids' kind
        return True


def open_dataset(dataset_id: str | DatasetId) -> tuple[minari.MinariDataset, Card]:
    """The Minari dataset and its card."""
    folder = data_path(dataset_id)
    card = _card_at(folder, dataset_id)  # a dataset not ours is refused before Minari opens it
    return minari.MinariDataset(folder), card


def stored_episodes(dataset: minari.MinariDataset, domain: Domain,
                    positions: Sequence[int] | None = None) -> Iterator[Episode]:
    """The stored episodes of ``dataset``, in Minari's episode order, as ``Episode`` objects:
    the arrays Minari reads back in the dtypes the writer hashed, their per-episode metadata,
    the checkers' per-step flags (``infos``) and the stored simulator states, if any.
    ``positions``: only the episodes at these places of that order (0-based), in that order.

    An HDF5 dataset is read through libhdf5's own calls (``hdf5_reader``: the same values as
    Minari's reader, several times faster); an episode that reader does not handle, and any
    other storage, through Minari."""
    indices = [int(i) for i in dataset.episode_indices]
    if positions is not None:
        indices = [indices[p] for p in positions]
    path = Path(dataset.storage.data_path) / hdf5_layout.MAIN_FILE
    if not (path.is_file() and hdf5_reader.available()):
        for start in range(0, len(indices), CHUNK):
            for stored, metadata in _minari_episodes(dataset, indices[start:start + CHUNK]):
                yield _episode(stored, metadata, domain)
        return
    try:
        reader = hdf5_reader.EpisodeReader(path, attributes=EPISODE_ATTRIBUTES)
    except OSError as error:  # h5py's: not an HDF5 file, a damaged superblock
        raise StoredEpisodeError(f"{path}: {error}") from error
    with reader:
        for index in indices:
            try:
                stored, metadata = reader.read(index)
            except hdf5_reader.NotHandled:  # Minari reads it, or says what is wrong with it
                stored, metadata = _minari_episode(dataset, index, path)
            yield _episode(stored, metadata, domain)


def _minari_episode(dataset: minari.MinariDataset, index: int, path: Path) -> tuple[dict, dict]:
    try:
        [(stored, metadata)] = _minari_episodes(dataset, [index])
    except (KeyError, OSError, ValueError) as error:  # h5py's, from the file's damage
        reason = error.args[0] if isinstance(error, KeyError) and error.args else error
        raise StoredEpisodeError(f"{path}: episode_{index}: {reason}") from error
    return stored, metadata


def _minari_episodes(dataset: minari.MinariDataset, indices: list[int]) -> list[tuple[dict, dict]]:
    """(``get_episodes``' dict, ``get_episode_metadata``'s dict) of each episode, by Minari."""
    return list(zip(dataset.storage.get_episodes(indices), dataset.storage.get_episode_metadata(indices)))


def _episode(stored: dict, metadata: dict, domain: Domain) -> Episode:
    """An ``Episode`` from one episode as Minari's storage reads it and its metadata."""
    options = {key: plain_value(value) for key, value in metadata["options"].items()}
    infos = dict(stored.get("infos") or {})
    sim_states = infos.pop("sim_state", None)
    return Episode(
        states=np.asarray(stored["observations"]["state"], domain.state_space.dtype),
        actions=np.asarray(stored["actions"], domain.action_space.dtype),
        rewards=np.asarray(stored["rewards"], np.float32),
        terminations=np.asarray(stored["terminations"], bool),
        truncations=np.asarray(stored["truncations"], bool),
        instruction=str(plain_value(stored["observations"]["instruction"][0])),
        task_id=str(options["task_id"]), level=str(options["level"]),
        phrasing_id=int(options["phrasing_id"]), seed=int(plain_value(metadata.get("seed", -1))),
        source=str(options["source"]),
        infos={key: np.asarray(value) for key, value in infos.items()},
        sim_states=None if sim_states is None else np.asarray(sim_states, np.float64),
        resolved_by=None if options.get("resolved_by") is None else str(options["resolved_by"]),
    )
