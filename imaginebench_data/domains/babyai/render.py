"""Draw the BabyAI grid with minigrid's own renderer (``Grid.render``), as minigrid envs do."""

from __future__ import annotations

import numpy as np
from minigrid.core.grid import Grid

from .sim import BabyAISimulator

TILE = 32  # pixels per cell: images are (8 * 32, 15 * 32, 3) = (256, 480, 3)
FACING = 0  # actions are allocentric, so the agent has no heading: minigrid's triangle points right


def render(sim: BabyAISimulator) -> np.ndarray:
    """``(256, 480, 3)`` uint8: walls, door, ball, box and key at ``sim``'s state, the agent
    as minigrid's red triangle; a carried object is drawn small in the corner of the agent's
    cell."""
    sim.place(sim.state)  # the grid follows the 17 numbers (set_state keeps only them)
    row, col = sim.agent
    image = sim.grid.render(TILE, agent_pos=(col, row), agent_dir=FACING)
    if sim.carrying is not None:
        small = Grid.render_tile(sim.carrying, tile_size=TILE // 2)
        image[row * TILE:row * TILE + TILE // 2, col * TILE:col * TILE + TILE // 2] = small
    return image
