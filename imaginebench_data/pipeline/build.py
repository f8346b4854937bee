"""Build a dataset from its recipe: roll out, check, validate, write, card."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cards.card import Card
from ..datasets.ids import NAMESPACE, DatasetId, GivenText
from ..datasets.writer import check_datasets_folder, refuse_existing
from ..domains import get_domain
from ..imagine.config import SCRATCH
from ..imagine.numerics import require
from .executors import EpisodeError, Executor, make_executor
from .generators import expert_episodes, imagined_episodes
from .publish import check_cards_dir, publish
from .recipe import MODEL_GENERATORS, Recipe, load_recipes
from .verified import verified_episodes


class UnknownRecipeError(GivenText, KeyError):
    """No recipe builds this id (``given``, for a "did you mean")."""


@dataclass
class BuildResult:
    dataset_id: DatasetId
    path: Path
    card: Card
    seconds: float
    card_files: list[Path]


def default_cards_dir(dataset_id: DatasetId, scale: str = "demo", root: Path | None = None) -> Path:
    """``root``, else ``$IMAGINEBENCH_CARDS``, else ``cards/`` of the current directory (the
    checkout's, when run from it); ``<cards>/paper/`` for the paper scale, so that its cards
    sit beside the demo ones instead of replacing them; datasets of another namespace than
    ``imaginebench`` (e.g. imported ones) get ``<cards>/<namespace>/`` so their cards never
    overwrite ours."""
    root = root or Path(os.environ.get("IMAGINEBENCH_CARDS") or "cards")
    root = root / "paper" if scale == "paper" else root
    return root if dataset_id.namespace == NAMESPACE else root / dataset_id.namespace


def build(dataset_id: str | DatasetId, scale: str = "demo", *, force: bool = False, workers: int = 2,
          episodes: int | None = None, cards_dir: str | os.PathLike | None = None,
          recipes: dict[str, Recipe] | None = None, progress: bool = True,
          backbone: str = SCRATCH, lora: int = 0, precision: str = "auto",
          batch_size: int = 64, executor: str | Executor = "local",
          address: str | None = None, numerics: str | None = None,
          epochs: int | None = None, ensemble: int = 1, actions: str = "model") -> BuildResult:
    """Build ``dataset_id`` from its recipe at ``scale`` (or exactly ``episodes`` episodes).

    Writes the Minari dataset (atomically; refuses an existing version unless ``force``) and
    the card files in ``cards_dir`` (default: ``default_cards_dir``). Imaginary recipes
    use a model grounded on ``backbone`` (the scratch GPT-2, or a local model directory,
    with LoRA of rank ``lora`` if > 0), trained on first use in ``precision`` (see
    ``imagine/precision.py``) for ``epochs`` (default: the recipe's ``train_epochs[scale]``) with
    the recipe's ``train_levers[scale]`` (``ensemble`` N > 1: N such groundings under
    consecutive seeds imagining as one, ``imagine/ensemble.py``; ``actions="inferred"``: the
    stored actions inferred from the imagined transitions, ``imagine/inverse_dynamics.py``),
    generating ``batch_size`` rollouts at a time, in the recipe's
    ``numerics`` unless ``numerics`` is given (see ``imagine/numerics.py``; portable numerics
    must have been chosen before torch's first operation in this process, and for real data
    too, before numpy was imported: ``import imaginebench_data`` first does that).

    Rollouts and checks run on ``executor`` (see ``executors.py``): ``"local"`` (``workers``
    forked processes), ``"ray"`` (``workers`` Ray actors; on the cluster at ``address`` if
    given), or an executor made by ``make_executor``, kept open across builds. Every executor
    writes the same bytes.
    """
    dataset_id = DatasetId.parse(dataset_id)
    recipes = recipes if recipes is not None else load_recipes()
    if str(dataset_id) not in recipes:
        raise UnknownRecipeError(f"no recipe builds {str(dataset_id)!r} (`imaginebench list` shows the "
                                 f"{len(recipes)} that exist)", given=str(dataset_id))
    recipe = recipes[str(dataset_id)]
    if not force:  # before the work, which can take minutes: the writer checks again under its lock
        refuse_existing(dataset_id)
    cards_dir = Path(cards_dir) if cards_dir else default_cards_dir(dataset_id, scale)
    check_cards_dir(cards_dir)  # makes nothing: a refused build leaves no folder
    check_datasets_folder()
    count = episodes if episodes is not None else recipe.episodes[scale]
    started = time.perf_counter()
    own = isinstance(executor, str)
    runner = make_executor(executor, workers, address) if own else executor
    try:
        model = recipe.generator in MODEL_GENERATORS
        require(numerics or recipe.numerics, str(dataset_id), torch=model)
        if model:
            generate = imagined_episodes if recipe.generator == "imagine" else verified_episodes
            settings = recipe.grounding(scale, epochs=epochs or None, precision=precision)
            rollouts, generator = generate(recipe, count, backbone=backbone, lora=lora, settings=settings,
                                           batch_size=batch_size, progress=progress, executor=runner,
                                           ensemble=ensemble, actions=actions)
        else:
            rollouts = expert_episodes(recipe, count, runner)
            generator = {**runner.provenance(), "checkpoint_hash": None}
        if episodes is not None:  # the card says the build is not the scale's whole set
            generator["episodes_override"] = {"built": count, "recipe_at_scale": recipe.episodes[scale]}
        published = _publish(dataset_id, recipe, rollouts, generator, scale=scale, count=count, force=force,
                             cards_dir=cards_dir, progress=progress, started=started)
    except EpisodeError as error:  # name the dataset too (a Ray error forwards where and fault)
        raise EpisodeError(f"{dataset_id}, {error.where}", error.fault) from error
    finally:
        if own:
            runner.close()
    return BuildResult(dataset_id, published.path, published.card, time.perf_counter() - started,
                       published.card_files)


def _publish(dataset_id: DatasetId, recipe: Recipe, rollouts, generator: dict[str, Any], *, scale: str,
             count: int, force: bool, cards_dir: Path, progress: bool,
             started: float):
    domain = get_domain(recipe.domain)

    def provenance() -> dict[str, Any]:
        return {"recipe": str(recipe.dataset_id), "generator": recipe.generator, "seed": recipe.seed,
                "scale": scale, "build_seconds": round(time.perf_counter() - started, 1), **generator,
                **recipe.notes}

    return publish(dataset_id, rollouts, domain, scale=scale, provenance=provenance,
                   description=recipe.description,
                   cards_dir=cards_dir,
                   total=count, force=force, progress=progress, desc="build")
