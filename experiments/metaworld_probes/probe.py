"""What the Meta-World probes share: a level's demo prompts and the goal consistency of a
checkpoint's rollouts from them, scored as the cards count it (the tasks' predicates on the
decoded states)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from imaginebench_data.domains import get_domain

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grounding_seeds import LevelPrompt, by_task  # noqa: E402
from grounding_seeds import imagine_level as seeds_imagine_level  # noqa: E402
from grounding_seeds import level_prompts as domain_prompts  # noqa: E402

DOMAIN = "metaworld"


def level_prompts(level: str) -> list[LevelPrompt]:
    """The prompts of ``level``'s demo imaginary card (``grounding_seeds.level_prompts``)."""
    return domain_prompts(DOMAIN, level)


def imagine_level(model, level: str, prompts: list[LevelPrompt], sentences, every: int | None = None):
    """(rollouts, goal consistency per task) of ``model`` from ``prompts``, one prompt per rollout
    as Meta-World's generator does (or afresh every ``every`` steps)."""
    rollouts = seeds_imagine_level(model, get_domain(DOMAIN), level, prompts, sentences, every=every)
    return rollouts, by_task(prompts, rollouts)


def summary(level: str, by_task: dict[str, list[bool]]) -> str:
    """``level: 43.1% (task 90%, ...)``."""
    overall = np.mean([ok for oks in by_task.values() for ok in oks])
    each = ", ".join(f"{task} {np.mean(oks):.0%}" for task, oks in by_task.items())
    return f"{level}: {overall:.1%} ({each})"
