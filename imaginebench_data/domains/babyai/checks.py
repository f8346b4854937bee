"""BabyAI state checkers: illegal states by kind, and the distance used for transition error.

Kinds (cells are judged rounded to the nearest integer, so each fault shows once, under its kind):
- ``out_of_grid``: the door, the agent or a floor object outside rows 0..7, columns 0..14.
- ``non_integer``: an entry that is not a whole number (every entry is an index or a cell).
- ``out_of_range``: a colour outside 0..5, a door state outside 0..2 (open, closed, locked),
  a carried type other than 0 (nothing), 5 (key), 6 (ball), 7 (box), or a carried colour
  other than 0 while nothing is carried.
- ``overlap``: two floor objects on one cell, or a floor object in the doorway.
- ``agent_in_wall``: the agent on a wall cell, or in the doorway of a closed or locked door.
- ``object_in_wall``: a floor object on a wall cell (other than the doorway: that is overlap).
- ``door_off_wall``: the door not in the dividing wall (column 7, rows 1..6).
- ``carry_mismatch``: a carried object not reported at (0, 0), or a carried colour that is
  not the carried object's colour.
- ``non_finite``: any NaN or infinity (the other kinds are then not judged).

Transition distance: the number of the 17 entries in which the stored next state and the
one re-simulated from the stored (state, action) round to different integers; tolerance 0.
The grid world is exact, so real data re-simulates with distance 0 and any difference is a
wrong transition. Rounding keeps the two statistics apart: an imagined 3.02 where the
simulator gives 3 is a ``non_integer`` state, not a wrong move (the simulator itself reads
any state rounded to the nearest cell).
"""

from __future__ import annotations

import numpy as np

from .sim import (
    AGENT_ROW,
    CARRIED_COLOUR,
    CARRIED_TYPE,
    DOOR_COL,
    DOOR_COLOUR,
    DOOR_ROW,
    DOOR_STATE,
    DOOR_STATES,
    HEIGHT,
    N_COLOURS,
    NOTHING,
    OBJ_COLS,
    OBJECTS,
    OPEN,
    TYPE_IDS,
    WIDTH,
)

ILLEGAL_KINDS = ("out_of_grid", "non_integer", "out_of_range", "overlap", "agent_in_wall",
                 "object_in_wall", "door_off_wall", "carry_mismatch", "non_finite")
TRANSITION_TOLERANCE = 0.0
INTEGER_TOLERANCE = 1e-4


def _in_grid(cells: np.ndarray) -> np.ndarray:
    return (cells[..., 0] >= 0) & (cells[..., 0] < HEIGHT) & (cells[..., 1] >= 0) & (cells[..., 1] < WIDTH)


def _wall(cells: np.ndarray) -> np.ndarray:
    rows, cols = cells[..., 0], cells[..., 1]
    return np.isin(rows, (0, HEIGHT - 1)) | np.isin(cols, (0, DOOR_COL, WIDTH - 1))


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.all(a == b, axis=-1)


def illegal(states: np.ndarray) -> np.ndarray:
    """(N, 9) bool, one column per name in ``ILLEGAL_KINDS``."""
    raw = np.asarray(states, dtype=np.float64).reshape(-1, np.shape(states)[-1])
    non_finite = ~np.isfinite(raw).all(axis=-1)
    clean = np.nan_to_num(raw, nan=0.0, posinf=1e6, neginf=-1e6)
    ints = np.rint(clean)
    non_integer = (np.abs(clean - ints) > INTEGER_TOLERANCE).any(axis=-1)

    carried_type = ints[:, CARRIED_TYPE]
    carried = {name: carried_type == TYPE_IDS[name] for name in OBJECTS}
    cells = {name: ints[:, OBJ_COLS[name] + 1 : OBJ_COLS[name] + 3] for name in OBJECTS}
    door = ints[:, DOOR_ROW : DOOR_ROW + 2]
    agent = ints[:, AGENT_ROW : AGENT_ROW + 2]

    floor_in_grid = [~carried[n] & _in_grid(cells[n]) for n in OBJECTS]
    out_of_grid = ~_in_grid(door) | ~_in_grid(agent) | np.any([~carried[n] & ~_in_grid(cells[n])
                                                                for n in OBJECTS], axis=0)
    colours = ints[:, [OBJ_COLS[n] for n in OBJECTS] + [DOOR_COLOUR]]
    known_type = np.isin(carried_type, (NOTHING, *TYPE_IDS.values()))
    carried_colour = ints[:, CARRIED_COLOUR]
    out_of_range = (
        ((colours < 0) | (colours >= N_COLOURS)).any(axis=-1)
        | (ints[:, DOOR_STATE] < 0) | (ints[:, DOOR_STATE] >= len(DOOR_STATES))
        | ~known_type
        | ((carried_type == NOTHING) & (carried_colour != 0))
        | (carried_colour < 0) | (carried_colour >= N_COLOURS)
    )

    overlap = np.zeros(len(raw), bool)
    object_in_wall = np.zeros(len(raw), bool)
    for i, name in enumerate(OBJECTS):
        in_doorway = floor_in_grid[i] & _same(cells[name], door)
        overlap |= in_doorway
        object_in_wall |= floor_in_grid[i] & _wall(cells[name]) & ~in_doorway
        for j in range(i + 1, len(OBJECTS)):
            other = OBJECTS[j]
            overlap |= floor_in_grid[i] & floor_in_grid[j] & _same(cells[name], cells[other])

    door_closed = ints[:, DOOR_STATE] != OPEN
    in_doorway = _same(agent, door)
    agent_in_wall = _in_grid(agent) & ((_wall(agent) & ~in_doorway) | (in_doorway & door_closed))
    door_off_wall = _in_grid(door) & ((door[:, 1] != DOOR_COL) | (door[:, 0] < 1) | (door[:, 0] > HEIGHT - 2))

    carry_mismatch = np.zeros(len(raw), bool)
    for name in OBJECTS:
        wrong_cell = ~_same(cells[name], np.zeros(2))
        wrong_colour = carried_colour != ints[:, OBJ_COLS[name]]
        carry_mismatch |= carried[name] & (wrong_cell | wrong_colour)

    kinds = [out_of_grid, non_integer, out_of_range, overlap, agent_in_wall, object_in_wall,
             door_off_wall, carry_mismatch]
    return np.stack([kind & ~non_finite for kind in kinds] + [non_finite], axis=-1)


def transition_distance(predicted: np.ndarray, stored: np.ndarray) -> np.ndarray:
    """(N,) number of entries that round to different integers; inf where either state is non-finite."""
    predicted = np.asarray(predicted, np.float64)
    stored = np.asarray(stored, np.float64)
    finite = np.isfinite(predicted).all(axis=-1) & np.isfinite(stored).all(axis=-1)
    with np.errstate(invalid="ignore"):
        differing = (np.rint(predicted) != np.rint(stored)).sum(axis=-1).astype(np.float64)
    return np.where(finite, differing, np.inf)
