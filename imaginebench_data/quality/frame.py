"""Quality by episode, as a pandas DataFrame: the one source of every quality statistic.

``quality_frame(id)`` reads a stored dataset; ``episode_row`` is what the builder uses on
episodes before they are written, so the card and the frame can never disagree.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..core.domain import Domain


def episode_row(domain: Domain, metadata: dict[str, Any], rewards: np.ndarray,
                infos: dict[str, np.ndarray],
                raw_infos: dict[str, np.ndarray] | None = None) -> dict[str, Any]:
    """One row: task, level, length, return, success and the quality counts of one episode.

    ``success`` is goal consistency: the episode's final transition satisfies its
    instruction's predicate (never for an ``unresolved`` task: it has none). Counts are over
    the T+1 states and T transitions. ``resolved_by`` is how an imported episode's task was
    resolved (``imports.resolve``), None for built episodes. With ``raw_infos`` (a generated
    episode's raw predictions, see ``core.episode``) the quality columns come again, prefixed
    ``raw_``.
    """
    counts, kinds = _quality_columns(domain, infos)
    row = {
        "task_id": metadata["task_id"],
        "level": metadata["level"],
        "phrasing_id": int(metadata["phrasing_id"]),
        "source": metadata["source"],
        "length": int(len(rewards)),
        "return": float(np.sum(rewards, dtype=np.float64)),
        **counts,
        "max_transition_error": float(np.nanmax(infos["transition_error"])),  # NaN: not checked
        "resolved_by": metadata.get("resolved_by"),
        **kinds,
    }
    if raw_infos is not None:
        counts, kinds = _quality_columns(domain, raw_infos)
        row.update({f"{RAW}{key}": value for key, value in {**counts, **kinds}.items()})
    return row


RAW = "raw_"  # prefix of the raw predictions' columns


def _quality_columns(domain: Domain, infos: dict[str, np.ndarray]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The quality counts of one episode's infos, and its illegal states by kind."""
    masks = np.asarray(infos["illegal_mask"], np.int64)
    counts = {
        "success": bool(infos["success"][-1]),
        "states": int(len(masks)),
        "illegal_states": int((masks != 0).sum()),
        "transition_errors": int((~np.asarray(infos["transition_ok"], bool)[1:]).sum()),
    }
    kinds = {f"illegal_{kind}": int(((masks >> bit) & 1).sum())
             for bit, kind in enumerate(domain.illegal_kinds)}
    return counts, kinds


def quality_frame(dataset_id: str) -> pd.DataFrame:
    """One row per episode of a stored dataset (see ``episode_row`` for the columns)."""
    from ..datasets.read import open_dataset, stored_episodes
    from ..domains import get_domain

    dataset, card = open_dataset(dataset_id)
    domain = get_domain(card.domain)
    episodes = stored_episodes(dataset, domain)
    return pd.DataFrame([{"episode_id": int(index), "seed": episode.seed,
                          **episode_row(domain, episode.metadata, episode.rewards, episode.infos)}
                         for index, episode in zip(dataset.episode_indices, episodes)])
