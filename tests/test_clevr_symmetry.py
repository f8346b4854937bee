"""CLEVR's symmetric copies (colours permuted, the table mirrored): episodes and transitions of
their own task, to the bit, and the grounding and BC levers that see them."""

import numpy as np
import pytest
from tiny import Lengths

from imaginebench_data.domains import get_domain
from imaginebench_data.domains.clevr.symmetry import (
    move_balls,
    move_pushes,
    symmetric_copy,
    symmetric_rows,
)
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
    states, actions = move_balls(np.repeat(state, 4, 0), order, True), move_pushes(pushes, order, True)
    np.testing.assert_array_equal(states[0, 0:2], [-0.4, 0.5])  # green, in red's slot, x negated
    np.testing.assert_array_equal(states[0, 2:4], [-0.0, 0.1])  # red in blue's slot
    np.testing.assert_array_equal(states[0, 4:6], [-0.2, 0.3])  # blue in green's slot
    np.testing.assert_array_equal(states[0, 6:], state[0, 6:] * [-1, 1, -1, 1])  # purple, cyan stay
    # red +x -> slot 1, -x; green +x+y -> slot 0, -x+y; blue -x-y -> slot 2, +x-y
    np.testing.assert_array_equal(actions, [1 * 8 + 2, 0 * 8 + 5, 2 * 8 + 6])
    np.testing.assert_array_equal(move_balls(state, np.arange(5), False), state)
    np.testing.assert_array_equal(move_pushes(pushes, np.arange(5), False), pushes)
    # row by row: the second row unmoved, the first as above
    rows = move_balls(np.repeat(state, 2, 0), np.stack([order, np.arange(5)]), np.array([True, False]))
    np.testing.assert_array_equal(rows, np.concatenate([states[:1], state]))


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


def test_hard_episodes_are_not_copied_and_easy_ones_are():
    sim = CLEVR.simulator()
    hard = expert_episode(CLEVR, "hard", 0, 11, sim)
    rng = np.random.default_rng(0)
    assert symmetric_copy(hard, rng) is hard  # a copied hard goal is no task of the level
    assert rng.integers(1 << 30) == np.random.default_rng(0).integers(1 << 30)  # nothing drawn
    for index in range(4):
        easy = expert_episode(CLEVR, "easy", index, 11, sim)
        copy = symmetric_copy(easy, rng)
        task = CLEVR.task("easy", copy.task_id)
        np.testing.assert_array_equal(sim.step_from(copy.states[0], int(copy.actions[0])), copy.states[1])
        assert task.success(copy.states[:1], copy.actions, copy.states[1:])[0]


def test_rows_are_copied_each_under_its_own_symmetry(episodes):
    sim = CLEVR.simulator()
    states = np.concatenate([e.states[:-1] for e in episodes])
    nexts = np.concatenate([e.states[1:] for e in episodes])
    actions = np.concatenate([e.actions for e in episodes])
    texts = [e.instruction for e in episodes for _ in e.actions]
    texts[0] = "Not a phrasing of any task."
    copied, pushes, copied_texts = symmetric_rows(states, actions, texts, np.random.default_rng(2))
    assert copied_texts[0] == texts[0]
    np.testing.assert_array_equal(copied[0], states[0])
    assert pushes[0] == actions[0]
    by_text = {p: t for t in CLEVR.tasks("train") for p in t.phrasings}
    reached = set()
    for n in range(1, len(states)):
        after = sim.step_from(copied[n], int(pushes[n]))
        original = by_text[texts[n]]
        task = by_text[copied_texts[n]]
        assert original.phrasings.index(texts[n]) == task.phrasings.index(copied_texts[n])  # same template
        # the balls move as the original's did, up to which ball and the sign of x
        np.testing.assert_array_equal(np.sort(np.abs(after - copied[n])),
                                      np.sort(np.abs(nexts[n] - states[n])))
        # and the copied step keeps the original's outcome for the copied goal
        assert (task.success(copied[n : n + 1], pushes[n : n + 1], after[None])[0]
                == original.success(states[n : n + 1], actions[n : n + 1], nexts[n : n + 1])[0])
        reached.add(copied_texts[n])
    assert len(reached) > 30  # rows drew their own symmetries


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
    with pytest.raises(ValueError, match="--symmetries needs a domain with copies of its data"):
        train_grounding("imaginebench/metaworld-train-real-v0", tmp_path,
                        settings=TrainSettings(symmetries=True))


def test_the_lever_is_named_in_the_checkpoint_key_only_when_on():
    assert "symmetries" not in TrainSettings().key()
    assert TrainSettings(symmetries=True).key()["symmetries"] is True



def test_bc_batches_are_copies_of_the_samplers_rows_with_their_phrasings_embedded(train_set):
    import imaginebench_data as ib
    from imaginebench_data.baselines.copies import CopiedBatches

    sampler = ib.Sampler({train_set: 1.0}, encoder=Lengths(), seed=4)
    batch = CopiedBatches(sampler, CLEVR.symmetry).sample(64)
    again = ib.Sampler({train_set: 1.0}, encoder=Lengths(), seed=4)
    rows = again.sample(64, as_numpy=True, with_index=True)
    data = again.datasets[0]
    texts = [data.instructions[data.instruction_ids[i]] for i in rows["index"]]
    states, actions, copied = symmetric_rows(rows["observations"], rows["actions"], texts, again.rng)
    np.testing.assert_array_equal(batch["observations"].numpy(), states)
    np.testing.assert_array_equal(batch["actions"].numpy(), actions)
    np.testing.assert_array_equal(batch["instruction_embeddings"][:, 0].numpy(), [len(t) for t in copied])
    assert copied != texts and set(copied) <= set(CLEVR.symmetry.phrasings())
    sim = CLEVR.simulator()
    for n in range(0, 64, 8):  # a copied row moves its balls as the original row did
        moved = sim.step_from(states[n], int(actions[n])) - states[n]
        original = rows["next_observations"][n] - rows["observations"][n]
        np.testing.assert_array_equal(np.sort(np.abs(moved)), np.sort(np.abs(original)))


def test_bc_trains_on_copies_and_refuses_them_without_a_symmetry(train_set, minari_root, tmp_path):
    import imaginebench_data as ib
    from imaginebench_data.baselines.bc import BCSettings, train_bc
    from imaginebench_data.pipeline.build import build

    sampler = ib.Sampler({train_set: 1.0}, encoder=Lengths())
    _, plain = train_bc(sampler, BCSettings(steps=201, seed=1))
    _, copied = train_bc(sampler, BCSettings(steps=201, seed=1, symmetries=True))
    assert copied != plain and copied[-1] < copied[0]  # other batches, and it learns from them
    build("imaginebench/babyai-train-real-v0", episodes=2, workers=1, cards_dir=tmp_path / "c",
          progress=False)
    grid = ib.Sampler({"imaginebench/babyai-train-real-v0": 1.0}, encoder=None)
    with pytest.raises(ValueError, match="symmetries needs a domain with copies of its data"):
        train_bc(grid, BCSettings(steps=1, symmetries=True))
