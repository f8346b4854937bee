"""A D4RL-style dict of one dataset, the instruction embedding concatenated to the state.

The original benchmark feeds its policies ``[state, instruction encoding]``; this gives the
same layout for any library that reads D4RL dicts::

    observations       (N, D + E) float32   [s_t, e(instruction)]
    next_observations  (N, D + E) float32   [s_{t+1}, e(instruction)]
    actions            (N,) int64 or (N, A) float32
    rewards            (N,) float32
    terminals          (N,) bool            goal reached at s_{t+1}
    timeouts           (N,) bool            time limit at s_{t+1}, or the stretch ends there

Rows follow ``ib.load``'s alignment (episodes contiguous, steps in order), and every episode's
last row has ``terminals`` or ``timeouts`` set (never both). With ``filters``, the rows kept of
an episode are cut into stretches where a row was dropped; each stretch ends with ``timeouts``
set on its last row (unless that row is terminal), so a library that splits episodes on
``terminals | timeouts`` sees the stretches apart, and ``next_observations[i]`` is still the
state that followed row i (found 2026-12-06: a filtered dataset's episodes ran together).
"""

from __future__ import annotations

import numpy as np

from ..datasets.ids import DatasetId
from ..loader.encoders import DEFAULT_ENCODER, encode_each, get_encoder
from ..loader.filters import kept_rows
from ..loader.transitions import Transitions, load


def as_transitions(dataset: str | DatasetId | Transitions) -> Transitions:
    """``dataset`` as ``Transitions``: an id is loaded (``ib.load``), ``Transitions`` kept."""
    if isinstance(dataset, Transitions):
        return dataset
    if isinstance(dataset, (str, DatasetId)):
        return load(dataset)
    raise TypeError(f"expected a dataset id (e.g. 'imaginebench/clevr-train-real-v0') or ib.load(...)'s "
                    f"Transitions, got {type(dataset).__name__} {dataset!r:.80}")


def stretch_ends(transitions: Transitions, rows: np.ndarray) -> np.ndarray:
    """``(len(rows),)`` bool: kept row ``rows[j]`` is not followed, among ``rows``, by its own next
    step (the last kept row of its episode, or the last before a dropped one)."""
    ends = np.ones(len(rows), dtype=bool)
    if len(rows) > 1:
        following = rows[1:] == rows[:-1] + 1
        same = transitions.episode_ids[rows[1:]] == transitions.episode_ids[rows[:-1]]
        ends[:-1] = ~(following & same)
    return ends


def to_d4rl(dataset: str | DatasetId | Transitions, encoder=DEFAULT_ENCODER,
            filters=()) -> dict[str, np.ndarray]:
    """The D4RL dict of ``dataset`` (a dataset id or ``Transitions``); ``encoder`` None keeps
    the bare states; ``filters`` (flags or presets, see ``loader/filters.py``) drop flagged rows,
    and a ``ValueError`` says so when they would drop every row."""
    transitions = as_transitions(dataset)
    return d4rl_rows(transitions, kept_rows(transitions, filters), encoder)


def d4rl_rows(transitions: Transitions, rows: np.ndarray, encoder=DEFAULT_ENCODER) -> dict[str, np.ndarray]:
    """``to_d4rl``'s dict of the kept ``rows`` (``loader.filters.kept_rows``) of ``transitions``."""
    observations, next_observations = transitions.observations[rows], transitions.next_observations[rows]
    encoder = get_encoder(encoder)
    if encoder is not None:
        table = encode_each(encoder, list(transitions.instructions))
        embeddings = table[transitions.instruction_ids[rows]]
        observations = np.concatenate([observations, embeddings], 1)
        next_observations = np.concatenate([next_observations, embeddings], 1)
    terminals = transitions.terminals[rows]
    return {
        "observations": observations.astype(np.float32, copy=False),
        "next_observations": next_observations.astype(np.float32, copy=False),
        "actions": transitions.actions[rows],
        "rewards": transitions.rewards[rows],
        "terminals": terminals,
        "timeouts": transitions.timeouts[rows] | (stretch_ends(transitions, rows) & ~terminals),
    }
