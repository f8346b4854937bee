"""Probe a HalfCheetah checkpoint: its dynamics fed real actions, and its imagined rollouts."""
import sys

import numpy as np
import torch

from imaginebench_data.domains import get_domain
from imaginebench_data.domains.halfcheetah.layout import X
from imaginebench_data.imagine.checkpoint import load_checkpoint
from imaginebench_data.imagine.data import read_episodes
from imaginebench_data.imagine.evidence import EVIDENCE_SEED, predict_next_states
from imaginebench_data.imagine.generate import Prompt, _Batch, imagine
from imaginebench_data.imagine.train import SentenceTable
from imaginebench_data.pipeline.rollout import episode_start

domain = get_domain("halfcheetah")
model = load_checkpoint(sys.argv[1])
sentences = SentenceTable(model.config.sentence_encoder)
eps, _ = read_episodes("imaginebench/halfcheetah-train-real-v0")
by_task = {}
for e in eps:
    by_task.setdefault(e.task_id, []).append(e)
T = 99
with torch.no_grad():
    for task in ("run-forward", "run-backward"):
        chosen = [e for e in by_task[task] if len(e.actions) >= T][:6]
        real = np.round([e.states[T, X] for e in chosen], 1)
        states = np.stack([e.states[0] for e in chosen]).astype(np.float32)
        for t in range(T):
            raw = predict_next_states(model, domain, states, np.stack([e.actions[t] for e in chosen]))
            states = np.asarray(domain.decode_state(states, raw), np.float32)
        markov = np.round(states[:, X], 1)
        # the rollout context, prompted with the task's first phrasing, fed the real actions
        train_task = domain.task("train", task)
        prompts = [Prompt(train_task, train_task.phrasings[0], e.states[0]) for e in chosen]
        batch = _Batch(model, prompts, sentences)
        hidden = batch.first(True)
        current = torch.from_numpy(np.stack([e.states[0] for e in chosen]).astype(np.float32))
        for t in range(T):
            action = torch.from_numpy(np.stack([e.actions[t] for e in chosen]).astype(np.float32))
            hidden = batch.append(model.embed_actions(action), True)
            raw = model.next_state(hidden, current).numpy()
            current = torch.from_numpy(np.asarray(domain.decode_state(current.numpy(), raw), np.float32))
            hidden = batch.append(model.embed_states(current), True)
        context = np.round(current[:, X].numpy(), 1)
        print(f"{task}: real x {real}\n  markov {markov}\n  context {context}", flush=True)
sim = domain.simulator()
starts = [episode_start(domain, "rephrase", i, EVIDENCE_SEED, sim) for i in range(80)]
rollouts = list(imagine(model, [Prompt(s.task, s.instruction, s.state) for s in starts], sentences,
                        decode=domain.decode_state))
for task in ("run-forward", "run-backward", "jump-forward", "jump-backward"):
    rows = [r for s, r in zip(starts, rollouts) if s.task.id == task]
    x = [r.states[min(T, len(r.states) - 1), X] for r in rows]
    success = np.mean([r.success for r in rows])
    print(f"imagined {task}: success {success:.0%} of {len(rows)}, x at 99 mean {np.mean(x):.1f}")
