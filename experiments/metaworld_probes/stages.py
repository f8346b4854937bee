"""Probe: Meta-World's two staged hard tasks prompted one stage at a time.

make-coffee is coffee-push then coffee-button, locked-door-open is door-unlock then door-open:
each stage is a training task. ``imagine.prompting`` can prompt such a task one sub-goal at a
time (CLEVR's and BabyAI's generators do). Here each stage is prompted with its training
task's phrasings and ends when the hard task's own stage condition holds (the training
task's predicate reads the target location, which the scene moves on at the stage's end).

Modes: ``plain`` (one prompt per rollout, as Meta-World's generator does), ``stages`` (one
stage at a time), ``switch`` (as ``stages``, and make-coffee's second prompt starts from a state
whose target location shows the pressed button, as the simulator's does once the mug is in
place). Printed per mode: goal consistency per task and how many rollouts reached each stage.

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
from imaginebench_data.domains.metaworld.scenes import BUTTON_PRESSED, SCENES  # noqa: E402
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


def switch_targets():
    """make-coffee's second prompt from a state whose target shows the pressed button."""
    segment = prompting._Progress.segment

    def switched(self, steps):
        prompt = segment(self, steps)
        if self.prompt.task.id == "make-coffee" and prompt.task.id == "coffee-button":
            state = np.array(prompt.start, np.float32)
            state[TARGET] = position(state[None], "coffee")[0] + np.asarray(BUTTON_PRESSED)
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
    rollouts = prompting.imagine_segments(model, batch, sentences, decode=domain.decode_state,
                                          subgoals=None if mode == "plain" else stage_goals)
    by_task, reached = {}, {}
    for prompt, rollout in zip(prompts, rollouts):
        by_task.setdefault(prompt.task, []).append(bool(rollout.success))
        held = stage(rollout.states, SCENES[prompt.task].conditions).max()
        reached.setdefault(prompt.task, []).append(int(held))
    print(mode, summary("hard", by_task), flush=True)
    print("  rollouts reaching stage 0 / 1 / 2:",
          {task: np.bincount(counts, minlength=3).tolist() for task, counts in reached.items()}, flush=True)
