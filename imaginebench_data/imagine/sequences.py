"""Sequences for the grounded LM: text tokens and vector slots, with what each position predicts.

A sequence mixes text tokens with *slots*: positions whose input embedding an adapter
overwrites with a state, an action or the instruction's sentence embedding. Targets are
attached to the position that predicts them (the one just before, causal-LM style).

The three supervised tasks (KALM's, see ``reference/kalm.md`` section 1.2)::

    rollout:   "Translate the instruction ... Instruction:" <words> [sentence] ". Trajectory:"
               s0 a0 s1 a1 ... sT        (s_t predicts a_t; a_t predicts s_{t+1})
    dynamics:  "Current state is" s ", after executing action" a ", we get next state"
               (the last position predicts s')
    explain:   "Translate the state/action trajectory ... Trajectory:" s0 a0 ... sT
               ". Instruction:" <words> [EOS]   (each word predicted from the one before)

State targets are predicted relative to the latest state in the sequence (``base``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TEXT, STATE, ACTION, SENTENCE = 0, 1, 2, 3
IGNORE = -100

ROLLOUT_PREFIX = "Translate the instruction to a state/action trajectory. Instruction:"
ROLLOUT_BRIDGE = ". Trajectory:"
DYNAMICS = ("Current state is", ", after executing action", ", we get next state")
EXPLAIN_PREFIX = "Translate the state/action trajectory to an instruction. Trajectory:"
EXPLAIN_BRIDGE = ". Instruction:"
TEMPLATE_TEXTS = (ROLLOUT_PREFIX, ROLLOUT_BRIDGE, *DYNAMICS, EXPLAIN_PREFIX, EXPLAIN_BRIDGE)


@dataclass
class Sequence:
    """One training or prompt sequence; every array has the sequence length L first."""

    ids: np.ndarray          # (L,) token ids (the slot id at slots)
    kind: np.ndarray         # (L,) TEXT / STATE / ACTION / SENTENCE
    states: np.ndarray       # (L, D) the state entering each STATE slot
    actions: np.ndarray      # (L,) or (L, A) the action entering each ACTION slot
    state_target: np.ndarray  # (L, D) next state predicted at this position
    state_base: np.ndarray   # (L, D) the state the prediction is relative to
    state_mask: np.ndarray   # (L,) bool
    action_target: np.ndarray  # (L,) or (L, A)
    action_mask: np.ndarray  # (L,) bool
    labels: np.ndarray       # (L,) next text token, IGNORE elsewhere
    sentence: np.ndarray     # (S,) the instruction's sentence embedding (zeros if none)

    def __len__(self) -> int:
        return len(self.ids)


class SequenceBuilder:
    """Appends text and slots left to right; ``build()`` returns the arrays."""

    def __init__(self, tokenizer, slot_id: int, state_dim: int, action_shape: tuple[int, ...],
                 action_dtype: np.dtype, sentence: np.ndarray | None = None):
        self.tokenizer = tokenizer
        self.slot_id = slot_id
        self.state_dim = state_dim
        self.action_shape = action_shape
        self.action_dtype = action_dtype
        self.sentence = np.zeros(0, np.float32) if sentence is None else sentence
        self.rows: list[dict] = []

    def _row(self, token: int, kind: int) -> dict:
        row = {"id": token, "kind": kind}
        self.rows.append(row)
        return row

    def _predict_here(self, key: str, value) -> None:
        if not self.rows:
            raise ValueError("the first position of a sequence has nothing before it to predict from")
        self.rows[-1][key] = value

    def text(self, text: str, supervised: bool = False) -> SequenceBuilder:
        ids = self.tokenizer(text, add_special_tokens=False).input_ids
        if supervised:
            ids = [*ids, self.tokenizer.eos_token_id]
        for token in ids:
            if supervised:
                self._predict_here("label", token)
            self._row(token, TEXT)
        return self

    def sentence_slot(self) -> SequenceBuilder:
        if self.sentence.size:
            self._row(self.slot_id, SENTENCE)
        return self

    def state(self, state: np.ndarray, predict_from: np.ndarray | None = None) -> SequenceBuilder:
        """A state slot; if ``predict_from`` is given, the previous position predicts this state
        relative to ``predict_from``."""
        if predict_from is not None:
            self.predict_state(state, predict_from)
        self._row(self.slot_id, STATE)["state"] = state
        return self

    def predict_state(self, state: np.ndarray, base: np.ndarray) -> SequenceBuilder:
        """The last position predicts ``state`` (relative to ``base``) without inputting it."""
        self._predict_here("state_target", (state, base))
        return self

    def action(self, action, predict: bool = False) -> SequenceBuilder:
        if predict:
            self._predict_here("action_target", action)
        self._row(self.slot_id, ACTION)["action"] = action
        return self

    def trajectory(self, states: np.ndarray, actions: np.ndarray, supervised: bool) -> SequenceBuilder:
        """s0 a0 s1 ... sT; when supervised, s_t predicts a_t and a_t predicts s_{t+1}."""
        self.state(states[0])
        for t, action in enumerate(actions):
            self.action(action, predict=supervised)
            self.state(states[t + 1], predict_from=states[t] if supervised else None)
        return self

    def build(self) -> Sequence:
        length, dim = len(self.rows), self.state_dim
        seq = Sequence(
            ids=np.array([r["id"] for r in self.rows], np.int64),
            kind=np.array([r["kind"] for r in self.rows], np.int8),
            states=np.zeros((length, dim), np.float32),
            actions=np.zeros((length, *self.action_shape), self.action_dtype),
            state_target=np.zeros((length, dim), np.float32),
            state_base=np.zeros((length, dim), np.float32),
            state_mask=np.zeros(length, bool),
            action_target=np.zeros((length, *self.action_shape), self.action_dtype),
            action_mask=np.zeros(length, bool),
            labels=np.full(length, IGNORE, np.int64),
            sentence=self.sentence.astype(np.float32),
        )
        for i, row in enumerate(self.rows):
            if "state" in row:
                seq.states[i] = row["state"]
            if "action" in row:
                seq.actions[i] = row["action"]
            if "state_target" in row:
                seq.state_target[i], seq.state_base[i] = row["state_target"]
                seq.state_mask[i] = True
            if "action_target" in row:
                seq.action_target[i] = row["action_target"]
                seq.action_mask[i] = True
            if "label" in row:
                seq.labels[i] = row["label"]
        return seq


def rollout_prompt(builder: SequenceBuilder, instruction: str) -> SequenceBuilder:
    """Everything before s0 in the rollout task (also the generation prompt)."""
    return builder.text(ROLLOUT_PREFIX).text(" " + instruction).sentence_slot().text(ROLLOUT_BRIDGE)


def rollout_sequence(builder: SequenceBuilder, instruction: str, states: np.ndarray,
                     actions: np.ndarray) -> Sequence:
    return rollout_prompt(builder, instruction).trajectory(states, actions, supervised=True).build()


def dynamics_prompt(builder: SequenceBuilder, state: np.ndarray, action) -> SequenceBuilder:
    """The dynamics task up to the position that predicts the next state."""
    before, middle, after = DYNAMICS
    return builder.text(before).state(state).text(middle).action(action).text(after)


def dynamics_sequence(builder: SequenceBuilder, state: np.ndarray, action,
                      next_state: np.ndarray) -> Sequence:
    return dynamics_prompt(builder, state, action).predict_state(next_state, state).build()


def explain_sequence(builder: SequenceBuilder, instruction: str, states: np.ndarray,
                     actions: np.ndarray) -> Sequence:
    return (builder.text(EXPLAIN_PREFIX).trajectory(states, actions, supervised=False)
            .text(EXPLAIN_BRIDGE).text(" " + instruction, supervised=True).build())


def pad_field(sequences: list[Sequence], name: str, fill, left: bool = False) -> np.ndarray:
    """Field ``name`` of every sequence in one (B, L_max, ...) array, padded with ``fill`` on
    the right (training) or on the left (generation prompts, so all end at the last column)."""
    first = getattr(sequences[0], name)
    length = max(len(s) for s in sequences)
    array = np.full((len(sequences), length, *first.shape[1:]), fill, first.dtype)
    for i, seq in enumerate(sequences):
        if left:
            array[i, length - len(seq):] = getattr(seq, name)
        else:
            array[i, : len(seq)] = getattr(seq, name)
    return array


def stack_sentences(sequences: list[Sequence]) -> np.ndarray:
    """(B, S) sentence embeddings; sequences without a sentence slot keep zeros."""
    sentences = np.zeros((len(sequences), max(s.sentence.size for s in sequences)), np.float32)
    for i, seq in enumerate(sequences):
        sentences[i, : seq.sentence.size] = seq.sentence
    return sentences
