"""Quality filters: which transitions of a dataset a consumer keeps, by their stored flags.

A filter names a per-row flag of ``Transitions`` (see ``loader/transitions.py``):

- ``legal``: both states of the transition break no domain constraint;
- ``transition_ok``: the simulator, put in s and given a, lands within tolerance of s';
- ``goal_consistent``: the episode's final transition satisfies its instruction;
- ``success``: this transition satisfies it.

A preset names several: ``"clean"`` (legal and goal consistent: what an imagined rollout
should be to teach its instruction) and ``"faithful"`` (legal and within tolerance: physics
the simulator agrees with). No filter (the default everywhere) keeps every transition, the
illegal and inconsistent imagined ones included: the cards say how many those are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

FILTERS = ("legal", "transition_ok", "goal_consistent", "success")
PRESETS = {"clean": ("legal", "goal_consistent"), "faithful": ("legal", "transition_ok")}


def resolve_filters(filters: str | Sequence[str]) -> tuple[str, ...]:
    """The flag names that ``filters`` (a flag, a preset, or a sequence of them) stands for."""
    sequence = isinstance(filters, Iterable) and not isinstance(filters, Mapping)  # a dict's keys: no
    names = (filters,) if isinstance(filters, str) else tuple(filters) if sequence else None
    if names is None or not all(isinstance(name, str) for name in names):
        raise TypeError(f"filters: expected a flag or preset name, or a sequence of them (e.g. () or "
                        f"'clean'), got {filters!r}")
    flags: list[str] = []
    for name in names:
        if name not in FILTERS and name not in PRESETS:
            presets = ", ".join(f"{key} ({' and '.join(members)})" for key, members in PRESETS.items())
            raise ValueError(f"unknown filter {name!r}: expected flags {', '.join(FILTERS)} or presets "
                             f"{presets}")
        flags += PRESETS.get(name, (name,))
    return tuple(dict.fromkeys(flags))


def kept_rows(transitions, filters: str | Sequence[str], name: str | None = None,
              allow_empty: bool = False) -> np.ndarray:
    """``(n,)`` int64: the rows of ``transitions`` whose every flag of ``filters`` is True, in order.

    Filters that leave a non-empty dataset with nothing raise a ``ValueError`` naming the flag
    that did it and how many rows were left before it (unless ``allow_empty``)."""
    keep = np.ones(len(transitions), dtype=bool)
    for flag in resolve_filters(filters):
        before = int(keep.sum())
        keep &= np.asarray(getattr(transitions, flag), dtype=bool)
        if before and not keep.any() and not allow_empty:
            name = name or getattr(transitions, "dataset_id", "the dataset")
            raise ValueError(f"filter {flag!r} leaves dataset {name!r} with no transitions ({before} before "
                             f"it; filters {list(resolve_filters(filters))})")
    return np.flatnonzero(keep)
