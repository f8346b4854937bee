"""What a domain declares about itself, in one place. A new domain is one folder that builds a
``Domain`` (see ``imaginebench_data.domains`` for the registry and README "Adding a domain")."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import gymnasium as gym
import numpy as np

from .episode import Episode
from .simulator import Simulator
from .task import Task

if TYPE_CHECKING:
    from ..pipeline.recipe import Recipe


class Expert(Protocol):
    def act(self, state: np.ndarray) -> Any: ...


@dataclass(frozen=True)
class OriginalLayout:
    """How the original ImagineBench release lays out this domain's files (for the importer).

    - ``prefix``: file names are ``<prefix>_real.<ext>`` / ``<prefix>_imaginary_<level>.<ext>``.
    - ``state_dim``: the state numbers at the start of each stored observation (the 768-number
      instruction encoding that may follow is stripped).
    - ``to_states(states)``: one trajectory's ``(T+1, state_dim)`` original states as our
      ``(T+1, D)`` dataset states; None when the layouts are the same.
    - ``goal_key(level, goal)`` / ``task_key(task)``: where files carry goal vectors, a hashable
      description of an original goal vector (None if it describes no goal) and the same
      description of one of our tasks, so trajectories resolve to tasks by goal; None otherwise.
    - ``templates(task)``: the original's documented instruction texts for one of our tasks
      (the domain's ``original.py``), which the importer's template rung compares with a
      trajectory's text after normalising both; None when none are documented.
    - ``slot_words`` / ``task_slots(task)``: the words that name a task's parameters (slot ->
      value -> words, e.g. colour -> red -> ("red",)) and the values one task names (slot ->
      values; a slot left out is not checked). The importer's embedding rung never picks a task
      that a text contradicts: a text naming a value of a slot that the task does not have.
    """

    prefix: str
    state_dim: int
    to_states: Callable[[np.ndarray], np.ndarray] | None = None
    goal_key: Callable[[str, np.ndarray], Hashable | None] | None = None
    task_key: Callable[[Task], Hashable] | None = None
    templates: Callable[[Task], tuple[str, ...]] | None = None
    slot_words: dict[str, dict[str, tuple[str, ...]]] | None = None
    task_slots: Callable[[Task], dict[str, frozenset[str]]] | None = None


@dataclass(frozen=True)
class Symmetry:
    """Copies of a domain's data that keep each episode one of its task (CLEVR: under a symmetry;
    LIBERO: with items already in the basket), drawn at random, for training only (no dataset
    holds them):

    - ``episode(episode, rng)``: an episode's copy, its instruction its copy's task's;
    - ``rows(states, actions, instructions, rng)``: a batch of transitions, each row copied on its own;
    - ``phrasings()``: every instruction a copy can carry (to embed them ahead).
    """

    episode: Callable[[Episode, np.random.Generator], Episode]
    rows: Callable[[np.ndarray, np.ndarray, list[str], np.random.Generator],
                   tuple[np.ndarray, np.ndarray, list[str]]]
    phrasings: Callable[[], list[str]]


@dataclass(frozen=True)
class Domain:
    """A domain: spaces, tasks per level, simulator, expert, checkers, importer layout, recipes.

    - ``env_id``: the gymnasium id of its evaluation env (registered from the registry).
    - ``tasks(level)`` lists the level's tasks in the order the eval env cycles them.
    - ``simulator()`` makes a fresh ``Simulator`` (one per process or env).
    - ``expert(task, rng, sim)`` makes an expert for one episode run on ``sim``.
    - ``illegal(states)`` maps ``(N, D)`` states to an ``(N, K)`` bool array, one column per
      name in ``illegal_kinds`` (non-finite values are always a kind).
    - ``transition_distance(predicted, stored)`` maps two ``(N, D)`` state batches to the
      ``(N,)`` distance that is compared with ``transition_tolerance``.
    - ``decode_state(prev, states)``: how a generator turns its regressed ``(N, D)`` next
      states into dataset states, given the ``(N, D)`` states the step started from, as argmax
      turns logits into actions (BabyAI: round to grid integers; HalfCheetah: its history
      counters are bookkeeping of the step, computed, not regressed; CLEVR: projected onto the
      table). None keeps them as regressed. It is part of the generator: ``decoding`` names it
      in a few words, and the cards of generated data report the rates of the raw predictions
      beside those of the decoded states (``provenance.decoding``).
    - ``prompt_steps``: a generator prompts the model afresh, from the state its rollout has
      reached, every ``prompt_steps`` imagined steps (``imagine.prompting``); None: once per
      rollout, as KALM does. ``subgoals(task, start)``: the tasks the model was grounded on that
      ``task``'s goal is made of, given its ``(D,)`` start state (CLEVR: a hard task's
      relations), or none; such a task is prompted one sub-goal at a time. ``prompting`` names
      both in the cards of generated data.
    - ``original``: the layout of the original release's files (see ``OriginalLayout``).
    - ``recipe_module``: the module whose ``RECIPES`` list builds this domain's datasets
      (default ``imaginebench_data.builders.<name>``, i.e. ``builders/<name>.py``).
    - ``notes``: plain-text facts (state layout, rewards, tolerances) copied into every card.
    - ``draw_states(ax, states)``: draws one episode's ``(T+1, D)`` states on a matplotlib
      axis (the cards' imagined-against-oracle figure); None where a picture of the state
      numbers would say little.
    - ``render(sim)``: what ``sim`` shows now as an ``(H, W, 3)`` uint8 RGB image, the
      domain's own renderer (MuJoCo's offscreen one, minigrid's); any stored state is drawn by
      putting the simulator in it first (``core.render.draw_state``). None: the env has no
      ``rgb_array`` render mode.
    - ``history_columns``: state columns that are bookkeeping of the episode so far (HalfCheetah's
      x since the reset, time, furthest x forward and backward), not physics; a policy told to see
      the physics alone (``BCSettings.history=False``) leaves them out.
    - ``grounding_levers``: opt-in ``imagine.train.TrainSettings`` levers that this domain's
      imagined recipes, and ``imaginebench ground`` by default, switch on: a field name (set to
      True) or a ``(name, value)`` pair (LIBERO: ``hide_unseen``; Meta-World: that, and one-step
      rollouts batched apart). Part of the method: the checkpoint key names them.
    - ``symmetry``: copies of the domain's data that keep each episode an episode of its task
      (``Symmetry``; CLEVR: colours permuted, the table mirrored; LIBERO: items the task leaves
      already in the basket), which grounding and BC with their ``symmetries`` levers see in
      its place; None where the domain has none.
    """

    name: str
    env_id: str
    state_space: gym.spaces.Box
    action_space: gym.Space
    tasks: Callable[[str], list[Task]]
    simulator: Callable[[], Simulator]
    expert: Callable[[Task, np.random.Generator, Simulator], Expert]
    illegal_kinds: tuple[str, ...]
    illegal: Callable[[np.ndarray], np.ndarray]
    transition_distance: Callable[[np.ndarray, np.ndarray], np.ndarray]
    transition_tolerance: float
    original: OriginalLayout
    notes: dict[str, str]
    decode_state: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
    decoding: str = ""
    prompt_steps: int | None = None
    subgoals: Callable[[Task, np.ndarray], tuple[Task, ...]] | None = None
    prompting: str = ""
    recipe_module: str | None = None
    draw_states: Callable[[Any, np.ndarray], None] | None = None
    render: Callable[[Simulator], np.ndarray] | None = None
    history_columns: tuple[int, ...] = ()
    grounding_levers: tuple[str | tuple[str, Any], ...] = ()
    symmetry: Symmetry | None = None

    @property
    def discrete(self) -> bool:
        """Whether actions are indices (``Discrete``) rather than vectors (``Box``)."""
        return isinstance(self.action_space, gym.spaces.Discrete)

    def copies(self, lever: str) -> Symmetry:
        """The domain's ``symmetry``, for ``lever`` (the option that asked for copies); refused
        in one line where the domain has none."""
        if self.symmetry is None:
            raise ValueError(f"{lever} needs a domain with copies of its data (CLEVR, LIBERO); "
                             f"{self.name} has none")
        return self.symmetry

    def task(self, level: str, task_id: str) -> Task:
        for task in self.tasks(level):
            if task.id == task_id:
                return task
        known = ", ".join(t.id for t in self.tasks(level)[:5])
        raise KeyError(f"{self.name} level {level!r} has no task {task_id!r} (tasks include {known}, ...)")

    def recipes(self) -> list[Recipe]:
        """The recipes of this domain's datasets (``RECIPES`` of ``recipe_module``)."""
        module = self.recipe_module or f"imaginebench_data.builders.{self.name}"
        try:
            return list(importlib.import_module(module).RECIPES)
        except ModuleNotFoundError as error:
            if error.name != module:
                raise
            return []
