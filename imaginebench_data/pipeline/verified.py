"""A verified dataset: the imagined episodes that pass every checker, regenerated within a budget.

Round 0 imagines episodes 0..count-1 exactly as the recipe's imaginary twin does (same task,
phrasing and real start state, so an accepted round-0 episode equals the imaginary dataset's
episode). An episode passes when

- its final imagined transition satisfies its task's predicate (goal consistent),
- every state is legal, and
- every transition re-simulates within the domain's tolerance.

Each episode that fails is imagined again in the next round, for the same task from a new
phrasing and real start state (``episode_start(..., attempt=k)``), until it passes or it has
had ``recipe.attempts`` attempts. Episodes that never pass are left out, so a verified dataset
may hold fewer episodes than asked for. It holds none when no attempt passed; then nothing is
written and the build says so. The card's provenance records the budget and what was used:
``verification = {attempts_per_episode, attempts, accepted, requested, acceptance_rate,
rejected_by}``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.episode import Episode
from ..domains import get_domain
from .executors import Executor, LocalPool
from .generators import checked, grounded_model, imagined_rollouts, model_loader, tally
from .recipe import Recipe
from .rollout import episode_start

if TYPE_CHECKING:
    from ..imagine.train import TrainSettings

CRITERIA = ("goal_consistent", "legal", "transition_ok")


class NothingVerifiedError(ValueError):
    """No attempt passed the checkers within the budget: there is no dataset to write."""


def failed_criteria(episode: Episode) -> list[str]:
    """The criteria (of ``CRITERIA``) a checked episode fails; empty when it passes."""
    infos = episode.infos
    passed = {"goal_consistent": bool(infos["success"][-1]), "legal": bool(np.all(infos["legal"])),
              "transition_ok": bool(np.all(infos["transition_ok"]))}
    return [name for name in CRITERIA if not passed[name]]


def verified_episodes(recipe: Recipe, count: int, *, backbone: str, lora: int, settings: TrainSettings,
                      batch_size: int = 64, progress: bool = True, executor: Executor | None = None,
                      ensemble: int = 1, actions: str = "model") -> tuple[Iterator[Episode], dict[str, Any]]:
    """The accepted episodes in episode order, and the provenance (filled in as they are made).
    The model is grounded with ``settings`` (``Recipe.grounding``'s; ``ensemble`` groundings
    imagining as one, ``generators.grounded_model``); ``actions="inferred"``: the stored actions
    are an inverse dynamics model's (``generators.action_labeller``), and so are those the
    transition checker re-simulates; the checkers of each round run on ``executor`` (default:
    in this process)."""
    executor = executor or LocalPool(1)
    paths, provenance, labeller = grounded_model(recipe, backbone=backbone, lora=lora, settings=settings,
                                                 progress=progress, executor=executor, batch_size=batch_size,
                                                 ensemble=ensemble, actions=actions)
    rejected: Counter[str] = Counter()
    verification = provenance["verification"] = {
        "criteria": list(CRITERIA), "attempts_per_episode": recipe.attempts, "requested": count,
        "attempts": 0, "accepted": 0, "acceptance_rate": 0.0, "rejected_by": {}}

    def episodes() -> Iterator[Episode]:
        domain = get_domain(recipe.domain)
        accepted: dict[int, Episode] = {}
        sim = domain.simulator()
        model = model_loader(paths)
        pending = list(range(count))
        for attempt in range(recipe.attempts):
            if not pending:
                break
            starts = [episode_start(domain, recipe.level, i, recipe.seed, sim, attempt) for i in pending]
            results = checked(executor, recipe.domain, imagined_rollouts(
                model, domain, starts, batch_size=batch_size, provenance=provenance, source="verified",
                progress=progress, desc=f"verify {recipe.dataset_id} (attempt {attempt + 1})",
                labeller=labeller))
            for index, episode in zip(pending, results, strict=True):
                failed = failed_criteria(episode)
                rejected.update(failed)
                if not failed:
                    accepted[index] = episode
            verification["attempts"] += len(pending)
            pending = [i for i in pending if i not in accepted]
        verification.update(accepted=len(accepted), rejected_by=dict(sorted(rejected.items())),
                            acceptance_rate=len(accepted) / max(verification["attempts"], 1))
        if not accepted:
            raise NothingVerifiedError(
                f"{recipe.dataset_id}: none of {verification['attempts']} imagined episodes passed the "
                f"checkers ({', '.join(CRITERIA)}) within {recipe.attempts} attempts per episode; "
                f"failures by criterion: {dict(rejected)}. Nothing was written")
        for index in sorted(accepted):
            tally(provenance, accepted[index])
            yield accepted[index]

    return episodes(), provenance
