"""Where a recipe's episodes come from: the expert (in worker processes) or a grounded model.

Each source returns the episodes (checked by the checkers, ready to write) and what the
card's provenance should say about the generator.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np

from ..core.episode import Episode
from ..domains import get_domain
from ..quality.checkers import annotate
from .executors import Executor, LocalPool, episode_fault
from .recipe import ACTION_SOURCES, Recipe
from .rollout import episode_start, expert_episode, rollout_episode

if TYPE_CHECKING:
    from ..imagine.train import TrainSettings

_WORKER: dict[str, Any] = {}
CHANGED = 0.01  # a continuous inferred action moved more than this (the space's units) counts as changed
INFERRED_COUNTS = ("compared", "changed", "kept_where_nothing_changes")  # provenance.actions' counters


def _init_worker(domain_name: str) -> None:
    _WORKER["domain"] = get_domain(domain_name)
    _WORKER["sim"] = _WORKER["domain"].simulator()


def _expert_job(job: tuple[str, int, int]) -> Episode:
    level, index, seed = job
    domain, sim = _WORKER["domain"], _WORKER["sim"]
    with episode_fault(lambda: f"the expert's episode {index} of {domain.name}'s {level} level "
                               f"(recipe seed {seed})"):
        return annotate(domain, expert_episode(domain, level, index, seed, sim), sim)


def _annotate_job(episode: Episode) -> Episode:
    with episode_fault(lambda: f"checking the {episode.source} episode of task {episode.task_id!r} "
                               f"with seed {episode.seed}"):
        return annotate(_WORKER["domain"], episode, _WORKER["sim"])


def expert_episodes(recipe: Recipe, count: int, executor: Executor) -> Iterator[Episode]:
    """Expert episodes 0..count-1 of the recipe, checked, in order, rolled out by ``executor``."""
    jobs = ((recipe.level, index, recipe.seed) for index in range(count))
    yield from executor.map(_expert_job, jobs, (_init_worker, (recipe.domain,)),
                            chunksize=chunk_size(count, executor.workers))


def chunk_size(count: int, workers: int) -> int:
    """Episodes handed to a worker at a time: about 32 chunks per worker, 1 to 64 episodes.

    Short episodes (BabyAI's take about 1 ms) are dominated by the pool's messages when sent a
    few at a time: at paper scale, chunks of 64 brought two workers from 1.64x to 1.88x one
    worker (2026-11-26); 32 chunks per worker keep the last chunk's wait short for long ones."""
    return max(1, min(64, count // (32 * max(1, workers))))


def grounded_model(recipe: Recipe, *, backbone: str, lora: int, settings: TrainSettings, progress: bool,
                   executor: Executor, batch_size: int, ensemble: int = 1,
                   actions: str = "model") -> tuple[list, dict[str, Any], Any]:
    """The checkpoint paths of the model the recipe imagines with (grounded with ``settings``,
    ``Recipe.grounding``'s, if no checkpoint for this configuration exists yet) and the card's
    provenance for it. With ``ensemble`` N > 1, N groundings of ``settings`` under the seeds
    seed, seed + 1, ..., imagining as one (``imagine.ensemble``); the provenance's checkpoint,
    training and evidence are then the first member's (the others' evidence is not measured),
    and ``ensemble`` names them all. The third value is ``action_labeller``'s for ``actions``
    (checked before any grounding)."""
    from ..imagine.checkpoint import training_info
    from ..imagine.checkpoints import checkpoint_provenance, ensure_checkpoint

    if ensemble < 1:
        raise ValueError(f"ensemble: expected at least 1 grounding, got {ensemble}")
    if actions not in ACTION_SOURCES:
        raise ValueError(f"actions: expected one of {', '.join(ACTION_SOURCES)}, got {actions!r}")
    paths = [ensure_checkpoint(str(recipe.train_from), backbone=backbone, lora=lora, evidence=k == 0,
                               settings=replace(settings, seed=settings.seed + k), progress=progress)
             for k in range(ensemble)]
    provenance = checkpoint_provenance(paths[0])
    if ensemble > 1:
        trained = [training_info(path) for path in paths]
        provenance["ensemble"] = {
            "members": [path.name for path in paths],
            "checkpoint_hashes": [t["hash"] for t in trained],
            "seeds": [t["settings"]["seed"] for t in trained],
            "rule": "each step's action: the argmax of the members' mean probabilities (their mean "
            "action where actions are regressed); its next state: the members' mean prediction; "
            "the checkpoint, training and evidence above are the first member's"}
    provenance["actions_outside_space"] = 0  # counted while the episodes are generated
    provenance.update(executor.provenance())
    provenance["generation_batch_size"] = batch_size
    return paths, provenance, action_labeller(recipe, actions, provenance)


def imagined_rollouts(model, domain, starts: list, *, batch_size: int, provenance: dict[str, Any],
                      source: str, progress: bool, desc: str, labeller=None) -> Iterator[Episode]:
    """The model's rollout from each start, as unchecked episodes in the order of ``starts``.
    ``model`` is a checkpoint loader called on the first rollout drawn (so that an executor's
    forked workers start before it); ``labeller`` (``action_labeller``'s), called then too,
    gives the inverse dynamics model whose actions are stored instead of the model's."""
    from ..imagine.generate import Prompt, imagine
    from ..imagine.prompting import imagine_segments, segmented
    from ..imagine.train import SentenceTable

    model = model()
    infer = labeller() if labeller is not None else None
    prompts = [Prompt(start.task, start.instruction, start.state) for start in starts]
    sentences = SentenceTable(model.config.sentence_encoder)
    options = {"batch_size": batch_size, "decode": domain.decode_state, "progress": progress, "desc": desc}
    if segmented(prompts, domain.prompt_steps, domain.subgoals):
        provenance["prompting"] = domain.prompting
        rollouts = imagine_segments(model, prompts, sentences, steps=domain.prompt_steps,
                                    subgoals=domain.subgoals, **options)
    else:
        rollouts = imagine(model, prompts, sentences, **options)
    for start, rollout in zip(starts, rollouts):
        actions, outside = executed_actions(domain.action_space, rollout.actions)
        counts: dict[str, Any] = {"actions_outside_space": outside}
        if infer is not None:
            counts["actions"] = dict.fromkeys(INFERRED_COUNTS, 0)
            actions = inferred_actions(infer, rollout.states, actions, counts["actions"])
        episode = rollout_episode(domain, start, rollout.states, actions, source=source)
        episode.generation_counts = counts
        if domain.decode_state is not None:
            episode.raw_states = rollout.raw_states
        yield episode


def tally(provenance: dict[str, Any], episode: Episode) -> None:
    """Add what ``imagined_rollouts`` counted of ``episode`` to the card's provenance: every
    episode of an imaginary dataset, the kept ones of a verified dataset (its rejected attempts
    are not in the data; until 2026-12-07 they were counted too)."""
    counts = episode.generation_counts or {}
    provenance["actions_outside_space"] += counts.get("actions_outside_space", 0)
    for key, value in counts.get("actions", {}).items():
        provenance["actions"][key] += value


def action_labeller(recipe: Recipe, actions: str, provenance: dict[str, Any]):
    """None for the model's own actions; for ``actions="inferred"``, ``load()``: the inverse
    dynamics model (``imagine.inverse_dynamics``) trained on the recipe's real training set (read
    now), trained on the first call (in the generating process, after the workers are forked).
    The card's ``provenance.actions`` says which, and how many actions the inferred ones changed."""
    from ..loader.transitions import load as load_transitions

    if actions == "model":
        return None
    record = provenance["actions"] = {
        "source": "inferred", "trained_on": str(recipe.train_from),
        "rule": "each stored action is what an inverse dynamics model (an MLP on [s, s' - s], trained on "
        "the real training set) infers from its imagined transition, but where the imagined state does not "
        "change (no action can be read off it): there the model's; the imagined states are the model's",
        **dict.fromkeys(INFERRED_COUNTS, 0)}
    real = load_transitions(recipe.train_from)  # now: the build later points Minari at its staging folder
    record["training_checksum"] = real.card.checksum

    @functools.cache
    def load():
        from ..imagine.inverse_dynamics import InverseDynamics

        model = InverseDynamics.fit(real.observations, real.next_observations, real.actions, real.episode_ids,
                                    get_domain(recipe.domain).action_space)
        record["inverse_dynamics"] = model.report
        return model

    return load


def inferred_actions(infer, states: np.ndarray, actions: np.ndarray, record: dict[str, Any]) -> np.ndarray:
    """``infer``'s actions for the transitions of ``states``, but ``actions`` (the model's) where
    the imagined state does not change: an inverse model fitted on expert steps that all move
    something names a move there, which the simulator then makes (BabyAI: 10-34% of the
    imagined steps are such no-ops, 0 of the expert's). ``record`` counts the actions compared,
    those kept so, and those changed (discrete: another action; continuous: a number moved by
    more than ``CHANGED``)."""
    inferred = infer(states[:-1], states[1:])
    still = np.all(states[1:] == states[:-1], axis=1)
    inferred[still] = actions[still]
    moved = inferred != actions if inferred.ndim == 1 else np.abs(inferred - actions).max(axis=1) > CHANGED
    record["compared"] += len(actions)
    record["kept_where_nothing_changes"] += int(still.sum())
    record["changed"] += int(moved.sum())
    return inferred


def checked(executor: Executor, domain_name: str, episodes: Iterator[Episode]) -> Iterator[Episode]:
    """``episodes`` annotated by the checkers on ``executor``'s workers, in order."""
    return executor.map(_annotate_job, episodes, (_init_worker, (domain_name,)))


def model_loader(paths) -> Any:
    """``load()``: the checkpoint at ``paths`` (one, or several imagining as one:
    ``imagine.ensemble``) on the default device, loaded once."""
    from ..imagine.ensemble import load_model
    from ..imagine.train import default_device

    @functools.cache
    def load():
        return load_model(paths, default_device())

    return load


def imagined_episodes(recipe: Recipe, count: int, *, backbone: str, lora: int, settings: TrainSettings,
                      batch_size: int = 64, progress: bool = True, executor: Executor | None = None,
                      ensemble: int = 1, actions: str = "model") -> tuple[Iterator[Episode], dict[str, Any]]:
    """The grounded model's rollouts for episodes 0..count-1 of the recipe, ``batch_size``
    rollouts generated together, and its provenance; ``actions="inferred"`` stores the actions
    an inverse dynamics model infers from the imagined transitions (``action_labeller``).

    The model is grounded first (with ``settings``, ``Recipe.grounding``'s) if no checkpoint for
    this configuration exists; with ``ensemble`` N > 1, N groundings under consecutive seeds
    imagine as one (``grounded_model``). It imagines in this process; the checkers (one
    re-simulation per imagined transition, the slow part in LIBERO) run on ``executor``
    (default: in this process) meanwhile: forked worker processes are forked before the model
    is loaded.
    """
    executor = executor or LocalPool(1)
    paths, provenance, labeller = grounded_model(recipe, backbone=backbone, lora=lora, settings=settings,
                                                 progress=progress, executor=executor, batch_size=batch_size,
                                                 ensemble=ensemble, actions=actions)

    def episodes() -> Iterator[Episode]:
        domain = get_domain(recipe.domain)
        sim = domain.simulator()
        starts = [episode_start(domain, recipe.level, index, recipe.seed, sim) for index in range(count)]
        rollouts = imagined_rollouts(model_loader(paths), domain, starts, batch_size=batch_size,
                                     provenance=provenance, source="imaginary", progress=progress,
                                     desc=f"imagine {recipe.dataset_id}", labeller=labeller)
        for episode in checked(executor, recipe.domain, rollouts):
            tally(provenance, episode)
            yield episode

    return episodes(), provenance


def executed_actions(space, actions: np.ndarray) -> tuple[np.ndarray, int]:
    """Regressed continuous actions as the simulator executes them: clipped into the Box (as
    metaworld's own ``step`` clips), non-finite entries as 0. Returns them and how many
    actions were outside the space (recorded in the card's provenance). Discrete actions
    (argmax) are always inside."""
    if not isinstance(space, gym.spaces.Box):
        return actions, 0
    actions = np.asarray(actions, dtype=space.dtype)
    outside = ~np.isfinite(actions) | (actions < space.low) | (actions > space.high)
    outside = outside.reshape(len(actions), -1).any(axis=1)
    executed = np.clip(np.nan_to_num(actions, nan=0.0), space.low, space.high).astype(space.dtype)
    return executed, int(outside.sum())
