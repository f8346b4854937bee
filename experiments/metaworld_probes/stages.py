"""Probe: Meta-World's two staged hard tasks prompted one stage at a time.

make-coffee is coffee-push then coffee-button, locked-door-open is door-unlock then door-open:
each stage is a training task. ``imagine.prompting`` can prompt such a task one sub-goal at a
time (CLEVR's and BabyAI's generators do). Here each stage is prompted with its training
task's phrasings and ends when the hard task's own stage condition holds (the training
task's predicate reads the target location, which the scene moves on at the stage's end).

Modes: ``plain`` (one prompt per rollout, as Meta-World's generator does), ``stages`` (one
stage at a time), ``switch`` (as ``stages``, and the second prompt starts from a state whose
target location shows the second stage's goal, as the simulator's does once the first stage
holds: make-coffee's pressed button, locked-door-open's open door, placed from the handle as
a reset of the simulator's locked-door scene places it). Printed per mode: goal consistency
per task, how many rollouts reached each stage, and for the door how far its handle swung
and how far the hand ended from it.

Usage: python experiments/metaworld_probes/stages.py CHECKPOINT [MODE ...]
"""

import sys

from imaginebench_data.imagine import numerics

numerics.choose("portable")  # before torch's first operation, as the build does

from dataclasses import replace  # noqa: E402
from functools import partial  # noqa: E402

import numpy as np  # noqa: E402
from probe import DOMAIN, level_prompts, summary  # noqa: E402

from imaginebench_data.domains import get_domain  # noqa: E402
from imaginebench_data.domains.metaworld.layout import TARGET, position  # noqa: E402
from imaginebench_data.domains.metaworld.predicates import stage  # noqa: E402
from imaginebench_data.domains.metaworld.scenes import BUTTON_PRESSED, DOOR_OPEN_GOAL, SCENES  # noqa: E402
from imaginebench_data.domains.metaworld.tasks import _success  # noqa: E402  (the tasks' own predicate)
from imaginebench_data.imagine import prompting  # noqa: E402
from imaginebench_data.imagine.checkpoint import load_checkpoint  # noqa: E402
from imaginebench_data.imagine.generate import Prompt  # noqa: E402
from imaginebench_data.imagine.train import SentenceTable  # noqa: E402

STAGES = {"make-coffee": ("coffee-push", "coffee-button"), "locked-door-open": ("door-unlock", "door-open")}


def stage_goals(task, start=None):
    """Each stage's training task, ended by the hard task's conditions up to that stage."""
    train = {t.id: t for t in get_domain(DOMAIN).tasks("train")}
    conditions = SCENES[task.id].conditions
    return tuple(replace(train[name], success=partial(_success, conditions=conditions[:i + 1]))
                 for i, name in enumerate(STAGES.get(task.id, ())))


def open_goal_from_handle():
    """Where the simulator shows the open goal once the lock is turned, from the handle of the
    door at rest (the door body is not in the state): one reset of the locked-door scene."""
    domain = get_domain(DOMAIN)
    sim = domain.simulator()
    state = sim.reset(domain.task("hard", "locked-door-open"), np.random.default_rng(0))
    door = sim.env.data.body(SCENES["locked-door-open"].staged_origin).xpos
    return door + np.asarray(DOOR_OPEN_GOAL) - position(state[None], "handle")[0]


def switch_targets():
    """Each staged task's second prompt from a state whose target shows its second goal."""
    segment = prompting._Progress.segment
    offsets = {"coffee-button": ("coffee", np.asarray(BUTTON_PRESSED)),
               "door-open": ("handle", open_goal_from_handle())}

    def switched(self, steps):
        prompt = segment(self, steps)
        if self.prompt.task.id in STAGES and prompt.task.id in offsets:
            entity, offset = offsets[prompt.task.id]
            state = np.array(prompt.start, np.float32)
            state[TARGET] = position(state[None], entity)[0] + offset
            self.states[-1] = np.concatenate([self.states[-1][:-1], state[None]])
            prompt = Prompt(prompt.task, prompt.instruction, state)
        return prompt

    prompting._Progress.segment = switched


model = load_checkpoint(sys.argv[1], "cpu")
domain = get_domain(DOMAIN)
sentences = SentenceTable(model.config.sentence_encoder)
tasks = {t.id: t for t in domain.tasks("hard")}
prompts = [p for p in level_prompts("hard") if p.task in STAGES]
for mode in sys.argv[2:] or ["plain", "stages", "switch"]:
    if mode == "switch":
        switch_targets()
    batch = [Prompt(tasks[p.task], p.instruction, p.state) for p in prompts]
    rollouts = list(prompting.imagine_segments(model, batch, sentences, decode=domain.decode_state,
                                               subgoals=None if mode == "plain" else stage_goals))
    by_task, reached = {}, {}
    for prompt, rollout in zip(prompts, rollouts):
        by_task.setdefault(prompt.task, []).append(bool(rollout.success))
        held = stage(rollout.states, SCENES[prompt.task].conditions).max()
        reached.setdefault(prompt.task, []).append(int(held))
    print(mode, summary("hard", by_task), flush=True)
    print("  rollouts reaching stage 0 / 1 / 2:",
          {task: np.bincount(counts, minlength=3).tolist() for task, counts in reached.items()}, flush=True)
    doors = [r.states for p, r in zip(prompts, rollouts) if p.task == "locked-door-open"]
    swing = [position(s, "handle")[:, 0].min() - position(s, "handle")[0, 0] for s in doors]
    hand = [np.linalg.norm(s[-1, :3] - position(s[-1:], "handle")[0]) for s in doors]
    print(f"  locked-door-open, medians: the handle's x moved {np.median(swing):+.3f} m at most, "
          f"the hand ended {np.median(hand):.3f} m from it", flush=True)
