"""KALM's grounding of a causal language model in a domain, and imagined rollouts.

- ``train_grounding`` (train.py): adapters + heads + backbone trained on three supervised
  tasks built from a real dataset; ``ensure_checkpoint`` (store.py) trains once per
  configuration and measures the evidence (evidence.py).
- ``imagine`` (generate.py): batched, cached, greedy rollouts for novel instructions.
- ``load_checkpoint`` (checkpoint.py): a saved model, with the hash cards cite.

Heavy imports (torch, transformers) happen when these modules are imported, not here.
"""

from .config import SCRATCH, GroundingConfig

__all__ = ["SCRATCH", "GroundingConfig"]
