"""A stored episode's states as images: the simulator put in each state, the domain drawing it.

Real data of a domain whose dataset state is an observation carries the full simulator state
at every step (``Episode.sim_states``): its frames are exact. Imagined and imported data has
only the dataset states, so each frame is the simulator rebuilt from the state
(``Simulator.set_state``): exact for CLEVR, BabyAI and HalfCheetah, approximate for LIBERO,
and for Meta-World the gripper only (its objects stay where the scene was reset). Such an
episode's rebuilds start from one fixed scene (``Simulator.start_rebuilds``, as the checkers'
do), so a picture does not depend on what the process drew before: until 2026-12-07 Meta-World's
arm joints behind a rebuilt gripper were settled from wherever the last picture left them.
"""

from __future__ import annotations

import numpy as np

from ..core.domain import Domain
from ..core.episode import Episode
from ..core.render import RenderError, draw_state
from ..core.simulator import Simulator
from ..core.task import Task

_simulators: dict[str, Simulator] = {}  # one drawing simulator per domain and process


def drawing_simulator(domain: Domain) -> Simulator:
    """The process's simulator for drawing ``domain``'s states, made once (a LIBERO scene takes
    seconds to build) and used for nothing else."""
    if domain.render is None:
        raise RenderError(f"domain {domain.name!r} has no renderer (its Domain.render is None)")
    if domain.name not in _simulators:
        _simulators[domain.name] = domain.simulator()
    return _simulators[domain.name]


def frame_steps(length: int, every: int | None = None, most: int = 8) -> list[int]:
    """The state indices (of ``0..length``, an episode of ``length`` steps) to draw: every
    ``every``-th from 0 and always the last; with ``every`` None, ``min(most, length + 1)``
    indices spread evenly from 0 to ``length``."""
    if every is None:
        count = min(most, length + 1)
        return sorted({round(k * length / max(1, count - 1)) for k in range(count)})
    if every < 1:
        raise ValueError(f"--every must be at least 1, got {every}")
    steps = list(range(0, length + 1, every))
    return steps if steps[-1] == length else [*steps, length]


def episode_task(domain: Domain, episode: Episode, sim: Simulator) -> Task | None:
    """The episode's task, or None where it is unknown (an unresolved import) and the
    simulator does not need it to know the scene."""
    try:
        return domain.task(episode.level, episode.task_id)
    except KeyError:
        if sim.needs_task:
            raise RenderError(f"episode of unknown task {episode.task_id!r} at level {episode.level!r}: "
                             f"a {domain.name} scene depends on its task, so it cannot be drawn") from None
        return None


def episode_frames(domain: Domain, episode: Episode, steps: list[int],
                   sim: Simulator | None = None) -> list[np.ndarray]:
    """``len(steps)`` images ``(H, W, 3)`` uint8: ``episode``'s states at ``steps`` (indices
    into its ``(T+1, D)`` states), each drawn from the stored simulator state where there is
    one, else rebuilt from the state."""
    sim = sim or drawing_simulator(domain)
    task = episode_task(domain, episode, sim)
    if episode.sim_states is None and task is not None:
        sim.start_rebuilds(task)  # the frames must not depend on what the simulator drew before
    frames = []
    for t in steps:
        sim_state = None if episode.sim_states is None else episode.sim_states[t]
        frames.append(draw_state(domain, sim, task, episode.states[t], sim_state))
    return frames
