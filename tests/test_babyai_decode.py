"""BabyAI's decoding correction: predicted states onto the grid's state space, on constructed states."""

import numpy as np
import pytest

from imaginebench_data import get_domain
from imaginebench_data.domains.babyai import checks
from imaginebench_data.domains.babyai.decode import decode
from imaginebench_data.domains.babyai.sim import (
    AGENT_ROW,
    CARRIED_COLOUR,
    CARRIED_TYPE,
    DOOR_COLOUR,
    DOOR_ROW,
    DOOR_STATE,
    OBJ_COLS,
    OPEN,
    TYPE_IDS,
    compose_state,
)

BABYAI = get_domain("babyai")


def one(state):
    [out] = decode(None, np.asarray(state, np.float64)[None])
    return out


def cell(state, name):
    start = OBJ_COLS[name] + 1 if name in OBJ_COLS else {"agent": AGENT_ROW, "door": DOOR_ROW}[name]
    return tuple(int(v) for v in state[start : start + 2])


def test_the_domain_decodes_with_it():
    assert BABYAI.decode_state is decode and "state space" in BABYAI.decoding


@pytest.mark.parametrize("carrying", [None, "ball", "key"])
def test_a_legal_state_is_left_as_it_is_and_noise_is_rounded_away(carrying):
    state = compose_state(carrying=carrying)
    np.testing.assert_array_equal(one(state), state)
    noisy = state + np.random.default_rng(0).uniform(-0.45, 0.45, state.shape)
    np.testing.assert_array_equal(one(noisy), state)


def test_entries_out_of_range_are_clipped_into_it():
    state = compose_state(door_row=3)
    state[OBJ_COLS["box"]] = 9.2       # a colour beyond grey
    state[DOOR_COLOUR] = -3.0
    state[DOOR_STATE] = 4.0            # beyond locked
    state[DOOR_ROW : DOOR_ROW + 2] = (11.0, 5.0)  # the door off its wall
    out = one(state)
    assert out[OBJ_COLS["box"]] == 5 and out[DOOR_COLOUR] == 0 and out[DOOR_STATE] == 2
    assert cell(out, "door") == (6, 7)
    assert not checks.illegal(out[None]).any()


def test_the_carried_object_is_made_consistent():
    state = compose_state(ball=(2, 2), colours={"ball": 4})
    state[CARRIED_TYPE] = 6.3          # nearest carried type: the ball (6)
    state[CARRIED_COLOUR] = 1.0        # the wrong colour
    out = one(state)
    assert out[CARRIED_TYPE] == TYPE_IDS["ball"] and out[CARRIED_COLOUR] == 4 and cell(out, "ball") == (0, 0)
    nothing = compose_state()
    nothing[CARRIED_TYPE], nothing[CARRIED_COLOUR] = -0.8, 3.0  # nothing held, yet a colour
    out = one(nothing)
    assert out[CARRIED_TYPE] == 0 and out[CARRIED_COLOUR] == 0
    np.testing.assert_array_equal(out[:CARRIED_TYPE], nothing[:CARRIED_TYPE])


def test_agent_and_objects_leave_walls_and_each_other_for_the_nearest_cell():
    state = compose_state(ball=(2, 2), box=(2, 2), key=(0, 4), agent=(3, 0))
    out = one(state)
    assert cell(out, "ball") == (2, 2)          # the first object keeps its cell
    assert cell(out, "box") in {(1, 2), (2, 1), (2, 3), (3, 2)}  # the box, on the ball, moves one cell
    assert cell(out, "key") == (1, 4)           # off the border wall
    assert cell(out, "agent") == (3, 1)
    assert not checks.illegal(out[None]).any()


def test_the_agent_stands_in_an_open_doorway_not_a_closed_one():
    closed = compose_state(door_row=3, agent=(3, 7))
    opened = compose_state(door_row=3, door_state=OPEN, agent=(3, 7))
    assert cell(one(opened), "agent") == (3, 7)
    assert cell(one(closed), "agent") in {(3, 6), (3, 8)}
    assert checks.illegal(closed[None])[0, checks.ILLEGAL_KINDS.index("agent_in_wall")]


def test_non_finite_rows_are_left_for_the_checkers():
    bad = compose_state()
    bad[5] = np.nan
    out = decode(None, np.stack([bad, compose_state(agent=(0, 0))]))
    np.testing.assert_array_equal(out[0], bad)
    assert not checks.illegal(out[1:]).any()


def test_any_predicted_state_ends_legal():
    rng = np.random.default_rng(1)
    states = rng.normal(5.0, 8.0, (1000, 17))
    out = decode(None, states)
    assert out.shape == states.shape and out.dtype == np.float32
    assert checks.illegal(states).any(axis=1).all()
    assert not checks.illegal(out).any()
