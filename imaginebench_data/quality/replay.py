"""Stored actions replayed in the real simulator: do an episode's actions reach its goal?

The checkers judge an imagined episode by its states: goal consistency is whether its last
imagined state satisfies the task. A learner such as BC learns its actions. Here each
episode's actions are replayed open loop, from the real reset the episode started from (its
``seed`` draws the same phrasing and reset, ``pipeline.rollout.seeded_start``), and the
episode counts as reached when the task's predicate holds on any replayed transition. Real
expert episodes reach their goal exactly where they were stored as reaching it (the
simulators are deterministic); imagined ones may not: on LIBERO's easy level an imagined set
14.5 points more goal consistent than another gave BC no more (docs/experiments.md, "Several
groundings as one, in the builds").

``imaginebench inspect ID --replay`` adds the column to its table.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from tqdm.auto import tqdm

from ..core.domain import Domain
from ..core.episode import Episode
from ..core.simulator import Simulator
from ..core.task import Task
from ..pipeline.rollout import seeded_start

START_TOLERANCE = 1e-4  # the reset drawn again against the stored first state (float32 storage)


class StartMismatchError(ValueError):
    """An episode's first state is not the reset its seed draws: its actions cannot be replayed."""


def actions_reach_goal(task: Task, sim: Simulator, state: np.ndarray, actions: Iterable) -> bool:
    """Whether ``actions``, stepped in ``sim`` from ``state`` (the scene ``sim`` is in), reach
    ``task``'s goal: its predicate holds on any transition. ``actions`` may be drawn lazily
    (the evidence's random actions): none is drawn after the goal."""
    for action in actions:
        following = sim.step(action)
        if task.succeeded(state, action, following):
            return True
        state = following
    return False


def replay_reaches_goal(domain: Domain, sim: Simulator, episode: Episode) -> bool:
    """Whether ``episode``'s actions, replayed in ``sim`` from its real reset, reach its goal."""
    start = seeded_start(domain.task(episode.level, episode.task_id), episode.seed, sim)
    first = np.asarray(episode.states[0], np.float32)
    state = np.asarray(start.state, np.float32)
    gap = float(np.max(np.abs(state - first))) if state.shape == first.shape else np.inf
    if not gap <= START_TOLERANCE:
        raise StartMismatchError(
            f"episode of task {episode.task_id!r} with seed {episode.seed}: expected its first state to be "
            f"the reset its seed draws, found it {gap:.3g} away (at most {START_TOLERANCE} allowed); its "
            "actions cannot be replayed from it")
    with np.errstate(all="ignore"):
        return actions_reach_goal(start.task, sim, start.state, episode.actions)


def replayed(domain: Domain, episodes: Iterable[Episode], *, total: int | None = None,
             progress: bool = False) -> np.ndarray:
    """(N,) bool: ``replay_reaches_goal`` of each episode, in order, on one simulator."""
    sim = domain.simulator()
    bar = tqdm(episodes, total=total, desc="replay stored actions", unit="episode", disable=not progress)
    return np.array([replay_reaches_goal(domain, sim, episode) for episode in bar], bool)


def replayed_dataset(dataset_id: str, progress: bool = False) -> np.ndarray:
    """``replayed`` for every episode of a local dataset."""
    from ..datasets.read import open_dataset, stored_episodes
    from ..domains import get_domain

    dataset, card = open_dataset(dataset_id)
    return replayed(get_domain(card.domain), stored_episodes(dataset, get_domain(card.domain)),
                    total=card.episodes, progress=progress)
