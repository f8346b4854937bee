"""LIBERO tasks of the four levels (reference section 4), each with its predicate and reward.

- train: pick-{item} (grasp and lift it), place-{item} (the item starts held; put it in the
  basket), for the three items;
- rephrase: the same six goals and predicates, phrasings never used in training;
- easy: pick-and-place-{item}, pick-{item}-place-to-{other} (next to another item, 6 ordered
  pairs), reach-{item};
- hard: sequential-{item}-{other} (both in the basket; 6 ordered pairs), aside-{item},
  all (the three items in the basket: the original checked the cream cheese twice and never
  the salad dressing), out-of-{item} (the item starts in the basket; carry it 0.45 m away).

Success: every condition of the task on the post-step state (predicates.py). The original
latched "placed" flags across steps and did not check the order of sequential tasks; a
state predicate cannot see order either, so sequential-{a}-{b} succeeds when both are in
the basket (the expert does them in the stated order).
Reward: ``20 * (d_before - d_after) + 1 * success``, d = the conditions' summed shortfall
(metres): the original's 20 x distance decrease and +1 on success, without its latched
per-stage bonuses, so it is computable on imagined states. Horizon 500 steps, as the original.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache, partial
from itertools import permutations

import numpy as np

from ...core.task import Task
from .layout import LABEL, OBJECTS
from .phrasings import phrasings
from .predicates import (
    CLEAR_OF_BASKET,
    OUT_OF_BASKET,
    away_from_start,
    far_from_basket,
    goal_distance,
    goal_reached,
    in_basket,
    lifted,
    near_eef,
    next_to,
    on_floor,
)

HORIZON = 500
# Imagined steps per prompt before a generator prompts the model afresh (``imagine.prompting``):
# the 75th percentile of the expert's episode lengths in the demo training set (61; at most 79),
# the rule BabyAI's and CLEVR's follow.
PROMPT_STEPS = 61
DISTANCE_REWARD = 20.0
SUCCESS_REWARD = 1.0
PAIRS = tuple(permutations(OBJECTS, 2))


def _success(prev, actions, states, conditions):
    return goal_reached(states, conditions)


def _any_goal(prev, actions, states, goals):
    """Success when any of ``goals`` (lists of conditions) is reached (``subgoals``' picks)."""
    return np.any([goal_reached(states, conditions) for conditions in goals], axis=0)


def _reward(prev, actions, states, conditions):
    progress = goal_distance(prev, conditions) - goal_distance(states, conditions)
    return DISTANCE_REWARD * progress + SUCCESS_REWARD * goal_reached(states, conditions)


def _task(task_id: str, level: str, kind: str, conditions: list[dict], moves: list[list[str]],
          start: str = "home", items: tuple[str, ...] = ()) -> Task:
    """``moves``: the expert's plan, [item, destination] pairs in order ("basket", "next_to:<other>",
    "aside", "out", "reach", "lift"); ``start``: how reset prepares the scene (sim.reset)."""
    labels = [LABEL[i] for i in items] + ["", ""]
    return Task(
        id=task_id,
        level=level,
        phrasings=phrasings(level, kind, labels[0], labels[1]),
        goal={"kind": kind, "items": list(items), "conditions": conditions, "moves": moves, "start": start},
        success=partial(_success, conditions=conditions),
        reward=partial(_reward, conditions=conditions),
        horizon=HORIZON,
        kind=kind,
    )


def _train_tasks(level: str) -> list[Task]:
    picks = [_task(f"pick-{o}", level, "pick", [near_eef(o), lifted(o)], [[o, "lift"]], items=(o,))
             for o in OBJECTS]
    places = [_task(f"place-{o}", level, "place", [in_basket(o)], [[o, "basket"]], "held:" + o, (o,))
              for o in OBJECTS]
    return picks + places


def _easy_tasks() -> list[Task]:
    tasks = [_task(f"pick-and-place-{o}", "easy", "pick-and-place", [in_basket(o)], [[o, "basket"]],
                   items=(o,)) for o in OBJECTS]
    tasks += [_task(f"pick-{a}-place-to-{b}", "easy", "place-to", [next_to(a, b)], [[a, "next_to:" + b]],
                    items=(a, b)) for a, b in PAIRS]
    tasks += [_task(f"reach-{o}", "easy", "reach", [near_eef(o)], [[o, "reach"]], items=(o,))
              for o in OBJECTS]
    return tasks


def _hard_tasks() -> list[Task]:
    tasks = [_task(f"sequential-{a}-{b}", "hard", "sequential", [in_basket(a), in_basket(b)],
                   [[a, "basket"], [b, "basket"]], items=(a, b)) for a, b in PAIRS]
    tasks += [_task(f"aside-{o}", "hard", "aside",
                    [away_from_start(o), on_floor(o), far_from_basket(o, CLEAR_OF_BASKET, 2)],
                    [[o, "aside"]], items=(o,)) for o in OBJECTS]
    tasks.append(_task("all", "hard", "all", [in_basket(o) for o in OBJECTS],
                       [[o, "basket"] for o in OBJECTS]))
    tasks += [_task(f"out-of-{o}", "hard", "out-of", [far_from_basket(o, OUT_OF_BASKET, 3)], [[o, "out"]],
                    "in_basket:" + o, (o,)) for o in OBJECTS]
    return tasks


@cache
def _tasks(level: str) -> tuple[Task, ...]:
    if level in ("train", "rephrase"):
        return tuple(_train_tasks(level))
    if level == "easy":
        return tuple(_easy_tasks())
    if level == "hard":
        return tuple(_hard_tasks())
    raise ValueError(f"unknown LIBERO level {level!r}; expected train, rephrase, easy or hard")


def tasks(level: str) -> list[Task]:
    """The tasks of ``level``, in a fixed order (the order the eval env cycles through)."""
    return list(_tasks(level))


def subgoals(task: Task, start: np.ndarray | None = None) -> tuple[Task, ...]:
    """The training tasks a task made of pick-and-place moves is prompted as, in order
    (``imagine.prompting``): for each item the task puts in the basket, pick it up, then put it
    in the basket (``place-{item}``, which the model was grounded on from the item held): easy
    pick-and-place-{item}, hard sequential-{item}-{other} and all. A pick sub-goal also holds
    once its item is in the basket, so that a placed item is not picked up again. None for any
    other task."""
    if task.kind not in ("pick-and-place", "sequential", "all"):
        return ()
    train = {t.id: t for t in _tasks("train")}
    stages = []
    for item, _ in task.goal["moves"]:
        pick, place = train[f"pick-{item}"], train[f"place-{item}"]
        either = partial(_any_goal, goals=(pick.goal["conditions"], place.goal["conditions"]))
        stages += [replace(pick, success=either), place]
    return tuple(stages)
