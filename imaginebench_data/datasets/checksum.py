"""The checksum of a dataset: a sha256 over everything its users read from its episodes.

Since card schema 3 it covers, episode by episode in Minari's order: the arrays (states,
actions, rewards, terminations, truncations: dtype, shape and bytes), the instruction, the
stored simulator states, every checker flag in ``infos`` (``success``, ``legal``,
``illegal_mask``, ``transition_error``, ``transition_ok``), the episode's metadata (task,
level, phrasing, source, how its task was resolved, seed) and, last, the number of episodes.
So flipping a flag, editing an episode's task or dropping an episode changes it.

Cards of schema 2 and older state the first checksum, over the arrays, instructions and
simulator states only; ``DatasetChecksum.for_card(card)`` computes the kind a card states, so
datasets written before still verify.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from ..core.episode import Episode
from ..quality.checkers import INFO_KEYS

COVERS_EVERYTHING_SINCE = 3  # the card schema from which the checksum covers infos, metadata and count


class DatasetChecksum:
    """Feed episodes in order; ``hexdigest()`` identifies what a user reads (not the file bytes).
    ``everything=False`` computes the older checksum of card schemas <= 2 (see the module docstring)."""

    def __init__(self, everything: bool = True) -> None:
        self.everything = everything
        self._hash = hashlib.sha256()
        self._episodes = 0

    @classmethod
    def for_card(cls, card) -> DatasetChecksum:
        """The checksum of the kind ``card`` states (by its schema version)."""
        return cls(everything=card.schema_version >= COVERS_EVERYTHING_SINCE)

    def _array(self, array: np.ndarray) -> None:
        array = np.ascontiguousarray(array)
        self._hash.update(str(array.dtype).encode() + str(array.shape).encode())
        self._hash.update(array.tobytes())

    def update(self, episode: Episode) -> None:
        for array in (episode.states, episode.actions, episode.rewards, episode.terminations,
                      episode.truncations):
            self._array(array)
        self._hash.update(episode.instruction.encode("utf-8"))
        if episode.sim_states is not None:  # only domains that store full simulator states
            self._hash.update(np.ascontiguousarray(episode.sim_states, np.float64).tobytes())
        if self.everything:
            for key in INFO_KEYS:  # the flags the writer stores, in a fixed order
                if key in episode.infos:
                    self._hash.update(key.encode())
                    self._array(np.asarray(episode.infos[key]))
            metadata = {**episode.metadata, "seed": int(episode.seed)}
            self._hash.update(json.dumps(metadata, sort_keys=True).encode("utf-8"))
        self._episodes += 1

    def hexdigest(self) -> str:
        digest = self._hash.copy()
        if self.everything:
            digest.update(f"episodes={self._episodes}".encode())
        return digest.hexdigest()
