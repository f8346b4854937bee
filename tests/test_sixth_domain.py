"""A sixth domain that lives only in tests/ (``point_domain``) runs the whole pipeline with no
edit outside the test folder: real build, card, verify, grounding a tiny model, imaginary
build, loader, eval env, and import of files written in the original release's layout."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import point_domain
import pytest
from point_domain.sim import move
from point_domain.tasks import tasks

import imaginebench_data as ib
from imaginebench_data.datasets.read import open_dataset, stored_episodes
from imaginebench_data.datasets.verify import verify
from imaginebench_data.imagine import checkpoints
from imaginebench_data.imports import import_dir
from imaginebench_data.pipeline.build import build
from imaginebench_data.pipeline.recipe import load_recipes

TRAIN = "imaginebench/point-train-real-v0"
EASY_REAL = "imaginebench/point-easy-real-v0"
EASY_IMAGINED = "imaginebench/point-easy-imaginary-v0"


def test_the_registry_knows_the_point_domain():
    assert "point" in ib.domain_names() and ib.get_domain("point") is point_domain.DOMAIN
    recipes = load_recipes()
    assert {i for i in recipes if "point" in i} == {
        f"imaginebench/point-{level}-{source}-v0" for level in ("train", "rephrase", "easy", "hard")
        for source in ("real", "imaginary", "verified") if level != "train" or source == "real"}
    env = ib.make_env("point", "easy")
    observation, _ = env.reset(seed=3)
    _, reward, _, _, info = env.step(2)
    assert env.observation_space.contains(observation) and info["task_id"] == "reach+0.3"
    assert reward == pytest.approx(0.1 if observation["state"][0] < 0.25 else -0.1, abs=1e-6)


def test_real_and_imagined_datasets_of_the_point_domain(minari_root, tmp_path, monkeypatch):
    monkeypatch.setenv("IMAGINEBENCH_MODELS", str(tmp_path / "models"))
    monkeypatch.setattr(checkpoints, "EVIDENCE_EPISODES", 8)
    cards = tmp_path / "cards"
    recipes = {i: replace(r, train_epochs=2) for i, r in load_recipes().items()}

    train = build(TRAIN, episodes=40, workers=1, cards_dir=cards, recipes=recipes, progress=False).card
    assert train.episodes == 40 and train.goal_consistency == 1.0  # the expert always arrives
    assert train.illegal_state_rate == 0.0 and train.transition_error_rate == 0.0
    assert (cards / "point-train-real-v0.md").is_file()
    dataset, card = open_dataset(TRAIN)
    for episode in stored_episodes(dataset, point_domain.DOMAIN):  # stored arrays are what the sim does
        np.testing.assert_array_equal(episode.states[1:], move(episode.states[:-1], episode.actions))
    assert card == train and verify(TRAIN).ok

    imagined = build(EASY_IMAGINED, episodes=8, workers=1, cards_dir=cards, recipes=recipes, progress=False)
    card = imagined.card
    assert card.episodes == 8 and card.provenance["trained_on"] == TRAIN
    assert card.provenance["checkpoint_hash"]
    assert set(card.per_task) <= {task.id for task in tasks("easy")}
    assert verify(EASY_IMAGINED).ok

    real = ib.load(TRAIN)
    assert len(real) == train.steps and real.observations.shape == (train.steps, 1)
    np.testing.assert_array_equal(real.next_observations, move(real.observations, real.actions))
    batch = ib.Sampler({real: 1, ib.load(EASY_IMAGINED): 1}, encoder=None).sample(16, as_numpy=True)
    assert batch["observations"].shape == (16, 1) and np.bincount(batch["dataset"]).tolist() == [8, 8]


def test_import_of_point_files_in_the_original_layout(minari_root, tmp_path):
    """``point_easy.npy``: a pickled dict as the original release writes them, with the
    768-number instruction encoding after the state, our phrasings as the instructions."""
    rng = np.random.default_rng(0)
    sim, easy = point_domain.DOMAIN.simulator(), tasks("easy")
    rows, length = 6, 12
    observations = np.zeros((rows, length, 1 + 768), np.float32)
    actions = np.zeros((rows, length, 1), np.float32)
    masks = np.zeros((rows, length), np.float32)
    texts, expected = [], []
    for row in range(rows):
        task = easy[row % 2]
        state = sim.reset(task, rng)
        states, steps = [state], 0
        while not task.succeeded(states[-1], 1, states[-1]) and steps < length - 1:
            action = 2 if task.goal["target"] > states[-1][0] else 0
            states.append(sim.step(action))
            actions[row, steps, 0], steps = action, steps + 1
        observations[row, :steps + 1, 0] = np.concatenate(states)
        observations[row, :, 1:] = rng.normal(size=768)
        masks[row, :steps + 1] = 1
        texts.append([task.phrasings[0]] * (steps + 1))
        expected.append((task.id, np.concatenate(states)))
    source = tmp_path / "original"
    source.mkdir()
    np.save(source / "point_easy.npy", {"observations": observations, "actions": actions,
                                          "rewards": np.zeros((rows, length), np.float32),
                                          "masks": masks, "instructions": texts}, allow_pickle=True)
    results = import_dir(source, cards_dir=tmp_path / "cards", progress=False)
    assert [str(r.dataset_id) for r in results] == ["imaginebench-original/point-easy-imaginary-v0"]
    dataset, card = open_dataset("imaginebench-original/point-easy-imaginary-v0")
    episodes = list(stored_episodes(dataset, point_domain.DOMAIN))
    assert len(episodes) == rows and card.transition_error_rate == 0.0
    for episode, (task_id, states) in zip(episodes, expected):
        # no next_observations: the last action is dropped and the states are o_0 .. o_{L-1}
        assert episode.task_id == task_id
        np.testing.assert_array_equal(episode.states[:, 0], states[:len(episode.states)])
