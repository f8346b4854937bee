"""The original release's LIBERO instructions (reference 4.2), for the importer's template rung.

The original has one instruction per task for real, easy and hard tasks and ten paraphrases
per rephrase task, of which the reference facts document these. Item names appear as the
original's keys (``alphabet_soup``); the importer's normalisation reads ``_`` as a space.
The sequential and "all" sentences are documented only in part; they are completed here in
the pattern of the others.
"""

from __future__ import annotations

from ...core.task import Task
from .layout import LABEL

SEIZE = "employ the gripper to seize the {a}"
BY_KIND = {  # task kind -> templates; {a} the first item, {b} the second
    "pick": (
        SEIZE,
        "engage the robotic gripper to grasp the {a}",
        "deploy the gripping apparatus to capture the {a}",
    ),
    "place": (
        "transfer the {a} to the basket",
        "park the {a} in the basket",
        "unload the {a} into the basket",
    ),
    "pick-and-place": (SEIZE + " and transfer the {a} to the basket",),
    "place-to": (SEIZE + " and transfer the {a} to the {b}",),
    "reach": ("employ the gripper to get close to the {a}",),
    "sequential": (
        SEIZE + " and transfer the {a} to the basket. then employ the gripper to seize the {b} and "
        "transfer the {b} to the basket",
    ),
    "aside": (SEIZE + " and transfer the {a} to the other side",),
    "all": (
        "employ the gripper to seize the objects and transfer them to the basket one by one until the "
        "alphabet soup, cream cheese and salad dressing are all in the basket",
    ),
    "out-of": (
        "the basket is on fire, employ the gripper to seize the {a} in the basket and transfer the {a} "
        "out of the basket",
    ),
}


def templates(task: Task) -> tuple[str, ...]:
    """The original's documented texts of ``task``'s goal (any level)."""
    items = [LABEL[item] for item in task.goal["items"]] + ["", ""]
    return tuple(t.format(a=items[0], b=items[1]) for t in BY_KIND[task.goal["kind"]])


# --- words that name a task's parameters (the embedding rung's agreement check) -----------------
SLOT_WORDS = {
    "item": {
        "alphabet_soup": ("soup", "alphabet"),
        "cream_cheese": ("cheese", "cream"),
        "salad_dressing": ("dressing", "salad"),
    }
}


def task_slots(task: Task) -> dict[str, frozenset[str]]:
    """The values of ``SLOT_WORDS``' slots that ``task`` names (a slot left out is not checked)."""
    return {} if task.goal["kind"] == "all" else {"item": frozenset(task.goal["items"])}
