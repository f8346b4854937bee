"""The ``imaginebench`` command: list, build, card, inspect. Each command calls the library."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(help="Build, check, document and inspect ImagineBench datasets.", no_args_is_help=True)
console = Console(width=None if Console().is_terminal else 160)


def _pct(value: float) -> str:
    return f"{100 * value:.2f}%"


@app.command("list")
def list_datasets() -> None:
    """Every dataset a recipe can build, its sizes, and whether it is built locally."""
    from .build.recipe import load_recipes
    from .datasets.store import local_ids

    local = set(local_ids())
    table = Table(title="imaginebench datasets")
    for column in ("id", "demo", "paper", "default", "built"):
        table.add_column(column)
    for dataset_id, recipe in sorted(load_recipes().items()):
        table.add_row(dataset_id, str(recipe.episodes["demo"]), str(recipe.episodes["paper"]),
                      "yes" if recipe.default else "", "yes" if dataset_id in local else "")
    console.print(table)


@app.command()
def build(
    ids: list[str] = typer.Argument(None, help="Dataset ids to build (see `imaginebench list`)."),
    default: bool = typer.Option(False, "--default", help="Build every default dataset."),
    scale: str = typer.Option("demo", help="demo (minutes) or paper (the original's sizes)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing version."),
    skip_existing: bool = typer.Option(False, "--skip-existing", help="Leave built datasets as they are."),
    workers: int = typer.Option(2, help="Processes rolling out episodes."),
    episodes: int | None = typer.Option(None, help="Override the scale's episode count."),
    cards_dir: Path | None = typer.Option(None, help="Where to write cards (default: cards/)."),
) -> None:
    """Build datasets from their recipes in builders/ and write their cards."""
    from .build.pipeline import build as build_one
    from .build.recipe import SCALES, load_recipes
    from .datasets.store import local_ids

    if scale not in SCALES:
        raise typer.BadParameter(f"scale must be one of {SCALES}, got {scale!r}")
    recipes = load_recipes()
    targets = list(ids or []) + ([i for i, r in sorted(recipes.items()) if r.default] if default else [])
    if not targets:
        raise typer.BadParameter("name dataset ids or pass --default")
    existing = set(local_ids())
    table = Table(title=f"built ({scale} scale)")
    for column in ("id", "episodes", "steps", "goal consistency", "illegal states",
                   "transition errors", "seconds"):
        table.add_column(column)
    for dataset_id in targets:
        if skip_existing and dataset_id in existing and not force:
            console.print(f"[yellow]{dataset_id} exists; skipped (use --force to rebuild)[/yellow]")
            continue
        result = build_one(dataset_id, scale, force=force, workers=workers, episodes=episodes,
                           cards_dir=cards_dir, recipes=recipes)
        card = result.card
        table.add_row(dataset_id, str(card["episodes"]), str(card["steps"]), _pct(card["goal_consistency"]),
                      _pct(card["illegal_state_rate"]), _pct(card["transition_error_rate"]),
                      f"{result.seconds:.1f}")
    console.print(table)


@app.command()
def card(
    dataset_id: str,
    cards_dir: Path | None = typer.Option(None, help="Where to write the card (default: cards/)."),
) -> None:
    """Render a built dataset's stored card to Markdown, JSON and a plot."""
    from .build.pipeline import default_cards_dir
    from .cards.render import write_card_files
    from .datasets.store import open_dataset
    from .quality.frame import quality_frame

    _, stored = open_dataset(dataset_id)
    for path in write_card_files(stored, quality_frame(dataset_id), cards_dir or default_cards_dir()):
        console.print(f"wrote {path}")


@app.command()
def inspect(dataset_id: str, by: str = typer.Option("task_id", help="Column to group by.")) -> None:
    """Quality by task (or another column) of a built dataset."""
    from .quality.frame import quality_frame

    frame = quality_frame(dataset_id)
    grouped = frame.groupby(by, sort=False).agg(
        episodes=("length", "size"), mean_length=("length", "mean"), mean_return=("return", "mean"),
        success=("success", "mean"), illegal_states=("illegal_states", "sum"),
        transition_errors=("transition_errors", "sum"),
    )
    table = Table(title=f"{dataset_id}: quality by {by}")
    table.add_column(by)
    for column in grouped.columns:
        table.add_column(column, justify="right")
    floats = [grouped[c].dtype.kind == "f" for c in grouped.columns]
    for key, row in zip(grouped.index, grouped.itertuples(index=False)):
        table.add_row(str(key), *(f"{v:.3f}" if is_float else str(v) for v, is_float in zip(row, floats)))
    console.print(table)
    console.print(f"{len(frame)} episodes, goal consistency {_pct(frame['success'].mean())}, "
                  f"illegal states {int(frame['illegal_states'].sum())}, "
                  f"transition errors {int(frame['transition_errors'].sum())}")


if __name__ == "__main__":
    app()
