"""``imaginebench import``: the original benchmark's files as datasets with cards."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from .app import (
    app,
    console,
    err_console,
    examples,
    pct,
    say_error,
)


@app.command("import", epilog=examples("imaginebench import ~/ImagineBench/data --check",
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
    from ..datasets.writer import DatasetExistsError
    from ..imports import import_dir
    from ..imports.convert import UNMATCHED_RULES

    if unmatched not in UNMATCHED_RULES:
        rules = ", ".join(UNMATCHED_RULES)
        raise typer.BadParameter(f"--unmatched must be one of {rules}, got {unmatched!r}")
    try:
        results = import_dir(src_dir, namespace=namespace, force=force, cards_dir=cards_dir,
                             only=list(only or []) or None, unmatched=unmatched,
                             encodings=list(encodings or []),
                             encoder=None if encoder.lower() == "none" else encoder, check_only=check)
    except (ValueError, FileNotFoundError, DatasetExistsError) as error:  # OriginalFileError is a ValueError
        say_error(f"{error} Nothing was written.")
        raise typer.Exit(2) from None
    console.print(_import_table(results, f"imported from {src_dir} as {namespace}/..."))
    for result in results:
        if result.suspect:
            err_console.print(f"[yellow]warning:[/yellow] {escape(result.suspect)}", highlight=False,
                              soft_wrap=True)


def _import_table(results: list, title: str) -> Table:
    """One row per original file: the dataset, trajectories per rung, unresolved, quality."""
    from ..core.task import UNRESOLVED

    table = Table(title=title)
    table.add_column("file", no_wrap=True)
    table.add_column("dataset", no_wrap=True)
    for column in ("episodes", "resolved by", "unresolved", "steps", "goal consistency", "illegal states",
                   "transition errors", "status"):
        table.add_column(column)
    for result in results:
        card = result.card
        illegal = "" if result.illegal_states is None else pct(result.illegal_states)
        figures = ([str(card.steps), pct(card.goal_consistency), pct(card.illegal_state_rate),
                    pct(card.transition_error_rate)] if card else ["", "", illegal, ""])
        kept = f"{result.episodes} of {result.rows_read}" if result.episodes is not None else "-"
        rungs = ", ".join(f"{rung} {count}" for rung, count in result.resolution.items()
                          if rung != UNRESOLVED)
        unresolved = result.resolution.get(UNRESOLVED, 0)
        left = f"{unresolved} ({'kept' if result.unresolved_kept else 'skipped'})" if unresolved else "0"
        name = str(result.dataset_id).split("/", 1)[1]
        table.add_row(result.file_name, name, kept, rungs or "-", left, *figures, result.status)
    return table
