"""Probe: CLEVR's two hard tasks without sub-goals, composed of training relations.

The generator prompts a hard multi-relation task one training relation at a time
(``domains/clevr/tasks.py::subgoals``); "line up the balls" and "gather them around the green
ball" get no sub-goals and are prompted with their own instruction, which no training task
resembles (0 of 10 each in the committed card). Here they are composed of training
relations, decided from the start state only:

- line: blue right of red, green right of blue, purple right of green, cyan right of purple
  (each pushes the ball that the next relation measures from, in that order);
- gather: each of the four other balls on its own side of green (behind, left, in front,
  right), the sides assigned to the balls so that the summed distance from each ball to its
  side's aim point (``domains/clevr/expert.py::AIM_DISTANCE`` beyond green) is least.

Both levels' predicates are stricter than the relations (a line pair within 30 degrees of +x
where "right of" allows 45; gathered within 2.5 radii where a relation holds within 3), so a
rollout whose relations all hold is then prompted with the task's own instruction, as the
generator does. Printed per checkpoint and task: goal consistency with the generator's
prompting and with the composed sub-goals, the rollouts whose sub-goals all held at some
step, and the mean of the task's progress count (pairs aligned, balls gathered) at the end.

Usage: python experiments/clevr_probes/compose.py CHECKPOINT [CHECKPOINT ...]
"""

import itertools
import sys
from pathlib import Path

from imaginebench_data.imagine import numerics

numerics.choose("portable")  # before torch's first operation, as the build does

import numpy as np  # noqa: E402

from imaginebench_data.domains import get_domain  # noqa: E402
from imaginebench_data.domains.clevr.expert import AIM_DISTANCE  # noqa: E402
from imaginebench_data.domains.clevr.predicates import (  # noqa: E402
    GREEN,
    RELATION_UNIT,
    RELATIONS,
    ball_xy,
    balls_gathered,
    line_pairs_aligned,
    relation_holds,
)
from imaginebench_data.domains.clevr.tasks import relation_id  # noqa: E402
from imaginebench_data.imagine.ensemble import load_model  # noqa: E402
from imaginebench_data.imagine.generate import Prompt  # noqa: E402
from imaginebench_data.imagine.prompting import imagine_segments  # noqa: E402
from imaginebench_data.imagine.train import SentenceTable  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grounding_seeds import level_prompts  # noqa: E402

CLEVR = get_domain("clevr")
TRAIN = {task.id: task for task in CLEVR.tasks("train")}
# the hard tasks without sub-goals, and the progress count each one's predicate reads
UNCOMPOSED = {"line-in-colour-order": line_pairs_aligned, "gather-around-green": balls_gathered}
LINE = [(1, 0, "right"), (2, 1, "right"), (3, 2, "right"), (4, 3, "right")]
OTHERS = [ball for ball in range(5) if ball != GREEN]


def gather_relations(start: np.ndarray) -> list[tuple[int, int, str]]:
    """Each other ball on its own side of green, the sides assigned by least summed distance."""
    offsets = {ball: ball_xy(start[None], ball)[0] - ball_xy(start[None], GREEN)[0] for ball in OTHERS}

    def cost(sides):
        return sum(np.linalg.norm(offsets[ball] - AIM_DISTANCE * RELATION_UNIT[side])
                   for ball, side in zip(OTHERS, sides))

    sides = min(itertools.permutations(RELATIONS), key=cost)
    return [(ball, GREEN, side) for ball, side in zip(OTHERS, sides)]


def composed(task, start):
    if task.id == "line-in-colour-order":
        relations = LINE
    elif task.id == "gather-around-green":
        relations = gather_relations(np.asarray(start))
    else:
        return CLEVR.subgoals(task, start)
    return tuple(TRAIN[relation_id(*relation)] for relation in relations)


def report(name, prompts, rollouts, subgoals):
    for task_id, progress_count in UNCOMPOSED.items():
        runs = [(p, r) for p, r in zip(prompts, rollouts) if p.task.id == task_id]
        held = 0
        for prompt, rollout in runs:
            goals = subgoals(prompt.task, prompt.start)
            relations = [(g.goal["src"], g.goal["dst"], g.goal["relation"]) for g in goals]
            if relations:
                every = np.all([relation_holds(rollout.states, *r) for r in relations], axis=0)
                held += bool(every.any())
        progress = np.mean([progress_count(rollout.states[-1:])[0] for _, rollout in runs])
        print(f"  {name:9s} {task_id:22s} goal consistent {sum(r.success for _, r in runs)} of {len(runs)}, "
              f"sub-goals all held {held}, progress at the end {progress:.2f} of 4", flush=True)


prompts = [p for p in level_prompts("clevr", "hard") if p.task in UNCOMPOSED]
tasks = {task.id: task for task in CLEVR.tasks("hard")}
batch = [Prompt(tasks[p.task], p.instruction, p.state) for p in prompts]
for checkpoint in sys.argv[1:]:
    model = load_model(checkpoint, "cpu")
    sentences = SentenceTable(model.config.sentence_encoder)
    print(Path(checkpoint).name, flush=True)
    for name, subgoals in (("generator", CLEVR.subgoals), ("composed", composed)):
        rollouts = list(imagine_segments(model, batch, sentences, steps=CLEVR.prompt_steps, subgoals=subgoals,
                                         batch_size=64, decode=CLEVR.decode_state))
        report(name, batch, rollouts, subgoals)
