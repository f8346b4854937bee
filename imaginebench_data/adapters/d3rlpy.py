"""A d3rlpy ``MDPDataset`` of one dataset, built from our aligned transitions.

d3rlpy's own ``get_minari`` concatenates each episode's T+1 observations with its T actions,
so every episode after the first is shifted by one more step (measured with Minari 0.5.4), and
it accepts only Box observations. Here every observation stays on its own step: the
dataset gets ``[s_t, e(instruction)]`` for t < T, the actions, rewards and exactly one of
terminal/timeout at each episode's last step, as ``MDPDataset`` expects.

d3rlpy pins gymnasium 1.0.0, so it lives in its own environment (``make test`` builds
``.venv-d3rlpy``; see the README).
"""

from __future__ import annotations

from ..datasets.ids import DatasetId
from ..domains import get_domain
from ..loader.encoders import DEFAULT_ENCODER
from ..loader.transitions import Transitions
from .d4rl import as_transitions, to_d4rl

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
    return d3rlpy.dataset.MDPDataset(
        observations=data["observations"], actions=actions, rewards=data["rewards"][:, None],
        terminals=data["terminals"].astype("float32"), timeouts=data["timeouts"].astype("float32"),
        action_space=space, action_size=action_size)
