"""An instruction-conditioned policy for the eval envs, around any ``features -> action`` function.

The policy sees what the adapters and the ``Sampler`` give at training time: the row
``[s_t, e(instruction)]`` (``e`` the training encoder; the bare state when there is none),
so a policy trained on ``to_d4rl``/``to_d3rlpy`` rows or on ``Sampler`` batches is evaluated
on exactly the same layout.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..loader.encoders import Encoder
from ..loader.flat import FlatRow


@dataclass
class ConditionedPolicy:
    """``policy(obs)`` maps an env observation ``{"state": (D,), "instruction": str}`` to an action.

    ``act`` takes a ``(1, D + E)`` float32 batch and returns one action per row (action
    indices when ``discrete``, else ``(1, A)`` actions). Instruction embeddings are computed
    once per distinct instruction. ``network``: the trained model behind ``act`` where there
    is one (BC's torch module), to save or inspect. ``rewind``: puts a sampling policy's draws
    back to their seeded start, so that each evaluation of one trained policy draws what a
    freshly trained one would (nothing to do for a deterministic policy).
    """

    act: Callable[[np.ndarray], Any]
    encoder: Encoder | None
    discrete: bool
    network: Any = None
    rewind: Callable[[], None] = lambda: None
    _row: FlatRow = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._row = FlatRow(self.encoder)

    def features(self, obs: dict[str, Any]) -> np.ndarray:
        """The ``(1, D + E)`` row ``[state, e(instruction)]`` of one observation."""
        return self._row(obs)[None]

    def __call__(self, obs: dict[str, Any]) -> Any:
        action = np.asarray(self.act(self.features(obs)))[0]
        return int(action) if self.discrete else action.astype(np.float32)
