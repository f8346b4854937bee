"""The last rung of the resolution ladder: the nearest task by sentence embedding.

Each task of the level is described by its reference texts: our phrasings of it at that
level and the original's documented templates (names without a space, such as Meta-World's
env names, are left out). A trajectory's texts (all of its instruction strings, its
``task_str``, the text its encoding names) are embedded with the default instruction encoder
(``loader.encoders``: all-MiniLM-L6-v2, unit vectors); a text's score for a task is its
largest cosine similarity with the task's references, and the trajectory's score is the mean
over its texts. The best task is accepted only when

    score(best) >= MIN_SIMILARITY   and   score(best) - score(second best) >= MIN_MARGIN

Best and second are chosen among the tasks that no text of the trajectory contradicts
(``Agreement``): a sentence embedding barely tells "forward" from "backward" or a red ball
from a green one, so a text that names a value of a task's slot (colour, object, direction,
item: the domain's ``OriginalLayout.slot_words``) other than the task's own rules the task out.

Both constants were measured with all-MiniLM-L6-v2 (CHANGELOG has the table): over our own
phrasings, each held out from its task's references (BabyAI, HalfCheetah, LIBERO rephrase,
Meta-World train: 596 texts), and over the hand-written paraphrases of the test fixtures
(``tests/paraphrases.py``), one text at a time and in groups of up to 10. Tasks that differ in
one word lie close together (held-out BabyAI phrasings land on a sibling with margins up to
0.054; a HalfCheetah one at similarity 0.708), so the margin and the similarity floor sit
just above the worst wrong answers: at these values none of those texts or groups was
accepted for a wrong task, while 80% of BabyAI paraphrase groups, all HalfCheetah, LIBERO and
Meta-World groups and 90% of single Meta-World sentences were accepted (the rest stay
unresolved, never wrong).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core.task import Task

WORD = re.compile(r"[a-z]+")

MIN_SIMILARITY = 0.72  # mean cosine similarity with the best task's nearest reference text
MIN_MARGIN = 0.06  # over the second-best task that no text contradicts (cosine similarity)
MAX_TEXTS = 40  # texts of one trajectory that are embedded (the original's lists hold 10-40)


@dataclass(frozen=True)
class Nearest:
    """The best and second-best task of one trajectory's texts, with their scores."""

    task: Task
    score: float
    second: Task | None
    second_score: float

    @property
    def margin(self) -> float:
        return self.score - self.second_score

    @property
    def accepted(self) -> bool:
        return self.score >= MIN_SIMILARITY and self.margin >= MIN_MARGIN

    def describe(self) -> str:
        second = "" if self.second is None else f", then {self.second.id} {self.second_score:.3f}"
        return (
            f"nearest task by embedding {self.task.id} {self.score:.3f}{second} (accepted at >= "
            f"{MIN_SIMILARITY} with a margin >= {MIN_MARGIN})"
        )


class Agreement:
    """Whether a text contradicts a task: it names a value of one of the task's slots that the task
    does not have (``slot_words``: slot -> value -> words; ``task_slots(task)``: slot -> values)."""

    def __init__(
        self,
        slot_words: dict[str, dict[str, tuple[str, ...]]] | None,
        task_slots: Callable[[Task], dict[str, frozenset[str]]] | None,
    ) -> None:
        self.words = {
            slot: {word: value for value, words in values.items() for word in words}
            for slot, values in (slot_words or {}).items()
        }
        self.task_slots = task_slots

    def named(self, text: str) -> dict[str, set[str]]:
        """slot -> the values ``text`` names."""
        tokens = set(WORD.findall(text.lower().replace("_", " ")))
        return {slot: {words[t] for t in tokens if t in words} for slot, words in self.words.items()}

    def contradicts(self, task: Task, named: dict[str, set[str]]) -> bool:
        if self.task_slots is None:
            return False
        return any(named.get(slot, set()) - values for slot, values in self.task_slots(task).items())


class SemanticMatcher:
    """Nearest tasks of texts for one level's tasks, with ``encoder`` (see ``loader.encoders``)."""

    def __init__(
        self,
        tasks: list[Task],
        references: dict[str, tuple[str, ...]],
        encoder,
        agreement: Agreement | None = None,
    ) -> None:
        self.tasks = tasks
        self.encoder = encoder
        self.agreement = agreement or Agreement(None, None)
        texts = [
            (i, text)
            for i, task in enumerate(tasks)
            for text in dict.fromkeys(references[task.id])
            if " " in text.strip()
        ]
        self.owner = np.array([i for i, _ in texts])
        self.references = encoder.encode([text for _, text in texts])  # (R, dim) unit vectors

    def scores(self, texts: list[str]) -> np.ndarray:
        """(len(texts), n_tasks): each text's largest cosine similarity with each task's references."""
        similarity = self.encoder.encode(texts) @ self.references.T  # (n, R)
        best = np.full((len(texts), len(self.tasks)), -1.0)
        for i in range(len(self.tasks)):
            columns = self.owner == i
            if columns.any():
                best[:, i] = similarity[:, columns].max(axis=1)
        return best

    def nearest(self, groups: list[list[str]]) -> list[Nearest | None]:
        """The nearest tasks of each group of texts (one group per trajectory) that none of its texts
        contradicts; None for an empty group or one that contradicts every task."""
        unique = list(dict.fromkeys(text for group in groups for text in group[:MAX_TEXTS]))
        table = dict(zip(unique, self.scores(unique))) if unique else {}
        found: list[Nearest | None] = []
        for group in groups:
            if not group:
                found.append(None)
                continue
            mean = np.mean([table[text] for text in group[:MAX_TEXTS]], axis=0)
            named = [self.agreement.named(text) for text in group[:MAX_TEXTS]]
            ruled_out = [
                i
                for i, task in enumerate(self.tasks)
                if any(self.agreement.contradicts(task, n) for n in named)
            ]
            mean[ruled_out] = -np.inf
            order = [i for i in np.argsort(-mean, kind="stable") if np.isfinite(mean[i])]
            if not order:
                found.append(None)
                continue
            second = int(order[1]) if len(order) > 1 else None
            found.append(
                Nearest(
                    self.tasks[int(order[0])],
                    float(mean[order[0]]),
                    None if second is None else self.tasks[second],
                    -1.0 if second is None else float(mean[second]),
                )
            )
        return found
