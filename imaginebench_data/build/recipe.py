"""A recipe: everything that makes one dataset id. Recipes live in ``builders/``."""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..datasets.ids import parse_id

SCALES = ("demo", "paper")
GENERATORS = ("expert", "imagine")


@dataclass(frozen=True)
class Recipe:
    """``episodes[scale]`` episodes of ``dataset_id`` from ``generator``, seeded by ``seed``.

    ``generator="expert"`` rolls out the domain's expert; ``"imagine"`` rolls out a model
    grounded on the real dataset ``train_from`` (trained for ``train_epochs`` epochs the first
    time it is needed). Episode ``i`` starts from the task, phrasing and real reset state of
    episode ``i`` of any recipe with the same seed and level.
    """

    dataset_id: str
    episodes: dict[str, int]
    seed: int
    generator: str = "expert"
    default: bool = False  # built by `make demo`
    description: str = ""
    notes: dict[str, str] = field(default_factory=dict)
    train_from: str | None = None
    train_epochs: int = 20

    def __post_init__(self) -> None:
        parse_id(self.dataset_id)
        if self.generator not in GENERATORS:
            raise ValueError(f"recipe {self.dataset_id}: generator must be one of {GENERATORS}, "
                             f"got {self.generator!r}")
        if self.generator == "imagine" and self.train_from is None:
            raise ValueError(f"recipe {self.dataset_id}: generator 'imagine' needs train_from "
                             "(the real dataset the model is grounded on)")
        missing = set(SCALES) - set(self.episodes)
        if missing:
            raise ValueError(f"recipe {self.dataset_id}: no episode count for scale(s) {sorted(missing)}")

    @property
    def domain(self) -> str:
        return parse_id(self.dataset_id).domain

    @property
    def level(self) -> str:
        return parse_id(self.dataset_id).level

    @property
    def source(self) -> str:
        return parse_id(self.dataset_id).source


def builders_dir() -> Path:
    """``$IMAGINEBENCH_BUILDERS`` or the ``builders/`` folder of this checkout."""
    configured = os.environ.get("IMAGINEBENCH_BUILDERS")
    return Path(configured) if configured else Path(__file__).resolve().parents[2] / "builders"


def load_recipes(directory: Path | None = None) -> dict[str, Recipe]:
    """Every ``RECIPES`` list of every ``builders/*.py``, keyed by dataset id."""
    directory = directory or builders_dir()
    if not directory.is_dir():
        raise FileNotFoundError(f"no builders folder at {directory}; set IMAGINEBENCH_BUILDERS "
                                "or run from a checkout of imaginebench-data")
    recipes: dict[str, Recipe] = {}
    for path in sorted(directory.glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"imaginebench_builders.{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for recipe in getattr(module, "RECIPES", ()):
            if recipe.dataset_id in recipes:
                raise ValueError(f"dataset {recipe.dataset_id} has two recipes (second in {path})")
            recipes[recipe.dataset_id] = recipe
    return recipes


def build_order(dataset_ids: list[str], recipes: dict[str, Recipe]) -> list[str]:
    """``dataset_ids`` with every expert recipe before every imagined one (which is grounded on
    a real dataset), otherwise in the given order."""
    return sorted(dataset_ids, key=lambda i: i in recipes and recipes[i].generator == "imagine")
