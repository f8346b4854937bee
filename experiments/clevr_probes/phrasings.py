"""Probe a CLEVR checkpoint on the rephrase level: is the gap the new phrasings or the policy?

The rephrase level's prompts of the committed card (its recipe's seed 2000 and demo count, 400: the
training tasks in phrasings the model was never shown) are imagined as the generator does
(prompted afresh every ``Domain.prompt_steps`` steps, sub-goals, the projection), once with
their own phrasing and once with a training phrasing of the same task (phrasing id modulo
the training task's phrasings), and the goal consistency of both is printed. With
``sample``, each push is drawn from the action head's softmax (one generator, seed 0, its
draws in the order of the batches) instead of taking the most likely one.

Usage: MINARI_DATASETS_PATH=... python experiments/clevr_probes/phrasings.py CHECKPOINT [sample]
"""

import sys

from imaginebench_data.imagine import numerics

numerics.choose("portable")  # before torch's first operation, as the build does

import numpy as np  # noqa: E402
import torch  # noqa: E402

from imaginebench_data.domains import get_domain  # noqa: E402
from imaginebench_data.imagine.checkpoint import load_checkpoint  # noqa: E402
from imaginebench_data.imagine.generate import Prompt  # noqa: E402
from imaginebench_data.imagine.prompting import imagine_segments  # noqa: E402
from imaginebench_data.imagine.train import SentenceTable  # noqa: E402
from imaginebench_data.pipeline.recipe import load_recipes  # noqa: E402
from imaginebench_data.pipeline.rollout import episode_start  # noqa: E402

RECIPE = load_recipes()["imaginebench/clevr-rephrase-imaginary-v0"]  # its seed and demo count

model = load_checkpoint(sys.argv[1], "cpu")
domain = get_domain("clevr")
sim = domain.simulator()
starts = [episode_start(domain, "rephrase", i, RECIPE.seed, sim) for i in range(RECIPE.episodes["demo"])]
training = {task.id: task.phrasings for task in domain.tasks("train")}
sentences = SentenceTable(model.config.sentence_encoder)

if "sample" in sys.argv[2:]:
    draws = torch.Generator().manual_seed(0)

    def drawn(hidden: torch.Tensor, _=None) -> torch.Tensor:
        probabilities = torch.softmax(model.action_output(hidden), -1)
        return torch.multinomial(probabilities, 1, generator=draws)[:, 0]

    model.choose_action = drawn


def own(start) -> str:
    return start.instruction


def trained(start) -> str:
    phrasings = training[start.task.id]
    return phrasings[start.phrasing_id % len(phrasings)]


for label, phrase in (("its own phrasing", own), ("a training phrasing", trained)):
    prompts = [Prompt(s.task, phrase(s), s.state) for s in starts]
    rollouts = list(imagine_segments(model, prompts, sentences, steps=domain.prompt_steps,
                                     subgoals=domain.subgoals, decode=domain.decode_state))
    rate = 100 * np.mean([r.success for r in rollouts])
    length = np.mean([len(r.actions) for r in rollouts])
    print(f"rephrase prompts, {label}: goal consistency {rate:.1f}%, mean length {length:.1f}", flush=True)
