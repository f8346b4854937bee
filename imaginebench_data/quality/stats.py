"""The card's quality statistics, computed from a quality frame (one row per episode)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..core.task import UNRESOLVED
from .frame import RAW


def _moments(values: pd.Series) -> dict[str, float]:
    values = values.astype(float)
    return {"mean": float(values.mean()), "std": float(values.std(ddof=0)),
            "min": float(values.min()), "max": float(values.max())}


def quality_summary(frame: pd.DataFrame, illegal_kinds: tuple[str, ...]) -> dict[str, Any]:
    """Counts, length/return statistics and the three quality rates (fractions in [0, 1]).

    - goal_consistency: share of episodes whose final transition satisfies the predicate, over
      episodes with a resolved task (None when there is none: an ``unresolved`` task has no
      predicate);
    - transition_error_rate: share of transitions that re-simulate beyond the tolerance;
    - illegal_state_rate: share of states breaking a constraint; illegal_by_kind per kind.
    """
    states = int(frame["states"].sum())
    steps = int(frame["length"].sum())
    resolved = frame["success"][frame["task_id"] != UNRESOLVED]
    return {
        "episodes": int(len(frame)),
        "steps": steps,
        "goal_consistency": float(resolved.mean()) if len(resolved) else None,
        "transition_error_rate": float(frame["transition_errors"].sum() / max(steps, 1)),
        "illegal_state_rate": float(frame["illegal_states"].sum() / max(states, 1)),
        "illegal_by_kind": {k: float(frame[f"illegal_{k}"].sum() / max(states, 1)) for k in illegal_kinds},
        "length": _moments(frame["length"]),
        "return": _moments(frame["return"]),
    }


RATES = ("goal_consistency", "transition_error_rate", "illegal_state_rate", "illegal_by_kind")


def raw_summary(frame: pd.DataFrame, illegal_kinds: tuple[str, ...]) -> dict[str, Any] | None:
    """The quality rates of generated episodes' raw predictions (the frame's ``raw_`` columns,
    see ``frame.episode_row``); None when the frame has none."""
    columns = [c for c in frame.columns if c.startswith(RAW)]
    if not columns:
        return None
    renamed = frame[columns].rename(columns=lambda column: column[len(RAW):])
    summary = quality_summary(frame[["task_id", "length", "return"]].join(renamed), illegal_kinds)
    return {key: summary[key] for key in RATES}


def per_task_summary(frame: pd.DataFrame, illegal_kinds: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """``quality_summary`` of each task's episodes, keyed by task id, in first-seen order."""
    order = list(dict.fromkeys(frame["task_id"]))
    return {task: quality_summary(frame[frame["task_id"] == task], illegal_kinds) for task in order}


def resolution_counts(frame: pd.DataFrame) -> dict[str, int]:
    """Episodes per way their task was resolved (imported datasets; empty for built ones)."""
    if "resolved_by" not in frame or frame["resolved_by"].isna().all():
        return {}
    return {str(k): int(v) for k, v in frame["resolved_by"].fillna("recipe").value_counts(sort=False).items()}


def plain_json(value: Any) -> Any:
    """Numpy scalars/arrays and tuples to plain JSON types (Minari corrupts metadata otherwise)."""
    if isinstance(value, dict):
        return {str(k): plain_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_json(v) for v in value]
    if isinstance(value, np.ndarray):
        return plain_json(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()  # then checked as a Python number: a numpy NaN becomes None too
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value
