"""The dataset card: counts, statistics, quality and provenance, as plain JSON.

Top-level keys: id, domain, level, source, scale, episodes, steps, tasks, phrasings,
length, return, goal_consistency, transition_error_rate, illegal_state_rate,
illegal_by_kind, per_task, provenance, checksum, notes. Rates are fractions in [0, 1].
"""

from __future__ import annotations

import importlib.metadata
import platform
from typing import Any

import pandas as pd

from ..core.domain import Domain
from ..datasets.ids import parse_id
from ..quality.stats import per_task_summary, plain_json, quality_summary

VERSIONED_PACKAGES = ("imaginebench-data", "minari", "gymnasium", "mujoco", "numpy", "h5py")


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in VERSIONED_PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def build_card(dataset_id: str, domain: Domain, frame: pd.DataFrame, checksum: str, *,
               scale: str, provenance: dict[str, Any], notes: dict[str, Any] | None = None) -> dict[str, Any]:
    """The card of a dataset whose episodes are summarised by ``frame`` (see quality.frame);
    ``notes`` add to the domain's notes."""
    parsed = parse_id(dataset_id)
    summary = quality_summary(frame, domain.illegal_kinds)
    card = {
        "id": dataset_id,
        "domain": parsed.domain,
        "level": parsed.level,
        "source": parsed.source,
        "scale": scale,
        "episodes": summary.pop("episodes"),
        "steps": summary.pop("steps"),
        "tasks": int(frame["task_id"].nunique()),
        "phrasings": int(frame[["task_id", "phrasing_id"]].drop_duplicates().shape[0]),
        **summary,
        "per_task": per_task_summary(frame, domain.illegal_kinds),
        "provenance": {**provenance, "packages": package_versions()},
        "checksum": checksum,
        "notes": {**domain.notes, "transition_tolerance": domain.transition_tolerance,
                  "illegal_kinds": list(domain.illegal_kinds), **(notes or {})},
    }
    return plain_json(card)
