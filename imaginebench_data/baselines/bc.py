"""Behaviour cloning in plain torch, instruction-conditioned, for discrete or continuous actions.

The network is an MLP on ``[state, instruction embedding]`` (the original benchmark
concatenates the instruction encoding to the state the same way) giving logits over the
actions (cross-entropy) or the action itself (MSE). Batches come from a ``Sampler``, so any
mix of datasets (e.g. real and imaginary 1:1 in every batch) trains the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from ..domains import get_domain
from ..loader.encoders import Encoder
from ..loader.sampler import Sampler


@dataclass
class BCSettings:
    steps: int = 3000
    batch_size: int = 256
    lr: float = 1e-3
    hidden: int = 256
    seed: int = 0


def mlp(n_in: int, n_out: int, hidden: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, n_out))


@dataclass
class BCPolicy:
    """``policy(obs)`` maps an env observation ``{"state", "instruction"}`` to an action."""

    net: nn.Module
    encoder: Encoder | None
    discrete: bool

    @torch.no_grad()
    def __call__(self, obs: dict[str, Any]) -> Any:
        inputs = [torch.as_tensor(np.asarray(obs["state"], np.float32))[None]]
        if self.encoder is not None:
            inputs.append(torch.from_numpy(self.encoder.encode([obs["instruction"]])))
        out = self.net(torch.cat(inputs, -1))[0]
        return int(out.argmax()) if self.discrete else out.numpy()


def train_bc(sampler: Sampler, settings: BCSettings | None = None) -> tuple[BCPolicy, list[float]]:
    """Train on ``sampler``'s batches; return the policy and the loss every 100 steps."""
    settings = settings or BCSettings()
    torch.manual_seed(settings.seed)
    sampler.rng = np.random.default_rng(settings.seed)
    space = get_domain(sampler.sources[0].card["domain"]).action_space
    discrete = sampler.discrete
    n_out = int(space.n) if discrete else int(space.shape[0])
    embed_dim = 0 if sampler.embeddings is None else sampler.embeddings.shape[1]
    net = mlp(sampler.sources[0].observations.shape[1] + embed_dim, n_out, settings.hidden)
    optimiser = torch.optim.Adam(net.parameters(), lr=settings.lr)
    losses = []
    for step in range(settings.steps):
        batch = sampler.sample(settings.batch_size)
        inputs = [batch["observations"]]
        if "instruction_embeddings" in batch:
            inputs.append(batch["instruction_embeddings"])
        out = net(torch.cat(inputs, -1))
        if discrete:
            loss = nn.functional.cross_entropy(out, batch["actions"])
        else:
            loss = nn.functional.mse_loss(out, batch["actions"])
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        if step % 100 == 0:
            losses.append(float(loss.detach()))
    net.eval()
    return BCPolicy(net, sampler.encoder, discrete), losses
