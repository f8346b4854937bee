"""BabyAI checkers on real expert rollouts and on corrupted copies; the expert on every level."""


from functools import partial

import numpy as np
import pytest
from checking import corrupted

from imaginebench_data import get_domain
from imaginebench_data.domains.babyai.sim import LOCKED, OPEN, compose_state
from imaginebench_data.pipeline.rollout import expert_episode
from imaginebench_data.quality.checkers import annotate

BABYAI = get_domain("babyai")
KIND_BIT = {kind: 1 << i for i, kind in enumerate(BABYAI.illegal_kinds)}


@pytest.fixture(scope="module")
def sim():
    return BABYAI.simulator()


@pytest.fixture(scope="module")
def clean(sim):
    episode = expert_episode(BABYAI, "hard", index=1, recipe_seed=7, sim=sim)  # a line: several steps
    assert len(episode) >= 6, "need a few steps to corrupt"
    return annotate(BABYAI, episode, sim)


corrupt = partial(corrupted, BABYAI)


def kinds_of(state):
    flags = BABYAI.illegal(np.asarray(state, np.float32)[None])[0]
    return {kind for kind, flag in zip(BABYAI.illegal_kinds, flags) if flag}


def test_real_rollout_is_clean(clean):
    assert clean.infos["legal"].all() and clean.infos["transition_ok"].all()
    assert clean.infos["transition_error"].max() == 0.0
    assert clean.infos["success"][-1] and not clean.infos["success"][:-1].any()


def test_a_teleported_agent_is_a_transition_error(clean, sim):
    t = 3
    state = clean.states[t].copy()
    state[13:15] = (6, 1) if tuple(state[13:15]) != (6, 1) else (1, 6)  # a legal cell, not one step away
    bad = corrupt(clean, sim, t, state)
    assert np.flatnonzero(~bad.infos["transition_ok"]).tolist() == [t, t + 1]
    assert bad.infos["transition_error"][t] >= 1 and bad.infos["legal"].all()


def test_a_fractional_next_state_is_illegal_not_a_wrong_move(clean, sim):
    t = 3
    state = clean.states[t].copy()
    state[13] += 0.2
    bad = corrupt(clean, sim, t, state)
    assert bad.infos["illegal_mask"][t] == KIND_BIT["non_integer"]
    assert bad.infos["transition_ok"].all()


@pytest.mark.parametrize("kind, edit", [
    ("out_of_grid", lambda s: s.__setitem__(14, 15)),
    ("non_integer", lambda s: s.__setitem__(1, 2.5)),
    ("out_of_range", lambda s: s.__setitem__(0, 6)),
    ("out_of_range", lambda s: s.__setitem__(12, 3)),
    ("out_of_range", lambda s: s.__setitem__(15, 4)),
    ("overlap", lambda s: s.__setitem__(slice(4, 6), (2, 2))),
    ("overlap", lambda s: s.__setitem__(slice(1, 3), (3, 7))),
    ("agent_in_wall", lambda s: s.__setitem__(slice(13, 15), (0, 4))),
    ("agent_in_wall", lambda s: s.__setitem__(slice(13, 15), (3, 7))),
    ("object_in_wall", lambda s: s.__setitem__(slice(7, 9), (5, 7))),
    ("door_off_wall", lambda s: s.__setitem__(11, 5)),
    ("carry_mismatch", lambda s: s.__setitem__(slice(15, 17), (6, 0))),
    ("non_finite", lambda s: s.__setitem__(5, np.nan)),
])
def test_each_illegal_kind_fires_alone(kind, edit):
    state = compose_state()  # ball (2,2) red, box (2,4), key (4,2), door (3,7) closed, agent (5,5)
    assert kinds_of(state) == set()
    edit(state)
    assert kinds_of(state) == {kind}


def test_legal_edge_cases():
    assert kinds_of(compose_state(agent=(3, 7), door_state=OPEN)) == set()  # in an open doorway
    assert kinds_of(compose_state(carrying="key", door_state=LOCKED)) == set()
    assert kinds_of(compose_state(ball=(3, 10), agent=(2, 12), door_state=OPEN)) == set()  # right room


def test_corrupted_rollout_flags_the_state_and_its_transitions(clean, sim):
    t = 2
    state = clean.states[t].copy()
    state[13:15] = (0, 3)
    bad = corrupt(clean, sim, t, state)
    assert np.flatnonzero(~bad.infos["legal"]).tolist() == [t]
    assert bad.infos["illegal_mask"][t] == KIND_BIT["agent_in_wall"]
    state[5] = np.inf
    bad = corrupt(clean, sim, t, state)
    assert bad.infos["illegal_mask"][t] == KIND_BIT["non_finite"]
    assert np.isinf(bad.infos["transition_error"][t]) and not bad.infos["transition_ok"][t + 1]


@pytest.mark.parametrize("level, episodes", [("train", 84), ("rephrase", 20), ("easy", 20), ("hard", 30)])
def test_expert_solves_every_level(level, episodes, sim):
    results = [expert_episode(BABYAI, level, i, recipe_seed=99, sim=sim).terminations[-1]
               for i in range(episodes)]
    assert np.mean(results) >= 0.95


def solve(task_id, level, state, sim, seed=0):
    """Steps the expert needs from ``state`` (None if not within the horizon)."""
    task = BABYAI.task(level, task_id)
    expert = BABYAI.expert(task, np.random.default_rng(seed), sim)
    for step in range(task.horizon):
        action = expert.act(state)
        state, prev = sim.step_from(state, action), state
        if task.succeeded(prev, action, state):
            return step + 1
    return None


def test_expert_recovers_from_states_no_reset_gives(sim):
    # Shut in the right room: open the door from that side, cross, walk to the ball.
    assert solve("goto-red-ball", "train", compose_state(agent=(4, 11)), sim) is not None
    # Holding the wrong object while standing on another: step off, drop, fetch the right one.
    assert solve("pickup-red-ball", "train", compose_state(agent=(2, 4), carrying="key"), sim) is not None
    # Locked door, key on the floor: fetch it first.
    assert solve("open-blue-door", "train", compose_state(door_state=LOCKED), sim) is not None
    # Line and pile starting with an object in hand.
    assert solve("line", "hard", compose_state(carrying="box", agent=(6, 6)), sim) is not None
    assert solve("pile", "hard", compose_state(ball=(1, 1), key=(6, 6), carrying="box", agent=(1, 6)), sim)


def test_rollouts_are_deterministic_for_a_seed(sim):
    a = expert_episode(BABYAI, "hard", 2, recipe_seed=1, sim=sim)
    b = expert_episode(BABYAI, "hard", 2, recipe_seed=1, sim=BABYAI.simulator())
    c = expert_episode(BABYAI, "hard", 2, recipe_seed=2, sim=sim)
    assert np.array_equal(a.states, b.states) and np.array_equal(a.actions, b.actions)
    assert not (a.states.shape == c.states.shape and np.array_equal(a.states, c.states))
