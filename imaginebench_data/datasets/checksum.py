"""A sha256 over a dataset's arrays, episode by episode, in a fixed order."""

from __future__ import annotations

import hashlib

import numpy as np

from ..core.episode import Episode


class ArrayChecksum:
    """Feed episodes in order; ``hexdigest()`` identifies the arrays (not the file bytes)."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256()

    def update(self, episode: Episode) -> None:
        for array in (episode.states, episode.actions, episode.rewards, episode.terminations,
                      episode.truncations):
            array = np.ascontiguousarray(array)
            self._hash.update(str(array.dtype).encode() + str(array.shape).encode())
            self._hash.update(array.tobytes())
        self._hash.update(episode.instruction.encode("utf-8"))
        if episode.sim_states is not None:  # only domains that store full simulator states
            self._hash.update(np.ascontiguousarray(episode.sim_states, np.float64).tobytes())

    def hexdigest(self) -> str:
        return self._hash.hexdigest()
