"""Batches whose rows are copies of a sampler's (``BCSettings.symmetries``).

Each transition of a batch is replaced by a copy drawn for that row (``Domain.symmetry``;
CLEVR: colours permuted, the table mirrored, its instruction the copied task's phrasing with
the same template; LIBERO: items the task leaves put in the basket, its instruction kept). The
copies' phrasings are embedded once, ahead, with the sampler's encoder. Rows the domain does
not copy (CLEVR's hard tasks) stay as they are.
"""

from __future__ import annotations

import numpy as np
import torch

from ..core.domain import Symmetry
from ..loader.encoders import cached_encode
from ..loader.sampler import Sampler
from ..loader.transitions import default_cache_dir


class CopiedBatches:
    """``sample(batch_size)``: a torch batch like ``Sampler.sample``'s (observations, actions and,
    with an encoder, instruction embeddings), each row copied; draws from ``sampler.rng``."""

    def __init__(self, sampler: Sampler, symmetry: Symmetry):
        self.sampler, self.symmetry = sampler, symmetry
        texts = sorted(set(symmetry.phrasings()) | set(sampler.instructions))
        self.row = {text: k for k, text in enumerate(texts)}
        self.embeddings = (None if sampler.encoder is None else
                           np.asarray(cached_encode(sampler.encoder, texts, default_cache_dir()), np.float32))

    def sample(self, batch_size: int) -> dict[str, torch.Tensor]:
        sampler = self.sampler
        batch = sampler.sample(batch_size, as_numpy=True, with_index=True)
        texts = [sampler.datasets[d].instructions[sampler.datasets[d].instruction_ids[i]]
                 for d, i in zip(batch["dataset"], batch["index"])]
        states, actions, texts = self.symmetry.rows(batch["observations"], batch["actions"], texts,
                                                    sampler.rng)
        out = {"observations": torch.from_numpy(np.ascontiguousarray(states, np.float32)),
               "actions": torch.from_numpy(actions.astype(np.int64 if sampler.discrete else np.float32))}
        if self.embeddings is not None:
            out["instruction_embeddings"] = torch.from_numpy(self.embeddings[[self.row[t] for t in texts]])
        return out
