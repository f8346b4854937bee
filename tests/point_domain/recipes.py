"""The point domain's recipes: four real levels and the imagined and verified twins of three."""

from imaginebench_data.pipeline.recipe import level_recipes

LEVELS = {"train": (2, 90), "rephrase": (2, 91), "easy": (2, 92), "hard": (1, 93)}
DESCRIPTIONS = {level: f"the {level} targets" for level in LEVELS}
COUNTS = {level: (tasks, seed, 10, 50) for level, (tasks, seed) in LEVELS.items()}  # 10 per task at demo
RECIPES = level_recipes("point", "Point", COUNTS, DESCRIPTIONS)
