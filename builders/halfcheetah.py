"""Recipes of the HalfCheetah datasets (``make demo DOMAINS=halfcheetah`` builds them).

- ``halfcheetah-train-real``: expert (CEM planner) rollouts of the 4 training tasks (run and
  jump, forward and backward), training phrasings.
- ``halfcheetah-{rephrase,easy,hard}-real``: the oracle, expert rollouts of each level's tasks
  (rephrase: the 4 training goals with unseen phrasings; easy: run forward / backward fast;
  hard: forward-then-backward, backward-then-forward, jump-in-place).
- ``halfcheetah-{rephrase,easy,hard}-imaginary``: rollouts imagined by a language model
  grounded on ``halfcheetah-train-real``, sharing their oracle's seed (same task, phrasing
  and real start state per episode).

Demo scale: 40 episodes per task (the four real sets, 30,845 steps, build in 3.3 minutes with
two workers on this 2-core machine: the planner takes about 12 ms per step). Paper scale: 1,000
per task for train-real and 200 per task for the other levels (the original does not state its
sizes): 5,800 episodes, about 37 minutes with two workers (measured per-episode rates).

Build one with ``imaginebench build imaginebench/halfcheetah-train-real-v0`` (two worker processes
by default), all seven with ``imaginebench build --domain halfcheetah`` or
``python -m imaginebench_data.builders.halfcheetah``.
"""

from imaginebench_data.pipeline.recipe import FUSED_ADAM, level_recipes, main

# level: (tasks, seed)
LEVELS = {"train": (4, 21000), "rephrase": (4, 22000), "easy": (2, 23000), "hard": (3, 24000)}
DEMO_PER_TASK = 40
PAPER_PER_TASK = {"train": 1000, "rephrase": 200, "easy": 200, "hard": 200}
DESCRIPTIONS = {
    "train": "the 4 training tasks (run and jump a step, forward and backward; training phrasings)",
    "rephrase": "the 4 training tasks with rephrase-only phrasings",
    "easy": "the 2 easy tasks (run forward / backward fast)",
    "hard": "the 3 hard tasks (forward then backward, backward then forward, jump in place)",
}


COUNTS = {level: (tasks, seed, DEMO_PER_TASK, PAPER_PER_TASK[level])
          for level, (tasks, seed) in LEVELS.items()}
RECIPES = level_recipes("halfcheetah", "HalfCheetah", COUNTS, DESCRIPTIONS,
                        train_levers={"demo": FUSED_ADAM})

if __name__ == "__main__":
    main(RECIPES)
