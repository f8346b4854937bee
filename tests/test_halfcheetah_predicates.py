"""HalfCheetah predicates and rewards on hand-built state sequences (no simulator)."""

import numpy as np
import pytest

from imaginebench_data import get_domain
from imaginebench_data.domains.halfcheetah.decode import project_onto_cheetah
from imaginebench_data.domains.halfcheetah.layout import (
    DX,
    JOINTS,
    ORIGINAL_DIM,
    PEAK,
    QVEL,
    ROOTZ,
    STATE_DIM,
    TIME,
    TROUGH,
    X,
    advance,
    decode,
    from_original,
    steps,
)

HC = get_domain("halfcheetah")
STILL = np.zeros(6, np.float32)


def walk(*legs: tuple[float, int]) -> np.ndarray:
    """(T+1, 22) states of a cheetah covering each leg's displacement (m) in its number of
    steps at a constant pace, from a reset state; only dx and the counters are set."""
    dxs = np.concatenate([np.full(steps, distance / steps) for distance, steps in legs])
    states = [np.zeros(STATE_DIM, np.float32)]
    for dx in dxs:
        states.append(advance(states[-1][None], np.array([dx]), np.zeros((1, 8)), np.zeros((1, 9)))[0])
    return np.stack(states)


def first_success(level: str, task_id: str, states: np.ndarray) -> int | None:
    """The first step whose transition satisfies the task, or None."""
    task = HC.task(level, task_id)
    actions = np.zeros((len(states) - 1, 6), np.float32)
    hits = np.flatnonzero(task.success(states[:-1], actions, states[1:]))
    return int(hits[0]) + 1 if len(hits) else None


def test_counters_follow_the_walk():
    states = walk((2.0, 10), (-5.0, 10))
    assert states[10, X] == pytest.approx(2.0) and states[20, X] == pytest.approx(-3.0)
    assert states[20, TIME] == pytest.approx(1.0) and states[20, PEAK] == pytest.approx(2.0)
    assert states[20, TROUGH] == pytest.approx(-3.0)


@pytest.mark.parametrize("level, task_id, sign, distance, min_steps", [
    ("train", "run-forward", 1, 7.0, 99), ("rephrase", "run-backward", -1, 7.0, 99),
    ("easy", "run-forward-fast", 1, 8.5, 99), ("easy", "run-backward-fast", -1, 8.5, 99),
    ("train", "jump-forward", 1, 0.0, 5), ("train", "jump-backward", -1, 0.0, 5),
])
def test_going_one_way_needs_the_distance_and_the_steps(level, task_id, sign, distance, min_steps):
    beyond = sign * (distance + 0.05)
    assert first_success(level, task_id, walk((beyond, min_steps))) == min_steps
    assert first_success(level, task_id, walk((beyond, min_steps - 3), (0.0, 9))) == min_steps  # early: waits
    assert first_success(level, task_id, walk((sign * (distance - 0.05), min_steps + 20))) is None
    assert first_success(level, task_id, walk((-beyond, min_steps + 20))) is None  # wrong way


def test_jump_in_place_stays_within_the_radius_for_15_steps():
    assert first_success("hard", "jump-in-place", walk((1.0, 15))) == 15
    assert first_success("hard", "jump-in-place", walk((-1.0, 14), (0.0, 1))) == 15
    assert first_success("hard", "jump-in-place", walk((1.1, 15), (0.0, 30))) is None


def test_staged_tasks_check_the_order():
    there_and_back = walk((3.5, 20), (-3.2, 20))    # peak 3.5, ends at 0.3 < 3.5 - 3
    assert first_success("hard", "forward-then-backward", there_and_back) is not None
    assert first_success("hard", "backward-then-forward", there_and_back) is None
    back_and_there = walk((-3.5, 20), (3.2, 20))
    assert first_success("hard", "backward-then-forward", back_and_there) is not None
    assert first_success("hard", "forward-then-backward", back_and_there) is None
    # both stages needed, each beyond 3 m
    assert first_success("hard", "forward-then-backward", walk((3.5, 20), (-2.9, 20))) is None
    assert first_success("hard", "forward-then-backward", walk((2.9, 20), (-6.0, 40))) is None
    # succeeds at the first step 3 m behind the peak
    step = first_success("hard", "forward-then-backward", walk((4.0, 40), (-4.2, 30)))
    assert step == 40 + 22  # 0.14 m per step back: 2.94 m after 21 steps, 3.08 m after 22


def test_no_task_holds_in_a_reset_state():
    reset = np.zeros((1, STATE_DIM), np.float32)
    for level in ("train", "rephrase", "easy", "hard"):
        for task in HC.tasks(level):
            assert not task.success(reset, STILL[None], reset)[0], task.id


def test_rewards_are_the_run_velocity_in_the_stage_direction_minus_control():
    action = np.full(6, 0.5, np.float32)               # ctrl cost 0.1 * 6 * 0.25 = 0.15
    states = walk((0.1, 1))                           # 0.1 m in 0.05 s: 2 m/s
    forward = HC.task("train", "run-forward").step_reward(states[0], action, states[1])
    backward = HC.task("train", "run-backward").step_reward(states[0], action, states[1])
    in_place = HC.task("hard", "jump-in-place").step_reward(states[0], action, states[1])
    assert forward == pytest.approx(2.0 - 0.15, abs=1e-5)
    assert backward == pytest.approx(-2.0 - 0.15, abs=1e-5)
    assert in_place == pytest.approx(-2.0 - 0.15, abs=1e-5)
    staged = HC.task("hard", "forward-then-backward")
    before, after = walk((3.5, 35), (0.1, 1))[-2:]   # first stage done: forward now costs
    assert staged.step_reward(states[0], STILL, states[1]) == pytest.approx(2.0, abs=1e-5)
    assert staged.step_reward(before, STILL, after) == pytest.approx(-2.0, abs=1e-5)


def test_phrasings_fix_the_originals_swap_and_never_repeat_across_levels():
    for level in ("train", "rephrase"):
        for direction, other in (("forward", "backward"), ("backward", "forward")):
            for text in HC.task(level, f"jump-{direction}").phrasings:
                assert other not in text.lower()
    train = {p for t in HC.tasks("train") for p in t.phrasings}
    rephrase = {p for t in HC.tasks("rephrase") for p in t.phrasings}
    assert not train & rephrase


def test_decode_keeps_the_physics_and_moves_the_counters_on_by_dx():
    prev = walk((2.0, 4))[-2:]                     # x 1.5 then 2.0, at 3 and 4 steps
    imagined = np.full((2, STATE_DIM), 0.4, np.float32)
    imagined[:, DX] = (0.7, -0.3)
    imagined[:, X:] = (9.0, 0.33, -5.0, 5.0)       # regressed counters: inconsistent, ignored
    decoded = decode(prev, imagined)
    np.testing.assert_array_equal(decoded[:, :X], imagined[:, :X])
    np.testing.assert_allclose(decoded[:, X], prev[:, X] + (0.7, -0.3), atol=1e-6)
    np.testing.assert_allclose(steps(decoded), steps(prev) + 1, atol=1e-4)
    np.testing.assert_allclose(decoded[:, PEAK], [2.2, 2.0], atol=1e-6)
    np.testing.assert_allclose(decoded[:, TROUGH], prev[:, TROUGH], atol=1e-6)
    assert not HC.illegal(decoded)[:, HC.illegal_kinds.index("bad_counters")].any()


def test_projection_makes_each_kind_of_illegal_state_legal_and_keeps_legal_ones():
    prev = walk((2.0, 4))[-1:].repeat(5, axis=0)
    imagined = np.zeros((5, STATE_DIM), np.float32)
    imagined[:, DX] = 0.3
    imagined[1, JOINTS.start + 5] = 2.0                # ffoot bent 1.5 rad past its limit (0.5)
    imagined[2, ROOTZ] = -1.5                          # torso under the floor
    imagined[3, QVEL.start + 3] = 80.0                 # bthigh at 80 rad/s
    imagined[3, DX] = -3.0                             # 3 m in one step
    imagined[4, ROOTZ] = np.nan                        # left for the checkers
    kinds = HC.illegal_kinds
    before = HC.illegal(decode(prev, imagined))
    assert before[1, kinds.index("joint_out_of_range")] and before[2, kinds.index("torso_in_floor")]
    assert before[3, kinds.index("too_fast")] and before[4, kinds.index("non_finite")]
    projected = project_onto_cheetah(prev, imagined)
    after = HC.illegal(projected)
    assert not after[:4].any() and after[4, kinds.index("non_finite")]
    np.testing.assert_array_equal(projected[0], decode(prev, imagined)[0])   # legal: as decoded
    assert projected[1, JOINTS.start + 5] == pytest.approx(0.75)               # 0.5 + 0.25 overshoot
    assert projected[2, ROOTZ] == pytest.approx(-0.6)
    assert projected[3, DX] == pytest.approx(-1.0) and projected[3, X] == pytest.approx(prev[0, X] - 1.0)
    assert HC.decode_state is project_onto_cheetah


def test_original_states_gain_counters_and_lose_the_reset_x():
    walked = walk((2.0, 4), (-3.0, 6))
    original = walked[:, :ORIGINAL_DIM].copy()
    original[0, 0] = 0.07                              # the original's reset row: absolute x
    np.testing.assert_allclose(from_original(original), walked, atol=1e-6)
    with pytest.raises(ValueError, match="original states"):
        from_original(walked)
