"""The original release's Meta-World instructions (reference 2.2), for the importer's template rung.

The original hard-codes 20 instructions per task, of which the reference facts document one
or two examples; its instruction-encoding file is keyed by task name ("reach", "rep-reach",
"reach-v2-goal-observable": one key per env, 20 encodings each). ``templates(task)`` gives
the documented sentences and those names for one of our tasks (our ids are the original's env
names), so that a sentence or a key of the original's encoding file resolves.
"""

from __future__ import annotations

from ...core.task import Task

DOCUMENTED = {  # our task id -> the original's example instructions
    "reach": ("Relocate the gripper to the designated spot.",),
    "coffee-button": ("Utilize the gripper to depress the button on the coffee machine.",),
    "window-open": ("The closed window bothers me; could you please operate the gripper to open it?",),
    "door-unlock": ("I despise when the door is locked; could you employ the gripper to unlock it?",),
    "reach-wall": (
        "Adjust the gripper's position to reach the designated target, keeping in mind the obstructing wall.",
    ),
    "door-close": ("Employ the gripper to shut the door.",),
    "locked-door-open": ("Would you kindly unlock and open the door using the gripper?",),
    "hammer": ("Utilize the gripper to grasp the hammer and strike the nail at the designated spot.",),
}


def task_names(task: Task) -> tuple[str, ...]:
    """The original's names of ``task``'s env: ``<id>``, ``rep-<id>`` and their ``-v2`` forms."""
    names = (task.id, f"rep-{task.id}")
    return (
        names + tuple(f"{name}-v2" for name in names) + tuple(f"{name}-v2-goal-observable" for name in names)
    )


def templates(task: Task) -> tuple[str, ...]:
    """The original's documented instructions of ``task`` and its env names (any level)."""
    return DOCUMENTED.get(task.id, ()) + task_names(task)


# --- words that name a task's parameters (the embedding rung's agreement check) -----------------
SLOT_WORDS = {
    "verb": {
        "open": ("open", "opened", "opens"),
        "close": ("close", "closed", "shut"),
        "unlock": ("unlock", "unlocked"),
        "lock": ("lock", "locked"),
        "push": ("push", "shove", "slide"),
        "pick": ("pick", "lift", "grasp", "carry"),
    },
    "object": {
        "door": ("door",),
        "window": ("window",),
        "faucet": ("faucet", "tap"),
        "button": ("button",),
        "mug": ("mug", "cup"),
        "puck": ("puck",),
        "wall": ("wall",),
        "hammer": ("hammer", "nail"),
        "ball": ("ball", "soccer"),
    },
}
SLOTS = {  # our task id -> (verbs, objects) it names
    "reach": ((), ()),
    "push": (("push",), ("puck",)),
    "pick-place": (("pick",), ("puck",)),
    "button-press": (("push",), ("button",)),
    "door-unlock": (("unlock", "lock"), ("door",)),
    "door-open": (("open",), ("door",)),
    "window-open": (("open", "close", "push"), ("window",)),
    "faucet-open": (("open",), ("faucet",)),
    "coffee-push": (("push",), ("mug",)),
    "coffee-button": (("push",), ("button", "mug")),
    "reach-wall": ((), ("wall",)),
    "push-wall": (("push",), ("puck", "wall")),
    "pick-place-wall": (("pick",), ("puck", "wall")),
    "button-press-wall": (("push",), ("button", "wall")),
    "door-lock": (("lock",), ("door",)),
    "door-close": (("close", "open", "push"), ("door",)),
    "window-close": (("close", "open", "push"), ("window",)),
    "faucet-close": (("close",), ("faucet",)),
    "make-coffee": (("push", "pick"), ("mug", "button")),
    "locked-door-open": (("unlock", "open", "lock"), ("door",)),
    "hammer": (("pick",), ("hammer", "wall")),
    "soccer": (("push",), ("ball",)),
}


def task_slots(task: Task) -> dict[str, frozenset[str]]:
    """The values of ``SLOT_WORDS``' slots that ``task`` names (a slot left out is not checked)."""
    verbs, objects = SLOTS[task.id]
    return {"verb": frozenset(verbs), "object": frozenset(objects)}
