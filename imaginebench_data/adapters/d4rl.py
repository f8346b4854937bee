"""A D4RL-style dict of one dataset, the instruction embedding concatenated to the state.

The original benchmark feeds its policies ``[state, instruction encoding]``; this gives the
same layout for any library that reads D4RL dicts::

    observations       (N, D + E) float32   [s_t, e(instruction)]
    next_observations  (N, D + E) float32   [s_{t+1}, e(instruction)]
    actions            (N,) int64 or (N, A) float32
    rewards            (N,) float32
    terminals          (N,) bool            goal reached at s_{t+1}
    timeouts           (N,) bool            time limit at s_{t+1}

Rows follow ``ib.load``'s alignment (episodes contiguous, steps in order).
"""

from __future__ import annotations

import numpy as np

from ..loader.encoders import DEFAULT_ENCODER, encode_each, get_encoder
from ..loader.filters import keep_mask
from ..loader.transitions import Transitions, load


def to_d4rl(dataset: str | Transitions, encoder=DEFAULT_ENCODER, filters=()) -> dict[str, np.ndarray]:
    """The D4RL dict of ``dataset`` (a dataset id or ``Transitions``); ``encoder`` None keeps
    the bare states; ``filters`` (flags or presets, see ``loader/filters.py``) drop flagged rows."""
    transitions = load(dataset) if isinstance(dataset, str) else dataset
    keep = keep_mask(transitions, filters)
    observations, next_observations = transitions.observations[keep], transitions.next_observations[keep]
    encoder = get_encoder(encoder)
    if encoder is not None:
        table = encode_each(encoder, list(transitions.instructions))
        embeddings = table[transitions.instruction_ids[keep]]
        observations = np.concatenate([observations, embeddings], 1)
        next_observations = np.concatenate([next_observations, embeddings], 1)
    return {
        "observations": observations.astype(np.float32, copy=False),
        "next_observations": next_observations.astype(np.float32, copy=False),
        "actions": transitions.actions[keep],
        "rewards": transitions.rewards[keep],
        "terminals": transitions.terminals[keep],
        "timeouts": transitions.timeouts[keep],
    }
