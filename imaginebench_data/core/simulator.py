"""The one simulator interface every domain implements.

A simulator holds one live scene. Rollouts (the env, the expert's episodes, a model's
evidence) ``reset`` it for a task and ``step`` it; the checkers put it in a stored state
with ``set_state`` and step from there (``resimulate``). For domains whose dataset state is
the whole simulator state (CLEVR, BabyAI) ``set_state`` is exact from the dataset state
alone and ``get_sim_state`` returns None. For domains whose dataset state is an observation
of a larger state (a robot arm: joint velocities, solver warm start, body placements), real
episodes store ``get_sim_state()`` at every step and ``set_state`` restores it exactly; data
without it (imagined, imported) is rebuilt from the dataset state, approximately.

Two partial implementations serve the common cases: ``WholeStateSimulator`` (the dataset
state is everything; give ``step_from`` and ``random_state``) and ``RebuiltSceneSimulator``
(a transition re-simulated from a rebuilt scene is judged on the change the step makes).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from .task import Task


class Simulator(ABC):
    """reset / step a live scene; set_state for re-simulating a stored transition.

    ``needs_task``: whether ``set_state`` needs the task to know the scene (Meta-World's
    scenes differ by task); a simulator without it accepts ``task=None``, so transitions of an
    episode whose task is unknown (an unresolved import) are re-simulated too."""

    needs_task = False
    replay_steps = 0  # the rebuilt path's warm-up (RebuiltSceneSimulator); 0: none

    @abstractmethod
    def reset(self, task: Task, rng: np.random.Generator) -> np.ndarray:
        """A fresh scene for ``task`` drawn from ``rng`` in which the task is not already
        solved; returns its dataset state and leaves the simulator there."""

    @abstractmethod
    def step(self, action: Any) -> np.ndarray:
        """Continue the live scene by one action; returns the next dataset state."""

    @abstractmethod
    def set_state(self, task: Task, state: np.ndarray,
                  sim_state: np.ndarray | None = None) -> np.ndarray:
        """Put the simulator in a stored state of ``task``'s scene: exactly from ``sim_state``
        (the ``get_sim_state()`` stored with real data) when given, else from the dataset
        ``state`` (exact where it is the whole state, rebuilt otherwise). Returns the dataset
        state the simulator now shows."""

    def start_rebuilds(self, task: Task) -> None:  # noqa: B027 - a hook, optional to override
        """Called by the checkers before an episode's states are put into the simulator without
        a stored ``sim_state``: a simulator whose ``set_state`` starts from the scene as it was
        left puts the scene in one fixed state here, so that the checks of an episode do not
        depend on which episodes it checked before. Nothing by default."""

    def get_sim_state(self) -> np.ndarray | None:
        """``(F,)`` float64: the full simulator state now, or None when the dataset state is
        already all of it (then nothing more is stored)."""
        return None

    def resimulate(self, task: Task, state: np.ndarray, action: Any,
                   sim_state: np.ndarray | None = None,
                   earlier: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """The simulator's next dataset state from a stored ``state`` (and ``sim_state``) and
        ``action``: what the checkers compare a stored next state with. ``earlier``, given by the
        checkers only to a simulator with ``replay_steps`` > 0, is the stored state up to that
        many steps back and the stored actions from it to ``state`` (see RebuiltSceneSimulator);
        a simulator whose ``set_state`` is exact has no use for it."""
        self.set_state(task, state, sim_state)
        return self.step(action)


class WholeStateSimulator(Simulator):
    """A simulator whose dataset state is all of its state (CLEVR, BabyAI): it steps from any
    state (``step_from``) and draws whole start states (``random_state``, with the keyword
    arguments ``start_options(task)`` gives); ``reset``, ``step`` and an exact ``set_state``
    follow. ``action_shape``/``action_dtype`` describe the no-op action a reset is judged with."""

    action_shape: tuple[int, ...] = ()
    action_dtype: Any = np.int64

    def __init__(self, state_dim: int) -> None:
        self.state = np.zeros(state_dim, np.float32)  # the live scene's state (reset / step)

    @abstractmethod
    def step_from(self, state: np.ndarray, action: Any) -> np.ndarray:
        """The next state from any ``state`` (legal or not) under ``action``."""

    @abstractmethod
    def random_state(self, rng: np.random.Generator, **options: Any) -> np.ndarray:
        """A random start state drawn from ``rng``."""

    def start_options(self, task: Task) -> dict[str, Any]:
        """Keyword arguments of ``random_state`` for a reset for ``task`` (none by default)."""
        return {}

    def reset(self, task: Task, rng: np.random.Generator) -> np.ndarray:
        options = self.start_options(task)
        noop = np.zeros((1,) + self.action_shape, dtype=self.action_dtype)
        while True:  # redrawn while the task already holds
            state = self.random_state(rng, **options)
            if not task.success(state[None], noop, state[None])[0]:
                self.state = state
                return state

    def step(self, action: Any) -> np.ndarray:
        self.state = self.step_from(self.state, action)
        return self.state

    def set_state(self, task: Task | None, state: np.ndarray,
                  sim_state: np.ndarray | None = None) -> np.ndarray:
        self.state = np.asarray(state, np.float32)
        return self.state


class RebuiltSceneSimulator(Simulator):
    """A scene whose dataset state is an observation that ``set_state`` can rebuild only
    approximately without the stored ``sim_state`` (velocities unknown, a hand driven to its
    pose: Meta-World, LIBERO). Re-simulated from such a rebuild, a transition is judged on
    what the step changes: the stored state plus the change the step makes from the rebuilt
    scene, rather than on the rebuild's own error.

    A rebuild starts at rest; a stored step seldom does. With ``replay_steps`` = K > 0 the
    checkers pass ``earlier``: the scene is rebuilt from the stored state K steps back (fewer at
    an episode's start or after a non-finite state) and the K stored actions since are replayed,
    so the step under judgement starts with the scene moving; the change it makes is then
    measured from where the replay left the scene. Before the first action is applied,
    ``prime`` may set controller memory the rebuild cannot read off the state from that action
    (LIBERO's gripper command ramp)."""

    def prime(self, state: np.ndarray, action: Any) -> None:
        """Make a scene just rebuilt from ``state`` ready for ``action``, its next action; by
        default nothing."""

    def resimulate(self, task: Task, state: np.ndarray, action: Any,
                   sim_state: np.ndarray | None = None,
                   earlier: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        if sim_state is not None:
            return super().resimulate(task, state, action, sim_state)
        start, replayed = (state, ()) if earlier is None else earlier
        before = np.asarray(self.set_state(task, start), np.float64)
        self.prime(start, replayed[0] if len(replayed) else action)
        for earlier_action in replayed:
            before = np.asarray(self.step(earlier_action), np.float64)
        predicted = np.asarray(self.step(action), np.float64)
        return (np.asarray(state, np.float64) + (predicted - before)).astype(np.float32)
