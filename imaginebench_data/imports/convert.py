"""Original trajectories to our ``Episode``s: cut, aligned, resolved, checked.

Trajectory i of a file has ``L = masks[i].sum()`` valid steps: observations o_0..o_{L-1}
and actions a_0..a_{L-1}, where o_t is the state in which a_t was taken. The original
keeps no state after the last action (its replay buffers end on an all-zero next
observation), so:

- with ``next_observations``: states are o_0..o_{L-1} followed by ``next_observations[L-1]``,
  and the episode has all L steps;
- without: states are o_0..o_{L-1} and the last action (and its reward) is dropped: the
  episode has L-1 steps. A trajectory of one step (L = 1: o_0 and a_0, as every trajectory
  of CLEVR's one-push easy level) would keep nothing; where the domain's dataset state is its
  whole simulator state (``WholeStateSimulator``: CLEVR, BabyAI), its final state is derived
  by stepping the simulator from o_0 with a_0, and the episode keeps its one step (counted in
  ``Conversion.simulated`` and stated in the card's ``final_state``; its transition then
  agrees with our simulator by construction). Other trajectories left with no step (L < 2,
  or L = 1 without a finite o_0 or in another domain) are dropped and counted.

States are read in the original's layout (the domain's ``original.state_dim`` numbers); where
the domain declares ``original.to_states``, each trajectory's cut ``(T+1, state_dim)`` states
are turned into the dataset's ``(T+1, D)`` layout by it before anything checks them.

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
from ..core.simulator import WholeStateSimulator
from ..core.task import Task
from ..core.text import instruction_space, observation_space
from ..datasets.validate import DatasetValidationError, validate_episode
from ..quality.checkers import INFO_KEYS, annotate
from .original import OriginalFile, OriginalFileError, one_line
from .resolve import TaskResolver

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
    simulated: list[int] = field(default_factory=list)  # one-step rows whose final state was simulated


def normalise_instruction(text: str) -> str:
    """Typographic quotes and dashes to ASCII, runs of white space to one space, trimmed."""
    return " ".join(text.translate(TYPOGRAPHY).split())


def _actions(original: OriginalFile, domain: Domain) -> np.ndarray:
    """The file's actions in the domain's action space dtype and shape; a clear error otherwise."""
    space, actions = domain.action_space, original.arrays["actions"]
    valid = np.arange(actions.shape[1]) < original.lengths[:, None]
    shape = space.shape or ()
    if actions.ndim == 3 and shape == () and actions.shape[2] == 1:
        actions = actions[:, :, 0]
    if actions.shape[2:] != shape:
        raise OriginalFileError(f"{original.name}: key 'actions' has shape {actions.shape}; expected "
                                f"{actions.shape[:2] + shape} for {domain.name}'s {space}")
    if shape == ():
        ok = (np.rint(actions) == actions) & (actions >= 0) & (actions < space.n)
    else:
        ok = ((actions >= space.low) & (actions <= space.high)).reshape(*actions.shape[:2], -1).all(axis=-1)
    bad = valid & ~ok
    if bad.any():
        row, step = (int(i) for i in np.argwhere(bad)[0])
        raise OriginalFileError(f"{original.name}: key 'actions' trajectory {row} step {step} is "
                                f"{actions[row, step].tolist()}, not in {space} "
                                f"({int(bad.sum())} such steps)")
    return actions.astype(space.dtype)


def _instruction(original: OriginalFile, row: int, fallback: str) -> str:
    if original.instructions is not None:
        text, key = original.instructions[row][0], "instructions"
    elif original.task_str is not None:
        text, key = original.task_str[row], "task_str"
    else:
        return fallback
    text = normalise_instruction(text)
    space = instruction_space()
    if not space.contains(text):
        outside = sorted(set(text) - set(space.character_set))
        raise OriginalFileError(f"{original.name}: key {key!r} trajectory {row}: instruction "
                                f"{text!r:.120} is not in the instruction space (length {len(text)}, at "
                                f"most {space.max_length}; characters outside the charset: {outside})")
    return text


def _states(original: OriginalFile, row: int, steps: int, domain: Domain, sim: Simulator,
            action: object = None) -> np.ndarray:
    """The trajectory's ``steps + 1`` states, cut (see module docstring), in the dataset's layout;
    given ``action`` (a one-step trajectory), o_0 and the state ``sim`` steps to from it with it."""
    observations = original.arrays["observations"][row]
    if "next_observations" in original.arrays:  # all L steps: the final state is next_observations[L-1]
        final = original.arrays["next_observations"][row, steps - 1:steps]
        states = np.concatenate([observations[:steps], final])
    else:  # L-1 steps: the final state is o_{L-1} (o_0 alone for a simulated one-step trajectory)
        states = observations[:steps + (action is None)]
    to_states = domain.original.to_states
    if to_states is not None:
        try:
            states = np.asarray(to_states(states))
        except ValueError as error:
            raise OriginalFileError(f"{original.name}: trajectory {row}: {domain.name}'s conversion from the "
                                    f"original's state layout failed ({one_line(error)})") from error
    if action is not None:
        try:
            final = np.asarray(sim.step_from(np.asarray(states[-1], domain.state_space.dtype), action))
        except ValueError as error:
            raise OriginalFileError(f"{original.name}: trajectory {row}: {domain.name}'s simulator could not "
                                    f"step from o_0 with a_0 = {action} ({one_line(error)})") from error
        states = np.concatenate([states, final[None].astype(states.dtype)])
    if states.shape != (steps + 1, *domain.state_space.shape):
        raise OriginalFileError(
            f"{original.name}: trajectory {row}: states of shape {states.shape} in {domain.name}'s dataset "
            f"layout; expected {(steps + 1, *domain.state_space.shape)} (the domain's original.state_dim "
            f"{domain.original.state_dim} and original.to_states disagree with its state space)")
    return np.ascontiguousarray(states, dtype=domain.state_space.dtype)


def _episode(original: OriginalFile, row: int, steps: int, actions: np.ndarray, task: Task,
             domain: Domain, sim: Simulator, simulate: bool) -> Episode:
    states = _states(original, row, steps, domain, sim, actions[row, 0] if simulate else None)
    instruction = _instruction(original, row, task.phrasings[0])
    phrasing_id = task.phrasings.index(instruction) if instruction in task.phrasings else OWN_WORDING
    flags = np.zeros(steps, bool)
    return Episode(
        states=states,
        actions=actions[row, :steps],
        rewards=original.arrays["rewards"][row, :steps].astype(np.float32),
        terminations=flags.copy(),
        truncations=flags,
        instruction=instruction,
        task_id=task.id,
        level=original.target.level,
        phrasing_id=phrasing_id,
        seed=row,
        source=original.target.source,
    )


def _check(original: OriginalFile, domain: Domain, row: int, episode: Episode, sim: Simulator) -> None:
    """Run the checkers, set the end flag from the predicate, validate like the writer does."""
    annotate(domain, episode, sim)
    reached = bool(episode.infos["success"][-1])
    episode.terminations[-1], episode.truncations[-1] = reached, not reached
    try:
        validate_episode(row, episode, observation_space(domain.state_space), domain.action_space, INFO_KEYS)
    except DatasetValidationError as error:
        raise OriginalFileError(f"{original.name}: trajectory {row}: {error}") from error


def convert(original: OriginalFile, domain: Domain, sim: Simulator, *, unmatched: str = "error",
            progress: bool = True) -> Conversion:
    """The checked episodes of an original file (``check_original`` has run; see module docstring).

    ``unmatched``: "error" raises on trajectories whose task cannot be resolved (with a
    count and examples) before any is simulated; "skip" drops them and lists them in
    ``Conversion.unresolved``.
    """
    has_next = "next_observations" in original.arrays
    conversion = Conversion([], "next_observations[L-1]")
    resolver = TaskResolver(domain, original.target.level)
    actions = _actions(original, domain)
    steps = original.lengths - (0 if has_next else 1)
    if not has_next:
        conversion.simulated = _simulable(original, sim)
        steps[conversion.simulated] = 1
    conversion.too_short = np.flatnonzero(steps < 1).tolist()
    tasks, reasons = {}, {}
    for row in np.flatnonzero(steps >= 1).tolist():
        resolution = resolver.resolve(None if original.instructions is None else original.instructions[row],
                                      None if original.goals is None else original.goals[row])
        if resolution.task is None:
            conversion.unresolved.append(row)
            reasons[row] = resolution.how
        else:
            tasks[row] = resolution.task
    if conversion.unresolved and unmatched == "error":
        examples = "; ".join(f"trajectory {row} ({_first_text(original, row)!r:.80}): {reasons[row]}"
                             for row in conversion.unresolved[:3])
        raise OriginalFileError(
            f"{original.name}: {len(conversion.unresolved)} of {original.rows} trajectories match no "
            f"{domain.name} {original.target.level} task, e.g. {examples}. Pass unmatched='skip' "
            "(--unmatched skip) to drop them; the card records how many were dropped")
    if not tasks:
        raise OriginalFileError(
            f"{original.name}: no trajectory can be imported ({original.rows} read, "
            f"{len(conversion.too_short)} left without a step, {len(conversion.unresolved)} unresolved)")
    simulated = set(conversion.simulated)
    conversion.simulated = [row for row in conversion.simulated if row in tasks]
    if not has_next:
        conversion.final_state = final_state_note(domain, len(conversion.simulated), original.rows)
    for row, task in tqdm(tasks.items(), desc=f"check {original.name}", unit="traj", disable=not progress):
        episode = _episode(original, row, int(steps[row]), actions, task, domain, sim, row in simulated)
        _check(original, domain, row, episode, sim)
        conversion.episodes.append(episode)
    return conversion


def _simulable(original: OriginalFile, sim: Simulator) -> list[int]:
    """Rows of one step (L = 1) whose final state ``sim`` can derive: a whole-state simulator, o_0 finite."""
    if not isinstance(sim, WholeStateSimulator):
        return []
    rows = np.flatnonzero(original.lengths == 1)
    if not len(rows):
        return []
    finite = np.isfinite(original.arrays["observations"][rows, 0]).reshape(len(rows), -1).all(axis=1)
    return rows[finite].tolist()


def final_state_note(domain: Domain, simulated: int, rows: int) -> str:
    """The card's ``final_state`` of a file without next_observations (see module docstring)."""
    note = "last observation; the last action and reward are dropped (L-1 steps)"
    if simulated:
        note += (f"; {simulated} of {rows} trajectories have one step (L = 1): their final state was "
                 f"simulated by {domain.name}'s simulator from o_0 with a_0 (their one step is kept)")
    return note


def _first_text(original: OriginalFile, row: int) -> str | None:
    if original.instructions is not None:
        return original.instructions[row][0]
    return None if original.task_str is None else original.task_str[row]
