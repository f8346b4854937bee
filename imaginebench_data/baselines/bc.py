"""Behaviour cloning in plain torch, instruction-conditioned, for discrete or continuous actions.

The network is an MLP on ``[state, instruction embedding]`` (the original benchmark
concatenates the instruction encoding to the state the same way) giving logits over the
actions (cross-entropy) or the action itself (MSE). Batches come from a ``Sampler``, so any
mix of datasets (e.g. real and imaginary 1:1 in every batch) trains the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ..domains import get_domain
from ..loader.sampler import Sampler
from .policy import ConditionedPolicy


@dataclass
class BCSettings:
    """``sample``: a discrete-action policy draws its action from its softmax (seeded by
    ``seed``) instead of taking the argmax. On CLEVR the argmax policy of 5,000 steps on the
    demo training set succeeded on 31.9% of 160 training-task episodes, the sampling one on
    41.3% (2026-11-23, this 2-core machine): a deterministic policy repeats its mistakes (a
    push that does not help is chosen again from the same state), a sampled one gets out."""

    steps: int = 3000
    batch_size: int = 256
    lr: float = 1e-3
    hidden: int = 256
    seed: int = 0
    sample: bool = True
    dropout: float = 0.0  # after each hidden layer while training (0: none, the network of before)


def mlp(n_in: int, n_out: int, hidden: int, dropout: float = 0.0) -> nn.Sequential:
    """Two hidden ReLU layers; ``dropout`` > 0 adds ``nn.Dropout`` after each (no parameters:
    the same initial weights for a seed, whatever the dropout)."""
    layers: list[nn.Module] = []
    for width_in in (n_in, hidden):
        layers += [nn.Linear(width_in, hidden), nn.ReLU()]
        if dropout > 0:
            layers.append(nn.Dropout(dropout))
    return nn.Sequential(*layers, nn.Linear(hidden, n_out))


def train_bc(sampler: Sampler, settings: BCSettings | None = None) -> tuple[ConditionedPolicy, list[float]]:
    """Train on ``sampler``'s batches; return the policy and the loss every 100 steps."""
    settings = settings or BCSettings()
    torch.manual_seed(settings.seed)
    sampler.rng = np.random.default_rng(settings.seed)
    space = get_domain(sampler.datasets[0].card.domain).action_space
    discrete = sampler.discrete
    n_out = int(space.n) if discrete else int(space.shape[0])
    embed_dim = 0 if sampler.embeddings is None else sampler.embeddings.shape[1]
    net = mlp(sampler.datasets[0].observations.shape[1] + embed_dim, n_out, settings.hidden, settings.dropout)
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
    draws = torch.Generator().manual_seed(settings.seed)

    @torch.no_grad()
    def act(features: np.ndarray) -> np.ndarray:
        out = net(torch.from_numpy(features))
        if not discrete:
            return out.numpy()
        if settings.sample:
            return torch.multinomial(torch.softmax(out, -1), 1, generator=draws)[:, 0].numpy()
        return out.argmax(-1).numpy()

    return ConditionedPolicy(act, sampler.encoder, discrete), losses
