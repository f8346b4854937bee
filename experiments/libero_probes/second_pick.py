"""LIBERO's hard sequential tasks imagined one sub-goal at a time: where the second pick fails.

Imagines the first PROMPTS (default 12) hard sequential prompts of the committed card as the
generator does (prompted afresh every ``Domain.prompt_steps`` steps, one training task at a
time: ``tasks.subgoals``) and prints, per rollout, each segment's sub-goal and the grip site's
sideways distance (m) to that sub-goal's item where the segment starts, and whether at any
step the first item was in the basket, the second held (picked) and in the basket. With ``home``, a pick
segment that starts with another item in the basket starts instead with the arm's 16 numbers
(joints, grip site, hand, fingers) of the rollout's own first state, the home pose: whether
the model picks the second item up when only the basket's content differs from the scenes it
was grounded on.

Usage: python experiments/libero_probes/second_pick.py CHECKPOINT [plain|home] [PROMPTS]
"""

import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

from imaginebench_data.imagine import numerics

numerics.choose("portable")  # before torch's first operation, as the build does

import numpy as np  # noqa: E402

from imaginebench_data.domains import get_domain  # noqa: E402
from imaginebench_data.domains.libero.layout import OBJECTS, position  # noqa: E402
from imaginebench_data.imagine import prompting  # noqa: E402
from imaginebench_data.imagine.checkpoint import load_checkpoint  # noqa: E402
from imaginebench_data.imagine.train import SentenceTable  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grounding_seeds import by_task, imagine_level, level_prompts  # noqa: E402

ARM = slice(0, 16)
LIBERO = get_domain("libero")
PLACED = {item: LIBERO.task("train", f"place-{item}") for item in OBJECTS}
PICKED = {item: LIBERO.task("train", f"pick-{item}") for item in OBJECTS}


def placed(state: np.ndarray, besides: str) -> bool:
    return any(prompting.holds(task, state) for item, task in PLACED.items() if item != besides)


def main() -> None:
    model = load_checkpoint(sys.argv[1], "cpu")
    way = sys.argv[2] if len(sys.argv) > 2 else "plain"
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 12
    segments: dict[int, list[str]] = {}
    segment = prompting._Progress.segment

    def logged(progress, steps):
        prompt = segment(progress, steps)
        item = prompt.task.goal["items"][0]
        if way == "home" and prompt.task.kind == "pick" and placed(prompt.start, item):
            start = prompt.start.copy()
            start[ARM] = progress.prompt.start[ARM]
            progress.states[-1] = np.concatenate([progress.states[-1][:-1], start[None]])
            prompt = replace(prompt, start=start)
        apart = np.linalg.norm(position(prompt.start, "eef")[:2] - position(prompt.start, item)[:2])
        segments.setdefault(progress.index, []).append(f"{prompt.task.id}@{apart:.2f}")
        return prompt

    prompting._Progress.segment = logged
    tasks = {task.id: task for task in LIBERO.tasks("hard")}
    prompts = [p for p in level_prompts("libero", "hard") if tasks[p.task].kind == "sequential"][:count]
    sentences = SentenceTable(model.config.sentence_encoder)
    rollouts = imagine_level(model, LIBERO, "hard", prompts, sentences)
    outcomes = by_task(prompts, rollouts)
    print(f"{way}: {sum(sum(o) for o in outcomes.values())} of {len(prompts)} goal consistent")
    reached = Counter()
    for index, prompt in enumerate(prompts):
        first, second = tasks[prompt.task].goal["items"]
        states = rollouts[index].states
        stages = {"first placed": ever(PLACED[first], states), "second picked": ever(PICKED[second], states),
                  "second placed": ever(PLACED[second], states)}
        reached.update(name for name, hit in stages.items() if hit)
        hits = ", ".join(name for name, hit in stages.items() if hit) or "none"
        trace = " ".join(segments[index][:8])
        print(f"{prompt.task}: {len(rollouts[index].actions)} steps; {hits}; segments {trace}")
    print(f"rollouts where at some step: {dict(reached)}")


def ever(task, states: np.ndarray) -> bool:
    """Whether ``task``'s goal holds in any of ``states``."""
    return any(prompting.holds(task, state) for state in states)


if __name__ == "__main__":
    main()
