"""Which of our tasks an original trajectory is: from its goal vector, else its instruction text.

1. Goal vector, where the domain's files carry one (a side file's ``goals``): decoded by
   the domain's ``OriginalLayout.goal_key`` and matched with ``task_key`` of the level's tasks.
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


@dataclass(frozen=True)
class Resolution:
    """``task`` is None when unresolved; ``how`` says by what (or why not), for errors and cards."""

    task: Task | None
    how: str



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
        layout = domain.original
        self.goal_key = layout.goal_key
        self.by_goal = ({layout.task_key(task): task for task in tasks}
                        if layout.goal_key is not None and layout.task_key is not None else None)

    def resolve(self, instructions: list[str] | None, goal: np.ndarray | None) -> Resolution:
        if goal is not None and self.by_goal is not None:
            key = self.goal_key(self.level, goal)
            if key in self.by_goal:
                return Resolution(self.by_goal[key], "goal vector")
        matched = set().union(*(self.by_text.get(text, set()) for text in instructions or []))
        if len(matched) == 1:
            return Resolution(self.tasks[matched.pop()], "instruction text")
        goal_note = "" if goal is None else f"goal {np.asarray(goal).tolist()} matches no task; "
        if matched:
            return Resolution(None, f"{goal_note}instruction texts match several tasks: {sorted(matched)}")
        return Resolution(None, f"{goal_note}no instruction text is one of our {self.level} phrasings")
