"""Hybrid generation probe: actions from the rollout context, next states from the dynamics prompt."""
import sys

import numpy as np
import torch

from imaginebench_data.domains import get_domain
from imaginebench_data.domains.halfcheetah.layout import X
from imaginebench_data.imagine.checkpoint import load_checkpoint
from imaginebench_data.imagine.evidence import EVIDENCE_SEED, _replay, predict_next_states
from imaginebench_data.imagine.generate import Prompt, _Batch, imagine
from imaginebench_data.imagine.train import SentenceTable
from imaginebench_data.pipeline.rollout import episode_start

domain = get_domain("halfcheetah")
model = load_checkpoint(sys.argv[1])
sentences = SentenceTable(model.config.sentence_encoder)
sim = domain.simulator()
N = 80
starts = [episode_start(domain, "rephrase", i, EVIDENCE_SEED, sim) for i in range(N)]
prompts = [Prompt(s.task, s.instruction, s.state) for s in starts]
T = 99
with torch.no_grad():
    batch = _Batch(model, prompts, sentences)
    hidden = batch.first(True)
    current = np.stack([s.state for s in starts]).astype(np.float32)
    xs, acts = [current], []
    for _ in range(T):
        action = model.choose_action(hidden)
        hidden = batch.append(model.embed_actions(action), True)
        raw = predict_next_states(model, domain, current, action.numpy())
        current = np.asarray(domain.decode_state(current, raw), np.float32)
        hidden = batch.append(model.embed_states(torch.from_numpy(current)), True)
        xs.append(current)
        acts.append(action.numpy())
acts = np.stack(acts, 1)
ctx = list(imagine(model, prompts, sentences, decode=domain.decode_state))
for task in ("run-forward", "run-backward", "jump-forward", "jump-backward"):
    rows = [i for i, s in enumerate(starts) if s.task.id == task]
    hyb5 = np.mean([xs[5][i, X] for i in rows])
    hyb99 = np.mean([xs[T][i, X] for i in rows])
    rep_h = np.mean([_replay(domain, sim, i, acts[i]) for i in rows])
    rep_c = np.mean([_replay(domain, sim, i, ctx[i].actions) for i in rows])
    ctx_ok = np.mean([ctx[i].success for i in rows])
    print(f"{task}: hybrid x@5 {hyb5:.1f} x@99 {hyb99:.1f}; actions replayed in sim: hybrid {rep_h:.0%}, "
          f"context {rep_c:.0%}; context imagined success {ctx_ok:.0%}", flush=True)
