"""Several groundings of one setting, under other seeds, imagining as one model.

``Ensemble(paths)`` has the parts of ``GroundedLM`` that the generator (``generate.py``,
``prompting.py``) calls. Every member reads the same context, each through its own adapters
and backbone. At each step the action is the argmax of the members' mean probabilities
(discrete actions, and continuous ones with action bins: per action number) or the members'
mean action (regressed continuous actions), and the next state is the members' mean
prediction, which every member then reads. The members' hidden states and input embeddings
travel side by side in one tensor (concatenated on the last axis), so the generator's
batching and key/value cache run unchanged. An ensemble of one checkpoint is that checkpoint.

On LIBERO's easy level three demo groundings imagining as one were 51.0% goal consistent
where their members were 36.5-49.0% (docs/experiments.md, "LIBERO: three groundings
imagining as one"). Builds take it with ``imaginebench build ... --ensemble N``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import torch

from .checkpoint import load_checkpoint


class Ensemble:
    def __init__(self, paths: Sequence[str | Path], device: str | torch.device = "cpu"):
        if not paths:
            raise ValueError("an ensemble needs at least one checkpoint")
        self.members = [load_checkpoint(path, device) for path in paths]
        first = self.members[0]
        self.config, self.tokenizer, self.bins = first.config, first.tokenizer, first.bins
        shared = ("backbone", "scratch", "state_dim", "action_kind", "action_dim", "action_bins")
        for path, member in zip(paths[1:], self.members[1:]):
            if member.tokenizer.get_vocab() != first.tokenizer.get_vocab() or \
                    any(getattr(member.config, f) != getattr(first.config, f) for f in shared):
                raise ValueError(f"ensemble member {path}: expected the backbone, tokenizer, state size and "
                                 f"actions of {paths[0]} (ground every member on the same training set with "
                                 "the same levers), found others")

    @property
    def device(self) -> torch.device:
        return self.members[0].device

    def _split(self, joined: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return joined.chunk(len(self.members), dim=-1)

    def embed(self, ids, kind, states, actions, sentence) -> torch.Tensor:
        return torch.cat([m.embed(ids, kind, states, actions, sentence) for m in self.members], -1)

    def embed_states(self, states: torch.Tensor) -> torch.Tensor:
        return torch.cat([m.embed_states(states) for m in self.members], -1)

    def embed_actions(self, actions: torch.Tensor) -> torch.Tensor:
        return torch.cat([m.embed_actions(actions) for m in self.members], -1)

    def run(self, embeds, attention_mask, position_ids, cache=None, use_cache=False):
        """Each member on its share of ``embeds``: (the members' last hidden states joined, None,
        the members' caches)."""
        caches = cache or (None,) * len(self.members)
        outs = [m.run(e, attention_mask, position_ids, c, use_cache)
                for m, e, c in zip(self.members, self._split(embeds), caches)]
        return torch.cat([o[0] for o in outs], -1), None, tuple(o[2] for o in outs)

    def choose_action(self, hidden: torch.Tensor, draws: torch.Generator | None = None) -> torch.Tensor:
        if len(self.members) == 1:
            return self.members[0].choose_action(hidden, draws)
        outputs = [m.action_output(h) for m, h in zip(self.members, self._split(hidden))]
        if self.bins is not None:  # each number's probabilities over its values, averaged
            count = self.bins.count
            mean = torch.stack([o.reshape(len(o), -1, count).softmax(-1) for o in outputs]).mean(0)
            return self.bins.act(mean.log().reshape(len(mean), -1), draws)
        if self.config.action_kind == "discrete":
            return torch.stack([o.softmax(-1) for o in outputs]).mean(0).argmax(-1)
        return torch.stack(outputs).mean(0)

    def next_state(self, hidden: torch.Tensor, base: torch.Tensor) -> torch.Tensor:
        predicted = [m.next_state(h, base) for m, h in zip(self.members, self._split(hidden))]
        return predicted[0] if len(predicted) == 1 else torch.stack(predicted).mean(0)


def load_model(paths: str | Path | Sequence[str | Path], device: str | torch.device = "cpu"):
    """One checkpoint folder (or a list of one): its model; several (a list, or joined by
    commas): their ``Ensemble``."""
    if isinstance(paths, (str, Path)):
        paths = str(paths).split(",")
    paths = list(paths)
    return load_checkpoint(paths[0], device) if len(paths) == 1 else Ensemble(paths, device)
