"""What an episode is, before it is written to Minari.

Alignment (T steps)::

    states        s_0  s_1  s_2 ... s_T        (T+1, D) float32
    actions          a_0  a_1 ... a_{T-1}      (T, ...)  a_t is taken in s_t
    rewards          r_0  r_1 ... r_{T-1}      (T,)      r_t = reward(s_t, a_t, s_{t+1})
    terminations     d_0  d_1 ... d_{T-1}      (T,) bool goal reached at s_{t+1}
    truncations      u_0  u_1 ... u_{T-1}      (T,) bool time limit at s_{t+1}
    infos[k]      i_0  i_1  i_2 ... i_T        (T+1,)    i_0 describes the reset state

``infos`` holds the checkers' per-step results (see ``imaginebench_data.quality``):
``success``, ``legal``, ``illegal_mask``, ``transition_error``, ``transition_ok``, plus
``sim_state`` ((T+1, F) float64) when ``sim_states`` is set: the full simulator state at each
step of a real rollout in a domain whose dataset state is only an observation (Meta-World).

Generated episodes of a domain with a decoding correction (``Domain.decoding``) also carry,
in memory only (never written), ``raw_states``: s_0, then the model's prediction of each s_t
before the correction; the checkers then fill ``raw_infos`` with the same results for
(s_t, a_t, raw s_{t+1}), which the card reports beside the stored states' rates. Generated
episodes also carry ``generation_counts`` (in memory only): what the card's provenance counts
of each rollout (``pipeline.generators.tally``), added up over the episodes a dataset keeps.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

SOURCES = ("real", "imaginary", "verified")  # the expert, a model, or a model checked episode by episode


@dataclass
class Episode:
    states: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    terminations: np.ndarray
    truncations: np.ndarray
    instruction: str
    task_id: str
    level: str
    phrasing_id: int
    seed: int
    source: str
    infos: dict[str, np.ndarray] = field(default_factory=dict)
    sim_states: np.ndarray | None = None
    resolved_by: str | None = None  # imported episodes: how the task was resolved (imports.resolve)
    raw_states: np.ndarray | None = None  # generated: predictions before the correction (not written)
    raw_infos: dict[str, np.ndarray] | None = None  # the checkers' results on them (not written)
    generation_counts: dict | None = None  # generated: actions clipped or inferred (not written)

    def __len__(self) -> int:
        return len(self.actions)

    @property
    def metadata(self) -> dict:
        """Per-episode metadata stored by Minari (plain JSON types)."""
        return {
            "task_id": self.task_id,
            "level": self.level,
            "phrasing_id": int(self.phrasing_id),
            "source": self.source,
            "instruction": self.instruction,
            **({} if self.resolved_by is None else {"resolved_by": self.resolved_by}),
        }
