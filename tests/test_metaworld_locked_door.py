"""Meta-World locked-door-open: the staged predicate on hand-built states, the latch, real data."""

import dataclasses
import warnings

import numpy as np
import pytest

from imaginebench_data import get_domain
from imaginebench_data.domains.metaworld.layout import SLOT_START, STATE_DIM, position
from imaginebench_data.domains.metaworld.predicates import stage
from imaginebench_data.pipeline.rollout import expert_episode
from imaginebench_data.quality.checkers import annotate

MW = get_domain("metaworld")
TASK = MW.task("hard", "locked-door-open")
CONDITIONS = TASK.goal["conditions"]
NOOP = np.zeros((1, 4), np.float32)
SAFE = np.array([0.05, 0.85, 0.15])
SHUT_HANDLE = SAFE + (0.19, -0.21, -0.05)
OPEN_GOAL = SAFE + (-0.3, -0.45, 0.0)
LOCK_DOWN, LOCK_UP = 0.021, 0.101  # lock site height above the handle, locked / turned up


def door_state(handle_x_from_goal: float | None = None, lock_height: float = LOCK_UP) -> np.ndarray:
    """(91,) state: the door shut (None) or open with the handle this far from the open goal
    along x, the lock ``lock_height`` above the handle, the target showing the open goal."""
    s = np.zeros(STATE_DIM, np.float32)
    s[0:4] = (0.0, 0.6, 0.2, 1.0)
    s[4:7] = OPEN_GOAL
    handle = SHUT_HANDLE if handle_x_from_goal is None else OPEN_GOAL + (handle_x_from_goal, 0.06, -0.05)
    for name, xyz in (("handle", handle), ("lock", handle + (-0.05, 0.0, lock_height))):
        s[SLOT_START[name]:SLOT_START[name] + 7] = (*xyz, 1, 0, 0, 0)
    return s


def holds(s: np.ndarray) -> bool:
    return bool(TASK.success(s[None], NOOP, s[None])[0])


@pytest.mark.parametrize("handle_x, lock_height, expected", [
    (0.0, LOCK_UP, True),
    (0.07, LOCK_UP, True),  # open goal: |handle_x - goal_x| <= 0.08
    (0.09, LOCK_UP, False),
    (-0.09, LOCK_UP, False),
    (0.0, LOCK_UP - 0.030, True),  # unlocked: within 0.033 m of the turned-up height
    (0.0, LOCK_UP - 0.036, False),
    (0.0, LOCK_DOWN, False),  # wrong order: the door open, the lock still down
    (None, LOCK_UP, False),  # unlocked but still shut
])
def test_locked_door_open_predicate(handle_x, lock_height, expected):
    assert holds(door_state(handle_x, lock_height)) is expected


def test_open_needs_the_target_to_show_the_open_goal():
    stale = door_state(0.0, LOCK_UP)
    stale[4:7] = stale[SLOT_START["handle"]:SLOT_START["handle"] + 3] + (0.0, 0.0, 0.111)  # unlock goal
    assert not holds(stale)


def test_stage_counts_unlock_then_open():
    states = np.stack([door_state(None, LOCK_DOWN), door_state(None, LOCK_UP), door_state(0.0, LOCK_UP),
                       door_state(0.0, LOCK_DOWN)])
    assert stage(states, CONDITIONS).tolist() == [0, 1, 2, 0]


@pytest.fixture(scope="module")
def sim():
    return MW.simulator()


def push_on_door(sim, unlock: bool, steps: int = 150) -> tuple[float, float]:
    """Run metaworld's door-open policy from a fresh locked-door scene (the lock first turned
    up if ``unlock``); returns the largest door angle (rad) and handle x travel (m)."""
    from metaworld.policies import SawyerDoorOpenV3Policy

    policy = SawyerDoorOpenV3Policy()
    sim.reset(TASK, np.random.default_rng(7))
    env = sim.env
    if unlock:
        env._set_obj_xyz(0.0)
        sim.raw_obs = env._get_obs()
    handle_x0, angle, travel = sim.state()[SLOT_START["handle"]], 0.0, 0.0
    for _ in range(steps):
        obs = np.array(sim.raw_obs)
        obs[4:7] = obs[11:14]  # the policy's object: the handle
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            state = sim.step(policy.get_action(obs))
        angle = max(angle, abs(env.data.qpos[env.door_qpos]))
        travel = max(travel, abs(state[SLOT_START["handle"]] - handle_x0))
    return angle, travel


def test_lock_holds_the_door_shut_until_turned(sim):
    angle, travel = push_on_door(sim, unlock=False)
    assert angle < 2e-3 and travel < 1e-3, f"locked door moved: {angle:.4f} rad, handle {travel:.4f} m"
    angle, travel = push_on_door(sim, unlock=True)
    assert angle > 1.0 and travel > 0.3, f"unlocked door did not open: {angle:.3f} rad, {travel:.3f} m"


@pytest.fixture(scope="module")
def episode(sim):
    assert MW.tasks("hard")[1].id == "locked-door-open"
    return annotate(MW, expert_episode(MW, "hard", 1, recipe_seed=3, sim=sim), sim)


def test_expert_unlocks_then_opens_and_resimulates_exactly(episode):
    states = episode.states
    assert episode.terminations[-1] and holds(states[-1])
    stages = stage(states, CONDITIONS)
    assert stages[0] == 0 and stages[-1] == 2
    unlocked = int(np.argmax(stages >= 1))
    # the target shows door-unlock's goal, then door-open's (safe z 0.15) from the unlock on
    assert np.allclose(position(states[:unlocked], "target_location")[:, 2], 0.211, atol=1e-3)
    assert np.allclose(position(states[unlocked:], "target_location")[:, 2], 0.15, atol=1e-3)
    assert episode.rewards[unlocked - 1] > 0  # unlocking is progress, not a jump to a new goal
    assert episode.infos["legal"].all()
    assert episode.infos["transition_error"].max() < 1e-6


def test_door_moving_while_latched_is_a_transition_error(episode, sim):
    t = 10
    opened = episode.states[t].copy()
    opened[SLOT_START["handle"]] -= 0.05
    copy = dataclasses.replace(episode, states=episode.states.copy(), infos={})
    copy.states[t] = opened
    checked = annotate(MW, copy, sim)
    assert not checked.infos["transition_ok"][t]
    assert checked.infos["transition_error"][t] == pytest.approx(0.05, abs=0.005)
