"""Sequence layout of the three supervised tasks: which position carries what, predicts what."""

import numpy as np
import pytest

from imaginebench_data.imagine.sequences import (
    ACTION,
    IGNORE,
    SENTENCE,
    STATE,
    TEMPLATE_TEXTS,
    TEXT,
    SequenceBuilder,
    dynamics_sequence,
    explain_sequence,
    rollout_sequence,
)
from imaginebench_data.imagine.tokenizer import SLOT, build_word_tokenizer

INSTRUCTION = "Push the red ball behind the blue ball"


@pytest.fixture(scope="module")
def tokenizer():
    return build_word_tokenizer([*TEMPLATE_TEXTS, INSTRUCTION])


def builder(tokenizer, sentence=None):
    return SequenceBuilder(tokenizer, tokenizer.convert_tokens_to_ids(SLOT), 2, (), np.int64, sentence)


def trajectory():
    states = np.array([[0.0, 0.0], [0.1, 0.0], [0.2, 0.1], [0.3, 0.1]], np.float32)
    actions = np.array([5, 7, 9])
    return states, actions


def test_rollout_slots_and_targets_are_aligned(tokenizer):
    states, actions = trajectory()
    seq = rollout_sequence(builder(tokenizer, np.ones(3, np.float32)), INSTRUCTION, states, actions)
    slots = np.flatnonzero(seq.kind != TEXT)
    assert list(seq.kind[slots]) == [SENTENCE, STATE, ACTION, STATE, ACTION, STATE, ACTION, STATE]
    state_pos, action_pos = np.flatnonzero(seq.kind == STATE), np.flatnonzero(seq.kind == ACTION)
    np.testing.assert_array_equal(seq.states[state_pos], states)
    np.testing.assert_array_equal(seq.actions[action_pos], actions)
    # s_t's position predicts a_t; a_t's position predicts s_{t+1} relative to s_t
    np.testing.assert_array_equal(np.flatnonzero(seq.action_mask), action_pos - 1)
    np.testing.assert_array_equal(seq.action_target[action_pos - 1], actions)
    np.testing.assert_array_equal(np.flatnonzero(seq.state_mask), action_pos)
    np.testing.assert_array_equal(seq.state_target[action_pos], states[1:])
    np.testing.assert_array_equal(seq.state_base[action_pos], states[:-1])
    assert (seq.labels == IGNORE).all()
    np.testing.assert_array_equal(seq.sentence, np.ones(3))


def test_dynamics_predicts_next_state_at_the_last_position(tokenizer):
    states, actions = trajectory()
    seq = dynamics_sequence(builder(tokenizer), states[1], actions[1], states[2])
    assert list(seq.kind[seq.kind != TEXT]) == [STATE, ACTION]
    assert np.flatnonzero(seq.state_mask).tolist() == [len(seq) - 1]
    np.testing.assert_array_equal(seq.state_target[-1], states[2])
    np.testing.assert_array_equal(seq.state_base[-1], states[1])
    assert not seq.action_mask.any() and seq.sentence.size == 0


def test_explain_supervises_exactly_the_instruction_tokens(tokenizer):
    states, actions = trajectory()
    seq = explain_sequence(builder(tokenizer), INSTRUCTION, states, actions)
    words = tokenizer(" " + INSTRUCTION, add_special_tokens=False).input_ids + [tokenizer.eos_token_id]
    labelled = np.flatnonzero(seq.labels != IGNORE)
    assert seq.labels[labelled].tolist() == words
    # position p predicts the token at p + 1, and the instruction is the sequence's tail
    assert seq.ids[labelled + 1].tolist() == words and labelled[-1] == len(seq) - 2
    assert not seq.state_mask.any() and not seq.action_mask.any()


def test_unknown_words_map_to_unk(tokenizer):
    ids = tokenizer("shove the crimson ball", add_special_tokens=False).input_ids
    assert ids.count(tokenizer.unk_token_id) == 2
