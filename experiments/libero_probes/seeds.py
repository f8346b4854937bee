"""LIBERO's demo grounding over seeds, with and without one-step rollouts, each probed by
``subgoals.py`` (2026-12-05; docs/experiments.md, "LIBERO: one-step rollouts over three
grounding seeds").

Each ARM:SEED grounds the model the builds would with ``--seed SEED`` and the arm's levers on
top (the checkpoint folder ``imaginebench ground`` names; no evidence is measured), then runs
``subgoals.py`` on it in a process of its own and prints what it prints.

Usage: MINARI_DATASETS_PATH=... python experiments/libero_probes/seeds.py one-step:1 committed:1 ...
"""

import subprocess
import sys
import time
from pathlib import Path

from imaginebench_data.imagine import numerics

numerics.choose("portable")  # before torch's first operation, as the build does

from imaginebench_data.imagine.checkpoint import training_info  # noqa: E402
from imaginebench_data.imagine.checkpoints import ensure_checkpoint  # noqa: E402
from imaginebench_data.pipeline.recipe import load_recipes  # noqa: E402

TRAIN = "imaginebench/libero-train-real-v0"
ARMS = {"committed": {}, "one-step": {"steps_per_episode": 16, "short_apart": True}}
PROBE = Path(__file__).with_name("subgoals.py")


def settings(arm: str, seed: int):
    """The builds' settings (``Recipe.grounding`` at demo scale) with the arm's on top, as
    `imaginebench ground --seed SEED` makes them."""
    recipe = next(r for r in load_recipes().values() if str(r.train_from) == TRAIN)
    return recipe.grounding("demo", **ARMS[arm], seed=seed)


def main(runs: list[str]) -> None:
    for run in runs:
        arm, seed = run.split(":")
        start = time.time()
        path = ensure_checkpoint(TRAIN, settings=settings(arm, int(seed)), evidence=False, progress=False)
        print(f"### {arm} seed {seed}: {path.name}, hash {training_info(path)['hash']}, "
              f"{time.time() - start:.0f} s", flush=True)
        probe = subprocess.run([sys.executable, str(PROBE), str(path)], capture_output=True, text=True)
        print(probe.stdout, probe.stderr[-2000:] if probe.returncode else "", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
