"""Building, writing and reading datasets the way a user would."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from fresh import run_fresh

import imaginebench_data.pipeline.build as pipeline
import imaginebench_data.pipeline.generators as generators
from imaginebench_data import get_domain
from imaginebench_data.cards.card import SCHEMA_VERSION, Card
from imaginebench_data.core.text import observation_space
from imaginebench_data.datasets.read import DatasetNotFoundError, open_dataset
from imaginebench_data.datasets.validate import DatasetValidationError, validate_episode
from imaginebench_data.datasets.writer import DatasetExistsError
from imaginebench_data.pipeline.recipe import Recipe
from imaginebench_data.pipeline.rollout import expert_episode
from imaginebench_data.quality.checkers import INFO_KEYS, annotate

TRAIN = "imaginebench/clevr-train-real-v0"
EASY = "imaginebench/clevr-easy-real-v0"
RECIPES = {
    TRAIN: Recipe(TRAIN, episodes={"demo": 6, "paper": 6}, seed=5, description="test"),
    EASY: Recipe(EASY, episodes={"demo": 4, "paper": 4}, seed=6, description="test"),
}
CARD_KEYS = {"id", "domain", "level", "source", "scale", "episodes", "steps", "goal_consistency",
             "transition_error_rate", "illegal_state_rate", "illegal_by_kind", "per_task",
             "provenance", "checksum"}


def build(dataset_id, tmp_path, workers=1, **kwargs):
    return pipeline.build(dataset_id, recipes=RECIPES, workers=workers, progress=False,
                          cards_dir=tmp_path / "cards", **kwargs)


def test_round_trip_and_env_recovery_in_a_fresh_process(minari_root, tmp_path):
    result = build(TRAIN, tmp_path)
    out = run_fresh(
        """
        import json, sys, minari
        assert not any(m.startswith("imaginebench") for m in sys.modules)
        ds = minari.load_dataset("imaginebench/clevr-train-real-v0")
        env = ds.recover_environment(eval_env=True)
        obs, info = env.reset(seed=0)
        ep = ds[0]
        first = {"state": ep.observations["state"][0], "instruction": ep.observations["instruction"][0]}
        print(json.dumps({
            "episodes": ds.total_episodes, "steps": ds.total_steps,
            "state_rows": len(ep.observations["state"]), "actions": len(ep.actions),
            "contains": bool(ds.observation_space.contains(first))
                        and bool(env.observation_space.contains(obs)),
            "level": env.spec.kwargs["level"], "infos": sorted(ep.infos),
            "card_checksum": ds.storage.metadata["imaginebench_card"]["checksum"],
        }))
        """,
        minari_root,
    )
    seen = json.loads(out)
    assert seen["episodes"] == 6 and seen["steps"] == result.card.steps
    assert seen["state_rows"] == seen["actions"] + 1
    assert seen["contains"] and seen["level"] == "train"
    assert seen["infos"] == sorted(INFO_KEYS)
    assert seen["card_checksum"] == result.card.checksum
    listing = subprocess.run([os.path.join(os.path.dirname(sys.executable), "minari"), "list", "local"],
                             capture_output=True, text=True,
                             env={**os.environ, "MINARI_DATASETS_PATH": str(minari_root), "COLUMNS": "200"})
    assert "imaginebench/clevr-train-real-v0" in listing.stdout


def test_card_has_its_keys_and_files(minari_root, tmp_path):
    card = build(EASY, tmp_path).card
    assert CARD_KEYS <= set(card.to_json())
    assert card.to_json()["schema_version"] == SCHEMA_VERSION
    for key in ("goal_consistency", "transition_error_rate", "illegal_state_rate"):
        assert 0.0 <= getattr(card, key) <= 1.0
    assert card.episodes == 4 and card.steps == 4  # easy episodes last one step
    assert card.transition_error_rate == 0.0 and card.illegal_state_rate == 0.0
    for suffix in (".json", ".md", ".png"):
        assert (tmp_path / "cards" / f"clevr-easy-real-v0{suffix}").stat().st_size > 0
    on_disk = json.loads((tmp_path / "cards" / "clevr-easy-real-v0.json").read_text())
    assert on_disk == card.to_json()
    assert Card.from_json(on_disk) == card


def test_refuses_to_overwrite_without_force(minari_root, tmp_path):
    first = build(EASY, tmp_path, workers=2)
    with pytest.raises(DatasetExistsError, match="--force"):
        build(EASY, tmp_path)
    again = build(EASY, tmp_path, force=True)
    # Same recipe and seed give the same arrays, whatever the number of worker processes.
    assert again.card.checksum == first.card.checksum


def test_an_existing_imagined_set_is_refused_before_its_model_is_grounded(minari_root, tmp_path, monkeypatch):
    """Found 2026-12-06: the refusal came from the writer, after the grounding (minutes to an hour)
    and the reference scores; now before either."""
    hard = "imaginebench/clevr-hard-imaginary-v0"
    (minari_root / hard).mkdir(parents=True)  # an installed version, as far as the check can tell

    def no_work(*args, **kwargs):
        raise AssertionError("the build went to work on a dataset it must refuse")

    monkeypatch.setattr(pipeline, "imagined_episodes", no_work)
    with pytest.raises(DatasetExistsError, match=f"dataset {hard} already exists.*--force"):
        pipeline.build(hard, progress=False, cards_dir=tmp_path / "cards")
    with pytest.raises(AssertionError, match="went to work"):  # with --force it would go to work
        pipeline.build(hard, progress=False, cards_dir=tmp_path / "cards", force=True)


def test_failed_build_leaves_previous_version_intact(minari_root, tmp_path, monkeypatch):
    first = build(TRAIN, tmp_path)
    real_annotate = annotate
    calls = []

    def annotate_then_break(domain, episode, sim):
        episode = real_annotate(domain, episode, sim)
        calls.append(1)
        if len(calls) == 4:
            episode.states = episode.states.astype(np.float64)  # a dtype the space does not allow
        return episode

    monkeypatch.setattr(generators, "annotate", annotate_then_break)
    with pytest.raises(DatasetValidationError, match="episode 3 .*float64"):
        build(TRAIN, tmp_path, force=True)
    _, card = open_dataset(TRAIN)
    assert card.checksum == first.card.checksum
    leftovers = [p.name for p in minari_root.iterdir() if p.name.startswith(".")]
    assert leftovers == []


def test_validation_names_the_problem():
    clevr = get_domain("clevr")
    sim = clevr.simulator()
    episode = annotate(clevr, expert_episode(clevr, "train", 0, 1, sim), sim)
    episode.states = episode.states[:-1]
    with pytest.raises(DatasetValidationError, match=r"T\+1"):
        validate_episode(0, episode, observation_space(clevr.state_space), clevr.action_space, INFO_KEYS)


def test_unknown_and_malformed_ids(minari_root):
    with pytest.raises(DatasetNotFoundError, match="clevr-hard-real-v7"):
        open_dataset("imaginebench/clevr-hard-real-v7")
    with pytest.raises(ValueError, match="malformed dataset id"):
        open_dataset("imaginebench/clevr-hard")
