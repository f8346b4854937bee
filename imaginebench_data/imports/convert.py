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
its ``task_str``; where it carries neither, the text its encoding names in the encoding
files (if a sentence), else the resolved task's first phrasing of ours, else
``UNKNOWN_INSTRUCTION``. ``phrasing_id`` is the instruction's index among our phrasings of
the task, or -1 when it is the original's own wording. ``seed`` is the trajectory's row
index in the file.

Each trajectory's task comes from the resolution ladder (``resolve``); the episode records
the rung in its metadata (``resolved_by``). Trajectories no rung resolves follow
``unmatched``: "keep" (the default) keeps them with task id ``unresolved`` and their own
text (no predicate: never terminated, left out of goal consistency), "skip" drops them,
"error" refuses the file. Either way ``Conversion.resolution`` counts them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from ..core.domain import Domain, Simulator
from ..core.episode import Episode
from ..core.simulator import WholeStateSimulator
from ..core.task import UNRESOLVED, Task
from ..core.text import instruction_space, observation_space
from ..datasets.validate import DatasetValidationError, validate_episode
from ..quality.checkers import INFO_KEYS, annotate
from .encodings import EncodingTable
from .original import OriginalFile, OriginalFileError, one_line
from .resolve import RUNGS, Clues, Resolution, TaskResolver
from .texts import normalise_instruction

UNMATCHED_RULES = ("keep", "skip", "error")
OWN_WORDING = -1  # phrasing_id of an instruction that is not one of our phrasings
UNKNOWN_INSTRUCTION = "(instruction unknown)"  # an unresolved trajectory that carries no readable text


@dataclass
class Conversion:
    """The episodes of one file, what was dropped or left unresolved (trajectory row indices), and
    ``resolution``: trajectories (with at least one step) per rung, ``unresolved`` included."""

    episodes: list[Episode]
    final_state: str
    too_short: list[int] = field(default_factory=list)
    unresolved: list[int] = field(default_factory=list)  # kept (as task "unresolved") or dropped
    unresolved_kept: bool = True
    simulated: list[int] = field(default_factory=list)  # one-step rows whose final state was simulated
    resolution: dict[str, int] = field(default_factory=dict)


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
    """The trajectory's own text (see module docstring), else ``fallback``."""
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


def _fallback(task: Task | None, encoded: str | None) -> str:
    """The instruction of a trajectory that carries no text of its own."""
    if encoded is not None and " " in encoded.strip():
        text = normalise_instruction(encoded)
        if instruction_space().contains(text):
            return text
    return UNKNOWN_INSTRUCTION if task is None else task.phrasings[0]


def _episode(original: OriginalFile, row: int, steps: int, actions: np.ndarray, resolution: Resolution,
             encoded: str | None, domain: Domain, sim: Simulator, simulate: bool) -> Episode:
    task = resolution.task
    states = _states(original, row, steps, domain, sim, actions[row, 0] if simulate else None)
    instruction = _instruction(original, row, _fallback(task, encoded))
    phrasing_id = task.phrasings.index(instruction) if task and instruction in task.phrasings else OWN_WORDING
    flags = np.zeros(steps, bool)
    return Episode(
        states=states,
        actions=actions[row, :steps],
        rewards=original.arrays["rewards"][row, :steps].astype(np.float32),
        terminations=flags.copy(),
        truncations=flags,
        instruction=instruction,
        task_id=UNRESOLVED if task is None else task.id,
        level=original.target.level,
        phrasing_id=phrasing_id,
        seed=row,
        source=original.target.source,
        resolved_by=resolution.rung,
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


def convert(original: OriginalFile, domain: Domain, sim: Simulator, *, unmatched: str = "keep",
            encodings: EncodingTable | None = None, encoder: object = "minilm",
            progress: bool = True) -> Conversion:
    """The checked episodes of an original file (``check_original`` has run; see module docstring).

    ``unmatched``: "keep", "skip" or "error" (see module docstring; "error" raises with a count
    and examples before any trajectory is simulated). ``encodings``: the original's encoding
    files, for trajectories that carry only an encoding; ``encoder``: the embedding rung's
    sentence encoder (None leaves the rung out).
    """
    has_next = "next_observations" in original.arrays
    conversion = Conversion([], "next_observations[L-1]", unresolved_kept=unmatched == "keep")
    actions = _actions(original, domain)
    steps = original.lengths - (0 if has_next else 1)
    if not has_next:
        conversion.simulated = _simulable(original, sim)
        steps[conversion.simulated] = 1
    conversion.too_short = np.flatnonzero(steps < 1).tolist()
    rows = np.flatnonzero(steps >= 1).tolist()
    encoded = _encoded(original, encodings)
    goals = original.goals or [None] * original.rows
    clues = [Clues(_texts(original, row), goals[row], encoded[row]) for row in rows]
    resolutions = dict(zip(rows, TaskResolver(domain, original.target.level, encoder).resolve_all(clues)))
    conversion.unresolved = [row for row in rows if resolutions[row].task is None]
    counts = {rung: sum(r.rung == rung for r in resolutions.values()) for rung in (*RUNGS, UNRESOLVED)}
    conversion.resolution = {rung: count for rung, count in counts.items() if count}
    if conversion.unresolved and unmatched == "error":
        examples = "; ".join(f"trajectory {row} ({_first_text(original, row)!r:.80}): {resolutions[row].how}"
                             for row in conversion.unresolved[:3])
        raise OriginalFileError(
            f"{original.name}: {len(conversion.unresolved)} of {original.rows} trajectories match no "
            f"{domain.name} {original.target.level} task, e.g. {examples}. Pass unmatched='keep' "
            "(--unmatched keep) to keep them as task 'unresolved', or 'skip' to drop them; the card "
            "counts them")
    kept = [row for row in rows if unmatched == "keep" or resolutions[row].task is not None]
    if not kept:
        raise OriginalFileError(
            f"{original.name}: no trajectory can be imported ({original.rows} read, "
            f"{len(conversion.too_short)} left without a step, {len(conversion.unresolved)} unresolved "
            "and dropped)")
    simulated = set(conversion.simulated)
    conversion.simulated = [row for row in conversion.simulated if row in set(kept)]
    if not has_next:
        conversion.final_state = final_state_note(domain, len(conversion.simulated), original.rows)
    for row in tqdm(kept, desc=f"check {original.name}", unit="traj", disable=not progress):
        episode = _episode(original, row, int(steps[row]), actions, resolutions[row], encoded[row], domain,
                           sim, row in simulated)
        _check(original, domain, row, episode, sim)
        conversion.episodes.append(episode)
    return conversion


def _texts(original: OriginalFile, row: int) -> tuple[str, ...]:
    """The trajectory's texts the ladder reads: its ``task_str``, then its instruction strings."""
    task_str = () if original.task_str is None else (original.task_str[row],)
    return task_str + tuple(original.instructions[row] if original.instructions is not None else ())


def _encoded(original: OriginalFile, encodings: EncodingTable | None) -> list[str | None]:
    """Per row of the file, the key its first encoding names in ``encodings`` (or None)."""
    if original.encodings is None or encodings is None or not len(encodings):
        return [None] * original.rows
    return encodings.lookup(original.encodings)


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
