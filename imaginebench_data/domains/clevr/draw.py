"""Draw one CLEVR episode: each ball's path across the table, start hollow, end filled."""

from __future__ import annotations

import numpy as np

from .sim import BALL_RADIUS, N_BALLS, TABLE_HALF

COLOURS = ("tab:red", "tab:blue", "tab:green", "tab:purple", "tab:cyan")


def draw_states(ax, states: np.ndarray) -> None:
    """``states`` (T+1, 10): ball b at columns (2b, 2b+1)."""
    balls = np.asarray(states, float).reshape(len(states), N_BALLS, 2)
    for b, colour in enumerate(COLOURS):
        path = balls[:, b]
        ax.plot(path[:, 0], path[:, 1], "-", color=colour, lw=1)
        ax.add_patch(_circle(path[0], colour, fill=False))
        ax.add_patch(_circle(path[-1], colour, fill=True))
    ax.set_xlim(-TABLE_HALF, TABLE_HALF)
    ax.set_ylim(-TABLE_HALF, TABLE_HALF)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])


def _circle(xy, colour: str, fill: bool):
    from matplotlib.patches import Circle

    return Circle(tuple(xy), BALL_RADIUS, color=colour, fill=fill, alpha=0.5 if fill else 1.0, lw=1)
