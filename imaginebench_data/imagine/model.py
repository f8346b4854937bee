"""The grounded LM: a causal-LM backbone plus adapters into and heads out of its hidden space.

- ``state_in``: Linear(state_dim -> hidden) on the normalised state;
- ``action_in``: Embedding(n_actions, hidden) for discrete actions, Linear for continuous;
- ``sentence_in``: Linear(sentence_dim -> hidden) for the instruction's sentence embedding;
- ``state_head``: Linear(hidden -> state_dim), the change from the base state in units of
  ``delta_std`` (regression);
- ``action_head``: Linear(hidden -> n_actions) logits, or Linear(hidden -> A) regression, or
  with ``config.action_bins`` = K, Linear(hidden -> A * K) logits over K values per action
  number (``core.action_bins``).

The adapters' outputs replace the token embeddings at slot positions (``Sequence.kind``).
"""

from __future__ import annotations

import dataclasses

import torch
import torch.nn.functional as F
from torch import nn
from transformers.modeling_outputs import CausalLMOutputWithPast

from ..core.action_bins import ActionBins
from .config import SCRATCH, GroundingConfig
from .sequences import ACTION, IGNORE, SENTENCE, STATE

# transformers 5 renamed the key/value cache ``past_key_values`` to ``cache`` (the old name
# still works, with a deprecation warning on every generation); older releases know only the old.
_OUTPUT_FIELDS = {field.name for field in dataclasses.fields(CausalLMOutputWithPast)}
_CACHE = "cache" if "cache" in _OUTPUT_FIELDS else "past_key_values"


class GroundedLM(nn.Module):
    def __init__(self, config: GroundingConfig, backbone, tokenizer):
        super().__init__()
        self.config = config
        self.backbone = backbone
        self.tokenizer = tokenizer
        hidden = int(self._base_config().hidden_size)
        self.state_in = nn.Linear(config.state_dim, hidden)
        self.sentence_in = nn.Linear(config.sentence_dim, hidden) if config.sentence_dim else None
        if config.action_kind == "discrete":
            self.action_in = nn.Embedding(config.action_dim, hidden)
        else:
            self.action_in = nn.Linear(config.action_dim, hidden)
        self.state_head = nn.Linear(hidden, config.state_dim)
        self.bins = (ActionBins(config.action_low, config.action_high, config.action_bins)
                     if config.action_bins else None)
        self.action_head = nn.Linear(hidden, config.action_dim * (config.action_bins or 1))
        self.register_buffer("state_mean", torch.tensor(config.state_mean, dtype=torch.float32))
        self.register_buffer("state_std", torch.tensor(config.state_std, dtype=torch.float32))
        self.register_buffer("delta_std", torch.tensor(config.delta_std, dtype=torch.float32))
        # not saved: it follows from the config (and checkpoints before it keep their state dicts)
        self.register_buffer("hidden_columns", torch.tensor(config.hidden_columns, dtype=torch.long),
                             persistent=False)

    def _base_config(self):
        config = self.backbone.config
        return getattr(config, "get_text_config", lambda: config)()

    @property
    def jitter_positions(self) -> bool:
        """Learned absolute positions (the scratch GPT-2) are trained at random offsets so that
        rollouts longer than any training sequence still see trained positions."""
        return self.config.backbone == SCRATCH

    @property
    def device(self) -> torch.device:
        return self.state_mean.device

    # --- adapters -------------------------------------------------------------------------
    def embed(self, ids, kind, states, actions, sentence) -> torch.Tensor:
        """(B, L, H) input embeddings: token embeddings with slots overwritten."""
        embeds = self.backbone.get_input_embeddings()(ids)
        dtype = embeds.dtype
        is_state, is_action = kind == STATE, kind == ACTION
        embeds = torch.where(is_state[..., None], self.embed_states(states).to(dtype), embeds)
        embeds = torch.where(is_action[..., None], self.embed_actions(actions).to(dtype), embeds)
        if self.sentence_in is not None and sentence.shape[-1]:  # batches of dynamics prompts have none
            sentence_vec = self.sentence_in(sentence)[:, None, :].to(dtype)
            embeds = torch.where((kind == SENTENCE)[..., None], sentence_vec, embeds)
        return embeds

    def embed_states(self, states: torch.Tensor) -> torch.Tensor:
        normalised = (states - self.state_mean) / self.state_std
        if len(self.hidden_columns):  # seen as their mean
            normalised = normalised.index_fill(-1, self.hidden_columns, 0.0)
        return self.state_in(normalised)

    def embed_actions(self, actions: torch.Tensor) -> torch.Tensor:
        if self.config.action_kind == "discrete":
            return self.action_in(actions.long().clamp(0, self.config.action_dim - 1))
        return self.action_in(actions.float())

    # --- heads ----------------------------------------------------------------------------
    def next_state(self, hidden: torch.Tensor, base: torch.Tensor) -> torch.Tensor:
        return base + self.state_head(hidden.float()) * self.delta_std

    def action_output(self, hidden: torch.Tensor) -> torch.Tensor:
        """Logits (discrete, or continuous with bins) or the action itself (continuous)."""
        return self.action_head(hidden.float())

    def choose_action(self, hidden: torch.Tensor, draws: torch.Generator | None = None) -> torch.Tensor:
        """The most likely action; with action bins and ``draws``, each number drawn from its
        softmax instead."""
        out = self.action_output(hidden)
        if self.bins is not None:
            return self.bins.act(out, draws)
        return out.argmax(-1) if self.config.action_kind == "discrete" else out

    # --- backbone -------------------------------------------------------------------------
    def run(self, embeds, attention_mask, position_ids, cache=None, use_cache=False):
        """The backbone on ``embeds``: (last hidden states (B, L, H), logits, cache)."""
        out = self.backbone(inputs_embeds=embeds, attention_mask=attention_mask, position_ids=position_ids,
                            use_cache=use_cache, output_hidden_states=True, **{_CACHE: cache})
        return out.hidden_states[-1], out.logits, getattr(out, _CACHE, None)

    def forward(self, batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """``losses``: the call data-parallel wrappers (DDP, DeepSpeed) make."""
        return self.losses(batch)

    def losses(self, batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """The three supervised losses of a collated batch (see ``data.collate``)."""
        embeds = self.embed(batch["ids"], batch["kind"], batch["states"], batch["actions"], batch["sentence"])
        hidden, logits, _ = self.run(embeds, batch["attention_mask"], batch["position_ids"])
        zero = hidden.new_zeros(())
        out = {"state": zero, "action": zero, "text": zero}
        mask = batch["state_mask"]
        if mask.any():
            delta = (batch["state_target"] - batch["state_base"]) / self.delta_std
            predicted = self.state_head(hidden[mask].float())
            out["state"] = F.mse_loss(predicted, delta[mask])
        mask = batch["action_mask"]
        if mask.any():
            predicted = self.action_output(hidden[mask])
            target = batch["action_target"][mask]
            if self.config.action_kind == "discrete":
                out["action"] = F.cross_entropy(predicted, target.long())
            elif self.bins is not None:
                out["action"] = self.bins.loss(predicted, target)
            else:
                out["action"] = F.mse_loss(predicted, target.float())
        labels = batch["labels"]
        if (labels != IGNORE).any():
            out["text"] = F.cross_entropy(logits.float().flatten(0, 1), labels.flatten(), ignore_index=IGNORE)
        return out
