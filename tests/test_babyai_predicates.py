"""BabyAI predicates and rewards on hand-built 17-number states, one positive and one negative per task."""

import numpy as np
import pytest

from imaginebench_data import get_domain
from imaginebench_data.domains.babyai.sim import CLOSED, LOCKED, OPEN, TOGGLE, compose_state

BABYAI = get_domain("babyai")
RED, GREEN, BLUE = 0, 1, 2
# compose_state's default colours: ball red, box green, key blue, door blue.


def succeeds(level, task_id, state, prev=None, action=0):
    task = BABYAI.task(level, task_id)
    return task.succeeded(state if prev is None else prev, action, state)


def test_level_sizes_and_train_rephrase_share_goals_not_phrasings():
    train, rephrase = BABYAI.tasks("train"), BABYAI.tasks("rephrase")
    ids = {t.id for t in train}
    assert {"goto-blue-ball", "open-blue-door", "pickup-blue-ball", "put-blue-ball-next-to-green-box"} <= ids
    # Put-next: every ordered colour pair exactly once over the 36 tasks.
    assert len({(t.goal["colour"], t.goal["other_colour"]) for t in train if t.kind == "putnext"}) == 36
    assert len(train) == len(rephrase) == 84
    assert {t.kind for t in train} == {"goto", "open", "pickup", "putnext"}
    assert [t.goal for t in train] == [t.goal for t in rephrase]
    assert not {p for t in train for p in t.phrasings} & {p for t in rephrase for p in t.phrasings}
    easy = ["open-then-goto", "open-then-pickup", "goto-wall", "goto-centre"]
    assert [t.id for t in BABYAI.tasks("easy")] == easy
    assert [t.id for t in BABYAI.tasks("hard")] == ["key-then-open", "line", "pile"]
    assert all(t.horizon == 128 for level in ("train", "easy", "hard") for t in BABYAI.tasks(level))


def test_go_to_an_object_needs_its_cell_and_colour():
    assert succeeds("train", "goto-red-ball", compose_state(agent=(2, 2)))
    assert not succeeds("train", "goto-red-ball", compose_state(agent=(2, 3)))
    assert not succeeds("train", "goto-blue-ball", compose_state(agent=(2, 2)))
    assert not succeeds("train", "goto-red-ball", compose_state(agent=(2, 2), carrying="ball"))


def test_go_to_the_door_means_standing_beside_it():
    assert succeeds("train", "goto-blue-door", compose_state(agent=(3, 6)))
    assert not succeeds("train", "goto-blue-door", compose_state(agent=(4, 6)))
    assert not succeeds("train", "goto-red-door", compose_state(agent=(3, 6)))


def test_open_needs_the_door_of_that_colour_open():
    assert succeeds("train", "open-blue-door", compose_state(door_state=OPEN))
    assert not succeeds("train", "open-blue-door", compose_state(door_state=CLOSED))
    assert not succeeds("train", "open-green-door", compose_state(door_state=OPEN))


def test_pick_up_needs_that_object_of_that_colour_in_hand():
    assert succeeds("train", "pickup-blue-key", compose_state(carrying="key"))
    assert not succeeds("train", "pickup-blue-key", compose_state(carrying="ball"))
    assert not succeeds("train", "pickup-red-key", compose_state(carrying="key"))


def test_put_next_needs_four_adjacent_cells_on_the_floor():
    task_id = "put-blue-ball-next-to-green-box"  # one of the original's evaluated tasks
    blue = {"ball": BLUE}
    assert succeeds("train", task_id, compose_state(ball=(2, 3), box=(2, 4), colours=blue))
    assert not succeeds("train", task_id, compose_state(ball=(2, 3), box=(2, 4)))  # a red ball
    assert not succeeds("train", task_id, compose_state(ball=(3, 3), box=(2, 4), colours=blue))  # diagonal
    assert not succeeds("train", task_id, compose_state(ball=(2, 2), box=(2, 4), colours=blue))
    # A carried ball is not next to anything, wherever the agent stands.
    held = compose_state(box=(2, 4), agent=(2, 3), carrying="ball", colours=blue)
    assert not succeeds("train", task_id, held)


def test_open_then_go_to_needs_both():
    assert succeeds("easy", "open-then-goto", compose_state(door_state=OPEN, agent=(4, 2)))
    assert not succeeds("easy", "open-then-goto", compose_state(door_state=CLOSED, agent=(4, 2)))
    assert not succeeds("easy", "open-then-goto", compose_state(door_state=OPEN, agent=(5, 5)))


def test_open_then_pick_up_can_pass():
    # The original's check could never pass; ours holds once the door is open and a hand is full.
    assert succeeds("easy", "open-then-pickup", compose_state(door_state=OPEN, carrying="box"))
    assert not succeeds("easy", "open-then-pickup", compose_state(door_state=CLOSED, carrying="box"))
    assert not succeeds("easy", "open-then-pickup", compose_state(door_state=OPEN))


@pytest.mark.parametrize("agent, expected", [((1, 4), True), ((4, 6), True), ((3, 8), True), ((4, 13), True),
                                             ((3, 3), False), ((5, 5), False), ((3, 7), False)])
def test_go_to_the_wall(agent, expected):
    assert succeeds("easy", "goto-wall", compose_state(agent=agent)) == expected


@pytest.mark.parametrize("agent, expected", [((3, 3), True), ((4, 4), True), ((3, 4), True),
                                             ((2, 3), False), ((5, 4), False)])
def test_go_to_the_centre(agent, expected):
    assert succeeds("easy", "goto-centre", compose_state(agent=agent)) == expected


def test_key_then_open_is_the_opening_with_the_key_in_hand():
    locked = compose_state(door_state=LOCKED, carrying="key", agent=(3, 6))
    opened = compose_state(door_state=OPEN, carrying="key", agent=(3, 6))
    assert succeeds("hard", "key-then-open", opened, prev=locked, action=TOGGLE)
    # Opened without the key, or already open before the step: not this task.
    assert not succeeds("hard", "key-then-open", compose_state(door_state=OPEN, agent=(3, 6)), prev=locked)
    assert not succeeds("hard", "key-then-open", opened, prev=opened)


def test_line_is_one_row_or_column_of_three_floor_cells():
    assert succeeds("hard", "line", compose_state(ball=(2, 1), box=(2, 5), key=(2, 3)))
    assert succeeds("hard", "line", compose_state(ball=(1, 4), box=(6, 4), key=(3, 4)))
    assert not succeeds("hard", "line", compose_state(ball=(2, 1), box=(2, 5), key=(3, 3)))
    assert not succeeds("hard", "line", compose_state(ball=(2, 1), box=(2, 5), agent=(2, 3), carrying="key"))


def test_pile_is_three_cells_of_one_two_by_two_block():
    assert succeeds("hard", "pile", compose_state(ball=(2, 2), box=(2, 3), key=(3, 2)))
    assert succeeds("hard", "pile", compose_state(ball=(2, 3), box=(3, 2), key=(3, 3)))
    assert not succeeds("hard", "pile", compose_state(ball=(2, 2), box=(2, 3), key=(2, 4)))  # a line
    assert not succeeds("hard", "pile", compose_state(ball=(2, 2), box=(2, 3), key=(4, 2)))


def test_predicates_are_vectorised():
    task = BABYAI.task("train", "goto-red-ball")
    states = np.stack([compose_state(agent=(2, 2)), compose_state(agent=(2, 3)), compose_state(agent=(2, 2))])
    states[2, 0] = GREEN
    assert task.success(states, np.zeros(3, int), states).tolist() == [True, False, False]


def test_reward_is_one_on_success_else_shaped_distance():
    task = BABYAI.task("train", "goto-red-ball")
    far, nearer, there = (compose_state(agent=a) for a in ((5, 2), (4, 2), (2, 2)))
    assert task.step_reward(far, 2, nearer) == pytest.approx(0.1)
    assert task.step_reward(nearer, 6, far) == pytest.approx(-0.1)
    assert task.step_reward(compose_state(agent=(3, 2)), 2, there) == 1.0
    staged = BABYAI.task("easy", "open-then-goto")
    closed, opened = compose_state(agent=(3, 6)), compose_state(agent=(3, 6), door_state=OPEN)
    # Opening the door removes the stage penalty (24) and the door's own distance.
    assert staged.step_reward(closed, TOGGLE, opened) == pytest.approx(0.1 * (24 - 3))
