"""Bit-reproducible imagination: grounding and imagining twice, in separate processes that
differ in thread settings, worker counts and the kernels the CPU would pick, give the same
checkpoint hash and the same arrays."""

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import replace

import torch

from imaginebench_data.imagine.determinism import COMPUTE_THREADS, pinned
from imaginebench_data.pipeline.build import build
from imaginebench_data.pipeline.recipe import load_recipes

TRAIN = "imaginebench/clevr-train-real-v0"
HARD = "imaginebench/clevr-hard-imaginary-v0"

SCRIPT = """
import json, sys
from dataclasses import replace
from imaginebench_data.imagine import numerics
numerics.choose("portable")  # what the imaginebench command does for CLEVR, first
import minari, torch
from imaginebench_data.imagine import checkpoints as store
from imaginebench_data.pipeline.build import build
from imaginebench_data.pipeline.recipe import load_recipes

HARD = "imaginebench/clevr-hard-imaginary-v0"
torch.set_num_threads(int(sys.argv[1]))  # what the machine would choose
store.EVIDENCE_EPISODES = 8
recipes = {i: replace(r, train_epochs=1) for i, r in load_recipes().items()}
result = build(HARD, episodes=6, workers=int(sys.argv[2]), force=True, cards_dir=sys.argv[3],
               recipes=recipes, progress=False)
states = [ep.observations["state"].tolist() for ep in minari.load_dataset(HARD).iterate_episodes()]
print(json.dumps({"hash": result.card.provenance["checkpoint_hash"], "checksum": result.card.checksum,
                  "numerics": result.card.provenance["training"]["numerics"],
                  "states": states, "threads_after": torch.get_num_threads()}))
"""


def ground_and_imagine(minari_root, tmp_path, name: str, threads: int, workers: int, **cpu) -> dict:
    """``cpu``: environment variables standing for another CPU's choice of kernels."""
    env = {**os.environ, "MINARI_DATASETS_PATH": str(minari_root), "OMP_NUM_THREADS": str(threads),
           "IMAGINEBENCH_MODELS": str(tmp_path / f"models-{name}"), **cpu}
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(SCRIPT), str(threads), str(workers),
                             str(tmp_path / f"cards-{name}")], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_same_seed_same_bits_in_separate_processes(minari_root, tmp_path):
    recipes = {i: replace(r, train_epochs=1) for i, r in load_recipes().items()}
    build(TRAIN, episodes=20, workers=1, cards_dir=tmp_path / "cards", recipes=recipes, progress=False)
    one = ground_and_imagine(minari_root, tmp_path, "a", threads=1, workers=1)
    # MKL's own branch choice, AVX-512 ATen kernels and other oneDNN ones (the sentence encoder's
    # GELU), as a CPU other than the first would pick
    other = ground_and_imagine(minari_root, tmp_path, "b", threads=4, workers=2, MKL_CBWR="AUTO",
                               ATEN_CPU_CAPABILITY="avx512", ONEDNN_MAX_CPU_ISA="SSE41")
    assert one["numerics"] == other["numerics"] == "portable"
    assert one["hash"] == other["hash"]
    assert one["states"] == other["states"]  # every imagined number, bit for bit
    assert one["checksum"] == other["checksum"]
    assert one["threads_after"] == 1 and other["threads_after"] == 4  # the caller's setting is restored


def test_pinned_sets_and_restores_torch_settings():
    before = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(1)
    try:
        with pinned():
            assert torch.get_num_threads() == COMPUTE_THREADS
            assert torch.are_deterministic_algorithms_enabled()
        assert torch.get_num_threads() == 1
        assert torch.are_deterministic_algorithms_enabled() == before[1]
    finally:
        torch.set_num_threads(before[0])


def test_committed_model_cards_name_the_folder_their_recipe_grounds(monkeypatch):
    """Every committed imagined and verified card names the checkpoint folder its recipe's
    ``grounding`` gives with the committed training set's checksum: a change to a recipe's
    levers, or to what names a folder, that would leave the committed sets unreproducible
    fails here, not on a fresh clone an hour later."""
    from pathlib import Path
    from types import SimpleNamespace

    from imaginebench_data.imagine import checkpoints
    from imaginebench_data.pipeline.build import default_cards_dir
    from imaginebench_data.pipeline.recipe import SCALES

    monkeypatch.setattr(checkpoints, "default_device", lambda: "cpu")  # where the cards were built
    recipes = load_recipes()
    cards = Path(__file__).resolve().parent.parent / "cards"
    checked = 0
    for scale in SCALES:
        for recipe in recipes.values():
            folder = default_cards_dir(recipe.dataset_id, scale, root=cards)
            card = folder / f"{recipe.dataset_id.name}.json"
            if recipe.train_from is None or not card.is_file():
                continue
            train = json.loads((folder / f"{recipe.train_from.name}.json").read_text())["checksum"]
            stand_in = SimpleNamespace(checksum=train)
            monkeypatch.setattr(checkpoints, "read_card", lambda _, stored=stand_in: stored)
            named = checkpoints.checkpoint_dir(str(recipe.train_from), "scratch", 0, "minilm",
                                               recipe.grounding(scale)).name
            committed = json.loads(card.read_text())["provenance"]["checkpoint"]
            assert named == committed, (scale, str(recipe.dataset_id))
            checked += 1
    assert checked >= 25  # the 25 demo sets of five domains, and the paper ones committed
