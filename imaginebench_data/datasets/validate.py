"""Validation of an episode before it is written (Minari checks none of this).

Checked: T+1 states against T actions/rewards/flags, dtypes and shapes of the spaces,
actions inside the action space, the instruction inside the Text space, finite rewards,
finite states (or, for imaginary data, non-finite states that the checkers flagged illegal),
infos of length T+1, and exactly one of termination/truncation, at the last step only.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from ..core.episode import SOURCES, Episode


class DatasetValidationError(ValueError):
    """An episode does not match the dataset's spaces or alignment; nothing was written."""


def _fail(index: int, episode: Episode, message: str) -> None:
    raise DatasetValidationError(f"episode {index} (task {episode.task_id!r}): {message}")


def validate_episode(index: int, episode: Episode, observation_space: gym.spaces.Dict,
                     action_space: gym.Space, required_infos: tuple[str, ...]) -> None:
    state_space = observation_space["state"]
    steps = len(episode.actions)
    states = episode.states
    if steps < 1:
        _fail(index, episode, "has no actions; an episode needs at least one step")
    if states.dtype != state_space.dtype:
        _fail(index, episode, f"states have dtype {states.dtype}, expected {state_space.dtype}")
    if states.shape != (steps + 1, *state_space.shape):
        _fail(index, episode, f"states have shape {states.shape}, expected "
                              f"{(steps + 1, *state_space.shape)} (T+1 states for T = {steps} actions)")
    for name in ("rewards", "terminations", "truncations"):
        array = getattr(episode, name)
        if array.shape != (steps,):
            _fail(index, episode, f"{name} have shape {array.shape}, expected ({steps},)")
    if episode.rewards.dtype != np.float32 or not np.isfinite(episode.rewards).all():
        _fail(index, episode, f"rewards must be finite float32, got dtype {episode.rewards.dtype} "
                              f"with {int((~np.isfinite(episode.rewards)).sum())} non-finite values")
    for name in ("terminations", "truncations"):
        if getattr(episode, name).dtype != np.bool_:
            _fail(index, episode, f"{name} must be bool, got {getattr(episode, name).dtype}")
    ends = episode.terminations | episode.truncations
    if ends[:-1].any() or episode.terminations[-1] == episode.truncations[-1]:
        _fail(index, episode, "expected exactly one of termination/truncation at the last step and "
                              f"none before; got terminations at {np.flatnonzero(episode.terminations)} "
                              f"and truncations at {np.flatnonzero(episode.truncations)}")
    for t, action in enumerate(episode.actions):
        if not action_space.contains(action.item() if np.ndim(action) == 0 else action):
            _fail(index, episode, f"action {t} = {action!r} is not in {action_space}")
    if not observation_space["instruction"].contains(episode.instruction):
        bad = sorted(set(episode.instruction) - set(observation_space["instruction"].character_set))
        _fail(index, episode, f"instruction {episode.instruction!r} is not in the Text space "
                              f"(length {len(episode.instruction)}, characters outside the charset: {bad})")
    for name in required_infos:
        if name not in episode.infos:
            _fail(index, episode, f"infos lack {name!r}; run the checkers before writing")
        if len(episode.infos[name]) != steps + 1:
            _fail(index, episode, f"infos[{name!r}] has {len(episode.infos[name])} entries, "
                                  f"expected T+1 = {steps + 1}")
    if "sim_state" in episode.infos:
        sim_state = np.asarray(episode.infos["sim_state"])
        if sim_state.ndim != 2 or len(sim_state) != steps + 1 or not np.isfinite(sim_state).all():
            _fail(index, episode, f"infos['sim_state'] must be a finite (T+1, F) array with T+1 = "
                                  f"{steps + 1}, got shape {sim_state.shape}")
    finite = np.isfinite(states).all(axis=tuple(range(1, states.ndim)))
    unflagged = ~finite & np.asarray(episode.infos["legal"], bool)
    if (~finite).any() and (episode.source == "real" or unflagged.any()):
        _fail(index, episode, f"states at steps {np.flatnonzero(~finite).tolist()} are not finite "
                              "(allowed only in imaginary data, flagged illegal by the checkers)")
    if episode.source not in SOURCES:
        _fail(index, episode, f"source must be one of {SOURCES}, got {episode.source!r}")
