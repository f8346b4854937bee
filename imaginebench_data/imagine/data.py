"""Supervised data for grounding: real episodes -> sequences of the three tasks -> batches."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np
import torch

from ..core.domain import Symmetry
from ..core.episode import Episode
from ..core.task import UNRESOLVED
from ..datasets.read import open_dataset, stored_episodes
from ..domains import get_domain
from .sequences import (
    IGNORE,
    Sequence,
    SequenceBuilder,
    dynamics_sequence,
    explain_sequence,
    pad_field,
    rollout_sequence,
    stack_sentences,
)

HOLDOUT_EVERY = 10  # every 10th episode is held out from training (for the evidence)


def read_episodes(dataset_id: str) -> tuple[list[Episode], str]:
    """The episodes of a local dataset and its checksum."""
    dataset, card = open_dataset(dataset_id)
    return list(stored_episodes(dataset, get_domain(card.domain))), card.checksum


def split(episodes: list[Episode], per_task: bool = False) -> tuple[list[Episode], list[Episode]]:
    """(training, held out): every ``HOLDOUT_EVERY``-th episode is held out, or with
    ``per_task`` every ``HOLDOUT_EVERY``-th episode of each task. Recipes cycle through their
    tasks, so where the number of tasks shares a factor with ``HOLDOUT_EVERY`` the plain rule
    holds out some tasks more than others, and with 10 tasks (Meta-World) or 80 (CLEVR) every
    episode of some tasks: the model is never shown them (``TrainSettings.holdout_per_task``)."""
    seen: dict[str, int] = {}
    held_out = []
    for i, episode in enumerate(episodes):
        count = i
        if per_task:
            count = seen[episode.task_id] = seen.get(episode.task_id, -1) + 1
        held_out.append(count % HOLDOUT_EVERY == HOLDOUT_EVERY - 1)
    kept = [e for e, held in zip(episodes, held_out) if not held]
    return kept, [e for e, held in zip(episodes, held_out) if held]


def require_held_out(dataset_id: str, episodes: list[Episode], held_out: list[Episode],
                     per_task: bool) -> None:
    """A ``ValueError`` when ``split`` held out none of ``episodes``, so no evidence can be measured
    (found 2026-12-06: a set of fewer than 10 episodes, or fewer than 10 of each task with
    ``--holdout-per-task``, trained, then failed on "need at least one array to concatenate"
    and left a checkpoint without evidence)."""
    if held_out:
        return
    each = " of each task" if per_task else ""
    most = max(Counter(e.task_id for e in episodes).values(), default=0)
    detail = f"{len(episodes)} episodes" + (f", at most {most} of one task" if per_task else "")
    raise ValueError(f"{dataset_id} has {detail}: a grounding holds out every {HOLDOUT_EVERY}th "
                     f"episode{each} to measure its evidence, so it needs at least {HOLDOUT_EVERY}"
                     f"{each}; build the training set with more (--episodes)")


def training_phrasings(domain_name: str, train_eps: list[Episode],
                       every_task: bool = False) -> tuple[dict[str, tuple[str, ...]], list[str]]:
    """(each task's phrasings, all of them sorted) for grounding on ``train_eps`` (``split``'s
    training part): the texts whose embeddings a grounding needs. ``every_task``: those of
    every task of the episodes' levels, which symmetric copies can reach (``Domain.symmetry``)."""
    phrasings = task_phrasings(domain_name, train_eps)
    if every_task:
        domain = get_domain(domain_name)
        levels = sorted({e.level for e in train_eps})
        phrasings = {**{t.id: t.phrasings for level in levels for t in domain.tasks(level)}, **phrasings}
    return phrasings, sorted({p for options in phrasings.values() for p in options})


def task_phrasings(domain_name: str, episodes: list[Episode]) -> dict[str, tuple[str, ...]]:
    """Each task's phrasings at its episodes' level: instructions are re-drawn from these
    every epoch (KALM samples a paraphrase per sample), so every phrasing is seen. An
    ``unresolved`` imported episode has no task: it keeps its own instruction."""
    domain = get_domain(domain_name)
    return {e.task_id: domain.task(e.level, e.task_id).phrasings for e in episodes if e.task_id != UNRESOLVED}


class SequenceFactory:
    """Makes the epoch's sequences; ``sentence(text)`` gives the sentence embedding (or None)."""

    def __init__(self, tokenizer, slot_id: int, state_dim: int, action_shape: tuple[int, ...],
                 action_dtype: np.dtype, sentence: Callable[[str], np.ndarray | None]):
        self.tokenizer, self.slot_id = tokenizer, slot_id
        self.state_dim, self.action_shape, self.action_dtype = state_dim, action_shape, action_dtype
        self.sentence = sentence

    def builder(self, instruction: str | None = None) -> SequenceBuilder:
        sentence = self.sentence(instruction) if instruction is not None else None
        return SequenceBuilder(self.tokenizer, self.slot_id, self.state_dim, self.action_shape,
                               self.action_dtype, sentence)

    def epoch(self, episodes: list[Episode], phrasings: dict[str, tuple[str, ...]],
              rng: np.random.Generator, dynamics_per_episode: int = 2,
              steps_per_episode: int = 0, symmetry: Symmetry | None = None) -> list[Sequence]:
        """One epoch's sequences: per episode its rollout and explain sequences,
        ``dynamics_per_episode`` dynamics sequences and ``steps_per_episode`` one-step rollouts
        (the rollout task prompted at a random step t: s_t predicts a_t, a_t predicts s_{t+1},
        no earlier action to follow), each at a step drawn from ``rng``. With ``symmetry``
        (``Domain.symmetry``), each episode is first replaced by a copy drawn from ``rng``."""
        sequences = []
        for episode in episodes:
            if symmetry is not None:  # no draw at all when off, as for steps_per_episode
                episode = symmetry.episode(episode, rng)
            options = phrasings.get(episode.task_id) or (episode.instruction,)
            text = options[rng.integers(len(options))]
            sequences.append(rollout_sequence(self.builder(text), text, episode.states, episode.actions))
            rollout_text = text
            text = options[rng.integers(len(options))]
            sequences.append(explain_sequence(self.builder(text), text, episode.states, episode.actions))
            for t in rng.integers(len(episode.actions), size=dynamics_per_episode):
                sequences.append(dynamics_sequence(self.builder(), episode.states[t], episode.actions[t],
                                                   episode.states[t + 1]))
            if steps_per_episode:  # no draw at all when off: the epochs of before, bit for bit
                for t in rng.integers(len(episode.actions), size=steps_per_episode):
                    sequences.append(rollout_sequence(self.builder(rollout_text), rollout_text,
                                                      episode.states[t : t + 2], episode.actions[t : t + 1]))
        return sequences


def collate(sequences: list[Sequence], pad_id: int, max_positions: int, rng: np.random.Generator | None,
            device: torch.device | str = "cpu") -> dict[str, torch.Tensor]:
    """Right-padded tensors; ``position_ids`` start at a random offset when ``rng`` is given."""
    length = max(len(s) for s in sequences)
    if length > max_positions:
        raise ValueError(f"a sequence has {length} positions, more than the backbone's {max_positions}")
    fields = {"ids": pad_id, "kind": 0, "states": 0, "actions": 0, "state_target": 0, "state_base": 0,
              "state_mask": False, "action_target": 0, "action_mask": False, "labels": IGNORE}
    batch = {name: torch.from_numpy(pad_field(sequences, name, fill)) for name, fill in fields.items()}
    batch["kind"] = batch["kind"].long()
    batch["sentence"] = torch.from_numpy(stack_sentences(sequences))
    lengths = torch.tensor([len(s) for s in sequences])
    batch["attention_mask"] = (torch.arange(length)[None] < lengths[:, None]).long()
    offsets = np.zeros(len(sequences), np.int64)
    if rng is not None:
        offsets = rng.integers(0, max_positions - lengths.numpy() + 1)
    batch["position_ids"] = torch.arange(length)[None] + torch.from_numpy(offsets)[:, None]
    batch["position_ids"] = batch["position_ids"].clamp(max=max_positions - 1)
    if torch.device(device).type == "cuda":  # page-locked, so the copies overlap the GPU's work
        return {k: v.pin_memory().to(device, non_blocking=True) for k, v in batch.items()}
    return {k: v.to(device) for k, v in batch.items()}
