"""Probe a Meta-World checkpoint on the demo levels: goal consistency per task of its imagined
rollouts, without writing a dataset.

The prompts are those of the demo cards (each level's imaginary recipe: its seed and demo
episode count), imagined as the generator does (one prompt per rollout, the domain's
projection), and scored by the tasks' predicates on the decoded states, as the cards count
goal consistency. A checkpoint reproduces its cards' rates (`1d88506f…`: 67.0% rephrase,
36.9% easy, 0.0% hard; `66e413dd…`: 73.5%, 43.1%, 0.0%).

Where the level's oracle set is built (``MINARI_DATASETS_PATH``), it also prints, for the
reach tasks, how the model's first action follows the expert's from the same start state:
the correlation over the task's episodes of each of x, y and z (the expert's first action
points at the goal, so a model that reads the goal's position follows it).

With ``--every K`` the model is prompted afresh every K imagined steps, from the state its
rollout has reached (``imagine.prompting``), instead of once per rollout as Meta-World's
generator does.

Usage: python experiments/metaworld_probes/levels.py CHECKPOINT [LEVEL ...] [--every K]
       (levels default: rephrase easy)
"""

import sys

from imaginebench_data.imagine import numerics

numerics.choose("portable")  # before torch's first operation, as the build does

import numpy as np  # noqa: E402
from probe import DOMAIN, imagine_level, level_prompts, summary  # noqa: E402

from imaginebench_data.datasets.read import data_path, open_dataset, stored_episodes  # noqa: E402
from imaginebench_data.domains import get_domain  # noqa: E402
from imaginebench_data.imagine.checkpoint import load_checkpoint  # noqa: E402
from imaginebench_data.imagine.train import SentenceTable  # noqa: E402

arguments = sys.argv[2:]
every = None
if "--every" in arguments:
    at = arguments.index("--every")
    every = int(arguments[at + 1])
    del arguments[at : at + 2]
model = load_checkpoint(sys.argv[1], "cpu")
domain = get_domain(DOMAIN)
sentences = SentenceTable(model.config.sentence_encoder)
for level in arguments or ["rephrase", "easy"]:
    prompts = level_prompts(level)
    rollouts, by_task = imagine_level(model, level, prompts, sentences, every)
    print(summary(level, by_task), flush=True)
    oracle = f"imaginebench/{DOMAIN}-{level}-real-v0"
    if not data_path(oracle).exists():
        continue
    expert = list(stored_episodes(open_dataset(oracle)[0], domain))
    for task in [t for t in by_task if t.startswith("reach")]:
        rows = [i for i, prompt in enumerate(prompts) if prompt.task == task]
        model_first = np.array([rollouts[i].actions[0][:3] for i in rows])
        expert_first = np.array([expert[i].actions[0][:3] for i in rows])
        assert all(np.allclose(expert[i].states[0], prompts[i].state) for i in rows)  # the same starts
        corr = [np.corrcoef(model_first[:, d], expert_first[:, d])[0, 1] if expert_first[:, d].std() > 1e-6
                else float("nan") for d in range(3)]
        print(f"  {task}: first action against the expert's, correlation x / y / z "
              f"{' / '.join(f'{c:.2f}' for c in corr)}", flush=True)
