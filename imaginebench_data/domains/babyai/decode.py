"""The generator's correction of a predicted BabyAI state: onto the grid's state space.

A regressed state is a vector of 17 reals; a BabyAI state is a vector of indices and cells
with fixed ranges and a few constraints (``checks.illegal``). The decoding maps each
prediction to the nearest state in that space, one entry group at a time:

- every number rounded to the nearest integer;
- colours clipped into 0..5, the door state into open / closed / locked, the door's cell
  onto the dividing wall;
- the carried type snapped to the nearest of nothing, key, ball, box; a carried object
  reported at (0, 0) with the carried colour its own, nothing carried with colour 0;
- the agent, if on a wall or in a closed doorway, moved to the nearest cell it can stand
  on; each floor object, if off the grid, on a wall, in the doorway or on a cell an earlier
  object (ball, box, key order) holds, moved to the nearest free room cell (ties: the first
  in row-major order).

Moves are not judged: the decoding looks at the predicted state alone, so a step the
simulator would not take (two cells at once, across a wall, a door opened without its key)
stays a transition error. An agent predicted inside a wall is moved to the nearest cell it
may stand on, often the one it came from, as the simulator's wall would have kept it. Rows
with a non-finite number are left as they are, for the checkers to flag.
"""

from __future__ import annotations

import numpy as np

from .sim import (
    AGENT_ROW,
    CARRIED_CELL,
    CARRIED_COLOUR,
    CARRIED_TYPE,
    DOOR_COL,
    DOOR_COLOUR,
    DOOR_ROW,
    DOOR_STATE,
    DOOR_STATES,
    LEFT_ROOM,
    N_COLOURS,
    NOTHING,
    OBJ_COLS,
    OBJECTS,
    OPEN,
    RIGHT_COLS,
    STATE_DIM,
    TYPE_IDS,
)

ROOM_CELLS = np.array([(r, c) for r in LEFT_ROOM for c in (*LEFT_ROOM, *RIGHT_COLS)])  # row-major
CARRIED_TYPES = np.array([NOTHING, *sorted(TYPE_IDS.values())])
FREE = np.ones(len(ROOM_CELLS), bool)
COLOUR_ENTRIES = [OBJ_COLS[name] for name in OBJECTS] + [DOOR_COLOUR]


def _nearest(cell: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """The candidate cell nearest ``cell`` (Euclidean; ties: the first)."""
    return candidates[np.argmin(((candidates - cell) ** 2).sum(axis=1))]


def _decode_row(s: np.ndarray) -> np.ndarray:
    s[COLOUR_ENTRIES] = np.clip(s[COLOUR_ENTRIES], 0, N_COLOURS - 1)
    s[DOOR_STATE] = np.clip(s[DOOR_STATE], 0, len(DOOR_STATES) - 1)
    s[DOOR_ROW] = np.clip(s[DOOR_ROW], LEFT_ROOM[0], LEFT_ROOM[-1])
    s[DOOR_ROW + 1] = DOOR_COL
    door = s[DOOR_ROW : DOOR_ROW + 2]
    s[CARRIED_TYPE] = CARRIED_TYPES[np.argmin(np.abs(CARRIED_TYPES - s[CARRIED_TYPE]))]
    s[CARRIED_COLOUR] = 0
    taken: list[np.ndarray] = []
    for name in OBJECTS:
        cell = slice(OBJ_COLS[name] + 1, OBJ_COLS[name] + 3)
        if s[CARRIED_TYPE] == TYPE_IDS[name]:
            s[cell] = CARRIED_CELL
            s[CARRIED_COLOUR] = s[OBJ_COLS[name]]
            continue
        free = ~np.any([np.all(ROOM_CELLS == t, axis=1) for t in taken], axis=0) if taken else FREE
        if not (np.all(ROOM_CELLS == s[cell], axis=1) & free).any():
            s[cell] = _nearest(s[cell], ROOM_CELLS[free])
        taken.append(s[cell].copy())
    agent = s[AGENT_ROW : AGENT_ROW + 2]
    standable = ROOM_CELLS if s[DOOR_STATE] != OPEN else np.vstack([ROOM_CELLS, door])
    if not np.all(standable == agent, axis=1).any():
        s[AGENT_ROW : AGENT_ROW + 2] = _nearest(agent, standable)
    return s


def decode(prev: np.ndarray, states: np.ndarray) -> np.ndarray:
    """``(N, 17)`` predicted states as BabyAI states (``prev``, the states each step started
    from, is not needed: the decoding looks at the predicted state alone)."""
    states = np.asarray(states, np.float64).reshape(-1, STATE_DIM)
    decoded = np.rint(states)
    for i in np.flatnonzero(np.isfinite(states).all(axis=1)):
        decoded[i] = _decode_row(decoded[i])
    return decoded.astype(np.float32)
