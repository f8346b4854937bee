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

from imaginebench_data.imagine import numerics

numerics.choose("portable")  # before torch's first operation, as the build does

import numpy as np  # noqa: E402

from imaginebench_data.domains import get_domain  # noqa: E402
from imaginebench_data.imagine.checkpoint import load_checkpoint  # noqa: E402
from imaginebench_data.imagine.generate import Prompt  # noqa: E402
from imaginebench_data.imagine.prompting import imagine_segments  # noqa: E402
from imaginebench_data.imagine.train import SentenceTable  # noqa: E402
from imaginebench_data.pipeline.recipe import load_recipes  # noqa: E402
from imaginebench_data.pipeline.rollout import episode_start  # noqa: E402

level = sys.argv[2]
recipe = load_recipes()[f"imaginebench/clevr-{level}-imaginary-v0"]
count = int(sys.argv[3]) if len(sys.argv) > 3 else recipe.episodes["demo"]
model = load_checkpoint(sys.argv[1], "cpu")
domain = get_domain("clevr")
sim = domain.simulator()
starts = [episode_start(domain, level, i, recipe.seed, sim) for i in range(count)]
prompts = [Prompt(s.task, s.instruction, s.state) for s in starts]
sentences = SentenceTable(model.config.sentence_encoder)

chosen = {}
choose_action = model.choose_action


def remembered(hidden, draws=None):
    action = choose_action(hidden, draws)
    chosen["actions"] = action.cpu().numpy()
    return action


model.choose_action = remembered


def simulated(previous: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """The simulator's next states from ``previous`` under the actions just chosen."""
    return np.stack([sim.step_from(state, int(a)) for state, a in zip(previous, chosen["actions"])])


for label, decode in (("imagined (the card's goal consistency)", domain.decode_state),
                      ("its actions in the simulator", simulated)):
    rollouts = list(imagine_segments(model, prompts, sentences, steps=domain.prompt_steps,
                                     subgoals=domain.subgoals, decode=decode))
    rate = 100 * np.mean([r.success for r in rollouts])
    length = np.mean([len(r.actions) for r in rollouts])
    print(f"{level}, {count} prompts, {label}: {rate:.1f}%, mean length {length:.1f}", flush=True)
