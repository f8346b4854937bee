"""CLEVR tasks of the four levels, each with its predicate and shaped reward.

Levels (see ``reference`` notes of the original benchmark; bugs fixed as noted):
- train: 80 relations "move ball A <relation> ball B" (5 x 4 ordered pairs x 4 relations),
  training phrasings. Reward ``10 * (d_before - d_after)``, d = distance between A and B.
- rephrase: the same 80 goals and predicates, phrasings never used in training.
- easy: 20 one-step pushes "push ball A <direction>". Success: A moves at least
  ``ONE_PUSH_MIN_SHIFT`` along the direction in the one step (judged on states, so that
  imagined rollouts are checked against what they claim happened). Reward 1 on success.
- hard: two or three relations at once, the five balls in a line in colour order, and all
  balls gathered around green. Reward ``10 * (progress_after - progress_before)`` where
  progress counts satisfied relations / aligned pairs / gathered balls, computed on the
  post-step state (the original lagged one step).
"""

from __future__ import annotations

from functools import cache, partial

import numpy as np

from ...core.task import Task
from . import phrasings as ph
from .predicates import (
    ONE_PUSH_MIN_SHIFT,
    RELATIONS,
    ball_xy,
    balls_gathered,
    line_pairs_aligned,
    relation_holds,
    relations_held,
    shift_along,
)
from .sim import COLOURS, N_BALLS

HORIZON = 50
EASY_HORIZON = 1
# Imagined steps per prompt before a generator prompts the model afresh (``imagine.prompting``):
# the 75th percentile of the expert's episode lengths in the demo training set (10; at most 17).
PROMPT_STEPS = 10
PROGRESS_REWARD = 10.0
DISTANCE_REWARD = 10.0

# Hard multi-relation goals: [src, dst, relation] with colour indices. Chosen to be
# satisfiable together; the expert's success rate on them is measured in the card.
TWO_RELATION_GOALS = (
    ((0, 1, "left"), (2, 3, "behind")),
    ((4, 0, "front"), (1, 3, "right")),
    ((3, 2, "behind"), (0, 4, "left")),
    ((1, 2, "front"), (4, 0, "behind")),
    ((2, 4, "left"), (3, 1, "front")),
    ((0, 1, "behind"), (1, 2, "behind")),
)
THREE_RELATION_GOALS = (
    ((0, 1, "left"), (2, 3, "front"), (4, 1, "behind")),
    ((3, 0, "front"), (4, 1, "right"), (2, 1, "behind")),
    ((1, 0, "behind"), (2, 3, "left"), (4, 3, "front")),
    ((0, 4, "right"), (3, 1, "left"), (2, 3, "behind")),
)


# --- transition functions: (prev (N,10), actions (N,), states (N,10)) -> (N,) ----------
def _relation_success(prev, actions, states, src, dst, relation):
    return relation_holds(states, src, dst, relation)


def _relation_reward(prev, actions, states, src, dst, relation):
    before = np.linalg.norm(ball_xy(prev, src) - ball_xy(prev, dst), axis=-1)
    after = np.linalg.norm(ball_xy(states, src) - ball_xy(states, dst), axis=-1)
    return DISTANCE_REWARD * (before - after)


def _push_success(prev, actions, states, ball, relation):
    return shift_along(prev, states, ball, relation) >= ONE_PUSH_MIN_SHIFT


def _push_reward(prev, actions, states, ball, relation):
    return _push_success(prev, actions, states, ball, relation).astype(np.float64)


def _multi_progress(states, relations):
    return relations_held(states, relations)


def _line_progress(states):
    return line_pairs_aligned(states)


def _gather_progress(states):
    return balls_gathered(states)


def _progress_success(prev, actions, states, progress, target, **goal):
    return progress(states, **goal) >= target


def _progress_reward(prev, actions, states, progress, target, **goal):
    return PROGRESS_REWARD * (progress(states, **goal) - progress(prev, **goal)).astype(np.float64)


# --- task lists -------------------------------------------------------------------------
def relation_id(src: int, dst: int, relation: str) -> str:
    words = {"behind": "behind", "left": "left-of", "front": "in-front-of", "right": "right-of"}
    return f"{COLOURS[src]}-{words[relation]}-{COLOURS[dst]}"


def push_id(ball: int, relation: str) -> str:
    return f"push-{COLOURS[ball]}-{relation}"


def _relation_tasks(level: str) -> list[Task]:
    templates, words = (
        (ph.TRAIN_TEMPLATES, ph.TRAIN_RELATION_WORDS)
        if level == "train"
        else (ph.REPHRASE_TEMPLATES, ph.REPHRASE_RELATION_WORDS)
    )
    tasks = []
    for src in range(N_BALLS):
        for dst in range(N_BALLS):
            if src == dst:
                continue
            for relation in RELATIONS:
                goal = {"kind": "relation", "src": src, "dst": dst, "relation": relation}
                texts = tuple(
                    t.format(a=COLOURS[src], b=COLOURS[dst], rel=words[relation]) for t in templates
                )
                tasks.append(
                    Task(
                        id=relation_id(src, dst, relation),
                        level=level,
                        phrasings=texts,
                        goal=goal,
                        success=partial(_relation_success, src=src, dst=dst, relation=relation),
                        reward=partial(_relation_reward, src=src, dst=dst, relation=relation),
                        horizon=HORIZON,
                        kind="relation",
                    )
                )
    return tasks


def _easy_tasks() -> list[Task]:
    tasks = []
    for ball in range(N_BALLS):
        for relation in RELATIONS:
            texts = tuple(
                t.format(a=COLOURS[ball], d=d)
                for d in ph.EASY_DIRECTION_WORDS[relation]
                for t in ph.EASY_TEMPLATES
            )
            tasks.append(
                Task(
                    id=push_id(ball, relation),
                    level="easy",
                    phrasings=texts,
                    goal={"kind": "push", "ball": ball, "relation": relation},
                    success=partial(_push_success, ball=ball, relation=relation),
                    reward=partial(_push_reward, ball=ball, relation=relation),
                    horizon=EASY_HORIZON,
                    kind="push",
                )
            )
    return tasks


def _progress_task(task_id, texts, goal, progress, target, extra) -> Task:
    return Task(
        id=task_id,
        level="hard",
        phrasings=tuple(texts),
        goal=goal,
        success=partial(_progress_success, progress=progress, target=target, **extra),
        reward=partial(_progress_reward, progress=progress, target=target, **extra),
        horizon=HORIZON,
        kind=goal["kind"],
    )


def _hard_tasks() -> list[Task]:
    tasks = []
    for goals in TWO_RELATION_GOALS + THREE_RELATION_GOALS:
        relations = [list(g) for g in goals]
        clauses, stated = (
            ph.join_clauses([ph.relation_clause(COLOURS[s], COLOURS[d], r, form) for s, d, r in goals])
            for form in (False, True)
        )
        texts = [t.format(clauses=clauses, stated=stated) for t in ph.MULTI_RELATION_TEMPLATES]
        texts = [t[0].upper() + t[1:] for t in texts]
        kind = f"relations{len(goals)}"
        task_id = "+".join(relation_id(*g) for g in goals)
        goal = {"kind": kind, "relations": relations}
        extra = {"relations": relations}
        tasks.append(_progress_task(task_id, texts, goal, _multi_progress, len(goals), extra))
    tasks.append(_progress_task("line-in-colour-order", ph.LINE_PHRASINGS,
                                {"kind": "line"}, _line_progress, N_BALLS - 1, {}))
    tasks.append(_progress_task("gather-around-green", ph.GATHER_PHRASINGS,
                                {"kind": "gather"}, _gather_progress, N_BALLS - 1, {}))
    return tasks


@cache
def _tasks(level: str) -> tuple[Task, ...]:
    if level in ("train", "rephrase"):
        return tuple(_relation_tasks(level))
    if level == "easy":
        return tuple(_easy_tasks())
    if level == "hard":
        return tuple(_hard_tasks())
    raise ValueError(f"unknown CLEVR level {level!r}; expected one of train, rephrase, easy, hard")


def tasks(level: str) -> list[Task]:
    """The tasks of ``level``, in a fixed order (the order the eval env cycles through)."""
    return list(_tasks(level))


def subgoals(task: Task, start: np.ndarray | None = None) -> tuple[Task, ...]:
    """The training tasks a hard multi-relation task is made of, in the order its instruction
    states them, whatever the start state (``imagine.prompting``); none for any other task."""
    if not task.kind.startswith("relations"):
        return ()
    train = {t.id: t for t in _tasks("train")}
    return tuple(train[relation_id(*relation)] for relation in task.goal["relations"])
