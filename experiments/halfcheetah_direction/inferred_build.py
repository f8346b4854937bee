"""Build HalfCheetah's three imagined sets from the grounding whose imagined states follow the
instruction (the builds' demo levers plus 64 dynamics samples, the short sequences batched
apart and the history counters hidden), their stored actions the model's or inferred.

Usage: python experiments/halfcheetah_direction/inferred_build.py {model,inferred} CARDS_DIR
(into the Minari folder of MINARI_DATASETS_PATH, the checkpoint into IMAGINEBENCH_MODELS:
point both at scratch folders; the training set must be built there first).
"""

import dataclasses
import sys
import time

from imaginebench_data.imagine.numerics import choose

choose("portable")  # before torch's first operation: the recipes' numerics

from imaginebench_data.pipeline.build import build  # noqa: E402
from imaginebench_data.pipeline.recipe import FUSED_ADAM, load_recipes  # noqa: E402

LEVERS = {**FUSED_ADAM, "dynamics_per_episode": 64, "short_apart": True, "hide_history": True}


def main(actions: str, cards_dir: str) -> None:
    recipes = load_recipes()
    for key, recipe in recipes.items():
        if recipe.domain == "halfcheetah" and recipe.generator == "imagine":
            recipes[key] = dataclasses.replace(recipe, train_levers={"demo": LEVERS})
    for level in ("rephrase", "easy", "hard"):
        dataset_id = f"imaginebench/halfcheetah-{level}-imaginary-v0"
        started = time.perf_counter()
        build(dataset_id, recipes=recipes, force=True, actions=actions, cards_dir=cards_dir)
        print(f"{dataset_id} ({actions} actions): {time.perf_counter() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:3])
