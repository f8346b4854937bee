"""Prompting afresh: a rollout imagined in segments, each from a prompt of its own.

KALM prompts the model once per rollout and lets it run to the time limit. A model that has
lost its way by then rarely finds it again: it keeps predicting from a context full of its
own drift. Here a rollout is imagined in segments of at most ``steps`` imagined steps
(``Domain.prompt_steps``). Each segment starts a new context: an instruction and the state
the rollout has reached as its start state, as the model was grounded on. It runs until its
goal or the whole task holds, its ``steps`` are spent (then the next segment is prompted from
where it got to), or the task's time limit runs out. The segments' states and actions are
joined into one rollout, stored under the task's own instruction.

A segment's goal and instruction:

- a task made of goals the model was grounded on (``Domain.subgoals``: CLEVR's hard "red left
  of blue and green behind purple") is prompted one sub-goal at a time: the first of its
  sub-goals not holding in the current state, in one of that sub-goal's training phrasings
  (the next one at each segment);
- any other task, and one whose sub-goals all hold but not the task, is prompted with its own
  instruction.

Whether a sub-goal holds, and whether the task does, is decided by the tasks' own predicates,
the ones that end every imagined rollout (``generate``). It is part of the generator, named by
``Domain.prompting`` in the cards' provenance.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ..core.task import Task
from .generate import Prompt, Rollout, imagine_batch, in_batches

Subgoals = Callable[[Task, np.ndarray], tuple[Task, ...]]  # (task, start state) -> sub-goals


def no_subgoals(task: Task, start: np.ndarray) -> tuple[Task, ...]:
    return ()


def holds(task: Task, state: np.ndarray) -> bool:
    """Whether ``task``'s goal holds in ``state`` (its predicate on the step ``state -> state``:
    sub-goals are goals on states, such as CLEVR's relations)."""
    with np.errstate(all="ignore"):
        return task.succeeded(state, 0, state)


def _either(first, second):
    def success(prev, actions, states):
        one, other = first(prev, actions, states), second(prev, actions, states)
        return np.asarray(one, bool) | np.asarray(other, bool)

    return success


@dataclass
class _Progress:
    """One rollout being imagined: its segments so far."""

    prompt: Prompt
    subgoals: tuple[Task, ...]
    index: int  # the rollout's number, which picks each sub-goal's phrasing
    states: list[np.ndarray] = field(init=False)  # the start, then each segment's next states
    raw: list[np.ndarray] = field(init=False)  # the same, as predicted before decoding
    actions: list[np.ndarray] = field(init=False, default_factory=list)
    done: bool = field(init=False, default=False)
    success: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        start = np.asarray(self.prompt.start, np.float32)[None]
        self.states, self.raw = [start], [start]

    @property
    def steps(self) -> int:
        return sum(len(a) for a in self.actions)

    def segment(self, steps: int) -> Prompt:
        """The next segment's prompt (see the module's docstring), for at most ``steps`` steps."""
        task, state = self.prompt.task, self.states[-1][-1]
        horizon = min(task.horizon - self.steps, steps)
        pending = [g for g in self.subgoals if not holds(g, state)]
        if not pending:
            return Prompt(replace(task, horizon=horizon), self.prompt.instruction, state)
        goal = pending[0]
        phrasing = goal.phrasings[(self.index + len(self.actions)) % len(goal.phrasings)]
        return Prompt(replace(goal, success=_either(goal.success, task.success), horizon=horizon),
                      phrasing, state)

    def add(self, rollout: Rollout) -> None:
        self.states.append(rollout.states[1:])
        self.raw.append(rollout.raw_states[1:])
        self.actions.append(rollout.actions)
        task = self.prompt.task
        self.success = task.succeeded(rollout.states[-2], rollout.actions[-1], rollout.states[-1])
        self.done = self.success or self.steps >= task.horizon

    def rollout(self) -> Rollout:
        return Rollout(np.concatenate(self.states), np.concatenate(self.actions), self.success,
                       np.concatenate(self.raw))


def segmented(prompts: Sequence[Prompt], steps: int | None, subgoals: Subgoals | None) -> bool:
    """Whether any of ``prompts`` is imagined in more than one segment: its task outlasts
    ``steps`` or is made of sub-goals. Otherwise ``imagine_segments`` is ``generate.imagine``."""
    longer = steps is not None and any(p.task.horizon > steps for p in prompts)
    return longer or (subgoals is not None and any(subgoals(p.task, p.start) for p in prompts))


def imagine_segments_batch(model, prompts: Sequence[Prompt], sentence, *, steps: int | None = None,
                           subgoals: Subgoals | None = None, first_index: int = 0,
                           decode=None) -> list[Rollout]:
    """One rollout per prompt, each made of segments of at most ``steps`` steps (``None``: to
    the task's time limit) and ``subgoals``' goals (see the module's docstring); the segments of
    a round are generated together, as one batch."""
    subgoals = subgoals or no_subgoals
    runs = [_Progress(p, subgoals(p.task, p.start), first_index + i) for i, p in enumerate(prompts)]
    while active := [r for r in runs if not r.done]:
        segments = [r.segment(steps or r.prompt.task.horizon) for r in active]
        for run, rollout in zip(active, imagine_batch(model, segments, sentence, True, decode)):
            run.add(rollout)
    return [r.rollout() for r in runs]


def imagine_segments(model, prompts: Sequence[Prompt], sentence, *, steps: int | None = None,
                     subgoals: Subgoals | None = None, batch_size: int = 64, progress: bool = False,
                     desc: str = "imagine", decode=None) -> Iterator[Rollout]:
    """``generate.imagine``, prompted afresh in segments, ``batch_size`` rollouts at a time (a generator)."""
    def batch(chunk, first):
        return imagine_segments_batch(model, chunk, sentence, steps=steps, subgoals=subgoals,
                                      first_index=first, decode=decode)

    return in_batches(prompts, batch, batch_size=batch_size, progress=progress, desc=desc)
