"""Evidence that a grounded model learned the environment, measured after training.

1. **Next-state error** on held-out real transitions (episodes the model never trained on):
   the model's dynamics prediction against the "nothing moves" guess (s' = s), both in the
   domain's transition distance (for CLEVR the largest ball displacement, in metres).
2. **Goal consistency** of imagined rephrase rollouts (the task predicate on the generated
   states, as the checkers score it) against random-action rollouts in the real simulator
   from the same start states, scored by the same predicate. Also reported: the same
   imagined action sequences replayed in the real simulator.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from tqdm.auto import tqdm

from ..core.domain import Domain
from ..core.episode import Episode
from ..pipeline.rollout import episode_start
from ..quality.replay import actions_reach_goal
from .backbone import slot_token_id
from .data import SequenceFactory, collate
from .generate import Prompt, imagine
from .model import GroundedLM
from .sequences import dynamics_prompt
from .train import SentenceTable

EVIDENCE_SEED = 77_000
EVIDENCE_LEVEL = "rephrase"


def _factory(model: GroundedLM, domain: Domain, sentence) -> SequenceFactory:
    return SequenceFactory(model.tokenizer, slot_token_id(model.tokenizer), model.config.state_dim,
                           tuple(domain.action_space.shape), domain.action_space.dtype, sentence)


@torch.no_grad()
def predict_next_states(model: GroundedLM, domain: Domain, states: np.ndarray, actions: np.ndarray,
                        batch_size: int = 256) -> np.ndarray:
    """The model's s' for each (s, a), from the dynamics prompt."""
    factory = _factory(model, domain, lambda text: None)
    out = []
    for start in range(0, len(actions), batch_size):
        rows = range(start, min(start + batch_size, len(actions)))
        sequences = [dynamics_prompt(factory.builder(), states[i], actions[i]).build() for i in rows]
        batch = collate(sequences, model.tokenizer.pad_token_id, model.config.max_positions, None,
                        model.device)
        embeds = model.embed(batch["ids"], batch["kind"], batch["states"], batch["actions"],
                             batch["sentence"])
        hidden, _, _ = model.run(embeds, batch["attention_mask"], batch["position_ids"])
        last = batch["attention_mask"].sum(1) - 1
        base = torch.from_numpy(np.asarray(states[start : start + len(rows)], np.float32)).to(model.device)
        out.append(model.next_state(hidden[torch.arange(len(rows)), last], base).cpu().numpy())
    return np.concatenate(out)


def next_state_evidence(model: GroundedLM, domain: Domain, held_out: list[Episode]) -> dict[str, Any]:
    states = np.concatenate([e.states[:-1] for e in held_out])
    actions = np.concatenate([e.actions for e in held_out])
    targets = np.concatenate([e.states[1:] for e in held_out])
    predicted = predict_next_states(model, domain, states, actions)
    if domain.decode_state is not None:
        predicted = domain.decode_state(states, predicted)
    model_error = domain.transition_distance(predicted, targets)
    still_error = domain.transition_distance(states, targets)
    return {
        "held_out_transitions": int(len(actions)),
        "model_error_mean": float(model_error.mean()),
        "nothing_moves_error_mean": float(still_error.mean()),
        "error_ratio": float(still_error.mean() / max(model_error.mean(), 1e-12)),
        "model_within_tolerance": float((model_error <= domain.transition_tolerance).mean()),
        "distance": "domain transition distance (see the card's notes.transition_error)",
    }


def goal_evidence(model: GroundedLM, domain: Domain, sentences: SentenceTable, episodes: int,
                  batch_size: int = 64, progress: bool = False) -> dict[str, Any]:
    sim = domain.simulator()
    starts = [episode_start(domain, EVIDENCE_LEVEL, i, EVIDENCE_SEED, sim) for i in range(episodes)]
    prompts = [Prompt(s.task, s.instruction, s.state) for s in starts]
    rollouts = list(imagine(model, prompts, sentences, batch_size=batch_size, progress=progress,
                            decode=domain.decode_state,
                            desc="evidence: imagine rephrase"))
    replayed = [_replay(domain, sim, i, r.actions) for i, r in
                enumerate(tqdm(rollouts, desc="evidence: replay imagined actions", disable=not progress))]
    rng = np.random.default_rng(EVIDENCE_SEED)
    random = [_replay(domain, sim, i, None, rng) for i in
              tqdm(range(episodes), desc="evidence: random actions", disable=not progress)]
    return {
        "level": EVIDENCE_LEVEL,
        "episodes": episodes,
        "imagined_goal_consistency": float(np.mean([r.success for r in rollouts])),
        "random_actions_goal_consistency": float(np.mean(random)),
        "imagined_actions_replayed_success": float(np.mean(replayed)),
        "imagined_mean_length": float(np.mean([len(r.actions) for r in rollouts])),
    }


def _replay(domain: Domain, sim, index: int, actions, rng: np.random.Generator | None = None) -> bool:
    """Whether ``actions`` (or, when None, random actions from ``rng`` up to the time limit)
    reach the goal in the real simulator from evidence episode ``index``'s start."""
    start = episode_start(domain, EVIDENCE_LEVEL, index, EVIDENCE_SEED, sim)
    if actions is None:
        actions = (_random_action(domain.action_space, rng) for _ in range(start.task.horizon))
    return actions_reach_goal(start.task, sim, start.state, actions)


def _random_action(space, rng: np.random.Generator):
    if isinstance(space, gym.spaces.Discrete):
        return int(space.start + rng.integers(space.n))
    return rng.uniform(space.low, space.high).astype(space.dtype)
