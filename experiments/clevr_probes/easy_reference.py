"""Probe a CLEVR checkpoint on the easy level: does its one push depend on whether another ball
lies the way it is told to push?

The easy level's prompts of the committed card (its recipe's seed and demo count, 400: "push the
red ball to the left", one push). The training tasks name a direction only relative to another
ball ("to the left of the blue ball"), so the probe splits the prompts by whether a relation of
the training set could stand in for the push: a ball B other than the instructed ball A whose
aim point for "A <direction> B" (``expert.AIM_DISTANCE`` beyond B along the direction) lies
within 45 degrees of the direction, seen from A, with that relation not yet holding. It prints
the goal consistency of the model's push (imagined as the generator does, with its own
instruction) on each part, how often the push moves the instructed ball and the angle between
its push and the direction; and the goal consistency when such prompts are instead prompted
with that training relation (in its first training phrasing), the others with their own.

Usage: MINARI_DATASETS_PATH=... python experiments/clevr_probes/easy_reference.py CHECKPOINT
"""

import sys
from importlib import import_module

from imaginebench_data.imagine import numerics

numerics.choose("portable")  # before torch's first operation, as the build does

import numpy as np  # noqa: E402

from imaginebench_data.domains import get_domain  # noqa: E402
from imaginebench_data.domains.clevr.expert import AIM_DISTANCE  # noqa: E402
from imaginebench_data.domains.clevr.predicates import RELATION_UNIT, ball_xy  # noqa: E402
from imaginebench_data.domains.clevr.sim import N_BALLS, N_DIRECTIONS  # noqa: E402
from imaginebench_data.imagine.ensemble import load_model  # noqa: E402
from imaginebench_data.imagine.generate import Prompt  # noqa: E402
from imaginebench_data.imagine.prompting import holds, imagine_segments  # noqa: E402
from imaginebench_data.imagine.train import SentenceTable  # noqa: E402
from imaginebench_data.pipeline.recipe import load_recipes  # noqa: E402
from imaginebench_data.pipeline.rollout import episode_start  # noqa: E402

clevr_tasks = import_module("imaginebench_data.domains.clevr.tasks")  # the package exports tasks()
RECIPE = load_recipes()["imaginebench/clevr-easy-imaginary-v0"]
# the pushes' directions, in the order of the action's low 3 bits (domain notes)
PUSHES = np.array([[1, 0], [0, 1], [-1, 0], [0, -1], [1, 1], [-1, 1], [1, -1], [-1, -1]], float)
assert len(PUSHES) == N_DIRECTIONS

model = load_model(sys.argv[1], "cpu")
domain = get_domain("clevr")
sim = domain.simulator()
starts = [episode_start(domain, "easy", i, RECIPE.seed, sim) for i in range(RECIPE.episodes["demo"])]
train = {t.id: t for t in domain.tasks("train")}
sentences = SentenceTable(model.config.sentence_encoder)


def stand_in(task, start):
    """The training relation that could stand in for a push (see the docstring), or None."""
    ball, direction = task.goal["ball"], task.goal["relation"]
    unit, state = RELATION_UNIT[direction], np.asarray(start, np.float64)
    best, best_cos = None, np.cos(np.radians(45))
    for other in range(N_BALLS):
        relation = train[clevr_tasks.relation_id(ball, other, direction)] if other != ball else None
        if relation is None or holds(relation, state):
            continue
        aim = ball_xy(state, other) + AIM_DISTANCE * unit - ball_xy(state, ball)
        cos = float(aim @ unit / max(np.linalg.norm(aim), 1e-9))
        if cos > best_cos:
            best, best_cos = relation, cos
    return best


def imagined(prompts):
    rollouts = imagine_segments(model, prompts, sentences, steps=domain.prompt_steps,
                                subgoals=domain.subgoals, decode=domain.decode_state)
    return [(bool(r.success), int(r.actions[0])) for r in rollouts]


own = [Prompt(s.task, s.instruction, s.state) for s in starts]
stand_ins = [stand_in(p.task, p.start) for p in own]
has = np.array([r is not None for r in stand_ins])
results = imagined(own)
success = np.array([ok for ok, _ in results])
actions = np.array([a for _, a in results])
instructed = np.array([p.task.goal["ball"] for p in own])
units = np.stack([RELATION_UNIT[p.task.goal["relation"]] for p in own])
pushes = PUSHES[actions % N_DIRECTIONS]
angles = np.degrees(np.arccos(np.clip((pushes * units).sum(1) / np.linalg.norm(pushes, axis=1), -1, 1)))
right_ball = actions // N_DIRECTIONS == instructed
print(f"{len(own)} easy prompts, {has.sum()} with a training relation that could stand in for the push")
for label, part in (("with a stand-in", has), ("without", ~has)):
    hist = np.histogram(angles[part & right_ball], bins=[0, 1, 46, 91, 136, 181])[0]
    print(f"  {label}: {part.sum()} prompts, own instruction goal consistent "
          f"{100 * success[part].mean():.1f}%, instructed ball pushed {100 * right_ball[part].mean():.1f}%; "
          f"its push's angle to the direction 0 / 45 / 90 / 135 / 180 degrees: {hist.tolist()}")
swapped = [Prompt(r, r.phrasings[0], p.start) if r is not None else p for p, r in zip(own, stand_ins)]
prompted = np.array([ok for ok, _ in imagined(swapped)])
print(f"  prompted with the stand-in where there is one: {100 * prompted.mean():.1f}% in all, "
      f"{100 * prompted[has].mean():.1f}% of those with one (own instruction {100 * success.mean():.1f}% "
      "in all)")
