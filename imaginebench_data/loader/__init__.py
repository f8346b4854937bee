"""Reading datasets for training and evaluating policies.

- ``load(id)``: all transitions of one dataset as flat, aligned arrays (cached on disk).
- ``Sampler({ds: ratio}, encoder=..., filters=...)``: mixed batches with instruction embeddings.
- ``get_encoder(spec)``: instruction encoders (``"minilm"``, a local model directory, or None).
- ``evaluate(policy, domain, level)``: success rate per task in the eval env.
"""

from __future__ import annotations

from ..datasets.read import DatasetNotFoundError
from .encoders import Encoder, HFEncoder, get_encoder
from .evaluate import evaluate
from .filters import FILTERS, PRESETS
from .sampler import Sampler, leftover_rows
from .transitions import Transitions, default_cache_dir, load

__all__ = [
    "load",
    "Transitions",
    "default_cache_dir",
    "DatasetNotFoundError",
    "Sampler",
    "FILTERS",
    "PRESETS",
    "leftover_rows",
    "get_encoder",
    "Encoder",
    "HFEncoder",
    "evaluate",
]
