"""A TorchRL replay buffer of one dataset, in TorchRL's transition layout.

TorchRL's own ``MinariExperienceReplay`` returns all-zero data for local datasets
(measured with Minari 0.5.4) and cannot read a Dict observation with a Text field; this
builds the buffer from our aligned transitions instead::

    observation            (N, D + E)  [s_t, e(instruction)]     float32
    action                 (N,) int64 or (N, A) float32
    episode, step          (N,) int64
    next/observation       (N, D + E)  [s_{t+1}, e(instruction)]
    next/reward            (N, 1) float32
    next/terminated, next/truncated, next/done   (N, 1) bool
"""

from __future__ import annotations

import numpy as np
import torch

from ..datasets.ids import DatasetId
from ..loader.encoders import DEFAULT_ENCODER
from ..loader.filters import kept_rows
from ..loader.transitions import Transitions
from .d4rl import as_transitions, d4rl_rows


def to_tensordict(dataset: str | DatasetId | Transitions, encoder=DEFAULT_ENCODER, filters=()):
    """All transitions of ``dataset`` as one ``TensorDict`` of batch size (N,); with ``filters``,
    ``next/truncated`` ends every stretch of kept rows as ``to_d4rl``'s ``timeouts`` does."""
    from tensordict import TensorDict

    transitions = as_transitions(dataset)
    rows = kept_rows(transitions, filters)
    data = d4rl_rows(transitions, rows, encoder)
    n = len(data["rewards"])

    def column(array) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(array))

    done = data["terminals"] | data["timeouts"]
    return TensorDict({
        "observation": column(data["observations"]),
        "action": column(data["actions"]),
        "episode": column(transitions.episode_ids[rows]),
        "step": column(transitions.steps[rows]),
        "next": TensorDict({
            "observation": column(data["next_observations"]),
            "reward": column(data["rewards"][:, None]),
            "terminated": column(data["terminals"][:, None]),
            "truncated": column(data["timeouts"][:, None]),
            "done": column(done[:, None]),
        }, batch_size=[n]),
    }, batch_size=[n])


def to_torchrl(dataset: str | DatasetId | Transitions, batch_size: int = 256, encoder=DEFAULT_ENCODER,
               filters=(), seed: int | None = None):
    """A ``TensorDictReplayBuffer`` over every transition of ``dataset`` (uniform sampling).

    ``seed`` seeds the buffer's own sampler (a ``torch.Generator``), so buffers built with the
    same seed give the same batches, and torch's global random state is left alone."""
    from torchrl.data import LazyTensorStorage, TensorDictReplayBuffer

    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    data = to_tensordict(dataset, encoder=encoder, filters=filters)
    if len(data) == 0:
        raise ValueError(f"{as_transitions(dataset).dataset_id!r} has no transitions to sample")
    generator = None if seed is None else torch.Generator().manual_seed(int(seed))
    buffer = TensorDictReplayBuffer(storage=LazyTensorStorage(len(data)), batch_size=int(batch_size),
                                    generator=generator)
    buffer.extend(data)
    return buffer
