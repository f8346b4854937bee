"""The original release's HalfCheetah instructions (reference 5.2), for the importer's template rung.

One instruction per real, easy and hard task and ten per rephrase task (the reference facts
document these). Matched by meaning: the original's jump-forward env hands out the backward
sentences and vice versa (a bug), but a sentence that says "forward" is the forward task here.
"""

from __future__ import annotations

from ...core.task import Task

DOCUMENTED = {  # our task id -> the original's texts
    "run-forward": ("Run forward.", "Bolt forward."),
    "run-backward": ("Run backward.", "Backpedal back."),
    "jump-forward": ("Jump a step forward.", "Leap one step ahead."),
    "jump-backward": ("Jump a step backward.", "Hop one step back."),
    "run-forward-fast": ("Move forward faster.",),
    "run-backward-fast": ("Move backward faster.",),
    "forward-then-backward": ("Move forward and slow down. Move backward.",),
    "backward-then-forward": ("Move backward and slow down. Move forward.",),
    "jump-in-place": ("Jump in the original position.",),
}


def templates(task: Task) -> tuple[str, ...]:
    """The original's documented texts of ``task`` (any level)."""
    return DOCUMENTED.get(task.id, ())


# --- words that name a task's parameters (the embedding rung's agreement check) -----------------
SLOT_WORDS = {
    "direction": {
        "forward": ("forward", "forwards", "ahead", "front", "onward", "onwards"),
        "backward": ("backward", "backwards", "back", "rear", "rearward", "reverse", "retreat"),
    },
    "motion": {
        "jump": ("jump", "hop", "leap", "bound", "spring", "vault", "pounce", "skip"),
        "run": ("run", "sprint", "dash", "race", "gallop", "rush", "charge", "bolt", "hurry"),
    },
}


def task_slots(task: Task) -> dict[str, frozenset[str]]:
    """The values of ``SLOT_WORDS``' slots that ``task`` names (a slot left out is not checked)."""
    if task.id == "jump-in-place":
        return {"motion": frozenset({"jump"})}
    if task.id in ("forward-then-backward", "backward-then-forward"):
        return {"motion": frozenset({"run"})}
    direction = "forward" if "forward" in task.id else "backward"
    return {
        "direction": frozenset({direction}),
        "motion": frozenset({"jump" if task.id.startswith("jump") else "run"}),
    }
