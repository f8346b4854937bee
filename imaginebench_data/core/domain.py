"""The small interface every domain meets. A new domain is one folder that builds a ``Domain``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import gymnasium as gym
import numpy as np

from .task import Task


class Simulator(Protocol):
    """Puts the domain's simulator in any dataset state and steps it."""

    def step_from(self, state: np.ndarray, action: Any) -> np.ndarray: ...

    def random_state(self, rng: np.random.Generator) -> np.ndarray: ...


class SceneSimulator(Simulator, Protocol):
    """A simulator whose dataset state is an observation of a larger simulator state (a robot
    arm: joint angles, velocities, solver warm start, randomised body placements). Domains
    with ``sim_state_dim > 0`` provide one; the ``Domain`` methods below dispatch to it.

    - ``reset_scene(task, rng)``: a fresh scene for ``task``; returns the start state.
    - ``step(action)``: continue the live scene exactly; returns the next dataset state.
    - ``get_sim_state()``: ``(sim_state_dim,)`` float64, the full simulator state now.
    - ``step_from_sim_state(task, sim_state, action)``: exact re-simulation of a stored step.
    - ``step_from_observation(task, state, action)``: approximate re-simulation from a state
      rebuilt from the dataset state alone (imaginary data has nothing else).
    """

    def reset_scene(self, task: Task, rng: np.random.Generator) -> np.ndarray: ...

    def step(self, action: Any) -> np.ndarray: ...

    def get_sim_state(self) -> np.ndarray: ...

    def step_from_sim_state(self, task: Task, sim_state: np.ndarray, action: Any) -> np.ndarray: ...

    def step_from_observation(self, task: Task, state: np.ndarray, action: Any) -> np.ndarray: ...


class Expert(Protocol):
    def act(self, state: np.ndarray) -> Any: ...


@dataclass(frozen=True)
class Domain:
    """A domain: its spaces, tasks per level, simulator, expert and state checkers.

    - ``tasks(level)`` lists the level's tasks in the order the eval env cycles them.
    - ``simulator()`` makes a fresh simulator (one per process or env).
    - ``expert(task, rng, sim)`` makes an expert for one episode.
    - ``illegal(states)`` maps ``(N, D)`` states to an ``(N, K)`` bool array, one column per
      name in ``illegal_kinds`` (non-finite values are always a kind).
    - ``transition_distance(predicted, stored)`` maps two ``(N, D)`` state batches to the
      ``(N,)`` distance that is compared with ``transition_tolerance``.
    - ``sim_state_dim``: 0 when the dataset state is the whole simulator state (CLEVR: the
      simulator is put in any state by ``step_from``). Otherwise the simulator is a
      ``SceneSimulator``: rollouts step it live, real episodes store its full state per step
      (``infos["sim_state"]``, ``(T+1, sim_state_dim)`` float64) and the checkers re-simulate
      from that; data without it is re-simulated from states rebuilt from observations.
    - ``start_options(task)``: keyword arguments for ``sim.random_state`` when the start
      depends on the task (BabyAI pins the target's colour, locks the door for key-then-open);
      None when every task starts from the same distribution (CLEVR).
    - ``decode_state(prev, states)``: how a generator turns its regressed ``(N, D)`` next
      states into dataset states, given the ``(N, D)`` states the step started from, as argmax
      turns logits into actions (BabyAI: round to grid integers; HalfCheetah: its history
      counters are bookkeeping of the step, computed, not regressed). None keeps them as
      regressed. It never repairs the physics: off-grid or overlapping stays so.
    """

    name: str
    env_id: str
    state_space: gym.spaces.Box
    action_space: gym.Space
    tasks: Callable[[str], list[Task]]
    simulator: Callable[[], Simulator]
    expert: Callable[[Task, np.random.Generator, Simulator], Expert]
    illegal_kinds: tuple[str, ...]
    illegal: Callable[[np.ndarray], np.ndarray]
    transition_distance: Callable[[np.ndarray, np.ndarray], np.ndarray]
    transition_tolerance: float
    notes: dict[str, str]
    sim_state_dim: int = 0
    start_options: Callable[[Task], dict[str, Any]] | None = None
    decode_state: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None

    @property
    def discrete(self) -> bool:
        """Whether actions are indices (``Discrete``) rather than vectors (``Box``)."""
        return isinstance(self.action_space, gym.spaces.Discrete)

    def task(self, level: str, task_id: str) -> Task:
        for task in self.tasks(level):
            if task.id == task_id:
                return task
        known = ", ".join(t.id for t in self.tasks(level)[:5])
        raise KeyError(f"{self.name} level {level!r} has no task {task_id!r} (tasks include {known}, ...)")

    def reset_state(self, task: Task, rng: np.random.Generator, sim: Simulator) -> np.ndarray:
        """A random start state in which ``task`` is not already solved."""
        if self.sim_state_dim:
            return sim.reset_scene(task, rng)
        noop = np.zeros((1,) + (self.action_space.shape or ()), dtype=self.action_space.dtype)
        options = self.start_options(task) if self.start_options else {}
        while True:
            state = sim.random_state(rng, **options)
            if not task.success(state[None], noop, state[None])[0]:
                return state

    def step(self, sim: Simulator, state: np.ndarray, action: Any) -> np.ndarray:
        """The next state of a live rollout (env or expert) whose current state is ``state``."""
        return sim.step(action) if self.sim_state_dim else sim.step_from(state, action)

    def sim_state(self, sim: Simulator) -> np.ndarray | None:
        """The simulator's full state now, or None when the dataset state is the full state."""
        return np.asarray(sim.get_sim_state(), np.float64) if self.sim_state_dim else None

    def resimulate_step(self, sim: Simulator, task: Task, state: np.ndarray, action: Any,
                        sim_state: np.ndarray | None = None) -> np.ndarray:
        """Re-simulate one stored transition: from the stored full simulator state when given
        (exact), else from the dataset state (exact for CLEVR, rebuilt for a scene simulator)."""
        if not self.sim_state_dim:
            return sim.step_from(state, action)
        if sim_state is not None:
            return sim.step_from_sim_state(task, sim_state, action)
        return sim.step_from_observation(task, state, action)
