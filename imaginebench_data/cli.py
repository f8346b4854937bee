"""The ``imaginebench`` command: list, build, card, render, inspect. Each command calls the library."""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import time
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .pipeline.executors import ExecutorError  # light: Ray is imported only when used

# A user's mistake (an unknown or malformed id, an existing version, a missing file) is
# answered with one line and exit code 2; --debug shows the traceback instead.
USER_ERRORS = (KeyError, ValueError, FileNotFoundError, FileExistsError, NotADirectoryError, PermissionError,
               TimeoutError, ExecutorError)
_options = {"debug": False}
MAX_WORKERS = 4 * (os.cpu_count() or 1)
MAX_EPISODES = 10_000_000  # per dataset: about 140 times the largest paper-scale set (CLEVR easy, 72,400)
DAMAGED = "damaged (see `imaginebench verify`)"  # in `list`: a dataset folder Minari cannot read


class _App(typer.Typer):
    def __call__(self, *args, **kwargs):
        """As Typer runs a command, but a mistake in the command line (an option out of its range,
        an unknown option, a missing argument) is one line too, as the commands' own errors are,
        not Click's usage box; ``imaginebench`` alone still shows the help."""
        exceptions = sys.modules[typer.BadParameter.__module__]  # Click's, or the copy Typer carries
        try:
            code = super().__call__(*args, standalone_mode=False, **kwargs)
        except exceptions.UsageError as error:
            if type(error).__name__ == "NoArgsIsHelpError":
                error.show()
                sys.exit(error.exit_code)
            where = f" (see `{error.ctx.command_path} --help`)" if error.ctx is not None else ""
            err_console.print(f"[red]error:[/red] {escape(error.format_message())}{where}", highlight=False,
                              soft_wrap=True)
            sys.exit(error.exit_code)
        except exceptions.ClickException as error:
            error.show()
            sys.exit(error.exit_code)
        except typer.Abort:  # Typer's own name for it, whichever Click it carries
            err_console.print("aborted", highlight=False)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)

    def command(self, *args, **kwargs):
        register = super().command(*args, **kwargs)

        def decorator(function):
            @functools.wraps(function)
            def answered(*a, **k):
                try:
                    return function(*a, **k)
                except KeyboardInterrupt:
                    from .core import interrupt

                    interrupt.clear()
                    if _options["debug"]:
                        raise
                    err_console.print("interrupted: nothing half-written was left; existing datasets are "
                                      "as they were", highlight=False, soft_wrap=True)
                    raise typer.Exit(130) from None
                except USER_ERRORS as error:
                    if _options["debug"]:
                        raise
                    message = error.args[0] if isinstance(error, KeyError) and error.args else error
                    hint = _did_you_mean(error)
                    stop = "." if hint and not str(message).endswith((".", "?", ")")) else ""
                    line = f"{message}{stop}{hint}"
                    err_console.print(f"[red]error:[/red] {escape(line)}", highlight=False, soft_wrap=True)
                    raise typer.Exit(2) from None

            return register(answered)

        return decorator


def _committed_checksum(dataset_id: str, cards_dir: Path | None, scale: str) -> str | None:
    """The checksum of the card file a build is about to replace (the committed one in a
    checkout), or None when there is none or it cannot be read."""
    from .cards.card import Card, CardError
    from .datasets.ids import DatasetId
    from .pipeline.build import default_cards_dir

    parsed = DatasetId.parse(dataset_id)
    path = (cards_dir or default_cards_dir(parsed, scale)) / f"{parsed.name}.json"
    try:
        return Card.from_json(path.read_text(), where=str(path)).checksum
    except (OSError, CardError):
        return None


def _examples(*commands: str) -> str:
    """A help epilog of example command lines (one per line in --help)."""
    return "Examples:\n\n" + "\n\n".join(f"  {command}" for command in commands)


def _check_domains(domains: list[str] | None, *also: str) -> None:
    """A one-line error for the first of ``domains`` that is no registered domain (nor one of ``also``)."""
    from .domains import domain_names

    known = (*also, *domain_names())
    unknown = [d for d in domains or [] if d not in known]
    if unknown:
        raise typer.BadParameter(f"unknown domain {unknown[0]!r}: expected one of {', '.join(known)}",
                                 param_hint="'--domain'")


def _check_bins(bins: int, option: str) -> None:
    """A one-line error for one bin per action number: 0 (a regression) or at least 2 values."""
    if bins == 1:
        raise typer.BadParameter("expected 0 (regression) or at least 2 values, got 1",
                                 param_hint=f"'{option}'")


def _did_you_mean(error: Exception) -> str:
    """" Did you mean ID?" for an id that is close to one a recipe builds or one that is local."""
    given = getattr(error, "given", None)
    if not isinstance(given, str):
        return ""
    import difflib

    from .datasets.ids import NAMESPACE
    from .datasets.read import local_ids
    from .pipeline.recipe import load_recipes

    recipes = load_recipes()
    if given in recipes:  # a recipe's id, not built yet: the message says how to build it
        return ""
    try:
        known = sorted(set(recipes) | set(local_ids()))
    except OSError:  # the datasets folder itself is wrong: its own error says so, elsewhere
        known = sorted(recipes)
    if given.strip() != given and given.strip() in known:
        return f" Did you mean {given.strip()!r}, without the white space around it?"
    given = given.strip()
    by_case = {name.lower(): name for name in known}
    if given.lower() in by_case:  # ids are lower case: 'IMAGINEBENCH/...' is a namespace of its own
        return f" Did you mean {by_case[given.lower()]!r}?"
    if "/" not in given and f"{NAMESPACE}/{given}" in known:  # the namespace left out
        return f" Did you mean {NAMESPACE + '/' + given!r}?"
    close = difflib.get_close_matches(given, known, n=1, cutoff=0.8)
    return f" Did you mean {close[0]!r}?" if close else ""


app = _App(help="Build, check, document and inspect ImagineBench datasets.", no_args_is_help=True)
console = Console(width=None if Console().is_terminal else 160)
err_console = Console(stderr=True, width=None if Console().is_terminal else 160)


@app.callback()
def main(debug: bool = typer.Option(False, "--debug", help="Show the traceback of an error.")) -> None:
    """Build, check, document and inspect ImagineBench datasets."""
    from .core import interrupt

    _options["debug"] = debug
    interrupt.install()


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


@app.command("list", epilog=_examples("imaginebench list"))
def list_datasets() -> None:
    """Every dataset a recipe can build, its sizes, and whether it is built locally."""
    from .datasets.hdf5_layout import MAIN_FILE
    from .datasets.ids import dataset_dir
    from .datasets.read import local_ids, unlisted_ids
    from .pipeline.recipe import load_recipes

    def built(dataset_id: str) -> str:  # Minari lists a dataset by its metadata.json alone
        if dataset_id in unreadable:
            return DAMAGED
        if dataset_id not in local:
            return ""
        main = dataset_dir(dataset_id) / "data" / MAIN_FILE
        return "yes" if main.is_file() and main.stat().st_size else DAMAGED

    listed = local_ids()
    local, unreadable = set(listed), set(unlisted_ids(listed))  # unlisted: metadata.json gone or not JSON
    table = Table(title="imaginebench datasets")
    for column in ("id", "generator", "demo", "paper", "default", "built"):
        table.add_column(column)
    for dataset_id, recipe in sorted(load_recipes().items()):
        generator = recipe.generator + (f" (on {recipe.train_from})" if recipe.train_from else "")
        table.add_row(dataset_id, generator, str(recipe.episodes["demo"]), str(recipe.episodes["paper"]),
                      "yes" if recipe.default else "", built(dataset_id))
    console.print(table)


@app.command(epilog=_examples("imaginebench build imaginebench/clevr-train-real-v0",
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
    from .datasets.ids import DatasetId
    from .datasets.read import local_ids
    from .datasets.writer import DatasetExistsError, existing_versions
    from .imagine.config import check_backbone
    from .pipeline.build import build as build_one
    from .pipeline.executors import make_executor
    from .pipeline.recipe import ACTION_SOURCES, MODEL_GENERATORS, SCALES, build_order, load_recipes
    from .pipeline.verified import NothingVerifiedError

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
    targets = build_order(targets, recipes)
    if not targets:
        raise typer.BadParameter("name dataset ids, or pass --default or --domain NAME")
    _choose_numerics(numerics, [recipes[i] for i in targets if i in recipes and recipes[i].generator
                                in MODEL_GENERATORS])
    existing = set(local_ids())
    table = Table(title=f"built ({scale} scale)")
    for column in ("id", "episodes", "steps", "goal consistency", "illegal states",
                   "transition errors", "seconds", "checksum as committed"):
        table.add_column(column)
    todo = [i for i in targets if not (skip_existing and i in existing and not force)]
    present = existing_versions(todo) if not force else []
    if present:  # all of them said before any is built (found 2026-12-06: refused one by one, midway)
        raise DatasetExistsError(f"{', '.join(present)} already exist{'s' if len(present) == 1 else ''}; "
                                 "nothing was built: pass --force to replace, or --skip-existing to build "
                                 "only what is missing")
    for dataset_id in targets:
        if dataset_id not in todo:
            console.print(f"[yellow]{dataset_id} exists; skipped (use --force to rebuild)[/yellow]")
    if any(recipes[i].generator in MODEL_GENERATORS for i in todo if i in recipes):  # only then transformers
        check_backbone(backbone)  # before the real sets it would be grounded on are built
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # per-file "Loading weights" bars; ours show the work
    runner = make_executor(executor, workers, address) if todo else None  # one for every dataset
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
            card = result.card
            same = ("no card before" if committed is None
                    else "yes" if committed == card.checksum else "[red]no")
            table.add_row(dataset_id, str(card.episodes), str(card.steps), _pct(card.goal_consistency),
                          _pct(card.illegal_state_rate), _pct(card.transition_error_rate),
                          f"{result.seconds:.1f}", same)
    finally:
        if runner is not None:
            runner.close()
    console.print(table)


def _choose_numerics(option: str, recipes: list) -> None:
    """Portable numerics for this process if ``option`` or any of the model ``recipes`` asks for
    them: chosen here, before torch's first operation (see ``imagine/numerics.py``)."""
    from .imagine import numerics

    wanted = {option} if option != "recipe" else {r.numerics for r in recipes}
    if option != "recipe" and option not in numerics.MODES:
        raise typer.BadParameter(f"expected recipe or one of {numerics.MODES}, got {option!r}",
                                 param_hint="'--numerics'")
    if "portable" in wanted:
        numerics.choose("portable")
    if wanted == set(numerics.MODES):
        console.print("[yellow]note: some of these recipes ground with the CPU's own kernels (native); in "
                      "this process they get portable ones, so their checksums may differ from committed "
                      "cards built natively[/yellow]")


@app.command(epilog=_examples("imaginebench card imaginebench/clevr-easy-real-v0 --cards-dir /tmp/cards"))
def card(
    dataset_id: str,
    cards_dir: Path | None = typer.Option(None, help="Where to write the card (default: cards/)."),
) -> None:
    """Render a built dataset's stored card to Markdown, JSON and a plot."""
    from .cards.render import write_card_files
    from .datasets.ids import DatasetId
    from .datasets.read import read_card
    from .pipeline.build import default_cards_dir
    from .pipeline.publish import check_cards_dir
    from .quality.frame import quality_frame

    stored = read_card(dataset_id)
    target = cards_dir or default_cards_dir(DatasetId.parse(dataset_id), stored.scale)
    check_cards_dir(target)
    for path in write_card_files(stored, quality_frame(dataset_id), target):
        console.print(f"wrote {path}")


@app.command(epilog=_examples("imaginebench render imaginebench/clevr-hard-imaginary-v0 --episode 3",
                               "imaginebench render imaginebench/babyai-easy-real-v0 --episode 0 --gif "
                               "--out episode0.gif",
                               "imaginebench render imaginebench/halfcheetah-train-real-v0 --episode 5 "
                               "--every 10"))
def render(
    dataset_id: str,
    episode: int = typer.Option(..., "--episode", help="Which episode (0-based, in Minari's order)."),
    out: Path | None = typer.Option(None, "--out",
                                    help="A file, or a folder (made if missing) for <name>-episode<N>.png "
                                    "or .gif (default: here)."),
    every: int | None = typer.Option(None, "--every",
                                     help="Draw every K-th state and the last (default: 8 states spread "
                                          "evenly in a strip, every state in a GIF)."),
    gif: bool = typer.Option(False, "--gif", help="Write an animated GIF instead of a PNG strip."),
) -> None:
    """Draw a stored episode, real or imagined, by putting the domain's simulator in each of its
    states: a PNG strip of a few states, or a GIF."""
    from .core.render import RenderError
    from .drawing import draw_episode

    try:
        path = draw_episode(dataset_id, episode, out, every=every,
                            gif=gif or (out is not None and out.suffix.lower() == ".gif"))
    except RenderError as error:  # no renderer, or no OpenGL backend: say so in one line
        raise ValueError(str(error)) from error
    console.print(f"wrote {path}")


@app.command(epilog=_examples("imaginebench verify", "imaginebench verify --domain clevr",
                               "imaginebench verify imaginebench/clevr-train-real-v0"))
def verify(
    ids: list[str] = typer.Argument(None, help="Dataset ids (default: every local imaginebench dataset)."),
    domains: list[str] = typer.Option(None, "--domain",
                                      help="Every local dataset of this domain (repeatable)."),
) -> None:
    """Check local datasets as their users read them: Minari loads them, their episodes hash to
    their card's checksum, their eval env comes back at its level, and real data meets its
    checkers' floor. Exits 1 if any fails."""
    from rich.progress import track

    from .datasets.ids import DatasetId
    from .datasets.read import local_ids, unlisted_ids, written_by_us
    from .datasets.verify import verify as verify_one

    _check_domains(domains)
    chosen = list(ids or [])
    if domains or not chosen:
        # with those Minari cannot list (their metadata.json missing or malformed): reported broken
        listed = local_ids()
        found = [i for i in listed + unlisted_ids(listed)
                 if not domains or DatasetId.parse(i).domain in domains]
        foreign = [i for i in found if not written_by_us(i)]
        if foreign:
            console.print(f"skipped {len(foreign)} dataset(s) not written by imaginebench-data: "
                          f"{', '.join(foreign)}")
        chosen += [i for i in found if i not in foreign]
    if not chosen:
        console.print("no local imaginebench datasets to verify")
        raise typer.Exit(1)
    table = Table(title="imaginebench verify")
    for column in ("id", "episodes", "steps", "result"):
        table.add_column(column)
    failed = 0
    for dataset_id in track(chosen, description="verifying", console=console, transient=True):
        verdict = verify_one(dataset_id)
        failed += not verdict.ok
        table.add_row(dataset_id, str(verdict.episodes), str(verdict.steps),
                      "ok" if verdict.ok else "[red]" + "; ".join(verdict.problems))
    console.print(table)
    console.print(f"{len(chosen) - failed} of {len(chosen)} datasets verified")
    if failed:
        raise typer.Exit(1)


@app.command(epilog=_examples("imaginebench inspect imaginebench/clevr-hard-imaginary-v0",
                               "imaginebench inspect imaginebench/clevr-hard-imaginary-v0 --by phrasing_id",
                               "imaginebench inspect imaginebench/babyai-rephrase-imaginary-v0 --replay"))
def inspect(dataset_id: str, by: str = typer.Option("task_id", help="Column to group by."),
            replay: bool = typer.Option(False, "--replay", help="Also replay each episode's actions in the "
                                        "real simulator from its reset: the share that reaches the goal "
                                        "(imagined data is judged by its states; a learner learns its "
                                        "actions).")) -> None:
    """Quality by task (or another column) of a built dataset."""
    import pandas as pd

    from .quality.frame import quality_frame

    frame = quality_frame(dataset_id)
    if by not in frame.columns:
        known = ", ".join(map(str, frame.columns))
        raise typer.BadParameter(f"expected a column of the quality frame ({known}), got {by!r}",
                                 param_hint="'--by'")
    columns = {"episodes": ("length", "size"), "mean_length": ("length", "mean"),
               "mean_return": ("return", "mean"), "success": ("success", "mean"),
               "illegal_states": ("illegal_states", "sum"), "transition_errors": ("transition_errors", "sum")}
    if replay:
        from .quality.replay import replayed_dataset

        frame["actions_replayed"] = replayed_dataset(dataset_id, progress=True).astype(float)
        columns["actions_replayed"] = ("actions_replayed", "mean")
    grouped = frame.groupby(by, sort=False, dropna=False).agg(**columns)  # None is a group too
    table = Table(title=f"{dataset_id}: quality by {by}")
    table.add_column(by)
    for column in grouped.columns:
        table.add_column(column, justify="right")
    floats = [grouped[c].dtype.kind == "f" for c in grouped.columns]
    for key, row in zip(grouped.index, grouped.itertuples(index=False)):
        label = "(none)" if not isinstance(key, tuple) and pd.isna(key) else str(key)
        table.add_row(label, *(f"{v:.3f}" if is_float else str(v) for v, is_float in zip(row, floats)))
    console.print(table)
    replayed = f", actions replayed reach the goal {_pct(frame['actions_replayed'].mean())}" if replay else ""
    episodes = f"{len(frame)} episode{'s' * (len(frame) != 1)}"
    console.print(f"{episodes}, goal consistency {_pct(frame['success'].mean())}, "
                  f"illegal states {int(frame['illegal_states'].sum())}, "
                  f"transition errors {int(frame['transition_errors'].sum())}{replayed}")


@app.command(epilog=_examples("imaginebench ground",
                               "imaginebench ground imaginebench/babyai-train-real-v0 --epochs 40",
                               "imaginebench ground --seed 1",
                               "imaginebench ground --scale paper",
                               "imaginebench ground imaginebench/halfcheetah-train-real-v0 "
                               "--dynamics-per-episode 64 --short-apart --hide-history"))
def ground(
    dataset_id: str = typer.Argument("imaginebench/clevr-train-real-v0", help="Real dataset to ground on."),
    backbone: str = typer.Option("scratch", help="'scratch' or a local Hugging Face model directory."),
    lora: int = typer.Option(0, min=0, help="LoRA rank on a --backbone model (0: fine-tune every weight)."),
    scale: str = typer.Option("demo", help="Whose checkpoint the defaults ground: the builds' at this "
                              "scale, demo or paper (their epochs and levers; ground on the training set "
                              "built at that scale)."),
    epochs: int | None = typer.Option(None, min=1, show_default=False,
                                      help="Training epochs (default: the builds' at --scale: 20 at demo; at "
                                      "paper 10 for CLEVR, 5 elsewhere)."),
    precision: str = typer.Option("auto", help="auto, fp32, bf16-mixed or bf16 (LoRA only)."),
    batch_size: int = typer.Option(32, min=1, help="Training sequences per optimiser step (over all "
                                   "processes)."),
    lr: float | None = typer.Option(None, help="Peak learning rate (default: 1e-3 scratch, 2e-4 LoRA, 5e-5 "
                                    "full fine-tuning)."),
    numerics: str = typer.Option("recipe", help="CPU kernels: recipe (what the domain's imagined recipes "
                                 "say), portable or native (see `imaginebench build --help`)."),
    dynamics_per_episode: int = typer.Option(2, min=0, help="Dynamics-task sequences per episode and epoch."),
    seed: int = typer.Option(0, min=0, help="Seed of the initial weights and of every draw of the training "
                             "data (the builds ground with 0)."),
    short_apart: bool | None = typer.Option(None, "--short-apart/--no-short-apart", show_default=False,
                                            help="Batch the short (dynamics, one-step) sequences apart from "
                                            "the long ones: many of them then cost little (default: the "
                                            "domain's builds' choice, on for Meta-World)."),
    length_pool: int | None = typer.Option(None, min=0, show_default=False,
                                           help="Cut the epoch's shuffled sequences into pools of this many "
                                           "batches and sort each pool by length before batching, so "
                                           "batches pad little (supersedes --short-apart; default: the "
                                           "domain's builds' choice, 0: off)."),
    length_split: int | None = typer.Option(None, min=0, show_default=False,
                                            help="Run each batch as this many parts of like lengths, each "
                                            "padded to its own longest: the same mean losses for less "
                                            "padding (one process; default: the domain's builds' choice, "
                                            "0: off)."),
    hide_history: bool | None = typer.Option(None, "--hide-history/--no-hide-history", show_default=False,
                                             help="The model sees the domain's history columns as their "
                                             "mean (HalfCheetah's counters; default: off)."),
    hide_unseen: bool | None = typer.Option(None, "--hide-unseen/--no-hide-unseen", show_default=False,
                                            help="The model sees the state columns the training set never "
                                            "varied as that value (default: the domain's builds' choice, "
                                            "on for Meta-World and LIBERO)."),
    action_bins: int = typer.Option(0, min=0, help="Continuous actions: the action head predicts each action "
                                     "number as one of this many values (0: regression)."),
    action_weight: float | None = typer.Option(None, show_default=False,
                                               help="The action loss counted this many times in the sum "
                                               "the optimiser minimises (default 1: the plain sum)."),
    steps_per_episode: int | None = typer.Option(None, min=0, show_default=False,
                                                 help="One-step rollouts (the rollout task prompted at a "
                                                 "random step) per episode and epoch (default: the domain's "
                                                 "builds' choice, 16 for Meta-World, 0 elsewhere)."),
    holdout_per_task: bool | None = typer.Option(None, "--holdout-per-task/--no-holdout-per-task",
                                                 show_default=False,
                                                 help="Hold out every 10th episode of each task for the "
                                                 "evidence, not every 10th episode, which can take all of "
                                                 "a task's (default: the domain's builds' choice, on for "
                                                 "Meta-World)."),
    symmetries: bool | None = typer.Option(None, "--symmetries/--no-symmetries", show_default=False,
                                           help="Each training episode seen, every epoch, as a copy that "
                                           "keeps its task (CLEVR: colours permuted, the table mirrored; "
                                           "LIBERO: items the task leaves already in the basket; default: "
                                           "the domain's builds' choice)."),
    fused_adam: bool | None = typer.Option(None, "--fused-adam/--no-fused-adam", show_default=False,
                                           help="AdamW's fused kernel, whose square root is exact, not "
                                           "MKL's, whose last bits depend on the CPU (default: the "
                                           "domain's builds' choice: on in every domain's demo builds, "
                                           "off at paper scale)."),
) -> None:
    """Ground a language model on a real dataset (or reuse the checkpoint); print its evidence.

    Under `accelerate launch --multi_gpu --num_processes N` it trains data parallel on N processes
    (GPUs; CPUs with gloo where there is none: accelerate's --cpu starts one process), each on its
    share of every batch of --batch-size (the builds' --length-split, a one-process lever of the
    same gradient, is left off there)."""
    from .datasets.ids import DatasetId
    from .domains import get_domain
    from .imagine.checkpoints import checkpoint_provenance, ensure_checkpoint
    from .imagine.distributed import is_main_process, launched_processes
    from .imagine.train import TrainSettings
    from .pipeline.recipe import SCALES, TRAIN_EPOCHS, load_recipes

    for name, value in (("--lr", lr), ("--action-weight", action_weight)):
        if value is not None and not value > 0:
            raise typer.BadParameter(f"expected a positive number, got {value:g}", param_hint=f"'{name}'")
    _check_bins(action_bins, "--action-bins")
    trained_on = DatasetId.parse(dataset_id)
    if scale not in SCALES:
        raise typer.BadParameter(f"expected one of {SCALES}, got {scale!r}", param_hint="'--scale'")
    builds = [r for r in load_recipes().values() if r.train_from == trained_on]
    _choose_numerics(numerics, builds)
    given = {"epochs": epochs, "precision": precision, "batch_size": batch_size, "lr": lr, "seed": seed,
             "dynamics_per_episode": dynamics_per_episode, "short_apart": short_apart,
             "length_pool": length_pool, "length_split": length_split, "hide_history": hide_history,
             "hide_unseen": hide_unseen, "action_bins": action_bins, "action_weight": action_weight,
             "steps_per_episode": steps_per_episode, "holdout_per_task": holdout_per_task,
             "symmetries": symmetries, "fused_adam": fused_adam}
    given = {name: value for name, value in given.items() if value is not None}
    if launched_processes() > 1 and length_split is None:  # a batch in parts is a one-process lever
        given["length_split"] = 0  # (the same gradient): the builds' choice is off here
    settings = (builds[0].grounding(scale, **given) if builds else TrainSettings.for_domain(
        get_domain(trained_on.domain), **{"epochs": TRAIN_EPOCHS[scale], **given}))
    path = ensure_checkpoint(dataset_id, backbone=backbone, lora=lora, settings=settings)
    if not is_main_process():  # under `accelerate launch`: the main process reports
        return
    prov = checkpoint_provenance(path)
    step, goal = prov["evidence"]["next_state"], prov["evidence"]["goal"]
    console.print(f"checkpoint {path} (hash {prov['checkpoint_hash']}, backbone {prov['backbone']}, "
                  f"trained in {prov['training']['seconds']:.0f} s)")
    table = Table(title="evidence")
    for column in ("measure", "model", "baseline"):
        table.add_column(column)
    table.add_row(f"next-state error, {step['held_out_transitions']} held-out transitions",
                  f"{step['model_error_mean']:.4f}",
                  f"{step['nothing_moves_error_mean']:.4f} (nothing moves)")
    table.add_row(f"goal consistency, {goal['episodes']} {goal['level']} rollouts",
                  _pct(goal["imagined_goal_consistency"]),
                  f"{_pct(goal['random_actions_goal_consistency'])} (random actions)")
    console.print(table)


@app.command("numerics", epilog=_examples(
    "imaginebench numerics --save here.json",
    "imaginebench numerics --compare docs/numerics/intel-xeon-2026-12-02.json"))
def numerics_fingerprint(
    save: Path | None = typer.Option(None, help="Write this machine's fingerprint to this JSON file."),
    compare: Path | None = typer.Option(None, help="Compare with a fingerprint saved on another machine; "
                                        "exit code 1 if a kernel differs."),
    numerics: str = typer.Option("portable", help="CPU kernels: portable (the builds' default) or native."),
) -> None:
    """Hash what each library grounding uses computes on fixed inputs (numpy, MKL, ATen, oneDNN,
    attention, Adam, a GPT-2 step, MiniLM), so two machines whose checkpoints differ see which
    library parts them."""
    from .imagine import fingerprint
    from .imagine import numerics as kernels

    if numerics not in kernels.MODES:
        raise typer.BadParameter(f"expected one of {kernels.MODES}, got {numerics!r}",
                                 param_hint="'--numerics'")
    theirs = fingerprint.load(compare) if compare else None  # a bad file is refused before the work
    if save is not None:  # and a place the fingerprint cannot be written to
        from .core.folders import check_writable

        if save.is_dir():
            raise typer.BadParameter(f"expected a file name for the JSON, found the folder {save}",
                                     param_hint="'--save'")
        check_writable(save.parent, "--save", "the fingerprint")
    if numerics == "portable":
        kernels.choose("portable")
    hashes = fingerprint.fingerprint(progress=lambda name: err_console.print(f"[dim]{name}[/dim]"))
    here = fingerprint.machine()
    # one line each, however narrow the terminal: scripts and tests read them whole (an Intel
    # Xeon with AMX names enough vector extensions to wrap at 80 columns)
    console.print(_machine_line(here), highlight=False, soft_wrap=True)
    table = Table(title="kernel fingerprints")
    for column in ("kernel", "this machine", *(("saved", "") if theirs else ())):
        table.add_column(column)
    verdicts = fingerprint.compare(hashes, theirs["kernels"]) if theirs else {}
    for name in verdicts or hashes:  # verdicts name every kernel of either fingerprint
        row = [name, hashes.get(name, "-")]
        if theirs:
            row += [theirs["kernels"].get(name, "-"), verdicts[name]]
        table.add_row(*row)
    console.print(table)
    if save:
        fingerprint.save(save, hashes)
        console.print(f"saved {save}")
    if theirs:
        other = _machine_line(theirs["machine"]) or "not recorded"
        differ = [name for name, verdict in verdicts.items() if verdict == "differs"]
        compared = sum(verdict != "not compared" for verdict in verdicts.values())
        console.print(f"saved on: {other}", highlight=False, soft_wrap=True)
        if not compared:  # a match of nothing is no match: scripts read the exit code
            err_console.print(f"[red]error:[/red] nothing compared: {escape(str(compare))} holds none of the "
                              f"{len(hashes)} kernels this machine hashed", highlight=False, soft_wrap=True)
            raise typer.Exit(2)
        left_out = len(verdicts) - compared
        console.print(f"{len(differ)} of {compared} kernels compared differ"
                      + (f" ({left_out} not compared)" if left_out else "")
                      + (f": {', '.join(differ)}" if differ else ""), highlight=False, soft_wrap=True)
        if differ:
            raise typer.Exit(1)


def _machine_line(machine: dict) -> str:
    """A fingerprint's machine, ``key value`` pairs on one line."""
    return ", ".join(f"{key} {value}" for key, value in machine.items())


@app.command("evaluate", epilog=_examples("imaginebench evaluate --domain clevr --algo bc --seeds 3",
                                           "imaginebench evaluate --level train --budget paper",
                                           "imaginebench evaluate --level train --steps 20000 --hidden 512 "
                                           "--dropout 0.2",
                                           "imaginebench evaluate --domain halfcheetah --level train "
                                           "--normalize --no-history --bins 21",
                                           "imaginebench evaluate --domain all --seeds 3",
                                           "imaginebench evaluate --domain libero --seeds 3 --workers 2",
                                           "imaginebench evaluate --domain babyai --level easy --regime real "
                                           "--regime real+imaginary"))
def evaluate_regimes(
    domains: list[str] = typer.Option(None, "--domain", help="Domain whose datasets are compared "
                                      "(repeatable; 'all': every domain with a built training set). "
                                      "Default: clevr."),
    algo: str = typer.Option("bc", help="bc (plain torch), or d3rlpy's cql / td3+bc (in .venv-d3rlpy)."),
    seeds: int = typer.Option(3, min=1, help="Seeds per (level, regime)."),
    budget: str = typer.Option("demo", help="demo (5,000 gradient steps per run) or paper (the "
                               "original's 500,000)."),
    steps: int | None = typer.Option(None, min=1, help="Gradient steps per run (overrides --budget)."),
    hidden: int = typer.Option(256, min=1, help="bc: width of the MLP's two hidden layers."),
    dropout: float = typer.Option(0.0, help="bc: dropout after each hidden layer while training."),
    normalize: bool = typer.Option(False, help="bc: standardize the state columns (the training "
                                   "rows' mean and spread)."),
    history: bool = typer.Option(True, help="bc: let the policy see the domain's history columns "
                                 "(HalfCheetah's distance so far, time, furthest points); "
                                 "--no-history leaves them out."),
    bins: int = typer.Option(0, min=0, help="bc, continuous actions: each action number one of this many "
                             "evenly spaced values (cross-entropy, sampled when acting); 0: "
                             "regression (MSE)."),
    symmetries: bool = typer.Option(False, help="bc: every batch row a copy of itself that keeps its task "
                                    "(CLEVR: colours permuted, the table mirrored; LIBERO: items the task "
                                    "leaves already in the basket)."),
    d3rlpy: list[str] = typer.Option(None, "--d3rlpy", help="cql, td3+bc: KEY=VALUE, a field of "
                                     "d3rlpy's config replacing its default (repeatable), e.g. "
                                     "--d3rlpy learning_rate=3e-4; a dotted KEY sets a nested config's "
                                     "field, e.g. --d3rlpy encoder_factory.dropout_rate=0.1; a name "
                                     "picks d3rlpy's registered config (encoder_factory=vector, then "
                                     "encoder_factory.hidden_units=512,512); none sets a field to None "
                                     "(observation_scaler=none: the states unscaled)."),
    softmax_q: bool = typer.Option(False, help="cql, discrete actions: draw each action from the softmax "
                                   "of its Q-values (seeded), as bc samples its softmax; default: the "
                                   "argmax."),
    levels: list[str] = typer.Option(None, "--level", help="Only this level (repeatable); default all."),
    regimes: list[str] = typer.Option(None, "--regime", help="Only this data regime: real, "
                                      "real+imaginary, real+verified or oracle (repeatable); default all."),
    out: Path = typer.Option(Path("results"), help="Folder for the result files. "
                             "<domain>-<algo>.journal.csv there keeps each finished training's rows: run "
                             "the same command again after a stop, or once finished with fewer levels or "
                             "more seeds, and those are read back, not trained again (only with the same "
                             "settings, datasets and package versions; delete it to train all again)."),
    workers: int = typer.Option(1, help="Processes training (and evaluating) the policies side by side, one "
                                "per (datasets, seed); the same results whatever the number."),
) -> None:
    """Train a policy on each data regime (real / real+imaginary / real+verified / oracle) of
    each level, evaluate it in the level's eval env, and write the table (mean ± std over seeds),
    each regime against real-only (the difference, Welch's 95% interval over the seeds: ahead,
    behind or within the noise) and a plot per domain; with several domains also
    results/benchmark-<algo>.md, all in one."""
    from .baselines import against_real
    from .baselines.compare import (
        ALGOS,
        BUDGETS,
        LEVELS,
        REGIMES,
        benchmark_table,
        compare,
        markdown_table,
        regimes_run,
        summary,
        write_results,
    )
    from .baselines.offline import changed_settings, parse_config
    from .datasets.read import local_ids, read_card
    from .domains import domain_names, get_domain

    if budget not in BUDGETS:
        raise typer.BadParameter(f"--budget must be one of {', '.join(BUDGETS)}, got {budget!r}")
    steps = steps or BUDGETS[budget]
    if d3rlpy and algo == "bc":
        raise typer.BadParameter("--d3rlpy sets d3rlpy's algorithms (--algo cql or td3+bc), not bc")
    if softmax_q and algo != "cql":
        raise typer.BadParameter(f"--softmax-q samples discrete CQL's Q-values (--algo cql), not {algo}'s")
    if algo not in ALGOS:
        raise typer.BadParameter(f"expected one of {', '.join(ALGOS)}, got {algo!r}", param_hint="'--algo'")
    try:
        config = parse_config(d3rlpy or [])
    except ValueError as error:
        raise typer.BadParameter(str(error)) from error
    if not 0.0 <= dropout < 1.0:
        raise typer.BadParameter(f"expected a share in [0, 1), got {dropout:g}", param_hint="'--dropout'")
    _check_bins(bins, "--bins")
    if algo != "bc" and importlib.util.find_spec("d3rlpy") is None:  # before any dataset is read
        from .adapters.d3rlpy import NEEDS_D3RLPY

        raise typer.BadParameter(f"{algo} {NEEDS_D3RLPY}", param_hint="'--algo'")
    bc = {"hidden": hidden, "dropout": dropout, "normalize": normalize, "history": history, "bins": bins,
          "symmetries": symmetries}
    chosen = list(domains or ["clevr"])
    _check_domains(chosen, "all")
    if "all" in chosen:
        built = set(local_ids())
        chosen = [d for d in domain_names() if f"imaginebench/{d}-train-real-v0" in built]
    every = []
    for domain in chosen:
        started, journal = time.perf_counter(), out / f"{domain}-{algo}.journal.csv"
        try:
            results = compare(domain, algo=algo, levels=tuple(levels or LEVELS), seeds=seeds, steps=steps,
                              regimes=tuple(regimes or REGIMES),
                              options=bc if algo == "bc" else {"config": config, "sample": softmax_q},
                              workers=workers, journal=journal)
        except (ValueError, ImportError) as error:
            raise typer.BadParameter(str(error)) from error
        minutes = (time.perf_counter() - started) / 60
        read_back = results.attrs.get("read_back", 0)
        resumed = (f" (and {read_back} training{'s' if read_back > 1 else ''} read back from the journal of "
                   f"an earlier run)") if read_back else ""
        options = f", dropout {dropout:g}" if dropout else ""
        options += ", states standardized" if normalize else ""
        options += ", history columns left out" if not history else ""
        options += f", each action number one of {bins} values (sampled)" if bins else ""
        options += ", every batch row a copy of itself (the domain's symmetry)" if symmetries else ""
        if algo != "bc":
            changed = ", ".join(f"{key} {value:g}" if isinstance(value, float) else
                                f"{key} {'none' if value is None else value}"
                                for key, value in changed_settings(algo, domain, config).items())
            changed = f" ({changed}; other settings d3rlpy's defaults)" if changed else ""
        model = f"2x{hidden} MLP{options}" if algo == "bc" else f"d3rlpy's networks{changed}"
        scale = read_card(f"imaginebench/{domain}-train-real-v0").scale
        policy = " (actions sampled from its softmax)" if algo == "bc" and get_domain(domain).discrete else ""
        policy = " (actions sampled from the softmax of Q)" if softmax_q else policy
        paths = write_results(results, out, note=f"{algo}: {steps:,} steps of 256, {model}{policy} on "
                              f"[state, MiniLM instruction embedding], {scale}-scale datasets; the whole "
                              f"comparison took {minutes:.1f} minutes on {os.cpu_count()} CPU cores"
                              f"{f' ({workers} workers)' if workers > 1 else ''}{resumed}, "
                              f"{time.strftime('%Y-%m-%d')}.")
        console.print(markdown_table(summary(results)))
        versus = against_real.against_real(results)
        if not versus.empty:
            console.print("\n".join(against_real.markdown(versus, regimes_run(results))))
        for path in paths:
            console.print(f"wrote {path}")
        every.append(results)
    if len(every) > 1:
        path = out / f"benchmark-{algo}.md"
        path.write_text(f"# {algo.upper()}: success rate by domain, level and data regime\n\n"
                        f"{steps:,} steps per run, {seeds} seeds, {time.strftime('%Y-%m-%d')}.\n\n"
                        f"{benchmark_table(every)}\n"
                        f"{against_real.section(against_real.benchmark_markdown(every, REGIMES))}")
        console.print(f"wrote {path}")


@app.command("import", epilog=_examples("imaginebench import ~/ImagineBench/data --check",
                                         "imaginebench import ~/ImagineBench/data --encodings ~/ImagineBench/"
                                         "data/babyai_encode.npy",
                                         "imaginebench import ~/ImagineBench/data --unmatched skip"))
def import_files(
    src_dir: Path = typer.Argument(..., help="Folder with the original files (.h5/.hdf5, .npy, or Parquet)."),
    namespace: str = typer.Option("imaginebench-original", help="Namespace of the dataset ids written."),
    force: bool = typer.Option(False, "--force", help="Replace existing versions."),
    cards_dir: Path | None = typer.Option(None, help="Where to write cards (default: cards/<namespace>/)."),
    only: list[str] = typer.Option(None, "--only", help="Import only this file (name or stem); repeatable."),
    unmatched: str = typer.Option("keep", help="Trajectories whose task no rung resolves: keep (as task "
                                  "'unresolved'), skip or error."),
    encodings: list[Path] = typer.Option(None, "--encodings", help="The original's encoding file "
                                         "(*_encode.npy: text -> 768 numbers), to read instructions "
                                         "stored only as encodings; repeatable."),
    encoder: str = typer.Option("minilm", help="Sentence encoder of the embedding rung: minilm, a local "
                                "model directory, or none (leave the rung out)."),
    check: bool = typer.Option(False, "--check", help="Read and check every file; write nothing."),
) -> None:
    """Import the original ImagineBench release's files as checked, carded datasets.

    Prints, per file, how many trajectories each rung of the task resolution resolved, how
    many stayed unresolved, and the dataset written."""
    from .datasets.writer import DatasetExistsError
    from .imports import import_dir
    from .imports.convert import UNMATCHED_RULES

    if unmatched not in UNMATCHED_RULES:
        rules = ", ".join(UNMATCHED_RULES)
        raise typer.BadParameter(f"--unmatched must be one of {rules}, got {unmatched!r}")
    try:
        results = import_dir(src_dir, namespace=namespace, force=force, cards_dir=cards_dir,
                             only=list(only or []) or None, unmatched=unmatched,
                             encodings=list(encodings or []),
                             encoder=None if encoder.lower() == "none" else encoder, check_only=check)
    except (ValueError, FileNotFoundError, DatasetExistsError) as error:  # OriginalFileError is a ValueError
        err_console.print(f"[red]error:[/red] {escape(str(error))} Nothing was written.", highlight=False,
                          soft_wrap=True)
        raise typer.Exit(2) from None
    console.print(_import_table(results, f"imported from {src_dir} as {namespace}/..."))
    for result in results:
        if result.suspect:
            err_console.print(f"[yellow]warning:[/yellow] {escape(result.suspect)}", highlight=False,
                              soft_wrap=True)


def _import_table(results: list, title: str) -> Table:
    """One row per original file: the dataset, trajectories per rung, unresolved, quality."""
    from .core.task import UNRESOLVED

    table = Table(title=title)
    table.add_column("file", no_wrap=True)
    table.add_column("dataset", no_wrap=True)
    for column in ("episodes", "resolved by", "unresolved", "steps", "goal consistency", "illegal states",
                   "transition errors", "status"):
        table.add_column(column)
    for result in results:
        card = result.card
        illegal = "" if result.illegal_states is None else _pct(result.illegal_states)
        figures = ([str(card.steps), _pct(card.goal_consistency), _pct(card.illegal_state_rate),
                    _pct(card.transition_error_rate)] if card else ["", "", illegal, ""])
        kept = f"{result.episodes} of {result.rows_read}" if result.episodes is not None else "-"
        rungs = ", ".join(f"{rung} {count}" for rung, count in result.resolution.items()
                          if rung != UNRESOLVED)
        unresolved = result.resolution.get(UNRESOLVED, 0)
        left = f"{unresolved} ({'kept' if result.unresolved_kept else 'skipped'})" if unresolved else "0"
        name = str(result.dataset_id).split("/", 1)[1]
        table.add_row(result.file_name, name, kept, rungs or "-", left, *figures, result.status)
    return table


if __name__ == "__main__":
    app()
