"""Expert rollouts: one episode per (recipe seed, index), tasks cycled evenly."""

from __future__ import annotations

import numpy as np

from ..core.domain import Domain, Simulator
from ..core.episode import Episode


def episode_seed(recipe_seed: int, index: int) -> int:
    """A 63-bit seed for episode ``index``; independent of how episodes are split over workers."""
    return int(np.random.SeedSequence([recipe_seed, index]).generate_state(2, np.uint64)[0] >> np.uint64(1))


def expert_episode(domain: Domain, level: str, index: int, recipe_seed: int, sim: Simulator) -> Episode:
    """Run the expert on task ``index % n_tasks`` of ``level`` until success or the horizon.

    The phrasing is drawn uniformly from the task's phrasings of this level.
    """
    tasks = domain.tasks(level)
    task = tasks[index % len(tasks)]
    seed = episode_seed(recipe_seed, index)
    rng = np.random.default_rng(seed)
    phrasing_id = int(rng.integers(len(task.phrasings)))
    state = domain.reset_state(task, rng, sim)
    expert = domain.expert(task, rng, sim)
    states, actions, rewards = [state], [], []
    success = False
    while not success and len(actions) < task.horizon:
        action = expert.act(state)
        next_state = sim.step_from(state, action)
        success = task.succeeded(state, action, next_state)
        rewards.append(task.step_reward(state, action, next_state))
        actions.append(action)
        states.append(next_state)
        state = next_state
    steps = len(actions)
    terminations = np.zeros(steps, bool)
    truncations = np.zeros(steps, bool)
    (terminations if success else truncations)[-1] = True
    return Episode(
        states=np.asarray(states, dtype=domain.state_space.dtype),
        actions=np.asarray(actions, dtype=domain.action_space.dtype),
        rewards=np.asarray(rewards, dtype=np.float32),
        terminations=terminations,
        truncations=truncations,
        instruction=task.phrasings[phrasing_id],
        task_id=task.id,
        level=level,
        phrasing_id=phrasing_id,
        seed=seed,
        source="real",
    )
