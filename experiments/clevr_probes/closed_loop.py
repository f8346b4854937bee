"""Probe a CLEVR checkpoint as a policy: its imagined goal rate against its actions run in the simulator.

A level's prompts of the committed card (its recipe's seed, the demo count or fewer) are imagined
as the generator does (prompted afresh every ``Domain.prompt_steps`` steps, sub-goals, the
projection onto the table), then run again with every predicted state replaced by the state
the simulator reaches from the previous one with the model's action: the model acting in
closed loop, prompted the same way. The first rate is the card's goal consistency; the second
is how often the model's own choices reach the goal when the states are true.

Usage: MINARI_DATASETS_PATH=... python experiments/clevr_probes/closed_loop.py CHECKPOINT LEVEL [PROMPTS]
"""

import sys
from pathlib import Path

from imaginebench_data.imagine import numerics

numerics.choose("portable")  # before torch's first operation, as the build does

import numpy as np  # noqa: E402

from imaginebench_data.domains import get_domain  # noqa: E402
from imaginebench_data.imagine.checkpoint import load_checkpoint  # noqa: E402
from imaginebench_data.imagine.train import SentenceTable  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grounding_seeds import closed_loop, imagine_level, level_prompts  # noqa: E402

level = sys.argv[2]
prompts = level_prompts("clevr", level)
prompts = prompts[:int(sys.argv[3])] if len(sys.argv) > 3 else prompts
model = load_checkpoint(sys.argv[1], "cpu")
domain = get_domain("clevr")
sentences = SentenceTable(model.config.sentence_encoder)

for label, probe in (("imagined (the card's goal consistency)", imagine_level),
                     ("its actions in the simulator", closed_loop)):
    rollouts = probe(model, domain, level, prompts, sentences)
    rate = 100 * np.mean([r.success for r in rollouts])
    length = np.mean([len(r.actions) for r in rollouts])
    print(f"{level}, {len(prompts)} prompts, {label}: {rate:.1f}%, mean length {length:.1f}", flush=True)
