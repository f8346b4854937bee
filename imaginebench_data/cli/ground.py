"""``imaginebench ground`` (a model grounded on a training set) and ``imaginebench numerics``."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from .app import (
    app,
    check_bins,
    choose_numerics,
    console,
    err_console,
    examples,
    pct,
    say_error,
)


@app.command(epilog=examples("imaginebench ground",
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
    from ..datasets.ids import DatasetId
    from ..domains import get_domain
    from ..imagine.checkpoints import checkpoint_provenance, ensure_checkpoint
    from ..imagine.distributed import is_main_process, launched_processes
    from ..imagine.train import TrainSettings
    from ..pipeline.recipe import SCALES, TRAIN_EPOCHS, load_recipes

    for name, value in (("--lr", lr), ("--action-weight", action_weight)):
        if value is not None and not value > 0:
            raise typer.BadParameter(f"expected a positive number, got {value:g}", param_hint=f"'{name}'")
    check_bins(action_bins, "--action-bins")
    trained_on = DatasetId.parse(dataset_id)
    if scale not in SCALES:
        raise typer.BadParameter(f"expected one of {SCALES}, got {scale!r}", param_hint="'--scale'")
    builds = [r for r in load_recipes().values() if r.train_from == trained_on]
    choose_numerics(numerics, builds)
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
                  pct(goal["imagined_goal_consistency"]),
                  f"{pct(goal['random_actions_goal_consistency'])} (random actions)")
    console.print(table)


@app.command("numerics", epilog=examples(
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
    from ..imagine import fingerprint
    from ..imagine import numerics as kernels

    if numerics not in kernels.MODES:
        raise typer.BadParameter(f"expected one of {kernels.MODES}, got {numerics!r}",
                                 param_hint="'--numerics'")
    theirs = fingerprint.load(compare) if compare else None  # a bad file is refused before the work
    if save is not None:  # and a place the fingerprint cannot be written to
        from ..core.folders import check_writable

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
            say_error(f"nothing compared: {compare} holds none of the {len(hashes)} kernels this machine "
                      "hashed")
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
