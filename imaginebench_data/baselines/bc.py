"""Behaviour cloning in plain torch, instruction-conditioned, for discrete or continuous actions.

The network is an MLP on ``[state, instruction embedding]`` (the original benchmark
concatenates the instruction encoding to the state the same way) giving logits over the
actions (cross-entropy) or the action itself (MSE). Batches come from a ``Sampler``, so any
mix of datasets (e.g. real and imaginary 1:1 in every batch) trains the same way.

Two options change what the network sees of the state (both off by default, which keeps the
network of before bit for bit): ``normalize`` standardizes each state column by the mean and
spread of the rows the batches are drawn from, and ``history=False`` leaves out the domain's
``history_columns`` (HalfCheetah's distance run so far, time and furthest points). On
HalfCheetah's demo training set both together took BC from 55.8% to 74.2% of the training
tasks (docs/results.md, "HalfCheetah, BC on the physics alone"): with the history in view it reads
the direction from "x already behind the start", a cue its own first steps then supply.

For continuous actions, ``bins`` > 0 predicts each action number as one of ``bins`` evenly
spaced values over its range (cross-entropy per number) instead of regressing it (MSE), and
the policy samples each number from its softmax (``sample``; the argmax otherwise). A
regression learns the mean of the actions seen in a state. Where the expert's actions vary
from run to run, as a sampling planner's do, that mean need not do the task.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ..core.action_bins import ActionBins
from ..domains import get_domain
from ..loader.sampler import Sampler
from .copies import CopiedBatches
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
    normalize: bool = False  # standardize the state columns (mean and spread of the training rows)
    history: bool = True  # False: leave out the domain's history_columns (bookkeeping, not physics)
    bins: int = 0  # continuous actions: each number one of this many values (0: regression)
    symmetries: bool = False  # every batch row a copy of itself (``Domain.symmetry``: CLEVR, LIBERO)


def mlp(n_in: int, n_out: int, hidden: int, dropout: float = 0.0) -> nn.Sequential:
    """Two hidden ReLU layers; ``dropout`` > 0 adds ``nn.Dropout`` after each (no parameters:
    the same initial weights for a seed, whatever the dropout)."""
    layers: list[nn.Module] = []
    for width_in in (n_in, hidden):
        layers += [nn.Linear(width_in, hidden), nn.ReLU()]
        if dropout > 0:
            layers.append(nn.Dropout(dropout))
    return nn.Sequential(*layers, nn.Linear(hidden, n_out))


class StateInput(nn.Module):
    """The first step of the network: the state part of a ``[state, embedding]`` row
    standardized (``(s - mean) / std``) and reduced to the ``keep`` columns; the embedding
    passes unchanged."""

    def __init__(self, mean: np.ndarray, std: np.ndarray, keep: list[int]):
        super().__init__()
        self.dim = len(mean)
        self.register_buffer("mean", torch.as_tensor(mean, dtype=torch.float32))
        self.register_buffer("std", torch.as_tensor(std, dtype=torch.float32))
        self.register_buffer("keep", torch.as_tensor(keep, dtype=torch.long))

    def forward(self, rows: torch.Tensor) -> torch.Tensor:
        states = (rows[:, : self.dim] - self.mean) / self.std
        return torch.cat([states[:, self.keep], rows[:, self.dim:]], -1)


def state_statistics(sampler: Sampler) -> tuple[np.ndarray, np.ndarray]:
    """Mean and spread (std + 1e-3, as TD3+BC's normalization) of each state column over the
    rows ``sampler`` draws from, each dataset weighted by its share of a batch."""
    means, variances = [], []
    for transitions, valid in zip(sampler.datasets, sampler.valid):
        states = np.asarray(transitions.observations[valid], np.float64)
        means.append(states.mean(0))
        variances.append(states.var(0))
    weights = np.asarray(sampler.ratios, np.float64)[:, None]
    mean = (weights * np.stack(means)).sum(0)
    variance = (weights * (np.stack(variances) + (np.stack(means) - mean) ** 2)).sum(0)
    return mean.astype(np.float32), (np.sqrt(variance) + 1e-3).astype(np.float32)


def train_bc(sampler: Sampler, settings: BCSettings | None = None) -> tuple[ConditionedPolicy, list[float]]:
    """Train on ``sampler``'s batches; return the policy and the loss every 100 steps."""
    settings = settings or BCSettings()
    torch.manual_seed(settings.seed)
    sampler.rng = np.random.default_rng(settings.seed)
    domain = get_domain(sampler.datasets[0].card.domain)
    space = domain.action_space
    discrete = sampler.discrete
    if settings.bins and discrete:
        raise ValueError(f"bins applies to continuous actions; {domain.name}'s are discrete")
    batches = sampler.sample
    if settings.symmetries:
        batches = CopiedBatches(sampler, domain.copies("symmetries")).sample
    bins = ActionBins(space.low, space.high, settings.bins) if settings.bins else None
    n_out = int(space.n) if discrete else int(space.shape[0]) * (settings.bins or 1)
    embed_dim = 0 if sampler.embeddings is None else sampler.embeddings.shape[1]
    state_dim = sampler.datasets[0].observations.shape[1]
    left_out = () if settings.history else domain.history_columns
    keep = [column for column in range(state_dim) if column not in left_out]
    net = mlp(len(keep) + embed_dim, n_out, settings.hidden, settings.dropout)
    if settings.normalize or len(keep) < state_dim:
        plain = (np.zeros(state_dim, np.float32), np.ones(state_dim, np.float32))
        mean, std = state_statistics(sampler) if settings.normalize else plain
        net = nn.Sequential(StateInput(mean, std, keep), net)
    optimiser = torch.optim.Adam(net.parameters(), lr=settings.lr)
    losses = []
    for step in range(settings.steps):
        batch = batches(settings.batch_size)
        inputs = [batch["observations"]]
        if "instruction_embeddings" in batch:
            inputs.append(batch["instruction_embeddings"])
        out = net(torch.cat(inputs, -1))
        if discrete:
            loss = nn.functional.cross_entropy(out, batch["actions"])
        elif bins is not None:
            loss = bins.loss(out, batch["actions"])
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
        if bins is not None:
            return bins.act(out, draws if settings.sample else None).numpy()
        if not discrete:
            return out.numpy()
        if settings.sample:
            return torch.multinomial(torch.softmax(out, -1), 1, generator=draws)[:, 0].numpy()
        return out.argmax(-1).numpy()

    return ConditionedPolicy(act, sampler.encoder, discrete, network=net,
                             rewind=lambda: draws.manual_seed(settings.seed)), losses
