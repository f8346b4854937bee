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

from ..loader.encoders import DEFAULT_ENCODER
from ..loader.filters import keep_mask
from ..loader.transitions import Transitions, load
from .d4rl import to_d4rl


def to_tensordict(dataset: str | Transitions, encoder=DEFAULT_ENCODER, filters=()):
    """All transitions of ``dataset`` as one ``TensorDict`` of batch size (N,)."""
    from tensordict import TensorDict

    transitions = load(dataset) if isinstance(dataset, str) else dataset
    data = to_d4rl(transitions, encoder=encoder, filters=filters)
    keep = keep_mask(transitions, filters)
    n = len(data["rewards"])

    def column(array) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(array))

    done = data["terminals"] | data["timeouts"]
    return TensorDict({
        "observation": column(data["observations"]),
        "action": column(data["actions"]),
        "episode": column(transitions.episode_ids[keep]),
        "step": column(transitions.steps[keep]),
        "next": TensorDict({
            "observation": column(data["next_observations"]),
            "reward": column(data["rewards"][:, None]),
            "terminated": column(data["terminals"][:, None]),
            "truncated": column(data["timeouts"][:, None]),
            "done": column(done[:, None]),
        }, batch_size=[n]),
    }, batch_size=[n])


def to_torchrl(dataset: str | Transitions, batch_size: int = 256, encoder=DEFAULT_ENCODER, filters=(),
               seed: int | None = None):
    """A ``TensorDictReplayBuffer`` over every transition of ``dataset`` (uniform sampling)."""
    from torchrl.data import LazyTensorStorage, TensorDictReplayBuffer

    data = to_tensordict(dataset, encoder=encoder, filters=filters)
    buffer = TensorDictReplayBuffer(storage=LazyTensorStorage(len(data)), batch_size=batch_size)
    buffer.extend(data)
    if seed is not None:
        torch.manual_seed(seed)
    return buffer
