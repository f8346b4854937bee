"""The last rung of the resolution ladder: the nearest task by sentence embedding.

Each task of the level is described by its reference texts: our phrasings of it at that
level and the original's documented templates (names without a space, such as Meta-World's
env names, are left out). A trajectory's texts (all of its instruction strings, its
``task_str``, the text its encoding names) are embedded with the default instruction encoder
(``loader.encoders``: all-MiniLM-L6-v2, unit vectors); a text's score for a task is its
largest cosine similarity with the task's references, and the trajectory's score is the mean
over its texts. The best task is accepted only when

    score(best) >= MIN_SIMILARITY   and   score(best) - score(second best) >= MIN_MARGIN

Both constants were measured (tests/test_import_ladder.py, CHANGELOG): over our own
phrasings, each held out from its task's references, and over the hand-written paraphrases
of the test fixtures. Tasks that differ in one word (BabyAI's colours, CLEVR's balls) lie
close together, so the margin is what keeps a paraphrase from landing on a sibling task:
at these values no text of either set was accepted for a wrong task.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.task import Task

MIN_SIMILARITY = 0.70  # mean cosine similarity with the best task's nearest reference text
MIN_MARGIN = 0.04  # over the second-best task (cosine similarity)
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
        return (f"nearest task by embedding {self.task.id} {self.score:.3f}{second} (accepted at >= "
                f"{MIN_SIMILARITY} with a margin >= {MIN_MARGIN})")


class SemanticMatcher:
    """Nearest tasks of texts for one level's tasks, with ``encoder`` (see ``loader.encoders``)."""

    def __init__(self, tasks: list[Task], references: dict[str, tuple[str, ...]], encoder) -> None:
        self.tasks = tasks
        self.encoder = encoder
        texts = [(i, text) for i, task in enumerate(tasks) for text in dict.fromkeys(references[task.id])
                 if " " in text.strip()]
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
        """The nearest tasks of each group of texts (one group per trajectory; None for an empty one)."""
        unique = list(dict.fromkeys(text for group in groups for text in group[:MAX_TEXTS]))
        table = dict(zip(unique, self.scores(unique))) if unique else {}
        found: list[Nearest | None] = []
        for group in groups:
            if not group:
                found.append(None)
                continue
            mean = np.mean([table[text] for text in group[:MAX_TEXTS]], axis=0)
            order = np.argsort(-mean, kind="stable")
            second = int(order[1]) if len(order) > 1 else None
            found.append(Nearest(self.tasks[int(order[0])], float(mean[order[0]]),
                                 None if second is None else self.tasks[second],
                                 -1.0 if second is None else float(mean[second])))
        return found
