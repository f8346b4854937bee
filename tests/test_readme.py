"""The README's Python snippets run, as written, in a fresh process, on tiny builds of the
datasets they name (a model grounded for one epoch stands in for the default one)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from imaginebench_data.imagine import checkpoints
from imaginebench_data.pipeline.build import build
from imaginebench_data.pipeline.recipe import load_recipes

README = Path(__file__).resolve().parents[1] / "README.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
TINY = {"imaginebench/clevr-train-real-v0": 10, "imaginebench/clevr-hard-imaginary-v0": 4,
        "imaginebench/clevr-hard-real-v0": 4}


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    root = tmp_path_factory.mktemp("readme")
    recipes = {i: replace(r, train_epochs=1) for i, r in load_recipes().items()}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MINARI_DATASETS_PATH", str(root / "minari"))
        patch.setenv("IMAGINEBENCH_MODELS", str(root / "models"))
        patch.setattr(checkpoints, "EVIDENCE_EPISODES", 4)
        for dataset_id, episodes in TINY.items():
            build(dataset_id, episodes=episodes, workers=1, cards_dir=root / "cards", recipes=recipes,
                  progress=False)
    return root


def test_the_readme_has_snippets():
    assert len(SNIPPETS) >= 2


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_a_readme_snippet_runs_as_written(datasets, index):
    names = set(re.findall(r'"(imaginebench/[\w-]+)"', SNIPPETS[index]))
    assert names <= set(TINY), f"snippet {index} needs {names - set(TINY)} built first"
    env = {**os.environ, "MINARI_DATASETS_PATH": str(datasets / "minari"),
           "IMAGINEBENCH_CACHE": str(datasets / "cache")}
    result = subprocess.run([sys.executable, "-c", SNIPPETS[index]], capture_output=True, text=True, env=env,
                            cwd=datasets)
    assert result.returncode == 0, f"README snippet {index}:\n{SNIPPETS[index]}\n{result.stderr[-3000:]}"
