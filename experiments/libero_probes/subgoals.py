"""LIBERO's tasks of putting items in the basket, imagined with and without sub-goals.

Imagines the prompts of the committed cards' easy pick-and-place and hard sequential and all
tasks as the generator does (prompted afresh every ``Domain.prompt_steps`` steps, projected
onto the scene), once prompted with the task's own instruction and once one training task at
a time (``tasks.subgoals``: pick the item up, then put it in the basket, item by item), and
prints the goal-consistent rollouts of each way by task.

Usage: python experiments/libero_probes/subgoals.py CHECKPOINT

CHECKPOINT may be several folders joined by commas: they imagine as one
(``imaginebench_data.imagine.ensemble``).
"""

import sys
from dataclasses import replace
from pathlib import Path

from imaginebench_data.imagine import numerics

numerics.choose("portable")  # before torch's first operation, as the build does

from imaginebench_data.domains import get_domain  # noqa: E402
from imaginebench_data.domains.libero.tasks import subgoals  # noqa: E402
from imaginebench_data.imagine.ensemble import load_model  # noqa: E402
from imaginebench_data.imagine.train import SentenceTable  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grounding_seeds import by_task, imagine_level, level_prompts  # noqa: E402

KINDS = {"easy": ("pick-and-place",), "hard": ("sequential", "all")}
model = load_model(sys.argv[1], "cpu")
libero = get_domain("libero")
sentences = SentenceTable(model.config.sentence_encoder)
for level, kinds in KINDS.items():
    tasks = {task.id: task for task in libero.tasks(level)}
    prompts = [p for p in level_prompts("libero", level) if tasks[p.task].kind in kinds]
    for way, goals in (("own instruction", None), ("sub-goals", subgoals)):
        outcomes = by_task(prompts, imagine_level(model, replace(libero, subgoals=goals), level, prompts,
                                                  sentences))
        hits = sum(sum(o) for o in outcomes.values())
        print(f"{level}, {way}: {hits} of {len(prompts)} goal consistent; by task "
              f"{ {task: sum(o) for task, o in outcomes.items()} }", flush=True)
