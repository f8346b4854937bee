"""The BabyAI simulator rebuilt from 17 numbers and stepped, and the registered eval env."""

import gymnasium as gym
import numpy as np
import pytest

import imaginebench_data  # noqa: F401  (registers the envs)
from imaginebench_data import get_domain
from imaginebench_data.domains.babyai.sim import (
    AGENT_ROW,
    CLOSED,
    DOWN,
    DROP,
    LEFT,
    LOCKED,
    OPEN,
    PICKUP,
    RIGHT,
    TOGGLE,
    UP,
    BabyAISimulator,
    compose_state,
)

BABYAI = get_domain("babyai")


@pytest.fixture
def sim():
    return BabyAISimulator()


def agent(state):
    return tuple(state[AGENT_ROW : AGENT_ROW + 2].astype(int))


def test_any_state_round_trips(sim):
    states = (compose_state(), compose_state(carrying="key", door_state=LOCKED), compose_state(door_row=6))
    for state in states:
        sim.place(state)
        assert np.array_equal(sim.get_state(), state)


def test_moves_are_blocked_by_walls_and_closed_doors_not_objects(sim):
    assert agent(sim.step_from(compose_state(agent=(1, 1)), UP)) == (1, 1)
    assert agent(sim.step_from(compose_state(agent=(1, 1)), LEFT)) == (1, 1)
    assert agent(sim.step_from(compose_state(agent=(2, 1)), RIGHT)) == (2, 2)  # onto the ball
    by_door = compose_state(agent=(3, 6))
    assert agent(sim.step_from(by_door, RIGHT)) == (3, 6)
    assert agent(sim.step_from(compose_state(agent=(3, 6), door_state=LOCKED), RIGHT)) == (3, 6)
    through = sim.step_from(compose_state(agent=(3, 6), door_state=OPEN), RIGHT)
    assert agent(through) == (3, 7) and agent(sim.step_from(through, RIGHT)) == (3, 8)
    assert agent(sim.step_from(compose_state(agent=(4, 6), door_state=OPEN), RIGHT)) == (4, 6)
    assert agent(sim.step_from(compose_state(agent=(5, 5)), DOWN)) == (6, 5)


def test_pick_up_and_drop_act_on_the_agents_own_cell(sim):
    on_ball = compose_state(agent=(2, 2))
    held = sim.step_from(on_ball, PICKUP)
    assert np.array_equal(held, compose_state(agent=(2, 2), carrying="ball"))
    assert np.array_equal(sim.step_from(compose_state(agent=(2, 3)), PICKUP), compose_state(agent=(2, 3)))
    # Hands full: no second pick-up; drop only on a cell without an object.
    on_box = compose_state(agent=(2, 4), carrying="ball")
    assert np.array_equal(sim.step_from(on_box, PICKUP), on_box)
    assert np.array_equal(sim.step_from(on_box, DROP), on_box)
    dropped = sim.step_from(compose_state(agent=(5, 5), carrying="ball"), DROP)
    assert np.array_equal(dropped, compose_state(agent=(5, 5), ball=(5, 5)))


def test_toggle_opens_and_closes_an_adjacent_door_and_a_locked_one_needs_its_key(sim):
    opened = sim.step_from(compose_state(agent=(3, 6)), TOGGLE)
    assert np.array_equal(opened, compose_state(agent=(3, 6), door_state=OPEN))
    assert np.array_equal(sim.step_from(opened, TOGGLE), compose_state(agent=(3, 6), door_state=CLOSED))
    far = compose_state(agent=(4, 5))
    assert np.array_equal(sim.step_from(far, TOGGLE), far)
    locked = compose_state(agent=(3, 6), door_state=LOCKED)
    assert np.array_equal(sim.step_from(locked, TOGGLE), locked)
    wrong_key = compose_state(agent=(3, 6), door_state=LOCKED, carrying="key", colours={"key": 0})
    assert np.array_equal(sim.step_from(wrong_key, TOGGLE), wrong_key)
    with_key = compose_state(agent=(3, 6), door_state=LOCKED, carrying="key")
    unlocked = sim.step_from(with_key, TOGGLE)
    assert np.array_equal(unlocked, compose_state(agent=(3, 6), door_state=OPEN, carrying="key"))


def test_malformed_states_step_without_crashing(sim):
    state = compose_state()
    state[1:3] = (2.4, 40.0)  # off the grid and fractional
    state[0] = 9.0  # no such colour
    state[13:15] = (0, 0)  # agent in a wall
    nxt = sim.step_from(state, RIGHT)
    assert nxt.shape == (17,) and np.isfinite(nxt).all()
    assert np.array_equal(nxt, sim.step_from(state, RIGHT))


def test_placed_cells_round_half_to_even_and_clip_into_the_grid(sim):
    # np.rint's rule, which the stored datasets were built with: 2.5 -> 2, 3.5 -> 4.
    for value, expected in ((2.5, 2), (3.5, 4), (4.49, 4), (-0.6, 0), (np.nan, 0), (np.inf, 7),
                            (-np.inf, 0), (1e300, 7)):
        state = compose_state().astype(np.float64)  # 1e300 as such, not a float32 inf
        state[AGENT_ROW] = value
        sim.place(state)
        assert sim.agent[0] == expected, (value, sim.agent)


def test_a_placed_door_does_not_stay_in_the_next_grid(sim):
    sim.place(compose_state(door_row=3, door_state=OPEN))  # an open door one could walk through
    state = compose_state(door_row=5, door_state=CLOSED)
    state[AGENT_ROW : AGENT_ROW + 2] = (3, 6)  # beside where the first door was
    assert agent(sim.step_from(state, RIGHT)) == (3, 6)  # a wall there now
    state[AGENT_ROW : AGENT_ROW + 2] = (5, 6)
    sim.place(state)
    assert sim.grid.get(7, 3).type == "wall" and sim.grid.get(7, 5).type == "door"


def test_resets_redraw_colours_and_pin_the_target(sim):
    rng = np.random.default_rng(0)
    task = BABYAI.task("train", "goto-purple-box")
    starts = np.stack([sim.reset(task, rng) for _ in range(30)])
    assert (starts[:, 3] == 3).all()  # box purple
    assert len(np.unique(starts[:, 0])) > 1 and len(np.unique(starts[:, 9])) > 1
    assert (starts[:, 12] == CLOSED).all()
    hard = np.stack([sim.reset(BABYAI.task("hard", "key-then-open"), rng) for _ in range(10)])
    assert (hard[:, 12] == LOCKED).all() and (hard[:, 9] == hard[:, 6]).all()
    assert not BABYAI.illegal(np.concatenate([starts, hard])).any()


def test_env_terminates_on_success():
    env = gym.make("imaginebench/BabyAI-v0", level="train", task="pickup-red-ball")
    obs, _ = env.reset(seed=0)
    expert = BABYAI.expert(env.unwrapped.task, np.random.default_rng(0), env.unwrapped.sim)
    for _ in range(128):
        obs, reward, terminated, truncated, info = env.step(expert.act(obs["state"]))
        if terminated or truncated:
            break
    assert terminated and not truncated and info["success"] and reward == 1.0
    assert env.observation_space.contains(obs)


def test_env_truncates_at_128_steps():
    env = gym.make("imaginebench/BabyAI-v0", level="easy", task="goto-centre")
    env.reset(seed=0)
    steps, done = 0, False
    while not done:
        _, _, terminated, truncated, info = env.step(DROP)  # nothing held: a no-op forever
        steps += 1
        done = terminated or truncated
    assert steps == 128 and truncated and not terminated and not info["success"]
