"""Which of our tasks an original trajectory is: from its goal vector, else its instruction text.

1. Goal vector (CLEVR, the side file's ``goals``; reference 1.2), decoded by level:
   - train / rephrase: ``goal[:5]`` holds 1 at the source ball and 2 at the reference ball,
     ``goal[5]`` the direction (0 behind, 1 left, 2 front, 3 right) -> our relation task;
   - easy: ``goal[:5]`` one-hot at the ball, ``goal[5]`` the direction (4 = "don't move",
     which we have no task for) -> our one-push task;
   - hard: ``goal[5]`` the kind: 0 / 1 = two / three relations in ``goal[6:18]`` /
     ``goal[6:24]`` (6 numbers each, as above) -> our multi-relation task with exactly those
     relations, 2 = line in colour order, 3 = gather around green.
2. Otherwise exact text: a trajectory whose instruction strings match phrasings of exactly
   one task of the level is that task.

A decoded goal decides even where a text would match. Trajectories neither way resolves
are unresolved; what happens to them is the importer's ``unmatched`` rule.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from ..core.domain import Domain
from ..core.task import Task

ORIGINAL_DIRECTIONS = ("behind", "left", "front", "right")  # the original's direction index order
CLEVR_BALLS = 5
HARD_KINDS = {0: "relations2", 1: "relations3", 2: "line", 3: "gather"}


@dataclass(frozen=True)
class Resolution:
    """``task`` is None when unresolved; ``how`` says by what (or why not), for errors and cards."""

    task: Task | None
    how: str


def _integers(goal: np.ndarray) -> np.ndarray | None:
    rounded = np.rint(goal)
    return rounded.astype(np.int64) if np.allclose(goal, rounded) else None


def _relation(code: np.ndarray) -> tuple[int, int, str] | None:
    """(src, dst, relation) of a 6-number relation code, or None when it is not one."""
    balls, direction = code[:CLEVR_BALLS], int(code[CLEVR_BALLS])
    sources, targets = np.flatnonzero(balls == 1), np.flatnonzero(balls == 2)
    if len(sources) != 1 or len(targets) != 1 or np.count_nonzero(balls) != 2 or not 0 <= direction < 4:
        return None
    return int(sources[0]), int(targets[0]), ORIGINAL_DIRECTIONS[direction]


def clevr_goal_key(level: str, goal: np.ndarray) -> tuple | None:
    """A hashable description of an original CLEVR goal vector (see module docstring), or None."""
    code = _integers(goal)
    if code is None or len(code) < CLEVR_BALLS + 1:
        return None
    if level in ("train", "rephrase"):
        relation = _relation(code[:CLEVR_BALLS + 1])
        return None if relation is None else ("relation", relation)
    if level == "easy":
        balls, direction = code[:CLEVR_BALLS], int(code[CLEVR_BALLS])
        if np.count_nonzero(balls) != 1 or balls.max() != 1 or not 0 <= direction < 4:
            return None
        return ("push", int(np.argmax(balls)), ORIGINAL_DIRECTIONS[direction])
    kind = HARD_KINDS.get(int(code[CLEVR_BALLS]))
    if kind in ("line", "gather"):
        return (kind,)
    count = 2 if kind == "relations2" else 3
    codes = code[CLEVR_BALLS + 1:CLEVR_BALLS + 1 + 6 * count]
    if kind is None or len(codes) != 6 * count:
        return None
    relations = [_relation(codes[6 * i:6 * i + 6]) for i in range(count)]
    return None if None in relations else (kind, frozenset(relations))


def _our_clevr_key(task: Task) -> tuple:
    goal = task.goal
    if goal["kind"] == "relation":
        return ("relation", (goal["src"], goal["dst"], goal["relation"]))
    if goal["kind"] == "push":
        return ("push", goal["ball"], goal["relation"])
    if goal["kind"] in ("line", "gather"):
        return (goal["kind"],)
    return (goal["kind"], frozenset(tuple(r) for r in goal["relations"]))


class TaskResolver:
    """Resolves trajectories of one file (one domain and level) to the level's tasks."""

    def __init__(self, domain: Domain, level: str) -> None:
        self.level = level
        tasks = domain.tasks(level)
        self.by_text: dict[str, set[str]] = defaultdict(set)
        self.tasks = {task.id: task for task in tasks}
        for task in tasks:
            for text in task.phrasings:
                self.by_text[text].add(task.id)
        self.by_goal = {_our_clevr_key(task): task for task in tasks} if domain.name == "clevr" else None

    def resolve(self, instructions: list[str] | None, goal: np.ndarray | None) -> Resolution:
        if goal is not None and self.by_goal is not None:
            key = clevr_goal_key(self.level, goal)
            if key in self.by_goal:
                return Resolution(self.by_goal[key], "goal vector")
        matched = set().union(*(self.by_text.get(text, set()) for text in instructions or []))
        if len(matched) == 1:
            return Resolution(self.tasks[matched.pop()], "instruction text")
        goal_note = "" if goal is None else f"goal {np.asarray(goal).tolist()} matches no task; "
        if matched:
            return Resolution(None, f"{goal_note}instruction texts match several tasks: {sorted(matched)}")
        return Resolution(None, f"{goal_note}no instruction text is one of our {self.level} phrasings")
