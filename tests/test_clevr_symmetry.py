"""CLEVR's symmetric copies (colours permuted, the table mirrored): episodes of their own task,
to the bit, and the grounding lever that sees them."""

import numpy as np
import pytest

from imaginebench_data.domains import get_domain
from imaginebench_data.domains.clevr.symmetry import symmetric_copy, transform
from imaginebench_data.imagine.data import SequenceFactory, training_phrasings
from imaginebench_data.imagine.train import TrainSettings, train_grounding
from imaginebench_data.pipeline.rollout import expert_episode

CLEVR = get_domain("clevr")


@pytest.fixture(scope="module")
def episodes():
    sim = CLEVR.simulator()
    return [expert_episode(CLEVR, "train", index, 11, sim) for index in range(12)]


def test_a_transform_moves_each_ball_to_its_slot_and_mirrors_x():
    state = np.arange(10.0)[None] / 10  # red (0, .1), blue (.2, .3), green (.4, .5), ...
    order = np.array([1, 2, 0, 3, 4])  # red to blue's slot, blue to green's, green to red's
    pushes = np.array([0 * 8 + 0, 2 * 8 + 4, 1 * 8 + 7])  # red +x, green +x+y, blue -x-y
    states, actions = transform(np.repeat(state, 4, 0), pushes, order, mirror=True)
    np.testing.assert_array_equal(states[0, 0:2], [-0.4, 0.5])  # green, in red's slot, x negated
    np.testing.assert_array_equal(states[0, 2:4], [-0.0, 0.1])  # red in blue's slot
    np.testing.assert_array_equal(states[0, 4:6], [-0.2, 0.3])  # blue in green's slot
    np.testing.assert_array_equal(states[0, 6:], state[0, 6:] * [-1, 1, -1, 1])  # purple, cyan stay
    # red +x -> slot 1, -x; green +x+y -> slot 0, -x+y; blue -x-y -> slot 2, +x-y
    np.testing.assert_array_equal(actions, [1 * 8 + 2, 0 * 8 + 5, 2 * 8 + 6])
    same, unmoved = transform(np.repeat(state, 4, 0), pushes, np.arange(5), mirror=False)
    np.testing.assert_array_equal(same, np.repeat(state, 4, 0))
    np.testing.assert_array_equal(unmoved, pushes)


def test_copies_are_episodes_of_their_task_to_the_bit(episodes):
    sim = CLEVR.simulator()
    rng = np.random.default_rng(3)
    tasks = set()
    for episode in episodes:
        for _ in range(4):
            copy = symmetric_copy(episode, rng)
            task = CLEVR.task("train", copy.task_id)
            assert copy.instruction in task.phrasings
            assert copy.instruction == task.phrasings[copy.phrasing_id]
            for state, action, after in zip(copy.states, copy.actions, copy.states[1:]):
                np.testing.assert_array_equal(sim.step_from(state, int(action)), after)
            assert task.success(copy.states[-2:-1], copy.actions[-1:], copy.states[-1:])[0]
            assert not CLEVR.illegal(copy.states).any()
            tasks.add(copy.task_id)
    assert len(tasks) > 30  # 48 copies of 12 episodes reach many of the 80 tasks


def test_episodes_of_other_levels_are_not_copied(episodes):
    sim = CLEVR.simulator()
    easy = expert_episode(CLEVR, "easy", 0, 11, sim)
    rng = np.random.default_rng(0)
    assert symmetric_copy(easy, rng) is easy
    assert rng.integers(1 << 30) == np.random.default_rng(0).integers(1 << 30)  # nothing drawn


def test_the_factory_builds_its_sequences_from_the_copies(episodes):
    from imagine_helpers import tiny_model

    from imaginebench_data.imagine.backbone import slot_token_id
    from imaginebench_data.imagine.sequences import STATE

    model = tiny_model()
    factory = SequenceFactory(model.tokenizer, slot_token_id(model.tokenizer), 10, (), np.int64,
                              lambda text: None)
    phrasings, _ = training_phrasings("clevr", episodes[:1], every_task=True)
    assert len(phrasings) == 80  # copies reach every training task, not only those in the data
    plain = factory.epoch(episodes[:3], phrasings, np.random.default_rng(5))
    copied = factory.epoch(episodes[:3], phrasings, np.random.default_rng(5), symmetry=CLEVR.symmetry)
    assert len(copied) == len(plain) == 3 * 4  # as many sequences as without the lever
    copy = symmetric_copy(episodes[0], np.random.default_rng(5))  # the factory's first draw
    rollout = copied[0]
    np.testing.assert_array_equal(rollout.states[rollout.kind == STATE], copy.states)
    assert not np.array_equal(plain[0].states[plain[0].kind == STATE], copy.states)


def test_the_lever_is_refused_where_a_domain_has_no_symmetry(tmp_path):
    with pytest.raises(ValueError, match="--symmetries needs a domain with symmetric copies"):
        train_grounding("imaginebench/metaworld-train-real-v0", tmp_path,
                        settings=TrainSettings(symmetries=True))


def test_the_lever_is_named_in_the_checkpoint_key_only_when_on():
    assert "symmetries" not in TrainSettings().key()
    assert TrainSettings(symmetries=True).key()["symmetries"] is True

