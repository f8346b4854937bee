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
    "reach-wall": ("Adjust the gripper's position to reach the designated target, keeping in mind the "
                   "obstructing wall.",),
    "door-close": ("Employ the gripper to shut the door.",),
    "locked-door-open": ("Would you kindly unlock and open the door using the gripper?",),
    "hammer": ("Utilize the gripper to grasp the hammer and strike the nail at the designated spot.",),
}


def task_names(task: Task) -> tuple[str, ...]:
    """The original's names of ``task``'s env: ``<id>``, ``rep-<id>`` and their ``-v2`` forms."""
    names = (task.id, f"rep-{task.id}")
    return names + tuple(f"{name}-v2" for name in names) + tuple(f"{name}-v2-goal-observable" for name in names)


def templates(task: Task) -> tuple[str, ...]:
    """The original's documented instructions of ``task`` and its env names (any level)."""
    return DOCUMENTED.get(task.id, ()) + task_names(task)
