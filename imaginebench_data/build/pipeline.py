"""Build a dataset from its recipe: roll out, check, validate, write, card."""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from ..cards.card import build_card
from ..cards.render import write_card_files
from ..core.episode import Episode
from ..datasets.store import open_dataset
from ..datasets.writer import write_dataset
from ..domains import get_domain
from ..quality.checkers import annotate
from ..quality.frame import episode_row
from .recipe import Recipe, builders_dir, load_recipes
from .rollout import expert_episode

_WORKER: dict[str, Any] = {}


@dataclass
class BuildResult:
    dataset_id: str
    path: Path
    card: dict[str, Any]
    seconds: float
    card_files: list[Path]


def _init_worker(domain_name: str) -> None:
    _WORKER["domain"] = get_domain(domain_name)
    _WORKER["sim"] = _WORKER["domain"].simulator()


def _expert_job(job: tuple[str, int, int]) -> Episode:
    level, index, seed = job
    domain, sim = _WORKER["domain"], _WORKER["sim"]
    return annotate(domain, expert_episode(domain, level, index, seed, sim), sim)


def _episodes(recipe: Recipe, count: int, workers: int) -> Iterator[Episode]:
    if recipe.generator != "expert":
        raise ValueError(f"recipe {recipe.dataset_id}: unknown generator {recipe.generator!r}")
    jobs = [(recipe.level, index, recipe.seed) for index in range(count)]
    if workers <= 1:
        _init_worker(recipe.domain)
        yield from map(_expert_job, jobs)
        return
    context = multiprocessing.get_context("fork")
    with context.Pool(workers, initializer=_init_worker, initargs=(recipe.domain,)) as pool:
        yield from pool.imap(_expert_job, jobs, chunksize=4)


def default_cards_dir() -> Path:
    return builders_dir().parent / "cards"


def build(dataset_id: str, scale: str = "demo", *, force: bool = False, workers: int = 2,
          episodes: int | None = None, cards_dir: Path | None = None,
          recipes: dict[str, Recipe] | None = None, progress: bool = True) -> BuildResult:
    """Build ``dataset_id`` from its recipe at ``scale`` (or exactly ``episodes`` episodes).

    Writes the Minari dataset (atomically; refuses an existing version unless ``force``) and
    the card files in ``cards_dir`` (default: ``cards/`` of this checkout).
    """
    recipes = recipes if recipes is not None else load_recipes()
    if dataset_id not in recipes:
        known = ", ".join(sorted(recipes)) or "none"
        raise KeyError(f"no recipe builds {dataset_id!r}; recipes exist for: {known}")
    recipe = recipes[dataset_id]
    domain = get_domain(recipe.domain)
    count = episodes if episodes is not None else recipe.episodes[scale]
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    bar = tqdm(total=count, desc=f"build {dataset_id}", unit="ep", disable=not progress)

    def on_episode(episode: Episode) -> None:
        rows.append(episode_row(domain, episode.metadata, episode.rewards, episode.infos))
        bar.update(1)

    def make_card(checksum: str) -> dict[str, Any]:
        provenance = {
            "recipe": recipe.dataset_id,
            "generator": recipe.generator,
            "checkpoint_hash": None,
            "seed": recipe.seed,
            "scale": scale,
            "build_seconds": round(time.perf_counter() - started, 1),
            "workers": workers,
        }
        return build_card(dataset_id, domain, pd.DataFrame(rows), checksum, scale=scale,
                          provenance={**provenance, **recipe.notes})

    try:
        path = write_dataset(dataset_id, _episodes(recipe, count, workers), domain,
                             make_card=make_card, on_episode=on_episode,
                             description=recipe.description, force=force)
    finally:
        bar.close()
    _, card = open_dataset(dataset_id)
    files = write_card_files(card, pd.DataFrame(rows), cards_dir or default_cards_dir())
    return BuildResult(dataset_id, path, card, time.perf_counter() - started, files)
