"""The card's picture of one episode, ``<name>-episode.png``: the dataset's first stored
episode as a strip of a few states (``EPISODE_FRAMES``), drawn by the domain's renderer.

Cheap by design (a few frames: tens of milliseconds each, plus building the drawing simulator
once per process). Skipped, with a warning, where nothing can be drawn: a domain without
renderer, no OpenGL backend for MuJoCo, the dataset not in the local Minari folder, or a
first episode whose scene is unknown (an import's unresolved Meta-World task).
"""

from __future__ import annotations

import warnings
from pathlib import Path

from .card import Card

EPISODE_FRAMES = 5


def draw_card_episode(card: Card, path: Path) -> bool:
    """Write the first episode of ``card``'s local dataset to ``path``; False when skipped."""
    from ..core.render import RenderError
    from ..datasets.read import DatasetNotFoundError
    from ..domains import get_domain
    from ..drawing import draw_episode

    if get_domain(card.domain).render is None or card.episodes == 0:
        return False
    try:
        draw_episode(card.id, 0, path, most=EPISODE_FRAMES)
    except (RenderError, DatasetNotFoundError) as error:
        warnings.warn(f"no episode picture for the card of {card.id}: {error}", stacklevel=2)
        return False
    return True
