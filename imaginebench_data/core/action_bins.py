"""Continuous actions as classes: each number of a Box action one of ``count`` evenly spaced
values from its low to its high, predicted with ``count`` logits per number.

A regression (MSE) learns the mean of the actions seen in a state. Where the expert's actions
vary from run to run, as a sampling planner's (HalfCheetah's CEM) do, that mean need not do the
task; a distribution over a few values per number keeps the modes. Used by BC (``--bins``) and
by the grounded model's action head (``imaginebench ground --action-bins``).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn


class ActionBins(nn.Module):
    """``loss(out, actions)`` and ``act(out, draws)`` for ``out`` of shape (N, A * count).

    The values are buffers that are not saved (they follow from ``low``, ``high`` and
    ``count``), so a network holding an ``ActionBins`` has the state dict it had without it.
    """

    def __init__(self, low, high, count: int):
        super().__init__()
        if count < 2:
            raise ValueError(f"action bins: expected at least 2 values per action number, got {count}")
        self.count = int(count)
        low_t = torch.as_tensor(np.asarray(low, np.float32))
        width = torch.as_tensor(np.asarray(high, np.float32)) - low_t
        if not bool(torch.isfinite(width).all() and (width > 0).all()):
            raise ValueError(f"action bins: expected finite bounds with high > low, got low "
                             f"{np.asarray(low)} and high {np.asarray(high)}")
        self.register_buffer("low", low_t, persistent=False)
        self.register_buffer("width", width, persistent=False)
        values = low_t[:, None] + width[:, None] * torch.linspace(0, 1, self.count)[None]  # (A, K)
        self.register_buffer("values", values, persistent=False)

    def index(self, actions: torch.Tensor) -> torch.Tensor:
        """(N, A) the nearest value's index of each number of ``actions``."""
        position = (actions.float() - self.low) / self.width * (self.count - 1)
        return position.round().clamp(0, self.count - 1).long()

    def loss(self, out: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """Cross-entropy of each action number's logits against its nearest value."""
        return nn.functional.cross_entropy(out.reshape(-1, self.count), self.index(actions).reshape(-1))

    def act(self, out: torch.Tensor, draws: torch.Generator | None = None) -> torch.Tensor:
        """(N, A) actions: each number drawn from its softmax with ``draws``, or the argmax."""
        logits = out.reshape(len(out), -1, self.count)
        if draws is None:
            chosen = logits.argmax(-1)
        else:
            flat = torch.softmax(logits.float(), -1).reshape(-1, self.count).to(draws.device)
            chosen = torch.multinomial(flat, 1, generator=draws).to(out.device).reshape(len(out), -1)
        return torch.gather(self.values.expand(len(out), -1, -1), 2, chosen[..., None])[..., 0]
