"""Generation speed, measured side by side in one run: batched generation with the key/value
cache against the naive loop that re-runs the whole context for every prediction (KALM's).

Usage: python benchmarks/imagine_speed.py [CHECKPOINT] [--rollouts N]
Without a checkpoint, a freshly initialised model of the default scratch size is used: its
rollouts never reach a goal, so every rollout runs the full 50-step time limit (the worst
case). Prompts are hard-level instructions from real reset states. Prints rollouts per
second and the ratios; asserts nothing.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from imaginebench_data.domains import get_domain
from imaginebench_data.imagine.backbone import backbone_for
from imaginebench_data.imagine.checkpoint import load_checkpoint
from imaginebench_data.imagine.config import SCRATCH, GroundingConfig
from imaginebench_data.imagine.generate import Prompt, imagine
from imaginebench_data.imagine.model import GroundedLM
from imaginebench_data.imagine.sequences import TEMPLATE_TEXTS
from imaginebench_data.imagine.train import SentenceTable
from imaginebench_data.pipeline.rollout import episode_start


def untrained_model(domain) -> GroundedLM:
    torch.manual_seed(0)
    dim = domain.state_space.shape[0]
    config = GroundingConfig(domain=domain.name, backbone=SCRATCH, state_dim=dim, action_kind="discrete",
                             action_dim=int(domain.action_space.n), state_mean=[0.0] * dim,
                             state_std=[0.5] * dim, delta_std=[0.05] * dim, sentence_encoder=None)
    texts = [*TEMPLATE_TEXTS, *(p for t in domain.tasks("train") for p in t.phrasings)]
    backbone, tokenizer = backbone_for(config, texts)
    return GroundedLM(config, backbone, tokenizer).eval()


def rate(model, prompts, sentences, **kwargs) -> tuple[float, float]:
    """(rollouts per second, mean rollout length)."""
    start = time.perf_counter()
    rollouts = list(imagine(model, prompts, sentences, **kwargs))
    seconds = time.perf_counter() - start
    return len(prompts) / seconds, float(np.mean([len(r.actions) for r in rollouts]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", nargs="?", help="a grounded-model checkpoint folder")
    parser.add_argument("--rollouts", type=int, default=64)
    args = parser.parse_args()
    domain = get_domain("clevr")
    model = load_checkpoint(args.checkpoint) if args.checkpoint else untrained_model(domain)
    sentences = SentenceTable(model.config.sentence_encoder)
    sim = domain.simulator()
    starts = [episode_start(domain, "hard", i, 4000, sim) for i in range(args.rollouts)]
    prompts = [Prompt(s.task, s.instruction, s.state) for s in starts]
    sentences.add([p.instruction for p in prompts])
    few = prompts[: max(4, args.rollouts // 8)]
    parameters = sum(p.numel() for p in model.parameters())
    print(f"model: {args.checkpoint or 'untrained default-size scratch GPT-2'}, {parameters:,} parameters, "
          f"torch threads {torch.get_num_threads()}")
    rows = [
        ("naive loop, batch 1 (KALM's)", *rate(model, few, sentences, batch_size=1, cache=False), len(few)),
        ("naive loop, batch 64", *rate(model, prompts, sentences, batch_size=64, cache=False), len(prompts)),
        ("KV cache, batch 1", *rate(model, few, sentences, batch_size=1, cache=True), len(few)),
        ("KV cache, batch 64", *rate(model, prompts, sentences, batch_size=64, cache=True), len(prompts)),
    ]
    best = rows[-1][1]
    print(f"{'mode':32} {'rollouts':>8} {'mean length':>12} {'rollouts/s':>11} {'cached b64 is':>14}")
    for name, per_second, length, count in rows:
        print(f"{name:32} {count:8d} {length:12.1f} {per_second:11.2f} {best / per_second:13.1f}x")


if __name__ == "__main__":
    main()
