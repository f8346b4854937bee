"""Episodes from rollouts: where each episode starts, and how a rollout becomes an ``Episode``.

Episode ``index`` of a recipe with seed ``recipe_seed`` always gets the same task (tasks
cycled evenly), phrasing and real start state, whoever rolls it out. An imaginary recipe
that shares its oracle's seed therefore imagines exactly the oracle's (task, phrasing, s0)
episode by episode.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.domain import Domain
from ..core.episode import Episode
from ..core.simulator import Simulator
from ..core.task import Task


def episode_seed(recipe_seed: int, index: int, attempt: int = 0) -> int:
    """A 63-bit seed for episode ``index``; independent of how episodes are split over workers.
    ``attempt`` > 0 gives the independent re-draws of a verified dataset's regenerations."""
    entropy = [recipe_seed, index] + ([attempt] if attempt else [])
    return int(np.random.SeedSequence(entropy).generate_state(2, np.uint64)[0] >> np.uint64(1))


@dataclass
class Start:
    task: Task
    phrasing_id: int
    seed: int
    rng: np.random.Generator  # continues the episode's random stream (the expert's tie-breaks)
    state: np.ndarray

    @property
    def instruction(self) -> str:
        return self.task.phrasings[self.phrasing_id]


def episode_start(domain: Domain, level: str, index: int, recipe_seed: int, sim: Simulator,
                  attempt: int = 0) -> Start:
    """Task ``index % n_tasks`` of ``level``, a phrasing drawn uniformly, and a real reset state.
    Attempt 0 is the episode every recipe with this seed shares; a later ``attempt`` keeps the
    task and draws phrasing and start state anew (a verified dataset's regeneration)."""
    tasks = domain.tasks(level)
    return seeded_start(tasks[index % len(tasks)], episode_seed(recipe_seed, index, attempt), sim)


def seeded_start(task: Task, seed: int, sim: Simulator) -> Start:
    """The start an episode of ``task`` with ``seed`` (its ``Episode.seed``) gets: a phrasing
    drawn uniformly, then a real reset of ``sim``, from one generator seeded with ``seed``."""
    rng = np.random.default_rng(seed)
    phrasing_id = int(rng.integers(len(task.phrasings)))
    return Start(task, phrasing_id, seed, rng, sim.reset(task, rng))


def rollout_episode(domain: Domain, start: Start, states, actions, *, source: str,
                    sim_states=None) -> Episode:
    """The episode of a rollout from ``start``: rewards from the task's reward on the states,
    terminated if the task's predicate holds on the last transition, else truncated.

    A transition into a non-finite state (imaginary data only) gets reward 0; the checkers
    flag the state illegal. ``sim_states`` ((T+1, F), real rollouts of simulators
    with a ``get_sim_state``) are kept for exact re-simulation by the checkers.
    """
    task = start.task
    states = np.asarray(states, dtype=domain.state_space.dtype)
    actions = np.asarray(actions, dtype=domain.action_space.dtype)
    with np.errstate(all="ignore"):
        rewards = np.asarray(task.reward(states[:-1], actions, states[1:]), dtype=np.float32)
        success = bool(task.success(states[-2:-1], actions[-1:], states[-1:])[0])
    rewards[~np.isfinite(rewards)] = 0.0
    steps = len(actions)
    terminations = np.zeros(steps, bool)
    truncations = np.zeros(steps, bool)
    (terminations if success else truncations)[-1] = True
    return Episode(states=states, actions=actions, rewards=rewards, terminations=terminations,
                   truncations=truncations, instruction=start.instruction, task_id=task.id,
                   level=task.level, phrasing_id=start.phrasing_id, seed=start.seed, source=source,
                   sim_states=None if sim_states is None else np.asarray(sim_states, np.float64))


def expert_episode(domain: Domain, level: str, index: int, recipe_seed: int, sim: Simulator) -> Episode:
    """Run the expert from episode ``index``'s start until success or the task's time limit."""
    start = episode_start(domain, level, index, recipe_seed, sim)
    task, state = start.task, start.state
    expert = domain.expert(task, start.rng, sim)
    states, actions = [state], []
    sim_states = [sim.get_sim_state()]
    success = False
    while not success and len(actions) < task.horizon:
        action = expert.act(state)
        next_state = sim.step(action)
        success = task.succeeded(state, action, next_state)
        actions.append(action)
        states.append(next_state)
        sim_states.append(sim.get_sim_state())
        state = next_state
    return rollout_episode(domain, start, states, actions, source="real",
                           sim_states=None if sim_states[0] is None else sim_states)
