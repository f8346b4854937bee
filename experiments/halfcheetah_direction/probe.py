"""Probe a HalfCheetah checkpoint: does its dynamics follow actions, and where do its rollouts go.

1. the evidence's next-state error on the held-out transitions;
2. 6 real episodes per run task, their actions fed through the dynamics prompt alone and
   through the rollout context;
3. the first 80 of the evidence's rephrase prompts: imagined rollouts (the generator), and
   "hybrid" ones (the model's own actions, states from the dynamics prompt); both rollouts'
   actions replayed in the simulator;
4. the same prompts in closed loop: the model as a policy in the simulator, fed the
   simulator's states instead of its own predictions; with a second argument ``markov``, the
   model is prompted afresh at every step (instruction and current state only), so its action
   cannot follow the actions before it.

With ``sample`` among the arguments after it, a checkpoint grounded with ``--action-bins`` draws each
action number from its softmax (seed 0) instead of taking the most likely value.

It uses the generator's private pieces (``generate._Batch``, ``evidence._replay``): a probe, not API.
"""

import sys

import numpy as np
import torch

from imaginebench_data.domains import get_domain
from imaginebench_data.domains.halfcheetah.layout import X
from imaginebench_data.imagine.checkpoint import load_checkpoint
from imaginebench_data.imagine.data import read_episodes, split
from imaginebench_data.imagine.evidence import (
    EVIDENCE_SEED,
    _replay,
    next_state_evidence,
    predict_next_states,
)
from imaginebench_data.imagine.generate import Prompt, _Batch, imagine
from imaginebench_data.imagine.train import SentenceTable
from imaginebench_data.pipeline.rollout import episode_start

T = 99  # steps: the run tasks' time to the goal
PROMPTS = 80
domain = get_domain("halfcheetah")
model = load_checkpoint(sys.argv[1])
draws = torch.Generator().manual_seed(0) if "sample" in sys.argv[2:] else None
MARKOV = "markov" in sys.argv[2:]
sentences = SentenceTable(model.config.sentence_encoder)
episodes = read_episodes("imaginebench/halfcheetah-train-real-v0")[0]  # all: the probed ones
held_out = split(episodes)[1]


def fed_actions(prompts, actions, dynamics_prompt: bool) -> np.ndarray:
    """(N, T+1, D) states from ``prompts``' starts, the action ``actions(t, hidden)`` (a tensor
    of one per prompt) fed at each step; the next state from the dynamics prompt or from the
    rollout context, projected as the generator projects it."""
    batch = _Batch(model, prompts, sentences)
    hidden = batch.first(True)
    current = np.stack([p.start for p in prompts]).astype(np.float32)
    states = [current]
    for t in range(T):
        action = actions(t, hidden)
        hidden = batch.append(model.embed_actions(action), True)
        if dynamics_prompt:
            raw = predict_next_states(model, domain, current, action.numpy())
        else:
            raw = model.next_state(hidden, torch.from_numpy(current)).numpy()
        current = np.asarray(domain.decode_state(current, raw), np.float32)
        hidden = batch.append(model.embed_states(torch.from_numpy(current)), True)
        states.append(current)
    return np.stack(states, 1)


with torch.no_grad():
    print(next_state_evidence(model, domain, held_out), flush=True)
    for task_id in ("run-forward", "run-backward"):
        task = domain.task("train", task_id)
        chosen = [e for e in episodes if e.task_id == task_id and len(e.actions) >= T][:6]
        prompts = [Prompt(task, task.phrasings[0], e.states[0]) for e in chosen]
        real = torch.from_numpy(np.stack([e.actions[:T] for e in chosen], 1).astype(np.float32))  # (T, 6, 6)
        markov, context = (fed_actions(prompts, lambda t, hidden, real=real: real[t], markov)[:, T, X]
                           for markov in (True, False))
        print(f"{task_id}: real x {np.round([e.states[T, X] for e in chosen], 1)}\n  dynamics prompt "
              f"{np.round(markov, 1)}\n  rollout context {np.round(context, 1)}", flush=True)

    sim = domain.simulator()
    starts = [episode_start(domain, "rephrase", i, EVIDENCE_SEED, sim) for i in range(PROMPTS)]
    prompts = [Prompt(s.task, s.instruction, s.state) for s in starts]
    imagined = list(imagine(model, prompts, sentences, decode=domain.decode_state, draws=draws))
    own = []  # the hybrid rollouts' actions, step by step

    def own_actions(t, hidden):
        own.append(model.choose_action(hidden, draws))
        return own[-1]

    hybrid = fed_actions(prompts, own_actions, True)
    own = np.stack([a.numpy() for a in own], 1)  # (N, T, 6)


@torch.no_grad()
def closed_loop(index: int) -> tuple[bool, float]:
    """The model acting in the simulator from rephrase prompt ``index``: (goal reached, final x)."""
    start = episode_start(domain, "rephrase", index, EVIDENCE_SEED, sim)
    batch = _Batch(model, [Prompt(start.task, start.instruction, start.state)], sentences)
    hidden, state = batch.first(True), start.state
    for _ in range(start.task.horizon):
        if MARKOV:
            hidden = _Batch(model, [Prompt(start.task, start.instruction, state.astype(np.float32))],
                            sentences).first(True)
        action = model.choose_action(hidden, draws)
        executed = np.clip(action.numpy()[0], domain.action_space.low, domain.action_space.high)
        next_state = sim.step(executed)
        if start.task.succeeded(state, executed, next_state):
            return True, float(next_state[X])
        if not MARKOV:
            hidden = batch.append(model.embed_actions(action), True)
            embedded = model.embed_states(torch.from_numpy(next_state[None].astype(np.float32)))
            hidden = batch.append(embedded, True)
        state = next_state
    return False, float(state[X])


closed = [closed_loop(i) for i in range(PROMPTS)]
for task_id in ("run-forward", "run-backward", "jump-forward", "jump-backward"):
    rows = [i for i, s in enumerate(starts) if s.task.id == task_id]
    success = np.mean([imagined[i].success for i in rows])
    x = np.mean([imagined[i].states[min(T, len(imagined[i].states) - 1), X] for i in rows])
    replayed = np.mean([_replay(domain, sim, i, imagined[i].actions) for i in rows])
    replayed_hybrid = np.mean([_replay(domain, sim, i, own[i]) for i in rows])
    print(f"{task_id}: imagined success {success:.0%} of {len(rows)}, x at {T} {x:.1f}; hybrid x at {T} "
          f"{np.mean(hybrid[rows, T, X]):.1f}; actions replayed in the simulator: imagined {replayed:.0%}, "
          f"hybrid {replayed_hybrid:.0%}; closed loop {np.mean([closed[i][0] for i in rows]):.0%}, final x "
          f"{np.mean([closed[i][1] for i in rows]):.1f}", flush=True)
