"""Flat vectors for third-party learners: ``FlatObservation`` and ``make_env_and_datasets``.

An offline-RL library trains on flat rows ``[s_t, e(instruction)]`` (``adapters.to_d4rl``:
the state, then the instruction's sentence embedding); ``FlatObservation`` gives its
evaluator the same row from the env's ``Dict(state, instruction)`` observation, so any
library's own evaluator (d3rlpy's ``EnvironmentEvaluator``, a TorchRL collector) runs a
trained policy unchanged. ``make_env_and_datasets`` is the one call that sets this up, in the
spirit of OGBench's.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from ..core.env import make_env
from ..datasets.ids import NAMESPACE, DatasetId
from .encoders import DEFAULT_ENCODER, encode_each, get_encoder


class FlatRow:
    """``row(observation)``: the ``(D + E,)`` float32 vector ``[state, e(instruction)]`` of one
    ``Dict(state, instruction)`` observation, ``e`` being ``encoder`` (None: the state alone).
    Each distinct instruction is encoded once, on its own (``encode_each``), so its bits are
    the training rows' whatever was encoded before."""

    def __init__(self, encoder: Any) -> None:
        self.encoder = encoder
        self._embeddings: dict[str, np.ndarray] = {}

    def __call__(self, observation: dict[str, Any]) -> np.ndarray:
        state = np.asarray(observation["state"], np.float32)
        if self.encoder is None:
            return state
        text = observation["instruction"]
        if text not in self._embeddings:
            self._embeddings[text] = np.asarray(encode_each(self.encoder, [text])[0], np.float32)
        return np.concatenate([state, self._embeddings[text]])


class FlatObservation(gym.ObservationWrapper):
    """``Dict(state, instruction)`` observations as ``(D + E,)`` float32 vectors: the state,
    then ``encoder``'s embedding of the instruction (None: the state alone), exactly the rows
    ``adapters.to_d4rl(..., encoder=encoder)`` gives (``FlatRow``)."""

    def __init__(self, env: gym.Env, encoder: Any = DEFAULT_ENCODER) -> None:
        space = getattr(env, "observation_space", None)
        if not (isinstance(space, gym.spaces.Dict) and {"state", "instruction"} <= set(space.spaces)):
            raise TypeError(f"FlatObservation wraps an env whose observations are Dict(state, instruction), "
                            f"as ib.make_env's are; got {space}")
        super().__init__(env)
        self.encoder = get_encoder(encoder)
        self._row = FlatRow(self.encoder)
        state = space["state"]
        width = state.shape[0] + (self.encoder.dim if self.encoder is not None else 0)
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (width,), np.float32)

    def observation(self, observation: dict[str, Any]) -> np.ndarray:
        return self._row(observation)


def make_env_and_datasets(name: str, *, source: str = "imaginary", encoder: Any = DEFAULT_ENCODER,
                          flat: bool = True, render_mode: str | None = None) -> tuple[gym.Env, Any, Any]:
    """The eval env of a level and the data to train for it: ``(env, train, level_data)``.

    ``name`` is ``"<domain>-<level>"`` (e.g. ``"clevr-hard"``); ``train`` is
    ``<domain>-train-real``, ``level_data`` the level's ``source`` set (``imaginary`` by
    default, ``verified``, or ``real`` for the oracle; the train level has only ``real``). With
    ``flat`` (the default) the env is wrapped in ``FlatObservation(encoder)`` and both datasets
    are D4RL dicts of the same rows (``adapters.to_d4rl``); otherwise the plain env and
    ``Transitions`` (``load``). ``render_mode="rgb_array"`` lets ``env.render()`` draw. The
    datasets must be built (``imaginebench build``); the error says how otherwise.
    """
    from ..adapters.d4rl import to_d4rl
    from ..core.episode import SOURCES
    from ..core.task import LEVELS
    from ..domains import get_domain
    from .transitions import load

    if not isinstance(name, str) or name.count("-") != 1:
        raise ValueError(f"expected a name '<domain>-<level>', e.g. 'clevr-hard', got {name!r}")
    domain, level = name.split("-")
    get_domain(domain)  # an unknown domain is named before any id is made of it
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r} in {name!r}: expected one of {', '.join(LEVELS)}")
    if source not in SOURCES or (level == "train" and source != "real"):
        offered = ("real",) if level == "train" else SOURCES
        raise ValueError(f"source {source!r} for level {level!r}: expected one of {', '.join(offered)} "
                         "(real: the oracle's expert data)")
    train = DatasetId.parse(f"{NAMESPACE}/{domain}-train-real-v0")
    level_id = train.with_(level=level, source=source)
    env = make_env(domain, level, render_mode=render_mode)
    if not flat:
        return env, load(train), load(level_id)
    encoder = get_encoder(encoder)
    return (FlatObservation(env, encoder), to_d4rl(load(train), encoder=encoder),
            to_d4rl(load(level_id), encoder=encoder))
