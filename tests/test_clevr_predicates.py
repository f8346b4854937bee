"""CLEVR predicates on hand-built states, including the edges of every threshold."""

import numpy as np
import pytest
from conftest import scene

from imaginebench_data import get_domain
from imaginebench_data.domains.clevr.predicates import (
    GATHER_RADIUS,
    ONE_PUSH_MIN_SHIFT,
    RELATION_MAX_DISTANCE,
    relation_holds,
)

CLEVR = get_domain("clevr")
RED, BLUE, GREEN = 0, 1, 2


def holds(state, src, dst, relation):
    return bool(relation_holds(state[None], src, dst, relation)[0])


def at_angle(degrees, distance=0.3):
    offset = distance * np.array([np.cos(np.radians(degrees)), np.sin(np.radians(degrees))])
    return scene(red=tuple(offset), blue=(0.0, 0.0))


@pytest.mark.parametrize(
    "angle, relation",
    [(90, "behind"), (45.01, "behind"), (134.99, "behind"), (180, "left"), (135.01, "left"),
     (224.99, "left"), (270, "front"), (225.01, "front"), (314.99, "front"), (0, "right"),
     (315.01, "right"), (44.99, "right")],
)
def test_relation_sectors_meet_at_the_diagonals(angle, relation):
    state = at_angle(angle)
    assert holds(state, RED, BLUE, relation)
    others = [r for r in ("behind", "left", "front", "right") if r != relation]
    assert not any(holds(state, RED, BLUE, r) for r in others)


def test_relation_distance_threshold():
    inside = at_angle(180, RELATION_MAX_DISTANCE - 5e-4)
    outside = at_angle(180, RELATION_MAX_DISTANCE + 5e-4)
    assert holds(inside, RED, BLUE, "left") and not holds(outside, RED, BLUE, "left")
    assert RELATION_MAX_DISTANCE == pytest.approx(0.391)


def test_train_and_rephrase_share_goals_not_phrasings():
    train, rephrase = CLEVR.tasks("train"), CLEVR.tasks("rephrase")
    assert len(train) == len(rephrase) == 80
    assert [t.goal for t in train] == [t.goal for t in rephrase]
    assert not {p for t in train for p in t.phrasings} & {p for t in rephrase for p in t.phrasings}
    assert len(train[0].phrasings) >= 15 and len(rephrase[0].phrasings) >= 10


def test_task_predicate_is_vectorised_over_a_batch():
    task = CLEVR.task("train", "red-left-of-blue")
    states = np.stack([at_angle(180), at_angle(0), at_angle(180, 0.5)])
    result = task.success(states, np.zeros(3, int), states)
    assert result.tolist() == [True, False, False]


def test_easy_push_needs_the_shift_along_the_direction():
    task = CLEVR.task("easy", "push-red-left")
    before = scene(red=(0.0, 0.0))
    enough = scene(red=(-ONE_PUSH_MIN_SHIFT - 1e-3, 0.02))
    short = scene(red=(-ONE_PUSH_MIN_SHIFT + 1e-3, 0.0))
    wrong_way = scene(red=(0.1, 0.0))
    assert task.succeeded(before, 2, enough)
    assert not task.succeeded(before, 2, short)
    assert not task.succeeded(before, 2, wrong_way)
    assert task.horizon == 1


def test_hard_two_relations_need_both_at_once():
    task = CLEVR.task("hard", "red-left-of-blue+green-behind-purple")
    both = scene(red=(-0.3, 0.0), blue=(0.0, 0.0), green=(0.6, 0.3), purple=(0.6, 0.0))
    one = scene(red=(-0.3, 0.0), blue=(0.0, 0.0))
    assert task.succeeded(one, 0, both)
    assert not task.succeeded(both, 0, one)
    # Reward: 10 per newly satisfied sub-goal, on the post-step state.
    assert task.step_reward(one, 0, both) == pytest.approx(10.0)
    assert task.step_reward(both, 0, one) == pytest.approx(-10.0)


def test_hard_line_in_colour_order():
    task = CLEVR.task("hard", "line-in-colour-order")
    xs = [-0.6, -0.3, 0.0, 0.3, 0.6]
    line = np.array([[x, 0.0] for x in xs], np.float32).reshape(-1)
    tilted = line.copy()
    tilted[9] = 0.3 * np.tan(np.radians(29.0))  # cyan 29 degrees above purple: still aligned
    too_tilted = line.copy()
    too_tilted[9] = 0.3 * np.tan(np.radians(31.0))
    swapped = line.reshape(5, 2)[[1, 0, 2, 3, 4]].reshape(-1)
    assert task.succeeded(swapped, 0, line)
    assert task.succeeded(swapped, 0, tilted)
    assert not task.succeeded(swapped, 0, too_tilted)
    assert not task.succeeded(line, 0, swapped)


def test_hard_gather_around_green():
    task = CLEVR.task("hard", "gather-around-green")
    r = GATHER_RADIUS - 1e-3
    gathered = scene(green=(0, 0), red=(r, 0), blue=(-r, 0), purple=(0, r), cyan=(0, -r))
    one_out = scene(green=(0, 0), red=(r + 2e-3, 0), blue=(-r, 0), purple=(0, r), cyan=(0, -r))
    assert task.succeeded(one_out, 0, gathered)
    assert not task.succeeded(gathered, 0, one_out)
    assert task.step_reward(one_out, 0, gathered) == pytest.approx(10.0)


def test_train_reward_is_distance_progress():
    task = CLEVR.task("train", "red-left-of-blue")
    before = scene(red=(-0.8, 0.0), blue=(0.0, 0.0))
    after = scene(red=(-0.7, 0.0), blue=(0.0, 0.0))
    assert task.step_reward(before, 2, after) == pytest.approx(1.0, abs=1e-5)


def test_level_sizes_and_phrasings():
    assert len(CLEVR.tasks("easy")) == 20
    hard = CLEVR.tasks("hard")
    kinds = {t.kind for t in hard}
    assert {"relations2", "relations3", "line", "gather"} <= kinds
    assert all(len(t.phrasings) >= 3 for t in hard + CLEVR.tasks("easy"))
