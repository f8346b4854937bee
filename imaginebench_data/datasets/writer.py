"""Writing a dataset: validated, atomic, never overwriting a version without ``force``.

Minari creates the dataset (its ``metadata.json``, with the spaces and env specs) inside a
staging folder under the Minari root (same file system); the episodes are streamed into its
``main_data.hdf5`` by ``hdf5_layout`` (Minari's layout, about 2.5 KB of HDF5 metadata per
episode instead of ~31 KB), the card is added to the metadata, and only then is
the folder moved into place by ``install.install``, a journaled swap that a crash at any point
leaves as the old version or the new one (``install.recover`` settles it). Any failure leaves
the destination as it was. One lock per dataset id, held from the existence check through the
install, serializes concurrent writers of the same id (see ``install``).

Every dataset stores two env specs, both the env of its own level (``eval_env_spec``): the
``env_spec`` (the env the data belongs to; for ``<domain>-train-real`` the train-level env the
expert ran in) and the ``eval_env_spec``, so ``recover_environment()`` and
``recover_environment(eval_env=True)`` both work. ``dataset_size`` (MB) covers the files as
they are finally installed, card included: ``metadata["dataset_size"] == storage.get_size()``.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import minari
import numpy as np
from minari.data_collector import EpisodeBuffer
from minari.dataset.minari_storage import MinariStorage

from ..cards.card import Card
from ..core import interrupt
from ..core.domain import Domain
from ..core.env import eval_env_spec
from ..core.episode import Episode
from ..core.folders import check_writable
from ..core.text import observation_space as make_observation_space
from ..quality.checkers import INFO_KEYS, OPTIONAL_INFO_KEYS
from ..quality.reference import reference_scores
from . import hdf5_layout, install
from .checksum import DatasetChecksum
from .description import describe
from .ids import NAMESPACE, DatasetId, dataset_dir, datasets_root
from .read import CARD_KEY
from .validate import validate_episode

NAMESPACE_DESCRIPTION = "ImagineBench: real and language-model-imagined rollouts for offline RL."


class DatasetExistsError(FileExistsError):
    """The dataset version exists; pass force=True (--force) to replace it."""


def existing_versions(dataset_ids: Iterable[str | DatasetId]) -> list[str]:
    """The ids among ``dataset_ids`` whose version is installed (its folder exists), in order."""
    return [str(i) for i in dataset_ids if dataset_dir(i).exists()]


def check_datasets_folder() -> None:
    """A clear error, before any work, where the Minari datasets folder cannot be written to
    (found 2026-12-06: a build into a read-only one ended in a traceback at its lock folder)."""
    check_writable(datasets_root(), "Minari datasets folder", "the datasets")


def refuse_existing(dataset_id: str | DatasetId) -> None:
    """``DatasetExistsError`` if a version of ``dataset_id`` is installed. The writer checks under
    the id's lock; a build checks first too, before work that can take minutes (a grounding)."""
    if existing_versions([dataset_id]):
        raise DatasetExistsError(f"dataset {dataset_id} already exists at {dataset_dir(dataset_id)}; "
                                 "pass --force (force=True in Python) to replace this version")


@contextlib.contextmanager
def _minari_root(root: Path) -> Iterator[None]:
    previous = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = str(root)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("MINARI_DATASETS_PATH", None)
        else:
            os.environ["MINARI_DATASETS_PATH"] = previous


def _buffers(episodes: Iterable[Episode], domain: Domain, on_episode: Callable[[Episode], None],
             checksum: DatasetChecksum) -> Iterator[EpisodeBuffer]:
    obs_space = make_observation_space(domain.state_space)
    for index, episode in enumerate(episodes):
        interrupt.check()  # a Ctrl-C dropped on the way (see core/interrupt.py) stops the build here
        validate_episode(index, episode, obs_space, domain.action_space, INFO_KEYS)
        checksum.update(episode)
        on_episode(episode)
        instructions = [episode.instruction] * len(episode.states)
        yield EpisodeBuffer(
            id=index,
            seed=int(episode.seed),
            options=episode.metadata,
            observations={"state": episode.states, "instruction": instructions},
            actions=episode.actions,
            rewards=episode.rewards,
            terminations=episode.terminations,
            truncations=episode.truncations,
            infos={key: np.asarray(episode.infos[key]) for key in INFO_KEYS + OPTIONAL_INFO_KEYS
                   if key in episode.infos},
        )


def write_dataset(dataset_id: str, episodes: Iterable[Episode], domain: Domain, *,
                  make_card: Callable[[str], Card], on_episode: Callable[[Episode], None],
                  description: str, force: bool = False,
                  installed: Callable[[], None] | None = None) -> Path:
    """Write ``episodes`` as Minari dataset ``dataset_id``; return its folder.

    ``on_episode`` sees each validated episode (the builder accumulates statistics there);
    ``make_card(checksum)`` is called after the last episode and must return the card.
    ``installed()`` is called once the dataset is in place, still under its lock: the card
    files written there describe the dataset installed, whatever another writer of the id does.
    """
    parsed = DatasetId.parse(dataset_id)
    if not force:  # before the reference scores, seconds to minutes; again under the lock below
        refuse_existing(parsed)
    references = reference_scores(domain.name, parsed.level)  # before the lock: seconds to minutes
    root = datasets_root()
    destination = root / str(parsed)
    root.mkdir(parents=True, exist_ok=True)
    with install.dataset_lock(root, parsed):  # waits for another writer of this id
        install.recover(root, holding=parsed)  # settles what a killed writer left, first
        if not force:
            refuse_existing(parsed)
        with install.staging_folder(root) as staging:
            checksum = DatasetChecksum()
            level_env = eval_env_spec(domain.name, parsed.level)
            with _minari_root(staging):
                with warnings.catch_warnings():
                    # The package has no contact address and no public repository to give as
                    # author_email and code_permalink (None rather than a placeholder); Minari's
                    # reminders about them would print on every build.
                    for unset in ("author_email", "code_permalink"):
                        warnings.filterwarnings("ignore", message=f"`{unset}` is set to None",
                                                category=UserWarning)
                    # Minari writes the metadata (spaces, env specs, ids); the episodes go in
                    # through our compact writer of its HDF5 layout (see hdf5_layout.py).
                    dataset = minari.create_dataset_from_buffers(
                        dataset_id=str(parsed),
                        buffer=[],
                        env=level_env,
                        eval_env=level_env,
                        observation_space=make_observation_space(domain.state_space),
                        action_space=domain.action_space,
                        algorithm_name="expert" if parsed.source == "real" else "language-model",
                        author={"imaginebench-data"},
                        code_permalink=None,
                        description=description,
                        requirements=["imaginebench-data"],
                        data_format="hdf5",
                    )
                buffers = _buffers(episodes, domain, on_episode, checksum)
                count, steps = hdf5_layout.write_file(dataset.storage.data_path / hdf5_layout.MAIN_FILE,
                                                      buffers)
                dataset.storage.update_metadata({"total_episodes": count, "total_steps": steps})
                card = make_card(checksum.hexdigest())
                dataset.storage.update_metadata({CARD_KEY: card.to_json(), **references,
                                                 "description": describe(description, card, references)})
                _settle_dataset_size(dataset.storage)
            _ensure_namespace(root, parsed.namespace)
            install.install(staging / str(parsed), destination, root)
        if installed is not None:
            installed()
    return destination


def _settle_dataset_size(storage: MinariStorage) -> None:
    """Store ``dataset_size`` as ``storage.get_size()`` measures the finished folder (Minari set it
    before the card was added). Writing the number can change metadata.json's length, and so the
    size, so repeat until what is stored is what is measured (once or twice)."""
    while storage.metadata["dataset_size"] != (size := storage.get_size()):
        storage.update_metadata({"dataset_size": size})


def _ensure_namespace(root: Path, name: str) -> None:
    """Create Minari namespace ``name`` under ``root`` unless it exists."""
    with _minari_root(root):
        from minari import namespace

        if name not in namespace.list_local_namespaces():
            with contextlib.suppress(ValueError):  # created meanwhile
                description = NAMESPACE_DESCRIPTION if name == NAMESPACE else (
                    f"{NAMESPACE_DESCRIPTION} ({name}: written by imaginebench-data)")
                namespace.create_namespace(name, description=description)
