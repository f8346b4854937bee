"""The HalfCheetah simulator: gymnasium's HalfCheetah-v5 behind the 22-number state.

Resets are gymnasium's own (qpos uniform +-0.1 about the initial pose, qvel 0.1 x standard
normal), seeded from the episode's random stream; a reset state has dx = 0 and zero counters
(the original stored the absolute x there, the only place absolute x ever appeared). Steps
are gymnasium's ``step`` (5 physics steps of 0.01 s with the action as motor controls,
clipped to [-1, 1]).

The full simulator state (``get_sim_state``, ``SIM_STATE_DIM`` float64)::

    [qpos (9, absolute x first) | qvel (9) | x at the reset | time (s) | peak | trough]

Restoring it and applying an action reproduces a live step exactly (MuJoCo's solver warm
start is not stored: without it one step differs by about 1e-13). A 22-number state holds
everything that moves the cheetah but its absolute x, which the dynamics ignore, so
``set_state`` without a stored ``sim_state`` rebuilds qpos with x = the displacement since the reset and is
exact up to the float32 rounding of the stored numbers.
"""

from __future__ import annotations

import mujoco
import numpy as np

from ...core.simulator import Simulator
from ...core.task import Task
from .layout import DT, QPOS, QVEL, STATE_DIM, TIME, X, compose

SIM_STATE_DIM = 22
NQ = NV = 9


class HalfCheetahSimulator(Simulator):
    """A live HalfCheetah-v5 scene; see the module docstring. States are ``(22,)`` float32."""

    def __init__(self) -> None:
        import gymnasium as gym

        self.env = gym.make("HalfCheetah-v5").unwrapped  # no TimeLimit: our tasks set the horizon
        self.model, self.data = self.env.model, self.env.data
        self.origin = 0.0                     # absolute x at the reset
        self.counters = np.zeros(4)           # x since the reset, time (s), peak, trough (float64)
        self.steps = 0
        self.dx = 0.0

    # --- the 22 numbers ---------------------------------------------------------------------
    def state(self) -> np.ndarray:
        data = self.data
        x, time, peak, trough = self.counters
        return compose(np.array([self.dx]), data.qpos[None, 1:], data.qvel[None], np.array([x]),
                       np.array([time]), np.array([peak]), np.array([trough]))[0]

    # --- scenes -----------------------------------------------------------------------------
    def reset(self, task: Task, rng: np.random.Generator) -> np.ndarray:
        """A gymnasium reset seeded from ``rng``; no task holds in a reset state (every task
        needs steps or distance), which is checked."""
        self.env.reset(seed=int(rng.integers(2**31 - 1)))
        self.origin, self.dx, self.steps = float(self.data.qpos[0]), 0.0, 0
        self.counters = np.zeros(4)
        state = self.state()
        noop = np.zeros((1, 6), np.float32)
        if task.success(state[None], noop, state[None])[0]:
            raise RuntimeError(f"task {task.id} holds in a reset state: its predicate is wrong")
        return state

    # --- stepping ---------------------------------------------------------------------------
    def step(self, action) -> np.ndarray:
        """Continue the live scene by one action (clipped to [-1, 1]); exact."""
        before = float(self.data.qpos[0])
        self.env.step(np.clip(np.asarray(action, np.float64), -1.0, 1.0))
        self.dx = float(self.data.qpos[0]) - before
        x = float(self.data.qpos[0]) - self.origin
        _, _, peak, trough = self.counters
        self.steps += 1
        self.counters = np.array([x, DT * self.steps, max(peak, x), min(trough, x)])
        return self.state()

    def get_sim_state(self) -> np.ndarray:
        return np.concatenate([self.data.qpos, self.data.qvel, [self.origin], self.counters[1:]])

    def set_sim_state(self, sim_state: np.ndarray) -> None:
        sim_state = np.asarray(sim_state, np.float64)
        if sim_state.shape != (SIM_STATE_DIM,):
            raise ValueError(f"HalfCheetah sim_state must have shape ({SIM_STATE_DIM},), "
                             f"got {sim_state.shape}")
        mujoco.mj_resetData(self.model, self.data)
        self.data.qpos[:] = sim_state[:NQ]
        self.data.qvel[:] = sim_state[NQ:NQ + NV]
        mujoco.mj_forward(self.model, self.data)
        self.origin = float(sim_state[NQ + NV])
        self.counters = np.array([self.data.qpos[0] - self.origin, *sim_state[NQ + NV + 1:]])
        self.steps = int(np.rint(self.counters[1] / DT))
        self.dx = 0.0

    def set_state(self, task: Task | None, state: np.ndarray,
                  sim_state: np.ndarray | None = None) -> np.ndarray:
        """Exact from a stored ``sim_state``; else from the 22 numbers, with x since the reset
        standing in for absolute x (exact up to float32 rounding)."""
        self.set_sim_state(observation_sim_state(state) if sim_state is None else sim_state)
        return self.state()


def observation_sim_state(state: np.ndarray) -> np.ndarray:
    """(22,) float64 full simulator state rebuilt from a (22,) dataset state: the reset at
    x = 0, so absolute x = the displacement since the reset."""
    state = np.asarray(state, np.float64)
    if state.shape != (STATE_DIM,):
        raise ValueError(f"HalfCheetah state must have shape ({STATE_DIM},), got {state.shape}")
    return np.concatenate([[state[X]], state[QPOS], state[QVEL], [0.0], state[TIME:]])
