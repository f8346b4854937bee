"""Actions inferred from imagined transitions by an inverse dynamics model grounded on real data.

The grounded model imagines states and actions together, and the two need not agree: replayed
in the simulator, the committed LIBERO easy set's stored actions reach 8.3% of their goals where
its imagined states reach 36.5% (``quality/replay.py``). A learner such as BC learns the
actions. With ``--actions inferred`` every stored action is replaced by what an inverse dynamics
model infers from the imagined transition it belongs to, ``(s_t, s_t+1) -> a_t``, as UniPi labels
the frames it generates, except where the imagined state does not change: no action can be
read off such a step, and the expert's never show one, so the grounded model's action stays
(``pipeline.generators.inferred_actions``). The model is an MLP (``baselines.bc.mlp``) on
``[s, s' - s]``, each column standardized, trained on the real training set the language
model was grounded on (cross-entropy for discrete actions, mean squared error for continuous
ones, whose outputs are clipped into the action space). The imagined states are left as they
are, so goal consistency and illegal states do not change; what the simulator does with the
new actions (the transition checker, the replay) does.

Training is seeded and runs on ``COMPUTE_THREADS`` threads with deterministic algorithms, so a
build gives the same actions on every run. A tenth of the training episodes is held out and the
model's fit on them goes into the card (``InverseDynamics.report``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from torch import nn

from .determinism import pinned


@dataclass(frozen=True)
class InverseDynamicsSettings:
    steps: int = 4000
    batch_size: int = 256
    hidden: int = 256
    lr: float = 1e-3
    seed: int = 0
    held_out: float = 0.1  # the share of training episodes the fit is measured on


def _inputs(states: np.ndarray, next_states: np.ndarray) -> np.ndarray:
    states = np.asarray(states, np.float32)
    return np.concatenate([states, np.asarray(next_states, np.float32) - states], 1)


class InverseDynamics:
    """``model(states, next_states)``: the action taken between each pair of rows."""

    def __init__(self, net: nn.Module, mean: np.ndarray, std: np.ndarray, space: gym.Space,
                 report: dict[str, Any]):
        self.net, self.mean, self.std, self.space = net.eval(), mean, std, space
        self.discrete = isinstance(space, gym.spaces.Discrete)
        self.report = report

    @classmethod
    @pinned()
    def fit(cls, states: np.ndarray, next_states: np.ndarray, actions: np.ndarray, episode_ids: np.ndarray,
            space: gym.Space, settings: InverseDynamicsSettings | None = None) -> InverseDynamics:
        """Trained on the transitions ``(states, next_states) -> actions`` of all but the held-out
        episodes (``episode_ids`` says which row belongs to which)."""
        from ..baselines.bc import mlp

        settings = settings or InverseDynamicsSettings()
        discrete = isinstance(space, gym.spaces.Discrete)
        x = _inputs(states, next_states)
        mean, std = x.mean(0), x.std(0)
        std[std < 1e-6] = 1.0
        rng = np.random.default_rng(settings.seed)
        episodes = np.unique(episode_ids)
        held_out = rng.choice(episodes, int(len(episodes) * settings.held_out), replace=False)
        held = np.isin(episode_ids, held_out)
        fit_rows = np.flatnonzero(~held)
        if len(fit_rows) == 0:
            raise ValueError("inverse dynamics: expected training transitions, found none")
        torch.manual_seed(settings.seed)
        n_out = int(space.n) if discrete else int(np.prod(space.shape))
        net = mlp(x.shape[1], n_out, settings.hidden)
        optimiser = torch.optim.Adam(net.parameters(), lr=settings.lr)
        inputs = torch.from_numpy((x - mean) / std)
        targets = torch.from_numpy(np.asarray(actions, np.int64 if discrete else np.float32))
        loss_of = nn.functional.cross_entropy if discrete else nn.functional.mse_loss
        for _ in range(settings.steps):
            rows = torch.from_numpy(rng.choice(fit_rows, settings.batch_size))
            loss = loss_of(net(inputs[rows]), targets[rows])
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
        model = cls(net, mean, std, space, {"settings": asdict(settings), "trained_on": int(len(fit_rows))})
        model.report.update(model.fit_on(states[held], next_states[held], np.asarray(actions)[held]))
        return model

    @torch.no_grad()
    @pinned()
    def __call__(self, states: np.ndarray, next_states: np.ndarray) -> np.ndarray:
        if len(states) == 0:
            return np.zeros((0, *self.space.shape), self.space.dtype)
        out = self.net(torch.from_numpy((_inputs(states, next_states) - self.mean) / self.std))
        if self.discrete:
            return out.argmax(-1).numpy().astype(self.space.dtype)
        return np.clip(out.numpy(), self.space.low, self.space.high).astype(self.space.dtype)

    def fit_on(self, states: np.ndarray, next_states: np.ndarray, actions: np.ndarray) -> dict[str, Any]:
        """How well the model infers ``actions``: accuracy (discrete) or R^2 per action number."""
        if not len(actions):
            return {"held_out_transitions": 0}
        inferred = self(states, next_states)
        if self.discrete:
            return {"held_out_transitions": len(actions),
                    "held_out_accuracy": round(float(np.mean(inferred == actions)), 4)}
        variance = np.asarray(actions, np.float64).var(0)
        error = ((inferred - actions) ** 2).mean(0)
        r2 = np.where(variance > 0, 1 - error / np.where(variance > 0, variance, 1), np.nan)
        return {"held_out_transitions": len(actions),
                "held_out_r2": [None if np.isnan(v) else round(float(v), 4) for v in r2]}
