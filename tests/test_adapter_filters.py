"""The adapters with filters: each kept stretch of an episode ends with a marker, on constructed
transitions whose every row says where it came from."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from imaginebench_data.adapters import to_d4rl
from imaginebench_data.loader import Transitions


def episodes(lengths, legal=None):
    """Rows ``[episode, step]``; odd episodes end terminal, even ones at the time limit."""
    episode_ids = np.repeat(np.arange(len(lengths)), lengths)
    steps = np.concatenate([np.arange(n) for n in lengths])
    last = np.concatenate([np.arange(n) == n - 1 for n in lengths])
    n = len(steps)
    ones = np.ones(n, bool)
    return Transitions(
        dataset_id="test/toy-easy-imaginary-v0",
        observations=np.stack([episode_ids, steps], 1).astype(np.float32),
        next_observations=np.stack([episode_ids, steps + 1], 1).astype(np.float32),
        actions=np.arange(n) % 3, rewards=np.zeros(n, np.float32),
        terminals=last & (episode_ids % 2 == 1), timeouts=last & (episode_ids % 2 == 0),
        episode_ids=episode_ids, steps=steps, instruction_ids=np.zeros(n, np.int64), instructions=["go"],
        legal=ones if legal is None else legal, transition_ok=ones, success=ones, goal_consistent=ones,
        episodes=pd.DataFrame(), card=None)


def stretches(data):
    """The episodes a library splitting on ``terminals | timeouts`` reads: lists of (episode, step)."""
    ends = np.flatnonzero(data["terminals"] | data["timeouts"])
    assert len(ends) and ends[-1] == len(data["rewards"]) - 1  # the last row ends something
    starts = np.r_[0, ends[:-1] + 1]
    rows = data["observations"].astype(int).tolist()
    return [[tuple(row) for row in rows[a:b + 1]] for a, b in zip(starts, ends)]


def test_without_filters_every_episode_ends_once_as_stored():
    toy = episodes([3, 4, 2])
    data = to_d4rl(toy, encoder=None)
    assert [len(s) for s in stretches(data)] == [3, 4, 2]
    assert not (data["terminals"] & data["timeouts"]).any()
    assert data["terminals"].tolist() == toy.terminals.tolist()
    assert data["timeouts"].tolist() == toy.timeouts.tolist()


def test_a_dropped_row_cuts_its_episode_into_stretches_that_each_end():
    legal = np.ones(9, bool)
    legal[[1, 6]] = False  # episode 0's step 1 (of 3), episode 1's last step (of 4)
    data = to_d4rl(episodes([3, 4, 2], legal=legal), encoder=None, filters="legal")
    assert stretches(data) == [[(0, 0)], [(0, 2)], [(1, 0), (1, 1), (1, 2)], [(2, 0), (2, 1)]]
    # found 2026-12-06: episode 1 lost its terminal row and ran on into episode 2
    assert data["terminals"].tolist() == [False] * 7  # the one terminal row was dropped
    assert data["timeouts"].tolist() == [True, True, False, False, True, False, True]
    consecutive = data["observations"][1:] == data["next_observations"][:-1]
    ends = data["terminals"] | data["timeouts"]
    assert consecutive.all(1)[~ends[:-1]].all()  # inside a stretch each row follows the one before
    np.testing.assert_array_equal(data["next_observations"][:, 1], data["observations"][:, 1] + 1)


def test_a_kept_terminal_row_stays_terminal_not_a_timeout():
    legal = np.ones(9, bool)
    legal[3] = False  # episode 1's first step: the rest of it, terminal at the end, stays
    data = to_d4rl(episodes([3, 4, 2], legal=legal), encoder=None, filters="legal")
    assert stretches(data)[1] == [(1, 1), (1, 2), (1, 3)]
    assert data["terminals"].tolist() == [False, False, False, False, False, True, False, False]
    assert not (data["terminals"] & data["timeouts"]).any()


def test_filters_that_keep_nothing_say_so():
    with pytest.raises(ValueError, match=r"filter 'legal' leaves dataset 'test/toy-easy-imaginary-v0' "
                                         r"with no transitions \(9 before it"):
        to_d4rl(episodes([3, 4, 2], legal=np.zeros(9, bool)), encoder=None, filters="legal")


@pytest.mark.parametrize("given", [5, None, {"imaginebench/clevr-train-real-v0": 1.0}])
def test_what_is_not_a_dataset_is_named(given):
    with pytest.raises(TypeError, match="expected a dataset id .* or ib.load"):
        to_d4rl(given, encoder=None)


def test_torchrl_marks_the_stretches_and_seeds_its_own_draws():
    pytest.importorskip("torchrl")
    import torch

    from imaginebench_data.adapters.torchrl import to_tensordict, to_torchrl

    legal = np.ones(9, bool)
    legal[[1, 6]] = False
    toy = episodes([3, 4, 2], legal=legal)
    td = to_tensordict(toy, encoder=None, filters="legal")
    assert td["next", "done"][:, 0].tolist() == [True, True, False, False, True, False, True]
    assert td["episode"].tolist() == [0, 0, 1, 1, 1, 2, 2] and td["step"].tolist() == [0, 2, 0, 1, 2, 0, 1]
    state = torch.random.get_rng_state()
    first, second = (to_torchrl(toy, batch_size=5, encoder=None, seed=0) for _ in range(2))
    draws = [(first.sample()["step"].tolist(), second.sample()["step"].tolist()) for _ in range(3)]
    assert all(a == b for a, b in draws)  # the same seed, the same batches, sampled in turn
    assert torch.equal(torch.random.get_rng_state(), state)  # torch's global state left alone
    for bad in (0, -5, 2.5):
        with pytest.raises(ValueError, match="batch_size must be a positive integer"):
            to_torchrl(toy, batch_size=bad, encoder=None)
    with pytest.raises(ValueError, match="filter 'legal' leaves"):
        to_torchrl(episodes([2], legal=np.zeros(2, bool)), encoder=None, filters="legal")
