"""The dataset card: counts, statistics, quality and provenance, typed, stored as plain JSON.

JSON keys: schema_version, id, domain, level, source, scale, episodes, steps, tasks,
phrasings, goal_consistency, transition_error_rate, illegal_state_rate, illegal_by_kind,
length, return, per_task, provenance, checksum, notes, unresolved, resolution. Rates are
fractions in [0, 1]. ``schema_version`` goes up whenever a key is added, removed or changes
meaning; older cards are still read (their missing keys take the defaults) and keep the
version they were written with (it says which checksum they state).

``unresolved`` counts episodes whose task id is ``unresolved`` (an import whose task no rung
resolved); ``goal_consistency`` is over the other episodes (None when there are none).
``resolution`` counts episodes by how their task was resolved (imported datasets, see
``imports.resolve``; empty for built datasets, whose tasks are their recipe's).
"""

from __future__ import annotations

import importlib.metadata
import json
import math
import platform
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import pandas as pd

from ..core.domain import Domain
from ..core.task import UNRESOLVED
from ..datasets.ids import DatasetId
from ..quality.stats import per_task_summary, plain_json, quality_summary, raw_summary, resolution_counts

# 0: no schema_version; 1: the first typed card; 2: adds unresolved and resolution, and
# goal_consistency is over resolved episodes (None when there are none); 3: the checksum also
# covers the infos flags, the episodes' metadata and their count (see datasets/checksum.py)
SCHEMA_VERSION = 3
ADDED_KEYS = {"notes", "unresolved", "resolution"}  # keys an older card may lack
VERSIONED_PACKAGES = ("imaginebench-data", "minari", "gymnasium", "mujoco", "numpy", "h5py")


class CardError(ValueError):
    """A card that cannot be read: says what was expected and what was found."""


@dataclass
class Card:
    """What a dataset is and how good it is (see the module docstring for the JSON keys).

    ``length`` and ``returns`` (JSON key ``return``) hold mean, std, min and max over episodes;
    ``per_task`` maps task id -> the same statistics over that task's episodes.
    """

    id: str
    domain: str
    level: str
    source: str
    scale: str
    episodes: int
    steps: int
    tasks: int
    phrasings: int
    goal_consistency: float | None
    transition_error_rate: float
    illegal_state_rate: float
    illegal_by_kind: dict[str, float]
    length: dict[str, float]
    returns: dict[str, float]
    per_task: dict[str, dict[str, Any]]
    provenance: dict[str, Any]
    checksum: str
    notes: dict[str, Any] = field(default_factory=dict)
    unresolved: int = 0
    resolution: dict[str, int] = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION

    @property
    def dataset_id(self) -> DatasetId:
        return DatasetId.parse(self.id)

    def to_json(self) -> dict[str, Any]:
        """The card as plain JSON types, keys in the documented order."""
        data = asdict(self)
        data["return"] = data.pop("returns")
        order = ["schema_version"] + [f.name if f.name != "returns" else "return" for f in fields(self)
                                      if f.name != "schema_version"]
        return plain_json({key: data[key] for key in order})

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2) + "\n"

    @classmethod
    def from_json(cls, data: dict[str, Any] | str, where: str = "card") -> Card:
        """A card from its JSON (a dict, or the text of one); ``where`` names it in errors."""
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as error:
                raise CardError(f"{where}: expected a JSON object, found unparsable text ({error})") from None
        if not isinstance(data, dict):
            raise CardError(f"{where}: expected a JSON object, found {type(data).__name__}")
        data = dict(data)
        version = data.pop("schema_version", 0)
        if not isinstance(version, int) or not 0 <= version <= SCHEMA_VERSION:
            raise CardError(f"{where}: expected card schema version 0..{SCHEMA_VERSION}, found {version!r} "
                            "(written by a newer imaginebench-data?)")
        if "return" in data:
            data["returns"] = data.pop("return")
        names = {f.name for f in fields(cls)} - {"schema_version"}
        missing = sorted(names - set(data) - ADDED_KEYS)
        if missing:
            raise CardError(f"{where}: expected keys {missing}, found only {sorted(data)}")
        for key, value in data.items():
            kind = _KINDS.get(key)
            if kind is not None and not kind(value):
                raise CardError(f"{where}: expected {key!r} to be {_KIND_NAMES[kind]}, found {value!r}"[:300])
        return cls(**{key: value for key, value in data.items() if key in names}, schema_version=version)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _rate(value: Any) -> bool:
    return _number(value) and 0.0 <= value <= 1.0


def _rate_or_none(value: Any) -> bool:
    return value is None or _rate(value)


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _rates(value: Any) -> bool:
    return isinstance(value, dict) and all(_rate(v) for v in value.values())


def _statistics(value: Any) -> bool:  # mean, std, min and max over episodes (null: not finite)
    return isinstance(value, dict) and all(v is None or _number(v) for v in value.values())


def _object(value: Any) -> bool:
    return isinstance(value, dict)


def _per_task(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, dict) for v in value.values())


def _counts(value: Any) -> bool:
    return isinstance(value, dict) and all(_count(v) for v in value.values())


# What each key of a card's JSON holds, checked as a card is read (a stored card is input).
_KINDS = {"id": _text, "domain": _text, "level": _text, "source": _text, "scale": _text, "checksum": _text,
          "episodes": _count, "steps": _count, "tasks": _count, "phrasings": _count, "unresolved": _count,
          "goal_consistency": _rate_or_none, "transition_error_rate": _rate, "illegal_state_rate": _rate,
          "illegal_by_kind": _rates, "length": _statistics, "returns": _statistics, "per_task": _per_task,
          "provenance": _object, "notes": _object, "resolution": _counts}
_KIND_NAMES = {_text: "a string", _count: "a count (an integer >= 0)", _rate: "a rate in [0, 1]",
               _rate_or_none: "a rate in [0, 1] or null", _rates: "an object of rates in [0, 1]",
               _statistics: "an object of numbers (or null)", _object: "an object", _per_task:
               "an object of one object per task", _counts: "an object of counts"}


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in VERSIONED_PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def build_card(dataset_id: DatasetId, domain: Domain, frame: pd.DataFrame, checksum: str, *,
               scale: str, provenance: dict[str, Any], notes: dict[str, Any] | None = None) -> Card:
    """The card of a dataset whose episodes are summarised by ``frame`` (see quality.frame);
    ``notes`` add to the domain's notes. Generated episodes whose states the domain's decoding
    corrected add ``provenance.decoding``: the correction, and the rates of the raw predictions."""
    summary = quality_summary(frame, domain.illegal_kinds)
    raw = raw_summary(frame, domain.illegal_kinds)
    decoding = {} if raw is None else {"decoding": {"correction": domain.decoding, "raw_model_output": raw}}
    unresolved = int((frame["task_id"] == UNRESOLVED).sum())
    consistency = {} if not unresolved else {"goal_consistency": (
        f"over the {len(frame) - unresolved} episodes with a resolved task; the {unresolved} with task "
        f"'{UNRESOLVED}' have no predicate and are left out")}
    return Card.from_json(plain_json({
        "schema_version": SCHEMA_VERSION,
        "id": str(dataset_id),
        "domain": dataset_id.domain,
        "level": dataset_id.level,
        "source": dataset_id.source,
        "scale": scale,
        "tasks": int(frame["task_id"].nunique()),
        "phrasings": int(frame[["task_id", "phrasing_id"]].drop_duplicates().shape[0]),
        **summary,
        "per_task": per_task_summary(frame, domain.illegal_kinds),
        "provenance": {**provenance, **decoding, "packages": package_versions()},
        "checksum": checksum,
        "notes": {**domain.notes, "transition_tolerance": domain.transition_tolerance,
                  "illegal_kinds": list(domain.illegal_kinds), **consistency, **(notes or {})},
        "unresolved": unresolved,
        "resolution": resolution_counts(frame),
    }))
