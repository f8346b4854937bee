"""A planning expert for every BabyAI task: breadth-first search on the grid plus a few skills.

The expert replans from the 17 numbers at every step. Skills, composed per task kind:
- ``goto(cells)``: first move of a shortest path (walls and closed doors block; objects
  do not) to the nearest of ``cells``; a door in the way is opened first.
- ``hold(name)``: drop whatever else is held (on the nearest free cell), walk to ``name``,
  pick it up.
- ``open_door``: fetch the key if the door is locked, stand beside the door, toggle.
- ``place(name, cells)``: hold ``name``, carry it to the nearest free cell of ``cells``, drop.
Line and pile choose a target row / column or 2 x 2 block once per episode (fewest objects to
move, then least distance), and move the objects that are off it one by one.

Go-to-wall and go-to-centre aim at the cells where the task's own predicate holds. Ties
(search order, equally good layouts) are broken by the episode's random generator, so a
seed fixes the run.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from ...core.task import Task
from .sim import (
    AGENT_COL,
    AGENT_ROW,
    CARRIED_TYPE,
    DOOR_STATE,
    DROP,
    HEIGHT,
    LEFT_ROOM,
    LOCKED,
    MOVES,
    N_ACTIONS,
    OBJ_COLS,
    OBJECTS,
    OPEN,
    PICKUP,
    TOGGLE,
    TYPE_IDS,
    WIDTH,
    BabyAISimulator,
    is_wall_cell,
)

Cell = tuple[int, int]
FLOOR = tuple((r, c) for r in range(HEIGHT) for c in range(WIDTH) if not is_wall_cell(r, c))
FLOOR_SET = frozenset(FLOOR)


class World:
    """The 17 numbers read as cells (expert's view; real states are integral)."""

    def __init__(self, state: np.ndarray) -> None:
        s = np.rint(np.asarray(state, np.float64)).astype(int)
        self.state = np.asarray(state, np.float32)
        self.agent: Cell = (s[AGENT_ROW], s[AGENT_COL])
        self.carrying = next((n for n in OBJECTS if s[CARRIED_TYPE] == TYPE_IDS[n]), None)
        self.objects: dict[str, Cell] = {
            n: (s[OBJ_COLS[n] + 1], s[OBJ_COLS[n] + 2]) for n in OBJECTS if n != self.carrying
        }
        self.door: Cell = (s[10], s[11])
        self.door_state = int(s[DOOR_STATE])

    def passable(self, cell: Cell) -> bool:
        return cell in FLOOR_SET or (cell == self.door and self.door_state == OPEN)

    def free(self, cell: Cell) -> bool:
        """A floor cell (not the doorway) with no object on it: somewhere to drop."""
        return cell in FLOOR_SET and cell not in self.objects.values()

    def beside_door(self) -> list[Cell]:
        r, c = self.door
        return [cell for cell in ((r, c - 1), (r, c + 1)) if cell in FLOOR_SET]



class BabyAIExpert:
    """``act(state) -> action`` for one task; deterministic given ``rng``."""

    def __init__(self, task: Task, rng: np.random.Generator, sim: BabyAISimulator | None = None):
        self.task = task
        self.goal = task.goal
        self.rng = rng
        self.moves = [list(MOVES.items())[i] for i in rng.permutation(len(MOVES))]  # search order
        self.layout: list[Cell] | None = None
        self._opening = False

    # --- skills (each returns an action, or None when already done) -----------------------
    def _search(self, world: World, goals: set[Cell]) -> int | None:
        """First move of a shortest path from the agent to any of ``goals``; None if unreachable."""
        first: dict[Cell, int | None] = {world.agent: None}
        queue = deque([world.agent])
        while queue:
            cell = queue.popleft()
            if cell in goals:
                return first[cell]
            for action, (dr, dc) in self.moves:
                nxt = (cell[0] + dr, cell[1] + dc)
                if nxt not in first and world.passable(nxt):
                    first[nxt] = action if first[cell] is None else first[cell]
                    queue.append(nxt)
        return None

    def goto(self, world: World, cells) -> int | None:
        goals = set(cells)
        if world.agent in goals:
            return None
        action = self._search(world, goals)
        if action is not None:
            return action
        if world.door_state != OPEN and not self._opening:
            self._opening = True  # a door that cannot be reached either: no endless detour
            try:
                return self.open_door(world)
            finally:
                self._opening = False
        return self._random()

    def drop_somewhere(self, world: World) -> int:
        if world.free(world.agent):
            return DROP
        action = self.goto(world, [c for c in FLOOR if world.free(c)])
        return self._random() if action is None else action

    def hold(self, world: World, name: str) -> int | None:
        if world.carrying == name:
            return None
        if world.carrying is not None:
            return self.drop_somewhere(world)
        target = world.objects[name]
        return PICKUP if world.agent == target else self.goto(world, [target])

    def open_door(self, world: World) -> int | None:
        if world.door_state == OPEN:
            return None
        if world.door_state == LOCKED and world.carrying != "key":
            return self.hold(world, "key")
        r, c = world.door
        if abs(world.agent[0] - r) + abs(world.agent[1] - c) == 1:
            return TOGGLE
        return self.goto(world, world.beside_door())

    def place(self, world: World, name: str, cells) -> int | None:
        cells = list(cells)
        if world.objects.get(name) in cells:
            return None
        action = self.hold(world, name)
        if action is not None:
            return action
        if world.agent in cells and world.free(world.agent):
            return DROP
        return self.goto(world, [c for c in cells if world.free(c)])

    # --- task policies --------------------------------------------------------------------
    def act(self, state: np.ndarray) -> int:
        world = World(state)
        action = self._policy(world)
        return self._random() if action is None else int(action)

    def _policy(self, world: World) -> int | None:
        kind, goal = self.goal["kind"], self.goal
        if kind == "goto" and goal["object"] == "door":
            return self.goto(world, world.beside_door())
        if kind == "goto":
            if world.carrying == goal["object"]:
                return self.drop_somewhere(world)
            return self.goto(world, [world.objects[goal["object"]]])
        if kind in ("open", "key-then-open"):
            return self.open_door(world)
        if kind == "pickup":
            return self.hold(world, goal["object"])
        if kind == "putnext":
            return self.place(world, goal["object"], self._beside(world, goal["other"]))
        if kind in ("open-then-goto", "open-then-pickup"):
            if world.door_state != OPEN:
                return self.open_door(world)
            if kind == "open-then-pickup" and world.agent in world.objects.values():
                return PICKUP
            return self.goto(world, world.objects.values())
        if kind in ("goto-wall", "goto-centre"):
            return self.goto(world, self._predicate_cells(world))
        if kind in ("line", "pile"):
            return self._arrange(world, kind)
        raise ValueError(f"no expert for BabyAI task kind {kind!r}")

    def _beside(self, world: World, name: str) -> list[Cell]:
        r, c = world.objects[name]
        return [(r + dr, c + dc) for dr, dc in MOVES.values() if (r + dr, c + dc) in FLOOR_SET]

    def _predicate_cells(self, world: World) -> list[Cell]:
        """Floor cells where the task's predicate holds with the agent standing there."""
        moved = np.repeat(world.state[None], len(FLOOR), axis=0)
        moved[:, AGENT_ROW : AGENT_COL + 1] = FLOOR
        prev = np.repeat(world.state[None], len(FLOOR), axis=0)
        ok = self.task.success(prev, np.zeros(len(FLOOR), int), moved)
        return [cell for cell, good in zip(FLOOR, ok) if good]

    def _layouts(self, kind: str) -> list[list[Cell]]:
        if kind == "line":
            rows = [[(r, c) for c in LEFT_ROOM] for r in LEFT_ROOM]
            return rows + [[(r, c) for r in LEFT_ROOM] for c in LEFT_ROOM]
        corners = [(r, c) for r in LEFT_ROOM[:-1] for c in LEFT_ROOM[:-1]]
        return [[(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)] for r, c in corners]

    def _choose_layout(self, world: World, kind: str) -> list[Cell]:
        def cost(cells):
            off = [world.objects.get(n) for n in OBJECTS if world.objects.get(n) not in cells]
            spots = [world.agent if at is None else at for at in off]
            reach = sum(min(abs(a - r) + abs(b - c) for r, c in cells) for a, b in spots)
            return len(off), reach

        layouts = self._layouts(kind)
        costs = [cost(cells) for cells in layouts]
        best = [i for i, c in enumerate(costs) if c == min(costs)]
        return layouts[int(self.rng.choice(best))]

    def _arrange(self, world: World, kind: str) -> int | None:
        if self.layout is None:
            self.layout = self._choose_layout(world, kind)
        if world.carrying is not None:
            return self.place(world, world.carrying, self.layout)
        off = [n for n in OBJECTS if world.objects[n] not in self.layout]
        if not off:
            return None
        nearest = min(off, key=lambda n: abs(world.objects[n][0] - world.agent[0])
                      + abs(world.objects[n][1] - world.agent[1]))
        return self.place(world, nearest, self.layout)

    def _random(self) -> int:
        return int(self.rng.integers(N_ACTIONS))
