"""BabyAI tasks of the four levels, each with its predicate, shaped reward and start conditions.

Levels (the original's meaning; bugs fixed as noted):
- train (84 tasks, training phrasings): go to the {colour} {ball, box, key, door} (24; for
  the door: stand beside it, same row), open the {colour} door (6), pick up the {colour}
  {ball, box, key} (18), put the {c1} {t1} next to the {c2} {t2} (36: 6 ordered type pairs
  x 6 colour pairs; 4-adjacent cells, neither carried). The original's four evaluated tasks
  (go to the blue ball, open the blue door, pick up the blue ball, put the blue ball next to
  the green box) are among them. The target's colour is pinned at
  reset; every other colour is drawn afresh at every reset (the original never redrew them).
- rephrase: the same 84 goals and predicates, phrasings never used in training.
- easy (4): open the door then go to any object (door open and the agent on an object's
  cell); open the door then pick up any object (door open and holding something: the
  original's check could never pass); go to a wall (agent on a cell touching a wall,
  starting in the central 2 x 2 block); go to the centre (agent in the central 2 x 2 block,
  starting in one of the four corner 2 x 2 blocks), as the original's starts.
- hard (3): pick up the key then open the locked door (the door starts locked in the key's
  colour; success is the transition that opens it with the key in hand, so the order is
  read off the transition: the door was not open before and the key is held after); the
  ball, box and key on three cells of one row or column; the three in a pile (one 2 x 2
  block: an L of three cells).

Reward (every level): 1 on the success transition; otherwise ``SHAPING * (d(s) - d(s'))``,
d the task's Manhattan heuristic (carried objects at the agent's cell; ``STAGE_PENALTY`` =
3 x room size = 24 added until the first stage of a staged task is done, as the original's
dense wrapper). The original's time-discounted success bonus needs the step count, which
is not in the state, so the bonus here is a flat 1. Time limit 128 steps (the original's
minigrid default for this level).
"""

from __future__ import annotations

from functools import cache, partial
from itertools import permutations
from typing import Any

import numpy as np

from ...core.task import Task
from . import phrasings as ph
from . import predicates as p
from .sim import COLOURS, N_COLOURS, OBJECTS

HORIZON = 128
SHAPING = 0.1
# Imagined steps per prompt before a generator prompts the model afresh (``imagine.prompting``):
# the 75th percentile of the expert's episode lengths in the demo training set (9; at most 17).
PROMPT_STEPS = 9
STAGE_PENALTY = 24.0
TYPE_PAIRS = tuple(permutations(OBJECTS, 2))  # 6 ordered (moved, reference) pairs


# --- predicates: (prev (N,17), actions (N,), states (N,17)) -> (N,) bool ------------------
def _success(prev, actions, states, kind, **goal):
    if kind == "goto":
        if goal["object"] == "door":
            return p.agent_by_door(states, goal["colour"])
        return p.agent_at(states, goal["object"], goal["colour"])
    if kind == "open":
        return p.door_open(states) & (p.colour(states, "door") == goal["colour"])
    if kind == "pickup":
        return p.holding(states, goal["object"], goal["colour"])
    if kind == "putnext":
        first, second = goal["object"], goal["other"]
        colours = p.colour(states, first) == goal["colour"]
        colours &= p.colour(states, second) == goal["other_colour"]
        return p.next_to(states, first, second) & colours
    if kind == "open-then-goto":
        return p.door_open(states) & p.on_object(states)
    if kind == "open-then-pickup":
        return p.door_open(states) & ~p.holding_nothing(states)
    if kind == "goto-wall":
        return p.by_wall(states)
    if kind == "goto-centre":
        return p.in_centre(states)
    if kind == "key-then-open":
        return ~p.door_open(prev) & p.door_open(states) & p.carried(states, "key")
    if kind == "line":
        return p.in_line(states)
    if kind == "pile":
        return p.in_pile(states)
    raise ValueError(f"unknown BabyAI task kind {kind!r}")


# --- heuristic distances: (N,17) -> (N,) float; only for the shaped reward ----------------
def _to_door(states):
    return np.maximum(p.manhattan(p.cell(states, "agent"), p.cell(states, "door")) - 1, 0)


def _to_object(states, name):
    return p.manhattan(p.cell(states, "agent"), p.floor_or_agent(states, name))


def _nearest_object(states):
    return np.min([_to_object(states, name) for name in OBJECTS], axis=0)


def _distance(states, kind, **goal):
    states = np.asarray(states, np.float64)
    agent = p.cell(states, "agent")
    closed = (~p.door_open(states)).astype(np.float64)
    empty = p.holding_nothing(states).astype(np.float64)
    if kind == "goto":
        return _to_door(states) if goal["object"] == "door" else _to_object(states, goal["object"])
    if kind == "open":
        return _to_door(states) + closed
    if kind == "pickup":
        return _to_object(states, goal["object"]) + (~p.carried(states, goal["object"]))
    if kind == "putnext":
        first, second = (p.floor_or_agent(states, goal[k]) for k in ("object", "other"))
        return _to_object(states, goal["object"]) + np.abs(p.manhattan(first, second) - 1)
    if kind in ("open-then-goto", "open-then-pickup"):
        after = _nearest_object(states) + (empty if kind == "open-then-pickup" else 0.0)
        return np.where(closed > 0, STAGE_PENALTY + _to_door(states), after)
    if kind == "goto-wall":
        rows = np.min([np.abs(agent[..., 0] - w) for w in p.WALL_ROWS], axis=0)
        cols = np.min([np.abs(agent[..., 1] - w) for w in p.WALL_COLS], axis=0)
        return np.minimum(rows, cols)
    if kind == "goto-centre":
        return np.min([p.manhattan(agent, np.array(c)) for c in p.CENTRE_CELLS], axis=0)
    if kind == "key-then-open":
        has_key = p.carried(states, "key")
        return np.where(has_key, _to_door(states) + closed, STAGE_PENALTY + _to_object(states, "key"))
    cells = np.stack([p.floor_or_agent(states, name) for name in OBJECTS], axis=-2)
    if kind == "line":
        spread = np.abs(cells - np.median(cells, axis=-2, keepdims=True)).sum(axis=-2)
        return spread.min(axis=-1) + (1.0 - empty)
    if kind == "pile":
        pairs = ((0, 1), (0, 2), (1, 2))
        gaps = [np.abs(cells[..., i, :] - cells[..., j, :]).max(axis=-1) for i, j in pairs]
        return np.sum([np.maximum(g - 1, 0) for g in gaps], axis=0) + (1.0 - empty)
    raise ValueError(f"unknown BabyAI task kind {kind!r}")


def _reward(prev, actions, states, kind, **goal):
    success = _success(prev, actions, states, kind, **goal)
    shaped = SHAPING * (_distance(prev, kind, **goal) - _distance(states, kind, **goal))
    return np.where(success, 1.0, shaped)


# --- task lists ---------------------------------------------------------------------------
def _task(task_id: str, level: str, texts, goal: dict[str, Any]) -> Task:
    kind = goal["kind"]
    params = {k: v for k, v in goal.items() if k != "kind"}
    return Task(id=task_id, level=level, phrasings=tuple(texts), goal=goal,
                success=partial(_success, kind=kind, **params), reward=partial(_reward, kind=kind, **params),
                horizon=HORIZON, kind=kind)


def _instruction_tasks(level: str) -> list[Task]:
    templates = ph.TRAIN if level == "train" else ph.REPHRASE
    tasks = []
    for name in (*OBJECTS, "door"):
        for c in range(N_COLOURS):
            texts = [t.format(c=COLOURS[c], t=name) for t in templates["goto"]]
            goal = {"kind": "goto", "object": name, "colour": c}
            tasks.append(_task(f"goto-{COLOURS[c]}-{name}", level, texts, goal))
    for c in range(N_COLOURS):
        texts = [t.format(c=COLOURS[c]) for t in templates["open"]]
        goal = {"kind": "open", "object": "door", "colour": c}
        tasks.append(_task(f"open-{COLOURS[c]}-door", level, texts, goal))
    for name in OBJECTS:
        for c in range(N_COLOURS):
            texts = [t.format(c=COLOURS[c], t=name) for t in templates["pickup"]]
            goal = {"kind": "pickup", "object": name, "colour": c}
            tasks.append(_task(f"pickup-{COLOURS[c]}-{name}", level, texts, goal))
    for pair, (first, second) in enumerate(TYPE_PAIRS):
        for c1 in range(N_COLOURS):
            # Each ordered colour pair occurs once over the 36 tasks; (ball, box) includes the
            # original's evaluated "put the blue ball next to the green box".
            c2 = (c1 - pair - 1) % N_COLOURS
            words = {"c1": COLOURS[c1], "t1": first, "c2": COLOURS[c2], "t2": second}
            texts = [t.format(**words) for t in templates["putnext"]]
            goal = {"kind": "putnext", "object": first, "colour": c1, "other": second, "other_colour": c2}
            task_id = f"put-{COLOURS[c1]}-{first}-next-to-{COLOURS[c2]}-{second}"
            tasks.append(_task(task_id, level, texts, goal))
    return tasks


@cache
def _tasks(level: str) -> tuple[Task, ...]:
    if level in ("train", "rephrase"):
        return tuple(_instruction_tasks(level))
    if level in ("easy", "hard"):
        table = ph.EASY if level == "easy" else ph.HARD
        return tuple(_task(kind, level, texts, {"kind": kind}) for kind, texts in table.items())
    raise ValueError(f"unknown BabyAI level {level!r}; expected one of train, rephrase, easy, hard")


def tasks(level: str) -> list[Task]:
    """The tasks of ``level``, in a fixed order (the order the eval env cycles through)."""
    return list(_tasks(level))


def subgoals(task: Task, start: np.ndarray) -> tuple[Task, ...]:
    """The training tasks a staged task is made of, from its start state (``imagine.prompting``):
    easy "open the door, then go to / pick up any object": open the door (in its colour), then
    go to / pick up the object nearest the agent at the start (ball, box, key on ties); hard
    "pick up the key, then open the door": pick up the key, then open the door. None for any
    other task."""
    stages = {"open-then-goto": ("open", "goto"), "open-then-pickup": ("open", "pickup"),
              "key-then-open": ("pickup", "open")}.get(task.kind)
    if stages is None:
        return ()
    start = np.asarray(start)
    agent = p.cell(start, "agent")
    nearest = "key" if task.kind == "key-then-open" else min(
        OBJECTS, key=lambda name: p.manhattan(agent, p.cell(start, name)))
    train = {t.id: t for t in _tasks("train")}
    colour = {name: COLOURS[int(p.colour(start, name))] for name in (*OBJECTS, "door")}
    goal = {"open": f"open-{colour['door']}-door", "goto": f"goto-{colour[nearest]}-{nearest}",
            "pickup": f"pickup-{colour[nearest]}-{nearest}"}
    return tuple(train[goal[stage]] for stage in stages)
