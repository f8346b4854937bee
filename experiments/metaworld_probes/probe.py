"""What the Meta-World probes share: a level's demo prompts and the goal consistency of a
checkpoint's rollouts from them, scored as the cards count it (the tasks' predicates on the
decoded states)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from imaginebench_data.domains import get_domain
from imaginebench_data.imagine.generate import Prompt
from imaginebench_data.imagine.prompting import imagine_segments
from imaginebench_data.pipeline.recipe import load_recipes
from imaginebench_data.pipeline.rollout import episode_start

DOMAIN = "metaworld"


@dataclass(frozen=True)
class LevelPrompt:
    """One demo prompt, in plain values (it pickles without a simulator)."""

    task: str
    instruction: str
    state: np.ndarray


def level_prompts(level: str) -> list[LevelPrompt]:
    """The prompts of ``level``'s demo imaginary card: its recipe's seed and demo episode count,
    each start a real reset of the simulator."""
    domain = get_domain(DOMAIN)
    sim = domain.simulator()
    recipe = load_recipes()[f"imaginebench/{DOMAIN}-{level}-imaginary-v0"]
    starts = [episode_start(domain, level, i, recipe.seed, sim) for i in range(recipe.episodes["demo"])]
    return [LevelPrompt(s.task.id, s.instruction, s.state) for s in starts]


def imagine_level(model, level: str, prompts: list[LevelPrompt], sentences, every: int | None = None):
    """(rollouts, goal consistency per task) of ``model`` from ``prompts``, one prompt per rollout
    as Meta-World's generator does (or afresh every ``every`` steps)."""
    domain = get_domain(DOMAIN)
    tasks = {task.id: task for task in domain.tasks(level)}
    batch = [Prompt(tasks[p.task], p.instruction, p.state) for p in prompts]
    rollouts = list(imagine_segments(model, batch, sentences, steps=every, batch_size=64,
                                     decode=domain.decode_state))
    by_task: dict[str, list[bool]] = {}
    for prompt, rollout in zip(prompts, rollouts):
        by_task.setdefault(prompt.task, []).append(bool(rollout.success))
    return rollouts, by_task


def summary(level: str, by_task: dict[str, list[bool]]) -> str:
    """``level: 43.1% (task 90%, ...)``."""
    overall = np.mean([ok for oks in by_task.values() for ok in oks])
    each = ", ".join(f"{task} {np.mean(oks):.0%}" for task, oks in by_task.items())
    return f"{level}: {overall:.1%} ({each})"
