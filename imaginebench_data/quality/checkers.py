"""Run a domain's checkers over an episode and store the results as per-step infos.

Per step ``t`` in ``0..T`` (index 0 is the reset state):

- ``legal[t]``: state t breaks no domain constraint; ``illegal_mask[t]`` has bit k set for
  the k-th of ``domain.illegal_kinds``.
- ``success[t]``: the task's predicate on transition t-1 -> t (False at t = 0).
- ``transition_error[t]``: distance between s_t and the simulator's step from
  (s_{t-1}, a_{t-1}); 0 at t = 0, inf when either state is not finite. On a rebuilt path
  with ``Simulator.replay_steps`` = K, the scene is rebuilt up to K finite states back and
  the stored actions since are replayed before the step.
- ``transition_ok[t]``: ``transition_error[t] <= domain.transition_tolerance``.
- ``sim_state[t]`` (only when the episode carries ``sim_states``): the full simulator state
  the transition t -> t+1 is re-simulated from (exactly); without it the simulator is put in
  s_t alone (``Simulator.set_state``: exact where s_t is the whole state, else rebuilt).

An episode whose task id is ``UNRESOLVED`` (an import whose task is unknown) has no
predicate: ``success`` is False throughout. Its transitions are re-simulated with no task
where the simulator allows it; where the scene depends on the task (``Simulator.needs_task``)
they cannot be: ``transition_error`` is NaN ("not checked") and ``transition_ok`` True, so
they count as no error.

A generated episode carrying ``raw_states`` (its model's predictions before the domain's
decoding, see ``core.episode``) also gets ``raw_infos``, the same keys for each transition
(s_t, a_t) -> raw s_{t+1}, from the same simulator steps.
"""

from __future__ import annotations

import numpy as np

from ..core.domain import Domain
from ..core.episode import Episode
from ..core.simulator import Simulator
from ..core.task import UNRESOLVED, Task

INFO_KEYS = ("success", "legal", "illegal_mask", "transition_error", "transition_ok")
OPTIONAL_INFO_KEYS = ("sim_state",)  # written when present


def illegal_masks(domain: Domain, states: np.ndarray) -> np.ndarray:
    """(T+1,) int32 bit masks of the illegal kinds of each state."""
    flags = domain.illegal(states)
    return (flags.astype(np.int64) << np.arange(flags.shape[1])).sum(axis=1).astype(np.int32)


def resimulated(sim: Simulator, task: Task | None, states: np.ndarray, actions: np.ndarray,
                sim_states: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The simulator's step from each stored (s_t, a_t) ((T, D); from the stored full simulator
    states ``sim_states`` ((T+1, F)) where given), and which of them were stepped: those whose
    s_t and s_{t+1} are finite (the others keep s_t)."""
    finite = np.isfinite(states).all(axis=1)
    stepped = finite[:-1] & finite[1:]
    predicted = np.array(states[:-1], dtype=np.float32)
    if sim_states is None and task is not None:
        sim.start_rebuilds(task)
    for t, action in enumerate(actions):
        if not stepped[t]:
            continue
        if sim_states is not None:
            predicted[t] = sim.resimulate(task, states[t], action, sim_states[t])
        elif sim.replay_steps:
            start = replay_start(finite, t, sim.replay_steps)
            predicted[t] = sim.resimulate(task, states[t], action, earlier=(states[start], actions[start:t]))
        else:
            predicted[t] = sim.resimulate(task, states[t], action)
    return predicted, stepped


def replay_start(finite: np.ndarray, t: int, replay_steps: int) -> int:
    """The state a rebuilt re-simulation of step ``t`` starts from: the earliest at most
    ``replay_steps`` back from which every state up to t is finite (t itself when the state
    before is not; ``finite[t]`` must hold)."""
    start = t
    while start > max(0, t - replay_steps) and finite[start - 1]:
        start -= 1
    return start


def transition_errors(domain: Domain, predicted: np.ndarray, stepped: np.ndarray,
                      next_states: np.ndarray) -> np.ndarray:
    """(T,) distances between the simulator's steps and the stored next states; inf where
    either is not finite or the step was not taken."""
    errors = np.full(len(next_states), np.inf)
    checked = stepped & np.isfinite(next_states).all(axis=1)
    errors[checked] = domain.transition_distance(predicted[checked], next_states[checked])
    return errors


def _results(domain: Domain, task: Task | None, states: np.ndarray, actions: np.ndarray,
             next_states: np.ndarray, errors: np.ndarray) -> dict[str, np.ndarray]:
    """The per-step infos of T transitions into ``next_states`` ((T, D)), with ``states[0]``
    the reset state and ``errors`` ((T,), NaN: not checked)."""
    masks = illegal_masks(domain, np.concatenate([states[:1], next_states]))
    if task is None:
        success = np.zeros(len(actions), bool)
    else:
        with np.errstate(all="ignore"):
            success = task.success(states[:-1], actions, next_states)
    errors = np.concatenate([[0.0], errors])
    return {
        "success": np.concatenate([[False], np.asarray(success, bool)]),
        "legal": masks == 0,
        "illegal_mask": masks,
        "transition_error": errors.astype(np.float32),
        "transition_ok": np.isnan(errors) | (errors <= domain.transition_tolerance),
    }


def annotate(domain: Domain, episode: Episode, sim: Simulator) -> Episode:
    """Fill ``episode.infos`` with the checkers' per-step results (see module docstring), and
    ``episode.raw_infos`` with those of its raw predictions when it carries ``raw_states``:
    each transition (s_t, a_t) -> raw s_{t+1}, from the same simulator steps."""
    task = None if episode.task_id == UNRESOLVED else domain.task(episode.level, episode.task_id)
    states, actions = episode.states, episode.actions
    if task is None and sim.needs_task:  # no scene to re-simulate in
        predicted, stepped = None, None
        errors = np.full(len(actions), np.nan)
    else:
        predicted, stepped = resimulated(sim, task, states, actions, episode.sim_states)
        errors = transition_errors(domain, predicted, stepped, states[1:])
    episode.infos = _results(domain, task, states, actions, states[1:], errors)
    if episode.sim_states is not None:
        episode.infos["sim_state"] = np.asarray(episode.sim_states, np.float64)
    if episode.raw_states is not None:
        raw = np.asarray(episode.raw_states, np.float32)[1:]
        raw_errors = errors if predicted is None else transition_errors(domain, predicted, stepped, raw)
        episode.raw_infos = _results(domain, task, states, actions, raw, raw_errors)
    return episode
