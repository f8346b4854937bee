"""Reference scores and the description in a dataset's Minari metadata, read in a fresh process."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

from imaginebench_data.cli import app
from imaginebench_data.quality.reference import expert_return, random_return

EASY = "imaginebench/clevr-easy-real-v0"


@pytest.fixture
def built(minari_root, tmp_path):
    result = CliRunner().invoke(app, ["build", EASY, "--episodes", "3", "--workers", "1",
                                      "--cards-dir", str(tmp_path / "cards")])
    assert result.exit_code == 0, result.output


def test_clevr_easy_references_are_random_play_and_the_one_push_expert():
    """CLEVR easy pays 1 on the push that reaches the goal: the expert's one push earns 1 in
    every episode; random pushes rarely reach it in one step."""
    assert expert_return("clevr", "easy", episodes=4) == 1.0
    assert 0.0 <= random_return("clevr", "easy", episodes=4) < 0.5
    assert random_return("clevr", "easy", episodes=4) == random_return("clevr", "easy", episodes=4)  # seeded


def test_get_normalized_score_works_in_a_fresh_process(built, minari_root):
    script = (
        "import json, minari, numpy as np\n"
        f"ds = minari.load_dataset({EASY!r})\n"
        "m = ds.storage.metadata\n"
        "scores = minari.get_normalized_score(ds, np.array([m['ref_min_score'], m['ref_max_score']]))\n"
        "print(json.dumps({'scores': scores.tolist(), 'min': m['ref_min_score'], 'max': m['ref_max_score'],\n"
        "                  'n': m['num_episodes_average_score'], 'permalink': m.get('code_permalink'),\n"
        "                  'description': m['description']}))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd="/",
                         env={**os.environ, "MINARI_DATASETS_PATH": str(minari_root)})
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout.strip().splitlines()[-1])
    assert np.allclose(found["scores"], [0.0, 1.0])
    episodes = int(os.environ["IMAGINEBENCH_REFERENCE_EPISODES"])
    assert found["n"] == episodes
    assert found["min"] == random_return("clevr", "easy", episodes)
    assert found["max"] == expert_return("clevr", "easy", episodes) == 1.0
    assert found["permalink"] is None  # no placeholder
    assert "goal consistency 100.0%" in found["description"] and "3 episodes" in found["description"]


def test_minari_show_prints_what_the_card_measured(built, minari_root):
    out = subprocess.run([str(os.path.join(os.path.dirname(sys.executable), "minari")), "show", EASY],
                         capture_output=True, text=True,
                         env={**os.environ, "MINARI_DATASETS_PATH": str(minari_root), "COLUMNS": "200"})
    assert out.returncode == 0, out.stderr
    assert "Reference scores" in out.stdout and "illegal states 0.0%" in out.stdout


def test_the_references_play_whole_passes_through_the_tasks():
    from imaginebench_data.quality.reference import reference_episodes

    tasks = (84, 20, 12, 10, 8, 4, 3, 2, 1)
    assert [reference_episodes(n) for n in tasks] == [84, 20, 12, 10, 16, 12, 12, 10, 10]
    assert reference_episodes(6, at_least=2) == 6


def test_the_experts_own_data_normalises_to_one_on_a_level_of_many_tasks(minari_root, tmp_path, monkeypatch):
    """BabyAI rephrase has 84 tasks of four kinds; references over its first 10 (every one a "go
    to", as before 2026-12-07) put the expert's own data at 1.34 of the expert."""
    import minari

    from imaginebench_data.quality import reference

    monkeypatch.delenv("IMAGINEBENCH_REFERENCE_EPISODES")  # the default: whole passes
    rephrase = "imaginebench/babyai-rephrase-real-v0"
    result = CliRunner().invoke(app, ["build", rephrase, "--episodes", "168", "--workers", "1",
                                      "--cards-dir", str(tmp_path / "cards")])
    assert result.exit_code == 0, result.output
    dataset = minari.load_dataset(rephrase)
    metadata = dataset.storage.metadata
    assert metadata["num_episodes_average_score"] == 84
    returns = np.array([episode.rewards.sum() for episode in dataset.iterate_episodes()])
    assert abs(minari.get_normalized_score(dataset, returns).mean() - 1.0) < 0.05
    low = reference.random_return("babyai", "rephrase", 10)
    high = reference.expert_return("babyai", "rephrase", 10)
    assert (returns.mean() - low) / (high - low) > 1.2  # what the first ten tasks alone made of the same data
