"""Draw one BabyAI episode: the agent's path over the two rooms, and the objects' cells."""

from __future__ import annotations

import numpy as np

OBJECTS = {"ball": (1, 2, "o"), "box": (4, 5, "s"), "key": (7, 8, "^")}  # (row, col) columns, marker
ROWS, COLS = 8, 15


def draw_states(ax, states: np.ndarray) -> None:
    """``states`` (T+1, 17): agent (row, col) at 13-14, objects as in the domain's notes."""
    states = np.asarray(states, float)
    ax.axvline(7, color="grey", lw=3)  # the dividing wall
    for name, (row, col, marker) in OBJECTS.items():
        ax.plot(states[-1, col], states[-1, row], marker, color="black", ms=8, label=name)
    ax.plot(states[-1, 11], states[-1, 10], "D", color="brown", ms=8, label="door")
    ax.plot(states[:, 14], states[:, 13], "-", color="tab:orange", lw=1.5)
    ax.plot(states[0, 14], states[0, 13], "o", mfc="none", color="tab:orange", ms=9)
    ax.plot(states[-1, 14], states[-1, 13], "o", color="tab:orange", ms=7)
    ax.set_xlim(-0.5, COLS - 0.5)
    ax.set_ylim(ROWS - 0.5, -0.5)  # row 0 at the top, as minigrid draws it
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
