"""Imagining rollouts: batched, greedy, with the key/value cache.

For each prompt (instruction + real start state s0) the model alternates::

    h(s_t) -> a_t = argmax of the action head (or its regression output)
    h(a_t) -> s_{t+1} = s_t + state head * delta_std

feeding one new position per prediction into the cached backbone, until the task's
predicate holds on (s_t, a_t, s_{t+1}) or the task's time limit. Rows of a batch that are
done keep computing (the batch stays rectangular) but their output is ignored. A domain's
``decode_state`` (its named correction, ``Domain.decoding``) turns each predicted state into
the state fed back and stored; the prediction before it is kept as ``Rollout.raw_states`` so
that the card can report the raw model output's rates beside the corrected ones. Nothing
else is clipped or repaired: non-finite states are kept for the checkers.

``cache=False`` runs the naive loop (a full forward pass over the whole sequence for every
prediction), kept as the reference the cached loop must equal and for the speed benchmark.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from tqdm.auto import tqdm

from ..core.task import Task
from .backbone import slot_token_id
from .determinism import pinned
from .model import GroundedLM
from .sequences import TEXT, SequenceBuilder, pad_field, rollout_prompt, stack_sentences


@dataclass(frozen=True)
class Prompt:
    task: Task
    instruction: str
    start: np.ndarray  # (D,) a real reset state


@dataclass
class Rollout:
    states: np.ndarray   # (T+1, D) float32, s0 first
    actions: np.ndarray  # (T, ...)
    success: bool        # the predicate held on the last transition
    raw_states: np.ndarray  # (T+1, D): s0, then each step's prediction before ``decode``


class _Batch:
    """The growing sequence of one batch: attention mask, positions and (naive mode) embeddings."""

    def __init__(self, model: GroundedLM, prompts: Sequence[Prompt],
                 sentence: Callable[[str], np.ndarray | None]):
        self.model = model
        tokenizer = model.tokenizer
        slot = slot_token_id(tokenizer)
        dim, shape = model.config.state_dim, self._action_shape(model)
        dtype = np.int64 if model.config.action_kind == "discrete" else np.float32
        built = [rollout_prompt(SequenceBuilder(tokenizer, slot, dim, shape, dtype, sentence(p.instruction)),
                                p.instruction).state(p.start).build() for p in prompts]
        length = max(len(s) for s in built)
        pad = length - np.array([len(s) for s in built])

        def left_pad(name: str, fill) -> torch.Tensor:
            return torch.from_numpy(pad_field(built, name, fill, left=True)).to(model.device)

        self.embeds = model.embed(left_pad("ids", tokenizer.pad_token_id), left_pad("kind", TEXT).long(),
                                  left_pad("states", 0), left_pad("actions", 0),
                                  torch.from_numpy(stack_sentences(built)).to(model.device))
        padded = torch.arange(length)[None] < torch.from_numpy(pad)[:, None]
        self.attention = (~padded).long().to(model.device)
        self.positions = (self.attention.cumsum(1) - 1).clamp(min=0)
        self.cache = None

    @staticmethod
    def _action_shape(model: GroundedLM) -> tuple[int, ...]:
        return () if model.config.action_kind == "discrete" else (model.config.action_dim,)

    def first(self, cached: bool) -> torch.Tensor:
        hidden, _, self.cache = self.model.run(self.embeds, self.attention, self.positions, use_cache=cached)
        return hidden[:, -1]

    def append(self, embedding: torch.Tensor, cached: bool) -> torch.Tensor:
        """Feed one new position per row; the last hidden state."""
        embedding = embedding[:, None].to(self.embeds.dtype)
        ones = self.attention.new_ones(len(self.attention), 1)
        self.attention = torch.cat([self.attention, ones], 1)
        position = self.positions[:, -1:] + 1
        self.positions = torch.cat([self.positions, position], 1)
        if cached:
            hidden, _, self.cache = self.model.run(embedding, self.attention, position, self.cache, True)
        else:
            self.embeds = torch.cat([self.embeds, embedding], 1)
            hidden, _, _ = self.model.run(self.embeds, self.attention, self.positions)
        return hidden[:, -1]


def _succeeded(prompts: Sequence[Prompt], prev: np.ndarray, actions: np.ndarray,
               states: np.ndarray) -> np.ndarray:
    """The task predicate of every row (rows grouped by task, each task's function vectorised)."""
    success = np.zeros(len(prompts), bool)
    by_task: dict[int, list[int]] = {}
    for i, prompt in enumerate(prompts):
        by_task.setdefault(id(prompt.task), []).append(i)
    with np.errstate(all="ignore"):
        for rows in by_task.values():
            task = prompts[rows[0]].task
            success[rows] = np.asarray(task.success(prev[rows], actions[rows], states[rows]), bool)
    return success


@torch.no_grad()
@pinned()
def imagine_batch(model: GroundedLM, prompts: Sequence[Prompt],
                  sentence: Callable[[str], np.ndarray | None], cache: bool = True,
                  decode: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
                  draws: torch.Generator | None = None) -> list[Rollout]:
    """One rollout per prompt, generated together; ``decode`` maps each batch of predicted
    states to dataset states (``Domain.decode_state``) before they are fed back. ``draws``: a
    model with action bins samples its actions with it (``GroundedLM.choose_action``)."""
    batch = _Batch(model, prompts, sentence)
    horizons = np.array([p.task.horizon for p in prompts])
    current = torch.from_numpy(np.stack([p.start for p in prompts]).astype(np.float32)).to(model.device)
    states, actions = [current.cpu().numpy()], []
    raw = [states[0]]
    done = np.zeros(len(prompts), bool)
    success = np.zeros(len(prompts), bool)
    lengths = np.zeros(len(prompts), int)
    hidden = batch.first(cache)
    for t in range(int(horizons.max())):
        action = model.choose_action(hidden, draws)
        hidden = batch.append(model.embed_actions(action), cache)
        current = model.next_state(hidden, current)
        raw.append(current.cpu().numpy())
        if decode is not None:
            decoded = decode(states[-1], raw[-1].copy())
            current = torch.from_numpy(np.asarray(decoded, np.float32)).to(model.device)
        action_np, state_np = action.cpu().numpy(), current.cpu().numpy()
        hit = _succeeded(prompts, states[-1], action_np, state_np)
        active = ~done
        success[active] = hit[active]
        lengths[active] = t + 1
        done |= hit | (t + 1 >= horizons)
        actions.append(action_np)
        states.append(state_np)
        if done.all():
            break
        hidden = batch.append(model.embed_states(current), cache)
    states_all, actions_all, raw_all = np.stack(states, 1), np.stack(actions, 1), np.stack(raw, 1)
    return [Rollout(states_all[i, : lengths[i] + 1], actions_all[i, : lengths[i]], bool(success[i]),
                    raw_all[i, : lengths[i] + 1]) for i in range(len(prompts))]


def in_batches(prompts: Sequence[Prompt], batch: Callable[[Sequence[Prompt], int], list[Rollout]], *,
               batch_size: int, progress: bool, desc: str):
    """``batch(chunk, first)`` on ``prompts`` ``batch_size`` at a time (``first``: the index of
    the chunk's first prompt), its rollouts yielded in order, with a progress bar."""
    bar = tqdm(total=len(prompts), desc=desc, unit="rollout", disable=not progress)
    try:
        for start in range(0, len(prompts), batch_size):
            chunk = prompts[start : start + batch_size]
            yield from batch(chunk, start)
            bar.update(len(chunk))
    finally:
        bar.close()


def imagine(model: GroundedLM, prompts: Sequence[Prompt], sentence: Callable[[str], np.ndarray | None], *,
            batch_size: int = 64, cache: bool = True, progress: bool = False, desc: str = "imagine",
            decode: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
            draws: torch.Generator | None = None):
    """Rollouts for ``prompts`` in order, ``batch_size`` at a time (a generator)."""
    return in_batches(prompts, lambda chunk, _: imagine_batch(model, chunk, sentence, cache, decode, draws),
                      batch_size=batch_size, progress=progress, desc=desc)
