"""Recipes of the Meta-World datasets (``make demo DOMAINS=metaworld`` builds them).

- ``metaworld-train-real``: expert rollouts of the 10 training tasks, training phrasings.
- ``metaworld-{rephrase,easy,hard}-real``: the oracle, expert rollouts of each level's tasks
  (rephrase: the 10 training goals with unseen phrasings; easy: 4 wall variants and 4
  opposite skills; hard: make-coffee, locked-door-open, hammer, soccer).
- ``metaworld-{rephrase,easy,hard}-imaginary``: rollouts imagined by a language model grounded
  on ``metaworld-train-real``, sharing their oracle's seed (same task, phrasing and real
  start state per episode).

Demo scale: 20 episodes per task (a few minutes on one core). Paper scale: 1,000 per task
for train-real (the original's 10,000 rollouts) and 200 per task for the other levels.

Run one with ``imaginebench build imaginebench/metaworld-train-real-v0 --scale demo``; all of them with
``python -m imaginebench_data.builders.metaworld [--scale paper]``.
"""

from imaginebench_data.pipeline.recipe import FUSED_ADAM, level_recipes, main

# level: (tasks, seed)
LEVELS = {"train": (10, 5000), "rephrase": (10, 6000), "easy": (8, 7000), "hard": (4, 8000)}
DEMO_PER_TASK = 20
PAPER_PER_TASK = {"train": 1000, "rephrase": 200, "easy": 200, "hard": 200}
DESCRIPTIONS = {
    "train": "the 10 training tasks (training phrasings)",
    "rephrase": "the 10 training tasks with rephrase-only phrasings",
    "easy": "the 8 easy tasks (wall variants and opposite skills)",
    "hard": "the 4 hard tasks (make-coffee, locked-door-open, hammer, soccer)",
}


COUNTS = {level: (tasks, seed, DEMO_PER_TASK, PAPER_PER_TASK[level])
          for level, (tasks, seed) in LEVELS.items()}
RECIPES = level_recipes("metaworld", "Meta-World", COUNTS, DESCRIPTIONS,
                        train_levers={"demo": FUSED_ADAM})

if __name__ == "__main__":
    main(RECIPES)
