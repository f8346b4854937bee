"""BabyAI predicates and heuristic distances, vectorised over batches of 17-number states.

States have shape ``(N, 17)`` (layout in ``sim``). An object counts as *carried* when the
carried-type entry names its type; a carried object is nowhere on the floor, so it is never
"at" a cell, next to another object or part of a line or pile. Comparisons are on the
numbers as stored (an imagined 3.4 is not cell 3), so a malformed state satisfies nothing
it does not literally state.
"""

from __future__ import annotations

import numpy as np

from .sim import (
    AGENT_ROW,
    CARRIED_COLOUR,
    CARRIED_TYPE,
    DOOR_COLOUR,
    DOOR_ROW,
    DOOR_STATE,
    NOTHING,
    OBJ_COLS,
    OBJECTS,
    OPEN,
    TYPE_IDS,
)

CENTRE_CELLS = ((3, 3), (3, 4), (4, 3), (4, 4))  # the left room's central 2 x 2 block
WALL_ROWS = (1, 6)  # cells touching the border's top and bottom walls
WALL_COLS = (1, 6, 8, 13)  # ... the outer side walls and the dividing wall (both rooms)


def cell(states: np.ndarray, name: str) -> np.ndarray:
    """(N, 2) stored (row, col) of ``name`` (an object, ``door`` or ``agent``)."""
    states = np.asarray(states)
    start = {"door": DOOR_ROW, "agent": AGENT_ROW}.get(name, OBJ_COLS.get(name, 0) + 1)
    return states[..., start : start + 2]


def colour(states: np.ndarray, name: str) -> np.ndarray:
    """(N,) stored colour index of an object or the door."""
    return np.asarray(states)[..., DOOR_COLOUR if name == "door" else OBJ_COLS[name]]


def carried(states: np.ndarray, name: str) -> np.ndarray:
    """(N,) bool: the agent holds ``name``."""
    return np.asarray(states)[..., CARRIED_TYPE] == TYPE_IDS[name]


def holding_nothing(states: np.ndarray) -> np.ndarray:
    return np.asarray(states)[..., CARRIED_TYPE] == NOTHING


def door_open(states: np.ndarray) -> np.ndarray:
    return np.asarray(states)[..., DOOR_STATE] == OPEN


def same_cell(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.all(a == b, axis=-1)


def manhattan(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(np.asarray(a, np.float64) - b).sum(axis=-1)


def agent_at(states: np.ndarray, name: str, colour_index: int) -> np.ndarray:
    """(N,) bool: the agent stands on the (floor) cell of the object of that colour."""
    on = same_cell(cell(states, "agent"), cell(states, name))
    return on & ~carried(states, name) & (colour(states, name) == colour_index)


def agent_by_door(states: np.ndarray, colour_index: int) -> np.ndarray:
    """(N,) bool: the agent is on a cell beside the door (same row, one column off), of that colour."""
    offset = cell(states, "agent") - cell(states, "door")
    return (offset[..., 0] == 0) & (np.abs(offset[..., 1]) == 1) & (colour(states, "door") == colour_index)


def holding(states: np.ndarray, name: str, colour_index: int) -> np.ndarray:
    states = np.asarray(states)
    return carried(states, name) & (states[..., CARRIED_COLOUR] == colour_index)


def next_to(states: np.ndarray, first: str, second: str) -> np.ndarray:
    """(N,) bool: both objects on the floor, in 4-adjacent cells."""
    distance = manhattan(cell(states, first), cell(states, second))
    return (distance == 1) & ~carried(states, first) & ~carried(states, second)


def on_object(states: np.ndarray) -> np.ndarray:
    """(N,) bool: the agent stands on the cell of an object that is on the floor."""
    return np.any([agent_at_any(states, name) for name in OBJECTS], axis=0)


def agent_at_any(states: np.ndarray, name: str) -> np.ndarray:
    return same_cell(cell(states, "agent"), cell(states, name)) & ~carried(states, name)


def by_wall(states: np.ndarray) -> np.ndarray:
    """(N,) bool: the agent is on a cell touching a wall of its room (see WALL_ROWS, WALL_COLS)."""
    agent = cell(states, "agent")
    return np.isin(agent[..., 0], WALL_ROWS) | np.isin(agent[..., 1], WALL_COLS)


def in_centre(states: np.ndarray) -> np.ndarray:
    agent = cell(states, "agent")
    return np.any([same_cell(agent, np.array(c)) for c in CENTRE_CELLS], axis=0)


def _floor_cells(states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(N, 3, 2) object cells and (N,) bool: none of the three is carried."""
    cells = np.stack([cell(states, name) for name in OBJECTS], axis=-2)
    return cells, ~np.any([carried(states, name) for name in OBJECTS], axis=0)


def _distinct(cells: np.ndarray) -> np.ndarray:
    pairs = ((0, 1), (0, 2), (1, 2))
    return np.all([~same_cell(cells[..., i, :], cells[..., j, :]) for i, j in pairs], axis=0)


def in_line(states: np.ndarray) -> np.ndarray:
    """(N,) bool: ball, box and key on the floor, on three cells of one row or one column."""
    cells, on_floor = _floor_cells(states)
    rows, cols = cells[..., 0], cells[..., 1]
    shared = np.all(rows == rows[..., :1], axis=-1) | np.all(cols == cols[..., :1], axis=-1)
    return on_floor & shared & _distinct(cells)


def in_pile(states: np.ndarray) -> np.ndarray:
    """(N,) bool: ball, box and key on the floor, on three cells of one 2 x 2 block (every pair
    at most one row and one column apart, i.e. an L of three cells)."""
    cells, on_floor = _floor_cells(states)
    spread = cells.max(axis=-2) - cells.min(axis=-2)
    return on_floor & np.all(spread <= 1, axis=-1) & _distinct(cells)


def floor_or_agent(states: np.ndarray, name: str) -> np.ndarray:
    """(N, 2) where ``name`` effectively is: its cell, or the agent's cell while carried."""
    return np.where(carried(states, name)[..., None], cell(states, "agent"), cell(states, name))
