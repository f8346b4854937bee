"""The original release's BabyAI instructions (reference 3.2), for the importer's template rung.

The original builds each real task's canonical ``task_str`` from a template ("go to the
{colour} {type}", lower case, no full stop) and documents a few of its 40 training and 10
rephrase templates; the easy and hard tasks have one fixed sentence each. ``templates(task)``
gives those texts for one of our tasks; the importer compares them with an instruction
after normalising both (case, white space, trailing punctuation; ``imports.resolve``).
"""

from __future__ import annotations

from ...core.task import Task
from .sim import COLOURS

PER_OBJECT = {  # kind -> the original's documented templates; {c} colour, {t} type
    "goto": (
        "go to the {c} {t}",
        "head toward the {c} {t}",
        "approach the {c} {t}",
        "proceed in the vicinity of the {c} {t}",
        "maneuver toward the {c} {t}",
    ),
    "open": ("open the {c} door", "swing open the {c} door", "leave the {c} door open"),
    "pickup": ("pick up the {c} {t}",),
    "putnext": ("put the {c1} {t1} next to the {c2} {t2}", "keep the {c1} {t1} snugly next to the {c2} {t2}"),
}
FIXED = {  # task kind -> the original's one sentence (its spelling "goto" kept)
    "open-then-goto": ("open the door, then goto any object",),
    "open-then-pickup": ("open the door, then pick up any object",),
    "goto-wall": ("goto the side of the wall",),
    "goto-centre": ("goto the center of the room",),
    "key-then-open": ("pick up the key, then open the door",),
    "line": ("put the three items in a line",),
    "pile": ("gather the three items into a pile",),
}


def templates(task: Task) -> tuple[str, ...]:
    """The original's documented texts of ``task``'s goal (any level)."""
    goal = task.goal
    kind = goal["kind"]
    if kind in FIXED:
        return FIXED[kind]
    words = {"c": COLOURS[goal["colour"]], "t": goal.get("object", "door")}
    if kind == "putnext":
        words = {
            "c1": COLOURS[goal["colour"]],
            "t1": goal["object"],
            "c2": COLOURS[goal["other_colour"]],
            "t2": goal["other"],
        }
    return tuple(template.format(**words) for template in PER_OBJECT[kind])


# --- words that name a task's parameters (the embedding rung's agreement check) -----------------
SLOT_WORDS = {
    "colour": {c: (c,) + (("gray",) if c == "grey" else ()) for c in COLOURS},
    "object": {
        "ball": ("ball", "sphere", "orb"),
        "box": ("box", "crate", "chest"),
        "key": ("key",),
        "door": ("door", "doorway"),
    },
    "action": {
        "open": ("open", "opened", "opens", "opening", "unlatch", "toggle"),
        "pick": ("pick", "grab", "lift", "collect", "fetch", "retrieve", "snatch", "obtain", "grasp"),
        "put": ("put", "place", "set", "drop", "arrange", "carry", "bring"),
    },
}
ACTIONS = {
    "goto": frozenset(),
    "open": frozenset({"open"}),
    "pickup": frozenset({"pick"}),
    "putnext": frozenset({"pick", "put"}),
}


def task_slots(task: Task) -> dict[str, frozenset[str]]:
    """The values of ``SLOT_WORDS``' slots that ``task`` names (a slot left out is not checked)."""
    goal = task.goal
    if goal["kind"] not in ACTIONS:
        return {}
    colours = {COLOURS[goal["colour"]]} | (
        {COLOURS[goal["other_colour"]]} if "other_colour" in goal else set()
    )
    objects = {goal.get("object", "door")} | ({goal["other"]} if "other" in goal else set())
    return {"colour": frozenset(colours), "object": frozenset(objects), "action": ACTIONS[goal["kind"]]}
