"""How the original release's CLEVR files describe goals: goal vectors (reference 1.2).

Decoded by level:

- train / rephrase: ``goal[:5]`` holds 1 at the source ball and 2 at the reference ball,
  ``goal[5]`` the direction (0 behind, 1 left, 2 front, 3 right) -> our relation task;
- easy: ``goal[:5]`` one-hot at the ball, ``goal[5]`` the direction (4 = "don't move",
  which we have no task for) -> our one-push task;
- hard: ``goal[5]`` the kind: 0 / 1 = two / three relations in ``goal[6:18]`` /
  ``goal[6:24]`` (6 numbers each, as above) -> our multi-relation task with exactly those
  relations, 2 = line in colour order, 3 = gather around green.

``goal_key`` and ``task_key`` give the same hashable description for a goal vector and for
the task it describes.
"""

from __future__ import annotations

import numpy as np

from ...core.task import Task

ORIGINAL_DIRECTIONS = ("behind", "left", "front", "right")  # the original's direction index order
BALLS = 5
HARD_KINDS = {0: "relations2", 1: "relations3", 2: "line", 3: "gather"}


def _integers(goal: np.ndarray) -> np.ndarray | None:
    rounded = np.rint(goal)
    return rounded.astype(np.int64) if np.allclose(goal, rounded) else None


def _relation(code: np.ndarray) -> tuple[int, int, str] | None:
    """(src, dst, relation) of a 6-number relation code, or None when it is not one."""
    balls, direction = code[:BALLS], int(code[BALLS])
    sources, targets = np.flatnonzero(balls == 1), np.flatnonzero(balls == 2)
    if len(sources) != 1 or len(targets) != 1 or np.count_nonzero(balls) != 2 or not 0 <= direction < 4:
        return None
    return int(sources[0]), int(targets[0]), ORIGINAL_DIRECTIONS[direction]


def goal_key(level: str, goal: np.ndarray) -> tuple | None:
    """A hashable description of an original goal vector (see the module docstring), or None."""
    code = _integers(goal)
    if code is None or len(code) < BALLS + 1:
        return None
    if level in ("train", "rephrase"):
        relation = _relation(code[:BALLS + 1])
        return None if relation is None else ("relation", relation)
    if level == "easy":
        balls, direction = code[:BALLS], int(code[BALLS])
        if np.count_nonzero(balls) != 1 or balls.max() != 1 or not 0 <= direction < 4:
            return None
        return ("push", int(np.argmax(balls)), ORIGINAL_DIRECTIONS[direction])
    kind = HARD_KINDS.get(int(code[BALLS]))
    if kind in ("line", "gather"):
        return (kind,)
    count = 2 if kind == "relations2" else 3
    codes = code[BALLS + 1:BALLS + 1 + 6 * count]
    if kind is None or len(codes) != 6 * count:
        return None
    relations = [_relation(codes[6 * i:6 * i + 6]) for i in range(count)]
    return None if None in relations else (kind, frozenset(relations))


def task_key(task: Task) -> tuple:
    """The description ``goal_key`` gives the goal vector of ``task``."""
    goal = task.goal
    if goal["kind"] == "relation":
        return ("relation", (goal["src"], goal["dst"], goal["relation"]))
    if goal["kind"] == "push":
        return ("push", goal["ball"], goal["relation"])
    if goal["kind"] in ("line", "gather"):
        return (goal["kind"],)
    return (goal["kind"], frozenset(tuple(r) for r in goal["relations"]))


# --- the original's instruction templates (reference 1.2), for the importer's template rung ------
COLOURS = ("red", "blue", "green", "purple", "cyan")  # the original's ball order
RELATION_WORDS = {"behind": "behind", "left": "to the left of", "front": "in front of",
                  "right": "to the right of"}
RELATION_TEMPLATES = ("push the {a} ball {r} the {b} ball",
                      "can you help me keep the {a} ball {r} the {b} ball",
                      "is there any {a} ball {r} the {b} ball", "can you push the {a} ball {r} the {b} ball",
                      "move the {a} ball {r} the {b} ball")
PUSH_TEMPLATES = {side: (f"kindly relocate the {{a}} sphere towards the {side}",
                         f"move the ball that has the color {{a}} to the {side}")
                  for side in ("left", "right")}
FIXED = {
    "line": ("line up the balls horizontally, sequencing them left to right as follows: red, blue, green, "
             "purple, and cyan",),
    "gather": ("use the green ball as the nucleus of the circle, arranging the rest around it",),
}


def _relation_texts(src: int, dst: int, relation: str) -> list[str]:
    words = {"a": COLOURS[src], "r": RELATION_WORDS[relation], "b": COLOURS[dst]}
    return [template.format(**words) for template in RELATION_TEMPLATES]


def templates(task: Task) -> tuple[str, ...]:
    """The original's documented texts of ``task``'s goal ([KALM] examples and related templates)."""
    goal = task.goal
    if goal["kind"] in FIXED:
        return FIXED[goal["kind"]]
    if goal["kind"] == "relation":
        return tuple(_relation_texts(goal["src"], goal["dst"], goal["relation"]))
    if goal["kind"] == "push":
        return tuple(t.format(a=COLOURS[goal["ball"]]) for t in PUSH_TEMPLATES.get(goal["relation"], ()))
    first, *rest = (_relation_texts(*relation)[0] for relation in goal["relations"])  # push ... and move ...
    return (" and ".join([first, *(text.replace("push", "move", 1) for text in rest)]),)


# --- words that name a task's parameters (the embedding rung's agreement check) -----------------
SLOT_WORDS = {
    "colour": {c: (c,) for c in COLOURS},
    "direction": {"left": ("left", "leftward", "leftwards"), "right": ("right", "rightward", "rightwards"),
                  "behind": ("behind", "rear"), "front": ("front",)},
}


def task_slots(task: Task) -> dict[str, frozenset[str]]:
    """The values of ``SLOT_WORDS``' slots that ``task`` names (a slot left out is not checked)."""
    goal = task.goal
    if goal["kind"] == "relation":
        relations = [(goal["src"], goal["dst"], goal["relation"])]
    elif goal["kind"] in ("relations2", "relations3"):
        relations = [tuple(r) for r in goal["relations"]]
    elif goal["kind"] == "push":
        return {"colour": frozenset({COLOURS[goal["ball"]]})}
    else:
        return {}
    return {"colour": frozenset(COLOURS[i] for src, dst, _ in relations for i in (src, dst)),
            "direction": frozenset(relation for _, _, relation in relations)}
