"""Write episodes as a dataset and publish its card: the one path every dataset takes
(built from a recipe or imported from the original files)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from ..cards.card import Card, build_card
from ..cards.render import write_card_files
from ..core.domain import Domain
from ..core.episode import Episode
from ..core.folders import check_writable
from ..datasets.ids import DatasetId
from ..datasets.read import read_card
from ..datasets.writer import write_dataset
from ..quality.frame import episode_row


@dataclass
class Published:
    path: Path
    card: Card
    card_files: list[Path]


def publish(dataset_id: DatasetId, episodes: Iterable[Episode], domain: Domain, *, scale: str,
            provenance: Callable[[], dict[str, Any]], description: str, cards_dir: Path,
            total: int | None = None, force: bool = False, notes: dict[str, str] | None = None,
            progress: bool = True, desc: str = "write") -> Published:
    """Write ``episodes`` (atomically, see ``write_dataset``) with a card whose statistics come
    from the episodes themselves; write the card files to ``cards_dir``.

    ``provenance()`` is called once the last episode is written (so it can time the build).
    ``cards_dir`` is made (and checked) first: a path that cannot hold the card files fails here,
    with an existing version of the dataset as it was.
    """
    ready_cards_dir(cards_dir)
    rows: list[dict[str, Any]] = []
    bar = tqdm(total=total, desc=f"{desc} {dataset_id}", unit="ep", disable=not progress)

    def on_episode(episode: Episode) -> None:
        rows.append(episode_row(domain, episode.metadata, episode.rewards, episode.infos, episode.raw_infos))
        bar.update(1)

    def make_card(checksum: str) -> Card:
        return build_card(dataset_id, domain, pd.DataFrame(rows), checksum, scale=scale,
                          provenance=provenance(), notes=notes)

    written: list[Card | list[Path]] = []

    def write_cards() -> None:  # under the id's lock: no other writer's dataset in between
        card = read_card(dataset_id)  # the card exactly as Minari stores it
        written.extend([card, write_card_files(card, pd.DataFrame(rows), cards_dir)])

    try:
        path = write_dataset(dataset_id, episodes, domain, make_card=make_card, on_episode=on_episode,
                             description=description, force=force, installed=write_cards)
    finally:
        bar.close()
    return Published(path, *written)


def check_cards_dir(cards_dir: Path) -> None:
    """``check_writable`` for the card files."""
    check_writable(cards_dir, "cards folder", "the card files")


def ready_cards_dir(cards_dir: Path) -> None:
    """``check_cards_dir``, then make the folder."""
    check_cards_dir(cards_dir)
    cards_dir.mkdir(parents=True, exist_ok=True)
