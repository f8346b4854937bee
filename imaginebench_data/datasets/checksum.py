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

import functools
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

    def update(self, episode: Episode) -> None:
        self.update_bytes(self.episode_bytes(episode), episodes=1)

    def update_bytes(self, data: bytes, episodes: int) -> None:
        """Feed what ``episode_bytes`` gave for ``episodes`` episodes, in order (joined or not:
        SHA-256 reads one stream), e.g. from processes that read the episodes in parallel."""
        self._hash.update(data)
        self._episodes += episodes

    def episode_bytes(self, episode: Episode) -> bytes:
        """What ``update(episode)`` hashes (the same for every instance of this kind)."""
        pieces = [_array_bytes(array) for array in (episode.states, episode.actions, episode.rewards,
                                                    episode.terminations, episode.truncations)]
        pieces.append(episode.instruction.encode("utf-8"))
        if episode.sim_states is not None:  # only domains that store full simulator states
            pieces.append(np.ascontiguousarray(episode.sim_states, np.float64).tobytes())
        if self.everything:
            for key in INFO_KEYS:  # the flags the writer stores, in a fixed order
                if key in episode.infos:
                    pieces.append(key.encode())
                    pieces.append(_array_bytes(np.asarray(episode.infos[key])))
            metadata = {**episode.metadata, "seed": int(episode.seed)}
            pieces.append(json.dumps(metadata, sort_keys=True).encode("utf-8"))
        return b"".join(pieces)

    def hexdigest(self) -> str:
        digest = self._hash.copy()
        if self.everything:
            digest.update(f"episodes={self._episodes}".encode())
        return digest.hexdigest()


@functools.lru_cache(maxsize=256)
def _header(dtype: np.dtype, shape: tuple[int, ...]) -> bytes:
    return str(dtype).encode() + str(shape).encode()


def _array_bytes(array: np.ndarray) -> bytes:
    """An array's dtype, shape and bytes, as the checksum hashes it."""
    array = np.ascontiguousarray(array)
    header = (_header(array.dtype, array.shape) if array.dtype.metadata is None
              else str(array.dtype).encode() + str(array.shape).encode())
    return header + array.tobytes()
