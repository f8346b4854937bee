"""A grounding seed chosen on the training tasks alone: each checkpoint's goal consistency on
fresh starts of LIBERO's training level (2026-12-05, evening; docs/experiments.md, "LIBERO: a
grounding seed chosen on the training tasks").

The rule, fixed before the run: imagine ``PER_TASK`` prompts of each of the 6 training tasks
(pick an item up, put it in the basket; training phrasings), each from a real reset drawn with
``SEED``, which no recipe and not the evidence uses, as the generator does (prompted afresh
every ``Domain.prompt_steps`` steps, its sub-goals, its decoding); the checkpoint whose
rollouts reach the goal most often wins, a tie keeping the lower grounding seed (the builds'
0). No prompt of a novel level is imagined.

Usage: python experiments/libero_probes/select_seed.py SEED=CHECKPOINT ...

A CHECKPOINT may be several folders joined by commas: they imagine as one
(``imaginebench_data.imagine.ensemble``).
"""

import sys
from pathlib import Path

from imaginebench_data.imagine import numerics

numerics.choose("portable")  # before torch's first operation, as the build does

from imaginebench_data.domains import get_domain  # noqa: E402
from imaginebench_data.imagine.ensemble import load_model  # noqa: E402
from imaginebench_data.imagine.train import SentenceTable  # noqa: E402
from imaginebench_data.pipeline.rollout import episode_start  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grounding_seeds import LevelPrompt, by_task, imagine_level  # noqa: E402

SEED, PER_TASK = 91_000, 20


def training_prompts(domain) -> list[LevelPrompt]:
    """``PER_TASK`` fresh starts of each training task (``episode_start`` cycles the tasks)."""
    sim = domain.simulator()
    count = PER_TASK * len(domain.tasks("train"))
    starts = [episode_start(domain, "train", i, SEED, sim) for i in range(count)]
    return [LevelPrompt(s.task.id, s.instruction, s.state) for s in starts]


def main(runs: list[str]) -> None:
    libero = get_domain("libero")
    prompts = training_prompts(libero)
    scores = {}
    for run in runs:
        seed, path = run.split("=", 1)
        model = load_model(path, "cpu")
        sentences = SentenceTable(model.config.sentence_encoder)
        outcomes = by_task(prompts, imagine_level(model, libero, "train", prompts, sentences))
        scores[int(seed)] = sum(sum(o) for o in outcomes.values())
        print(f"seed {seed} ({Path(path).name}): {scores[int(seed)]} of {len(prompts)} training-level "
              f"rollouts goal consistent; by task { {task: sum(o) for task, o in outcomes.items()} }",
              flush=True)
    best = max(scores.values())
    print(f"chosen: seed {min(s for s, v in scores.items() if v == best)}")


if __name__ == "__main__":
    main(sys.argv[1:])
