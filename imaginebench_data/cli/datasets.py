"""The commands that read built datasets: list, card, render, verify, inspect."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from .app import (
    DAMAGED,
    app,
    check_domains,
    console,
    examples,
    pct,
)


@app.command("list", epilog=examples("imaginebench list"))
def list_datasets() -> None:
    """Every dataset a recipe can build, its sizes, and whether it is built locally."""
    from ..datasets.hdf5_layout import MAIN_FILE
    from ..datasets.ids import dataset_dir
    from ..datasets.read import local_ids, unlisted_ids
    from ..pipeline.recipe import load_recipes

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




@app.command(epilog=examples("imaginebench card imaginebench/clevr-easy-real-v0 --cards-dir /tmp/cards"))
def card(
    dataset_id: str,
    cards_dir: Path | None = typer.Option(None, help="Where to write the card (default: cards/)."),
) -> None:
    """Render a built dataset's stored card to Markdown, JSON and a plot."""
    from ..cards.render import write_card_files
    from ..datasets.ids import DatasetId
    from ..datasets.read import read_card
    from ..pipeline.build import default_cards_dir
    from ..pipeline.publish import check_cards_dir
    from ..quality.frame import quality_frame

    stored = read_card(dataset_id)
    target = cards_dir or default_cards_dir(DatasetId.parse(dataset_id), stored.scale)
    check_cards_dir(target)
    for path in write_card_files(stored, quality_frame(dataset_id), target):
        console.print(f"wrote {path}")


@app.command(epilog=examples("imaginebench render imaginebench/clevr-hard-imaginary-v0 --episode 3",
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
    from ..core.render import RenderError
    from ..drawing import draw_episode

    try:
        path = draw_episode(dataset_id, episode, out, every=every,
                            gif=gif or (out is not None and out.suffix.lower() == ".gif"))
    except RenderError as error:  # no renderer, or no OpenGL backend: say so in one line
        raise ValueError(str(error)) from error
    console.print(f"wrote {path}")


@app.command(epilog=examples("imaginebench verify", "imaginebench verify --domain clevr",
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

    from ..datasets.ids import DatasetId
    from ..datasets.read import local_ids, unlisted_ids, written_by_us
    from ..datasets.verify import verify as verify_one

    check_domains(domains)
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


@app.command(epilog=examples("imaginebench inspect imaginebench/clevr-hard-imaginary-v0",
                               "imaginebench inspect imaginebench/clevr-hard-imaginary-v0 --by phrasing_id",
                               "imaginebench inspect imaginebench/babyai-rephrase-imaginary-v0 --replay"))
def inspect(dataset_id: str, by: str = typer.Option("task_id", help="Column to group by."),
            replay: bool = typer.Option(False, "--replay", help="Also replay each episode's actions in the "
                                        "real simulator from its reset: the share that reaches the goal "
                                        "(imagined data is judged by its states; a learner learns its "
                                        "actions).")) -> None:
    """Quality by task (or another column) of a built dataset."""
    import pandas as pd

    from ..core.task import UNRESOLVED
    from ..quality.frame import quality_frame

    frame = quality_frame(dataset_id)
    if by not in frame.columns:
        known = ", ".join(map(str, frame.columns))
        raise typer.BadParameter(f"expected a column of the quality frame ({known}), got {by!r}",
                                 param_hint="'--by'")
    # An unresolved task has no predicate: its episodes count in no goal consistency (as in the card).
    frame["success"] = frame["success"].astype(float).where(frame["task_id"] != UNRESOLVED)
    columns = {"episodes": ("length", "size"), "mean_length": ("length", "mean"),
               "mean_return": ("return", "mean"), "success": ("success", "mean"),
               "illegal_states": ("illegal_states", "sum"), "transition_errors": ("transition_errors", "sum")}
    if replay:
        from ..quality.replay import replayed_dataset

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
        table.add_row(label, *(("n/a" if pd.isna(v) else f"{v:.3f}") if is_float else str(v)
                               for v, is_float in zip(row, floats)))
    console.print(table)
    replayed = f", actions replayed reach the goal {pct(frame['actions_replayed'].mean())}" if replay else ""
    episodes = f"{len(frame)} episode{'s' * (len(frame) != 1)}"
    consistency = frame["success"].mean()  # of the resolved episodes, as the card counts it
    console.print(f"{episodes}, goal consistency {'n/a' if pd.isna(consistency) else pct(consistency)}, "
                  f"illegal states {int(frame['illegal_states'].sum())}, "
                  f"transition errors {int(frame['transition_errors'].sum())}{replayed}")
