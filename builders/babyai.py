"""Recipes of the BabyAI datasets (``make demo DOMAINS=babyai`` builds them).

- ``babyai-train-real``: expert rollouts of the 84 training tasks (go-to, open, pick-up,
  put-next over colours and types), training phrasings.
- ``babyai-{rephrase,easy,hard}-real``: the oracle: expert rollouts of each level's tasks
  (the 84 goals with rephrase-only phrasings; the 4 easy tasks; the 3 hard tasks).
- ``babyai-{rephrase,easy,hard}-imaginary``: rollouts imagined by a language model grounded
  on ``babyai-train-real`` (KALM; see ``imaginebench_data/imagine``). Each shares its oracle's
  seed, so imaginary episode ``i`` has the oracle episode ``i``'s task, phrasing and real
  start state.

Scales. Demo: 10 episodes per training task (840), 5 per rephrase task (420), 100 per easy
and hard task. Paper: the original's BabyAI files are not public; the one known count is
its imaginary easy file, N = 18,000 episodes (Hugging Face viewer), used here for easy and
hard alike; train and rephrase get 100 episodes per task (8,400).

Episodes cycle through the level's tasks, so every task gets the same number of episodes
(up to one) at every scale.

Run one with ``imaginebench build imaginebench/babyai-train-real-v0 --scale demo``; all of them with
``python -m imaginebench_data.builders.babyai [--scale paper]``.
"""

from imaginebench_data.pipeline.recipe import FUSED_ADAM, Recipe, main, model_twins

SCALES = {"train": (840, 8400, 11000), "rephrase": (420, 8400, 12000), "easy": (400, 18000, 13000),
          "hard": (300, 18000, 14000)}
DESCRIPTIONS = {
    "train": "BabyAI expert rollouts of the 84 training tasks (go-to, open, pick-up, put-next; "
    "training phrasings).",
    "rephrase": "Oracle: BabyAI expert rollouts of the 84 training goals with rephrase-only phrasings.",
    "easy": "Oracle: BabyAI expert rollouts of the 4 easy tasks (open then go to, open then pick up, "
    "go to a wall, go to the centre).",
    "hard": "Oracle: BabyAI expert rollouts of the 3 hard tasks (key then open the locked door, "
    "items in a line, items in a pile).",
}

RECIPES = [
    Recipe(
        f"imaginebench/babyai-{level}-real-v0",
        episodes={"demo": demo, "paper": paper},
        seed=seed,
        default=False,
        description=DESCRIPTIONS[level],
    )
    for level, (demo, paper, seed) in SCALES.items()
]

RECIPES += [twin for recipe in RECIPES if recipe.level != "train"
            for twin in model_twins(recipe, train_levers={"demo": FUSED_ADAM})]

if __name__ == "__main__":
    main(RECIPES)
