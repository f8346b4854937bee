"""Checking a stored dataset the way its users meet it: read back through Minari, as stored.

``verify(dataset_id)`` answers, from the files alone (nothing of the build is in memory):

- does ``minari`` load it, with the episode and step counts its card states;
- do its arrays still hash to the card's checksum (states, actions, rewards, episode ends,
  instructions and stored simulator states, as written);
- does ``recover_environment(eval_env=True)`` give the eval env of its level, whose reset
  observation fits its observation space;
- real data only: does it meet its checkers' floor, recomputed from the per-step flags the
  checkers stored (every state legal, every transition re-simulated within tolerance).

``imaginebench verify`` runs it over local datasets; a new process is a fresh reader.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..domains import get_domain
from .checksum import ArrayChecksum
from .ids import DatasetId
from .read import open_dataset, stored_episodes


@dataclass
class Verdict:
    dataset_id: str
    episodes: int = 0
    steps: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _check_floor(verdict: Verdict, infos: dict, index: int) -> None:
    """Real data: every stored state legal and every transition within tolerance."""
    for key, what in (("legal", "illegal state"), ("transition_ok", "transition beyond tolerance")):
        flags = infos.get(key)
        if flags is None:
            verdict.problems.append(f"episode {index} has no infos[{key!r}]: not checked by the checkers")
        elif not np.all(flags):
            first = int(np.argmin(np.asarray(flags)))
            verdict.problems.append(f"episode {index}: {what} at step {first} "
                                    "(real data must meet the floor)")


def _check_env(verdict: Verdict, dataset, level: str) -> None:
    env = dataset.recover_environment(eval_env=True)
    try:
        found = getattr(env.unwrapped, "level", None)
        if found != level:
            verdict.problems.append(f"eval env is at level {found!r}, expected {level!r}")
        obs, _ = env.reset(seed=0)
        if not env.observation_space.contains(obs):
            verdict.problems.append("the eval env's reset observation is outside its observation space")
    finally:
        env.close()


def verify(dataset_id: str) -> Verdict:
    """Check a local dataset (see the module docstring); problems are listed, never raised."""
    parsed = DatasetId.parse(dataset_id)
    verdict = Verdict(dataset_id)
    dataset, card = open_dataset(dataset_id)
    verdict.episodes, verdict.steps = dataset.total_episodes, dataset.total_steps
    for key, found in (("episodes", verdict.episodes), ("steps", verdict.steps)):
        if getattr(card, key) != found:
            verdict.problems.append(f"card says {getattr(card, key)} {key}, Minari reads {found}")
    checksum = ArrayChecksum()
    for index, episode in enumerate(stored_episodes(dataset, get_domain(parsed.domain))):
        checksum.update(episode)
        if parsed.source == "real" and len(verdict.problems) < 5:
            _check_floor(verdict, episode.infos, index)
    if checksum.hexdigest() != card.checksum:
        verdict.problems.append(f"arrays hash to {checksum.hexdigest()[:12]}, the card says "
                                f"{str(card.checksum)[:12]}: the data changed after it was written")
    _check_env(verdict, dataset, parsed.level)
    return verdict
