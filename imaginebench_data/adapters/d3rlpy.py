"""A d3rlpy ``MDPDataset`` of one dataset, built from our aligned transitions.

d3rlpy's own ``get_minari`` concatenates each episode's T+1 observations with its T actions,
so every episode after the first is shifted by one more step (measured with Minari 0.5.4), and
it accepts only Box observations. Here every observation stays on its own step: the
dataset gets ``[s_t, e(instruction)]`` for t < T, the actions, rewards and exactly one of
terminal/timeout at each episode's last step, as ``MDPDataset`` expects.

An episode that ends on a timeout is one row longer: d3rlpy takes such an episode's last row
for its final observation alone (``transition_count`` is its rows less one), so the state
reached, s_T, is added as that row (action 0, reward 0), and every one of the episode's
transitions is trained on. Without it (until 2026-12-07) d3rlpy left out each truncated
episode's last transition, and a truncated episode of one step altogether: CLEVR's easy
imaginary sets, one push an episode, reached CQL as their goal-consistent episodes alone.

d3rlpy pins gymnasium 1.0.0, so it lives in its own environment (``make test`` builds
``.venv-d3rlpy``; see the README).
"""

from __future__ import annotations

import numpy as np

from ..datasets.ids import DatasetId
from ..domains import get_domain
from ..loader.encoders import DEFAULT_ENCODER
from ..loader.transitions import Transitions
from .d4rl import as_transitions, to_d4rl

# the rows ``to_d3rlpy`` gives, counted up when they change, so that a comparison's journal
# does not read back trainings on other rows (2: each timeout episode's s_T added, 2026-12-07)
ROWS_VERSION = 2
NEEDS_D3RLPY = ("needs d3rlpy, which pins gymnasium 1.0.0 (metaworld refuses it): use the environment "
                "`make test` builds, .venv-d3rlpy (.venv-d3rlpy/bin/python, .venv-d3rlpy/bin/imaginebench; "
                "see the README's d3rlpy section)")


def to_d3rlpy(dataset: str | DatasetId | Transitions, encoder=DEFAULT_ENCODER):
    """The ``d3rlpy.dataset.MDPDataset`` of every episode of ``dataset``."""
    try:
        import d3rlpy
    except ModuleNotFoundError as error:
        if error.name != "d3rlpy":
            raise
        raise ModuleNotFoundError(f"to_d3rlpy {NEEDS_D3RLPY}", name="d3rlpy") from error

    transitions = as_transitions(dataset)
    data = to_d4rl(transitions, encoder=encoder)
    domain = get_domain(transitions.card.domain)
    if domain.discrete:
        action_size, actions = int(domain.action_space.n), data["actions"][:, None]
    else:
        action_size, actions = int(domain.action_space.shape[0]), data["actions"]
    spaces = d3rlpy.constants.ActionSpace
    space = spaces.DISCRETE if domain.discrete else spaces.CONTINUOUS
    rows = with_final_states({**data, "actions": actions, "rewards": data["rewards"][:, None]})
    return d3rlpy.dataset.MDPDataset(
        observations=rows["observations"], actions=rows["actions"], rewards=rows["rewards"],
        terminals=rows["terminals"].astype("float32"), timeouts=rows["timeouts"].astype("float32"),
        action_space=space, action_size=action_size)


def with_final_states(data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``to_d4rl``'s rows with one row after each that ends on a timeout: its next observation
    as the observation, action 0 and reward 0, the timeout moved onto it (the module's
    docstring says why)."""
    ends = np.flatnonzero(data["timeouts"])
    added = ends + np.arange(1, len(ends) + 1)  # where each end's next observation goes
    kept = np.ones(len(data["timeouts"]) + len(ends), dtype=bool)
    kept[added] = False

    def spread(values: np.ndarray, filler) -> np.ndarray:
        rows = np.zeros((len(kept), *values.shape[1:]), dtype=values.dtype)
        rows[kept], rows[added] = values, filler
        return rows

    timeouts = np.zeros(len(kept), dtype=bool)
    timeouts[added] = True
    return {"observations": spread(data["observations"], data["next_observations"][ends]),
            "actions": spread(data["actions"], 0), "rewards": spread(data["rewards"], 0),
            "terminals": spread(data["terminals"], False), "timeouts": timeouts}
