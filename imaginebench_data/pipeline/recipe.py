"""A recipe: everything that makes one dataset id. Each domain declares its recipes (the
built-in domains in ``builders/<domain>.py``, installed as ``imaginebench_data.builders``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..datasets.ids import DatasetId
from ..imagine.numerics import MODES as NUMERICS

if TYPE_CHECKING:
    from ..imagine.train import TrainSettings

SCALES = ("demo", "paper")
GENERATORS = ("expert", "imagine", "verify")
# Grounding epochs per scale. Demo: 20. Paper: KALM's 5 (its Meta-World model); CLEVR's recipes
# take KALM's 10 for CLEVR (builders/clevr.py). The paper-scale training sets are 8-50x their demo
# ones, so these are still 2.5-12.5x the demo's optimiser steps (CLEVR: 4x).
TRAIN_EPOCHS = {"demo": 20, "paper": 5}
# AdamW's fused step, whose bits an Intel Xeon and an AMD EPYC share (the default step's square
# root is the hardware's: docs/reproducibility.md); in the demo levers of the domains whose cards
# were rebuilt with it.
FUSED_ADAM = {"fused_adam": True}
MODEL_GENERATORS = ("imagine", "verify")  # grounded on ``train_from``
ACTION_SOURCES = ("model", "inferred")  # an imagined set's stored actions: the model's, or inferred


@dataclass(frozen=True)
class Recipe:
    """``episodes[scale]`` episodes of ``dataset_id`` from ``generator``, seeded by ``seed``.

    ``generator="expert"`` rolls out the domain's expert; ``"imagine"`` rolls out a model
    grounded on the real dataset ``train_from`` (trained for ``train_epochs[scale]`` epochs the
    first time it is needed; one number means every scale; ``train_levers[scale]``: the
    ``imagine.train.TrainSettings`` levers switched on at that scale on top of the domain's
    ``grounding_levers``, none where a scale is not named); ``"verify"`` keeps only the model's
    rollouts that pass every checker, imagining an episode again, from a new start, at most
    ``attempts`` times in all; the model is grounded and imagines in ``numerics`` (see
    ``imagine/numerics.py``: ``portable`` gives the same bits on every x86 CPU, ``native`` only
    on the CPU that built it). Episode ``i`` starts from the task, phrasing and real reset
    state of episode ``i`` of any recipe with the same seed and level. Ids may be given as
    strings; they are parsed once, here.
    """

    dataset_id: DatasetId
    episodes: dict[str, int]
    seed: int
    generator: str = "expert"
    default: bool = False  # built by `make demo`
    description: str = ""
    notes: dict[str, str] = field(default_factory=dict)
    train_from: DatasetId | None = None
    train_epochs: dict[str, int] = field(default_factory=lambda: dict(TRAIN_EPOCHS))
    train_levers: dict[str, dict[str, Any]] = field(default_factory=dict)
    attempts: int = 4
    numerics: str = "portable"

    def __post_init__(self) -> None:
        object.__setattr__(self, "dataset_id", DatasetId.parse(self.dataset_id))
        if self.train_from is not None:
            object.__setattr__(self, "train_from", DatasetId.parse(self.train_from))
        if self.generator not in GENERATORS:
            raise ValueError(f"recipe {self.dataset_id}: generator must be one of {GENERATORS}, "
                             f"got {self.generator!r}")
        if self.generator in MODEL_GENERATORS and self.train_from is None:
            raise ValueError(f"recipe {self.dataset_id}: generator {self.generator!r} needs train_from "
                             "(the real dataset the model is grounded on)")
        if isinstance(self.train_epochs, int):
            object.__setattr__(self, "train_epochs", dict.fromkeys(SCALES, self.train_epochs))
        if set(self.train_epochs) != set(SCALES) or min(self.train_epochs.values()) < 1:
            raise ValueError(f"recipe {self.dataset_id}: train_epochs must give every scale {SCALES} at "
                             f"least 1 epoch, got {self.train_epochs!r}")
        unknown = set(self.train_levers) - set(SCALES)
        if unknown:
            raise ValueError(f"recipe {self.dataset_id}: train_levers are per scale {SCALES}, got scale(s) "
                             f"{sorted(unknown)}")
        object.__setattr__(self, "train_levers", {s: dict(self.train_levers.get(s, {})) for s in SCALES})
        if self.numerics not in NUMERICS:
            raise ValueError(f"recipe {self.dataset_id}: numerics must be one of {NUMERICS}, "
                             f"got {self.numerics!r}")
        missing = set(SCALES) - set(self.episodes)
        if missing:
            raise ValueError(f"recipe {self.dataset_id}: no episode count for scale(s) {sorted(missing)}")

    @property
    def domain(self) -> str:
        return self.dataset_id.domain

    @property
    def level(self) -> str:
        return self.dataset_id.level

    def grounding(self, scale: str, **given: Any) -> TrainSettings:
        """The ``imagine.train.TrainSettings`` the model this recipe imagines with is grounded
        with at ``scale``: the domain's ``grounding_levers``, the scale's ``train_epochs`` and
        ``train_levers``, then every field of ``given`` that is not None (a build's
        ``--epochs``, ``imaginebench ground``'s options). The build, ``imaginebench ground``
        and the experiments all name their checkpoint folder from these."""
        from ..domains import get_domain
        from ..imagine.train import TrainSettings

        chosen = {k: v for k, v in given.items() if v is not None}
        return TrainSettings.for_domain(get_domain(self.domain), **{
            "epochs": self.train_epochs[scale], **self.train_levers[scale], **chosen})


def load_recipes() -> dict[str, Recipe]:
    """The recipes of every registered domain, keyed by dataset id (its canonical text)."""
    from ..domains import all_domains

    recipes: dict[str, Recipe] = {}
    for domain in all_domains():
        for recipe in domain.recipes():
            key = str(recipe.dataset_id)
            if key in recipes:
                raise ValueError(f"dataset {key} has two recipes (the second in domain {domain.name})")
            recipes[key] = recipe
    return recipes


def build_order(dataset_ids: list[str], recipes: dict[str, Recipe]) -> list[str]:
    """``dataset_ids`` with every expert recipe before every imagined one (which is grounded on
    a real dataset), otherwise in the given order."""
    return sorted(dataset_ids, key=lambda i: i in recipes and recipes[i].generator in MODEL_GENERATORS)


def imagined_twin(oracle: Recipe) -> Recipe:
    """The imaginary recipe of an oracle (``<domain>-<level>-real``): same counts, seed (so the
    same tasks, phrasings and start states, episode by episode) and default, generated by a
    model grounded on ``<domain>-train-real``."""
    parsed = oracle.dataset_id
    train = parsed.with_(level="train", source="real")
    return replace(oracle, dataset_id=parsed.with_(source="imaginary"), generator="imagine",
                   train_from=train, description=f"{parsed.domain} rollouts of the {parsed.level} level "
                   f"imagined by a language model grounded on {train} (KALM).")


def verified_twin(oracle: Recipe) -> Recipe:
    """The verified recipe of an oracle: its imagined twin's episodes that pass every checker
    (goal consistent, legal, every transition within tolerance), each failed one imagined
    again from a new start of the same task, ``attempts`` times at most."""
    imagined = imagined_twin(oracle)
    parsed = imagined.dataset_id
    return replace(imagined, dataset_id=parsed.with_(source="verified"), generator="verify",
                   description=f"{parsed.domain} rollouts of the {parsed.level} level imagined by a language "
                   f"model grounded on {imagined.train_from} (KALM), kept only where every checker passed "
                   f"(at most {imagined.attempts} attempts per episode).")


def model_twins(oracle: Recipe, train_epochs: dict[str, int] | None = None,
                train_levers: dict[str, dict[str, Any]] | None = None) -> list[Recipe]:
    """The imagined and the verified recipe of an oracle (in its numerics, portable by default;
    ``replace(twin, numerics="native")`` for the CPU's own kernels), grounding for
    ``train_epochs`` (per scale; default ``TRAIN_EPOCHS``) with ``train_levers`` (per scale;
    default none beyond the domain's)."""
    changes = {"train_epochs": train_epochs, "train_levers": train_levers}
    changes = {name: value for name, value in changes.items() if value}
    return [replace(twin, **changes) for twin in (imagined_twin(oracle), verified_twin(oracle))]


def level_recipes(domain: str, label: str, levels: dict[str, tuple[int, int, int, int]],
                  descriptions: dict[str, str],
                  train_levers: dict[str, dict[str, Any]] | None = None) -> list[Recipe]:
    """The real recipe of every level (``levels[level] = (tasks, seed, demo per task, paper per
    task)``; "<label> expert rollouts of <description>.", "Oracle: ..." past train) and the
    imagined and verified twins of every oracle, grounding with ``train_levers`` (as
    ``model_twins``); none built by ``make demo``."""
    real = [
        Recipe(f"imaginebench/{domain}-{level}-real-v0",
               episodes={"demo": tasks * demo, "paper": tasks * paper}, seed=seed, default=False,
               description=("" if level == "train" else "Oracle: ") + f"{label} expert rollouts of "
               + descriptions[level] + ".")
        for level, (tasks, seed, demo, paper) in levels.items()
    ]
    twins = [twin for recipe in real if recipe.level != "train"
             for twin in model_twins(recipe, train_levers=train_levers)]
    return real + twins


def main(recipes: list[Recipe]) -> None:
    """``python -m imaginebench_data.builders.<domain> [imaginebench build options]``: build
    this module's recipes (all of them, or the ids given) with the ``imaginebench build`` CLI."""
    import sys

    from ..cli import app

    args = sys.argv[1:]
    ids = [arg for arg in args if "/" in arg and not arg.startswith("-")]
    options = [arg for arg in args if arg not in ids]
    chosen = ids or [str(recipe.dataset_id) for recipe in recipes]
    app(["build", *chosen, *options], prog_name=f"python -m imaginebench_data.builders.{recipes[0].domain}")
