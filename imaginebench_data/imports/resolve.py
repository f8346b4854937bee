"""Which of our tasks an original trajectory is: a ladder of rungs, tried in order.

1. ``goal``: the goal vector, where the file carries one (CLEVR's side file), decoded by the
   domain's ``OriginalLayout.goal_key`` and matched with ``task_key`` of the level's tasks.
2. ``phrasing``: one of the trajectory's texts (its ``task_str`` and instruction strings)
   is one of our phrasings of a level task, compared as ``texts.match_key`` (case, white space
   and trailing punctuation aside).
3. ``template``: one of its texts is one of the original's documented instruction texts
   of a task (the domain's ``OriginalLayout.templates``), compared the same way.
4. ``encoding+phrasing`` / ``encoding+template``: the text that its stored 768-number
   instruction encoding names in the original's encoding files (``encodings``, given with
   ``--encodings``), matched as in 2 and 3.
5. ``embedding`` (``encoding+embedding`` when the only text is the encoding's): the nearest
   task by sentence embedding, accepted above a similarity and a margin (``semantic``).

Before the embedding rung, a trajectory none of whose texts is the level's but one of which is
another level's phrasing or template, of a goal the level does not have, stays unresolved: its
file is of that level, as the original's MuJoCo rephrase file named ``..._imaginary_easy`` is.
The embedding rung looks among the level's tasks alone, so it took "Run forward." in an easy
file for run-forward-fast (similarity 0.844, its only task left once "forward" ruled out the
other) and "Run backward." in a hard file for backward-then-forward (0.802 against 0.725;
found 2026-12-08).

A rung decides only when all the texts it matches point to one task; texts matching several
tasks leave the trajectory unresolved (with the reason), as does a ladder no rung climbs.
What happens to unresolved trajectories is the importer's ``unmatched`` rule.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from ..core.domain import Domain
from ..core.task import LEVELS, UNRESOLVED, Task
from .semantic import Agreement, SemanticMatcher
from .texts import match_key

GOAL, PHRASING, TEMPLATE, EMBEDDING = "goal", "phrasing", "template", "embedding"
ENCODING = "encoding+"  # prefix of a rung that read the text the stored encoding names
RUNGS = (
    GOAL,
    PHRASING,
    TEMPLATE,
    ENCODING + PHRASING,
    ENCODING + TEMPLATE,
    EMBEDDING,
    ENCODING + EMBEDDING,
)  # in the order they are tried


@dataclass(frozen=True)
class Clues:
    """What a trajectory says about its task: ``texts`` (its ``task_str``, then its instruction
    strings), ``goal`` (a goal vector) and ``encoded`` (the key its encoding names: a text, or a
    task name in Meta-World's encoding file), each where the file has it."""

    texts: tuple[str, ...] = ()
    goal: np.ndarray | None = None
    encoded: str | None = None


@dataclass(frozen=True)
class Resolution:
    """``task`` is None when unresolved; ``how`` is the rung that resolved it (one of ``RUNGS``)
    or why none did."""

    task: Task | None
    how: str

    @property
    def rung(self) -> str:
        """The rung, or ``UNRESOLVED``: what the card counts."""
        return self.how if self.task is not None else UNRESOLVED


class TaskResolver:
    """Resolves trajectories of one file (one domain and level) to the level's tasks.

    ``encoder``: the sentence encoder of the embedding rung (``loader.encoders.get_encoder``
    spec; None leaves the rung out). It is loaded only when a trajectory reaches the rung.
    """

    def __init__(self, domain: Domain, level: str, encoder: object = "minilm") -> None:
        self.level = level
        tasks = domain.tasks(level)
        self.tasks = {task.id: task for task in tasks}
        layout = domain.original

        def references(task: Task) -> tuple[str, ...]:
            return task.phrasings + (layout.templates(task) if layout.templates else ())

        self.references = {task.id: references(task) for task in tasks}
        self.by_text: dict[str, dict[str, set[str]]] = {
            PHRASING: defaultdict(set),
            TEMPLATE: defaultdict(set),
        }
        for task in tasks:
            for text in task.phrasings:
                self.by_text[PHRASING][match_key(text)].add(task.id)
            for text in self.references[task.id][len(task.phrasings) :]:
                self.by_text[TEMPLATE][match_key(text)].add(task.id)
        self.goal_key = layout.goal_key
        self.by_goal = (
            {layout.task_key(task): task for task in tasks}
            if layout.goal_key is not None and layout.task_key is not None
            else None
        )
        # the other levels' texts of goals this level lacks (a rephrase task's training twin is
        # the level's own goal): a trajectory that says one of them is of that level, not this one
        self.elsewhere: dict[str, set[tuple[str, str]]] = defaultdict(set)
        for other in LEVELS:
            for task in domain.tasks(other) if other != level else ():
                if task.id not in self.tasks:
                    for text in references(task):
                        self.elsewhere[match_key(text)].add((other, task.id))
        self.agreement = Agreement(layout.slot_words, layout.task_slots)
        self.encoder_spec = encoder
        self._matcher: SemanticMatcher | None = None

    def resolve(self, instructions: list[str] | None, goal: np.ndarray | None = None) -> Resolution:
        """One trajectory's task from its instruction strings and goal vector."""
        return self.resolve_all([Clues(tuple(instructions or ()), goal)])[0]

    def resolve_all(self, clues: list[Clues]) -> list[Resolution]:
        """Each trajectory's task; the embedding rung runs once over all that reach it."""
        found: list[Resolution | None] = []
        reasons: dict[int, str] = {}
        for row, clue in enumerate(clues):
            resolution, reason = self._exact(clue)
            found.append(resolution)
            reasons[row] = reason
        pending = [row for row, r in enumerate(found) if r is None and self._embedding_texts(clues[row])]
        if pending and self.encoder_spec is not None:
            nearest = self.matcher().nearest([self._embedding_texts(clues[row]) for row in pending])
            for row, match in zip(pending, nearest):
                rung = EMBEDDING if clues[row].texts else ENCODING + EMBEDDING
                if match is not None and match.accepted:
                    found[row] = Resolution(match.task, rung)
                elif match is not None:
                    reasons[row] += f"; {match.describe()}"
                else:
                    reasons[row] += "; its texts name words of every task's rivals (no task agrees)"
        return [r if r is not None else Resolution(None, reasons[row]) for row, r in enumerate(found)]

    def matcher(self) -> SemanticMatcher:
        if self._matcher is None:
            from ..loader.encoders import get_encoder

            try:
                encoder = get_encoder(self.encoder_spec)
            except ImportError as error:
                raise ValueError(
                    f"the importer's embedding rung needs a sentence encoder: {error}; or pass "
                    "encoder=None (--encoder none) to leave the rung out"
                ) from error
            self._matcher = SemanticMatcher(
                list(self.tasks.values()), self.references, encoder, self.agreement
            )
        return self._matcher

    def _exact(self, clue: Clues) -> tuple[Resolution | None, str]:
        """The first exact rung that resolves ``clue``, else None and why not."""
        notes = []
        if clue.goal is not None and self.by_goal is not None:
            key = self.goal_key(self.level, clue.goal)
            if key in self.by_goal:
                return Resolution(self.by_goal[key], GOAL), ""
            notes.append(f"goal {np.asarray(clue.goal).tolist()} matches no task")
        sources = [("", clue.texts)] + ([(ENCODING, (clue.encoded,))] if clue.encoded is not None else [])
        for prefix, texts in sources:
            for rung in (PHRASING, TEMPLATE):
                matched = set().union(*(self.by_text[rung].get(match_key(t), set()) for t in texts))
                if len(matched) == 1:
                    return Resolution(self.tasks[matched.pop()], prefix + rung), ""
                if matched:
                    return Resolution(
                        None, f"texts match several tasks ({prefix + rung}): {sorted(matched)}"
                    ), ""
        for text in (text for _, texts in sources for text in texts):
            if owners := self.elsewhere.get(match_key(text)):  # the earliest level's, then the first id
                level, task = min(owners, key=lambda at: (LEVELS.index(at[0]), at))
                return Resolution(None, f"{text!r} is the {level} level's (task {task}), not the "
                                        f"{self.level} level's: is the file's level right?"), ""
        if not clue.texts and clue.encoded is None:
            notes.append("no instruction text (and no encoding found in the encoding files)")
        else:
            notes.append(f"no text is one of our {self.level} phrasings or the original's templates")
        return None, "; ".join(notes)

    @staticmethod
    def _embedding_texts(clue: Clues) -> list[str]:
        encoded = [clue.encoded] if clue.encoded is not None and " " in clue.encoded.strip() else []
        return list(clue.texts) + encoded if clue.texts else encoded
