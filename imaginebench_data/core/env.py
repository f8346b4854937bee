"""The evaluation env of any domain: ``Dict(state, instruction)`` observations, one level.

Contract (the same for every domain):
- ``reset`` picks the next task of the level in a fixed cycle (or the pinned ``task``, or
  ``options={"task": id}``; ``task_id``, as an episode's stored options name it, works too),
  a phrasing of it, and a start state where it is not yet solved. N resets cover every task
  N / n_tasks times. ``reset(seed=episode seed, options=episode options)`` gives back a real
  episode's phrasing and start state.
- ``step`` returns ``info["success"]`` from the task's predicate; the episode terminates on
  success and truncates at the task's horizon (50 steps for CLEVR, 1 for its easy level).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import gymnasium as gym
import numpy as np

from .task import LEVELS
from .text import observation_space


class ImagineEnv(gym.Env):
    """The eval env of the registered domain ``domain``; see the module docstring for the contract."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 10}

    def __init__(self, domain: str, level: str = "train", task: str | None = None,
                 render_mode: str | None = None):
        from ..domains import get_domain

        if level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
        self.domain = get_domain(domain)
        self.level = level
        self.tasks = self.domain.tasks(level)
        self.pinned = self.domain.task(level, task) if task is not None else None
        self.observation_space = observation_space(self.domain.state_space)
        self.action_space = self.domain.action_space
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, "
                             f"got {render_mode!r}")
        if render_mode is not None and self.domain.render is None:
            raise ValueError(f"domain {domain!r} has no renderer: render_mode must be None")
        self.render_mode = render_mode
        self._sim = None
        self._resets = 0
        self.task = self.pinned or self.tasks[0]
        self.state = np.zeros(self.domain.state_space.shape, np.float32)
        self.phrasing_id = 0
        self.instruction = self.task.phrasings[0]
        self.t = 0

    @property
    def sim(self):
        """The domain's simulator, made on first use: creating the env stays cheap (Minari makes
        one for every dataset it writes or shows; a LIBERO scene takes seconds to build)."""
        if self._sim is None:
            self._sim = self.domain.simulator()
        return self._sim

    def _obs(self) -> dict[str, Any]:
        return {"state": self.state.copy(), "instruction": self.instruction}

    def _info(self, success: bool) -> dict[str, Any]:
        return {"success": success, "task_id": self.task.id, "phrasing_id": self.phrasing_id}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = options or {}
        task_id = options.get("task", options.get("task_id"))  # task_id: an episode's stored options
        if task_id is not None:
            self.task = self.domain.task(self.level, task_id)
        elif self.pinned is not None:
            self.task = self.pinned
        else:
            self.task = self.tasks[self._resets % len(self.tasks)]
        self._resets += 1
        self.phrasing_id = int(self.np_random.integers(len(self.task.phrasings)))
        self.instruction = self.task.phrasings[self.phrasing_id]
        self.state = self.sim.reset(self.task, self.np_random)
        self.t = 0
        return self._obs(), self._info(False)

    def step(self, action):
        action = self._checked(action)
        prev = self.state
        self.state = self.sim.step(action)
        self.t += 1
        success = self.task.succeeded(prev, action, self.state)
        reward = self.task.step_reward(prev, action, self.state)
        truncated = (not success) and self.t >= self.task.horizon
        return self._obs(), reward, success, truncated, self._info(success)

    def _checked(self, action):
        """``action`` as the action space holds it: a float array of the right shape in any float
        dtype is taken in the space's (gymnasium's ``Box.contains`` refuses a float64 array that is
        in range; found 2026-12-06); anything else not in the space is refused in one line."""
        space = self.action_space
        if (isinstance(space, gym.spaces.Box) and isinstance(action, np.ndarray)
                and action.shape == space.shape and np.issubdtype(action.dtype, np.floating)):
            action = action.astype(space.dtype)
        if not space.contains(action):
            array = isinstance(action, np.ndarray)
            held = f" (an array of shape {action.shape}, dtype {action.dtype})" if array else ""
            raise ValueError(f"action {action!r}{held} is not in {space}")
        return action

    def render(self) -> np.ndarray | None:
        """``(H, W, 3)`` uint8: the current state, for ``render_mode="rgb_array"`` (None without
        a render mode, as gymnasium's envs do)."""
        if self.render_mode is None:
            return None
        return self.domain.render(self.sim)

    def close(self) -> None:
        from .render import close_renderers

        close_renderers(self._sim)
        super().close()


def eval_env_spec(domain: str, level: str) -> gym.envs.registration.EnvSpec:
    """The registered spec of ``domain``'s env with ``level`` set: what a dataset stores as its
    eval env (plain-JSON kwargs and a string entry point, so any process recovers it)."""
    from ..domains import get_domain

    spec = gym.spec(get_domain(domain).env_id)
    return replace(spec, kwargs={**spec.kwargs, "level": level})


def make_env(domain: str, level: str = "train", task: str | None = None,
             render_mode: str | None = None) -> gym.Env:
    """The evaluation env of ``domain`` at ``level`` (optionally pinned to one task; with
    ``render_mode="rgb_array"``, ``render()`` draws the current state)."""
    from ..domains import get_domain

    kwargs = {"level": level} if task is None else {"level": level, "task": task}
    return gym.make(get_domain(domain).env_id, render_mode=render_mode, **kwargs)
