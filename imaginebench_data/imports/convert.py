"""Original trajectories to our ``Episode``s: cut, aligned, resolved, checked.

Trajectory i of a file has ``L = masks[i].sum()`` valid steps: observations o_0..o_{L-1}
and actions a_0..a_{L-1}, where o_t is the state in which a_t was taken. The original
keeps no state after the last action (its replay buffers end on an all-zero next
observation), so:

- with ``next_observations``: states are o_0..o_{L-1} followed by ``next_observations[L-1]``,
  and the episode has all L steps;
- without: states are o_0..o_{L-1} and the last action (and its reward) is dropped: the
  episode has L-1 steps. Trajectories left with no step (L < 2) are dropped and counted.

Rewards are the file's, not recomputed. Terminations are ours, not the original's (which
marks every episode terminated and ignores ``terminals``): an episode is terminated when its
task's predicate holds on its last transition (the checkers decide), else truncated.
The instruction is the trajectory's first instruction string, with typographic punctuation
and white space normalised to the instruction charset; where the file carries no text,
its ``task_str``; where it carries neither, the resolved task's first phrasing of ours.
``phrasing_id`` is the instruction's index among our phrasings of the task, or -1 when
it is the original's own wording. ``seed`` is the trajectory's row index in the file.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from ..core.domain import Domain, Simulator
from ..core.episode import Episode
from ..core.task import Task
from ..core.text import instruction_space, observation_space
from ..datasets.validate import DatasetValidationError, validate_episode
from ..quality.checkers import INFO_KEYS, annotate
from .resolve import TaskResolver
from .source import SourceFile, SourceFileError

UNMATCHED_RULES = ("error", "skip")
TYPOGRAPHY = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
                            "\u2014": "-", "\u2026": "...", "\u00a0": " "})
OWN_WORDING = -1  # phrasing_id of an instruction that is not one of our phrasings


@dataclass
class Conversion:
    """The episodes of one file and what was dropped (trajectory row indices)."""

    episodes: list[Episode]
    final_state: str
    too_short: list[int] = field(default_factory=list)
    unresolved: list[int] = field(default_factory=list)


def normalise_instruction(text: str) -> str:
    """Typographic quotes and dashes to ASCII, runs of white space to one space, trimmed."""
    return " ".join(text.translate(TYPOGRAPHY).split())


def _actions(source: SourceFile, domain: Domain) -> np.ndarray:
    """The file's actions in the domain's action space dtype and shape; a clear error otherwise."""
    space, actions = domain.action_space, source.arrays["actions"]
    valid = np.arange(actions.shape[1]) < source.lengths[:, None]
    shape = space.shape or ()
    if actions.ndim == 3 and shape == () and actions.shape[2] == 1:
        actions = actions[:, :, 0]
    if actions.shape[2:] != shape:
        raise SourceFileError(f"{source.name}: key 'actions' has shape {actions.shape}; expected "
                              f"{actions.shape[:2] + shape} for {domain.name}'s {space}")
    if shape == ():
        ok = (np.rint(actions) == actions) & (actions >= 0) & (actions < space.n)
    else:
        ok = ((actions >= space.low) & (actions <= space.high)).reshape(*actions.shape[:2], -1).all(axis=-1)
    bad = valid & ~ok
    if bad.any():
        row, step = (int(i) for i in np.argwhere(bad)[0])
        raise SourceFileError(f"{source.name}: key 'actions' trajectory {row} step {step} is "
                              f"{actions[row, step].tolist()}, not in {space} ({int(bad.sum())} such steps)")
    return actions.astype(space.dtype)


def _instruction(source: SourceFile, row: int, fallback: str) -> str:
    if source.instructions is not None:
        text, key = source.instructions[row][0], "instructions"
    elif source.task_str is not None:
        text, key = source.task_str[row], "task_str"
    else:
        return fallback
    text = normalise_instruction(text)
    space = instruction_space()
    if not space.contains(text):
        outside = sorted(set(text) - set(space.character_set))
        raise SourceFileError(f"{source.name}: key {key!r} trajectory {row}: instruction {text!r:.120} is "
                              f"not in the instruction space (length {len(text)}, at most "
                              f"{space.max_length}; characters outside the charset: {outside})")
    return text


def _episode(source: SourceFile, row: int, steps: int, actions: np.ndarray, task: Task,
             domain: Domain) -> Episode:
    observations = source.arrays["observations"][row]
    if "next_observations" in source.arrays:  # all L steps: the final state is next_observations[L-1]
        final = source.arrays["next_observations"][row, steps - 1:steps]
        states = np.concatenate([observations[:steps], final])
    else:  # L-1 steps: the final state is o_{L-1}
        states = observations[:steps + 1]
    instruction = _instruction(source, row, task.phrasings[0])
    phrasing_id = task.phrasings.index(instruction) if instruction in task.phrasings else OWN_WORDING
    flags = np.zeros(steps, bool)
    return Episode(
        states=np.ascontiguousarray(states, dtype=domain.state_space.dtype),
        actions=actions[row, :steps],
        rewards=source.arrays["rewards"][row, :steps].astype(np.float32),
        terminations=flags.copy(),
        truncations=flags,
        instruction=instruction,
        task_id=task.id,
        level=source.target.level,
        phrasing_id=phrasing_id,
        seed=row,
        source=source.target.source,
    )


def _check(source: SourceFile, domain: Domain, row: int, episode: Episode, sim: Simulator) -> None:
    """Run the checkers, set the end flag from the predicate, validate like the writer does."""
    annotate(domain, episode, sim)
    reached = bool(episode.infos["success"][-1])
    episode.terminations[-1], episode.truncations[-1] = reached, not reached
    try:
        validate_episode(row, episode, observation_space(domain.state_space), domain.action_space, INFO_KEYS)
    except DatasetValidationError as error:
        raise SourceFileError(f"{source.name}: trajectory {row}: {error}") from error


def convert(source: SourceFile, domain: Domain, sim: Simulator, *, unmatched: str = "error",
            progress: bool = True) -> Conversion:
    """The checked episodes of a source file (``check_source`` has run; see module docstring).

    ``unmatched``: "error" raises on trajectories whose task cannot be resolved (with a
    count and examples) before any is simulated; "skip" drops them and lists them in
    ``Conversion.unresolved``.
    """
    has_next = "next_observations" in source.arrays
    conversion = Conversion([], "next_observations[L-1]" if has_next else
                            "last observation; the last action and reward are dropped (L-1 steps)")
    resolver = TaskResolver(domain, source.target.level)
    actions = _actions(source, domain)
    steps = source.lengths - (0 if has_next else 1)
    conversion.too_short = np.flatnonzero(steps < 1).tolist()
    tasks, reasons = {}, {}
    for row in np.flatnonzero(steps >= 1).tolist():
        resolution = resolver.resolve(None if source.instructions is None else source.instructions[row],
                                      None if source.goals is None else source.goals[row])
        if resolution.task is None:
            conversion.unresolved.append(row)
            reasons[row] = resolution.how
        else:
            tasks[row] = resolution.task
    if conversion.unresolved and unmatched == "error":
        examples = "; ".join(f"trajectory {row} ({_first_text(source, row)!r:.80}): {reasons[row]}"
                             for row in conversion.unresolved[:3])
        raise SourceFileError(
            f"{source.name}: {len(conversion.unresolved)} of {source.rows} trajectories match no "
            f"{domain.name} {source.target.level} task, e.g. {examples}. Pass unmatched='skip' "
            "(--unmatched skip) to drop them; the card records how many were dropped")
    if not tasks:
        raise SourceFileError(
            f"{source.name}: no trajectory can be imported ({source.rows} read, {len(conversion.too_short)} "
            f"left without a step, {len(conversion.unresolved)} unresolved)")
    for row, task in tqdm(tasks.items(), desc=f"check {source.name}", unit="traj", disable=not progress):
        episode = _episode(source, row, int(steps[row]), actions, task, domain)
        _check(source, domain, row, episode, sim)
        conversion.episodes.append(episode)
    return conversion


def _first_text(source: SourceFile, row: int) -> str | None:
    if source.instructions is not None:
        return source.instructions[row][0]
    return None if source.task_str is None else source.task_str[row]
