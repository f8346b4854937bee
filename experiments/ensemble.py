"""Groundings of one setting under other seeds, imagining as one model (2026-12-05, evening;
docs/experiments.md, "LIBERO: three groundings imagining as one").

``Ensemble(paths)`` has the parts of ``GroundedLM`` that ``imagine.generate`` calls. Every
member reads the same context, each through its own adapters and backbone; at each step the
action is the members' mean (continuous) or the argmax of their mean probabilities (discrete),
and the next state their mean prediction, which every member then reads. The members' hidden
states and input embeddings travel side by side in one tensor (concatenated on the last
axis), so the generator's batching and cache run unchanged.
"""

from __future__ import annotations

import torch

from imaginebench_data.imagine.checkpoint import load_checkpoint


class Ensemble:
    def __init__(self, paths: list[str], device: str = "cpu"):
        self.members = [load_checkpoint(path, device) for path in paths]
        first = self.members[0]
        self.config, self.tokenizer, self.bins = first.config, first.tokenizer, first.bins
        vocab = [m.tokenizer.get_vocab() for m in self.members]
        if any(v != vocab[0] for v in vocab):
            raise ValueError("the members' tokenizers differ: ground them on the same training set")

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
        caches = cache or (None,) * len(self.members)
        outs = [m.run(e, attention_mask, position_ids, c, use_cache)
                for m, e, c in zip(self.members, self._split(embeds), caches)]
        return torch.cat([o[0] for o in outs], -1), None, tuple(o[2] for o in outs)

    def choose_action(self, hidden: torch.Tensor, draws: torch.Generator | None = None) -> torch.Tensor:
        outputs = [m.action_output(h) for m, h in zip(self.members, self._split(hidden))]
        if self.config.action_kind == "discrete":
            return torch.stack([o.softmax(-1) for o in outputs]).mean(0).argmax(-1)
        if self.bins is not None:
            raise NotImplementedError("action bins: average the members' probabilities per number")
        return torch.stack(outputs).mean(0)

    def next_state(self, hidden: torch.Tensor, base: torch.Tensor) -> torch.Tensor:
        return torch.stack([m.next_state(h, base) for m, h in zip(self.members, self._split(hidden))]).mean(0)


def load_model(spec: str, device: str = "cpu"):
    """A checkpoint folder, or several joined by commas: their ensemble."""
    paths = spec.split(",")
    return load_checkpoint(paths[0], device) if len(paths) == 1 else Ensemble(paths, device)
