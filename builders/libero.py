"""Recipes of the LIBERO datasets (``make demo DOMAINS=libero`` builds them).

- ``libero-train-real``: expert rollouts of the 6 training tasks (pick and place of the
  alphabet soup, cream cheese and salad dressing), training phrasings.
- ``libero-{rephrase,easy,hard}-real``: the oracle: expert rollouts of each level's tasks
  (rephrase: the 6 training goals with unseen phrasings; easy: 12 tasks, pick-and-place,
  place next to another item, reach; hard: 13 tasks, sequential, aside, all, out of the
  basket).
- ``libero-{rephrase,easy,hard}-imaginary``: rollouts imagined by a language model grounded
  on ``libero-train-real``, sharing their oracle's seed (same task, phrasing and real start
  state per episode).

LIBERO steps at about 100 actions per second on one core and every real transition is
re-simulated once by the checkers, so sizes are small. Demo scale: 30 episodes per training
task (180), 8 per rephrase and easy task (48, 96), 5 per hard task (65); the four real sets
build in 6.3 minutes with two workers on this 2-core machine. Paper scale: the original's
LIBERO files do not state their size; 1,000 per training task (6,000) and 200 per task for the
other levels (12,200 real episodes, about 3.5 hours with two workers at the measured
per-episode rates; each imagined set adds one re-simulation per imagined transition).

Build one with ``imaginebench build imaginebench/libero-train-real-v0`` (two worker processes
by default), all seven with ``imaginebench build --domain libero`` or
``python -m imaginebench_data.builders.libero``.
"""

from imaginebench_data.pipeline.recipe import FUSED_ADAM, level_recipes, main

# level: (tasks, seed, demo episodes per task, paper episodes per task)
LEVELS = {"train": (6, 15000, 30, 1000), "rephrase": (6, 16000, 8, 200), "easy": (12, 17000, 8, 200),
          "hard": (13, 18000, 5, 200)}
DESCRIPTIONS = {
    "train": "the 6 training tasks (pick, place; training phrasings)",
    "rephrase": "the 6 training tasks with rephrase-only phrasings",
    "easy": "the 12 easy tasks (pick-and-place, place next to another item, reach)",
    "hard": "the 13 hard tasks (sequential, aside, all, out of the basket)",
}

RECIPES = level_recipes("libero", "LIBERO", LEVELS, DESCRIPTIONS,
                        train_levers={"demo": FUSED_ADAM})

if __name__ == "__main__":
    main(RECIPES)
