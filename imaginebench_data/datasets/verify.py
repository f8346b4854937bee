"""Checking a stored dataset the way its users meet it: read back through Minari, as stored.

``verify(dataset_id)`` answers, from the files alone (nothing of the build is in memory):

- does ``minari`` load it, with the episode and step counts its card states;
- do its episodes still hash to the card's checksum (arrays, instructions, simulator states,
  checker flags, episode metadata and count: see ``checksum``);
- does ``recover_environment(eval_env=True)`` give the eval env of its level, whose reset
  observation fits its observation space;
- do the card's figures (goal consistency, the error and illegal-state rates, lengths,
  returns, per task) equal the same figures recomputed from the stored per-step flags;
- real data only: does it meet its checkers' floor, recomputed from the per-step flags the
  checkers stored (every state legal, every transition re-simulated within tolerance).

It never raises: whatever cannot be read is a problem of that dataset, named.

``imaginebench verify`` runs it over local datasets; a new process is a fresh reader.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..cards.card import Card, CardError, build_card
from ..domains import get_domain
from ..quality.frame import episode_row
from .checksum import DatasetChecksum
from .ids import DatasetId, DatasetIdError
from .read import DatasetNotFoundError, open_dataset, stored_episodes


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


# The card's figures, recomputed from the stored per-step flags and compared.
FIGURES = ("tasks", "phrasings", "goal_consistency", "transition_error_rate", "illegal_state_rate",
           "illegal_by_kind", "length", "returns", "per_task", "unresolved", "resolution")


def verify(dataset_id: str | DatasetId) -> Verdict:
    """Check a local dataset (see the module docstring). Never raises: a dataset that cannot be
    read (a malformed id, a damaged file or card) is reported broken with the reason."""
    verdict = Verdict(str(dataset_id))
    try:
        _verify(verdict, DatasetId.parse(dataset_id))
    except Exception as error:  # anything unreadable: broken, with the reason, never a crash
        reason = error.args[0] if isinstance(error, KeyError) and error.args else error
        ours = isinstance(error, (DatasetNotFoundError, CardError, DatasetIdError))  # they say what it is
        verdict.problems.append(f"cannot be read: {'' if ours else type(error).__name__ + ': '}{reason}")
    return verdict


def _verify(verdict: Verdict, parsed: DatasetId) -> None:
    dataset, card = open_dataset(parsed)
    domain = get_domain(parsed.domain)
    verdict.episodes, verdict.steps = dataset.total_episodes, dataset.total_steps
    for key, found in (("episodes", verdict.episodes), ("steps", verdict.steps)):
        if getattr(card, key) != found:
            verdict.problems.append(f"card says {getattr(card, key)} {key}, Minari reads {found}")
    checksum, rows = DatasetChecksum.for_card(card), []
    for index, episode in enumerate(stored_episodes(dataset, domain)):
        checksum.update(episode)
        rows.append(episode_row(domain, episode.metadata, episode.rewards, episode.infos))
        if parsed.source == "real" and len(verdict.problems) < 5:
            _check_floor(verdict, episode.infos, index)
    if checksum.hexdigest() != card.checksum:
        verdict.problems.append(f"its episodes hash to {checksum.hexdigest()[:12]}, the card says "
                                f"{str(card.checksum)[:12]}: the data changed after it was written")
    _check_figures(verdict, card, build_card(parsed, domain, pd.DataFrame(rows), card.checksum,
                                             scale=card.scale, provenance={}))
    _check_env(verdict, dataset, parsed.level)


def _check_figures(verdict: Verdict, card: Card, recomputed: Card) -> None:
    """The card's figures against the same figures recomputed from the stored flags."""
    differ = [name for name in FIGURES if getattr(card, name) != getattr(recomputed, name)]
    for name in differ[:3]:
        stated, found = getattr(card, name), getattr(recomputed, name)
        detail = (f"{stated} on the card, {found} from the stored flags"
                  if not isinstance(stated, dict) else "the card's differ from the stored flags'")
        verdict.problems.append(f"card figure {name!r}: {detail}")
