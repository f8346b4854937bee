"""The BabyAI simulator: two rooms, one door, a ball, a box and a key, on ``minigrid``'s grid.

The level is the original's: a ``minigrid.core.grid.Grid`` of 15 columns by 8 rows, walls
on its border and down column 7, which splits it into a left room (rows and columns 1..6)
and a right room (rows 1..6, columns 8..13). One ``Door`` sits in the dividing wall at
(row ``r``, column 7) for some ``r`` in 1..6. Cells are written ``(row, col)``.

State, 17 float32 numbers (the original's layout, so its files import unchanged)::

    0 ball colour   1 ball row   2 ball col
    3 box colour    4 box row    5 box col
    6 key colour    7 key row    8 key col
    9 door colour  10 door row  11 door col  12 door state (0 open, 1 closed, 2 locked)
   13 agent row    14 agent col
   15 carried type (0 nothing, 5 key, 6 ball, 7 box)   16 carried colour (0 when nothing)

Colours are minigrid's indices (red 0, green 1, blue 2, purple 3, yellow 4, grey 5). A
carried object is reported at cell (0, 0), a wall corner nothing else can occupy.

Actions (allocentric, the original's numbering): 0 left (-col), 1 right (+col), 2 up
(-row), 6 down (+row): step one cell unless the cell is a wall or a closed or locked door
(the agent walks over the ball, box and key); 3 pick up the object in the agent's own
cell, if the agent's hands are empty; 4 drop the carried object into the agent's own
cell, if that cell holds no object and is not the doorway; 5 toggle the door if it is one
of the agent's four neighbours (a locked door opens only for a key of its colour, as in
minigrid; toggling an open door closes it, unlocked). Every other case is a no-op.

``step_from`` rebuilds the grid from any 17 numbers, legal or not (positions rounded and
clipped into the grid, colours and door state clipped into range), so imagined
transitions can be re-simulated; it is deterministic.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from minigrid.core.constants import COLOR_TO_IDX, IDX_TO_COLOR, OBJECT_TO_IDX
from minigrid.core.grid import Grid
from minigrid.core.world_object import Ball, Box, Door, Key, WorldObj

from ...core.simulator import WholeStateSimulator
from ...core.task import Task

STATE_DIM = 17
N_ACTIONS = 7
ROOM_SIZE = 8
WIDTH, HEIGHT = 2 * ROOM_SIZE - 1, ROOM_SIZE  # 15 columns, 8 rows
DOOR_COL = ROOM_SIZE - 1  # the dividing wall
LEFT_ROOM = range(1, ROOM_SIZE - 1)  # interior rows, and the left room's interior columns
RIGHT_COLS = range(ROOM_SIZE, WIDTH - 1)
COLOURS = tuple(IDX_TO_COLOR[i] for i in range(len(IDX_TO_COLOR)))  # red, green, blue, ...
N_COLOURS = len(COLOURS)
OPEN, CLOSED, LOCKED = 0, 1, 2
DOOR_STATES = ("open", "closed", "locked")

LEFT, RIGHT, UP, PICKUP, DROP, TOGGLE, DOWN = range(N_ACTIONS)
MOVES = {LEFT: (0, -1), RIGHT: (0, 1), UP: (-1, 0), DOWN: (1, 0)}
ACTION_NAMES = ("left", "right", "up", "pick up", "drop", "toggle", "down")

OBJECTS = ("ball", "box", "key")  # state order
OBJECT_CLASSES = {"ball": Ball, "box": Box, "key": Key}
TYPE_IDS = {name: OBJECT_TO_IDX[name] for name in OBJECTS}  # ball 6, box 7, key 5
NOTHING = 0
# Column of each object's colour, row and col in the state; then the door, agent and carried.
OBJ_COLS = {"ball": 0, "box": 3, "key": 6}
DOOR_COLOUR, DOOR_ROW, DOOR_C, DOOR_STATE = 9, 10, 11, 12
AGENT_ROW, AGENT_COL = 13, 14
CARRIED_TYPE, CARRIED_COLOUR = 15, 16
CARRIED_CELL = (0, 0)


def compose_state(ball=(2, 2), box=(2, 4), key=(4, 2), door_row: int = 3, door_state: int = CLOSED,
                  agent=(5, 5), carrying: str | None = None,
                  colours: dict[str, int] | None = None) -> np.ndarray:
    """A (17,) state from named parts (cells as (row, col)); ``carrying`` moves that object to (0, 0)."""
    colours = {"ball": 0, "box": 1, "key": 2, "door": 2, **(colours or {})}
    state = np.zeros(STATE_DIM, np.float32)
    for name, at in zip(OBJECTS, (ball, box, key)):
        start = OBJ_COLS[name]
        state[start : start + 3] = (colours[name], *(CARRIED_CELL if name == carrying else at))
    state[DOOR_COLOUR : DOOR_STATE + 1] = (colours["door"], door_row, DOOR_COL, door_state)
    state[AGENT_ROW : AGENT_COL + 1] = agent
    if carrying is not None:
        state[CARRIED_TYPE : CARRIED_COLOUR + 1] = (TYPE_IDS[carrying], colours[carrying])
    return state


def is_wall_cell(row: int, col: int) -> bool:
    """The border and the dividing column (including the door's cell)."""
    return row in (0, HEIGHT - 1) or col in (0, DOOR_COL, WIDTH - 1)


def _cell(state, row_index: int) -> tuple[int, int]:
    """The (row, col) at ``state[row_index : row_index + 2]``, rounded (half to even, as
    ``np.rint``) and clipped into the grid. ``state`` is a list: Python's scalars are faster."""
    return _index(state[row_index], HEIGHT), _index(state[row_index + 1], WIDTH)


def _index(value: float, count: int) -> int:
    return min(max(int(round(value)), 0), count - 1)


def _walls() -> list:
    """The cells of an empty level: the border and the dividing wall (``Wall`` objects hold no
    state, so every grid shares them)."""
    grid = Grid(WIDTH, HEIGHT)
    grid.wall_rect(0, 0, WIDTH, HEIGHT)
    grid.vert_wall(DOOR_COL, 0, HEIGHT)
    return grid.grid


_WALLS = _walls()


# --- start conditions ---------------------------------------------------------------------
def start_options(goal: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments of ``BabyAISimulator.random_state`` for a reset of the task with
    ``goal``: a pinned colour, a locked door, or the agent's start area."""
    kind = goal["kind"]
    if kind in ("goto", "pickup", "open"):
        return {"colours": {goal["object"]: goal["colour"]}}
    if kind == "putnext":
        return {"colours": {goal["object"]: goal["colour"], goal["other"]: goal["other_colour"]}}
    if kind == "goto-wall":
        return {"agent_rows": (3, 4), "agent_cols": (3, 4)}
    if kind == "goto-centre":
        return {"agent_rows": (1, 2, 5, 6), "agent_cols": (1, 2, 5, 6)}
    if kind == "key-then-open":
        return {"door_state": LOCKED}
    return {"door_state": CLOSED}



class BabyAISimulator(WholeStateSimulator):
    """A minigrid ``Grid`` plus the agent's cell and hands; place any state, step, read it back.

    The 17 numbers are the whole state, so ``set_state`` is exact and no further state is stored.
    """

    def __init__(self) -> None:
        self.grid = Grid(WIDTH, HEIGHT)
        self.objects: dict[str, WorldObj] = {}
        self.door: Door = Door("red")
        self.door_cell = (1, DOOR_COL)
        self.agent = (1, 1)
        self.carrying: WorldObj | None = None  # read by minigrid's Door.toggle
        super().__init__(STATE_DIM)

    def start_options(self, task: Task) -> dict[str, Any]:
        return start_options(task.goal)

    # --- state <-> grid -------------------------------------------------------------------
    def place(self, state: np.ndarray) -> None:
        state = np.nan_to_num(np.asarray(state, dtype=np.float64), nan=0.0, posinf=1e6, neginf=-1e6)
        if state.shape != (STATE_DIM,):
            raise ValueError(f"BabyAI state must have shape ({STATE_DIM},), got {state.shape}")
        state = state.tolist()
        grid = Grid(WIDTH, HEIGHT)
        grid.grid[:] = _WALLS
        self.door_cell = _cell(state, DOOR_ROW)
        self.door = Door(COLOURS[_index(state[DOOR_COLOUR], N_COLOURS)])
        door_state = _index(state[DOOR_STATE], len(DOOR_STATES))
        self.door.is_open, self.door.is_locked = door_state == OPEN, door_state == LOCKED
        grid.set(self.door_cell[1], self.door_cell[0], self.door)
        self.door.cur_pos = (self.door_cell[1], self.door_cell[0])
        carried_type = int(round(state[CARRIED_TYPE])) if abs(state[CARRIED_TYPE]) < 1e6 else NOTHING
        self.carrying = None
        self.objects = {}
        for name in OBJECTS:
            start = OBJ_COLS[name]
            obj = OBJECT_CLASSES[name](COLOURS[_index(state[start], N_COLOURS)])
            self.objects[name] = obj
            if carried_type == TYPE_IDS[name] and self.carrying is None:
                self.carrying = obj
                continue
            row, col = _cell(state, start + 1)
            obj.cur_pos = (col, row)
            # An object stays out of the grid where the grid already has something (a wall,
            # the door or an earlier object): it keeps its cell but cannot be picked up there.
            if grid.get(col, row) is None:
                grid.set(col, row, obj)
        self.grid = grid
        self.agent = _cell(state, AGENT_ROW)

    def get_state(self) -> np.ndarray:
        state = np.zeros(STATE_DIM, np.float32)
        for name in OBJECTS:
            obj, start = self.objects[name], OBJ_COLS[name]
            state[start] = COLOR_TO_IDX[obj.color]
            col, row = (CARRIED_CELL[1], CARRIED_CELL[0]) if obj is self.carrying else obj.cur_pos
            state[start + 1 : start + 3] = (row, col)
        door_state = OPEN if self.door.is_open else LOCKED if self.door.is_locked else CLOSED
        state[DOOR_COLOUR : DOOR_STATE + 1] = (COLOR_TO_IDX[self.door.color], *self.door_cell, door_state)
        state[AGENT_ROW : AGENT_COL + 1] = self.agent
        if self.carrying is not None:
            state[CARRIED_TYPE] = OBJECT_TO_IDX[self.carrying.type]
            state[CARRIED_COLOUR] = COLOR_TO_IDX[self.carrying.color]
        return state

    # --- dynamics -------------------------------------------------------------------------
    def apply(self, action: int) -> np.ndarray:
        """Apply ``action`` (see module docstring) from the current state; return the new state."""
        action = int(action)
        if not 0 <= action < N_ACTIONS:
            raise ValueError(f"BabyAI action must be in [0, {N_ACTIONS}), got {action}")
        row, col = self.agent
        here = self.grid.get(col, row)
        if action in MOVES:
            d_row, d_col = MOVES[action]
            target = (row + d_row, col + d_col)
            if 0 <= target[0] < HEIGHT and 0 <= target[1] < WIDTH:
                cell = self.grid.get(target[1], target[0])
                if cell is None or cell.can_overlap() or cell.can_pickup():
                    self.agent = target
        elif action == PICKUP:
            if self.carrying is None and here is not None and here.can_pickup():
                self.carrying = here
                self.grid.set(col, row, None)
                here.cur_pos = None
        elif action == DROP:
            if self.carrying is not None and here is None:
                self.grid.set(col, row, self.carrying)
                self.carrying.cur_pos = (col, row)
                self.carrying = None
        elif action == TOGGLE:
            for d_row, d_col in MOVES.values():
                if (row + d_row, col + d_col) == self.door_cell:
                    self.door.toggle(self, self.door.cur_pos)
                    break
        return self.get_state()

    def step_from(self, state: np.ndarray, action: int) -> np.ndarray:
        """Put the simulator in ``state``, apply ``action``, return the next state."""
        self.place(state)
        return self.apply(action)

    # --- resets ---------------------------------------------------------------------------
    def random_state(self, rng: np.random.Generator, colours: dict[str, int] | None = None,
                     door_state: int = CLOSED, agent_rows: tuple[int, ...] = tuple(LEFT_ROOM),
                     agent_cols: tuple[int, ...] = tuple(LEFT_ROOM)) -> np.ndarray:
        """A random start: ball, box and key on distinct cells of the left room, the agent on
        another cell of it (row in ``agent_rows``, column in ``agent_cols``), a door at a random
        row of the dividing wall in state ``door_state``. Colours are drawn afresh at every
        call; ``colours`` pins some (keys ball, box, key, door). A locked door takes the key's
        colour, so the key opens it."""
        colours = dict(colours or {})
        drawn = {name: int(colours.get(name, rng.integers(N_COLOURS))) for name in (*OBJECTS, "door")}
        if door_state == LOCKED:
            drawn["door"] = drawn["key"]
        cells = [(r, c) for r in LEFT_ROOM for c in LEFT_ROOM]
        agent_cells = [(r, c) for r, c in cells if r in agent_rows and c in agent_cols]
        agent = agent_cells[int(rng.integers(len(agent_cells)))]
        free = [cell for cell in cells if cell != agent]
        picks = rng.choice(len(free), size=len(OBJECTS), replace=False)
        state = np.zeros(STATE_DIM, np.float32)
        for name, pick in zip(OBJECTS, picks):
            start = OBJ_COLS[name]
            state[start : start + 3] = (drawn[name], *free[pick])
        door_row = int(rng.integers(LEFT_ROOM.start, LEFT_ROOM.stop))
        state[DOOR_COLOUR : DOOR_STATE + 1] = (drawn["door"], door_row, DOOR_COL, door_state)
        state[AGENT_ROW : AGENT_COL + 1] = agent
        return state

