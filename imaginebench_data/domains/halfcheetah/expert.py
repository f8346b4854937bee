"""The HalfCheetah expert: a cross-entropy-method (CEM) planner over the true simulator.

No learning: at every step the planner samples ``samples`` action sequences of ``horizon``
steps around a running mean (warm-started from the previous step's plan shifted by one),
rolls all of them out at once from the live simulator state with ``mujoco.rollout``
(one thread), scores each by the sum of the task's own reward (``Task.reward`` on the 22-number
states the rollout passes through, so a staged task's objective switches direction where
its first stage completes), refits mean and spread to the best ``ELITE_FRACTION`` for
``iterations`` rounds, and executes the first action of the best sequence seen.

Cost per env step: ``samples x horizon x iterations x 5`` physics steps (32 x 10 x 2 x 5 =
3,200 by default, about 15 ms on one core).
"""

from __future__ import annotations

import mujoco
import numpy as np
from mujoco import rollout

from ...core.task import Task
from .layout import DT, PEAK, STATE_DIM, TIME, TROUGH, X, compose
from .sim import NQ, HalfCheetahSimulator

FRAME_SKIP = 5
ELITE_FRACTION = 0.125
INITIAL_SPREAD = 0.6
MIN_SPREAD = 0.05
FULL_PHYSICS = mujoco.mjtState.mjSTATE_FULLPHYSICS


class HalfCheetahExpert:
    """``act(state) -> (6,) float32 action`` for one episode of ``task`` in the live ``sim``."""

    def __init__(self, task: Task, rng: np.random.Generator, sim: HalfCheetahSimulator, *,
                 samples: int = 32, horizon: int = 10, iterations: int = 2):
        self.task, self.rng, self.sim = task, rng, sim
        self.samples, self.horizon, self.iterations = samples, horizon, iterations
        self.mean = np.zeros((horizon, 6))
        self.worker = mujoco.MjData(sim.model)
        self.physics = np.empty(mujoco.mj_stateSize(sim.model, FULL_PHYSICS))

    def act(self, state: np.ndarray) -> np.ndarray:
        model, data = self.sim.model, self.sim.data
        mujoco.mj_getState(model, data, self.physics, FULL_PHYSICS)
        spread = np.full_like(self.mean, INITIAL_SPREAD)
        best_plan, best_score = self.mean, -np.inf
        for _ in range(self.iterations):
            noise = self.rng.standard_normal((self.samples - 1, self.horizon, 6))
            plans = np.concatenate([self.mean[None], np.clip(self.mean + spread * noise, -1.0, 1.0)])
            scores = self.score(np.asarray(state, np.float64), plans)
            order = np.argsort(-scores)
            if scores[order[0]] > best_score:
                best_plan, best_score = plans[order[0]], scores[order[0]]
            elites = plans[order[: max(2, int(ELITE_FRACTION * self.samples))]]
            self.mean, spread = elites.mean(0), np.maximum(elites.std(0), MIN_SPREAD)
        self.mean = np.concatenate([best_plan[1:], best_plan[-1:]])
        return best_plan[0].astype(np.float32)

    def score(self, state: np.ndarray, plans: np.ndarray) -> np.ndarray:
        """(samples,) sum of the task's reward along each plan (samples, horizon, 6)."""
        n, h = plans.shape[:2]
        controls = np.repeat(plans, FRAME_SKIP, axis=1)
        physics, _ = rollout.rollout(self.sim.model, self.worker, self.physics, controls)
        physics = physics[:, FRAME_SKIP - 1::FRAME_SKIP]           # (n, h, nstate) after each env step
        qpos, qvel = physics[..., 1:1 + NQ], physics[..., 1 + NQ:1 + 2 * NQ]
        x = state[X] + (qpos[..., 0] - self.sim.data.qpos[0])      # displacement since the reset
        dx = np.diff(np.concatenate([np.full((n, 1), state[X]), x], axis=1), axis=1)
        time = state[TIME] + DT * np.arange(1, h + 1)[None].repeat(n, 0)
        peak = np.maximum(state[PEAK], np.maximum.accumulate(x, axis=1))
        trough = np.minimum(state[TROUGH], np.minimum.accumulate(x, axis=1))
        after = compose(dx.ravel(), qpos[..., 1:].reshape(-1, NQ - 1), qvel.reshape(-1, NQ), x.ravel(),
                        time.ravel(), peak.ravel(), trough.ravel()).reshape(n, h, STATE_DIM)
        start = np.broadcast_to(state.astype(np.float32), (n, 1, STATE_DIM))
        before = np.concatenate([start, after[:, :-1]], axis=1)
        rewards = self.task.reward(before.reshape(-1, STATE_DIM), plans.reshape(-1, 6),
                                   after.reshape(-1, STATE_DIM))
        return np.asarray(rewards).reshape(n, h).sum(axis=1)
