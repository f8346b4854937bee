"""CLEVR checkers on real expert rollouts and on deliberately corrupted copies of them."""


from functools import partial

import numpy as np
import pytest
from checking import corrupted

from imaginebench_data import get_domain
from imaginebench_data.pipeline.rollout import expert_episode
from imaginebench_data.quality.checkers import annotate, replay_start

CLEVR = get_domain("clevr")
KIND_BIT = {kind: 1 << i for i, kind in enumerate(CLEVR.illegal_kinds)}


@pytest.fixture(scope="module")
def sim():
    return CLEVR.simulator()


@pytest.fixture(scope="module")
def clean(sim):
    episode = expert_episode(CLEVR, "hard", index=0, recipe_seed=7, sim=sim)
    assert len(episode) >= 4, "need a few steps to corrupt"
    return annotate(CLEVR, episode, sim)


corrupt = partial(corrupted, CLEVR)


def test_real_rollout_is_clean(clean):
    assert clean.infos["legal"].all()
    assert clean.infos["transition_ok"].all()
    assert clean.infos["transition_error"].max() < 1e-5
    assert clean.infos["success"][-1] and not clean.infos["success"][:-1].any()


def test_teleported_ball_is_a_transition_error(clean, sim):
    t = 2
    state = clean.states[t].copy()
    state[8:10] += np.array([0.3, 0.0], np.float32)  # cyan jumps 30 cm, still on the table
    bad = corrupt(clean, sim, t, state)
    errors = ~bad.infos["transition_ok"]
    # The jump shows up in the transition into t and the one out of t, and nowhere else.
    assert np.flatnonzero(errors).tolist() == [t, t + 1]
    assert bad.infos["transition_error"][t] == pytest.approx(0.3, abs=0.01)
    assert bad.infos["legal"].all()


def test_overlapping_balls_are_illegal(clean, sim):
    t = 1
    state = clean.states[t].copy()
    state[2:4] = state[0:2] + np.array([0.1, 0.0], np.float32)  # blue 10 cm from red's centre
    bad = corrupt(clean, sim, t, state)
    assert np.flatnonzero(~bad.infos["legal"]).tolist() == [t]
    assert bad.infos["illegal_mask"][t] & KIND_BIT["overlap"]


def test_ball_off_the_table_is_illegal(clean, sim):
    t = 1
    state = clean.states[t].copy()
    state[4] = 1.5
    bad = corrupt(clean, sim, t, state)
    assert bad.infos["illegal_mask"][t] == KIND_BIT["off_table"]


def test_nan_is_flagged_not_crashed(clean, sim):
    t = 2
    state = clean.states[t].copy()
    state[5] = np.nan
    bad = corrupt(clean, sim, t, state)
    assert bad.infos["illegal_mask"][t] == KIND_BIT["non_finite"]
    assert not bad.infos["transition_ok"][t] and not bad.infos["transition_ok"][t + 1]
    assert np.isinf(bad.infos["transition_error"][t])


@pytest.mark.parametrize("t, replay_steps, start", [
    (1, 5, 0),  # an episode's start: fewer steps back
    (6, 5, 3),  # not back past the non-finite state 2
    (6, 2, 4),
    (3, 5, 3),  # the state before is the non-finite one: nothing replayed
    (4, 0, 4),
])
def test_replay_starts_within_the_finite_states_before(t, replay_steps, start):
    finite = np.array([True, True, False, True, True, True, True])
    assert replay_start(finite, t, replay_steps) == start
