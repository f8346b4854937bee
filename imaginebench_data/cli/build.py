"""``imaginebench build``: datasets from their recipes, each with its card and whether its checksum
is the committed one."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from .app import (
    MAX_EPISODES,
    MAX_WORKERS,
    app,
    choose_numerics,
    console,
    examples,
    pct,
)


def _committed_checksum(dataset_id: str, cards_dir: Path | None, scale: str) -> str | None:
    """The checksum of the card file a build is about to replace (the committed one in a
    checkout), or None when there is none or it cannot be read."""
    from ..cards.card import Card, CardError
    from ..datasets.ids import DatasetId
    from ..pipeline.build import default_cards_dir

    parsed = DatasetId.parse(dataset_id)
    path = (cards_dir or default_cards_dir(parsed, scale)) / f"{parsed.name}.json"
    try:
        return Card.from_json(path.read_text(), where=str(path)).checksum
    except (OSError, CardError):
        return None


def _as_committed(committed: str | None, checksum: str) -> str:
    """The table's last column: whether ``checksum`` is the committed card's."""
    return "no card before" if committed is None else "yes" if committed == checksum else "[red]no"


def _card_row(card) -> list[str]:
    """The table's first six cells for a built dataset's ``card``."""
    return [card.id, str(card.episodes), str(card.steps), pct(card.goal_consistency),
            pct(card.illegal_state_rate), pct(card.transition_error_rate)]


def interrupted_build(built: list[str]) -> str:
    """What a Ctrl-C during a build of several datasets kept: the one being built is as it
    was, those finished before it are the new versions."""
    kept = "nothing half-written was left; the dataset being built is as it was"
    return kept + (f"; built before the interrupt (new versions): {', '.join(built)}" if built else "")


@app.command(epilog=examples("imaginebench build imaginebench/clevr-train-real-v0",
                               "imaginebench build --domain babyai --scale paper --workers 4",
                               "imaginebench build --domain babyai --scale paper --executor ray "
                               "--address HEAD:6379 --workers 64",
                               "imaginebench build imaginebench/clevr-hard-imaginary-v0 --force "
                               "--backbone ~/models/Llama-2-7b-chat-hf --lora 16",
                               "imaginebench build imaginebench/libero-easy-imaginary-v0 --force "
                               "--ensemble 3",
                               "imaginebench build imaginebench/libero-rephrase-imaginary-v0 --force "
                               "--actions inferred"))
def build(
    ids: list[str] = typer.Argument(None, help="Dataset ids to build (see `imaginebench list`)."),
    default: bool = typer.Option(False, "--default", help="Build every default dataset (CLEVR's)."),
    domains: list[str] = typer.Option(None, "--domain", help="Build every dataset of this domain "
                                      "(repeatable), e.g. --domain babyai --domain metaworld."),
    scale: str = typer.Option("demo", help="demo (minutes) or paper (the original's sizes)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing version."),
    skip_existing: bool = typer.Option(False, "--skip-existing", help="Leave built datasets as they are."),
    workers: int = typer.Option(2, help="Processes rolling out and checking episodes (local: 1.."
                                f"{MAX_WORKERS}, 4 per CPU core; ray: actors, at most the cluster's CPUs)."),
    executor: str = typer.Option("local", help="Where they run: local (forked processes) or ray (a Ray "
                                 "cluster; the same bytes either way)."),
    address: str | None = typer.Option(None, help="--executor ray: the cluster's HOST:PORT (`ray start "
                                       "--head` prints it); default: a local Ray started for this build."),
    episodes: int | None = typer.Option(None, min=1, max=MAX_EPISODES,
                                        help="Override the scale's episode count."),
    cards_dir: Path | None = typer.Option(None, help="Where to write cards (default: cards/)."),
    backbone: str = typer.Option("scratch", help="Imaginary datasets: 'scratch' (a small GPT-2 trained "
                                 "here) or a local Hugging Face model directory, e.g. Llama-2-7b-chat."),
    lora: int = typer.Option(0, min=0, help="LoRA rank on a --backbone model (0: fine-tune every weight)."),
    precision: str = typer.Option("auto", help="Grounding precision: auto, fp32, bf16-mixed (fp32 master "
                                  "weights, bf16 autocast) or bf16 (frozen bf16 weights, LoRA only)."),
    batch_size: int = typer.Option(64, min=1, help="Imaginary datasets: rollouts generated together."),
    epochs: int | None = typer.Option(None, min=1, help="Imaginary datasets: grounding epochs (default: "
                                      "the recipe's for --scale: 20 at demo; at paper 10 for CLEVR, as KALM, "
                                      "and 5 elsewhere)."),
    numerics: str = typer.Option("recipe", help="Imaginary datasets' CPU kernels: recipe (what each recipe "
                                 "says), portable (the same bits on every x86 CPU) or native (the CPU's own, "
                                 "about 2x faster grounding; checksums then depend on the CPU)."),
    ensemble: int = typer.Option(1, min=1, help="Imaginary datasets: imagine with this many groundings of "
                                 "the recipe's setting (seeds seed, seed + 1, ...) as one model: the mean of "
                                 "their action probabilities and of their next states. N times the "
                                 "grounding; the card names every member."),
    actions: str = typer.Option("model", help="Imaginary datasets: the actions stored: model (what the "
                                "grounded model chose) or inferred (what an inverse dynamics model trained "
                                "on the real training set infers from each imagined transition; the "
                                "model's where the imagined state does not change)."),
) -> None:
    """Build datasets from their recipes in builders/ and write their cards.

    Real datasets are built before imaginary ones (which are grounded on a real one).
    """
    from ..cards.card import CardError
    from ..datasets.ids import DatasetId
    from ..datasets.read import DatasetNotFoundError, local_ids, read_card
    from ..datasets.writer import DatasetExistsError, existing_versions
    from ..imagine.config import check_backbone
    from ..pipeline.build import UnknownRecipeError
    from ..pipeline.build import build as build_one
    from ..pipeline.executors import make_executor
    from ..pipeline.recipe import ACTION_SOURCES, MODEL_GENERATORS, SCALES, build_order, load_recipes
    from ..pipeline.verified import NothingVerifiedError

    if scale not in SCALES:
        raise typer.BadParameter(f"scale must be one of {SCALES}, got {scale!r}")
    if actions not in ACTION_SOURCES:
        raise typer.BadParameter(f"expected one of {', '.join(ACTION_SOURCES)}, got {actions!r}",
                                 param_hint="'--actions'")
    most = MAX_WORKERS if executor == "local" else None
    if workers < 1 or (most and workers > most):
        raise typer.BadParameter(f"expected 1..{most or 'the cluster CPUs'}, got {workers}",
                                 param_hint="'--workers'")
    recipes = load_recipes()
    targets = [str(DatasetId.parse(i)) for i in ids or []]
    targets += [i for i, r in sorted(recipes.items()) if r.default] if default else []
    unknown = sorted(set(domains or []) - {r.domain for r in recipes.values()})
    if unknown:
        raise typer.BadParameter(f"no recipes for domain(s) {unknown}; domains with recipes: "
                                 f"{sorted({r.domain for r in recipes.values()})}")
    targets += [i for i, r in sorted(recipes.items()) if r.domain in (domains or []) and i not in targets]
    targets = build_order(list(dict.fromkeys(targets)), recipes)  # an id named twice is built once
    if not targets:
        raise typer.BadParameter("name dataset ids, or pass --default or --domain NAME")
    missing = [i for i in targets if i not in recipes]
    if missing:  # all of them, before any work (found 2026-12-07: after the ids before it were built)
        raise UnknownRecipeError(f"no recipe builds {', '.join(map(repr, missing))} (`imaginebench list` "
                                 f"shows the {len(recipes)} that exist); nothing was built", given=missing[0])
    choose_numerics(numerics, [recipes[i] for i in targets if i in recipes and recipes[i].generator
                                in MODEL_GENERATORS])
    existing = set(local_ids())
    table = Table(title=f"built ({scale} scale)")
    for column in ("id", "episodes", "steps", "goal consistency", "illegal states",
                   "transition errors", "seconds", "checksum as committed"):
        table.add_column(column)
    todo = [i for i in targets if not (skip_existing and i in existing and not force)]
    present = existing_versions(todo) if not force else []
    if present and skip_existing:  # folders Minari does not list: --skip-existing cannot leave them be
        raise DatasetExistsError(f"{', '.join(present)}: the folder exists but Minari cannot read it "
                                 "(damaged: see `imaginebench verify`); nothing was built: pass --force "
                                 f"to rebuild {'it' if len(present) == 1 else 'them'}")
    if present:  # all of them said before any is built (found 2026-12-06: refused one by one, midway)
        raise DatasetExistsError(f"{', '.join(present)} already exist{'s' if len(present) == 1 else ''}; "
                                 "nothing was built: pass --force to replace, or --skip-existing to build "
                                 "only what is missing")
    for dataset_id in targets:
        if dataset_id not in todo:  # a row too: a second `make demo` still says what it has
            console.print(f"[yellow]{dataset_id} exists; skipped (use --force to rebuild)[/yellow]")
            try:
                stored = read_card(dataset_id)
            except (DatasetNotFoundError, CardError) as error:
                table.add_row(dataset_id, "-", "-", "-", "-", "-", "skipped", f"[red]{escape(str(error))}")
                continue
            same = (f"built at {stored.scale} scale" if stored.scale != scale
                    else _as_committed(_committed_checksum(dataset_id, cards_dir, scale), stored.checksum))
            table.add_row(*_card_row(stored), "skipped", same)
    if any(recipes[i].generator in MODEL_GENERATORS for i in todo if i in recipes):  # only then transformers
        check_backbone(backbone)  # before the real sets it would be grounded on are built
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # per-file "Loading weights" bars; ours show the work
    runner = make_executor(executor, workers, address) if todo else None  # one for every dataset
    built: list[str] = []
    try:
        for dataset_id in todo:
            committed = _committed_checksum(dataset_id, cards_dir, scale)
            try:
                result = build_one(dataset_id, scale, force=force, workers=workers, episodes=episodes,
                                   cards_dir=cards_dir, recipes=recipes, backbone=backbone, lora=lora,
                                   precision=precision, batch_size=batch_size, executor=runner,
                                   numerics=None if numerics == "recipe" else numerics, epochs=epochs,
                                   ensemble=ensemble, actions=actions)
            except NothingVerifiedError as error:  # a measured outcome, not a failure: say so, go on
                console.print(f"[yellow]{error}[/yellow]")
                table.add_row(dataset_id, "0", "0", "-", "-", "-", "-", "not built: no episode passed")
                continue
            built.append(dataset_id)
            card = result.card
            same = _as_committed(committed, card.checksum)
            table.add_row(*_card_row(card), f"{result.seconds:.1f}", same)
    except KeyboardInterrupt:  # say what was written before it: those versions are replaced
        raise KeyboardInterrupt(interrupted_build(built)) from None
    finally:
        if runner is not None:
            runner.close()
    console.print(table)
